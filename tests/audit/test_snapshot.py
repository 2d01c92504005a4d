"""The audit's findings on every labelled answer set equal the stored snapshot
(tests/snapshots/audit_findings.json.gz, written by ``python evaluation/audit_snapshot.py``).

A change of the audit's code that is meant to keep its behaviour must reproduce the snapshot
exactly; a change of behaviour rewrites it (``python evaluation/audit_snapshot.py``) and the diff
of the snapshot shows every answer that changed. The audit runs in a fresh interpreter, so
units or datums another test registered cannot change what it reads.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_audit_reproduces_its_snapshot():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, str(ROOT / "evaluation" / "audit_snapshot.py"), "--check"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert run.stdout.rstrip().endswith("identical"), run.stdout[-2000:]


def test_the_check_reports_a_changed_finding(tmp_path):
    from evaluation import audit_snapshot
    old = {"a": {"ok": True, "findings": [[0, 4, "12 m", 12.0, "m", "sourced", None, ""]],
                 "skipped": []}}
    new = {"a": {"ok": False, "findings": [[0, 4, "12 m", 12.0, "m", "unsourced", None, ""]],
                 "skipped": []}}
    assert audit_snapshot.differences(old, old) == []
    diff = audit_snapshot.differences(old, new)
    assert diff[0] == "a ok: True -> False"
    assert "unsourced" in diff[1]
