"""Series quantities: no needless copies, and still immutable.

A writeable array passed to ``Q`` is copied (so the Q cannot change under its caller); a
read-only one over read-only memory is wrapped without a copy; every array an operation computes
is read-only; ``+`` and ``-`` of series in different units compute exactly what the bare numpy
expression computes, in place on the converted operand, and never touch an operand.
"""
from __future__ import annotations

import math

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
        for values in ([1.7e308, math.inf], [math.inf, -math.inf], [math.nan, -math.inf]):
            with pytest.raises(InvalidArguments):
                Q(np.array(values), "m")
