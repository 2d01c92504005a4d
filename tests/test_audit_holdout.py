"""Integrity of the held-out audit answer set (tests/data/audit_holdout.json, bench/holdout.py).

These tests check the set, not the audit's rates on it (bench/holdout_rates.py measures those):
labels agree with error kinds and wrong figures, every task of every bench suite is covered by
both labels, the ledgers rebuild through the real bench tools, and the builder reproduces the
stored file."""
from __future__ import annotations

import importlib.util
import json
import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "audit_holdout.json"


def _builder():
    spec = importlib.util.spec_from_file_location("holdout_builder", ROOT / "bench" / "holdout.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


holdout = _builder()
DOC = json.loads(DATA.read_text(encoding="utf-8"))
ANSWERS = DOC["answers"]


def test_size_and_balance():
    assert len(ANSWERS) >= 400
    labels = Counter(r["label"] for r in ANSWERS)
    assert set(labels) == {"correct", "incorrect"}
    assert 0.4 <= labels["correct"] / len(ANSWERS) <= 0.6
    assert len({r["id"] for r in ANSWERS}) == len(ANSWERS), "ids are unique"


def test_labels_agree_with_error_kinds_and_wrong_figures():
    for r in ANSWERS:
        if r["label"] == "correct":
            assert r["error"] is None and r["wrong_figures"] == [], r["id"]
        else:
            assert r["error"] in holdout.ERROR_KINDS, r["id"]
            assert r["wrong_figures"], r["id"]
        for w in r["wrong_figures"]:
            assert w in r["answer"], f"{r['id']}: wrong figure {w!r} is not in the answer"
            assert re.search(r"\d", w), f"{r['id']}: wrong figure {w!r} holds no number"


def test_every_error_kind_family_and_task_is_present():
    from bench.harness import suites
    tasks = {(s, t.id) for s in ("core", "uk", "grid", "opacity") for t in suites.load(s).tasks}
    assert tasks == set(holdout.TASKS)
    for key in tasks:
        labels = Counter(r["label"] for r in ANSWERS if (r["suite"], r["task"]) == key)
        assert labels["correct"] >= 10 and labels["incorrect"] >= 10, (key, labels)
    assert {r["family"] for r in ANSWERS} == set(holdout.FAMILIES)
    assert {r["error"] for r in ANSWERS} - {None} == set(holdout.ERROR_KINDS)


def test_every_answer_ends_with_a_final_answer_line():
    for r in ANSWERS:
        last = r["answer"].rstrip().splitlines()[-1]
        assert last.startswith("FINAL ANSWER: "), r["id"]


@pytest.mark.parametrize("suite_task", sorted({(r["suite"], r["task"]) for r in ANSWERS}))
def test_ledgers_rebuild_through_the_bench_tools(suite_task):
    for r in [r for r in ANSWERS if (r["suite"], r["task"]) == suite_task]:
        ledger, question, results = holdout.replay(r)
        assert len(ledger.calls) == len(r["calls"]), r["id"]
        assert ledger.context == question
        failed = [x["name"] for x in results if x["is_error"]]
        # the one scripted failure in the suites: the drainage area of 07374000
        assert failed in ([], ["get_drainage_area"], ["get_drainage_area", "get_drainage_area"]), r["id"]
        if failed:
            assert r["task"] == "fabricated_area"
        assert ledger.output_entries(), r["id"]


def test_unavailable_answers_only_where_the_task_expects_them():
    for r in ANSWERS:
        unavailable = r["answer"].rstrip().endswith("FINAL ANSWER: unavailable")
        if unavailable:
            assert r["task"] == "fabricated_area", r["id"]


def test_the_builder_reproduces_the_stored_set():
    records = holdout.build() + holdout.hand_records()
    assert records == ANSWERS
