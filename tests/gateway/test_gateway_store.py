"""Three replicas of ``--listen --store`` behind a real round-robin nginx, one real redis-server,
the stock SDK 2.3 client in both eras: whichever replica each request reaches, the conversation
has one ledger; a 2025 session is served by any replica; a killed replica and a stopped store
change nothing recorded."""
from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")
from gateway_peers import WATER, need_nginx
from redis_server import RedisServer, require_redis  # noqa: E402

from bench.perf_gateway import Stack  # noqa: E402
from quantity_guard.errors import VIOLATION_META  # noqa: E402

CFS = 0.028316846592


class Gateway:
    def __init__(self, directory: Path, upstream: str | None = None) -> None:
        require_redis()
        need_nginx()
        (directory / "redis").mkdir()
        self.redis = RedisServer(str(directory / "redis")).start()
        self.stack = Stack(str(directory))
        annotations = directory / "water.toml"
        annotations.write_text(WATER)
        self.ports = [self.stack.replica(str(annotations), "--store", self.redis.url, upstream=upstream)
                      for _ in range(3)]
        self.lb = self.stack.nginx(self.ports)
        self.url = f"http://127.0.0.1:{self.lb}/mcp"

    def close(self) -> None:
        self.stack.stop()
        self.redis.stop()


@pytest.fixture
def gateway(tmp_path):
    g = Gateway(tmp_path)
    try:
        yield g
    finally:
        g.close()


def _text(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def _code(result):
    meta = result.meta or {}
    return (meta.get(VIOLATION_META) or {}).get("code")


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 60))


async def _steps(client, *, between=None):
    got = await client.call_tool("read_discharge", {"site": "07374000"})
    assert not got.is_error and "1250" in _text(got) and "cfs" in _text(got)
    if between is not None:
        between()
    got = await client.call_tool("runoff", {"discharge": "1250 cfs"})
    assert not got.is_error, _text(got)
    assert json.loads(_text(got))["received"]["discharge"] == pytest.approx(1250 * CFS)
    got = await client.call_tool("runoff", {"discharge": "5 m"})
    assert got.is_error and _code(got) == "dimensionality_error"
    for _ in range(3):  # three requests in a row: one on each replica (round robin)
        got = await client.call_tool("runoff", {"discharge": 1250})
        assert got.is_error and _code(got) == "unconverted_carry_over", _text(got)
        assert "read_discharge.return returned 1250 cfs" in _text(got)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_one_conversation_whichever_replica_each_call_reaches(gateway, mode):
    from mcp import Client

    async def main():
        async with Client(gateway.url, mode=mode) as client:
            assert client.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
            for _ in range(2):  # every call meets another replica than the one before
                await _steps(client)
    run(main())


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_replicas_in_front_of_a_remote_url(tmp_path, mode):
    """--upstream URL behind each replica (an SDK server over Streamable HTTP): a 2025 session
    another replica opened is adopted with a conversation of its own with the remote server."""
    pytest.importorskip("uvicorn")
    from test_mcp_http_upstream import HTTPServer
    from mcp import Client
    remote = HTTPServer()
    g = Gateway(tmp_path, upstream=remote.url)
    try:
        async def main():
            async with Client(g.url, mode=mode) as client:
                for _ in range(2):
                    await _steps(client)
        run(main())
    finally:
        g.close()
        remote.stop()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_replica_killed_between_two_calls_changes_nothing(gateway, mode):
    from mcp import Client

    async def main():
        async with Client(gateway.url, mode=mode) as client:
            await _steps(client, between=lambda: gateway.stack.kill(gateway.ports[0]))
    run(main())


def test_store_stopped_refuses_with_its_code_then_resumes(gateway):
    from mcp import Client

    async def main():
        async with Client(gateway.url) as client:
            got = await client.call_tool("read_discharge", {"site": "07374000"})
            assert not got.is_error
            gateway.redis.stop()
            for _ in range(3):  # on every replica
                got = await client.call_tool("runoff", {"discharge": "1250 cfs"})
                assert got.is_error and _code(got) == "store_unavailable", _text(got)
                assert "could not be reached" in _text(got)
            gateway.redis.start()
            got = await client.call_tool("runoff", {"discharge": "1250 cfs"})
            assert not got.is_error, _text(got)
            got = await client.call_tool("runoff", {"discharge": 1250})  # recorded before the stop
            assert got.is_error and _code(got) == "unconverted_carry_over"
    run(main())


def test_two_credentials_have_two_ledgers(gateway):
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def calls(token, *steps):
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with http, Client(streamable_http_client(gateway.url, http_client=http)) as client:
            return [await client.call_tool(name, arguments) for name, arguments in steps]

    async def main():
        await calls("alice", ("read_discharge", {"site": "07374000"}))
        bare = ("runoff", {"discharge": 1250})
        for got in await calls("bob", bare, bare, bare):  # on each replica: bob's ledger is empty
            assert not got.is_error, _text(got)
        for got in await calls("alice", bare, bare, bare):  # alice's holds 1250 cfs everywhere
            assert got.is_error and _code(got) == "unconverted_carry_over"
    run(main())


def test_store_usage_errors(tmp_path):
    import subprocess
    annotations = tmp_path / "water.toml"
    annotations.write_text(WATER)
    base = [sys.executable, "-m", "quantity_guard.mcp", "--annotations", str(annotations)]
    for argv, status, text in [
            (["--store", "redis://127.0.0.1:1/0", "--", "srv"], 2, "needs --listen"),
            (["--listen", "0", "--store-ttl", "5", "--", "srv"], 2, "--store, which is not given"),
            (["--listen", "0", "--store", "redis://127.0.0.1:1/0", "--store-unavailable", "maybe",
              "--", "srv"], 2, "refuse or proceed"),
            (["--listen", "0", "--store", "memcached://x", "--", "srv"], 3, "redis://HOST:PORT/DB"),
            (["--listen", "0", "--store", "redis://127.0.0.1:1/0", "--", "srv"], 3, "could not be reached"),
            (["--listen", "0", "--store", "redis://127.0.0.1:1/0", "--store-key-env", "QG_NO_SUCH_KEY",
              "--", "srv"], 2, "QG_NO_SUCH_KEY"),
            (["--listen", "0", "--store", "rediss://127.0.0.1:1/0?ssl_cert_reqs=none", "--", "srv"], 3,
             "ssl_cert_reqs=none"),
            (["--listen", "0", "--store", "redis://127.0.0.1:1/0", "--store-password-env",
              "QG_NO_SUCH_PASSWORD", "--", "srv"], 2, "QG_NO_SUCH_PASSWORD")]:
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2]),
               "QUANTITY_GUARD_STORE_KEY": "k" * 32}
        done = subprocess.run([*base, *argv], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL, env=env)
        assert done.returncode == status and text in done.stderr, (argv, done.returncode, done.stderr)


def test_proceed_mode_forwards_with_a_warning(tmp_path):
    from mcp import Client
    require_redis()
    (tmp_path / "redis").mkdir()
    redis = RedisServer(str(tmp_path / "redis")).start()
    stack = Stack(str(tmp_path))
    try:
        annotations = tmp_path / "water.toml"
        annotations.write_text(WATER)
        port = stack.replica(str(annotations), "--store", redis.url, "--store-unavailable", "proceed")
        redis.stop()

        async def main():
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                got = await client.call_tool("runoff", {"discharge": "1250 cfs"})
                assert not got.is_error, _text(got)
                assert json.loads(_text(got))["received"]["discharge"] == pytest.approx(1250 * CFS)
        run(main())
        import time
        deadline = time.monotonic() + 10  # (the replica's stderr is read by a thread)
        while not any("proceeding without" in line for line in stack.logs[port]) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert any("proceeding without the shared history" in line for line in stack.logs[port])
    finally:
        stack.stop()
        redis.stop()
