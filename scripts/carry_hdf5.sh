#!/usr/bin/env bash
# carry_hdf5.sh -- packs this (Debian 12) machine's parallel HDF5 into .h5/ (ignored by git) so
# that a machine without HDF5 (the GPU machine) can build and run pvec's checkpoints: the headers,
# libhdf5_openmpi and the libraries it needs except the C library and Open MPI's (the target's
# own Open MPI 4.x provides libmpi.so.40), and a pkg-config file. On the target:
#
#   PKG_CONFIG_PATH=$PWD/.h5/pkgconfig cmake -S . -B build-gpu ...   (found as hdf5-openmpi)
#
# The executables then carry .h5/lib as their RPATH (DT_RPATH, which also serves libhdf5's own
# dependencies), so no LD_LIBRARY_PATH is needed to run them. Name .h5 in the device call's carry.
set -eu -o pipefail
cd "$(dirname "$0")/.."
src=/usr/lib/x86_64-linux-gnu/libhdf5_openmpi.so.103
inc=/usr/include/hdf5/openmpi
if [ ! -e "$src" ] || [ ! -d "$inc" ]; then
  echo "carry_hdf5.sh: no parallel HDF5 here (apt-get install libhdf5-openmpi-dev)" >&2
  exit 1
fi
rm -rf .h5
mkdir -p .h5/lib .h5/include .h5/pkgconfig
cp -r "$inc"/. .h5/include/
cp -L "$src" .h5/lib/
ln -s libhdf5_openmpi.so.103 .h5/lib/libhdf5_openmpi.so
ldd "$src" | awk '$2 == "=>" {print $1, $3}' | while read -r name path; do
  case "$name" in
    libc.so.*|libm.so.*|libresolv.so.*|ld-linux*|libmpi.so.*|libopen-rte.so.*|libopen-pal.so.*) ;;
    libhwloc.so.*|libevent*|libudev.so.*) ;;  # glibc, Open MPI and what only Open MPI needs
    *) cp -L "$path" ".h5/lib/$name" ;;
  esac
done
version=$(pkg-config --modversion hdf5-openmpi 2>/dev/null || echo 1.10)
cat > .h5/pkgconfig/hdf5-openmpi.pc <<PC
prefix=\${pcfiledir}/..
Name: HDF5
Description: Debian's parallel HDF5 (openmpi), carried by scripts/carry_hdf5.sh
Version: $version
Requires: ompi
Cflags: -I\${prefix}/include
Libs: -L\${prefix}/lib -lhdf5_openmpi -Wl,--disable-new-dtags -Wl,-rpath,\${prefix}/lib -Wl,-rpath-link,\${prefix}/lib
PC
du -sh .h5
