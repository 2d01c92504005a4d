"""Task-augmented calls through quantity-guard-mcp, with the real quantity policy, over pipes,
in both revisions that have tasks: 2025-11-25 (core tasks: the result through ``tasks/result``;
upstream mcp_peers/legacy_task_server.py, written from the specification, since the SDK 2.3
server cannot answer a 2025-11-25 call with a task) and 2026-07-28 (the tasks extension: the
result in a completed ``tasks/get``; upstream mcp_peers/task_server.py, the official SDK's
lowlevel server), over stdio and over Streamable HTTP (``--listen``). A guarded tool's task
result is labelled and recorded like a plain result, its arguments are converted or refused as
in a plain call, an unguarded tool's task traffic passes byte for byte, and the table of
followed tasks is bounded."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers.driver import PEERS, Peer
from test_mcp_http_listen import Listening

from quantity_guard.mcp import tasks

pytest.importorskip("mcp")

ANNOTATIONS = ('[tools.read_discharge]\nreturns = { unit = "cfs" }\n\n'
               '[tools.runoff.params]\ndischarge = { unit = "m**3/s" }\narea = { unit = "km**2" }\n')
CFS = 0.028316846592  # m3/s in one cubic foot per second
LEGACY, MODERN = "2025-11-25", "2026-07-28"
PLAIN_META = {"io.modelcontextprotocol/protocolVersion": MODERN,
              "io.modelcontextprotocol/clientCapabilities": {}}
META = {**PLAIN_META,  # a client that takes task handles
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {tasks.EXTENSION: {}}}}
UPSTREAM = {LEGACY: [sys.executable, str(PEERS / "legacy_task_server.py")],
            MODERN: [sys.executable, str(PEERS / "task_server.py")]}


class Client:
    """A client of one era speaking JSON lines to ``peer`` (the proxy or the upstream)."""

    def __init__(self, peer: Peer, era: str) -> None:
        self.peer, self.era, self.next_id = peer, era, 0
        if era == LEGACY:
            self.request("initialize", {"protocolVersion": LEGACY, "capabilities": {},
                                        "clientInfo": {"name": "test", "version": "1"}})
            self.notify("notifications/initialized")

    def notify(self, method: str) -> None:
        self.peer.notify(method)

    def request(self, method: str, params: dict, task: bool = True) -> dict:
        self.next_id += 1
        if self.era == MODERN:
            params = {**params, "_meta": META if task else PLAIN_META}
        return self.peer.call(self.next_id, method, params)

    def call(self, name: str, arguments: dict, task: bool = True) -> dict:
        """A tools/call, task-augmented in 2025-11-25 (2026-07-28: the extension is declared)."""
        params = {"name": name, "arguments": arguments}
        if task and self.era == LEGACY:
            params["task"] = {"ttl": 3_600_000}  # an hour: no handle expires during a test
        return self.request("tools/call", params, task)

    def result(self, handle: dict) -> dict:
        """The final result of the task ``handle`` names, polled as its revision says."""
        task_id = task_id_of(handle)
        first = self.request("tasks/get", {"taskId": task_id})["result"]
        assert first["status"] == "working", first  # a status passes as the upstream sent it
        if self.era == LEGACY:
            assert self.request("tasks/get", {"taskId": task_id})["result"]["status"] == "completed"
            return self.request("tasks/result", {"taskId": task_id})["result"]
        done = self.request("tasks/get", {"taskId": task_id})["result"]
        assert done["status"] == "completed" and done["taskId"] == task_id, done
        return done["result"]


def task_id_of(answer: dict) -> str:
    result = answer["result"]
    return result["taskId"] if result.get("resultType") == "task" else result["task"]["taskId"]


def proxy(tmp_path, era: str, *options: str) -> Peer:
    annotations = tmp_path / "water.toml"
    annotations.write_text(ANNOTATIONS)
    return Peer([sys.executable, "-m", "quantity_guard.mcp", "--annotations", str(annotations),
                 *options, "--", *UPSTREAM[era]])


def text_of(result: dict):
    return json.loads(result["content"][0]["text"])


@pytest.mark.parametrize("era", [LEGACY, MODERN])
def test_a_task_result_is_labelled_and_a_carry_over_from_it_refused(tmp_path, era):
    with proxy(tmp_path, era) as peer:
        client = Client(peer, era)
        handle = client.call("read_discharge", {"site": "07374000"})
        assert task_id_of(handle) == "task-1"  # the handle reaches the client as a handle
        result = client.result(handle)
        assert text_of(result) == {"value": 1250.0, "unit": "cfs"}
        assert result["structuredContent"] == {"value": 1250.0, "unit": "cfs"}
        if era == LEGACY:  # the rest of the result is kept
            assert result["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": "task-1"}
        # the result was recorded in the conversation: the bare number carried over is refused,
        # at once, as for a plain call (no task is created)
        refused = client.call("runoff", {"discharge": 1250, "area": 29000})["result"]
        assert refused["isError"] is True and "task" not in refused
        assert "read_discharge.return returned 1250 cfs and no conversion was applied" in \
            refused["content"][0]["text"]
        # converted as the annotation says, the carried-over value goes through
        handle = client.call("runoff", {"discharge": "1250 cfs", "area": 29000})
        received = text_of(client.result(handle))["received"]
        assert received == {"discharge": pytest.approx(1250 * CFS, rel=1e-12), "area": 29000}


@pytest.mark.parametrize("era", [LEGACY, MODERN])
def test_a_task_augmented_call_is_converted_or_refused_as_a_plain_call(tmp_path, era):
    with proxy(tmp_path, era) as peer:
        client = Client(peer, era)
        for arguments, why in (({"discharge": "12.4 ft", "area": 29000}, "runoff.discharge"),
                               ({"discharge": "1250 cfs", "area": "3 s"}, "runoff.area")):
            as_task = client.call("runoff", arguments)["result"]
            plain = client.call("runoff", arguments, task=False)["result"]
            assert as_task["isError"] is True and as_task == plain
            assert as_task["_meta"]["io.github.quantity-guard/violation"] == {
                "code": "dimensionality_error", "field": why}
        converted = client.call("runoff", {"discharge": "1250 cfs", "area": "29000 km2"})
        plain = client.call("runoff", {"discharge": "1250 cfs", "area": "29000 km2"}, task=False)
        assert text_of(client.result(converted)) == text_of(plain["result"])


def unguarded_script(era: str) -> list[tuple[str, dict]]:
    """An unguarded tool's task, its polls, and the task methods around it."""
    script = [("tools/call", {"name": "echo", "arguments": {"k": 1.50, "s": "\u00e9"}}),
              ("tasks/get", {"taskId": "task-1"}), ("tasks/get", {"taskId": "task-1"})]
    if era == LEGACY:
        script[0][1]["task"] = {"ttl": 5000}
        script += [("tasks/result", {"taskId": "task-1"}), ("tasks/list", {}),
                   ("tasks/cancel", {"taskId": "task-1"}), ("tasks/get", {"taskId": "nope"})]
    else:
        script += [("tasks/update", {"taskId": "task-1", "inputResponses": {}}),
                   ("tasks/cancel", {"taskId": "task-1"}), ("tasks/get", {"taskId": "nope"})]
    return script


def lines_of(peer: Peer, era: str) -> list[bytes]:
    client = Client(peer, era)
    out = []
    for method, params in unguarded_script(era):
        client.next_id += 1
        peer.request(client.next_id, method, {**params, "_meta": META} if era == MODERN else params)
        while True:
            line = peer.recv_raw()
            out.append(line)
            if json.loads(line).get("id") == client.next_id:
                break
    return out


@pytest.mark.parametrize("era", [LEGACY, MODERN])
def test_unguarded_task_traffic_passes_byte_for_byte(tmp_path, era):
    with Peer(UPSTREAM[era]) as upstream:
        direct = lines_of(upstream, era)
    with proxy(tmp_path, era) as peer:
        proxied = lines_of(peer, era)
    assert proxied == direct
    # an answer to each request (the handle, statuses, the result, acknowledgements, an
    # unknown task's error) and, in 2025-11-25, the upstream's status notification
    assert len(direct) == len(unguarded_script(era)) + (era == LEGACY)
    assert task_id_of(json.loads(direct[0])) == "task-1"
    assert json.loads(direct[-1])["error"]["code"] == -32602


def test_the_task_table_is_bounded(tmp_path):
    """At most tasks.MAX_HANDLES unfinished tasks of guarded tools: the next handle is refused
    with an isError result; once a result is fetched, a new task is followed again."""
    with proxy(tmp_path, LEGACY) as peer:
        client = Client(peer, LEGACY)
        for n in range(1, tasks.MAX_HANDLES + 1):
            assert task_id_of(client.call("read_discharge", {"site": str(n)})) == f"task-{n}"
        over = client.call("read_discharge", {"site": "over"})["result"]
        assert over["isError"] is True and "task" not in over
        assert over["_meta"]["io.github.quantity-guard/violation"]["code"] == "too_many_tasks"
        assert f"{tasks.MAX_HANDLES} unfinished tasks" in over["content"][0]["text"]
        # a fetched result finishes its task: its place is free
        assert text_of(client.request("tasks/result", {"taskId": "task-1"})["result"]) == \
            {"value": 1250.0, "unit": "cfs"}
        again = client.call("read_discharge", {"site": "again"})
        assert task_id_of(again) == f"task-{tasks.MAX_HANDLES + 2}"
        # the upstream's task whose handle was refused is not followed: its result passes as sent
        unseen = client.request("tasks/result", {"taskId": f"task-{tasks.MAX_HANDLES + 1}"})
        assert unseen["result"]["content"][0]["text"] == "1250"
        assert peer.stderr_shows("guarded tasks are unfinished"), peer.stderr()


class HttpClient(Client):
    """The same client over Streamable HTTP, through ``quantity-guard-mcp --listen``."""

    def __init__(self, listening, era: str) -> None:
        self.listening, self.session = listening, None
        super().__init__(None, era)

    def request(self, method: str, params: dict, task: bool = True) -> dict:
        if method == "initialize" or self.era == LEGACY:
            headers = {} if self.session is None else {"Mcp-Session-Id": self.session,
                                                       "MCP-Protocol-Version": LEGACY}
        else:
            params = {**params, "_meta": META if task else PLAIN_META}
            headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method,
                       "Mcp-Name": params.get("name") or params.get("taskId")}
        self.next_id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                           "params": params}).encode()
        status, head, data = self.listening.raw("POST", body, headers)
        assert status == 200, (status, data)
        if method == "initialize":
            self.session = head["mcp-session-id"]
        if head.get("content-type", "").startswith("text/event-stream"):
            events = [json.loads(x[6:]) for x in data.split(b"\n") if x.startswith(b"data: {")]
            return next(e for e in events if e.get("id") == self.next_id)
        return json.loads(data)

    def notify(self, method: str) -> None:
        status, _, _ = self.listening.raw(
            "POST", json.dumps({"jsonrpc": "2.0", "method": method}).encode(),
            {"Mcp-Session-Id": self.session, "MCP-Protocol-Version": LEGACY})
        assert status == 202, status


@pytest.mark.parametrize("era", [LEGACY, MODERN])
def test_a_task_result_is_labelled_over_streamable_http(tmp_path, era):
    annotations = tmp_path / "water.toml"
    annotations.write_text(ANNOTATIONS)
    listening = Listening("--annotations", str(annotations), "--", *UPSTREAM[era])
    try:
        client = HttpClient(listening, era)
        handle = client.call("read_discharge", {"site": "07374000"})
        assert text_of(client.result(handle)) == {"value": 1250.0, "unit": "cfs"}
        refused = client.call("runoff", {"discharge": 1250, "area": 29000})["result"]
        assert refused["_meta"]["io.github.quantity-guard/violation"]["code"] == \
            "unconverted_carry_over"
        handle = client.call("runoff", {"discharge": "1250 cfs", "area": 29000})
        received = text_of(client.result(handle))["received"]
        assert received["discharge"] == pytest.approx(1250 * CFS, rel=1e-12)
    finally:
        listening.stop()


def test_the_sdk_client_resolving_tasks_gets_labelled_results(tmp_path):
    """The official SDK 2.3 client with the tasks extension (mcp_peers/task_client.py) against
    the SDK upstream, through the proxy: call_tool resolves each task by polling tasks/get."""
    from mcp import Client
    from mcp_peers.sdk_client import run, stdio_params
    from mcp_peers.task_client import Tasks

    annotations = tmp_path / "water.toml"
    annotations.write_text(ANNOTATIONS)
    extension = Tasks()

    async def session():
        server = stdio_params([sys.executable, "-m", "quantity_guard.mcp", "--annotations",
                               str(annotations), "--", *UPSTREAM[MODERN]])
        async with Client(server, mode=MODERN, extensions=[extension]) as client:
            read = await client.call_tool("read_discharge", {"site": "07374000"})
            assert read.structured_content == {"value": 1250.0, "unit": "cfs"}
            assert text_of(read.model_dump(by_alias=True)) == {"value": 1250.0, "unit": "cfs"}
            refused = await client.call_tool("runoff", {"discharge": 1250, "area": 29000})
            assert refused.is_error and "no conversion was applied" in refused.content[0].text
            converted = await client.call_tool("runoff", {"discharge": "1250 cfs", "area": 29000})
            assert text_of(converted.model_dump(by_alias=True))["received"]["discharge"] == \
                pytest.approx(1250 * CFS, rel=1e-12)

    run(session)
    assert extension.polls == ["working", "completed"] * 2  # two tasks, the refusal none
