"""A hung upstream: the wait for a remote one's response head (--upstream-timeout) and the
silence within its response stream (--upstream-idle-timeout), and the wait for a COMMAND's
answer or progress (--upstream-timeout), are bounded; the request then gets a JSON-RPC error
naming the limit (a COMMAND also a cancellation), and an SSE client of --listen gets keep-alives
meanwhile."""
from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers import http_fault_server  # noqa: E402
from mcp_peers.driver import (  # noqa: E402
    Peer, fault_argv, init_params, new_tag, proxy_argv, reap, upstream_bridge)

INIT = init_params()


@pytest.fixture
def upstream():
    with http_fault_server.serving() as served:
        yield served


@pytest.mark.parametrize("tool, flag", [("hang", "--upstream-timeout"), ("stall", "--upstream-idle-timeout")])
def test_the_stdio_bridge_answers_a_hung_upstream_with_an_error(upstream, tool, flag):
    _, url = upstream
    with upstream_bridge(url, flag, "0.5") as p:
        assert "result" in p.call(0, "initialize", INIT)
        p.notify("notifications/initialized")
        r = p.call(1, "tools/call", {"name": tool, "arguments": {}}, timeout=20)
        assert r["error"]["code"] == -32603
        assert flag in r["error"]["message"] and "0.5 s" in r["error"]["message"]
        assert p.call(2, "tools/call", {"name": "echo-me", "arguments": {}})["result"]  # goes on


@pytest.mark.parametrize("flag", ["--upstream-timeout", "--upstream-idle-timeout"])
@pytest.mark.parametrize("value", ["-1", "never", "nan"])
def test_bad_upstream_timeouts_are_usage_errors(flag, value):
    with Peer([sys.executable, "-m", "quantity_guard.mcp", flag, value, "--upstream", "http://127.0.0.1:9/mcp"]) as p:
        assert p.wait() == 2
        assert f"{flag} must be a number of seconds" in p.stderr()


def test_a_command_that_never_answers_gets_the_request_answered_and_cancelled():
    tag = new_tag()
    try:
        with Peer(proxy_argv(*fault_argv(tag), options=("--upstream-timeout", "0.5"))) as p:
            p.call(0, "initialize", init_params())
            p.request(1, "tools/call", {"name": "hang", "arguments": {}})
            answer, others = p.response(1, timeout=20)
            assert answer["error"]["code"] == -32603
            assert "--upstream-timeout" in answer["error"]["message"] and "0.5 s" in answer["error"]["message"]
            note = others[0] if others else p.recv(10)  # the upstream saw the cancellation
            assert note["params"]["data"] == {"cancelled": 1, "was_hanging": True}
            assert p.call(2, "ping")["result"] == {}
    finally:
        reap(tag)


def test_an_idle_timeout_without_an_upstream_is_a_usage_error():
    with Peer([sys.executable, "-m", "quantity_guard.mcp", "--upstream-idle-timeout", "5", "--", "true"]) as p:
        assert p.wait() == 2
        assert "--upstream-idle-timeout bounds the waits for an --upstream URL" in p.stderr()


def test_a_listener_sse_client_gets_keepalives_then_the_error(upstream):
    """The listener in process, with short limits: the response head and keep-alive comments
    reach the client while the upstream is silent, then the JSON-RPC error ends the stream."""
    from quantity_guard.mcp.http.listen import Listener
    _, url = upstream

    async def post(port, body, sid=None):
        r, w = await asyncio.open_connection("127.0.0.1", port)
        head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n"
                + (f"Mcp-Session-Id: {sid}\r\n" if sid else "") + "Connection: close\r\n\r\n")
        w.write(head.encode() + body)
        return r, w

    async def scenario():
        listener = Listener("127.0.0.1", 0, lambda: None, upstream=url, keepalive=0.1,
                            upstream_timeout=1.0)
        host, port = await listener.start()
        try:
            r, w = await post(port, json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                                "params": INIT}).encode())
            data = await asyncio.wait_for(r.read(), 10)
            sid = data.split(b"Mcp-Session-Id: ", 1)[1].split(b"\r\n", 1)[0].decode()
            w.close()
            r, w = await post(port, json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                                                "params": {"name": "hang", "arguments": {}}}).encode(), sid)
            first = await asyncio.wait_for(r.readuntil(b"\r\n\r\n"), 5)
            assert first.startswith(b"HTTP/1.1 200 ") and b"text/event-stream" in first
            rest = await asyncio.wait_for(r.read(), 10)
            w.close()
            return rest
        finally:
            listener.stop()
            await listener.serve()

    rest = asyncio.run(scenario())
    assert b"\r\n:\n\n\r\n" in rest  # at least one keep-alive comment (an SSE comment chunk)
    event = [line for line in rest.split(b"\n") if line.startswith(b"data: ")][-1]
    answer = json.loads(event[6:])
    assert answer["id"] == 5 and "--upstream-timeout" in answer["error"]["message"]


def test_progress_keeps_a_long_command_request_alive():
    tag = new_tag()
    try:
        with Peer(proxy_argv(*fault_argv(tag), options=("--upstream-timeout", "0.4"))) as p:
            p.call(0, "initialize", init_params())
            p.request(1, "tools/call", {"name": "progress", "arguments": {"steps": 8, "delay": 0.15},
                                        "_meta": {"progressToken": "t"}})
            answer, others = p.response(1, timeout=20)
            assert "result" in answer, answer
    finally:
        reap(tag)
