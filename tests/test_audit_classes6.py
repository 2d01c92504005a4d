"""The answer audit on three more families of numbers that are not measurements (issue 11,
sixth round).

Every phrasing here is written for this file (none is a sentence of a corpus or a held-out set).
Each family is tested on both sides: the correct answer is not flagged, and a wrong figure in
the same phrasing is still flagged.

Families:
- list markers in running text that form a sequence ("choose: (1) a plot, (2) a table");
- counts of discrete things the tools do not measure ("2,310 households", "one of 5
  gauges"), passed over only when no tool returned a plain count;
- figures inside file names and paths ("station_0412_2026-03-14.csv").
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from quantity_guard import datums, quantity_tool, session

sys.path.insert(0, str(Path(__file__).parent))
from audit_helpers import flagged, flow_ledger  # noqa: E402


@pytest.fixture(autouse=True)
def clean_datums():
    with datums.isolated():
        yield


def counting_ledger():
    """A tool that returns a plain count (a dimensionless number), beside a measurement."""
    with session() as ledger:
        quantity_tool(lambda: 2310.0, returns={"unit": "1"}, name="count_households")()
        quantity_tool(lambda: 0.10214476953907817, returns={"unit": "mm/d"},
                      name="runoff_depth")()
    return ledger


ACCEPTED = {
    "list markers in running text": [
        "Depth 0.102 mm/d. I can also send (1) the hydrograph, (2) a CSV or (3) a summary.",
        "Next steps, your call: (1) refresh later, (2) widen the window. Depth 0.102 mm/d.",
        "Depth 0.102 mm/d; options are (2) a chart and (3) an alert, as listed before (1) a "
        "series.",
        "Depth 0.102 mm/d. Plan: 1) check the gauge 2) rerun the depth.",
    ],
    "counts of discrete things": [
        "The catchment serves 2,310 households. Depth 0.102 mm/d.",
        "The basin holds 4812 wells; depth 0.102 mm/d.",
        "This gauge is one of 5 gauges on the river. Depth 0.102 mm/d.",
        "The site is one of 7 NOAA stations in the county; depth 0.102 mm/d.",
        "It is two of the 6 monitoring sites that report hourly. 0.102 mm/d.",
        "Across 12 stations the pattern holds; depth 0.102 mm/d.",
    ],
    "file names and paths": [
        "Wrote river_0412_2026-03-14.csv; depth 0.102 mm/d.",
        "Depth 0.102 mm/d (saved to out/run_17/depth_v3.json).",
        "Attached: basin-7_summary_2026-12.xlsx. Depth 0.102 mm/d.",
        "Depth 0.102 mm/d, logged in logs/2026/11/30.log.",
    ],
}


@pytest.mark.parametrize("answer", [a for v in ACCEPTED.values() for a in v])
def test_non_measurements_are_not_flagged(answer):
    audit = flow_ledger().audit_answer(answer)
    assert audit.ok, (answer, flagged(audit), audit.skipped)


@pytest.mark.parametrize("answer,literal", [
    # a wrong figure in the same sentence as the markers is still read
    ("I can also send (1) the hydrograph, (2) a CSV; the depth is 0.5 mm/d.", "0.5"),
    # a lone bracketed number in running text is no marker of a sequence
    ("The flow (2) is as read; depth 0.102 mm/d.", "2"),
    # a bracketed quantity is never a marker
    ("I can send (1) a plot; flow (1700) then.", "1700"),
    # counts beside a wrong measurement
    ("The catchment serves 2,310 households and the depth is 0.5 mm/d.", "0.5"),
    ("This gauge is one of 5 gauges; the flow is 1,400 cfs.", "1,400"),
    # a grouped number with a unit, or before a non-count word, is still a figure
    ("The flow is 1,400 cubic feet per second; depth 0.102 mm/d.", "1,400"),
    ("The flow was 1,400 at noon; depth 0.102 mm/d.", "1,400"),
    ("The depth is 6,000 times the usual; flow 1,250 cfs.", "6,000"),
    # a file name does not hide the figure written beside it
    ("Wrote river_0412.csv with a depth of 0.5 mm/d.", "0.5"),
    # a path needs a file extension: a ratio written with a slash is still read
    ("The flow is 1700/29940 of the area; depth 0.102 mm/d.", "1700"),
])
def test_the_same_shapes_around_a_claim_stay_flagged(answer, literal):
    audit = flow_ledger().audit_answer(answer)
    assert not audit.ok, answer
    assert any(t.startswith(literal) for t, _ in flagged(audit)), (answer, flagged(audit))


def test_a_count_is_read_when_a_tool_returns_counts():
    # the tool returned 2,310 households: "2,310" is sourced, and a wrong count is a wrong
    # tool figure, flagged (counts are only passed over when no tool returns one)
    ledger = counting_ledger()
    assert ledger.audit_answer("The catchment serves 2,310 households; 0.102 mm/d.").ok
    audit = counting_ledger().audit_answer("The catchment serves 2,450 households; 0.102 mm/d.")
    assert ("2,450", "unsourced") in flagged(audit), flagged(audit)
    audit = counting_ledger().audit_answer("The basin holds 4812 wells; 0.102 mm/d.")
    assert ("4812", "unsourced") in flagged(audit), flagged(audit)


def test_the_skips_say_what_they_are():
    audit = flow_ledger().audit_answer(
        "Wrote river_0412_2026-03-14.csv. The basin serves 2,310 households; pick (1) a plot or "
        "(2) a table. Depth 0.102 mm/d.")
    assert audit.ok, flagged(audit)
    reasons = dict(audit.skipped)
    assert reasons["2,310"].startswith("a count of discrete things"), audit.skipped
    assert reasons["2"] == "a list marker", audit.skipped
    # the file name's digits are not read as numbers at all
    assert not any(n.text.startswith(("0412", "2026")) for n in
                   (f.number for f in audit.findings)), audit.findings
