"""Where the audit sits, read from the source (the AST): the ledger and the MCP policy take
their number helpers from ``quantity_guard.numeric`` and their readings of text from
``quantity_guard.reading``, which import nothing above the unit kernel and the datum registry;
the audit, above the ledger, takes a ledger: the ledger imports nothing of it (``audit_answer``
is supplied by ``audit/method.py``), and the audit reads a ledger only through the
``LedgerView`` it declares, never a private attribute."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "quantity_guard"


def _tree(rel: str) -> ast.Module:
    return ast.parse((PACKAGE / rel).read_text(encoding="utf-8"))


def _imports(tree: ast.Module, *, nested_only: bool = False) -> list[tuple[str, str]]:
    """(module as written, name) of every ``from ... import``; with ``nested_only`` only those
    inside a function."""
    return [(m, name) for m, name, where, _ in _located_imports(tree) if where or not nested_only]


def _located_imports(tree: ast.Module) -> list[tuple[str, str, str, bool]]:
    """(module as written, name, the function it is in or "", whether it is under ``if
    TYPE_CHECKING:``, never run) of every ``from ... import``."""
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    inner = {id(node): f.name for f in functions for node in ast.walk(f)}
    typing_only = {id(node) for n in ast.walk(tree) if isinstance(n, ast.If) and
                   isinstance(n.test, ast.Name) and n.test.id == "TYPE_CHECKING"
                   for node in ast.walk(n)}
    return [("." * node.level + (node.module or ""), a.name, inner.get(id(node), ""),
             id(node) in typing_only)
            for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for a in node.names]


NUMBER_HELPERS = {"fmt_g", "fmt_exact", "is_close", "relative_cap", "power_dims",
                  "canonical_datum", "pair_datum_ok"}


def test_the_ledger_and_the_policy_take_their_number_helpers_from_numeric():
    for rel in (*LEDGER, "mcp/policy.py"):
        tree = _tree(rel)
        for module, name in _imports(tree):
            if name in NUMBER_HELPERS:
                assert module.lstrip(".") == "numeric", (rel, module, name)


LEDGER = sorted(str(p.relative_to(PACKAGE)) for p in (PACKAGE / "ledger").glob("*.py"))


def _audit_imports(tree: ast.Module) -> list[tuple[str, str, str, bool]]:
    """Every import of the audit package (``import`` or ``from ... import``) in ``tree``."""
    found = [(m, name, where, typing_only) for m, name, where, typing_only in _located_imports(tree)
             if "audit" in m.split(".") or (not m.strip(".") and name == "audit")]
    found += [(a.name, "", "", False) for node in ast.walk(tree) if isinstance(node, ast.Import)
              for a in node.names if "audit" in a.name.split(".")]
    return found


def test_the_ledger_imports_nothing_of_the_audit():
    assert set(_audit_imports(ast.parse(
        "def f():\n    from ..audit.answer import g\nimport quantity_guard.audit\n"
        "from .. import audit\nfrom ..auditing import x\n"))) == {
        ("..audit.answer", "g", "f", False), ("..", "audit", "", False),
        ("quantity_guard.audit", "", "", False)}
    assert len(LEDGER) >= 5, LEDGER  # the package's modules, not a path that moved
    for rel in LEDGER:
        found = _audit_imports(_tree(rel))
        # type checkers alone read the ``Audit`` that ``audit_answer`` returns
        assert [f for f in found if f != ("..audit", "Audit", "", True)] == [], rel
    assert not [m for m, _ in _imports(_tree("mcp/policy.py")) if "audit" in m]


def test_the_reading_layer_imports_nothing_above_the_registries():
    allowed = {"errors", "datums", "units", "units.dimension", "units.table", "numeric",
               "__future__", "enum", "re", "math", "sys"}
    for path in sorted((PACKAGE / "reading").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for module, name in _imports(tree):
            if module.startswith(".") and module.lstrip(".") and module[1:2] != ".":
                continue  # a module of the reading layer itself
            target = module.lstrip(".") or name
            assert target in allowed, (path.name, module, name)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert {a.name for a in node.names} <= allowed, (path.name, node.lineno)


def test_numeric_imports_nothing_above_the_registries():
    allowed = {"errors", "datums", "units", "units.dimension", "__future__"}
    for module, name in _imports(_tree("numeric.py")):
        assert (module.lstrip(".") or name) in allowed, (module, name)


def _private_ledger_reads(tree: ast.Module) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            owner = node.value
            name = owner.attr if isinstance(owner, ast.Attribute) else \
                owner.id if isinstance(owner, ast.Name) else ""
            if name == "ledger":
                found.append(f"line {node.lineno}: ledger.{node.attr}")
    return found


def test_the_audit_reads_and_writes_no_private_attribute_of_a_ledger():
    assert _private_ledger_reads(ast.parse("x = self.ledger._views\nledger._count += 1\n")) == [
        "line 1: ledger._views", "line 2: ledger._count"]
    for path in sorted((PACKAGE / "audit").glob("*.py")):
        assert _private_ledger_reads(ast.parse(path.read_text(encoding="utf-8"))) == [], path.name


def _long_functions(tree: ast.Module, most: int) -> list[str]:
    return [f"{n.name} ({n.end_lineno - n.lineno + 1} lines)" for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and
            n.end_lineno - n.lineno + 1 > most]


def test_no_function_of_the_audit_or_the_reading_layer_is_over_80_lines():
    assert _long_functions(ast.parse("def f():\n" + "    x = 1\n" * 80), 80) == ["f (81 lines)"]
    for path in sorted((PACKAGE / "audit").glob("*.py")) + \
            sorted((PACKAGE / "reading").glob("*.py")) + [PACKAGE / "numeric.py"]:
        assert _long_functions(ast.parse(path.read_text(encoding="utf-8")), 80) == [], path.name
