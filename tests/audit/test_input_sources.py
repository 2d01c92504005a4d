"""What counts as a source for a tool's input: a recorded output, a conversion, a one-step
derivation, a number of the question (a share in the question sent as a fraction too). Only an
input that traces to nothing makes its call's outputs no source (``tainted``); an argument a
sound call received, written back in the answer, is sourced."""
from __future__ import annotations

import pytest

from quantity_guard import Q, quantity_tool, session
from quantity_guard.audit.codes import Reason
from audit_helpers import statuses

QUESTION = "A pump runs at 75% efficiency on a 40 kW motor. What hydraulic power does it deliver?"


def pump(efficiency, unit="1", question=QUESTION):
    with session(context=question) as ledger:
        quantity_tool(lambda: Q(40, "kW"), returns={"unit": "kW"}, name="read_motor")()
        quantity_tool(lambda power, efficiency: power * efficiency.to("1"),
                      params={"power": {"unit": "kW"}, "efficiency": {"unit": unit}},
                      returns={"unit": "kW"}, name="hydraulic_power")(power=40,
                                                                      efficiency=efficiency)
    return ledger


@pytest.mark.parametrize("efficiency,unit", [(0.75, "1"), (75, "%")])
def test_a_share_in_the_question_is_a_source_as_a_fraction_or_a_percentage(efficiency, unit):
    ledger = pump(efficiency, unit)
    assert not ledger.unsupported_calls()
    audit = ledger.audit_answer("At an efficiency of 0.75 the pump delivers 30 kW.")
    assert statuses(audit) == [("0.75", "quoted"), ("30 kW", "sourced")]
    assert audit.findings[0].code is Reason.QUOTED_AS_SHARE


def test_a_fraction_in_the_question_is_a_source_as_a_percentage():
    ledger = pump(75, "%", question="A pump of efficiency 0.75 on a 40 kW motor: what power?")
    assert not ledger.unsupported_calls()
    assert ledger.audit_answer("75% of 40 kW is 30 kW.").ok


@pytest.mark.parametrize("efficiency", [0.57, 0.7, 7.5])
def test_a_share_the_question_does_not_state_taints_the_call(efficiency):
    ledger = pump(efficiency)
    assert ledger.unsupported_calls()
    audit = ledger.audit_answer(f"The pump delivers {40 * efficiency:g} kW.")
    assert statuses(audit)[0][1] == "tainted"


def discharge_ledger(sent, *, enforcement="strict"):
    with session() as ledger:
        quantity_tool(lambda: Q(1250, "cfs"), returns={"unit": "cfs"}, name="read_discharge")()
        tool = quantity_tool(lambda discharge: discharge * 2,
                             params={"discharge": {"unit": "m3/s"}}, returns={"unit": "m3/s"},
                             name="double", enforcement=enforcement)
        try:
            tool(discharge=sent)
        except Exception:  # noqa: BLE001 - a refused call, recorded
            pass
    return ledger


def test_a_supported_argument_written_back_is_sourced():
    # 1250 cfs converted by hand with a rounded factor: 35.43 m3/s, within 0.1% of 35.396
    ledger = discharge_ledger(35.43)
    audit = ledger.audit_answer("I sent 35.43 m³/s and the result is 70.86 m³/s.")
    assert statuses(audit) == [("35.43 m³/s", "sourced"), ("70.86 m³/s", "sourced")]
    assert audit.findings[0].code is Reason.SOURCED_SUPPORTED_INPUT


def test_an_argument_that_traces_to_nothing_stays_flagged():
    ledger = discharge_ledger(36.0)
    audit = ledger.audit_answer("I sent 36.0 m³/s and the result is 72 m³/s.")
    assert statuses(audit) == [("36.0 m³/s", "unsourced"), ("72 m³/s", "tainted")]


def test_the_argument_of_a_refused_call_written_back_stays_flagged():
    ledger = discharge_ledger(1250)   # the carry-over, refused at the boundary
    assert not ledger.audit_answer("The tool received 1250 m³/s.").ok


def test_a_bare_number_is_not_read_as_an_argument_in_another_unit():
    ledger = discharge_ledger(35.43)
    audit = ledger.audit_answer("Multiply by 35 to go from cubic metres to cubic feet.")
    assert ("35", "sourced") not in statuses(audit)
