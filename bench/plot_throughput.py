#!/usr/bin/env python3
"""Plot map / ghost_get benchmark throughput against particle count as an SVG.

Reads the JSON-lines results written by the map_ghost benchmarks (``bench_map_ghost``,
device path, and ``bench_map_ghost_host``, host path; usually collected into a
``results.jsonl`` by ``run_gpu_suite.sh``) and draws one line per series: throughput
against particles per rank, both on log axes.  Only the standard library is used, so the
script runs anywhere Python 3 does.

Usage::

    python3 bench/plot_throughput.py RESULTS.jsonl [MORE.jsonl ...] [-o OUT.svg]
        [--title TEXT] [--bench map_ghost,map_ghost_host]
        [--movers 0.01,0.1,0.5 | --all-movers]
        [--metric particles_per_s|ratio|ratio_compute] [--logy]

Which lines are plotted:

* only lines whose ``bench`` is ``map_ghost`` or ``map_ghost_host`` (or the subset given
  with ``--bench``) and whose ``op`` is ``map``, ``ghost_get`` or ``ghost_reuse``; the
  ``config`` lines and the other benchmarks in the file are ignored;
* ``map`` lines only at the mover fractions of ``--movers`` (default 0.1), or at all of
  them with ``--all-movers``;
* a series is (bench/path, op, ranks, movers for map, order if more than one ``order``
  value occurs); when several lines share the series and ``n_per_rank`` (repeated runs),
  the last one read wins, files being read in the order given.

The y value is ``--metric``: ``particles_per_s`` (global particles / time, log axis;
the default), ``ratio`` (model bytes / (time * copy roofline)) or ``ratio_compute`` (the
same with the compute time only); the ratios use a linear 0..1 axis unless ``--logy``.

Example, from the repository root::

    python3 bench/plot_throughput.py docs/results/h200/suite.jsonl -o throughput.svg
"""

import argparse
import json
import math
import sys
from xml.sax.saxutils import escape

BENCH_PATHS = {"map_ghost": "device", "map_ghost_host": "host"}
OPS = ("map", "ghost_get", "ghost_reuse")
OP_LABELS = {
    "map": "map",
    "ghost_get": "ghost_get (new plan)",
    "ghost_reuse": "ghost_get (reused plan)",
}
METRICS = {
    "particles_per_s": "particles/s (global particles / time)",
    "ratio": "ratio (model bytes / (time \u00d7 copy roofline))",
    "ratio_compute": "ratio_compute (model bytes / (compute time \u00d7 copy roofline))",
}

# Fixed palette, one colour per series in legend order (cycled past its end).
PALETTE = (
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
    "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22",
    "#393b79", "#ad494a", "#637939", "#8c6d31", "#7b4173",
    "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363",
    "#9c9ede", "#e7969c", "#b5cf6b", "#e7ba52", "#ce6dbd",
    "#6baed6", "#fd8d3c", "#74c476", "#9e9ac8", "#969696",
)
DASHES = {"device": None, "host": "7,4"}
MARKERS = {"map": "circle", "ghost_get": "square", "ghost_reuse": "triangle"}

WIDTH, HEIGHT = 900, 560
PLOT_LEFT, PLOT_TOP, PLOT_RIGHT, PLOT_BOTTOM = 80, 50, 590, 490
LEGEND_LEFT = 606
CHAR_WIDTH = 0.6  # rough advance of an average character, in font sizes
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"


# --------------------------------------------------------------------------------------
# Reading and grouping
# --------------------------------------------------------------------------------------

def read_records(paths):
    """Yield the JSON objects of the given JSON-lines files, in order.

    Blank lines are skipped; a line that is not a JSON object is reported on stderr and
    skipped, so a results file with stray log output still plots.
    """
    for path in paths:
        with open(path, encoding="utf-8") as stream:
            for lineno, line in enumerate(stream, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    print(f"{path}:{lineno}: not JSON, skipped", file=sys.stderr)
                    continue
                if isinstance(record, dict):
                    yield record


def _number(value):
    """Return value as a finite float, or None when it is not one."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _movers_selected(movers, wanted):
    return any(math.isclose(movers, w, rel_tol=1e-9, abs_tol=1e-12) for w in wanted)


def select_points(records, benches, metric, movers=None):
    """Group the benchmark lines into series.

    Returns a dict mapping a series key (bench, op, ranks, movers, order) to a dict
    {n_per_rank: metric value}.  movers is None for the ghost operations, and for map when
    movers (the list of wanted mover fractions) is None, meaning all of them.  order is
    the line's ``order`` field (None when absent); it is dropped from the keys afterwards
    unless more than one value occurs.
    """
    series = {}
    for rec in records:
        bench = rec.get("bench")
        op = rec.get("op")
        if bench not in benches or rec.get("name") == "config" or op not in OPS:
            continue
        n = _number(rec.get("n_per_rank"))
        y = _number(rec.get(metric))
        ranks = _number(rec.get("ranks"))
        if n is None or n <= 0 or y is None or ranks is None:
            continue
        frac = None
        if op == "map":
            frac = _number(rec.get("movers"))
            if frac is None or (movers is not None and not _movers_selected(frac, movers)):
                continue
        order = rec.get("order")
        key = (bench, op, int(ranks), frac, order if isinstance(order, str) else None)
        series.setdefault(key, {})[n] = y  # a later repeat replaces an earlier one
    if len({key[4] for key in series}) <= 1:
        merged = {}
        for key, points in series.items():
            merged.setdefault(key[:4] + (None,), {}).update(points)
        series = merged
    return series


def series_sort_key(key):
    bench, op, ranks, frac, order = key
    path = BENCH_PATHS.get(bench, bench)
    return (path != "device", path, OPS.index(op), ranks,
            -1.0 if frac is None else frac, order or "")


def series_label(key):
    """Legend text, e.g. "device map, 2 ranks, 10% movers"."""
    bench, op, ranks, frac, order = key
    parts = [f"{BENCH_PATHS.get(bench, bench)} {OP_LABELS[op]}",
             f"{ranks} rank" + ("" if ranks == 1 else "s")]
    if frac is not None:
        parts.append(f"{100.0 * frac:g}% movers")
    if order is not None:
        parts.append(f"{order} order")
    return ", ".join(parts)


# --------------------------------------------------------------------------------------
# Axes
# --------------------------------------------------------------------------------------

def _is_power_of_two(x):
    return x >= 1 and x == int(x) and int(x) & (int(x) - 1) == 0


def _fmt_decade(k):
    return f"1e{k}"


class LogAxis:
    """A log axis over [lo, hi] (data units, both > 0) with labelled ticks."""

    def __init__(self, lo, hi, ticks):
        self.lo, self.hi = math.log10(lo), math.log10(hi)
        self.ticks = ticks  # [(value, label)]
        self.minor = []

    def frac(self, value):
        return (math.log10(value) - self.lo) / (self.hi - self.lo)


class LinearAxis:
    def __init__(self, lo, hi, ticks):
        self.lo, self.hi, self.ticks = lo, hi, ticks
        self.minor = []

    def frac(self, value):
        return (value - self.lo) / (self.hi - self.lo)


def x_axis(values):
    """Particles-per-rank axis: 2^k ticks when every count is a power of two, else 1e k."""
    lo, hi = math.log2(min(values)), math.log2(max(values))
    pad = 0.04 * (hi - lo) if hi > lo else 0.5
    lo, hi = lo - pad, hi + pad
    if all(_is_power_of_two(v) for v in values):
        first, last = math.ceil(lo), math.floor(hi)
        step = max(1, math.ceil((last - first + 1) / 12))
        ticks = [(2.0 ** k, f"2^{k}") for k in range(first, last + 1, step)]
    else:
        first = math.ceil(lo / math.log2(10))
        last = math.floor(hi / math.log2(10))
        if first > last:  # the range holds no power of ten: widen it to the nearest ones
            first, last = math.floor(lo / math.log2(10)), math.ceil(hi / math.log2(10))
            lo, hi = first * math.log2(10), last * math.log2(10)
        ticks = [(10.0 ** k, _fmt_decade(k)) for k in range(first, last + 1)]
    return LogAxis(2.0 ** lo, 2.0 ** hi, ticks)


def log_y_axis(values):
    """Decade axis from the decade at or below the minimum to the one at or above the max."""
    first = math.floor(math.log10(min(values)))
    last = math.ceil(math.log10(max(values)))
    if last == first:
        last += 1
    step = max(1, math.ceil((last - first) / 10))
    axis = LogAxis(10.0 ** first, 10.0 ** last,
                   [(10.0 ** k, _fmt_decade(k)) for k in range(first, last + 1, step)])
    if step == 1 and last - first <= 6:
        axis.minor = [m * 10.0 ** k for k in range(first, last) for m in range(2, 10)]
    return axis


def linear_y_axis(values):
    """0..1 in steps of 0.2, extended upwards in whole units when the data go past 1."""
    top = max(1.0, math.ceil(max(values)))
    step = 0.2 * top
    ticks = [(i * step, f"{i * step:g}") for i in range(6)]
    return LinearAxis(0.0, top, ticks)


# --------------------------------------------------------------------------------------
# SVG
# --------------------------------------------------------------------------------------

def _f(x):
    return f"{x:.1f}"


def _marker(shape, x, y, colour, size=3.5):
    if shape == "circle":
        return (f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{size}" fill="{colour}" '
                f'stroke="white" stroke-width="0.8"/>')
    if shape == "square":
        s = size * 0.9
        return (f'<rect x="{_f(x - s)}" y="{_f(y - s)}" width="{_f(2 * s)}" '
                f'height="{_f(2 * s)}" fill="{colour}" stroke="white" stroke-width="0.8"/>')
    s = size * 1.2
    pts = f"{_f(x)},{_f(y - s)} {_f(x + s)},{_f(y + 0.8 * s)} {_f(x - s)},{_f(y + 0.8 * s)}"
    return f'<polygon points="{pts}" fill="{colour}" stroke="white" stroke-width="0.8"/>'


def _text(x, y, content, size=12, anchor="start", extra=""):
    return (f'<text x="{_f(x)}" y="{_f(y)}" font-size="{size}" text-anchor="{anchor}"'
            f'{extra}>{escape(content)}</text>')


def render_svg(series, title, y_label, log_y):
    """Return the SVG document (a str) for series {key: {n: value}}."""
    keys = sorted(series, key=series_sort_key)
    xs = [n for key in keys for n in series[key]]
    ys = [v for key in keys for v in series[key].values()]
    xaxis = x_axis(xs)
    yaxis = log_y_axis(ys) if log_y else linear_y_axis(ys)
    pw, ph = PLOT_RIGHT - PLOT_LEFT, PLOT_BOTTOM - PLOT_TOP

    def px(value):
        return PLOT_LEFT + xaxis.frac(value) * pw

    def py(value):
        return PLOT_BOTTOM - yaxis.frac(value) * ph

    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="{FONT}">',
        f"<title>{escape(title)}</title>",
        f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        _text((PLOT_LEFT + PLOT_RIGHT) / 2, 28, title, 16, "middle", ' font-weight="bold"'),
    ]

    # Grid and ticks.
    out.append('<g class="grid" stroke="#e4e4e4" stroke-width="0.6">')
    for value in yaxis.minor:
        y = py(value)
        out.append(f'<line x1="{PLOT_LEFT}" y1="{_f(y)}" x2="{PLOT_RIGHT}" y2="{_f(y)}"/>')
    out.append("</g>")
    out.append('<g class="grid" stroke="#c8c8c8" stroke-width="0.8">')
    for value, _ in xaxis.ticks:
        x = px(value)
        out.append(f'<line x1="{_f(x)}" y1="{PLOT_TOP}" x2="{_f(x)}" y2="{PLOT_BOTTOM}"/>')
    for value, _ in yaxis.ticks:
        y = py(value)
        out.append(f'<line x1="{PLOT_LEFT}" y1="{_f(y)}" x2="{PLOT_RIGHT}" y2="{_f(y)}"/>')
    out.append("</g>")
    out.append('<g class="axes" stroke="black" stroke-width="1">')
    out.append(f'<rect x="{PLOT_LEFT}" y="{PLOT_TOP}" width="{pw}" height="{ph}" '
               'fill="none"/>')
    for value, _ in xaxis.ticks:
        x = px(value)
        out.append(f'<line x1="{_f(x)}" y1="{PLOT_BOTTOM}" x2="{_f(x)}" '
                   f'y2="{PLOT_BOTTOM + 5}"/>')
    for value, _ in yaxis.ticks:
        y = py(value)
        out.append(f'<line x1="{PLOT_LEFT - 5}" y1="{_f(y)}" x2="{PLOT_LEFT}" y2="{_f(y)}"/>')
    out.append("</g>")
    out.append('<g class="tick-labels" fill="black">')
    for value, label in xaxis.ticks:
        out.append(_text(px(value), PLOT_BOTTOM + 19, label, 11, "middle"))
    for value, label in yaxis.ticks:
        out.append(_text(PLOT_LEFT - 8, py(value) + 4, label, 11, "end"))
    out.append("</g>")
    out.append(_text((PLOT_LEFT + PLOT_RIGHT) / 2, PLOT_BOTTOM + 42, "particles per rank",
                     13, "middle"))
    yc = (PLOT_TOP + PLOT_BOTTOM) / 2
    size = round(min(13.0, ph / (CHAR_WIDTH * len(y_label))), 1)
    out.append(_text(24, yc, y_label, size, "middle",
                     f' transform="rotate(-90 24 {_f(yc)})"'))

    # Series: one group each, holding its polyline and its markers.
    styles = {}
    for i, key in enumerate(keys):
        colour = PALETTE[i % len(PALETTE)]
        dash = DASHES.get(BENCH_PATHS.get(key[0]))
        styles[key] = (colour, dash, MARKERS[key[1]])
        points = sorted(series[key].items())
        coords = " ".join(f"{_f(px(n))},{_f(py(v))}" for n, v in points)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<g class="series" id="series-{i}">')
        out.append(f"<title>{escape(series_label(key))}</title>")
        out.append(f'<polyline points="{coords}" fill="none" stroke="{colour}" '
                   f'stroke-width="1.8" stroke-linejoin="round"{dash_attr}/>')
        out.extend(_marker(MARKERS[key[1]], px(n), py(v), colour) for n, v in points)
        out.append("</g>")

    # Legend, right of the plot; the rows and font shrink to fit many series.
    labels = [series_label(key) for key in keys]
    room = WIDTH - LEGEND_LEFT - 38 - 6
    longest = max(len(label) for label in labels)
    font = max(7.0, min(11.5, room / (CHAR_WIDTH * longest)))
    row = max(9.0, min(20.0, (HEIGHT - PLOT_TOP - 20) / max(1, len(keys))))
    font = min(font, row - 2)
    out.append('<g class="legend">')
    for i, (key, label) in enumerate(zip(keys, labels)):
        colour, dash, shape = styles[key]
        y = PLOT_TOP + 6 + i * row
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<line x1="{LEGEND_LEFT}" y1="{_f(y)}" x2="{LEGEND_LEFT + 30}" '
                   f'y2="{_f(y)}" stroke="{colour}" stroke-width="1.8"{dash_attr}/>')
        out.append(_marker(shape, LEGEND_LEFT + 15, y, colour, 3.2))
        out.append(_text(LEGEND_LEFT + 38, y + font * 0.35, label, round(font, 1)))
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------

def _csv(text):
    return [item.strip() for item in text.split(",") if item.strip()]


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="Plot map / ghost_get throughput from benchmark JSON lines as SVG.")
    parser.add_argument("inputs", nargs="+", metavar="RESULTS.jsonl",
                        help="JSON-lines result files (later lines win on repeats)")
    parser.add_argument("-o", "--output", default="map_ghost_throughput.svg",
                        help="SVG file to write (default: %(default)s)")
    parser.add_argument("--title", default="pvec map / ghost_get throughput",
                        help="plot title (default: %(default)s)")
    parser.add_argument("--bench", default=",".join(BENCH_PATHS),
                        help="comma-separated benches to plot (default: %(default)s)")
    movers = parser.add_mutually_exclusive_group()
    movers.add_argument("--movers", default="0.1",
                        help="comma-separated mover fractions of the map series "
                             "(default: %(default)s)")
    movers.add_argument("--all-movers", action="store_true",
                        help="plot map at every mover fraction found")
    parser.add_argument("--metric", choices=list(METRICS), default="particles_per_s",
                        help="y quantity (default: %(default)s)")
    parser.add_argument("--logy", action="store_true",
                        help="log y axis for the ratio metrics (particles_per_s is always "
                             "log)")
    args = parser.parse_args(argv)
    args.bench = _csv(args.bench)
    unknown = [b for b in args.bench if b not in BENCH_PATHS]
    if unknown or not args.bench:
        parser.error(f"--bench: expected names from {', '.join(BENCH_PATHS)}, "
                     f"got {args.bench or 'nothing'}")
    if args.all_movers:
        args.movers = None
    else:
        try:
            args.movers = [float(m) for m in _csv(args.movers)]
        except ValueError:
            parser.error(f"--movers: expected comma-separated numbers, got {args.movers!r}")
    return args


def main(argv=None):
    """Entry point; returns the process exit status."""
    args = parse_args(argv)
    series = select_points(read_records(args.inputs), set(args.bench), args.metric,
                           args.movers)
    log_y = args.metric == "particles_per_s" or args.logy
    if log_y:
        for key, points in series.items():
            dropped = [n for n, v in points.items() if v <= 0]
            for n in dropped:
                del points[n]
            if dropped:
                print(f"{series_label(key)}: {len(dropped)} non-positive value(s) left off "
                      "the log axis", file=sys.stderr)
        series = {key: points for key, points in series.items() if points}
    if not series:
        print("no map/ghost_get lines to plot (check the files, --bench and --movers)",
              file=sys.stderr)
        return 1
    svg = render_svg(series, args.title, METRICS[args.metric], log_y)
    with open(args.output, "w", encoding="utf-8") as stream:
        stream.write(svg)
    total = sum(len(points) for points in series.values())
    print(f"wrote {args.output}: {len(series)} series, {total} points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
