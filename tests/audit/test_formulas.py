"""Written-out formulas and chains of steps: operands, results, polyphase relations, precision
of the operands.
"""
from __future__ import annotations

import pytest

from quantity_guard.audit.codes import Skip

from audit_helpers import FLOW, GRID, audited, flow_ledger, ledger_of, status_of


# -- 2. formulas, identities, factors -------------------------------------------------------------
# -- a polyphase system: S = √3 V I, so S / V is not a line current ---------------------------------
def transformer_ledger():
    return ledger_of(("get_rating", 45.0, "MVA"), ("get_voltage", 110.0, "kV"))


@pytest.mark.parametrize("answer", [
    "I = S / (√3 × V) = 42,000,000 / (√3 × 138,000) ≈ 175.7 A",
    "I = 42 MVA / (√3 × 138 kV) = 175.7 A",
    r"$I = \frac{42\,000\,000}{\sqrt{3} \cdot 138\,000} \approx 175.7\ \text{A}$",
    r"I = 42 \times 10^6 / (\sqrt{3} \times 138 \times 10^3) = 175.7 A",
    "I = 42e6 / (sqrt(3) * 138e3) = 175.7 A",
    "Current: 42 MVA ÷ (1.732 × 138 kV) ≈ 175.7 A",
    "**Step 1:** S = 42 MVA = 42 000 000 VA\n**Step 2:** I = S/(√3·V) = 175.7 A",
])
def test_a_written_out_formula_is_read_as_one_derivation(answer):
    audit = audited(ledger_of(*GRID), answer)
    assert status_of(audit, "175.7") == "derived"


def test_a_formula_with_a_wrong_result_is_still_flagged():
    ledger = ledger_of(*GRID)
    for answer in ("I = 42,000,000 / (√3 × 138,000) ≈ 185.7 A",
                   "I = 42 MVA / (√3 × 138 kV) = 304.3 kA"):
        audited(ledger, answer, ok=False)


def test_a_written_chain_of_steps_is_followed_step_by_step():
    ledger = ledger_of(("a", 45.0, "ML"), ("b", 12.0, "ML"), ("c", 20.0, "ML"),
                       ("q", 1250.0, "cfs"))
    for answer in ("45 ML + 12 ML = 57 ML; 57 ML - 20 ML = 37 ML",
                   "45 + 12 = 57, and 57 - 20 = 37", "57 ML - 20 ML = 37,000 m\u00b3"):
        audited(ledger, answer)
    for answer in ("45 + 12 = 57, and 57 - 20 = 36",          # wrong arithmetic
                   "57 ML - 20 ML = 37 m",                      # a dimension the step lacks
                   "58 ML - 20 ML = 38 ML",                     # an intermediate never derived
                   "1250 cfs \u00d7 0.0283 = 35.4 cfs"):       # a bare factor: units unknown
        assert not ledger.audit_answer(answer).ok, answer


def test_three_phase_relations_fix_the_side_of_sqrt3():
    ledger = ledger_of(("get_transformer_rating", 90.0, "MVA"), ("get_bus_voltage", 132.0, "kV"))
    assert ledger.audit_answer("I = S/(\u221a3 V) = 393.6 A").ok
    assert not ledger.audit_answer("I = \u221a3 \u00d7 S / V = 1,180.9 A").ok


def test_a_formula_checks_within_the_precision_of_its_operands():
    ledger = ledger_of(("get_transformer_rating", 90.0, "MVA"), ("get_bus_voltage", 132.0, "kV"))
    audit = audited(ledger, "9.0e7 VA \u00f7 2.3e5 V \u2248 394 A")
    assert [f.status for f in audit.findings] == ["sourced", "operand", "derived"]
    assert not ledger.audit_answer("9.0e7 VA \u00f7 2.0e5 V \u2248 394 A").ok  # 450 A, not 394


@pytest.mark.parametrize("question", [
    "What is the full-load line current of the transformer?",
    "Give the three-phase full-load current.",
    "For this 3-phase unit, what current flows at rated load?",
    "Rated current on the 110 kV line-to-line winding?",
])
def test_a_polyphase_current_without_root3_is_not_derived(question):
    ledger = transformer_ledger()
    for answer in ("I = S / V = 45 MVA / 110 kV = 409.1 A", "The current is 409 A.",
                   "409.09 A"):
        audited(ledger, answer, ok=False, context=question)
    for answer in ("I = S / (√3 V) = 45 MVA / (√3 × 110 kV) = 236.2 A", "The current is 236 A.",
                   "236.19 A"):
        audited(ledger, answer, context=question)


def test_without_a_polyphase_word_both_relations_stand():
    ledger = transformer_ledger()
    for answer in ("The current is 409 A.", "The current is 236 A."):
        assert ledger.audit_answer(answer, context="What current flows at rated load?").ok
    # a three-phase word in the answer itself decides too
    assert not ledger.audit_answer("Three-phase, so the current is 409 A.").ok


def test_a_ratio_of_two_apparent_powers_is_unaffected_by_polyphase():
    ledger = ledger_of(("get_rating", 45.0, "MVA"), ("get_load", 30.0, "MVA"))
    assert ledger.audit_answer("The three-phase transformer is loaded to 66.7 %.").ok


# -- the working in brackets after the result, and one unit written in another ------------------
@pytest.mark.parametrize("answer,ok", [
    ("Daily volume 3,059,000 m³ (35.40 m³/s × 86,400 s)", True),
    ("That is 3.06 million m3 (35.4 m3/s x 86 400 s) a day.", True),
    ("Per hour: 127,440 m3 (35.40 m3/s * 3600 s)", True),
    ("In a day 3.06e6 m3 (1250 cfs × 86,400 s)", True),
    ("| Daily | **3,059,000 m³** (35.40 m³/s × 86,400 s) |", True),
    ("Daily volume 4,000,000 m³ (35.4 m³/s × 86,400 s)", False),   # the arithmetic is wrong
    ("Daily volume 3,058,000 m³ (32.4 m³/s × 86,400 s)", False),   # an operand is wrong
    ("A volume of 5000 L", False),                                   # not one unit, no operator
])
def test_a_bracketed_working_after_its_result(answer, ok):
    audited(ledger_of(*FLOW), answer, ok)


@pytest.mark.parametrize("answer,ok", [
    # a gallon named with its system is read (a bare "gallon" is ambiguous, and is not)
    ("1,250 cfs (about 808 million US gallons a day).", True),
    ("1,250 cfs, or some 673 million imperial gallons per day.", True),
    ("1,250 cfs (about 900 million US gallons a day).", False),
    # one unit defined by a formula: its right side is read, and must hold
    ("1 cfs = 0.0283 m\u00b3/s, so 1,250 cfs is 35.4 m\u00b3/s.", True),
    ("1 cfs = 0.05 m\u00b3/s, so 1,250 cfs is 62.5 m\u00b3/s.", False),
])
def test_gallons_with_their_system_and_units_defined_by_a_formula(answer, ok):
    audited(flow_ledger(), answer, ok)


def test_one_unit_defined_by_a_formula():
    ledger = ledger_of(("licence_rate", 0.5208, "m3/s"),
                       context="The licence allows 45 Ml/d. What share of the flow is that?")
    # the left side is one unit; the right side's figures are a day's seconds and a megalitre
    audit = audited(ledger, "45 Ml/d is 0.5208 m\u00b3/s (1 Ml/d = 1,000 m\u00b3 / 86,400 s).")
    assert any(r.code is Skip.ONE_UNIT_DEFINED for _, r in audit.skipped)
    audit = ledger.audit_answer("45 Ml/d is 0.5208 m\u00b3/s (1 Ml/d = 7,300 m\u00b3 / 86,400 s).")
    assert not audit.ok   # the right side is read: 7,300 m³ is no megalitre


# -- rows of equal terms, and steps that feed one another ----------------------------------------
RATE = (("convert_rate", 0.5208333333, "m3/s"),)


@pytest.mark.parametrize("answer", [
    "45000 ÷ 86400 = 45000/86400 = 450/864 = 225/432 = 75/144 = 25/48 = 0.5208333333...",
    "So 45000/86400 = 25/48 ≈ 0.5208 m³/s is the rate, i.e. 45000/86400 = 25/48 = 0.5208.",
])
def test_a_row_of_equal_terms_ending_in_an_accepted_figure_is_working(answer):
    audited(ledger_of(*RATE), answer)


@pytest.mark.parametrize("answer", [
    "45000/86400 = 450/864 = 225/400 = 0.5208333333",   # a term of another value
    "45000/86400 = 450/864 = 225/432 = 0.5308",          # ends in a figure nobody recorded
])
def test_a_row_with_an_unequal_term_or_no_accepted_figure_is_read(answer):
    assert not ledger_of(*RATE).audit_answer(answer).ok


def test_a_step_whose_result_feeds_an_accepted_step_is_working():
    ledger = ledger_of(("read_period", 2592000.0, "s"), ("abstracted_volume", 1350000.0, "m3"))
    audit = audited(ledger, "2,592,000 ÷ 48 = 54,000\n25 × 54,000 = 1,350,000")
    assert status_of(audit, "48") == "operand"


def test_a_step_that_feeds_no_accepted_step_stays_flagged():
    ledger = ledger_of(("read_period", 2592000.0, "s"), ("abstracted_volume", 1350000.0, "m3"))
    audit = ledger.audit_answer("2,592,000 ÷ 48 = 54,000\n25 × 54,000 = 1,360,000")
    assert status_of(audit, "48") == "unsourced"
