"""A small asyncio HTTP/1.1 client: persistent connections, streamed bodies, TLS via ``ssl``.

Only what a Streamable HTTP relay needs: ``await client.request(method, headers, body)``
returns a :class:`Response` as soon as its head has arrived; its body is read piece by piece
(:meth:`Response.pieces`), never buffered whole unless asked (:meth:`Response.read`, capped).
A response read to its end returns its connection to the pool (RFC 9112 section 9.3, persistent
connections); one abandoned mid-body closes it.

Every failure is an :class:`UpstreamError` whose ``kind`` names what went wrong (``dns``,
``connect``, ``tls``, ``timeout``, ``reset``, ``protocol``) and whose message says it in words,
so the relay can answer each pending JSON-RPC request with a useful error.

TLS: ``https`` URLs are verified by default against the system store
(:func:`ssl.create_default_context`), or against ``cafile`` only when one is given.
"""
from __future__ import annotations

import asyncio
import socket
import ssl
from typing import AsyncIterator
from urllib.parse import urlsplit

from .wire import END, Head, Headers, ProtocolError, Reader, request_head

__all__ = ["Endpoint", "parse_url", "UpstreamError", "Response", "Client", "make_ssl_context"]

_READ = 1 << 16


class UpstreamError(Exception):
    """The remote server could not be reached or did not speak HTTP/1.1 properly."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class Endpoint:
    """A parsed ``http``/``https`` URL: where to connect and what to ask for."""

    __slots__ = ("url", "scheme", "host", "port", "target", "authority")

    def __init__(self, url: str, scheme: str, host: str, port: int, target: str, authority: str) -> None:
        self.url, self.scheme, self.host, self.port = url, scheme, host, port
        self.target, self.authority = target, authority

    @property
    def tls(self) -> bool:
        return self.scheme == "https"

    def __repr__(self) -> str:
        return f"Endpoint({self.url!r})"


def parse_url(url: str) -> Endpoint:
    """Check and split an upstream URL; ``ValueError`` with the reason otherwise."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"{url!r} is not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"{url!r}: the upstream URL must start with http:// or https://")
    if not parts.hostname:
        raise ValueError(f"{url!r}: the upstream URL has no host")
    if parts.username is not None or parts.password is not None:
        raise ValueError(f"{url!r}: credentials in the URL are not accepted; put them in a header "
                         "with --header-env NAME=ENVVAR")
    if parts.fragment:
        raise ValueError(f"{url!r}: the upstream URL must not have a #fragment")
    if any(c in url for c in " \r\n\t\x00") or not url.isascii():
        raise ValueError(f"{url!r}: the upstream URL must be ASCII without spaces or control characters")
    default = 443 if parts.scheme == "https" else 80
    port = port or default
    host = parts.hostname
    shown = f"[{host}]" if ":" in host else host
    authority = shown if port == default else f"{shown}:{port}"
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Endpoint(url, parts.scheme, host, port, target, authority)


def make_ssl_context(cafile: str | None = None) -> ssl.SSLContext:
    """A verifying client context: the system trust store, or only ``cafile`` when given."""
    if cafile:
        ctx = ssl.create_default_context(cafile=cafile)
    else:
        ctx = ssl.create_default_context()
    return ctx


class _Connection:
    __slots__ = ("reader", "writer", "parser", "reused")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.parser = Reader(response=True, max_body=None)
        self.reused = False

    def close(self) -> None:
        try:
            self.writer.close()
        except Exception:
            pass

    def usable(self) -> bool:
        return not self.reader.at_eof() and not self.writer.is_closing() and self.parser.idle


class Response:
    """A response whose head has arrived. Read its body with :meth:`pieces` or :meth:`read`;
    :meth:`close` abandons it (and its connection)."""

    def __init__(self, client: Client, conn: _Connection, head: Head, first: list) -> None:
        self._client = client
        self._conn: _Connection | None = conn
        self.head = head
        self.status: int = head.status or 0
        self.headers: Headers = head.headers
        self._queued = [e for e in first if e is not END]
        self._done = END in first
        # the longest silence allowed between two pieces of the body (None: no limit); an
        # event stream that may rightly stay silent (the GET stream) sets it to None
        self.idle: float | None = client.idle_timeout
        if self._done:
            self._release()

    @property
    def content_type(self) -> str:
        """The media type, lower-cased, without parameters (``""`` if absent)."""
        return (self.headers.get("content-type") or "").split(";", 1)[0].strip().lower()

    async def pieces(self) -> AsyncIterator[bytes]:
        """The body as it arrives. Raises :class:`UpstreamError` (``reset``/``protocol``) if the
        connection breaks or the framing is wrong before the end."""
        while self._queued:
            yield self._queued.pop(0)
        while not self._done:
            conn = self._conn
            if conn is None:
                return
            expiry = _Expiry(conn, self.idle)  # a timer, not wait_for: no task per read
            try:
                data = await conn.reader.read(_READ)
            except (ConnectionError, OSError) as exc:
                self.close()
                if expiry.fired:
                    data = b""
                else:
                    raise UpstreamError("reset", f"the connection broke while reading the response "
                                        f"body ({exc.__class__.__name__})") from None
            finally:
                expiry.cancel()
            if expiry.fired:
                self.close()
                raise UpstreamError("timeout", f"{self._client.endpoint.authority} sent nothing for "
                                    f"{self.idle:g} s in the middle of its response "
                                    "(quantity-guard-mcp --upstream-idle-timeout)")
            try:
                events = conn.parser.feed(data) if data else conn.parser.eof()
            except ProtocolError as exc:
                self.close()
                raise UpstreamError("reset" if not data else "protocol",
                                    f"the response body was cut short: {exc}" if not data
                                    else f"malformed response body: {exc}") from None
            for ev in events:
                if ev is END:
                    self._done = True
                elif isinstance(ev, bytes):
                    yield ev
            if self._done:
                self._release()

    async def read(self, limit: int) -> bytes:
        """The whole body, at most ``limit`` bytes (more raises :class:`UpstreamError`)."""
        parts: list[bytes] = []
        size = 0
        async for piece in self.pieces():
            size += len(piece)
            if size > limit:
                self.close()
                raise UpstreamError("protocol", f"the response body exceeds {limit} bytes")
            parts.append(piece)
        return b"".join(parts)

    def _release(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            self._client._release(conn)

    def close(self) -> None:
        """Abandon the body; the connection is closed, not reused."""
        conn, self._conn = self._conn, None
        self._done = True
        if conn is not None:
            conn.close()


class Client:
    """Requests to one origin, over a pool of at most ``max_idle`` idle kept-alive connections."""

    def __init__(self, url: str | Endpoint, *, ssl_context: ssl.SSLContext | None = None,
                 cafile: str | None = None, connect_timeout: float = 10.0,
                 head_timeout: float | None = None, idle_timeout: float | None = None,
                 max_idle: int = 16) -> None:
        self.endpoint = url if isinstance(url, Endpoint) else parse_url(url)
        if self.endpoint.tls and ssl_context is None:
            ssl_context = make_ssl_context(cafile)
        self.ssl_context = ssl_context if self.endpoint.tls else None
        self.connect_timeout = connect_timeout
        self.head_timeout = head_timeout  # seconds from sending a request to its whole head
        self.idle_timeout = idle_timeout  # seconds of silence allowed within a response body
        self.max_idle = max_idle
        self._idle: list[_Connection] = []
        self._all: set[_Connection] = set()
        self.closed = False

    async def _connect(self) -> _Connection:
        ep = self.endpoint
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(ep.host, ep.port, ssl=self.ssl_context,
                                        server_hostname=ep.host if self.ssl_context else None,
                                        limit=_READ),
                self.connect_timeout)
        except asyncio.TimeoutError:
            raise UpstreamError("timeout", f"connecting to {ep.authority} timed out after "
                                f"{self.connect_timeout:g} s") from None
        except socket.gaierror as exc:
            raise UpstreamError("dns", f"cannot resolve the host {ep.host!r} ({exc.strerror or exc})") from None
        except ssl.SSLCertVerificationError as exc:
            raise UpstreamError("tls", f"the TLS certificate of {ep.authority} was not accepted: "
                                f"{exc.verify_message or exc.reason}; pass --cafile FILE to trust a "
                                "private certificate authority") from None
        except ssl.SSLError as exc:
            raise UpstreamError("tls", f"the TLS handshake with {ep.authority} failed: {exc.reason or exc}") from None
        except ConnectionRefusedError:
            raise UpstreamError("connect", f"{ep.authority} refused the connection (is the server "
                                "running, and is the port right?)") from None
        except OSError as exc:
            raise UpstreamError("connect", f"cannot connect to {ep.authority}: {exc.strerror or exc}") from None
        sock = writer.get_extra_info("socket")
        if sock is not None:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass
        conn = _Connection(reader, writer)
        self._all.add(conn)
        return conn

    def _release(self, conn: _Connection) -> None:
        if self.closed or conn.parser.closed or not conn.usable() or len(self._idle) >= self.max_idle:
            conn.close()
            self._all.discard(conn)
            return
        conn.reused = True
        self._idle.append(conn)

    async def request(self, method: str, headers: list[tuple[str, str]], body: bytes = b"") -> Response:
        """Send one request and wait for its response head.

        ``headers`` must not contain ``Host``, ``Content-Length`` or ``Connection`` (this client
        writes them); an invalid header raises :class:`~.wire.HeaderError` before anything is
        sent. A kept-alive connection the server closed while idle is retried once on a new one
        (only when no byte of a response was received).
        """
        if self.closed:
            raise UpstreamError("connect", "the client is closed")
        all_headers = [("Host", self.endpoint.authority), *headers]
        if body or method in ("POST", "PUT", "PATCH"):
            all_headers.append(("Content-Length", str(len(body))))
        data = request_head(method, self.endpoint.target, all_headers) + body
        for attempt in (0, 1):
            conn = None
            while self._idle:
                candidate = self._idle.pop()
                if candidate.usable():
                    conn = candidate
                    break
                candidate.close()
                self._all.discard(candidate)
            if conn is None:
                conn = await self._connect()
            try:
                return await self._exchange(conn, method, data)
            except _Stale:
                conn.close()
                self._all.discard(conn)
                if attempt:
                    raise UpstreamError("reset", "the server closed the connection without answering") from None
        raise AssertionError("unreachable")  # pragma: no cover

    async def _exchange(self, conn: _Connection, method: str, data: bytes) -> Response:
        conn.parser.expect(method)
        try:
            conn.writer.write(data)
            await conn.writer.drain()
        except (ConnectionError, OSError) as exc:
            if conn.reused:
                raise _Stale from None
            conn.close()
            self._all.discard(conn)
            raise UpstreamError("reset", f"the connection broke while sending the request "
                                f"({exc.__class__.__name__})") from None
        got_any = False
        events: list = []
        expiry = _Expiry(conn, self.head_timeout)  # one deadline for the whole head
        try:
            while True:
                try:
                    chunk = await conn.reader.read(_READ)
                    if expiry.fired:
                        raise ConnectionAbortedError
                except (ConnectionError, OSError) as exc:
                    if expiry.fired:
                        conn.close()
                        self._all.discard(conn)
                        raise UpstreamError("timeout", f"no response from {self.endpoint.authority} "
                                            f"within {self.head_timeout:g} s "
                                            "(quantity-guard-mcp --upstream-timeout)") from None
                    if conn.reused and not got_any:
                        raise _Stale from None
                    conn.close()
                    self._all.discard(conn)
                    raise UpstreamError("reset", f"the connection broke before the response arrived "
                                        f"({exc.__class__.__name__})") from None
                if not chunk:
                    if conn.reused and not got_any:
                        raise _Stale
                    try:
                        events += conn.parser.eof()
                    except ProtocolError:
                        pass
                    if not any(isinstance(e, Head) and (e.status or 0) >= 200 for e in events):
                        conn.close()
                        self._all.discard(conn)
                        raise UpstreamError("reset", f"{self.endpoint.authority} closed the connection "
                                            "without a complete response")
                else:
                    got_any = True
                    events += conn.parser.feed(chunk)
                # Skip interim (1xx) responses.
                while events and isinstance(events[0], Head) and (events[0].status or 0) < 200:
                    events.pop(0)
                    if events and events[0] is END:
                        events.pop(0)
                if events and isinstance(events[0], Head):
                    head = events.pop(0)
                    return Response(self, conn, head, events)
                if not chunk:
                    raise UpstreamError("reset", "the connection closed")
        except ProtocolError as exc:
            conn.close()
            self._all.discard(conn)
            raise UpstreamError("protocol", f"{self.endpoint.authority} did not answer with HTTP/1.1: {exc}") from None
        finally:
            expiry.cancel()

    async def aclose(self) -> None:
        self.closed = True
        for conn in list(self._all):
            conn.close()
        self._all.clear()
        self._idle.clear()


class _Expiry:
    """Aborts ``conn`` after ``seconds`` (``None``: never) unless cancelled first; ``fired``
    tells a read that ended because of it."""

    __slots__ = ("fired", "_timer")

    def __init__(self, conn: _Connection, seconds: float | None) -> None:
        self.fired = False
        self._timer = None if seconds is None else \
            asyncio.get_running_loop().call_later(seconds, self._fire, conn)

    def _fire(self, conn: _Connection) -> None:
        self.fired = True
        transport = conn.writer.transport
        if transport is not None:
            transport.abort()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


class _Stale(Exception):
    """A reused connection turned out to be closed before any response byte."""
