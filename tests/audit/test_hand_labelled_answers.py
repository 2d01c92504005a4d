"""The answer audit measured on a hand-labelled corpus (evaluation/answers/audit_corpus.json).

Each scenario is a question and the outputs its tools returned; the ledger is built by running
tiny guarded tools inside ``session(context=question)``. Each answer carries the label a careful
human would give it (``ok``: every figure traceable and correctly labelled) and the expected
status of the numbers that matter. Every answer is audited with
``ledger.audit_answer(answer, context=question)`` and checked against its label; the corpus rates
(false alarms on correct answers, detection of wrong ones) and the random-acceptance rate of
evaluation/audit_rates.py are asserted too.

Answers the audit currently gets wrong are marked ``xfail(strict=True)`` with the diagnosis, in
KNOWN below; the labels are never weakened to make them pass. When the audit is fixed the
answer XPASSes and the entry must be removed.
"""
from __future__ import annotations

import re

import pytest

from evaluation import audit_rates as bench
CORPUS = bench.load_corpus()
STATUSES = {"sourced", "derived", "quoted", "unsourced", "unit_mislabelled", "ignored"}

# -- answers the audit gets wrong today (strict: an XPASS means the bug was fixed) --------------
KNOWN: dict[str, str] = {}


def _answers():
    for sc, ans in bench.iter_answers(CORPUS):
        marks = ()
        if ans["id"] in KNOWN:
            marks = (pytest.mark.xfail(strict=True, reason=KNOWN[ans["id"]]),)
        yield pytest.param(sc, ans, id=ans["id"], marks=marks)


def _audit(sc, ans):
    bench.register_stations(sc)
    ledger = bench.build_ledger(sc)
    return ledger, ledger.audit_answer(ans["text"], context=sc["question"])


def _occurrences(text: str, literal: str):
    """Spans of ``literal`` in ``text`` that are whole numbers, not part of a longer one."""
    pattern = r"(?<![\d.,])" + re.escape(literal) + r"(?![\d]|[.,]\d)"
    return [(m.start(), m.end()) for m in re.finditer(pattern, text)]


def _check(sc, ans, ledger, audit) -> list[str]:
    problems = []
    if audit.ok != ans["ok"]:
        problems.append(f"audit.ok is {audit.ok}, labelled {ans['ok']}")
    for literal, want in ans["expect"]:
        wanted = {want} if isinstance(want, str) else set(want)
        spans = _occurrences(ans["text"], literal)
        if not spans:
            problems.append(f"corpus error: {literal!r} does not occur in the answer")
        for a, b in spans:
            hits = [f for f in audit.findings if f.number.start < b and a < f.number.end]
            if "ignored" in wanted:
                if hits:
                    problems.append(f"{literal!r}: expected ignored, read as "
                                    f"{[(f.number.text, f.status) for f in hits]}")
            elif not hits:
                problems.append(f"{literal!r}: expected {'/'.join(sorted(wanted))}, not read as "
                                f"a number")
            elif hits[0].status not in wanted:
                problems.append(f"{literal!r}: expected {'/'.join(sorted(wanted))}, got "
                                f"{hits[0].status}")
    return problems


def _diagnostic(sc, ans, ledger, audit, problems) -> str:
    outs = ", ".join(f"{o['tool']}={o['value']:g} {o['unit']}"
                     + (f" on {o['datum']}" if o.get("datum") else "") for o in sc["outputs"])
    lines = [f"{ans['id']} ({ans['style']}; labelled ok={ans['ok']})",
             f"  question: {sc['question']}", f"  outputs:  {outs}",
             "  answer:   " + ans["text"].replace("\n", "\n            "), "  findings:"]
    lines += [f"    {f.number.text!r}: {f.status}" + (f" - {f.note}" if f.note else "")
              for f in audit.findings]
    lines += ["  problems:"] + [f"    {p}" for p in problems]
    return "\n".join(lines)


@pytest.mark.parametrize("sc, ans", list(_answers()))
def test_answer(sc, ans):
    ledger, audit = _audit(sc, ans)
    problems = _check(sc, ans, ledger, audit)
    assert not problems, _diagnostic(sc, ans, ledger, audit, problems)


# -- the corpus itself ---------------------------------------------------------------------------
def test_corpus_is_well_formed_and_covers_the_styles():
    scenarios = CORPUS["scenarios"]
    answers = [a for _, a in bench.iter_answers(CORPUS)]
    assert len(scenarios) >= 8
    assert len(answers) >= 60
    assert sum(a["ok"] for a in answers) >= 40
    assert sum(not a["ok"] for a in answers) >= 15
    sizes = {len(sc["outputs"]) for sc in scenarios}
    assert 3 in sizes and max(sizes) >= 6
    ids = [a["id"] for a in answers]
    assert len(ids) == len(set(ids))
    assert set(KNOWN) <= set(ids), set(KNOWN) - set(ids)
    for sc in scenarios:
        assert len(sc["answers"]) >= 7, sc["id"]
        for a in sc["answers"]:
            assert a["id"].startswith(sc["id"] + "/")
            assert isinstance(a["ok"], bool) and a["expect"], a["id"]
            for literal, want in a["expect"]:
                assert set([want] if isinstance(want, str) else want) <= STATUSES, a["id"]
                assert _occurrences(a["text"], literal), (a["id"], literal)
    text = "\n".join(a["text"] for a in answers)
    for needle in ("\u2212", "1,250", "deficit of", "–", "%", "|---", "**", "\n1. ", "2nd",
                   "2026-08-20", "14:15", "07374000", "E21136", "cubic feet per second",
                   "megalitres per day"):
        assert needle in text, needle
    statuses = {w for a in answers for _, want in a["expect"]
                for w in ([want] if isinstance(want, str) else want)}
    assert statuses == STATUSES


# -- the rates -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def rates():
    return bench.corpus_rates(bench.run_corpus(CORPUS))


def test_false_alarm_rate(rates):
    """The goal is 0. Every false alarm today is a KNOWN case; a new one fails here."""
    known = [i for i in rates["false_alarms"] if i in KNOWN]
    new = [i for i in rates["false_alarms"] if i not in KNOWN]
    print(f"false alarms: {len(rates['false_alarms'])}/{rates['correct']} "
          f"= {rates['false_alarm_rate']:.1%} {rates['false_alarms']}")
    assert not new, f"false alarms not explained in KNOWN: {new}"
    assert rates["false_alarm_rate"] <= len(known) / rates["correct"]
    assert rates["false_alarm_rate"] <= 0.02   # measured 1.5% (1/65): the KNOWN ratio


def test_detection_rate(rates):
    new = [i for i in rates["missed"] if i not in KNOWN]
    print(f"detection: {rates['wrong'] - len(rates['missed'])}/{rates['wrong']} "
          f"= {rates['detection_rate']:.1%}, missed {rates['missed']}")
    assert not new, f"wrong answers passed that KNOWN does not explain: {new}"
    assert rates["detection_rate"] >= 0.95   # measured 100% (31/31)


def test_random_acceptance_rates():
    """Sums, differences, products and ratios: few random numbers pass as accepted. Measured
    0.17% (3 outputs) and 0.65% (6 outputs); asserted with at most 2x slack, and the 6-output
    rate within the 1% the issue allows."""
    r3, r6 = bench.random_acceptance(3), bench.random_acceptance(6)
    print(f"random acceptance: 3 outputs {r3['rate']:.2%}, 6 outputs {r6['rate']:.2%}")
    assert r3["rate"] <= 0.0034
    assert r6["rate"] <= 0.010
    assert r3["rate"] <= r6["rate"]
