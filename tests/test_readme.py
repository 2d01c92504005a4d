"""The README's promises on a fresh machine: its two commands work (the offline demo, and the test
command CI runs), its install lines install this checkout's version, its MCP client
configuration starts a working proxy, and the console script runs. (Its Python blocks run with
their output checked in tests/test_docs_examples.py, with the documentation pages'.)"""
from __future__ import annotations

import json
import re
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from messages import render

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text("utf-8")
COMMANDS = [c.strip() for c in re.findall(r"```bash\n(.*?)```", README, flags=re.S)]
VERSION = runpy.run_path(str(ROOT / "quantity_guard" / "_version.py"))["__version__"]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def run(argv, **kw):
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120, **kw)


def console_script() -> list[str]:
    """``quantity-guard-mcp`` as installed beside this interpreter, or the module it runs."""
    exe = shutil.which("quantity-guard-mcp") or str(Path(sys.executable).parent
                                                    / "quantity-guard-mcp")
    return [exe] if Path(exe).exists() else [sys.executable, "-m", "quantity_guard.mcp.cli"]


def test_readme_demo_command_runs_offline_and_shows_the_refusals():
    assert "python demo/proxy_demo.py" in COMMANDS
    out = run([sys.executable, "demo/proxy_demo.py"])
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""  # each refusal is printed once, as the client sees it
    lines = out.stdout.splitlines()
    shown = re.search(r"```text\n(schema .*?)```", README, flags=re.S).group(1).splitlines()
    assert lines[0].startswith(shown[0].removesuffix("..."))
    assert lines[1:3] == shown[1:3]
    assert lines[3] == "ERROR    " + render(
        "carry_over", field="runoff_depth.discharge", value="1250", unit="m3/s",
        source="read_discharge.return", source_unit="cfs") + ". " + render(
        "carry_over_repair", value="1250", source_unit="cfs", converted="35.39605824", unit="m3/s")
    assert lines[4] == 'ok       {"value": 0.10545584248055173, "unit": "mm/d"}' == shown[6]
    assert lines[5] == shown[7]
    assert lines[6].startswith("ERROR    " + render(
        "other_datum", field="freeboard.stage", datum="NAVD88", value="12.4", unit="ft",
        other="GAGE:07374000"))
    # the proxy says what it can check of a sourced value: a tool output, never the question
    assert lines[7].startswith("ERROR    " + render(
        "unsourced_by_proxy", field="runoff_depth.area", value="30000", unit="km2"))
    assert "stated in the question" not in out.stdout


def test_readme_test_command_is_the_one_ci_runs_on_every_python():
    assert 'pip install -e ".[test]" && python -m pytest' in COMMANDS
    ci = (ROOT / ".ci" / "run").read_text()
    # CI installs what that command installs: the test extra's requirements, then the project
    # itself, editable; and runs the default suite on each supported Python
    assert "start_venv 3.12 3.12 test" in ci and "start_venv 3.10 3.10 test" in ci
    assert 'pip install -q --disable-pip-version-check --no-deps -e "$root"' in ci
    assert "python -m pytest" in ci
    for version in ("3.10", "3.11", "3.12", "3.13"):
        assert f'spawn "default suite, Python {version}"' in ci
    for marker in ("integrations", "gateway", "typecheck"):  # every suite the README names
        assert f"-m {marker}" in README and f"suite full -m {marker}" in ci
    assert "not found" in ci and "exit 1" in ci  # a missing Python fails CI, never skipped
    assert "pip uninstall -q -y numpy" in ci  # the no-numpy pass


def test_the_default_run_leaves_out_exactly_the_suites_the_readme_names():
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    for marker in ("integrations", "gateway", "typecheck", "live"):
        assert f"not {marker}" in options["addopts"]
        assert any(line.startswith(f"{marker}:") for line in options["markers"])
        if marker != "live":
            assert (ROOT / "tests" / marker).is_dir()
    assert "-n auto" in options["addopts"]  # parallel by default


def test_readme_install_lines_install_the_checkout():
    install = [c for c in COMMANDS if c.startswith("pip install .")][0].splitlines()
    assert [line.split("#")[0].strip() for line in install] == ['pip install .',
                                                                'pip install ".[arrays]"']
    assert "Not with `pip install quantity-guard`" in README
    try:
        import tomllib
    except ImportError:  # Python 3.10: tomli, the package's dependency there
        import tomli as tomllib
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert "arrays" in extras and "docs" in extras


def test_every_wheel_named_in_the_pages_is_this_version():
    named = [(page.name, m.group(1)) for page in PAGES
             for m in re.finditer(r"quantity_guard-(\d[\w.]*)-py3-none-any\.whl",
                                  page.read_text("utf-8"))]
    assert named
    assert {version for _, version in named} == {VERSION}, named


@pytest.mark.parametrize("page", [p for p in PAGES if '"mcpServers"' in p.read_text("utf-8")],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_the_mcp_client_configuration_starts_a_proxy_that_checks_out(page):
    text = page.read_text("utf-8")
    for block in re.findall(r"```json\n(.*?)```", text, flags=re.S):
        if '"mcpServers"' not in block:
            continue
        (entry,) = json.loads(block)["mcpServers"].values()
        assert entry["command"] == "quantity-guard-mcp"
        args = [a.replace("/path/to/quantity-guard", str(ROOT)) for a in entry["args"]]
        assert args[0] == "--annotations" and "--" in args
        server = args[args.index("--") + 1:]
        assert server[0] == "python"
        for path in [args[1], *server[1:]]:
            assert Path(path).is_absolute() and Path(path).exists(), path
        argv = [*console_script(), "--check", *args[:args.index("--") + 1], sys.executable,
                *server[1:]]
        out = run(argv)
        assert out.returncode == 0, out.stdout + out.stderr
        assert "annotations match the server" in out.stdout


def test_readme_cli_command_names_real_files():
    cli = [c for c in COMMANDS if c.startswith("quantity-guard-mcp")][0].split()
    for path in (cli[2], cli[-1]):
        assert (ROOT / path).exists(), path


def test_the_installed_console_script_runs():
    exe = shutil.which("quantity-guard-mcp") or str(Path(sys.executable).parent / "quantity-guard-mcp")
    if not Path(exe).exists():
        pytest.skip("quantity-guard-mcp is not installed in this environment")
    out = run([exe, "--version"])
    assert out.returncode == 0 and out.stdout.startswith("quantity-guard-mcp ")
    check = run([exe, "--check", "--annotations", "demo/water.toml", "--", sys.executable,
                 "demo/usgs_server.py"])
    assert check.returncode == 0, check.stderr
