"""quantity_guard.mcp.jsonrpc: framing, parsing, classification, spans. No I/O."""
from __future__ import annotations

import json

import pytest

from quantity_guard.mcp import jsonrpc as rpc


def test_linebuffer_splits_on_newline_only():
    buf = rpc.LineBuffer()
    data = ('{"a":"x\u2028y\u0085z\x0c"}\n{"b":1}\r\n{"c":"\U0001F600"}\n').encode("utf-8")
    # feed it one byte at a time: multibyte characters straddle every chunk boundary
    lines = []
    for i in range(len(data)):
        lines += buf.feed(data[i:i + 1])
    assert lines == ['{"a":"x\u2028y\u0085z\x0c"}'.encode(), b'{"b":1}', '{"c":"\U0001F600"}'.encode()]
    assert buf.flush() is None


def test_linebuffer_keeps_inner_cr_and_flushes_tail():
    buf = rpc.LineBuffer()
    assert buf.feed(b'{"a":"\\r"}\r\n{"tail":') == [b'{"a":"\\r"}']
    assert buf.pending == len(b'{"tail":')
    assert buf.feed(b"1}") == []
    assert buf.flush() == b'{"tail":1}'
    assert buf.flush() is None


def test_linebuffer_64_mib_line_in_pipe_sized_chunks():
    payload = b'{"jsonrpc":"2.0","id":1,"result":{"s":"' + b"x" * (64 << 20) + b'"}}'
    buf = rpc.LineBuffer()
    out = []
    view = memoryview(payload + b"\n{}\n")
    for i in range(0, len(view), 1 << 16):
        out += buf.feed(bytes(view[i:i + (1 << 16)]))
    assert len(out) == 2 and out[0] == payload and out[1] == b"{}"


@pytest.mark.parametrize("line,reason", [
    (b"", "JSON"), (b"   ", "JSON"), (b"{", "JSON"), (b"\xff{}", "UTF-8"), (b'{"a":1} x', "JSON"),
    (b"\xef\xbb\xbf{}", "JSON"), (b"[" * 200_000 + b"]" * 200_000, "deep"),
])
def test_loads_rejects(line, reason):
    with pytest.raises(rpc.ParseError) as e:
        rpc.loads(line)
    assert reason.lower() in str(e.value).lower() or reason == "deep"


def test_loads_accepts_terminator_and_python_literals():
    assert rpc.loads(b'{"a":1}\r\n') == {"a": 1}
    assert rpc.loads(b"[NaN]")[0] != rpc.loads(b"[NaN]")[0]  # parsed, not rejected


@pytest.mark.parametrize("obj,kind", [
    ({"jsonrpc": "2.0", "id": 1, "method": "x"}, rpc.REQUEST),
    ({"jsonrpc": "2.0", "id": None, "method": "x"}, rpc.REQUEST),
    ({"jsonrpc": "2.0", "method": "x"}, rpc.NOTIFICATION),
    ({"jsonrpc": "2.0", "id": "a", "result": {}}, rpc.RESPONSE),
    ({"jsonrpc": "2.0", "id": "a", "result": None}, rpc.RESPONSE),
    ({"jsonrpc": "2.0", "id": None, "error": {"code": -1}}, rpc.ERROR),
    ({"jsonrpc": "2.0", "id": 1, "method": 5}, rpc.INVALID),
    ({}, rpc.INVALID), ({"id": 1}, rpc.INVALID), ([], rpc.INVALID), (3, rpc.INVALID),
    ("s", rpc.INVALID), (None, rpc.INVALID),
])
def test_classify(obj, kind):
    msg = rpc.classify(obj)
    assert msg.kind == kind
    if kind == rpc.INVALID:
        assert msg.reason


def test_id_keys_keep_json_types():
    keys = [rpc.id_key(v) for v in (1, "1", 1.0, True)]
    assert len(set(keys[:3])) == 3 and keys[3] is None
    assert rpc.id_key(None) is None and rpc.id_key(rpc.MISSING) is None and rpc.id_key([1]) is None
    assert rpc.id_key(10**30) == ("i", 10**30)


def test_builders_round_trip_and_never_emit_raw_newlines():
    line = rpc.error_line("7", rpc.PARSE_ERROR, "bad\nline")
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == {"jsonrpc": "2.0", "id": "7", "error": {"code": -32700, "message": "bad\nline"}}
    assert json.loads(rpc.error_line(None, -32600, "x"))["id"] is None
    assert json.loads(rpc.response_line(3, rpc.dumps({"a": "\u2028é"}))) == {"jsonrpc": "2.0", "id": 3,
                                                                           "result": {"a": "\u2028é"}}
    assert rpc.dumps({"a": "é"}) == '{"a":"é"}'
    with pytest.raises(ValueError):
        rpc.dumps({"x": float("nan")})
    # a lone surrogate (only reachable through a \\ud800 escape) stays encodable
    lone = json.loads('"\\ud800"')
    assert rpc.dumps([lone]).encode("utf-8") == b'["\\ud800"]'


def test_members_elements_and_splice_keep_every_other_byte():
    text = ' { "id" : 1 , "params":{"name":"t","arguments" :{"a": 1.50e0},"_meta":{"k":[1, 2]}} } '
    brace, top = rpc.members(text)
    assert text[brace] == "{"
    assert [k for k, _, _ in top] == ["id", "params"]
    s, e = rpc.unique_member(top, "params")
    _, inner = rpc.members(text, s)
    a = rpc.unique_member(inner, "arguments")
    assert text[a[0]:a[1]] == '{"a": 1.50e0}'
    new = rpc.splice(text, [(a[0], a[1], '{"a":2}')])
    assert new == text.replace('{"a": 1.50e0}', '{"a":2}')
    assert rpc.unique_member(inner, "absent") is None
    _, dup = rpc.members('{"a":1,"a":2}')
    assert rpc.unique_member(dup, "a") is rpc.MISSING
    spans = rpc.elements('[ 1, {"x":[2]} ,"s"]')
    assert [('[ 1, {"x":[2]} ,"s"]')[s:e] for s, e in spans] == ["1", '{"x":[2]}', '"s"']
    assert rpc.elements("[]") == [] and rpc.members("{}")[1] == []
    for bad in ("[1,]", "{,}", '{"a" 1}', "x"):
        with pytest.raises(rpc.ParseError):
            (rpc.elements if bad.startswith("[") else rpc.members)(bad)
