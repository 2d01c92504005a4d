"""Every unit of the SI Brochure (9th edition, 2019, updated 2022): the 22 coherent derived
units with special names (Table 4) and the non-SI units accepted for use with the SI (Table 8),
each a row of data/units.json with its exact definition and a source."""
from __future__ import annotations

import math
from fractions import Fraction

import pytest

from quantity_guard.units import parse_unit
from quantity_guard.units.table import describe

PI_180 = Fraction(math.pi / 180)  # compared to a double's precision: pi is irrational

# (spelling, the same unit in base units, factor): Table 4, then Table 8
TABLE_4 = [
    ("rad", "rad", 1), ("sr", "rad2", 1), ("Hz", "1/s", 1), ("N", "kg*m/s2", 1),
    ("Pa", "kg/(m*s2)", 1), ("J", "kg*m2/s2", 1), ("W", "kg*m2/s3", 1), ("coulomb", "A*s", 1),
    ("V", "kg*m2/(s3*A)", 1), ("farad", "s4*A2/(kg*m2)", 1), ("ohm", "kg*m2/(s3*A2)", 1),
    ("S", "s3*A2/(kg*m2)", 1), ("Wb", "kg*m2/(s2*A)", 1), ("T", "kg/(s2*A)", 1),
    ("H", "kg*m2/(s2*A2)", 1), ("degC", "K", 1), ("lm", "cd*sr", 1), ("lx", "cd*sr/m2", 1),
    ("Bq", "1/s", 1), ("Gy", "m2/s2", 1), ("Sv", "m2/s2", 1), ("kat", "mol/s", 1),
]
TABLE_8 = [
    ("min", "s", 60), ("h", "s", 3600), ("d", "s", 86400), ("au", "m", 149597870700),
    ("deg", "rad", PI_180), ("arcmin", "rad", PI_180 / 60), ("arcsec", "rad", PI_180 / 3600),
    ("ha", "m2", 10000), ("L", "m3", Fraction(1, 1000)), ("t", "kg", 1000),
    ("Da", "kg", Fraction("1.66053906892e-27")), ("eV", "J", Fraction("1.602176634e-19")),
    ("Np", "Np", 1), ("bel", "bel", 1), ("dB", "bel", Fraction(1, 10)),
]


@pytest.mark.parametrize("symbol,base,factor", TABLE_4 + TABLE_8, ids=lambda v: str(v))
def test_the_unit_is_a_row_with_its_definition_and_source(symbol, base, factor):
    unit = parse_unit(symbol)
    ref = parse_unit(base)
    assert unit.dims == ref.dims
    if symbol in ("deg", "arcmin", "arcsec"):
        assert math.isclose(float(unit.factor), float(factor), rel_tol=1e-15)
    else:
        assert unit.factor == Fraction(factor) * ref.factor
    row = describe(unit.terms[0][0])[0]
    assert row.source and ("SI9" in row.source or "SI Brochure" in row.source), symbol
    assert row.definition


def test_the_derived_units_are_all_twenty_two():
    assert len(TABLE_4) == 22 and len({s for s, _, _ in TABLE_4}) == 22


def test_prefixed_forms_and_the_refused_bare_symbols():
    assert parse_unit("uF").factor == Fraction(1, 10 ** 6)
    assert parse_unit("mC") == parse_unit("mA*s")
    assert parse_unit("keV").factor == Fraction("1.602176634e-16")
    assert parse_unit("kDa").factor == 1000 * parse_unit("Da").factor
    for bare in ("C", "F", "B", "pH"):  # coulomb or degC; farad or degF; bel or byte; acidity
        with pytest.raises(Exception):
            parse_unit(bare)
