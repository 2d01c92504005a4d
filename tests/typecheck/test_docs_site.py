"""The documentation site builds with ``mkdocs build --strict`` (a broken link, a missing anchor,
a page left out of the nav or a docstring the API reference cannot render fails it), its
changelog page is CHANGELOG.md, and its API reference documents the public names."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_site_builds_strict_with_the_changelog_and_the_api(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs tools are in the dev and docs extras")
    pytest.importorskip("mkdocstrings", reason="the docs tools are in the dev and docs extras")
    site = tmp_path / "site"
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                          str(site)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stdout + out.stderr
    changelog = (site / "changelog" / "index.html").read_text("utf-8")
    versions = re.findall(r"^## \[(\d+\.\d+\.\d+)\]", (ROOT / "CHANGELOG.md").read_text("utf-8"),
                          flags=re.M)
    assert versions and all(f"[{v}]" in changelog for v in versions)
    api = (site / "api" / "index.html").read_text("utf-8")
    for name in ("quantity_guard.quantity.Q", "quantity_guard.tool.quantity_tool",
                 "quantity_guard.ledger.session", "quantity_guard.ledger.Ledger.audit_answer",
                 "quantity_guard.annotations.load"):
        assert f'id="{name}"' in api, name
    pages = {p.relative_to(ROOT / "docs").with_suffix("") for p in (ROOT / "docs").rglob("*.md")}
    for page in pages:
        built = site / ("" if page.name == "index" else page) / "index.html"
        assert built.exists(), page
