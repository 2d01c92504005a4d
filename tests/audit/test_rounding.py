"""Roundings: what a figure written to a precision covers, flat one-figure numbers, and a
separate figure stated flat beside a precise one.
"""
from __future__ import annotations

import pytest

from quantity_guard import quantity_tool, session
from quantity_guard.audit.codes import Reason
from audit_helpers import FLOW, audited, discharge_of, ledger_of


# -- 1. a discarded attempt -------------------------------------------------------------------
# -- 3. a one-significant-figure rounding -------------------------------------------------------
def one_ledger(value, unit, name="compute"):
    return ledger_of((name, value, unit))


def two_outputs():
    # crest - water = 4.06 ft, computed by hand
    return ledger_of(("water_surface", 27.5, "ft"), ("levee_crest", 31.56, "ft"))


# -- 6. tolerance of one-significant-figure numbers ----------------------------------------------------
def test_a_round_number_does_not_accept_a_value_a_quarter_away():
    ledger = ledger_of(*FLOW)
    for answer in ("1000 cfs", "about 1,000 cfs", "1 thousand cfs", "roughly 1e3 cfs", "0.04 m³/s",
                   "30 m³/s"):
        assert not ledger.audit_answer(answer).ok, answer
    for answer in ("1,250 cfs", "1.25 thousand cfs", "about 1,250 cfs", "1.3e3 cfs", "35 m³/s",
                   "35.4 m³/s"):
        assert ledger.audit_answer(answer).ok, answer


def test_one_significant_figure_still_covers_its_own_rounding():
    ledger = ledger_of(("read_depth", 2.04, "m"), ("read_flow", 0.0098, "m3/s"))
    for answer in ("2 m", "0.01 m3/s", "10 L/s", "about 2 metres"):
        assert ledger.audit_answer(answer).ok, answer
    assert not ledger.audit_answer("3 m").ok


# -- a round whole number stated flat is not a one-significant-figure rounding -------------------
@pytest.mark.parametrize("answer,ok", [
    ("The current is about 400 A.", True),
    ("I ≈ 400 A", True),
    ("roughly 400 amperes", True),
    ("~400 A at full load", True),
    ("The current is 393.6 A, within the 400 A rating.", False),
    ("Full-load current: 400 A.", True),   # alone: a one-figure rounding
    ("It is 380 A.", False),   # two figures: 375..385 does not cover 393.6
    ("It is 390 A.", True),    # two figures: 385..395 covers 393.6
])
def test_a_flat_round_number_is_not_a_coarse_rounding(answer, ok):
    audited(one_ledger(393.6, "A", "full_load_current"), answer, ok)


@pytest.mark.parametrize("value,unit,answer", [
    (393.6, "A", "The full-load current is 400 A."),
    (393.6, "A", "FINAL ANSWER: 400 A"),
    (393.6, "A", "I = 400 A"),
    (0.38, "m", "The margin is 0.4 m."),
    (0.38, "m", "FINAL ANSWER: 0.4 m"),
    (0.102, "mm/d", "Runoff: 0.1 mm/d"),
    (5.3, "d", "The storage lasts 5 days."),
    (20.03, "%", "It takes 20% of the flow."),
    (8.4, "MW", "Load is 8 MW."),
    (393.6, "A", "393.6 A (400 A)"),                 # a restatement in brackets
    (393.6, "A", "393.6 A, or about 400 A"),
    (393.6, "A", "393.6 A, i.e. 400 A"),
    (393.6, "A", "I estimate 390-400 A (point value 394 A)."),   # a range end
    # the precise figure and its rounding said again (not named as a rating or limit)
    (4.06, "ft", "The freeboard is 4.060 ft. That leaves 4 ft."),
    (4.06, "ft", "Freeboard 4.06 ft. In round numbers: 4 ft of freeboard."),
    (1.0717, "%", "It would take 1.072% of the river. Call it 1% of the river."),
    (8.4, "MW", "8.4 MW on a 8 MW feeder"),
])
def test_a_flat_one_figure_rounding_is_accepted(value, unit, answer):
    audited(one_ledger(value, unit), answer)


@pytest.mark.parametrize("value,unit,answer", [
    (1250.0, "cfs", "The discharge is 1000 cfs."),      # 20% off: the cap holds
    (1250.0, "cfs", "about 1000 cfs"),
    (234000.0, "cfs", "Discharge: 200000 cfs"),
    (0.38, "m", "The margin is 0.3 m."),
    (393.6, "A", "The current is 300 A."),
    (393.6, "A", "The full-load current is 393.6 A, within the 400 A rating."),  # beside it
    (393.6, "A", "I = 393.6 A. The bushings are rated 400 A."),
    (0.38, "m", "The margin is 0.38 m against a 0.4 m allowance."),
    (8.4, "MW", "8.4 MW against an 8 MW limit"),
    (8.4, "MW", "The load is 8.4 MW; the feeder is rated 8 MW."),
])
def test_a_one_figure_number_that_is_no_rounding_is_flagged(value, unit, answer):
    audited(one_ledger(value, unit), answer, ok=False)


@pytest.mark.parametrize("answer,ok", [
    ("The freeboard is about 4 ft.", True),      # a hedged rounding of a derivation
    ("Freeboard ≈ 4 ft", True),
    ("The freeboard is 4.06 ft.", True),
    ("The freeboard is 4.1 ft.", True),
    ("The freeboard is 4 ft.", False),           # flat: a derivation is read to its next place
    ("The crest is 30 ft.", True),               # flat, but the rounding of a recorded output
    ("The crest is 40 ft.", False),
])
def test_a_flat_one_figure_derivation_is_read_to_its_next_place(answer, ok):
    audited(two_outputs(), answer, ok)


def test_a_separate_flat_figure_says_why():
    audit = one_ledger(393.6, "A").audit_answer("393.6 A, within the 400 A rating.")
    f = [f for f in audit.findings if f.status == "unsourced"][0]
    assert f.number.text == "400 A" and "393.6 A" in f.note
    assert f.code is Reason.FLAT_NOT_ROUNDING


def test_a_flat_figure_that_is_recorded_itself_stays_sourced():
    ledger = ledger_of(("full_load_current", 393.6, "A"), ("get_bushing_rating", 400.0, "A"))
    assert ledger.audit_answer("393.6 A, within the 400 A rating.").ok


def test_a_conversion_with_a_rounded_factor_is_supported():
    # 1250 x 0.0283 = 35.375 m3/s (0.06% from 35.396): a rounded factor, not a slip
    tool = quantity_tool(lambda discharge: discharge.to("m3/s").magnitude * 2.0,
                         params={"discharge": {"unit": "m3/s"}}, returns={"unit": "m3/s"},
                         name="double_it")
    with session() as ledger:
        discharge_of()
        out = tool(discharge={"value": 35.375, "unit": "m3/s"})
    assert not ledger.unsupported_calls()
    assert ledger.audit_answer(f"{out.magnitude:.2f} m3/s").ok
