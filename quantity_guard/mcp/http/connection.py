"""One client connection of the listener, read on the event loop's callbacks.

:class:`ClientConnection` is the ``asyncio.Protocol`` of a connection: the bytes that arrive go
straight to the HTTP parser (:class:`wire.Reader`) in the turn that reads them, and a complete
request goes to the listener: answered at once when it can be (:meth:`Listener.serve_now`: a
POST to a session held here, its answer written in the turn the upstream's line arrives), else
by a task running :meth:`Listener.request`. While a request is answered, what the client sends
next is held (at most ``_HELD`` bytes before reading pauses) and read once the answer is out;
while the client does not read what is written (the transport's buffer above its high-water
mark), no further request is read either. The connection is also the reader and writer the
request handlers use: ``write``, ``drain``, ``is_closing``, ``close``, ``write_eof``,
``get_extra_info`` and ``read(n)`` (what the client sent while a request was under way; ``b""``
once it has closed).

Timeouts: one timer a connection, re-armed only when it fires: a connection idle for
``idle_timeout`` seconds between requests is closed; a request not complete ``read_timeout``
seconds after its first byte gets ``408`` and the connection is closed.
"""
from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from .admission import error_body
from .routing import PENDING, Connection, reply
from .wire import END, Head, ProtocolError, Reader

__all__ = ["ClientConnection"]

_HELD = 1 << 17  # bytes held while a request is answered before reading pauses

class ClientConnection(asyncio.Protocol):
    """One client connection (see the module docstring)."""

    def __init__(self, listener: Any) -> None:
        self.listener = listener
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        self.parser = Reader(max_body=listener.max_body)
        self.conn = Connection()
        self.peer = "?"
        self.entered = False  # counted by the admission (not refused at the door)
        self.head: Head | None = None  # the request being read ...
        self.body: list[bytes] = []  # ... and its body's pieces
        self.events: list = []  # parsed events not handled yet (a request was under way)
        self.busy = False  # a request is being answered
        self.held = bytearray()  # bytes that came while it was
        self.eof = False  # the client will send nothing more
        self.lost = False  # the connection has gone
        self.ending = False  # it is being closed by this side
        self.write_paused = False
        self.read_paused = False
        self.reader: asyncio.Future | None = None  # a read(n) waiting for bytes
        self.drainer: asyncio.Future | None = None  # a drain() waiting for the buffer to empty
        self.started: float | None = None  # when the request being read began to arrive
        self.idle_since = self.loop.time()
        self.timer: asyncio.TimerHandle | None = None

    # ------------------------------------------------------------ asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        L = self.listener
        peername = transport.get_extra_info("peername")
        self.peer = str(peername[0]) if isinstance(peername, tuple) and peername else "?"
        which = L.admission.connection_refusal(self.peer)
        if which is not None:
            self.ending = True
            reply(transport, 503, error_body(f"Service Unavailable: {which}; try again later"),
                  [("Retry-After", "1")], close=True)
            try:
                # half-close, and close a moment later: closing with the client's request
                # unread would reset the connection before the client read the 503
                transport.write_eof()
                self.loop.call_later(1.0, transport.close)
            except (OSError, RuntimeError):
                transport.close()
            return
        L.admission.enter(self.peer)
        self.entered = True
        L.connections.add(self)
        self._arm(self.idle_since + L.idle_timeout)

    def data_received(self, data: bytes) -> None:
        if self.ending:
            return
        if self.busy or self.write_paused:
            self.held += data
            reader = self.reader
            if reader is not None and not reader.done():
                reader.set_result(None)
            if len(self.held) > _HELD and not self.read_paused:
                self.read_paused = True
                self.transport.pause_reading()  # type: ignore[union-attr]
            return
        self._feed(data)

    def eof_received(self) -> bool:
        self.eof = True
        reader = self.reader
        if reader is not None and not reader.done():
            reader.set_result(None)
        if not (self.busy or self.write_paused or self.ending or self.held or self.events):
            self._end()  # (else once what was sent before is answered: see _next)
        return True  # half-closed: an answer under way is still written

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = self.eof = True
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        reader, drainer = self.reader, self.drainer
        if reader is not None and not reader.done():
            reader.set_result(None)
        if drainer is not None and not drainer.done():
            drainer.set_exception(ConnectionResetError("Connection lost"))
        if not self.busy:
            self._end()

    def pause_writing(self) -> None:
        self.write_paused = True

    def resume_writing(self) -> None:
        self.write_paused = False
        drainer = self.drainer
        if drainer is not None and not drainer.done():
            drainer.set_result(None)
        if not self.busy and not self.ending:
            self.idle_since = self.loop.time()
            if self.timer is None:
                self._arm(self.idle_since + self.listener.idle_timeout)
            self.loop.call_soon(self._next)

    # ------------------------------------------------------------ the writer and reader

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.transport.write(data)  # type: ignore[union-attr]

    def write_eof(self) -> None:
        self.transport.write_eof()  # type: ignore[union-attr]

    def is_closing(self) -> bool:
        return self.lost or self.transport is None or self.transport.is_closing()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.transport.get_extra_info(name, default) if self.transport else default

    async def drain(self) -> None:
        if self.lost:
            raise ConnectionResetError("Connection lost")
        if not self.write_paused:
            return
        waiter = self.drainer = self.loop.create_future()
        try:
            await waiter
        finally:
            self.drainer = None

    async def read(self, n: int) -> bytes:
        """Up to ``n`` bytes the client sent while a request was answered; ``b""`` once it
        sends no more."""
        while not self.held and not self.eof:
            waiter = self.reader = self.loop.create_future()
            try:
                await waiter
            finally:
                self.reader = None
        data = bytes(self.held[:n])
        del self.held[:n]
        self._unpause()
        return data

    # ------------------------------------------------------------ requests

    def _feed(self, data: bytes) -> None:
        try:
            events = self.parser.feed(data)
        except ProtocolError as exc:
            self._refuse(exc.status, error_body(str(exc)))
            return
        if self.events:
            self.events.extend(events)
            events, self.events = self.events, []
        self._handle(events)

    def _handle(self, events: list) -> None:
        """Handle parsed events until they run out or a request is under way."""
        L = self.listener
        for i, ev in enumerate(events):
            if ev.__class__ is Head:
                self.head, self.body = ev, []
                if self.started is None:
                    self.started = self.loop.time()
                if ev.method == "POST" or (ev.method or "").upper() == "POST":
                    early = L.admission.early(ev)
                    if early is not None:  # refused before its body is read
                        self._refuse(early[0], early[1], early[2])
                        return
            elif ev is END:
                head, body = self.head, self.body
                assert head is not None
                self.head, self.body, self.started = None, [], None
                rest = events[i + 1:]
                self.busy = True
                whole = b"".join(body) if len(body) != 1 else body[0]
                try:
                    result = L.serve_now(head, whole, self)
                except Exception as exc:  # a fault of the proxy's: this connection ends
                    self._failed(exc)
                    self.busy = False
                    self._end()
                    return
                if result is PENDING:
                    self.events = rest
                    return
                if result is None:
                    self.events = rest
                    task = asyncio.ensure_future(L.request(head, whole, self, self, self.conn))
                    task.add_done_callback(lambda t, head=head: self._task_done(t, head))
                    L.requests.add(task)
                    return
                if not self._after(head, result):
                    return
                if self.write_paused or self.ending:
                    self.events = rest
                    return
            else:
                self.body.append(ev)
        # the rest of a request is still to come
        if self.head is not None or not self.parser.idle:
            if self.started is None:
                self.started = self.loop.time()
            due = self.started + L.read_timeout
            if self.timer is None or self.timer.when() > due:
                self._arm(due)
        elif self.eof:
            self._end()

    def finished(self, head: Head, keep: bool) -> None:
        """A request answered later (see :data:`PENDING`) is done."""
        if self._after(head, keep) and (self.held or self.events or self.eof):
            self.loop.call_soon(self._next)

    def _task_done(self, task: asyncio.Task, head: Head) -> None:
        self.listener.requests.discard(task)
        if task.cancelled():
            keep = False
        elif task.exception() is not None:
            self._failed(task.exception())
            keep = False
        else:
            keep = bool(task.result())
        self.finished(head, keep)

    def _failed(self, exc: BaseException | None) -> None:
        self.loop.call_exception_handler({"message": "a request of the listener failed",
                                          "exception": exc, "protocol": self})

    def _after(self, head: Head, keep: bool) -> bool:
        """The request is answered: whether the connection goes on."""
        self.busy = False
        ahead, self.conn.ahead = self.conn.ahead, b""
        if not keep or not head.keep_alive or self.lost:
            self._end()
            return False
        if ahead:
            self.held[:0] = ahead
        self.idle_since = self.loop.time()
        if self.timer is None:
            self._arm(self.idle_since + self.listener.idle_timeout)
        return True

    def _next(self) -> None:
        """Read on: what was parsed or held while a request was under way."""
        if self.busy or self.write_paused or self.ending:
            return
        held = bytes(self.held)
        self.held.clear()
        self._unpause()
        if held:
            self._feed(held)
        elif self.events:
            events, self.events = self.events, []
            self._handle(events)
        elif self.eof:
            self._end()

    def _unpause(self) -> None:
        if self.read_paused and len(self.held) <= _HELD and not self.lost:
            self.read_paused = False
            self.transport.resume_reading()  # type: ignore[union-attr]

    def _refuse(self, status: int, body: bytes, headers: Iterable[tuple[str, str]] = ()) -> None:
        reply(self, status, body, headers, close=True)
        self._end()

    # ------------------------------------------------------------ time and the end

    def _arm(self, when: float) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.timer = self.loop.call_at(when, self._tick)

    def _tick(self) -> None:
        self.timer = None
        if self.ending or self.lost or self.busy or self.write_paused:
            return  # re-armed when the request is answered, or the client reads again
        L, now = self.listener, self.loop.time()
        if self.started is not None:  # a request is arriving
            due = self.started + L.read_timeout
            if now >= due:
                self._refuse(408, b"")
                return
        else:
            due = self.idle_since + L.idle_timeout
            if now >= due:
                self._end()
                return
        self._arm(due)

    def _end(self) -> None:
        """Close the connection: its 2026-07-28 session ended first, then the socket."""
        if self.ending and not self.entered:
            return
        self.ending = True
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if not self.entered:
            return
        self.entered = False
        session, self.conn.session = self.conn.session, None
        if session is None:
            self._gone()
            return
        task = asyncio.ensure_future(self.listener.end(session))
        task.add_done_callback(lambda _: self._gone())
        self.listener.requests.add(task)
        task.add_done_callback(self.listener.requests.discard)

    def _gone(self) -> None:
        self.close()
        self.listener.connections.discard(self)
        self.listener.admission.leave(self.peer)
