"""--listen on a kept-alive connection (a load balancer's pool to its replicas): the next
2026-07-28 request that follows a request's event stream on the same connection is served
whole, even when its first bytes arrive while the proxy still watches the previous stream for
the client closing it."""
from __future__ import annotations

import json
import socket
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers.driver import FAULT_SERVER, new_tag, reap  # noqa: E402
from test_mcp_http_listen import Listening  # noqa: E402

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def _request(ident: int, tool: str) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                       "params": {"name": tool, "arguments": {"n": ident}, "_meta": META}}).encode()
    return (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
            b"Mcp-Method: tools/call\r\nMcp-Name: %s\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (tool.encode(), len(body), body))


def test_a_request_sent_before_the_previous_answer_ended_is_served():
    tag = new_tag()
    p = Listening("--upstream-timeout", "1", "--", sys.executable, FAULT_SERVER, "--tag", tag)
    try:
        with socket.create_connection(("127.0.0.1", p.port), timeout=30) as sock:
            sock.sendall(_request(1, "hang"))  # answered when --upstream-timeout runs out
            time.sleep(0.3)  # its stream is open: the proxy watches the connection for a close
            sock.sendall(_request(2, "echo"))
            data = b""
            while data.count(b"0\r\n\r\n") < 2 and len(data) < 1 << 20:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        statuses = [line.split()[1] for line in data.split(b"\r\n") if line.startswith(b"HTTP/1.1 ")]
        assert statuses == [b"200", b"200"], data[:600]
        assert b"upstream-timeout" in data  # the first: its error
        assert b'\\"n\\": 2' in data.replace(b'\\"n\\":2', b'\\"n\\": 2'), data[-400:]  # the second: served
    finally:
        p.stop()
        reap(tag)
