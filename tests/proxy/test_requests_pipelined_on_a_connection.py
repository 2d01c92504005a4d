"""--listen with HTTP/1.1 pipelining: requests a client sends before reading the answers to
the earlier ones are answered in the order sent, whether they arrive in one burst or in small
pieces; and a client that sends without ever reading cannot make the proxy hold an unbounded
amount of what it sent or of what it owes (reading stops while answers are not taken)."""
from __future__ import annotations

import json
import select
import socket
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_mcp_http_listen import Listening  # noqa: E402
from test_mcp_http_resume import listening  # noqa: E402, F401  (the fixture: fault_server behind --listen)

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "pipelining", "version": "1"}}}


def _post(message: dict, sid: str | None = None) -> bytes:
    body = json.dumps(message).encode()
    extra = b"Mcp-Session-Id: %s\r\n" % sid.encode() if sid else b""
    return (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Accept: application/json\r\n%sContent-Length: %d\r\n\r\n%s" % (extra, len(body), body))


def _call(ident: int, **arguments) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call",
            "params": {"name": "echo", "arguments": arguments}}


class _Responses:
    """Reads HTTP/1.1 responses with a Content-Length from a socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock, self.buf = sock, b""

    def _fill(self) -> None:
        data = self.sock.recv(1 << 16)
        if not data:
            raise AssertionError(f"the connection closed; unread: {self.buf[:300]!r}")
        self.buf += data

    def next(self) -> tuple[int, dict, bytes]:
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        head, _, self.buf = self.buf.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        fields = dict(line.split(": ", 1) for line in lines[1:])
        headers = {k.lower(): v for k, v in fields.items()}
        size = int(headers["content-length"])
        while len(self.buf) < size:
            self._fill()
        body, self.buf = self.buf[:size], self.buf[size:]
        return int(lines[0].split()[1]), headers, body


def _opened(p: Listening) -> tuple[socket.socket, _Responses, str]:
    sock = socket.create_connection(("127.0.0.1", p.port), timeout=30)
    answers = _Responses(sock)
    sock.sendall(_post(INIT))
    status, headers, _ = answers.next()
    assert status == 200
    return sock, answers, headers["mcp-session-id"]


@pytest.mark.parametrize("piece", [None, 7, "then half-closed"],
                         ids=["one burst", "seven bytes at a time", "then half-closed"])
def test_pipelined_requests_are_answered_in_the_order_sent(listening, piece):
    sock, answers, sid = _opened(listening)
    with sock:
        burst = _post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid) + b"".join(
            _post(_call(ident, n=ident), sid) for ident in (1, 2, 3))
        if piece == 7:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for at in range(0, len(burst), piece):
                sock.sendall(burst[at:at + piece])
                time.sleep(0.001)
        else:
            sock.sendall(burst)
            if piece is not None:  # the client sends nothing more, and waits for its answers
                sock.shutdown(socket.SHUT_WR)
        got = [answers.next() for _ in range(4)]
        if piece is not None and piece != 7:
            assert sock.recv(1) == b""  # then the proxy closes the connection
    assert [status for status, _, _ in got] == [202, 200, 200, 200]
    assert all(headers["mcp-session-id"] == sid for _, headers, _ in got)
    results = [json.loads(body) for _, _, body in got[1:]]
    assert [r["id"] for r in results] == [1, 2, 3]
    assert [json.loads(r["result"]["content"][0]["text"]) for r in results] == [
        {"n": 1}, {"n": 2}, {"n": 3}]


def test_a_client_that_never_reads_its_answers_is_stopped_not_buffered(listening):
    """Each answer is as large as its request: if the proxy read on while its answers piled
    up unread, the client could send without end. It is held back once the socket buffers
    (a few MiB each way) and the proxy's bounded share are full."""
    sock, answers, sid = _opened(listening)
    request = _post(_call(1, pad="x" * (64 << 10)), sid)
    limit = 48 << 20  # far above the kernel's buffers, far below what 20 s of unread reading takes
    sent = 0
    with sock:
        sock.setblocking(False)
        deadline = time.monotonic() + 20
        while sent < limit and time.monotonic() < deadline:
            _, writable, _ = select.select([], [sock], [], 2.0)
            if not writable:
                break  # held back: nothing more is read from this client
            try:
                sent += sock.send(request[sent % len(request):])
            except BlockingIOError:
                continue
        assert sent < limit, f"the proxy read {sent} bytes from a client that reads nothing"
        # reading again, the client gets the answers it is owed, in order
        sock.setblocking(True)
        sock.settimeout(30)
        status, _, body = answers.next()
        assert status == 200 and json.loads(body)["id"] == 1
