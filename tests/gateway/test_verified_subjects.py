"""With a key set (--jwks-url), a client is the issuer and subject of its verified bearer JWT:
a refreshed token (a new jti, iat and exp) keeps the conversation and its ledger on every
replica, in the 2026-07-28 era (no session) as in 2025; a token of another subject joins
nothing, not even with the session id; a forged token is refused with 401 and the reason by
every replica. Real redis-server, three real replicas behind nginx fetching the key set over
https, the stock SDK 2.3 client, keys generated here."""
from __future__ import annotations

import asyncio
import http.client
import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import client, code_of, received, run, text_of  # noqa: E402
from jwt_keys import AUDIENCE, ISSUER, Issuer, KeySetServer, forged  # noqa: E402


@pytest.fixture
def issuer(tmp_path):
    found = Issuer()
    server = KeySetServer(found, tmp_path)
    found.server = server
    yield found
    server.close()


@pytest.fixture
def gateway(replicas, issuer):
    return replicas("--jwks-url", issuer.server.url, "--jwt-issuer", ISSUER,
                    "--jwt-audience", AUDIENCE, env={"SSL_CERT_FILE": issuer.server.cafile})


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


async def _read(c) -> None:
    got = await c.call_tool("read_discharge", {"site": "07374000"})
    assert not got.is_error and "1250" in text_of(got)


def _apart(got) -> None:
    assert not got.is_error, text_of(got)
    assert received(got)["discharge"] == 1250


def _together(got) -> None:
    assert got.is_error and code_of(got) == "unconverted_carry_over", text_of(got)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_refreshed_token_keeps_its_conversation_on_every_replica(gateway, issuer, mode):
    async def main():
        async with client(gateway.url, mode, bearer(issuer.token("alice"))) as (a, http):
            await _read(a)
            for _ in range(3):  # a new token each call, each replica in turn
                await asyncio.sleep(1.1)  # (a new iat and exp too)
                http.headers["Authorization"] = f"Bearer {issuer.token('alice')}"
                _together(await a.call_tool("runoff", {"discharge": 1250}))
    run(main())


def test_a_token_of_another_subject_joins_nothing(gateway, issuer):
    async def main():
        async with client(gateway.url, "auto", bearer(issuer.token("alice"))) as (a, _):
            await _read(a)
            async with client(gateway.url, "auto", bearer(issuer.token("bob"))) as (b, _):
                for _ in range(3):
                    _apart(await b.call_tool("runoff", {"discharge": 1250}))
            _together(await a.call_tool("runoff", {"discharge": 1250}))
    run(main())


def _post(port: int, body: dict, headers: dict) -> tuple[int, dict, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", "/mcp", body=json.dumps(body), headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            **headers})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}


def test_another_subject_never_continues_a_2025_session(gateway, issuer):
    """Not even with the session id: only a token of the subject that opened it continues it."""
    status, head, _ = _post(gateway.ports[0], INITIALIZE, bearer(issuer.token("alice")))
    assert status == 200
    session = {"Mcp-Session-Id": head["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25"}
    for port in gateway.ports:  # the replica that opened it and the others
        assert _post(port, PING, {**session, **bearer(issuer.token("bob"))})[0] == 404
        assert _post(port, PING, {**session, **bearer(issuer.token("alice"))})[0] == 200


def test_every_replica_refuses_a_forged_token_with_the_reason(gateway, issuer):
    for kind, (token, says) in forged(issuer).items():
        for port in gateway.ports:
            status, head, body = _post(port, INITIALIZE, bearer(token))
            assert status == 401, (kind, port, status)
            assert says in json.loads(body)["error"]["message"], (kind, body)
            assert 'error="invalid_token"' in head["www-authenticate"], (kind, head)
    status, head, body = _post(gateway.ports[0], INITIALIZE, {})  # no credential: no error code
    assert status == 401 and head["www-authenticate"] == 'Bearer realm="quantity-guard-mcp"'
    assert "Bearer <token>" in json.loads(body)["error"]["message"]
