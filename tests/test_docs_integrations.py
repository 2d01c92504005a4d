"""The agent-framework examples (docs/guide/integrations.md) run, and print what they say they
print.

They are fenced as ``py`` (not ``python``: tests/test_docs_examples.py runs those in an
interpreter without the frameworks). The first block defines the tools; each later block runs
after it in a fresh interpreter from the repository root, skipped where its framework is not
installed. What a block prints is written as the trailing comment of each ``print`` line and as
the comment lines that end the block.
"""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SECTION = (ROOT / "docs" / "guide" / "integrations.md").read_text("utf-8")
BLOCKS = re.findall(r"```py\n(.*?)```", SECTION, flags=re.S)


def expected_output(block: str) -> list[str]:
    lines = block.rstrip("\n").split("\n")
    out = [line.split("  # ", 1)[1] for line in lines
           if line.lstrip().startswith("print(") and "  # " in line]
    tail = []
    for line in reversed(lines):
        if not line.startswith("# "):
            break
        tail.insert(0, line[2:])
    return out + tail


FRAMEWORK = {"openai_agents": "agents", "langchain": "langchain_core",
             "pydantic_ai": "pydantic_ai", "fastmcp": "fastmcp", "google_adk": "google.adk",
             "llama_index": "llama_index.core", "smolagents": "smolagents"}
# modules a framework cannot be imported without, though its installer does not ensure them in
# every environment the tests run in (CI's pass without numpy uninstalls numpy)
NEEDS = {"llama_index.core": ("numpy",)}


def framework_of(block: str) -> str | None:
    """The framework a block's integration module adapts to."""
    found = re.search(r"^from quantity_guard\.integrations import (\w+)", block, flags=re.M)
    return FRAMEWORK[found.group(1)] if found else None


def _missing(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is None
    except ImportError:  # a parent package (google) is absent
        return True


def run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=180)


def test_the_section_has_the_shared_block_and_one_per_framework():
    assert len(BLOCKS) == 8
    assert [framework_of(b) for b in BLOCKS] == [None, "agents", "langchain_core", "pydantic_ai",
                                                 "google.adk", "llama_index.core", "smolagents",
                                                 "fastmcp"]
    assert all(expected_output(b) for b in BLOCKS)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_framework_example_runs_and_prints_what_it_says(index):
    block = BLOCKS[index]
    framework = framework_of(block)
    if framework is not None and _missing(framework):
        pytest.skip(f"{framework} is not installed: pip install -e '.[integrations]'")
    for needed in NEEDS.get(framework or "", ()):
        if _missing(needed):
            pytest.skip(f"{framework} needs {needed}, which is not installed")
    code = block if index == 0 else BLOCKS[0] + "\n" + block
    out = run(code)
    assert out.returncode == 0, out.stderr
    want = expected_output(BLOCKS[0]) + (expected_output(block) if index else [])
    assert out.stdout.splitlines() == want
