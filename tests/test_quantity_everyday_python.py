"""Quantities in everyday Python: sum() (0 + q is q), round() (a Q, rounded), json.dumps
through quantity_guard.to_json; unit typos get "did you mean", an ambiguous unit's str() names
the alternatives; a dimensionless parameter is described as a plain number."""
from __future__ import annotations

import json

import pytest

import quantity_guard
from messages import says
from quantity_guard import (BelowAbsoluteZero, DatumMismatch, DimensionalityError, Q, Spec,
                            UnitParseError, parse_unit)


def test_sum_of_quantities_adds_them_in_the_first_ones_unit():
    total = sum([Q(1.0, "m"), Q(2.0, "ft"), Q(3.0, "m")])
    assert total.unit.symbol == "m" and total.magnitude == pytest.approx(4.6096)
    assert sum([Q(5.0, "cfs")]) == Q(5.0, "cfs")


def test_sum_keeps_every_refusal_of_addition():
    with pytest.raises(DimensionalityError):
        sum([Q(1.0, "m"), Q(1.0, "s")])
    with pytest.raises(DatumMismatch):
        sum([Q(1.0, "ft", datum="NAVD88"), Q(2.0, "ft", datum="NAVD88")])
    with pytest.raises(DimensionalityError, match="bare number"):
        Q(1.0, "m") + 0  # only sum()'s start is taken as nothing
    with pytest.raises(DimensionalityError, match="bare number"):
        1 + Q(1.0, "m")


def test_round_gives_a_new_quantity_in_the_same_unit_and_frames():
    q = Q(12.3456, "ft", datum="NAVD88", quality="approved")
    r = round(q, 2)
    assert isinstance(r, Q) and r.magnitude == 12.35 and r.unit is q.unit
    assert (r.datum, r.quality) == ("NAVD88", "approved") and q.magnitude == 12.3456
    whole = round(Q(2.6, "m"))
    assert isinstance(whole, Q) and whole.magnitude == 3.0
    with pytest.raises(TypeError, match="whole number of digits"):
        round(q, 1.5)


def test_round_never_makes_a_temperature_below_absolute_zero():
    with pytest.raises(BelowAbsoluteZero):
        round(Q(-459.67, "degF"))  # absolute zero, rounded to -460 degF


def test_round_of_a_series():
    np = pytest.importorskip("numpy")
    r = round(Q([1.234, 5.678], "m"), 1)
    assert np.array_equal(r.magnitude, [1.2, 5.7]) and not r.magnitude.flags.writeable


def test_json_dumps_through_to_json_and_back():
    q = Q(1250.0, "cfs", quality="provisional")
    text = json.dumps({"flow": q, "n": 1}, default=quantity_guard.to_json)
    data = json.loads(text)
    assert data == {"flow": {"value": 1250.0, "unit": "cfs", "quality": "provisional"}, "n": 1}
    assert Q.from_dict(data["flow"]) == q
    with pytest.raises(TypeError, match="not JSON serializable"):
        json.dumps({1, 2}, default=quantity_guard.to_json)


@pytest.mark.parametrize("typo,meant", [("kw", "kW"), ("Kw", "kW"), ("mw", "MW"), ("kwh", "kWh"),
                                        ("KM", "km")])
def test_a_unit_typo_gets_did_you_mean_in_its_message(typo, meant):
    with pytest.raises(UnitParseError) as err:
        parse_unit(typo)
    assert meant in err.value.suggestions
    says(str(err.value), "did_you_mean",
         alternatives=" or ".join(repr(s) for s in err.value.suggestions))


@pytest.mark.parametrize("text,alternatives", [("gal", ("gal_US", "gal_imp")),
                                               ("mgd", ("MGD", "MGD_imp"))])
def test_an_ambiguous_unit_names_the_alternatives_in_str(text, alternatives):
    with pytest.raises(UnitParseError) as err:
        parse_unit(text)
    message = str(err.value)
    says(message, "write_instead", alternatives=" or ".join(repr(a) for a in alternatives))
    repair = err.value.repair()
    assert repair.count(repr(alternatives[0])) == 1  # said once, not repeated


def test_a_dimensionless_parameter_is_described_as_a_plain_number():
    text = Spec("1").describe()
    assert "dimensionless (1)" not in text and "read in 1" not in text
    assert text.startswith("A plain number with no unit") and '"12 %"' in text
    assert Spec("1").accept("12 %").value.magnitude == pytest.approx(0.12)
    assert "In percent (%)." in Spec("%").describe()
