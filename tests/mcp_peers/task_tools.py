"""What the task-capable test upstreams' tools answer (task_server.py, legacy_task_server.py):
read_discharge(site) -> "1250"; runoff(discharge, area) -> JSON {"received": arguments};
echo(...) -> JSON of the arguments."""
from __future__ import annotations

import json

NAMES = ("read_discharge", "runoff", "echo")


def outcome(name: str, args: dict) -> dict:
    """The CallToolResult of a call, as a dict."""
    if name == "read_discharge":
        text = "1250"
    elif name == "runoff":
        text = json.dumps({"received": args}, sort_keys=True)
    else:
        text = json.dumps(args, sort_keys=True)
    return {"content": [{"type": "text", "text": text}], "isError": False}
