"""--listen, a 2025-06-18 session whose POST event stream is cut before the answer
(2025-06-18 basic/transports.mdx, "Resumability and Redelivery" and "Listening for Messages
from the Server"): the answer is replayed on that stream to a GET with its Last-Event-ID, and
it is never sent on the GET stream, on another request's stream, or queued for a later GET.

A 2025-06-18 stream carries no priming event, so a stream cut before its first message gave
the client no id to resume from: its answer cannot reach the client at all (the official SDK
client then fails the call with "SSE stream ended without a response"); the proxy logs it and
drops it. A stream cut after one event (here a progress notification) is resumed."""
from __future__ import annotations

import json
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers.cutting_relay import CuttingRelay, sse_messages  # noqa: E402
from mcp_peers.driver import FAULT_SERVER, new_tag, reap  # noqa: E402
from test_mcp_http_listen import Listening  # noqa: E402
from test_mcp_http_listen_faults import post  # noqa: E402
from test_mcp_http_resume import Raw, call, session  # noqa: E402

VERSION = "2025-06-18"


@pytest.fixture
def listening():
    tag = new_tag()
    p = Listening("--", sys.executable, FAULT_SERVER, "--tag", tag, "--protocol-version", VERSION)
    yield p
    p.stop()
    reap(tag)


def test_the_sdk_client_resumes_a_2025_06_18_stream_cut_after_its_first_event(listening):
    """The official SDK client, having negotiated 2025-06-18, reconnects with the Last-Event-ID
    of the cut POST stream; the proxy replays what followed on that stream, the answer included,
    and the SDK's plain GET stream carries no response."""
    mcp = pytest.importorskip("mcp")
    anyio = pytest.importorskip("anyio")
    relay = CuttingRelay(listening.port, b'"cut"')
    url = f"http://127.0.0.1:{relay.port}/mcp"
    seen: dict = {"progress": []}

    async def main():
        async with mcp.Client(url, mode="legacy", read_timeout_seconds=30) as client:
            seen["version"] = client.protocol_version

            async def progress(value, total, message):
                seen["progress"].append(value)

            with anyio.fail_after(60):
                r = await client.call_tool("progress", {"steps": 3, "delay": 0.3, "cut": True},
                                           progress_callback=progress)
            seen["text"] = r.content[0].text

    try:
        anyio.run(main)
    finally:
        relay.close()
    assert seen["version"] == VERSION
    assert relay.cut == 1
    resumes = relay.resumptions()
    assert len(resumes) == 1, "the SDK client did not resume"
    assert seen["text"] == "done" and seen["progress"] == [1, 2, 3]
    replayed = [m for c in resumes for m in sse_messages(c["down"])]
    assert replayed[-1]["result"]["content"][0]["text"] == "done"
    plain_get = [m for c in relay.connections
                 if c["up"].startswith(b"GET ") and c not in resumes for m in sse_messages(c["down"])]
    assert all("method" in m for m in plain_get), plain_get


class Served:
    """The listener in this process (its own thread and event loop), in front of the fault
    server, with a short keep-alive period so that a client gone away is noticed at once."""

    def __init__(self) -> None:
        import asyncio

        from quantity_guard.mcp.http.listen import Listener
        self.tag = new_tag()
        self.logs: list[str] = []
        self.ready = threading.Event()
        command = [sys.executable, str(FAULT_SERVER), "--tag", self.tag, "--protocol-version", VERSION]

        async def main():
            self.loop = asyncio.get_running_loop()
            self.listener = Listener("127.0.0.1", 0, lambda: None, command=command, keepalive=0.1,
                                     log=self.logs.append)
            _, self.port = await self.listener.start()
            self.ready.set()
            await self.listener.serve()

        self.thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
        self.thread.start()
        assert self.ready.wait(30)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.listener.stop)
        self.thread.join(30)
        reap(self.tag)


@pytest.fixture
def served():
    s = Served()
    yield s
    s.stop()


def _cut_before_any_event(port: int, sid: str, ident: int) -> None:
    """POST a held call and go away when the response head arrived, before any event (a
    2025-06-18 stream has no priming event); then give the proxy a few keep-alive periods to
    notice."""
    import struct
    first = Raw(port, "POST", sid, call(ident, "gather", {"n": 2}))
    assert first.status == 200
    first.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    first.close()  # a reset: the proxy's next keep-alive write fails
    time.sleep(1.0)


def _first_message(stream: Raw) -> dict:
    while True:
        ev = stream.event()
        if ev.get("data"):
            return json.loads(ev["data"])


def test_the_answer_of_a_stream_cut_before_any_event_never_goes_on_the_get_stream(served):
    sid = session(served.port, VERSION)
    get = Raw(served.port, "GET", sid)
    assert get.status == 200
    _cut_before_any_event(served.port, sid, 7)
    # The second call releases both; its own stream gets only its own answer.
    _, msgs = post(served.port, call(8, "gather", {"n": 2}), {"Mcp-Session-Id": sid})
    assert [m["id"] for m in msgs] == [8]
    # A notification unrelated to any request goes to the GET stream: it is the first message
    # there, the answer to 7 was not sent before it.
    _, msgs = post(served.port, call(9, "emit", {"methods": ["notifications/tools/list_changed"]}),
                   {"Mcp-Session-Id": sid})
    assert msgs[-1]["id"] == 9
    assert _first_message(get) == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                                   "params": {"from": "upstream"}}
    get.close()
    dropped = [line for line in served.logs if "the answer to request 7 " in line]
    assert dropped and "dropped" in dropped[0] and sid not in dropped[0], served.logs


def test_the_answer_of_a_stream_cut_before_any_event_is_not_queued_for_a_later_get(served):
    sid = session(served.port, VERSION)
    _cut_before_any_event(served.port, sid, 17)
    _, msgs = post(served.port, call(18, "gather", {"n": 2}), {"Mcp-Session-Id": sid})
    assert [m["id"] for m in msgs] == [18]
    get = Raw(served.port, "GET", sid)
    assert get.status == 200
    post(served.port, call(19, "emit", {"methods": ["notifications/tools/list_changed"]}),
         {"Mcp-Session-Id": sid})
    assert _first_message(get)["method"] == "notifications/tools/list_changed"
    get.close()


def test_the_answer_of_a_stream_cut_before_any_event_does_not_go_on_another_request_stream(served):
    sid = session(served.port, VERSION)
    _cut_before_any_event(served.port, sid, 27)
    # 28's event stream is open (its progress comes after 1 s) when 29, answered as plain JSON,
    # releases 27: 28's stream carries only its own messages.
    other = Raw(served.port, "POST", sid, call(28, "progress", {"steps": 1, "delay": 1.0}, progressToken="p"))
    _, msgs = post(served.port, call(29, "gather", {"n": 2}),
                   {"Mcp-Session-Id": sid, "Accept": "application/json"})
    assert [m["id"] for m in msgs] == [29]
    carried = [json.loads(e["data"]) for e in other.rest() if e.get("data")]
    other.close()
    assert [(m.get("method"), m.get("id")) for m in carried] == [("notifications/progress", None), (None, 28)]


def test_a_stream_cut_after_its_first_event_is_replayed_to_its_last_event_id(served):
    sid = session(served.port, VERSION)
    first = Raw(served.port, "POST", sid, call(37, "progress", {"steps": 2, "delay": 0.5}, progressToken="q"))
    ev = first.event()
    assert json.loads(ev["data"])["method"] == "notifications/progress" and ev["id"]
    first.close()
    resumed = Raw(served.port, "GET", sid, headers=[f"Last-Event-ID: {ev['id']}"])
    assert resumed.status == 200
    carried = [json.loads(e["data"]) for e in resumed.rest() if e.get("data")]
    resumed.close()
    assert [(m.get("method"), m.get("id")) for m in carried] == [("notifications/progress", None), (None, 37)]


def test_the_sdk_client_fails_a_call_whose_2025_06_18_stream_is_cut_before_any_event(served):
    """Cut after a keep-alive comment, before any event: the SDK client has no id to resume
    from and fails the call at once ("SSE stream ended without a response"); the proxy sends
    the answer nowhere else, and the session goes on."""
    mcp = pytest.importorskip("mcp")
    anyio = pytest.importorskip("anyio")
    relay = CuttingRelay(served.port, b'"cut"', trigger=b":\n\n")
    url = f"http://127.0.0.1:{relay.port}/mcp"
    seen: dict = {}

    async def main():
        async with mcp.Client(url, mode="legacy", read_timeout_seconds=30) as client:
            with anyio.fail_after(60):
                try:
                    await client.call_tool("progress", {"steps": 1, "delay": 1.0, "cut": True})
                except Exception as exc:  # the SDK's MCPError
                    seen["error"] = str(exc)
                await anyio.sleep(1.5)  # the upstream answers the cut call meanwhile
                r = await client.call_tool("echo", {"after": 1})
                seen["after"] = r.content[0].text

    try:
        anyio.run(main)
    finally:
        relay.close()
    assert relay.cut == 1
    assert "SSE stream ended without a response" in seen["error"]
    assert json.loads(seen["after"]) == {"after": 1}
    assert not [c for c in relay.connections if b"last-event-id" in c["up"].lower()]
    plain_get = [m for c in relay.connections if c["up"].startswith(b"GET ") for m in sse_messages(c["down"])]
    assert all("method" in m for m in plain_get), plain_get
    assert any("arrived after its client's stream ended" in line for line in served.logs), served.logs
