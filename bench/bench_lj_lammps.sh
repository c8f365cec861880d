#!/usr/bin/env bash
# bench_lj_lammps.sh -- pvec's Lennard-Jones example (examples/lj/lj_md.cu) beside LAMMPS on its
# twin input (shared/peers/lammps/in.lj_pvec, or LAMMPS_INPUT): the same lattice, density,
# jitter, velocities, shifted LJ at 2.5, skin 0.3 checked every step, dt 0.005, 200 + 1000
# steps. Both run on the host, one thread per rank, taking turns (ROUNDS rounds, default 2),
# at each size (CELLS, default "8 20": 2,048 and 32,000 particles) and rank count (RANKS,
# default "1 2"). Prints, per configuration, the time per step of each (median over the
# rounds; the measured loop's wall time on the slowest rank for both: the example's `wall`,
# LAMMPS's Loop time), the ratio pvec / LAMMPS, the list rebuilds of each, and pvec's time per rebuild
# beside LAMMPS's Neigh + Comm per rebuild (LAMMPS's Comm is counted whole: it is every step's
# communication, so this side of the comparison is generous to LAMMPS).
#
#   bash bench/bench_lj_lammps.sh            (BUILD: the build folder, default build)
#
# Without `lmp` (Debian 12: apt-get install lammps) it runs pvec alone and says so. One line
# per run, then `JSON {...}` lines for scripts. LMP names another LAMMPS binary (empty: none).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
exe=${BUILD:-build}/examples/lj_md
[ -x "$exe" ] || { echo "bench_lj_lammps: $exe not built (needs MPI)" >&2; exit 1; }
input=${LAMMPS_INPUT:-$root/../shared/peers/lammps/in.lj_pvec}
lmp=${LMP-$(command -v lmp || true)}  # LMP: another LAMMPS binary, or empty for none
if [ -z "$lmp" ]; then
  echo "bench_lj_lammps: no lmp on this machine (Debian: apt-get install lammps): pvec alone"
elif [ ! -f "$input" ]; then
  echo "bench_lj_lammps: LAMMPS input $input not found (set LAMMPS_INPUT): pvec alone"
  lmp=""
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
rounds=${ROUNDS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source bench/bench_lib.sh  # median

for c in ${CELLS:-8 20}; do
  for np in ${RANKS:-1 2}; do
    over=""
    [ "$np" -gt "$(nproc)" ] && over="--oversubscribe"
    : > "$work/pvec" && : > "$work/lmp"
    for r in $(seq "$rounds"); do
      out=$(mpiexec $over -n "$np" "$exe" --cells "$c" --quiet 2>&1) || {
        echo "$out" >&2
        exit 1
      }
      step=$(sed -n 's/.*| wall \([0-9.]*\).*/\1/p' <<< "$out")
      rebuild=$(sed -n 's/.*| \([0-9.]*\) ms per rebuild.*/\1/p' <<< "$out")
      nreb=$(sed -n 's/^rebuilds: \([0-9]*\) in.*/\1/p' <<< "$out")
      echo "pvec   cells $c ranks $np round $r: $step ms per step, $nreb rebuilds, $rebuild ms per rebuild"
      echo "$step $rebuild $nreb" >> "$work/pvec"
      if [ -n "$lmp" ]; then
        (cd "$work" && mpiexec $over -n "$np" "$lmp" -in "$input" -var c "$c" -log lmp.log \
          -echo none -screen none)
        # The second run (1000 measured steps) is the last "Loop time"; its timing breakdown
        # follows it.
        loop=$(grep "^Loop time" "$work/lmp.log" | tail -1 | awk '{print $4}')
        steps=$(grep "^Loop time" "$work/lmp.log" | tail -1 | awk '{print $9}')
        neigh=$(grep "^Neigh " "$work/lmp.log" | tail -1 | awk -F'|' '{print $3}')
        comm=$(grep "^Comm " "$work/lmp.log" | tail -1 | awk -F'|' '{print $3}')
        lreb=$(grep "Neighbor list builds" "$work/lmp.log" | tail -1 | awk '{print $5}')
        lstep=$(awk -v t="$loop" -v s="$steps" 'BEGIN {printf "%.4f", 1e3 * t / s}')
        lper=$(awk -v n="$neigh" -v c="$comm" -v k="$lreb" \
          'BEGIN {printf "%.4f", (k > 0 ? 1e3 * (n + c) / k : 0)}')
        echo "LAMMPS cells $c ranks $np round $r: $lstep ms per step, $lreb rebuilds, $lper ms Neigh + Comm per rebuild"
        echo "$lstep $lper $lreb" >> "$work/lmp"
      fi
    done
    p_step=$(awk '{print $1}' "$work/pvec" | median)
    p_reb=$(awk '{print $2}' "$work/pvec" | median)
    p_n=$(awk '{print $3}' "$work/pvec" | median)
    n=$((4 * c * c * c))
    if [ -n "$lmp" ]; then
      l_step=$(awk '{print $1}' "$work/lmp" | median)
      l_reb=$(awk '{print $2}' "$work/lmp" | median)
      l_n=$(awk '{print $3}' "$work/lmp" | median)
      ratio=$(awk -v a="$p_step" -v b="$l_step" 'BEGIN {printf "%.2f", a / b}')
      rratio=$(awk -v a="$p_reb" -v b="$l_reb" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')
      echo "== $n particles, $np rank(s): pvec $p_step ms per step, LAMMPS $l_step: ratio $ratio;" \
        "rebuilds $p_n and $l_n; per rebuild $p_reb against $l_reb (Neigh + Comm): ratio $rratio"
      echo "JSON {\"particles\": $n, \"ranks\": $np, \"pvec_ms_per_step\": $p_step, \"lammps_ms_per_step\": $l_step, \"ratio\": $ratio, \"pvec_ms_per_rebuild\": $p_reb, \"lammps_neigh_comm_ms_per_rebuild\": $l_reb, \"pvec_rebuilds\": $p_n, \"lammps_rebuilds\": $l_n}"
    else
      echo "== $n particles, $np rank(s): pvec $p_step ms per step, $p_n rebuilds, $p_reb ms per rebuild"
      echo "JSON {\"particles\": $n, \"ranks\": $np, \"pvec_ms_per_step\": $p_step, \"pvec_ms_per_rebuild\": $p_reb, \"pvec_rebuilds\": $p_n}"
    fi
  done
done
