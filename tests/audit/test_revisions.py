"""Second readings of flagged figures (``quantity_guard.audit.revisions.REVISIONS``): working the
answer revises itself, and a recorded output rounded twice. Each rule with answers it accepts
and near ones it must not."""
from __future__ import annotations

import warnings

import pytest

from quantity_guard import quantity_tool, session
from quantity_guard.audit.codes import Reason
from quantity_guard.audit.revisions import REVISIONS, rounded_twice
from audit_helpers import audited, audited_with, ledger_of


def energy_ledger():
    return ledger_of(("energy_delivered", 23.4, "MWh"))


def runoff_ledger():
    return ledger_of(("runoff_depth", 0.10545566896551724, "mm/d"))


def test_the_rules_are_a_table_of_named_codes():
    assert [code for code, _, _ in REVISIONS] == ["revised_working", "supposition",
                                                  "final_answer", "double_rounding"]


@pytest.mark.parametrize("answer", [
    "Energy delivered: 23.4 J, or 6.5e-9 MWh. Wait, let me recalculate this more carefully. "
    "The tool returns MWh, so ANSWER: 23.4 MWh",
    "That is 23.4 Wh = 0.0000234 MWh. That seems too small. The function returned 23.4 MWh. "
    "ANSWER: 23.4 MWh",
    "So 23,400 MWh. Actually, let me reconsider: the result is already in MWh, 23.4 MWh.",
])
def test_working_the_answer_revises_is_given_up(answer):
    audited_with(energy_ledger(), answer, Reason.REVISED_WORKING)


@pytest.mark.parametrize("answer", [
    # no revision: the wrong unit stands
    "Energy delivered: 23.4 J, so ANSWER: 23.4 MWh",
    # a revision, but nothing accepted follows it
    "Energy delivered: 23.4 J. Wait, let me recalculate this. I cannot be sure.",
    # the revision comes before the figure: it revises nothing after it
    "Wait, let me recalculate. ANSWER: 23.4 kWh",
    # the figure after the revision is wrong too
    "It is 23.4 J. Actually, let me reconsider: 2.34 MWh.",
])
def test_a_figure_no_revision_gives_up_stays_flagged(answer):
    assert not energy_ledger().audit_answer(answer).ok


@pytest.mark.parametrize("answer", ["ANSWER: 0.106 mm/day", "about 0.1055 mm/d, i.e. 0.106 mm/d"])
def test_an_outputrounded_twice_is_sourced(answer):
    audit = audited(runoff_ledger(), answer)
    assert audit.findings[-1].code is Reason.SOURCED_ROUNDED_TWICE


@pytest.mark.parametrize("answer", ["ANSWER: 0.107 mm/day", "ANSWER: 0.1056 mm/day",
                                    "ANSWER: 0.104 mm/day"])
def test_a_figure_no_double_rounding_reaches_stays_flagged(answer):
    assert not runoff_ledger().audit_answer(answer).ok


@pytest.mark.parametrize("x,written,tol,ok", [
    (0.105456, 0.106, 0.0005, True),    # 0.1055 -> 0.106
    (0.105449, 0.106, 0.0005, False),   # 0.1054 -> 0.105
    (2.449, 2.5, 0.05, True),           # 2.45 -> 2.5
    (2.444, 2.5, 0.05, False),
    (1249.6, 1250, 0.5, True),          # within the place written: once is enough
    (393.648, 400, 50, True),           # 390 -> 400
])
def testrounded_twice_is_exactly_that_path(x, written, tol, ok):
    assert rounded_twice(x, written, tol) is ok


def volume_ledger():
    return ledger_of(("abstracted_volume", 1350.0, "Ml"))


@pytest.mark.parametrize("answer", [
    "The tool returned 1350. If it's in m³, then 1350 m³ = 1.35 Ml. ANSWER: 1350 Ml",
    "If this is in thousands of m³, then it's 1.35 Ml. The tool says Ml: ANSWER: 1350 Ml",
    "If the result were in litres, it would be 1.35 Ml; the tool returns Ml, so 1350 Ml.",
])
def test_the_consequence_of_a_supposed_unit_is_hypothetical(answer):
    audited_with(volume_ledger(), answer, Reason.HYPOTHETICAL)


@pytest.mark.parametrize("answer", [
    "It's in m³, so 1350 m³ = 1.35 Ml. ANSWER: 1350 Ml",         # stated, not supposed
    "If it's in m³, then 1350 m³ = 1.35 Ml.",                     # nothing else is claimed
    "If it's in Ml, then fine. The volume is 1.35 Ml. ANSWER: 1350 Ml",  # outside the clause
])
def test_a_figure_no_supposition_holds_stays_flagged(answer):
    assert not volume_ledger().audit_answer(answer).ok


def run_warned(tool, **arguments):
    """``tool`` called in warn mode, its warning silenced: it runs on what it was sent."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tool(**arguments)


def tainted_volume_ledger():
    """The licence read 45 Ml/d; abstracted_volume ran on that 45 carried unconverted into its
    m3/s rate (warn mode): 116.64 Ml, tainted. The right volume is 1350 Ml."""
    licence = quantity_tool(lambda: 45.0, returns={"unit": "Ml/d"}, name="read_licence")
    tool = quantity_tool(lambda rate, duration: rate * duration / 1000.0,
                         params={"rate": {"unit": "m3/s"}, "duration": {"unit": "s"}},
                         returns={"unit": "Ml"}, name="abstracted_volume", enforcement="warn")
    with session(context="The licensed volume over 30 days, in Ml?") as ledger:
        licence()
        run_warned(tool, rate=45, duration=2592000)
    return ledger


@pytest.mark.parametrize("answer", [
    "The volume is approximately 1350 m³, which equals 1.35 Ml.\n\nANSWER: 1350 Ml",
    "The tool gave 1350 m³ = 1.35 Ml, which seems odd.\n**Final answer:** 1,350 Ml",
    "1350 m³ in SI units.\n> Answer: 1350 megalitres",
])
def test_an_output_the_final_answer_line_states_aright_supersedes_its_misstatement(answer):
    audited_with(volume_ledger(), answer, Reason.SUPERSEDED)


def test_a_refused_calls_output_the_final_answer_does_not_carry_is_superseded():
    answer = ("The tool returned 116.64 Ml, far too large: 45 Ml/d x 30 d = 1350 Ml."
              "\nANSWER: 1350 Ml")
    audit = audited(tainted_volume_ledger(), answer)
    assert [f.number.text for f in audit.findings if f.code is Reason.SUPERSEDED] == ["116.64 Ml"]


@pytest.mark.parametrize("answer", [
    # no final-answer line of its own: the misstatement stands
    "The volume is 1350 m³, which equals 1.35 Ml, so the answer is 1350 Ml",
    "It's in m³, so 1350 m³ = 1.35 Ml. ANSWER: 1350 Ml",
    # the final line states the misstatement
    "The result is 1350 Ml.\nANSWER: 1350 m³",
    # the final line states no accepted figure of that dimension
    "The volume is 1350 m³.\nANSWER: unavailable",
    "The volume is 1350 m³.\nANSWER: 30 days",
    # the misstatement comes after the final line
    "ANSWER: 1350 Ml\nNote: that is 1350 m³.",
])
def test_a_misstatement_no_final_answer_line_states_aright_stays_flagged(answer):
    assert not volume_ledger().audit_answer(answer).ok


def test_a_refused_calls_output_the_final_answer_carries_stays_flagged():
    audit = tainted_volume_ledger().audit_answer("The tool returned 116.64 Ml.\nANSWER: 116.64 Ml")
    assert not audit.ok


def share_ledger():
    return ledger_of(("read_licence", 45.0, "Ml/d"), ("read_flow", 2.6, "m3/s"))


@pytest.mark.parametrize("answer", [
    "The share is 20.03%. If we divide the tool's 1730.77 by 100, we get 17.31%, which is off.",
    "If I convert it differently, I'd get 17.31%; the share is 20.03%.",
])
def test_the_consequence_of_a_supposed_operation_is_hypothetical(answer):
    audit = share_ledger().audit_answer(answer)
    assert [f.code for f in audit.findings if f.number.text == "17.31%"] == [Reason.HYPOTHETICAL]


@pytest.mark.parametrize("answer", [
    "If we divide by 100, we get 17.31%.",                     # nothing else is claimed
    "We divide by 100 and get 17.31%; the share is 20.03%.",   # stated, not supposed
])
def test_a_figure_no_supposed_operation_holds_stays_flagged(answer):
    assert not share_ledger().audit_answer(answer).ok


def tainted_share_ledger():
    """abstraction_fraction ran on 45 (Ml/d) carried unconverted into an m3/s parameter."""
    tool = quantity_tool(lambda abstraction, flow: abstraction / flow,
                         params={"abstraction": {"unit": "m3/s"}, "flow": {"unit": "m3/s"}},
                         returns={"unit": "%"}, name="abstraction_fraction", enforcement="warn")
    ledger = share_ledger()
    with ledger.bind():
        run_warned(tool, abstraction=45, flow=2.6)
    return ledger


def test_a_refused_calls_share_the_final_line_does_not_carry_is_superseded():
    audit = audited(tainted_share_ledger(),
                    "The tool returned 1730.77 %, which cannot be right.\nANSWER: 20.03 %")
    assert [f.code for f in audit.findings if f.number.text == "1730.77 %"] == \
        [Reason.SUPERSEDED]


def test_a_refused_calls_share_the_final_line_carries_stays_flagged():
    audit = tainted_share_ledger().audit_answer("The tool returned 1730.77 %.\nANSWER: 1730.77 %")
    assert not audit.ok
