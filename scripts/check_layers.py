#!/usr/bin/env python3
"""Checks that src/ keeps its layering: every folder includes only itself and folders below it
(the order of LAYERS, lowest first), and nothing includes a file that does not exist. Prints the
include graph between folders with --graph (docs/architecture.md draws it). Exit 1 on a
violation, naming the file, the include and why."""
import os
import re
import sys

LAYERS = ["common", "backend", "runtime", "memory", "primitives", "particles", "decomp", "comm", "reduce",
          "exchange", "migrate", "halo", "neighbors", "vector", "io", "capi"]

def main():
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    rank = {name: k for k, name in enumerate(LAYERS)}
    problems, edges = [], {}
    for folder in sorted(os.listdir(src)):
        path = os.path.join(src, folder)
        if not os.path.isdir(path):
            continue
        if folder not in rank:
            problems.append("src/%s/: a folder not in LAYERS (scripts/check_layers.py)" % folder)
            continue
        for name in sorted(os.listdir(path)):
            text = open(os.path.join(path, name), encoding="utf-8").read()
            for m in re.finditer(r'^#include "([^"]+)"', text, re.M):
                inc = m.group(1)
                where = "src/%s/%s: #include \"%s\"" % (folder, name, inc)
                if "/" not in inc:
                    problems.append(where + ": name the folder")
                    continue
                to = inc.split("/")[0]
                if to not in rank:
                    problems.append(where + ": no such folder in src/")
                elif not os.path.exists(os.path.join(src, inc)):
                    problems.append(where + ": no such file")
                elif rank[to] > rank[folder]:
                    problems.append(where + ": %s is above %s" % (to, folder))
                elif to != folder:
                    edges.setdefault(folder, set()).add(to)
    if "--graph" in sys.argv:
        for folder in reversed(LAYERS):
            print("%-11s -> %s" % (folder, " ".join(sorted(edges.get(folder, ()),
                                                        key=lambda f: -rank[f]))))
    for p in problems:
        print(p)
    if problems:
        return 1
    print("check_layers: %d folders, every include goes downward" % len(LAYERS))
    return 0

if __name__ == "__main__":
    sys.exit(main())
