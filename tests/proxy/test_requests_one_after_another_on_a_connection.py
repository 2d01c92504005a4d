"""--listen on a kept-alive connection: 2026-07-28 requests sent one after another, each once
the previous answer's event stream has ended, are all served on that connection, and the
proxy logs no error for it (the watch for the client closing a stream ends before the
connection is read for the next request)."""
from __future__ import annotations

import socket
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers.driver import FAULT_SERVER, new_tag, reap  # noqa: E402
from test_mcp_http_listen import Listening  # noqa: E402
from test_next_request_on_a_kept_alive_connection import _request  # noqa: E402


def _answer(sock: socket.socket) -> bytes:
    data = b""
    while not data.endswith(b"0\r\n\r\n"):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def test_requests_one_after_another_are_served_on_one_connection_without_an_error():
    tag = new_tag()
    p = Listening("--", sys.executable, FAULT_SERVER, "--tag", tag)
    try:
        with socket.create_connection(("127.0.0.1", p.port), timeout=30) as sock:
            answers = []
            for ident in (1, 2, 3):
                sock.sendall(_request(ident, "echo"))
                answers.append(_answer(sock))
        for ident, data in enumerate(answers, start=1):
            assert data.startswith(b"HTTP/1.1 200 "), data[:300]
            assert b'\\"n\\": %d' % ident in data.replace(b'\\"n\\":%d' % ident, b'\\"n\\": %d' % ident)
    finally:
        p.stop()
        log = p.proc.stderr.read()
        reap(tag)
    assert "Traceback" not in log and "Unhandled exception" not in log, log[-2000:]
