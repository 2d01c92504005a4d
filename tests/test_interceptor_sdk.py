"""The official MCP SDK (2.3) as an interceptor host's client of ``quantity-guard-mcp
interceptor``, over stdio and over Streamable HTTP (``--listen``), in both revisions: the
default auto mode (server/discover, 2026-07-28) and mode="legacy" (initialize, 2025-11-25)."""
from __future__ import annotations

import contextlib
import http.client
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Literal

import pytest

mcp = pytest.importorskip("mcp")
anyio = pytest.importorskip("anyio")

sys.path.insert(0, str(Path(__file__).parent))
import mcp_types
from mcp import Client, MCPError
from mcp_peers.driver import env
from mcp_peers.sdk_client import run, stdio_params
from pydantic import ConfigDict, TypeAdapter

from quantity_guard.mcp.interceptor import EXTENSION, MUTATOR, VALIDATOR

MODES = {"auto": "2026-07-28", "legacy": "2025-11-25"}
ARGV = [sys.executable, "-m", "quantity_guard.mcp", "interceptor", "--annotations",
        "demo/water.toml"]
RAW: TypeAdapter = TypeAdapter(dict[str, Any])


class ListParams(mcp_types.RequestParams):
    event: str | None = None


class InvokeParams(mcp_types.RequestParams):
    model_config = ConfigDict(extra="allow")
    name: str
    event: str
    phase: str
    payload: Any
    context: dict | None = None


class ListRequest(mcp_types.Request[ListParams, Literal["interceptors/list"]]):
    method: Literal["interceptors/list"] = "interceptors/list"
    params: ListParams


class InvokeRequest(mcp_types.Request[InvokeParams, Literal["interceptor/invoke"]]):
    method: Literal["interceptor/invoke"] = "interceptor/invoke"
    params: InvokeParams


async def host(client: Client) -> dict:
    """What a host does with the interceptor server: the advertised extension, the list, a
    refused, a converted and a labelled call, and an unknown name."""
    out: dict = {"version": client.protocol_version,
                 "extension": (client.server_capabilities.extensions or {}).get(EXTENSION)}
    send = client.session.send_request
    listed = await send(ListRequest(params=ListParams(event="tools/call")), RAW)
    out["names"] = [i["name"] for i in listed["interceptors"]]

    async def invoke(name: str, phase: str, payload: Any) -> dict:
        return await send(InvokeRequest(params=InvokeParams(
            name=name, event="tools/call", phase=phase, payload=payload,
            context={"sessionId": "sdk"})), RAW)

    out["refused"] = await invoke(VALIDATOR, "request", {
        "name": "runoff_depth", "arguments": {"discharge": "3 m"}})
    out["converted"] = await invoke(MUTATOR, "request", {
        "name": "runoff_depth", "arguments": {"discharge": "1250 cfs"}})
    await invoke(MUTATOR, "request", {"name": "read_discharge", "arguments": {"site": "1"}})
    out["labelled"] = await invoke(MUTATOR, "response", {
        "content": [{"type": "text", "text": "1250"}]})
    try:
        await invoke("quantity-guard/nothing", "request", {})
    except MCPError as exc:
        out["unknown"] = (exc.error.code, exc.error.message)
    return out


def check(out: dict, mode: str) -> None:
    assert out["version"] == MODES[mode]
    assert out["extension"] == {"supportedEvents": ["tools/call"]}
    assert out["names"] == [VALIDATOR, MUTATOR]
    refused = out["refused"]
    assert refused["valid"] is False and refused["severity"] == "error"
    assert refused["messages"][0]["path"] == "arguments.discharge"
    assert refused["messages"][0]["message"].startswith(
        "runoff_depth.discharge: expected a quantity in m**3/s")
    assert out["converted"]["modified"] is True
    assert out["converted"]["payload"]["arguments"] == {"discharge": 35.39605824}
    assert out["labelled"]["payload"]["structuredContent"] == {"value": 1250.0, "unit": "cfs"}
    for result in ("refused", "converted", "labelled"):
        assert out[result].get("resultType") == ("complete" if mode == "auto" else None)
    code, message = out["unknown"]
    assert code == -32602 and "no interceptor named" in message


@pytest.mark.parametrize("mode", list(MODES))
def test_an_sdk_client_uses_the_interceptor_server_over_stdio(mode):
    async def session():
        async with Client(stdio_params(ARGV), mode=mode, read_timeout_seconds=60) as client:
            return await host(client)
    check(run(session), mode)


@contextlib.contextmanager
def listener(*options: str, **extra_env: str):
    """The interceptor server on a free loopback port: its /mcp URL."""
    proc = subprocess.Popen([*ARGV, "--listen", "0", *options], stderr=subprocess.PIPE,
                            text=True, env=env(**extra_env),
                            cwd=Path(__file__).resolve().parent.parent)
    try:
        line = proc.stderr.readline()
        assert "serving MCP" in line, line
        yield line.strip().rsplit(" ", 1)[1]
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.stderr.close()


@pytest.fixture(scope="module")
def listening():
    with listener() as url:
        yield url


@pytest.mark.parametrize("mode", list(MODES))
def test_an_sdk_client_uses_the_interceptor_server_over_streamable_http(listening, mode):
    async def session():
        async with Client(listening, mode=mode, read_timeout_seconds=60) as client:
            return await host(client)
    check(run(session), mode)


def test_the_proxys_http_options_guard_the_interceptors_listener():
    """--listen is the proxy's listener: its options follow (here a client token) and apply."""
    token = "interceptor-test-token-0123456789"
    with listener("--client-token-env", "QG_IC_TOKEN", QG_IC_TOKEN=token) as url:
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "interceptors/list",
                           "params": {"_meta": {"io.modelcontextprotocol/protocolVersion":
                                                "2026-07-28"}}})
        statuses = []
        for credential in (None, token):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            headers = {"Content-Type": "application/json",
                       "Accept": "application/json",
                       "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "interceptors/list"}
            if credential:
                headers["Authorization"] = f"Bearer {credential}"
            conn.request("POST", "/mcp", body=body, headers=headers)
            response = conn.getresponse()
            statuses.append((response.status, response.read()))
            conn.close()
        assert statuses[0][0] == 401
        assert statuses[1][0] == 200
        names = [i["name"] for i in json.loads(statuses[1][1])["result"]["interceptors"]]
        assert names == [VALIDATOR, MUTATOR]
