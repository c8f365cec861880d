#!/usr/bin/env bash
# The main job: install what is missing, build, run the seed example (C and CUDA), the
# distributed demo and the Lennard-Jones MD example under mpirun -np 2. The LJ run is small
# on a machine without a GPU (--cells 8: 2,048 particles) and ~10^6 particles on one with a
# GPU (--cells 63: 1,000,188); LJ_CELLS overrides the size. Each program checks itself.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
build=${PVEC_BUILD_DIR:-build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

echo; echo "=== seed example (C) ==="
"$build/examples/seed_c"
if [ -x "$build/examples/seed_cuda" ]; then
  echo; echo "=== seed example (CUDA) ==="
  "$build/examples/seed_cuda"
fi
echo; echo "=== distributed demo: mpirun -np 2 ==="
if [ ! -x "$build/examples/distributed_cuda" ]; then
  echo "distributed demo not built (it needs nvcc and MPI at configure time)" >&2
  exit 1
fi
over=""
mpiexec --version 2>/dev/null | grep -q "Open MPI\|OpenRTE" && over="--oversubscribe"
mpiexec -n 2 $over "$build/examples/distributed_cuda" 200000 10

echo; echo "=== Lennard-Jones MD: mpirun -np 2 ==="
if [ ! -x "$build/examples/lj_md" ]; then
  echo "LJ example not built (it needs MPI at configure time)" >&2
  exit 1
fi
cells=8
if nvidia-smi -L 2>/dev/null | grep -q GPU; then cells=63; fi
mpiexec -n 2 $over "$build/examples/lj_md" --cells "${LJ_CELLS:-$cells}" --steps 1000
