"""The answer audit's measured rates on the held-out answer sets (evaluation/answers), asserted with
at most 2x slack.

The third set (audit_holdout3.json, 4,018 answers in the styles of eight model families, and
audit_holdout4.json, 909 more in new wording; both written without reading the audit; ``python
evaluation/holdout3_rates.py`` prints the same figures with every false alarm).

Measured when the set was merged (deterministic): false alarms 89/3239 (2.7 %), detection 779/779,
on the wrong figure itself 779/779, no exception. Per part: mix 4/480, targeted 28/993, fresh
24/601, fresh2 32/845, fresh2_mix 1/320. ``fresh2`` and ``fresh2_mix`` were measured blind once
(246/845 and 1/320, before the audit saw them). ``fresh3`` and ``fresh3_mix`` (the second file)
were measured blind at 87/400 and 3/320 (main before the last audit round: 120/400 and 3/320);
after one fix they found (a decimal-comma reading), 74/400 and 3/320, detection 968/968. After
audit rounds 5 and 6 (2026-11-30): 37/3959 (fresh 13, fresh2 8, fresh2_mix 1, fresh3 1, fresh3_mix
1, mix 4, targeted 9), detection 968/968. The fifth and sixth batches (audit_holdout5.json,
audit_holdout6.json) were measured blind once each (165/630 and, after round 5, 44/500), then tuned
on: 5/630 and 27/500, 145/150 and 116/120 caught. Every figure here is tuned, so the limits only
stop a regression. Limits are at most 2x the measured figures (at least a few answers); never
loosen beyond that: re-measure and update.

The first held-out set (audit_holdout.json, 657 answers in the styles of seven model families,
``python evaluation/holdout_rates.py``): the audit was tuned on the answers of the suites ``core``
and ``uk`` (0/173 false alarms, 168/168 detected) and checked on those of ``grid`` and ``opacity``
(``--suite grid --suite opacity``: 0/161, 155/155); no exception.
"""
from __future__ import annotations

from collections import Counter

import pytest

from evaluation import answer_sets as sets
from evaluation import holdout3_rates as rates


@pytest.fixture(scope="module")
def judged():
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


# file: (most false alarms, most wrong answers missed), at most 2x the measured (5/630, 27/500;
# 5 and 4 missed: each gives a recorded figure as the answer to another question)
LATER = {"audit_holdout5.json": (10, 8), "audit_holdout6.json": (54, 6)}


@pytest.mark.parametrize("name", sorted(LATER))
def test_the_later_batches_stay_where_rounds_5_and_6_left_them(name):
    judged = [(rec, rates.judge(rec)) for rec in rates.load(sets.ANSWERS / name)]
    assert not [rec["id"] for rec, j in judged if j["error"]]
    false = [rec["id"] for rec, j in judged if rec["label"] == "correct" and not j["ok"]]
    missed = [rec["id"] for rec, j in judged if rec["label"] != "correct" and j["ok"]]
    most_false, most_missed = LATER[name]
    assert len(false) <= most_false and len(missed) <= most_missed, (false[:5], missed)
    assert not [rec["id"] for rec, j in judged if rec["error"] == "cross_datum" and j["ok"]]


@pytest.fixture(scope="module")
def holdout():
    """{suite split: (false alarms, correct, detected, incorrect, exceptions)}."""
    out = {}
    for rec in sets.read(sets.HOLDOUT)["answers"]:
        split = "tuned" if rec["suite"] in ("core", "uk") else "held_out"
        fa, good, det, wrong, exc = out.get(split, (0, 0, 0, 0, []))
        ledger, question, _ = sets.holdout_ledger(rec)
        try:
            ok = ledger.audit_answer(rec["answer"], context=question).ok
        except Exception as err:  # noqa: BLE001 - counted and asserted empty
            exc = exc + [(rec["id"], repr(err))]
            out[split] = (fa, good, det, wrong, exc)
            continue
        if rec["label"] == "correct":
            fa, good = fa + (not ok), good + 1
        else:
            det, wrong = det + (not ok), wrong + 1
        out[split] = (fa, good, det, wrong, exc)
    return out


@pytest.mark.parametrize("split,max_false_alarms,max_misses", [
    ("tuned", 1, 1),      # core + uk: measured 0/173 false alarms, 168/168 detected
    ("held_out", 1, 1),   # grid + opacity: measured 0/161, 155/155
])
def test_holdout_rates(holdout, split, max_false_alarms, max_misses):
    fa, good, det, wrong, exc = holdout[split]
    print(f"{split}: false alarms {fa}/{good}, detection {det}/{wrong}")
    assert good >= 150 and wrong >= 150
    assert not exc, exc[:3]
    assert fa <= max_false_alarms                      # the target is 4.5%
    assert wrong - det <= max_misses
