"""Shared pieces of the gateway suites: a real redis-server, replicas of ``--listen --store``
(subprocesses, ``bench.perf_gateway.Stack``) behind a real round-robin nginx, and the official
SDK 2.3 client with headers of its own."""
from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from gateway_peers import WATER, need_nginx
from redis_server import RedisServer, require_redis

TOKEN = "shared-client-token-0123456789"
TOKEN_ENV = {"QG_CLIENT_TOKEN": TOKEN}


class Replicas:
    """``count`` replicas on one redis-server (or the given one), behind nginx when more than
    one; ``url`` is the load balancer's (or the lone replica's) MCP endpoint."""

    def __init__(self, directory: Path, *extra: str, count: int = 3, upstream: str | None = None,
                 env: dict | None = None, redis: RedisServer | None = None) -> None:
        require_redis()
        from bench.perf_gateway import Stack
        if count > 1:
            need_nginx()
        self.own_redis = redis is None
        if redis is None:
            (directory / "redis").mkdir(exist_ok=True)
            redis = RedisServer(str(directory / "redis")).start()
        self.redis = redis
        self.stack = Stack(str(directory))
        annotations = directory / "water.toml"
        annotations.write_text(WATER)
        self.extra, self.upstream, self.env, self.annotations = extra, upstream, env, str(annotations)
        self.ports = [self.add() for _ in range(count)]
        self.url = (f"http://127.0.0.1:{self.stack.nginx(self.ports)}/mcp" if count > 1 else
                    f"http://127.0.0.1:{self.ports[0]}/mcp")

    def add(self, *more: str, env: dict | None = None) -> int:
        return self.stack.replica(self.annotations, "--store", self.redis.url, *self.extra, *more,
                                  upstream=self.upstream, env={**(self.env or {}), **(env or {})})

    def log(self) -> str:
        return "".join("".join(lines) for lines in self.stack.logs.values())

    def close(self) -> None:
        self.stack.stop()
        if self.own_redis:
            self.redis.stop()


@pytest.fixture
def replicas(tmp_path):
    """A factory of ``Replicas`` in this test's directory, all stopped at the end."""
    made: list[Replicas] = []

    def make(*extra: str, **options) -> Replicas:
        sub = tmp_path / f"g{len(made)}"
        sub.mkdir()
        r = Replicas(sub, *extra, **options)
        made.append(r)
        return r

    yield make
    for r in made:
        r.close()


def run(coro, timeout: float = 90):
    return asyncio.run(asyncio.wait_for(coro, timeout))


def text_of(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def code_of(result):
    from quantity_guard.errors import VIOLATION_META
    return ((result.meta or {}).get(VIOLATION_META) or {}).get("code")


class client:
    """``async with client(url, mode, headers) as (c, http)``: the stock SDK client over its own
    httpx client carrying ``headers`` (``http.headers`` may be changed between calls)."""

    def __init__(self, url: str, mode: str = "auto", headers: dict | None = None) -> None:
        self.url, self.mode, self.headers = url, mode, headers or {}

    async def __aenter__(self):
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client
        self.http = create_mcp_http_client(headers=self.headers)
        await self.http.__aenter__()
        self.client = Client(streamable_http_client(self.url, http_client=self.http), mode=self.mode)
        c = await self.client.__aenter__()
        return c, self.http

    async def __aexit__(self, *exc):
        try:
            await self.client.__aexit__(*exc)
        finally:
            await self.http.__aexit__(*exc)


def received(result) -> dict:
    return json.loads(text_of(result))["received"]
