#!/usr/bin/env python3
"""Draw a balanced decomposition of the SPH dam break as an SVG: the particles of one VTK
output step coloured by the rank that owns them (walls grey), and each rank's box.

    mpiexec -n 4 build/examples/sph_dambreak --dim 2 --dp 0.02 --time 0.4 --vtk /tmp/db
    python3 scripts/draw_decomposition.py /tmp/db [--step N] [--out docs/img/decomposition.svg]

Reads DIR/dambreak.pvd (the last step unless --step), its .pvtp and the pieces' .vtp (pvec's
VTK writer: appended raw data, UInt64 headers, little endian), and DIR/dambreak_<step>_boxes.csv,
which the example writes beside every VTK output (pvec_vector_get_subdomain of each rank).
Draws the x coordinate against the vertical one (y in 2D, z in 3D). Standard library only.
"""

import argparse
import csv
import os
import re
import struct
import sys
import xml.etree.ElementTree as ET

TYPES = {"Int32": ("i", 4), "Int64": ("q", 8), "Float32": ("f", 4), "Float64": ("d", 8),
         "UInt32": ("I", 4), "UInt64": ("Q", 8)}
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#17becf", "#e377c2",
           "#bcbd22"]


def read_vtp(path):
    """The arrays of one piece: name -> (list of tuples or values, components)."""
    raw = open(path, "rb").read()
    head, _, rest = raw.partition(b"<AppendedData encoding=\"raw\">")
    data = rest[rest.index(b"_") + 1:]
    root = ET.fromstring(head + b"</VTKFile>" if b"</VTKFile>" not in head else head)
    out = {}
    for arr in root.iter("DataArray"):
        if arr.get("format") != "appended":
            continue
        code, size = TYPES[arr.get("type")]
        off = int(arr.get("offset"))
        nbytes = struct.unpack_from("<Q", data, off)[0]
        count = nbytes // size
        values = struct.unpack_from("<%d%s" % (count, code), data, off + 8)
        ncomp = int(arr.get("NumberOfComponents", "1"))
        out[arr.get("Name")] = (values, ncomp)
    return out


def step_files(folder, step):
    pvd = ET.parse(os.path.join(folder, "dambreak.pvd")).getroot()
    sets = [(int(re.search(r"_(\d+)\.pvtp$", d.get("file")).group(1)), d.get("file"))
            for d in pvd.iter("DataSet")]
    if not sets:
        sys.exit("draw_decomposition: no step in dambreak.pvd")
    steps = dict(sets)
    pvtp_name = steps.get(step) if step is not None else sets[-1][1]
    if pvtp_name is None:
        sys.exit("draw_decomposition: no step %d in dambreak.pvd" % step)
    pvtp = os.path.join(folder, pvtp_name)
    pieces = [os.path.join(os.path.dirname(pvtp), p.get("Source"))
              for p in ET.parse(pvtp).getroot().iter("Piece")]
    number = int(re.search(r"_(\d+)\.pvtp$", pvtp_name).group(1))
    return number, pieces


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--step", type=int, default=None)
    ap.add_argument("--out", default="decomposition.svg")
    ap.add_argument("--width", type=int, default=900, help="picture width in pixels")
    a = ap.parse_args()
    step, pieces = step_files(a.folder, a.step)
    pts = []  # (x, vertical, rank, wall)
    dim = 2
    for piece in pieces:
        arrays = read_vtp(piece)
        xyz, _ = arrays["Points"]
        ranks, _ = arrays["rank"]
        types, _ = arrays["type"]
        n = len(ranks)
        if any(xyz[3 * k + 2] != 0 for k in range(n)):
            dim = 3
        for k in range(n):
            pts.append((xyz[3 * k], xyz[3 * k + 1], xyz[3 * k + 2], ranks[k], types[k] != 0))
    vert = 2 if dim == 3 else 1
    boxes = []
    with open(os.path.join(a.folder, "dambreak_%06d_boxes.csv" % step)) as f:
        for row in csv.DictReader(f):
            boxes.append((int(row["rank"]), float(row["lo0"]), float(row["lo%d" % vert]),
                          float(row["hi0"]), float(row["hi%d" % vert])))
    x0 = min(b[1] for b in boxes)
    x1 = max(b[3] for b in boxes)
    y0 = min(b[2] for b in boxes)
    y1 = max(b[4] for b in boxes)
    scale = (a.width - 40) / (x1 - x0)
    height = int((y1 - y0) * scale) + 60
    px = lambda x: 20 + (x - x0) * scale  # noqa: E731
    py = lambda y: height - 40 - (y - y0) * scale  # noqa: E731
    svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="13">' % (a.width, height),
           '<rect width="100%" height="100%" fill="white"/>']
    # In 3D the particles of one (x, z) column overlap: draw each column once.
    seen = set()
    for x, y, z, r, wall in pts:
        v = z if dim == 3 else y
        key = (round(px(x)), round(py(v)))
        if key in seen:
            continue
        seen.add(key)
        colour = "#b0b0b0" if wall else PALETTE[r % len(PALETTE)]
        svg.append('<circle cx="%.1f" cy="%.1f" r="1.6" fill="%s"/>' % (px(x), py(v), colour))
    for r, lx, ly, hx, hy in boxes:
        colour = PALETTE[r % len(PALETTE)]
        svg.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" '
                   'stroke="%s" stroke-width="2"/>' % (px(lx), py(hy), (hx - lx) * scale,
                                                       (hy - ly) * scale, colour))
        svg.append('<text x="%.1f" y="%.1f" fill="%s">rank %d</text>'
                   % (px(lx) + 4, py(hy) + 16, colour, r))
    svg.append('<text x="20" y="%d">step %d: %d particles on %d ranks (walls grey), each rank\'s '
               'box outlined</text>' % (height - 12, step, len(pts), len(boxes)))
    svg.append("</svg>")
    with open(a.out, "w") as f:
        f.write("\n".join(svg) + "\n")
    print("draw_decomposition: wrote %s (step %d, %d ranks, %d particles)"
          % (a.out, step, len(boxes), len(pts)))


if __name__ == "__main__":
    main()
