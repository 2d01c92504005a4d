"""The sans-IO HTTP/1.1 and SSE reader/writer (quantity_guard/mcp/http/wire.py)."""
from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from quantity_guard.mcp.http import wire
from quantity_guard.mcp.http.wire import END, Head, HeaderError, ProtocolError, Reader, SSEEvent, SSEReader


def feed_split(reader, data: bytes, cuts):
    """Feed ``data`` cut at the given positions; return all events."""
    out = []
    last = 0
    for c in sorted(set(c for c in cuts if 0 < c < len(data))):
        out += reader.feed(data[last:c])
        last = c
    out += reader.feed(data[last:])
    return out


def messages(events):
    """[(head, body_bytes)] from an event list."""
    out, head, body = [], None, []
    for ev in events:
        if isinstance(ev, Head):
            head, body = ev, []
        elif ev is END:
            out.append((head, b"".join(body)))
        else:
            assert isinstance(ev, bytes) and ev
            body.append(ev)
    return out


# ------------------------------------------------------------------ requests


def test_content_length_request_and_keep_alive():
    raw = (b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nMcp-Session-Id: abc\r\n\r\nhello"
           b"GET /mcp HTTP/1.1\r\nHost: x\r\n\r\n")
    r = Reader()
    (h1, b1), (h2, b2) = messages(r.feed(raw))
    assert (h1.method, h1.target, b1) == ("POST", "/mcp", b"hello")
    assert h1.headers.get("mcp-session-id") == "abc" and h1.keep_alive
    assert (h2.method, b2) == ("GET", b"")
    assert r.idle


def test_chunked_request_with_extensions_and_trailers():
    raw = (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
           b"3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nX-Trailer: t\r\n\r\n")
    [(h, body)] = messages(Reader().feed(raw))
    assert body == b"abcde"


def test_connection_close_and_http10():
    r = Reader()
    [(h, _)] = messages(r.feed(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n"))
    assert not h.keep_alive and r.closed
    with pytest.raises(ProtocolError):
        r.feed(b"GET / HTTP/1.1\r\n\r\n")
    [(h, _)] = messages(Reader().feed(b"GET / HTTP/1.0\r\n\r\n"))
    assert not h.keep_alive
    [(h, _)] = messages(Reader().feed(b"GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"))
    assert h.keep_alive


@pytest.mark.parametrize("raw, status", [
    (b"POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
    (b"POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", 400),
    (b"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
    (b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
    (b"POST / HTTP/2.0\r\n\r\n", 505),
    (b"POST /\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nX: a\r\n folded\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nX: a\x00b\r\n\r\n", 400),
    (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
    (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX", 400),
])
def test_malformed_requests_are_refused_with_a_status(raw, status):
    with pytest.raises(ProtocolError) as err:
        Reader().feed(raw)
    assert err.value.status == status


def test_limits():
    with pytest.raises(ProtocolError) as err:
        Reader(max_head=100).feed(b"GET / HTTP/1.1\r\nX: " + b"a" * 200)
    assert err.value.status == 431
    with pytest.raises(ProtocolError) as err:
        Reader(max_fields=3).feed(b"GET / HTTP/1.1\r\n" + b"X: 1\r\n" * 4 + b"\r\n")
    assert err.value.status == 431
    # A declared length over the cap is refused before any of the body is read.
    with pytest.raises(ProtocolError) as err:
        Reader(max_body=10).feed(b"POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n")
    assert err.value.status == 413
    # A chunked body is counted as it arrives.
    r = Reader(max_body=10)
    r.feed(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n")
    with pytest.raises(ProtocolError) as err:
        r.feed(b"5\r\nabcde\r\n")
    assert err.value.status == 413


def test_eof_mid_message_is_an_error():
    r = Reader()
    r.feed(b"POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc")
    with pytest.raises(ProtocolError, match="middle of a message body"):
        r.eof()
    assert Reader().eof() == []


# ------------------------------------------------------------------ responses


def test_response_until_close_and_head_and_204():
    r = Reader(response=True)
    r.expect("POST")
    events = r.feed(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>")
    assert [e for e in events if isinstance(e, bytes)] == [b"<html>"]
    assert r.eof()[-1] is END
    r = Reader(response=True)
    r.expect("HEAD")
    r.expect("POST")
    r.expect("POST")
    msgs = messages(r.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n"
                           b"HTTP/1.1 100 Continue\r\n\r\n"
                           b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"
                           b"HTTP/1.1 204 No Content\r\n\r\n"))
    assert [(h.status, b) for h, b in msgs] == [(200, b""), (100, b""), (202, b""), (204, b"")]


def test_response_status_line_must_be_http():
    with pytest.raises(ProtocolError) as err:
        Reader(response=True).feed(b"SSH-2.0-OpenSSH\r\n\r\n")
    assert err.value.status == 502


# ------------------------------------------------------------------ writers


def test_writers_round_trip():
    head = wire.request_head("POST", "/mcp?x=1", [("Host", "h"), ("Content-Length", "2")])
    [(h, body)] = messages(Reader().feed(head + b"{}"))
    assert h.headers.items() == [("Host", "h"), ("Content-Length", "2")] and body == b"{}"
    head = wire.response_head(202, [("Content-Length", "0")])
    assert head == b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"
    body = wire.chunk(b"abc") + wire.chunk(b"") + wire.LAST_CHUNK
    r = Reader(response=True)
    r.expect("POST")
    [(h, b)] = messages(r.feed(wire.response_head(200, [("Transfer-Encoding", "chunked")]) + body))
    assert b == b"abc"


@pytest.mark.parametrize("name, value", [
    ("X-Ok", "a\r\nInjected: 1"), ("X-Ok", "a\nb"), ("X-Ok", "a\rb"), ("X-Ok", "a\x00b"),
    ("Bad Name", "v"), ("Bad:Name", "v"), ("", "v"), ("X-Ok", "snow\u2603man"),
])
def test_header_injection_is_refused(name, value):
    with pytest.raises(HeaderError):
        wire.request_head("POST", "/", [(name, value)])
    with pytest.raises(HeaderError):
        wire.response_head(200, [(name, value)])


def test_request_target_and_method_are_checked():
    with pytest.raises(HeaderError):
        wire.request_head("POST", "/a b", [])
    with pytest.raises(HeaderError):
        wire.request_head("POST", "/a\r\nX: y", [])
    with pytest.raises(HeaderError):
        wire.request_head("PO ST", "/", [])


_names = st.from_regex(r"\A[A-Za-z][A-Za-z0-9-]{0,15}\Z")
_values = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF, blacklist_characters="\x7f"),
                  max_size=30).map(lambda s: s.strip(" "))


@settings(max_examples=200, deadline=None)
@given(fields=st.lists(st.tuples(_names, _values), max_size=8),
       body=st.binary(max_size=300), chunked=st.booleans(), chunk_size=st.integers(1, 50),
       cuts=st.lists(st.integers(0, 700), max_size=12), repeat=st.integers(1, 3))
@example(fields=[("A", "")], body=b"", chunked=True, chunk_size=1, cuts=[], repeat=2)
def test_any_message_survives_any_split(fields, body, chunked, chunk_size, cuts, repeat):
    fields = [(n, v) for n, v in fields if n.lower() not in ("content-length", "transfer-encoding",
                                                              "connection")]
    if chunked:
        framing = [("Transfer-Encoding", "chunked")]
        payload = b"".join(wire.chunk(body[i:i + chunk_size])
                           for i in range(0, len(body), chunk_size)) + wire.LAST_CHUNK
    else:
        framing = [("Content-Length", str(len(body)))]
        payload = body
    one = wire.request_head("POST", "/mcp", fields + framing) + payload
    got = messages(feed_split(Reader(), one * repeat, cuts))
    assert len(got) == repeat
    for head, b in got:
        assert b == body
        assert head.headers.items()[:len(fields)] == fields


# ------------------------------------------------------------------ SSE


def test_sse_standard_cases():
    r = SSEReader()
    events = r.feed(b"\xef\xbb\xbf: comment\r\nid: 1\r\ndata:\r\n\r\n"  # priming event
                    b"event: message\ndata: {\"a\":\ndata: 1}\n\n"
                    b"retry: 3000\rid: 2\rdata: x\r\r"
                    b"retry: 12a\ndata: y\nfoo: bar\nid: a\x00b\n\n"
                    b"\n\n")  # blank lines alone dispatch nothing
    assert events == [SSEEvent("", None, "1"), SSEEvent('{"a":\n1}', "message"),
                      SSEEvent("x", None, "2", 3000), SSEEvent("y")]
    assert r.last_event_id == "2"
    assert SSEReader().feed(b"id: 7\n\n") == [SSEEvent(None, None, "7")]


def test_sse_cr_split_across_reads():
    r = SSEReader()
    assert r.feed(b"data: a\r") == []
    assert r.feed(b"\n") == []
    assert r.feed(b"\r\n") == [SSEEvent("a")]


def test_sse_event_size_cap():
    r = SSEReader(max_event=100)
    with pytest.raises(ProtocolError):
        r.feed(b"data: " + b"x" * 200)
    r = SSEReader(max_event=100)
    with pytest.raises(ProtocolError):
        r.feed((b"data: " + b"x" * 40 + b"\n") * 3)


def test_sse_writer_refuses_line_breaks_in_id_and_comment():
    with pytest.raises(HeaderError):
        wire.sse_event("x", id="1\n2")
    with pytest.raises(HeaderError):
        wire.sse_event("x", event="a\rb")
    with pytest.raises(HeaderError):
        wire.sse_comment("a\nb")
    assert wire.sse_comment() == b":\n\n"


_json_line = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=60)


@settings(max_examples=200, deadline=None)
@given(events=st.lists(st.tuples(_json_line, st.none() | st.from_regex(r"\A[a-z0-9]{1,8}\Z"),
                                 st.none() | st.integers(0, 10**6)), max_size=6),
       eol=st.sampled_from([b"\n", b"\r\n", b"\r"]), cuts=st.lists(st.integers(0, 500), max_size=15),
       keepalive=st.booleans())
@example(events=[("\u2028\x85", None, None)], eol=b"\r", cuts=[7], keepalive=False)
def test_sse_round_trip_any_split_any_line_ending(events, eol, cuts, keepalive):
    stream = b""
    for data, ident, retry in events:
        stream += wire.sse_event(data, id=ident, retry=retry).replace(b"\n", eol)
        if keepalive:
            stream += wire.sse_comment().replace(b"\n", eol)
    got = feed_split(SSEReader(), stream, cuts)
    assert got == [SSEEvent(d, None, i, t) for d, i, t in events]
