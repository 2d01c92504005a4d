"""Values beyond Python's JSON limits, a reused in-flight id and a stopped proxy, through
quantity-guard-mcp over real pipes: with the official SDK client (both eras) where the SDK can
produce the traffic, with a raw JSON-lines client where it cannot (the SDK never reuses an id in flight, and its own parser stops at 4,300-digit integers
and at deep nesting, so such answers are checked byte for byte on the wire)."""
from __future__ import annotations

import json
import os
import signal
import sys
import time

import pytest

mcp = pytest.importorskip("mcp")
anyio = pytest.importorskip("anyio")

from mcp_peers.driver import (  # noqa: E402
    Peer, fault_argv, init_params, live_pids, wait_count, wait_gone)
from mcp_peers.sdk_client import run, stdio_params  # noqa: E402

from mcp import Client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc and process groups")

MODES = ["auto", "legacy"]
TIMEOUT = 30
HUGE = "9" * 5000
DEEP = "[" * 100_000 + "]" * 100_000  # deeper than json.loads goes on 3.10-3.13 (3.13 reads 3,000)


@pytest.fixture
def annotations(tmp_path):
    path = tmp_path / "runoff.toml"
    path.write_text('[tools.runoff.params]\ndischarge = "m**3/s"\narea = "km**2"\n')
    return str(path)


def proxy(tag, annotations, *flags) -> list[str]:
    return [sys.executable, "-m", "quantity_guard.mcp", "--annotations", annotations, "--",
            *fault_argv(tag, *flags)]


@pytest.mark.parametrize("mode", MODES)
def test_sdk_requests_beyond_python_json_limits(tag, annotations, mode):
    big = 10 ** 5000 - 1  # 5,000 nines (built without the digit-limited int(str))

    async def session():
        async with Client(stdio_params(proxy(tag, annotations, "--big-ints")), mode=mode,
                          read_timeout_seconds=TIMEOUT) as client:
            # not guarded: the bytes pass and the upstream answers
            r = await client.call_tool("echo", {"v": big, "w": 1})
            assert not r.is_error and HUGE in r.content[0].text
            # guarded: cannot be checked, so it is refused with the request's own id at once
            with pytest.raises(MCPError) as err:
                await client.call_tool("runoff", {"discharge": big, "area": 1})
            assert err.value.error.code == -32700
            assert "unit-guarded tool 'runoff' cannot be parsed" in err.value.error.message
            # and the session goes on
            r = await client.call_tool("runoff", {"discharge": "1250 cfs", "area": 2})
            assert json.loads(r.content[0].text)["received"]["discharge"] == \
                pytest.approx(35.39605824)

    run(session, seconds=TIMEOUT * 2)


@pytest.mark.parametrize("value", [HUGE, DEEP], ids=["5000-digits", "3000-deep"])
def test_answers_beyond_python_json_limits_reach_the_client_byte_for_byte(tag, annotations, value,
                                                                          tmp_path):
    wire = tmp_path / "wire.log"
    with Peer(proxy(tag, annotations, "--wire-log", str(wire))) as p:
        p.call(0, "initialize", init_params())
        line = '{"jsonrpc":"2.0","id":ID,"result":{"content":[],"v":' + value + '}}'
        p.request(5, "tools/call", {"name": "raw", "arguments": {"line": line}})
        got = p.recv_raw()
        assert got == line.replace("ID", "5").encode() + b"\n"
        assert p.call(6, "ping")["result"] == {}
        # and a request of that kind, unguarded, reaches the upstream byte for byte
        req = (b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo",'
               b'"arguments":{"v":' + value.encode() + b'}}}\n')
        p.send_raw(req)
        deadline = time.monotonic() + TIMEOUT  # (this upstream itself cannot read it)
        while req not in wire.read_bytes().splitlines(keepends=True):
            assert time.monotonic() < deadline, "the request never reached the upstream"
            time.sleep(0.05)


def test_a_duplicate_in_flight_id_is_refused_over_the_pipes(tag, annotations):
    with Peer(proxy(tag, annotations)) as p:
        p.call(0, "initialize", init_params())
        p.request(1, "tools/call", {"name": "hang", "arguments": {}})
        p.request(1, "tools/call", {"name": "runoff", "arguments": {"discharge": 1, "area": 2}})
        err = p.recv()
        assert err["id"] == 1 and err["error"]["code"] == -32600
        assert "already used by a request that has not been answered" in err["error"]["message"]
        r = p.call(2, "tools/call", {"name": "runoff", "arguments": {"discharge": 1, "area": 2}})
        assert json.loads(r["result"]["content"][0]["text"])["received"] == {"discharge": 1, "area": 2}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_sdk_client_hears_about_pending_calls_when_the_proxy_is_stopped(tag, annotations, mode, sig):
    outcome: dict = {}

    async def session():
        async with Client(stdio_params(proxy(tag, annotations, "--ignore-term")), mode=mode,
                          read_timeout_seconds=TIMEOUT) as client:
            pids = wait_count(tag, 2)
            proxy_pid = min(pids)  # the proxy starts before its upstream

            async def stop():
                await anyio.sleep(0.3)
                outcome["t0"] = time.monotonic()
                os.kill(proxy_pid, sig)

            async with anyio.create_task_group() as tg:
                tg.start_soon(stop)
                try:
                    await client.call_tool("hang", {})
                except MCPError as exc:
                    outcome["error"] = exc.error
                    outcome["t1"] = time.monotonic()

    try:
        run(session, seconds=TIMEOUT * 2)
    except Exception:  # the client may complain that its server went away afterwards
        pass
    assert "error" in outcome, "the pending call was never answered"
    assert outcome["error"].code == -32603
    assert f"received {signal.Signals(sig).name}" in outcome["error"].message
    assert outcome["t1"] - outcome["t0"] < 1.0 + 0.5  # 1 s budget; slack for a loaded machine
    assert wait_gone(tag, 2.0) == []
    assert live_pids(tag) == []
