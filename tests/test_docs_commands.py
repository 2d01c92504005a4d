"""The commands the documentation gives are real: every flag ``--help`` lists is documented in the
command-line reference and every flag documented there exists, each ``quantity-guard-mcp``
command line in the pages uses only real flags and names files that exist, and the offline
bench command prints the table the benchmarks page shows."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
CLI_PAGE = (ROOT / "docs" / "cli.md").read_text("utf-8")


def run(argv):
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)


def flags_in_help(module: str) -> set[str]:
    out = run([sys.executable, "-m", module, "--help"])
    assert out.returncode == 0, out.stderr
    text = out.stdout.replace("python -m ", "")  # (the usage line names the interpreter's -m)
    return set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", text)) - {"--"}


def documented_flags(section: str) -> set[str]:
    """The flags a section of docs/cli.md documents: each term of its definition lists."""
    return {flag for term in re.findall(r"^`(-[^`]*)`(?:, `(-[^`]*)`)?\s*$", section, flags=re.M)
            for part in term if part for flag in [part.split()[0]]}


def cli_section(title: str) -> str:
    start = CLI_PAGE.index(f"## `{title}`")
    end = CLI_PAGE.find("\n## ", start + 1)
    return CLI_PAGE[start:] if end < 0 else CLI_PAGE[start:end]


@pytest.mark.parametrize("module,title", [
    ("quantity_guard.mcp.cli", "quantity-guard-mcp"),
    ("quantity_guard.mcp.server", "python -m quantity_guard.mcp.server"),
])
def test_every_flag_of_help_is_documented_and_every_documented_flag_exists(module, title):
    listed = flags_in_help(module)
    documented = documented_flags(cli_section(title))
    assert listed, "no flag found in --help"
    assert listed - documented == set(), f"in --help, not in docs/cli.md: {listed - documented}"
    # (--help and -h print the help, whether or not the help names them)
    assert run([sys.executable, "-m", module, "-h"]).returncode == 0
    extra = documented - listed - {"-h", "--help"}
    assert extra == set(), f"in docs/cli.md, not in --help: {extra}"


def test_the_documented_exit_statuses_are_the_ones_help_lists():
    out = run([sys.executable, "-m", "quantity_guard.mcp.cli", "--help"]).stdout
    listed = set(re.findall(r"^  (\d+|128\+N)  ", out, flags=re.M))
    documented = set(re.findall(r"^\| (\d+|128\+N) \|", cli_section("quantity-guard-mcp"),
                                flags=re.M))
    assert listed and listed == documented


def proxy_command_lines() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        text = page.read_text("utf-8")
        for block in re.findall(r"```(?:bash|sh)\n(.*?)```", text, flags=re.S):
            for command in block.replace("\\\n", " ").splitlines():
                command = command.split(" #", 1)[0].strip()
                if command.startswith("quantity-guard-mcp "):
                    found.append((str(page.relative_to(ROOT)), command))
    return found


COMMAND_LINES = proxy_command_lines()


def test_the_pages_give_proxy_commands():
    assert len(COMMAND_LINES) >= 5
    assert {page for page, _ in COMMAND_LINES} >= {"README.md", "docs/cli.md",
                                                  "docs/guide/proxy.md"}


@pytest.mark.parametrize("page,command", COMMAND_LINES,
                         ids=[f"{p}:{c[:60]}" for p, c in COMMAND_LINES])
def test_a_documented_proxy_command_uses_real_flags_and_files(page, command):
    known = flags_in_help("quantity_guard.mcp.cli")
    argv = shlex.split(command)[1:]
    ours = argv[:argv.index("--")] if "--" in argv else argv
    used = {a.split("=", 1)[0] for a in ours if a.startswith("-")}
    assert used <= known, f"{page}: {command}: unknown {used - known}"
    for arg in argv:
        if arg.startswith("demo/"):
            assert (ROOT / arg).exists(), f"{page}: {command}: {arg} does not exist"


def test_the_offline_bench_command_prints_the_table_the_benchmarks_page_shows(tmp_path):
    page = (ROOT / "docs" / "benchmarks.md").read_text("utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", page, flags=re.S)
    # (a line ending in \ continues on the next)
    bench = [c.strip().replace("\\\n", " ") for c in blocks if "scripted:" in c][0]
    argv = bench.replace("/tmp/naive.jsonl", str(tmp_path / "naive.jsonl")).split()
    out = run([sys.executable, *argv[1:]])
    assert out.returncode == 0, out.stderr
    shown = re.search(r"```text\n(model: scripted:naive.*?)```", page, flags=re.S).group(1)
    assert out.stdout.strip() == shown.strip()
    report = run([sys.executable, "-m", "bench", "report", str(tmp_path / "naive.jsonl")])
    assert report.returncode == 0 and "not results" in report.stdout


def annotation_examples() -> list[tuple[str, str, str]]:
    """Every TOML block of the pages, and every JSON block holding a ``tools`` table."""
    found = []
    for page in PAGES:
        text = page.read_text("utf-8")
        for kind, block in re.findall(r"```(toml|json)\n(.*?)```", text, flags=re.S):
            if kind == "toml" or block.lstrip().startswith('{"tools"'):
                found.append((str(page.relative_to(ROOT)), kind, block))
    return found


ANNOTATIONS = annotation_examples()


@pytest.mark.parametrize("page,kind,block", ANNOTATIONS,
                         ids=[f"{p}:{k}{i}" for i, (p, k, _) in enumerate(ANNOTATIONS)])
def test_a_documented_annotation_file_loads(page, kind, block):
    from quantity_guard.annotations import loads
    annotations = loads(block, kind=kind, path=page)
    assert annotations and all(a.params or a.returns for a in annotations.values())


def test_the_pages_show_annotation_files_in_both_formats():
    assert {kind for _, kind, _ in ANNOTATIONS} == {"toml", "json"}
    assert {page for page, _, _ in ANNOTATIONS} >= {"README.md", "docs/guide/annotations.md"}


def test_the_check_report_the_annotation_page_shows_is_what_check_prints():
    page = (ROOT / "docs" / "guide" / "annotations.md").read_text("utf-8")
    shown = re.search(r"```text\n(guarded .*?)```", page, flags=re.S).group(1)
    out = run([sys.executable, "-m", "quantity_guard.mcp.cli", "--check", "--annotations",
               "demo/water.toml", "--", sys.executable, "demo/usgs_server.py"])
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == shown.strip()
