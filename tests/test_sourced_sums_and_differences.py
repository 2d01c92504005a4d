"""A sourced input may be a one-step sum or difference of two recorded outputs: found exactly
when such a pair exists among the recent outputs of its dimension, at the edge of the
tolerance too, and not found (quickly: no scan) when no sum or difference can reach it."""
from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from quantity_guard import quantity_tool
from quantity_guard.ledger import Ledger, bind
from quantity_guard.units import parse_unit


@quantity_tool(returns={"unit": "cfs"})
def read_cfs(value: float):
    return value


@quantity_tool(returns={"unit": "m**3/s"})
def read_cms(value: float):
    return value


def _pair_exists(keys: list[float], target: float, tol: float) -> bool:
    """Every pair, compared as ``_pair_sums`` and ``_pair_differences`` compare them."""
    t = abs(target)
    return any(keys[i] + keys[j] >= target - tol and keys[i] + keys[j] <= target + tol
               for i in range(len(keys)) for j in range(i + 1, len(keys))) or \
        any(i != j and t - tol <= keys[j] - keys[i] <= t + tol
            for i in range(len(keys)) for j in range(len(keys)))


values = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False).filter(lambda v: v != 0.0)


@settings(max_examples=300, deadline=None)
@given(outputs=st.lists(st.tuples(values, st.booleans()), min_size=0, max_size=6),
       pick=st.tuples(st.integers(0, 5), st.integers(0, 5)), op=st.sampled_from("+-"),
       shift=st.sampled_from([0.0, 0.999, 1.0, 1.001, 3.0, 1e6]), tol=st.sampled_from([0.01, 0.5]))
@example(outputs=[(100.0, True), (50.0, True)], pick=(0, 1), op="+", shift=1e6, tol=0.5)
@example(outputs=[(100.0, True), (50.0, True)], pick=(0, 1), op="+", shift=1.0, tol=0.5)
@example(outputs=[(100.0, True), (50.0, True)], pick=(0, 1), op="-", shift=1.001, tol=0.5)
def test_a_pair_is_found_exactly_when_one_reaches_the_value(outputs, pick, op, shift, tol):
    ledger = Ledger(max_entries=10_000)
    with bind(ledger):
        for value, in_cfs in outputs:
            (read_cfs if in_cfs else read_cms)(value)
    cfs = parse_unit("cfs")
    if len(outputs) >= 2:
        a, b = (outputs[pick[0] % len(outputs)], outputs[pick[1] % len(outputs)])
        si = [v * (cfs.scale if c else 1.0) for v, c in (a, b)]
        target = (si[0] + si[1] if op == "+" else si[0] - si[1]) / cfs.scale
    else:
        target = 1.0
    target += shift * tol  # at the edge of the tolerance, just inside or outside, or far
    keys = sorted(e.si for e in ledger._recent.get(cfs.dims, ()))
    found = ledger.find_derivation((target,), cfs, tol)
    assert (found is not None) == _pair_exists(keys, target * cfs.scale, tol * cfs.scale)
