#!/usr/bin/env python3
"""Draw the per-rank timeline of LJ steps (``lj_md --trace FILE``) as an SVG.

Each input is a CSV written by ``lj_md --trace``: one line per part of a measured step and
rank, ``rank,step,part,start_ms,end_ms`` (times from a common origin taken after a barrier).
Every input becomes one panel with a lane per rank; the panels share the time scale, so an
overlapped run drawn above a blocking one shows what the overlap saved. Only the standard
library is used.

Usage::

    python3 bench/plot_timeline.py TRACE.csv[=LABEL] [MORE.csv[=LABEL] ...] [-o OUT.svg]
        [--steps A:B] [--title TEXT]

``--steps A:B`` draws steps A to B inclusive (default: the first three steps of each input
that have no rebuild, so that the plan-replay steps are compared); each panel's time axis
starts at the first part drawn.
"""

import argparse
import csv
import html
import sys

# Colours of the parts lj_md records; others get the fallback cycle.
COLOURS = {
    "kick+drift": "#9ecae1",
    "kick": "#6baed6",
    "verlet_check": "#fdae6b",
    "rebuild": "#bdbdbd",
    "ghost_get": "#e6550d",
    "ghost_get_begin": "#fd8d3c",
    "ghost_get_end": "#e6550d",
    "forces": "#31a354",
    "forces (interior)": "#74c476",
    "forces (boundary)": "#006d2c",
    "ghost_put": "#756bb1",
    "energy": "#d9d9d9",
}
FALLBACK = ["#e377c2", "#8c564b", "#17becf", "#bcbd22"]
FIELDS = ["rank", "step", "part", "start_ms", "end_ms"]


class TraceError(Exception):
    """An input that cannot be drawn."""


def read_trace(path):
    """The records of one trace: a list of (rank, step, part, start, end)."""
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            if reader.fieldnames != FIELDS:
                raise TraceError(f"{path}: header {reader.fieldnames}, expected {FIELDS}")
            rows = []
            for n, r in enumerate(reader, start=2):
                try:
                    rec = (int(r["rank"]), int(r["step"]), r["part"], float(r["start_ms"]),
                           float(r["end_ms"]))
                except (TypeError, ValueError) as e:
                    raise TraceError(f"{path}:{n}: {e}") from e
                if rec[4] < rec[3]:
                    raise TraceError(f"{path}:{n}: ends before it starts")
                rows.append(rec)
    except OSError as e:
        raise TraceError(f"{path}: {e.strerror}") from e
    if not rows:
        raise TraceError(f"{path}: no records")
    return rows


def default_steps(rows, count=3):
    """The first `count` consecutive steps without a rebuild (or the first such steps)."""
    rebuilt = {r[1] for r in rows if r[2] == "rebuild"}
    steps = sorted({r[1] for r in rows} - rebuilt)
    if not steps:
        raise TraceError("every step has a rebuild; pass --steps")
    for k in range(len(steps) - count + 1):
        if steps[k + count - 1] - steps[k] == count - 1:
            return steps[k:k + count]
    return steps[:count]


def parse_steps(text):
    try:
        a, b = (int(x) for x in text.split(":"))
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"--steps wants A:B, got {text!r}") from e
    if b < a:
        raise argparse.ArgumentTypeError(f"--steps {text}: B < A")
    return list(range(a, b + 1))


def colour_of(part, extra):
    if part in COLOURS:
        return COLOURS[part]
    if part not in extra:
        extra[part] = FALLBACK[len(extra) % len(FALLBACK)]
    return extra[part]


def render(panels, title=""):
    """SVG text of panels: a list of (label, rows, steps)."""
    lane_h, gap, left, right, top = 22, 6, 150, 30, 40 if title else 16
    width = 1000
    plot_w = width - left - right
    spans, drawn = [], []
    for label, rows, steps in panels:
        sel = [r for r in rows if r[1] in set(steps)]
        if not sel:
            raise TraceError(f"{label}: no records in steps {steps[0]}..{steps[-1]}")
        t0 = min(r[3] for r in sel)
        spans.append(max(r[4] for r in sel) - t0)
        drawn.append((label, sel, t0, steps))
    span = max(spans) or 1.0
    scale = plot_w / span
    out, extra, parts_seen = [], {}, []
    y = top
    for label, sel, t0, steps in drawn:
        ranks = sorted({r[0] for r in sel})
        out.append(f'<text x="{left}" y="{y + 12}" font-weight="bold">{html.escape(label)} '
                   f'(steps {steps[0]}-{steps[-1]})</text>')
        y += 18
        for rank in ranks:
            out.append(f'<text x="{left - 8}" y="{y + lane_h * 0.7:.1f}" '
                       f'text-anchor="end">rank {rank}</text>')
            for _, step, part, a, b in (r for r in sel if r[0] == rank):
                if part not in parts_seen:
                    parts_seen.append(part)
                x = left + (a - t0) * scale
                w = max((b - a) * scale, 0.5)
                out.append(f'<rect x="{x:.2f}" y="{y}" width="{w:.2f}" height="{lane_h}" '
                           f'fill="{colour_of(part, extra)}"><title>step {step} '
                           f'{html.escape(part)}: {b - a:.3f} ms</title></rect>')
            y += lane_h + gap
        y += 8
    # time axis
    ticks = nice_ticks(span)
    out.append(f'<line x1="{left}" y1="{y}" x2="{left + plot_w}" y2="{y}" stroke="black"/>')
    for t in ticks:
        x = left + t * scale
        out.append(f'<line x1="{x:.2f}" y1="{y}" x2="{x:.2f}" y2="{y + 4}" stroke="black"/>')
        out.append(f'<text x="{x:.2f}" y="{y + 16}" text-anchor="middle">{t:g}</text>')
    out.append(f'<text x="{left + plot_w / 2}" y="{y + 32}" text-anchor="middle">ms</text>')
    y += 44
    # legend
    x = left
    for part in parts_seen:
        out.append(f'<rect x="{x}" y="{y}" width="12" height="12" '
                   f'fill="{colour_of(part, extra)}"/>')
        out.append(f'<text x="{x + 16}" y="{y + 11}">{html.escape(part)}</text>')
        x += 26 + 7 * len(part)
        if x > width - 120:
            x, y = left, y + 18
    height = y + 30
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="sans-serif" font-size="12">')
    body = [head, f'<rect width="{width}" height="{height}" fill="white"/>']
    if title:
        body.append(f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="15">'
                    f'{html.escape(title)}</text>')
    return "\n".join(body + out + ["</svg>", ""])


def nice_ticks(span, target=8):
    raw = span / target
    mag = 10 ** int(f"{raw:e}".split("e")[1])
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    n = int(span / step) + 1
    return [round(k * step, 10) for k in range(n)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("traces", nargs="+", help="CSV from lj_md --trace, optionally =LABEL")
    ap.add_argument("-o", "--output", default="timeline.svg")
    ap.add_argument("--steps", type=parse_steps)
    ap.add_argument("--title", default="")
    args = ap.parse_args(argv)
    try:
        panels = []
        for spec in args.traces:
            path, _, label = spec.partition("=")
            rows = read_trace(path)
            panels.append((label or path, rows, args.steps or default_steps(rows)))
        svg = render(panels, args.title)
    except TraceError as e:
        print(f"plot_timeline: {e}", file=sys.stderr)
        return 1
    with open(args.output, "w") as f:
        f.write(svg)
    print(f"plot_timeline: wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
