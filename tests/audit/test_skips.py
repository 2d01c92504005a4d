"""What is not a measurement: the ordered rules of ``reading.skips.SKIP_RULES``, each seen
skipping a number (with its code) and reading a near one it must not skip."""
from __future__ import annotations

import pytest

from quantity_guard import quantity_tool, session
from quantity_guard.audit.codes import Skip
from quantity_guard.reading.skips import SKIP_RULES, STAGES


@pytest.fixture(scope="module")
def ledger():
    with session() as ledger:
        quantity_tool(lambda: 1250.0, returns={"unit": "cfs"}, name="read_discharge")()
    return ledger


def _skipped(audit):
    return {text: reason.code for text, reason in audit.skipped}


def _read(audit):
    return {f.number.text for f in audit.findings}


CASES = [
    # (rule, answer, the number it skips, code, a near answer, the number read there)
    ("uncertainty", "The flow is 1250 cfs \u00b1 12 cfs.", "12", Skip.UNCERTAINTY,
     "The flow is 1250 cfs - 12 cfs.", "12 cfs"),
    ("citation_bracketed", "As reported [3], the flow is 1250 cfs.", "3",
     Skip.CITATION_BRACKETED, "The flow of 1250 cfs (2) is high.", "2"),
    ("citation_named", "The flow of 1250 cfs (ref. 2) is high.", "2", Skip.CITATION_NAMED,
     "The flow of 1250 cfs (also 2) is high.", "2"),
    ("code_and_number", "Road RRL 12 ran at 1250 cfs.", "12", Skip.CODE_AND_NUMBER,
     "Road rrl 12 ran at 1250 cfs.", "12"),
    ("section_reference", "Per \u00a74 the flow is 1250 cfs.", "4", Skip.SECTION_REFERENCE,
     "Per 4 the flow is 1250 cfs.", "4"),
    ("money", "It cost \u00a345 at 1250 cfs.", "45", Skip.MONEY,
     "It cost 45 at 1250 cfs.", "45"),
    ("money", "It cost 45 USD at 1250 cfs.", "45", Skip.MONEY,
     "It cost 45 at 1250 cfs.", "45"),
    ("uncertainty_in_words", "With a margin of error of 5% the flow is 1250 cfs.", "5%",
     Skip.UNCERTAINTY_IN_WORDS, "With a share of 5% the flow is 1250 cfs.", "5%"),
    ("probability", "The flow is 1250 cfs with 95% confidence.", "95%", Skip.PROBABILITY,
     "The flow is 1250 cfs, 95% of the mean.", "95%"),
    ("probability_out_of_ten", "The flow is 1250 cfs, 9/10 confidence.", "9",
     Skip.PROBABILITY_OUT_OF_TEN, "The flow is 1250 cfs, 9/13 confidence.", "9"),
    ("confidence_score", "Confidence: 0.9. The flow is 1250 cfs.", "0.9",
     Skip.CONFIDENCE_SCORE, "Ratio: 0.9. The flow is 1250 cfs.", "0.9"),
    ("list_reference", "As in (2) above, the flow is 1250 cfs.", "2", Skip.LIST_REFERENCE,
     "The flow of 1250 cfs (2) is high.", "2"),
    ("period", "The flow was 1250 cfs over the last 7 days.", "7", Skip.PERIOD,
     "The flow was 1250 cfs, the last 7 m.", "7 m"),
    ("not_a_small_whole", "After 3 tool calls the flow is 1250 cfs.", "3", Skip.COUNT,
     "After 3.5 tool calls the flow is 1250 cfs.", "3.5"),
    ("adjective", "A 7-day mean of 1250 cfs.", "7", Skip.INTERVAL_ADJECTIVE,
     "A 3-cfs check at 1250 cfs.", "3"),
    ("adjective", "A 3-phase check at 1250 cfs.", "3", Skip.COMPOUND_ADJECTIVE,
     "A 3-cfs check at 1250 cfs.", "3"),
    ("precision", "Rounded to 2 d.p. the flow is 1250 cfs.", "2", Skip.PRECISION,
     "Rounded to 2 the flow is 1250 cfs.", "2"),
    ("work_or_position", "Calls used: 3. The flow is 1250 cfs.", "3", Skip.COUNT_OF_WORK,
     "Flows used: 3. The flow is 1250 cfs.", "3"),
    ("work_or_position", "Trust 4/5. The flow is 1250 cfs.", "4", Skip.SELF_SCORE,
     "Flows used: 3. The flow is 1250 cfs.", "3"),
    ("http_status", "The server returned 503 then 1250 cfs.", "503", Skip.HTTP_STATUS,
     "The server returned 603 then 1250 cfs.", "603"),
    ("n_equals", "With n = 96 the flow is 1250 cfs.", "96", Skip.COUNT_N_EQUALS,
     "With 96 the flow is 1250 cfs.", "96"),
    ("of_them", "Of the gauges, 2 of them read 1250 cfs.", "2", Skip.COUNT_OF_THEM,
     "After 3 the flow is 1250 cfs.", "3"),
    ("count", "After 3 tool calls the flow is 1250 cfs.", "3", Skip.COUNT,
     "The flow is 1250 cfs, 35 times too large.", "35"),
    ("count_of_things", "The outage hit 1,240 customers at 1250 cfs.", "1,240",
     Skip.COUNT_OF_THINGS, "The outage hit 1,240 at 1250 cfs.", "1,240"),
    ("one_unit_defined", "As 1 cfs = 86400 ft3 / 86400 s, the flow is 1250 cfs.", "1",
     Skip.ONE_UNIT_DEFINED, "As 1 cfs = 86400 ft3, the flow is 1250 cfs.", "1 cfs"),
    ("distance_to_place", "At 150 m below the bridge the flow is 1250 cfs.", "150",
     Skip.DISTANCE_TO_PLACE, "At 150 m below the bridge soffit the flow is 1250 cfs.", "150 m"),
    ("per_unit_base", "On a 100 MVA base the flow is 1250 cfs.", "100", Skip.PER_UNIT_BASE,
     "The 100 MVA feeder is the base case; the flow is 1250 cfs.", "100 MVA"),
    ("precision_to", "Given to the nearest 10 cfs, the flow is 1250 cfs.", "10", Skip.PRECISION_TO,
     "Given the nearest 10 cfs, the flow is 1250 cfs.", "10 cfs"),
    ("list_marker", "Steps:\n1. Read the gauge.\n2. The flow is 1250 cfs.", "1", Skip.LIST_MARKER,
     "Steps: read 1. The flow is 1250 cfs.", "1"),
    ("year", "In 2024 the flow was 1250 cfs.", "2024", Skip.YEAR,
     "In 2024 m of reach the flow was 1250 cfs.", "2024 m"),
    ("day_of_month", "On 3 March the flow was 1250 cfs.", "3", Skip.DAY_OF_MONTH,
     "On 3 the flow was 1250 cfs.", "3"),
    ("constant_root", "With \u221a3 the flow is 1250 cfs.", "3", Skip.CONSTANT_ROOT,
     "With 3 the flow is 1250 cfs, a root.", "3"),
    ("ordinal", "The 2nd reading gave 1250 cfs.", "2", Skip.ORDINAL,
     "The 2 readings gave 1250 cfs, then 2m.", "2m"),
    ("code_string", 'The record {"site": "7374"} gave 1250 cfs.', "7374", Skip.CODE_STRING,
     "The record {site: 7374} gave 1250 cfs.", "7374"),
    ("digits_into_letters", "Pump 5a gave 1250 cfs.", "5a", Skip.DIGITS_INTO_LETTERS,
     "Pump 5 gave 1250 cfs.", "5"),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[3].name}" for c in CASES])
def test_a_rule_skips_its_number_and_reads_the_near_one(ledger, case):
    rule, answer, text, code, near, near_text = case
    audit = ledger.audit_answer(answer)
    assert _skipped(audit).get(text) is code, audit.skipped
    assert code in next(r for r in SKIP_RULES if r.name == rule).codes or \
        rule == "not_a_small_whole"
    near_audit = ledger.audit_answer(near)
    assert near_text in _read(near_audit), (near_audit.findings, near_audit.skipped)
    assert near_text not in _skipped(near_audit)


def test_every_skip_rule_is_named_once_and_tested():
    names = [r.name for r in SKIP_RULES]
    assert len(set(names)) == len(names)
    assert set(names) == {c[0] for c in CASES}


def test_the_rules_are_listed_stage_by_stage_in_the_order_the_stages_are_tried():
    stages = [r.stage for r in SKIP_RULES]
    assert set(stages) == set(STAGES)
    assert stages == sorted(stages, key=STAGES.index)


def test_a_skipped_reason_is_its_sentence_and_carries_its_code(ledger):
    audit = ledger.audit_answer("Confidence: 0.9. The flow is 1250 cfs.")
    (text, reason), = audit.skipped
    assert reason == Skip.CONFIDENCE_SCORE.value and reason.code is Skip.CONFIDENCE_SCORE
    assert audit.as_dict()["skipped"] == [{"text": "0.9", "reason": reason,
                                           "code": "CONFIDENCE_SCORE"}]


def test_a_number_the_question_states_is_read_whatever_the_rules_say(ledger):
    answer = "After 3 tool calls the flow is 1250 cfs."
    assert _skipped(ledger.audit_answer(answer, context="What is the flow?")) == {"3": Skip.COUNT}
    audit = ledger.audit_answer(answer, context="Make 3 tool calls. What is the flow?")
    assert _skipped(audit) == {}
    assert [(f.number.text, f.status) for f in audit.findings] == [("3", "quoted"),
                                                                   ("1250 cfs", "sourced")]
