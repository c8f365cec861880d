"""`pip install` of the package works offline (no index, no build isolation: setuptools and
wheel already installed) and the installed copy imports and finds libpvec."""

import os
import shutil
import subprocess
import sys

import pytest

PACKAGE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def test_pip_install_into_a_target_directory(tmp_path):
    # In a child: importing setuptools here would clash with the distutils already loaded.
    probe = subprocess.run([sys.executable, "-c", "import setuptools, wheel, pip"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip("this python cannot pip install offline (needs pip, setuptools, wheel): "
                    + probe.stderr.strip().splitlines()[-1])
    # Build from a copy: setuptools writes build/ and *.egg-info next to pyproject.toml.
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(os.path.join(PACKAGE_DIR, name), src / name)
    shutil.copytree(os.path.join(PACKAGE_DIR, "pvec"), src / "pvec",
                    ignore=shutil.ignore_patterns("__pycache__", "_install_config.py"))
    target = tmp_path / "site"
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index",
         "--no-build-isolation", "--target", str(target), str(src)],
        env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (target / "pvec" / "__init__.py").is_file()
    assert (target / "pvec" / "capi.py").is_file()
    assert any(p.name.startswith("pvec-0.1.0") for p in target.glob("*.dist-info"))

    # The installed copy, not the source tree, is what imports; it loads the library.
    env["PYTHONPATH"] = str(target)
    code = ("import pvec, numpy as np; print(pvec.__file__); "
            "v = pvec.Vector(dim=2, n=5, backend='host', schema=[('a', np.float32)]); "
            "print(v.size, v.capacity, pvec.version())")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.split("\n")
    assert lines[0].startswith(str(target))
    assert lines[1].split()[:2] == ["5", "64"]
