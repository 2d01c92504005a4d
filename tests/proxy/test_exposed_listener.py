"""--listen on an address other than loopback: refused unless asked for with --allow-remote,
and then only with client authentication (a bearer token from the environment) and a Host
allow-list; one Host header, one Origin header, and only the OAuth discovery documents under
/.well-known/."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers import http_fault_server  # noqa: E402
from mcp_peers.driver import FAULT_SERVER, env, new_tag, reap  # noqa: E402

pytest.importorskip("mcp")
from test_mcp_http_listen import Listening  # noqa: E402

TOKEN = "0123456789abcdef0123456789abcdef"
INIT = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}).encode()


def _cli(*argv, **extra_env):
    return subprocess.run([sys.executable, "-m", "quantity_guard.mcp", *argv, "--", sys.executable, "-c", "pass"],
                          capture_output=True, text=True, env=env(**extra_env), timeout=30,
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("argv, text", [
    (["--listen", "0.0.0.0:0"], "--allow-remote"),
    (["--listen", "[::]:0"], "--allow-remote"),
    (["--listen", "0.0.0.0:0", "--allow-remote"], "needs --client-token-env"),
    (["--listen", "0.0.0.0:0", "--allow-remote", "--client-token-env", "QG_TOKEN"], "--allow-host"),
    (["--listen", "0.0.0.0:0", "--allow-remote", "--client-token-env", "QG_SHORT", "--allow-host", "h"],
     "at least 16"),
    (["--listen", "0.0.0.0:0", "--allow-remote", "--client-token-env", "QG_UNSET", "--allow-host", "h"],
     "is not set"),
    (["--allow-remote"], "needs --listen"),
])
def test_an_exposed_bind_needs_every_safeguard(argv, text):
    done = _cli(*argv, QG_TOKEN=TOKEN, QG_SHORT="short")
    assert done.returncode == 2 and text in done.stderr, done.stderr
    assert "serving MCP" not in done.stderr


def _raw(port, head: bytes, body: bytes = b"") -> tuple[int, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(head + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
        data = b""
        while True:
            piece = s.recv(65536)
            if not piece:
                break
            data += piece
    return int(data.split(b" ", 2)[1]), data


POST = b"POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json\r\n"


def test_an_exposed_listener_authenticates_clients_and_checks_the_host():
    tag = new_tag()
    proc = subprocess.Popen([sys.executable, "-m", "quantity_guard.mcp", "--listen", "0.0.0.0:0", "--allow-remote",
                             "--client-token-env", "QG_TOKEN", "--allow-host", "proxy.example", "--",
                             sys.executable, FAULT_SERVER, "--tag", tag],
                            stderr=subprocess.PIPE, text=True, env=env(QG_TOKEN=TOKEN))
    try:
        line = proc.stderr.readline()
        port = int(line.strip().rsplit(":", 1)[1].split("/")[0])
        assert "warning: listening on 0.0.0.0" in proc.stderr.readline()
        good = b"Host: proxy.example\r\nAuthorization: Bearer " + TOKEN.encode() + b"\r\n"
        status, data = _raw(port, POST + b"Host: proxy.example\r\n", INIT)
        assert status == 401 and b'WWW-Authenticate: Bearer realm="quantity-guard-mcp"' in data
        assert _raw(port, POST + b"Host: proxy.example\r\nAuthorization: Bearer wrong-token-wrong-token\r\n", INIT)[0] == 401
        status, data = _raw(port, POST + good, INIT)
        assert status == 200 and b'"serverInfo"' in data
        assert _raw(port, POST + b"Host: localhost\r\nAuthorization: Bearer " + TOKEN.encode() + b"\r\n", INIT)[0] == 200
        assert _raw(port, POST + b"Host: evil.example\r\nAuthorization: Bearer " + TOKEN.encode() + b"\r\n", INIT)[0] == 421
        assert _raw(port, POST + good + b"Host: evil.example\r\n", INIT)[0] == 400
    finally:
        proc.terminate()
        proc.wait(10)
        reap(tag)


def test_one_host_one_origin_and_only_discovery_documents_under_well_known():
    server, _, url = http_fault_server.start()
    p = Listening("--upstream", url)
    try:
        local = b"Host: 127.0.0.1\r\n"
        assert _raw(p.port, POST + local + b"Host: evil.example\r\n", INIT)[0] == 400
        assert _raw(p.port, POST + local + b"Origin: http://localhost\r\nOrigin: http://evil.example\r\n", INIT)[0] == 403
        assert _raw(p.port, POST + local + b"Origin: http://localhost\r\n", INIT)[0] == 200
        get = b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        status, data = _raw(p.port, get % b"/.well-known/oauth-protected-resource/mcp")
        assert status == 200 and b"authorization_servers" in data
        for path in (b"/.well-known/../admin", b"/.well-known/oauth-protected-resource/../../x",
                     b"/.well-known/%2e%2e/x", b"/.well-known/security.txt", b"/.well-known/mcp?x=1"):
            status, data = _raw(p.port, get % path)
            assert status == 404 and b"OAuth discovery" in data, path
    finally:
        p.stop()
        server.shutdown()
        server.server_close()
