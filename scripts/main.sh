#!/usr/bin/env bash
# The main job: install what is missing, build, run the seed example (C and CUDA) and the
# distributed demo under mpirun -np 2.
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
mpiexec -n 2 --oversubscribe "$build/examples/distributed_cuda" 200000 10 2>/dev/null \
  || mpiexec -n 2 "$build/examples/distributed_cuda" 200000 10
