#!/usr/bin/env python3
"""ncu_summary.py -- one line per kernel launch from Nsight Compute's CSV.

Reads the output of `ncu --metrics gpu__time_duration.sum,dram__bytes.sum --csv PROGRAM ...`
(stdin or a file) and prints, per launch: id, kernel name (shortened), microseconds, DRAM
megabytes and TB/s. Used by `scripts/gpu_check.sh ncu-cells` to see where a cell list build's
time goes; the table is what docs/results/*/ncu_*.txt hold.

    python3 bench/ncu_summary.py ncu.csv [--from ID] [--to ID]
"""
import argparse
import csv
import sys


def kernel_name(full):
    """The kernel's name without its parameter list: up to the first '(' outside template
    arguments, so that an argument such as (pvec::impl::TileMatch)1 stays in the name."""
    depth = 0
    for k, c in enumerate(full):
        if c == "<":
            depth += 1
        elif c == ">":
            depth = max(depth - 1, 0)
        elif c == "(" and depth == 0:
            return full[:k]
    return full


def launches(lines):
    """(id, name, {metric: value}) per launch, in launch order."""
    header = None
    found = {}
    for row in csv.reader(lines):
        if row and row[0] == "ID":
            header = row
            continue
        if header is None or len(row) != len(header):
            continue  # ncu's own messages ("==PROF== ...") and the program's output
        d = dict(zip(header, row))
        key = (int(d["ID"]), kernel_name(d["Kernel Name"]))
        found.setdefault(key, {})[d["Metric Name"]] = d["Metric Value"].replace(",", "")
    return [(i, name, m) for (i, name), m in sorted(found.items())]


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("csv", nargs="?", help="ncu CSV (default: stdin)")
    p.add_argument("--from", dest="first", type=int, default=0, help="first launch id")
    p.add_argument("--to", dest="last", type=int, default=None, help="last launch id")
    a = p.parse_args(argv)
    src = open(a.csv, newline="") if a.csv else sys.stdin
    rows = launches(src)
    if not rows:
        print("ncu_summary: no kernel rows in the input (was it ncu --csv output?)",
              file=sys.stderr)
        return 1
    print("%4s %-72s %10s %10s %6s" % ("id", "kernel", "us", "MB", "TB/s"))
    for i, name, m in rows:
        if i < a.first or (a.last is not None and i > a.last):
            continue
        us = float(m.get("gpu__time_duration.sum", "nan")) / 1e3  # ns -> us
        mb = float(m.get("dram__bytes.sum", "nan")) / 1e6
        print("%4d %-72s %10.1f %10.1f %6.2f" % (i, name[:72], us, mb, mb / us if us else 0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
