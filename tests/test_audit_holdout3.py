"""The answer audit on the third held-out set (tests/data/audit_holdout3.json, 4,018 answers in
the styles of eight model families, and tests/data/audit_holdout4.json, 909 more in new
wording; both written without reading the audit; ``python bench/holdout3_rates.py`` prints the
same figures with every false alarm).

Measured when the set was merged (deterministic): false alarms 89/3239 (2.7 %), detection
779/779, on the wrong figure itself 779/779, no exception. Per part: mix 4/480, targeted 28/993,
fresh 24/601, fresh2 32/845, fresh2_mix 1/320. ``fresh2`` and ``fresh2_mix`` were measured
blind once (246/845 and 1/320, before the audit saw them). ``fresh3`` and ``fresh3_mix`` (the
second file) were measured blind at 87/400 and 3/320 (main before the last audit round: 120/400
and 3/320); after one fix they found (a decimal-comma reading), 74/400 and 3/320, detection
968/968. After audit rounds 5 and 6 (2026-11-30): 37/3959 (fresh 13, fresh2 8, fresh2_mix 1,
fresh3 1, fresh3_mix 1, mix 4, targeted 9), detection 968/968. The fifth and sixth batches
(tests/data/audit_holdout5.json, audit_holdout6.json) were measured blind once each (165/630 and,
after round 5, 44/500), then tuned on: 5/630 and 27/500, 145/150 and 116/120 caught. Every figure here is tuned, so the limits only stop a regression. Limits are at most 2x the measured figures (at least a few
answers); never loosen beyond that: re-measure and update.
"""
from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest

from audit_helpers import bench_script

ROOT = Path(__file__).resolve().parents[1]


def _rates():
    """bench/holdout3_rates.py, loaded once."""
    return bench_script("holdout3_rates")


@pytest.fixture(scope="module")
def judged():
    rates = _rates()
    return [(rates.part(rec), rec, rates.judge(rec)) for rec in rates.load_all()]


# part: (most false alarms, correct answers at least)
LIMITS = {"mix": (8, 480), "targeted": (18, 993), "fresh": (26, 601), "fresh2": (16, 845),
          "fresh2_mix": (3, 320), "fresh3": (3, 400), "fresh3_mix": (3, 320)}


def test_no_answer_makes_the_audit_raise(judged):
    errors = [(rec["id"], j["error"]) for _, rec, j in judged if j["error"]]
    assert not errors, errors[:3]


@pytest.mark.parametrize("name", sorted(LIMITS))
def test_false_alarms_per_part(judged, name):
    most, correct = LIMITS[name]
    flagged = Counter()
    good = 0
    for part, rec, j in judged:
        if part == name and rec["label"] == "correct":
            good += 1
            if not j["ok"]:
                flagged[rec["style"]] += 1
    print(f"{name}: false alarms {sum(flagged.values())}/{good} {dict(flagged)}")
    assert good == correct
    assert sum(flagged.values()) <= most


def test_every_wrong_answer_is_caught_on_its_wrong_figure(judged):
    wrong = [(rec, j) for _, rec, j in judged if rec["label"] != "correct"]
    assert len(wrong) == 968
    missed = [rec["id"] for rec, j in wrong if j["ok"]]
    off_figure = [rec["id"] for rec, j in wrong if not j["ok"] and not j["on_figure"]]
    assert len(missed) <= 8 and len(off_figure) <= 8, (missed[:5], off_figure[:5])
    # a cross-datum difference is never accepted
    assert not [rec["id"] for rec, j in wrong if rec["error"] == "cross_datum" and j["ok"]]


def test_the_fifth_batch_loads_and_matches_its_header():
    """tests/data/audit_holdout5.json (the fifth blind batch, ``s``/``k`` ids) is read apart from
    the two files above (``--file`` or ``--all`` in bench/holdout3_rates.py); its header counts
    its records and labels, and every wrong answer writes the wrong figures it is labelled with.
    No rate is pinned here."""
    import json
    path = ROOT / "tests" / "data" / "audit_holdout5.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    records = doc["records"]
    labels = Counter(rec["label"] for rec in records)
    assert doc["count"] == len(records)
    assert labels == {"correct": doc["correct"], "incorrect": doc["incorrect"]}
    assert len({rec["id"] for rec in records}) == len(records)
    spec = importlib.util.spec_from_file_location("_holdout3_rates5",
                                                  ROOT / "bench" / "holdout3_rates.py")
    rates = importlib.util.module_from_spec(spec)
    sys.modules["_holdout3_rates5"] = rates
    spec.loader.exec_module(rates)
    assert path in rates.files()
    assert {rates.part(rec) for rec in records} == {"fresh5_style", "fresh5_class"}
    for rec in records:
        if rec["label"] == "correct":
            assert rec["error"] is None and rec["wrong_figures"] == [], rec["id"]
        else:
            assert rec["error"] and rec["wrong_figures"], rec["id"]
            assert all(fig in rec["answer"] for fig in rec["wrong_figures"]), rec["id"]


def test_the_sixth_batch_loads_and_matches_its_header():
    """tests/data/audit_holdout6.json (the sixth blind batch, ``p``/``x`` ids: held out from the
    audit round tuned on the fifth) loads on its own; its header counts its records and labels,
    its answers cover every task in both parts, and every wrong answer writes the wrong figures
    it is labelled with. No rate is pinned here."""
    import json
    path = ROOT / "tests" / "data" / "audit_holdout6.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    records = doc["records"]
    labels = Counter(rec["label"] for rec in records)
    assert doc["count"] == len(records)
    assert labels == {"correct": doc["correct"], "incorrect": doc["incorrect"]}
    assert len({rec["id"] for rec in records}) == len(records)
    spec = importlib.util.spec_from_file_location("_holdout3_rates6",
                                                  ROOT / "bench" / "holdout3_rates.py")
    rates = importlib.util.module_from_spec(spec)
    sys.modules["_holdout3_rates6"] = rates
    spec.loader.exec_module(rates)
    assert path in rates.files()
    assert path not in {rates.holdout3.DATA, rates.holdout3.DATA4}  # load_all() is unchanged
    by_part = Counter((rates.part(rec), rec["label"]) for rec in records)
    assert set(by_part) == {(p, lab) for p in ("fresh6_style", "fresh6_class")
                            for lab in ("correct", "incorrect")}
    tasks = {rec["task"] for rec in records}
    assert all({r["task"] for r in records if rates.part(r) == p} == tasks
               for p in ("fresh6_style", "fresh6_class"))
    for rec in records:
        assert rec["answer"].rstrip().rsplit("\n", 1)[-1].startswith("FINAL ANSWER: ")
        if rec["label"] == "correct":
            assert rec["error"] is None and rec["wrong_figures"] == [], rec["id"]
        else:
            assert rec["error"] and rec["wrong_figures"], rec["id"]
            assert all(fig in rec["answer"] for fig in rec["wrong_figures"]), rec["id"]


# file: (most false alarms, most wrong answers missed), at most 2x the measured (5/630, 27/500;
# 5 and 4 missed: each gives a recorded figure as the answer to another question)
LATER = {"audit_holdout5.json": (10, 8), "audit_holdout6.json": (54, 6)}


@pytest.mark.parametrize("name", sorted(LATER))
def test_the_later_batches_stay_where_rounds_5_and_6_left_them(name):
    rates = _rates()
    judged = [(rec, rates.judge(rec)) for rec in rates.load(ROOT / "tests" / "data" / name)]
    assert not [rec["id"] for rec, j in judged if j["error"]]
    false = [rec["id"] for rec, j in judged if rec["label"] == "correct" and not j["ok"]]
    missed = [rec["id"] for rec, j in judged if rec["label"] != "correct" and j["ok"]]
    most_false, most_missed = LATER[name]
    assert len(false) <= most_false and len(missed) <= most_missed, (false[:5], missed)
    assert not [rec["id"] for rec, j in judged if rec["error"] == "cross_datum" and j["ok"]]
