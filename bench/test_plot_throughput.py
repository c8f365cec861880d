"""Self-test of bench/plot_throughput.py: python3 -m pytest -q bench/test_plot_throughput.py"""

import importlib.util
import json
import pathlib
import xml.etree.ElementTree as ET

import pytest

HERE = pathlib.Path(__file__).resolve().parent
SVG = "{http://www.w3.org/2000/svg}"


def _load_module():
    spec = importlib.util.spec_from_file_location("plot_throughput",
                                                  HERE / "plot_throughput.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


plot = _load_module()


def _line(bench, op, ranks, n, pps, ratio, movers=None, **extra):
    rec = {"bench": bench, "name": op, "op": op,
           "path": "device" if bench == "map_ghost" else "host",
           "ranks": ranks, "n_per_rank": n, "n_global": n * ranks, "reps": 3,
           "time_s": n * ranks / pps, "particles_per_s": pps, "ratio": ratio,
           "ratio_compute": min(1.0, 1.5 * ratio)}
    if movers is not None:
        rec["movers"] = movers
    rec.update(extra)
    return rec


@pytest.fixture
def results(tmp_path):
    """Two series (device map 10% at 1 rank, host ghost_get at 2 ranks) plus noise."""
    lines = [
        {"bench": "map_ghost", "name": "config", "path": "device", "ranks": 1},
        {"bench": "growth", "name": "single", "n": 1000, "time_s": 1.0},
        {"bench": "kernel_bandwidth", "name": "axpy/raw_soa/f32", "op": "axpy",
         "n": 1 << 20, "ratio": 1.0},
        {"bench": "map_ghost_host", "name": "config", "path": "host", "ranks": 2},
    ]
    for k, n in enumerate((1 << 20, 1 << 22, 1 << 24)):
        lines.append(_line("map_ghost", "map", 1, n, 1e9 * (k + 1), 0.1 * (k + 1), 0.1))
        lines.append(_line("map_ghost", "map", 1, n, 5e8, 0.05, 0.5))  # filtered out
    for k, n in enumerate((1 << 16, 1 << 18, 1 << 20, 1 << 22)):
        lines.append(_line("map_ghost_host", "ghost_get", 2, n, 1e7 * (k + 1), 0.2))
    # A repeat of an earlier point: the last line wins.
    lines.append(_line("map_ghost_host", "ghost_get", 2, 1 << 16, 3e6, 0.9))
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(json.dumps(rec) for rec in lines) + "\n\n", encoding="utf-8")
    return path


def _series(svg_path):
    """{legend label: [(x, y), ...]} from the series groups of the SVG."""
    root = ET.parse(svg_path).getroot()
    assert root.tag == SVG + "svg"
    out = {}
    for group in root.iter(SVG + "g"):
        if group.get("class") != "series":
            continue
        polylines = group.findall(SVG + "polyline")
        assert len(polylines) == 1
        points = [tuple(map(float, p.split(","))) for p in polylines[0].get("points").split()]
        out[group.find(SVG + "title").text] = points
    assert len(out) == len(root.findall(f".//{SVG}polyline"))
    return out


def _texts(svg_path):
    return ["".join(t.itertext()) for t in ET.parse(svg_path).getroot().iter(SVG + "text")]


def test_throughput_plot(results, tmp_path):
    out = tmp_path / "plot.svg"
    assert plot.main([str(results), "-o", str(out)]) == 0
    series = _series(out)
    assert sorted(series) == ["device map, 1 rank, 10% movers",
                              "host ghost_get (new plan), 2 ranks"]
    assert len(series["device map, 1 rank, 10% movers"]) == 3
    ghost = series["host ghost_get (new plan), 2 ranks"]
    assert len(ghost) == 4
    # x grows with n; the repeated first point (3e6 < 2e7) sits lowest (largest y pixel).
    assert [x for x, _ in ghost] == sorted(x for x, _ in ghost)
    assert ghost[0][1] == max(y for _, y in ghost)
    texts = _texts(out)
    assert "pvec map / ghost_get throughput" in texts
    assert "particles/s (global particles / time)" in texts
    assert {"1e6", "1e7", "1e8", "1e9", "1e10"} <= set(texts)  # y decades
    assert "2^20" in texts and "2^16" in texts  # x: all counts are powers of two


def test_filters_and_movers(results, tmp_path):
    out = tmp_path / "plot.svg"
    assert plot.main([str(results), "-o", str(out), "--bench", "map_ghost",
                      "--movers", "0.1,0.5", "--title", "A & B <test>"]) == 0
    series = _series(out)
    assert sorted(series) == ["device map, 1 rank, 10% movers",
                              "device map, 1 rank, 50% movers"]
    assert "A & B <test>" in _texts(out)
    assert plot.main([str(results), "-o", str(out), "--all-movers"]) == 0
    assert len(_series(out)) == 3
    # Nothing selected: an error status, not an empty plot.
    assert plot.main([str(results), "-o", str(out), "--bench", "map_ghost",
                      "--movers", "0.3"]) == 1


def test_ratio_metric(results, tmp_path):
    out = tmp_path / "ratio.svg"
    assert plot.main([str(results), "-o", str(out), "--metric", "ratio"]) == 0
    series = _series(out)
    assert [len(p) for p in series.values()] == [3, 4]
    texts = _texts(out)
    assert any(t.startswith("ratio (") for t in texts)
    assert {"0", "0.2", "1"} <= set(texts)  # linear 0..1 axis
    assert plot.main([str(results), "-o", str(out), "--metric", "ratio_compute",
                      "--logy"]) == 0
    assert "1e0" in _texts(out)


def test_order_joins_the_key_only_when_it_varies(tmp_path):
    path = tmp_path / "results.jsonl"
    lines = [_line("map_ghost", "ghost_reuse", 1, n, 1e9, 0.1, order=order)
             for order in ("random", "sorted") for n in (1000, 10000, 100000)]
    path.write_text("\n".join(json.dumps(rec) for rec in lines), encoding="utf-8")
    out = tmp_path / "plot.svg"
    assert plot.main([str(path), "-o", str(out)]) == 0
    assert sorted(_series(out)) == [
        "device ghost_get (reused plan), 1 rank, random order",
        "device ghost_get (reused plan), 1 rank, sorted order"]
    assert "1e4" in _texts(out)  # not powers of two: decade ticks on x
    path.write_text("\n".join(json.dumps(rec) for rec in lines[:3]), encoding="utf-8")
    assert plot.main([str(path), "-o", str(out)]) == 0
    assert list(_series(out)) == ["device ghost_get (reused plan), 1 rank"]


def test_real_results_if_present(tmp_path):
    results = HERE.parent / "docs" / "results" / "h200" / "suite.jsonl"
    if not results.exists():
        pytest.skip("no stored results")
    out = tmp_path / "h200.svg"
    assert plot.main([str(results), "-o", str(out)]) == 0
    series = _series(out)

    def has(prefix):  # labels end in ", random order" etc. when the file has several orders
        return any(label == prefix or label.startswith(prefix + ",") for label in series)

    assert has("device ghost_get (reused plan), 1 rank")
    assert has("host ghost_get (new plan), 4 ranks")
    assert all("10% movers" in label for label in series if " map," in label)
