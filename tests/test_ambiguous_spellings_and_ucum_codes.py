"""Spellings misread or refused without reason, each a class: "Mm3" (a million m3 in
water supply, a cubic megametre by the SI) is ambiguous, like mgd; a quality word the guard
cannot read is refused saying why, floor or not; every UCUM code of the table reads back, in
the UCUM reader, to the unit it was written for, and the kernel reads the unbracketed codes
that cannot be mistaken (har, circ)."""
from __future__ import annotations


import pytest

from quantity_guard import Q, QualityViolation, Spec, UnitParseError, parse_unit
from ucum_codes import OTHERWISE, every_ucum_code



@pytest.mark.parametrize("text", ["Mm3", "Mm3/d", "Mm**3/s", "Mm^3", "Mm³/d", "m3/Mm3", "(Mm)3"])
def test_cubic_megametres_are_refused_as_ambiguous_naming_the_alternatives(text):
    with pytest.raises(UnitParseError) as err:
        parse_unit(text)
    message = str(err.value)
    assert "'Mm3' is ambiguous" in message and "a million cubic metres" in message
    assert "hm3" in message and "m3/d" in message
    assert set(err.value.suggestions) == {"hm3", "m3"}
    assert "Send instead: the value in hm3" in err.value.repair()


def test_a_flow_in_mm3_per_day_is_refused_at_the_boundary_not_read_as_5e12():
    with pytest.raises(UnitParseError, match="'Mm3' is ambiguous"):
        Spec("m3/s").accept("0.5 Mm3/d", "t.flow")
    assert Spec("m3/s").accept("0.5 hm3/d").value.magnitude == pytest.approx(5e5 / 86400)
    assert parse_unit("Mm").symbol == "Mm" and parse_unit("Mm2").symbol == "Mm2"
    assert parse_unit("Mm3", vocabulary="ucum").factor == 10 ** 18  # UCUM's meaning is exact


@pytest.mark.parametrize("floor", [None, "provisional"])
@pytest.mark.parametrize("word,why", [("reviewed", "no quality grade or publisher flag"),
                                      ("Ice", "condition code")])
def test_a_quality_the_guard_cannot_read_is_refused_saying_why(floor, word, why):
    spec = Spec("m", quality=floor)
    with pytest.raises(QualityViolation) as err:
        spec.accept({"value": 1.5, "unit": "m", "quality": word}, "t.depth")
    text = err.value.repair()
    assert f"received quality {word!r}" in text and why in text
    assert ("sets no quality floor" in text) == (floor is None)
    assert "Send instead:" in text and "approved" in text
    if floor is None:  # the simplest repair: send the value without it
        assert '{"value": 1.5, "unit": "m"}' in text
    else:
        assert "unverified" not in text  # only grades that meet the floor are offered
    with pytest.raises(QualityViolation):  # as Q itself refuses it: one rule
        Q(1.5, "m", quality=word)


def test_a_readable_quality_is_carried_whether_or_not_a_floor_is_declared():
    assert Spec("m").accept({"value": 1, "unit": "m", "quality": "A"}).value.quality == "approved"


def _reads_back_or_is_refused(unit, form) -> None:
    """A unit's symbol reads back to it in the kernel's grammar, or is refused there (a number
    UCUM reads inside a unit, an atom whose UCUM value the kernel refuses): never misread."""
    try:
        back = parse_unit(unit.symbol)
    except UnitParseError:
        return
    assert back == unit, (form, unit.symbol)


def test_every_ucum_code_of_the_table_reads_back_to_the_unit_it_was_written_for():
    read = 0
    for code in every_ucum_code():
        for form in (code, f"{code}2", f"{code}-1", f"m.{code}", f"{code}/s"):
            try:
                unit = parse_unit(form, vocabulary="ucum")
            except UnitParseError:
                continue  # outside the subset, or a temperature point in a compound
            written = unit.ucum
            assert written is not None, form
            assert parse_unit(written, vocabulary="ucum") == unit, (form, written)
            _reads_back_or_is_refused(unit, form)
            read += 1
    assert read > 1500


@pytest.mark.parametrize("code,symbol", [("har", "ha"), ("circ", "rev"), ("har2", "ha2"),
                                         ("circ/s", "rev/s")])
def test_the_kernel_reads_the_unbracketed_ucum_codes_it_writes(code, symbol):
    assert parse_unit(code) == parse_unit(code, vocabulary="ucum") == parse_unit(symbol)
    assert parse_unit(symbol).ucum == code


def test_every_written_ucum_code_but_the_quotes_reads_in_the_kernel_too():
    quoted, refused = [], []
    for code in every_ucum_code():
        try:
            unit = parse_unit(code, vocabulary="ucum")
        except UnitParseError:
            continue
        if unit.ucum != code:
            continue  # a synonym (l, mho, a, mo): read, but never written
        if "'" in code and "[" not in code:  # a bracket is UCUM's: [in_i'H2O] reads
            quoted.append(code)  # pint reads ' as a foot: the kernel refuses quotes
            with pytest.raises(UnitParseError, match="is ambiguous: an? (foot|inch) in US usage"):
                parse_unit(code)
            continue
        try:
            assert parse_unit(code) == unit or code in OTHERWISE, code
        except UnitParseError:  # refused there (ambiguous, or UCUM's alone): never misread
            refused.append(code)
    assert sorted(quoted) == ["'", "''"]
    # among the codes the kernel's grammar refuses: the bel or the byte, the coulomb or a
    # degree Celsius, the farad or a degree Fahrenheit (it says so, naming both)
    assert {"B", "C", "F"} <= set(refused)
