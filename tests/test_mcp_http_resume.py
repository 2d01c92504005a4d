"""--listen gives SSE event ids and replays a stream after a GET with Last-Event-ID
(2025-11-25 basic/transports.mdx "Resumability and Redelivery"), in front of the stdlib fault
server (tests/mcp_peers/fault_server.py); raw HTTP clients, so the disconnect is exact."""
from __future__ import annotations

import json
import socket
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from mcp_peers.cutting_relay import CuttingRelay  # noqa: E402
from mcp_peers.driver import FAULT_SERVER, new_tag, reap  # noqa: E402
from test_mcp_http_listen import Listening  # noqa: E402
from test_mcp_http_listen_faults import post  # noqa: E402


def init(version: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                       "params": {"protocolVersion": version, "capabilities": {},
                                  "clientInfo": {"name": "raw", "version": "1"}}}).encode()


@pytest.fixture
def listening():
    tag = new_tag()
    p = Listening("--", sys.executable, FAULT_SERVER, "--tag", tag)
    yield p
    p.stop()
    reap(tag)


def session(port, version="2025-11-25") -> str:
    resp, msgs = post(port, init(version))
    assert msgs[-1]["result"]["protocolVersion"] == version
    sid = resp.getheader("Mcp-Session-Id")
    post(port, b'{"jsonrpc":"2.0","method":"notifications/initialized"}', {"Mcp-Session-Id": sid})
    return sid


def call(ident, name, arguments, **meta) -> bytes:
    params = {"name": name, "arguments": arguments}
    if meta:
        params["_meta"] = meta
    return json.dumps({"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": params}).encode()


class Raw:
    """One HTTP/1.1 request on a plain socket, its SSE events read one by one."""

    def __init__(self, port, method, sid, body=b"", headers=()):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=20)
        lines = [f"{method} /mcp HTTP/1.1", f"Host: 127.0.0.1:{port}", f"Mcp-Session-Id: {sid}",
                 "Accept: application/json, text/event-stream", *headers]
        if method == "POST":
            lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        self.buf = b""
        self.text = b""  # event-stream bytes not yet parsed
        self.status = int(self._until(b"\r\n\r\n").split(b" ", 2)[1])

    def _until(self, sep: bytes) -> bytes:
        while sep not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError(self.buf)
            self.buf += data
        part, self.buf = self.buf.split(sep, 1)
        return part

    def event(self) -> dict:
        """The next SSE event as {"id": ..., "data": ...} (chunk framing removed; events end
        at a blank line, comments skipped)."""
        while True:
            if b"\n\n" in self.text:
                block, self.text = self.text.split(b"\n\n", 1)
                fields = {}
                for line in block.decode().split("\n"):
                    if line and not line.startswith(":"):
                        name, _, value = line.partition(": ")
                        fields[name] = value
                if fields:
                    return fields
                continue
            size = int(self._until(b"\r\n").split(b";")[0], 16)
            if size == 0:
                raise EOFError("the stream ended")
            while len(self.buf) < size + 2:
                self.buf += self.sock.recv(65536)
            self.text += self.buf[:size]
            self.buf = self.buf[size + 2:]

    def rest(self) -> list[dict]:
        out = []
        try:
            while True:
                out.append(self.event())
        except EOFError:
            return out

    def close(self):
        self.sock.close()


def test_events_carry_ids_unique_in_the_session_and_each_stream_is_primed(listening):
    sid = session(listening.port)
    seen = []
    for i in range(3):
        r = Raw(listening.port, "POST", sid, call(10 + i, "progress", {"steps": 2}, progressToken=f"t{i}"))
        events = r.rest()
        r.close()
        assert events[0]["data"] == "" and events[0]["id"]  # the priming event comes first
        assert [json.loads(e["data"]).get("method") for e in events[1:]] == [
            "notifications/progress", "notifications/progress", None]
        assert json.loads(events[-1]["data"])["id"] == 10 + i
        seen += [e["id"] for e in events]
    assert all(seen) and len(set(seen)) == len(seen) == 12


def test_a_dropped_stream_is_resumed_with_last_event_id_and_only_its_own_events_replayed(listening):
    sid = session(listening.port)
    first = Raw(listening.port, "POST", sid, call(7, "gather", {"n": 2}))
    assert first.status == 200
    priming = first.event()
    assert priming["data"] == ""
    first.close()  # the client goes away before the answer
    time.sleep(0.3)
    # The second call releases both; its own stream gets only its own answer.
    _, msgs = post(listening.port, call(8, "gather", {"n": 2}), {"Mcp-Session-Id": sid})
    assert [m["id"] for m in msgs] == [8]
    resumed = Raw(listening.port, "GET", sid, headers=[f"Last-Event-ID: {priming['id']}"])
    assert resumed.status == 200
    events = resumed.rest()
    resumed.close()
    assert [json.loads(e["data"])["id"] for e in events] == [7]
    assert json.loads(events[0]["data"])["result"]["content"][0]["text"] == "gathered 7"
    assert events[0]["id"] != priming["id"] and events[0]["id"].split("-")[0] == priming["id"].split("-")[0]
    # Replayable again (kept), and from the answer's own id nothing follows.
    again = Raw(listening.port, "GET", sid, headers=[f"Last-Event-ID: {priming['id']}"])
    assert [e["id"] for e in again.rest()] == [events[0]["id"]]
    again.close()
    after = Raw(listening.port, "GET", sid, headers=[f"Last-Event-ID: {events[0]['id']}"])
    assert after.status == 200 and after.rest() == []
    after.close()


def test_resuming_before_the_answer_continues_the_stream_live(listening):
    sid = session(listening.port)
    first = Raw(listening.port, "POST", sid, call(21, "gather", {"n": 2}))
    priming = first.event()
    first.close()
    resumed = Raw(listening.port, "GET", sid, headers=[f"Last-Event-ID: {priming['id']}"])
    assert resumed.status == 200
    time.sleep(0.3)
    _, msgs = post(listening.port, call(22, "gather", {"n": 2}), {"Mcp-Session-Id": sid})
    assert [m["id"] for m in msgs] == [22]
    events = resumed.rest()  # the answer arrives live on the resumed stream, which then ends
    resumed.close()
    assert [json.loads(e["data"])["id"] for e in events] == [21]


@pytest.mark.parametrize("last", ["999-1", "garbage", "1-99999"])
def test_an_event_id_the_proxy_does_not_hold_gets_404(listening, last):
    sid = session(listening.port)
    r = Raw(listening.port, "GET", sid, headers=[f"Last-Event-ID: {last}"])
    assert r.status == 404
    body = r.sock.recv(65536) if not r.buf else r.buf
    r.close()
    assert b"Last-Event-ID" in body and b"send the request again" in body


def test_the_get_stream_is_resumed_too(listening):
    sid = session(listening.port)
    get = Raw(listening.port, "GET", sid)
    assert get.status == 200
    # emit sends a notification unrelated to any request: it goes to the GET stream.
    _, msgs = post(listening.port, call(30, "emit", {"methods": ["notifications/tools/list_changed"]}),
                   {"Mcp-Session-Id": sid})
    assert msgs[-1]["id"] == 30
    ev = get.event()
    while not ev.get("data"):
        ev = get.event()
    assert json.loads(ev["data"])["method"] == "notifications/tools/list_changed"
    mark = ev["id"]
    post(listening.port, call(31, "emit", {"methods": ["notifications/resources/list_changed"]}),
         {"Mcp-Session-Id": sid})
    ev2 = get.event()
    get.close()
    resumed = Raw(listening.port, "GET", sid, headers=[f"Last-Event-ID: {mark}"])
    assert resumed.status == 200
    got = resumed.event()
    assert got == ev2 and json.loads(got["data"])["method"] == "notifications/resources/list_changed"
    resumed.close()


def test_a_2025_06_18_session_gets_ids_without_priming(listening):
    sid = session(listening.port, "2025-06-18")
    r = Raw(listening.port, "POST", sid, call(5, "progress", {"steps": 1}, progressToken="p"))
    events = r.rest()
    r.close()
    assert [bool(e["data"]) for e in events] == [True, True]
    assert all(e["id"] for e in events)


def test_the_sdk_client_resumes_a_cut_stream_through_the_proxy(listening):
    """The official SDK client (mcp 2.3, 2025-11-25) reconnects with Last-Event-ID when its POST
    stream ends before the answer; the proxy replays the answer."""
    mcp = pytest.importorskip("mcp")
    anyio = pytest.importorskip("anyio")
    relay = CuttingRelay(listening.port, b'"cut"')
    url = f"http://127.0.0.1:{relay.port}/mcp"
    results: dict = {}

    async def main():
        async with mcp.Client(url, mode="legacy", read_timeout_seconds=30) as client:
            async def one(tag, extra):
                r = await client.call_tool("gather", {"n": 2, **extra})
                results[tag] = r.content[0].text

            with anyio.fail_after(60):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(one, "cut", {"cut": True})
                    await anyio.sleep(0.5)
                    tg.start_soon(one, "plain", {})

    try:
        anyio.run(main)
    finally:
        relay.close()
    assert relay.cut == 1
    assert relay.resumptions(), "the SDK client did not resume"
    assert results["plain"].startswith("gathered ") and results["cut"].startswith("gathered ")
    assert results["cut"] != results["plain"]


def test_an_event_larger_than_the_replay_budget_leaves_other_streams_resumable(listening):
    """A 5 MiB answer (over the 4 MiB a session keeps) is relayed whole but not kept; the
    answers kept for other streams stay, and a resumption from before it gets 404."""
    sid = session(listening.port)
    first = Raw(listening.port, "POST", sid, call(41, "gather", {"n": 2}))
    priming = first.event()
    first.close()  # 41's answer will be kept for a resumption
    time.sleep(0.3)
    _, msgs = post(listening.port, call(42, "gather", {"n": 2}), {"Mcp-Session-Id": sid})
    assert [m["id"] for m in msgs] == [42]
    big = Raw(listening.port, "POST", sid, call(43, "big", {"size": 5 << 20}))
    big_priming = big.event()
    events = big.rest()
    big.close()
    assert len(json.loads(events[-1]["data"])["result"]["content"][0]["text"]) == 5 << 20
    resumed = Raw(listening.port, "GET", sid, headers=[f"Last-Event-ID: {priming['id']}"])
    assert resumed.status == 200
    assert [json.loads(e["data"])["id"] for e in resumed.rest()] == [41]
    resumed.close()
    again = Raw(listening.port, "GET", sid, headers=[f"Last-Event-ID: {big_priming['id']}"])
    assert again.status == 404
    again.close()


def test_a_large_event_within_the_replay_budget_is_replayed_whole(listening):
    """A 2 MiB answer (written in pieces, not copied) is kept and replayed byte for byte."""
    sid = session(listening.port)
    first = Raw(listening.port, "POST", sid, call(51, "big", {"size": 2 << 20}))
    priming = first.event()
    events = first.rest()
    first.close()
    resumed = Raw(listening.port, "GET", sid, headers=[f"Last-Event-ID: {priming['id']}"])
    assert resumed.status == 200
    again = resumed.rest()
    resumed.close()
    assert again == events and len(events) == 1
    assert len(json.loads(events[0]["data"])["result"]["content"][0]["text"]) == 2 << 20
