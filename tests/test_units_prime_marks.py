"""Prime marks in a unit string. UCUM's ' and '' are the arc minute and the arc second, but
in US usage 5' 10'' is five feet ten inches, and coordinates write 40°26′46″. Nothing in the
string tells these apart, so the kernel grammar reads none of them (', '', ", ′, ″, ’): each is
refused as ambiguous, naming both readings and what to send instead (ft or arcmin, in or
arcsec); UCUM's ' and '' are read only with vocabulary="ucum", where the sender said so.

Every UCUM code the UCUM reader accepts reads in the kernel grammar to the same unit, but for
those the kernel refuses as ambiguous (', '', a, mo): their refusal names a kernel spelling of
that very unit."""
from __future__ import annotations


import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quantity_guard import Q, UnitParseError, parse_unit
from quantity_guard.errors import InvalidArguments
from ucum_codes import OTHERWISE, every_ucum_code


ARCMIN, ARCSEC = parse_unit("arcmin"), parse_unit("arcsec")


@pytest.mark.parametrize("text,mark,at", [
    ("'", "'", 0), ("5'", "'", 1), ("ft'", "'", 2), ("m/'", "'", 2),
    ("5\u2032", "\u2032", 1), ("5\u2019", "\u2019", 1), ("40\u00b026\u2032", "\u2032", 5)])
def test_a_single_prime_is_refused_as_foot_or_arc_minute(text, mark, at):
    with pytest.raises(UnitParseError) as info:
        parse_unit(text)
    err = info.value
    assert err.code == "unit_parse_error" and err.position == at
    assert str(err).startswith(f"{mark!r} is ambiguous: a foot in US usage")
    assert "an arc minute in UCUM" in str(err) and "vocabulary='ucum'" in str(err)
    assert err.suggestions == ("ft", "arcmin")
    assert "Send instead: 'ft' or 'arcmin'" in err.repair()


@pytest.mark.parametrize("text,mark,at", [
    ("''", "''", 0), ("10''", "''", 2), ('10"', '"', 2), ("10\u2033", "\u2033", 2),
    ("10\u2019\u2019", "\u2019\u2019", 2)])
def test_a_double_prime_is_refused_as_inch_or_arc_second(text, mark, at):
    with pytest.raises(UnitParseError) as info:
        parse_unit(text)
    err = info.value
    assert err.position == at
    assert str(err).startswith(f"{mark!r} is ambiguous: an inch in US usage")
    assert "an arc second in UCUM" in str(err)
    assert err.suggestions == ("in", "arcsec")


def test_feet_and_inches_in_a_quantity_string_are_refused_not_read_as_an_angle():
    with pytest.raises(UnitParseError) as info:
        Q.parse("5' 10''")
    assert "a foot in US usage" in str(info.value) and "5' 10'' is '70 in'" in str(info.value)
    with pytest.raises(UnitParseError, match="an inch in US usage"):
        Q.parse('70"')


@pytest.mark.parametrize("text", ["'12 ft'", '"12 ft"', "\u201912 ft\u2019"])
def test_quotes_around_a_quantity_are_not_read_as_a_unit(text):
    with pytest.raises(InvalidArguments, match="does not start with a number"):
        Q.parse(text)


def test_ucum_reads_its_primes_as_arc_minute_and_arc_second():
    assert parse_unit("'", vocabulary="ucum") == ARCMIN
    assert parse_unit("''", vocabulary="ucum") == ARCSEC
    assert parse_unit("'/s", vocabulary="ucum") == parse_unit("arcmin/s")
    assert parse_unit("''2", vocabulary="ucum") == parse_unit("arcsec**2")
    assert ARCMIN.ucum == "'" and ARCSEC.ucum == "''"
    assert parse_unit(ARCMIN.symbol) == ARCMIN and parse_unit(ARCSEC.symbol) == ARCSEC


def test_every_ucum_code_reads_in_the_kernel_or_its_refusal_names_the_same_unit():
    refused = {}
    for code in every_ucum_code():
        try:
            unit = parse_unit(code, vocabulary="ucum")
        except UnitParseError:
            continue  # outside the subset (the UCUM reader says why)
        try:  # format -> parse: the same unit, or refused (a number inside it): not misread
            assert parse_unit(unit.symbol) == unit, code
        except UnitParseError:
            pass
        assert unit.ucum is not None and parse_unit(unit.ucum, vocabulary="ucum") == unit, code
        try:
            read = parse_unit(code)
        except UnitParseError as exc:
            if "ambiguous" in str(exc):
                refused[code] = exc
                if code in ("'", "''", "a", "mo"):
                    assert any(parse_unit(s) == unit for s in exc.suggestions), code
            continue  # or a code the kernel's grammar does not know, or refuses with UCUM's value
        assert read == unit or code in OTHERWISE, code
    assert {"'", "''", "a", "mo"} <= set(refused)


ATOMS = ["'", "''", "deg", "circ", "har", "m", "s", "[ft_i]", "gon", "rad", "km", "h"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(ATOMS), st.integers(-3, 3).filter(bool),
                          st.sampled_from([".", "/"])), min_size=1, max_size=4))
def test_compound_ucum_codes_with_primes_round_trip_through_the_kernel(terms):
    code = terms[0][0] + (str(terms[0][1]) if terms[0][1] != 1 else "")
    for atom, power, op in terms[1:]:
        code += op + atom + (str(power) if power != 1 else "")
    try:
        unit = parse_unit(code, vocabulary="ucum")
    except UnitParseError:
        return  # an exponent out of range
    assert parse_unit(unit.symbol) == unit, (code, unit.symbol)
    assert unit.ucum is not None and parse_unit(unit.ucum, vocabulary="ucum") == unit, code
