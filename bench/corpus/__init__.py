"""A generated, labelled corpus of final answers for measuring the answer audit.

    python -m bench.corpus --out tests/data/audit_corpus_generated.json

For every task of every bench suite (core, uk, grid, opacity) and each ledger variant of it
(tasks.py), the task's tool calls are replayed through the real guarded bench tools inside
``session(context=question)``; the facts a correct answer may state are built from the outputs
that ledger recorded; answers are written in many styles (styles.py) with seeded writing habits
(render.py), and labelled by construction:

- ``correct``: every figure is a recorded output (copied or rounded as a careful writer would),
  an exact unit conversion of one, a one-step sum/difference/product/ratio of figures (with
  well-known constants and exact unit factors), a figure the question states, or not a quantity
  (ids, dates, step labels); the final value is the task's truth, or "unavailable" when the
  ledger cannot give one.
- ``incorrect``: exactly one error (model.ERROR_KINDS) made visible in the text, recorded with
  the figures it produced.

The audit is never run here. Generation is deterministic for a seed: the committed corpus is
byte-identical to a fresh generation (tests/test_audit_corpus_generator.py).
"""
from __future__ import annotations

import json
import random
from pathlib import Path

from . import numbers as N
from .check import aliases
from .hand import HAND, compile_answer
from .model import ERROR_KINDS, depth
from .render import Writer, new_opts
from .styles import STYLES
from .tasks import TASKS, replay

SEED = 20261130
VERSION = 1
ROOT = Path(__file__).resolve().parent.parent.parent
OUT = ROOT / "tests" / "data" / "audit_corpus_generated.json"

# styles that need a signed figure in the plan to mean anything
_SIGNED_TASKS = {"freeboard", "level_threshold"}


def styles_for(task: str) -> list[str]:
    return [s for s in STYLES if s != "signed_words" or task in _SIGNED_TASKS]


def _modifiers(text: str, figures: list, opts: dict) -> list[str]:
    mods = []
    if N.THIN in text:
        mods.append("thin_space_grouping")
    if N.NNBSP in text:
        mods.append("nnbsp_grouping")
    if any(f.get("kind") != "non_quantity" and " " in f["text"] and "×" not in f["text"]
           for f in figures):
        mods.append("space_grouping")
    if any("," in f["text"] and f.get("kind") != "non_quantity" for f in figures):
        mods.append("comma_grouping")
    if N.MINUS in text:
        mods.append("unicode_minus")
    if any(f.get("hedged") for f in figures):
        mods.append("hedged")
    sci = [f for f in figures if f.get("kind") != "non_quantity" and
           any(m in f["text"] for m in ("e", "E", "×", "x10", "·10", "\\times"))]
    if sci:
        mods.append("sci_notation")
    if any(f.get("sign_in_words") for f in figures):
        mods.append("sign_in_words")
    if any(f.get("range_bound") for f in figures):
        mods.append("range")
    if any(f.get("kind") in ("constant", "identity") for f in figures):
        mods.append("factors")
    if any(f.get("what") in ("timestamp", "step label") for f in figures):
        mods.append("non_quantity_digits")
    return mods


def render_answer(rng: random.Random, style: str, facts: dict, plan) -> tuple[str, list, list]:
    opts = new_opts(rng)
    w = Writer(rng, facts, opts)
    STYLES[style](w, plan)
    return w.text(), w.figures, _modifiers(w.text(), w.figures, opts)


def _force_error(rng, text, figures, facts, spec):
    """Append the wrong figure when the style left it out (a terse answer skips inputs)."""
    w = Writer(rng, facts, new_opts(rng))
    w._raw(text)
    w.t(rng.choice(["\n\n(Inputs used: ", "\n\nNote: ", " ("]))
    for i, key in enumerate(spec.must_show):
        if i:
            w.t(", ")
        f = facts[key]
        w.t(f"{f.name} ")
        w.fig(key)
    w.t(")" if w.parts[-len(spec.must_show) * 3 - 1].endswith("(") else ".")
    return w.text(), figures + w.figures


def _calls_with_failures(calls, failed_tools) -> list:
    failed = list(failed_tools)
    out = []
    for name, args in calls:
        bad = name in failed
        if bad:
            failed.remove(name)
        out.append((name, args, bad))
    return out


def generate(seed: int = SEED) -> dict:
    rng = random.Random(seed)
    scenarios = []
    for suite, task, variants, build in TASKS:
        for variant, calls in variants.items():
            rp = replay(suite, task, variant, calls)
            facts, plan, errors = build(rp)
            plan.calls = _calls_with_failures(calls, rp.errors)
            sid = f"{suite}/{task}/{variant}"
            answers = []
            styles = styles_for(task)
            rounds = 2 if variant in ("reference", "no_offset", "no_datum") else 1
            order = list(range(len(errors)))
            rng.shuffle(order)
            e_i = 0
            for _ in range(rounds):
                for style in styles:
                    for label in ("correct", "incorrect"):
                        if label == "correct":
                            text, figs, mods = render_answer(rng, style, facts, plan)
                            spec = None
                        else:
                            spec = errors[order[e_i % len(order)]]
                            e_i += 1
                            wfacts = {**facts, **spec.overrides}
                            changes = dict(spec.plan)
                            if plan.final in spec.overrides and "final_alts" not in changes:
                                changes["final_alts"] = []
                            wplan = plan.copy(**changes)
                            text, figs, mods = render_answer(rng, style, wfacts, wplan)
                            if not any(f.get("error") for f in figs):
                                text, figs = _force_error(rng, text, figs, wfacts, spec)
                                mods = mods + ["error_appended"]
                        for fig in figs:
                            if fig.get("error"):
                                unit = fig["unit"] or fig.get("meant_unit")
                                fig["aliases"] = aliases(rp.entries, fig["value"], unit,
                                                         fig["step"])
                        two_step = any(fg.get("depth", 0) > 1 for fg in figs)
                        answers.append({
                            "id": f"{sid}/{len(answers):03d}",
                            "style": style, "modifiers": mods + (["two_step"] if two_step
                                                                 else []),
                            "label": label, "ok": label == "correct",
                            "error": spec.kind if spec else None,
                            "error_note": spec.note if spec else None,
                            "text": text, "figures": figs})
            for ok, error, marked in [(h[1], h[2], h[3]) for h in HAND if h[0] == sid]:
                w = Writer(rng, facts, new_opts(rng))
                compile_answer(w, marked)
                figs = w.figures
                for fig in figs:
                    if fig.get("error"):
                        fig["aliases"] = aliases(rp.entries, fig["value"],
                                                 fig.get("unit") or fig.get("meant_unit"),
                                                 fig["step"])
                two_step = any(fg.get("depth", 0) > 1 for fg in figs)
                answers.append({
                    "id": f"{sid}/{len(answers):03d}", "style": "hand",
                    "modifiers": _modifiers(w.text(), figs, {}) + (["two_step"] if two_step
                                                                   else []),
                    "label": "correct" if ok else "incorrect", "ok": ok, "error": error,
                    "error_note": "hand-written" if error else None,
                    "text": w.text(), "figures": figs})
            scenarios.append({
                "id": sid, "suite": suite, "task": task, "variant": variant,
                "question": rp.question,
                "calls": [[name, args] for name, args in calls],
                "outputs": rp.entries, "failed_calls": rp.errors,
                "final": plan.final, "truth": facts[plan.final].value if plan.final else None,
                "facts": {k: {**_fact_json(f), "depth": depth(facts, k)}
                          for k, f in facts.items()},
                "answers": answers})
    return {"description": __doc__.split("\n\n")[0].strip(),
            "generator": "bench/corpus (python -m bench.corpus)", "seed": seed,
            "version": VERSION, "error_kinds": list(ERROR_KINDS),
            "styles": list(STYLES), "scenarios": scenarios}


def _fact_json(f) -> dict:
    out = {"value": f.value, "unit": f.unit, "kind": f.kind, "name": f.name}
    for k in ("datum", "tool", "of", "op"):
        if getattr(f, k):
            out[k] = getattr(f, k)
    if f.args:
        out["operands"] = list(f.args)
    return out


def _compact(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _clean(fig: dict) -> dict:
    return {k: v for k, v in fig.items() if v is not None and v is not False}


def dumps(corpus: dict) -> str:
    """One answer per line, so a diff of the corpus reads answer by answer."""
    lines = ["{"]
    for k, v in corpus.items():
        if k != "scenarios":
            lines.append(f" {json.dumps(k)}: {_compact(v)},")
    lines.append(' "scenarios": [')
    for i, sc in enumerate(corpus["scenarios"]):
        head = {k: v for k, v in sc.items() if k != "answers"}
        lines.append("  {" + _compact(head)[1:-1] + ',"answers":[')
        for j, a in enumerate(sc["answers"]):
            a = {**a, "figures": [_clean(f) for f in a["figures"]]}
            lines.append("   " + _compact(a) + ("," if j < len(sc["answers"]) - 1 else ""))
        lines.append("  ]}" + ("," if i < len(corpus["scenarios"]) - 1 else ""))
    lines.append(" ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def load(path: Path = OUT) -> dict:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def iter_answers(corpus: dict):
    for sc in corpus["scenarios"]:
        for ans in sc["answers"]:
            yield sc, ans
