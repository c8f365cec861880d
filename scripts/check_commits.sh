#!/usr/bin/env bash
# Checks that every commit subject after 19f74e5 (the first commit under the rule: subjects
# of at most 72 characters, details in the body) keeps to 72 characters. The commits checked
# are those of HEAD that descend from 19f74e5 (git log --ancestry-path 19f74e5..HEAD), so a
# merge brings in no older commits. Prints the offenders and exits 1. Exits 77 (CTest
# structure_commits: skipped) when the source folder is not a git checkout or 19f74e5 is not
# in its history (a shallow clone or an export).
#
#   scripts/check_commits.sh [source dir]    (default: the checkout holding this script)
set -euo pipefail

root=$(cd "${1:-$(dirname "$0")/..}" && pwd -P)
first=19f74e5
limit=72
# Count characters, not bytes, where the C.UTF-8 locale exists.
if locale -a 2>/dev/null | grep -qix 'c\.utf-\?8'; then
  export LC_ALL=C.UTF-8
fi

if ! git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "check_commits: skipped: $root is not a git checkout"
  exit 77
fi
if ! git -C "$root" merge-base --is-ancestor "$first" HEAD 2>/dev/null; then
  echo "check_commits: skipped: commit $first is not in the history of HEAD" \
       "(shallow clone? git fetch --unshallow)"
  exit 77
fi

bad=0
count=0
while IFS=$'\t' read -r hash subject; do
  count=$((count + 1))
  if [ ${#subject} -gt $limit ]; then
    [ $bad -eq 0 ] && echo "check_commits: subjects longer than $limit characters (put the" \
                           "detail in the body):"
    echo "  $hash (${#subject}) $subject"
    bad=$((bad + 1))
  fi
done < <(git -C "$root" log --ancestry-path --format='%h%x09%s' "$first..HEAD")
if [ $bad -gt 0 ]; then
  exit 1
fi
echo "check_commits: $count commits after $first, every subject at most $limit characters"
