#!/usr/bin/env bash
# The main job: install what is missing, build, run the seed example (C and CUDA), the
# distributed demo, the Lennard-Jones MD example and the SPH dam break under mpirun -np 2. The
# LJ run is small on a machine without a GPU (--cells 8: 2,048 particles) and ~10^6 particles
# on one with a GPU (--cells 63: 1,000,188); LJ_CELLS overrides the size. The dam break runs in
# 3D to T = 3.4: without a GPU at a/dp = 20 with 8 particles across the width (11,824
# particles), with one at a/dp = 80 and width a (1,236,640 particles); SPH_DP overrides the
# spacing (SPH_WIDTH the width, in units of a). Each program checks itself.
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

echo; echo "=== SPH dam break: mpirun -np 2 ==="
if [ ! -x "$build/examples/sph_dambreak" ]; then
  echo "SPH example not built (it needs MPI at configure time)" >&2
  exit 1
fi
dp=0.05 width=0.4
if nvidia-smi -L 2>/dev/null | grep -q GPU; then dp=0.0125 width=1; fi
mpiexec -n 2 $over "$build/examples/sph_dambreak" --dp "${SPH_DP:-$dp}" --width "${SPH_WIDTH:-$width}"
