"""The generated answer corpus (evaluation/answers/audit_corpus_generated.json), read as data.

It is the instrument that measures the answer audit, so it is checked on its own terms: its
labels follow from the replayed ledgers and the suites' ground truth (never from the audit), it
covers every task of every suite in every style with both labels and the writing habits real
answers have, and its calls replay to the outputs it recorded. It was built once
(evaluation/README.md names the generator's commit).
"""
from __future__ import annotations

import math
import re
from collections import Counter

import pytest

from bench.harness import suites
from evaluation import answer_sets as sets


@pytest.fixture(scope="module")
def corpus():
    return sets.read(sets.GENERATED)


def _answers(c):
    return [(sc, a) for sc in c["scenarios"] for a in sc["answers"]]


def test_every_task_of_every_suite_has_both_labels(corpus):
    labels: dict = {}
    for sc, a in _answers(corpus):
        labels.setdefault((sc["suite"], sc["task"]), set()).add(a["label"])
    expected = {(name, t.id) for name in suites.available() for t in suites.load(name).tasks}
    assert set(labels) == expected
    assert all(v == {"correct", "incorrect"} for v in labels.values()), labels


def test_size_styles_and_error_kinds(corpus):
    answers = [a for _, a in _answers(corpus)]
    assert len(answers) >= 1000
    by_style: dict = {}
    for a in answers:
        by_style.setdefault(a["style"], Counter())[a["label"]] += 1
    assert len(by_style) >= 12
    for style, n in by_style.items():
        assert n["correct"] >= 10 and n["incorrect"] >= 10, (style, n)
    kinds = Counter(a["error"] for a in answers if a["error"])
    assert set(kinds) == set(corpus["error_kinds"]), set(corpus["error_kinds"]) - set(kinds)
    ids = [a["id"] for a in answers]
    assert len(ids) == len(set(ids))
    c = Counter(a["label"] for a in answers)
    assert 0.4 <= c["correct"] / len(answers) <= 0.6


def test_the_writing_habits_real_answers_have(corpus):
    text = "\n".join(a["text"] for _, a in _answers(corpus))
    needles = {
        "thin space grouping": re.compile(r"\d\u2009\d{3}"),
        "narrow no-break space grouping": re.compile(r"\d\u202f\d{3}"),
        "space grouping": re.compile(r"\d \d{3}\b"),
        "comma grouping": re.compile(r"\d,\d{3}"),
        "Unicode minus": re.compile("\u2212\\d"),
        "e notation": re.compile(r"\d\.\d+e-?\d"),
        "E+ notation": re.compile(r"\d\.\d+E[+-]\d\d"),
        "× 10 superscript": re.compile("× 10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]"),
        "x10^": re.compile(r"\dx10\^-?\d"),
        "·10^": re.compile(r"\d·10\^-?\d"),
        "LaTeX times": re.compile(r"\\times 10\^\{-?\d+\}"),
        "LaTeX frac": re.compile(r"\\frac\{"),
        "LaTeX sqrt": re.compile(r"\\sqrt\{3\}"),
        "√3": re.compile("√3"),
        "approx": re.compile("≈|\\\\approx"),
        "markdown table": re.compile(r"\|---"),
        "step labels": re.compile(r"Step \d"),
        "ISO 8601": re.compile("ISO 8601"),
        "zone name": re.compile(r"Etc/GMT\+6"),
        "zone offset": re.compile(r"-06:00"),
        "unit exponent": re.compile(r"km\^2|m\^3/s"),
        "echoed JSON": re.compile(r'"value": \d'),
        "station id in JSON": re.compile(r'"(station_id|id|site)": "?\d'),
        "range": re.compile(r"between [\d.,]+ and [\d.,]+|\d[–-]\d"),
        "hedge": re.compile(r"\b(about|roughly|approximately|around) \d|~\d"),
        "sign in words": re.compile(r"\d ft lower|above the (crest|threshold)"),
        "conversion identity": re.compile(r"1 cfs ≈? ?=? ?0\.0283168 m³/s|1 cfs [=≈] 0\.0283168"),
        "factor": re.compile(r"86[,\u2009\u202f ]?400 s/d"),
        "percentage factor": re.compile(r"× 100|\* 100|· 100|x 100"),
        "energy factor": re.compile(r"3\.6 ?× ?10⁹ J/MWh|3\.6e9 J/MWh"),
        "litres factor": re.compile(r"1[,\u2009\u202f ]?000 L/m³|1 m³ = 1[,\u2009\u202f ]?000 L"),
        "full precision": re.compile(r"0\.10214493760641\d+"),
        "parenthetical conversion": re.compile(r"cfs \([^)]*m[³^3]"),
    }
    missing = [name for name, rx in needles.items() if not rx.search(text)]
    assert not missing, missing


def test_finals_are_the_suites_truth(corpus):
    for sc in corpus["scenarios"]:
        task = suites.load(sc["suite"]).task(sc["task"])
        ref = task.reference()
        if sc["final"] is None:
            # no value can be given: the task is unavailable, or the ledger lacks a datum step
            datum_steps = {s["call"] for s in task.plan if s.get("datum_step")}
            called = {c[0] for c in sc["calls"]}
            assert task.expect == "unavailable" or datum_steps - called, sc["id"]
            continue
        assert task.expect == "value", sc["id"]
        # 1e-5: a model that converted an input itself sent it rounded (35.396 m3/s), so the
        # tool's output differs from the reference path's in the sixth figure
        assert math.isclose(sc["truth"], ref.truth.magnitude, rel_tol=1e-5), sc["id"]
        assert sc["facts"][sc["final"]]["unit"] == task.answer_unit, sc["id"]


def test_output_figures_are_what_the_ledger_recorded(corpus):
    for sc, a in _answers(corpus):
        recorded = {(o["tool"], o["value"]) for o in sc["outputs"]}
        for f in a["figures"]:
            if f["kind"] == "output":
                fact = sc["facts"][f["fact"]]
                assert (fact["tool"], fact["value"]) in recorded, (a["id"], f)


def test_the_ledgers_replay_as_recorded(corpus):
    for sc in corpus["scenarios"]:
        ledger = sets.scenario_ledger(sc)
        got = [{"tool": e.tool, **e.as_dict()["quantity"]} for e in ledger.output_entries()]
        assert got == sc["outputs"], sc["id"]


def test_derivations_are_one_step_or_marked_two_step(corpus):
    """A correct figure is at most one step from recorded outputs, or two through a derived
    intermediate (freeboard by hand: 32.0 - 0.44 = 31.56, then 31.56 - 27.5 = 4.06, whether
    or not the answer writes 31.56); those answers carry the modifier two_step so the rates
    can be read without them."""
    for sc, a in _answers(corpus):
        if not a["ok"]:
            continue
        deep = [f for f in a["figures"] if f.get("depth", 0) > 1]
        assert all(f["depth"] == 2 for f in deep), a["id"]
        assert bool(deep) == ("two_step" in a["modifiers"]), a["id"]
        for f in deep:
            operands = sc["facts"][f["fact"]].get("operands") or [sc["facts"][f["fact"]]["of"]]
            inter = [o for o in operands if sc["facts"].get(o, {}).get("depth", 0) >= 1]
            assert inter, (a["id"], f)


def test_hand_written_answers_are_in_the_corpus_with_both_labels(corpus):
    hand = [a for _, a in _answers(corpus) if a["style"] == "hand"]
    assert len(hand) >= 30
    assert {a["label"] for a in hand} == {"correct", "incorrect"}
