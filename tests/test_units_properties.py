"""Property tests: the parser only ever raises UnitParseError; conversions round-trip."""
from __future__ import annotations

import math
import sys

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from quantity_guard.errors import UnitParseError
from quantity_guard.units import convert, parse_unit
from quantity_guard.units.table import rows

ATOMS = ["m", "ft", "s", "kg", "cfs", "L", "Ml", "h", "d", "km", "mi", "acre_ft", "W", "V", "A",
         "K", "Pa", "psi", "gal_US", "in", "%", "1", "MGD", "kcfs", "uS", "cm", "degC"]
PIECES = ATOMS + ["*", "/", "**", "^", "(", ")", " ", ".", "-", "2", "3", "-1", "·", "²", "³",
                  "⁻¹", "°", "Δ", "µ", "\x00", "é", "e", "9999", "_", "NAVD88", "gal", "+"]


def _parsed_or_refused(text):
    """The unit ``text`` reads to, its symbol reading back to it; or None where the parser
    refused the text, which it may only do with UnitParseError."""
    try:
        unit = parse_unit(text)
    except UnitParseError:
        return None
    assert parse_unit(unit.symbol) == unit
    return unit


@settings(max_examples=600, deadline=None)
@given(st.text(max_size=60))
def test_parser_raises_only_unit_parse_error_on_any_text(text):
    _parsed_or_refused(text)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=14).map("".join))
def test_parser_raises_only_unit_parse_error_on_unit_like_text(text):
    unit = _parsed_or_refused(text)
    if unit is not None:
        assert parse_unit(unit.pretty) == unit


SIMPLE = [r.unit for r in rows() if r.unit.offset is None]
BY_DIMS: dict = {}
for u in SIMPLE:
    BY_DIMS.setdefault(u.dims, []).append(u)
PAIRS = [(a, b) for group in BY_DIMS.values() for a in group for b in group]
FINITE = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(PAIRS), FINITE)
@example((parse_unit("eV"), parse_unit("MMBtu")), 1.0923042716390507e-293)
def test_conversion_round_trips_within_1e_12(pair, x):
    """Within 1e-12 wherever the value in between is a normal float: a subnormal one (an eV in
    MMBtu, 1e-28 of it, times 1e-293) keeps fewer digits than that, by IEEE 754."""
    a, b = pair
    there = convert(x, a, b)
    assume(there == 0 or abs(there) >= sys.float_info.min)
    back = convert(there, b, a)
    assert math.isclose(back, x, rel_tol=1e-12, abs_tol=1e-300)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["degC", "degF", "K", "degR"]), st.sampled_from(["degC", "degF", "K", "degR"]),
       st.floats(min_value=-1e6, max_value=1e6))
def test_temperature_round_trips(a, b, x):
    assert math.isclose(convert(convert(x, a, b), b, a), x, rel_tol=1e-12, abs_tol=1e-9)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["m", "s", "kg", "ft", "h", "L", "A"]),
                          st.integers(-4, 4).filter(bool)), min_size=1, max_size=4))
def test_products_of_powers_parse_as_their_algebra(terms):
    text = "*".join(f"{s}**{p}" for s, p in terms)
    expected = parse_unit("1")
    for s, p in terms:
        expected = expected * parse_unit(s) ** p
    assert parse_unit(text) == expected


FAST_PIECES = ["m", "ft", "s", "kg", "cfs", "km", "uS", "cm", "degC", "deg", "K", "W", "mm", "d",
               "day", "degrees", "Celsius", "per", "sq", "since", "m24", "gal", "a", "[ft_i]",
               "*", "/", ".", " ", "  ", "**", "^", "-", "+", "2", "3", "-1", "24", "0", "1",
               "(", ")", "%", "_", "x"]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(FAST_PIECES), max_size=12).map("".join))
@example("m24**24/m24**24")  # cancels to 1 on paper, but m**576 is out of range
@example("deg K")
def test_the_fast_path_reads_exactly_what_the_full_parser_reads(text):
    """``parser.parse_fast`` handles the common shape without tokens; where it answers, the full
    parser must give the same unit, and where the full parser refuses it must not answer."""
    from quantity_guard.units import parser
    fast = parser.parse_fast(text)
    try:
        full = parser.parse_full(text)
    except UnitParseError:
        assert fast is None
        return
    if fast is not None:
        assert fast == full and fast.symbol == full.symbol and fast.offset == full.offset
