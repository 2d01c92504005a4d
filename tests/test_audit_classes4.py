"""The answer audit's round-3 readers, generalised from the phrasings they were fixed on to the
class each stands for (issue 11, fourth round).

Phrasings here are new (none is in test_audit_classes3.py or a held-out set); each class is
tested on both sides: the non-measurements it must skip, and the same surface used as a real
measurement, which must stay flagged.

- clock times in any common notation (ISO ``T14:05:00Z``, ``14.05 UTC``, ``1405Z``, ``0930 hrs``,
  ``14 h 05``, ``2 pm``); ISO durations (``PT24H``) carry no reading number;
- versions: dotted triples (``1.2.3``), ``v2``, ``ver. 2.4``, ``rev 7``, ``python 3.11``;
- HTTP status lines: ``HTTP/2 503``, ``Status: 503``, ``status=503``, reason phrases;
- self-rated confidence as a percentage, a fraction (``confidence: 0.9``, ``p ≈ 0.9``) or a
  score (``8/10``, ``4 out of 5``);
- list references: ``#3``, ``(2) above``, ``point (2)``, ``item (b) 2``, ``footnote 3``.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from quantity_guard import datums, quantity_tool, session

sys.path.insert(0, str(Path(__file__).parent))
from audit_helpers import flow_ledger  # noqa: E402


@pytest.fixture(autouse=True)
def clean_datums():
    with datums.isolated():
        yield


def flagged(audit):
    return [(f.number.text, f.status) for f in audit.findings if not audit.ok and
            f.status in ("unsourced", "unit_mislabelled", "tainted", "reversed")]


ACCEPTED = {
    "clock": [
        "Data pulled at 14.05 UTC; 0.102 mm/d.",
        "Reading time 1405Z; 0.102 mm/d.",
        "As of 2:05 pm local, 0.102 mm/d.",
        "As of 2 pm, 0.102 mm/d.",
        "As of 2pm the depth was 0.102 mm/d.",
        "As of 11 a.m. the depth was 0.102 mm/d.",
        "Timestamp T14:05:00Z; 0.102 mm/d.",
        "Observed at 14:05:30.123 UTC: 0.102 mm/d.",
        "Retrieved 09h30 GMT: 0.102 mm/d.",
        "Retrieved at 0930 hrs: 0.102 mm/d.",
        "Retrieved at 14 h 05: 0.102 mm/d.",
        "Time: 14:05 BST. 0.102 mm/d.",
        "Query window PT24H; 0.102 mm/d.",
        "Mean over P1DT12H: 0.102 mm/d.",
    ],
    "version": [
        "Tool v1.2.3 returned 0.102 mm/d.",
        "Using library 1.2.3: 0.102 mm/d.",
        "Release 2026.8 of the service: 0.102 mm/d.",
        "The API (v2) gives 0.102 mm/d.",
        "With python 3.11 the depth is 0.102 mm/d.",
        "quantity-guard 0.4.1 reports 0.102 mm/d.",
        "Built with rev 7 of the tool; 0.102 mm/d.",
        "(API ver. 2.4) 0.102 mm/d.",
        "Schema revision 12 of the feed; 0.102 mm/d.",
    ],
    "http": [
        "HTTP/2 503 from the area service; 0.102 mm/d.",
        "The area lookup got a 429 Too Many Requests; retried; 0.102 mm/d.",
        "status=503 on the first try; 0.102 mm/d.",
        "Status: 503. Then it worked: 0.102 mm/d.",
        "Error code 504 at first; 0.102 mm/d.",
        "First request failed (HTTP 500 Internal Server Error); 0.102 mm/d.",
        "The server responded with status code 503; 0.102 mm/d.",
    ],
    "confidence": [
        "Confidence level: 90%. 0.102 mm/d.",
        "Certainty ~ 95 %. 0.102 mm/d.",
        "My confidence: 0.9. 0.102 mm/d.",
        "Probability this is right: 0.95. 0.102 mm/d.",
        "0.102 mm/d (confidence 8/10).",
        "0.102 mm/d. I'd put 90% odds on it.",
        "0.102 mm/d (p \u2248 0.9 that this is right).",
        "0.102 mm/d. Confidence 4 out of 5.",
        "0.102 mm/d. Certainty: 7/10.",
    ],
    "list reference": [
        "As in #3 above, 0.102 mm/d.",
        "See item (b) 2: 0.102 mm/d.",
        "From step #2, 0.102 mm/d.",
        "Per (2) above, 0.102 mm/d.",
        "As in point (2), 0.102 mm/d.",
        "Per footnote 3, 0.102 mm/d.",
        "Entry no. 5: 0.102 mm/d.",
        "See the 2nd point: 0.102 mm/d.",
        "Q2: 0.102 mm/d.",
    ],
}


@pytest.mark.parametrize("answer", [a for v in ACCEPTED.values() for a in v])
def test_general_non_measurements_are_not_flagged(answer):
    audit = flow_ledger().audit_answer(answer)
    assert audit.ok, (answer, flagged(audit), audit.skipped)


@pytest.mark.parametrize("answer,literal", [
    # the same surfaces beside a wrong figure: the figure is still read
    ("Data pulled at 14.05 UTC; 0.5 mm/d.", "0.5"),
    ("Tool v1.2.3 returned 3.6 mm/d.", "3.6"),
    ("Status: 503. The depth is 0.5 mm/d.", "0.5"),
    ("My confidence: high. The runoff ratio is 0.5.", "0.5"),
    ("I'm confident the depth is 0.5 mm/d.", "0.5"),
    ("Per (2) above, the depth is 0.5 mm/d.", "0.5"),
    # the same notations as real measurements no tool returned
    ("The depth of water is 3.5 m.", "3.5"),
    ("The flow was 14.05 m³/s.", "14.05"),           # a decimal with a unit, not 14:05
    ("The flow was 1405 cfs.", "1405"),               # four figures, no zone after them
    ("The ratio is 0.9 of the mean.", "0.9"),         # a fraction with no confidence word
    ("It rose (2 m) above the mark.", "2"),          # a bracketed figure with a unit
    ("The area service returned 503 km².", "503"),  # a three-figure number with a unit
    ("The flow, 2 pm³/s, is tiny.", "2"),             # not a clock time: a unit follows
])
def test_the_same_surfaces_as_measurements_stay_flagged(answer, literal):
    audit = flow_ledger().audit_answer(answer)
    assert not audit.ok, answer
    assert any(t.startswith(literal) for t, _ in flagged(audit)), (answer, flagged(audit))


def travel_ledger():
    with session() as ledger:
        quantity_tool(lambda: 2.5, returns={"unit": "h"}, name="travel_time")()
    return ledger


@pytest.mark.parametrize("answer,ok", [
    ("The wave arrives in 2.5 h; the data were pulled at 14 h 05.", True),
    ("The travel time is 14 h.", False),              # a duration when a tool returns times
    ("The travel time is 14 h 05 min.", False),       # a duration, not a clock time
    ("The travel time is 2 h 30 min.", False),
    ("The travel time is 2.5 h (pulled 1405Z).", True),
])
def test_clock_times_and_durations_when_a_tool_returns_times(answer, ok):
    audit = travel_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])


def test_skip_reasons_name_the_class():
    reasons = {r for _, r in flow_ledger().audit_answer(
        "Confidence 8/10. Per (2) above, v1.2.3, Status: 503, at 1405Z: 0.102 mm/d.").skipped}
    text = " ".join(reasons)
    for word in ("confidence", "list reference", "HTTP", "time"):
        assert word in text, (word, reasons)


@pytest.mark.parametrize("answer,ok", [
    # an answer written with decimal commas groups its thousands with a dot, where the dot
    # cannot be a decimal point
    ("Abfluss 1.250,0 cfs; Tiefe 0,10 mm/d.", True),    # "1.250,0" alone says the convention
    ("Fl\u00e4che 2.994.000 ha; Tiefe 0,102 mm/d.", True),
    # a single dot group stays a decimal point beside a point decimal: answers mixing the
    # conventions write "0.250 m" beside "0,25 m"; round 5 (audit5): in an answer with no
    # point decimal at all, "29.940 km²" is read as 29 940 (it was a known limit here)
    ("The level is 0.102 mm/d. Tiefe : 0,102 mm/d.", True),
    ("Fl\u00e4che 29.940 km\u00b2; Tiefe 0,102 mm/d.", True),
    ("Fl\u00e4che 29.940 km\u00b2; Tiefe 0,102 mm/d; the depth is 0.102 mm/d.", False),
    ("D\u00e9bit 1.250,0 cfs, soit 35,396 m\u00b3/s.", True),
    # the same convention with a wrong figure, or a dot that cannot be a thousands group
    ("Abfluss 2.500 cfs = 35,40 m\u00b3/s.", False),
    ("Fl\u00e4che 29.94 km\u00b2; Tiefe 0,102 mm/d.", False),  # 29.94 is not 29 940
    ("Tiefe 0,5 mm/d.", False),
    # an English answer keeps its dot as a decimal point
    ("The flow is 1,250 cfs; a share of 1.250 is not recorded.", False),
])
def test_continental_number_conventions(answer, ok):
    audit = flow_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])


@pytest.mark.parametrize("answer,ok", [
    # an amount per period, the period written in any of several ways
    ("35.4 m\u00b3/s; about 3,058,000 m\u00b3 pass the gauge per 24 hours.", True),
    ("35.4 m\u00b3/s; a daily volume of about 3.06 million m\u00b3.", True),
    ("35.4 m\u00b3/s; every 24 h some 3.06 million m\u00b3 pass.", True),
    ("35.4 m\u00b3/s; each hour about 127,000 m\u00b3 pass.", True),
    ("0.102 mm/d; per annum about 37 mm.", True),
    ("0.102 mm/d; about 0.7 mm weekly.", True),
    ("0.102 mm/d; some 3 mm in 30 days.", True),
    ("0.102 mm/d; per fortnight 1.4 mm.", True),
    ("0.102 mm/d; in one week, 0.72 mm.", True),
    # the same shapes with the wrong amount, or an amount with no period
    ("0.102 mm/d; about 2 mm weekly.", False),
    ("35.4 m\u00b3/s; every 24 h some 9 million m\u00b3 pass.", False),
    ("0.102 mm/d; per fortnight 3 mm.", False),
    ("0.102 mm/d; some 3 mm in all.", False),
    ("35.4 m\u00b3/s; a daily volume of about 3.06 million m\u00b3 per hour.", False),
])
def test_amounts_per_period_in_other_words(answer, ok):
    audit = flow_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])


@pytest.mark.parametrize("answer,ok", [
    # a margin of error in words, a sample count
    ("0.102 mm/d, uncertainty about 5%.", True),
    ("0.102 mm/d with an error margin of 10%.", True),
    ("0.102 mm/d (give or take 5%).", True),
    ("0.102 mm/d, accurate to within 5%.", True),
    ("0.102 mm/d (tolerance 2%).", True),
    ("0.102 mm/d, n=96.", True),
    ("0.102 mm/d (n = 96 samples).", True),
    ("The runoff ratio is 5%.", False),                  # a share with no margin word
    ("0.102 mm/d; the flow was n = 96 cfs.", False),    # a unit after it: a measurement
    # what-ifs with no would/could: a contraction, "suppose", a scenario; word factors
    ("0.102 mm/d. Were the flow double, it'd be about 0.204 mm/d.", True),
    ("0.102 mm/d. Suppose the flow halved: about 0.051 mm/d.", True),
    ("0.102 mm/d. In a scenario with twice the flow: 0.204 mm/d.", True),
    ("0.102 mm/d. Hypothetically, at three times the flow, 0.31 mm/d.", False),  # no factor read
    ("0.102 mm/d. Suppose the flow halved: about 0.09 mm/d.", False),
    ("0.102 mm/d. Were the flow double, it'd be about 0.5 mm/d.", False),
    ("Suppose the flow halved: about 0.051 mm/d.", False),  # no actual figure stated
])
def test_margins_counts_and_what_ifs_in_other_words(answer, ok):
    audit = flow_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])
