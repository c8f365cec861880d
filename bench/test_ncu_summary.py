"""Self-test of bench/ncu_summary.py: python3 -m pytest -q bench/test_ncu_summary.py"""

import importlib.util
import io
import pathlib

HERE = pathlib.Path(__file__).resolve().parent


def _load_module():
    spec = importlib.util.spec_from_file_location("ncu_summary", HERE / "ncu_summary.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


summary = _load_module()

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
          '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
          '"Metric Value"\n')


def _row(i, name, metric, unit, value):
    return (f'"{i}","1","bench","host","{name}","1","7","(256, 1, 1)","(10, 1, 1)","0","9.0",'
            f'"Command line profiler metrics","{metric}","{unit}","{value}"\n')


def _csv():
    text = "==PROF== Connected to process 1\n# bench_neighbors: CUDA backend\n" + HEADER
    text += _row(0, "void keys<double, 3>(const double *, int)", "dram__bytes.sum", "byte",
                 "3,188,790,784")
    text += _row(0, "void keys<double, 3>(const double *, int)", "gpu__time_duration.sum", "ns",
                 "1,038,112")
    text += _row(1, "tile_sort_kernel(const int *)", "dram__bytes.sum", "byte", "1,262,738,432")
    text += _row(1, "tile_sort_kernel(const int *)", "gpu__time_duration.sum", "ns", "1,380,352")
    return text


def test_one_line_per_launch_with_both_metrics():
    rows = summary.launches(io.StringIO(_csv()))
    assert [(i, name) for i, name, _ in rows] == [(0, "void keys<double, 3>"),
                                                  (1, "tile_sort_kernel")]
    assert rows[1][2]["gpu__time_duration.sum"] == "1380352"
    assert rows[0][2]["dram__bytes.sum"] == "3188790784"


def test_table_gives_microseconds_megabytes_and_rate(tmp_path, capsys):
    f = tmp_path / "ncu.csv"
    f.write_text(_csv())
    assert summary.main([str(f), "--from", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["id", "kernel", "us", "MB", "TB/s"]
    assert len(out) == 2  # launch 0 left out by --from
    fields = out[1].split()
    assert fields[0] == "1" and fields[1] == "tile_sort_kernel"
    assert float(fields[2]) == 1380.4
    assert float(fields[3]) == 1262.7
    assert abs(float(fields[4]) - 1262.738432 / 1380.352) < 0.01


def test_template_arguments_in_parentheses_stay_in_the_name():
    name = ("void pvec::<unnamed>::tile_sort_kernel<1, (pvec::impl::TileMatch)1>"
            "(const int *, const int *)")
    assert summary.kernel_name(name) == name.split(">(")[0] + ">"
    assert summary.kernel_name("plain_kernel") == "plain_kernel"
    assert summary.kernel_name("k(int)") == "k"


def test_input_without_kernel_rows_is_an_error(tmp_path, capsys):
    f = tmp_path / "empty.csv"
    f.write_text("==PROF== Connected to process 1\n==PROF== Disconnected\n")
    assert summary.main([str(f)]) == 1
    assert "no kernel rows" in capsys.readouterr().err
