#!/usr/bin/env bash
# run_neighbors_gpu.sh -- pvec's neighbour benchmark and Cabana's (shared/peers, copied to
# PEERS) side by side on the GPU machine, in one call. Logs to $OUT (or build-gpu/out):
# neighbors.log (bench_neighbors), cabana_verlet_sorted.log / _random.log
# (NeighborVerletPerformance, cell-ordered and random input), cabana_linkedcell.log (each with
# the program's own result file appended).
#
#   bash bench/run_neighbors_gpu.sh BUILD_DIR PEERS [SIZES] [SORT_SIZES]
set -u -o pipefail
build=${1:?build dir}
peers=${2:?peers dir (a copy of shared/peers)}
sizes=${3:-1e6,1e7,1e8}
sort_sizes=${4:-1e7,1e8}
logs=${OUT:-$build/out}
mkdir -p "$logs"
cab=$peers/cabana
csv=$(echo "$sizes" | python3 -c "import sys; print(','.join(str(int(float(s))) for s in sys.stdin.read().strip().split(',')))")
nl_sizes=$(echo "$csv" | tr ',' '\n' | awk '$1 <= 10000000' | paste -sd,)
rc=0
timeout 300 "$build/bench/bench_neighbors" --sizes "$sizes" --sort-sizes "$sort_sizes" \
  > "$logs/neighbors.log" 2>&1 || rc=1
if [ -x "$cab/NeighborVerletPerformance_cuda_sm90" ]; then
  for sort in 1 0; do
    name=$([ $sort = 1 ] && echo sorted || echo random)
    CABANA_NL_SIZES=$nl_sizes CABANA_NL_HOST_SIZES=0 CABANA_NL_RUNS=5 CABANA_NL_SORT=$sort \
      CABANA_NL_LISTS=2d_full_tv,2d_half_tv,csr_full_tv CABANA_NL_FORCE=1 \
      timeout 200 "$cab/NeighborVerletPerformance_cuda_sm90" "/tmp/cabana_verlet_$name.out" large \
      > "$logs/cabana_verlet_$name.log" 2>&1 || rc=1
    cat /tmp/cabana_verlet_"$name".out* >> "$logs/cabana_verlet_$name.log" 2>/dev/null
  done
  for sort in 1 0; do
    CABANA_LC_SIZES=$csv CABANA_LC_HOST_SIZES=0 CABANA_LC_RUNS=5 CABANA_LC_SORT=$sort \
      timeout 120 "$cab/LinkedCellPerformance_cuda_sm90" "/tmp/cabana_lc_$sort.out" large \
      >> "$logs/cabana_linkedcell.log" 2>&1 || rc=1
    cat /tmp/cabana_lc_"$sort".out* >> "$logs/cabana_linkedcell.log" 2>/dev/null
  done
else
  echo "no Cabana binaries under $cab: peer runs skipped" | tee -a "$logs/neighbors.log"
fi
grep -v '^JSON' "$logs/neighbors.log"
exit $rc
