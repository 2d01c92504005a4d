"""The tasks extension (``io.modelcontextprotocol/tasks``, 2026-07-28) for the official SDK 2.3
client: a claim of ``resultType: "task"`` on ``tools/call``, resolved by polling ``tasks/get``
until the task completes, as modelcontextprotocol/ext-tasks specification/2026-07-28/tasks.md
("Task Polling") says; the completed task's ``result`` is the call's ``CallToolResult``. Pass
``Tasks()`` in ``Client(extensions=[...])``: ``call_tool`` then returns the final result."""
from __future__ import annotations

from typing import Literal

import anyio
import mcp_types as types
from mcp.client.extension import ClientExtension, ResultClaim


class TaskHandle(types.Result):
    result_type: Literal["task"] = "task"
    task_id: str
    status: str


class TaskParams(types.RequestParams):
    task_id: str


class GetTask(types.Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskParams
    name_param = "taskId"  # Streamable HTTP: Mcp-Name is the task id


class DetailedTask(types.Result):
    task_id: str
    status: str
    result: dict | None = None
    error: dict | None = None


class Tasks(ClientExtension):
    identifier = "io.modelcontextprotocol/tasks"

    def __init__(self) -> None:
        self.polls: list[str] = []  # the statuses seen, in order

    def claims(self):
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=self.resolve)]

    async def resolve(self, handle: TaskHandle, ctx) -> types.CallToolResult:
        while True:
            task = await ctx.session.send_request(
                GetTask(params=TaskParams(task_id=handle.task_id)), DetailedTask)
            self.polls.append(task.status)
            if task.status == "completed":
                return types.CallToolResult.model_validate(task.result)
            if task.status in ("failed", "cancelled"):
                raise RuntimeError(f"task {handle.task_id} {task.status}: {task.error}")
            await anyio.sleep(0.01)
