"""The sdist and wheel built from this checkout install into a fresh virtual environment, and
what they install runs: the offline demo and the ``quantity-guard-mcp`` console script, outside
the repository, with nothing of the checkout on the path.

The package index holds another project under the name ``quantity-guard``, so the README's
install lines install from the checkout or from a wheel built from it; this is that wheel. The
build runs without isolation (``python -m build --no-isolation``: the dev extra brings ``build``
and ``setuptools``), so no package is fetched for it. One test, since each step needs the last.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
IGNORED = shutil.ignore_patterns(".git", "__pycache__", "*.egg-info", "build", "dist", ".venv*",
                                 "results", "site", ".pytest_cache", ".hypothesis")


def _run(argv, cwd, env, timeout=300):
    out = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, f"{argv}\n{out.stdout}\n{out.stderr}"
    return out


def test_the_wheel_installs_in_a_fresh_venv_and_its_demo_and_cli_run(tmp_path):
    pytest.importorskip("build", reason="the sdist/wheel build needs build: pip install -e '.[dev]'")
    pytest.importorskip("setuptools", reason="the build backend is setuptools: pip install -e '.[dev]'")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_", "VIRTUAL_ENV"))}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    version = _run([sys.executable, "-c", "import runpy; print(runpy.run_path("
                    "'quantity_guard/_version.py')['__version__'])"], ROOT, env).stdout.strip()

    src = tmp_path / "src"  # a copy, so the build writes nothing into the checkout
    shutil.copytree(ROOT, src, ignore=IGNORED)
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(src)],
         tmp_path, env)
    wheels = list(dist.glob("*.whl"))
    sdists = list(dist.glob("*.tar.gz"))
    assert [w.name for w in wheels] == [f"quantity_guard-{version}-py3-none-any.whl"]
    assert [s.name for s in sdists] == [f"quantity_guard-{version}.tar.gz"]

    with zipfile.ZipFile(wheels[0]) as wheel:
        names = wheel.namelist()
        metadata = wheel.read(f"quantity_guard-{version}.dist-info/METADATA").decode()
        entry_points = wheel.read(f"quantity_guard-{version}.dist-info/entry_points.txt").decode()
    assert "quantity_guard/py.typed" in names  # users' type checkers read the annotations
    assert "quantity_guard/data/units.json" in names
    assert not [n for n in names if n.startswith(("tests/", "bench/", "demo/"))]
    assert "Name: quantity-guard" in metadata and f"Version: {version}" in metadata
    assert "Provides-Extra: arrays" in metadata and "Provides-Extra: integrations" in metadata
    assert "quantity-guard-mcp = quantity_guard.mcp.cli:main" in entry_points
    with tarfile.open(sdists[0]) as sdist:
        members = {m.name.split("/", 1)[1] for m in sdist.getmembers() if "/" in m.name}
    assert {"README.md", "pyproject.toml", "quantity_guard/__init__.py",
            "quantity_guard/py.typed"} <= members

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path, env)
    python, exe = venv / "bin" / "python", venv / "bin" / "quantity-guard-mcp"
    _run([str(python), "-m", "pip", "install", "-q", str(wheels[0])], tmp_path, env)
    where = _run([str(python), "-I", "-c", "import quantity_guard as q; print(q.__version__); "
                  "print(q.__file__)"], tmp_path, env).stdout.split()
    assert where[0] == version
    assert Path(where[1]).resolve().is_relative_to(venv.resolve())

    elsewhere = tmp_path / "elsewhere"  # the demo, away from the checkout
    shutil.copytree(ROOT / "demo", elsewhere / "demo", ignore=IGNORED)
    demo = _run([str(python), "demo/proxy_demo.py"], elsewhere, env, timeout=120).stdout
    lines = demo.splitlines()
    assert lines[0].startswith("schema   discharge x-unit = m**3/s")
    assert lines[3].startswith("ERROR    runoff_depth.discharge: received the bare number 1250")
    assert lines[4] == 'ok       {"value": 0.10545584248055173, "unit": "mm/d"}'
    assert lines[6].startswith("ERROR    freeboard.stage: expected an elevation on NAVD88")

    helped = _run([str(exe), "--help"], elsewhere, env).stdout
    assert helped.startswith("usage: quantity-guard-mcp")
    assert _run([str(exe), "--version"], elsewhere, env).stdout.split() == ["quantity-guard-mcp",
                                                                           version]
    checked = _run([str(exe), "--check", "--annotations", "demo/water.toml", "--", str(python),
                    "demo/usgs_server.py"], elsewhere, env)
    assert "runoff_depth" in checked.stdout + checked.stderr
