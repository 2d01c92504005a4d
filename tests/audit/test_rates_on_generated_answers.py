"""The answer audit's measured rates, asserted with at most 2x slack (issue 11).

Figures from ``python evaluation/audit_rates.py`` (deterministic: fixed seeds, the committed
corpora):

- generated corpus (evaluation/answers/audit_corpus_generated.json, 1231 answers over every task of
  every bench suite, 17 styles): 0/618 false alarms on correct answers, 609/613 detected;
  every cross-datum answer (48/48) detected; no exception;
- random acceptance against a 6-output ledger: 0.62% (round 2) with no constant written, 0.69% with
  the square root of 3 written, 0.94% with the square roots of 2 and 3 and pi all written
  (products and ratios follow the constants an answer writes; round 3: 0.73% and 0.97%); 0.17% against 3 outputs
  (round 3: 0.65% against 6 outputs, since a flat round 3-figure probe such as "200" is a
  one-figure number, read as a rounding of a recorded output);
- random acceptance of one-figure numbers stated flat ("The value is 400."): 4.52% against 3
  outputs, 9.81% against 6 (round 3; main before it: 3.85% and 10.84%, when "400" was read to
  395..405 and "0.4" to 0.36..0.44).

The held-out sets' rates are in tests/audit/test_rates_on_held_out_answers.py.

When the corpus grows, re-measure and update the figures here (never loosen beyond 2x).
"""
from __future__ import annotations

import copy
import json

import pytest

from evaluation import audit_rates as bench


@pytest.fixture(scope="module")
def generated():
    rows = bench.run_generated(bench.load_generated())
    return rows, bench.generated_rates(rows)


def test_generated_corpus_false_alarms(generated):
    rows, rates = generated
    t = rates["overall"]
    print(f"false alarms {t['false_alarms']}/{t['correct']}")
    assert t["correct"] >= 500
    assert t["false_alarms"] <= 1                      # measured 0/618 (one allowed: 0.16%)
    assert t["false_alarm_rate"] <= 0.02               # the target


def test_generated_corpus_detection(generated):
    rows, rates = generated
    t = rates["overall"]
    print(f"detection {t['detected']}/{t['incorrect']}")
    assert t["incorrect"] >= 500
    assert t["incorrect"] - t["detected"] <= 8         # measured 4 missed of 613 (99.3%)
    assert t["detection_rate"] >= 0.95                 # the target


def test_no_cross_datum_answer_passes(generated):
    rows, rates = generated
    cross = [r for r in rows if r["error"] == "cross_datum"]
    assert len(cross) >= 40
    passed = [r["id"] for r in cross if r["audit_ok"]]
    assert not passed, passed                          # measured 48/48 detected


def test_audit_never_raises_on_the_corpus(generated):
    rows, rates = generated
    assert not rates["exceptions"], rates["exceptions"][:3]


@pytest.mark.parametrize("preamble,limit", [
    ("", 0.0124),                                                  # measured 0.62%
    ("I = S/(\u221a3 V). ", 0.0138),                              # measured 0.69%
    ("With \u221a2, \u221a3 and \u03c0 written: ", 0.0188),      # measured 0.94%
])
def test_random_acceptance_with_products_and_constants(preamble, limit):
    r6 = bench.random_acceptance(6, preamble=preamble)
    print(f"random acceptance, 6 outputs, {preamble!r}: {r6['rate']:.2%}")
    assert r6["rate"] <= limit
    assert r6["rate"] <= 0.01                          # the bound, for 6 outputs


@pytest.mark.parametrize("n,limit", [
    (3, 0.06),    # measured 4.52% (main before round 3: 3.85%; a 10% window for derivations too: 6.10%)
    (6, 0.12),    # measured 9.81% (main before round 3: 10.84%; with derivations: 16.93%)
])
def test_random_acceptance_of_flat_one_figure_numbers(n, limit):
    # "The value is 400.": a one-figure number stated flat is a rounding of a recorded output
    # (half its last place, at most 10%); as a derivation it is read to its next place
    r = bench.random_acceptance(n, sig=1)
    print(f"random acceptance of one-figure numbers, {n} outputs: {r['rate']:.2%}")
    assert r["rate"] <= limit


# -- the rate script counts what it reads -------------------------------------------------------
@pytest.fixture(scope="module")
def generated_corpus():
    return bench.load_generated()


def _answers(c):
    return [(sc, a) for sc in c["scenarios"] for a in sc["answers"]]


def test_rates_count_an_audit_exception_separately(generated_corpus, monkeypatch):
    small = {**generated_corpus, "scenarios": [copy.deepcopy(generated_corpus["scenarios"][0])]}
    answers = small["scenarios"][0]["answers"][:4]
    small["scenarios"][0]["answers"] = answers
    from quantity_guard.ledger import Ledger
    real = Ledger.audit_answer
    boom = answers[0]["text"]

    def audit(self, answer, context=None):
        if answer == boom:
            raise RuntimeError("injected")
        return real(self, answer, context=context)

    monkeypatch.setattr(Ledger, "audit_answer", audit)
    rows = bench.run_generated(small)
    assert [r["exception"] for r in rows].count("RuntimeError: injected") == 1
    tally = bench.generated_rates(rows)["overall"]
    assert tally["exceptions"] == 1
    assert tally["correct"] + tally["incorrect"] == 4
    ran = [r for r in rows if r["exception"] is None]
    assert tally["false_alarms"] + tally["detected"] == sum(not r["audit_ok"] for r in ran)


def test_rates_group_by_style_task_and_error(generated, generated_corpus):
    rows, _ = generated
    g = bench.generated_rates(rows)
    assert set(g["style"]) == {a["style"] for _, a in _answers(generated_corpus)}
    assert len(g["task"]) == 10
    o = g["overall"]
    assert o["correct"] + o["incorrect"] == len(rows)
    assert sum(t["correct"] for t in g["style"].values()) == o["correct"]
    assert json.dumps(g["overall"])  # plain data
