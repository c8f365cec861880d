#!/usr/bin/env bash
# Installs a pvec build tree into a fresh prefix, then builds and runs outside programs
# against the installed files only: `cc app.c $(pkg-config --cflags --libs pvec)` (run with
# LD_LIBRARY_PATH) and the same with the variable `rpath` (run without), one through
# find_package(pvec) + pvec::pvec, and, when nvcc is given, a CUDA program built by nvcc alone
# with the same `$(pkg-config --cflags --libs pvec)` (Libs holds no -Wl, flag nvcc would reject),
# with and without the variable `nvcc_rpath`. None knows that pvec uses MPI.
#
# The CUDA program always runs its host part (that is what this checks on a machine without a
# GPU: it compiles, links, finds the installed libpvec and runs); its kernel
# part runs only with a CUDA device (nvidia-smi works) and a pvec built with CUDA, and is then
# required to pass. Without nvcc that half is skipped with a message.
#
# Usage: run_packaging_test.sh <build dir> <consumer dir> <work dir> [cmake] [cc] [config]
#                              [nvcc] [pvec has CUDA: ON/OFF]
# Exit: 0 pass; 1 fail; 77 pkg-config missing (the CMake half still ran and passed).
set -euo pipefail

build=$1
consumer=$2
work=$3
cmake=${4:-cmake}
cc=${5:-cc}
config=${6:-}
nvcc=${7:-}
has_cuda=${8:-OFF}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Runs an app, shows its output, and checks it printed the contract's capacity and that it
# loaded the installed library rather than the build tree's. Leaves the output in app_out.
run_app() {
  local app=$1 out
  out=$("$app") || { echo "$out"; fail "$app exited with an error"; }
  run_app_check "$app" "$out"
}

# The same for an app linked with Libs alone: it carries no run path to the prefix (Libs of
# pvec.pc holds none) and runs with LD_LIBRARY_PATH set to the installed libdir.
run_app_ldpath() {
  local app=$1 libdir=$2 out
  if command -v readelf >/dev/null && readelf -d "$app" | grep -E "RPATH|RUNPATH" | grep -qF "$libdir"; then
    fail "$app carries a run path to $libdir: Libs of pvec.pc is not compiler-neutral"
  fi
  out=$(LD_LIBRARY_PATH=$libdir "$app") || { echo "$out"; fail "$app exited with an error"; }
  LD_LIBRARY_PATH=$libdir run_app_check "$app" "$out"
}

run_app_check() {
  local app=$1 out=$2
  app_out=$out
  echo "$out"
  grep -q "capacity 128" <<<"$out" || fail "$app did not print 'capacity 128'"
  if command -v ldd >/dev/null; then
    local lib
    lib=$(ldd "$app" | awk '/libpvec\.so/ {print $3}')
    [[ -n $lib ]] || fail "$app does not load libpvec"
    case $(readlink -f "$lib") in
      "$(readlink -f "$prefix")"/*) echo "$app loads $lib" ;;
      *) fail "$app loads $lib, not the one installed in $prefix" ;;
    esac
  fi
}

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

echo "== cmake --install $build --prefix $prefix"
"$cmake" --install "$build" --prefix "$prefix" ${config:+--config "$config"} >"$work/install.log" ||
  { cat "$work/install.log"; fail "install failed"; }
[[ -n $(find "$prefix" -name pvec.h) ]] || fail "pvec.h not installed"

# Nothing from the build tree or the environment may leak into the consumers.
unset CMAKE_PREFIX_PATH pvec_DIR PKG_CONFIG_PATH CPATH LIBRARY_PATH LD_LIBRARY_PATH || true

echo "== find_package(pvec) consumer"
"$cmake" -S "$consumer" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
  -DCMAKE_BUILD_TYPE=Release >"$work/cmake-configure.log" 2>&1 ||
  { cat "$work/cmake-configure.log"; fail "configuring the CMake consumer failed"; }
grep "found pvec" "$work/cmake-configure.log" || true
"$cmake" --build "$work/cmake-build" >"$work/cmake-build.log" 2>&1 ||
  { cat "$work/cmake-build.log"; fail "building the CMake consumer failed"; }
run_app "$work/cmake-build/app"

echo "== pkg-config consumer"
if ! command -v pkg-config >/dev/null; then
  echo "SKIPPED: pkg-config is not installed; the find_package consumer passed"
  exit 77
fi
pc=$(find "$prefix" -name pvec.pc | head -n 1)
[[ -n $pc ]] || fail "pvec.pc not installed"
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")
flags=$(pkg-config --cflags --libs pvec) || fail "pkg-config --cflags --libs pvec failed"
echo "pkg-config: $flags"
[[ $flags != *-Wl,* ]] || fail "Libs of pvec.pc carries a linker-driver flag: $flags"
libdir=$(pkg-config --variable=libdir pvec)
rpath=$(pkg-config --variable=rpath pvec) || fail "pkg-config --variable=rpath pvec failed"
[[ -n $rpath ]] || fail "pvec.pc has no rpath variable"
# shellcheck disable=SC2086  # the flags are meant to split
"$cc" "$consumer/app.c" $flags -o "$work/app_pkgconfig" || fail "cc with pkg-config flags failed"
run_app_ldpath "$work/app_pkgconfig" "$libdir"
# shellcheck disable=SC2086
"$cc" "$consumer/app.c" $flags $rpath -o "$work/app_pkgconfig_rpath" ||
  fail "cc with pkg-config flags and the rpath variable failed"
run_app "$work/app_pkgconfig_rpath"

echo "== nvcc consumer (nvcc app.cu \$(pkg-config --cflags --libs pvec))"
if [[ -z $nvcc ]] || ! command -v "$nvcc" >/dev/null; then
  echo "SKIPPED: no nvcc found; the C consumers passed"
else
  nvcc_rpath=$(pkg-config --variable=nvcc_rpath pvec) || fail "pkg-config --variable=nvcc_rpath failed"
  [[ -n $nvcc_rpath ]] || fail "pvec.pc has no nvcc_rpath variable"
  echo "nvcc flags: $flags"
  # shellcheck disable=SC2086  # the flags are meant to split
  "$nvcc" "$consumer/app_cuda.cu" $flags -o "$work/app_nvcc_plain" \
    >"$work/nvcc.log" 2>&1 || { cat "$work/nvcc.log"; fail "nvcc with pkg-config flags failed"; }
  run_app_ldpath "$work/app_nvcc_plain" "$libdir"
  # shellcheck disable=SC2086
  "$nvcc" "$consumer/app_cuda.cu" $flags $nvcc_rpath -o "$work/app_nvcc" \
    >"$work/nvcc.log" 2>&1 || { cat "$work/nvcc.log"; fail "nvcc with the nvcc_rpath variable failed"; }
  run_app "$work/app_nvcc"
  if command -v nvidia-smi >/dev/null && nvidia-smi >/dev/null 2>&1 && [[ $has_cuda == ON ]]; then
    grep -q "kernel: ok" <<<"$app_out" || fail "app_nvcc: a GPU is present but the kernel part did not pass"
  else
    echo "kernel part not required here (nvidia-smi does not work or pvec has no CUDA backend)"
  fi
fi

echo "PASS"
