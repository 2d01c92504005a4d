"""CF conventions / udunits unit strings: a list from the specifications read to the right
dimension and exact factor; time coordinates and coordinates-as-units refused with a reason."""
from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

from quantity_guard import Q
from quantity_guard.errors import UnitParseError
from quantity_guard.units import AXES, convert, parse_unit

DATA = json.loads((Path(__file__).parent / "data" / "cf_units.json").read_text("utf-8"))
STRINGS = DATA["strings"]


def test_the_list_is_long_enough():
    assert len(STRINGS) >= 40
    assert len({s["text"] for s in STRINGS}) == len(STRINGS)


@pytest.mark.parametrize("row", STRINGS, ids=[s["text"] for s in STRINGS])
def test_every_cf_string_reads_to_its_dimension_and_exact_factor(row):
    unit = parse_unit(row["text"])
    assert {a: e for a, e in zip(AXES, unit.dims) if e} == row["dims"]
    if "pi" in row["factor"]:
        value = eval(row["factor"], {"pi": math.pi})  # noqa: S307 - our own test data
        assert math.isclose(float(unit.factor), value, rel_tol=1e-15)
    else:
        assert unit.factor == Fraction(row["factor"])
    assert unit.offset == (Fraction(row["offset"]) if "offset" in row else None)


@pytest.mark.parametrize("row", DATA["refused"], ids=lambda r: r["text"])
def test_cf_strings_that_are_not_units_are_refused(row):
    with pytest.raises(UnitParseError) as err:
        parse_unit(row["text"])
    assert err.value.message


def test_time_coordinates_say_they_are_timestamps():
    with pytest.raises(UnitParseError) as err:
        parse_unit("days since 1970-01-01")
    assert "time coordinate" in err.value.message and "timestamps" in err.value.message
    assert err.value.suggestions == ("days",)
    with pytest.raises(UnitParseError) as err:
        Q.parse("3 hours since 2000-01-01")
    assert "time coordinate" in str(err.value)


def test_coordinates_and_salinity_name_what_to_send():
    with pytest.raises(UnitParseError) as err:
        parse_unit("degrees_north")
    assert err.value.suggestions == ("deg",) and "latitude" in err.value.message
    with pytest.raises(UnitParseError) as err:
        parse_unit("psu")
    assert err.value.suggestions == ("1",)


def test_cf_spellings_convert_like_the_kernel_ones():
    assert convert(1, "kg m-2 s-1", "g/(m2*s)") == 1000.0
    assert convert(1, "mm day-1", "mm/h") == 1 / 24
    assert convert(20, "degree_Celsius", "degree_Fahrenheit") == 68.0
    assert parse_unit("degrees Celsius") == parse_unit("degC")  # the long name, two words
    assert parse_unit("m3 s-1") == parse_unit("cumec") == parse_unit("m3/s", vocabulary="ucum")
    assert convert(100, "percent", "1") == 1.0
