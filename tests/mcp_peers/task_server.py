"""A task-capable upstream built with the official SDK (lowlevel ``Server``), 2026-07-28.

It serves the tasks extension ``io.modelcontextprotocol/tasks`` as its specification gives it
(modelcontextprotocol/ext-tasks, specification/2026-07-28/tasks.md): a ``tools/call`` from a
client that declares the extension in its per-request ``clientCapabilities`` is answered with
``{"resultType": "task", "taskId", "status": "working", ...}``; ``tasks/get`` answers the task,
``"working"`` on the first poll and ``"completed"`` with the ``CallToolResult`` in ``result``
afterwards; ``tasks/update`` and ``tasks/cancel`` answer an empty acknowledgement; an unknown
task id is -32602. A client that does not declare the extension gets plain results.
Task ids count up (``task-1``, ...) and timestamps are fixed, so two runs answer alike.

Tools: task_tools.py.
"""
from __future__ import annotations

import itertools

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from task_tools import NAMES, outcome

EXTENSION = "io.modelcontextprotocol/tasks"
STAMP = "2026-07-28T10:30:00Z"
OBJECT = {"type": "object", "properties": {}, "additionalProperties": True}
TOOLS = [types.Tool(name=n, input_schema=OBJECT) for n in NAMES]
TASKS: dict[str, dict] = {}  # id -> {"result": CallToolResult dict, "polls": int, "cancelled": bool}
NUMBERS = itertools.count(1)


def task(task_id: str, status: str) -> dict:
    return {"taskId": task_id, "status": status, "createdAt": STAMP, "lastUpdatedAt": STAMP,
            "ttlMs": 60000, "pollIntervalMs": 10}


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params):
    result = outcome(params.name, params.arguments or {})
    caps = (params.meta or {}).get("io.modelcontextprotocol/clientCapabilities") or {}
    if EXTENSION not in (caps.get("extensions") or {}):
        return types.CallToolResult.model_validate(result)
    task_id = f"task-{next(NUMBERS)}"
    TASKS[task_id] = {"result": result, "polls": 0, "cancelled": False}
    return {"resultType": "task", **task(task_id, "working")}


class TaskParams(types.RequestParams):
    task_id: str


class UpdateParams(TaskParams):
    input_responses: dict | None = None


def known(task_id: str) -> dict:
    if task_id not in TASKS:
        raise MCPError(code=-32602, message="Failed to retrieve task: Task not found")
    return TASKS[task_id]


async def get(ctx, params):
    entry = known(params.task_id)
    entry["polls"] += 1
    if entry["cancelled"]:
        return task(params.task_id, "cancelled")
    if entry["polls"] == 1:
        return task(params.task_id, "working")
    return {**task(params.task_id, "completed"), "result": entry["result"]}


async def update(ctx, params):
    known(params.task_id)
    return {}


async def cancel(ctx, params):
    known(params.task_id)["cancelled"] = True
    return {}


server = Server("task-upstream", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool)
server.add_request_handler("tasks/get", TaskParams, get)
server.add_request_handler("tasks/update", UpdateParams, update)
server.add_request_handler("tasks/cancel", TaskParams, cancel)
server.extensions[EXTENSION] = {}


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
