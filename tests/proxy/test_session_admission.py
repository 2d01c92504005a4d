"""--listen sessions: a 2025 session takes a place only once the upstream accepted its
initialize, a full table refuses new sessions (503) instead of ending live ones, and one client
(its credential, else its address) holds at most its share."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers import http_fault_server  # noqa: E402
from mcp_peers.driver import FAULT_SERVER, new_tag, reap  # noqa: E402

pytest.importorskip("mcp")
from test_mcp_http_listen import Listening  # noqa: E402

INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def _post(port, body: dict, headers=None):
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    h = {"Content-Type": "application/json", "Accept": "application/json"}
    h.update(headers or {})
    conn.request("POST", "/mcp", body=json.dumps({"jsonrpc": "2.0", **body}).encode(), headers=h)
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, resp.getheader("Mcp-Session-Id"), json.loads(data) if data else None


def _open(port, headers=None) -> str:
    status, sid, msg = _post(port, {"id": 0, "method": "initialize", "params": INIT}, headers)
    assert status == 200 and "result" in msg, (status, msg)
    status, _, _ = _post(port, {"method": "notifications/initialized"}, {"Mcp-Session-Id": sid, **(headers or {})})
    assert status == 202
    return sid


def _works(port, sid, headers=None) -> bool:
    status, _, msg = _post(port, {"id": 9, "method": "tools/call", "params": {"name": "echo", "arguments": {}}},
                           {"Mcp-Session-Id": sid, **(headers or {})})
    return status == 200 and "result" in msg


@pytest.fixture
def stdio_listener(request):
    tag = new_tag()
    p = Listening(*request.param, "--", sys.executable, FAULT_SERVER, "--tag", tag)
    yield p
    p.stop()
    reap(tag)


def test_initializes_the_upstream_refuses_take_no_place_and_end_no_session():
    server, recorder, url = http_fault_server.start()
    recorder.required_auth = "Bearer good"
    p = Listening("--upstream", url, "--forward-header", "Authorization", "--max-sessions", "12")
    try:
        good = {"Authorization": "Bearer good"}
        live = [_open(p.port, good) for _ in range(2)]
        for i in range(12):
            status, _, _ = _post(p.port, {"id": i, "method": "initialize", "params": INIT},
                                 {"Authorization": f"Bearer forged-{i % 3}"})
            assert status == 401
        assert all(_works(p.port, sid, good) for sid in live)
        assert _works(p.port, _open(p.port, good), good)  # the refused ones left their places free
    finally:
        p.stop()
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("stdio_listener", [("--max-sessions", "2")], indirect=True)
def test_a_full_table_refuses_a_new_session_and_ends_none(stdio_listener):
    port = stdio_listener.port
    live = [_open(port), _open(port)]
    status, sid, msg = _post(port, {"id": 0, "method": "initialize", "params": INIT})
    assert status == 503 and "--max-sessions" in msg["error"]["message"]
    assert all(_works(port, s) for s in live)
    status, _, _ = _post(port, {"id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {}, "_meta": META}},
                         {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"})
    assert status == 503  # a 2026-07-28 connection would need a session too


@pytest.mark.parametrize("stdio_listener", [("--max-sessions", "8", "--max-sessions-per-client", "2")], indirect=True)
def test_one_client_holds_at_most_its_share(stdio_listener):
    port = stdio_listener.port
    a, b = {"Authorization": "Bearer a"}, {"Authorization": "Bearer b"}
    mine = [_open(port, a), _open(port, a)]
    status, _, msg = _post(port, {"id": 0, "method": "initialize", "params": INIT}, a)
    assert status == 503 and "--max-sessions-per-client" in msg["error"]["message"]
    assert _works(port, _open(port, b), b)
    status, _, _ = _post(port, {"id": 0, "method": "initialize", "params": INIT})  # no credential: its address
    assert status == 200
    assert all(_works(port, s, a) for s in mine)
