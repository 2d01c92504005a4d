"""Every Python block in the README runs, and the two commands it promises exist."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text("utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_python_block_runs(code):
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})


def test_readme_demo_command_runs_offline():
    commands = re.findall(r"```bash\n(.*?)```", README, flags=re.S)
    demo = commands[0].strip()
    assert demo.startswith("python ")
    out = subprocess.run(demo.split(), cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip()
