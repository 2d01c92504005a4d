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


VENDORED_USE = """
import json, sys
sys.path.insert(0, {root!r})
from quantity_guard import Q, quantity_tool, session, register_station
from quantity_guard.annotations import loads
from quantity_guard.mcp.policy import QuantityPolicy

@quantity_tool(params={{"d": {{"unit": "m**3/s"}}}}, returns={{"unit": "m3/s"}})
def f(d):
    return d

with session() as ledger:
    out = f("1250 cfs")
register_station("X1", Q(1.5, "ft", datum="NAVD88"))
policy = QuantityPolicy(loads(json.dumps({{"tools": {{"t": {{"params": {{"d": "m3/s"}}}}}}}}),
                              kind="json"))
decision = policy.check_call("t", {{"d": "1250 cfs"}})
print(out.magnitude, Q(12.4, "ft", datum="GAGE:X1").to_datum("NAVD88").magnitude,
      decision.payload["d"], len(ledger.calls), "numpy" in sys.modules)
"""


def test_copied_package_runs_tools_sessions_datums_and_the_policy_isolated(tmp_path):
    shutil.copytree(PACKAGE, tmp_path / "quantity_guard",
                    ignore=shutil.ignore_patterns("__pycache__"))
    out = subprocess.run([sys.executable, "-I", "-S", "-c",
                          VENDORED_USE.format(root=str(tmp_path))],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["35.39605824", "13.9", "35.39605824", "1", "False"]
