"""stdio client -> quantity-guard-mcp --upstream URL -> the official SDK's Streamable HTTP server
(mcp 2.3 served by uvicorn on 127.0.0.1), both protocol eras, compared with a direct HTTP
connection."""
from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp")
anyio = pytest.importorskip("anyio")
pytest.importorskip("uvicorn")

sys.path.insert(0, str(Path(__file__).parent))
from mcp_peers.driver import GUARDED_PROXY, Peer, env  # noqa: E402
from mcp_peers.fake_policy import CFS  # noqa: E402
from test_mcp_sdk import (  # noqa: E402
    MODES, TIMEOUT, ask_transcript, guarded_calls, list_all, run, transcript)

from mcp import Client, StdioServerParameters  # noqa: E402

HTTP_SERVER = str(Path(__file__).parent / "mcp_peers" / "http_server.py")


class HTTPServer:
    def __init__(self, *flags: str) -> None:
        self.proc = subprocess.Popen([sys.executable, HTTP_SERVER, *flags], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, env=env())
        line = self.proc.stdout.readline()
        assert line.startswith("PORT "), line
        self.port = int(line.split()[1])
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def sse_server():
    s = HTTPServer()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def json_server():
    s = HTTPServer("--json-response")
    yield s
    s.stop()


def proxy(url: str, *options: str, guarded: bool = False) -> StdioServerParameters:
    head = [GUARDED_PROXY] if guarded else ["-m", "quantity_guard.mcp"]
    return StdioServerParameters(command=sys.executable, args=[*head, *options, "--upstream", url], env=env())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("server", ["sse_server", "json_server"])
def test_pass_through_results_equal_a_direct_http_connection(mode, server, request):
    url = request.getfixturevalue(server).url
    want = run(transcript, url, mode)
    got = run(transcript, proxy(url), mode)
    assert got == want
    assert want["version"] == ("2026-07-28" if mode == "auto" else "2025-11-25")
    assert len(want["pages"]) == 4 and want["cursors"][-1] is None
    assert want["fail"]["isError"] is True
    if server == "sse_server":  # a JSON-only server has nowhere to send progress in 2026-07-28
        assert [s[0] for s in want["steps"]] == [1, 2, 3]


@pytest.mark.parametrize("mode", MODES)
def test_guarded_tools_convert_refuse_and_label_over_http(mode, sse_server, tmp_path):
    annotations = tmp_path / "water.toml"
    annotations.write_text("[tools.runoff.params]\ndischarge = 'm**3/s'\n")

    async def session():
        server = proxy(sse_server.url, "--annotations", str(annotations), guarded=True)
        async with Client(server, mode=mode, read_timeout_seconds=TIMEOUT) as client:
            pages = await list_all(client)
            assert len(pages) == 4
            tools = {t.name: t for p in pages for t in p.tools}
            assert tools["runoff"].input_schema["properties"]["discharge"]["x-unit"] == "m**3/s"
            assert tools["read_discharge"].output_schema["required"] == ["value", "unit"]
            await guarded_calls(client)

    run(session)


@pytest.mark.parametrize("mode", MODES)
def test_back_channel_and_multi_round_trip_over_http(mode, sse_server, tmp_path):
    """Legacy: elicitation, sampling and roots requests of the upstream reach the stdio client on
    the POST's event stream and its answers are posted back; 2026-07-28: input_required and the
    retry pass. (The test server keeps one call history for its lifetime: compare without it.)"""
    def without_history(t):
        ask, confirm = t
        return ask, {k: v for k, v in confirm.items() if k != "history"}

    want = run(ask_transcript, sse_server.url, mode)
    got = run(ask_transcript, proxy(sse_server.url), mode)
    assert without_history(got) == without_history(want)
    annotations = tmp_path / "water.toml"
    annotations.write_text("[tools.runoff.params]\ndischarge = 'm**3/s'\n")
    ask, confirm = run(ask_transcript, proxy(sse_server.url, "--annotations", str(annotations),
                                             guarded=True), mode)
    assert ask == want[0]
    rounds = [json.loads(h) for h in confirm["history"][-(2 if mode == "auto" else 1):]]
    assert all(r == rounds[0] for r in rounds) and rounds[0]["discharge"] == pytest.approx(1250 * CFS)


# ------------------------------------------------------------------ the wire, compared raw

INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}


def raw_post(url, body: bytes, session=None, version=None, accept="application/json, text/event-stream"):
    req = urllib.request.Request(url, data=body, method="POST")
    req.add_header("Content-Type", "application/json")
    req.add_header("Accept", accept)
    if session:
        req.add_header("Mcp-Session-Id", session)
    if version:
        req.add_header("MCP-Protocol-Version", version)
    with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
        data = resp.read()
        if resp.headers.get_content_type() == "text/event-stream":
            lines = [ln[:-1] if ln.endswith(b"\r") else ln for ln in data.split(b"\n")]
            events = [ln[len(b"data: "):] for ln in lines if ln.startswith(b"data: ") and len(ln) > 6]
        else:
            events = [data] if data else []
        return resp.headers, events


@pytest.mark.parametrize("server", ["sse_server", "json_server"])
def test_unannotated_bodies_are_byte_identical_to_a_direct_connection(server, request):
    url = request.getfixturevalue(server).url
    requests = [
        b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"s":"\\u00e9\\u2028","n":1.5E+2}}}',
        b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","arguments":{"steps":2},"_meta":{"progressToken":"p"}}}',
    ]
    # direct
    headers, _ = raw_post(url, json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT}).encode())
    sid = headers.get("mcp-session-id")
    raw_post(url, b'{"jsonrpc":"2.0","method":"notifications/initialized"}', sid, "2025-11-25")
    direct = []
    for body in requests:
        direct.append(raw_post(url, body, sid, "2025-11-25")[1])
    # through the proxy
    with Peer([sys.executable, "-m", "quantity_guard.mcp", "--upstream", url]) as p:
        p.call(0, "initialize", INIT)
        p.notify("notifications/initialized")
        for body, want in zip(requests, direct):
            p.send_raw(body + b"\n")
            got = [p.recv_raw().rstrip(b"\n") for _ in want]
            assert got == want
        p.close_stdin()
        p.read_eof()
        assert p.wait() == 0
    # progress notifications came before the result, in order (on an event stream)
    if server == "json_server":
        return
    kinds = [json.loads(m).get("method", "result") for m in direct[2]]
    assert kinds == ["notifications/progress", "notifications/progress", "result"]


def test_bodies_and_event_data_through_the_listener_are_byte_identical(sse_server):
    """HTTP client -> proxy --listen -> --upstream: the same requests give the same bytes of
    every event's data as straight to the server."""
    from test_mcp_http_listen import Listening
    p = Listening("--upstream", sse_server.url)
    try:
        def session(url):
            headers, _ = raw_post(url, json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                                   "params": INIT}).encode())
            sid = headers.get("mcp-session-id")
            raw_post(url, b'{"jsonrpc":"2.0","method":"notifications/initialized"}', sid, "2025-11-25")
            return [raw_post(url, body, sid, "2025-11-25")[1] for body in (
                b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
                b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"s":"\\u00e9\\u2028","n":1.5E+2}}}',
                b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","arguments":{"steps":2},"_meta":{"progressToken":"p"}}}')]

        direct, through = session(sse_server.url), session(p.url)
        assert through == direct
        assert [json.loads(m).get("method", "result") for m in through[2]] == [
            "notifications/progress", "notifications/progress", "result"]
    finally:
        p.stop()
