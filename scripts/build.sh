#!/usr/bin/env bash
# Configures and builds pvec in ${PVEC_BUILD_DIR:-build} with default options (CUDA when nvcc
# is found, MPI, tests, examples, benchmarks, bindings). Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PVEC_BUILD_DIR:-build}
jobs=${PVEC_JOBS:-$(nproc)}
cmake -S . -B "$build" "$@"
cmake --build "$build" -j "$jobs"
