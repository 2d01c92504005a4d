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
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence
from urllib.parse import urlsplit

from ...errors import StoreUnavailable
from ..gateway import Conversations, Sessions, may_continue
from ..identity import IdentityKey
from .admission import Admission, error_body, is_loopback_host
from .client import Client, UpstreamError
from .connection import ClientConnection
from .replay import REPLAY_EVENTS, REPLAY_STREAMS, Stream, Writer, hold
from .routing import Connection, PostExchange, reply
from .sessions import Session, SessionTable
from ..shell import EXIT_OK, EXIT_RECORD_LOST, EXIT_START_FAILED, STOP_SIGNALS, signal_status
from .wire import LAST_CHUNK, Head, HeaderError, chunk

__all__ = ["parse_listen", "Listener", "ListenOptions", "run_listener", "is_loopback_host"]

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


@dataclass
class ListenOptions:
    """How a :class:`Listener` serves: its upstream (``command`` or ``upstream``, exactly one),
    who it admits, its bounds and timeouts, and where sessions are shared (``store``). Each is
    the keyword argument of the same name of :class:`Listener` and the command line's option
    (``docs/cli.md``)."""

    command: list[str] | None = None
    upstream: str | None = None
    headers: list[tuple[str, str]] | None = None
    forward_headers: Sequence[str] = ()
    allow_origins: Sequence[str] = ()
    cafile: str | None = None
    max_sessions: int = 64
    max_body: int = 16 << 20
    idle_timeout: float = 120.0
    read_timeout: float = 30.0
    session_idle: float = 3600.0
    keepalive: float = 15.0
    session_header: str | None = None
    max_sessions_per_client: int | None = None
    client_token: str | None = None
    allow_hosts: Sequence[str] = ()
    client_tokens: Sequence[str] = ()
    max_message: int | None = None
    max_connections: int = 512
    max_connections_per_peer: int | None = None
    upstream_timeout: float | None = 300.0
    upstream_idle_timeout: float | None = 300.0
    store: Any = None
    conversations: Conversations | None = None
    identity: IdentityKey | None = None
    jwt: Any = None
    log: Callable[[str], None] | None = None
    path: str = "/mcp"


_ADMISSION = ("forward_headers", "allow_origins", "allow_hosts", "client_token", "client_tokens",
              "max_sessions", "max_sessions_per_client", "max_connections",
              "max_connections_per_peer", "jwt")


class Listener:
    """The ``--listen`` server. ``await listener.start()`` binds and returns ``(host, port)``;
    ``await listener.serve()`` runs until :meth:`stop`. Its settings are a
    :class:`ListenOptions`, or its fields as keyword arguments. The parts: :class:`Admission`
    (who comes in), :class:`SessionTable` (the sessions), :class:`PostExchange` (one POST),
    ``replay`` (the streams and what they keep for a resumption)."""

    def __init__(self, host: str, port: int, new_policy: Callable[[], Any],
                 options: ListenOptions | None = None, **settings: Any) -> None:
        o = options if options is not None else ListenOptions(**settings)
        if (o.command is None) == (o.upstream is None):
            raise ValueError("give exactly one of command and upstream")
        self.options = o
        self.host, self.port = host, port
        self.new_policy = new_policy
        # what the sessions read of it (sessions.Session.start)
        self.command = list(o.command) if o.command else None
        self.upstream, self.cafile, self.path = o.upstream, o.cafile, o.path
        self.headers = list(o.headers or [])
        # --max-message-size: the largest request body accepted and upstream message relayed
        self.max_message = o.max_message
        self.max_body = o.max_message or o.max_body
        self.idle_timeout, self.read_timeout = o.idle_timeout, o.read_timeout
        self.session_idle, self.keepalive = o.session_idle, o.keepalive
        self.upstream_timeout, self.upstream_idle_timeout = o.upstream_timeout, o.upstream_idle_timeout
        self.session_header = o.session_header.lower() if o.session_header else None
        self.log = o.log or (lambda text: None)
        self.identity = o.identity or IdentityKey()
        self.admission = Admission(host, identity=self.identity,
                                   **{name: getattr(o, name) for name in _ADMISSION})
        self.bound_loopback = self.admission.bound_loopback
        self.allow_hosts = self.admission.allow_hosts
        self.forward_headers = self.admission.forward_headers
        self.table = SessionTable(self)
        self.shared_catalogue: dict[str, dict] = {}
        self.write_failed = False  # a session's manifest could not be written
        # conversations (mcp/identity.py): each request's ledger, shared through --store
        self.store = o.store
        self.conversations = o.conversations or Conversations(store=o.store,
                                                              max_kept=4 * o.max_sessions)
        self.directory = Sessions(o.store, self.identity)
        if o.store is not None:
            o.store.on_lost.append(self.table.write_back)
        self._accept_logged = -_ACCEPT_LOG_EVERY
        self._accept_failures = 0
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task] = set()
        self.connections: set[ClientConnection] = set()  # the open client connections
        self.requests: set[asyncio.Future] = set()  # the tasks answering their requests
        self._stopped = asyncio.Event()

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
        self._server = await loop.create_server(lambda: ClientConnection(self), self.host,
                                                self.port, reuse_address=True)
        sock = self._server.sockets[0]
        addr = sock.getsockname()
        self.port = addr[1]
        self.spawn(self.table.reaper())
        if self.command is not None and self.upstream_timeout is not None:
            self.spawn(self.table.expirer(self.upstream_timeout))
        return addr[0], addr[1]

    async def serve(self) -> None:
        await self._stopped.wait()
        if self._server is not None:
            self._server.close()
        t = self.table
        for s in list(t.sessions.values()) + list(t.open) + list(t.grouped.values()) \
                + list(t.probation):
            await self.end(s)
        for task in list(self._tasks):
            task.cancel()
        for conn in list(self.connections):
            conn.close()
        for answering in list(self.requests):
            answering.cancel()

    def stop(self) -> None:
        self._stopped.set()

    async def end(self, session: Session) -> None:
        self.table.remove(session)
        self.admission.release(session)
        await session.close()

    # ------------------------------------------------------------ connections

    def serve_now(self, head: Head, body: bytes, conn: Any) -> Any:
        """A request answered without a task when it can be (see PostExchange.now): whether
        the connection goes on, ``PENDING``, or None for :meth:`request` to answer it."""
        if head.method != "POST" or head.target != self.path or not self.admission.origin_ok(head):
            return None
        return PostExchange(self, head, body, conn, conn, conn.conn).now()

    async def simple(self, writer: Writer, status: int, body: bytes = b"",
                      headers: Sequence[tuple[str, str]] = (), ctype: str = "application/json",
                      close: bool = False) -> None:
        reply(writer, status, body, headers, ctype, close)
        try:
            await writer.drain()
        except (ConnectionError, OSError, RuntimeError):
            pass

    async def request(self, head: Head, body: bytes, reader: Writer,
                      writer: Writer, conn: Connection) -> bool:
        target = head.target or ""
        path = target.split("?", 1)[0]
        early = self.admission.early(head)
        if early is not None:
            await self.simple(writer, early[0], early[1], early[2])
            return True
        if not self.admission.origin_ok(head):
            await self.simple(writer, 403, error_body(
                f"Forbidden: requests from the origin {head.headers.get('origin')!r} are not accepted "
                "(start the proxy with --allow-origin ORIGIN to accept it)"))
            return True
        if path.startswith("/.well-known/") and self.upstream is not None and head.method == "GET":
            if not _discovery_path(target):
                await self.simple(writer, 404, error_body(
                    "only the OAuth discovery documents are relayed under /.well-known/ "
                    "(oauth-protected-resource, oauth-authorization-server, openid-configuration)"))
                return True
            await self._well_known(target, writer)
            return True
        if path != self.path:
            await self.simple(writer, 404, error_body(f"the MCP endpoint is {self.path}"))
            return True
        if head.method == "POST":
            return await PostExchange(self, head, body, reader, writer, conn).run()
        if head.method == "GET":
            return await self._get(head, writer)
        if head.method == "DELETE":
            sid = head.headers.get("mcp-session-id")
            session = self.held(sid, head) if sid else None
            if sid and self.store is not None:  # ended for every replica
                try:
                    known = self.directory.find(sid, self.admission.principal(head)[0])
                except StoreUnavailable as exc:
                    await self.simple(writer, 503, error_body(exc.repair()), [("Retry-After", "5")])
                    return True
                if known is not None:
                    self.directory.ended(sid)
                    if session is None:
                        await self.simple(writer, 204)
                        return True
            if session is None:
                await self.simple(writer, 404 if sid else 400, error_body(
                    "unknown session" if sid else "DELETE needs an Mcp-Session-Id header"))
                return True
            self.forwarded(head, session)
            await self.end(session)
            refusal = session.remote.end_refusal if session.remote is not None else None
            if refusal is not None:
                await self.auth_answer(writer, refusal)
                return True
            await self.simple(writer, 204)
            return True
        await self.simple(writer, 405, b"", [("Allow", "GET, POST, DELETE")])
        return True


    def held(self, sid: str, head: Head) -> "Session | None":
        """The session ``sid`` held here, if this request's principal may continue it
        (gateway.may_continue: its opener's, or another credential when both carry one)."""
        session = self.table.sessions.get(sid)
        if session is None or may_continue(session.principal, self.admission.principal(head)[0]):
            return session
        return None

    def forwarded(self, head: Head, session: Session) -> list[tuple[str, str]]:
        """The client's --forward-header headers on this request; the session keeps the latest
        for the requests the proxy sends upstream on its own (GET stream, DELETE, resumption,
        notifications and answers posted for it)."""
        if not self.forward_headers:
            return []
        found = [(n, v) for n, v in head.headers if n.lower() in self.forward_headers]
        if found and session.remote is not None:
            session.remote.forwarded = found
        return found

    async def _well_known(self, target: str, writer: Writer) -> None:
        assert self.upstream is not None
        parts = urlsplit(self.upstream)
        client = Client(f"{parts.scheme}://{parts.netloc}{target}", cafile=self.cafile)
        try:
            resp = await client.request("GET", [("Accept", "application/json")])
            data = await resp.read(1 << 20)
            ctype = resp.headers.get("content-type") or "application/json"
            await self.simple(writer, resp.status, data, ctype=ctype)
        except (UpstreamError, HeaderError) as exc:
            await self.simple(writer, 502, error_body(f"the upstream could not be asked: {exc}"))
        finally:
            await client.aclose()

    async def _get(self, head: Head, writer: Writer) -> bool:
        sid = head.headers.get("mcp-session-id")
        session = self.held(sid, head) if sid else None
        if session is None and sid and self.store is not None:  # opened on another replica?
            adopted = await self.table.adopt(sid, head, writer, None)
            if adopted is False:
                return True
            session = adopted if isinstance(adopted, Session) else None
        if session is None or not sid:  # (a session implies a sid: this only tells mypy so)
            await self.simple(writer, 405 if not sid else 404, b"" if not sid else error_body("unknown session"),
                               [("Allow", "POST")] if not sid else [])
            return True
        if "text/event-stream" not in (head.headers.joined("accept") or ""):
            await self.simple(writer, 406, error_body("GET needs Accept: text/event-stream"))
            return True
        last = head.headers.get("last-event-id")
        if last is not None:
            return await self._resume(session, sid, last.strip(), writer)
        if session.get_stream is not None and not session.get_stream.closed:
            await self.simple(writer, 409, error_body("this session already has a GET stream open"))
            return True
        stream = Stream(writer, True)
        stream.head_extra = [("Mcp-Session-Id", sid)]
        session.number(stream)
        stream.keepalive()  # send the head now
        return await self._hold_get(session, stream)

    async def _hold_get(self, session: Session, stream: Stream) -> bool:
        session.get_stream = stream
        writer = stream.writer
        while session.queue:
            stream.send(session.queue.popleft())
        await hold(stream, session.closed, self.keepalive)
        if session.get_stream is stream and stream.writer is writer:
            session.get_stream = None
        return False  # the stream ended by closing the connection

    async def _resume(self, session: Session, sid: str, last: str, writer: Writer) -> bool:
        """GET with ``Last-Event-ID``: replay what followed that event on its stream, then
        continue the stream (2025 "Resumability and Redelivery")."""
        found = session.replay.find(last)
        if found is None:
            await self.simple(writer, 404, error_body(
                f"Last-Event-ID {last!r} names no event this proxy still holds for the session "
                f"(it keeps the last {REPLAY_EVENTS} events of each of the {REPLAY_STREAMS} latest "
                "streams); send the request again"))
            return True
        stream, seq = found
        stream.attach(writer)
        stream.head_extra = [("Mcp-Session-Id", sid)]
        out = stream.head() + b"".join(chunk(ev) for s, ev in stream.replay if s > seq)
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
            await hold(stream, session.closed, self.keepalive)
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

    async def auth_answer(self, writer: Writer, auth: tuple[int, Any, bytes]) -> None:
        status, headers, body = auth
        extra = [(n, v) for n, v in headers if n.lower() == "www-authenticate"]
        ctype = headers.get("content-type") or "application/json"
        await self.simple(writer, status, body, extra, ctype=ctype)


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
            return EXIT_START_FAILED
        log(f"serving MCP over Streamable HTTP at http://{_url_host(host)}:{port}{listener.path}")
        if not listener.bound_loopback:
            log(f"warning: listening on {host}, reachable beyond this machine: clients must send "
                + ("a bearer JWT the key set verifies" if listener.admission.jwt is not None else
                   "the --client-token-env bearer token") + "; Host must be a loopback name or one of "
                f"{sorted(listener.allow_hosts)}; traffic is plain HTTP (put a TLS proxy in front)")
        if ready is not None:
            ready(host, port)
        loop = asyncio.get_running_loop()

        def on_signal(number: int) -> None:
            got.append(number)
            listener.stop()

        if threading.current_thread() is threading.main_thread():
            for sig in STOP_SIGNALS:
                try:
                    loop.add_signal_handler(sig, on_signal, sig)
                except (NotImplementedError, RuntimeError, ValueError):
                    pass
        await listener.serve()
        from ..logs import log_file_failed
        if listener.write_failed or log_file_failed():  # a manifest or a log record was lost
            return EXIT_RECORD_LOST
        return signal_status(got[0]) if got else EXIT_OK

    return asyncio.run(main())


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
