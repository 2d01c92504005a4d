"""A fault-injecting Streamable HTTP upstream (stdlib http.server in a thread), for tests.

It records every request (method, headers, body) and answers by the called tool's name:
  ok          a JSON result echoing the request headers it saw
  sse         an SSE stream: priming event (id, empty data), a progress notification, the result
  html502     502 with an HTML page
  notjson     200 application/json whose body is an HTML page
  reset       an SSE stream cut after one event (the connection is closed mid-body)
  expire      404 (the session is gone)
  auth        401 with WWW-Authenticate and a JSON-RPC-less body
  headermm    400 with a JSON-RPC error -32020 for the request's id
  resume      an SSE stream with a priming event (id "r1", retry 10 ms) then closed; a GET with
              Last-Event-ID r1 delivers the result
  badsse      an SSE stream of events that are not JSON-RPC, ended without a response
  big         a JSON result of arguments.size (10 MiB) characters
  slow        the result after 1 s
  hang        nothing at all (no head) for 30 s
  bigint      a JSON result holding a 5,000-digit integer (beyond Python's default parser limit)
  deep        a JSON result holding arrays nested 3,000 deep (beyond Python's recursion limit)
  deepsse     the same as one SSE event
  stall       an SSE stream: one progress notification, then silence for 30 s
With Recorder.required_auth set, every request without that Authorization value gets 401 with
WWW-Authenticate (as a server behind OAuth does); GET /.well-known/... needs none.
GET /.well-known/oauth-protected-resource answers protected-resource metadata;
initialize answers with Mcp-Session-Id: sess-1; notifications get 202 (after
Recorder.notification_delay seconds, which also makes the server refuse requests before
notifications/initialized); GET without
Last-Event-ID gets 405; DELETE gets 204.
"""
from __future__ import annotations

import contextlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Recorder:
    def __init__(self) -> None:
        self.requests: list[tuple[str, dict, bytes]] = []
        self.peers: list = []  # the client address of each request (one per TCP connection)
        self.lock = threading.Lock()
        # > 0: notifications are answered (202) after this many seconds, and a request that
        # arrives before notifications/initialized has been answered is refused, as the official
        # SDK's server session does ("request before initialization was complete")
        self.notification_delay = 0.0
        self.initialized = threading.Event()
        self.required_auth: str | None = None

    def add(self, method: str, headers: dict, body: bytes, peer=None) -> None:
        with self.lock:
            self.requests.append((method, headers, body))
            self.peers.append(peer)

    def of(self, method: str) -> list:
        with self.lock:
            return [r for r in self.requests if r[0] == method]


def _result(ident, result) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    recorder: Recorder

    def log_message(self, *args) -> None:
        pass

    def _headers(self) -> dict:
        return {k.lower(): v for k, v in self.headers.items()}

    def _send(self, status: int, body: bytes = b"", ctype: str | None = "application/json",
              extra: dict | None = None) -> None:
        self.send_response(status)
        if ctype and body:
            self.send_header("Content-Type", ctype)
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _sse_start(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _refused(self, h: dict) -> bool:
        want = self.recorder.required_auth
        if want is None or h.get("authorization") == want:
            return False
        self._send(401, b"", extra={"WWW-Authenticate": 'Bearer error="invalid_token"'})
        return True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def do_GET(self) -> None:
        h = self._headers()
        self.recorder.add("GET", h, b"", self.client_address)
        if self.path.startswith("/.well-known/oauth-protected-resource"):
            self._send(200, json.dumps({"resource": "http://upstream.example/mcp",
                                        "authorization_servers": ["http://auth.example"]}).encode())
            return
        if self._refused(h):
            return
        if h.get("last-event-id") == "r1":
            self._sse_start()
            self._chunk(b"data: " + _result(self.server.resume_id, {"content": [{"type": "text", "text": "resumed"}]}) + b"\n\n")
            self.wfile.write(b"0\r\n\r\n")
            return
        self._send(405, extra={"Allow": "POST, DELETE"})

    def do_DELETE(self) -> None:
        self.recorder.add("DELETE", self._headers(), b"", self.client_address)
        if not self._refused(self._headers()):
            self._send(204)

    def do_POST(self) -> None:
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        h = self._headers()
        self.recorder.add("POST", h, body, self.client_address)
        if self._refused(h):
            return
        msg = json.loads(body)
        if isinstance(msg, list):  # a 2025-03-26 batch: answer each request with its tool's name
            out = [json.loads(_result(m["id"], {"content": [{"type": "text", "text": m["params"]["name"]}]}))
                   for m in msg if "id" in m]
            self._send(200, json.dumps(out).encode()) if out else self._send(202)
            return
        ident = msg.get("id")
        method = msg.get("method")
        if ident is None or method is None:
            if self.recorder.notification_delay:
                time.sleep(self.recorder.notification_delay)
            if method == "notifications/initialized":
                self.recorder.initialized.set()
            self._send(202)
            return
        if self.recorder.notification_delay and method != "initialize" and not self.recorder.initialized.is_set():
            self._send(200, json.dumps({"jsonrpc": "2.0", "id": ident, "error": {
                "code": -32600, "message": "request before initialization was complete"}}).encode())
            return
        if method == "initialize":
            self._send(200, _result(ident, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                            "serverInfo": {"name": "fault-http", "version": "1"}}),
                       extra={"Mcp-Session-Id": "sess-1"})
            return
        if method != "tools/call":
            self._send(200, _result(ident, {"tools": []}))
            return
        name = msg["params"]["name"]
        if name == "ok":
            self._send(200, _result(ident, {"content": [{"type": "text", "text": json.dumps(h)}]}))
        elif name == "sse":
            self._sse_start()
            self._chunk(b"id: s0\nretry: 100\ndata:\n\n")
            note = {"jsonrpc": "2.0", "method": "notifications/progress",
                    "params": {"progressToken": 1, "progress": 1}}
            self._chunk(b"id: s1\ndata: " + json.dumps(note).encode() + b"\n\n")
            self._chunk(b": keep-alive\n\n")
            self._chunk(b"id: s2\ndata: " + _result(ident, {"content": [{"type": "text", "text": "streamed"}]}) + b"\n\n")
            self.wfile.write(b"0\r\n\r\n")
        elif name == "html502":
            self._send(502, b"<html><body><h1>502 Bad Gateway</h1></body></html>", "text/html")
        elif name == "notjson":
            self._send(200, b"<html>oops</html>", "application/json")
        elif name == "reset":
            self._sse_start()
            note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}}
            self._chunk(b"data: " + json.dumps(note).encode() + b"\n\n")
            self.close_connection = True
            self.wfile.flush()
            self.connection.close()
        elif name == "expire":
            self._send(404, b"Session not found", "text/plain")
        elif name == "auth":
            self._send(401, b"", extra={"WWW-Authenticate": 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"'})
        elif name == "headermm":
            err = {"jsonrpc": "2.0", "id": ident, "error": {"code": -32020, "message": "Header mismatch"}}
            self._send(400, json.dumps(err).encode())
        elif name == "resume":
            self.server.resume_id = ident
            self._sse_start()
            self._chunk(b"id: r1\nretry: 10\ndata:\n\n")
            self.wfile.write(b"0\r\n\r\n")
        elif name == "badsse":
            self._sse_start()
            self._chunk(b"data: this is not json\n\n")
            self._chunk(b"data: {\"jsonrpc\":\"2.0\"}\n\n")
            self.wfile.write(b"0\r\n\r\n")
        elif name == "big":
            size = int(msg["params"]["arguments"].get("size", 10 << 20))
            self._send(200, _result(ident, {"content": [{"type": "text", "text": "x" * size}]}))
        elif name in ("bigint", "deep", "deepsse"):
            value = b"9" * 5000 if name == "bigint" else b"[" * 3000 + b"]" * 3000
            body = (b'{"jsonrpc":"2.0","id":' + json.dumps(ident).encode() + b',"result":{"content":'
                    b'[{"type":"text","text":"odd"}],"value":' + value + b'}}')
            if name == "deepsse":
                self._sse_start()
                self._chunk(b"data: " + body + b"\n\n")
                self.wfile.write(b"0\r\n\r\n")
            else:
                self._send(200, body)
        elif name == "hang":
            time.sleep(30)
        elif name == "stall":
            self._sse_start()
            note = {"jsonrpc": "2.0", "method": "notifications/progress",
                    "params": {"progressToken": 1, "progress": 1}}
            self._chunk(b"data: " + json.dumps(note).encode() + b"\n\n")
            time.sleep(30)
        elif name == "slow":
            time.sleep(1.0)
            self._send(200, _result(ident, {"content": [{"type": "text", "text": "slow"}]}))
        else:
            self._send(200, _result(ident, {"content": [{"type": "text", "text": name}]}))


def start(ssl_context=None, host: str = "127.0.0.1") -> tuple[ThreadingHTTPServer, Recorder, str]:
    """Serve in a thread; with ``ssl_context`` (a server-side ssl.SSLContext) over TLS."""
    recorder = Recorder()
    handler = type("H", (Handler,), {"recorder": recorder})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    server.resume_id = None
    scheme = "http"
    if ssl_context is not None:
        server.socket = ssl_context.wrap_socket(server.socket, server_side=True)
        scheme = "https"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, recorder, f"{scheme}://{host}:{server.server_address[1]}/mcp"


@contextlib.contextmanager
def serving(ssl_context=None, host: str = "127.0.0.1"):
    """``start`` for the length of a ``with`` block, which gets (the recorder, the URL); the
    server is shut down after it."""
    server, recorder, url = start(ssl_context, host)
    try:
        yield recorder, url
    finally:
        server.shutdown()
        server.server_close()
