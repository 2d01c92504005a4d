"""A long session under the proxy's bounds (a history of ``max_entries``, ``max_calls`` call
records): outputs that leave the history stay checked as kept values, once per value, up to
``max_values``; past it the least recently used value is forgotten, and that is reported."""
from __future__ import annotations

import gc
import logging
import tracemalloc

import pytest

from quantity_guard import quantity_tool
from quantity_guard.errors import UnsourcedInput
from quantity_guard.ledger import Ledger, bind

FIRST = 7777.25  # cfs: beyond every sum or difference of two of the readings below
DISTINCT = 2_000


@quantity_tool(returns={"unit": "cfs"})
def baseline():
    return FIRST


@quantity_tool(returns={"unit": "cfs"})
def gauge(site: int):
    return 1000.0 + (site % DISTINCT) * 0.75  # 1000 to 2499.25 cfs, repeating


@quantity_tool(params={"flow": {"unit": "cfs", "sourced": True}}, returns={"unit": "cfs"})
def route(flow):
    return flow.magnitude * 0.5


@quantity_tool(returns={"unit": "cfs"})
def read(value: float):
    return value


@quantity_tool(params={"flow": {"unit": "cfs", "sourced": True}})
def use(flow):
    return "used"


def _kept(ledger: Ledger) -> list[float]:
    """The kept values' magnitudes, least recently used first."""
    return [magnitude for _, _, magnitude in ledger._kept]


def test_an_early_output_is_still_sourced_after_100000_calls_with_repeats():
    ledger = Ledger(context="Route the flows.", max_entries=10_000, max_calls=1_000)
    with bind(ledger):
        baseline()
        for i in range(49_999):
            route(gauge(i))
        assert ledger.call_count == 99_999 and not ledger.violations
        assert FIRST not in [e.magnitude for e in ledger.entries]  # long out of the history
        assert route(FIRST).magnitude == FIRST / 2
        with pytest.raises(UnsourcedInput):
            route(FIRST + 0.5)
    # every value once: the first, 2,000 readings and 2,000 routed halves
    assert ledger.values_kept == 1 + 2 * DISTINCT and ledger.values_evicted == 0


def test_the_least_recently_used_value_is_forgotten_first():
    touched = Ledger(max_entries=1, max_values=2)
    with bind(touched):
        for value in (1.0, 2.0, 3.0):
            read(value)
        assert _kept(touched) == [1.0, 2.0]  # 3.0 is still in the history
        use(1.0)  # 1.0 is used: 2.0 is now the least recently used
        assert _kept(touched) == [1.0, 3.0] and touched.values_evicted == 1
        assert use(1.0) == "used"
        with pytest.raises(UnsourcedInput):
            use(2.0)
    untouched = Ledger(max_entries=1, max_values=2)
    with bind(untouched):
        for value in (1.0, 2.0, 3.0):
            read(value)
        use(3.0)
        assert _kept(untouched) == [2.0, 3.0] and untouched.values_evicted == 1
        assert use(2.0) == "used"
        with pytest.raises(UnsourcedInput):
            use(1.0)


def test_forgetting_is_counted_logged_and_reported(caplog):
    ledger = Ledger(max_entries=100, max_values=50)
    caplog.set_level(logging.WARNING, logger="quantity_guard")
    with bind(ledger):
        for i in range(300):
            read(1000.0 + i)
    assert ledger.values_kept == 50 and ledger.values_evicted == 150
    warned = [r.getMessage() for r in caplog.records if "forgot" in r.getMessage()]
    assert [int(m.split("forgot ")[1].split(" ")[0]) for m in warned] == [
        1, 2, 4, 8, 16, 32, 64, 128]
    assert "past max_values=50 kept values" in warned[0] and "read.return" in warned[0]
    assert "1000 cfs" in warned[0] and "1127 cfs" in warned[-1]
    assert ledger.enforcement_report() == (
        "0 of 300 tool calls were blocked; 150 output value(s) forgotten past max_values=50.")
    assert ledger.manifest()["values_evicted"] == 150


def test_a_session_that_forgets_nothing_reports_nothing(caplog):
    ledger = Ledger(max_entries=100)
    caplog.set_level(logging.WARNING, logger="quantity_guard")
    with bind(ledger):
        for i in range(300):
            read(1000.0 + i % 50)
    assert ledger.values_kept == 50 and ledger.values_evicted == 0
    assert not [r for r in caplog.records if "forgot" in r.getMessage()]
    assert ledger.enforcement_report() == "0 of 300 tool calls were blocked."
    assert "values_evicted" not in ledger.manifest()


def _held_bytes(count: int) -> tuple[int, Ledger]:
    gc.collect()
    tracemalloc.start()
    ledger = Ledger(max_entries=500, max_calls=500, max_values=1_000)
    with bind(ledger):
        for i in range(count):
            read(1000.0 + i * 0.01)
    gc.collect()
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return held, ledger


def test_memory_stays_within_the_bound_however_long_the_session():
    held, ledger = _held_bytes(5_000)
    indexed = sum(len(run) for run in ledger._by_footing.values())
    assert ledger.values_kept == 1_000 and ledger.values_evicted == 3_500
    assert indexed == 500 + 1_000 == len(ledger.entries) + ledger.values_kept
    held_twice, ledger = _held_bytes(10_000)
    assert ledger.values_kept == 1_000 and ledger.values_evicted == 8_500
    assert held_twice <= held * 1.02  # five thousand more distinct values held nothing more


def _held_after_refusals(count: int) -> int:
    gc.collect()
    tracemalloc.start()
    ledger = Ledger(max_entries=500, max_calls=500, max_values=1_000)
    with bind(ledger):
        for i in range(200):
            read(1000.0 + i * 0.01)
        refused = 0
        for i in range(count):
            try:
                use(9.0e6 + i)  # beyond every output, sum and difference
            except UnsourcedInput:
                refused += 1
    assert refused == ledger.violation_count == count
    gc.collect()
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return held


def test_memory_stays_flat_however_many_inputs_are_refused_as_unsourced(caplog):
    caplog.set_level(logging.ERROR, "quantity_guard")  # (pytest keeps each refusal's record)
    held = _held_after_refusals(2_000)
    assert _held_after_refusals(4_000) <= held * 1.02  # (the last 500 records are kept alike)
