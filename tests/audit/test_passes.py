"""The follow-up passes are functions of the findings: each returns its findings (and skipped
digits) and leaves the ones it was given as they were, whatever it decides."""
from __future__ import annotations

import pytest

from quantity_guard.audit.answer import audit_answer
from quantity_guard.audit.classify import classify
from quantity_guard.audit.context import Context
from quantity_guard.audit.passes import PASSES
from quantity_guard.reading import scan
from audit_helpers import flow_ledger

ANSWERS = [
    # a factor and a formula (explain_in_context), a what-if (hypothetical), a duration
    "Runoff = 1250 cfs x 0.0283168 / 29,940 km2 x 86.4 = 0.102 mm/d. Had the conversion been "
    "skipped it would have given 3.61 mm/d. The gauge reports every 15 min.",
    # odds, a per-period amount, background knowledge, a range
    "Roughly 1 in 93 litres is taken; over a year that is 37.3 mm. Levees typically have 3 ft "
    "of freeboard. The depth is 0.10-0.11 mm/d.",
]


def _ledger():
    return flow_ledger(("abstraction_share", 1.07, "%"))


def _state(findings):
    return [(id(f), f.number.text, f.status, f.code, f.note) for f in findings]


@pytest.mark.parametrize("answer", ANSWERS)
def test_every_pass_leaves_the_findings_it_was_given_unchanged(answer):
    ledger = _ledger()
    reading = scan(answer, True, frozenset())
    ctx = Context(ledger, [], reading)
    findings = [classify(n, ctx) for n in reading.numbers]
    skipped = list(reading.skipped)
    changed = 0
    for p in PASSES:
        before, skipped_before = _state(findings), list(skipped)
        new, new_skipped = p.run(findings, ctx, skipped)
        assert _state(findings) == before, p.name
        assert skipped == skipped_before, p.name
        changed += _state(new) != before or new_skipped != skipped
        findings, skipped = new, new_skipped
    assert changed >= 3  # the answers make several passes decide something


def test_the_passes_run_in_one_ordered_table_with_distinct_names():
    names = [p.name for p in PASSES]
    assert len(set(names)) == len(names)
    assert names[0] == "explain_in_context" and names[-1] == "durations"


def test_an_audit_is_the_classification_followed_by_the_passes():
    ledger = _ledger()
    audit = audit_answer(ledger, ANSWERS[0])
    statuses = {f.number.text: f.status for f in audit.findings}
    assert statuses["0.0283168"] == "factor"
    assert statuses["3.61 mm/d"] == "hypothetical"
    assert "15 min" in dict(audit.skipped)
