"""The ledger in a long session: a script, not a test.

    python bench/ledger_scale.py            (or: python -m bench.ledger_scale)

A session opened as the MCP proxy opens one (``max_entries=10_000``, ``max_calls=1_000``) runs
1,000, 10,000 and 100,000 guarded calls: a gauge reading (2,000 distinct values, so they
repeat) and a routing step whose ``flow`` must be sourced, fed the reading. Then, alternating
blocks: an accepted call (a sourced input equal to the session's first output, long gone from
the history) and a refused one (a value no output, sum or difference supports). Prints the
per-call cost of each in CPU time (``time.process_time``, the fastest block: the least
disturbed by other load), their ratio, the values the ledger keeps past its history, the
memory the session holds (``tracemalloc``, in a separate run), and what one kept value costs
in memory (a session of distinct outputs, ``max_entries=1_000``). Timings are of this machine
at this moment.
"""
from __future__ import annotations

import gc
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SIZES = (1_000, 10_000, 100_000)
DISTINCT = 2_000  # distinct gauge readings: a long session repeats them
FIRST = 4321.5    # the session's first output, in cfs, returned once


def _tools():
    from quantity_guard import quantity_tool

    @quantity_tool(returns={"unit": "cfs"})
    def baseline():
        return FIRST

    @quantity_tool(returns={"unit": "cfs"})
    def gauge(site: int):
        return 1000.0 + (site % DISTINCT) * 0.75

    @quantity_tool(params={"flow": {"unit": "cfs", "sourced": True}}, returns={"unit": "cfs"})
    def route(flow):
        return flow.magnitude * 0.5

    return baseline, gauge, route


def long_session(calls: int):
    """A ledger after ``calls`` guarded calls (the first returns FIRST), and the tools."""
    from quantity_guard.ledger import Ledger, bind
    baseline, gauge, route = _tools()
    ledger = Ledger(context="Route the gauged flows.", max_entries=10_000, max_calls=1_000)
    with bind(ledger):
        baseline()
        for i in range((calls - 1) // 2):
            route(gauge(i))
        if calls % 2 == 0:
            gauge(0)
    assert ledger.call_count == calls and not ledger.violations
    return ledger, route


def per_call_us(ledger, route, blocks: int = 15, block: int = 200) -> tuple[float, float]:
    """(accepted, refused) cost of one call in microseconds: the fastest of alternating
    blocks."""
    from quantity_guard.errors import UnsourcedInput
    from quantity_guard.ledger import bind
    best = {"accepted": float("inf"), "refused": float("inf")}
    refusals = 0
    with bind(ledger):
        for b in range(blocks):
            start = time.process_time()
            for _ in range(block):
                route(FIRST)  # sourced: the first output, kept after it left the history
            best["accepted"] = min(best["accepted"], (time.process_time() - start) / block)
            start = time.process_time()
            for j in range(block):
                try:
                    route(9.0e6 + b * block + j)  # beyond every sum of two outputs
                except UnsourcedInput:
                    refusals += 1
            best["refused"] = min(best["refused"], (time.process_time() - start) / block)
    assert refusals == blocks * block, "a call meant to be refused was accepted"
    return best["accepted"] * 1e6, best["refused"] * 1e6


def held_mb(calls: int) -> float:
    """The memory a session of ``calls`` guarded calls holds, in MB (tracemalloc)."""
    _tools()  # the tools and their specs are not the session's
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    ledger, _ = long_session(calls)
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del ledger
    return held / 1e6


def bytes_per_kept_value(n: int = 20_000) -> float:
    """The memory one more kept value costs: a ledger (``max_entries=1_000``) fed ``n`` then
    ``2 * n`` distinct outputs by a guarded tool, the difference over ``n`` (tracemalloc)."""
    from quantity_guard import quantity_tool
    from quantity_guard.ledger import Ledger, bind

    @quantity_tool(returns={"unit": "cfs"})
    def reading(i: int):
        return 1000.0 + i * 0.001

    held = []
    for count in (n, 2 * n):
        gc.collect()
        tracemalloc.start()
        ledger = Ledger(max_entries=1_000, max_calls=1_000, max_values=2 * n)
        with bind(ledger):
            for i in range(count):
                reading(i)
        gc.collect()
        held.append(tracemalloc.get_traced_memory()[0])
        tracemalloc.stop()
        assert ledger.values_kept == count - 1_000
        del ledger
    return (held[1] - held[0]) / n


def main() -> None:
    print(f"{'calls':>8} {'accepted us':>12} {'refused us':>11} {'ratio':>6} {'kept':>7} "
          f"{'forgotten':>9} {'held MB':>8}", flush=True)
    for calls in SIZES:
        ledger, route = long_session(calls)
        accepted, refused = per_call_us(ledger, route)
        kept, forgotten = ledger.values_kept, ledger.values_evicted
        del ledger
        print(f"{calls:>8,} {accepted:>12.1f} {refused:>11.1f} {refused / accepted:>6.2f} "
              f"{kept:>7,} {forgotten:>9,} {held_mb(calls):>8.1f}", flush=True)
    print(f"memory per kept value: {bytes_per_kept_value():.0f} bytes", flush=True)


if __name__ == "__main__":
    main()
