#!/usr/bin/env bash
# pvec's host map / ghost_get against Cabana's CommPerformance on the CPU, side by side and
# interleaved in one call (docs/performance.md, "Host path against Cabana"). Each repeat runs
# Cabana, then every pvec build given (before/after), in each particle order, at 2 ranks, one
# thread per rank (OMP_NUM_THREADS=1; Open MPI binds each rank to a core).
#
#   bash bench/compare_cabana_host.sh [--repeat R] [--sizes 1e5,1e6] [--ranks P] \
#        [--orders sorted,random,halo] [--cabana PATH] LABEL=BENCH_BINARY ...
#
# Writes the raw outputs under $OUT (default ./cabana_compare) and prints, per size, the
# median over the repeats of each timer (ms) and the ratios pvec / Cabana (below 1: pvec faster).
set -euo pipefail
repeats=5 sizes=1e5,1e6 ranks=2 orders=sorted,random
cabana=${CABANA_BIN:-/work/shared/peers/cabana/CommPerformance_host}
builds=()
while [ $# -gt 0 ]; do
  case "$1" in
    --repeat) repeats=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --orders) orders=$2; shift 2 ;;
    --cabana) cabana=$2; shift 2 ;;
    *=*) builds+=("$1"); shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
out=${OUT:-cabana_compare}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export CABANA_COMM_MODES=host_host CABANA_COMM_LEAN=1
cab_sizes=$(python3 -c "print(','.join(str(int(float(s))) for s in '$sizes'.split(',')))")
echo "## $(date -u +%FT%TZ) $(uname -n) $(getconf _NPROCESSORS_ONLN) cores; repeat=$repeats sizes=$sizes ranks=$ranks"
for r in $(seq 1 "$repeats"); do
  echo "## repeat $r: mpirun -np $ranks $cabana $out/cab_r$r small $cab_sizes 0.1"
  mpirun -np "$ranks" -x OMP_NUM_THREADS -x CABANA_COMM_MODES -x CABANA_COMM_LEAN \
    "$cabana" "$out/cab_r$r" small "$cab_sizes" 0.1 > "$out/cab_r$r.log" 2>&1
  for b in "${builds[@]}"; do
    label=${b%%=*} bin=${b#*=}
    for order in ${orders//,/ }; do
      echo "## repeat $r: mpirun -np $ranks $bin --sizes $sizes --movers 0.1 --order $order"
      mpirun -np "$ranks" -x OMP_NUM_THREADS "$bin" --sizes "$sizes" --movers 0.1 --order "$order" \
        > "$out/${label}_${order}_r$r.log" 2>&1
    done
  done
done
python3 - "$out" "$repeats" "$ranks" "$sizes" "$orders" "${builds[@]}" <<'PY'
import json, statistics, sys
out, repeats, ranks, sizes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
orders = sys.argv[5].split(',')
labels = [b.split('=', 1)[0] for b in sys.argv[6:]]
sizes = [int(float(s)) for s in sizes.split(',')]
def cabana(r, n):  # timer -> med_slowest in ms
    t, lines = {}, open(f"{out}/cab_r{r}_{ranks}_{n}").read().split('\n')
    for i, l in enumerate(lines):
        if l.startswith('host_host_'):
            v = lines[i + 2].split()
            t[l[len('host_host_'):]] = float(v[6]) / 1e3
    return t
def pvec(label, order, r):  # (op, n) -> time in ms
    t = {}
    for l in open(f"{out}/{label}_{order}_r{r}.log"):
        if l.startswith('JSON '):
            j = json.loads(l[5:])
            if j.get('name') in ('map', 'ghost_get', 'ghost_reuse', 'ghost_put'):
                t[(j['name'], j['n_per_rank'])] = j['time_s'] * 1e3
    return t
med = statistics.median
for n in sizes:
    cab = [cabana(r, n) for r in range(1, repeats + 1)]
    c_new = med([c['halo_fast_create'] + c['halo_buffer_aosoa_gather'] for c in cab])
    c_gather = med([c['halo_buffer_aosoa_gather'] for c in cab])
    c_mig = med([c['distributor_fast_create'] + c['distributor_slice_migrate'] for c in cab])
    print(f"\n### {n:.0e} per rank, {ranks} ranks, medians over {repeats} repeats (ms)")
    print(f"Cabana: halo create + gather {c_new:.3f}, gather {c_gather:.3f}, "
          f"create + slice migrate {c_mig:.3f}")
    print("| pvec build, order | ghost_get new plan (/ create+gather) | plan reuse (/ gather) "
          "| map 10% (/ create+slice migrate) | ghost_put |")
    print("|---|---|---|---|---|")
    for label in labels:
        for order in orders:
            p = [pvec(label, order, r) for r in range(1, repeats + 1)]
            g = med([x[('ghost_get', n)] for x in p])
            u = med([x[('ghost_reuse', n)] for x in p])
            m = med([x[('map', n)] for x in p])
            q = med([x[('ghost_put', n)] for x in p])
            print(f"| {label}, {order} | {g:.3f} ({g / c_new:.2f}) | {u:.3f} ({u / c_gather:.2f}) "
                  f"| {m:.3f} ({m / c_mig:.3f}) | {q:.3f} |")
PY
