"""--listen --session-header NAME: 2026-07-28 calls (no session) grouped by a header the client
sends, so one conversation spread over pooled connections keeps one ledger and the ledger's
carry-over check sees across connections. Raw HTTP clients (each call on a new connection) in
front of the stdlib fault server (dual era)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from mcp_peers.driver import FAULT_SERVER, new_tag, reap  # noqa: E402
from test_mcp_http_listen import Listening  # noqa: E402
from test_mcp_http_listen_faults import post  # noqa: E402

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
WATER = "[tools.read_discharge]\nreturns = 'cfs'\n[tools.runoff.params]\ndischarge = 'm**3/s'\n"


@pytest.fixture
def proxy(tmp_path, request):
    annotations = tmp_path / "water.toml"
    annotations.write_text(WATER)
    tag = new_tag()
    p = Listening("--annotations", str(annotations), *request.param, "--", sys.executable, FAULT_SERVER,
                  "--tag", tag)
    yield p
    p.stop()
    reap(tag)


def call(port, ident, name, arguments, headers):
    body = {"jsonrpc": "2.0", "id": ident, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": META}}
    h = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name, **headers}
    _, msgs = post(port, json.dumps(body).encode(), h)  # a new TCP connection for every call
    return msgs[-1]["result"]


GROUPED = ("--session-header", "X-Conversation-Id")


@pytest.mark.parametrize("proxy", [GROUPED], indirect=True)
def test_carry_over_is_caught_across_connections_sharing_the_header(proxy):
    a = {"X-Conversation-Id": "conv-1"}
    got = call(proxy.port, 1, "read_discharge", {}, a)
    assert got["structuredContent"] == {"value": 1250.0, "unit": "cfs"}
    refused = call(proxy.port, 2, "runoff", {"discharge": 1250}, a)
    assert refused["isError"] is True
    assert "read_discharge.return returned 1250 cfs" in refused["content"][0]["text"]
    # Another conversation, and a call without the header, have their own ledgers.
    other = call(proxy.port, 3, "runoff", {"discharge": 1250}, {"X-Conversation-Id": "conv-2"})
    assert not other.get("isError") and json.loads(other["content"][0]["text"])["received"]["discharge"] == 1250
    bare = call(proxy.port, 4, "runoff", {"discharge": 1250}, {})
    assert not bare.get("isError")


TRACE = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def call_meta(port, ident, name, arguments, headers, meta):
    body = {"jsonrpc": "2.0", "id": ident, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": {**META, **meta}}}
    h = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name, **headers}
    _, msgs = post(port, json.dumps(body).encode(), h)
    return msgs[-1]["result"]


@pytest.mark.parametrize("proxy", [()], indirect=True)
def test_without_the_option_a_client_keeps_its_ledger_across_connections(proxy):
    """No header option: the ledger is the trace's (params._meta traceparent), else the
    credential's with its clientInfo (docs/gateway.md); every call here is a new connection."""
    alice = {"Authorization": "Bearer alice"}
    call(proxy.port, 1, "read_discharge", {}, alice)
    caught = call(proxy.port, 2, "runoff", {"discharge": 1250}, alice)
    assert caught["isError"] is True and "read_discharge.return returned 1250 cfs" in caught["content"][0]["text"]
    # another credential, or a trace of its own, has a ledger of its own
    assert not call(proxy.port, 3, "runoff", {"discharge": 1250}, {"Authorization": "Bearer bob"}).get("isError")
    traced = {"traceparent": TRACE}
    assert not call_meta(proxy.port, 4, "runoff", {"discharge": 1250}, alice, traced).get("isError")
    call_meta(proxy.port, 5, "read_discharge", {}, alice, traced)
    assert call_meta(proxy.port, 6, "runoff", {"discharge": 1250}, alice, traced)["isError"] is True


@pytest.mark.parametrize("proxy", [(*GROUPED, "--max-sessions", "2")], indirect=True)
def test_the_number_of_ledgers_kept_is_bounded_and_a_full_table_ends_none(proxy):
    call(proxy.port, 1, "read_discharge", {}, {"X-Conversation-Id": "c1"})
    call(proxy.port, 2, "read_discharge", {}, {"X-Conversation-Id": "c2"})
    body = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "read_discharge", "arguments": {}, "_meta": META}}
    h = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "read_discharge",
         "X-Conversation-Id": "c3"}
    resp, msgs = post(proxy.port, json.dumps(body).encode(), h)
    assert resp.status == 503 and "--max-sessions" in msgs[0]["error"]["message"]
    # c1 and c2 keep their ledgers: the 1250 cfs they read is still known
    assert call(proxy.port, 4, "runoff", {"discharge": 1250}, {"X-Conversation-Id": "c1"})["isError"] is True
    assert call(proxy.port, 5, "runoff", {"discharge": 1250}, {"X-Conversation-Id": "c2"})["isError"] is True


def test_session_header_usage_errors():
    import subprocess
    from mcp_peers.driver import env
    for argv, text in [(["--session-header", "X-Conv", "--", "srv"], "needs --listen"),
                       (["--listen", "0", "--session-header", "Mcp-Session-Id", "--", "srv"], "MCP"),
                       (["--listen", "0", "--session-header", "Bad Name", "--", "srv"], "Bad Name")]:
        r = subprocess.run([sys.executable, "-m", "quantity_guard.mcp", *argv], capture_output=True,
                           text=True, env=env(), timeout=30, stdin=subprocess.DEVNULL)
        assert r.returncode == 2 and text in r.stderr, r.stderr
