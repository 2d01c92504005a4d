"""The 2026-07-28 era over Streamable HTTP through the proxy, against an SDK 2.3 server that
validates the request metadata headers (tests/mcp_peers/http_modern_server.py): server/discover,
Mcp-Param-* recomputed after the guard converts an argument, ttlMs/cacheScope/resultType kept on
the rewritten listing, subscriptions/listen relayed as a stream."""
from __future__ import annotations

import http.client
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")
pytest.importorskip("uvicorn")

sys.path.insert(0, str(Path(__file__).parent))
from mcp_peers.driver import Peer, env  # noqa: E402
from test_mcp_http_listen import Listening  # noqa: E402

SERVER = str(Path(__file__).parent / "mcp_peers" / "http_modern_server.py")
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


@pytest.fixture(scope="module")
def modern():
    proc = subprocess.Popen([sys.executable, SERVER], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, env=env())
    port = int(proc.stdout.readline().split()[1])
    yield port, f"http://127.0.0.1:{port}/mcp"
    proc.terminate()
    proc.wait(10)


@pytest.fixture
def annotations(tmp_path):
    f = tmp_path / "wait.toml"
    f.write_text("[tools.wait.params]\nseconds = 's'\n")
    return str(f)


def post(port, body: dict, headers: dict, path="/mcp"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    h.update(headers)
    conn.request("POST", path, body=json.dumps(body).encode(), headers=h)
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    if resp.getheader("content-type", "").startswith("text/event-stream"):
        msgs = [json.loads(ln[6:]) for ln in data.split(b"\n") if ln.startswith(b"data: ") and len(ln) > 6]
        return resp.status, msgs
    return resp.status, [json.loads(data)] if data else []


def call_body(ident, arguments):
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call",
            "params": {"name": "wait", "arguments": arguments, "_meta": META}}


def test_the_server_rejects_headers_that_do_not_match_the_body(modern):
    """The control: the upstream really validates Mcp-Param-* (so a stale header would fail)."""
    port, _ = modern
    base = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "wait"}
    status, msgs = post(port, call_body(1, {"seconds": 120}), {**base, "Mcp-Param-Seconds": "2"})
    assert status == 400 and msgs[0]["error"]["code"] == -32020
    status, msgs = post(port, call_body(2, {"seconds": 120}), {**base, "Mcp-Param-Seconds": "120"})
    assert status == 200 and json.loads(msgs[-1]["result"]["content"][0]["text"]) == {"seconds": 120}


def test_stdio_client_modern_era_through_upstream(modern, annotations):
    _, url = modern
    with Peer([sys.executable, "-m", "quantity_guard.mcp", "--annotations", annotations, "--upstream", url]) as p:
        found = p.call(1, "server/discover", {"_meta": META})["result"]
        assert found["supportedVersions"] == ["2026-07-28"]
        listing = p.call(2, "tools/list", {"_meta": META})["result"]
        # rewritten (x-unit added) and still carrying the caching fields and resultType
        assert listing["tools"][0]["inputSchema"]["properties"]["seconds"]["x-unit"] == "s"
        assert {"ttlMs", "cacheScope", "resultType"} <= set(listing)
        # the guard converts 2 min -> 120 s; the headers follow the converted body
        r = p.call(3, "tools/call", call_body(3, {"seconds": {"value": 2, "unit": "min"},
                                                  "region": "eu wést"})["params"])
        assert "error" not in r, r
        assert json.loads(r["result"]["content"][0]["text"]) == {"seconds": 120, "region": "eu wést"}
        # a subscriptions/listen stream is relayed while it stays open
        p.request(4, "subscriptions/listen", {"notifications": {"toolsListChanged": True}, "_meta": META})
        assert p.recv()["method"] == "notifications/subscriptions/acknowledged"
        assert p.call(5, "tools/call", {"name": "touch", "arguments": {}, "_meta": META})["result"]["content"][0]["text"] == "touched"
        note = p.recv()
        assert note["method"] == "notifications/tools/list_changed"
        assert note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 4
        p.close_stdin()
        rest = p.read_eof()
        assert p.wait() == 0
        assert [json.loads(x)["id"] for x in rest] == [4]  # the open listen got an error at exit


def test_http_client_modern_era_through_listen_and_upstream(modern, annotations):
    """A client's Mcp-Param header mirrors what it sent ("2 min"); upstream it must say 120."""
    _, url = modern
    p = Listening("--annotations", annotations, "--upstream", url)
    try:
        base = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
        status, msgs = post(p.port, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}, base)
        assert status == 200 and msgs[-1]["result"]["tools"][0]["name"] == "wait"
        headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "wait",
                   "Mcp-Param-Seconds": "2 min", "Mcp-Param-Unknown": "kept"}
        status, msgs = post(p.port, call_body(2, {"seconds": "2 min"}), headers)
        assert status == 200, msgs
        assert json.loads(msgs[-1]["result"]["content"][0]["text"]) == {"seconds": 120}
    finally:
        p.stop()
