"""One POST to the listener, from its checks to the end of its response.

:class:`PostExchange` runs the steps in order: the body is checked (media type, JSON, the
2026-07-28 request headers), a session is chosen or opened for it (:meth:`session_for`), a
stream is opened for what answers it, the guard reads it, and its outputs are routed: upstream,
to this response, or to another stream of the session. :meth:`run` returns whether the
connection may carry another request.
"""
from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Iterable
from typing import Any

from .. import jsonrpc as rpc
from ..gateway import kept_initialize
from ..guard import C2S
from .admission import error_body
from .headers import HEADER_MISMATCH, header_mismatch, param_headers
from .replay import Stream, Writer, hold, holding, ticker
from .sessions import Session
from .upstream import Sent
from .wire import LAST_CHUNK, Head, response_head

__all__ = ["PostExchange", "Connection", "cancel", "reply", "PENDING", "PRIME_DELAY"]

PENDING = object()
"""What :meth:`PostExchange.now` returns when the answer is written later, by a callback that
then calls the connection's ``finished``."""

_HEADS: dict[tuple, bytes] = {}  # the start of frequent response heads (up to Content-Length)
_HEADS_KEPT = 256



def reply(writer: Any, status: int, body: bytes = b"", headers: Iterable[tuple[str, str]] = (),
          ctype: str = "application/json", close: bool = False) -> None:
    """Write a whole response (head and body) in one write; a connection that has gone is
    ignored. The fields: ``headers``, ``Content-Type`` (with a body), ``Content-Length`` and,
    with ``close``, ``Connection: close``."""
    key = (status, tuple(headers), ctype if body else None)
    start = _HEADS.get(key)
    if start is None:
        h = list(key[1])
        if body:
            h.append(("Content-Type", ctype))
        start = response_head(status, h)[:-2]  # the blank line comes after Content-Length
        if len(_HEADS) >= _HEADS_KEPT:
            _HEADS.clear()
        _HEADS[key] = start
    tail = b"Connection: close\r\n\r\n" if close else b"\r\n"
    try:
        writer.write(b"%sContent-Length: %d\r\n%s%s" % (start, len(body), tail, body))
    except (ConnectionError, OSError, RuntimeError):
        pass

PRIME_DELAY = 0.02  # seconds before an idle request stream sends its priming event alone


class Connection:
    """What one client connection carries from a request to the next: its 2026-07-28 session,
    and the bytes of the next request that a request's close watcher read ahead (given back to
    the parser once that request ends)."""

    __slots__ = ("session", "ahead")

    def __init__(self) -> None:
        self.session: Session | None = None
        self.ahead = b""


class _Answered(Exception):
    """The request was answered (an error or a refusal): the connection may go on."""


class PostExchange:
    """One POST: ``await PostExchange(listener, head, body, reader, writer, conn).run()``."""

    def __init__(self, listener: Any, head: Head, body: bytes, reader: Writer,
                 writer: Writer, conn: Connection) -> None:
        self.listener = listener
        self.head = head
        self.body = body
        self.reader = reader
        self.writer = writer
        self.conn = conn
        self.sent: Sent | None = None
        self.message = b""  # the body, read (jsonrpc.read_once)

    async def refuse(self, status: int, body: bytes, headers: Any = ()) -> None:
        await self.listener.simple(self.writer, status, body, headers)
        raise _Answered

    async def run(self) -> bool:
        try:
            sent = await self.checked()
            session = await self.session_for(sent)
        except _Answered:
            return True
        session.last_used = time.monotonic()
        stream = self.open_stream(session, sent)
        try:
            outputs = self.guarded(session, sent)
            if not sent.is_request:
                return await self.notice(session, sent, stream, outputs)
            return await self.answer(session, sent, stream, outputs)
        except _Answered:
            return True
        finally:
            self.release(session, stream)

    def now(self) -> Any:
        """The usual POST answered without a task: a 2025 request (its answer as JSON or an
        event stream) or notification for a session held here, with a command upstream. Returns whether the
        connection goes on, :data:`connection.PENDING` when the answer is written as it arrives
        (then ``writer.finished`` is called), or None, having done nothing, for any other
        request (:meth:`run` answers it)."""
        L, head = self.listener, self.head
        h = head.headers
        sid = h.get("mcp-session-id")
        if L.upstream is not None or not sid or \
                (h.get("content-type") or "").split(";", 1)[0].strip().lower() != "application/json":
            return None
        message = rpc.read_once(self.body)
        sent = Sent(message)
        if sent.obj is None or sent.modern or sent.method == "initialize":
            return None
        session = L.held(sid, head)
        if session is None or session.closed:
            return None
        if _other_version(head, session) is not None:
            return None  # (run refuses it)
        self.message, self.sent = message, sent
        del message
        L.table.sessions.move_to_end(sid)
        session.last_used = time.monotonic()
        stream = self.open_stream(session, sent)
        try:
            outputs = self.guarded(session, sent)
            if not sent.is_request:
                session.dispatch(outputs, None)
                reply(self.writer, 202, b"", stream.head_extra)
                self.release(session, stream)
                return True
            if stream.prime and stream.sse and any(d == C2S for d, _ in outputs):
                stream.prime_timer = asyncio.get_running_loop().call_later(
                    PRIME_DELAY, stream.start_if_idle)  # (see answer)
            session.dispatch(outputs, stream)
        except BaseException:
            self.release(session, stream)
            raise
        end = self.events_end if stream.sse else self.json_answer
        if session.closed or stream.done.is_set():
            return end(session, sent, stream)
        keeping = holding(stream, L.keepalive) if stream.sse else None

        def answered() -> None:  # the answer came (or the session or the client went)
            if keeping is not None:
                keeping.cancel()
            keep = False
            try:
                keep = end(session, sent, stream)
            finally:
                self.writer.finished(self.head, keep)

        stream.done.then = answered
        return PENDING

    def json_answer(self, session: Session, sent: Sent, stream: Stream) -> bool:
        """Write a JSON response's answer (an error when the session ended without one)."""
        try:
            reply(self.writer, 200, _answer_body(sent, stream), stream.head_extra)
        finally:
            self.release(session, stream)
        return True

    def events_end(self, session: Session, sent: Sent, stream: Stream) -> bool:
        """End a 2025 request's event stream once it is done (:meth:`answer` then
        :meth:`finish`, for a command upstream, without waiting); whether the connection goes
        on."""
        try:
            if stream.writer is not self.writer or stream.pending():
                return False  # resumed on another connection, or waiting for that
            _close_events(self.writer, session, sent, stream)
            return not self.writer.is_closing()
        except (ConnectionError, OSError, RuntimeError):
            return False
        finally:
            self.release(session, stream)

    def guarded(self, session: Session, sent: Sent) -> list[tuple[str, bytes]]:
        """The guard's outputs for the body (read once; not kept while the guard reads it)."""
        sent.obj = None  # read what was needed of it: not kept while the guard reads the body
        message, self.message = self.message, b""
        return session.guard.receive(C2S, message)

    def release(self, session: Session, stream: Stream) -> None:
        """What ends with the request, answered or not."""
        if stream.prime_timer is not None:
            stream.prime_timer.cancel()
        if stream.writer is self.writer and not stream.pending():
            session.forget(stream)
        if session.probation and (session.init_failed or stream.auth is not None or session.closed):
            # the upstream refused the initialize (an error, 401/403) or went away: the
            # session never took a slot; its upstream is ended
            self.listener.spawn(self.listener.end(session))

    # ------------------------------------------------------------ the body

    async def checked(self) -> Sent:
        head = self.head
        ctype = (head.headers.get("content-type") or "").split(";", 1)[0].strip().lower()
        if ctype != "application/json":
            await self.refuse(415, error_body("POST a JSON-RPC message as application/json"))
        self.message = rpc.read_once(self.body)  # read once: the guard reads it as it is
        sent = Sent(self.message)
        if sent.kind in (rpc.INVALID, "batch") and sent.obj is None:
            await self.refuse(400, rpc.error_line(None, rpc.PARSE_ERROR,
                                                  "Parse error: the body is not JSON")[:-1])
        if sent.modern and sent.is_request:
            wrong = header_mismatch(sent.obj, head.headers, self.listener.shared_catalogue)
            if wrong is not None:
                await self.refuse(400, rpc.error_line(
                    sent.id, HEADER_MISMATCH, f"Header mismatch: {wrong}; send the request headers "
                    "computed from this body (2026-07-28 Streamable HTTP, Request Metadata)")[:-1])
        self.sent = sent
        return sent

    # ------------------------------------------------------------ the session

    def group_of(self, sent: Sent) -> str | None:
        """The key of the grouped 2026-07-28 session this request goes to, or None."""
        L, head = self.listener, self.head
        group = head.headers.get(L.session_header) if L.session_header and sent.modern else None
        if group is not None:  # one principal's conversation (unproven: the connection's session)
            who, proven = L.admission.principal(head)
            return "\1" + who + "\0" + group if proven else None
        if not sent.modern:
            return None
        # one session (guard and upstream) per conversation, whatever connection a call
        # arrives on; a request whose id is in flight there gets this connection's own
        group = L.table.conversation_group(head, sent)
        held = L.table.grouped.get(group) if group is not None else None
        if sent.is_request and held is not None and not held.closed and \
                rpc.id_key(sent.id) in held.guard.pending:
            return None
        return group

    async def session_for(self, sent: Sent) -> Session:
        L, head = self.listener, self.head
        sid = head.headers.get("mcp-session-id")
        group = self.group_of(sent)
        grouped = L.table.grouped
        opening = (group is not None and (grouped.get(group) is None or grouped[group].closed)) \
            or (group is None and sent.modern and self.conn.session is None) \
            or (not sent.modern and sent.method == "initialize" and not sid)
        client = ""
        if opening:
            client, distinct = L.admission.client_key(head, self.writer)
            refused = L.admission.refusal(client, distinct, L.table.count())
            if refused is not None:
                await self.refuse(503, error_body(refused), [("Retry-After", "5")])
        if group is not None:
            session = grouped.get(group)
            if session is not None and not session.closed:
                grouped.move_to_end(group)
                return session
            session = Session(L, None, legacy=False)
            session.group = group
            L.admission.hold(session, client)
            grouped[group] = session
        elif sent.modern:
            if self.conn.session is not None:
                return self.conn.session
            session = Session(L, None, legacy=False)
            L.admission.hold(session, client)
            self.conn.session = session
            L.table.open.add(session)
        elif sent.method == "initialize" and not sid:
            session = self.opened_legacy(sent, client)
        elif not sid:
            await self.refuse(400, error_body("missing Mcp-Session-Id: send initialize first"))
        else:
            return await self.continued(sid)
        await session.start()
        return session

    def opened_legacy(self, sent: Sent, client: str) -> Session:
        """A 2025 session for this initialize. It takes a slot only once the upstream accepts
        its initialize (see Session.deliver); until then it counts against the bounds, but ends
        no other."""
        L, head = self.listener, self.head
        session = Session(L, secrets.token_urlsafe(24), legacy=True)
        session.probation = True
        session.init_key = rpc.id_key(sent.id)
        # what a replay needs of it (bounded), not the body: kept for the session's life
        session.init_line = kept_initialize(self.body).encode("utf-8") if L.store is not None else None
        session.authorization = head.headers.get("authorization")
        session.principal = L.admission.principal(head)[0]
        L.admission.hold(session, client)
        L.table.probation.add(session)
        return session

    async def continued(self, sid: str) -> Session:
        """The 2025 session ``sid``, held here or adopted from the store."""
        L, head = self.listener, self.head
        session = L.held(sid, head)
        if session is None and L.store is not None:  # opened on another replica?
            assert self.sent is not None  # read before a session is looked up
            adopted = await L.table.adopt(sid, head, self.writer, self.sent.id)
            if adopted is False:
                raise _Answered  # answered (the store or the table refused)
            session = adopted if isinstance(adopted, Session) else None
        if session is None:
            await self.refuse(404, error_body("the session has ended; send initialize"))
        version = _other_version(head, session)
        if version is not None:
            agreed = session.guard.protocol_version
            await self.refuse(400, error_body(
                f"Bad Request: MCP-Protocol-Version {version!r} is not the version this session "
                f"agreed ({agreed!r}); send MCP-Protocol-Version: {agreed}"))
        L.table.sessions.move_to_end(sid)
        return session

    # ------------------------------------------------------------ the response

    def open_stream(self, session: Session, sent: Sent) -> Stream:
        head = self.head
        accept = head.headers.joined("accept") or ""
        key = rpc.id_key(sent.id) if sent.is_request else None
        stream = Stream(self.writer, "text/event-stream" in accept or not sent.is_request, key)
        if session.sid is not None:
            stream.head_extra = [("Mcp-Session-Id", session.sid)]
        if sent.is_request and stream.sse:
            session.number(stream)
        forwarded = self.listener.forwarded(head, session)
        stream.head_extra_upstream = forwarded + [(n, v) for n, v in head.headers
                                                  if n[:10].lower() == "mcp-param-"
                                                  and _passes_param(n, session, sent)]
        if sent.is_request:
            if key is not None:
                session.by_id[key] = stream
            token = _progress_token(sent.obj)
            if token is not None:
                session.by_token[token] = stream
                stream.token = token
        if sent.method == "tools/call":
            self.listener.table.use_conversation(session, head, sent)
        return stream

    async def notice(self, session: Session, sent: Sent, stream: Stream,
                     outputs: list[tuple[str, bytes]]) -> bool:
        """A notification or an answer of the client: 202 once it is on its way upstream."""
        if session.remote is not None and len(outputs) == 1 and outputs[0][0] == C2S:
            # posted before the 202, so that the upstream's refusal reaches the client
            status, refusal = await session.post_notice(outputs[0][1], stream.head_extra_upstream)
            if refusal is not None:
                await self.listener.auth_answer(self.writer, refusal)
                return True
            if status is not None and status >= 400:
                await self.listener.simple(self.writer, status if status < 500 else 502, error_body(
                    f"the upstream MCP server refused this {sent.method or 'message'} "
                    f"with HTTP {status}"), stream.head_extra)
                return True
        else:
            session.dispatch(outputs, None)
        await self.listener.simple(self.writer, 202, b"", stream.head_extra)
        return True

    async def answer(self, session: Session, sent: Sent, stream: Stream,
                     outputs: list[tuple[str, bytes]]) -> bool:
        """A request: its outputs routed, then its response held open until it is answered."""
        L = self.listener
        if stream.prime and stream.sse and any(d == C2S for d, _ in outputs):
            # The priming event goes out with the first message; a call that has sent
            # nothing after PRIME_DELAY sends it alone (a quick call costs no extra write).
            stream.prime_timer = asyncio.get_running_loop().call_later(PRIME_DELAY, stream.start_if_idle)
        if session.remote is not None and not sent.modern and len(outputs) == 1 \
                and outputs[0][0] == C2S:
            # The usual 2025 case with a remote upstream: relay in this task (no extra task
            # or loop turn per call); the upstream's answer ends the stream. (2026-07-28
            # requests keep a watcher for the client closing the stream: that cancels.)
            # An SSE client gets keep-alives while the upstream has not answered yet.
            keeping = ticker(stream, L.keepalive) if stream.sse else None
            try:
                await session.post_upstream(outputs[0][1], stream)
            finally:
                if keeping is not None:
                    keeping.cancel()
        else:
            session.dispatch(outputs, stream)
        if not stream.sse:
            await stream.done.wait() if not session.closed else None
            if stream.auth is not None:
                await L.auth_answer(self.writer, stream.auth)
                return True
            await L.simple(self.writer, 200, _answer_body(sent, stream), stream.head_extra)
            return True
        if not sent.modern:
            # 2025: a disconnection is not a cancellation; the answer is kept for a
            # resumption (the stream has ids), else routed elsewhere.
            await hold(stream, session.closed, L.keepalive)
            if stream.writer is not self.writer or stream.pending():
                return False  # resumed on another connection, or waiting for that
        elif not await self.watched(session, sent, stream):
            return False
        return await self.finish(session, sent, stream)

    async def watched(self, session: Session, sent: Sent, stream: Stream) -> bool:
        """Hold a 2026-07-28 request's stream while watching for the client closing it, which
        cancels the request ("Cancellation": closing the SSE response stream is the signal).
        False: cancelled."""
        watcher = asyncio.ensure_future(self.reader.read(1))
        holder = asyncio.ensure_future(hold(stream, session.closed, self.listener.keepalive))
        done, _ = await asyncio.wait({watcher, holder}, return_when=asyncio.FIRST_COMPLETED)
        if watcher in done and watcher.result() and not holder.done():
            await holder  # bytes of a pipelined request (not supported): keep the stream
        elif watcher in done and not holder.done():
            holder.cancel()
            stream.closed = True
            cancel(session, sent)
            return False
        if watcher.done() and not watcher.cancelled() and watcher.exception() is None \
                and watcher.result():
            self.conn.ahead = watcher.result()  # the next request began: not lost
        watcher.cancel()
        await asyncio.wait({watcher})  # its read ends before the connection reads again
        return True

    async def finish(self, session: Session, sent: Sent, stream: Stream) -> bool:
        """End an event stream: the upstream's refusal or the end of the session, if that is
        what came instead of the answer, then the last chunk."""
        key = stream.key
        if stream.auth is not None and not stream.started:
            await self.listener.auth_answer(self.writer, stream.auth)
            return True
        if stream.auth is not None and not stream.finished:
            # the head (with keep-alives) went out before the upstream refused: the
            # refusal can only be a JSON-RPC error now
            status, headers, _ = stream.auth
            challenge = headers.get("www-authenticate")
            stream.send(rpc.error_line(sent.id, rpc.INTERNAL_ERROR, (
                f"the upstream answered HTTP {status}" + (f" (WWW-Authenticate: {challenge})"
                                                          if challenge else "")))[:-1], key)
        try:
            _close_events(self.writer, session, sent, stream)
            await self.writer.drain()
        except (ConnectionError, OSError, RuntimeError):
            return False
        return True


def _other_version(head: Head, session: Session) -> str | None:
    """The MCP-Protocol-Version a request to a 2025 session names when it is not the one the
    session agreed (2025-06-18 and later, "Protocol Version Header": absent, the server
    assumes it; present, it must be the agreed one, else 400); None otherwise."""
    version, agreed = head.headers.get("mcp-protocol-version"), session.guard.protocol_version
    return version if version is not None and agreed is not None and version != agreed else None


def _answer_body(sent: Sent, stream: Stream) -> bytes:
    """A JSON response's body: the answer, or an error when the session ended without one."""
    return stream.json_answer or rpc.error_line(sent.id, rpc.INTERNAL_ERROR,
                                                "the session ended before the answer")[:-1]


def _close_events(writer: Writer, session: Session, sent: Sent, stream: Stream) -> None:
    """The end of a request's event stream: the session's end said when it came instead of any
    event, then the last chunk (once)."""
    if not stream.finished and not stream.started and session.closed:
        stream.send(rpc.error_line(sent.id, rpc.INTERNAL_ERROR,
                                   "the upstream session ended before answering")[:-1],
                    stream.key)
    if not stream.finished:
        stream.start()
        writer.write(LAST_CHUNK)
        stream.finished = True


def cancel(session: Session, sent: Sent) -> None:
    """The client closed a 2026-07-28 request's stream: the request is cancelled upstream."""
    if session.remote is not None:
        session.remote.cancel(sent.id)
        session.guard.receive(C2S, rpc.encode({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                               "params": {"requestId": sent.id}}))
    else:  # stdio 2026-07-28: the client MUST send notifications/cancelled; we do it for it
        note = rpc.encode({"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": sent.id, "reason": "the HTTP client closed the stream"}})
        session.dispatch(session.guard.receive(C2S, note), None)


def _progress_token(obj: Any) -> tuple | None:
    """The id key of a request's ``params._meta.progressToken``, if it has one."""
    params = obj.get("params") if type(obj) is dict else None
    meta = params.get("_meta") if type(params) is dict else None
    return rpc.id_key(meta.get("progressToken")) if type(meta) is dict else None


def _passes_param(name: str, session: Session, sent: Sent) -> bool:
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


def _all_keys(tool: Any) -> list:
    schema = tool.get("inputSchema") if type(tool) is dict else None
    props = schema.get("properties") if type(schema) is dict else None
    return list(props) if type(props) is dict else []
