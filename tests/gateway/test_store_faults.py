"""A store fault fails guarded calls quickly and closed and never stalls other traffic; a store
that comes back empty (a restart without persistence, a failover, an eviction) ends no live
session: the replicas write back what they hold. Real redis-server (stopped with SIGSTOP to
hang it, emptied with FLUSHALL), real replicas, the stock SDK 2.3 client."""
from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp")
pytest.importorskip("redis")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import client, code_of, run, text_of  # noqa: E402

ALICE = {"Authorization": "Bearer alice-0123456789"}


def _until(check, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "not within the time allowed"
        time.sleep(0.2)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_store_back_empty_ends_no_session_and_loses_no_ledger(replicas, mode):
    import redis
    g = replicas()
    r = redis.Redis.from_url(g.redis.url)

    async def main():
        async with client(g.url, mode, ALICE) as (a, _):
            for _ in range(3):  # the session and the ledger reach every replica
                got = await a.call_tool("read_discharge", {"site": "07374000"})
                assert not got.is_error
            r.flushall()
            if mode == "legacy":  # the replicas holding the session write it back
                await asyncio.to_thread(_until, lambda: any(r.scan_iter("qg:s:*")))
            await asyncio.sleep(6)  # past a reaper round of every replica (every 5 s)
            for _ in range(3):
                got = await a.call_tool("runoff", {"discharge": 1250})
                assert got.is_error and code_of(got) == "unconverted_carry_over", text_of(got)
    run(main(), timeout=120)


def test_a_hung_store_fails_guarded_calls_fast_and_stalls_nothing_else(replicas):
    g = replicas(count=1)
    pid = g.redis.process.pid

    async def main():
        async with client(g.url, "auto", ALICE) as (a, _):
            got = await a.call_tool("read_discharge", {"site": "07374000"})
            assert not got.is_error
            os.kill(pid, signal.SIGSTOP)
            try:
                started = time.monotonic()
                guarded = [a.call_tool("runoff", {"discharge": "1250 cfs"}) for _ in range(20)]
                results = await asyncio.gather(*guarded, a.list_tools())
                took = time.monotonic() - started
                for got in results[:-1]:
                    assert got.is_error and code_of(got) == "store_unavailable", text_of(got)
                assert results[-1].tools  # unguarded traffic answered
                # one store timeout (1 s) at most, not one per call (20 s); generous for a busy machine
                assert took < 10, took
            finally:
                os.kill(pid, signal.SIGCONT)

            def back() -> bool:
                got = asyncio.run_coroutine_threadsafe(
                    a.call_tool("runoff", {"discharge": "1250 cfs"}), loop).result(30)
                return not got.is_error
            loop = asyncio.get_running_loop()
            await asyncio.to_thread(_until, back)
    run(main(), timeout=120)


def test_the_replica_holding_a_conversation_writes_it_back_at_the_next_call(replicas):
    """No wait for the 5 s round: the next guarded call finds the store emptied, and the
    replica holding the conversation writes it back before checking the call against it."""
    import redis
    g = replicas(count=1)
    r = redis.Redis.from_url(g.redis.url)

    async def main():
        async with client(g.url, "auto", ALICE) as (a, _):
            got = await a.call_tool("read_discharge", {"site": "07374000"})
            assert not got.is_error
            r.flushall()
            got = await a.call_tool("runoff", {"discharge": 1250})
            assert got.is_error and code_of(got) == "unconverted_carry_over", text_of(got)
            assert any(r.scan_iter("qg:c:*"))  # written back
    run(main())
