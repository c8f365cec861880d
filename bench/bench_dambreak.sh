#!/usr/bin/env bash
# bench_dambreak.sh -- the SPH dam break (examples/sph) as a benchmark: ratios measured in one
# run, each configuration taking turns with its baseline (ROUNDS rounds, the median of each).
#
#   bash bench/bench_dambreak.sh scaling [RANKS] [example options...]
#       time per step at 1 rank and at RANKS ranks (default 2); prints the speed-up
#   bash bench/bench_dambreak.sh order [example options...]
#       one rank, the Verlet list in id order (the default: sums independent of the rank
#       count) against cell order (--order cell): the force pass ("rates") of each, its ratio,
#       and the list time per step of each (the difference is what the key order costs)
#
# BUILD (default build) names the build folder, ROUNDS (default 2) the rounds. Example options
# default to --steps 2000 --quiet; any given replace them (--quiet is always added). One line
# per run, then `JSON {...}` lines for scripts. Ranks are bound to cores (--bind-to core) with
# one host thread each (OMP_NUM_THREADS=1) unless MPIEXEC_FLAGS says otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-scaling}
shift || true
ranks=2
if [ "$mode" = scaling ] && [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then
  ranks=$1
  shift
fi
args=("$@")
[ ${#args[@]} -eq 0 ] && args=(--steps 2000)
exe=${BUILD:-build}/examples/sph_dambreak
[ -x "$exe" ] || { echo "bench_dambreak: $exe not built (needs MPI)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
over=""
mpiexec --version 2>/dev/null | grep -q "Open MPI\|OpenRTE" && over="--oversubscribe"
flags=${MPIEXEC_FLAGS:---bind-to core}
rounds=${ROUNDS:-2}

# run NP OPTIONS...: prints "total rates list" (ms per step, slowest rank) of one run.
run() {
  local np=$1
  shift
  local out
  out=$(mpiexec -n "$np" $over $flags "$exe" "${args[@]}" --quiet "$@" 2>&1) ||
    { echo "$out" >&2; exit 1; }
  echo "$out" | grep -q "all checks passed" || { echo "$out" >&2; exit 1; }
  echo "$out" | sed -n 's/.*rates \([0-9.]*\).* list \([0-9.]*\).*total \([0-9.]*\).*/\3 \1 \2/p'
}
source bench/bench_lib.sh  # median

echo "# bench_dambreak $mode: $exe ${args[*]} --quiet; $rounds rounds, taking turns; ms per step"
case "$mode" in
  scaling)
    t1=() tn=()
    for ((r = 1; r <= rounds; ++r)); do
      a=$(run 1)
      b=$(run "$ranks")
      echo "round $r: 1 rank $a | $ranks ranks $b   (total rates list)"
      t1+=("${a%% *}")
      tn+=("${b%% *}")
    done
    m1=$(printf '%s\n' "${t1[@]}" | median)
    mn=$(printf '%s\n' "${tn[@]}" | median)
    speed=$(awk -v a="$m1" -v b="$mn" 'BEGIN {printf "%.2f", a / b}')
    echo "dambreak  1 rank ${m1} ms, $ranks ranks ${mn} ms per step: speed-up ${speed}"
    echo "JSON {\"bench\":\"dambreak\",\"name\":\"scaling\",\"ranks\":$ranks,\"time_1_ms\":$m1,\"time_n_ms\":$mn,\"speedup\":$speed}"
    ;;
  order)
    rk=() rc=() lk=() lc=()
    for ((r = 1; r <= rounds; ++r)); do
      a=$(run 1)
      b=$(run 1 --order cell)
      echo "round $r: id order $a | cell order $b   (total rates list)"
      read -r _ x y <<< "$a"
      rk+=("$x")
      lk+=("$y")
      read -r _ x y <<< "$b"
      rc+=("$x")
      lc+=("$y")
    done
    mrk=$(printf '%s\n' "${rk[@]}" | median)
    mrc=$(printf '%s\n' "${rc[@]}" | median)
    mlk=$(printf '%s\n' "${lk[@]}" | median)
    mlc=$(printf '%s\n' "${lc[@]}" | median)
    ratio=$(awk -v a="$mrc" -v b="$mrk" 'BEGIN {printf "%.3f", a / b}')
    cost=$(awk -v a="$mlk" -v b="$mlc" 'BEGIN {printf "%.3f", (a - b) / b}')
    echo "dambreak  force pass: id order ${mrk} ms, cell order ${mrc} ms (speed ratio ${ratio});" \
      "list: ${mlk} against ${mlc} ms per step (the key order adds ${cost} of a build)"
    echo "JSON {\"bench\":\"dambreak\",\"name\":\"key_order\",\"rates_key_ms\":$mrk,\"rates_cell_ms\":$mrc,\"force_ratio\":$ratio,\"list_key_ms\":$mlk,\"list_cell_ms\":$mlc,\"order_cost\":$cost}"
    ;;
  *)
    echo "bench_dambreak: mode is scaling or order, not $mode" >&2
    exit 2
    ;;
esac
