"""A conversation belongs to one principal, proven by what the client authenticated with (every
credential header the deployment checks or forwards), never by a value the client chooses alone;
a refreshed credential of a 2025 session keeps its ledger on every replica. Real redis-server,
three real replicas behind nginx, the stock SDK 2.3 client."""
from __future__ import annotations

import http.client
import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import TOKEN, TOKEN_ENV, client, code_of, received, run, text_of  # noqa: E402

TRACE = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


async def _read(c) -> None:
    got = await c.call_tool("read_discharge", {"site": "07374000"})
    assert not got.is_error and "1250" in text_of(got)


async def _bare(c):
    """A bare 1250 into runoff: a carry-over only if this conversation read 1250 cfs."""
    return await c.call_tool("runoff", {"discharge": 1250})


def _apart(got) -> None:
    assert not got.is_error, text_of(got)
    assert received(got)["discharge"] == 1250
    assert "read_discharge" not in text_of(got)


def _together(got) -> None:
    assert got.is_error and code_of(got) == "unconverted_carry_over", text_of(got)


def test_holders_of_the_shared_client_token_never_share_a_conversation(replicas):
    g = replicas("--client-token-env", "QG_CLIENT_TOKEN", env=TOKEN_ENV)
    auth = {"Authorization": f"Bearer {TOKEN}"}

    async def main():
        async with client(g.url, "auto", auth) as (a, _):
            await _read(a)
            async with client(g.url, "auto", auth) as (b, _):  # the same SDK, name and version
                _apart(await _bare(b))
    run(main())


@pytest.mark.parametrize("how", ["session header", "trace id"])
def test_a_value_the_client_chooses_never_joins_another_conversation(replicas, how):
    """Under a shared token, a session header value or a trace id another client learnt joins
    nothing: without a credential of its own a client's conversation is its connection's."""
    g = replicas("--client-token-env", "QG_CLIENT_TOKEN", "--session-header", "X-Conversation-Id",
                 env=TOKEN_ENV)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    if how == "session header":
        headers["X-Conversation-Id"] = "conversation-1"

    async def main():
        meta = {"traceparent": TRACE} if how == "trace id" else None
        async with client(g.url, "auto", headers) as (a, _):
            got = await a.call_tool("read_discharge", {"site": "07374000"}, meta=meta)
            assert not got.is_error
            async with client(g.url, "auto", headers) as (b, _):
                _apart(await b.call_tool("runoff", {"discharge": 1250}, meta=meta))
    run(main())


@pytest.fixture
def remote():
    pytest.importorskip("uvicorn")
    from test_mcp_http_upstream import HTTPServer
    server = HTTPServer()
    yield server
    server.stop()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_forwarded_credential_tells_users_apart(replicas, remote, mode):
    g = replicas("--client-token-env", "QG_CLIENT_TOKEN", "--forward-header", "X-Api-Key",
                 upstream=remote.url, env=TOKEN_ENV)
    alice = {"Authorization": f"Bearer {TOKEN}", "X-Api-Key": "alice-key"}
    bob = {"Authorization": f"Bearer {TOKEN}", "X-Api-Key": "bob-key"}

    async def main():
        async with client(g.url, mode, alice) as (a, _):
            await _read(a)
            async with client(g.url, mode, bob) as (b, _):
                _apart(await _bare(b))
            for _ in range(3):  # alice's own conversation, whichever replica each call reaches
                _together(await _bare(a))
    run(main())


def test_one_principal_keeps_its_conversation_across_connections(replicas):
    """Without --client-token-env, Authorization is the credential: the same one over new
    connections (the 2026-07-28 SDK opens one per request) is one conversation."""
    g = replicas()

    async def main():
        async with client(g.url, "auto", {"Authorization": "Bearer alice-0123456789"}) as (a, _):
            await _read(a)
            async with client(g.url, "auto", {"Authorization": "Bearer alice-0123456789"}) as (a2, _):
                _together(await _bare(a2))
            async with client(g.url, "auto", {"Authorization": "Bearer bob-0123456789"}) as (b, _):
                _apart(await _bare(b))
    run(main())


def test_a_refreshed_credential_keeps_a_2025_session_on_every_replica(replicas):
    g = replicas()

    async def main():
        async with client(g.url, "legacy", {"Authorization": "Bearer old-token-0123456789"}) as (a, http):
            await _read(a)
            http.headers["Authorization"] = "Bearer refreshed-token-0123456789"
            for _ in range(3):  # each replica in turn: none answers 404, each holds the ledger
                _together(await _bare(a))
    run(main())


def _post(url: str, body: dict, headers: dict) -> tuple[int, dict]:
    host, port = url.split("//")[1].split("/")[0].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        conn.request("POST", "/mcp", body=json.dumps(body), headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            **headers})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}
    finally:
        conn.close()


def test_an_anonymous_request_never_continues_a_credentialed_session(replicas):
    g = replicas()
    status, head = _post(g.url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"Authorization": "Bearer alice-0123456789"})
    assert status == 200
    sid = head["mcp-session-id"]
    for _ in range(3):  # on the replica that opened it and on the others
        status, _ = _post(g.url, {"jsonrpc": "2.0", "id": 2, "method": "ping"},
                          {"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"})
        assert status == 404
