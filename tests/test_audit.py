"""Reading numbers the way people write them, and classifying them against a ledger."""
from __future__ import annotations

import pytest

from quantity_guard import quantity_tool, session
from quantity_guard.audit import extract_numbers


def nums(text):
    return [(n.value, n.unit.symbol if n.unit else None) for n in extract_numbers(text)]


@pytest.mark.parametrize("text,expected", [
    ("The flow is 1,250 cfs.", [(1250.0, "cfs")]),
    ("about 35.4 m³/s", [(35.4, "m3/s")]),
    ("1250 cubic feet per second", [(1250.0, "ft3/s")]),
    ("5.2 megalitres per day", [(5.2, "ML/d")]),
    ("a change of \u22122.9 ft", [(-2.9, "ft")]),
    ("between 3-5 ft", [(3.0, "ft"), (5.0, "ft")]),
    ("3 to 5 ft", [(3.0, "ft"), (5.0, "ft")]),
    ("it fell 12%", [(12.0, None)]),
    ("1.2e3 m3", [(1200.0, "m3")]),
    ("the crest is 31.0 ft NAVD88", [(31.0, "ft")]),
    ("0.117 mASD", [(0.117, "m")]),
])
def test_numbers_and_units_are_read(text, expected):
    assert nums(text) == expected


@pytest.mark.parametrize("text", [
    "Site 07374000 on 2026-08-20 at 14:15", "In 2025 the gauge moved.", "station E21136",
    "1. First item\n2. Second item", "the 2nd reading", "on 08/20/2026", "USGS 01646500",
    "on August 20", "at 2026-08-20T14:15:00-05:00",
])
def test_non_quantities_are_skipped(text):
    assert nums(text) == []


def test_precision_written_and_words_that_carry_a_sign():
    n, = extract_numbers("a deficit of 2.9 ft")
    assert n.negated and n.value == 2.9 and n.tolerance == 0.05
    assert extract_numbers("17 ft")[0].tolerance == 0.5
    assert extract_numbers("2024 cfs")[0].unit.symbol == "cfs"  # a year only without a unit


@quantity_tool(returns={"unit": "cfs"})
def read_discharge():
    return 1250.0


@quantity_tool(returns={"unit": "ft"})
def read_level(which: str):
    return {"crest": 31.0, "stage": 12.4, "low": -2.9}[which]


@quantity_tool(returns={"unit": "ML"})
def tank():
    return 1350.0


def test_classification():
    with session(context="The crest is at 31.0 ft; what is the freeboard?") as ledger:
        read_discharge()
        read_level("crest")
        read_level("stage")
        tank()
    audit = ledger.audit_answer(
        "Flow is 1,250 cfs (35.4 m3/s). Freeboard 31.0 - 12.4 = 18.6 ft, about 19 ft. "
        "The tank holds 1350 Ml.")
    statuses = [(f.number.text, f.status) for f in audit.findings]
    assert statuses == [("1,250 cfs", "sourced"), ("35.4 m3/s", "sourced"), ("31.0", "sourced"),
                        ("12.4", "sourced"), ("18.6 ft", "derived"), ("19 ft", "derived"),
                        ("1350 Ml", "sourced")]
    assert audit.ok
    bad = ledger.audit_answer("Flow is 1250 m3/s and the tank holds 1.35 Ml; peak 4,200 cfs.")
    assert [f.status for f in bad.findings] == ["unit_mislabelled", "unit_mislabelled", "unsourced"]
    assert not bad.ok
    quoted = ledger.audit_answer("The crest is 31.0 ft.", context="crest 31.0 ft")
    assert quoted.findings[0].status == "sourced"
    assert ledger.audit_answer("the question said 7 ft", context="7 ft of rain").findings[0].status \
        == "quoted"
