"""The remembered readings of the audit and of the ledger follow the registries: a unit
defined, or a datum, alias or offset registered, after a phrase was read (in an answer or in
the question) or an elevation converted is read the next time; a datum forgotten (the end of
``datums.isolated()``) is no longer read."""
from __future__ import annotations

import itertools

from quantity_guard import datums, define, quantity_tool, session
from quantity_guard.audit import extract_numbers

_FRESH = itertools.count()


def _fresh(stem: str) -> str:
    """A spelling no test has defined yet (the unit table is only ever added to)."""
    return f"{stem}{next(_FRESH)}x"


def test_a_unit_defined_after_a_reading_is_read_the_next_time():
    symbol = _fresh("qgspan")
    text = f"The reach is 12.5 {symbol} long."
    assert extract_numbers(text)[0].unit is None  # read (and remembered) before it exists
    unit = define(symbol, "2 m")
    assert extract_numbers(text)[0].unit == unit


def test_an_answer_audited_again_after_define_reads_the_new_unit():
    symbol = _fresh("qgrod")
    with session() as ledger:
        quantity_tool(lambda: 25.0, returns={"unit": "m"}, name="read_reach")()
    answer = f"The reach is 12.5 {symbol}."
    before = ledger.audit_answer(answer)
    assert [(f.number.text, f.status) for f in before.findings] == [("12.5", "unsourced")]
    define(symbol, "2 m")
    after = ledger.audit_answer(answer)
    assert [(f.number.text, f.status) for f in after.findings] == [(f"12.5 {symbol}", "sourced")]


def test_a_datum_registered_after_a_reading_is_read_and_forgotten_with_its_scope():
    name = _fresh("QGD").upper()
    text = f"The crest is at 12.5 ft {name} today."
    assert extract_numbers(text)[0].datum is None
    with datums.isolated():
        datums.register(name, kind="local", description="a test datum")
        assert extract_numbers(text)[0].datum == name
    assert extract_numbers(text)[0].datum is None



def test_a_datum_alias_registered_after_a_reading_is_read_as_its_datum():
    name, alias = _fresh("QGE").upper(), _fresh("QGA").upper()
    text = f"The crest is at 12.5 ft {alias} today."
    assert extract_numbers(text)[0].datum is None
    with datums.isolated():
        datums.register(name, kind="local", description="a test datum", aliases=(alias,))
        assert extract_numbers(text)[0].datum == name


def test_a_unit_defined_after_the_question_was_read_is_read_in_it():
    symbol = _fresh("qgreach")
    with session(context=f"The reach is 12.5 {symbol} long.") as ledger:
        pass
    assert [n.unit for n in ledger.context_numbers()] == [None]
    unit = define(symbol, "2 m")
    assert [n.unit for n in ledger.context_numbers()] == [unit]


def test_a_datum_alias_registered_after_the_question_was_read_is_read_in_it_for_its_scope():
    name, alias = _fresh("QGQ").upper(), _fresh("QGR").upper()
    with session(context=f"The crest is at 12.5 ft {alias} today.") as ledger:
        pass
    assert [n.datum for n in ledger.context_numbers()] == [None]
    with datums.isolated():
        datums.register(name, kind="local", description="a test datum", aliases=(alias,))
        assert [n.datum for n in ledger.context_numbers()] == [name]
    assert [n.datum for n in ledger.context_numbers()] == [None]


def test_an_offset_registered_after_an_audit_carries_the_recorded_elevation_the_next_time():
    a, b = _fresh("QGF").upper(), _fresh("QGG").upper()
    with datums.isolated():
        for name in (a, b):
            datums.register(name, kind="local", description="a test datum")
        with session() as ledger:
            quantity_tool(lambda: 10.0, returns={"unit": "m", "datum": a}, name="read_crest")()
            quantity_tool(lambda: 5.0, returns={"unit": "m", "datum": b}, name="read_stage")()
        answer = f"The crest is at 12.0 m {b}."
        assert [f.status for f in ledger.audit_answer(answer).findings] == ["unsourced"]
        datums.register_offset(a, b, 2)
        assert [f.status for f in ledger.audit_answer(answer).findings] == ["sourced"]
        assert sorted((c.magnitude, c.datum) for c in ledger.converted_elevations()) == [
            (3.0, a), (12.0, b)]


def test_the_generations_read_without_a_call_are_the_ones_generation_returns():
    from quantity_guard.units import table
    units, held = table.GENERATION, datums.generation()
    assert units == table.generation() and datums.GENERATION is held
    define(_fresh("qgmark"), "3 m")
    assert table.GENERATION == table.generation() > units
    with datums.isolated():
        datums.register(_fresh("QGM").upper(), kind="local", description="a test datum")
        assert datums.GENERATION is datums.generation() and datums.GENERATION is not held
    assert datums.GENERATION is datums.generation() is held
