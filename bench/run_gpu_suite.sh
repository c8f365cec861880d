#!/usr/bin/env bash
# run_gpu_suite.sh -- build the pvec benchmarks and run the whole suite on the GPU machine in
# one call (about 8 minutes; --quick: about 2).
#
#   bash bench/run_gpu_suite.sh [--quick] [--only LIST] [--budget SECONDS]
#
#   --quick         every program with --quick (tiny sizes), MPI runs at 2 ranks only
#   --only LIST     comma-separated subset of: kernel,transfer,growth,map,map_host
#                   (transfer includes bench_pinned_alloc)
#                   (map runs both particle orders, random and sorted by cell)
#                   (the build always runs; it is incremental)
#   --budget S      wall-clock budget of the whole call in seconds (default 540, quick 300);
#                   each program gets a time limit that keeps the total inside it, and a
#                   program cut off keeps the lines it already printed
#
# Output goes to $OUT when set (the device tool collects it), else build-bench/results; at most 8
# files: build.log, kernel_bandwidth.log, transfer.log, growth.log, map_ghost.log,
# map_ghost_host.log, results.jsonl (every `JSON` line of every program, prefix stripped),
# summary.txt (per-step status and time, and every target / PASS / FAIL line).
# Exit status: 0 when every step that ran exited 0, else 1.
set -u -o pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
QUICK=0
ONLY="kernel,transfer,growth,map,map_host"
BUDGET=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --only) ONLY="$2"; shift ;;
    --only=*) ONLY="${1#--only=}" ;;
    --budget) BUDGET="$2"; shift ;;
    --budget=*) BUDGET="${1#--budget=}" ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$BUDGET" ] || BUDGET=$([ $QUICK = 1 ] && echo 300 || echo 540)

BUILD="${PVEC_BENCH_BUILD_DIR:-$ROOT/build-bench}"
RES="${OUT:-$BUILD/results}"
mkdir -p "$RES"
SUMMARY="$RES/summary.txt"
: > "$SUMMARY"
START=$(date +%s)
FAILED=0

# Open MPI as root in a container; the single-copy mechanism needs ptrace rights we may lack.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
MPIRUN=(mpiexec --allow-run-as-root --oversubscribe)

want() { case ",$ONLY," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
elapsed() { echo $(( $(date +%s) - START )); }
say() { echo "$*" | tee -a "$SUMMARY"; }

# step NAME LOG LIMIT CMD...: run CMD with a time limit of min(LIMIT, what is left of the
# budget minus a margin for the summary), appending its output to LOG.
step() {
  local name=$1 log=$2 limit=$3
  shift 3
  local left=$(( BUDGET - $(elapsed) - 10 ))
  if [ "$left" -lt 5 ]; then
    say "SKIP    $name (budget spent)"
    FAILED=1
    return
  fi
  [ "$limit" -le "$left" ] || limit=$left
  echo "## $name: $*  (limit ${limit}s)" >> "$log"
  local t0=$(date +%s)
  timeout -k 15 "$limit" "$@" >> "$log" 2>&1
  local rc=$?
  local dt=$(( $(date +%s) - t0 ))
  if [ $rc -eq 0 ]; then
    say "OK      $name (${dt}s)"
  elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    say "TIMEOUT $name (${dt}s, limit ${limit}s; partial output kept)"
    FAILED=1
  else
    say "FAIL    $name (exit $rc, ${dt}s)"
    FAILED=1
  fi
}

# Picks the quick or the full argument list.
pick() { if [ $QUICK = 1 ]; then echo "$1"; else echo "$2"; fi; }

{
  echo "# pvec benchmark suite, $([ $QUICK = 1 ] && echo quick || echo full) mode"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null |
    sed 's/^/# gpu: /'
  echo "# cpus: $(nproc), host memory: $(awk '/MemTotal/ {printf "%.0f GB", $2/1e6}' /proc/meminfo)"
  echo "# mpi: $(mpiexec --version 2>/dev/null | head -1)"
} | tee -a "$SUMMARY"

# ---- Build --------------------------------------------------------------------------------
BLOG="$RES/build.log"
: > "$BLOG"
step configure "$BLOG" 120 cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DPVEC_BUILD_TESTS=OFF -DPVEC_BUILD_EXAMPLES=OFF \
  -DPVEC_BUILD_FORTRAN=OFF -DPVEC_BUILD_BENCH=ON
step build "$BLOG" 300 cmake --build "$BUILD" -j "$(nproc)" --target bench_kernel_bandwidth \
  bench_transfer bench_pinned_alloc bench_growth bench_map_ghost bench_map_ghost_host
B="$BUILD/bench"
if [ ! -x "$B/bench_map_ghost" ]; then
  say "build failed: see build.log"
  tail -30 "$BLOG"
  exit 1
fi

# ---- Programs (limits are for the full mode; quick runs take seconds) ----------------------
if want kernel; then
  L="$RES/kernel_bandwidth.log"; : > "$L"
  # shellcheck disable=SC2046
  step kernel_bandwidth "$L" 45 "$B/bench_kernel_bandwidth" $(pick --quick "")
fi
if want transfer; then
  L="$RES/transfer.log"; : > "$L"
  # 6 reps from 1e6: a pageable 1e8 round trip alone takes about a second.
  step transfer "$L" 75 "$B/bench_transfer" $(pick --quick "--reps 6")
  # The cost of making pinned blocks (what growth pays per reallocation), in the same log.
  step pinned_alloc "$L" 30 "$B/bench_pinned_alloc" $(pick --quick "")
fi
if want growth; then
  L="$RES/growth.log"; : > "$L"
  # Default top size: 1e8 particles (6.4 GB per mirror; fits 128 GB host / 141 GB device).
  step growth "$L" 90 "$B/bench_growth" $(pick --quick "--max 1e8")
fi
if want map; then
  L="$RES/map_ghost.log"; : > "$L"
  # Both particle orders: random (ghosts and movers scattered over the arrays) and sorted by
  # cell, as codes with cell lists keep them.
  for order in random sorted; do
    if [ $QUICK = 0 ]; then
      step "map_ghost_np1_$order" "$L" 50 "$B/bench_map_ghost" --order $order \
        --sizes 2^20,2^22,2^24,2^26,2^27
    fi
    step "map_ghost_np2_$order" "$L" 80 "${MPIRUN[@]}" -n 2 "$B/bench_map_ghost" --order $order \
      $(pick --quick "--sizes 2^20,2^22,2^24,2^26")
  done
fi
if want map_host; then
  L="$RES/map_ghost_host.log"; : > "$L"
  if [ $QUICK = 0 ]; then
    # 1e7 per rank is left to a separate run (docs/performance.md): a host ghost_get of 1e7
    # particles takes seconds, times 7 calls per rank count.
    step map_ghost_host_np1 "$L" 30 "$B/bench_map_ghost_host" --max 1e6 --reps 5
    step map_ghost_host_np4 "$L" 30 "${MPIRUN[@]}" -n 4 "$B/bench_map_ghost_host" --max 1e6 \
      --reps 5
  fi
  step map_ghost_host_np2 "$L" 30 "${MPIRUN[@]}" -n 2 "$B/bench_map_ghost_host" \
    $(pick --quick "--max 1e6 --reps 5")
fi

# ---- Collect ------------------------------------------------------------------------------
cat "$RES"/*.log 2>/dev/null | grep -h '^JSON ' | sed 's/^JSON //' > "$RES/results.jsonl"
{
  echo "# targets and checks:"
  grep -h -E '^# (target|.*max/min|no allocation)|no CUDA device|^FAIL' "$RES"/*.log 2>/dev/null |
    sed 's/^/  /'
  echo "# $(wc -l < "$RES/results.jsonl") JSON results in results.jsonl; total $(elapsed)s"
} | tee -a "$SUMMARY"
exit $FAILED
