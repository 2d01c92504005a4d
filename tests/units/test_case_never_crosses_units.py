"""No case folding crosses units: over the whole table (every symbol, alias, long name and
plural, with and without a prefix), no spelling reaches a unit that a spelling differing only
in case reaches with another meaning, unless both spellings are declared as written
(``Ml``/``ml``, ``MW``/``mW``, ``calorie``/``Calorie``). The class behind ``calorie`` read as
the kilocalorie."""
from __future__ import annotations

import pytest

from quantity_guard.errors import UnitParseError
from quantity_guard.units import parse_unit, try_parse_unit
from quantity_guard.units.table import registry


def _spellings() -> list[str]:
    reg = registry()
    out = set(reg.spellings) | set(reg.names)
    for psym in reg.prefixes:
        for sym, row in reg.spellings.items():
            if row.prefixable:
                out.add(psym + sym)
    for long in reg.long_prefixes:
        for name, row in reg.names.items():
            if row.prefixable and " " not in name:
                out.add(long + name)
    return sorted(s for s in out if try_parse_unit(s) is not None)


def declared(spelling: str) -> bool:
    """Reached as written: a symbol, an alias, a long name, or a prefix on one of them."""
    reg = registry()
    if spelling in reg.spellings or spelling in reg.names:
        return True
    for n in (2, 1):
        row = reg.spellings.get(spelling[n:])
        if spelling[:n] in reg.prefixes and row is not None and row.prefixable:
            return True
    for long in reg.long_prefixes:
        row = reg.names.get(spelling[len(long):])
        if spelling.startswith(long) and row is not None and row.prefixable:
            return True
    return False


def _variants(s: str) -> set[str]:
    return {s.lower(), s.upper(), s.capitalize(), s.swapcase(), s.title()} - {s}


SPELLINGS = _spellings()


def test_the_table_is_walked():
    assert len(SPELLINGS) > 2500


def test_no_case_variant_reaches_another_unit_unless_both_are_declared():
    crossed = []
    for s in SPELLINGS:
        unit = parse_unit(s)
        for v in _variants(s):
            other = try_parse_unit(v)
            if other is not None and other != unit and not (declared(s) and declared(v)):
                crossed.append((s, v))
    assert crossed == []


@pytest.mark.parametrize("written,factor", [("calorie", 4.184), ("calories", 4.184),
                                            ("Calorie", 4184.0), ("Calories", 4184.0),
                                            ("kilocalorie", 4184.0), ("cal", 4.184)])
def test_the_calorie(written, factor):
    assert float(parse_unit(written).factor) == factor


@pytest.mark.parametrize("folded", ["CALORIE", "CALORIES", "cAlOrIe"])
def test_a_folded_spelling_two_units_share_is_read_as_neither(folded):
    with pytest.raises(UnitParseError) as err:
        parse_unit(folded)
    assert folded.lower() in err.value.suggestions  # both, named: calorie(s), Calorie(s)
    assert folded.capitalize() in err.value.suggestions


def test_a_folded_spelling_only_one_unit_has_still_reads():
    assert parse_unit("Metres") == parse_unit("METRES") == parse_unit("m")
    assert parse_unit("Kilowatts") == parse_unit("kW")
