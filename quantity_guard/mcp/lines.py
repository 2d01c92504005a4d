"""Lines of MCP's stdio transport: a byte stream split on ``\\n`` (a trailing ``\\r`` tolerated
and removed), however long a line is, holding at most a maximum number of bytes; a line over
it is drained and stands as an :class:`Oversized` (its first and last bytes). No I/O here.
:mod:`.jsonrpc` parses and classifies what these lines hold."""
from __future__ import annotations

from typing import Any

__all__ = ["DEFAULT_MAX_MESSAGE", "LineBuffer", "Oversized", "strip_terminator"]


def strip_terminator(line: bytes) -> bytes:
    """``line`` without its trailing ``\\n`` or ``\\r\\n`` (if any)."""
    if line.endswith(_TERMINATORS):
        if line.endswith(b"\n"):
            line = line[:-1]
        if line.endswith(b"\r"):
            line = line[:-1]
    return line


_TERMINATORS = (b"\n", b"\r")


DEFAULT_MAX_MESSAGE = 1 << 30
"""The default maximum size of one message (line) read from a peer: 1 GiB, well above the
64 MiB every MCP peer must handle. ``quantity-guard-mcp --max-message-size`` changes it."""

_HEAD = 64 * 1024   # bytes of an over-limit line kept to find its id and method
_TAIL = 4 * 1024    # and from its end (peers that write the id last)


class Oversized(bytes):
    """Stands for a line longer than the limit, in place of the line itself.

    Its bytes are the line's first 64 KiB; ``tail`` holds its last 4 KiB, ``size`` its whole
    length and ``limit`` the limit it exceeded. Nothing else of the line was kept.
    """

    size: int
    limit: int
    tail: bytes

    def __new__(cls, head: bytes, tail: bytes, size: int, limit: int) -> "Oversized":
        self = super().__new__(cls, head)
        self.tail, self.size, self.limit = tail, size, limit
        return self

    def __repr__(self) -> str:
        return f"Oversized(size={self.size}, limit={self.limit})"


class LineBuffer:
    """Splits a byte stream into lines on ``0x0A`` only, holding at most ``max_size`` bytes.

    ``feed(chunk)`` returns the complete lines the chunk finished, each without its
    terminator (a ``\\r`` before the ``\\n`` is dropped too). Nothing else is treated as a line
    break: U+2028, U+0085, form feeds and ``\\r`` inside a line stay where they are. The cost is
    linear in the bytes fed, because only new data is searched for a newline. ``flush()``
    returns the unterminated tail at end of stream.

    A line longer than ``max_size`` bytes (default: the class attribute ``max_message``, set
    from ``--max-message-size``; ``None`` for no limit) is not held: once it passes the limit
    its bytes are drained up to the next newline, and it is returned as an :class:`Oversized`
    (its first and last bytes and its size) in its place, so the stream goes on with the next
    line and memory stays bounded by the limit.
    """

    max_message: int | None = DEFAULT_MAX_MESSAGE

    __slots__ = ("_parts", "_held", "_over", "limit")

    def __init__(self, max_size: int | None = None) -> None:
        self._parts: list[bytes] = []
        self._held = 0
        # draining an over-limit line: [head, tail, size, the limit it exceeded]
        self._over: list[Any] | None = None
        self.limit: int | None = LineBuffer.max_message if max_size is None else max_size
        if self.limit is not None and self.limit <= 0:
            raise ValueError(f"the maximum message size must be a positive number of bytes, "
                             f"not {self.limit}")

    @classmethod
    def unlimited(cls) -> "LineBuffer":
        buf = cls()
        buf.limit = None
        return buf

    def feed(self, data: bytes) -> list[bytes]:
        limit = self.limit
        if not self._parts and self._over is None and data.endswith(b"\n") and \
                (limit is None or len(data) <= limit) and b"\r" not in data:
            lines = data.split(b"\n")  # whole lines, none over the limit: the usual read
            lines.pop()
            return lines
        return self._feed(data)

    def _feed(self, data: bytes) -> list[bytes]:
        lines: list[bytes] = []
        start = 0
        find = data.find
        limit = self.limit
        while True:
            i = find(b"\n", start)
            if i < 0:
                break
            piece = data[start:i]
            start = i + 1
            if self._over is not None:
                lines.append(self._drained(self._over, piece))
                continue
            if self._parts:
                if limit is not None and self._held + len(piece) > limit:
                    lines.append(self._drained(self._begin_over(limit), piece))
                    continue
                self._parts.append(piece)
                piece = b"".join(self._parts)
                self._parts = []
                self._held = 0
            elif limit is not None and len(piece) > limit:
                lines.append(Oversized(piece[:_HEAD], strip_terminator(piece[-_TAIL:]), len(piece),
                                       limit))
                continue
            if piece.endswith(b"\r"):
                piece = piece[:-1]
            lines.append(piece)
        if start < len(data):
            rest = data[start:] if start else data
            if self._over is not None:
                self._more(self._over, rest)
            else:
                self._parts.append(rest)
                self._held += len(rest)
                if limit is not None and self._held > limit:
                    self._begin_over(limit)
        return lines

    def _begin_over(self, limit: int) -> list[Any]:
        parts: list[bytes] = self._parts
        head: list[bytes] = []
        tail: list[bytes] = []
        got = 0
        for p in parts:  # the first and last bytes only: no copy of the whole held line
            if got >= _HEAD:
                break
            head.append(p[:_HEAD - got])
            got += len(head[-1])
        got = 0
        for p in reversed(parts):
            if got >= _TAIL:
                break
            tail.append(p[-(_TAIL - got):])
            got += len(tail[-1])
        over = self._over = [b"".join(head), b"".join(reversed(tail)), sum(len(p) for p in parts),
                             limit]
        self._parts = []
        self._held = 0
        return over

    def _more(self, over: list[Any], piece: bytes) -> None:
        over[2] += len(piece)
        if len(over[0]) < _HEAD:
            over[0] += piece[:_HEAD - len(over[0])]
        over[1] = piece[-_TAIL:] if len(piece) >= _TAIL else (over[1] + piece)[-_TAIL:]

    def _drained(self, over: list[Any], piece: bytes) -> Oversized:
        self._more(over, piece)
        head, tail, size, limit = over
        self._over = None
        return Oversized(head, strip_terminator(tail), size, limit)

    @property
    def pending(self) -> int:
        """Bytes held of an unfinished line."""
        return self._held

    def flush(self) -> bytes | None:
        """The unterminated final line, if any bytes are left; resets the buffer."""
        if self._over is not None:
            return self._drained(self._over, b"")
        if not self._parts:
            return None
        piece = b"".join(self._parts)
        self._parts = []
        self._held = 0
        return strip_terminator(piece)
