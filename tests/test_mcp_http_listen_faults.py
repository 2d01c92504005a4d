"""--listen in front of the stdlib fault server (tests/mcp_peers/fault_server.py): 50 concurrent
requests on one session, 10 MiB bodies both ways, and a 2026-07-28 client that closes its stream
(the proxy sends notifications/cancelled to the stdio upstream for it)."""
from __future__ import annotations

import http.client
import json
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from mcp_peers.driver import FAULT_SERVER, new_tag, reap  # noqa: E402
from test_mcp_http_listen import Listening  # noqa: E402

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


@pytest.fixture
def listening(tmp_path):
    tag = new_tag()
    log = tmp_path / "wire.log"
    p = Listening("--", sys.executable, FAULT_SERVER, "--tag", tag, "--wire-log", str(log))
    yield p, log
    p.stop()
    reap(tag)


def post(port, body: bytes, headers=None, timeout=60):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    h.update(headers or {})
    conn.request("POST", "/mcp", body=body, headers=h)
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    if resp.getheader("content-type", "").startswith("text/event-stream"):
        return resp, [json.loads(ln[6:]) for ln in data.split(b"\n") if ln.startswith(b"data: ") and len(ln) > 6]
    return resp, [json.loads(data)] if data else []


def session(port) -> str:
    resp, msgs = post(port, json.dumps(INIT).encode())
    assert msgs[-1]["result"]["serverInfo"]["name"] == "fault-server"
    sid = resp.getheader("Mcp-Session-Id")
    post(port, b'{"jsonrpc":"2.0","method":"notifications/initialized"}', {"Mcp-Session-Id": sid})
    return sid


def test_fifty_concurrent_requests_each_get_their_own_answer(listening):
    p, _ = listening
    sid = session(p.port)
    results: dict = {}

    def one(i):
        body = {"jsonrpc": "2.0", "id": 1000 + i, "method": "tools/call",
                "params": {"name": "gather", "arguments": {"n": 50}}}
        _, msgs = post(p.port, json.dumps(body).encode(), {"Mcp-Session-Id": sid})
        results[i] = msgs

    threads = [threading.Thread(target=one, args=(i,)) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    assert len(results) == 50
    for i, msgs in results.items():
        assert [m["id"] for m in msgs if "id" in m] == [1000 + i]


def test_ten_mib_bodies_both_ways(listening):
    p, _ = listening
    sid = session(p.port)
    big = "y" * (10 << 20)
    body = json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                       "params": {"name": "echo", "arguments": {"s": big}}}).encode()
    _, msgs = post(p.port, body, {"Mcp-Session-Id": sid})
    assert json.loads(msgs[-1]["result"]["content"][0]["text"])["s"] == big
    body = json.dumps({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                       "params": {"name": "big", "arguments": {"size": 10 << 20}}}).encode()
    _, msgs = post(p.port, body, {"Mcp-Session-Id": sid})
    assert len(msgs[-1]["result"]["content"][0]["text"]) == 10 << 20


def test_a_modern_client_closing_its_stream_cancels_the_request(listening):
    p, log = listening
    body = json.dumps({"jsonrpc": "2.0", "id": "h1", "method": "tools/call",
                       "params": {"name": "hang", "arguments": {}, "_meta": META}}).encode()
    sock = socket.create_connection(("127.0.0.1", p.port), timeout=30)
    sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 b"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
                 b"Mcp-Method: tools/call\r\nMcp-Name: hang\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    deadline = time.monotonic() + 20
    while b'"hang"' not in (log.read_bytes() if log.exists() else b""):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    sock.close()  # the client gives up: for 2026-07-28 that is the cancellation
    while b"notifications/cancelled" not in log.read_bytes():
        assert time.monotonic() < deadline, log.read_bytes()
        time.sleep(0.05)
    cancelled = [json.loads(x) for x in log.read_bytes().split(b"\n") if b"notifications/cancelled" in x]
    assert cancelled[0]["params"]["requestId"] == "h1"
