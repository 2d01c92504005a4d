"""The answer audit measured on a labelled corpus (tests/data/audit_corpus.json).

Each scenario is a question and the outputs its tools returned; the ledger is built by running
tiny guarded tools inside ``session(context=question)``. Each answer carries the label a careful
human would give it (``ok``: every figure traceable and correctly labelled) and the expected
status of the numbers that matter. Every answer is audited with
``ledger.audit_answer(answer, context=question)`` and checked against its label; the corpus rates
(false alarms on correct answers, detection of wrong ones) and the random-acceptance rate of
bench/audit_rates.py are asserted too.

Answers the audit currently gets wrong are marked ``xfail(strict=True)`` with the diagnosis, in
KNOWN below; the labels are never weakened to make them pass. When the audit is fixed the
answer XPASSes and the entry must be removed.
"""
from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from quantity_guard import datums

ROOT = Path(__file__).resolve().parent.parent


def _load_bench():
    spec = importlib.util.spec_from_file_location("_audit_rates", ROOT / "bench" / "audit_rates.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("_audit_rates", module)
    spec.loader.exec_module(module)
    return module


bench = _load_bench()
CORPUS = bench.load_corpus()
STATUSES = {"sourced", "derived", "quoted", "unsourced", "unit_mislabelled", "ignored"}

# -- answers the audit gets wrong today (strict: an XPASS means the bug was fixed) --------------
_TABLE_UNITS = ("audit bug: a unit written in a separate table cell (a Unit column or a header "
                "such as '| ft NGVD29 | m |') is not read, so a converted value is audited as a "
                "bare number and matches no recorded magnitude")
_BOLD = ("audit bug: markdown emphasis glued to the unit ('**35.4 m³/s**') stops the unit "
         "being read, so the number is audited bare")
_BUCKETS = ("audit bug (ledger._buckets, used by _outputs_near/_outputs_near_si): when a "
            "tolerance spans more than two magnitude buckets (each 1/32 to 1/64 of the value) "
            "only the buckets of x-tol, x and x+tol are probed, so a value rounded coarsely "
            "misses the recorded output in a bucket between them; _bucket's docstring assumes "
            "the tolerance never spans more than two, true for the carry-over check's 0.5% cap "
            "but not for the audit's written precision")
_MILLION = ("audit bug: number words ('59.8 million m³') are not read as multipliers; the unit "
            "after 'million' is lost and the bare 59.8 matches nothing")
_DATUM_STATUS = ("audit bug (status only, ok is right): a recorded magnitude restated on the "
                 "wrong datum is reported unsourced; the mislabel check compares units only, "
                 "never the datum, so it is not unit_mislabelled")
KNOWN: dict[str, str] = {
    "us_runoff/sigfig": (
        "audit bug: '11,200 square miles' (29,000 km² = 11,196.96 mi² to 3 significant figures) "
        "is unsourced; an integer's tolerance is always ±0.5, so trailing zeros written as "
        "rounding are read as exact"),
    "us_runoff/table_unit_column": _TABLE_UNITS,
    "us_reservoir/table_header_units": _TABLE_UNITS,
    "us_runoff/bold": _BOLD,
    "us_runoff/wrong_unit_bold": _BOLD + ": '**1,250 m³/s**' becomes a bare 1250 and is "
                                         "accepted as sourced, a missed unit misstatement",
    "us_runoff/rounded": _BUCKETS + ": '0.1 mm/d' for 0.10546 mm/d (±0.05) is unsourced",
    "storm_culvert/inches": _BUCKETS + ": '1.5 inches' for 38 mm = 1.496 in (±0.05 in) is "
                                       "unsourced",
    "us_runoff/scientific": (
        "audit bug: '1.05 × 10⁻⁴ m/d' is read as two bare numbers, 1.05 and 10, both "
        "unsourced; '× 10ⁿ' (and 'x 10^n') exponents are not read"),
    "grid_export/date_dmy": (
        "audit bug: a day-first date '14 March 2026' is not skipped (only 'March 14' is); the "
        "14 is unsourced"),
    "us_reservoir/million": _MILLION,
    "tanks/million": _MILLION + " ('1.35 million m³' for 1,350 Ml)",
    "grid_feeder/below": (
        "audit bug: a sign carried by a word after the number ('2.7% below the nominal') is not "
        "read; only words before it are ('a drop of 2.7%'), so 2.7% against a recorded -2.7 % "
        "is unsourced"),
    "us_runoff/converted_kept_unit": (
        "audit bug (status only, ok is right): '35.4 cfs' is 1250 cfs converted to m³/s with the "
        "old unit kept; it is reported unsourced, not unit_mislabelled, because the mislabel "
        "checks only compare written magnitudes with recorded ones (or powers of ten of them)"),
    "us_freeboard/datum_mislabel": _DATUM_STATUS + " ('12.4 ft NAVD88', recorded on "
                                                   "GAGE:07374000)",
    "uk_abstraction/datum_mislabel": _DATUM_STATUS + " ('0.117 m ODN', recorded on "
                                                     "GAUGE:E21136)",
    "us_reservoir/deficit": (
        "audit bug (minor; ok is right): the bare '1,980' (outflow in cfs) is skipped as a year; "
        "the year test strips the thousands separator, but a number written '1,980' is never a "
        "year, so a misstated figure there would go unread"),
    "tanks/share": (
        "audit limitation by design (SPEC: products and quotients are not followed): '62%' is "
        "1,350 / 2,170, a ratio of two recorded outputs, which a careful reader traces"),
    "grid_feeder/question_difference": (
        "audit gap (SPEC): '0.3 kV' is 11 kV from the question minus the recorded 10.7 kV; "
        "derivations only combine recorded outputs, never a number from the question"),
}


def _answers():
    for sc, ans in bench.iter_answers(CORPUS):
        marks = ()
        if ans["id"] in KNOWN:
            marks = (pytest.mark.xfail(strict=True, reason=KNOWN[ans["id"]]),)
        yield pytest.param(sc, ans, id=ans["id"], marks=marks)


@pytest.fixture(autouse=True)
def clean_datums():
    saved = datums._save_state()
    yield
    datums._restore_state(saved)


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
    assert rates["false_alarm_rate"] <= 0.25   # measured 20.0% (13/65) when the corpus was built


def test_detection_rate(rates):
    new = [i for i in rates["missed"] if i not in KNOWN]
    print(f"detection: {rates['wrong'] - len(rates['missed'])}/{rates['wrong']} "
          f"= {rates['detection_rate']:.1%}, missed {rates['missed']}")
    assert not new, f"wrong answers passed that KNOWN does not explain: {new}"
    assert rates["detection_rate"] >= 0.90


def test_random_acceptance_rates():
    """Sums and differences only: few random numbers pass as sourced or derived."""
    r3, r6 = bench.random_acceptance(3), bench.random_acceptance(6)
    print(f"random acceptance: 3 outputs {r3['rate']:.2%}, 6 outputs {r6['rate']:.2%}")
    assert r3["rate"] < 0.10
    assert r6["rate"] < 0.20
    assert r3["rate"] <= r6["rate"]
