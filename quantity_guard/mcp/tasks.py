"""Tasks of unit-guarded tools: the proxy follows a task handle to its final result.

A ``tools/call`` may be answered with a task handle instead of its result: in 2025-11-25 a
task-augmented call (``params.task``) gets a ``CreateTaskResult`` (``{"task": {"taskId": ...}}``)
and the result comes later as the answer to ``tasks/result``; in 2026-07-28 (the extension
``io.modelcontextprotocol/tasks``, SEP-2663) the call is answered ``{"resultType": "task",
"taskId": ...}`` and the result arrives in the ``result`` member of a completed task, polled with
``tasks/get`` or pushed in ``notifications/tasks``. The guard checks and converts the call's
arguments exactly as for a plain call (a refused call is answered at once with the same
``isError`` result, and no task is created); this module keeps, for each task of a guarded
tool, what labelling its result needs, and labels that result as a plain call's, recording it
in the call's conversation (so a carry-over from it is seen).

:class:`TaskTable` is that state: task id -> :class:`Handle` (the tool, the arguments that went
upstream, the conversation, the era). Tasks of tools the policy does not guard are never
entered: their handles, statuses and polls pass byte for byte, as does every ``tasks/*``
message about a task not in the table.

Bound
    At most :data:`MAX_HANDLES` handles per table. When a new guarded task would exceed it,
    finished handles (final result seen, failed, cancelled) are dropped first, oldest first,
    then handles past their task's time to live (``ttl``/``ttlMs``, at most :data:`MAX_AGE`
    seconds, from when the proxy saw the handle). If every handle is still live, the new
    handle is not passed on: the client gets an ``isError`` result saying so, and the task
    runs on upstream unseen (the guard issues no requests of its own, so it cannot cancel it).
    A finished handle keeps its labelled result, so that a repeated poll gets the same answer
    without recording the result twice, while a table's kept results total at most
    :data:`MAX_KEPT` bytes; past that, and once a finished handle is dropped, a repeated poll
    gets the result as the upstream sent it (recorded once already: a carry-over is still seen).
"""
from __future__ import annotations

import hashlib
import time
from typing import Any

from ..errors import tool_error
from . import jsonrpc as rpc
from .jsonrpc import MISSING

__all__ = ["ANSWERS", "EXTENSION", "MAX_AGE", "MAX_HANDLES", "MAX_KEPT", "NOTIFICATIONS",
           "TASK_METHODS", "Handle", "TaskTable"]

EXTENSION = "io.modelcontextprotocol/tasks"
MAX_HANDLES = 1_024
"""Task handles of guarded tools one table follows at a time."""
MAX_AGE = 24 * 3600.0
"""Seconds after which a handle may be dropped to make room, whatever its task's ttl."""
MAX_KEPT = 16 << 20
"""Bytes of labelled final results a table keeps, to answer a repeated poll alike."""

LEGACY = "2025-11-25"
MODERN = "2026-07-28"

# What the answer to a client's request about a guarded task carries, by the handle's era and
# the request's method; a method not in the table is passed and does not change the handle.
RESULT = "the answer is the task's CallToolResult: labelled"
DETAILED = "the answer is the task; a completed task's `result` is labelled"
STATUS = "the answer is the task's status: passed; a failed or cancelled task is finished"
ACKNOWLEDGED = "an acknowledgement: passed; the client may forget the task, so it is finished"
PASSED = "passed unchanged"
ANSWERS: dict[tuple[str, str], str] = {
    (LEGACY, "tasks/result"): RESULT,       # 2025-11-25 basic/utilities/tasks "Result Retrieval"
    (LEGACY, "tasks/get"): STATUS,          # a Task: status only, no result
    (LEGACY, "tasks/cancel"): STATUS,       # the cancelled Task
    (MODERN, "tasks/get"): DETAILED,        # ext-tasks 2026-07-28 "Task Polling": DetailedTask
    (MODERN, "tasks/update"): PASSED,       # an empty acknowledgement
    (MODERN, "tasks/cancel"): ACKNOWLEDGED,  # "Clients MAY delete all state ... as soon as they
                                             # send a cancellation"
}
# Upstream notifications about a task, by the handle's era and the notification's method.
NOTIFICATIONS: dict[tuple[str, str], str] = {
    (LEGACY, "notifications/tasks/status"): STATUS,  # a Task, no result
    (MODERN, "notifications/tasks"): DETAILED,       # "a complete DetailedTask"
}
TASK_METHODS = frozenset(m for _, m in ANSWERS)
_TERMINAL = frozenset(("completed", "failed", "cancelled"))


class Handle:
    """A task of a guarded tool: what labelling its result needs.

    ``arguments`` is the very object the policy's ``check_call`` returned (the policy finds
    the call's record by it); ``conversation`` is the policy's token for the conversation the
    call belongs to (``policy.conversation()``, optional), or None; ``era`` is
    ``"2025-11-25"`` or ``"2026-07-28"``, read from the handle's shape. Once the final result
    is labelled, ``final`` is the digest of the result as the upstream sent it and its labelled
    form (None: sent unlabelled; :data:`GONE`: not kept, over :data:`MAX_KEPT`), so that a
    repeated poll gets the same answer and the result is recorded once."""

    __slots__ = ("arguments", "conversation", "era", "expires", "final", "finished", "kept",
                 "task_id", "tool")

    def __init__(self, task_id: str, tool: str, arguments: dict, conversation: Any, era: str,
                 ttl_ms: Any) -> None:
        self.task_id = task_id
        self.tool = tool
        self.arguments = arguments
        self.conversation = conversation
        self.era = era
        keep = MAX_AGE
        if type(ttl_ms) in (int, float) and ttl_ms >= 0:
            keep = min(MAX_AGE, ttl_ms / 1000.0)
        self.expires = _now() + keep
        self.finished = False
        self.final: tuple[bytes, Any] | None = None
        self.kept = 0  # bytes of the labelled result kept

    def __repr__(self) -> str:
        return f"Handle({self.task_id!r}, tool={self.tool!r}, era={self.era}, finished={self.finished})"


_now = time.monotonic
GONE = object()  # a labelled final result that was not kept (see Handle.final)


def _digest(result: dict) -> bytes:
    try:
        return hashlib.sha256(rpc.dumps(result).encode("utf-8")).digest()
    except (ValueError, TypeError):
        return b""


def handle_of(result: Any) -> tuple[str, str, Any] | None:
    """``(task id, era, ttl in ms)`` when a ``tools/call`` result is a task handle: 2026-07-28
    ``{"resultType": "task", "taskId": ...}``, 2025-11-25 ``{"task": {"taskId": ...}}``."""
    if type(result) is not dict:
        return None
    if result.get("resultType") == "task":
        task_id = result.get("taskId")
        return (task_id, MODERN, result.get("ttlMs")) if isinstance(task_id, str) else None
    task = result.get("task")
    if type(task) is dict and "content" not in result and isinstance(task.get("taskId"), str):
        return task["taskId"], LEGACY, task.get("ttl")
    return None


class TaskTable:
    """Task id -> :class:`Handle`, for the tasks of guarded tools (bounded: see the module)."""

    def __init__(self, max_handles: int = MAX_HANDLES) -> None:
        self.max_handles = max_handles
        self.handles: dict[str, Handle] = {}  # oldest first
        self.kept = 0  # bytes of labelled final results kept (at most MAX_KEPT)

    def __len__(self) -> int:
        return len(self.handles)

    # ------------------------------------------------------------------ hooks of the guard

    def created(self, guard: Any, entry: Any, result: Any) -> Any:
        """The answer to a guarded ``tools/call``: ``MISSING`` when it is not a task handle
        (the guard labels it as a plain result); else the handle is entered and ``None`` is
        returned (passed unchanged), or, when the table is full of live handles, the
        ``isError`` result to send instead."""
        found = handle_of(result)
        if found is None:
            return MISSING
        task_id, era, ttl = found
        if task_id not in self.handles and not self._room():
            guard.note(f"a task of the unit-guarded tool {entry.tool!r} was not passed on: "
                       f"{len(self.handles)} guarded tasks are unfinished")
            refusal = tool_error(
                f"{entry.tool}: the tool answered with a task, but the unit guard already follows "
                f"{len(self.handles)} unfinished tasks of unit-guarded tools (its limit), so this "
                "task's result could not be checked and its handle was not passed on. Fetch the "
                "results of earlier tasks (or cancel them), then call the tool again",
                code="too_many_tasks", field=entry.tool)
            return (refusal | {"resultType": "complete"}) if era == MODERN else refusal
        conversation = None
        token = getattr(guard.policy, "conversation", None)
        if callable(token):
            try:
                conversation = token()
            except Exception as exc:  # noqa: BLE001 - a policy's failure never stops the relay
                guard.note(f"policy.conversation() failed: {exc!r}")
        old = self.handles.pop(task_id, None)
        if old is not None:
            self.kept -= old.kept
        self.handles[task_id] = Handle(task_id, entry.tool or "", entry.arguments
                                       if entry.arguments is not None else {}, conversation, era, ttl)
        return None

    def asked(self, method: Any, params: Any) -> str | None:
        """The id of the guarded task a client's ``tasks/*`` request is about, or None (the
        request then passes as any other)."""
        if method not in TASK_METHODS or type(params) is not dict:
            return None
        task_id = params.get("taskId")
        return task_id if isinstance(task_id, str) and task_id in self.handles else None

    def answered(self, guard: Any, entry: Any, result: Any) -> dict | None:
        """The answer to a client's request about a guarded task (``entry.task`` is its id): the
        new ``result`` to send, or None to pass it unchanged."""
        handle = self.handles.get(entry.task) if isinstance(entry.task, str) else None
        if handle is None or type(result) is not dict:
            if handle is not None and isinstance(result, rpc.Unparsed):
                guard.note(f"the answer to {entry.method} about a task of {handle.tool!r} is beyond "
                           "Python's JSON limits; it was forwarded as sent (not labelled)")
            return None
        rule = ANSWERS.get((handle.era, entry.method), PASSED)
        if rule == RESULT:
            return self._final(guard, handle, result)
        if rule == DETAILED:
            return self._detailed(guard, handle, result)
        if rule == ACKNOWLEDGED or (rule == STATUS and result.get("status") in _TERMINAL):
            handle.finished = True
        return None

    def notified(self, guard: Any, msg: rpc.Message) -> bytes | None:
        """An upstream notification about a guarded task: the new line to send, or None."""
        params = msg.params
        if type(params) is not dict or not isinstance(params.get("taskId"), str):
            return None
        handle = self.handles.get(params["taskId"])
        if handle is None:
            return None
        rule = NOTIFICATIONS.get((handle.era, msg.method or ""), PASSED)
        if rule == STATUS and params.get("status") in _TERMINAL:
            handle.finished = True
        if rule != DETAILED:
            return None
        new = self._detailed(guard, handle, params)
        if new is None:
            return None
        try:
            return rpc.encode({**msg.obj, "params": new})
        except (ValueError, TypeError) as exc:
            guard.note(f"a labelled task notification could not be encoded ({exc!r}); sent as "
                       "the upstream sent it")
            return None

    # ------------------------------------------------------------------ helpers

    def _detailed(self, guard: Any, handle: Handle, task: dict) -> dict | None:
        """A 2026-07-28 ``DetailedTask`` with its ``result`` labelled, or None (unchanged)."""
        status = task.get("status")
        if status in _TERMINAL and status != "completed":
            handle.finished = True
        if status != "completed" or type(task.get("result")) is not dict:
            return None
        labelled = self._final(guard, handle, task["result"])
        return None if labelled is None else {**task, "result": labelled}

    def _final(self, guard: Any, handle: Handle, result: dict) -> dict | None:
        """The task's final ``CallToolResult`` labelled as a plain call's result (and recorded
        in its conversation, once), or None (left as sent: an error, not a tool result)."""
        handle.finished = True
        digest = _digest(result)
        if handle.final is not None:  # polled again: the same answer, never recorded twice
            seen, labelled = handle.final
            if seen == digest and labelled is not GONE:
                return labelled
            if labelled is not None:
                guard.note(f"a task result of {handle.tool!r} was polled again "
                           + ("and differs from the first" if seen != digest else
                              f"after the proxy let its label go (over {MAX_KEPT:,} bytes kept)")
                           + "; it was forwarded as sent, unlabelled and not recorded again")
            return None
        labelled = self._label(guard, handle, result)
        handle.arguments = {}  # the call is recorded: what labelling needed is let go
        kept: Any = labelled
        if labelled is not None:
            try:
                size = len(rpc.dumps(labelled))
            except (ValueError, TypeError):
                size = MAX_KEPT + 1
            if self.kept + size > MAX_KEPT:
                kept = GONE
            else:
                handle.kept = size
                self.kept += size
        handle.final = (digest, kept)
        return labelled

    @staticmethod
    def _label(guard: Any, handle: Handle, result: dict) -> dict | None:
        switch = getattr(guard.policy, "in_conversation", None)
        if handle.conversation is None or not callable(switch):
            return guard._label(handle, result)
        try:
            with switch(handle.conversation):
                labelled = guard._label(handle, result)
                guard._settle()  # recorded in the call's conversation, not the current one
        except Exception as exc:  # noqa: BLE001 - a policy's failure never stops the relay
            guard.note(f"policy.in_conversation() failed: {exc!r}; the task result of "
                       f"{handle.tool!r} was left unlabelled")
            return None
        return labelled

    def _room(self) -> bool:
        """Whether one more handle fits, dropping finished, then expired handles if need be."""
        handles = self.handles
        if len(handles) < self.max_handles:
            return True
        for task_id in [t for t, h in handles.items() if h.finished]:
            self.kept -= handles.pop(task_id).kept
            if len(handles) < self.max_handles:
                return True
        now = _now()
        for task_id in [t for t, h in handles.items() if h.expires <= now]:
            self.kept -= handles.pop(task_id).kept
            if len(handles) < self.max_handles:
                return True
        return False
