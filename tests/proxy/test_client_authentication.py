"""--client-token-env: the token is checked on the request's head, before its body is read (an
unauthenticated client holds no body buffer); the flag may be given several times, each token
accepted (for a rotation, or one per team), and none is ever shown."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers.driver import FAULT_SERVER, env, new_tag, reap  # noqa: E402

OLD = "old-token-0123456789abcdef0123"
NEW = "new-token-0123456789abcdef0123"
INIT = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}).encode()
POST = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\n"


@pytest.fixture
def listening():
    tag = new_tag()
    proc = subprocess.Popen([sys.executable, "-m", "quantity_guard.mcp", "--listen", "0",
                             "--client-token-env", "QG_OLD", "--client-token-env", "QG_NEW", "--",
                             sys.executable, FAULT_SERVER, "--tag", tag],
                            stderr=subprocess.PIPE, text=True, env=env(QG_OLD=OLD, QG_NEW=NEW))
    line = proc.stderr.readline()
    assert "serving MCP" in line, line
    yield int(line.strip().rsplit(":", 1)[1].split("/")[0]), proc
    proc.terminate()
    proc.wait(10)
    reap(tag)


def _status(port: int, head: bytes, body: bytes) -> int:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(head + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
        data = b""
        while b"\r\n" not in data:
            piece = s.recv(65536)
            if not piece:
                break
            data += piece
    return int(data.split(b" ", 2)[1])


def test_every_token_given_is_accepted_and_no_other(listening):
    port, _ = listening
    for token, status in ((OLD, 200), (NEW, 200), ("other-token-0123456789abcdef", 401)):
        assert _status(port, POST + b"Authorization: Bearer " + token.encode() + b"\r\n", INIT) == status
    assert _status(port, POST, INIT) == 401


def test_an_unauthenticated_request_is_refused_before_its_body(listening):
    """The head announces 16 MiB and no byte of the body is sent: the 401 comes at once and the
    connection is closed (a proxy reading the body first would wait for it)."""
    port, proc = listening
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(POST + b"Authorization: Bearer wrong-token-0123456789\r\nContent-Length: %d\r\n\r\n" % (16 << 20))
        s.settimeout(10)
        data = b""
        while True:
            piece = s.recv(65536)  # a timeout here fails the test: the proxy waited for the body
            if not piece:
                break
            data += piece
    assert data.startswith(b"HTTP/1.1 401") and b"Connection: close" in data
    assert OLD.encode() not in data and NEW.encode() not in data
