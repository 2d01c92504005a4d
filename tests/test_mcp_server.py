"""quantity_guard.mcp.server: the protocol core without I/O, and serve() over pipes."""
from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from mcp_peers.driver import MODERN_META, Peer, env  # noqa: E402
from mcp_peers.toolbox import Toolbox  # noqa: E402

from quantity_guard.mcp.server import LEGACY_VERSIONS, ServerCore, main, serve  # noqa: E402


@pytest.fixture
def core():
    return ServerCore(Toolbox(), version="9.9", instructions="Use units.", page_size=3)


def ask(core, obj):
    out = core.handle_line(json.dumps(obj).encode())
    assert len(out) <= 1
    return json.loads(out[0]) if out else None


def modern(params=None):
    return {**(params or {}), "_meta": dict(MODERN_META)}


@pytest.mark.parametrize("version", LEGACY_VERSIONS)
def test_initialize_echoes_supported_versions(core, version):
    r = ask(core, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": version}})
    assert r["result"] == {"protocolVersion": version, "capabilities": {"tools": {"listChanged": False}},
                           "serverInfo": {"name": "test-toolbox", "version": "9.9"}, "instructions": "Use units."}


def test_initialize_offers_the_latest_for_unknown_versions(core):
    r = ask(core, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "1999-01-01"}})
    assert r["result"]["protocolVersion"] == LEGACY_VERSIONS[-1]


def test_discover_and_modern_results(core):
    r = ask(core, {"jsonrpc": "2.0", "id": "d", "method": "server/discover", "params": modern()})["result"]
    assert r["supportedVersions"] == ["2026-07-28"] and r["resultType"] == "complete"
    assert r["ttlMs"] == 0 and r["cacheScope"] == "private" and r["instructions"] == "Use units."
    assert r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "test-toolbox"
    page = ask(core, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": modern()})["result"]
    assert page["resultType"] == "complete" and page["ttlMs"] == 0 and page["nextCursor"] == "3"
    call = ask(core, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                      "params": modern({"name": "add", "arguments": {"a": 1, "b": 2}})})["result"]
    assert call["structuredContent"] == {"sum": 3} and call["resultType"] == "complete"
    legacy = ask(core, {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}})
    assert "resultType" not in legacy["result"] and "_meta" not in legacy["result"]


def test_unsupported_modern_version(core):
    params = {"_meta": {**MODERN_META, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}}
    r = ask(core, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params})
    assert r["error"]["code"] == -32022
    assert r["error"]["data"] == {"supported": ["2026-07-28"], "requested": "2099-01-01"}


def test_pagination(core):
    names, cursor = [], None
    for _ in range(5):
        params = {"cursor": cursor} if cursor else None
        page = ask(core, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", **({"params": params} if params else {})})
        names += [t["name"] for t in page["result"]["tools"]]
        cursor = page["result"].get("nextCursor")
        if cursor is None:
            break
    assert names == [t["name"] for t in Toolbox().list_tools()]
    for bad in ("x", "0", "99", 3):
        r = ask(core, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"cursor": bad}})
        assert r["error"]["code"] == -32602


@pytest.mark.parametrize("params,code", [
    ({"name": "nope", "arguments": {}}, -32602),
    ({"arguments": {}}, -32602),
    ({"name": "add", "arguments": [1]}, -32602),
    ("not an object", -32602),
])
def test_call_errors(core, params, code):
    assert ask(core, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})["error"]["code"] == code


def test_tool_results_and_failures(core, capsys):
    r = ask(core, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "fail"}})
    assert r["result"]["isError"] is True
    r = ask(core, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "explode"}})
    assert r["result"]["isError"] is True and "kaboom" in r["result"]["content"][0]["text"]
    assert "kaboom" in capsys.readouterr().err

    class Bad(Toolbox):
        def call_tool(self, name, arguments):
            return "not a dict"

    r = ask(ServerCore(Bad()), {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "add"}})
    assert r["error"]["code"] == -32603


def test_odd_input(core):
    assert ask(core, {"jsonrpc": "2.0", "id": 1, "method": "resources/list"})["error"]["code"] == -32601
    assert ask(core, {"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    assert ask(core, {"jsonrpc": "2.0", "id": 5, "result": {}}) is None
    assert ask(core, {"jsonrpc": "2.0", "id": 1, "method": "ping"})["result"] == {}
    assert json.loads(core.handle_line(b"nope")[0])["error"]["code"] == -32700
    assert json.loads(core.handle_line(b"[]")[0])["error"]["code"] == -32600
    assert json.loads(core.handle_line(b"7")[0])["error"]["code"] == -32600
    assert core.handle_line(b"") == []
    batch = core.handle_line(b'[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"2.0","id":"b","method":"ping"}]')
    assert [m["id"] for m in json.loads(batch[0])] == [1, "b"]


def test_handler_must_have_both_methods():
    with pytest.raises(TypeError):
        ServerCore(object())
    with pytest.raises(ValueError):
        ServerCore(Toolbox(), page_size=0)


def test_serve_runs_calls_concurrently_and_honours_cancellation():
    release = threading.Event()
    started = threading.Event()

    class Waiting(Toolbox):
        def list_tools(self):
            return super().list_tools() + [{"name": "wait", "inputSchema": {"type": "object"}}]

        def call_tool(self, name, arguments):
            if name == "wait":
                started.set()
                release.wait(30)
                return {"content": [{"type": "text", "text": "released"}]}
            return super().call_tool(name, arguments)

    s_read, c_write = os.pipe()  # client -> server
    c_read, s_write = os.pipe()  # server -> client
    result = {}
    t = threading.Thread(target=lambda: result.update(rc=serve(Waiting(), stdin_fd=s_read, stdout_fd=s_write)))
    t.start()
    reader = os.fdopen(c_read, "rb")
    try:
        os.write(c_write, b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait"}}\n')
        assert started.wait(30)
        os.write(c_write, b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":1}}}\n')
        assert json.loads(reader.readline())["id"] == 2  # not stuck behind the waiting call
        os.write(c_write, b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}\n')
        os.write(c_write, b'{"jsonrpc":"2.0","id":3,"method":"ping"}\n')
        assert json.loads(reader.readline())["id"] == 3
        release.set()
        os.close(c_write)
        c_write = -1
        t.join(30)
        assert not t.is_alive() and result["rc"] == 0
        os.close(s_write)
        s_write = -1
        assert reader.read() == b""  # the cancelled call was never answered
    finally:
        release.set()
        if c_write >= 0:
            os.close(c_write)
        reader.close()
        for fd in (s_read, s_write):
            if fd >= 0:
                os.close(fd)


def test_module_entry_point_over_pipes():
    argv = [sys.executable, "-m", "quantity_guard.mcp.server", "--name", "via-factory", "mcp_peers.toolbox:make"]
    with Peer(argv, env=env(PYTHONPATH=str(Path(__file__).parent) + os.pathsep + env()["PYTHONPATH"])) as p:
        r = p.call(1, "initialize", {"protocolVersion": "2025-06-18"})
        assert r["result"]["serverInfo"]["name"] == "via-factory"
        r = p.call(2, "tools/call", {"name": "shout", "arguments": {"s": "hi"}})
        assert r["result"]["content"][0]["text"] == "HI"  # the tool's print() went to stderr
        p.close_stdin()
        assert p.read_eof() == [] and p.wait() == 0
        assert "THIS MUST NOT REACH THE WIRE" in p.stderr()


@pytest.mark.parametrize("argv", [[], ["nocolon"], ["no_such_module_xyz:thing"], ["json:dumps"], ["--bogus", "a:b"]])
def test_main_usage_errors(argv, capsys):
    assert main(argv) == 2
    assert "error" in capsys.readouterr().err


def test_main_help(capsys):
    assert main(["--help"]) == 0
    assert "MODULE:ATTRIBUTE" in capsys.readouterr().out
