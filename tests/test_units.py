"""The unit kernel: factors against the reference facts, parsing, refusals, formatting."""
from __future__ import annotations

import json
import math
import time
from fractions import Fraction
from pathlib import Path

import pytest

from quantity_guard.errors import (DimensionalityError, OffsetUnitError, RedefinitionError,
                                   UnitParseError)
from quantity_guard.units import convert, define, parse_unit, parse_with_datum
from quantity_guard.units.table import rows

from messages import says

ORACLE = json.loads((Path(__file__).parent / "data" / "oracle_factors.json").read_text("utf-8"))["rows"]

# Oracle spellings the kernel deliberately does not accept, each with the reason.
NOT_ACCEPTED = {
    "′": "prime sign: not a unit symbol in data feeds",
    "'": "quote characters are refused as input",
    '"': "quote characters are refused as input",
    "NM": "refused: newton metre vs nautical mile",
    "M": "refused: mega prefix",
    "square_mile": "prose; mi2 and 'sq mi' are accepted",
    "Ml (UK water industry)": "annotation, not a spelling (Ml itself is tested)",
    "gal": "refused: US vs imperial", "gallon": "refused: US vs imperial",
    "gal/min": "refused: gal is ambiguous; gpm and gal_US/min are accepted",
    "af": "refused: attofarad", "AF": "refused: attofarad", "af/d": "refused: attofarad",
    "bbl": "refused: barrel kinds", "BBL": "refused: barrel kinds",
    "barrel (oil)": "annotation; oil_bbl is accepted", "bbl/d": "refused: barrel kinds",
    "b/d": "too terse to be safe",
    "MG": "refused: megagauss/megagram", "mgd": "refused: US vs imperial",
    "Mgal(imp)/d": "MGD_imp is accepted",
    "fps": "refused: frames per second", "kt": "refused: kilotonne",
    "psig": "refused: gauge pressure is relative to ambient",
    "mm Hg": "Hg is not a unit; mmHg is accepted", "in Hg": "inHg is accepted",
    "ft H2O": "ftH2O is accepted",
    "ton": "refused: short/long/metric", "tn": "too terse to be safe",
    "therm": "refused: US vs EC", "thm": "refused: US vs EC",
    "C (context!)": "annotation; bare C refused (coulomb)", "F (context!)": "annotation",
    "R": "refused: roentgen", "K (interval)": "annotation; K converts to delta_degC",
    "°F (interval)": "annotation; delta_degF is accepted",
    "a (IAU)": "refused: annum vs are", "yr (pint": "refused", "unyt": "annotation",
    "astropy)": "annotation", "yr (SP811)": "refused",
    "ppmw": "mass fraction kind not modelled", "ppmv": "volume fraction kind not modelled",
}
# The oracle's ambiguous symbols map to these unambiguous spellings.
RENAMED = {"gal": "gal_US", "bbl": "oil_bbl", "MG": "Mgal", "ton": "short_ton", "therm": "therm_US",
           "bbl/d": "oil_bbl/d", "mgd": "MGD"}


@pytest.mark.parametrize("row", ORACLE, ids=[r["symbol"] for r in ORACLE])
def test_every_factor_equals_the_reference_exactly(row):
    unit = parse_unit(RENAMED.get(row["symbol"], row["symbol"]))
    assert unit.factor == Fraction(row["factor"])
    assert unit.offset == (Fraction(row["offset"]) if row["offset"] else None)
    for alias in row["aliases"]:
        if alias in NOT_ACCEPTED:
            with pytest.raises(UnitParseError):
                parse_unit(alias)
            continue
        alias_unit = parse_unit(alias)
        assert (alias_unit.factor, alias_unit.offset) == (unit.factor, unit.offset), alias


def test_headline_conversions_are_the_float_of_the_exact_product():
    assert convert(1250, "cfs", "m3/s") == 35.39605824 == float(1250 * Fraction("0.3048") ** 3)
    assert convert(10, "degC", "degF") == 50.0
    assert convert(-40, "degC", "degF") == -40.0
    assert convert(100, "degC", "degF") == 212.0
    assert convert(1, "ML", "m3") == 1000.0
    assert convert(1, "ft3", "m3") == 0.028316846592
    assert convert(1, "Ml/d", "m3/s") == float(Fraction(5, 432))


@pytest.mark.parametrize("text,expected", [
    ("m**3/s", "m3/s"), ("m^3/s", "m3/s"), ("m3/s", "m3/s"), ("ft3/s", "ft3/s"),
    ("ft³/s", "ft3/s"), ("m3 s-1", "m3/s"), ("m.s-1", "m/s"), ("kg·m/s²", "kg*m/s2"),
    ("1/s", "1/s"), ("mm/day", "mm/d"), ("mm / d", "mm/d"), ("ft ** 3 / s", "ft3/s"),
    ("km2", "km2"), ("acre-ft", "acre_ft"), ("kW h", "kW*h"), ("%", "%"), ("degC", "degC"),
    ("°C", "degC"), ("℃", "degC"), ("ºC", "degC"), ("delta_degC", "delta_degC"),
    ("Δ°C", "delta_degC"), ("µS/cm", "uS/cm"), ("μS/cm", "uS/cm"), ("uS/cm", "uS/cm"),
    ("s⁻¹", "1/s"), ("m3·s⁻¹", "m3/s"), ("(m/s)2", "m2/s2"), ("sq mi", "mi2"),
    ("kW-h", "kW*h"), ("m\u00a0/\u00a0s", "m/s"), ("Megalitres/day", "ML/d"),
])
def test_accepts_what_services_and_models_write(text, expected):
    assert parse_unit(text).symbol == expected


@pytest.mark.parametrize("text,factor", [
    ("ftH2O", Fraction("2989.06692")), ("Mcf", 1000 * Fraction("0.3048") ** 3),
    ("MMcf", 10 ** 6 * Fraction("0.3048") ** 3), ("kcfs", 1000 * Fraction("0.3048") ** 3),
    ("MGD", 10 ** 6 * 231 * Fraction("0.0254") ** 3 / 86400), ("Ml", Fraction(1000)),
    ("ml", Fraction(1, 10 ** 6)), ("MW", Fraction(10 ** 6)), ("mW", Fraction(1, 1000)),
    ("cms", Fraction(1)), ("Mg", Fraction(1000)), ("mg", Fraction(1, 10 ** 6)),
])
def test_names_resolve_before_prefixes_and_exponents_and_case_is_never_folded(text, factor):
    assert parse_unit(text).factor == factor


def test_grammar_precedence_of_division():
    assert parse_unit("m/s/s") == parse_unit("m/s2")          # a/b/c = a/(b*c)
    assert parse_unit("m/s*s") == parse_unit("m")             # a/b*c = (a/b)*c
    assert parse_unit("kg/m3") == parse_unit("kg m-3") == parse_unit("kg*m**-3")


def test_equal_units_spelled_differently_are_equal_and_hash_alike():
    assert parse_unit("cumec") == parse_unit("m3/s") == parse_unit("cms")
    assert hash(parse_unit("cumec")) == hash(parse_unit("m**3/s"))
    assert parse_unit("cusec") == parse_unit("cfs") != parse_unit("cfm")


def test_kind_axes_keep_same_si_dimension_apart():
    for a, b in [("VA", "W"), ("var", "W"), ("var", "VA"), ("NTU", "FNU"), ("scf", "ft3")]:
        with pytest.raises(DimensionalityError) as err:
            convert(1, a, b)
        assert "cannot convert" in str(err.value)
    assert convert(1, "MVA", "kVA") == 1000.0
    assert convert(5, "Mvar", "var") == 5e6


@pytest.mark.parametrize("word,alternatives", [
    ("gal", ("gal_US", "gal_imp")), ("ton", ("short_ton", "long_ton", "t")),
    ("mgd", ("MGD", "MGD_imp")), ("bbl", ("oil_bbl",)), ("yr", ("a_j", "a_365", "a_greg")),
    ("MG", ("Mgal", "Mg")), ("therm", ("therm_US", "therm_EC")),
])
def test_ambiguous_spellings_are_refused_naming_the_alternatives(word, alternatives):
    with pytest.raises(UnitParseError) as err:
        parse_unit(word)
    says(err.value.message, "ambiguous_unit", unit=word)
    assert err.value.suggestions == alternatives
    for alt in alternatives:
        assert repr(alt) in err.value.repair()
    with pytest.raises(UnitParseError):  # also inside a compound unit
        parse_unit(f"{word}/d")


def test_unknown_unit_error_has_position_and_suggestions():
    with pytest.raises(UnitParseError) as err:
        parse_unit("m3/sec2x")
    assert err.value.position == 3
    says(err.value.message, "unknown_unit", unit="sec2x", position=3, text="m3/sec2x")
    with pytest.raises(UnitParseError) as err:
        parse_unit("KM")
    assert err.value.suggestions[0] == "km"
    with pytest.raises(UnitParseError) as err:
        parse_unit("cfss")
    assert "cfs" in err.value.suggestions


@pytest.mark.parametrize("text", [
    "x" * 10_000, "m**99999999", "m**-99999999", "(" * 500 + "m" + ")" * 500, "m\x00", "m\x1b[0m",
    "m**nan", "m**inf", "m**1e400", "m**2.5", "10 m", "600 mg/24h", "", "   ", "m**0",
    "((((((((((((((m**24)**24)**24)**24)))))))))))", "%**24**24", "°K", "m/", "/s", "m**",
    "(m", "m)", "degC/s", "degC**2", "kg*degF", "1.5 ft",
])
def test_pathological_input_is_refused_quickly(text):
    start = time.perf_counter()
    with pytest.raises(UnitParseError):
        parse_unit(text)
    assert time.perf_counter() - start < 2.0  # refused, not hung (bench/perf.py times parsing)


def test_offset_units_inside_compounds_say_what_to_write():
    with pytest.raises(UnitParseError) as err:
        parse_unit("degC/s")
    assert "delta_degC" in err.value.repair()
    assert parse_unit("delta_degC/s").dimensionality == "[time]^-1 [temperature]"


def test_temperature_points_and_intervals():
    assert convert(10, "delta_degC", "delta_degF") == 18.0
    assert convert(1, "delta_degC", "K") == 1.0
    assert convert(0, "degC", "K") == 273.15
    with pytest.raises(OffsetUnitError) as err:
        convert(10, "delta_degC", "degC")
    assert "temperature point" in str(err.value)
    with pytest.raises(OffsetUnitError):
        convert(10, "degF", "delta_degF")
    assert parse_unit("degC").delta == parse_unit("delta_degC")
    with pytest.raises(OffsetUnitError):
        parse_unit("degC") * parse_unit("s")


def test_incompatible_dimensions_name_both_sides():
    with pytest.raises(DimensionalityError) as err:
        convert(12.4, "ft", "m**3/s")
    msg = str(err.value)
    assert "ft ([length])" in msg and "m3/s ([length]^3 [time]^-1)" in msg


def test_datum_suffixes_split_off_a_length():
    assert parse_with_datum("ft NAVD88") == (parse_unit("ft"), "NAVD88")
    assert parse_with_datum("mAOD") == (parse_unit("m"), "ODN")
    assert parse_with_datum("mASD") == (parse_unit("m"), "ASD")
    assert parse_with_datum("m ODN") == (parse_unit("m"), "ODN")
    assert parse_with_datum("ft above NAVD 88") == (parse_unit("ft"), "NAVD 88")
    assert parse_with_datum("ft (NGVD29)") == (parse_unit("ft"), "NGVD29")
    assert parse_with_datum("m3/s") == (parse_unit("m3/s"), None)
    assert parse_with_datum("ft NAVD88X") == (parse_unit("ft"), "NAVD88X")  # the registry refuses it
    with pytest.raises(UnitParseError):
        parse_with_datum("m3/s NAVD88")
    with pytest.raises(UnitParseError):
        parse_with_datum("mBDAT")
    with pytest.raises(UnitParseError):
        parse_unit("ft NAVD88")


@pytest.mark.parametrize("row", rows(), ids=lambda r: r.symbol)
def test_every_table_unit_round_trips_through_its_renderings(row):
    unit = row.unit
    assert parse_unit(unit.symbol) == unit
    assert parse_unit(unit.symbol).symbol == unit.symbol
    assert parse_unit(unit.pretty) == unit
    assert unit.long_name
    assert row.source, f"{row.symbol} has no source"


def test_compound_renderings():
    u = parse_unit("ft3/s")
    assert (u.symbol, u.pretty, u.long_name) == ("ft3/s", "ft³/s", "cubic feet per second")
    assert parse_unit("mm/d").long_name == "millimetres per day"
    assert parse_unit("W/m2/K").symbol == "W/(m2*K)"
    assert parse_unit(parse_unit("W/m2/K").pretty) == parse_unit("W/(m2*K)")
    assert format(parse_unit("cfs"), "L") == "cubic feet per second"


def test_define_adds_and_never_redefines():
    u = define("sfd", "86400 ft3", name="second-foot-day", source="USGS usage")
    assert convert(1, "sfd", "ft3") == 86400.0
    assert define("sfd", "86400 ft3") == u  # the same meaning again is a no-op
    with pytest.raises(RedefinitionError):
        define("sfd", "1 m3")
    with pytest.raises(RedefinitionError):
        define("cfs", "2 ft3/s")
    with pytest.raises(RedefinitionError):
        define("km", "1 m")   # already means kilometre through a prefix
    with pytest.raises(RedefinitionError):
        define("gal", "1 gal_imp")  # refused spellings stay refused


def test_units_are_immutable():
    with pytest.raises(AttributeError):
        parse_unit("m").factor = Fraction(2)  # type: ignore[misc]


def test_arrays_convert_in_one_multiply():
    np = pytest.importorskip("numpy")
    a = np.array([1250.0, 0.0, float("nan")])
    out = convert(a, "cfs", "m3/s")
    assert out[0] == 35.39605824 and out[1] == 0.0 and math.isnan(out[2])
    assert convert(np.array([10.0, -40.0]), "degC", "degF").tolist() == [50.0, -40.0]
    assert convert([1, 2], "km", "m") == [1000.0, 2000.0]


def test_numpy_is_not_imported_by_the_kernel():
    import subprocess
    import sys
    code = ("import sys; from quantity_guard.units import convert; convert(1.0, 'cfs', 'm3/s');"
            "convert([1.0], 'km', 'm'); print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_temperature_difference_divided_out_leaves_no_interval_flag():
    """delta_degC/delta_degC is a plain ratio and delta_degC*m/delta_degC a plain length: they
    equal '1' and 'm', and read back from their printed forms."""
    d, m = parse_unit("delta_degC"), parse_unit("m")
    assert d / d == parse_unit("1") == parse_unit("delta_degC/delta_degC")
    assert d * m / d == m == parse_unit("delta_degC*m/delta_degC")
    assert (d ** -1 * d ** -1 * d ** 2).interval is False
    assert (d / parse_unit("s")).interval is True and parse_unit("delta_degF2").interval is True


def test_clear_caches_reads_strings_again_and_keeps_the_table():
    from quantity_guard.units import clear_caches, convert
    define("clearcache_kcfs", "1000 ft3/s")
    first = parse_unit("ft**3/s")
    assert convert(1250, "cfs", "m3/s") == pytest.approx(35.39605824)
    clear_caches()
    assert parse_unit("ft**3/s") == first
    assert convert(1250, "cfs", "m3/s") == pytest.approx(35.39605824)
    assert parse_unit("clearcache_kcfs").factor == 1000 * first.factor  # the table stays
