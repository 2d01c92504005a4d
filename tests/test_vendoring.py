"""The vendoring promise: copy the package folder anywhere and it works with no site-packages."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import quantity_guard

PACKAGE = Path(quantity_guard.__file__).parent


def test_copied_package_imports_and_converts_under_isolated_mode(tmp_path):
    shutil.copytree(PACKAGE, tmp_path / "quantity_guard",
                    ignore=shutil.ignore_patterns("__pycache__"))
    code = (f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import quantity_guard as qg; from quantity_guard.units import convert;"
            "print(convert(1250, 'cfs', 'm3/s'), qg.__version__, 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    value, version, numpy_loaded = out.stdout.split()
    assert (value, version, numpy_loaded) == ("35.39605824", quantity_guard.__version__, "False")
