#!/usr/bin/env bash
# gpu_check.sh -- the GPU machine's part of "done": build everything for sm_90 and run the suite,
# and optionally an A/B of the distribution calls against an older tree. Steps, in any order:
#
#   bash scripts/gpu_check.sh build [BASE]   configure + build build-gpu (tests, examples,
#                                            benchmarks); with BASE (a tree such as .base made
#                                            by `git archive`) also its bench_map_ghost, in parallel
#   bash scripts/gpu_check.sh test           ctest over build-gpu (GPU tests run, not skipped)
#   bash scripts/gpu_check.sh ab BASE        bench_map_ghost of BASE and of this tree, interleaved,
#                                            1 and 2 ranks, sorted order, 2^24 and 2^26
#   bash scripts/gpu_check.sh ncu-cells      Nsight Compute: time and DRAM bytes of every kernel of
#                                            the 10^8 cell list builds (tiled, atomic, radix),
#                                            one line each (bench/ncu_summary.py), then the tile
#                                            pass's limiters (occupancy, warp stalls, memory)
#
# Logs go to $OUT (the device tool collects it) or build-gpu/out: build.log, ctest.log, ab.log,
# ncu_cells.txt.
set -u -o pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
LOGS=${OUT:-$ROOT/build-gpu/out}
mkdir -p "$LOGS"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
J=$(nproc)
step=${1:-}
shift || true

case "$step" in
  build)
    base=${1:-}
    if [ -n "$base" ]; then
      (cmake -S "$base" -B build-base -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DPVEC_BUILD_TESTS=OFF -DPVEC_BUILD_EXAMPLES=OFF -DPVEC_BUILD_FORTRAN=OFF \
        -DPVEC_BUILD_BENCH=ON && cmake --build build-base -j $((J / 3)) --target bench_map_ghost) \
        > "$LOGS/build-base.log" 2>&1 &
    fi
    cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      > "$LOGS/build.log" 2>&1 &&
      cmake --build build-gpu -j "$J" >> "$LOGS/build.log" 2>&1
    rc=$?
    wait
    # nvcc's own diagnostics read "warning #NNN-D:", the host compilers' "warning:".
    grep -E "error|warning: |warning #" "$LOGS/build.log" | head -40
    [ -n "$base" ] && tail -3 "$LOGS/build-base.log"
    echo "build rc=$rc"
    exit $rc
    ;;
  test)
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    ctest --test-dir build-gpu -j 8 --timeout 300 --output-on-failure "$@" > "$LOGS/ctest.log" 2>&1
    rc=$?
    grep -E "tests passed|tests failed|\*\*\*|Failed|Not Run" "$LOGS/ctest.log" | head -40
    grep -c -i "skip" "$LOGS/ctest.log" | sed 's/^/lines mentioning skip: /'
    exit $rc
    ;;
  ab)
    base=build-base/bench/bench_map_ghost
    head=build-gpu/bench/bench_map_ghost
    for round in 1 2 3; do
      for np in 1 2; do
        for who in base head; do
          exe=$base
          [ $who = head ] && exe=$head
          echo "## round $round np $np $who"
          mpiexec --allow-run-as-root --oversubscribe -n $np "$exe" --order sorted \
            --sizes 2^24,2^26
        done
      done
    done > "$LOGS/ab.log" 2>&1
    rc=$?
    grep -v '^JSON' "$LOGS/ab.log" | head -80
    exit $rc
    ;;
  ncu-cells)
    command -v ncu > /dev/null || { echo "ncu-cells: no ncu on this machine"; exit 2; }
    ncu --metrics gpu__time_duration.sum,dram__bytes.sum --csv \
      build-gpu/bench/bench_neighbors --sizes 1e8 --sort-sizes 0 --reps 1 --no-periodic \
      --cells-only > "$LOGS/ncu_cells.csv" 2> "$LOGS/ncu_cells.err"
    rc=$?
    python3 bench/ncu_summary.py "$LOGS/ncu_cells.csv" > "$LOGS/ncu_cells.txt" || rc=1
    rm -f "$LOGS/ncu_cells.csv"
    cat "$LOGS/ncu_cells.txt"
    # The tiled sort's tile pass at 10^8 random, twice (cell list, then its warm-up's twin).
    ncu -k regex:tile_sort_kernel -c 2 --section SpeedOfLight \
      --section Occupancy --section LaunchStats --section WarpStateStats \
      --section SchedulerStats --section MemoryWorkloadAnalysis \
      build-gpu/bench/bench_neighbors --sizes 1e8 --sort-sizes 0 --reps 1 --no-periodic \
      --cells-only > "$LOGS/ncu_tile.txt" 2>&1 || rc=1
    grep -E "Duration|Throughput|Occupancy|Registers|Stall|Warp Cycles|Issued|Eligible" \
      "$LOGS/ncu_tile.txt" | head -60
    exit $rc
    ;;
  *)
    sed -n '2,17p' "$0"
    exit 2
    ;;
esac
