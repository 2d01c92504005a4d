"""Where the audit sits, read from the source (the AST): the ledger and the MCP policy take
their number helpers from ``quantity_guard.numeric``, which imports nothing above the unit
kernel and the datum registry, and the audit reads no private attribute of a ledger."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "quantity_guard"


def _tree(rel: str) -> ast.Module:
    return ast.parse((PACKAGE / rel).read_text(encoding="utf-8"))


def _imports(tree: ast.Module, *, nested_only: bool = False) -> list[tuple[str, str]]:
    """(module as written, name) of every ``from ... import``; with ``nested_only`` only those
    inside a function."""
    scopes = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))] \
        if nested_only else [tree]
    found = []
    for scope in scopes:
        for node in ast.walk(scope):
            if isinstance(node, ast.ImportFrom):
                found += [("." * node.level + (node.module or ""), a.name) for a in node.names]
    return found


NUMBER_HELPERS = {"fmt_g", "fmt_exact", "is_close", "relative_cap", "power_dims",
                  "canonical_datum", "pair_datum_ok"}


def test_the_ledger_and_the_policy_take_their_number_helpers_from_numeric():
    for rel in ("ledger.py", "mcp/policy.py"):
        tree = _tree(rel)
        for module, name in _imports(tree):
            if name in NUMBER_HELPERS:
                assert module.lstrip(".") == "numeric", (rel, module, name)
        assert not [m for m, _ in _imports(tree, nested_only=True) if "audit" in m], rel


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


def test_no_function_of_the_audit_is_over_80_lines():
    assert _long_functions(ast.parse("def f():\n" + "    x = 1\n" * 80), 80) == ["f (81 lines)"]
    for path in sorted((PACKAGE / "audit").glob("*.py")) + [PACKAGE / "numeric.py"]:
        assert _long_functions(ast.parse(path.read_text(encoding="utf-8")), 80) == [], path.name
