"""Every Python block in the README runs (each in a fresh interpreter, from the repository root,
as a reader would paste it), and the two commands it promises work."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text("utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)
COMMANDS = re.findall(r"```bash\n(.*?)```", README, flags=re.S)


def run(argv, **kw):
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120, **kw)


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_python_block_runs(code):
    out = run([sys.executable, "-c", code])
    assert out.returncode == 0, out.stderr


def test_readme_demo_command_runs_offline_and_shows_the_refusals():
    demo = COMMANDS[0].strip()
    assert demo == "python demo/proxy_demo.py"
    out = run([sys.executable, "demo/proxy_demo.py"])
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("schema   discharge x-unit = m**3/s")
    assert lines[1] == 'ok       {"value": 1250.0, "unit": "cfs"}'
    assert lines[3].startswith("ERROR    runoff_depth.discharge: received the bare number 1250, "
                               "which this tool reads as 1250 m3/s, but read_discharge.return "
                               "returned 1250 cfs and no conversion was applied")
    assert lines[4] == 'ok       {"value": 0.10545584248055173, "unit": "mm/d"}'
    assert lines[6].startswith("ERROR    freeboard.stage: expected an elevation on NAVD88")
    # the proxy says what it can check of a sourced value: a tool output, never the question
    assert lines[7].startswith("ERROR    runoff_depth.area: received 30000 km2, which no tool "
                               "returned in this session")
    assert "the proxy does not see the question" in lines[7]
    assert "stated in the question" not in out.stdout


def test_readme_test_command_is_the_one_ci_runs():
    assert COMMANDS[1].strip() == 'pip install -e ".[dev,integrations]" && python -m pytest'
    ci = (ROOT / ".ci" / "run").read_text()
    # CI installs exactly what that command installs: the dev and integrations extras' requirements,
    # then the project itself, editable
    assert 'extras["dev"] + extras["integrations"]' in ci
    assert 'pip install -q --disable-pip-version-check --no-deps -e "$root"' in ci
    assert "python -m pytest" in ci
    assert "not found" in ci and "exit 1" in ci  # a missing Python fails CI, never skipped
    assert "pip uninstall -q -y numpy" in ci  # the no-numpy pass


def test_readme_bench_commands_run_offline(tmp_path):
    bench = [c.strip() for c in COMMANDS if "scripted:" in c][0]
    argv = bench.replace("/tmp/naive.jsonl", str(tmp_path / "naive.jsonl")).split()
    out = run([sys.executable, *argv[1:]])
    assert out.returncode == 0, out.stderr
    shown = re.search(r"```text\n(model: scripted:naive.*?)```", README, flags=re.S).group(1)
    assert out.stdout.strip() == shown.strip()
    report = run([sys.executable, "-m", "bench", "report", str(tmp_path / "naive.jsonl")])
    assert report.returncode == 0 and "not results" in report.stdout


def test_readme_cli_command_names_real_files():
    cli = COMMANDS[2].strip().split()
    assert cli[0] == "quantity-guard-mcp"
    for path in (cli[2], cli[-1]):
        assert (ROOT / path).exists(), path


def test_the_installed_console_script_runs():
    import shutil
    exe = shutil.which("quantity-guard-mcp") or str(Path(sys.executable).parent / "quantity-guard-mcp")
    if not Path(exe).exists():
        pytest.skip("quantity-guard-mcp is not installed in this environment")
    out = run([exe, "--version"])
    assert out.returncode == 0 and out.stdout.startswith("quantity-guard-mcp ")
    check = run([exe, "--check", "--annotations", "demo/water.toml", "--", sys.executable,
                 "demo/usgs_server.py"])
    assert check.returncode == 0, check.stderr
