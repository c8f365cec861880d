#!/usr/bin/env bash
# Builds the libFuzzer target fuzz/fuzz_capi.cpp with clang: the library sources (the list in
# src/CMakeLists.txt) are compiled into the fuzzer with CUDA off and MPI on, everything under
# -fsanitize=fuzzer,address,undefined. Usage: fuzz/build.sh [OUT_DIR]  (default build-fuzz)
# Prints the path of the fuzzer binary on its last line.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build-fuzz}
cxx=${PVEC_FUZZ_CXX:-clang++}
mkdir -p "$out/obj"

# The library's sources, as CMake knows them (.cu files are plain C++ without CUDA).
mapfile -t srcs < <(sed -n '/^set(PVEC_SOURCES/,/)/p' "$root/src/CMakeLists.txt" |
                    tr ' ()' '\n\n\n' | grep -E '\.(cpp|cu)$')
[ ${#srcs[@]} -gt 0 ] || { echo "fuzz/build.sh: no sources found in src/CMakeLists.txt" >&2; exit 1; }

mpi_cflags=$(mpicc --showme:compile)
mpi_lflags=$(mpicc --showme:link)
san="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
flags="${PVEC_FUZZ_FLAGS:-} -std=c++17 -O1 -g -fno-omit-frame-pointer $san -DPVEC_HAVE_MPI=1 -DOMPI_SKIP_MPICXX=1 \
-DMPICH_SKIP_MPICXX=1 -I$root/include -I$root/src $mpi_cflags"

# Compile the library objects two at a time; rebuild only what changed.
export cxx flags root out
printf '%s\n' "${srcs[@]}" | xargs -P "${PVEC_JOBS:-2}" -I{} bash -c '
  src="$root/src/{}"; obj="$out/obj/$(echo {} | tr / _).o"
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find "$root/src" "$root/include" -name "*.h*" -newer "$obj" -print -quit)" ]; then
    $cxx $flags -x c++ -c "$src" -o "$obj"
  fi'
objs=()
for s in "${srcs[@]}"; do objs+=("$out/obj/$(echo "$s" | tr / _).o"); done

$cxx ${PVEC_FUZZ_FLAGS:-} -std=c++17 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=all -I"$root/include" $mpi_cflags \
  "$root/fuzz/fuzz_capi.cpp" "${objs[@]}" $mpi_lflags -o "$out/fuzz_capi"
echo "$out/fuzz_capi"
