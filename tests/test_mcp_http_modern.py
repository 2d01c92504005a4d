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
        p.request(5, "tools/call", {"name": "touch", "arguments": {}, "_meta": META})
        answer, others = p.response(5)
        assert answer["result"]["content"][0]["text"] == "touched"
        # the note comes on the listen stream, the answer on the call's: either may be first
        note = others[0] if others else p.recv()
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


# ------------------------------------------------------------------ issue #16: x-mcp-header and integers


def _check_listing_and_call(tools, call_result):
    schema = tools["wait"].input_schema["properties"]["seconds"]
    # a header-mapped parameter keeps one primitive type, or a 2026 client drops the tool
    assert schema["type"] == "integer" and "anyOf" not in schema and "oneOf" not in schema
    assert schema["x-mcp-header"] == "Seconds" and schema["x-unit"] == "s"
    from mcp.shared.inbound import find_invalid_x_mcp_header
    assert find_invalid_x_mcp_header(tools["wait"].input_schema) is None
    assert not call_result.is_error, call_result
    text = call_result.content[0].text
    received = json.loads(text)
    # 2 min arrived as the JSON integer 120 (not 120.0), and the upstream's header check passed
    assert received == {"seconds": 120} and type(received["seconds"]) is int
    assert '"seconds": 120}' in text


def test_sdk_client_keeps_a_header_mapped_guarded_tool_over_stdio_and_upstream(modern, annotations):
    anyio = pytest.importorskip("anyio")
    from mcp import Client, StdioServerParameters
    from test_mcp_sdk import TIMEOUT, run
    _, url = modern

    async def session():
        server = StdioServerParameters(command=sys.executable, env=env(), args=[
            "-m", "quantity_guard.mcp", "--annotations", annotations, "--upstream", url])
        async with Client(server, mode="auto", read_timeout_seconds=TIMEOUT) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert "wait" in tools, sorted(tools)  # dropped by the SDK client before the fix
            r = await client.call_tool("wait", {"seconds": {"value": 2, "unit": "min"}})
            _check_listing_and_call(tools, r)
            r = await client.call_tool("wait", {"seconds": {"value": 0.5, "unit": "s"}})
            assert r.is_error and "whole number of s" in r.content[0].text

    assert anyio is not None
    run(session)


def test_sdk_http_client_keeps_a_header_mapped_guarded_tool_through_listen(modern, annotations):
    pytest.importorskip("anyio")
    from mcp import Client
    from test_mcp_sdk import TIMEOUT, run
    _, url = modern
    p = Listening("--annotations", annotations, "--upstream", url)

    async def session():
        async with Client(p.url, mode="auto", read_timeout_seconds=TIMEOUT) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert "wait" in tools, sorted(tools)
            # the client mirrors what it sends; a bare 120 (in s) gives Mcp-Param-Seconds: 120
            r = await client.call_tool("wait", {"seconds": 120})
            assert json.loads(r.content[0].text) == {"seconds": 120}
            r = await client.call_tool("wait", {"seconds": {"value": 2, "unit": "min"}})
            _check_listing_and_call(tools, r)

    try:
        run(session)
    finally:
        p.stop()


BASE = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "wait"}
# (headers, arguments) a client might send; the verdict of the SDK server (which validates the
# request metadata) is the reference the proxy's --listen must agree with
MISMATCHES = [
    ({k: v for k, v in BASE.items() if k != "MCP-Protocol-Version"} | {"Mcp-Param-Seconds": "5"}, {"seconds": 5}),
    (BASE | {"MCP-Protocol-Version": "2025-11-25", "Mcp-Param-Seconds": "5"}, {"seconds": 5}),
    (BASE | {"Mcp-Method": "tools/list", "Mcp-Param-Seconds": "5"}, {"seconds": 5}),
    (BASE | {"Mcp-Name": "touch", "Mcp-Param-Seconds": "5"}, {"seconds": 5}),
    (BASE | {"Mcp-Param-Seconds": "6"}, {"seconds": 5}),
    (BASE, {"seconds": 5}),                              # the parameter's header is missing
    (BASE | {"Mcp-Param-Seconds": "5"}, {}),             # a header for an argument not sent
]
MATCHES = [
    (BASE | {"Mcp-Param-Seconds": "5"}, {"seconds": 5}),
    (BASE | {"Mcp-Name": "=?base64?d2FpdA==?=", "Mcp-Param-Seconds": "=?base64?NQ==?="}, {"seconds": 5}),
]


@pytest.mark.parametrize("headers, arguments", MISMATCHES + MATCHES)
def test_listen_refuses_request_headers_that_disagree_with_the_body_as_the_sdk_server_does(modern, headers, arguments):
    """The proxy recomputes the headers it sends upstream, so without its own check a client's
    disagreement would be hidden; --listen answers 400 with -32020 and the request's id where the
    SDK server answers 400 for the same request, and passes what agrees."""
    port, url = modern
    expected_status, expected = post(port, call_body(7, arguments), headers)
    p = Listening("--upstream", url)
    try:
        post(p.port, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}},
             {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"})
        status, msgs = post(p.port, call_body(7, arguments), headers)
    finally:
        p.stop()
    assert status == expected_status
    if (headers, arguments) in MISMATCHES:
        # (without a 2026-07-28 version header the SDK server reads the request as a 2025 one
        # without a session: 400 with -32600; the proxy says which header is wrong)
        assert status == 400 and expected[0]["error"]["code"] in (-32020, -32600)
        assert msgs[0]["id"] == 7 and msgs[0]["error"]["code"] == -32020
        assert "header" in msgs[0]["error"]["message"]
    else:
        assert status == 200 and "result" in msgs[-1] and "result" in expected[-1]
