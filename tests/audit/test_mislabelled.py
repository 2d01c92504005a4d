"""A unit that contradicts the recorded magnitude is a mislabel; a different dimension never is.
"""
from __future__ import annotations


from audit_helpers import ledger_of


def test_a_different_dimension_is_never_a_mislabel():
    ledger = ledger_of(("tank", 1.35, "ML"), ("read_discharge", 1250.0, "cfs"))
    for answer in ("drawn down over 1 d", "1.35 d", "1250 ft", "1250 km2", "1.35 m"):
        statuses = [f.status for f in ledger.audit_answer(answer).findings]
        assert "unit_mislabelled" not in statuses, (answer, statuses)
    assert ledger.audit_answer("drawn down over 1 d").ok
    # the same dimension with the wrong unit is still a mislabel
    assert ledger.audit_answer("1250 m3/s").findings[0].status == "unit_mislabelled"
    assert ledger.audit_answer("1.35 L").findings[0].status == "unit_mislabelled"
