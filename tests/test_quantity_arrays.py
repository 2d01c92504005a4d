"""Series quantities: no needless copies, and still immutable.

A writeable array passed to ``Q`` is copied (so the Q cannot change under its caller); a
read-only one over read-only memory is wrapped without a copy; every array an operation computes
is read-only; ``+`` and ``-`` of series in different units compute exactly what the bare numpy
expression computes, in place on the converted operand, and never touch an operand.
"""
from __future__ import annotations

import functools
import math
import operator
import sys
import tracemalloc

import pytest
from hypothesis import example, given, settings, strategies as st

from quantity_guard import Q
from quantity_guard.errors import InvalidArguments
from quantity_guard.units import convert

np = pytest.importorskip("numpy")


def _frozen_array(values) -> "np.ndarray":
    a = np.array(values, dtype=float)
    a.flags.writeable = False
    return a


def test_a_writeable_array_is_copied_and_the_copy_is_read_only():
    x = np.array([1.0, 2.0, 3.0])
    q = Q(x, "m")
    assert not np.shares_memory(q.magnitude, x)
    x[0] = 99.0  # the caller's array is theirs to change
    assert q.magnitude[0] == 1.0
    with pytest.raises(ValueError):
        q.magnitude[0] = 5.0
    assert x.flags.writeable  # the caller's array is left as it was


def test_a_read_only_array_is_wrapped_without_a_copy():
    x = _frozen_array([1.0, 2.0, 3.0])
    assert Q(x, "m").magnitude is x
    buf = np.frombuffer(np.array([1.0, 2.0]).tobytes(), dtype=float)  # over immutable bytes
    assert Q(buf, "m").magnitude is buf


def test_a_read_only_view_of_writeable_memory_is_copied():
    owner = np.array([1.0, 2.0, 3.0, 4.0])
    view = owner[1:]
    view.flags.writeable = False
    q = Q(view, "m")
    assert not np.shares_memory(q.magnitude, owner)
    owner[1] = 99.0
    assert q.magnitude[0] == 2.0
    ints = np.array([1, 2, 3])  # another dtype: converted, so a new array
    assert Q(ints, "m").magnitude.dtype == np.float64


def test_copy_false_hands_the_array_over_and_a_later_write_is_refused():
    x = np.array([1.0, 2.0, 3.0])
    q = Q(x, "ft", copy=False)
    assert q.magnitude is x  # no copy
    with pytest.raises(ValueError, match="read-only"):
        x[0] = 99.0  # through the caller's own name
    with pytest.raises(ValueError, match="read-only"):
        x[1:][0] = 99.0  # through a view made afterwards
    assert q.to("m").magnitude[0] == pytest.approx(0.3048)
    assert Q(np.ones(3) * 2.0, "m", copy=False).magnitude[0] == 2.0  # a temporary


def _local_handover():
    a = np.zeros(4)
    return Q(a, "m", copy=False), a


def test_copy_false_from_a_function_local_and_a_global():
    q, a = _local_handover()
    assert q.magnitude is a and not a.flags.writeable
    global _GLOBAL_SERIES
    _GLOBAL_SERIES = np.ones(2)
    assert Q(_GLOBAL_SERIES, "m", copy=False).magnitude is _GLOBAL_SERIES


_GLOBAL_SERIES = None


def test_copy_false_refuses_what_another_holder_could_still_write():
    owner = np.arange(4.0)
    view = owner[1:]  # a view made before: it could write the Q's memory
    with pytest.raises(InvalidArguments, match="something else holds it too"):
        Q(owner, "m", copy=False)
    with pytest.raises(InvalidArguments, match="a view of memory another object owns"):
        Q(view, "m", copy=False)
    same = np.arange(3.0)
    alias = same  # a second name
    with pytest.raises(InvalidArguments, match="something else holds it too"):
        Q(same, "m", copy=False)
    kept = [np.arange(3.0)]
    arr = kept[0]
    with pytest.raises(InvalidArguments, match="something else holds it too"):
        Q(arr, "m", copy=False)
    for refused in (owner, view, same, alias, arr):  # nothing changed on refusal
        assert refused.flags.writeable
    buf = np.frombuffer(bytearray(16), dtype=float)  # memory a bytearray owns
    with pytest.raises(InvalidArguments, match="view of memory"):
        Q(buf, "m", copy=False)


@pytest.mark.parametrize("value, why", [([1.0, 2.0], "build a new one"),
                                        (np.array([1, 2]), "build a new one"),
                                        (np.ones((2, 2)), "build a new one")])
def test_copy_false_never_copies_silently(value, why):
    with pytest.raises(InvalidArguments, match=why) as err:
        Q(value, "m", copy=False)
    assert "Q(x, unit)" in err.value.suggestion


def test_copy_must_be_a_boolean():
    with pytest.raises(InvalidArguments, match="copy must be True or False"):
        Q(np.ones(2), "m", copy="no")
    assert Q(2.0, "m", copy=False).magnitude == 2.0  # a scalar is never copied anyway


ELIDES = (3, 11) <= sys.version_info < (3, 14) and sys.implementation.name == "cpython"


def _peak_bytes(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_converting_a_temporary_series_allocates_one_array_not_two():
    x = np.arange(100_000, dtype=float)
    Q(np.ones(2), "ft").to("m")  # warm: units parsed, the reference count measured
    held = Q(x, "ft")
    one_q = _peak_bytes(lambda: Q(x, "ft").to("m"))
    chained = _peak_bytes(lambda: held.to("m").to("cm"))  # held.to("m") is a new temporary

    def kept():
        metres = held.to("m")  # a name holds it: converting it again needs a second array
        return metres.to("cm")
    assert _peak_bytes(kept) >= 1.9 * x.nbytes
    if ELIDES:
        assert one_q < 1.1 * x.nbytes and chained < 1.1 * x.nbytes  # converted in place
    else:
        assert one_q >= 1.9 * x.nbytes and chained >= 1.9 * x.nbytes
    assert np.array_equal(Q(x, "ft").to("m").magnitude, x * convert(1.0, "ft", "m"))
    assert np.array_equal(Q(x, "degC").to("degF").magnitude, x * 1.8 + 32.0)
    assert x[1] == 1.0  # the caller's array is untouched


def test_no_series_anyone_can_still_see_is_converted_in_place():
    """Every way of holding a Q or its array while .to() runs on it: the held value must not
    change (if any of these were taken for a temporary, it would). Each is held one way only."""
    base = np.array([1.0, 2.0, 4.0])
    fresh = lambda: Q(base, "ft")  # noqa: E731  a Q over a private copy of base
    held = fresh()
    held.to("m")
    in_list = [fresh()]
    in_list[0].to("m")
    list(map(Q.to, in_list, ["m"]))
    sorted(in_list, key=lambda q: q.to("m").magnitude[0])
    by_caller = fresh()
    operator.methodcaller("to", "m")(by_caller)
    functools.reduce(lambda q, u: q.to(u), ["m"], by_caller)
    array = fresh().magnitude  # only the array is kept: its Q is a temporary
    Q._make(array, held.unit, None, None, None).to("m")
    view = fresh().magnitude[1:]
    Q._make(view.base, held.unit, None, None, None).to("m")
    alias = fresh().to("ft**1")  # the same unit spelled another way shares the array
    Q._make(alias.magnitude, held.unit, None, None, None)  # (a second Q over that array)
    alias.to("m")
    raw = base.tobytes()
    Q(np.frombuffer(raw, dtype=float), "ft").to("m")  # read-only memory bytes own
    for q in (held, in_list[0], by_caller, alias):
        assert np.array_equal(q.magnitude, base) and q.unit.symbol == "ft"
    assert np.array_equal(array, base) and np.array_equal(view, base[1:])
    assert raw == base.tobytes()


@pytest.mark.parametrize("values", [[1.0, math.inf], [math.nan, -math.inf], [math.inf]])
def test_infinity_is_refused_with_or_without_missing_values(values):
    with pytest.raises(InvalidArguments, match="NaN for a missing value but not infinity"):
        Q(np.array(values), "m")
    with pytest.raises(InvalidArguments, match="not infinity"):
        Q(_frozen_array(values), "m")


def test_missing_values_and_empty_series_are_accepted():
    q = Q(np.array([math.nan, math.nan]), "m")
    assert np.isnan(q.magnitude).all()
    assert len(Q(np.array([], dtype=float), "m")) == 0
    assert len(Q([], "m")) == 0
    with pytest.raises(InvalidArguments, match="one-dimensional"):
        Q(np.ones((2, 2)), "m")


def test_every_computed_series_is_read_only():
    s = Q(np.array([1.0, 2.0, 4.0]), "ft", datum="NAVD88")
    d = Q(np.array([0.5, 0.5, 0.5]), "ft")
    flat = s - Q(np.array([0.0, 0.0, 0.0]), "ft", datum="NAVD88")
    results = [s.to("m"), s + d, s - d, s - s.to("m"), s.to("m") - d, flat * 2.0, flat / 2.0,
               2.0 / d, -flat, abs(flat), d ** 2, s[[0, 2]], s[1:], d + d.to("m"), d * d, d / d,
               (d / d) ** 0.5, s.to_datum("NAVD88"), Q(np.array([1.0, 2.0]), "1") + 1.0,
               Q(np.array([1.0, 2.0]), "degC") - Q(np.array([1.0, 1.0]), "degF")]
    for r in results:
        assert r.is_series
        with pytest.raises(ValueError):
            r.magnitude[0] = 1.0


def test_a_unit_alias_conversion_keeps_the_array():
    q = Q(np.array([1.0, 2.0]), "m**3/s")
    assert q.to("cumec").magnitude is q.magnitude  # the same unit spelled another way


def test_sum_of_series_in_two_units_is_the_bare_numpy_expression():
    rng = np.random.default_rng(1)
    x, y = rng.random(1000), rng.random(1000)
    y[::7] = math.nan
    ft = convert(1.0, "ft", "m")
    xs, ys = x.copy(), y.copy()
    total = Q(x, "m") + Q(y, "ft")
    assert np.array_equal(total.magnitude, x + y * ft, equal_nan=True)
    assert np.array_equal((Q(x, "m") - Q(y, "ft")).magnitude, x - y * ft, equal_nan=True)
    assert np.array_equal((Q(y, "ft") - Q(x, "m")).magnitude, y - x * convert(1.0, "m", "ft"),
                          equal_nan=True)
    assert np.array_equal(x, xs) and np.array_equal(y, ys, equal_nan=True)  # operands untouched


UNITS = ["m", "ft", "cm", "degC", "K", "degF"]
finite = st.floats(-1e6, 1e6, allow_nan=False)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(finite | st.just(math.nan), finite | st.just(math.nan)), min_size=1,
                max_size=20), st.sampled_from(UNITS[:3]), st.sampled_from(UNITS[:3]),
       st.sampled_from(["+", "-"]), st.booleans())
@example(pairs=[(1.0, 2.0)], u1="m", u2="ft", op="-", scalar_left=True)
@example(pairs=[(1.0, math.nan)], u1="ft", u2="ft", op="+", scalar_left=False)
def test_series_arithmetic_matches_numpy_and_leaves_operands_alone(pairs, u1, u2, op,
                                                                   scalar_left):
    """Any two length units, either operation, a series or a scalar on the left: the result is
    what numpy computes from the converted right operand, and neither operand changes."""
    x = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    left = Q(1.5, u1) if scalar_left else Q(x, u1)
    right = Q(y, u2)
    before_left, before_right = np.copy(left.magnitude), right.magnitude.copy()
    result = left + right if op == "+" else left - right
    converted = convert(y, u2, u1)
    expected = (left.magnitude + converted) if op == "+" else (left.magnitude - converted)
    assert result.unit == left.unit
    assert np.array_equal(result.magnitude, expected, equal_nan=True)
    assert not result.magnitude.flags.writeable
    assert np.array_equal(left.magnitude, before_left, equal_nan=True)
    assert np.array_equal(right.magnitude, before_right, equal_nan=True)


def test_the_finiteness_check_needs_no_warning_and_no_false_alarm():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow and invalid-value warnings too
        big = Q(np.array([1.7e308, 1.7e308, -1.7e308]), "m")  # the sum overflows, no element
        assert big.magnitude[0] == 1.7e308
        assert Q(np.array([1e155, math.nan, -2e200]), "m").magnitude[2] == -2e200  # NaN sum
        long = np.full(10_000, 1.7e308)  # summed another way: the same rule
        assert Q(long, "m").magnitude[0] == 1.7e308
        long[5000] = -math.inf
        with pytest.raises(InvalidArguments, match="not infinity"):
            Q(long, "m")
        long[5000] = math.nan
        assert math.isnan(Q(long, "m").magnitude[5000])
        for values in ([1.7e308, math.inf], [math.inf, -math.inf], [math.nan, -math.inf]):
            with pytest.raises(InvalidArguments):
                Q(np.array(values), "m")
