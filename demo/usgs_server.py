"""An ordinary MCP server that knows nothing of quantity-guard: python demo/usgs_server.py

It states its units in prose and answers with bare numbers, as most servers do. Standard
library only; one JSON-RPC message per line on stdin/stdout (the MCP stdio transport, with the
2025 initialize handshake). Its readings are fixed, so the demo runs offline.
"""
from __future__ import annotations

import json
import sys

PROTOCOL = "2025-06-18"
SITES = {"07374000": {"discharge": 1250.0, "stage": 12.4, "area": 29000.0}}


def _number(description: str) -> dict:
    return {"type": "number", "description": description}


TOOLS = [
    {"name": "read_discharge", "description": "Latest discharge at a USGS site, in cubic feet "
     "per second.", "inputSchema": {"type": "object", "properties": {
         "site": {"type": "string", "description": "USGS site number"}}, "required": ["site"]}},
    {"name": "read_stage", "description": "Latest gage height at a USGS site, in feet above "
     "the gage datum.", "inputSchema": {"type": "object", "properties": {
         "site": {"type": "string", "description": "USGS site number"}}, "required": ["site"]}},
    {"name": "read_drainage_area", "description": "Contributing drainage area of a USGS site, "
     "in square kilometres.", "inputSchema": {"type": "object", "properties": {
         "site": {"type": "string", "description": "USGS site number"}}, "required": ["site"]}},
    {"name": "runoff_depth", "description": "Depth-equivalent runoff over the contributing "
     "area, in millimetres per day.", "inputSchema": {"type": "object", "properties": {
         "discharge": _number("discharge in cubic metres per second"),
         "area": _number("drainage area in square kilometres")},
         "required": ["discharge", "area"]}},
    {"name": "freeboard", "description": "Height of a levee crest above a water surface, "
     "in feet.", "inputSchema": {"type": "object", "properties": {
         "stage": _number("water surface elevation, feet above NAVD88"),
         "crest": _number("levee crest elevation, feet above NAVD88")},
         "required": ["stage", "crest"]}},
]


def call(name: str, args: dict):
    if name in ("read_discharge", "read_stage", "read_drainage_area"):
        site = SITES.get(str(args.get("site")))
        if site is None:
            raise ValueError(f"no data for site {args.get('site')!r}")
        return site[{"read_discharge": "discharge", "read_stage": "stage",
                     "read_drainage_area": "area"}[name]]
    if name == "runoff_depth":
        return args["discharge"] / args["area"] * 86.4   # m3/s over km2 -> mm/day
    if name == "freeboard":
        return args["crest"] - args["stage"]
    raise KeyError(name)


def handle(msg: dict):
    method, mid = msg.get("method"), msg.get("id")
    if mid is None:
        return None  # a notification
    if method == "initialize":
        result = {"protocolVersion": PROTOCOL, "capabilities": {"tools": {}},
                  "serverInfo": {"name": "usgs-demo", "version": "1.0"}}
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        params = msg.get("params") or {}
        try:
            value = call(params.get("name"), params.get("arguments") or {})
            result = {"content": [{"type": "text", "text": json.dumps(value)}], "isError": False}
        except Exception as exc:  # a tool error the model can read
            result = {"content": [{"type": "text", "text": f"error: {exc}"}], "isError": True}
    else:
        return {"jsonrpc": "2.0", "id": mid,
                "error": {"code": -32601, "message": f"Method not found: {method}"}}
    return {"jsonrpc": "2.0", "id": mid, "result": result}


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = handle(json.loads(line))
        except ValueError:
            reply = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
