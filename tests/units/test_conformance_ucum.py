"""UCUM's own suites: the functional tests (UcumFunctionalTests.xml) and the atom table
(ucum-essence.xml), read with xml.etree from tests/units/conformance (sources in its README)."""
from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from quantity_guard import Q
from quantity_guard.errors import UnitParseError
from quantity_guard.units import convert, parse_unit
from quantity_guard.units import ucum

HERE = Path(__file__).parent / "conformance"
TESTS = ET.parse(HERE / "UcumFunctionalTests.xml").getroot()
NS = "{http://unitsofmeasure.org/ucum-essence}"
ESSENCE = ET.parse(HERE / "ucum-essence.xml").getroot()
DATA = json.loads((Path(__file__).parents[2] / "quantity_guard" / "data" /
                   "units_ucum.json").read_text("utf-8"))
ARBITRARY = {u.get("Code") for u in ESSENCE.iter(NS + "unit") if u.get("isArbitrary") == "yes"}


def cases(section: str) -> list:
    return [c.attrib for c in TESTS.find(section).findall("case")]


def _mentions(code: str, atoms: set) -> bool:
    return any(a in code for a in atoms)


def _ucum(code: str):
    return parse_unit(code, vocabulary="ucum")


@pytest.mark.parametrize("case", cases("validation"), ids=lambda c: f"{c['id']}:{c['unit']}")
def test_validation(case):
    code = case["unit"]
    if case["valid"] != "true":
        with pytest.raises(UnitParseError):
            _ucum(code)
        return
    if _mentions(code, ARBITRARY):
        with pytest.raises(UnitParseError) as err:
            _ucum(code)
        assert "arbitrary" in err.value.message and "no conversion" in err.value.message
        return
    _ucum(code)


def _close(value: float, outcome: str) -> bool:
    """Equal to the outcome to its last printed digit (UCUM's tests print significant figures:
    6.3 [in_i] is 0.160 m), or to a float's precision where the outcome prints more."""
    exact = Decimal(outcome)
    last = exact.as_tuple().exponent
    return abs(Decimal(value) - exact) <= Decimal(5) * Decimal(10) ** (last - 1) or \
        math.isclose(value, float(exact), rel_tol=1e-14)


@pytest.mark.parametrize("case", cases("conversion"), ids=lambda c: c["id"])
def test_conversion(case):
    value = convert(float(case["value"]), _ucum(case["srcUnit"]), _ucum(case["dstUnit"]))
    assert _close(value, case["outcome"]), (value, case["outcome"])


@pytest.mark.parametrize("section", ["multiplication", "division"])
def test_multiplication_and_division(section):
    for case in cases(section):
        a, b = Q(float(case["v1"]), _ucum(case["u1"])), Q(float(case["v2"]), _ucum(case["u2"]))
        got = a * b if section == "multiplication" else a / b
        want = _ucum(case["uRes"] or "1")
        assert math.isclose(got.to(want).value, float(case["vRes"]), rel_tol=0.05), case


def test_the_counts():
    valid = [c for c in cases("validation")]
    read = sum(1 for c in valid if c["valid"] == "true" and not _mentions(c["unit"], ARBITRARY))
    assert len(valid) == 529 and len(cases("conversion")) == 30
    assert read == 464  # every valid code but the 26 of arbitrary units


# -- the atom table against ucum-essence.xml, both ways --------------------------------------
def test_the_data_holds_every_atom_of_the_essence_as_published():
    essence = {}
    for b in ESSENCE.findall(NS + "base-unit"):
        essence[b.get("Code")] = {"base": b.get("dim")}
    for u in ESSENCE.findall(NS + "unit"):
        v = u.find(NS + "value")
        fn = v.find(NS + "function")
        rec = {"value": (fn if fn is not None else v).get("value"),
               "unit": (fn if fn is not None else v).get("Unit"),
               "metric": u.get("isMetric") == "yes"}
        if fn is not None:
            rec["special"] = fn.get("name")
        if u.get("isArbitrary") == "yes":
            rec["arbitrary"] = True
        essence[u.get("Code")] = rec
    ours = {a["code"]: a for a in DATA["atoms"]}
    assert list(ours) == list(essence)
    for code, rec in essence.items():
        for key, value in rec.items():
            assert ours[code].get(key) == value, (code, key)
        assert bool(ours[code].get("arbitrary")) == bool(rec.get("arbitrary")), code
    prefixes = {p.get("Code"): p.find(NS + "value").get("value")
                for p in ESSENCE.findall(NS + "prefix")}
    assert DATA["prefixes"] == prefixes


def _own_definition(rec: dict):
    """UCUM's value times its unit, read by the UCUM reader (not the kernel row)."""
    if "base" in rec:
        return None
    inner = _ucum(rec["unit"]) if rec["unit"] != "1" else parse_unit("1")
    return Fraction(rec["value"]) * inner.factor, inner.dims


# the kernel keeps the mole as a base quantity and the radian as an angle (UCUM counts the mole
# as the number 6.02214076e23, and the SI the radian as 1): these atoms are compared by factor
# and dimension in the kernel's own terms, which the entries below state
_PI_DIGITS = {"deg", "'", "''", "gon", "circ"}  # the kernel holds pi to 100 digits, UCUM to 64


@pytest.mark.parametrize("rec", [a for a in DATA["atoms"] if "kernel" in a and "base" not in a
                                 and "special" not in a], ids=lambda a: a["code"])
def test_every_kernel_equivalent_is_ucums_own_definition(rec):
    unit = parse_unit(rec["kernel"])
    if rec["code"] == "mol":
        assert unit == parse_unit("mol")
        return
    factor, dims = _own_definition(rec)
    assert unit.dims == dims
    if rec["code"] in _PI_DIGITS:
        assert math.isclose(float(unit.factor / factor), 1.0, rel_tol=1e-15)
    else:
        assert unit.factor == factor, (rec["code"], float(unit.factor), float(factor))


def test_offset_scales_read_with_their_offset():
    assert convert(0, _ucum("Cel"), _ucum("K")) == 273.15
    assert convert(212, _ucum("[degF]"), _ucum("Cel")) == 100.0
    assert convert(80, _ucum("[degRe]"), _ucum("Cel")) == 100.0


def test_numbers_and_annotations():
    assert _ucum("10*3/uL") == _ucum("/nL") and _ucum("10*3/uL").symbol == "1000/uL"
    assert convert(1, _ucum("mL/(8.h)"), _ucum("mL/h")) == 0.125
    assert _ucum("{cfu}/mL") == _ucum("/mL") == _ucum("mL-1")
    assert _ucum("kg{total}") == parse_unit("kg")
    with pytest.raises(UnitParseError, match="number 1000 inside a unit"):
        parse_unit(_ucum("10*3/uL").symbol)  # the kernel grammar refuses it, never misreads it
    with pytest.raises(UnitParseError, match="8.h, not 8h"):
        _ucum("g/8h")


def test_levels_with_a_reference():
    """UCUM's B[V] is 2 lg(V / 1 V): 0 dB[V] is 60 dB[mV]; a level converts only to a level of
    the same quantity, and enters no compound unit."""
    assert convert(0, _ucum("dB[V]"), _ucum("dB[mV]")) == 60.0
    assert convert(30, _ucum("dB[W]"), _ucum("dB[kW]")) == 0.0
    assert convert(1, _ucum("B[V]"), _ucum("dB[V]")) == 10.0
    assert convert(20, _ucum("dB[10.nV]"), _ucum("dB[uV]")) == -20.0  # 100 nV is 0.1 uV
    assert _ucum("dB[SPL]").dims != _ucum("dB[V]").dims
    with pytest.raises(UnitParseError, match="logarithmic level"):
        _ucum("dB[V]/s")


def test_arbitrary_units_say_so():
    for code in ("[IU]", "m[IU]/L", "[APL'U]", "[CFU]/mL"):
        with pytest.raises(UnitParseError) as err:
            _ucum(code)
        assert "arbitrary" in err.value.message and "no conversion" in err.value.message


def test_ucum_readings_the_kernel_grammar_gives_otherwise_are_declared_and_only_those():
    v = ucum.vocabulary()
    codes = list(v.atoms) + [p + a for p in v.prefixes for a in v.metric]
    differ = set()
    for code in codes:
        try:
            mine, theirs = parse_unit(code), _ucum(code)
        except UnitParseError:
            continue
        if mine != theirs:
            differ.add(code)
    assert differ == set(DATA["kernel_reads_otherwise"])
