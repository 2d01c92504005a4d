"""Plane angle as its own kind: exact ratios among deg, arcmin, arcsec, gon and rev; pi for rad;
never dimensionless, never a temperature; USGS wind direction read through the pack."""
from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

from quantity_guard import Q, quantity_tool
from quantity_guard.errors import DimensionalityError, UnitParseError
from quantity_guard.units import convert, parse_unit

ANGLES = ["rad", "deg", "degree", "degrees", "°", "arcmin", "arcsec", "gon", "rev", "turn",
          "mrad", "arc_degree", "arc_minute", "arc_second", "radian", "gradian", "revolution"]


@pytest.mark.parametrize("text", ANGLES)
def test_every_angle_spelling_is_a_plane_angle(text):
    assert parse_unit(text).dimensionality == "[angle]"


def test_ratios_among_degree_units_are_exact():
    deg = parse_unit("deg").factor
    assert parse_unit("arcmin").factor * 60 == deg
    assert parse_unit("arcsec").factor * 3600 == deg
    assert parse_unit("gon").factor * 10 == deg * 9
    assert parse_unit("rev").factor == deg * 360 == parse_unit("turn").factor
    assert convert(1, "rev", "deg") == 360.0 and convert(1, "deg", "arcsec") == 3600.0
    assert convert(400, "gon", "rev") == 1.0 and convert(90, "deg", "gon") == 100.0


def test_conversions_to_radians_are_correctly_rounded():
    assert convert(180, "deg", "rad") == math.pi
    assert convert(1, "rev", "rad") == 2 * math.pi
    assert convert(math.pi, "rad", "deg") == 180.0
    # the table's pi has 100 digits: the factor is far closer to pi/180 than a double can say
    assert abs(parse_unit("deg").factor * 180 - Fraction(math.pi)) < Fraction(1, 10**15)
    assert parse_unit("sr") == parse_unit("rad2") and parse_unit("sr").dimensionality == "[angle]^2"


def test_an_angle_is_not_dimensionless_and_not_a_frequency():
    for other in ("1", "%", "ppm"):
        with pytest.raises(DimensionalityError):
            convert(1, "deg", other)
    with pytest.raises(DimensionalityError):
        convert(1, "rad/s", "Hz")
    assert convert(1, "rev/min", "deg/s") == 6.0
    with pytest.raises(DimensionalityError):
        Q(10, "deg") + Q(10, "%")


def test_a_degree_alone_is_never_a_temperature():
    """Bare 'deg', 'degree(s)' and '°' are angles (as in UCUM, udunits and the SI). A tool
    declared in degC therefore refuses '12 deg': the refusal names both dimensions, so the
    model can resend '12 degC'. Spellings that pair a degree with a scale letter are refused
    outright rather than read as an angle times a kelvin."""
    @quantity_tool(params={"t": {"unit": "degC"}})
    def water_temperature(t):
        return t

    for bad in ("12 deg", "12 degrees", "12°", {"value": 12, "unit": "deg"}):
        with pytest.raises(DimensionalityError) as err:
            water_temperature(bad)
        assert "[angle]" in err.value.repair() and "[temperature]" in err.value.repair()
    assert water_temperature("12 °C").magnitude == 12.0
    assert water_temperature("12 degree_Celsius").magnitude == 12.0
    assert water_temperature("53.6 degrees Fahrenheit").magnitude == pytest.approx(12.0)
    for text in ("deg C", "deg F", "deg K", "degrees Kelvin", "degree K", "° K"):
        with pytest.raises(UnitParseError) as err:
            parse_unit(text)
        assert "degC" in err.value.suggestions or "degC" in err.value.message, text
    with pytest.raises(UnitParseError):
        parse_unit("°K")  # not kelvin, not an angle: refused
    for text in ("12 deg C", "12 degrees F"):  # not read as an angle on a vertical datum "C"
        with pytest.raises(UnitParseError) as err:
            Q.parse(text)
        assert "plane angle" in err.value.message and "datum" not in err.value.message
    with pytest.raises(UnitParseError):
        water_temperature("12 deg C")

    @quantity_tool(params={"direction": {"unit": "deg"}})
    def wind(direction):
        return direction

    assert wind("0.5 rev").magnitude == 180.0
    with pytest.raises(DimensionalityError):
        wind("12 degC")


def test_ucum_and_cf_angles_are_the_kernel_angles():
    assert parse_unit("deg", vocabulary="ucum") == parse_unit("degree")
    assert parse_unit("'", vocabulary="ucum") == parse_unit("arc_minute")
    assert parse_unit("''", vocabulary="ucum") == parse_unit("arcsec")
    assert parse_unit("circ", vocabulary="ucum") == parse_unit("rev")
    assert parse_unit("gon", vocabulary="ucum").ucum == "gon"
    with pytest.raises(UnitParseError):
        parse_unit("'")  # a quote is not read by the kernel grammar: arcmin


def test_the_usgs_pack_reads_wind_direction():
    """USGS publishes wind direction (00036) in 'Deg'; the pack reads it as a plane angle."""
    from quantity_guard.packs import usgs
    payload = json.loads((Path(__file__).parent / "data" /
                          "usgs_iv_units_wind_conductance_nitrate.json").read_text("utf-8"))
    series = {s.parameter: s for s in usgs.parse_iv(payload, strict=True)}
    direction = series["00036"].readings[0]
    assert direction.unit_code == "Deg" and direction.value.unit == parse_unit("deg")
    assert direction.value.to("rad").magnitude == pytest.approx(1.5 * math.pi)
    assert series["00036"].readings[1].value.magnitude == 292.5


def test_the_answer_audit_reads_no_unit_into_a_bare_degree_in_prose():
    """In an answer, "12 degrees" may be a temperature or an angle; the audit reads no unit
    there (as before angles existed), but "degrees Fahrenheit" is a unit it checks."""
    from quantity_guard import session

    @quantity_tool(returns={"unit": "degC"})
    def water_temp(site: str):
        return 12.0

    with session() as ledger:
        water_temp("x")
    for answer in ("The water is 12 degrees.", "The water is 12 deg.", "It is 12 °C."):
        audit = ledger.audit_answer(answer)
        assert audit.ok and audit.findings[0].status == "sourced", answer
    wrong = ledger.audit_answer("The water is 12 degrees Fahrenheit.")
    assert not wrong.ok and wrong.findings[0].status == "unit_mislabelled"
