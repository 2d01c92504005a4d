"""The audit's view of a ledger is declared (``audit.view.LedgerView``) and is all the audit
reads; ``Ledger`` provides it, and ``ledger.audit_answer`` (supplied by the audit) works however
the ledger was imported, while ``import quantity_guard`` stays light."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from quantity_guard import _seams
from quantity_guard.audit.view import LedgerView
from quantity_guard.ledger import Ledger

ROOT = Path(__file__).resolve().parents[2]
AUDIT = ROOT / "quantity_guard" / "audit"

DECLARED = {n for n in vars(LedgerView) if not n.startswith("_")} | set(
    LedgerView.__annotations__)


def _ledger_reads(tree: ast.Module) -> set[str]:
    """The attribute names read on anything called ``ledger`` (``ledger.x``, ``ctx.ledger.x``)."""
    return {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and (
        isinstance(node.value, ast.Name) and node.value.id == "ledger" or
        isinstance(node.value, ast.Attribute) and node.value.attr == "ledger")}


def test_the_view_declares_what_the_audit_reads():
    assert _ledger_reads(ast.parse("ledger.si_view(d)\nc.ledger.entries\nother.x\n")) == {
        "si_view", "entries"}
    read = set()
    for path in sorted(AUDIT.glob("*.py")):
        read |= _ledger_reads(ast.parse(path.read_text(encoding="utf-8")))
    assert read - DECLARED == set(), "the audit reads what its LedgerView does not declare"
    assert {"find_derivation", "si_view", "unsound_calls", "context"} <= read <= DECLARED


def test_a_ledger_is_a_ledger_view_and_an_object_without_its_look_ups_is_not():
    assert isinstance(Ledger(), LedgerView)

    class Partial:
        context = None

        def output_entries(self):
            return []

    assert not isinstance(Partial(), LedgerView)


def _child(code: str) -> str:
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                       timeout=120, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_audit_answer_works_when_only_the_ledger_was_imported():
    out = _child(
        "from quantity_guard.ledger import session\n"
        "from quantity_guard.tool import quantity_tool\n"
        "@quantity_tool(returns={'unit': 'cfs'})\n"
        "def read():\n    return 1250.0\n"
        "with session(context='What is the flow?') as ledger:\n    read()\n"
        "print([f.status for f in ledger.audit_answer('It is 1250 cfs; upstream it is 980 cfs.').findings])\n")
    assert out == "['sourced', 'unsourced']"


def test_importing_the_package_imports_neither_the_ledger_nor_the_audits_readers():
    out = _child("import sys, quantity_guard\n"
                 "print(sorted(m for m in sys.modules if m.startswith('quantity_guard.')))\n")
    assert out == "['quantity_guard._seams', 'quantity_guard._version', 'quantity_guard.audit', " \
        "'quantity_guard.audit.method', 'quantity_guard.errors']"


def test_with_no_audit_installed_audit_answer_says_what_to_import(monkeypatch):
    monkeypatch.setattr(_seams, "_AUDITOR", None)
    with pytest.raises(RuntimeError, match="import quantity_guard"):
        Ledger().audit_answer("12 ft")
