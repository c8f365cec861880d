#!/usr/bin/env python3
"""Turns `ctest --show-only=json-v1` on stdin into one line per test for hardening.sh --gpu:

    name | env assignments | launcher words | executable | arguments

The launcher words are what comes before the test program (mpiexec -n N ...), so the sanitizer
goes between them and the program and every rank runs under it. Tests at more than MAX_RANKS
ranks (the -n of mpiexec) are left out. Usage: sanitize_commands.py BUILD_DIR MAX_RANKS
"""
import json
import os
import sys


def main() -> int:
    build = os.path.realpath(sys.argv[1])
    max_ranks = int(sys.argv[2])
    data = json.load(sys.stdin)
    for test in data.get("tests", []):
        cmd = test.get("command") or []
        props = {p["name"]: p["value"] for p in test.get("properties", [])}
        envs = props.get("ENVIRONMENT", [])
        if isinstance(envs, str):
            envs = [envs]
        # The program is the first word that is a file inside the build tree.
        at = next((i for i, w in enumerate(cmd)
                   if os.path.isabs(w) and os.path.realpath(w).startswith(build + os.sep)),
                  None)
        if at is None:
            print(f"sanitize_commands: {test['name']}: no program of {build} in {cmd}",
                  file=sys.stderr)
            return 1
        pre, exe, post = cmd[:at], cmd[at], cmd[at + 1:]
        for flag in ("-n", "-np", "--np"):
            if flag in pre:
                ranks = int(pre[pre.index(flag) + 1])
                if ranks > max_ranks:
                    break
        else:
            ranks = 1
        if ranks > max_ranks:
            continue
        for words in (envs, pre, post):
            for w in words:
                if any(c.isspace() for c in w) or "|" in w:
                    print(f"sanitize_commands: {test['name']}: a word with spaces or |: {w!r}",
                          file=sys.stderr)
                    return 1
        print("|".join([test["name"], " ".join(envs), " ".join(pre), exe, " ".join(post)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
