"""A stdlib upstream with the experimental tasks of MCP 2025-11-25, for the proxy's task tests.

The official SDK 2.3 server cannot be this upstream: on a 2025-11-25 connection it validates a
``tools/call`` answer as a ``CallToolResult``, so a ``CreateTaskResult`` is refused (the SDK
defines the 2025-11-25 task types only as types; mcp/server/runner.py, "Legacy connections sieve
everything"). Written from the specification's text
(modelcontextprotocol/modelcontextprotocol, docs/specification/2025-11-25/basic/utilities/tasks.mdx):

- ``initialize`` declares ``capabilities.tasks`` (``list``, ``cancel``,
  ``requests.tools.call``); every tool has ``execution.taskSupport: "optional"``;
- a ``tools/call`` with ``params.task`` is answered with a ``CreateTaskResult``
  ``{"task": {"taskId", "status": "working", "createdAt", "lastUpdatedAt", "ttl", "pollInterval"}}``;
  without it, with the ``CallToolResult``;
- ``tasks/get`` answers the ``Task``: ``"working"`` on the first poll, ``"completed"`` after
  (a ``notifications/tasks/status`` with the completed ``Task`` is sent first);
- ``tasks/result`` answers the ``CallToolResult`` with ``_meta`` ``io.modelcontextprotocol/
  related-task``; ``tasks/cancel`` the cancelled ``Task`` (-32602 for a finished one);
  ``tasks/list`` the tasks; an unknown task id is -32602.

Task ids count up (``task-1``, ...) and timestamps are fixed, so two runs answer alike.
Tools: task_tools.py.
"""
from __future__ import annotations

import json
import sys

from task_tools import NAMES, outcome

STAMP = "2025-11-25T10:30:00Z"
RELATED = "io.modelcontextprotocol/related-task"
TOOLS = [{"name": n, "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}}
         for n in NAMES]
TASKS: dict[str, dict] = {}


def send(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def task(task_id: str) -> dict:
    entry = TASKS[task_id]
    return {"taskId": task_id, "status": entry["status"], "createdAt": STAMP,
            "lastUpdatedAt": STAMP, "ttl": entry["ttl"], "pollInterval": 10}


def answer(method: str, params: dict):
    if method == "initialize":
        return {"protocolVersion": "2025-11-25", "serverInfo": {"name": "tasks", "version": "1"},
                "capabilities": {"tools": {}, "tasks": {"list": {}, "cancel": {},
                                                        "requests": {"tools": {"call": {}}}}}}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        result = outcome(params.get("name"), params.get("arguments") or {})
        if "task" not in params:
            return result
        task_id = f"task-{len(TASKS) + 1}"
        ttl = (params["task"] or {}).get("ttl", 60000)
        TASKS[task_id] = {"result": result, "status": "working", "polls": 0, "ttl": ttl}
        return {"task": task(task_id)}
    if method == "tasks/list":
        return {"tasks": [task(t) for t in TASKS]}
    task_id = params.get("taskId")
    if task_id not in TASKS:
        return -32602, "Failed to retrieve task: Task not found"
    entry = TASKS[task_id]
    if method == "tasks/get":
        entry["polls"] += 1
        if entry["polls"] > 1 and entry["status"] == "working":
            entry["status"] = "completed"
            send({"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": task(task_id)})
        return task(task_id)
    if method == "tasks/result":
        entry["status"] = "completed" if entry["status"] == "working" else entry["status"]
        return {**entry["result"], "_meta": {RELATED: {"taskId": task_id}}}
    if method == "tasks/cancel":
        if entry["status"] != "working":
            return -32602, f"Cannot cancel task: already {entry['status']}"
        entry["status"] = "cancelled"
        return task(task_id)
    return -32601, "Method not found"


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        if "id" not in msg or "method" not in msg:
            continue  # notifications and answers
        out = answer(msg["method"], msg.get("params") or {})
        if isinstance(out, tuple):
            send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": out[0], "message": out[1]}})
        else:
            send({"jsonrpc": "2.0", "id": msg["id"], "result": out})


if __name__ == "__main__":
    main()
