"""UCUM codes: a published list read to the right dimension and exact factor, refusals with
their reasons, ``Unit.ucum`` written back, and schemas that carry it."""
from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from quantity_guard import quantity_tool
from quantity_guard.errors import UnitParseError
from quantity_guard.units import AXES, convert, parse_unit
from quantity_guard.units.table import rows

DATA = json.loads((Path(__file__).parent / "data" / "ucum_codes.json").read_text("utf-8"))
CODES = DATA["codes"]


def dims_of(unit) -> dict:
    return {axis: e for axis, e in zip(AXES, unit.dims) if e}


def check_factor(unit, expected: str) -> None:
    if "pi" in expected:  # an angle: pi is irrational, the table holds it to 100 digits
        value = eval(expected, {"pi": math.pi})  # noqa: S307 - our own test data
        assert math.isclose(float(unit.factor), value, rel_tol=1e-15), (unit, expected)
    else:
        assert unit.factor == Fraction(expected), (unit, expected)


def test_the_published_list_is_long_enough():
    assert len(CODES) >= 60
    assert len({c["code"] for c in CODES}) == len(CODES)


@pytest.mark.parametrize("row", CODES, ids=[c["code"] or "empty" for c in CODES])
def test_every_ucum_code_reads_to_its_dimension_and_exact_factor(row):
    unit = parse_unit(row["code"], vocabulary="ucum")
    assert dims_of(unit) == row["dims"]
    check_factor(unit, row["factor"])
    assert unit.offset == (Fraction(row["offset"]) if "offset" in row else None)


@pytest.mark.parametrize("row", [c for c in CODES if "[" in c["code"] or "." in c["code"]],
                         ids=lambda c: c["code"])
def test_bracketed_atoms_and_dots_read_the_same_without_asking(row):
    """A bracket is never anything but a UCUM atom, and '.' is a product in the kernel too."""
    assert parse_unit(row["code"]) == parse_unit(row["code"], vocabulary="ucum")


@pytest.mark.parametrize("row", DATA["refused"], ids=lambda r: r["code"] or "empty")
def test_codes_ucum_does_not_define_are_refused_with_a_reason(row):
    with pytest.raises(UnitParseError) as err:
        parse_unit(row["code"], vocabulary="ucum")
    assert err.value.message


def test_refusals_say_what_to_write():
    with pytest.raises(UnitParseError) as err:
        parse_unit("cfs", vocabulary="ucum")
    assert "[cft_i]/s" in err.value.suggestions
    with pytest.raises(UnitParseError) as err:
        parse_unit("[Btu]")  # refused in the kernel grammar too: a bracket is UCUM's
    assert "[Btu_IT]" in err.value.suggestions and "thermochemical" in err.value.message
    with pytest.raises(UnitParseError) as err:
        parse_unit("mm[Hg]")  # UCUM's 133.3220 kPa: read as UCUM's in vocabulary="ucum" only
    assert "mmHg" in err.value.suggestions
    assert parse_unit("mm[Hg]", vocabulary="ucum").factor == Fraction("133.322")
    with pytest.raises(UnitParseError) as err:
        parse_unit("m3 s-1", vocabulary="ucum")
    assert "no spaces" in err.value.message and err.value.position == 2
    with pytest.raises(UnitParseError) as err:
        parse_unit("Cel/s", vocabulary="ucum")
    assert "temperature" in err.value.message
    with pytest.raises(ValueError):
        parse_unit("m", vocabulary="pint")


def test_conflicting_spellings_follow_the_vocabulary_asked_for():
    """UCUM 'a' is the Julian year and 'ar' the are; the kernel grammar refuses the bare 'a'
    (annum or are) and names both, with the UCUM reading."""
    assert parse_unit("a", vocabulary="ucum") == parse_unit("a_j")
    assert convert(1, parse_unit("ar", vocabulary="ucum"), "m2") == 100.0
    with pytest.raises(UnitParseError) as err:
        parse_unit("a")
    assert "a_j" in err.value.suggestions and "ar" in err.value.suggestions
    assert "vocabulary='ucum'" in err.value.message
    assert parse_unit("mo", vocabulary="ucum") == parse_unit("mo_j")
    with pytest.raises(UnitParseError):
        parse_unit("mo")  # a calendar month is not a unit
    assert parse_unit("cfs") == parse_unit("[cft_i]/s", vocabulary="ucum")
    assert parse_unit("[ft_i]", vocabulary="kernel") == parse_unit("ft")
    with pytest.raises(UnitParseError):
        parse_unit("[ft_I]")  # case is never folded


def test_near_units_are_never_folded():
    gal_us, gal_br = parse_unit("[gal_us]"), parse_unit("[gal_br]")
    assert gal_us != gal_br and gal_us.dims == gal_br.dims
    assert gal_us == parse_unit("gal_US") and gal_br == parse_unit("gal_imp")
    acres = {parse_unit(c) for c in ("acre", "[acr_us]", "[acr_br]")}
    assert len(acres) == 3  # international, US survey (+4 ppm), British (-1.6 ppm)
    assert 1e-6 < convert(1, "[acr_us]", "acre") - 1 < 5e-6
    assert parse_unit("[ft_us]") != parse_unit("[ft_i]")


def test_unit_ucum_codes():
    expect = {"cfs": "[cft_i]/s", "ft3/s": "[ft_i]3/s", "m3/s": "m3/s", "degC": "Cel",
              "degF": "[degF]", "gpm": "[gal_us]/min", "uS/cm": "uS/cm", "mg/L": "mg/L",
              "1/s": "s-1", "W/(m2*K)": "W/m2/K", "kWh": "kW.h", "%": "%", "ppm": "[ppm]",
              "ha": "har", "deg": "deg", "arcmin": "'", "rev": "circ", "1": "1", "psi": "[psi]",
              "BTU": "[Btu_IT]", "a_j": "a_j", "mo_j": "mo_j", "Ml/d": "ML/d"}
    for text, code in expect.items():
        assert parse_unit(text).ucum == code, text
    for text in ("kcfs", "MGD", "acre_ft", "delta_degC", "NTU", "VA", "mmHg", "acre", "scf"):
        assert parse_unit(text).ucum is None, text  # UCUM has no exact code for these


def test_every_table_unit_round_trips_through_its_ucum_code():
    curated = {r["symbol"] for r in json.loads((Path(__file__).parent.parent / "quantity_guard" /
                                                "data" / "units.json").read_text("utf-8"))["units"]}
    without = set()
    for row in rows():
        if row.symbol not in curated:
            continue  # defined by another test at run time
        code = row.unit.ucum
        if code is None:
            without.add(row.symbol)
            continue
        assert parse_unit(code, vocabulary="ucum") == row.unit, (row.symbol, code)
    # the units UCUM cannot name exactly, by reason: a scale number (kcfs, Mgal, MGD...), a
    # definition UCUM gives otherwise (mmHg, Btu_th), no UCUM unit (VA, NTU, the
    # international acre), or a temperature difference (UCUM has no interval Celsius)
    assert without == {"VA", "var", "NTU", "FNU", "Sm3", "acre", "Mgal", "acre_ft", "Mcf",
                       "MMcf", "scf", "Mscf", "MMscf", "a_365", "kcfs", "MGD", "MGD_imp", "AFD",
                       "mmHg", "inHg", "ftH2O", "Btu_th", "MMBtu", "therm_US", "therm_EC",
                       "delta_degC", "delta_degF", "au", "Da"}


ATOMS = ["m", "ft", "s", "kg", "cfs", "L", "Ml", "h", "d", "km", "mi", "W", "V", "A", "K", "Pa",
         "psi", "gal_US", "in", "%", "uS", "cm", "deg", "rad", "mol", "lb", "kW", "mL", "ha"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(ATOMS), st.integers(-3, 3).filter(bool)),
                min_size=1, max_size=4))
def test_compound_units_round_trip_through_ucum(terms):
    text = "*".join(f"{s}**{p}" for s, p in terms)
    try:
        unit = parse_unit(text)
    except UnitParseError:
        return  # exponent out of range
    code = unit.ucum
    assert code is not None, text
    assert parse_unit(code, vocabulary="ucum") == unit


def test_schemas_carry_the_ucum_code_beside_x_unit():
    @quantity_tool(params={"q": {"unit": "cfs"}, "big": {"unit": "kcfs"}, "t": {"unit": "degC"}})
    def tool(q, big, t):
        return q

    props = tool.json_schema()["inputSchema"]["properties"]
    assert props["q"]["x-unit"] == "cfs" and props["q"]["x-unit-ucum"] == "[cft_i]/s"
    assert props["t"]["x-unit-ucum"] == "Cel"
    assert "x-unit-ucum" not in props["big"]  # no exact UCUM code: none is invented


UCUM_PIECES = ["m", "s", "g", "k", "[ft_i]", "[cft_i]", "[gal_us]", "Cel", "[degF]", "%", "a",
               "ar", "har", "mo", "'", "''", "deg", "L", "u", "S", "/", ".", "(", ")", "2", "3",
               "-1", "1", "10*", "{x}", "[", "]", "[Btu]", "m[H2O]", " ", "Ohm", "\u00b5", "e"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(UCUM_PIECES), max_size=10).map("".join))
@example("am22-1")  # a factor beyond a float (1e396): refused, not an OverflowError
@example("Cel1")  # an exponent of 1 keeps the scale's offset
@example("[cft_i]10*m")  # ft**30 * m: a power the algebra reaches prints as ft30 and reads back
def test_both_readers_raise_only_unit_parse_error_on_ucum_like_text(text):
    for vocabulary in ("ucum", "kernel"):
        try:
            unit = parse_unit(text, vocabulary=vocabulary)
        except UnitParseError:
            continue
        if any(s[:1].isdigit() for s, _ in unit.terms):  # a number UCUM reads inside a unit
            with pytest.raises(UnitParseError, match="inside a unit"):
                parse_unit(unit.symbol)  # refused by the kernel's grammar, never misread
        else:
            try:
                assert parse_unit(unit.symbol) == unit
            except UnitParseError:  # an atom whose UCUM value the kernel refuses ([Btu])
                assert "[" in unit.symbol
        if unit.ucum is not None:
            assert parse_unit(unit.ucum, vocabulary="ucum") == unit


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_the_ucum_reader_raises_only_unit_parse_error_on_any_text(text):
    try:
        parse_unit(text, vocabulary="ucum")
    except UnitParseError:
        pass
