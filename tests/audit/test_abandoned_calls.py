"""An answer that gives up on a call the guard refused, when the session recorded everything the
call needed, is not ok (``Audit.abandoned``, code ``abandoned_refusal``); a refusal the answer
could not have repaired, or one it did repair, is not abandoned."""
from __future__ import annotations

import warnings

import pytest

from quantity_guard import GuardViolation, quantity_tool, session
from quantity_guard.audit.codes import Reason

read_discharge = quantity_tool(lambda: 1250.0, returns={"unit": "cfs"}, name="read_discharge")
read_area = quantity_tool(lambda: 29000.0, returns={"unit": "km2"}, name="read_area")


def _no_area():
    raise LookupError("no drainage area for this station")


read_area_unavailable = quantity_tool(_no_area, returns={"unit": "km2"}, name="read_area")


def runoff(enforcement="strict"):
    return quantity_tool(lambda discharge, area: discharge / area * 86.4,
                         params={"discharge": {"unit": "m3/s"}, "area": {"unit": "km2"}},
                         returns={"unit": "mm/d"}, name="runoff_depth", enforcement=enforcement)


def refused(tool, **arguments):
    with pytest.raises(GuardViolation):
        tool(**arguments)


def a_session(*steps):
    with session() as ledger:
        for step in steps:
            step()
    return ledger


def refused_runoff(discharge="result_from_read_discharge"):
    return lambda: refused(runoff(), discharge=discharge, area=29000)


@pytest.mark.parametrize("answer", ["ANSWER: unavailable", "",
                                    "The tool failed, so the depth cannot be computed.",
                                    "The discharge was 1250 cfs over 29,000 km². ANSWER: unavailable"])
@pytest.mark.parametrize("discharge", ["result_from_read_discharge", 1250])
def test_giving_up_on_a_refused_call_the_session_could_repeat_is_not_ok(answer, discharge):
    ledger = a_session(read_discharge, read_area, refused_runoff(discharge))
    audit = ledger.audit_answer(answer)
    assert not audit.ok
    [gap] = audit.abandoned
    assert (gap.tool, gap.code) == ("runoff_depth", Reason.ABANDONED_REFUSAL)
    assert gap.sources == {"discharge": "read_discharge.return", "area": "read_area.return"}
    assert audit.as_dict()["abandoned"][0]["violation"] == gap.violation["code"]
    assert "Send instead" in gap.note


def test_a_refused_call_made_again_is_not_abandoned():
    redo = lambda: runoff()(discharge="1250 cfs", area="29000 km2")  # noqa: E731
    ledger = a_session(read_discharge, read_area, refused_runoff(), redo)
    audit = ledger.audit_answer("ANSWER: 0.105 mm/day")
    assert audit.ok and audit.abandoned == []


def test_a_refusal_of_a_call_whose_inputs_were_never_recorded_is_not_abandoned():
    def area_fails():
        with pytest.raises(LookupError):
            read_area_unavailable()
    ledger = a_session(read_discharge, area_fails, refused_runoff())
    audit = ledger.audit_answer("The drainage area is unavailable. ANSWER: unavailable")
    assert audit.ok and audit.abandoned == []


def test_an_answer_stating_a_figure_of_the_result_is_audited_as_figures_not_abandoned():
    ledger = a_session(read_discharge, read_area, refused_runoff())
    audit = ledger.audit_answer("By hand: 35.4 m³/s / 29,000 km² = 0.105 mm/day")
    assert audit.abandoned == []


def test_a_warn_mode_call_ran_and_is_not_abandoned():
    def warned():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runoff("warn")(discharge=1250, area=29000)
    ledger = a_session(read_discharge, read_area, warned)
    assert ledger.audit_answer("ANSWER: unavailable").abandoned == []


def test_a_proxy_session_knows_what_a_refused_call_needed():
    from quantity_guard.annotations import loads
    from quantity_guard.mcp.policy import QuantityPolicy
    policy = QuantityPolicy(loads(
        '[tools.read_discharge]\nreturns = { unit = "cfs" }\n'
        '[tools.read_area]\nreturns = { unit = "km2" }\n'
        '[tools.runoff_depth]\nreturns = { unit = "mm/d" }\n'
        '[tools.runoff_depth.params]\ndischarge = { unit = "m3/s" }\narea = { unit = "km2" }\n'))
    for name, value in (("read_discharge", 1250), ("read_area", 29000)):
        policy.check_call(name, {})
        policy.label_result(name, {}, {"content": [{"type": "text", "text": str(value)}]})
    assert policy.check_call("runoff_depth", {"discharge": "a result", "area": 29000}).action == \
        "refuse"
    [gap] = policy.ledger.audit_answer("ANSWER: unavailable").abandoned
    assert gap.tool == "runoff_depth"


def test_an_input_the_question_states_counts_as_at_hand():
    with session(context="The runoff depth over the 29,000 km² drainage area?") as ledger:
        read_discharge()
        refused(runoff(), discharge="result_from_read_discharge", area="29000 km2")
    [gap] = ledger.audit_answer("ANSWER: unavailable").abandoned
    assert gap.sources == {"discharge": "read_discharge.return",
                           "area": "the question's 29,000 km²"}
