"""Property tests for Q arithmetic: conversion-aware associativity, quality, datum closure."""
from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from quantity_guard import Q
from quantity_guard.errors import DatumMismatch
from quantity_guard.quality import GRADES

FLOW_UNITS = ["m3/s", "cfs", "L/s", "ML/d", "gpm", "MGD", "kcfs", "acre_ft/d", "cumec"]
LENGTHS = ["m", "ft", "km", "in", "mi", "cm"]
VALUE = st.floats(min_value=-1e9, max_value=1e9, allow_nan=False, allow_infinity=False)
GRADE = st.one_of(st.none(), st.sampled_from(GRADES))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(VALUE, st.sampled_from(FLOW_UNITS)), min_size=3, max_size=3))
def test_addition_is_associative_within_float_tolerance(items):
    a, b, c = (Q(v, u) for v, u in items)
    left, right = (a + b) + c, a + (b + c)
    scale = sum(abs(q.to("m3/s").magnitude) for q in (a, b, c)) or 1.0
    assert math.isclose(left.to("m3/s").magnitude, right.to("m3/s").magnitude,
                        rel_tol=1e-9, abs_tol=scale * 1e-12)


@settings(max_examples=300, deadline=None)
@given(VALUE, st.sampled_from(FLOW_UNITS), st.sampled_from(FLOW_UNITS))
def test_conversion_preserves_the_physical_amount(v, u1, u2):
    q = Q(v, u1)
    assert q.to(u2).isclose(q, rel=1e-12, abs_=1e-300)


@settings(max_examples=300, deadline=None)
@given(GRADE, GRADE, GRADE)
def test_quality_of_a_result_is_the_weakest_stated_input(g1, g2, g3):
    total = Q(1, "m", quality=g1) + Q(2, "ft", quality=g2) - Q(3, "cm", quality=g3)
    stated = [g for g in (g1, g2, g3) if g is not None]
    expected = max(stated, key=GRADES.index) if stated else None
    assert total.quality == expected
    assert (Q(1, "m", quality=g1) * Q(2, "s", quality=g2)).quality == \
        (max([g for g in (g1, g2) if g], key=GRADES.index) if (g1 or g2) else None)


DATUMS = st.sampled_from([None, "NAVD88", "NGVD29", "ODN"])


@settings(max_examples=400, deadline=None)
@given(VALUE, st.sampled_from(LENGTHS), DATUMS, VALUE, st.sampled_from(LENGTHS), DATUMS,
       st.sampled_from(["+", "-"]))
def test_datum_algebra_is_closed(v1, u1, d1, v2, u2, d2, op):
    """Every result is either refused with DatumMismatch or has the datum the rules give."""
    a, b = Q(v1, u1, datum=d1), Q(v2, u2, datum=d2)
    try:
        r = a + b if op == "+" else a - b
    except DatumMismatch:
        allowed = {("+", True, True), ("-", False, True)}  # sum of elevations; length - elevation
        assert (op, d1 is not None, d2 is not None) in allowed or (d1 and d2 and d1 != d2)
        return
    if op == "-" and d1 and d2:
        assert d1 == d2 and r.datum is None
    else:
        assert r.datum == (d1 or d2)
