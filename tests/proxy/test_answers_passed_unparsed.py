"""An answer the guard does not read (to a request of an unguarded tool, a ping, a resource read)
passes as sent without being parsed when it is written as peers usually write it
(jsonrpc.answer_key reads its id from its first bytes). Where the id or a method could be written
again further on, or the answer is written otherwise, it is parsed as before, so a guarded call's
answer is never taken for another's."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers.fake_policy import FakePolicy  # noqa: E402

from quantity_guard.mcp import jsonrpc as rpc  # noqa: E402
from quantity_guard.mcp.guard import C2S, LOG, S2C, Guard  # noqa: E402

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "0"}}}


def wire(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def call(ident, tool, arguments) -> bytes:
    return wire({"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                 "params": {"name": tool, "arguments": arguments}})


@pytest.fixture
def guard():
    g = Guard(FakePolicy())
    g.receive(C2S, wire(INIT))
    g.receive(S2C, wire({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25"}}))
    return g


@pytest.fixture
def decodes(monkeypatch):
    """How many times an answer is parsed (jsonrpc.decode and decode_shallow)."""
    count = [0]
    for name in ("decode", "decode_shallow"):
        real = getattr(rpc, name)

        def counted(line, real=real):
            count[0] += 1
            return real(line)
        monkeypatch.setattr(rpc, name, counted)
    return count


def test_an_unread_answer_passes_byte_for_byte_without_being_parsed(guard, decodes):
    guard.receive(C2S, call(7, "add", {"a": 1, "b": 2}))
    answer = b'{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"3"}]  }}'
    before, forwarded = decodes[0], guard.stats["forwarded"]
    assert guard.receive(S2C, answer) == [(S2C, answer + b"\n")]
    assert decodes[0] == before
    assert guard.pending_count() == 0 and guard.stats["forwarded"] == forwarded + 1


def test_an_error_answer_and_a_string_id_pass_alike(guard, decodes):
    guard.receive(C2S, wire({"jsonrpc": "2.0", "id": "r-1", "method": "ping"}))
    answer = b'{"jsonrpc":"2.0","id":"r-1","error":{"code":-32601,"message":"no"}}'
    before = decodes[0]
    assert guard.receive(S2C, answer) == [(S2C, answer + b"\n")]
    assert decodes[0] == before and guard.pending_count() == 0


def test_a_guarded_calls_answer_is_read_and_labelled(guard):
    guard.receive(C2S, call(8, "read_discharge", {"site": "x"}))
    out = guard.receive(S2C, b'{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"1250"}]}}')
    [(side, data)] = out
    assert side == S2C and json.loads(data)["result"]["structuredContent"] == \
        {"value": 1250.0, "unit": "cfs"}


@pytest.mark.parametrize("tail", [
    ',"id":8}',             # the id written again: a parser keeps the last, the guarded call's
    ',"\\u0069d":8}',       # the same id spelled with an escape
])
def test_an_answer_naming_a_guarded_call_again_is_read_as_a_parser_reads_it(guard, tail):
    guard.receive(C2S, call(7, "add", {"a": 1, "b": 2}))
    guard.receive(C2S, call(8, "read_discharge", {"site": "x"}))
    line = b'{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"1250"}]}' + \
        tail.encode()
    [(side, data)] = guard.receive(S2C, line)
    assert side == S2C
    answer = json.loads(data)
    assert answer["id"] == 8 and answer["result"]["structuredContent"] == \
        {"value": 1250.0, "unit": "cfs"}
    assert guard.pending_count() == 1  # id 7 is still awaited


def test_a_cut_answer_is_parsed_and_dropped(guard):
    guard.receive(C2S, call(7, "add", {"a": 1, "b": 2}))
    out = guard.receive(S2C, b'{"jsonrpc":"2.0","id":7,"result":{"content":[')
    assert [side for side, _ in out] == [LOG] and b"dropped upstream output" in out[0][1]
    assert guard.pending_count() == 1 and guard.stats["dropped"] == 1


def test_an_unread_answer_is_the_upstreams_own_text(guard):
    """Not parsed, its body is not checked to be JSON: the client reads it as the upstream
    wrote it (its request is answered, as it would be without the guard)."""
    guard.receive(C2S, call(7, "add", {"a": 1, "b": 2}))
    odd = b'{"jsonrpc":"2.0","id":7,"result":{"content":[}'
    assert guard.receive(S2C, odd) == [(S2C, odd + b"\n")]
    assert guard.pending_count() == 0


def test_the_first_bytes_never_disagree_with_the_parser():
    from hypothesis import example, given, settings
    from hypothesis import strategies as st

    ids = st.one_of(st.integers(-2**70, 2**70), st.text(max_size=12), st.floats(allow_nan=False),
                    st.booleans(), st.none())
    values = st.recursive(st.one_of(st.none(), st.integers(), st.text(max_size=8)),
                          lambda inner: st.dictionaries(st.sampled_from(["id", "method", "x"]),
                                                        inner, max_size=3), max_leaves=6)

    @settings(max_examples=400, deadline=None)
    @given(ids, st.sampled_from(["result", "error"]), values,
           st.lists(st.tuples(st.sampled_from(["id", "method", "x"]), values), max_size=2),
           st.booleans())
    @example(7, "result", {}, [("id", 8)], False)
    @example("a", "error", {"method": 1}, [], True)
    def check(ident, kind, value, more, ascii_only):
        members = [("jsonrpc", "2.0"), ("id", ident), (kind, value), *more]
        body = ",".join(json.dumps(k) + ":" + json.dumps(v, ensure_ascii=ascii_only,
                                                         separators=(",", ":"))
                        for k, v in members)
        line = ("{" + body + "}").encode()
        key = rpc.answer_key(line)
        if key is None:
            return
        obj = json.loads(line)
        assert "method" not in obj and rpc.id_key(obj["id"]) == key

    check()
