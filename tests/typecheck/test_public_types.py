"""A user's type checker sees the public API's real types, not ``Any``.

``quantity_guard`` imports its names lazily (PEP 562); the package ships ``py.typed``. A script
written as the README's examples are, checked by mypy and by pyright, must see ``Q`` as ``Q``,
``quantity_tool(...)`` as a ``GuardedTool``, ``session()`` as a context manager of a ``Ledger``,
and must be told about a wrong call and a misspelt name. Both checkers read the package under
test (its parent directory is put first on their search path), as they would read an installed
copy.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import quantity_guard

PACKAGE_PARENT = Path(quantity_guard.__file__).resolve().parent.parent

SCRIPT = textwrap.dedent('''\
    from quantity_guard import Q, quantity_tool, session, toolbox

    @quantity_tool(
        params={"discharge": {"unit": "m**3/s"}, "area": {"unit": "km**2"}},
        returns={"unit": "mm/day"},
    )
    def runoff_depth(discharge, area):
        """Depth-equivalent runoff over the contributing area."""
        return discharge / area

    reveal_type(Q(1, "m"))  # L-Q
    reveal_type(Q(1250, "cfs").to("m3/s"))  # L-to
    reveal_type(runoff_depth)  # L-tool
    reveal_type(toolbox([runoff_depth]))  # L-box
    with session(context="The basin drains 29,000 km2.") as ledger:
        reveal_type(ledger)  # L-ledger
        depth = runoff_depth("1250 cfs", 29000)
        audit = ledger.audit_answer(f"About {depth.magnitude:.3f} mm/day.")
        reveal_type(audit.ok)  # L-ok
    Q(1, unit=5)  # L-wrong-unit
    session(context=3)  # L-wrong-context
    from quantity_guard import Qq  # L-misspelt
    ''')

EXPECTED = {  # line marker -> the type each checker must reveal there
    "L-Q": ("quantity_guard.quantity.Q", "Q"),
    "L-to": ("quantity_guard.quantity.Q", "Q"),
    "L-tool": ("quantity_guard.tool.GuardedTool", "GuardedTool"),
    "L-box": ("quantity_guard.adapters.Toolbox", "Toolbox"),
    "L-ledger": ("quantity_guard.ledger.Ledger", "Ledger"),
    "L-ok": ("bool", "bool"),
}
ERRORS = ("L-wrong-unit", "L-wrong-context", "L-misspelt")


def _lines() -> dict[str, int]:
    return {m.group(1): i for i, line in enumerate(SCRIPT.splitlines(), 1)
            if (m := re.search(r"# (L-[\w-]+)$", line))}


def _every_public_name() -> str:
    """A script revealing every name of ``__all__`` through the module, as ``qg.<name>``."""
    return "import quantity_guard as qg\n" + "".join(
        f"reveal_type(qg.{name})\n" for name in quantity_guard.__all__)


def _mypy(tmp_path: Path, script: str) -> list[tuple[int, str, str]]:
    pytest.importorskip("mypy", reason="mypy is a dev dependency: pip install -e '.[dev]'")
    (tmp_path / "user.py").write_text(script)
    env = {**os.environ, "MYPYPATH": str(PACKAGE_PARENT)}
    env.pop("PYTHONPATH", None)
    out = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir",
                          os.devnull, "--follow-imports=silent", "--config-file", os.devnull,
                          "--show-error-codes", "--no-error-summary", "user.py"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
    found = []
    for line in out.stdout.splitlines():
        m = re.match(r"user\.py:(\d+): (error|note): (.*)$", line)
        if m:
            found.append((int(m.group(1)), m.group(2), m.group(3)))
    assert found or out.returncode == 0, out.stdout + out.stderr
    return found


def _pyright(tmp_path: Path, script: str) -> list[tuple[int, str, str]]:
    exe = shutil.which("pyright") or str(Path(sys.executable).parent / "pyright")
    if not Path(exe).exists():
        pytest.skip("pyright is a dev dependency: pip install -e '.[dev]'")
    (tmp_path / "user.py").write_text(script)
    (tmp_path / "pyrightconfig.json").write_text(json.dumps({
        "extraPaths": [str(PACKAGE_PARENT)], "include": ["user.py"],
        "pythonVersion": f"{sys.version_info[0]}.{sys.version_info[1]}"}))
    env = {**os.environ, "PYRIGHT_PYTHON_IGNORE_WARNINGS": "1"}
    out = subprocess.run([exe, "--outputjson", "--pythonpath", sys.executable, "user.py"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    assert out.stdout.lstrip().startswith("{"), out.stdout + out.stderr
    report = json.loads(out.stdout)
    return [(d["range"]["start"]["line"] + 1, d["severity"], d["message"])
            for d in report["generalDiagnostics"]]


def _check_script(found: list[tuple[int, str, str]], reveal: str, which: int) -> None:
    lines = _lines()
    for marker, types in EXPECTED.items():
        shown = [text for line, _, text in found if line == lines[marker] and reveal in text]
        assert len(shown) == 1, (marker, found)
        assert re.search(rf'is "{re.escape(types[which])}"', shown[0]), (marker, shown[0])
    errors = {line for line, severity, _ in found if severity == "error"}
    assert errors == {lines[m] for m in ERRORS}, found


def test_mypy_sees_the_public_types_and_reports_wrong_calls(tmp_path):
    _check_script(_mypy(tmp_path, SCRIPT), "Revealed type", 0)


def test_pyright_sees_the_public_types_and_reports_wrong_calls(tmp_path):
    _check_script(_pyright(tmp_path, SCRIPT), "Type of", 1)


@pytest.mark.parametrize("checker", ["mypy", "pyright"])
def test_no_public_name_is_any(tmp_path, checker):
    script = _every_public_name()
    found = (_mypy if checker == "mypy" else _pyright)(tmp_path, script)
    revealed = [text for _, severity, text in found if severity != "error"]
    assert len(revealed) == len(quantity_guard.__all__), found
    assert not [f for f in found if f[1] == "error"], found
    assert not [text for text in revealed if re.search(r'is "Any"$', text)], revealed
