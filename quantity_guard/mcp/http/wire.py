"""HTTP/1.1 messages and Server-Sent Events without I/O.

:class:`Reader` turns the bytes of one connection into events: a :class:`Head` (request line or
status line plus header fields), body :class:`bytes` pieces as they arrive, and :data:`END` when
a message is complete. It reads the framings of RFC 9112 section 6: ``Content-Length``,
``Transfer-Encoding: chunked`` (trailers are read and discarded) and, for responses only, a body
that runs until the connection closes (:meth:`Reader.eof`). Several messages follow each other
on a kept-alive connection. Limits are enforced while reading, so nothing unbounded is ever
held: the size of a head (request/status line and fields), the number of fields, a chunk-size
line and the body size. A violation raises :class:`ProtocolError` carrying the status a server
should answer with (400, 413 or 431).

The writers (:func:`request_head`, :func:`response_head`, :func:`chunk`) refuse header names that
are not RFC 9110 tokens and values containing CR, LF, NUL or other control characters other than
tab (RFC 9110 section 5.5), so no value taken from a client can inject a header or split a message
(:class:`HeaderError`).

:class:`SSEReader` and :func:`sse_event` read and write the ``text/event-stream`` format as the
WHATWG HTML standard defines it (section 9.2.6, "Interpreting an event stream"): lines end in
CRLF, LF or CR (also split across reads), a leading byte order mark is skipped, ``:`` starts a
comment, ``data`` lines are joined with LF, ``id`` values containing NUL are ignored, ``retry``
takes digits only, and an event is dispatched at a blank line. Unlike a browser, the reader also
reports events whose data is empty (the priming event of MCP 2025-11-25 Streamable HTTP, which
carries only an ``id``), so that a relay can keep the event ids.
"""
from __future__ import annotations

import re
from typing import Iterable, Iterator

__all__ = ["Head", "Headers", "Reader", "ProtocolError", "HeaderError", "END", "request_head",
           "response_head", "chunk", "LAST_CHUNK", "check_header", "SSEEvent", "SSEReader",
           "sse_event", "sse_comment", "REASONS", "HOP_BY_HOP"]

REASONS = {
    200: "OK", 202: "Accepted", 204: "No Content", 400: "Bad Request", 401: "Unauthorized",
    403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 406: "Not Acceptable",
    408: "Request Timeout", 411: "Length Required", 413: "Content Too Large",
    415: "Unsupported Media Type", 421: "Misdirected Request", 429: "Too Many Requests",
    431: "Request Header Fields Too Large", 500: "Internal Server Error", 501: "Not Implemented",
    502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
    505: "HTTP Version Not Supported",
}

# RFC 9110 section 7.6.1: connection-specific fields a proxy must not forward, plus the fields
# that describe this hop's framing.
HOP_BY_HOP = frozenset({
    "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding",
    "upgrade", "proxy-authenticate", "proxy-authorization", "content-length", "host",
})


class ProtocolError(ValueError):
    """The peer sent something that is not HTTP/1.1 this reader accepts.

    ``status`` is what a server answers (400 malformed, 413 body too large, 431 head too large,
    501 unknown transfer coding, 505 wrong version).
    """

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class HeaderError(ValueError):
    """A header name or value that cannot be written safely."""


_TOKEN = re.compile(rb"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")
_TOKEN_STR = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")
_BAD_VALUE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_BAD_VALUE_B = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")
# A field section decoded as Latin-1, each line ending in LF: every line a token, a colon and
# a value of tab, visible and obs-text characters (a CR before the LF allowed) ...
_FIELDS_OK = re.compile(r"(?:[!#$%&'*+\-.^_`|~0-9A-Za-z]+:[\t\x20-\x7e\x80-\xff]*\r?\n)*")


class Headers:
    """An ordered list of ``(name, value)`` fields; names compare case-insensitively.

    Values are ``str`` (decoded as Latin-1, the only lossless reading of arbitrary octets).
    """

    __slots__ = ("_items", "_index")

    def __init__(self, items: Iterable[tuple[str, str]] = ()) -> None:
        self._items: list[tuple[str, str]] = list(items)
        self._index: dict[str, list[str]] | None = None  # values by lower-cased name, once read

    def _by_name(self) -> dict[str, list[str]]:
        index = self._index
        if index is None:
            index = {}
            for k, v in self._items:
                index.setdefault(k.lower(), []).append(v)
            self._index = index
        return index

    def _values(self, name: str) -> list[str] | tuple[()]:
        """The values of ``name`` as kept (not a copy: not to be changed)."""
        return self._by_name().get(name.lower(), ())

    def get(self, name: str, default: str | None = None) -> str | None:
        """The first value of ``name``."""
        values = self._values(name)
        return values[0] if values else default

    def get_all(self, name: str) -> list[str]:
        return list(self._values(name))

    def joined(self, name: str) -> str | None:
        """All values of ``name`` joined by ``", "`` (RFC 9110 section 5.3), or ``None``."""
        values = self._values(name)
        return ", ".join(values) if values else None

    def tokens(self, name: str) -> list[str]:
        """The comma-separated elements of every ``name`` field, lower-cased and stripped."""
        out = []
        for v in self._values(name):
            for part in v.split(","):
                part = part.strip().lower()
                if part:
                    out.append(part)
        return out

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def items(self) -> list[tuple[str, str]]:
        return list(self._items)

    def add(self, name: str, value: str) -> None:
        self._items.append((name, value))
        self._index = None

    def set(self, name: str, value: str) -> None:
        self.remove(name)
        self._items.append((name, value))

    def remove(self, name: str) -> None:
        low = name.lower()
        self._items = [(k, v) for k, v in self._items if k.lower() != low]
        self._index = None

    def __repr__(self) -> str:
        return f"Headers({self._items!r})"


class Head:
    """A request line or status line and its header fields.

    For a request ``method`` and ``target`` are set; for a response ``status`` and ``reason``.
    ``version`` is ``"HTTP/1.1"`` or ``"HTTP/1.0"``.
    """

    __slots__ = ("method", "target", "status", "reason", "version", "headers")

    def __init__(self, *, method: str | None = None, target: str | None = None,
                 status: int | None = None, reason: str = "", version: str = "HTTP/1.1",
                 headers: Headers | None = None) -> None:
        self.method = method
        self.target = target
        self.status = status
        self.reason = reason
        self.version = version
        self.headers = headers if headers is not None else Headers()

    @property
    def keep_alive(self) -> bool:
        """Whether the connection may carry another message after this one (RFC 9112 9.3)."""
        conn = self.headers.tokens("connection")
        if "close" in conn:
            return False
        if self.version == "HTTP/1.0":
            return "keep-alive" in conn
        return True

    def __repr__(self) -> str:
        if self.method is not None:
            return f"Head({self.method} {self.target} {self.version}, {len(self.headers)} fields)"
        return f"Head({self.version} {self.status} {self.reason}, {len(self.headers)} fields)"


class _End:
    __slots__ = ()

    def __repr__(self) -> str:
        return "END"


END = _End()
"""The event that ends a message (after its last body piece)."""

# Reader states
_HEAD, _LENGTH, _CHUNK_SIZE, _CHUNK_DATA, _CHUNK_CRLF, _TRAILER, _UNTIL_CLOSE, _DONE = range(8)


class Reader:
    """Reads the HTTP/1.1 messages of one connection, one direction.

    ``Reader(response=False)`` reads requests (a server's side); ``Reader(response=True)`` reads
    responses (a client's side: tell it the method of each request with :meth:`expect` so that
    the answers to ``HEAD`` are read without a body). :meth:`feed` returns the events the bytes
    completed: ``Head``, non-empty ``bytes`` body pieces, ``END``. After ``END`` the next message
    starts; bytes that follow a message on a connection that is not kept alive are an error.

    Limits: ``max_head`` bytes for the start line and fields together (431 beyond), ``max_fields``
    fields, ``max_body`` bytes of body per message (413 beyond; ``None`` for no limit).
    """

    def __init__(self, *, response: bool = False, max_head: int = 65536, max_fields: int = 256,
                 max_body: int | None = 16 << 20) -> None:
        self.response = response
        self.max_head = max_head
        self.max_fields = max_fields
        self.max_body = max_body
        self._buf = bytearray()
        self._state = _HEAD
        self._remaining = 0
        self._body_size = 0
        self._methods: list[str] = []
        self.head: Head | None = None  # the message being read
        self.closed = False  # a message said Connection: close and has ended

    def expect(self, method: str) -> None:
        """(Responses) the next unanswered request on this connection used ``method``."""
        self._methods.append(method.upper())

    @property
    def idle(self) -> bool:
        """Between messages with nothing buffered."""
        return self._state == _HEAD and not self._buf

    @property
    def in_body(self) -> bool:
        return self._state not in (_HEAD, _DONE)

    def _chunk_size(self) -> bool:
        """Read a chunk-size line; False when it has not all arrived."""
        i = self._buf.find(b"\n")
        if i < 0:
            if len(self._buf) > 4096:
                raise ProtocolError("chunk-size line too long")
            return False
        line = bytes(self._buf[:i]).rstrip(b"\r")
        del self._buf[:i + 1]
        size_text = line.split(b";", 1)[0].strip()
        if not size_text or not re.fullmatch(rb"[0-9A-Fa-f]{1,16}", size_text):
            raise ProtocolError(f"bad chunk size {line[:40]!r}")
        size = int(size_text, 16)
        if size == 0:
            self._state = _TRAILER
        else:
            self._count(size)
            self._remaining = size
            self._state = _CHUNK_DATA
        return True

    def feed(self, data: bytes) -> list:
        if data and self._state == _HEAD and not self._buf and not self.closed \
                and not self.response:
            quick = self._whole(data)
            if quick is not None:
                return quick
        if data:
            self._buf += data
        out: list = []
        while True:
            state = self._state
            if state == _HEAD:
                if not self._buf:
                    break
                if self.closed:
                    raise ProtocolError("data after the end of a message on a closing connection")
                if not self._read_head(out):
                    break
            elif state == _LENGTH:
                if not self._buf:
                    break
                take = min(self._remaining, len(self._buf))
                out.append(bytes(self._buf[:take]))
                del self._buf[:take]
                self._remaining -= take
                if self._remaining == 0:
                    self._finish(out)
            elif state == _CHUNK_SIZE:
                if not self._chunk_size():
                    break
            elif state == _CHUNK_DATA:
                if not self._buf:
                    break
                take = min(self._remaining, len(self._buf))
                out.append(bytes(self._buf[:take]))
                del self._buf[:take]
                self._remaining -= take
                if self._remaining == 0:
                    self._state = _CHUNK_CRLF
            elif state == _CHUNK_CRLF:
                if len(self._buf) < 1:
                    break
                if self._buf[:2] == b"\r\n":
                    del self._buf[:2]
                elif self._buf[:1] == b"\n":
                    del self._buf[:1]
                elif self._buf[:1] == b"\r" and len(self._buf) == 1:
                    break
                else:
                    raise ProtocolError("chunk data not followed by CRLF")
                self._state = _CHUNK_SIZE
            elif state == _TRAILER:
                i = self._buf.find(b"\n")
                if i < 0:
                    if len(self._buf) > self.max_head:
                        raise ProtocolError("trailer section too large", 431)
                    break
                line = bytes(self._buf[:i]).rstrip(b"\r")
                del self._buf[:i + 1]
                if not line:
                    self._finish(out)
            elif state == _UNTIL_CLOSE:
                if not self._buf:
                    break
                data_ = bytes(self._buf)
                self._buf.clear()
                self._count(len(data_))
                out.append(data_)
            else:  # _DONE
                break
        return out

    def eof(self) -> list:
        """The connection closed. Ends a body read until close; raises :class:`ProtocolError`
        if a message was cut short."""
        if self._state == _UNTIL_CLOSE:
            out: list = []
            if self._buf:
                out.append(bytes(self._buf))
                self._buf.clear()
            self._finish(out)
            self.closed = True
            return out
        if self._state == _HEAD and not self._buf:
            self.closed = True
            return []
        what = "a message head" if self._state == _HEAD else "a message body"
        raise ProtocolError(f"the connection closed in the middle of {what}")

    # -------------------------------------------------------------------------------------

    def _count(self, n: int) -> None:
        self._body_size += n
        if self.max_body is not None and self._body_size > self.max_body:
            raise ProtocolError(f"body larger than {self.max_body} bytes", 413)

    def _finish(self, out: list) -> None:
        out.append(END)
        head = self.head
        self._state = _HEAD
        if head is not None and not head.keep_alive:
            self.closed = True

    def _read_head(self, out: list) -> bool:
        buf = self._buf
        # Tolerate empty lines before a request line (RFC 9112 section 2.2).
        while buf[:2] == b"\r\n" or buf[:1] == b"\n":
            del buf[:2 if buf[:1] == b"\r" else 1]
        if not buf:
            return False
        end = buf.find(b"\r\n\r\n")
        sep = 4
        alt = buf.find(b"\n\n")
        if alt >= 0 and (end < 0 or alt < end):
            end, sep = alt, 2
        if end < 0:
            if len(buf) > self.max_head:
                raise ProtocolError(f"message head larger than {self.max_head} bytes", 431)
            return False
        if end > self.max_head:
            raise ProtocolError(f"message head larger than {self.max_head} bytes", 431)
        raw = bytes(buf[:end])
        del buf[:end + sep]
        self._head(raw, out)
        return True

    def _whole(self, data: bytes) -> list | None:
        """:meth:`feed` for a request whose head (ending in CRLF CRLF) starts ``data``, read
        without buffering it; the events, or None for the general way."""
        if data[0] in (10, 13):  # empty lines first
            return None
        end = data.find(b"\r\n\r\n")
        if end < 0 or end > self.max_head or data.find(b"\n\n", 0, end) >= 0:
            return None
        out: list = []
        self._head(data[:end], out)
        rest = data[end + 4:]
        if self._state == _LENGTH and len(rest) == self._remaining:  # exactly its body
            out.append(rest)
            self._remaining = 0
            self._finish(out)
            return out
        if rest:
            self._buf += rest
            out += self.feed(b"")
        return out

    def _head(self, raw: bytes, out: list) -> None:
        """Read a message head (without its blank line): its event, then its framing's."""
        line_end = raw.find(b"\n")
        first = raw if line_end < 0 else raw[:line_end]
        head = self._start_line(first[:-1] if first.endswith(b"\r") else first)
        if raw.count(b"\n") > self.max_fields:
            raise ProtocolError(f"more than {self.max_fields} header fields", 431)
        headers = Headers()
        if line_end >= 0:
            # one pass over the whole field section when it is well-formed; else line by
            # line, to say what is wrong
            fields = raw[line_end + 1:].decode("latin-1")
            if _FIELDS_OK.fullmatch(fields + "\n"):
                items = headers._items
                for line in fields.split("\n"):
                    name, _, value = line.partition(":")
                    items.append((name, value.strip(" \t\r")))  # (a CR only ends a line)
            else:
                headers = Headers(self._fields(raw[line_end + 1:]))
        head.headers = headers
        self.head = head
        self._body_size = 0
        out.append(head)
        self._framing(head, out)

    @staticmethod
    def _fields(raw: bytes) -> list[tuple[str, str]]:
        """The fields of a head's field section, line by line; raises :class:`ProtocolError`
        naming the first malformed one."""
        items = []
        for ln in raw.split(b"\n"):
            if ln.endswith(b"\r"):
                ln = ln[:-1]
            if ln[:1] in (b" ", b"\t"):
                raise ProtocolError("obsolete line folding in a header field")
            name, colon, value = ln.partition(b":")
            if not colon or not _TOKEN.match(name):
                raise ProtocolError(f"malformed header field {ln[:60]!r}")
            value = value.strip(b" \t")
            if _BAD_VALUE_B.search(value):
                raise ProtocolError(f"control character in header field {name.decode()!r}")
            items.append((name.decode("ascii"), value.decode("latin-1")))
        return items

    def _start_line(self, line: bytes) -> Head:
        try:
            text = line.decode("ascii")
        except UnicodeDecodeError:
            raise ProtocolError("non-ASCII start line") from None
        if self.response:
            parts = text.split(" ", 2)
            if len(parts) < 2 or not re.fullmatch(r"HTTP/1\.[01]", parts[0]) \
                    or not re.fullmatch(r"[1-5][0-9][0-9]", parts[1]):
                raise ProtocolError(f"not an HTTP/1.x status line: {text[:80]!r}", 502)
            return Head(status=int(parts[1]), reason=parts[2] if len(parts) > 2 else "",
                        version=parts[0])
        parts = text.split(" ")
        if len(parts) != 3 or not _TOKEN_STR.match(parts[0]) or not parts[1]:
            raise ProtocolError(f"malformed request line {text[:80]!r}")
        if parts[2] not in ("HTTP/1.1", "HTTP/1.0"):
            raise ProtocolError(f"unsupported HTTP version {parts[2][:20]!r}", 505)
        return Head(method=parts[0], target=parts[1], version=parts[2])

    def _framing(self, head: Head, out: list) -> None:
        """Decide how the body is delimited (RFC 9112 section 6.3)."""
        h = head.headers
        if self.response:
            method = self._methods.pop(0) if self._methods else "GET"
            status = head.status or 0
            if 100 <= status < 200:
                # An interim response: the final one follows for the same request.
                self._methods.insert(0, method)
                out.append(END)
                self._state = _HEAD
                return
            if method == "HEAD" or status in (204, 304):
                self._finish(out)
                return
        te = h.tokens("transfer-encoding")
        lengths = h._values("content-length")
        if te:
            if te[-1] != "chunked":
                if self.response:
                    self._state = _UNTIL_CLOSE
                    return
                raise ProtocolError(f"unsupported transfer coding {te[-1]!r}", 501)
            if len(te) > 1:
                raise ProtocolError(f"unsupported transfer coding {te[0]!r}", 501)
            if lengths:
                # RFC 9112 6.1: both present is a smuggling attempt; refuse.
                raise ProtocolError("both Transfer-Encoding and Content-Length")
            self._state = _CHUNK_SIZE
            return
        if lengths:
            values = {v.strip() for v in ",".join(lengths).split(",")} \
                if len(lengths) != 1 or "," in lengths[0] else {lengths[0].strip()}
            if len(values) != 1:
                raise ProtocolError("conflicting Content-Length values")
            value = values.pop()
            if not value.isdigit() or len(value) > 18:
                raise ProtocolError(f"bad Content-Length {value[:20]!r}")
            n = int(value)
            self._count(n)
            if n == 0:
                self._finish(out)
            else:
                self._remaining = n
                self._state = _LENGTH
            return
        if self.response:
            self._state = _UNTIL_CLOSE
        else:
            self._finish(out)  # a request without framing has no body


# ------------------------------------------------------------------------------------------
# Writing


def check_header(name: str, value: str) -> None:
    """Raise :class:`HeaderError` unless ``name: value`` can be written as one field line."""
    if not isinstance(name, str) or not _TOKEN_STR.match(name):
        raise HeaderError(f"invalid header name {name!r}")
    if not isinstance(value, str):
        raise HeaderError(f"header {name} value must be a string, not {type(value).__name__}")
    if _BAD_VALUE.search(value):
        raise HeaderError(f"header {name} value contains a control character (CR, LF or NUL "
                          "would split or inject header fields); send a value without them")
    try:
        value.encode("latin-1")
    except UnicodeEncodeError:
        raise HeaderError(f"header {name} value is not Latin-1; encode it first") from None


def _fields(headers: Iterable[tuple[str, str]]) -> bytes:
    parts = []
    for name, value in headers:
        check_header(name, value)
        parts.append(f"{name}: {value.strip(' ')}\r\n")
    return "".join(parts).encode("latin-1")


def request_head(method: str, target: str, headers: Iterable[tuple[str, str]]) -> bytes:
    """``METHOD target HTTP/1.1`` and the fields, ending in the blank line."""
    if not _TOKEN_STR.match(method):
        raise HeaderError(f"invalid method {method!r}")
    if not target or any(c in target for c in " \r\n\t\x00") or not target.isascii():
        raise HeaderError(f"invalid request target {target!r}")
    return f"{method} {target} HTTP/1.1\r\n".encode("ascii") + _fields(headers) + b"\r\n"


def response_head(status: int, headers: Iterable[tuple[str, str]], reason: str | None = None) -> bytes:
    """``HTTP/1.1 status reason`` and the fields, ending in the blank line."""
    if not 100 <= int(status) <= 599:
        raise HeaderError(f"invalid status {status!r}")
    reason = REASONS.get(status, "") if reason is None else reason
    if _BAD_VALUE.search(reason):
        raise HeaderError("control character in the reason phrase")
    return f"HTTP/1.1 {status} {reason}\r\n".encode("latin-1") + _fields(headers) + b"\r\n"


def chunk(data: bytes) -> bytes:
    """One chunk of a chunked body (empty data gives nothing: the last chunk is separate)."""
    if not data:
        return b""
    return b"%x\r\n%s\r\n" % (len(data), data)


LAST_CHUNK = b"0\r\n\r\n"


# ------------------------------------------------------------------------------------------
# Server-Sent Events


class SSEEvent:
    """One dispatched event. ``data`` is the joined data lines (``None`` when the event had no
    data field at all), ``id`` the event's own id field if it had one, ``retry`` milliseconds."""

    __slots__ = ("data", "event", "id", "retry")

    def __init__(self, data: str | None = None, event: str | None = None, id: str | None = None,
                 retry: int | None = None) -> None:
        self.data = data
        self.event = event
        self.id = id
        self.retry = retry

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, SSEEvent) and self.data == other.data and self.event == other.event
                and self.id == other.id and self.retry == other.retry)

    def __repr__(self) -> str:
        return f"SSEEvent(data={self.data!r}, event={self.event!r}, id={self.id!r}, retry={self.retry!r})"


class SSEReader:
    """Reads a ``text/event-stream`` body fed in arbitrary pieces (UTF-8, decoded per line).

    ``feed(bytes)`` returns the completed events. ``last_event_id`` follows the standard (it
    persists across events). An event bigger than ``max_event`` bytes raises
    :class:`ProtocolError`. Invalid UTF-8 is replaced, as the standard requires.
    """

    def __init__(self, max_event: int = 64 << 20) -> None:
        self.max_event = max_event
        self._buf = bytearray()
        self._cr_pending = False  # the last piece ended in CR: a following LF belongs to it
        self._first = True
        self._data: list[str] = []
        self._has_data = False
        self._event: str | None = None
        self._id: str | None = None
        self._retry: int | None = None
        self._size = 0
        self._touched = False
        self.last_event_id = ""

    def feed(self, data: bytes) -> list[SSEEvent]:
        out: list[SSEEvent] = []
        if not data:
            return out
        if self._cr_pending:
            self._cr_pending = False
            if data[:1] == b"\n":
                data = data[1:]
        self._buf += data
        buf = self._buf
        if self._first:
            if len(buf) < 3 and b"\xef\xbb\xbf".startswith(bytes(buf)):
                return out
            if buf[:3] == b"\xef\xbb\xbf":
                del buf[:3]
            self._first = False
        start = 0
        n = len(buf)
        while start < n:
            i_lf = buf.find(b"\n", start)
            i_cr = buf.find(b"\r", start, i_lf if i_lf >= 0 else n)
            if i_cr >= 0:
                end = i_cr
                if i_cr + 1 < n:
                    nxt = i_cr + 2 if buf[i_cr + 1] == 0x0A else i_cr + 1
                else:
                    nxt = n
                    self._cr_pending = True
            elif i_lf >= 0:
                end, nxt = i_lf, i_lf + 1
            else:
                break
            self._line(bytes(buf[start:end]), out)
            start = nxt
        del buf[:start]
        if len(buf) + self._size > self.max_event:
            raise ProtocolError(f"an SSE event larger than {self.max_event} bytes", 502)
        return out

    def _line(self, raw: bytes, out: list[SSEEvent]) -> None:
        if not raw:
            self._dispatch(out)
            return
        self._size += len(raw)
        if self._size > self.max_event:
            raise ProtocolError(f"an SSE event larger than {self.max_event} bytes", 502)
        line = raw.decode("utf-8", "replace")
        if line[0] == ":":
            return
        name, colon, value = line.partition(":")
        if colon and value[:1] == " ":
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._has_data = True
            self._touched = True
        elif name == "event":
            self._event = value
            self._touched = True
        elif name == "id":
            if "\x00" not in value:
                self._id = value
                self.last_event_id = value
                self._touched = True
        elif name == "retry":
            if value.isdigit() and value.isascii():
                self._retry = int(value)
                self._touched = True
        # other field names are ignored

    def _dispatch(self, out: list[SSEEvent]) -> None:
        if self._touched:
            out.append(SSEEvent("\n".join(self._data) if self._has_data else None,
                                self._event, self._id, self._retry))
        self._data = []
        self._has_data = False
        self._event = None
        self._id = None
        self._retry = None
        self._size = 0
        self._touched = False


def sse_event(data: str | bytes | None = None, *, event: str | None = None, id: str | None = None,
              retry: int | None = None) -> bytes:
    """One event in wire form, ending in the blank line.

    ``data`` containing line breaks (LF, CR, CRLF) becomes several ``data`` lines, which a reader
    joins back with LF; a JSON-RPC message never contains raw line breaks, so its bytes come
    through unchanged. ``event`` and ``id`` must not contain line breaks (``id`` no NUL either).
    """
    parts: list[bytes] = []
    for what, value in (("event", event), ("id", id)):
        if value is not None:
            if any(c in value for c in "\r\n") or (what == "id" and "\x00" in value):
                raise HeaderError(f"an SSE {what} must not contain a line break")
            parts.append(f"{what}: {value}\n".encode("utf-8"))
    if retry is not None:
        parts.append(b"retry: %d\n" % int(retry))
    if data is not None:
        raw = data.encode("utf-8") if isinstance(data, str) else data
        if b"\r" in raw or b"\n" in raw:
            for piece in raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n"):
                parts.append(b"data: " + piece + b"\n")
        else:
            parts.append(b"data: " + raw + b"\n")
    if not parts:
        parts.append(b"data: \n")
    parts.append(b"\n")
    return b"".join(parts)


def sse_comment(text: str = "") -> bytes:
    """A comment line (a keep-alive), ignored by readers."""
    if any(c in text for c in "\r\n"):
        raise HeaderError("an SSE comment must not contain a line break")
    return b":" + text.encode("utf-8") + b"\n\n"
