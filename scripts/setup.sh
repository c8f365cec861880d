#!/usr/bin/env bash
# Installs what pvec needs to build and test, if it is missing, on Debian/Ubuntu as root.
# Machines without network (the GPU machine) already have everything and skip apt.
set -euo pipefail

missing=()
need() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }
need cmake cmake
need g++ g++
need mpicc libopenmpi-dev
need mpiexec openmpi-bin
need pkg-config pkg-config
need gfortran gfortran
if ! ls /usr/include/catch2/catch.hpp /usr/include/catch2/catch_test_macros.hpp \
        /usr/local/include/catch2/catch_test_macros.hpp >/dev/null 2>&1 \
   && [ -z "$(find /usr /usr/local -path '*/cmake/Catch2/Catch2Config.cmake' -print -quit 2>/dev/null)" ]; then
  missing+=(catch2)
fi
py=$(command -v python3 || true)
if [ -n "$py" ]; then
  "$py" -c 'import numpy' 2>/dev/null || /usr/bin/python3 -c 'import numpy' 2>/dev/null || missing+=(python3-numpy)
  "$py" -c 'import pytest' 2>/dev/null || /usr/bin/python3 -c 'import pytest' 2>/dev/null || missing+=(python3-pytest)
else
  missing+=(python3 python3-numpy python3-pytest)
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: everything needed is installed"
  exit 0
fi
echo "setup: installing ${missing[*]}"
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: apt-get not available; install these by hand: ${missing[*]}" >&2
  exit 1
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
