"""A toolbox for quantity_guard.mcp.server tests: ``python -m quantity_guard.mcp.server
mcp_peers.toolbox:toolbox`` (with tests/ on PYTHONPATH)."""
from __future__ import annotations

import json

NUM = {"type": "number"}


class Toolbox:
    name = "test-toolbox"

    def list_tools(self) -> list[dict]:
        return [
            {"name": "add", "description": "Add two numbers.",
             "inputSchema": {"type": "object", "properties": {"a": NUM, "b": NUM}, "required": ["a", "b"]},
             "outputSchema": {"type": "object", "properties": {"sum": NUM}, "required": ["sum"]}},
            {"name": "fail", "description": "A tool error.", "inputSchema": {"type": "object"}},
            {"name": "explode", "description": "Raises.", "inputSchema": {"type": "object"}},
            {"name": "shout", "description": "Prints to stdout, then answers.",
             "inputSchema": {"type": "object", "properties": {"s": {"type": "string"}}}},
        ] + [{"name": f"pad_{i}", "inputSchema": {"type": "object"}} for i in range(3)]

    def call_tool(self, name: str, arguments: dict) -> dict:
        if name == "add":
            s = arguments["a"] + arguments["b"]
            return {"content": [{"type": "text", "text": json.dumps({"sum": s})}], "structuredContent": {"sum": s}}
        if name == "fail":
            return {"content": [{"type": "text", "text": "bad input: try again"}], "isError": True}
        if name == "explode":
            raise RuntimeError("kaboom")
        if name == "shout":
            print("THIS MUST NOT REACH THE WIRE")
            return {"content": [{"type": "text", "text": arguments.get("s", "").upper()}]}
        return {"content": [{"type": "text", "text": name}]}


toolbox = Toolbox()


def make() -> Toolbox:
    return Toolbox()
