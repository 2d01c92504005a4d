"""A message is read once where the proxy receives it: the guard and the shells use what that
reading gave (jsonrpc.Parsed), and bytes the guard does not change are written as they came.
Over Streamable HTTP (listener -> remote upstream) a call is decoded once each way, guarded or
not: the line the guard writes carries the value it encoded (jsonrpc.made), and an answer on an
event stream is read once for the relay and the guard."""
from __future__ import annotations

import asyncio
import http.client
import json
import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers import http_fault_server  # noqa: E402

from quantity_guard.mcp import jsonrpc as rpc  # noqa: E402
from quantity_guard.mcp.guard import C2S, S2C, Decision, Guard  # noqa: E402
from quantity_guard.mcp.http.listen import Listener  # noqa: E402


class Counting:
    """Counts the decodes (jsonrpc.decode and decode_shallow) of requests and of answers."""

    def __init__(self, monkeypatch) -> None:
        self.requests = self.answers = 0
        real, shallow = rpc.decode, rpc.decode_shallow

        def counted(fn):
            def wrapper(line):
                data = line if isinstance(line, bytes) else line.encode()
                if b'"method"' in data:
                    self.requests += 1
                else:
                    self.answers += 1
                return fn(line)
            return wrapper

        monkeypatch.setattr(rpc, "decode", counted(real))
        monkeypatch.setattr(rpc, "decode_shallow", counted(shallow))

    def reset(self) -> None:
        self.requests = self.answers = 0


class Doubling:
    """Guards "ok": its argument x is doubled on the way up, its result labelled."""

    def guards(self, name):
        return name == "ok"

    def advertise(self, tool):
        return tool

    def check_call(self, name, arguments):
        return Decision.forward({**arguments, "x": arguments.get("x", 0) * 2})

    def label_result(self, name, arguments, result):
        return {**result, "labelled": True}

    def reset(self):
        pass


@pytest.fixture
def listener_url():
    """A listener in a thread of its own, before the fault server's "ok" tool; yields a
    function that opens a 2025-11-25 session and posts in it."""
    with http_fault_server.serving() as (_, url):
        ready, where, stop = threading.Event(), {}, {}

        def serve(policy):
            async def main():
                listener = Listener("127.0.0.1", 0, policy, upstream=url)
                where["port"] = (await listener.start())[1]
                stop["it"] = (asyncio.get_running_loop(), listener)
                ready.set()
                await listener.serve()
            asyncio.run(main())

        threads = []

        def start(policy):
            thread = threading.Thread(target=serve, args=(policy,), daemon=True)
            thread.start()
            threads.append(thread)
            assert ready.wait(10)
            return where["port"]

        yield start
        if "it" in stop:
            loop, listener = stop["it"]
            loop.call_soon_threadsafe(listener.stop)
        for thread in threads:
            thread.join(10)


def session(port):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    sid = []

    def post(msg):
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if sid:
            headers["Mcp-Session-Id"] = sid[0]
        conn.request("POST", "/mcp", body=json.dumps(msg).encode(), headers=headers)
        resp = conn.getresponse()
        body = resp.read()
        if not sid and resp.getheader("Mcp-Session-Id"):
            sid.append(resp.getheader("Mcp-Session-Id"))
        return json.loads(body) if body else None

    post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return post


@pytest.mark.parametrize("guarded", [False, True])
def test_a_call_over_http_guarded_or_not_is_decoded_once_each_way(
        listener_url, monkeypatch, guarded):
    port = listener_url(Doubling if guarded else (lambda: None))
    post = session(port)
    count = Counting(monkeypatch)
    calls = 5
    for i in range(calls):
        answer = post({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
                       "params": {"name": "ok", "arguments": {"x": 1}}})
        assert answer["id"] == 10 + i and answer["result"]["content"]
        assert answer["result"].get("labelled") is (True if guarded else None)
    assert (count.requests, count.answers) == (calls, calls)


def test_an_answer_on_an_upstream_event_stream_is_decoded_once(listener_url, monkeypatch):
    post = session(listener_url(lambda: None))
    count = Counting(monkeypatch)
    calls = 3
    for i in range(calls):
        answer = post({"jsonrpc": "2.0", "id": 20 + i, "method": "tools/call",
                       "params": {"name": "sse", "arguments": {}}})
        assert answer["id"] == 20 + i
        assert answer["result"]["content"] == [{"type": "text", "text": "streamed"}]
    # each call: its request and the progress notification before the answer, then the answer
    assert (count.requests, count.answers) == (2 * calls, calls)


def test_the_guard_reads_what_came_read_and_forwards_it_as_it_came(monkeypatch):
    line = b'{"jsonrpc":"2.0", "id":7, "method":"tools/call","params":{"name":"add","arguments":{"a":1}}}'
    message = rpc.read_once(line + b"\n")
    assert message.__class__ is rpc.Parsed and message == line
    answer = rpc.read_once(b'{"jsonrpc":"2.0","id":7,"result":{"content":[]}}')
    guard = Guard()
    count = Counting(monkeypatch)
    [(direction, out)] = guard.receive(C2S, message)
    assert direction == C2S and out == line + b"\n"  # the spacing as it came
    assert out.__class__ is rpc.Parsed and out.obj is message.obj  # carried on, not parsed again
    [(direction, out)] = guard.receive(S2C, answer)
    assert direction == S2C and out.obj is answer.obj
    assert (count.requests, count.answers) == (0, 0)


def test_a_guarded_call_is_rewritten_as_a_new_line_carrying_what_it_encodes(monkeypatch):
    guard = Guard(Doubling())
    message = rpc.read_once(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ok",'
                            b'"_meta":{"progressToken":5},"arguments":{"x":2}}}')
    [(direction, out)] = guard.receive(C2S, message)
    assert direction == C2S and out.__class__ is rpc.Parsed and out.endswith(b"\n")
    assert json.loads(out)["params"]["arguments"] == {"x": 4}
    assert out.obj == json.loads(out) and out.text == out[:-1].decode()
    answer = rpc.read_once(b'{"jsonrpc":"2.0","id":1,"result":{"content":[]}}')
    [(direction, out)] = guard.receive(S2C, answer)
    assert direction == S2C and out.__class__ is rpc.Parsed
    assert out.obj == json.loads(out) == {"jsonrpc": "2.0", "id": 1,
                                          "result": {"content": [], "labelled": True}}


def test_a_rewritten_line_too_long_to_carry_read_is_left_as_bytes():
    line = b'{"x":"' + b"y" * rpc.READ_ONCE_MAX + b'"}\n'
    assert rpc.made(line, {"x": "y" * rpc.READ_ONCE_MAX}) is line
    short = b'{"x":1}\n'
    assert rpc.made(short, {"x": 1}).obj == {"x": 1}


@pytest.mark.parametrize("data", [b"not json\n", b"   \n", b'{"jsonrpc":"2.0","id":1,'])
def test_what_is_not_json_is_left_as_bytes_and_answered_as_before(data):
    assert rpc.read_once(data) is data
    out = Guard().receive(C2S, rpc.read_once(data))
    assert out == Guard().receive(C2S, data)


def test_a_message_too_long_to_carry_read_is_left_as_bytes():
    data = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"' + \
        b"x" * rpc.READ_ONCE_MAX + b'"}}'
    assert rpc.read_once(data) is data


def test_json_beyond_the_parser_limits_is_carried_located_with_its_reason():
    deep = b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"v":' + \
        b"[" * 200_000 + b"]" * 200_000 + b"}}}"
    message = rpc.read_once(deep)
    assert message.__class__ is rpc.Parsed and isinstance(message.partial, rpc.ParseError)
    assert Guard().receive(C2S, message) == [(C2S, deep + b"\n")]
