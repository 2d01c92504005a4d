"""The audit's remembered readings follow the registries: a unit defined, or a datum
registered, after the audit read a phrase is read the next time; a datum forgotten (the end of
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
