"""Self-test of plot_timeline.py (pytest; standard library otherwise)."""

import os
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_timeline  # noqa: E402

HEADER = "rank,step,part,start_ms,end_ms\n"


def write(tmp_path, name, lines):
    p = tmp_path / name
    p.write_text(HEADER + "".join(line + "\n" for line in lines))
    return str(p)


def trace_lines(ranks=2, steps=6, rebuild_at=(2,)):
    out = []
    for r in range(ranks):
        t = 0.0
        for s in range(1, steps + 1):
            parts = ["kick+drift", "verlet_check"]
            parts += ["rebuild", "forces"] if s in rebuild_at else \
                ["ghost_get_begin", "forces (interior)", "ghost_get_end", "forces (boundary)"]
            parts += ["ghost_put", "kick"]
            for p in parts:
                out.append(f"{r},{s},{p},{t:.3f},{t + 0.1:.3f}")
                t += 0.1
    return out


def rects(svg_path):
    root = ET.parse(svg_path).getroot()
    return [e for e in root.iter() if e.tag.endswith("rect") and e.find("{*}title") is not None]


def test_draws_every_part_of_the_default_window(tmp_path):
    src = write(tmp_path, "a.csv", trace_lines())
    out = str(tmp_path / "t.svg")
    assert plot_timeline.main([src + "=overlap", "-o", out, "--title", "LJ"]) == 0
    drawn = rects(out)
    # steps 3, 4, 5 (the first three consecutive steps without the rebuild at 2), 8 parts
    # each, 2 ranks
    assert len(drawn) == 3 * 8 * 2
    titles = [r.find("{*}title").text for r in drawn]
    assert all(t.startswith(("step 3", "step 4", "step 5")) for t in titles)
    assert "overlap" in open(out).read()


def test_panels_share_the_scale_and_steps_option(tmp_path):
    a = write(tmp_path, "a.csv", trace_lines(ranks=1))
    b = write(tmp_path, "b.csv", trace_lines(ranks=2))
    out = str(tmp_path / "t.svg")
    assert plot_timeline.main([a, b, "-o", out, "--steps", "1:2"]) == 0
    drawn = rects(out)
    assert len(drawn) == (8 + 6) * 3  # steps 1 and 2 (2 rebuilt): 1 + 2 lanes
    widths = {round(float(r.get("width")), 2) for r in drawn}
    assert len(widths) == 1  # every part is 0.1 ms, drawn alike in both panels


def test_bad_inputs_are_reported(tmp_path, capsys):
    out = str(tmp_path / "t.svg")
    assert plot_timeline.main([str(tmp_path / "missing.csv"), "-o", out]) == 1
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    assert plot_timeline.main([str(bad), "-o", out]) == 1
    neg = write(tmp_path, "neg.csv", ["0,1,kick,2.0,1.0"])
    assert plot_timeline.main([neg, "-o", out]) == 1
    empty = write(tmp_path, "empty.csv", [])
    assert plot_timeline.main([empty, "-o", out]) == 1
    ok = write(tmp_path, "ok.csv", trace_lines())
    assert plot_timeline.main([ok, "-o", out, "--steps", "50:60"]) == 1
    err = capsys.readouterr().err
    assert "missing.csv" in err and "header" in err and "ends before" in err
    assert "no records" in err
    assert not os.path.exists(out)
