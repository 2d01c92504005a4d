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


# ------------------------------------------------------------------ bounded lines (issue #18 item 9)

def _expected_lines(lines, limit):
    out = []
    for raw in lines:
        if len(raw) > limit:
            out.append(("over", raw[:64 * 1024], rpc.strip_terminator(raw[-4096:]), len(raw)))
        else:
            out.append(("line", rpc.strip_terminator(raw)))
    return out


def _seen(got):
    return [("over", bytes(x), x.tail, x.size) if isinstance(x, rpc.Oversized) else ("line", x)
            for x in got]


def test_linebuffer_drains_an_over_limit_line_and_goes_on():
    from hypothesis import example, given, settings
    from hypothesis import strategies as st

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"x")), max_size=8),
           st.integers(1, 30), st.lists(st.integers(1, 50), min_size=1, max_size=10))
    @example(lines=[b"a" * 11, b"b"], limit=10, cuts=[1])
    @example(lines=[b"a" * 10 + b"\r", b"b"], limit=10, cuts=[50])
    @example(lines=[b"a" * 10, b"b" * 11], limit=10, cuts=[5])
    @example(lines=[b"a", b"", b"b" * 9], limit=10, cuts=[50])  # whole lines read at once
    @example(lines=[b"a" * 4, b"b" * 4], limit=10, cuts=[5, 50])  # the last of them whole
    def check(lines, limit, cuts):
        data = b"".join(raw + b"\n" for raw in lines)
        buf = rpc.LineBuffer(limit)
        got, i, k = [], 0, 0
        while i < len(data):
            step = cuts[k % len(cuts)]
            got += buf.feed(data[i:i + step])
            assert buf.pending <= limit  # never more than the limit held
            i, k = i + step, k + 1
        assert buf.flush() is None
        assert _seen(got) == _expected_lines(lines, limit)
        for x in got:
            if isinstance(x, rpc.Oversized):
                assert x.limit == limit

    check()


def test_linebuffer_over_limit_tail_at_end_of_stream_and_memory_bound():
    buf = rpc.LineBuffer(1000)
    chunk = b"y" * 65536
    for _ in range(200):  # 13 MB without a newline
        assert buf.feed(chunk) == []
        assert buf.pending == 0
    tail = buf.flush()
    assert isinstance(tail, rpc.Oversized) and tail.size == 200 * 65536 and len(tail) == 65536
    assert buf.flush() is None
    assert buf.feed(b'{"ok":1}\n') == [b'{"ok":1}']


def test_linebuffer_limit_default_and_validation():
    assert rpc.LineBuffer().limit == rpc.DEFAULT_MAX_MESSAGE >= 64 * 1024 * 1024
    assert rpc.LineBuffer.unlimited().limit is None
    with pytest.raises(ValueError, match="positive number of bytes"):
        rpc.LineBuffer(0)


@pytest.mark.parametrize("text, expected", [
    ('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"x":"' + "a" * 100,
     (7, "tools/call", False)),
    ('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"' + "a" * 100,
     (rpc.MISSING, "notifications/message", False)),
    ('{"result":{"content":[{"text":"' + "a" * 100 + '"}]},"jsonrpc":"2.0","id":"r-1"}', ("r-1", None, True)),
    ('{"result":{"id":5,"x":"' + "a" * 100 + '"}}', (rpc.MISSING, None, True)),  # an inner id is not it
    ('{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"' + "a" * 100 + '"}}', (3, None, True)),
    ("not json " * 20, (rpc.MISSING, None, False)),
])
def test_peek_oversized_finds_the_id_at_either_end(text, expected):
    data = text.encode()
    [over] = rpc.LineBuffer(50).feed(data + b"\n")
    assert isinstance(over, rpc.Oversized)
    assert rpc.peek_oversized(over) == expected
