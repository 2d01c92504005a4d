"""HTTP clients -> quantity-guard-mcp --listen -> (a stdio command | --upstream URL): the official
SDK's Streamable HTTP client (mcp 2.3) in both eras, and raw HTTP for the security rules."""
from __future__ import annotations

import http.client
import json
import subprocess
import sys
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp")
anyio = pytest.importorskip("anyio")
pytest.importorskip("uvicorn")

sys.path.insert(0, str(Path(__file__).parent))
from mcp_peers.driver import GUARDED_PROXY, SDK_SERVER, env  # noqa: E402
from mcp_peers.fake_policy import CFS  # noqa: E402
from test_mcp_http_upstream import HTTPServer  # noqa: E402
from test_mcp_sdk import MODES, TIMEOUT, list_all, run, transcript  # noqa: E402

from mcp import Client  # noqa: E402


class Listening:
    """The proxy listening on a free loopback port."""

    def __init__(self, *argv: str, guarded: bool = False) -> None:
        head = [GUARDED_PROXY] if guarded else ["-m", "quantity_guard.mcp"]
        self.proc = subprocess.Popen([sys.executable, *head, "--listen", "0", *argv],
                                     stderr=subprocess.PIPE, text=True, env=env())
        line = self.proc.stderr.readline()
        assert "serving MCP" in line, line
        self.url = line.strip().rsplit(" ", 1)[1]
        self.port = int(self.url.rsplit(":", 1)[1].split("/")[0])

    def stop(self) -> int:
        self.proc.terminate()
        try:
            return self.proc.wait(10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()

    def raw(self, method, body=b"", headers=None, path="/mcp", accept="application/json, text/event-stream"):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        h = {"Content-Type": "application/json", "Accept": accept}
        h.update(headers or {})
        conn.request(method, path, body=body, headers=h)
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        return resp.status, dict((k.lower(), v) for k, v in resp.getheaders()), data


@pytest.fixture(scope="module")
def in_front_of_stdio():
    p = Listening("--", sys.executable, SDK_SERVER)
    yield p
    p.stop()


@pytest.fixture(scope="module")
def upstream_server():
    s = HTTPServer()
    yield s
    s.stop()


@pytest.mark.parametrize("mode", MODES)
def test_sdk_http_client_through_the_listener_equals_the_direct_server(mode, in_front_of_stdio, upstream_server):
    want = run(transcript, upstream_server.url, mode)  # the same server code, served by the SDK
    got = run(transcript, in_front_of_stdio.url, mode)
    assert got == want
    assert [s[0] for s in got["steps"]] == [1, 2, 3]


@pytest.mark.parametrize("mode", MODES)
def test_listener_in_front_of_a_remote_url(mode, upstream_server):
    p = Listening("--upstream", upstream_server.url)
    try:
        want = run(transcript, upstream_server.url, mode)
        got = run(transcript, p.url, mode)
        assert got == want
    finally:
        assert p.stop() in (0, 143)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("backend", ["stdio", "url"])
def test_guarded_tools_through_the_listener(mode, backend, upstream_server, tmp_path):
    annotations = tmp_path / "water.toml"
    annotations.write_text("[tools.runoff.params]\ndischarge = 'm**3/s'\n")
    target = ("--", sys.executable, SDK_SERVER) if backend == "stdio" else ("--upstream", upstream_server.url)
    p = Listening("--annotations", str(annotations), *target, guarded=True)

    async def session():
        async with Client(p.url, mode=mode, read_timeout_seconds=TIMEOUT) as client:
            tools = {t.name: t for page in await list_all(client) for t in page.tools}
            assert tools["runoff"].input_schema["properties"]["discharge"]["x-unit"] == "m**3/s"
            r = await client.call_tool("runoff", {"discharge": {"value": 1250, "unit": "cfs"}, "area": 2})
            assert json.loads(r.content[0].text)["received"]["discharge"] == pytest.approx(1250 * CFS)
            r = await client.call_tool("runoff", {"discharge": 1.0, "area": -5})
            assert r.is_error is True and "runoff.area" in r.content[0].text
            r = await client.call_tool("read_discharge", {"site": "07374000"})
            assert r.structured_content == {"value": 1250.0, "unit": "cfs"}

    try:
        run(session)
    finally:
        p.stop()


INIT = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                   "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "raw", "version": "1"}}}).encode()


def test_security_and_session_rules(in_front_of_stdio):
    p = in_front_of_stdio
    status, _, body = p.raw("POST", INIT, {"Origin": "http://evil.example"})
    assert status == 403 and b"evil.example" in body
    status, _, _ = p.raw("POST", INIT, {"Host": "evil.example"})
    assert status == 421
    # a body over the cap is refused from its declared length, before it is read
    import socket
    with socket.create_connection(("127.0.0.1", p.port), timeout=TIMEOUT) as sock:
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n{" % (17 << 20))
        assert sock.recv(4096).startswith(b"HTTP/1.1 413 ")
    status, _, _ = p.raw("POST", b"{}", {"Content-Type": "text/plain"})
    assert status == 415
    status, headers, _ = p.raw("GET", b"", {"Accept": "text/event-stream"})
    assert status == 405
    status, _, _ = p.raw("POST", b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    assert status == 400  # no session
    status, _, _ = p.raw("POST", b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}', {"Mcp-Session-Id": "nope"})
    assert status == 404
    status, _, _ = p.raw("PUT", b"")
    assert status == 405
    status, _, _ = p.raw("POST", INIT, path="/other")
    assert status == 404
    # a loopback origin is fine; the session id comes back and DELETE ends the session
    status, headers, body = p.raw("POST", INIT, {"Origin": "http://localhost:3000", "Accept": "application/json, text/event-stream"})
    assert status == 200
    sid = headers["mcp-session-id"]
    assert all(0x21 <= ord(c) <= 0x7E for c in sid) and len(sid) >= 16
    status, _, _ = p.raw("POST", b'{"jsonrpc":"2.0","method":"notifications/initialized"}', {"Mcp-Session-Id": sid})
    assert status == 202
    status, _, body = p.raw("POST", b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
                            {"Mcp-Session-Id": sid, "Accept": "application/json"})
    assert status == 200 and json.loads(body)["id"] == 2
    # MCP-Protocol-Version: absent is assumed, the agreed one passes, another one is a 400
    agreed = json.loads(INIT)["params"]["protocolVersion"]
    for version, expected in ((agreed, 200), ("2025-03-26", 400), ("not-a-version", 400)):
        status, _, body = p.raw("POST", b'{"jsonrpc":"2.0","id":4,"method":"tools/list"}',
                                {"Mcp-Session-Id": sid, "Accept": "application/json",
                                 "MCP-Protocol-Version": version})
        assert status == expected, (version, body)
        if expected == 400:
            assert f"MCP-Protocol-Version: {agreed}".encode() in body
    assert p.raw("DELETE", b"", {"Mcp-Session-Id": sid})[0] == 204
    assert p.raw("POST", b'{"jsonrpc":"2.0","id":3,"method":"tools/list"}', {"Mcp-Session-Id": sid})[0] == 404


def test_each_session_has_its_own_ledger_and_manifest(tmp_path):
    annotations = tmp_path / "water.toml"
    annotations.write_text("[tools.runoff.params]\ndischarge = 'm**3/s'\n")
    manifest = tmp_path / "manifest.json"
    p = Listening("--annotations", str(annotations), "--manifest", str(manifest), "--", sys.executable, SDK_SERVER)
    try:
        sids = []
        for _ in range(2):
            status, headers, _ = p.raw("POST", INIT)
            assert status == 200
            sids.append(headers["mcp-session-id"])
        assert sids[0] != sids[1]
        call = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": "runoff", "arguments": {"discharge": "1250 cfs", "area": 2}}}).encode()
        status, _, body = p.raw("POST", call, {"Mcp-Session-Id": sids[0], "Accept": "application/json"})
        assert status == 200 and "error" not in json.loads(body)
        for sid in sids:
            assert p.raw("DELETE", b"", {"Mcp-Session-Id": sid})[0] == 204
    finally:
        p.stop()
    first = json.loads((tmp_path / "manifest-1.json").read_text())
    assert "runoff" in json.dumps(first) and first["call_count"] == 1
    assert not (tmp_path / "manifest-2.json").exists()  # the second session made no guarded call


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("backend", ["stdio", "url"])
def test_back_channel_and_multi_round_trip_through_the_listener(mode, backend, upstream_server):
    """Legacy: the upstream's elicitation, sampling and roots requests reach the HTTP client and
    its answers (posted back) reach the upstream; 2026-07-28: input_required and the retry."""
    from test_mcp_sdk import ask_transcript
    target = ("--", sys.executable, SDK_SERVER) if backend == "stdio" else ("--upstream", upstream_server.url)
    p = Listening(*target)
    try:
        ask, confirm = run(ask_transcript, p.url, mode)
    finally:
        p.stop()
    if mode == "legacy":
        assert ask == {"elicited": {"ok": True}, "sampled": "sampled!", "roots": ["file:///tmp/x"]}
    else:
        assert ask == {"state": "round-1", "responses": {"confirm": {"action": "accept", "content": {"ok": True}}}}
    assert confirm["received"]["discharge"] == {"value": 1250, "unit": "cfs"}  # unguarded: untouched
