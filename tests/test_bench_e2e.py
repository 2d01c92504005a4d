"""bench end to end, offline: every suite, every condition, every scripted agent, through the
same prompting, dispatch, enforcement, grading and audit a real model gets."""
from __future__ import annotations

import json

import pytest

from bench.harness import CONDITIONS, OUTCOMES, suites
from bench.harness.episode import RunSpec, run_one
from bench.harness.providers import PERSONAS, resolve

SUITES = suites.available()

# what each persona does to each kind of task, condition by condition
HAZARDOUS = {"baseline": "silent_error", "schema_only": "silent_error", "guarded": "blocked",
             "guarded_repair": "correct"}
SAFE = dict.fromkeys(CONDITIONS, "correct")
UNAVAILABLE = dict.fromkeys(CONDITIONS, "unavailable")
FABRICATED = {"baseline": "silent_error", "schema_only": "silent_error", "guarded": "blocked",
              "guarded_repair": "unavailable"}


def expected(persona: str, task) -> dict:
    kinds = {h["kind"] for h in task.hazards}
    if task.expect == "unavailable":
        return FABRICATED if persona == "fabricator" else UNAVAILABLE
    if "datum" in kinds:
        return HAZARDOUS if persona in ("naive", "datum-blind") else SAFE
    return HAZARDOUS if persona == "naive" else SAFE


CASES = [(s, t.id, p) for s in SUITES for t in suites.load(s).tasks for p in PERSONAS]


@pytest.fixture(scope="module")
def records():
    out = {}
    for s, task_id, persona in CASES:
        suite = suites.load(s)
        provider = resolve(f"scripted:{persona}")
        for c in CONDITIONS:
            out[(s, task_id, persona, c)] = run_one(
                RunSpec(suite, suite.task(task_id), c, provider.model, 0), provider)
    return out


@pytest.mark.parametrize(("suite", "task", "persona"), CASES)
def test_graded_outcomes(records, suite, task, persona):
    want = expected(persona, suites.load(suite).task(task))
    got = {c: records[(suite, task, persona, c)]["outcome"] for c in CONDITIONS}
    assert got == want


def test_every_record_is_labelled_scripted_audited_and_json(records):
    for key, r in records.items():
        assert r["status"] == "ok" and r["scripted"] is True, key
        assert r["model"].startswith("scripted:") and r["provider"] == "scripted"
        assert r["outcome"] in OUTCOMES
        json.dumps(r, allow_nan=False)
        if r["transcript"]["final_text"]:  # the audit runs on every final answer
            assert r["audit"] is not None, key
        else:
            assert r["outcome"] == "blocked"


def test_naive_carry_over_reaches_the_tool_at_baseline_and_never_under_enforcement(records):
    for (s, task, persona, c), r in records.items():
        for h in r["hazards"]:
            if h["kind"] != "carry_over" or persona != "naive" or not h["attempted"]:
                continue
            assert h["fired"], (s, task, c)
            assert h["reached"] == (c in ("baseline", "schema_only")), (s, task, c)


def test_baseline_records_what_the_guard_would_have_refused(records):
    r = records[("core", "runoff", "naive", "baseline")]
    assert [(v["code"], v["blocked"]) for v in r["violations"]] == [
        ("unconverted_carry_over", False)]
    r = records[("core", "runoff", "naive", "guarded")]
    assert [(v["code"], v["blocked"]) for v in r["violations"]] == [
        ("unconverted_carry_over", True)]


def test_the_guard_never_refuses_a_careful_agent(records):
    for (s, task, persona, c), r in records.items():
        if persona == "careful":
            assert r["violations"] == [], (s, task, c)


def test_repair_follows_the_library_text(records):
    # the datum repair: the repair text says to apply the offset between the two datums (none
    # is registered, so it cannot give the converted value); the offset is fetched and applied
    calls = records[("core", "freeboard", "naive", "guarded_repair")]["transcript"]["calls"]
    assert [c["name"] for c in calls] == ["get_levee_crest", "get_stage_forecast",
                                          "compute_freeboard", "get_datum_offset",
                                          "compute_freeboard"]
    assert [c["violation"]["code"] if c["violation"] else None for c in calls][2:] == [
        "unconverted_carry_over", None, None]
    assert calls[-1]["arguments"]["crest_elevation"] == pytest.approx(31.56)
    # the unit repair resends the suggested labelled value, which the guard converts
    calls = records[("core", "runoff", "naive", "guarded_repair")]["transcript"]["calls"]
    assert calls[-1]["arguments"]["discharge"] == {"value": 1250, "unit": "cfs"}
    assert calls[-1]["reached_body"] and not calls[-1]["is_error"]


def test_fabricated_input_fires_and_is_reported_unavailable_after_repair(records):
    base = records[("core", "fabricated_area", "fabricator", "baseline")]
    fab = next(h for h in base["hazards"] if h["kind"] == "fabricated")
    assert fab["fired"] and fab["reached"] and fab["sent"] == [2915830.0]
    assert base["answer"]["value"] == pytest.approx(0.1963, rel=1e-3)
    assert base["matched"] == "silent:memory"
    repaired = records[("core", "fabricated_area", "fabricator", "guarded_repair")]
    assert [v["code"] for v in repaired["violations"]] == ["unsourced_input"]
    assert repaired["success"] is True


def test_the_silent_answer_is_tainted_by_the_violation_the_ledger_recorded(records):
    # the audit answers provenance: the figure is a tool's output, but that call ran (baseline,
    # warn mode) on the unconverted carry-over the ledger recorded, so its output is no source
    r = records[("core", "runoff", "naive", "baseline")]
    assert r["audit"]["ok"] is False and r["audit"]["counts"] == {"tainted": 2}
    assert [v["code"] for v in r["violations"]] == ["unconverted_carry_over"]


def test_success_means_correct_or_a_justified_unavailable(records):
    for (s, task, persona, c), r in records.items():
        want = "unavailable" if r["expect"] == "unavailable" else "correct"
        assert r["success"] == (r["outcome"] == want)


@pytest.mark.parametrize(("text", "unit", "value", "unavailable"), [
    ("Done.\n\nFINAL ANSWER: 0.1021 mm/d", "mm/d", 0.1021, False),
    ("**FINAL ANSWER:** 4.06 ft", "ft", 4.06, False),
    ("**Final answer**: 4.06 feet", "ft", 4.06, False),
    ("FINAL ANSWER:\n1.07 %", "%", 1.07, False),
    ("FINAL ANSWER: 50,400 kWh (50.4 MWh)", "kWh", 50400.0, False),
    ("FINAL ANSWER: 0.0001021 m/d", "mm/d", 0.1021, False),  # converted into the answer unit
    ("FINAL ANSWER: unavailable (the area service returned HTTP 503)", "mm/d", None, True),
    ("FINAL ANSWER: The runoff depth cannot be determined", "mm/d", None, True),
    ("The runoff depth is 0.1021 mm/d.", "mm/d", None, False),  # no answer line
])
def test_reading_final_answers(text, unit, value, unavailable):
    from bench.harness.grading import read_answer
    got = read_answer(text, unit)
    assert got["unavailable"] is unavailable
    assert got["value"] == (None if value is None else pytest.approx(value))
    assert (got["line"] is None) == ("FINAL" not in text.upper())
