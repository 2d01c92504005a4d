"""The self-written answer sets (evaluation/answers) are what they were built as: the recorded
bytes, labels that agree with their error kinds and wrong figures, every task covered with both
labels, and calls that replay through the bench tools. These tests check the sets, not the
audit's rates on them (tests/audit/test_rates_on_held_out_answers.py measures those)."""
from __future__ import annotations

import hashlib
import re
from collections import Counter

import pytest

from bench.harness import suites
from evaluation import answer_sets as sets

HOLDOUT = sets.read(sets.HOLDOUT)["answers"]
# the held-out set was written in the styles of seven families, with these kinds of mistake
FAMILIES = {"claude", "gpt", "llama", "qwen", "gemini", "mistral", "small"}
ERROR_KINDS = {"carry_over", "wrong_unit", "cross_datum", "invented", "sign_flip",
               "wrong_arithmetic", "factor_slip"}


def _checksums() -> dict[str, str]:
    lines = (sets.ANSWERS / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    return {name: digest for digest, name in (line.split() for line in lines)}


def test_every_set_is_the_recorded_bytes():
    # the snapshot and the rate limits mean something only on exactly these files
    sums = _checksums()
    assert set(sums) == {p.name for p in sets.ANSWERS.glob("*.json")}
    for name, digest in sums.items():
        assert hashlib.sha256((sets.ANSWERS / name).read_bytes()).hexdigest() == digest, name


def _wrong_figures_are_written(rec: dict, text: str) -> None:
    if rec["label"] == "correct":
        assert rec["error"] is None and rec["wrong_figures"] == [], rec["id"]
    else:
        assert rec["error"] and rec["wrong_figures"], rec["id"]
    for fig in rec["wrong_figures"]:
        assert fig in text, f"{rec['id']}: wrong figure {fig!r} is not in the answer"
        assert re.search(r"\d", fig), f"{rec['id']}: wrong figure {fig!r} holds no number"


# -- audit_holdout.json -----------------------------------------------------------------------
def test_the_held_out_set_is_balanced_with_unique_ids():
    assert len(HOLDOUT) >= 400
    labels = Counter(r["label"] for r in HOLDOUT)
    assert set(labels) == {"correct", "incorrect"}
    assert 0.4 <= labels["correct"] / len(HOLDOUT) <= 0.6
    assert len({r["id"] for r in HOLDOUT}) == len(HOLDOUT)


def test_held_out_labels_agree_with_error_kinds_and_wrong_figures():
    for rec in HOLDOUT:
        _wrong_figures_are_written(rec, rec["answer"])
        assert rec["error"] in ERROR_KINDS | {None}, rec["id"]


def test_the_held_out_set_covers_every_task_family_and_error_kind():
    tasks = {(s, t.id) for s in ("core", "uk", "grid", "opacity") for t in suites.load(s).tasks}
    assert {(r["suite"], r["task"]) for r in HOLDOUT} == tasks
    for key in tasks:
        labels = Counter(r["label"] for r in HOLDOUT if (r["suite"], r["task"]) == key)
        assert labels["correct"] >= 10 and labels["incorrect"] >= 10, (key, labels)
    assert {r["family"] for r in HOLDOUT} == FAMILIES
    assert {r["error"] for r in HOLDOUT} - {None} == ERROR_KINDS


def test_held_out_answers_end_with_a_final_answer_line_unavailable_only_without_an_area():
    for rec in HOLDOUT:
        last = rec["answer"].rstrip().splitlines()[-1]
        assert last.startswith("FINAL ANSWER: "), rec["id"]
        if last == "FINAL ANSWER: unavailable":
            assert rec["task"] == "fabricated_area", rec["id"]


@pytest.mark.parametrize("suite_task", sorted({(r["suite"], r["task"]) for r in HOLDOUT}))
def test_held_out_ledgers_rebuild_through_the_bench_tools(suite_task):
    for rec in [r for r in HOLDOUT if (r["suite"], r["task"]) == suite_task]:
        ledger, question, results = sets.holdout_ledger(rec)
        assert len(ledger.calls) == len(rec["calls"]), rec["id"]
        assert ledger.context == question
        failed = [name for name, is_error, _ in results if is_error]
        # the one scripted failure in the suites: the drainage area of 07374000
        assert failed in ([], ["get_drainage_area"], ["get_drainage_area"] * 2), rec["id"]
        if failed:
            assert rec["task"] == "fabricated_area"
        assert ledger.output_entries(), rec["id"]


# -- audit_holdout3.json ... audit_holdout6.json ------------------------------------------------
@pytest.mark.parametrize("path", sets.HOLDOUT3, ids=lambda p: p.name)
def test_each_file_of_the_third_set_matches_its_header(path):
    doc = sets.read(path)
    records = doc["records"]
    assert doc["count"] == len(records)
    if "correct" in doc:
        labels = Counter(rec["label"] for rec in records)
        assert labels == {"correct": doc["correct"], "incorrect": doc["incorrect"]}
    assert len({rec["id"] for rec in records}) == len(records)
    for rec in records:
        _wrong_figures_are_written(rec, rec["answer"])


@pytest.mark.parametrize("name, parts", [
    ("audit_holdout5.json", {"fresh5_style", "fresh5_class"}),
    ("audit_holdout6.json", {"fresh6_style", "fresh6_class"}),
])
def test_the_blind_batches_hold_both_labels_in_both_parts_over_every_task(name, parts):
    records = sets.records(sets.ANSWERS / name)
    assert {(sets.part(r), r["label"]) for r in records} == {
        (p, label) for p in parts for label in ("correct", "incorrect")}
    tasks = {r["task"] for r in records}
    assert all({r["task"] for r in records if sets.part(r) == p} == tasks for p in parts)
    assert all(r["answer"].rstrip().rsplit("\n", 1)[-1].startswith("FINAL ANSWER: ")
               for r in records)


def test_a_record_of_the_third_set_replays_to_the_calls_it_made():
    # one record per condition and scenario kind, not all 6,327 (the rate tests replay them all)
    seen, records = set(), []
    for rec in sets.records(sets.HOLDOUT3[0]):
        key = (rec["condition"], rec["scenario"])
        if key not in seen:
            seen.add(key)
            records.append(rec)
    assert len(records) >= 5
    for rec in records:
        ledger, results = sets.holdout3_ledger(rec)
        assert [name for name, _, _ in results] == [c["name"] for c in rec["calls"]], rec["id"]
        assert ledger.context == rec["question"]
