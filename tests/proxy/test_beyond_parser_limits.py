"""Valid JSON beyond Python's parser limits (nesting past the recursion limit, integers of more
than 4,300 digits) is answered, never dropped: a client's 200,000-deep array gets its error at
once, and an upstream's answer of that kind reaches the client and ends its request, over
stdio and over HTTP."""
from __future__ import annotations

import http.client
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers import http_fault_server  # noqa: E402
from mcp_peers.driver import Peer, env, fault_argv, init_params, new_tag, proxy_argv, reap  # noqa: E402

INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}


def test_a_200000_deep_array_from_the_client_is_answered(tmp_path):
    tag = new_tag()
    with Peer(proxy_argv(*fault_argv(tag))) as p:
        p.call(0, "initialize", init_params())
        p.send_raw(b"[" * 200_000 + b"]" * 200_000 + b"\n")
        answer = p.recv(10)
        assert isinstance(answer, list) and answer[0]["id"] is None
        assert answer[0]["error"]["code"] == -32600
        assert p.call(1, "ping")["result"] == {}
    reap(tag)


@pytest.fixture
def upstream():
    with http_fault_server.serving() as (_, url):
        yield url


def _value_text(raw: bytes) -> bytes:
    return raw.split(b'"value":', 1)[1][:12]


@pytest.mark.parametrize("tool", ["bigint", "deep", "deepsse"])
def test_an_upstream_answer_beyond_the_limits_reaches_a_stdio_client(upstream, tool):
    with Peer([sys.executable, "-m", "quantity_guard.mcp", "--upstream", upstream], env=env()) as p:
        p.call(0, "initialize", INIT)
        p.request(1, "tools/call", {"name": tool, "arguments": {}})
        raw = p.recv_raw(10)
        assert raw.startswith(b'{"jsonrpc":"2.0","id":1,"result"')
        assert _value_text(raw) == (b"9" * 12 if tool == "bigint" else b"[" * 12)


@pytest.mark.parametrize("tool", ["bigint", "deep", "deepsse"])
@pytest.mark.parametrize("accept", ["application/json", "application/json, text/event-stream"])
def test_an_upstream_answer_beyond_the_limits_reaches_an_http_client(upstream, tool, accept):
    pytest.importorskip("mcp")
    from test_mcp_http_listen import Listening
    p = Listening("--upstream", upstream)
    try:
        def post(body, sid=None):
            conn = http.client.HTTPConnection("127.0.0.1", p.port, timeout=10)
            h = {"Content-Type": "application/json", "Accept": accept}
            if sid:
                h["Mcp-Session-Id"] = sid
            conn.request("POST", "/mcp", body=json.dumps(body).encode(), headers=h)
            resp = conn.getresponse()
            return resp, resp.read()
        resp, _ = post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT})
        sid = resp.getheader("Mcp-Session-Id")
        resp, data = post({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": tool, "arguments": {}}}, sid)
        assert resp.status == 200
        assert b'"id":1,"result"' in data
        assert _value_text(data) == (b"9" * 12 if tool == "bigint" else b"[" * 12)
    finally:
        p.stop()


def test_max_message_size_bounds_http_bodies_both_ways(upstream):
    pytest.importorskip("mcp")
    from test_mcp_http_listen import Listening
    p = Listening("--max-message-size", "4KiB", "--upstream", upstream)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", p.port, timeout=10)
        body = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                           "params": {**INIT, "pad": "x" * 5000}}).encode()
        conn.request("POST", "/mcp", body=body, headers={"Content-Type": "application/json",
                                                         "Accept": "application/json"})
        resp = conn.getresponse()
        assert resp.status == 413
        resp.read()
    finally:
        p.stop()
    with Peer([sys.executable, "-m", "quantity_guard.mcp", "--max-message-size", "4KiB", "--upstream", upstream],
              env=env()) as q:
        q.call(0, "initialize", INIT)
        r = q.call(1, "tools/call", {"name": "big", "arguments": {"size": 5000}})
        assert "exceeds 4096 bytes" in r["error"]["message"]
