"""A library session shared through a real Redis: workers in other processes see one ledger;
what is kept, for how long, and what happens when the store goes away and comes back."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import warnings

import pytest

from quantity_guard import quantity_tool, session
from quantity_guard.errors import StoreUnavailable, UnconvertedCarryOver
from tests.redis_server import redis_server  # noqa: F401  (the fixture)

WORKER = textwrap.dedent("""
    import sys
    from quantity_guard import quantity_tool, session

    @quantity_tool(returns={"unit": "cfs"})
    def read_discharge(site: str):
        return 1250.0

    with session(store=sys.argv[1], conversation=sys.argv[2]):
        print(read_discharge("07374000"))
""")


@quantity_tool(returns={"unit": "cfs"})
def read_discharge(site: str):
    return 1250.0


@quantity_tool(params={"discharge": {"unit": "m**3/s"}}, returns={"unit": "m**3/s"})
def route_flow(discharge):
    return discharge


def _worker(url: str, conversation: str) -> None:
    done = subprocess.run([sys.executable, "-c", WORKER, url, conversation], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_a_value_another_process_read_is_caught_as_carry_over(redis_server):
    _worker(redis_server.url, "run-1")  # another process read 1250 cfs in this conversation
    with session(store=redis_server.url, conversation="run-1"):
        with pytest.raises(UnconvertedCarryOver) as caught:
            route_flow(1250)
    assert "cfs" in caught.value.repair()
    with session(store=redis_server.url, conversation="run-1"):
        assert route_flow("1250 cfs").magnitude == pytest.approx(35.39605824)


def test_another_conversation_sees_nothing(redis_server):
    _worker(redis_server.url, "run-1")
    with session(store=redis_server.url, conversation="run-2") as ledger:
        route_flow(1250)  # no 1250 cfs in this conversation: accepted
    assert [c.tool for c in ledger.calls] == ["route_flow"]


def test_without_a_store_nothing_is_shared(redis_server):
    _worker(redis_server.url, "run-1")
    with session():
        route_flow(1250)


def test_keys_are_hashed_under_the_prefix_with_a_ttl(redis_server):
    import redis
    from quantity_guard.store import open_store
    store = open_store(redis_server.url, ttl=120, prefix="gw1:")
    with session(store=store, conversation="Bearer secret-token|agent"):
        read_discharge("07374000")
    client = redis.Redis.from_url(redis_server.url)
    keys = client.keys("*")
    assert sorted(k[:len(b"gw1:c:")] for k in keys) == [b"gw1:c:", b"gw1:ep"]  # and the epoch
    keys = [k for k in keys if k.startswith(b"gw1:c:")]
    assert b"secret" not in keys[0]
    assert 0 < client.pttl(keys[0]) <= 120_000
    (_, fields), = client.xrange(keys[0])
    record = json.loads(fields[b"r"])
    assert record["t"] == "read_discharge" and record["o"][0][1] == {"value": 1250.0, "unit": "cfs"}


def test_a_long_argument_text_is_not_kept(redis_server):
    import redis

    @quantity_tool(params={"flow": {"unit": "cfs"}}, returns={"unit": "cfs"})
    def note_flow(flow, note: str):
        return flow

    with session(store=redis_server.url, conversation="c"):
        note_flow(10, "x" * 5000)
    client = redis.Redis.from_url(redis_server.url)
    (key,) = client.keys("qg:c:*")
    (_, fields), = client.xrange(key)
    assert len(fields[b"r"]) < 400
    assert json.loads(fields[b"r"])["a"] == {"flow": 10}


def test_store_down_refuses_then_comes_back(redis_server):
    from quantity_guard.store import open_store
    store = open_store(redis_server.url)
    with session(store=store, conversation="c"):
        read_discharge("07374000")
    redis_server.stop()
    with session(store=store, conversation="c"):
        with pytest.raises(StoreUnavailable) as caught:
            route_flow(1250)
    assert caught.value.code == "store_unavailable"
    assert "could not be reached" in caught.value.repair()
    redis_server.start()  # same port, same data directory
    with session(store=store, conversation="c"):  # the store is used again, 1250 cfs kept
        with pytest.raises(UnconvertedCarryOver):
            route_flow(1250)


def test_a_result_whose_record_cannot_be_written_is_not_returned(redis_server):
    from quantity_guard.store import open_store
    store = open_store(redis_server.url)
    conversation = store.conversation("c")
    from quantity_guard.ledger import Ledger

    ledger = conversation.attach(Ledger())
    with ledger.bind():
        conversation.sync(ledger)  # (reachable when the call begins)
        original = conversation.sync
        conversation.sync = lambda ledger: None  # type: ignore[method-assign]
        try:
            redis_server.stop()
            with pytest.raises(StoreUnavailable):
                read_discharge("07374000")
        finally:
            conversation.sync = original  # type: ignore[method-assign]


def test_proceed_mode_warns_and_goes_on(redis_server):
    from quantity_guard.store import open_store
    store = open_store(redis_server.url, on_unavailable="proceed")
    redis_server.stop()
    with session(store=store, conversation="c"):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            assert route_flow(1250).magnitude == 1250
    assert any("proceeding without the shared history" in str(w.message) for w in seen)


def test_memory_per_conversation_stays_bounded_over_20000_calls(redis_server):
    from quantity_guard.store import MAX_RECORD_BYTES, open_store
    store = open_store(redis_server.url, max_calls=1_000)
    conversation = store.conversation("long")
    with session(store=store, conversation="long"):
        for i in range(1_000):
            route_flow(float(i % 97 + 1))
        at_bound = conversation.memory()
        for i in range(19_000):
            route_flow(float(i % 97 + 1))
    assert conversation.length() == 1_000
    after = conversation.memory()
    assert after <= 1_000 * MAX_RECORD_BYTES
    assert after <= at_bound * 1.05  # records of one size: the bound is reached and held


def test_without_a_store_redis_is_never_imported():
    code = ("import sys\n"
            "from quantity_guard import quantity_tool, session\n"
            "@quantity_tool(returns={'unit': 'cfs'})\n"
            "def f(site: str):\n    return 1.0\n"
            "with session():\n    f('x')\n"
            "import quantity_guard.mcp.cli, quantity_guard.mcp.http.listen\n"
            "assert 'redis' not in sys.modules, 'redis imported'\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_a_shared_session_needs_both_store_and_conversation():
    with pytest.raises(ValueError, match="conversation"):
        with session(store="redis://127.0.0.1:1/0"):
            pass
    with pytest.raises(ValueError, match="redis://"):
        with session(store="http://127.0.0.1:1/0", conversation="c"):
            pass


def test_a_unix_socket_store_is_the_same_store(redis_server):
    with session(store=redis_server.unix_url, conversation="run-u"):
        read_discharge("07374000")
    with session(store=redis_server.url, conversation="run-u"):
        with pytest.raises(UnconvertedCarryOver):
            route_flow(1250)
