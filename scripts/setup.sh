#!/usr/bin/env bash
# Installs what pvec needs to build and test, if it is missing, on Debian/Ubuntu as root.
# Required: compilers, CMake, MPI, Catch2. Optional (their tests are skipped without them):
# gfortran, NumPy/pytest/mpi4py/pip, pkg-config, parallel HDF5 (checkpoints: without it they
# return NOT_SUPPORTED and their tests only check that), h5py and VTK (the Python reader tests
# of docs/io.md skip without them), clang-format-14 (ctest structure_format skips without it).
# A machine without network (the GPU machine) that has the required ones carries on without
# the optional ones.
set -euo pipefail

required=()
optional=()
have() { command -v "$1" >/dev/null 2>&1; }
have cmake || required+=(cmake)
have g++ || required+=(g++)
have mpicc || required+=(libopenmpi-dev)
have mpiexec || required+=(openmpi-bin)
catch2=no
for f in /usr/include/catch2/catch.hpp /usr/include/catch2/catch_test_macros.hpp \
         /usr/local/include/catch2/catch_test_macros.hpp; do
  [ -e "$f" ] && catch2=yes
done
[ $catch2 = yes ] || required+=(catch2)
have pkg-config || optional+=(pkg-config)
have gfortran || optional+=(gfortran)
# The formatter the tree is formatted with (scripts/check_format.sh).
have clang-format-14 || optional+=(clang-format-14)
# Parallel HDF5 (the Open MPI build, /usr/include/hdf5/openmpi) for checkpoints.
[ -e /usr/include/hdf5/openmpi/hdf5.h ] || optional+=(libhdf5-openmpi-dev)
pyok() { python3 -c "import $1" 2>/dev/null || /usr/bin/python3 -c "import $1" 2>/dev/null; }
if have python3 || [ -x /usr/bin/python3 ]; then
  pyok numpy || optional+=(python3-numpy)
  pyok pytest || optional+=(python3-pytest)
  pyok mpi4py || optional+=(python3-mpi4py)
  pyok h5py || optional+=(python3-h5py)
  pyok vtk || optional+=(python3-vtk9)
  if [ -x /usr/bin/python3 ] && ! /usr/bin/python3 -m pip --version >/dev/null 2>&1; then
    optional+=(python3-pip python3-setuptools python3-wheel)
  fi
else
  optional+=(python3 python3-numpy python3-pytest python3-mpi4py python3-h5py python3-vtk9)
fi

wanted=("${required[@]}" "${optional[@]}")
if [ ${#wanted[@]} -eq 0 ]; then
  echo "setup: everything needed is installed"
  exit 0
fi
echo "setup: missing ${wanted[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
if have apt-get && $SUDO apt-get update -qq >/dev/null 2>&1 \
   && $SUDO apt-get install -y -qq --no-install-recommends "${wanted[@]}" >/dev/null; then
  echo "setup: installed ${wanted[*]}"
  exit 0
fi
if [ ${#required[@]} -gt 0 ]; then
  echo "setup: could not install required packages: ${required[*]}" >&2
  exit 1
fi
echo "setup: could not install optional ${optional[*]}; their tests will be skipped"
