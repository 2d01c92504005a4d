"""mcp/tasks.py driven through the guard with plain data (sans-IO) and the real quantity
policy: each row of the tables of task messages on both sides, the conversation a task's
result is recorded in, and the bound of the task table."""
from __future__ import annotations

import json
import time

import pytest

from quantity_guard.ledger import Ledger
from quantity_guard.mcp import tasks
from quantity_guard.mcp.guard import C2S, LOG, S2C, Guard
from quantity_guard.mcp.policy import build_policy

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {tasks.EXTENSION: {}}}}
LABELLED = {"value": 1250.0, "unit": "cfs"}
BARE = {"content": [{"type": "text", "text": "1250"}], "isError": False}


def line(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


def to_client(out) -> list[bytes]:
    return [data for d, data in out if d == S2C]


@pytest.fixture
def policy(tmp_path):
    path = tmp_path / "water.toml"
    path.write_text('[tools.read_discharge]\nreturns = { unit = "cfs" }\n\n'
                    '[tools.runoff.params]\ndischarge = { unit = "m**3/s" }\n'
                    'area = { unit = "km**2" }\n')
    return build_policy(str(path))


@pytest.fixture
def guard(policy):
    return Guard(policy)


def task_call(guard, ident, era: str, name: str = "read_discharge", arguments=None):
    params = {"name": name, "arguments": arguments if arguments is not None else {"site": "1"}}
    if era == tasks.LEGACY:
        params["task"] = {"ttl": 60000}
    else:
        params["_meta"] = META
    return guard.receive(C2S, line({"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                                    "params": params}))


def handle(task_id: str, era: str, ttl=60000) -> dict:
    task = {"taskId": task_id, "status": "working", "createdAt": "t", "lastUpdatedAt": "t"}
    if era == tasks.LEGACY:
        return {"task": {**task, "ttl": ttl}}
    return {"resultType": "task", **task, "ttlMs": ttl}


def open_task(guard, ident, task_id: str, era: str, **kw) -> bytes:
    """A guarded task-augmented call and its handle; returns what the client got."""
    task_call(guard, ident, era, **kw)
    [sent] = to_client(guard.receive(S2C, line({"jsonrpc": "2.0", "id": ident,
                                                 "result": handle(task_id, era)})))
    return sent


def ask(guard, ident, method: str, task_id: str, answer: dict, era: str) -> bytes:
    params = {"taskId": task_id}
    if era == tasks.MODERN:
        params["_meta"] = META
    guard.receive(C2S, line({"jsonrpc": "2.0", "id": ident, "method": method, "params": params}))
    [sent] = to_client(guard.receive(S2C, line({"jsonrpc": "2.0", "id": ident, "result": answer})))
    return sent


def completed(task_id: str, result=BARE) -> dict:
    return {"resultType": "complete", "taskId": task_id, "status": "completed", "createdAt": "t",
            "lastUpdatedAt": "t", "ttlMs": 60000, "result": result}


def text_of(result: dict):
    return json.loads(result["content"][0]["text"])


@pytest.mark.parametrize("era", [tasks.LEGACY, tasks.MODERN])
def test_a_guarded_task_handle_passes_unchanged_and_is_followed(guard, era):
    sent = open_task(guard, 1, "t-1", era)
    assert sent == line({"jsonrpc": "2.0", "id": 1, "result": handle("t-1", era)})
    followed = guard.tasks.handles["t-1"]
    assert (followed.tool, followed.era, followed.arguments) == ("read_discharge", era, {"site": "1"})
    assert followed.conversation is guard.policy.ledger


# ------------------------------------------------ ANSWERS, a row and its other side each

def test_result_row_labels_the_2025_tasks_result_answer_but_not_a_tool_error(guard):
    open_task(guard, 1, "t-1", tasks.LEGACY)
    answer = {**BARE, "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t-1"}}}
    out = json.loads(ask(guard, 2, "tasks/result", "t-1", answer, tasks.LEGACY))["result"]
    assert text_of(out) == LABELLED and out["_meta"] == answer["_meta"]
    open_task(guard, 3, "t-2", tasks.LEGACY)
    failed = {"content": [{"type": "text", "text": "1250"}], "isError": True}
    assert ask(guard, 4, "tasks/result", "t-2", failed, tasks.LEGACY) == \
        line({"jsonrpc": "2.0", "id": 4, "result": failed})


def test_detailed_row_labels_a_completed_2026_task_but_passes_a_working_one(guard):
    open_task(guard, 1, "t-1", tasks.MODERN)
    working = {**completed("t-1"), "status": "working"}
    del working["result"]
    assert ask(guard, 2, "tasks/get", "t-1", working, tasks.MODERN) == \
        line({"jsonrpc": "2.0", "id": 2, "result": working})
    assert not guard.tasks.handles["t-1"].finished
    out = json.loads(ask(guard, 3, "tasks/get", "t-1", completed("t-1"), tasks.MODERN))["result"]
    assert text_of(out["result"]) == LABELLED
    assert {k: v for k, v in out.items() if k != "result"} == \
        {k: v for k, v in completed("t-1").items() if k != "result"}
    assert guard.tasks.handles["t-1"].finished


def test_a_2025_status_is_never_labelled_even_with_a_result_member(guard):
    """tasks/get of 2025-11-25 answers a Task (status only): the DETAILED row is 2026's."""
    open_task(guard, 1, "t-1", tasks.LEGACY)
    odd = {**completed("t-1"), "resultType": None}
    assert ask(guard, 2, "tasks/get", "t-1", odd, tasks.LEGACY) == \
        line({"jsonrpc": "2.0", "id": 2, "result": odd})
    assert guard.tasks.handles["t-1"].finished  # STATUS: a terminal status finishes it


@pytest.mark.parametrize("era, method, answer, finished", [
    (tasks.LEGACY, "tasks/get", {"taskId": "t-1", "status": "working"}, False),
    (tasks.LEGACY, "tasks/get", {"taskId": "t-1", "status": "failed"}, True),
    (tasks.LEGACY, "tasks/cancel", {"taskId": "t-1", "status": "cancelled"}, True),
    (tasks.MODERN, "tasks/get", {"resultType": "complete", "taskId": "t-1", "status": "failed",
                                 "error": {"code": -32603, "message": "no"}}, True),
    (tasks.MODERN, "tasks/update", {"resultType": "complete"}, False),
    (tasks.MODERN, "tasks/cancel", {"resultType": "complete"}, True),
])
def test_status_acknowledgement_and_passed_rows_pass_the_answer_unchanged(
        guard, era, method, answer, finished):
    open_task(guard, 1, "t-1", era)
    assert ask(guard, 2, method, "t-1", answer, era) == line({"jsonrpc": "2.0", "id": 2, "result": answer})
    assert guard.tasks.handles["t-1"].finished is finished


# ------------------------------------------------ NOTIFICATIONS

def test_a_completed_task_pushed_in_notifications_tasks_is_labelled(guard):
    open_task(guard, 1, "t-1", tasks.MODERN)
    note = {"jsonrpc": "2.0", "method": "notifications/tasks", "params": completed("t-1")}
    [sent] = to_client(guard.receive(S2C, line(note)))
    assert text_of(json.loads(sent)["params"]["result"]) == LABELLED
    working = {"jsonrpc": "2.0", "method": "notifications/tasks",
               "params": {**completed("t-1"), "status": "working"}}
    del working["params"]["result"]
    assert to_client(guard.receive(S2C, line(working))) == [line(working)]


def test_a_2025_status_notification_passes_and_a_terminal_one_finishes_the_task(guard):
    open_task(guard, 1, "t-1", tasks.LEGACY)
    note = {"jsonrpc": "2.0", "method": "notifications/tasks/status",
            "params": {"taskId": "t-1", "status": "cancelled"}}
    assert to_client(guard.receive(S2C, line(note))) == [line(note)]
    assert guard.tasks.handles["t-1"].finished


# ------------------------------------------------ what is not followed

def test_tasks_of_unguarded_tools_and_unknown_task_ids_are_not_followed(guard):
    guard.receive(C2S, line({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                             "params": {"name": "echo", "arguments": {}, "_meta": META}}))
    guard.receive(S2C, line({"jsonrpc": "2.0", "id": 1, "result": handle("e-1", tasks.MODERN)}))
    assert guard.tasks.handles == {}
    for task_id in ("e-1", "never-seen"):
        answer = completed(task_id)
        assert ask(guard, 2, "tasks/get", task_id, answer, tasks.MODERN) == \
            line({"jsonrpc": "2.0", "id": 2, "result": answer})


def test_a_plain_result_answering_a_task_augmented_call_is_labelled(guard):
    """A 2025-11-25 server that does not take tasks answers the call normally."""
    task_call(guard, 1, tasks.LEGACY)
    [sent] = to_client(guard.receive(S2C, line({"jsonrpc": "2.0", "id": 1, "result": BARE})))
    assert text_of(json.loads(sent)["result"]) == LABELLED
    assert guard.tasks.handles == {}


def test_a_batched_tasks_result_is_labelled_too(guard):
    open_task(guard, 1, "t-1", tasks.LEGACY)
    out = guard.receive(C2S, b'[{"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"t-1"}}]')
    assert [d for d, _ in out] == [C2S]
    [sent] = to_client(guard.receive(S2C, b"[" + line({"jsonrpc": "2.0", "id": 2, "result": BARE})[:-1] + b"]"))
    assert text_of(json.loads(sent)[0]["result"]) == LABELLED


# ------------------------------------------------ the ledger

def test_a_repeated_poll_gets_the_same_label_and_is_recorded_once(guard, policy):
    open_task(guard, 1, "t-1", tasks.MODERN)
    first = ask(guard, 2, "tasks/get", "t-1", completed("t-1"), tasks.MODERN)
    again = ask(guard, 3, "tasks/get", "t-1", completed("t-1"), tasks.MODERN)
    assert first.replace(b'"id":2', b'"id":3') == again
    guard.settle()
    assert [e.q.magnitude for e in policy.ledger.output_entries()] == [1250.0]


def test_a_task_result_is_recorded_in_the_conversation_of_its_call(guard, policy):
    """A conversation's call, then more calls of another conversation (--listen binds each
    request's ledger) than the policy remembers forwarded arguments for: the task's result
    still goes to the ledger of the conversation whose call it answers."""
    first, second = Ledger(), Ledger()
    policy.use_ledger(first)
    open_task(guard, 1, "t-1", tasks.MODERN)
    policy.use_ledger(second)
    for n in range(1_100):  # unanswered calls of the same tool, over the 1,024 remembered
        guard.receive(C2S, line({"jsonrpc": "2.0", "id": f"other-{n}", "method": "tools/call",
                                 "params": {"name": "read_discharge", "arguments": {}}}))
    out = json.loads(ask(guard, 2, "tasks/get", "t-1", completed("t-1"), tasks.MODERN))
    assert text_of(out["result"]["result"]) == LABELLED
    guard.settle()
    assert [e.q.magnitude for e in first.output_entries()] == [1250.0]
    assert second.output_entries() == [] and policy.conversation() is second
    # the carry-over is seen in the first conversation
    policy.use_ledger(first)
    [refused] = to_client(task_call(guard, 3, tasks.MODERN, "runoff", {"discharge": 1250, "area": 9}))
    assert json.loads(refused)["result"]["_meta"]["io.github.quantity-guard/violation"]["code"] == \
        "unconverted_carry_over"


# ------------------------------------------------ the bound

def test_finished_handles_make_room_first_then_expired_ones_then_none(guard):
    guard.tasks = tasks.TaskTable(max_handles=2)
    open_task(guard, 1, "t-1", tasks.MODERN)
    open_task(guard, 2, "t-2", tasks.MODERN)
    refused = json.loads(open_task(guard, 3, "t-3", tasks.MODERN))["result"]
    assert refused["isError"] is True and refused["resultType"] == "complete"
    assert refused["_meta"]["io.github.quantity-guard/violation"]["code"] == "too_many_tasks"
    assert list(guard.tasks.handles) == ["t-1", "t-2"]
    ask(guard, 4, "tasks/get", "t-2", completed("t-2"), tasks.MODERN)  # t-2 finished
    open_task(guard, 5, "t-4", tasks.MODERN)
    assert list(guard.tasks.handles) == ["t-1", "t-4"]
    # past its task's ttl, the oldest live handle may go
    guard.tasks.handles["t-1"].expires = time.monotonic() - 1
    open_task(guard, 6, "t-5", tasks.MODERN)
    assert list(guard.tasks.handles) == ["t-4", "t-5"]


def test_a_handle_without_a_ttl_is_kept_at_most_max_age(guard):
    task_call(guard, 1, tasks.LEGACY)
    guard.receive(S2C, line({"jsonrpc": "2.0", "id": 1, "result": handle("t-1", tasks.LEGACY, None)}))
    left = guard.tasks.handles["t-1"].expires - time.monotonic()
    assert tasks.MAX_AGE - 5 < left <= tasks.MAX_AGE
    open_task(guard, 2, "t-2", tasks.LEGACY)  # a ttl of 60,000 ms: 60 s
    assert 55 < guard.tasks.handles["t-2"].expires - time.monotonic() <= 60


def test_a_failing_conversation_switch_leaves_the_result_unlabelled_and_says_so(guard, policy,
                                                                                  monkeypatch):
    open_task(guard, 1, "t-1", tasks.MODERN)

    def broken(token):
        raise RuntimeError("no such conversation")

    monkeypatch.setattr(policy, "in_conversation", broken)
    guard.receive(C2S, line({"jsonrpc": "2.0", "id": 2, "method": "tasks/get",
                             "params": {"taskId": "t-1", "_meta": META}}))
    out = guard.receive(S2C, line({"jsonrpc": "2.0", "id": 2, "result": completed("t-1")}))
    assert to_client(out) == [line({"jsonrpc": "2.0", "id": 2, "result": completed("t-1")})]
    assert any(d == LOG and b"left unlabelled" in data for d, data in out)


def test_a_repeated_poll_past_the_kept_bytes_is_forwarded_as_sent_and_said(guard, policy,
                                                                           monkeypatch):
    monkeypatch.setattr(tasks, "MAX_KEPT", 200)  # room for one labelled result (143 bytes)
    open_task(guard, 1, "t-1", tasks.MODERN)
    open_task(guard, 2, "t-2", tasks.MODERN)
    for ident, task_id in ((3, "t-1"), (4, "t-2")):
        out = json.loads(ask(guard, ident, "tasks/get", task_id, completed(task_id), tasks.MODERN))
        assert text_of(out["result"]["result"]) == LABELLED
    assert guard.tasks.kept == guard.tasks.handles["t-1"].kept > 0
    again = ask(guard, 5, "tasks/get", "t-1", completed("t-1"), tasks.MODERN)
    assert text_of(json.loads(again)["result"]["result"]) == LABELLED  # kept: the same label
    out = guard.receive(C2S, line({"jsonrpc": "2.0", "id": 6, "method": "tasks/get",
                                   "params": {"taskId": "t-2", "_meta": META}}))
    out = guard.receive(S2C, line({"jsonrpc": "2.0", "id": 6, "result": completed("t-2")}))
    assert to_client(out) == [line({"jsonrpc": "2.0", "id": 6, "result": completed("t-2")})]
    assert any(d == LOG and b"let its label go" in data for d, data in out)
    guard.settle()
    assert [e.q.magnitude for e in policy.ledger.output_entries()] == [1250.0, 1250.0]


def test_a_second_final_result_that_differs_is_forwarded_as_sent_and_said(guard, policy):
    open_task(guard, 1, "t-1", tasks.LEGACY)
    ask(guard, 2, "tasks/result", "t-1", BARE, tasks.LEGACY)
    other = {"content": [{"type": "text", "text": "99"}]}
    guard.receive(C2S, line({"jsonrpc": "2.0", "id": 3, "method": "tasks/result",
                             "params": {"taskId": "t-1"}}))
    out = guard.receive(S2C, line({"jsonrpc": "2.0", "id": 3, "result": other}))
    assert to_client(out) == [line({"jsonrpc": "2.0", "id": 3, "result": other})]
    assert any(d == LOG and b"differs from the first" in data for d, data in out)
    guard.settle()
    assert [e.q.magnitude for e in policy.ledger.output_entries()] == [1250.0]


def test_dropping_a_finished_handle_gives_back_its_kept_bytes(guard):
    guard.tasks = tasks.TaskTable(max_handles=1)
    open_task(guard, 1, "t-1", tasks.MODERN)
    ask(guard, 2, "tasks/get", "t-1", completed("t-1"), tasks.MODERN)
    assert guard.tasks.kept > 0
    open_task(guard, 3, "t-2", tasks.MODERN)
    assert list(guard.tasks.handles) == ["t-2"] and guard.tasks.kept == 0
