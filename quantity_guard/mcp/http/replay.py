"""Where a listener's messages go, and what it keeps of them for a resumption.

A :class:`Stream` is one open HTTP response: a JSON answer, or an event stream (SSE). A 2025
session numbers its event streams and keeps their events (:class:`ReplayLog`, within the
bounds below) so that a ``GET`` with ``Last-Event-ID`` can replay what followed; the oldest go
first. :func:`hold` keeps a stream open with keep-alive comments until its answer is sent.
"""
from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from typing import Any, Protocol

from .wire import LAST_CHUNK, chunk, response_head, sse_comment, sse_event

__all__ = ["Stream", "ReplayLog", "Done", "Writer", "hold", "holding", "ticker", "REPLAY_EVENTS", "REPLAY_STREAMS",
           "REPLAY_BYTES"]

REPLAY_EVENTS = 256  # events kept per stream for Last-Event-ID replay
REPLAY_STREAMS = 32  # streams whose events are kept, per session
REPLAY_BYTES = 4 << 20  # bytes of kept events, per session
_LARGE = 1 << 20  # a message this long is written in pieces, its bytes not copied



class Writer(Protocol):
    """Where a request's handlers write its response and read what follows it: the client's
    connection (``connection.Writer``)."""

    def write(self, data: bytes | bytearray | memoryview) -> None: ...

    async def drain(self) -> None: ...

    def is_closing(self) -> bool: ...

    def close(self) -> None: ...

    def write_eof(self) -> None: ...

    def get_extra_info(self, name: str, default: Any = None) -> Any: ...

    async def read(self, n: int) -> bytes: ...

    def finished(self, head: Any, keep: bool) -> None: ...


class Done:
    """Whether a stream's request is done (answered, refused, or its session ended): the part of
    ``asyncio.Event`` a stream uses (``set``, ``is_set``, ``wait``), plus ``then``, a function
    called once, in the turn that sets it (so an answer can be written without waking a task)."""

    __slots__ = ("_set", "_waiters", "then")

    def __init__(self) -> None:
        self._set = False
        self._waiters: list[asyncio.Future] | None = None
        self.then: Any = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        if self._set:
            return
        self._set = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(True)
        then, self.then = self.then, None
        if then is not None:
            then()

    async def wait(self) -> bool:
        if self._set:
            return True
        waiter = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            if self._waiters is not None and waiter in self._waiters:
                self._waiters.remove(waiter)
        return True


class Stream:
    """Where one POST's (or the GET stream's) messages go: an open HTTP response."""

    __slots__ = ("answered", "auth", "closed", "done", "finished", "head_extra",
                 "head_extra_upstream", "json_answer", "key", "log", "number", "prefix",
                 "prime", "prime_timer", "replay", "seq", "sse", "started", "token", "writer")

    def __init__(self, writer: Writer, sse: bool, key: tuple | None = None) -> None:
        self.writer = writer
        self.sse = sse
        self.key = key  # the request id this stream answers (None for the GET stream)
        self.done = Done()
        self.closed = False
        self.json_answer: bytes | None = None
        self.started = False
        self.head_extra: list[tuple[str, str]] = []
        self.head_extra_upstream: list[tuple[str, str]] = []
        self.auth: tuple[int, Any, bytes] | None = None
        self.finished = False  # the last chunk was written
        self.token: tuple | None = None  # the request's progress token
        # Event ids (2025 sessions): None, or this stream's number within its session.
        self.number: int | None = None
        self.log: ReplayLog | None = None  # where its events are kept
        self.seq = 0  # the last event number sent on this stream
        self.prime = False  # the head still owes a priming event
        self.prefix = b""  # the priming event, written with the next message
        self.prime_timer: asyncio.TimerHandle | None = None
        self.replay: deque[tuple[int, bytes]] = deque()  # (event number, event bytes)
        self.answered = False  # the answer to the stream's request was sent (or kept)

    def pending(self) -> bool:
        """The client went away before the answer but can resume this stream (it has an id)."""
        return (self.closed and self.key is not None and self.number is not None and self.seq > 0
                and not self.answered)

    def accepts(self) -> bool:
        return not self.closed or self.pending()

    def _next_id(self) -> str:
        self.seq += 1
        return f"{self.number}-{self.seq}"

    def send(self, data: bytes, answers: tuple | None = None) -> bool:
        """Write one message (bytes, a trailing newline ignored). False if the client has gone
        (the event is still kept for a resumption when the stream has ids). A JSON (not SSE)
        response keeps only the answer to its request. The answer to the stream's own request
        also ends the stream, in the same write (one send for a quick call)."""
        if len(data) >= _LARGE and self.sse:
            end = len(data) - 1 if data.endswith(b"\n") else len(data)
            if data.find(b"\n", 0, end) < 0 and data.find(b"\r", 0, end) < 0:
                return self._send_large(data, end, answers)
        if data.endswith(b"\n"):
            data = data[:-1]
        if not self.sse:
            if self.closed:
                return False
            if answers is not None and answers == self.key:
                self.json_answer = data
            return True
        is_answer = answers is not None and answers == self.key
        opening = self._opening()
        if opening is None:
            return False
        head, prefix = opening
        if self.number is not None:
            ev = sse_event(data, id=self._next_id())
            assert self.log is not None
            self.log.keep(self, self.seq, ev)
        else:
            ev = sse_event(data)
        if is_answer:
            self.answered = True
        if self.closed:
            return False
        try:
            out = head + chunk(prefix + ev)
            if is_answer:
                out += LAST_CHUNK
                self.finished = True
            self.writer.write(out)
        except (ConnectionError, RuntimeError, OSError):
            self.closed = True
            return False
        return not self.writer.is_closing()

    def _send_large(self, data: bytes, end: int, answers: tuple | None) -> bool:
        """:meth:`send` for a message of ``_LARGE`` bytes or more with no line break before
        ``end``: written in three pieces, its own bytes not copied. An event
        larger than the session's replay budget is not kept: a resumption from before it gets
        ``404`` (see ReplayLog.keep)."""
        body = memoryview(data)[:end]
        is_answer = answers is not None and answers == self.key
        opening = self._opening()
        if opening is None:
            return False
        head, prefix = opening
        if self.number is not None:
            field = b"id: %s\ndata: " % self._next_id().encode()
            assert self.log is not None
            if len(body) + len(field) + 2 <= REPLAY_BYTES:
                self.log.keep(self, self.seq, field + body + b"\n\n")
            else:
                self.log.forgo(self)
        else:
            field = b"data: "
        if is_answer:
            self.answered = True
        if self.closed:
            return False
        size = len(prefix) + len(field) + len(body) + 2
        try:
            self.writer.write(head + b"%x\r\n" % size + prefix + field)
            self.writer.write(body)
            self.writer.write(b"\n\n\r\n" + (LAST_CHUNK if is_answer else b""))
            if is_answer:
                self.finished = True
        except (ConnectionError, RuntimeError, OSError):
            self.closed = True
            return False
        return not self.writer.is_closing()

    def _opening(self) -> tuple[bytes, bytes] | None:
        """What goes before the next event: the response head (unless written) and the
        resumption prefix; None when the client has gone and no resumption waits for it."""
        if self.number is None:
            return None if self.closed else (self.head(), b"")
        if self.closed and not self.pending():
            return None
        head = b"" if self.closed else self.head()  # first: it may set the prefix (prime)
        prefix, self.prefix = self.prefix, b""
        return head, prefix

    def head(self) -> bytes:
        if self.started:
            return b""
        self.started = True
        head = response_head(200, [
            ("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache, no-store"),
            ("X-Accel-Buffering", "no"), ("Transfer-Encoding", "chunked"), *self.head_extra])
        if self.prime:
            # 2025-11-25 "Sending Messages to the Server": an event with an id and empty data
            # first, so the client can resume even before the first message (in the same chunk
            # as the first message when there is one).
            self.prime = False
            self.prefix = sse_event(b"", id=self._next_id())
        return head

    def start_if_idle(self) -> None:
        if not self.started and not self.closed:
            try:
                self.start()
            except (ConnectionError, RuntimeError, OSError):
                self.closed = True

    def attach(self, writer: Writer) -> None:
        """Continue this stream on a new response (a GET with Last-Event-ID)."""
        self.writer = writer
        self.closed = False
        self.started = False
        self.prime = False
        self.finished = False
        old, self.done = self.done, Done()
        old.set()  # releases the holder of the previous response

    def start(self) -> None:
        head = self.head()
        if self.prefix:
            head += chunk(self.prefix)
            self.prefix = b""
        if head:
            self.writer.write(head)

    def keepalive(self) -> None:
        if self.sse and not self.closed:
            try:
                self.start()
                self.writer.write(chunk(sse_comment()))
            except (ConnectionError, RuntimeError, OSError):
                self.closed = True


class ReplayLog:
    """A 2025 session's event streams by number, and the events kept for replay, in order."""

    def __init__(self) -> None:
        self.streams = 0
        self.replays: OrderedDict[int, Stream] = OrderedDict()
        self.replay_bytes = 0
        self.replay_order: deque[tuple[Stream, int]] = deque()

    def number(self, stream: Stream, prime: bool) -> None:
        """Give an SSE stream its number, so its events carry ids (and, with ``prime``, a
        priming event first)."""
        self.streams += 1
        stream.number = self.streams
        stream.log = self
        stream.prime = prime
        self.replays[stream.number] = stream
        while len(self.replays) > REPLAY_STREAMS:
            _, old = self.replays.popitem(last=False)
            self.replay_bytes -= sum(len(ev) for _, ev in old.replay)
            old.replay.clear()

    def find(self, last: str) -> tuple[Stream, int] | None:
        """The stream of the event ``last`` (``NUMBER-SEQ``) and that event's number, when the
        events after it are all still kept."""
        number, _, seq_text = last.partition("-")
        stream = self.replays.get(int(number)) if number.isdigit() and seq_text.isdigit() else None
        if stream is None:
            return None
        seq = int(seq_text)
        first = stream.replay[0][0] if stream.replay else stream.seq + 1
        return (stream, seq) if first - 1 <= seq <= stream.seq else None

    def forgo(self, stream: Stream) -> None:
        """An event too large to keep was sent on ``stream``: what it kept before goes too, so
        that a resumption from before that event gets ``404`` rather than a replay with a gap."""
        self.replay_bytes -= sum(len(ev) for _, ev in stream.replay)
        stream.replay.clear()

    def keep(self, stream: Stream, seq: int, ev: bytes) -> None:
        """Keep one sent event for replay, within the bounds (oldest dropped first)."""
        if stream.number is not None and stream.number in self.replays:
            self.replays.move_to_end(stream.number)
        stream.replay.append((seq, ev))
        self.replay_bytes += len(ev)
        self.replay_order.append((stream, seq))
        if len(stream.replay) > REPLAY_EVENTS:
            self.replay_bytes -= len(stream.replay.popleft()[1])
        order = self.replay_order
        while order and (self.replay_bytes > REPLAY_BYTES or len(order) > REPLAY_STREAMS * REPLAY_EVENTS):
            st, s = order.popleft()
            if st.replay and st.replay[0][0] == s:
                self.replay_bytes -= len(st.replay.popleft()[1])

    # ------------------------------------------------------------ upstream


def ticker(stream: Stream, every: float) -> Any:
    """A keep-alive comment every ``every`` seconds on ``stream`` until cancelled (the first
    one writes the response head): returns the timer's handle, whose ``cancel()`` stops it."""
    loop = asyncio.get_running_loop()
    handle = _Handle()

    def tick() -> None:
        if stream.done.is_set() or stream.closed or stream.finished:
            return
        stream.keepalive()
        handle.timer = loop.call_later(every, tick)

    handle.timer = loop.call_later(every, tick)
    return handle


class _Handle:
    timer: asyncio.TimerHandle

    def cancel(self) -> None:
        self.timer.cancel()


def holding(stream: Stream, every: float) -> Any:
    """A keep-alive comment every ``every`` seconds on ``stream`` until it is done or closed;
    a client found gone closes the stream and sets it done. Returns the timer's handle, whose
    ``cancel()`` stops it."""
    loop = asyncio.get_running_loop()
    handle = _Handle()

    def tick() -> None:
        if stream.done.is_set() or stream.closed:
            return
        stream.keepalive()
        if stream.writer.is_closing():
            stream.closed = True
            stream.done.set()
            return
        handle.timer = loop.call_later(every, tick)

    handle.timer = loop.call_later(every, tick)
    return handle


async def hold(stream: Stream, ended: bool, every: float) -> None:
    """Keep a stream open until it is done (unless its session has ``ended``), with a
    keep-alive comment every ``every`` seconds (a timer, so a quick answer costs no extra
    task)."""
    handle = holding(stream, every)
    try:
        if not ended:
            await stream.done.wait()
    finally:
        handle.cancel()
