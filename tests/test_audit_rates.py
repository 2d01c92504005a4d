"""The answer audit's measured rates, asserted with at most 2x slack (issue 11).

Figures from ``python bench/audit_rates.py`` (deterministic: fixed seeds, the committed corpora):

- generated corpus (tests/data/audit_corpus_generated.json, 1231 answers over every task of
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

- the independent held-out set (tests/data/audit_holdout.json, 657 answers in the styles of
  seven model families, ``python bench/holdout_rates.py``): the audit was tuned on the answers
  of the suites ``core`` and ``uk`` (0/173 false alarms, 168/168 detected) and checked on those
  of ``grid`` and ``opacity`` (``--suite grid --suite opacity``: 0/161, 155/155); no exception.

When the corpus grows, re-measure and update the figures here (never loosen beyond 2x).
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load_bench():
    spec = importlib.util.spec_from_file_location("_audit_rates", ROOT / "bench" / "audit_rates.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("_audit_rates", module)
    spec.loader.exec_module(module)
    return module


bench = _load_bench()


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


def _load_holdout():
    spec = importlib.util.spec_from_file_location("_holdout_builder", ROOT / "bench" / "holdout.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def holdout():
    """{suite split: (false alarms, correct, detected, incorrect, exceptions)}."""
    import json
    builder = _load_holdout()
    doc = json.loads((ROOT / "tests" / "data" / "audit_holdout.json").read_text(encoding="utf-8"))
    out = {}
    for rec in doc["answers"]:
        split = "tuned" if rec["suite"] in ("core", "uk") else "held_out"
        fa, good, det, wrong, exc = out.get(split, (0, 0, 0, 0, []))
        ledger, question, _ = builder.replay(rec)
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
