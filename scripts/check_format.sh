#!/usr/bin/env bash
# Checks that every C, C++ and CUDA source of the tree (*.c *.h *.cpp *.hpp *.cu *.cuh) is
# formatted as .clang-format says, with clang-format-14: the version the tree is formatted
# with (others lay out some constructs differently). The files are those git tracks; outside a
# git checkout (a source tarball) those find sees, build and install folders left out.
# Prints the files that differ and exits 1 (fix: clang-format-14 -i FILE...). Exits 77 when
# clang-format-14 is missing: CTest reports structure_format as skipped
# (scripts/setup.sh installs it). CLANG_FORMAT names another binary.
#
#   scripts/check_format.sh [source dir]    (default: the checkout holding this script)
set -euo pipefail

root=$(cd "${1:-$(dirname "$0")/..}" && pwd -P)
fmt=${CLANG_FORMAT:-clang-format-14}
if ! command -v "$fmt" >/dev/null 2>&1; then
  echo "check_format: skipped: $fmt is not installed (scripts/setup.sh installs it)"
  exit 77
fi
cd "$root"

files=()
top=$(git rev-parse --show-toplevel 2>/dev/null || true)
if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$root" ]; then
  how="tracked by git"
  while IFS= read -r -d '' f; do
    [ -f "$f" ] && files+=("$f")  # a file deleted but not yet committed is not checked
  done < <(git ls-files -z -- '*.c' '*.h' '*.cpp' '*.hpp' '*.cu' '*.cuh')
else
  how="found (not a git checkout)"
  while IFS= read -r -d '' f; do
    files+=("${f#./}")
  done < <(find . \( -path './build*' -o -path './_install*' -o -path './shared' \
                     -o -name '.?*' -o -name '__pycache__' \) -prune -o -type f \
                  \( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.hpp' \
                     -o -name '*.cu' -o -name '*.cuh' \) -print0 | sort -z)
fi

bad=()
for f in "${files[@]}"; do
  "$fmt" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "check_format: ${#bad[@]} of ${#files[@]} files are not formatted as .clang-format says" \
       "($fmt; fix with: $fmt -i FILE...):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "check_format: ${#files[@]} files $how, all formatted ($("$fmt" --version | head -1))"
