"""Figures derived in one step: products, ratios, shares and energies, and ranges that bracket
a recorded or derived value.
"""
from __future__ import annotations

import pytest


from quantity_guard.audit.codes import Reason
from audit_helpers import audited, audited_with, ledger_of, status_of


# -- 7. one step of product or ratio ----------------------------------------------------------------------
SUPPLY = (("read_abstraction", 45.0, "ML/d"), ("read_licence", 224.6, "ML/d"),
          ("read_demand", 410.0, "ML/d"), ("days_of_supply", 6.89, "d"))


@pytest.mark.parametrize("answer", [
    "The abstraction is 20.04 % of the licence.",
    "45.0 Ml/d ÷ 224.6 Ml/d = 20.04%",
    "Share: 20.0 % (45 of 224.6 Ml/d)",
    "a ratio of 0.2004",
    r"$\frac{45.0}{224.6} \times 100 = 20.04\%$",
    "Over the 6.89 days of supply the demand totals 2,825 Ml.",
    "410 Ml/d × 6.89 d ≈ 2825 ML",
    "The licence is 4.99 times the abstraction.",
])
def test_shares_and_volumes_are_one_step_products_and_ratios(answer):
    audit = audited(ledger_of(*SUPPLY), answer)
    assert audit.by_status("derived"), audit.findings
    note = audit.by_status("derived")[-1].note
    assert any(op in note for op in ("×", "÷")), note


# a figure that is the magnitude of an output in another unit (the mislabel reading) and also
# the exact product of sound sources is true as written: derived
LICENCE = (("read_licence", 45.0, "Ml/d"), ("abstracted_volume", 1350000.0, "Ml"))


def test_a_true_product_is_derived_even_where_it_reads_as_a_mislabel():
    audit = audited(ledger_of(*LICENCE, context="The volume over 30 days, in Ml?"),
                    "The volume is 1,350,000 m³, which equals 1,350 Ml.")
    assert [f.code for f in audit.findings if f.number.text == "1,350,000 m³"] == \
        [Reason.DERIVED_PRODUCT]


def test_a_mislabel_no_product_explains_stays_mislabelled():
    audit = ledger_of(*LICENCE, context="The volume over 12 days, in Ml?").audit_answer(
        "The volume is 1,350,000 m³.")
    assert status_of(audit, "1,350,000 m³") == "unit_mislabelled"


@pytest.mark.parametrize("answer", [
    "The abstraction is 25.0 % of the licence.",
    "45 Ml/d ÷ 224.6 Ml/d = 20.03 m",        # the right digits in a dimension no ratio has
    "410 Ml/d × 6.89 d ≈ 2825 Ml/d",           # a volume written as a flow
    "a ratio of 0.31",
])
def test_wrong_products_and_ratios_are_flagged(answer):
    assert not ledger_of(*SUPPLY).audit_answer(answer).ok


def test_energy_from_power_and_a_duration_in_the_question():
    ledger = ledger_of(("read_export", 42.0, "MW"),
                       context="The export holds for 6 hours. How much energy is exported?")
    audit = ledger.audit_answer("42 MW × 6 h = 252 MWh")
    assert audit.ok and status_of(audit, "252") == "derived"
    assert ledger.audit_answer("252,000 kWh").ok
    assert not ledger.audit_answer("252 MW").ok


@pytest.mark.parametrize("answer", [
    "It comes to 0.10\u20130.11 mm/day; the computed value is 0.102 mm/day.",
    "between 0.10 and 0.11 mm/d",
    "It is 4.0-4.1 ft.",
    "The share is between 20.0 and 20.1%.",
])
def test_a_range_that_brackets_a_recorded_or_derived_value(answer):
    ledger = ledger_of(("runoff_depth", 0.10214, "mm/d"), ("freeboard", 4.06, "ft"),
                       ("abstraction", 45.0, "ML/d"), ("licence", 224.6, "ML/d"))
    audited_with(ledger, answer, Reason.RANGE_END)


def test_a_wide_or_mislabelled_range_is_not_read_as_a_bracket():
    ledger = ledger_of(("freeboard", 4.06, "ft"), ("flow", 0.85, "m3/s"), ("hof", 0.6, "m3/s"))
    assert not ledger.audit_answer("somewhere between 1 and 9 ft").ok
    assert not ledger.audit_answer("0.60-0.85 cfs").ok
