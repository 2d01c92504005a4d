"""Label consistency: every label follows from the facts, never from the audit.

``problems(scenario, answer)`` lists what is wrong with one generated answer's record:

- every recorded figure is the text at its span;
- a correct answer has no wrong figure, and every quantity figure is its fact's value rounded to
  nearest at the written precision (a range bound within one step), with the rounding error a
  careful writer allows (0.6 %, 3 % when hedged);
- an incorrect answer has a wrong figure, and every wrong figure, read with its unit and datum,
  is not within rounding of any legitimate figure of the scenario (its facts in SI); at least one
  is also not within rounding *as written* (a bare magnitude against every legitimate magnitude),
  unless the error is a sign said in words; an arithmetic, magnitude or formula error is more
  than 5 % from the truth.

``aliases(entries, value, unit, step)`` names the one-step combinations of recorded outputs (sum,
difference, product, ratio; datum-blind) that reproduce a figure within its written rounding: a
wrong figure with an alias cannot be told from a derivation by arithmetic alone.
"""
from __future__ import annotations

import itertools
import math

from . import units as U

QUANTITY_KINDS = {"output", "conversion", "derivation", "question"}
KINDS = QUANTITY_KINDS | {"constant", "identity", "non_quantity", "wrong"}
_DIGIT_KINDS = {"wrong_arithmetic", "magnitude", "wrong_formula"}


def _si(value: float, unit: str | None) -> tuple:
    return U.dims(unit), value * U.si_factor(unit)


def _legit(sc: dict) -> list:
    """(dims, SI value, datum, magnitude) of every legitimate fact of the scenario."""
    out = []
    for f in sc["facts"].values():
        d, v = _si(f["value"], f["unit"])
        out.append((d, v, f.get("datum"), f["value"]))
    return out


def _near(a: float, b: float, tol: float) -> bool:
    return abs(a - b) <= tol + 1e-9 * max(abs(a), abs(b))


def problems(sc: dict, ans: dict) -> list[str]:
    out = []
    text = ans["text"]
    facts = sc["facts"]
    last = -1
    for fig in ans["figures"]:
        if text[fig["start"]:fig["end"]] != fig["text"]:
            out.append(f"figure {fig['text']!r} is not the text at {fig['start']}:{fig['end']}")
        if fig["start"] < last:
            out.append(f"figure {fig['text']!r} overlaps the previous one")
        last = fig["end"]
        if fig["kind"] not in KINDS:
            out.append(f"figure {fig['text']!r}: unknown kind {fig['kind']!r}")
    covered = set()
    for fig in ans["figures"]:
        covered.update(range(fig["start"], fig["end"]))
    stray = [i for i, ch in enumerate(text) if ch.isascii() and ch.isdigit() and i not in covered]
    if stray:
        out.append(f"digits not in any recorded figure at {stray[:5]}: "
                   f"{text[max(0, stray[0] - 10):stray[0] + 10]!r}")
    wrong = [f for f in ans["figures"] if f.get("error")]
    if ans["ok"]:
        if wrong or ans["error"]:
            out.append("a correct answer with a wrong figure")
        for fig in ans["figures"]:
            if fig["kind"] not in QUANTITY_KINDS:
                continue
            fact = facts.get(fig["fact"])
            if fact is None:
                out.append(f"figure {fig['text']!r}: fact {fig['fact']} is not legitimate here")
                continue
            ulps = 1.0 if fig.get("range_bound") else 0.5
            if not _near(fig["value"], fact["value"], ulps * fig.get("step", 0.0)):
                out.append(f"figure {fig['text']!r} = {fig['value']} is not {fact['value']} "
                           f"rounded at step {fig['step']}")
            limit = 0.03 if fig.get("hedged") else 0.006
            if not fig.get("range_bound") and fact["value"] and \
                    abs(fig["value"] - fact["value"]) > limit * abs(fact["value"]):
                out.append(f"figure {fig['text']!r}: rounding error above {limit:.1%}")
            if fig["kind"] != fact["kind"]:
                out.append(f"figure {fig['text']!r}: kind {fig['kind']} but fact is "
                           f"{fact['kind']}")
        return out
    if not ans["error"] or not wrong:
        return out + ["an incorrect answer without a wrong figure"]
    legit = _legit(sc)
    visible = False
    truth = sc["truth"]
    for fig in wrong:
        unit = fig.get("unit") if fig.get("unit") is not None else fig.get("meant_unit")
        d, v = _si(fig["value"], unit)
        tol = 0.5 * fig.get("step", 0.0) * U.si_factor(unit)
        hits = [x for x in legit if x[0] == d and _near(v, x[1], max(tol, 0.005 * abs(x[1])))
                and (fig.get("datum") is None or x[2] in (None, fig.get("datum")))]
        if hits:
            out.append(f"wrong figure {fig['text']!r} ({fig['value']} {unit}) is within rounding "
                       f"of a legitimate figure ({hits[0][1]} SI)")
        shown = abs(fig["value"]) if fig.get("sign_in_words") else fig["value"]
        if fig.get("unit") is None:
            as_written = any(_near(shown, x[3], max(0.5 * fig.get("step", 0.0), 0.005 * abs(x[3])))
                             for x in legit)
        else:
            dw, vw = _si(shown, fig.get("unit"))
            as_written = any(x[0] == dw and _near(vw, x[1], max(tol, 0.005 * abs(x[1])))
                             and (fig.get("datum") is None or x[2] in (None, fig.get("datum")))
                             for x in legit)
        visible = visible or not as_written
        if fig["error"] in _DIGIT_KINDS and fig["fact"] == sc["final"] and truth:
            if abs(fig["value"] - truth) <= 0.05 * abs(truth):
                out.append(f"{fig['error']} figure {fig['text']!r} within 5% of the truth")
    if not visible and ans["error"] != "sign_only":
        out.append("no wrong figure is visible as written (every one matches a legitimate "
                   "figure's digits)")
    return out


def aliases(entries: list, value: float, unit: str | None, step: float) -> list[str]:
    """One-step combinations of recorded outputs equal to ``value unit`` within half a step."""
    if unit is None:
        return []
    d, v = _si(value, unit)
    tol = 0.5 * step * U.si_factor(unit) + 1e-9 * abs(v)
    outs = []
    for e in entries:
        from quantity_guard.units import parse_unit
        u = parse_unit(e["unit"])
        outs.append((e["tool"], tuple(u.dims), float(e["value"]) * float(u.scale)))
    found = []
    for name, dd, x in outs:
        if dd == d and abs(x - v) <= tol:
            found.append(name)
        if dd == d and abs(-x - v) <= tol:
            found.append(f"-{name}")
    for (na, da, a), (nb, db, b) in itertools.permutations(outs, 2):
        if da == db == d:
            if abs(a + b - v) <= tol:
                found.append(f"{na} + {nb}")
            if abs(a - b - v) <= tol:
                found.append(f"{na} - {nb}")
        if tuple(x + y for x, y in zip(da, db)) == d and abs(a * b - v) <= tol:
            found.append(f"{na} * {nb}")
        if tuple(x - y for x, y in zip(da, db)) == d and b and abs(a / b - v) <= tol:
            found.append(f"{na} / {nb}")
    return sorted(set(found))


def check_corpus(corpus: dict) -> dict:
    """{answer id: [problems]} for every answer with a problem."""
    bad = {}
    for sc in corpus["scenarios"]:
        for ans in sc["answers"]:
            p = problems(sc, ans)
            if p:
                bad[ans["id"]] = p
    return bad


__all__ = ["problems", "aliases", "check_corpus", "math"]
