"""Walking a parsed JSON document."""
from __future__ import annotations


def nodes(tree):
    """Every node of a parsed JSON document (objects, arrays and values), depth first, the
    document itself first."""
    yield tree
    if isinstance(tree, dict):
        for v in tree.values():
            yield from nodes(v)
    elif isinstance(tree, list):
        for v in tree:
            yield from nodes(v)
