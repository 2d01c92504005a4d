"""The client role of Streamable HTTP, and the stdio client -> proxy -> remote server shell.

:class:`Remote` is one conversation with a remote MCP server. It implements, per the
specification texts:

2025-03-26, 2025-06-18, 2025-11-25 (``basic/transports.mdx``, "Streamable HTTP")
    * "Sending Messages to the Server": every message is its own ``POST`` with
      ``Accept: application/json, text/event-stream``; a ``202`` ends a notification or
      response; a request is answered by one JSON body or by an SSE stream whose events are
      relayed one by one as they arrive (progress and log notifications reach the client
      while the call runs; nothing is buffered).
    * "Session Management": the ``Mcp-Session-Id`` of the ``initialize`` response is sent on
      every later request; a ``404`` to a request carrying it means the session ended, and the
      client is told with a JSON-RPC error so that it starts a new session (the proxy never
      initialises on the client's behalf); ``DELETE`` ends the session when the client leaves.
    * "Protocol Version Header": ``MCP-Protocol-Version`` (the negotiated version) on every
      request after ``initialize``.
    * "Listening for Messages from the Server": after ``notifications/initialized`` a ``GET``
      stream is opened; ``405`` means the server offers none.
    * "Resumability and Redelivery": when a stream carrying event ids ends before the response,
      it is resumed with ``GET`` and ``Last-Event-ID`` after the ``retry`` delay the server set
      (the 2025-11-25 priming-event pattern).

2026-07-28 (``basic/transports/streamable-http.mdx``)
    * No session id and no ``GET`` stream for modern requests; the request metadata headers
      (``MCP-Protocol-Version`` equal to the body's ``_meta`` version, ``Mcp-Method``,
      ``Mcp-Name``, ``Mcp-Param-*``) are computed from the body actually forwarded
      (:mod:`.headers`).
    * "Cancellation": a ``notifications/cancelled`` from the client for a modern request closes
      that request's response stream, which is the cancellation signal; it is not posted.
    * Error statuses with a JSON-RPC error body (``400`` HeaderMismatch or
      UnsupportedProtocolVersion, ``404`` method not found) reach the client as that error.
    * ``subscriptions/listen`` is an ordinary request whose SSE stream stays open: its
      notifications are relayed as they come.

Failures (DNS, refused connection, TLS, timeouts, a reset in the middle of a stream, an HTML
error page, a body that is not JSON-RPC): the request gets a JSON-RPC error carrying its id
(``-32603``, the message says what happened and the HTTP status if there was one), so no
client request is left unanswered.
"""
from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
from typing import Any, Callable, Sequence

from .. import logs
from .. import jsonrpc as rpc
from ..guard import C2S, S2C, Guard
from ..child import ThreadWriter
from ..shell import EXIT_OK, STOP_SIGNALS, route, signal_status
from .client import Client, Response, UpstreamError
from .headers import body_version, modern_headers
from .wire import HeaderError, SSEReader, ProtocolError

__all__ = ["Remote", "StdioBridge", "run_stdio_to_http", "ACCEPT_BOTH"]

ACCEPT_BOTH = "application/json, text/event-stream"
_MAX_JSON = 64 << 20
_OUT_LIMIT = 64 << 20  # bytes queued for a stdio client that is not reading
_EXCERPT = 200

Emit = Callable[[bytes], None]


def _excerpt(data: bytes) -> str:
    text = data[:_EXCERPT].decode("utf-8", "replace").replace("\r", " ").replace("\n", " ").strip()
    return text + ("..." if len(data) > _EXCERPT else "")


class Sent:
    """What the proxy knows about one message it posts (or a 2025-03-26 batch of them)."""

    __slots__ = ("obj", "kind", "id", "ids", "method", "modern", "version")

    def __init__(self, line: bytes) -> None:
        if line.__class__ is rpc.Parsed:  # read where it was received
            obj = line.obj
        else:
            try:
                obj = rpc.loads_lenient(line)
            except rpc.ParseError:
                obj = None
        self.obj = obj
        msg = rpc.classify(obj) if type(obj) is dict else None
        self.kind = msg.kind if msg is not None else ("batch" if isinstance(obj, list) else rpc.INVALID)
        self.id = msg.id if msg is not None else rpc.MISSING
        self.method = msg.method if msg is not None else None
        params = msg.params if msg is not None else None
        self.version = body_version(params)
        self.modern = self.version is not None or self.method == "server/discover"
        if self.kind == rpc.REQUEST:
            self.ids = [self.id]
        elif self.kind == "batch":
            self.ids = [m.id for m in (rpc.classify(el) for el in obj) if m.kind == rpc.REQUEST]
        else:
            self.ids = []

    @property
    def is_request(self) -> bool:
        """A request, or a batch holding at least one: an answer is owed."""
        return bool(self.ids)

    def missing(self, obj: Any) -> list:
        """The ids of this message's requests that ``obj`` (a message or a batch) does not answer."""
        items = obj if isinstance(obj, list) else [obj]
        answered = set()
        for item in items:
            if type(item) is dict and "method" not in item and ("result" in item or "error" in item):
                answered.add(rpc.id_key(item.get("id", rpc.MISSING)))
        return [i for i in self.ids if rpc.id_key(i) not in answered]


class Remote:
    """One MCP conversation with a remote Streamable HTTP server.

    ``await remote.post(line, emit)`` sends one JSON-RPC message (the exact bytes, without the
    newline) and calls ``emit(message_bytes)`` for every message the server sends back on that
    request's response, in order, as it arrives, ending with the response itself, or with a
    JSON-RPC error for the request when the exchange fails. ``catalogue`` is a mapping of tool
    definitions by name (the guard's) used for ``Mcp-Param-*`` headers.
    """

    def __init__(self, client: Client, *, headers: list[tuple[str, str]] | None = None,
                 catalogue: Callable[[], dict] | None = None,
                 log: Callable[[str], None] | None = None, max_message: int = _MAX_JSON,
                 resume_attempts: int = 5) -> None:
        self.client = client
        self.static_headers = list(headers or [])
        # the HTTP client's forwarded headers (--forward-header), kept for the session: sent on
        # every request of it, including those the proxy makes on its own (GET stream,
        # resumption, DELETE), unless a request carries its own
        self.forwarded: list[tuple[str, str]] = []
        self.end_refusal: tuple[int, Any, bytes] | None = None  # a 401/403 to the DELETE
        self.catalogue = catalogue or (lambda: {})
        self.log = log or (lambda text: None)
        self.max_message = max_message
        self.resume_attempts = resume_attempts
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self._streams: dict[tuple, list[Response]] = {}  # modern requests by id: their open responses
        self._get_task: asyncio.Task | None = None
        self.get_stream_status: int | None = None

    # ------------------------------------------------------------------ headers

    def headers_for(self, sent: Sent, extra: Sequence[tuple[str, str]] = ()) -> list[tuple[str, str]]:
        h = [("Content-Type", "application/json"), ("Accept", ACCEPT_BOTH)]
        if sent.modern:
            h += modern_headers(sent.obj, self.catalogue())
        else:
            if self.session_id is not None:
                h.append(("Mcp-Session-Id", self.session_id))
            if self.protocol_version is not None and sent.method != "initialize":
                h.append(("MCP-Protocol-Version", self.protocol_version))
        h += self.static_headers
        h += self._forwarded(extra)
        h += extra
        return h

    def _forwarded(self, extra: Sequence[tuple[str, str]] = ()) -> list[tuple[str, str]]:
        if not self.forwarded:
            return []
        own = {n.lower() for n, _ in extra}
        return [(n, v) for n, v in self.forwarded if n.lower() not in own]

    def _errors(self, sent: Sent, message: str, data: Any = rpc.MISSING, ids: list | None = None) -> list[bytes]:
        """One JSON-RPC error per unanswered request (logged instead when nothing is owed)."""
        ids = sent.ids if ids is None else ids
        if not ids:
            self.log(message)
            return []
        return [rpc.error_line(i, rpc.INTERNAL_ERROR, message, data)[:-1] for i in ids]

    # ------------------------------------------------------------------ posting

    async def post(self, line: bytes, emit: Emit, extra_headers: Sequence[tuple[str, str]] = (),
                   auth_failure: Callable[[int, Any, bytes], None] | None = None,
                   sent: Sent | None = None) -> int | None:
        """POST one message; see the class docstring. Returns the HTTP status (``None`` if the
        exchange failed before one arrived).

        ``auth_failure(status, headers, body)``, when given, receives a ``401``/``403`` answer
        untouched (for a listener to pass it to its HTTP client, ``WWW-Authenticate`` and all)
        instead of a JSON-RPC error being emitted. ``sent``: ``Sent(line)``, if the caller has it."""
        body = line[:-1] if line.endswith(b"\n") else line
        if sent is None:
            sent = Sent(body)
        key = rpc.id_key(sent.id) if sent.is_request and sent.modern else None
        try:
            headers = self.headers_for(sent, list(extra_headers))
            resp = await self.client.request("POST", headers, body)
        except HeaderError as exc:
            self._emit_error(sent, emit, f"the request could not be sent upstream: {exc}")
            return None
        except UpstreamError as exc:
            what = "did not answer in time" if exc.kind == "timeout" else "could not be reached"
            self._emit_error(sent, emit, f"the upstream MCP server {what}: {exc}")
            return None
        if key is not None:
            self._streams.setdefault(key, []).append(resp)
        if sent.method == "subscriptions/listen":
            resp.idle = None  # a subscription stream may rightly stay silent
        try:
            return await self._handle(sent, resp, emit, auth_failure)
        finally:
            if key is not None:
                streams = self._streams.get(key)
                if streams and resp in streams:
                    streams.remove(resp)
                    if not streams:
                        del self._streams[key]

    def _emit_error(self, sent: Sent, emit: Emit, message: str, data: Any = rpc.MISSING,
                    ids: list | None = None) -> None:
        for line in self._errors(sent, message, data, ids):
            emit(line)

    async def _handle(self, sent: Sent, resp: Response, emit: Emit,
                      auth_failure: Callable[[int, Any, bytes], None] | None = None) -> int:
        status = resp.status
        ctype = resp.content_type
        if sent.method == "initialize" and 200 <= status < 300:
            sid = resp.headers.get("mcp-session-id")
            if sid is not None:
                if not sid or any(not (0x21 <= ord(c) <= 0x7E) for c in sid):
                    resp.close()
                    self._emit_error(sent, emit, "the upstream sent an Mcp-Session-Id with characters "
                                     "outside visible ASCII; refusing to use it")
                    return status
                self.session_id = sid
        if status == 202 or (200 <= status < 300 and not sent.is_request):
            await self._drain(resp)
            if sent.is_request:
                self._emit_error(sent, emit, f"the upstream answered the request with HTTP {status} "
                                 "and no JSON-RPC response")
            return status
        if 200 <= status < 300 and ctype == "text/event-stream":
            await self._relay_sse(sent, resp, emit)
            return status
        if 200 <= status < 300 and ctype == "application/json":
            await self._relay_json(sent, resp, emit, status)
            return status
        if 200 <= status < 300:
            data = await self._safe_read(resp)
            self._emit_error(sent, emit, f"the upstream answered HTTP {status} with content type "
                             f"{ctype or 'none'!r}, not JSON or an event stream: {_excerpt(data)!r}",
                             {"httpStatus": status})
            return status
        # Errors.
        if status == 404 and self.session_id is not None and not sent.modern:
            await self._drain(resp)
            self.session_id = None
            self._emit_error(sent, emit, "the upstream MCP session has ended (HTTP 404); "
                             "start a new session with initialize",
                             {"httpStatus": 404, "sessionExpired": True})
            return status
        data = await self._safe_read(resp)
        if status in (401, 403) and auth_failure is not None:
            auth_failure(status, resp.headers, data)
            return status
        if ctype == "application/json" and data:
            if self._relay_error_body(sent, data, emit):
                return status
        info: dict[str, Any] = {"httpStatus": status}
        auth = resp.headers.get("www-authenticate")
        if auth is not None:
            info["wwwAuthenticate"] = auth
        hint = ""
        if status in (401, 403):
            hint = (" (the upstream needs credentials: pass a token with --header-env "
                    "Authorization=ENVVAR)")
        self._emit_error(sent, emit, f"the upstream answered HTTP {status} {resp.head.reason}".rstrip()
                         + hint + (f": {_excerpt(data)!r}" if data else ""), info)
        return status

    async def _safe_read(self, resp: Response) -> bytes:
        try:
            return await resp.read(1 << 20)
        except UpstreamError:
            return b""

    async def _drain(self, resp: Response) -> None:
        try:
            await resp.read(1 << 20)
        except UpstreamError:
            pass

    def _relay_error_body(self, sent: Sent, data: bytes, emit: Emit) -> bool:
        """An error status whose body is a JSON-RPC error: give it to the client when it answers
        this request (or is id-less: then it is re-addressed to this request)."""
        try:
            obj = rpc.loads_lenient(data)
        except rpc.ParseError:
            return False
        if isinstance(obj, list) and sent.kind == "batch" and obj:
            emit(data.strip())
            missing = sent.missing(obj)
            if missing:
                self._emit_error(sent, emit, "the upstream's error answer left this request out", ids=missing)
            return True
        msg = rpc.classify(obj) if type(obj) is dict else None
        if msg is None or msg.kind != rpc.ERROR:
            return False
        if not sent.is_request:
            self.log(f"the upstream refused a {sent.method or 'message'}: {_excerpt(data)}")
            return True
        if sent.kind == rpc.REQUEST and rpc.id_key(msg.id) == rpc.id_key(sent.id):
            emit(data.strip())
            return True
        err: dict[str, Any] = obj["error"] if type(obj.get("error")) is dict else {}
        code: int = err["code"] if type(err.get("code")) is int else rpc.INTERNAL_ERROR
        message: str = err["message"] if isinstance(err.get("message"), str) else "upstream error"
        for ident in sent.ids:  # an id-less error (or one for a batch): addressed to each request
            emit(rpc.error_line(ident, code, message, err["data"] if "data" in err else rpc.MISSING)[:-1])
        return True

    async def _relay_json(self, sent: Sent, resp: Response, emit: Emit, status: int) -> None:
        try:
            data = await resp.read(self.max_message)
        except UpstreamError as exc:
            self._emit_error(sent, emit, f"the upstream response failed: {exc}")
            return
        data = rpc.read_once(data.strip())  # read once here: the guard and the shell read it
        try:
            obj = data.obj if data.__class__ is rpc.Parsed else rpc.loads_lenient(data)
        except rpc.ParseError as exc:
            self._emit_error(sent, emit, f"the upstream answered HTTP {status} with a body that is not "
                             f"JSON ({exc}): {_excerpt(data)!r}", {"httpStatus": status})
            return
        missing = sent.missing(obj)
        del obj  # not kept while the message is relayed
        emit(data)
        if missing:
            self._emit_error(sent, emit, "the upstream's JSON response did not answer this request",
                             ids=missing)

    async def _relay_sse(self, sent: Sent, resp: Response, emit: Emit) -> None:
        """Relay one SSE response event by event; resume it with Last-Event-ID if it ends early."""
        remaining = {rpc.id_key(i) for i in sent.ids}
        want = rpc.id_key(sent.id) if sent.kind == rpc.REQUEST else None
        attempts = 0
        reader = SSEReader(max_event=self.max_message)
        retry_ms = 1000
        while True:
            failure: str | None = None
            try:
                async for piece in resp.pieces():
                    for ev in reader.feed(piece):
                        if ev.retry is not None:
                            retry_ms = ev.retry
                        if not ev.data:
                            continue  # priming event or id-only event
                        data = rpc.read_once(ev.data.encode("utf-8"))  # the guard reads it as it is
                        if remaining and b'"id"' in data:
                            self._settle(data, remaining)
                        emit(data)
            except (UpstreamError, ProtocolError) as exc:
                failure = str(exc)
                resp.close()
            if not remaining:
                return
            if sent.modern and want is not None and want not in self._streams:
                return  # the client cancelled: the stream was closed on purpose
            last = reader.last_event_id
            owed = [i for i in sent.ids if rpc.id_key(i) in remaining]
            if not last or attempts >= self.resume_attempts:
                why = failure or "the upstream closed the event stream before answering"
                self._emit_error(sent, emit, f"the upstream response stream ended before the response "
                                 f"arrived ({why})", ids=owed)
                return
            attempts += 1
            await asyncio.sleep(min(retry_ms, 30_000) / 1000.0)
            resp2 = await self._resume(last)
            if resp2 is None:
                self._emit_error(sent, emit, "the upstream response stream ended before the response "
                                 "arrived and could not be resumed", ids=owed)
                return
            resp = resp2
            reader = SSEReader(max_event=self.max_message)
            reader.last_event_id = last

    @staticmethod
    def _settle(data: bytes, remaining: set) -> None:
        """Remove from ``remaining`` the request ids that the message (or batch) answers."""
        try:
            obj = data.obj if data.__class__ is rpc.Parsed else rpc.loads_lenient(data)
        except rpc.ParseError:
            return
        for item in obj if isinstance(obj, list) else [obj]:
            if type(item) is dict and "method" not in item and ("result" in item or "error" in item):
                remaining.discard(rpc.id_key(item.get("id", rpc.MISSING)))

    async def _resume(self, last_event_id: str) -> Response | None:
        h = [("Accept", "text/event-stream"), ("Last-Event-ID", last_event_id)]
        if self.session_id is not None:
            h.append(("Mcp-Session-Id", self.session_id))
        if self.protocol_version is not None:
            h.append(("MCP-Protocol-Version", self.protocol_version))
        h += self.static_headers
        h += self._forwarded()
        try:
            resp = await self.client.request("GET", h)
        except (UpstreamError, HeaderError) as exc:
            self.log(f"resuming the event stream failed: {exc}")
            return None
        if resp.status != 200 or resp.content_type != "text/event-stream":
            await self._drain(resp)
            self.log(f"resuming the event stream failed: HTTP {resp.status}")
            return None
        return resp

    # ------------------------------------------------------------------ other requests

    def cancel(self, request_id: Any) -> bool:
        """Close the response stream(s) of a modern request (2026-07-28 cancellation)."""
        key = rpc.id_key(request_id)
        streams = self._streams.pop(key, None) if key else None
        if not streams:
            return False
        for resp in streams:
            resp.close()
        return True

    def is_modern_inflight(self, request_id: Any) -> bool:
        key = rpc.id_key(request_id)
        return key is not None and key in self._streams

    def start_listening(self, emit: Emit) -> None:
        """Open the optional GET stream of the 2025 revisions (once)."""
        if self._get_task is None:
            self._get_task = asyncio.ensure_future(self._listen(emit))

    async def _listen(self, emit: Emit) -> None:
        last = ""
        failures = 0
        retry_ms = 1000
        while failures < 5:
            h = [("Accept", "text/event-stream")]
            if self.session_id is not None:
                h.append(("Mcp-Session-Id", self.session_id))
            if self.protocol_version is not None:
                h.append(("MCP-Protocol-Version", self.protocol_version))
            if last:
                h.append(("Last-Event-ID", last))
            h += self.static_headers
            h += self._forwarded()
            try:
                resp = await self.client.request("GET", h)
            except (UpstreamError, HeaderError) as exc:
                self.log(f"the GET event stream could not be opened: {exc}")
                failures += 1
                await asyncio.sleep(min(retry_ms, 30_000) / 1000.0)
                continue
            self.get_stream_status = resp.status
            resp.idle = None  # the GET stream may rightly stay silent
            if resp.status != 200 or resp.content_type != "text/event-stream":
                await self._drain(resp)
                if resp.status not in (405, 404):
                    self.log(f"the upstream offers no GET event stream (HTTP {resp.status})")
                return
            reader = SSEReader(max_event=self.max_message)
            reader.last_event_id = last
            try:
                async for piece in resp.pieces():
                    for ev in reader.feed(piece):
                        if ev.retry is not None:
                            retry_ms = ev.retry
                        if ev.data:
                            emit(ev.data.encode("utf-8"))
                failures = 0
            except (UpstreamError, ProtocolError) as exc:
                self.log(f"the GET event stream broke: {exc}")
                failures += 1
                resp.close()
            last = reader.last_event_id
            if self.session_id is None:
                return
            await asyncio.sleep(min(retry_ms, 30_000) / 1000.0)

    async def end_session(self, timeout: float = 2.0) -> int | None:
        """``DELETE`` the session (2025 revisions), if there is one; returns the status."""
        if self._get_task is not None:
            self._get_task.cancel()
        sid = self.session_id
        if sid is None:
            return None
        h = [("Mcp-Session-Id", sid)]
        if self.protocol_version is not None:
            h.append(("MCP-Protocol-Version", self.protocol_version))
        h += self.static_headers
        h += self._forwarded()
        try:
            resp = await asyncio.wait_for(self.client.request("DELETE", h), timeout)
            await asyncio.wait_for(self._drain(resp), timeout)
        except (UpstreamError, HeaderError, asyncio.TimeoutError) as exc:
            self.log(f"ending the upstream session failed: {exc}")
            return None
        self.session_id = None
        if resp.status in (401, 403):
            self.end_refusal = (resp.status, resp.headers, b"")
        return resp.status


# ----------------------------------------------------------------------------------------------
# stdio client -> proxy -> remote server


class StdioBridge:
    """Relays between a stdio MCP client (file descriptors) and a remote Streamable HTTP server,
    with ``guard`` in between. ``await bridge.run()`` returns the exit status: 0 when the client
    closed its stdin, 128+N on signal N."""

    def __init__(self, url: str, guard: Guard | None = None, *, client_in: int = 0,
                 client_out: int = 1, err_fd: int = 2, headers: list[tuple[str, str]] | None = None,
                 cafile: str | None = None, connect_timeout: float = 10.0, eof_grace: float = 0.5,
                 drain_timeout: float = 30.0, upstream_timeout: float | None = 300.0,
                 upstream_idle_timeout: float | None = 300.0, max_message: int | None = None,
                 handle_signals: bool = True) -> None:
        self.guard = guard if guard is not None else Guard()
        self.client = Client(url, cafile=cafile, connect_timeout=connect_timeout,
                             head_timeout=upstream_timeout, idle_timeout=upstream_idle_timeout)
        self.remote = Remote(self.client, headers=headers, catalogue=lambda: self.guard.catalogue,
                             max_message=max_message or _MAX_JSON,
                             log=self.log)
        self.client_in = client_in
        self.client_out = client_out
        self.err_fd = err_fd
        self.eof_grace = eof_grace
        self.drain_timeout = drain_timeout
        self.handle_signals = handle_signals
        self._tasks: set[asyncio.Task] = set()
        self._ordered: asyncio.Task | None = None  # the last notification/response posted
        self._signal: int | None = None
        # a client that stops reading never stalls the event loop (a cancellation still goes
        # upstream); beyond _OUT_LIMIT bytes unwritten the loop waits for it: memory stays bounded
        self._out = ThreadWriter(client_out, limit=_OUT_LIMIT, name="upstream->client")

    # ----------------------------------------------------------- output

    def log(self, text: str | bytes) -> None:
        if logs.log(text):  # a record of quantity_guard.mcp where --log-level configured it
            return
        data = text if isinstance(text, bytes) else text.encode("utf-8", "replace")
        try:
            os.write(self.err_fd, b"quantity-guard-mcp: " + data.rstrip(b"\n") + b"\n")
        except OSError:
            pass

    def _dispatch(self, outputs: list[tuple[str, bytes]]) -> None:
        route(outputs, self)

    def to_client(self, data: bytes) -> None:
        self._out.put(data)

    def to_upstream(self, data: bytes) -> None:
        sent = Sent(data if data.__class__ is rpc.Parsed else data[:-1])
        task = self._spawn(self._post(data, sent, self._ordered))
        if not sent.is_request:
            self._ordered = task

    def _from_upstream(self, message: bytes) -> None:
        guard = self.guard
        self._dispatch(guard.receive(S2C, message))
        # the policy's bookkeeping once the answer is on its way (see Guard.settle)
        asyncio.get_running_loop().call_soon(self._settle)
        if guard.protocol_version is not None and guard.protocol_version != self.remote.protocol_version:
            # The initialize result was just relayed: later requests carry the version.
            self.remote.protocol_version = guard.protocol_version

    def _settle(self) -> None:
        self._dispatch(self.guard.settle())

    def _spawn(self, coro) -> asyncio.Task:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _post(self, line: bytes, sent: Sent, after: asyncio.Task | None) -> None:
        """Post one client message. Messages go upstream in the client's order: each waits until
        the notification or response before it has been answered (a ``202``), so a server sees
        ``notifications/initialized`` before the requests that follow it. A request does not hold
        back what follows it: its answer may stream for minutes, and a cancellation must pass."""
        if after is not None and not after.done():
            await asyncio.wait({after})
        if sent.kind == rpc.NOTIFICATION and sent.method == "notifications/cancelled":
            params = sent.obj.get("params") if type(sent.obj) is dict else None
            rid = params.get("requestId") if type(params) is dict else None
            if self.remote.is_modern_inflight(rid):
                self.remote.cancel(rid)  # closing the stream is the cancellation (2026-07-28)
                return
        status = await self.remote.post(line, self._from_upstream, sent=sent)
        if sent.method == "notifications/initialized" and status == 202:
            self.remote.start_listening(self._from_upstream)

    # ----------------------------------------------------------- input

    def _reader_thread(self, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue) -> None:
        buf = rpc.LineBuffer()
        while True:
            try:
                chunk = os.read(self.client_in, 1 << 16)
            except InterruptedError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                tail = buf.flush()
                lines = [tail] if tail else []
                loop.call_soon_threadsafe(queue.put_nowait, lines)
                loop.call_soon_threadsafe(queue.put_nowait, None)
                return
            lines = buf.feed(chunk)
            if lines:
                loop.call_soon_threadsafe(queue.put_nowait, lines)

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()
        stop = asyncio.Event()
        if self.handle_signals and threading.current_thread() is threading.main_thread():
            for sig in STOP_SIGNALS:
                try:
                    loop.add_signal_handler(sig, self._on_signal, sig, stop)
                except (NotImplementedError, RuntimeError, ValueError):
                    pass
        threading.Thread(target=self._reader_thread, args=(loop, queue), name="client->upstream",
                         daemon=True).start()
        getter = None
        try:
            while True:
                getter = asyncio.ensure_future(queue.get())
                stopper = asyncio.ensure_future(stop.wait())
                done, _ = await asyncio.wait({getter, stopper}, return_when=asyncio.FIRST_COMPLETED)
                stopper.cancel()
                if getter not in done:
                    getter.cancel()
                    break
                lines = getter.result()
                if lines is None:
                    break
                for line in lines:
                    self._dispatch(self.guard.receive(C2S, line))
            if self._signal is None and self._tasks:
                # The client's input ended: the requests still pending are answered first
                # (at most drain_timeout seconds), then what is on its way gets a moment.
                await self._drain(stop)
                await asyncio.wait(set(self._tasks), timeout=self.eof_grace)
            for task in list(self._tasks):
                task.cancel()
            if self._tasks:
                await asyncio.wait(set(self._tasks), timeout=1.0)
            self._dispatch(self.guard.upstream_closed("the proxy is shutting down"))
            await self.remote.end_session()
        finally:
            await self.client.aclose()
            self._out.close(2.0)
        return EXIT_OK if self._signal is None else signal_status(self._signal)

    async def _drain(self, stop: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.drain_timeout
        while self.guard.awaited_count() and not stop.is_set() and not self._out.dead:
            left = deadline - loop.time()
            if left <= 0:
                self.log(f"the client's input ended; {self.guard.awaited_count()} request(s) still "
                         f"unanswered after {self.drain_timeout:g} s (--drain-timeout); ending the "
                         "upstream session")
                return
            await asyncio.sleep(min(0.05, left))

    def _on_signal(self, sig: int, stop: asyncio.Event) -> None:
        if self._signal is None:
            self._signal = sig
            self.log(f"received {signal.Signals(sig).name}; ending the upstream session")
        stop.set()


def run_stdio_to_http(url: str, guard: Guard | None = None, **options: Any) -> int:
    """Run :class:`StdioBridge` on a new event loop; returns the exit status."""
    bridge = StdioBridge(url, guard, **options)
    return asyncio.run(bridge.run())


if __name__ == "__main__":  # pragma: no cover - manual use
    sys.exit(run_stdio_to_http(sys.argv[1]))


def fetch_tools_http(url: str, *, headers: list[tuple[str, str]] | None = None,
                     cafile: str | None = None, client_info: dict | None = None,
                     timeout: float = 30.0) -> list[dict]:
    """``--check --upstream URL``: ``initialize`` (2025-11-25), ``notifications/initialized``,
    every page of ``tools/list``, then ``DELETE`` of the session. Raises :class:`UpstreamError`
    (kind ``protocol`` for an answer that is an error or has no tools array)."""
    info = client_info or {"name": "quantity-guard-mcp", "version": "0"}

    async def run() -> list[dict]:
        client = Client(url, cafile=cafile)
        remote = Remote(client, headers=headers)
        ids = iter(range(1, 1 << 30))

        async def ask(method: str, params: dict | None) -> Any:
            msg: dict[str, Any] = {"jsonrpc": "2.0", "id": f"guard:{next(ids)}", "method": method}
            if params is not None:
                msg["params"] = params
            got: list[bytes] = []
            await remote.post(rpc.encode(msg)[:-1], got.append)
            for data in got:
                try:
                    obj = rpc.loads(data)
                except rpc.ParseError:
                    continue
                if type(obj) is dict and obj.get("id") == msg["id"]:
                    if "error" in obj:
                        err = obj["error"] if type(obj["error"]) is dict else {}
                        raise UpstreamError("protocol", f"{method} failed: {err.get('message', obj['error'])}")
                    return obj.get("result")
            raise UpstreamError("protocol", f"{method} got no answer")

        try:
            # what a full client declares, as cli.CHECK_CAPABILITIES: some servers list tools
            # only to clients that can sample, elicit or give roots
            caps: dict[str, Any] = {"roots": {}, "sampling": {}, "elicitation": {"form": {}, "url": {}}}
            result = await ask("initialize", {"protocolVersion": "2025-11-25", "capabilities": caps,
                                              "clientInfo": info})
            if type(result) is dict and isinstance(result.get("protocolVersion"), str):
                remote.protocol_version = result["protocolVersion"]
            await remote.post(b'{"jsonrpc":"2.0","method":"notifications/initialized"}', lambda m: None)
            tools: list[dict] = []
            cursor: Any = None
            seen: set = set()
            for _ in range(10_000):
                page = await ask("tools/list", {"cursor": cursor} if cursor is not None else None)
                if type(page) is not dict or type(page.get("tools")) is not list:
                    raise UpstreamError("protocol", "tools/list returned no 'tools' array")
                tools.extend(t for t in page["tools"] if type(t) is dict)
                cursor = page.get("nextCursor")
                if cursor is None or cursor in seen:
                    break
                seen.add(cursor)
            return tools
        finally:
            await remote.end_session()
            await client.aclose()

    async def bounded() -> list[dict]:
        try:
            return await asyncio.wait_for(run(), timeout)
        except asyncio.TimeoutError:
            raise UpstreamError("timeout", f"listing the tools of {url} took over {timeout:g} s") from None

    return asyncio.run(bounded())
