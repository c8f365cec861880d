#!/usr/bin/env bash
# Builds pvec and runs the whole test suite (C/C++ unit tests, MPI tests at 1-4 ranks, GPU
# tests where a device exists, bindings, examples, packaging, quick benchmarks).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
build=${PVEC_BUILD_DIR:-build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ctest --test-dir "$build" --output-on-failure -j "${PVEC_TEST_JOBS:-2}" "$@"
