"""The codebase's shape, read from its source (the AST), not from running it.

- No import cycle inside ``quantity_guard/``, imports inside functions included (Python runs
  those later, but they still tie the modules together for a reader and for a refactoring).
- No private name (``_name``) of one module used by another.

Each test keeps an exact allow-list of what remains in files other engineers were editing when
it was written: the test fails when a listed entry disappears (empty the list) or a new one
appears.
"""
from __future__ import annotations

import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "quantity_guard")


def _module_name(path: str, root: str = ROOT) -> str:
    rel = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
    return rel[: -len(".__init__")] if rel.endswith(".__init__") else rel


def _python_files(*folders: str, root: str = ROOT) -> dict[str, str]:
    out = {}
    for folder in folders:
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in files:
                if name.endswith(".py"):
                    path = os.path.join(dirpath, name)
                    out[_module_name(path, root)] = path
    return out


def _parse(path: str) -> ast.Module:
    with open(path, encoding="utf-8") as fh:
        return ast.parse(fh.read(), path)


def _package_of(module: str, path: str) -> str:
    return module if path.endswith("__init__.py") else module.rpartition(".")[0]


def _imported(module: str, path: str, node: ast.ImportFrom) -> str:
    """The absolute name of the module an ``from ... import`` statement reads from."""
    if not node.level:
        return node.module or ""
    base = _package_of(module, path)
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    return base + ("." + node.module if node.module else "")


def import_graph(modules: dict[str, str]) -> dict[str, set[str]]:
    """module -> the modules of ``modules`` it imports anywhere in its text. ``from p import
    x`` is an edge to ``p.x`` when that is a module, else to ``p``. Entering a package's
    ``__init__`` on the way to a submodule is not counted (it would make every package a
    cycle)."""
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        for node in ast.walk(_parse(path)):
            if isinstance(node, ast.Import):
                graph[module].update(a.name for a in node.names if a.name in modules)
            elif isinstance(node, ast.ImportFrom):
                base = _imported(module, path, node)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    target = sub if sub in modules else base if base in modules else None
                    if target is not None and target != module:
                        graph[module].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm): every
    import cycle lies inside one of them."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.add(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


# Files other engineers were editing when this test was written; the cycles and private names
# left in them are listed below, for the lead to empty.
NOT_OURS = {"quantity_guard.audit", "quantity_guard.ledger", "quantity_guard.tool",
            "quantity_guard.spec", "quantity_guard.mcp.guard", "quantity_guard.mcp.policy",
            "quantity_guard.mcp.jsonrpc", "quantity_guard.mcp.cli"}

KNOWN_CYCLES: set[frozenset[str]] = set()  # none left: keep it so


def test_the_cycle_finder_finds_a_cycle_and_a_chain():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == {frozenset("abc")}
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == set()


def test_the_graph_counts_imports_inside_functions(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from .sub.c import g\n    return g\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "c.py").write_text("import pkg.a\nfrom .. import b\ng = 1\n")
    graph = import_graph(_python_files("pkg", root=str(tmp_path)))
    assert graph["pkg.b"] == {"pkg.sub.c"}
    assert graph["pkg.sub.c"] == {"pkg.a", "pkg.b"}
    assert cycles(graph) == {frozenset({"pkg.a", "pkg.b", "pkg.sub.c"})}
    assert "quantity_guard.units.unit" in import_graph(_python_files("quantity_guard"))[
        "quantity_guard.units.table"]


def test_no_import_cycle_among_the_modules_outside_the_allow_list():
    graph = import_graph(_python_files("quantity_guard"))
    ours = {m: {t for t in ts if t not in NOT_OURS} for m, ts in graph.items() if m not in NOT_OURS}
    assert cycles(ours) == set()
    assert cycles(graph) == KNOWN_CYCLES


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_uses(modules: dict[str, str]) -> set[tuple[str, str]]:
    """``(module, "other.module._name")`` for every ``from other.module import _name`` and every
    ``other_module._name`` read through a name bound to a project module. A module whose own
    name starts with ``_`` (``packs._fetch``) is private to its package, not to itself: its
    public names may be used by the package's modules and tests."""
    found = set()
    for module, path in modules.items():
        tree = _parse(path)
        bound: dict[str, str] = {}  # local name -> project module
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in modules:
                        bound[alias.asname or alias.name] = alias.name
            elif isinstance(node, ast.ImportFrom):
                base = _imported(module, path, node)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    if sub in modules:
                        bound[alias.asname or alias.name] = sub
                    elif base in modules and base != module and _is_private(alias.name):
                        found.add((module, f"{base}.{alias.name}"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _is_private(node.attr):
                chain, value = [], node.value
                while isinstance(value, ast.Attribute):
                    chain.append(value.attr)
                    value = value.value
                if isinstance(value, ast.Name) and value.id in bound:
                    owner = ".".join([bound[value.id], *reversed(chain)])
                    if owner != module:
                        found.add((module, f"{owner}.{node.attr}"))
    return found


# private names used across modules: none left (a new one fails the test below)
KNOWN_PRIVATE_USES: set = set()


def test_the_private_name_finder_sees_imports_and_attributes(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("_x = 1\n__version__ = '1'\ndef _f():\n    return _x\n")
    (pkg / "b.py").write_text("from .a import _x, __version__\nfrom . import a\nimport pkg.a as m\n"
                              "def g():\n    return a._f(), m._x, a.__name__\n")
    found = private_uses(_python_files("pkg", root=str(tmp_path)))
    assert found == {("pkg.b", "pkg.a._x"), ("pkg.b", "pkg.a._f")}


def test_no_private_name_is_used_across_modules_outside_the_allow_list():
    found = private_uses(_python_files("quantity_guard", "bench", "evaluation", "tests"))
    assert found - KNOWN_PRIVATE_USES == set(), "new uses of another module's private names"
    assert KNOWN_PRIVATE_USES - found == set(), "gone: remove them from KNOWN_PRIVATE_USES"
