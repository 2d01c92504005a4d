"""The server role of Streamable HTTP: HTTP clients -> proxy -> (a stdio command | a remote URL).

``quantity-guard-mcp --listen [HOST:]PORT`` serves the MCP endpoint ``/mcp``. What it implements,
per the specification texts:

Security (2025-11-25 ``basic/transports.mdx`` "Security Warning"; 2026-07-28
``basic/transports/streamable-http.mdx`` "Security & Endpoint")
    * binds ``127.0.0.1`` unless a host is given;
    * an ``Origin`` header that is present and not allowed gets ``403`` (allowed: loopback
      origins, plus each ``--allow-origin``); a ``Host`` that is not a loopback name while bound to
      loopback gets ``421`` (DNS rebinding);
    * request heads over 64 KiB get ``431``, bodies over ``max_body`` (16 MiB) ``413``; a
      connection idle longer than ``idle_timeout`` between requests, or taking longer than
      ``read_timeout`` in all to send one request (head and body: one deadline from its first
      byte, however slowly the bytes trickle in), is closed;
    * at most ``max_connections`` connections are open at once, and at most
      ``max_connections_per_peer`` from one address; a connection beyond either gets ``503``
      and is closed at once. When accepting fails (no file descriptors left), one line is
      logged per ``_ACCEPT_LOG_EVERY`` seconds, not a traceback per attempt.

Messages (2025: "Sending Messages to the Server"; 2026: "Sending Messages", "Receiving Messages")
    * one JSON-RPC message per ``POST``; notifications and responses get ``202``; a request gets
      an SSE stream (``text/event-stream``) carrying the messages related to it, then its
      response, after which the stream ends; a client whose ``Accept`` lacks
      ``text/event-stream`` gets the response alone as ``application/json``;
    * closing a response stream before the response cancels the request (2026-07-28
      "Cancellation"); for a 2025 request it does not (2025: "Disconnection SHOULD NOT be
      interpreted as the client cancelling its request").

Sessions (2025: "Session Management"; issue 16 item 4)
    * an ``initialize`` request opens a session: the proxy mints an ``Mcp-Session-Id`` (random,
      visible ASCII) returned with the ``initialize`` response, and gives the session its own
      guard and policy, hence its own ledger, and its own upstream (a child process of the
      command, or a conversation with the remote server whose own session id stays private);
    * later requests must carry the id: unknown ids get ``404``, missing ones ``400``;
      ``DELETE`` ends a session; sessions idle for ``session_idle`` seconds are ended;
    * at most ``max_sessions`` sessions of all kinds exist at once, at most
      ``max_sessions_per_client`` per client (its credential, else its address): a new session
      beyond either gets ``503`` and no live session is ended. A 2025 session counts against
      the bounds from its ``initialize`` on, but is only registered (its id usable) once the
      upstream answered that ``initialize`` with a result; refused, it is ended;
    * 2026-07-28 requests have no session. With ``--session-header NAME`` they are grouped by
      the value of that header (a conversation id the client sends): one guard, ledger and
      upstream per value, so a client spreading one conversation over pooled connections keeps
      one ledger. Requests without the header, or without the option, are grouped per TCP
      connection (ended when the connection closes). Both count against the bounds above.

The optional ``GET`` stream (2025: "Listening for Messages from the Server")
    * is offered to 2025 sessions: server-initiated messages that belong to no open request
      stream go there; while no stream is open they are queued (bounded) until one is. ``GET``
      without a session, or for 2026-07-28, gets ``405``.

Resumability (2025-11-25 and 2025-06-18 ``basic/transports.mdx`` "Resumability and Redelivery")
    * in a 2025 session every SSE event carries an ``id`` ``N-S``: ``N`` numbers the stream within
      the session (each POST stream and each GET stream), ``S`` the event within the stream, so
      ids are unique within the session and name their stream; when the session negotiated
      2025-11-25 or later, each stream starts with a priming event (an id and empty data),
      written with the first message, or alone when the request has sent nothing after 20 ms
      (so a quick call costs one write, as before);
    * the proxy keeps the events it sent, per stream, for replay: at most ``_REPLAY_EVENTS``
      (256) events per stream, ``_REPLAY_STREAMS`` (32) streams and ``_REPLAY_BYTES`` (4 MiB)
      per session, the oldest dropped first; an event larger than the byte budget is relayed
      but not kept (nor does it push out the events kept for other streams), and the stream's
      earlier events go, so a resumption from before it gets ``404``;
    * a ``GET`` with ``Last-Event-ID`` replays the events that followed it on that stream only,
      then continues that stream (the answer to its request ends it); an id the proxy never
      sent, or whose successors were dropped, gets ``404``. A request stream whose client went
      away before the answer stays open for resumption: its later messages are kept for it,
      not sent elsewhere (the specification forbids replaying them on another stream);
    * an answer goes only on its request's stream or that stream's resumption ("The server
      MUST NOT send a JSON-RPC response on the stream unless resuming a stream associated
      with a previous client request"): the answer of a stream cut before its first event
      (2025-06-18 streams have no priming event, so the client holds no id for it) is dropped
      and logged, never sent on the GET stream, another request's stream or queued;
    * 2026-07-28 streams carry no ids ("Resumable SSE streams via Last-Event-ID are not
      supported").

Auth (issue 16 item 3): a remote upstream's ``401``/``403`` is passed to the HTTP client with
its ``WWW-Authenticate`` header and body; ``GET /.well-known/...`` is passed to the upstream's
origin and its answer returned, so a client's OAuth discovery works through the proxy. Client
headers reach the upstream only when named with ``--forward-header``.
"""
from __future__ import annotations

import asyncio
import ipaddress
import os
import secrets
import signal
import subprocess
import threading
import time
from collections import OrderedDict, deque
from typing import Any, Callable, Sequence
from urllib.parse import urlsplit

from ...errors import StoreUnavailable
from .. import jsonrpc as rpc
from ..gateway import (REPLAY_ID, Conversations, Sessions, kept_initialize, may_continue,
                       replayed_initialize, unavailable_error)
from ..guard import C2S, LOG, S2C, Guard
from ..identity import ANON, IdentityKey, conversation_of, verified_principal
from .client import Client, UpstreamError
from .headers import HEADER_MISMATCH, header_mismatch, param_headers
from .upstream import Remote, Sent
from .wire import (END, LAST_CHUNK, Head, HeaderError, ProtocolError, Reader, chunk,
                   response_head, sse_comment, sse_event)

__all__ = ["parse_listen", "Listener", "run_listener", "is_loopback_host"]

_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "[::1]"}
_QUEUE_LIMIT = 1024
_REPLAY_EVENTS = 256  # events kept per stream for Last-Event-ID replay
_REPLAY_STREAMS = 32  # streams whose events are kept, per session
_REPLAY_BYTES = 4 << 20  # bytes of kept events, per session
_LARGE = 1 << 20  # a message this long is written in pieces, its bytes not copied
_PRIME_DELAY = 0.02  # seconds before an idle request stream sends its priming event alone
_ACCEPT_LOG_EVERY = 10.0  # seconds between two log lines about failing accepts


def parse_listen(text: str) -> tuple[str, int]:
    """``"8765"`` -> ``("127.0.0.1", 8765)``; ``"HOST:PORT"``, ``"[v6]:PORT"`` as given."""
    host = "127.0.0.1"
    port_text = text
    if text.startswith("["):
        end = text.find("]")
        if end < 0 or text[end + 1:end + 2] != ":":
            raise ValueError(f"--listen {text!r}: expected [ADDRESS]:PORT")
        host, port_text = text[1:end], text[end + 2:]
    elif ":" in text:
        host, _, port_text = text.rpartition(":")
        if not host:
            raise ValueError(f"--listen {text!r}: the host is empty")
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError(f"--listen {text!r}: the port must be a number from 0 to 65535")
    return host, int(port_text)


def is_loopback_host(host: str) -> bool:
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _host_of(value: str) -> str:
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class _Stream:
    """Where one POST's (or the GET stream's) messages go: an open HTTP response."""

    def __init__(self, writer: asyncio.StreamWriter, sse: bool, key: tuple | None = None) -> None:
        self.writer = writer
        self.sse = sse
        self.key = key  # the request id this stream answers (None for the GET stream)
        self.done = asyncio.Event()
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
        self.session: _Session | None = None
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
        if self.number is not None:
            if self.closed and not self.pending():
                return False
            head = b"" if self.closed else self._head()
            prefix, self.prefix = self.prefix, b""
            ev = sse_event(data, id=self._next_id())
            assert self.session is not None
            self.session.keep(self, self.seq, ev)
        elif self.closed:
            return False
        else:
            head = self._head()
            prefix = b""
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
        ``404`` (see _Session.keep)."""
        body = memoryview(data)[:end]
        is_answer = answers is not None and answers == self.key
        if self.number is not None:
            if self.closed and not self.pending():
                return False
            head = b"" if self.closed else self._head()
            prefix, self.prefix = self.prefix, b""
            field = b"id: %s\ndata: " % self._next_id().encode()
            assert self.session is not None
            if len(body) + len(field) + 2 <= _REPLAY_BYTES:
                self.session.keep(self, self.seq, field + body + b"\n\n")
            else:
                self.session.forgo(self)
        elif self.closed:
            return False
        else:
            head, prefix, field = self._head(), b"", b"data: "
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

    def _head(self) -> bytes:
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
                self._start()
            except (ConnectionError, RuntimeError, OSError):
                self.closed = True

    def attach(self, writer: asyncio.StreamWriter) -> None:
        """Continue this stream on a new response (a GET with Last-Event-ID)."""
        self.writer = writer
        self.closed = False
        self.started = False
        self.prime = False
        self.finished = False
        old, self.done = self.done, asyncio.Event()
        old.set()  # releases the holder of the previous response

    def _start(self) -> None:
        head = self._head()
        if self.prefix:
            head += chunk(self.prefix)
            self.prefix = b""
        if head:
            self.writer.write(head)

    def keepalive(self) -> None:
        if self.sse and not self.closed:
            try:
                self._start()
                self.writer.write(chunk(sse_comment()))
            except (ConnectionError, RuntimeError, OSError):
                self.closed = True


class _Session:
    """One client conversation: a guard (its own policy and ledger) and its upstream."""

    def __init__(self, listener: Listener, sid: str | None, legacy: bool) -> None:
        self.listener = listener
        self.sid = sid
        self.group: str | None = None  # the --session-header value of a 2026-07-28 session
        self.legacy = legacy
        self.client_key: str | None = None  # whose slot it takes (see Listener._client_key)
        self.probation = False  # a 2025 session whose initialize the upstream has not accepted
        self.init_key: tuple | None = None  # ... and that initialize's id
        self.init_failed = False  # ... which the upstream answered with an error
        self.init_line: bytes | None = None  # ... and what a replay needs of it (for --store)
        self.authorization: str | None = None  # the Authorization of the initialize
        self.principal = ANON  # who opened it (identity.principal_of of its credentials)
        self.private: dict[tuple, asyncio.Future] = {}  # the proxy's own requests (see adopt)
        self.guard = Guard(listener.new_policy())
        self.guard.transport, self.guard.session_id = "tcp", sid  # for its calls' spans
        self.last_used = time.monotonic()
        self.by_id: dict[tuple, _Stream] = {}  # open request streams by request id
        self.by_token: dict[tuple, _Stream] = {}  # ... and by their progress token
        self.get_stream: _Stream | None = None
        self.queue: deque[bytes] = deque()
        self.closed = False
        self.proc: asyncio.subprocess.Process | None = None
        self.remote: Remote | None = None
        self.client: Client | None = None
        self._reader_task: asyncio.Task | None = None
        # Event ids and replay (2025 sessions): streams by number, kept events in order.
        self.streams = 0
        self.replays: OrderedDict[int, _Stream] = OrderedDict()
        self.replay_bytes = 0
        self.replay_order: deque[tuple[_Stream, int]] = deque()

    def number(self, stream: _Stream) -> None:
        """Give an SSE stream of a 2025 session its number, so its events carry ids."""
        if not self.legacy or not stream.sse:
            return
        self.streams += 1
        stream.number = self.streams
        stream.session = self
        version = self.guard.protocol_version
        stream.prime = version is not None and version >= "2025-11-25"
        self.replays[stream.number] = stream
        while len(self.replays) > _REPLAY_STREAMS:
            _, old = self.replays.popitem(last=False)
            self.replay_bytes -= sum(len(ev) for _, ev in old.replay)
            old.replay.clear()

    def forgo(self, stream: _Stream) -> None:
        """An event too large to keep was sent on ``stream``: what it kept before goes too, so
        that a resumption from before that event gets ``404`` rather than a replay with a gap."""
        self.replay_bytes -= sum(len(ev) for _, ev in stream.replay)
        stream.replay.clear()

    def keep(self, stream: _Stream, seq: int, ev: bytes) -> None:
        """Keep one sent event for replay, within the bounds (oldest dropped first)."""
        if stream.number is not None and stream.number in self.replays:
            self.replays.move_to_end(stream.number)
        stream.replay.append((seq, ev))
        self.replay_bytes += len(ev)
        self.replay_order.append((stream, seq))
        if len(stream.replay) > _REPLAY_EVENTS:
            self.replay_bytes -= len(stream.replay.popleft()[1])
        order = self.replay_order
        while order and (self.replay_bytes > _REPLAY_BYTES or len(order) > _REPLAY_STREAMS * _REPLAY_EVENTS):
            st, s = order.popleft()
            if st.replay and st.replay[0][0] == s:
                self.replay_bytes -= len(st.replay.popleft()[1])

    # ------------------------------------------------------------ upstream

    async def start(self) -> None:
        L = self.listener
        if L.upstream is not None:
            self.client = Client(L.upstream, cafile=L.cafile, head_timeout=L.upstream_timeout,
                                 idle_timeout=L.upstream_idle_timeout)
            self.remote = Remote(self.client, headers=L.headers, catalogue=self.catalogue, log=L.log,
                                 **({"max_message": L.max_message} if L.max_message else {}))
        else:
            assert L.command
            self.proc = await asyncio.create_subprocess_exec(
                *L.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None,
                start_new_session=True, limit=1 << 20)
            self._reader_task = asyncio.ensure_future(self._read_child())

    def catalogue(self) -> Any:
        """Tool definitions for ``Mcp-Param-*`` headers: this session's listing, else the last
        one any session saw (2026-07-28 ``server/tools.mdx``: a listing must not vary per
        connection, and a modern client need not list again on each connection)."""
        return _Catalogue(self.guard.catalogue, self.listener.shared_catalogue)

    async def _read_child(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        buf = rpc.LineBuffer()
        while True:
            try:
                data = await self.proc.stdout.read(1 << 16)
            except (ConnectionError, OSError):
                data = b""
            if not data:
                break
            lines = buf.feed(data)
            lines.reverse()
            while lines:  # each line let go of as soon as the guard has read it
                self.dispatch(self.guard.receive(S2C, lines.pop()), None)
            self._settle()  # the answers are written: the policy's bookkeeping (Guard.settle)
        tail = buf.flush()
        if tail:
            self.dispatch(self.guard.receive(S2C, tail), None)
        if not self.closed:
            self.dispatch(self.guard.upstream_closed("the upstream MCP server exited"), None)
            self.listener.log(f"the upstream of {self.label()} exited")
            await self.listener.end(self)

    def _write_child(self, line: bytes) -> None:
        proc = self.proc
        if proc is None or proc.stdin is None or proc.stdin.is_closing():
            return
        try:
            proc.stdin.write(line)
        except (ConnectionError, OSError, RuntimeError):
            pass

    # ------------------------------------------------------------ routing

    def dispatch(self, outputs: list[tuple[str, bytes]], stream: _Stream | None) -> None:
        """Send guard outputs: C2S upstream, S2C to ``stream`` when given (the messages of one
        upstream response belong to the POST that asked), else routed by id / progress token."""
        for direction, data in outputs:
            if direction == S2C:
                self.deliver(data, stream)
            elif direction == C2S:
                if self.remote is not None:
                    self.listener.spawn(self._post_upstream(data, stream))
                else:
                    self._write_child(data)
            elif direction == LOG:
                self.listener.log(data.decode("utf-8", "replace"))

    def deliver(self, data: bytes, stream: _Stream | None) -> None:
        answered: tuple | None = None
        token: tuple | None = None
        ident: Any = None
        result = False
        try:
            obj = rpc.loads_lenient(data)
        except rpc.ParseError:
            obj = None
        if type(obj) is dict:
            if "method" not in obj and ("result" in obj or "error" in obj):
                ident, result = obj.get("id"), "result" in obj
                answered = rpc.id_key(ident)
                if answered in self.private:  # the answer to the proxy's own request
                    waiter = self.private.pop(answered)
                    if not waiter.done():
                        waiter.set_result(obj)
                    return
            else:
                params = obj.get("params")
                if type(params) is dict and "progressToken" in params:
                    token = rpc.id_key(params["progressToken"])
        del obj  # the parsed copy is not kept while the message is written
        target = stream if stream is not None and stream.accepts() else None
        if target is not None and not target.sse and answered != target.key:
            target = None  # a JSON response carries only its answer: route the rest elsewhere
        if target is None and answered is not None:
            target = self.by_id.get(answered)
            if target is not None and not target.accepts():
                target = None
        if target is None and answered is not None:
            # 2025-06-18 and 2025-11-25 "Listening for Messages from the Server": a response
            # never goes on the GET stream (nor on another request's stream, nor queued for
            # one) unless it resumes its own stream. Its stream ended before any event with an
            # id (a 2025-06-18 stream has none before its first message), so no Last-Event-ID
            # can ask for it: nobody can receive it.
            self.listener.log(
                f"{self.label()}: the answer to request {rpc.dumps(ident)} "
                "arrived after its client's stream ended before any event it could resume from; "
                "dropped (a response is never sent on another stream)")
            return
        if target is None and token is not None:
            target = self.by_token.get(token)
            if target is not None and not target.accepts():
                target = None
        if target is None and self.get_stream is not None and not self.get_stream.closed:
            target = self.get_stream
        if target is None:
            for candidate in reversed(self.by_id.values()):  # the latest open event stream
                if candidate.sse and not candidate.closed:
                    target = candidate
                    break
        if target is None:
            if len(self.queue) >= _QUEUE_LIMIT:
                self.queue.popleft()
                self.listener.log("a session's undelivered message queue is full; dropped the oldest")
            self.queue.append(data)
            return
        if self.probation and answered is not None and answered == self.init_key:
            # the upstream answered initialize: a result admits the session (before the client
            # can read the answer and send its next request), an error leaves it to be ended
            if result:
                try:
                    self.listener.confirm(self)
                except StoreUnavailable as exc:  # no replica could serve it: refused
                    self.init_failed = True
                    data = unavailable_error(ident, exc)[:-1]
            else:
                self.init_failed = True
        target.send(data, answered)
        if answered is not None and answered == target.key:
            target.done.set()
            if target.closed:  # kept for a resumption: no POST handler is left to unregister it
                self.forget(target)

    def forget(self, stream: _Stream) -> None:
        if stream.key is not None and self.by_id.get(stream.key) is stream:
            del self.by_id[stream.key]
        if stream.token is not None and self.by_token.get(stream.token) is stream:
            del self.by_token[stream.token]

    def _settle(self) -> None:
        logs = self.guard.settle()
        if logs:
            self.dispatch(logs, None)

    async def post_notice(self, line: bytes, extra: Sequence[tuple[str, str]]
                          ) -> tuple[int | None, tuple[int, Any, bytes] | None]:
        """Post a client notification or answer upstream and wait for the upstream's status;
        returns it with the upstream's 401/403 answer, if it refused."""
        assert self.remote is not None
        refused: list[tuple[int, Any, bytes]] = []

        def emit(message: bytes) -> None:
            self.dispatch(self.guard.receive(S2C, message), None)

        status = await self.remote.post(line, emit, extra, lambda st, h, b: refused.append((st, h, b)))
        self._posted(Sent(line[:-1]), status)
        return status, refused[0] if refused else None

    def _posted(self, sent: Sent, status: int | None) -> None:
        if sent.method == "notifications/initialized" and status == 202 and self.remote is not None:
            self.remote.start_listening(lambda m: self.dispatch(self.guard.receive(S2C, m), None))

    async def _post_upstream(self, line: bytes, stream: _Stream | None) -> None:
        assert self.remote is not None
        extra = stream.head_extra_upstream if stream is not None else []

        def emit(message: bytes) -> None:
            self.dispatch(self.guard.receive(S2C, message), stream)
            # the policy's bookkeeping once the answer is written (see Guard.settle)
            asyncio.get_running_loop().call_soon(self._settle)
            version = self.guard.protocol_version
            if version is not None and self.remote is not None and self.remote.protocol_version != version:
                self.remote.protocol_version = version  # the initialize result just went by

        def auth_failure(status: int, headers: Any, body: bytes) -> None:
            if stream is not None:
                stream.auth = (status, headers, body)
                stream.done.set()

        status = await self.remote.post(line, emit, extra, auth_failure)
        sent = Sent(line[:-1])
        self._posted(sent, status)
        if sent.method == "tools/list" and self.guard.catalogue:
            self.listener.shared_catalogue.update(self.guard.catalogue)
        if stream is not None and sent.is_request:
            stream.done.set()

    # ------------------------------------------------------------ end

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for s in list(self.by_id.values()):
            s.done.set()
        if self.get_stream is not None:
            self.get_stream.done.set()
        if self.remote is not None:
            await self.remote.end_session()
            if self.client is not None:
                await self.client.aclose()
        if self.proc is not None:
            proc = self.proc
            if proc.stdin is not None:
                try:
                    proc.stdin.close()
                except (OSError, RuntimeError):
                    pass
            try:
                await asyncio.wait_for(proc.wait(), 0.5)
            except asyncio.TimeoutError:
                for sig, grace in ((signal.SIGTERM, 0.4), (signal.SIGKILL, 0.5)):
                    try:
                        os.killpg(proc.pid, sig)
                    except (ProcessLookupError, PermissionError):
                        break
                    try:
                        await asyncio.wait_for(proc.wait(), grace)
                        break
                    except asyncio.TimeoutError:
                        continue
        close = getattr(self.guard.policy, "close", None)
        if callable(close):
            try:
                close()
            except Exception as exc:
                self.listener.write_failed = True
                what = exc.strerror if isinstance(exc, OSError) and exc.strerror else repr(exc)
                self.listener.log(f"the manifest of {self.label()} could not be written ({what}); "
                                  "the previous one, if any, is left as it was")

    def label(self) -> str:
        """How the logs name this session: never its id, which is the client's credential."""
        if self.sid is None:
            return "a 2026-07-28 session" + (" (grouped)" if self.group is not None else "")
        import hashlib
        return "session #" + hashlib.sha256(self.sid.encode()).hexdigest()[:8]


class Listener:
    """The ``--listen`` server. ``await listener.start()`` binds and returns ``(host, port)``;
    ``await listener.serve()`` runs until :meth:`stop`."""

    def __init__(self, host: str, port: int, new_policy: Callable[[], Any], *,
                 command: list[str] | None = None, upstream: str | None = None,
                 headers: list[tuple[str, str]] | None = None, forward_headers: Sequence[str] = (),
                 allow_origins: Sequence[str] = (), cafile: str | None = None, max_sessions: int = 64,
                 max_body: int = 16 << 20, idle_timeout: float = 120.0, read_timeout: float = 30.0,
                 session_idle: float = 3600.0, keepalive: float = 15.0,
                 session_header: str | None = None, max_sessions_per_client: int | None = None,
                 client_token: str | None = None, allow_hosts: Sequence[str] = (),
                 client_tokens: Sequence[str] = (),
                 max_message: int | None = None,
                 max_connections: int = 512,
                 max_connections_per_peer: int | None = None, upstream_timeout: float | None = 300.0,
                 upstream_idle_timeout: float | None = 300.0, store: Any = None,
                 conversations: Conversations | None = None, identity: IdentityKey | None = None,
                 jwt: Any = None,
                 log: Callable[[str], None] | None = None, path: str = "/mcp") -> None:
        if (command is None) == (upstream is None):
            raise ValueError("give exactly one of command and upstream")
        self.host, self.port = host, port
        self.new_policy = new_policy
        self.command = list(command) if command else None
        self.upstream = upstream
        self.headers = list(headers or [])
        self.forward_headers = [h.lower() for h in forward_headers]
        self.allow_origins = {o.rstrip("/").lower() for o in allow_origins}
        self.cafile = cafile
        self.max_sessions = max_sessions
        # --max-message-size: the largest request body accepted and upstream message relayed
        self.max_message = max_message
        self.max_body = max_message or max_body
        self.idle_timeout = idle_timeout
        self.read_timeout = read_timeout
        self.session_idle = session_idle
        self.keepalive = keepalive
        self.upstream_timeout = upstream_timeout
        self.upstream_idle_timeout = upstream_idle_timeout
        self.max_connections = max_connections
        # per peer address: the whole budget on loopback (every local client is 127.0.0.1),
        # an eighth of it for an exposed bind
        self.max_connections_per_peer = max_connections_per_peer or (
            max_connections if is_loopback_host(host) else max(1, max_connections // 8))
        self._connections = 0
        self._per_peer: dict[str, int] = {}
        self._accept_logged = -_ACCEPT_LOG_EVERY
        self._accept_failures = 0
        self.write_failed = False  # a session's manifest could not be written
        self.log = log or (lambda text: None)
        self.path = path
        self.sessions: OrderedDict[str, _Session] = OrderedDict()
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task] = set()
        self._stopped = asyncio.Event()
        self.bound_loopback = is_loopback_host(host)
        self._open: set[_Session] = set()  # 2026-07-28 sessions (one per connection)
        self._probation: set[_Session] = set()  # 2025 sessions whose initialize is under way
        self._per_client: dict[str, int] = {}  # sessions (of every kind) per client key
        self.max_sessions_per_client = max_sessions_per_client
        # what clients must send as Authorization: Bearer (any one of them)
        self.client_tokens = [t.encode("utf-8", "replace") for t in
                              ([client_token] if client_token is not None else []) + list(client_tokens)]
        self.client_token = client_token if client_token is not None else (
            client_tokens[0] if client_tokens else None)
        # a deployment that checks or forwards credentials: a request without any of them
        # proves no principal, so it keeps no history (identity.py, kind "request")
        # --jwks-file/--jwks-url: every request's bearer JWT verified (mcp/jwt_identity.py)
        self.jwt = jwt
        self.credentialed = self.client_token is not None or bool(self.forward_headers) or jwt is not None
        # Authorization is the proxy's own (its token, or a JWT whose subject is the principal)
        self.consumes_authorization = self.client_token is not None or jwt is not None
        self.allow_hosts = {h.strip("[]").lower() for h in allow_hosts}
        if not self.bound_loopback and host not in ("0.0.0.0", "::", ""):
            self.allow_hosts.add(host.strip("[]").lower())
        self.shared_catalogue: dict[str, dict] = {}
        self.session_header = session_header.lower() if session_header else None
        self.grouped: OrderedDict[str, _Session] = OrderedDict()  # 2026-07-28 sessions by header value
        # conversations (mcp/identity.py): each request's ledger, shared through --store
        self.store = store
        self.identity = identity or IdentityKey()
        self.conversations = conversations or Conversations(store=store, max_kept=4 * max_sessions)
        self.directory = Sessions(store, self.identity)
        if store is not None:
            store.on_lost.append(self._write_back_sessions)
        self._adopting: dict[str, asyncio.Future] = {}

    def spawn(self, coro) -> asyncio.Task:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def start(self) -> tuple[str, int]:
        loop = asyncio.get_running_loop()
        default = loop.get_exception_handler()

        def quiet_accept_errors(loop: asyncio.AbstractEventLoop, context: dict) -> None:
            # asyncio retries a failing accept after a second and reports each failure with a
            # traceback: at the descriptor limit that is megabytes of stderr a minute
            if str(context.get("message", "")).startswith("socket.accept() out of system resource"):
                self._accept_failures += 1
                now = time.monotonic()
                if now - self._accept_logged >= _ACCEPT_LOG_EVERY:
                    self._accept_logged = now
                    self.log(f"cannot accept connections: {context.get('exception')} "
                             f"({self._accept_failures} failed accept(s) so far); retrying each "
                             f"second. Lower --max-connections or raise the open-file limit")
                return
            if default is not None:
                default(loop, context)
            else:
                loop.default_exception_handler(context)

        loop.set_exception_handler(quiet_accept_errors)
        self._server = await asyncio.start_server(self._connection, self.host, self.port,
                                                  limit=1 << 16, reuse_address=True)
        sock = self._server.sockets[0]
        addr = sock.getsockname()
        self.port = addr[1]
        self.spawn(self._reaper())
        if self.command is not None and self.upstream_timeout is not None:
            self.spawn(self._expirer(self.upstream_timeout))
        return addr[0], addr[1]

    async def _expirer(self, limit: float) -> None:
        """Requests a COMMAND upstream leaves unanswered (and without progress) for ``limit``
        seconds get an error and are cancelled upstream (an HTTP upstream has its own limits)."""
        while True:
            await asyncio.sleep(min(1.0, limit / 4))
            for s in list(self.sessions.values()) + list(self.grouped.values()) + list(self._open) \
                    + list(self._probation):
                if not s.closed and s.guard.pending:
                    s.dispatch(s.guard.expire(limit), None)

    async def serve(self) -> None:
        await self._stopped.wait()
        if self._server is not None:
            self._server.close()
        for s in list(self.sessions.values()) + list(self._open) + list(self.grouped.values()) \
                + list(self._probation):
            await self.end(s)
        for t in list(self._tasks):
            t.cancel()

    def stop(self) -> None:
        self._stopped.set()

    async def end(self, session: _Session) -> None:
        if session.sid is not None and self.sessions.get(session.sid) is session:
            del self.sessions[session.sid]
        if session.group is not None and self.grouped.get(session.group) is session:
            del self.grouped[session.group]
        self._open.discard(session)
        self.release(session)
        await session.close()

    # ------------------------------------------------------------ admission

    def _client_key(self, head: Head, writer: asyncio.StreamWriter) -> tuple[str, bool]:
        """Whose session a request would open: its credential (``Authorization`` or a
        forwarded header; hashed) if it carries one, else its peer address. Returns the key and
        whether it tells clients apart (a credential, or a peer that is not loopback)."""
        import hashlib
        if self.jwt is not None:  # the verified subject (a refreshed token is the same client)
            return "principal:" + self._principal(head)[0], True
        own = () if self.client_token is not None else ("authorization",)  # a shared token tells no one apart
        for name in (*own, *(h for h in self.forward_headers if self.client_token is None or h != "authorization")):
            value = head.headers.get(name)
            if value:
                return "credential:" + hashlib.sha256(value.encode("latin-1", "replace")).hexdigest()[:32], True
        peername = writer.get_extra_info("peername")
        peer = str(peername[0]) if isinstance(peername, tuple) and peername else "?"
        return "peer:" + peer, not is_loopback_host(peer)

    def _refusal(self, key: str, distinct: bool) -> str | None:
        """Why a new session for ``key`` is refused (the table is full, or this client has its
        share), or ``None``. Live sessions are never ended to make room."""
        used = len(self.sessions) + len(self._probation) + len(self.grouped) + len(self._open)
        if used >= self.max_sessions:
            return (f"Service Unavailable: all {self.max_sessions} sessions are in use "
                    "(--max-sessions); end one (DELETE) or try again later")
        share = self.max_sessions_per_client or (
            max(1, self.max_sessions // 4) if distinct else self.max_sessions)
        if self._per_client.get(key, 0) >= share:
            return (f"Service Unavailable: this client already has {share} sessions "
                    "(--max-sessions-per-client); end one (DELETE) or try again later")
        return None

    def hold(self, session: _Session, key: str) -> None:
        session.client_key = key
        self._per_client[key] = self._per_client.get(key, 0) + 1

    def release(self, session: _Session) -> None:
        self._probation.discard(session)
        key, session.client_key = session.client_key, None
        if key is not None:
            left = self._per_client.get(key, 1) - 1
            if left > 0:
                self._per_client[key] = left
            else:
                self._per_client.pop(key, None)

    def confirm(self, session: _Session) -> None:
        """The upstream accepted the session's initialize: it takes its place in the table
        (and, with --store, in the store, so any replica serves it: raises StoreUnavailable)."""
        if self.store is not None and session.sid is not None and session.init_line is not None:
            self.directory.opened(session.sid, session.init_line, session.principal,
                                  session.guard.protocol_version)
        session.probation = False
        self._probation.discard(session)
        if not session.closed and session.sid is not None:
            self.sessions[session.sid] = session

    def _write_back_sessions(self) -> None:
        """The store was found emptied: the 2025 sessions this replica holds go back to it."""
        for sid, held in list(self.sessions.items()):
            if held.init_line is not None and not held.closed:
                try:
                    self.directory.opened(sid, held.init_line, held.principal,
                                          held.guard.protocol_version)
                except (StoreUnavailable, ValueError):
                    pass

    async def _reaper(self) -> None:
        while True:
            await asyncio.sleep(min(5.0 if self.store is not None else 30.0, self.session_idle / 2))
            now = time.monotonic()
            for s in list(self.sessions.values()) + list(self.grouped.values()) + list(self._probation):
                if now - s.last_used > self.session_idle and not s.by_id:
                    self.log(f"{s.label()} idle for {self.session_idle:g} s; ended")
                    await self.end(s)
            if self.store is not None:
                try:  # the store emptied? what this replica holds is written back (store.py)
                    self.store.check_epoch()
                except self.store._errors as exc:
                    self.store.errored(exc)
            if self.store is not None and self.sessions:
                sids = list(self.sessions)
                found = self.directory.alive(sids)
                if found is None:
                    continue  # the store cannot be asked: nothing is ended for it
                alive, ended = found
                for sid in sids:
                    held = self.sessions.get(sid)
                    if held is None or sid in alive:
                        continue
                    if sid in ended:  # ended on another replica (DELETE)
                        if not held.by_id:
                            await self.end(held)
                    elif held.init_line is not None:  # the store lost it: written back
                        try:
                            self.directory.opened(sid, held.init_line, held.principal,
                                                  held.guard.protocol_version)
                        except (StoreUnavailable, ValueError):
                            pass


    # ------------------------------------------------------------ connections

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peername = writer.get_extra_info("peername")
        peer = str(peername[0]) if isinstance(peername, tuple) and peername else "?"
        if self._connections >= self.max_connections or \
                self._per_peer.get(peer, 0) >= self.max_connections_per_peer:
            which = (f"{self.max_connections} connections are open (--max-connections)"
                     if self._connections >= self.max_connections else
                     f"{self.max_connections_per_peer} connections from {peer} are open "
                     "(--max-connections-per-peer)")
            try:
                writer.write(response_head(503, [
                    ("Content-Type", "application/json"), ("Retry-After", "1"),
                    ("Connection", "close"), ("Content-Length", str(len(body := _error_body(
                        f"Service Unavailable: {which}; try again later"))))]) + body)
                # half-close, and close a moment later: closing with the client's request
                # unread would reset the connection before the client read the 503
                writer.write_eof()
                asyncio.get_running_loop().call_later(1.0, writer.close)
            except Exception:
                writer.close()
            return
        self._connections += 1
        self._per_peer[peer] = self._per_peer.get(peer, 0) + 1
        try:
            await self._serve_connection(reader, writer)
        finally:
            self._connections -= 1
            left = self._per_peer.get(peer, 1) - 1
            if left > 0:
                self._per_peer[peer] = left
            else:
                self._per_peer.pop(peer, None)

    async def _serve_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        parser = Reader(max_body=self.max_body)
        # the 2026-07-28 session of this connection, and the bytes of the next request that a
        # request's close watcher read ahead (given back to the parser once that request ends)
        conn_session: list[Any] = [None, b""]
        events: list = []
        loop = asyncio.get_running_loop()
        deadline: float | None = None  # of the request under way: head and body, in all
        try:
            while True:
                head: Head | None = None
                body: list[bytes] = []
                while True:
                    while events:
                        ev = events.pop(0)
                        if isinstance(ev, Head):
                            head, body = ev, []
                            early = self._early(ev) if (ev.method or "").upper() == "POST" else None
                            if early is not None:  # refused before its body is read
                                await self._simple(writer, early[0], early[1], early[2], close=True)
                                return
                        elif ev is END:
                            break
                        else:
                            body.append(ev)
                    else:
                        if parser.idle and head is None:
                            timeout = self.idle_timeout
                        else:
                            if deadline is None:
                                deadline = loop.time() + self.read_timeout
                            timeout = max(0.0, deadline - loop.time())
                        try:
                            data = await asyncio.wait_for(reader.read(1 << 16), timeout)
                        except asyncio.TimeoutError:
                            if head is not None or not parser.idle:
                                await self._simple(writer, 408, b"", close=True)
                            return
                        except (ConnectionError, OSError):
                            return
                        if not data:
                            return
                        try:
                            events.extend(parser.feed(data))
                        except ProtocolError as exc:
                            await self._simple(writer, exc.status, _error_body(str(exc)), close=True)
                            return
                        continue
                    break  # END reached
                assert head is not None
                deadline = None
                whole, body = b"".join(body), []  # the pieces go once joined
                keep = await self._request(head, whole, reader, writer, conn_session)
                del whole
                ahead, conn_session[1] = conn_session[1], b""
                if ahead and keep:
                    try:
                        events.extend(parser.feed(ahead))
                    except ProtocolError as exc:
                        await self._simple(writer, exc.status, _error_body(str(exc)), close=True)
                        return
                if not keep or not head.keep_alive:
                    return
        except asyncio.CancelledError:
            pass
        finally:
            s = conn_session[0]
            if s is not None:
                try:
                    await self.end(s)
                except asyncio.CancelledError:
                    pass
            try:
                writer.close()
            except Exception:
                pass

    async def _simple(self, writer: asyncio.StreamWriter, status: int, body: bytes = b"",
                      headers: Sequence[tuple[str, str]] = (), ctype: str = "application/json",
                      close: bool = False) -> None:
        h = list(headers)
        if body:
            h.append(("Content-Type", ctype))
        h.append(("Content-Length", str(len(body))))
        if close:
            h.append(("Connection", "close"))
        try:
            writer.write(response_head(status, h) + body)
            await writer.drain()
        except (ConnectionError, OSError, RuntimeError):
            pass

    def _origin_ok(self, head: Head) -> bool:
        origins = head.headers.get_all("origin")
        if not origins:
            return True
        if len(origins) != 1:
            return False  # every Origin would have to be checked; one is all a browser sends
        origin = origins[0].strip().rstrip("/").lower()
        if origin in self.allow_origins:
            return True
        try:
            parts = urlsplit(origin)
            return parts.scheme in ("http", "https") and is_loopback_host(parts.hostname or "")
        except ValueError:
            return False

    def _host_ok(self, head: Head) -> bool:
        hosts = head.headers.get_all("host")
        if len(hosts) != 1:
            return False
        name = _host_of(hosts[0].strip()).strip("[]").lower()
        if is_loopback_host(name):
            return True
        return not self.bound_loopback and name in self.allow_hosts

    def _token_ok(self, head: Head) -> bool:
        if not self.client_tokens:
            return True
        import hmac
        values = head.headers.get_all("authorization")
        if len(values) != 1:
            return False
        scheme, _, token = values[0].strip().partition(" ")
        sent = token.strip().encode("utf-8", "replace")
        ok = False
        for expected in self.client_tokens:  # every one compared: the time says nothing
            ok |= hmac.compare_digest(sent, expected)
        return scheme.lower() == "bearer" and ok

    def _principal(self, head: Head) -> tuple[str, bool]:
        """Who sent a request (identity.principal_of over every credential header the
        deployment checks or forwards: Authorization unless the proxy's token or JWT check
        consumes it, each --forward-header; with a JWT check, the verified issuer and subject)
        and whether that proves a principal (identity.py)."""
        names = [] if self.consumes_authorization else ["authorization"]
        names += [h for h in self.forward_headers if h not in names and
                  not (self.consumes_authorization and h == "authorization")]
        credentials = [(name, value) for name in names for value in head.headers.get_all(name)]
        if self.jwt is not None:
            return verified_principal(self.identity, self.jwt.principal(
                head.headers.get_all("authorization")), credentials)
        who = self.identity.principal(credentials)
        return who, who != ANON or not self.credentialed

    def _early(self, head: Head) -> "tuple[int, bytes, list[tuple[str, str]]] | None":
        """The answer to a request refused on its head alone (Host, token), sent before its
        body is read; None to read on."""
        if not self._host_ok(head):
            hosts = head.headers.get_all("host")
            return 421 if len(hosts) == 1 else 400, _error_body(
                f"the request has {len(hosts)} Host headers; send exactly one" if len(hosts) != 1 else
                f"the Host {hosts[0]!r} is not one this proxy serves (loopback names"
                + (", and each --allow-host" if not self.bound_loopback else "; it is bound to loopback")
                + ")"), []
        if not self._token_ok(head):
            return 401, _error_body(
                "Unauthorized: send Authorization: Bearer <token>, the token given to the proxy "
                "with --client-token-env"), [("WWW-Authenticate", 'Bearer realm="quantity-guard-mcp"')]
        if self.jwt is not None and not (head.method == "GET" and (head.target or "").startswith("/.well-known/")):
            refused = self.jwt.refusal(head.headers.get_all("authorization"))
            if refused is not None:
                return 401, _error_body(f"Unauthorized: {refused[0]}"), [("WWW-Authenticate", refused[1])]
        return None

    async def _request(self, head: Head, body: bytes, reader: asyncio.StreamReader,
                       writer: asyncio.StreamWriter, conn_session: list) -> bool:
        target = head.target or ""
        path = target.split("?", 1)[0]
        early = self._early(head)
        if early is not None:
            await self._simple(writer, early[0], early[1], early[2])
            return True
        if not self._origin_ok(head):
            await self._simple(writer, 403, _error_body(
                f"Forbidden: requests from the origin {head.headers.get('origin')!r} are not accepted "
                "(start the proxy with --allow-origin ORIGIN to accept it)"))
            return True
        if path.startswith("/.well-known/") and self.upstream is not None and head.method == "GET":
            if not _discovery_path(target):
                await self._simple(writer, 404, _error_body(
                    "only the OAuth discovery documents are relayed under /.well-known/ "
                    "(oauth-protected-resource, oauth-authorization-server, openid-configuration)"))
                return True
            await self._well_known(target, writer)
            return True
        if path != self.path:
            await self._simple(writer, 404, _error_body(f"the MCP endpoint is {self.path}"))
            return True
        if head.method == "POST":
            return await self._post(head, body, reader, writer, conn_session)
        if head.method == "GET":
            return await self._get(head, writer)
        if head.method == "DELETE":
            sid = head.headers.get("mcp-session-id")
            session = self._held(sid, head) if sid else None
            if sid and self.store is not None:  # ended for every replica
                try:
                    known = self.directory.find(sid, self._principal(head)[0])
                except StoreUnavailable as exc:
                    await self._simple(writer, 503, _error_body(exc.repair()), [("Retry-After", "5")])
                    return True
                if known is not None:
                    self.directory.ended(sid)
                    if session is None:
                        await self._simple(writer, 204)
                        return True
            if session is None:
                await self._simple(writer, 404 if sid else 400, _error_body(
                    "unknown session" if sid else "DELETE needs an Mcp-Session-Id header"))
                return True
            self._forwarded(head, session)
            await self.end(session)
            refusal = session.remote.end_refusal if session.remote is not None else None
            if refusal is not None:
                await self._auth(writer, refusal)
                return True
            await self._simple(writer, 204)
            return True
        await self._simple(writer, 405, b"", [("Allow", "GET, POST, DELETE")])
        return True

    def _held(self, sid: str, head: Head) -> "_Session | None":
        """The session ``sid`` held here, if this request's principal may continue it
        (gateway.may_continue: its opener's, or another credential when both carry one)."""
        session = self.sessions.get(sid)
        if session is None or may_continue(session.principal, self._principal(head)[0]):
            return session
        return None

    def _forwarded(self, head: Head, session: _Session) -> list[tuple[str, str]]:
        """The client's --forward-header headers on this request; the session keeps the latest
        for the requests the proxy sends upstream on its own (GET stream, DELETE, resumption,
        notifications and answers posted for it)."""
        if not self.forward_headers:
            return []
        found = [(n, v) for n, v in head.headers if n.lower() in self.forward_headers]
        if found and session.remote is not None:
            session.remote.forwarded = found
        return found

    async def _well_known(self, target: str, writer: asyncio.StreamWriter) -> None:
        assert self.upstream is not None
        parts = urlsplit(self.upstream)
        client = Client(f"{parts.scheme}://{parts.netloc}{target}", cafile=self.cafile)
        try:
            resp = await client.request("GET", [("Accept", "application/json")])
            data = await resp.read(1 << 20)
            ctype = resp.headers.get("content-type") or "application/json"
            await self._simple(writer, resp.status, data, ctype=ctype)
        except (UpstreamError, HeaderError) as exc:
            await self._simple(writer, 502, _error_body(f"the upstream could not be asked: {exc}"))
        finally:
            await client.aclose()

    async def _get(self, head: Head, writer: asyncio.StreamWriter) -> bool:
        sid = head.headers.get("mcp-session-id")
        session = self._held(sid, head) if sid else None
        if session is None and sid and self.store is not None:  # opened on another replica?
            adopted = await self._adopt(sid, head, writer, None)
            if adopted is False:
                return True
            session = adopted if isinstance(adopted, _Session) else None
        if session is None or not sid:  # (a session implies a sid: this only tells mypy so)
            await self._simple(writer, 405 if not sid else 404, b"" if not sid else _error_body("unknown session"),
                               [("Allow", "POST")] if not sid else [])
            return True
        if "text/event-stream" not in (head.headers.joined("accept") or ""):
            await self._simple(writer, 406, _error_body("GET needs Accept: text/event-stream"))
            return True
        last = head.headers.get("last-event-id")
        if last is not None:
            return await self._resume(session, sid, last.strip(), writer)
        if session.get_stream is not None and not session.get_stream.closed:
            await self._simple(writer, 409, _error_body("this session already has a GET stream open"))
            return True
        stream = _Stream(writer, True)
        stream.head_extra = [("Mcp-Session-Id", sid)]
        session.number(stream)
        stream.keepalive()  # send the head now
        return await self._hold_get(session, stream)

    async def _hold_get(self, session: _Session, stream: _Stream) -> bool:
        session.get_stream = stream
        writer = stream.writer
        while session.queue:
            stream.send(session.queue.popleft())
        await self._hold(stream, session, None)
        if session.get_stream is stream and stream.writer is writer:
            session.get_stream = None
        return False  # the stream ended by closing the connection

    async def _resume(self, session: _Session, sid: str, last: str, writer: asyncio.StreamWriter) -> bool:
        """GET with ``Last-Event-ID``: replay what followed that event on its stream, then
        continue the stream (2025 "Resumability and Redelivery")."""
        number, _, seq_text = last.partition("-")
        stream = session.replays.get(int(number)) if number.isdigit() and seq_text.isdigit() else None
        seq = int(seq_text) if stream is not None else 0
        first = stream.replay[0][0] if stream is not None and stream.replay else (stream.seq + 1 if stream else 0)
        if stream is None or not first - 1 <= seq <= stream.seq:
            await self._simple(writer, 404, _error_body(
                f"Last-Event-ID {last!r} names no event this proxy still holds for the session "
                f"(it keeps the last {_REPLAY_EVENTS} events of each of the {_REPLAY_STREAMS} latest "
                "streams); send the request again"))
            return True
        stream.attach(writer)
        stream.head_extra = [("Mcp-Session-Id", sid)]
        out = stream._head() + b"".join(chunk(ev) for s, ev in stream.replay if s > seq)
        if stream.key is not None and stream.answered:
            stream.finished = True
            try:
                writer.write(out + LAST_CHUNK)
                await writer.drain()
            except (ConnectionError, OSError, RuntimeError):
                return False
            return True
        try:
            writer.write(out)
        except (ConnectionError, OSError, RuntimeError):
            return False
        if stream.key is None:
            return await self._hold_get(session, stream)
        session.by_id[stream.key] = stream
        if stream.token is not None:
            session.by_token[stream.token] = stream
        try:
            await self._hold(stream, session, None)
            if stream.writer is not writer or (stream.closed and not stream.answered):
                return False
            if not stream.finished:
                writer.write(LAST_CHUNK)
                stream.finished = True
            await writer.drain()
            return True
        except (ConnectionError, OSError, RuntimeError):
            return False
        finally:
            if stream.prime_timer is not None:
                stream.prime_timer.cancel()
            if stream.writer is writer and not stream.pending():
                session.forget(stream)

    def _ticker(self, stream: _Stream) -> Any:
        """A keep-alive comment every ``keepalive`` seconds on ``stream`` until cancelled (the
        first one writes the response head): returns an object with ``cancel()``."""
        loop = asyncio.get_running_loop()
        timer: list[asyncio.TimerHandle] = []

        class _Cancel:
            def cancel(self) -> None:
                timer[0].cancel()

        def tick() -> None:
            if stream.done.is_set() or stream.closed or stream.finished:
                return
            stream.keepalive()
            timer[0] = loop.call_later(self.keepalive, tick)

        timer.append(loop.call_later(self.keepalive, tick))
        return _Cancel()

    async def _hold(self, stream: _Stream, session: _Session, reader: asyncio.StreamReader | None) -> None:
        """Keep a stream open until it is done (or the session ends), with a keep-alive comment
        every ``keepalive`` seconds (a timer, so a quick answer costs no extra task)."""
        loop = asyncio.get_running_loop()
        timer: list[asyncio.TimerHandle] = []

        def tick() -> None:
            if stream.done.is_set() or stream.closed:
                return
            stream.keepalive()
            if stream.writer.is_closing():
                stream.closed = True
                stream.done.set()
                return
            timer[0] = loop.call_later(self.keepalive, tick)

        timer.append(loop.call_later(self.keepalive, tick))
        try:
            if not session.closed:
                await stream.done.wait()
        finally:
            timer[0].cancel()

    async def _post(self, head: Head, body: bytes, reader: asyncio.StreamReader,
                    writer: asyncio.StreamWriter, conn_session: list) -> bool:
        ctype = (head.headers.get("content-type") or "").split(";", 1)[0].strip().lower()
        if ctype != "application/json":
            await self._simple(writer, 415, _error_body("POST a JSON-RPC message as application/json"))
            return True
        sent = Sent(body)
        if sent.kind in (rpc.INVALID, "batch") and sent.obj is None:
            await self._simple(writer, 400, rpc.error_line(None, rpc.PARSE_ERROR, "Parse error: the body is not JSON")[:-1])
            return True
        if sent.modern and sent.is_request:
            wrong = header_mismatch(sent.obj, head.headers, self.shared_catalogue)
            if wrong is not None:
                await self._simple(writer, 400, rpc.error_line(
                    sent.id, HEADER_MISMATCH, f"Header mismatch: {wrong}; send the request headers "
                    "computed from this body (2026-07-28 Streamable HTTP, Request Metadata)")[:-1])
                return True
        sid = head.headers.get("mcp-session-id")
        session: _Session | None
        group = head.headers.get(self.session_header) if self.session_header and sent.modern else None
        if group is not None:  # one principal's conversation (unproven: the connection's session)
            who, proven = self._principal(head)
            group = "\1" + who + "\0" + group if proven else None
        elif sent.modern:
            # one session (guard and upstream) per conversation, whatever connection a call
            # arrives on; a request whose id is in flight there gets this connection's own
            group = self._conversation_group(head, sent)
            held = self.grouped.get(group) if group is not None else None
            if sent.is_request and held is not None and not held.closed and \
                    rpc.id_key(sent.id) in held.guard.pending:
                group = None
        opening = (group is not None and (self.grouped.get(group) is None or self.grouped[group].closed)) \
            or (group is None and sent.modern and conn_session[0] is None) \
            or (not sent.modern and sent.method == "initialize" and not sid)
        client = ""
        if opening:
            client, distinct = self._client_key(head, writer)
            refused = self._refusal(client, distinct)
            if refused is not None:
                await self._simple(writer, 503, _error_body(refused), [("Retry-After", "5")])
                return True
        if group is not None:
            session = self.grouped.get(group)
            if session is None or session.closed:
                session = _Session(self, None, legacy=False)
                session.group = group
                self.hold(session, client)
                self.grouped[group] = session
                await session.start()
            else:
                self.grouped.move_to_end(group)
        elif sent.modern:
            session = conn_session[0]
            if session is None:
                session = _Session(self, None, legacy=False)
                self.hold(session, client)
                conn_session[0] = session
                self._open.add(session)
                await session.start()
        elif sent.method == "initialize" and not sid:
            # the session takes a slot only once the upstream accepts its initialize (see
            # _Session.deliver); until then it counts against the bounds, but ends no other
            session = _Session(self, secrets.token_urlsafe(24), legacy=True)
            session.probation = True
            session.init_key = rpc.id_key(sent.id)
            # what a replay needs of it (bounded), not the body: kept for the session's life
            session.init_line = kept_initialize(body).encode("utf-8") if self.store is not None else None
            session.authorization = head.headers.get("authorization")
            session.principal = self._principal(head)[0]
            self.hold(session, client)
            self._probation.add(session)
            await session.start()
        elif not sid:
            await self._simple(writer, 400, _error_body("missing Mcp-Session-Id: send initialize first"))
            return True
        else:
            session = self._held(sid, head)
            if session is None and self.store is not None:  # opened on another replica?
                adopted = await self._adopt(sid, head, writer, sent.id)
                if adopted is False:
                    return True  # answered (the store or the table refused)
                session = adopted if isinstance(adopted, _Session) else None
            if session is None:
                await self._simple(writer, 404, _error_body("the session has ended; send initialize"))
                return True
            version, agreed = head.headers.get("mcp-protocol-version"), session.guard.protocol_version
            if version is not None and agreed is not None and version != agreed:
                # 2025-06-18 and later, "Protocol Version Header": an invalid or unsupported
                # version gets 400 (absent, the server assumes; present, it must be the agreed one)
                await self._simple(writer, 400, _error_body(
                    f"Bad Request: MCP-Protocol-Version {version!r} is not the version this session "
                    f"agreed ({agreed!r}); send MCP-Protocol-Version: {agreed}"))
                return True
            self.sessions.move_to_end(sid)
        session.last_used = time.monotonic()
        accept = head.headers.joined("accept") or ""
        key = rpc.id_key(sent.id) if sent.is_request else None
        stream = _Stream(writer, "text/event-stream" in accept or not sent.is_request, key)
        if session.sid is not None:
            stream.head_extra = [("Mcp-Session-Id", session.sid)]
        if sent.is_request and stream.sse:
            session.number(stream)
        forwarded = self._forwarded(head, session)
        stream.head_extra_upstream = forwarded + [(n, v) for n, v in head.headers
                                                  if _passes_param(n, session, sent)]
        token = None
        if sent.is_request:
            if key is not None:
                session.by_id[key] = stream
            token = _progress_token(sent.obj)
            if token is not None:
                session.by_token[token] = stream
                stream.token = token
        if sent.method == "tools/call":
            self._use_conversation(session, head, sent)
        try:
            sent.obj = None  # read what was needed of it: not kept while the guard reads the body
            outputs = session.guard.receive(C2S, body)
            if not sent.is_request:
                if session.remote is not None and len(outputs) == 1 and outputs[0][0] == C2S:
                    # posted before the 202, so that the upstream's refusal reaches the client
                    status, refusal = await session.post_notice(outputs[0][1], stream.head_extra_upstream)
                    if refusal is not None:
                        await self._auth(writer, refusal)
                        return True
                    if status is not None and status >= 400:
                        await self._simple(writer, status if status < 500 else 502, _error_body(
                            f"the upstream MCP server refused this {sent.method or 'message'} "
                            f"with HTTP {status}"), stream.head_extra)
                        return True
                else:
                    session.dispatch(outputs, None)
                await self._simple(writer, 202, b"", stream.head_extra)
                return True
            if stream.prime and stream.sse and any(d == C2S for d, _ in outputs):
                # The priming event goes out with the first message; a call that has sent
                # nothing after _PRIME_DELAY sends it alone (a quick call costs no extra write).
                stream.prime_timer = asyncio.get_running_loop().call_later(_PRIME_DELAY, stream.start_if_idle)
            if session.remote is not None and not sent.modern and len(outputs) == 1 \
                    and outputs[0][0] == C2S:
                # The usual 2025 case with a remote upstream: relay in this task (no extra task
                # or loop turn per call); the upstream's answer ends the stream. (2026-07-28
                # requests keep a watcher for the client closing the stream: that cancels.)
                # An SSE client gets keep-alives while the upstream has not answered yet.
                ticker = self._ticker(stream) if stream.sse else None
                try:
                    await session._post_upstream(outputs[0][1], stream)
                finally:
                    if ticker is not None:
                        ticker.cancel()
            else:
                session.dispatch(outputs, stream)
            if not stream.sse:
                await stream.done.wait() if not session.closed else None
                if stream.auth is not None:
                    await self._auth(writer, stream.auth)
                    return True
                answer = stream.json_answer or rpc.error_line(sent.id, rpc.INTERNAL_ERROR,
                                                              "the session ended before the answer")[:-1]
                await self._simple(writer, 200, answer, stream.head_extra)
                return True
            if not sent.modern:
                # 2025: a disconnection is not a cancellation; the answer is kept for a
                # resumption (the stream has ids), else routed elsewhere.
                await self._hold(stream, session, reader)
                if stream.writer is not writer or stream.pending():
                    return False  # resumed on another connection, or waiting for that
            else:
                watcher = asyncio.ensure_future(reader.read(1))
                holder = asyncio.ensure_future(self._hold(stream, session, reader))
                done, _ = await asyncio.wait({watcher, holder}, return_when=asyncio.FIRST_COMPLETED)
                if watcher in done and watcher.result() and not holder.done():
                    await holder  # bytes of a pipelined request (not supported): keep the stream
                elif watcher in done and not holder.done():
                    # The client closed its end before the response: for 2026-07-28 that cancels
                    # ("Cancellation": closing the SSE response stream is the signal).
                    holder.cancel()
                    stream.closed = True
                    self._cancel(session, sent)
                    return False
                if watcher.done() and not watcher.cancelled() and watcher.exception() is None \
                        and watcher.result():
                    conn_session[1] = watcher.result()  # the next request began: not lost
                watcher.cancel()
            if stream.auth is not None and not stream.started:
                await self._auth(writer, stream.auth)
                return True
            if stream.auth is not None and not stream.finished:
                # the head (with keep-alives) went out before the upstream refused: the
                # refusal can only be a JSON-RPC error now
                status, headers, _ = stream.auth
                challenge = headers.get("www-authenticate")
                stream.send(rpc.error_line(sent.id, rpc.INTERNAL_ERROR, (
                    f"the upstream answered HTTP {status}" + (f" (WWW-Authenticate: {challenge})"
                                                              if challenge else "")))[:-1], key)
            if not stream.finished and not stream.started and session.closed:
                stream.send(rpc.error_line(sent.id, rpc.INTERNAL_ERROR,
                                           "the upstream session ended before answering")[:-1], key)
            try:
                if not stream.finished:
                    stream._start()
                    writer.write(LAST_CHUNK)
                    stream.finished = True
                await writer.drain()
            except (ConnectionError, OSError, RuntimeError):
                return False
            return True
        finally:
            if stream.prime_timer is not None:
                stream.prime_timer.cancel()
            if stream.writer is writer and not stream.pending():
                session.forget(stream)
            if session.probation and (session.init_failed or stream.auth is not None or session.closed):
                # the upstream refused the initialize (an error, 401/403) or went away: the
                # session never took a slot; its upstream is ended
                self.spawn(self.end(session))

    def _conversation_group(self, head: Head, sent: Sent) -> str | None:
        """The grouping key of a 2026-07-28 request without a --session-header value: its
        conversation's (a NUL first: no header value can be one); None for a request that
        proves no principal (served by its connection's own session)."""
        who, proven = self._principal(head)
        if not proven:
            return None
        params = sent.obj.get("params") if type(sent.obj) is dict else None
        meta = params.get("_meta") if type(params) is dict else None
        return "\0" + conversation_of(meta=meta, principal=who, key=self.identity).key

    def _use_conversation(self, session: _Session, head: Head, sent: Sent) -> None:
        """Hand the session's policy the ledger of this request's conversation (the first of
        the 2025 session, the --session-header value, the trace id in params._meta, the
        credential with clientInfo: mcp/identity.py)."""
        use = getattr(session.guard.policy, "use_ledger", None)
        if use is None:
            return
        params = sent.obj.get("params") if type(sent.obj) is dict else None
        meta = params.get("_meta") if type(params) is dict else None
        who, proven = (session.principal, True) if session.sid is not None else self._principal(head)
        conversation = conversation_of(
            session_id=session.sid,
            header=head.headers.get(self.session_header) if self.session_header else None,
            meta=meta, principal=who, proven=proven, key=self.identity)
        use(self.conversations.ledger(conversation.key) if conversation.key else
            self.conversations.transient())

    async def _adopt(self, sid: str, head: Head, writer: asyncio.StreamWriter,
                     ident: Any) -> "_Session | None | bool":
        """Serve a 2025 session another replica opened: its record in the store (opened by this
        credential), a new upstream here, the client's initialize replayed to it under a private
        id (its answer is not forwarded) and notifications/initialized. Returns the session,
        None (unknown here too), or False when the request was answered (the store cannot be
        reached, the table is full, the upstream refused)."""
        waiting = self._adopting.get(sid)
        if waiting is not None:  # another request of the session is adopting it
            return await asyncio.shield(waiting)
        done: asyncio.Future = asyncio.get_running_loop().create_future()
        self._adopting[sid] = done
        result: "_Session | None | bool" = None
        try:
            result = await self._adopt_once(sid, head, writer, ident)
        finally:
            del self._adopting[sid]
            done.set_result(result if result is not False else None)
        return result

    async def _adopt_once(self, sid: str, head: Head, writer: asyncio.StreamWriter,
                          ident: Any) -> "_Session | None | bool":
        authorization = head.headers.get("authorization")
        try:
            record = self.directory.find(sid, self._principal(head)[0])
        except StoreUnavailable as exc:
            if ident is not None:
                await self._simple(writer, 503, unavailable_error(ident, exc)[:-1], [("Retry-After", "5")])
            else:
                await self._simple(writer, 503, _error_body(exc.repair()), [("Retry-After", "5")])
            return False
        if record is None:
            if time.time() < self.store.lost_until:  # emptied moments ago: not yet written back
                body = "the shared store was found emptied moments ago; retry in a few seconds"
                await self._simple(writer, 503, rpc.error_line(ident, rpc.INTERNAL_ERROR, body)[:-1]
                                   if ident is not None else _error_body(body), [("Retry-After", "5")])
                return False
            return None
        client, distinct = self._client_key(head, writer)
        refused = self._refusal(client, distinct)
        if refused is not None:
            await self._simple(writer, 503, _error_body(refused), [("Retry-After", "5")])
            return False
        try:
            init, note = replayed_initialize(record)
        except (ValueError, TypeError):
            return None
        session = _Session(self, sid, legacy=True)
        session.init_line = record["initialize"].encode("utf-8")
        session.authorization = authorization
        session.principal = record["who"]
        self.hold(session, client)
        answer: asyncio.Future = asyncio.get_running_loop().create_future()
        session.private[("s", REPLAY_ID)] = answer
        try:
            await session.start()
            self._forwarded(head, session)  # the client's --forward-header credentials, upstream too
            session.dispatch(session.guard.receive(C2S, init), None)
            got = await asyncio.wait_for(answer, self.upstream_timeout or 300.0)
        except (asyncio.TimeoutError, OSError) as exc:
            got = {"error": {"message": f"{type(exc).__name__}: {exc}"}}
        if type(got) is not dict or "result" not in got or session.closed:
            self.log(f"{session.label()}: the upstream did not accept the replayed initialize")
            await self.end(session)
            await self._simple(writer, 502, _error_body(
                "the upstream of this replica did not accept the session's initialize; send "
                "initialize again"))
            return False
        session.dispatch(session.guard.receive(C2S, note), None)
        self.sessions[sid] = session
        return session

    def _cancel(self, session: _Session, sent: Sent) -> None:
        if session.remote is not None:
            session.remote.cancel(sent.id)
            session.guard.receive(C2S, rpc.encode({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                                   "params": {"requestId": sent.id}}))
        else:  # stdio 2026-07-28: the client MUST send notifications/cancelled; we do it for it
            note = rpc.encode({"jsonrpc": "2.0", "method": "notifications/cancelled",
                               "params": {"requestId": sent.id, "reason": "the HTTP client closed the stream"}})
            session.dispatch(session.guard.receive(C2S, note), None)

    async def _auth(self, writer: asyncio.StreamWriter, auth: tuple[int, Any, bytes]) -> None:
        status, headers, body = auth
        extra = [(n, v) for n, v in headers if n.lower() == "www-authenticate"]
        ctype = headers.get("content-type") or "application/json"
        await self._simple(writer, status, body, extra, ctype=ctype)


def _progress_token(obj: Any) -> tuple | None:
    """The id key of a request's ``params._meta.progressToken``, if it has one."""
    params = obj.get("params") if type(obj) is dict else None
    meta = params.get("_meta") if type(params) is dict else None
    return rpc.id_key(meta.get("progressToken")) if type(meta) is dict else None


def _passes_param(name: str, session: _Session, sent: Sent) -> bool:
    """An ``Mcp-Param-*`` header of the client that the proxy does not recompute (2026-07-28:
    intermediaries MUST forward unknown ones)."""
    low = name.lower()
    if not low.startswith("mcp-param-") or sent.method != "tools/call":
        return False
    params = sent.obj.get("params") if type(sent.obj) is dict else None
    tool = session.catalogue().get(params.get("name")) if type(params) is dict else None
    if tool is None:
        return True
    known = {n.lower() for n, _ in param_headers(tool, {k: 0 for k in _all_keys(tool)})}
    return low not in known


class _Catalogue:
    """Look-ups in a session's catalogue, then in the listener's shared one."""

    __slots__ = ("own", "shared")

    def __init__(self, own: dict, shared: dict) -> None:
        self.own, self.shared = own, shared

    def get(self, name: Any, default: Any = None) -> Any:
        tool = self.own.get(name)
        return tool if tool is not None else self.shared.get(name, default)

    def __bool__(self) -> bool:
        return bool(self.own) or bool(self.shared)


def _all_keys(tool: Any) -> list:
    schema = tool.get("inputSchema") if type(tool) is dict else None
    props = schema.get("properties") if type(schema) is dict else None
    return list(props) if type(props) is dict else []


_DISCOVERY = ("oauth-protected-resource", "oauth-authorization-server", "openid-configuration")


def _discovery_path(target: str) -> bool:
    """``/.well-known/<an OAuth discovery document>[/<path of the resource>]``, without a
    query, dot segments, escapes or anything but plain path characters."""
    if "?" in target or "#" in target or "%" in target or "\\" in target:
        return False
    parts = target.split("/")
    if len(parts) < 3 or parts[:2] != ["", ".well-known"] or parts[2] not in _DISCOVERY:
        return False
    rest = parts[3:]
    return all(p not in (".", "..") and all(c.isalnum() or c in "-._~" for c in p) for p in rest)


def _error_body(message: str) -> bytes:
    """A JSON-RPC error response without an id, for HTTP-level refusals."""
    return rpc.error_line(None, rpc.INVALID_REQUEST, message)[:-1]


def run_listener(address: tuple[str, int], new_policy: Callable[[], Any], *, log: Callable[[str], None],
                 ready: Callable[[str, int], None] | None = None, **options: Any) -> int:
    """Serve until SIGTERM/SIGINT/SIGHUP; returns the exit status (0, or 128+N on signal N)."""
    got: list[int] = []

    async def main() -> int:
        listener = Listener(address[0], address[1], new_policy, log=log, **options)
        try:
            host, port = await listener.start()
        except OSError as exc:
            log(f"cannot listen on {address[0]}:{address[1]}: {exc.strerror or exc}")
            return 4
        log(f"serving MCP over Streamable HTTP at http://{_url_host(host)}:{port}{listener.path}")
        if not listener.bound_loopback:
            log(f"warning: listening on {host}, reachable beyond this machine: clients must send "
                + ("a bearer JWT the key set verifies" if listener.jwt is not None else
                   "the --client-token-env bearer token") + "; Host must be a loopback name or one of "
                f"{sorted(listener.allow_hosts)}; traffic is plain HTTP (put a TLS proxy in front)")
        if ready is not None:
            ready(host, port)
        loop = asyncio.get_running_loop()

        def on_signal(number: int) -> None:
            got.append(number)
            listener.stop()

        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                try:
                    loop.add_signal_handler(sig, on_signal, sig)
                except (NotImplementedError, RuntimeError, ValueError):
                    pass
        await listener.serve()
        from ..logs import log_file_failed
        if listener.write_failed or log_file_failed():  # a manifest or a log record was lost
            return 6
        return 128 + got[0] if got else 0

    return asyncio.run(main())


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
