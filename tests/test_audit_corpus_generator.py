"""The generated answer corpus (bench/corpus -> tests/data/audit_corpus_generated.json).

The corpus is the instrument that measures the answer audit, so it is tested on its own terms:
it is exactly what the generator writes, its labels follow from the replayed ledgers and the
suites' ground truth (never from the audit), it covers every task of every suite in every style
with both labels, and the checker that guards the labels catches a mislabelled answer.
"""
from __future__ import annotations

import copy
import importlib.util
import json
import math
import re
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bench.corpus import OUT, dumps, generate, load
from bench.corpus import numbers as N
from bench.corpus.check import aliases, check_corpus, problems
from bench.corpus.model import ERROR_KINDS, IDENTITIES
from bench.harness import suites

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def corpus():
    return load()


@pytest.fixture(scope="module")
def fresh():
    return generate()


def _answers(c):
    return [(sc, a) for sc in c["scenarios"] for a in sc["answers"]]


# -- the committed file is the generator's output ---------------------------------------------
def test_committed_corpus_is_a_fresh_generation(fresh):
    committed = OUT.read_text(encoding="utf-8")
    assert committed == dumps(fresh), (
        "tests/data/audit_corpus_generated.json differs from a fresh generation: run "
        "`python -m bench.corpus` and commit the result")


@pytest.mark.parametrize("seed", [1, 7, 42])
def test_labels_are_consistent_for_other_seeds(seed):
    """The labels hold for any seed, not only for the committed one."""
    bad = check_corpus(generate(seed))
    assert not bad, "\n".join(f"{k}: {v}" for k, v in list(bad.items())[:10])


def test_generation_depends_on_the_seed(fresh):
    other = generate(seed=1)
    texts = [a["text"] for _, a in _answers(fresh)]
    assert [a["text"] for _, a in _answers(other)] != texts
    assert len(_answers(other)) == len(texts)   # the structure does not depend on the seed


def test_cli_check_reports_a_stale_file(tmp_path):
    from bench.corpus.__main__ import main
    path = tmp_path / "c.json"
    assert main(["--out", str(path)]) == 0
    assert main(["--out", str(path), "--check"]) == 0
    path.write_text(path.read_text(encoding="utf-8").replace("ANSWER", "ANSWR", 1),
                    encoding="utf-8")
    assert main(["--out", str(path), "--check"]) == 1


# -- coverage ---------------------------------------------------------------------------------
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
    assert set(kinds) == set(ERROR_KINDS), set(ERROR_KINDS) - set(kinds)
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


# -- labels follow from the facts ----------------------------------------------------------
def test_labels_are_consistent(corpus):
    bad = check_corpus(corpus)
    assert not bad, "\n".join(f"{k}: {v}" for k, v in list(bad.items())[:20])


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
    from bench.corpus.tasks import build_ledger
    for sc in corpus["scenarios"]:
        ledger = build_ledger(sc["suite"], sc["task"], [tuple(c) for c in sc["calls"]])
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


@pytest.mark.parametrize("key", sorted(IDENTITIES))
def test_identities_are_true(key):
    from quantity_guard import Q
    spell = {"cfs": "cfs", "ft³/s": "ft**3/s", "m³/s": "m**3/s", "km²": "km**2", "m²": "m**2",
             "day": "day", "d": "day", "s": "s", "m": "m", "mm": "mm", "Ml": "ML", "ML": "ML",
             "m³": "m**3", "Ml/d": "ML/d", "MVA": "MVA", "VA": "VA", "kV": "kV", "V": "V",
             "MW": "MW", "kW": "kW", "MWh": "MWh", "kWh": "kWh", "ft": "ft", "J": "J",
             "GJ": "GJ", "MJ": "MJ", "L": "L"}
    for (lv, lu), (rv, ru) in IDENTITIES[key]:
        got = Q(lv, spell[lu]).to(spell[ru]).magnitude
        assert math.isclose(got, rv, rel_tol=2e-5), (key, lv, lu, rv, ru, got)


# -- the checker catches mislabelled answers ---------------------------------------------------
def _first(corpus, ok: bool, error: str | None = None):
    for sc, a in _answers(corpus):
        if a["ok"] == ok and (error is None or a["error"] == error):
            return sc, copy.deepcopy(a)
    raise AssertionError("no such answer")


def test_checker_rejects_a_misrounded_figure(corpus):
    sc, a = _first(corpus, True)
    fig = next(f for f in a["figures"] if f["kind"] == "output")
    fig["value"] *= 1.1
    assert any("rounded" in p for p in problems(sc, a))


def test_checker_rejects_a_correct_label_on_a_wrong_answer(corpus):
    sc, a = _first(corpus, False, "cross_datum")
    a["ok"], a["label"], a["error"] = True, "correct", None
    assert problems(sc, a)


def test_checker_rejects_a_wrong_figure_that_is_legitimate(corpus):
    sc, a = _first(corpus, False, "wrong_arithmetic")
    fig = next(f for f in a["figures"] if f.get("error"))
    fig["value"] = sc["truth"]
    assert any("within rounding of a legitimate figure" in p for p in problems(sc, a))


def test_checker_rejects_a_misplaced_span(corpus):
    sc, a = _first(corpus, True)
    a["figures"][0]["start"] += 1
    assert any("is not the text" in p for p in problems(sc, a))


def test_aliases_name_the_cross_datum_arithmetic():
    entries = [{"tool": "crest", "value": 32.0, "unit": "ft"},
               {"tool": "forecast", "value": 27.5, "unit": "ft"},
               {"tool": "offset", "value": -0.44, "unit": "ft"}]
    assert "crest - forecast" in aliases(entries, 4.5, "ft", 0.1)
    assert aliases(entries, 4.9, "ft", 0.1) == []
    assert "crest" in aliases(entries, 9.75, "m", 0.01)      # 32 ft in metres
    assert aliases(entries, 4.5, None, 0.1) == []


# -- number writing ----------------------------------------------------------------------------
def _parse(text: str) -> float:
    t = text.replace("\u2212", "-")
    for sep in (",", N.THIN, N.NNBSP, " "):
        t = t.replace(sep, "") if not re.search(r"[×x·]|\\times", t) else t
    sup = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
    m = re.fullmatch(r"(-?[\d.]+)\s*(?:×|x|·|\\times)\s*10\^?\{?([-\d⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)\}?", t)
    if m:
        return float(m.group(1)) * 10.0 ** int(m.group(2).translate(sup))
    return float(t)


values = st.floats(min_value=1e-6, max_value=1e9, allow_nan=False).flatmap(
    lambda v: st.sampled_from([v, -v]))


@settings(max_examples=300, deadline=None)
@given(values, st.integers(1, 6), st.sampled_from(sorted(N.GROUPINGS.values())),
       st.sampled_from(["-", N.MINUS]))
@example(9.996, 3, ",", "-")
@example(0.25, 2, "", "-")
@example(50400.0, 2, "\u2009", N.MINUS)
def test_positional_text_denotes_its_value(v, sig, group, minus):
    w = N.positional(v, sig=sig, group=group, group_min=4, minus=minus)
    assert _parse(w.text) == pytest.approx(w.value, rel=1e-12, abs=1e-300)
    assert N.within(w.value, w.step, v), (v, sig, w)


@settings(max_examples=300, deadline=None)
@given(values, st.integers(1, 6), st.sampled_from(N.SCI_SPELLINGS))
@example(9.9996e-5, 3, "e")
@example(1250.0, 3, "times_sup")
def test_scientific_text_denotes_its_value(v, sig, spelling):
    w = N.scientific(v, sig, spelling)
    assert _parse(w.text) == pytest.approx(w.value, rel=1e-9)
    assert N.within(w.value, w.step, v, ulps=0.5 + 1e-6), (v, sig, spelling, w)


def test_scientific_spellings():
    assert N.scientific(1250, 3, "e").text == "1.25e3"
    assert N.scientific(1250, 3, "E").text == "1.25E+03"
    assert N.scientific(1250, 3, "times_sup").text == "1.25 × 10³"
    assert N.scientific(1250, 3, "x_caret").text == "1.25x10^3"
    assert N.scientific(1250, 3, "dot_caret").text == "1.25·10^3"
    assert N.scientific(1.18e-9, 3, "latex").text == "1.18 \\times 10^{-9}"
    with pytest.raises(ValueError, match="unknown scientific spelling"):
        N.scientific(1.0, 2, "roman")


def test_grouping():
    assert N.positional(2592000, decimals=0, group=N.THIN).text == "2\u2009592\u2009000"
    assert N.positional(1250, decimals=0, group=",", group_min=5).text == "1250"
    assert N.positional(1250, decimals=0, group=",", group_min=4).text == "1,250"
    assert N.positional(-0.44, decimals=2, minus=N.MINUS).text == "\u22120.44"
    assert N.positional(-0.44, decimals=2, signed=False).value == 0.44


# -- the rate script survives the audit ----------------------------------------------------------
def _load_rates():
    spec = importlib.util.spec_from_file_location("_audit_rates_gen",
                                                  ROOT / "bench" / "audit_rates.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("_audit_rates_gen", module)
    spec.loader.exec_module(module)
    return module


def test_rates_count_an_audit_exception_separately(corpus, monkeypatch):
    rates = _load_rates()
    small = {**corpus, "scenarios": [copy.deepcopy(corpus["scenarios"][0])]}
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
    rows = rates.run_generated(small)
    assert [r["exception"] for r in rows].count("RuntimeError: injected") == 1
    tally = rates.generated_rates(rows)["overall"]
    assert tally["exceptions"] == 1
    assert tally["correct"] + tally["incorrect"] == 4
    ran = [r for r in rows if r["exception"] is None]
    assert tally["false_alarms"] + tally["detected"] == sum(not r["audit_ok"] for r in ran)


def test_rates_group_by_style_task_and_error(corpus):
    rates = _load_rates()
    rows = rates.run_generated(corpus)
    g = rates.generated_rates(rows)
    assert set(g["style"]) == {a["style"] for _, a in _answers(corpus)}
    assert len(g["task"]) == 10
    o = g["overall"]
    assert o["correct"] + o["incorrect"] == len(rows)
    assert sum(t["correct"] for t in g["style"].values()) == o["correct"]
    assert json.dumps(g["overall"])  # plain data


# -- hand-written answers ----------------------------------------------------------------------
def test_hand_written_answers_are_in_the_corpus_with_both_labels(corpus):
    from bench.corpus.hand import HAND
    hand = [a for _, a in _answers(corpus) if a["style"] == "hand"]
    assert len(hand) == len(HAND) >= 30
    assert {a["label"] for a in hand} == {"correct", "incorrect"}
    scenario_ids = {sc["id"] for sc in corpus["scenarios"]}
    assert {h[0] for h in HAND} <= scenario_ids


@pytest.mark.parametrize("text, value, step", [
    ("1,250", 1250.0, 1.0), ("29\u2009940", 29940.0, 1.0), ("\u22120.44", -0.44, 0.01),
    ("1.25e3", 1250.0, 10.0), ("1.25E+03", 1250.0, 10.0), ("1.182 × 10⁻⁹", 1.182e-9, 1e-12),
    ("2.994x10^10", 2.994e10, 1e7), ("5.04·10^4", 50400.0, 100.0),
    ("90 \\times 10^{6}", 9e7, 1e6), ("10⁶", 1e6, 0.0), ("+0.44", 0.44, 0.01),
])
def test_parse_number(text, value, step):
    from bench.corpus.hand import parse_number
    v, s = parse_number(text)
    assert v == pytest.approx(value) and s == pytest.approx(step)


def test_hand_markup_with_an_unknown_fact_fails_loudly():
    import random
    from bench.corpus.hand import compile_answer
    from bench.corpus.render import Writer, new_opts
    w = Writer(random.Random(0), {}, new_opts(random.Random(0)))
    with pytest.raises(KeyError):
        compile_answer(w, "depth ⟦0.1|D|u⟧ mm/d")
