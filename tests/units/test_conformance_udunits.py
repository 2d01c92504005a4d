"""The UDUNITS-2 database (the CF conventions' unit reader) and the CF standard name table's
canonical units, read from tests/units/conformance (sources in its README).

Every spelling of the database is read with ``vocabulary="cf"`` to the database's value, as
``udunits_oracle`` (an independent reading of the XML) computes it: exactly, or within the
digits the database prints where the kernel's row is the exact definition it rounds
(``3.785412e-3 m^3`` is the US gallon, 231 in3). The default vocabulary reads each spelling the
same way, refuses it, or does not know it, but for the conventions declared in
``data/units_udunits.json`` (``kernel_conventions``)."""
from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
from udunits_oracle import Value, database

from quantity_guard.errors import UnitParseError
from quantity_guard.units import AXES, convert, parse_unit
from quantity_guard.units.ucum import is_level

DB = database()
HERE = Path(__file__).parent / "conformance"
DATA = json.loads((Path(__file__).parents[2] / "quantity_guard" / "data" /
                   "units_udunits.json").read_text("utf-8"))
CANONICAL = json.loads((HERE / "cf_standard_name_units_v83.json").read_text("utf-8"))
SI = ("length", "mass", "time", "current", "temperature", "substance", "luminosity")
# the kernel's kinds, in SI terms: an angle and a level count as 1 (udunits' radian is 1), the
# apparent and reactive powers as W
_AS_SI = {"apparent_power": (2, 1, -3, 0, 0, 0, 0), "reactive_power": (2, 1, -3, 0, 0, 0, 0),
          "angle": (0,) * 7, "level_neper": (0,) * 7, "level_bel": (0,) * 7}


def si_dims(unit) -> tuple:
    d = [0] * 7
    for axis, e in zip(AXES, unit.dims):
        if axis in SI:
            d[SI.index(axis)] += e
        elif e:
            for k, x in enumerate(_AS_SI[axis]):
                d[k] += x * e
    return tuple(d)


def agrees(unit, value: Value) -> bool:
    if si_dims(unit) != value.dims or (unit.offset or 0) != value.offset:
        return False
    if unit.factor == value.factor:
        return True
    # the database's printed digits (and pi to 31 digits where the kernel holds 100)
    return abs(float((unit.factor - value.factor) / value.factor)) <= value.tol + 1e-20


def _cf(text: str):
    return parse_unit(text, vocabulary="cf")


LEVELS = set(DATA["levels"])


@pytest.mark.parametrize("spelling", DB.spellings(generated_plurals=True))
def test_every_spelling_reads_with_the_databases_value_in_the_cf_vocabulary(spelling):
    value = DB.units[spelling]
    unit = _cf(spelling)
    if spelling in LEVELS:  # lg(re R): 0 in it is R, 1 is 10 R; a level of R's quantity only
        assert is_level(unit) and si_dims(unit) == value.ref.dims
        assert unit.factor == 1 and math.isclose(
            float(unit.offset) - 100, math.log10(value.ref.factor), abs_tol=1e-12)
        return
    assert agrees(unit, value), (spelling, unit, float(unit.factor), float(value.factor))


@pytest.mark.parametrize("prefix", list(DB.prefixes))
def test_every_prefix_goes_on_a_unit(prefix):
    want = DB.prefixes[prefix]
    for base in (("m", "meter") if len(prefix) > 2 else ("m", "g")):
        unit = _cf(prefix + (base if len(prefix) <= 2 else "meter"))
        assert unit.factor == want * parse_unit(base).factor, prefix
    assert _cf(prefix + ("gallon" if len(prefix) > 2 else "Pa")).factor == \
        want * (parse_unit("gal_US") if len(prefix) > 2 else parse_unit("Pa")).factor


def test_the_default_vocabulary_reads_a_spelling_the_same_or_not_at_all_but_its_conventions():
    differ, read = set(), 0
    for spelling in DB.spellings(generated_plurals=True):
        try:
            unit = parse_unit(spelling)
        except UnitParseError:
            continue
        read += 1
        if not agrees(unit, DB.units[spelling]):
            differ.add(spelling)
    assert differ == {s for s in DATA["kernel_conventions"] if s in DB.units}
    assert read >= 300


def test_the_conventions_the_default_vocabulary_keeps_differ_from_udunits_and_say_so():
    for spelling, why in DATA["kernel_conventions"].items():
        mine, theirs = parse_unit(spelling), _cf(spelling)
        assert mine != theirs and mine.dims == theirs.dims, spelling
        assert "udunits'" in why


def test_ambiguous_spellings_stay_refused_in_the_default_vocabulary_and_read_in_cf():
    for spelling, same_as in (("gallon", "gal_US"), ("ton", "short_ton"), ("bbl", "oil_bbl"),
                              ("therm", "therm_US"), ("C", "coulomb"), ("a", "ar"),
                              ("kt", "kn")):
        with pytest.raises(UnitParseError):
            parse_unit(spelling)
        assert _cf(spelling) == parse_unit(same_as), spelling
    with pytest.raises(UnitParseError):
        parse_unit("yr")
    assert _cf("yr").factor == Fraction("3.15569259747e7")  # udunits' tropical year
    assert _cf("gal") == parse_unit("cm/s2")  # the galileo


@pytest.mark.parametrize("text", list(CANONICAL["units"]))
def test_every_cf_canonical_unit_reads(text):
    _cf(text)


def test_cf_strings_convert():
    assert convert(86400, _cf("mm day-1"), _cf("mm s-1")) == 1.0
    assert convert(1, _cf("1e-3"), _cf("1")) == 0.001
    assert _cf("kg degree_C m-2") == parse_unit("kg*delta_degC/m2")  # the offset drops out
    assert convert(20, _cf("degree_C"), _cf("K")) == 293.15
    assert _cf("W m-2 sr-1 (m-1)-1") == parse_unit("W/(m*sr)")
    assert _cf("degree_north") == parse_unit("deg")
    with pytest.raises(UnitParseError, match="time coordinate"):
        _cf("days since 1970-01-01")
    with pytest.raises(UnitParseError, match="not a UDUNITS-2 unit"):
        _cf("cfs")


def test_levels_with_a_reference_convert_among_themselves_only():
    assert convert(30, _cf("dBm"), _cf("dBW")) == 0.0
    assert convert(0, _cf("BV"), _cf("BµV")) == 6.0
    assert convert(20, _cf("dBZ"), _cf("BZ")) == 2.0
    with pytest.raises(Exception):
        convert(0, _cf("dBm"), _cf("dBZ"))
    with pytest.raises(UnitParseError, match="logarithmic level"):
        _cf("dBZ m-1")


def test_a_cf_reading_prints_without_being_misread():
    """A unit read in the CF vocabulary prints in the kernel's spelling, or with udunits' value
    as a number, which the default vocabulary refuses rather than misreads."""
    for spelling in DB.spellings(generated_plurals=True):
        if spelling in LEVELS:
            continue
        unit = _cf(spelling)
        try:
            back = parse_unit(unit.symbol)
        except UnitParseError:
            assert any(s[:1].isdigit() or s[:1] == "-" for s, _ in unit.terms), \
                (spelling, unit.symbol)
            continue
        assert back == unit, (spelling, unit.symbol)
