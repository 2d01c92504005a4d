"""Shared helpers for the annotation tests: a tool definition, a policy from TOML text, the
published servers' tool lists (the team's development set, published_tools/README.md, and the
second one, gathered_tools/README.md, for their sources)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PUBLISHED = sorted((HERE / "published_tools" / "servers").glob("*.json"))
GATHERED = sorted((HERE / "gathered_tools" / "servers").glob("*.json"))


def make_tool(name: str, props: dict, output: "dict | None" = None, description: str = "") -> dict:
    t = {"name": name, "description": description,
         "inputSchema": {"type": "object", "properties": props}}
    if output is not None:
        t["outputSchema"] = output
    return t


@pytest.fixture
def tool():
    return make_tool


@pytest.fixture
def policy_of():
    from quantity_guard.annotations import loads
    from quantity_guard.mcp.policy import QuantityPolicy

    def build(text: str):
        return QuantityPolicy(loads(text))
    return build


def published_tools(path: Path) -> list:
    from quantity_guard.mcp.draft import tools_of
    return tools_of(json.loads(path.read_text("utf-8")))
