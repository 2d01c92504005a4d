"""Whoever can write to the store cannot forge what the replicas read: records carry an HMAC
under the key the replicas share (from the environment), key names are derived from it, every
record is bounded and validated on read, and a deployment with another key shares nothing.
Real redis-server, real replicas (one, or three behind nginx), the stock SDK 2.3 client; the
store writer is a plain redis client."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")
pytest.importorskip("redis")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import client, code_of, received, run, text_of  # noqa: E402

ALICE = {"Authorization": "Bearer alice-0123456789"}
FORGED = {"t": "read_discharge", "e": "strict", "ok": True, "i": [],
          "o": [[None, {"value": 1250.0, "unit": "cfs"}]], "v": [], "a": {}}


def _writer(g):
    import redis
    return redis.Redis.from_url(g.redis.url)


def _streams(r) -> list[bytes]:
    return [k for k in r.scan_iter("qg:c:*") if r.type(k) == b"stream"]


async def _fresh(c) -> None:
    """A call that writes this conversation's first record (nothing to carry over)."""
    got = await c.call_tool("runoff", {"discharge": "35 m**3/s"})
    assert not got.is_error, text_of(got)


def test_a_forged_record_is_not_read(replicas):
    g = replicas()
    r = _writer(g)

    async def main():
        async with client(g.url, "auto", ALICE) as (a, _):
            await _fresh(a)
            streams = _streams(r)
            assert streams
            for key in streams:  # a store writer without the key: any shape it likes
                r.xadd(key, {"r": json.dumps(FORGED)})
                r.xadd(key, {"r": json.dumps(FORGED), "m": "0" * 32})
            for _ in range(3):  # every replica: 1250 was never returned here, so no carry-over
                got = await a.call_tool("runoff", {"discharge": 1250})
                assert not got.is_error and received(got)["discharge"] == 1250, text_of(got)
    run(main())


@pytest.mark.parametrize("junk", ["{{{", json.dumps({"t": 1, "i": "x"}), json.dumps({"t": "x", "i": [[1]]}),
                                  json.dumps([1, 2]), "x" * (20 << 20)])
def test_a_malformed_or_huge_record_bricks_nothing(replicas, junk):
    g = replicas(count=1)
    r = _writer(g)

    async def main():
        async with client(g.url, "auto", ALICE) as (a, _):
            await _fresh(a)
            for key in _streams(r):
                r.xadd(key, {"r": junk, "m": "0" * 32})
                r.xadd(key, {"r": junk})
            got = await a.call_tool("read_discharge", {"site": "07374000"})
            assert not got.is_error
            got = await a.call_tool("runoff", {"discharge": 1250})  # its own records still count
            assert got.is_error and code_of(got) == "unconverted_carry_over", text_of(got)
            got = await a.call_tool("runoff", {"discharge": "1250 cfs"})
            assert not got.is_error
    run(main())
    assert "skipped" in g.log()  # reported (once), not a traceback
    assert "Traceback" not in g.log()


def test_two_gateways_with_other_keys_share_nothing(replicas):
    one = replicas(count=1, env={"QUANTITY_GUARD_STORE_KEY": "a" * 64})
    two = replicas(count=1, env={"QUANTITY_GUARD_STORE_KEY": "b" * 64}, redis=one.redis)

    async def main():
        async with client(one.url, "auto", ALICE) as (a, _):
            got = await a.call_tool("read_discharge", {"site": "07374000"})
            assert not got.is_error
            got = await a.call_tool("runoff", {"discharge": 1250})
            assert code_of(got) == "unconverted_carry_over"
        async with client(two.url, "auto", ALICE) as (b, _):  # the same credential, same prefix
            got = await b.call_tool("runoff", {"discharge": 1250})
            assert not got.is_error and received(got)["discharge"] == 1250, text_of(got)
    run(main())


def test_a_2025_session_record_is_bounded_whatever_the_initialize(replicas):
    import http.client
    g = replicas(count=1)
    r = _writer(g)
    padding = "x" * (2 << 20)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"experimental": {"pad": padding}},
        "clientInfo": {"name": "t" * 5000, "version": "1"}, "extra": padding}})
    conn = http.client.HTTPConnection("127.0.0.1", g.ports[0], timeout=60)
    conn.request("POST", "/mcp", body=body, headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream", **ALICE})
    resp = conn.getresponse()
    resp.read()
    assert resp.status == 200 and resp.getheader("Mcp-Session-Id")
    conn.close()
    sizes = [r.strlen(k) for k in r.scan_iter("qg:s:*")]
    assert sizes and max(sizes) <= 16_384 + 64


def test_a_key_left_in_the_store_by_an_older_release_does_not_stop_start_up(replicas, tmp_path):
    from redis_server import RedisServer
    (tmp_path / "r").mkdir()
    redis_server = RedisServer(str(tmp_path / "r")).start()
    try:
        import redis
        redis.Redis.from_url(redis_server.url).set("qg:identity-key", "zz-not-hex")
        g = replicas(count=1, redis=redis_server)

        async def main():
            async with client(g.url, "auto", ALICE) as (a, _):
                await _fresh(a)
        run(main())
        assert "Traceback" not in g.log()
    finally:
        redis_server.stop()


def test_a_replica_without_the_key_does_not_start(tmp_path):
    annotations = tmp_path / "water.toml"
    annotations.write_text("[tools.runoff.params]\ndischarge = 'm**3/s'\n")
    env = {k: v for k, v in __import__("os").environ.items() if k != "QUANTITY_GUARD_STORE_KEY"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    for value in (None, "short"):
        if value is not None:
            env["QUANTITY_GUARD_STORE_KEY"] = value
        done = subprocess.run([sys.executable, "-m", "quantity_guard.mcp", "--annotations", str(annotations),
                               "--listen", "0", "--store", "redis://127.0.0.1:1/0", "--", "srv"],
                              capture_output=True, text=True, timeout=60, env=env, stdin=subprocess.DEVNULL)
        assert done.returncode == 2 and "QUANTITY_GUARD_STORE_KEY" in done.stderr
        assert value is None or value not in done.stderr


def test_a_conversation_key_of_another_type_bricks_nothing(replicas):
    g = replicas(count=1)
    r = _writer(g)

    async def main():
        async with client(g.url, "auto", ALICE) as (a, _):
            got = await a.call_tool("read_discharge", {"site": "07374000"})
            assert not got.is_error
            for key in _streams(r):
                r.delete(key)
                r.set(key, "not a stream")
            got = await a.call_tool("runoff", {"discharge": 1250})  # its own history still counts
            assert got.is_error and code_of(got) == "unconverted_carry_over", text_of(got)
            got = await a.call_tool("runoff", {"discharge": "1250 cfs"})
            assert not got.is_error, text_of(got)
            assert _streams(r)  # written anew
    run(main())
