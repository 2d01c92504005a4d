"""The follow-up passes over an answer's findings: hypotheticals, odds, general statements,
per-period figures, durations, roundings, discarded and retracted figures, call arguments,
elevation shares, ranges and formula operands.
"""
from __future__ import annotations

import math
import re
from itertools import chain

from ..units.dimension import DIMENSIONLESS as _DIMENSIONLESS
from ..numeric import fmt_g, is_close, power_dims
from .codes import Reason, Skip
from ..reading.text import LENGTH, Number, read_phrase, TIME
from .findings import Audit, entry_name, Finding, matching_input, shown, si_of, violating_inputs
from .context import Context
from .formula import (bracket_after, BRACKET_OP, chain_checks, evaluate, formula_matches,
    formula_tokens, single_phase_step)
from .classify import classify, LIMIT_NOUNS
from .factors import factor_note, truncated
from .revisions import revise


_ACCEPTED = ("sourced", "derived", "quoted", "factor", "operand")
# ``discarded`` and ``hypothetical`` are accepted too, but explain nothing: they never stand
# for another number
# what the context may still explain (a factor, an operand, a range end); a tainted number
# stays tainted: no formula written around it makes its source sound
_REEXPLAIN = ("unsourced", "unit_mislabelled")


# a figure the answer does not claim: what a mistake would have given, or a what-if
MODAL = re.compile(r"\b(?:would|could|might)\b|\w'd\b|\b(?:suppos(?:e|ing)|hypothetical(?:ly)?|"
                    r"scenario|what if)\b", re.I)
_COUNTERFACTUAL = re.compile(
    r"\bwould have\b|\bhad\b[^.;\n]{0,60}\b(?:been|read|used|passed|applied|taken|ignored)\b|"
    r"\bwithout (?:the|a|its|any) (?:[\w\u2192>/ -]{0,30})?(?:conversion|correction|offset|unit|"
    r"shift)|\b(?:which|that) (?:is|was|would be) (?:wrong|incorrect)|\bmix(?:es|ing)? (?:the )?"
    r"datums|\bdirectly\b|\btoo (?:high|large|low|small|big)\b|\boverstat|\bunderstat|"
    r"\bby mistake\b|\bwrongly\b|\bnaive(?:ly)?\b|\btoo (?:little|much|few|many)\b|"
    r"\b(?:treat|tak|read|mistak)(?:ing|en|e|ed)? [^.;\n]{1,30} as\b", re.I)
_WHAT_IF = re.compile(
    r"\bif\b|\bsustained\b|\bheld (?:for|over)\b|\bover (?:a|the) (?:full|whole)\b|\boverload|"
    r"\bwere\b|\bat \S{1,6} ?% (?:load|of)\b|\bat (?:the )?same\b|"
    r"\S{1,6} ?% (?:rise|increase|drop|fall|decrease|cut|higher|lower|more|less|over|under)|"
    r"\bat (?:half|a quarter|a third|double|twice)\b|"
    r"\bfor a (?:full |whole )?(?:day|week|month|year)\b|"
    r"\b(?:suppos(?:e|ing)|hypothetical(?:ly)?|scenario|what if)\b|"
    r"\b(?:halved|doubled|tripled|twice|double|half)\b|"
    r"\d\s?[^\s\d]{1,6}\s(?:lower|higher|less|more|shorter|longer|smaller|larger)\b|"
    r"\d\s?(?:\u00d7|x|times)\s+(?:the|its|that|this)\b", re.I)


def hypothetical(findings: list[Finding], ctx: Context) -> list[Finding]:
    """A figure in a sentence that says it is hypothetical is no claim of the answer, when
    the answer also states its actual claim of that dimension elsewhere:

    - what a mistake would have given ("had the 1,250 been read as m3/s, the result would have
      been 3.6 mm/d"; "subtracting them directly would give 6.55 m, which mixes datums");
    - a what-if: its premise, a percentage or a duration ("if the load rose 10%", "at 80%
      load", "over a full 24 hours"), and its consequence when that is the actual figure
      scaled by the premise (55,440 kWh = 50,400 kWh x 1.1; 315 A = 393.6 A x 0.8). A premise
      that is a fact about the world ("if the load follows its usual evening peak of 9.1 MW")
      is a claim, and stays one.

    A modal alone ("abstracting would take 1.07%") is not enough: such figures are read as
    claims."""
    findings = list(findings)
    text = ctx.reading.text
    kinds: dict = {}

    def kind(n):
        a = max((m.end() for m in _SENTENCE_END.finditer(text, 0, n.nstart)), default=0)
        m = _SENTENCE_END.search(text, n.nend)
        b = m.start() if m else len(text)
        if (a, b) not in kinds:
            part = text[a:b]
            k = None
            if MODAL.search(part):
                k = "counterfactual" if _COUNTERFACTUAL.search(part) else \
                    "what-if" if _WHAT_IF.search(part) else None
            kinds[(a, b)] = (k, a, b)
        return kinds[(a, b)]

    def dims_of(n):
        return power_dims(n.unit.dims) if n.unit is not None else ("%" if n.percent else None)

    actual: dict = {}
    for g in findings:
        if g.status in ("sourced", "derived", "quoted") and kind(g.number)[0] is None:
            actual.setdefault(dims_of(g.number), []).append(g.number)
    if not actual:
        return findings
    for i, f in enumerate(findings):
        n = f.number
        if f.status not in Audit.BAD:
            continue
        k, a, b = kind(n)
        if k is None:
            continue
        d = dims_of(n)
        if k == "counterfactual":
            ok = d in actual or n.percent
            why = "what a mistake would have given"
        elif n.percent or d == TIME:
            ok, why = True, "the premise of a what-if"
        elif n.unit is None and _TIMES_AFTER.match(text, n.nend) and any(
                _scaled(g.number, base, (), ctx, [n.value])
                for g in findings if g is not f and a <= g.number.nstart < b
                for base in actual.get(dims_of(g.number), ())):
            # "2 \u00d7 the usual rate would be 0.204": a factor, with its consequence checked
            ok, why = True, "the factor of a what-if"
        else:
            ok, why = _consequence(findings, n, (a, b), actual.get(d, ()), dims_of, ctx)
        if ok:
            findings[i] = Finding(n, "hypothetical", f.match,
                                  f"{why}: not a figure the answer claims (its claim of this "
                                  f"dimension is stated outside the sentence)",
                                  Reason.HYPOTHETICAL)
    return findings


_TIMES_AFTER = re.compile(r"\s?(?:\u00d7|x\b|times\b)", re.I)
_WORD_FACTOR = re.compile(r"\b(half|halved|quarter|third|double|doubled|twice|triple|tripled)\b",
                          re.I)
_WORD_FACTORS = {"half": 0.5, "halved": 0.5, "quarter": 0.25, "third": 1 / 3.0, "double": 2.0,
                 "doubled": 2.0, "twice": 2.0, "triple": 3.0, "tripled": 3.0}


_ADDITIVE_AFTER = re.compile(r"\s+(?:lower|higher|less|more|shorter|longer|smaller|larger|"
                             r"up|down|further|extra|above|below)\b", re.I)


def _consequence(findings, n: Number, sentence, bases, dims_of, ctx: Context):
    """(ok, why) for ``n`` in a what-if sentence (``sentence``: its span): the actual figure
    (one of ``bases``) scaled by the premise, or moved by it ("a crest 1 ft lower would leave
    about 3.06 ft"); the premise of a move is then no claim either (``findings`` is updated)."""
    text, numbers = ctx.reading.text, ctx.reading.numbers
    a, b = sentence
    d = dims_of(n)
    premises = [p for p in numbers if a <= p.nstart < b and p is not n and
                (p.percent or p.unit is not None and p.unit.dims == TIME)]
    words = [_WORD_FACTORS[w.lower()] for w in _WORD_FACTOR.findall(text, a, b)] + \
        [p.value for p in numbers if a <= p.nstart < b and p is not n and
         p.unit is None and not p.percent and _TIMES_AFTER.match(text, p.nend)]
    if any(_scaled(n, base, premises, ctx, words) for base in bases):
        return True, "the actual figure scaled by the premise of a what-if"
    if n.unit is not None:
        # an additive what-if: "a crest 1 ft lower would leave about 3.06 ft" (the actual
        # 4.06 ft less the premise); the premise is then no claim either
        steps = [p for p in numbers if a <= p.nstart < b and p is not n and
                 p.unit is not None and dims_of(p) == d and _ADDITIVE_AFTER.match(text, p.nend)]
        for p in steps:
            if any(_shifted(n, base, p) for base in bases):
                j = next((k for k, g in enumerate(findings) if g.number is p), None)
                if j is not None and findings[j].status in Audit.BAD:
                    findings[j] = Finding(p, "hypothetical", findings[j].match,
                                          "the premise of a what-if: not a figure the "
                                          "answer claims", Reason.HYPOTHETICAL)
                return True, "the actual figure moved by the premise of a what-if"
    return False, "the actual figure scaled by the premise of a what-if"


def _shifted(n: Number, base: Number, p: Number) -> bool:
    """``n`` is ``base`` plus or minus the premise ``p`` (all with units of one dimension)."""
    want, have, step = si_of(n.value, n.unit), si_of(base.value, base.unit), si_of(p.value, p.unit)
    tol = max(n.tolerance * n.unit.scale, 0.005 * abs(want))
    return abs(have + step - want) <= tol or abs(have - step - want) <= tol


def _scaled(n: Number, base: Number, premises, ctx, words=()) -> bool:
    """``n`` is ``base`` times a factor a premise gives: p% (x p/100, 1 + p/100, 1 - p/100) or a
    duration (its ratio to a duration of the question or of the answer)."""
    if not base.value:
        return False
    want = si_of(n.value, n.unit) if n.unit is not None else n.value
    have = si_of(base.value, base.unit) if base.unit is not None else base.value
    tol = max(n.tolerance * (n.unit.scale if n.unit is not None else 1.0), 0.005 * abs(want))
    factors = list(words)  # "at half load"
    durations = [q for q in ctx.quoted if q.unit is not None and q.unit.dims == TIME] + \
        [p for p in ctx.reading.numbers if p.unit is not None and p.unit.dims == TIME]
    for p in premises:
        if p.percent:
            f = p.value / 100.0
            factors += [f, 1 + f, 1 - f] + ([1 / (1 + f), 1 / (1 - f)] if f < 1 else [])
        else:
            t = p.value * p.unit.scale
            factors += [t / (q.value * q.unit.scale) for q in durations
                        if q is not p and q.value]
    return any(abs(have * c - want) <= tol for c in factors)


# background knowledge, not a figure of this case: "USGS rates most records as accurate to
# within 5-10%", "protection is typically set at around 125%", "design guidance often calls
# for at least 3 ft"
GENERAL = re.compile(r"\b(?:typically|usually|often|generally|normally|commonly|as a rule|"
                      r"(?:is|are) (?:normal|typical|common|usual|standard)|"
                      r"rule of thumb|guidance|standard practice|in general|most (?:\w+ ){0,2}"
                      r"(?:records|gauges|stations|utilities|levees|rivers|feeders|transformers)|"
                      r"among the)\b", re.I)


_ODDS = re.compile(r"\s+(?:(?:out\s+)?of\s+(?:every|each)|in)\s+$", re.I)


def odds(findings: list[Finding], ctx: Context) -> list[Finding]:
    """A share written as odds: "nearly 99 of every 100 litres stay in the river" (99 %, the
    complement of 1.07 %), "roughly 1 in 93 litres" (1/93 = 1.07 %): both numbers are accepted
    when their ratio, as a percentage, is a recorded percentage or its complement (the count
    M is exact; N is read to its written place)."""
    findings = list(findings)
    text = ctx.reading.text
    numbers = ctx.reading.numbers
    for i in range(len(numbers) - 1):
        a, b = numbers[i], numbers[i + 1]
        fa, fb = findings[i], findings[i + 1]
        if fa.status not in _REEXPLAIN and fb.status not in _REEXPLAIN or a.unit is not None \
                or a.percent or b.percent or not b.value or a.value >= b.value:
            continue
        if not _ODDS.match(text[a.nend:b.nstart]):
            continue
        pct = Number(f"{a.text} in {b.text}", 100.0 * a.value / b.value, None, None, a.start,
                     b.end, 100.0 * (min(a.tolerance, a.boundary_tol) / b.value if a.value != 1
                                     else b.boundary_tol / (b.value * b.value)),
                     True, False)
        pct.source_text = text
        hit = classify(pct, ctx)
        if hit.status not in ("sourced", "derived"):
            continue
        for k, n in ((i, a), (i + 1, b)):
            if findings[k].status in _REEXPLAIN:
                findings[k] = Finding(n, "derived", hit.match,
                                      f"a share written as odds ({a.text} of {b.text}, "
                                      f"{pct.value:.4g} %): {hit.note}", Reason.DERIVED_ODDS)
    return findings


def general(findings, ctx, skipped):
    """A number in a sentence that states background knowledge (typically, usually, often,
    guidance, as a rule) is about the world in general, not this case: nothing the ledger
    could source. It is skipped with its reason when flagged ``unsourced``."""
    text = ctx.reading.text
    kept, skipped = [], list(skipped)
    # never a figure of a dimension the tools return: "the flow is usually 11,500 cfs" is a
    # claim about this gauge
    recorded = {power_dims(e.unit.dims) for e in ctx.ledger.output_entries()}
    for f in findings:
        n = f.number
        dims = power_dims(n.unit.dims) if n.unit is not None else _DIMENSIONLESS
        if f.status == "unsourced":
            a = max((m.end() for m in _SENTENCE_END.finditer(text, 0, n.nstart)), default=0)
            m = _SENTENCE_END.search(text, n.nend)
            b = m.start() if m else len(text)
            if GENERAL.search(text, a, b) and (
                    dims not in recorded or not _CASE_REFERENCE.search(text, a, b)):
                # of a dimension the tools return, only a statement about things in general
                # (no word in its sentence points at this case: "urban levees are commonly
                # designed with 3 ft of freeboard", but not "the flow is usually 11,500 cfs",
                # "flows here often exceed ...", "breakers at this voltage ...")
                skipped.append((n.text, Skip.BACKGROUND_KNOWLEDGE))
                continue
        kept.append(f)
    return kept, skipped


# a word that points at the case an answer is about: a general statement has none
_CASE_REFERENCE = re.compile(
    r"\b(?:this|these|that|those|here|today|tonight|now|currently|at present|right now|at the "
    r"moment|its|our|your|the (?:gauge|gage|river|site|station|feeder|bus|transformer|levee|crest|"
    r"flow|discharge|level|licen[cs]e|catchment|basin|reservoir|stage|forecast|answer|result|"
    r"reading|value|figure|current|load|area|depth|threshold|runoff|share|freeboard|rating|"
    r"circuit|line|abstraction|intake|peak|energy|power|voltage)s?)\b", re.I)


# a figure per month or per year, which the unit kernel does not name: "37 mm/yr",
# "3.1 mm a month", "16,400 megalitres a year", "1,350 Ml over a 30-day month"
_PERIOD_AFTER = re.compile(r"[ \u00a0]*(?P<unit>[^\s\d/.,;:!?()]{1,12})?(?:[ \u00a0]+[a-z]+){0,4}?"
                           r"[ \u00a0]*(?:(?:/|per|a full|a whole|an entire|the whole|the full|"
                           r"a complete|a|an|each|every|over a|in a|in|over|for|during|"
                           r"in each|in every|over each)[ \u00a0]*"
                           r"(?:(?P<n>\d{1,3}-day )|(?P<d>\d{1,3}) )?"
                           r"(?P<p>year|yr|annum|month|mo|fortnight|week|day|hour|minute|min)s?\b|"
                           r"(?P<adj>annually|yearly|monthly|fortnightly|weekly|daily|hourly)\b)", re.I)
_PERIOD_BEFORE = re.compile(r"\b(?:(?P<adj>annuali[sz]ed|annual|yearly|monthly|fortnightly|weekly|daily|"
                            r"hourly)|(?:per|each|every|a|an|one|over a|in a|a full|full|over the|"
                            r"in each|in every|over each|in one|over one|a whole|an entire|the whole)"
                            r"\s+(?:(?P<bn>\d{1,3})[- ]day\s+)?"
                            r"(?P<p>year|annum|month|fortnight|week|day|hour|24[ -]?(?:hours|hour|h|hr))"
                            r"(?:'s)?)\b[^.\n]{0,44}$", re.I)
_PERIOD_DAYS = {"year": (365.0, 366.0), "yr": (365.0, 366.0), "annum": (365.0, 366.0),
                "month": (28.0, 31.0), "mo": (28.0, 31.0), "week": (7.0, 7.0),
                "day": (1.0, 1.0), "hour": (1 / 24.0, 1 / 24.0), "fortnight": (14.0, 14.0),
                "minute": (1 / 1440.0, 1 / 1440.0), "min": (1 / 1440.0, 1 / 1440.0)}
_PERIOD_ADJ = {"annualised": "year", "annualized": "year", "annual": "year", "yearly": "year",
               "annually": "year", "monthly": "month", "weekly": "week", "daily": "day",
               "hourly": "hour", "fortnightly": "fortnight"}


def per_period(findings: list[Finding], ctx: Context) -> list[Finding]:
    """A rate recorded per day (or second) restated as an amount per month or year: the
    amount over that period is the accepted rate times the period's days (a month 28 to 31
    days, a year 365 or 366, or the N written: "a 30-day month")."""
    findings = list(findings)
    text = ctx.reading.text
    # the recorded rates (an answer may restate one it never wrote per day)
    rates = [e for e in ctx.ledger.output_entries() if e.magnitude.__class__ is float and
             not e.unit.shift and e.datum is None]
    if not rates:
        return findings
    day = 86400.0
    for i, f in enumerate(findings):
        n = f.number
        if f.status != "unsourced":
            continue
        m = _PERIOD_AFTER.match(text, n.nend)
        unit = n.unit
        if m is not None and unit is None and m.group("unit"):
            hit = read_phrase(m.group("unit"))
            unit = hit[0] if hit is not None else None
        period = None
        if m is not None and m.group("adj"):  # "0.7 mm weekly"
            period = _PERIOD_ADJ[m.group("adj").lower()]
            lo, hi = _PERIOD_DAYS[period]
        elif m is not None:
            period = m.group("p").lower()
            lo, hi = _PERIOD_DAYS[period]
            if m.group("n"):
                lo = hi = float(m.group("n").split("-")[0])
            elif m.group("d"):  # "per 30 days"
                lo, hi = lo * float(m.group("d")), hi * float(m.group("d"))
        elif unit is not None:
            b = _PERIOD_BEFORE.search(text, max(0, n.nstart - 48), n.nstart)
            if b is None:
                continue
            period = (b.group("p") or _PERIOD_ADJ[b.group("adj").lower()]).lower()
            if period[:2] == "24" or period == "annum":  # "every 24 hours": a day
                period = "day" if period[:2] == "24" else "year"
            lo, hi = _PERIOD_DAYS[period]
            if b.group("bn"):  # "over a 30-day month"
                lo = hi = float(b.group("bn"))
        else:
            continue
        if unit is None or unit.shift:
            continue
        amount = n.value * unit.scale
        tol = max(n.tolerance * unit.scale, 1e-12)
        dims = power_dims(unit.dims)
        for r in rates:
            if tuple(x - y for x, y in zip(dims, power_dims(r.unit.dims))) != TIME:
                continue
            per_day = r.si * day
            if per_day and lo * per_day - tol <= amount <= hi * per_day + tol:
                findings[i] = Finding(n, "derived", r,
                                      f"{shown(r)} over a {period} ({lo:g}-{hi:g} days): an "
                                      f"amount per period", Reason.DERIVED_PER_PERIOD)
                break
    return findings


_SCHEDULE_BEFORE = re.compile(r"\b(?:every|each|once every|once each)\s+(?:(?:about|roughly|some|"
                              r"approximately|~)\s+)?$|\bevery\s+[\w -]{1,20}\(\s*$", re.I)


def mark_durations(findings, ctx, skipped):
    """A duration ("updates every 5 minutes", "retry in 10-15 minutes", "over 24 hours") in an
    answer whose tools return no time and whose outputs give none in one product or ratio
    (a runoff depth, a freeboard) is no figure the ledger could ever check: it is skipped,
    with its reason, rather than flagged. Where a time can be derived (a volume over a rate,
    an energy over a power) a duration stays a claim."""
    derivable = any(e.unit.dims == TIME for e in ctx.ledger.output_entries()) or \
        TIME in ctx.reachable() or ctx.given(TIME)
    if derivable:
        # where a time can be derived, a duration is a claim, except the interval of a
        # schedule: "updates every 15 min", "refreshes every quarter hour (15 minutes)", "each
        # 5 minutes" (how often data come, never how long something ran)
        text = ctx.reading.text
        kept, skipped = [], list(skipped)
        for f in findings:
            n = f.number
            if f.status == "unsourced" and n.unit is not None and n.unit.dims == TIME and \
                    _SCHEDULE_BEFORE.search(text, max(0, n.nstart - 40), n.nstart):
                skipped.append((n.text, Skip.SCHEDULE_INTERVAL))
                continue
            kept.append(f)
        return kept, skipped
    kept, skipped = [], list(skipped)
    numbers = ctx.reading.numbers
    for i, f in enumerate(findings):
        n = f.number
        bare_end = f.status == "unsourced" and n.unit is None and i + 1 < len(numbers) and \
            numbers[i + 1].unit is not None and numbers[i + 1].unit.dims == TIME and \
            _RANGE_BETWEEN.fullmatch(ctx.reading.text, n.nend, numbers[i + 1].nstart)
        if f.status == "unsourced" and (n.unit is not None and n.unit.dims == TIME or bare_end):
            skipped.append((n.text, Skip.UNCHECKABLE_DURATION))
            continue
        kept.append(f)
    return kept, skipped


# between a precise figure and its rounding written as a restatement: "393.6 A (400 A)",
# "393.6 A, or 400 A", "393.6 A, i.e. 400 A", "393.6 A, rounded to 400 A"
_RESTATED = re.compile(r"[\s*_]*(?:[(\[\u2192]|,?\s*(?:or|i\.e\.?|ie|that is|rounded(?: up| down)?"
                       r"(?: to)?|rounds to|to one (?:significant )?figure)\b|[=\u2248~])", re.I)


def flat_roundings(findings: list[Finding], ctx: Context) -> list[Finding]:
    """A one-significant-figure number stated without a hedge ("400 A") is read as a rounding
    (half its last place, at most 10%). When the answer also writes a more precise figure that
    it would round (393.6 A), it is not that figure's rounding but a separate claim ("393.6 A,
    within the 400 A rating"), unless written as its restatement ("393.6 A (400 A)"): it is
    then read to its next place (400 covers 395..405) and classified again."""
    findings = list(findings)
    text = ctx.reading.text
    for i, f in enumerate(findings):
        n = f.number
        if not n.flat or f.status not in ("sourced", "derived"):
            continue
        numbers = ctx.reading.numbers
        if i and _RANGE_BETWEEN.fullmatch(text, numbers[i - 1].nend, n.nstart) or \
                i + 1 < len(numbers) and _RANGE_BETWEEN.fullmatch(text, n.nend,
                                                                   numbers[i + 1].nstart):
            continue  # an end of a range ("390-400 A") is no figure stated on its own
        for j, g in enumerate(findings):
            p = g.number
            if j == i or p.sig1 or p.tolerance >= n.tolerance or g.status not in _ACCEPTED or \
                    p.percent != n.percent or (p.unit is None) != (n.unit is None):
                continue
            if n.unit is None:
                near = abs(p.value - n.value) <= n.tolerance
            else:
                near = p.unit.dims == n.unit.dims and not n.unit.shift and not p.unit.shift and \
                    abs(p.value * p.unit.scale - n.value * n.unit.scale) <= n.tolerance * n.unit.scale
            if not near:
                continue
            a, b = (p, n) if p.nstart < n.nstart else (n, p)
            if _RESTATED.match(text, a.nend, b.nstart) and b.nstart - a.nend <= 24:
                continue
            if not _RATING_AFTER.match(text, n.nend) and \
                    not _RATING_BEFORE.search(text, max(0, n.nstart - 16), n.nstart):
                continue  # "That leaves 4 ft." beside 4.06 ft: its rounding, said again
            again = classify(n.widened(n.flat), ctx)
            if again.status in _ACCEPTED:
                findings[i] = again.for_number(n)
            else:
                findings[i] = Finding(
                    n, "unsourced", f.match,
                    f"{n.text} is stated flat beside the precise {p.text} the answer writes: "
                    f"a separate figure, not its rounding (a rounding is said so: about, ~, "
                    f"\u2248), and no recorded output matches it to its next place",
                    Reason.FLAT_NOT_ROUNDING)
            break
    return findings


# words that present a figure as an attempt given up: the first call, a mistake, a refusal
_DISCARD = re.compile(
    r"\b(?:first|initial(?:ly)?|earlier|previous(?:ly)?|original(?:ly)?|prior|old)\s+"
    r"(?:\w+\s+)?(?:call|attempt|run|try|result|output|value|pass|request|input|reading|"
    r"figure|answer)s?\b|\b(?:initially|originally|previously|at first|first time)\b|"
    r"\battempt|\bmistak|\bwrong(?:ly)?\b|\bincorrect|\berroneous|\berror\b|\binvalid|"
    r"\brefus|\breject|\bdiscard|\bignor|\binstead of\b|\brather than\b|\bin place of\b|"
    r"\breplac|\b(?:correct|fix|chang|updat)(?:ed|ing)?\s+(?:\w+\s+){0,3}from\b|"
    r"\bre-?(?:ran|run|tried|try|issued|did)|\bretr(?:y|ied)|\bsupersed|\bbogus|\bunconverted|"
    r"\bwithout (?:a|the|its|any) units?\b|\bno units?\b|\bbare (?:number|value)|\bmis(?:read|typed|labell?ed)|"
    r"\bnot (?:the |a )?(?:correct|right|valid|usable)\b|\bshould(?: not)? have\b|"
    # a pasted log line or error message of the refused call: "ERR received the bare number
    # 1250, which this tool reads as 1250 m3/s", "WARN runoff_depth" (upper case only: a flood
    # "warning" is no log level)
    r"(?-i:\bERR\b|\bWARN\b)|\bbare number\b|\breads (?:it )?as\b",
    re.I)
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[;\n]")


def discarded(findings: list[Finding], ctx: Context) -> list[Finding]:
    """A figure the answer presents as the attempt it gave up (warn/off mode: "my first call
    returned 3.61 mm/d, which was wrong; rerun with 35.4 m3/s it is 0.102 mm/d"; or an input
    it says it corrected) is not its claim: a ``tainted`` output, or a figure that is the
    input of a call with a recorded violation, whose sentence says so, is ``discarded`` when
    the answer also gives the accepted figure of the same dimension that replaces it. A
    tainted figure stated as the result (no such words in its sentence, or nothing replacing
    it) stays flagged."""
    findings = list(findings)
    ledger = ctx.ledger
    text = ctx.reading.text
    bad_inputs = None
    for i, f in enumerate(findings):
        if f.status not in Audit.BAD:
            continue
        n = f.number
        why = None
        if f.status == "tainted":
            why = "the output of a call whose input was refused or has no source"
        else:
            if bad_inputs is None:
                bad_inputs = violating_inputs(ledger)
            e = matching_input(n, bad_inputs)
            if e is not None:
                why = f"the input {e.label} = {shown(e)} of a call whose inputs were refused"
        if why is None:
            continue
        a = max((m.end() for m in _SENTENCE_END.finditer(text, 0, n.nstart)), default=0)
        m = _SENTENCE_END.search(text, n.nend)
        b = m.start() if m else len(text)
        # a word that says so, nearer to this number than to any other of its sentence
        # ("Runoff: 3.61 mm/d (0.102 mm/d on the retry)": the retry is the other figure's)
        dims = power_dims(n.unit.dims) if n.unit is not None else None
        if dims is None and getattr(f.match, "unit", None) is not None:
            dims = power_dims(f.match.unit.dims)  # "ignore the 3.6 from my first call"
        # a word that says so, with no figure that replaces it (accepted, of the same
        # dimension) between the word and this number ("Runoff: 3.61 mm/d (0.102 mm/d on
        # the retry)": the retry is the other figure's)
        between = [g.number for g in findings if g.status in _ACCEPTED and
                   g.number.unit is not None and power_dims(g.number.unit.dims) == dims and
                   a <= g.number.nstart < b]
        marker = None
        for mk in _DISCARD.finditer(text, a, b):
            lo, hi = (mk.end(), n.nstart) if mk.start() < n.nstart else (n.nend, mk.start())
            if not any(lo <= p.nstart < hi for p in between):
                marker = mk
                break
        if marker is None:
            continue
        for g in findings:
            p = g.number
            if g.status in _ACCEPTED and (p.percent == n.percent or n.unit is None) and \
                    (power_dims(p.unit.dims) if p.unit is not None else None) == dims and \
                    not is_close(p.value, n.value, max(p.tolerance, n.tolerance)):
                word = marker.group().strip()
                findings[i] = Finding(
                    n, "discarded", f.match,
                    f"presented as an attempt given up ({word!r}): {why}; the answer gives "
                    f"{p.text} in its place", Reason.DISCARDED)
                break
    return findings


# A figure the answer withdraws itself. Two kinds of words: those that withdraw the figure
# written just before them ("1,205 cfs - a typo", "3.6 mm/d ...; disregard it", "92.6% - not the
# answer", "29,490 as I first typed"), and those that withdraw the figure just after them
# ("Earlier I said 0.52 m", "I first wrote 1,205", "ignore the 3.6 mm/d"). Words that bring the
# replacing figure ("Correction: the area is ...", "it should read ...") withdraw nothing.
_RETRACT_BEFORE = re.compile(
    r"\b(?:typo|mis-?typ\w*|transpos\w*|slip of the (?:pen|keyboard)|disregard (?:it|that|this)|"
    r"ignore (?:it|that|this)|scratch that|strike that|scrap that|not the answer|isn't the answer|"
    r"(?:is|was|were) (?:wrong|incorrect|a mistake|an error)|in error|by mistake|my mistake|"
    r"as I (?:first|initially|earlier|originally|wrongly|mistakenly) (?:typed|wrote|said|gave|put|"
    r"stated|quoted)|(?:now )?(?:withdrawn|retracted)|should be (?:ignored|disregarded))\b", re.I)
_RETRACT_AFTER = re.compile(
    r"\b(?:earlier I|I (?:first|initially|earlier|previously|originally|wrongly|mistakenly)|"
    r"previously I|at first I)\s+(?:had\s+)?(?:said|wrote|typed|gave|put|stated|quoted|reported|"
    r"gave you)\b|\b(?:ignore|disregard|scrap|discard|drop) the\b|\b(?:my|the|an?) (?:earlier |"
    r"first |previous )?draft (?:said|had|gave|read|stated|showed)\b|"
    r"\bnot\s*$|"
    # a misreading named as one: "which this tool reads as 1250 m3/s", "misread as 90 VA"
    r"\bwhich (?:this|the|that) (?:tool|service|call|function) (?:reads|treats|takes|interprets)"
    r"(?: it)? as\s*$|\b(?:would|could|might) (?:be )?(?:read|interpreted|treated|taken)(?: it)? as\s*$|"
    r"\bmis(?:read|interpreted|taken) as\s*$", re.I)
_RETRACT_HINT = re.compile(r"typo|typ(?:ed|ing)|transpos|disregard|ignore|scratch|strike|scrap|"
                           r"not the answer|isn't the answer|wrong|incorrect|mistake|in error|"
                           r"withdrawn|retracted|earlier I|I (?:first|initially|earlier|"
                           r"previously|originally)|previously I|at first I|discard|drop the|"
                           r"draft|\bnot\b| as\b",
                           re.I)


_RETRACT_SENTENCE = re.compile(r"[.!?](?=\s|$)|\n")


def retracted(findings: list[Finding], ctx: Context) -> list[Finding]:
    """A flagged figure the answer itself withdraws (see _RETRACT_BEFORE and _RETRACT_AFTER),
    nearest to the withdrawing words with no figure between, is ``discarded`` when the answer
    also states an accepted figure that replaces it: of the same dimension, or a bare number
    within a factor of ten in the same sentence ("... a typo; the gauge reads 1,250"), or, for a
    figure denied by "not", one before it in its sentence ("about 1350, not 1.35 million"). A figure
    withdrawn with nothing in its place stays flagged, and so does a figure the words do not
    point at ("the area is 29,490 km2 (not a typo)")."""
    findings = list(findings)
    text = ctx.reading.text
    nums = sorted((f.number for f in findings), key=lambda n: n.nstart)
    for i, f in enumerate(findings):
        if f.status not in Audit.BAD:
            continue
        n = f.number
        a = max((m.end() for m in _RETRACT_SENTENCE.finditer(text, 0, n.nstart)), default=0)
        m = _RETRACT_SENTENCE.search(text, n.nend)
        b = m.start() if m else len(text)
        marker = None
        for mk in _RETRACT_BEFORE.finditer(text, n.nend, b):
            if re.search(r"\b(?:not|no|never)\s+(?:an?\s+)?$", text[max(0, mk.start() - 8):mk.start()]):
                continue  # "not a typo"
            if not any(n.nend <= p.nstart < mk.start() for p in nums):
                marker = mk
            break
        if marker is None:
            for mk in _RETRACT_AFTER.finditer(text, a, n.nstart):
                if not any(mk.end() <= p.nstart < n.nstart for p in nums):
                    marker = mk
        if marker is None:
            continue
        contrast = marker.group().strip().lower() == "not"
        dims = power_dims(n.unit.dims) if n.unit is not None else None
        for g in findings:
            p = g.number
            if g.status not in _ACCEPTED or p is n or p.unit == n.unit and \
                    is_close(p.value, n.value, max(p.tolerance, n.tolerance)):
                continue  # (the same figure again replaces nothing; "132 V; it is 132 kV" does)
            pd = power_dims(p.unit.dims) if p.unit is not None else None
            same = pd == dims and p.percent == n.percent and (dims is not None or n.percent)
            # a figure of the same sentence within a factor of ten, one of them bare ("the
            # gauge reads 1,250"; "the area is 29,940 km2, not 29,490")
            near = (pd is None or dims is None) and not p.percent and not n.percent and \
                a <= p.nstart < b and n.value != 0 and 0.1 <= abs(p.value / n.value) <= 10.0
            # "X, not Y": the figure it denies, set against the figure just before it in the
            # sentence, whatever their ratio ("about 1350, not 1.35 million")
            denied = contrast and a <= p.nstart < n.nstart and (pd == dims or pd is None) and \
                p.percent == n.percent
            if same or near or denied:
                findings[i] = Finding(
                    n, "discarded", f.match,
                    f"withdrawn by the answer itself ({marker.group().strip()!r}); it gives "
                    f"{p.text} in its place", Reason.RETRACTED)
                break
    return findings


# a call written out, with this number as one of its arguments: "energy_delivered(power=8400,"
_CALL_ARGUMENT = re.compile(r"\b[A-Za-z_][\w.]*\((?:[^()\n]*?,)?\s*[A-Za-z_]\w*\s*=\s*$")


def call_arguments(findings: list[Finding], ctx: Context) -> list[Finding]:
    """A bare number written as an argument of a call (``tool(name=8400, ...)``, a pasted log)
    that is what a recorded call received (its converted input, as the ledger holds it) is
    quoted from the ledger, not claimed; any other argument stays flagged."""
    findings = list(findings)
    text = ctx.reading.text
    ledger = ctx.ledger
    for i, f in enumerate(findings):
        n = f.number
        if f.status not in Audit.BAD or n.unit is not None or n.percent:
            continue
        line = max(text.rfind("\n", 0, n.nstart), n.nstart - 160, 0)
        if not _CALL_ARGUMENT.search(text, line, n.nstart):
            continue
        tol = max(n.tolerance, 1e-9 * abs(n.value))
        for e in ledger.outputs_in_range(n.value, tol, "input"):
            if is_close(n.value, e.magnitude, tol):
                findings[i] = Finding(n, "sourced", e,
                                      lambda e=e: f"an argument of a call written out: "
                                                  f"{e.label} received {shown(e)}",
                                      Reason.SOURCED_CALL_ARGUMENT)
                break
    return findings


_PCT_OF = re.compile(r"\s*(?:of|of the|of its)\b", re.I)
_PCT_BY = re.compile(r"\bby\s+(?:about\s+|roughly\s+|some\s+|around\s+|~\s*|\u2248\s*)?$", re.I)
_PCT_APPOSITION = re.compile(r"\d\s?[^\s\d,;()]{1,8}\s*[,(]\s*(?:about|roughly|around|some|nearly|"
                             r"~|\u2248|or|i\.e\.)?\s*$", re.I)
_PCT_RISE = re.compile(r"\b(?:rise|increase|growth|jump|climb|gain)\s+(?:of|by)\s+(?:about\s+|"
                       r"roughly\s+|some\s+|around\s+|~\s*|\u2248\s*)?$", re.I)
_PCT_FALL = re.compile(r"\b(?:drop|fall|decrease|decline|reduction|cut|loss)\s+(?:of|by)\s+(?:about\s+|"
                       r"roughly\s+|some\s+|around\s+|~\s*|\u2248\s*)?$", re.I)
_PCT_BELOW = re.compile(r"\s*(?:\w+\s+){0,2}?(?:below|under|beneath|short|lower|less|down)\b", re.I)
_PCT_ABOVE = re.compile(r"\s*(?:\w+\s+){0,2}?(?:above|over|higher|more|up|beyond)\b", re.I)


def elevation_shares(findings: list[Finding], ctx: Context) -> list[Finding]:
    """A percentage that is a share of two recorded lengths, at least one of them an elevation
    or a datum offset: "the freeboard is ~13% of the crest elevation", "the level is at 97% of
    the threshold", "the datum shift is 11% of the freeboard", "2.7% below the threshold".
    Products and ratios leave elevations out (a height above a datum times anything has no
    meaning), but a share between two of them is what answers write to give a sense of scale:
    the share (a/b), its complement (1 - a/b, "2.7% below") and its excess (a/b - 1) are
    read, to the precision written. Recorded outputs and converted elevations only: a share of
    a question's number is not a recorded ratio."""
    findings = list(findings)
    ledger = ctx.ledger
    text = ctx.reading.text
    offsets = ledger.datum_offsets()
    lengths = [e for e in chain(ledger.output_entries(), ledger.converted_elevations())
               if e.unit.dims == LENGTH and not e.unit.shift and e.si and math.isfinite(e.si)]
    if not any(e.datum is not None or id(e) in offsets for e in lengths):
        return findings
    for i, f in enumerate(findings):
        n = f.number
        if f.status not in Audit.BAD or not n.percent or n.unit is not None:
            continue
        v, tol = abs(n.value), max(n.tolerance, 1e-9)
        # the sentence says which share it is: "13% of the crest", "by 10%" (a/b); "2.7%
        # below the threshold" (1 - a/b); "17% above the river" (a/b - 1). A percentage that
        # names nothing it is a share of is not read this way.
        after = text[n.nend:n.nend + 40]
        forms = []
        before = text[max(0, n.nstart - 32):n.nstart]
        if _PCT_OF.match(after) or _PCT_BY.search(before) or _PCT_APPOSITION.search(before):
            forms.append("")  # (apposition: "reduces it by 0.44 ft, about 10%")
        if _PCT_BELOW.match(after) or _PCT_FALL.search(before):
            forms.append("100% - ")
        if _PCT_ABOVE.match(after) or _PCT_RISE.search(before):
            forms.append(" - 100%")
        if not forms:
            continue
        hit = None
        for a in lengths:
            for b in lengths:
                if a is b or not (a.datum is not None or b.datum is not None or
                                  id(a) in offsets or id(b) in offsets):
                    continue
                r = 100.0 * abs(a.si / b.si)
                for share, how in ((r, ""), (100.0 - r, "100% - "), (r - 100.0, " - 100%")):
                    if how in forms and share > 0 and abs(share - v) <= tol:
                        hit = (a, b, how)
                        break
                if hit:
                    break
            if hit:
                break
        if hit is not None:
            a, b, how = hit
            findings[i] = Finding(
                n, "derived", (a, b, "\u00f7"),
                f"a share of two recorded lengths, one an elevation or a datum offset: "
                f"{how.lstrip(' -') if how.startswith('100') else ''}{entry_name(a)} / {entry_name(b)}"
                f"{how if how.startswith(' ') else ''} = {fmt_g(100.0 * a.si / b.si)}%",
                Reason.DERIVED_ELEVATION_SHARE)
    return findings


# a round figure named as a rating or a limit: "the 400 A rating", "rated 400 A"
_RATING_AFTER = re.compile(r"[\s*_]*(?:" + "|".join(sorted(LIMIT_NOUNS, key=len, reverse=True)) +
                           r"|rated|allowance|nameplate)\b", re.I)
_RATING_BEFORE = re.compile(r"\b(?:rated(?: at)?|rating of|limit of|capacity of|limited to|"
                            r"capped at|maximum of|allowance of)\s*$", re.I)


# -- numbers explained by what is written around them ---------------------------------------------
_STEPS_BACK = 4


def explain_in_context(findings: list[Finding], ctx: Context) -> list[Finding]:
    """A flagged number may be a conversion factor, a unit identity, a constant, one unit
    ("over 1 d") or an operand of a written-out formula whose result is accepted."""
    findings = list(findings)
    numbers = ctx.reading.numbers
    factors = {}
    for i, f in enumerate(findings):
        if f.status in _REEXPLAIN:
            note = factor_note(numbers, i, ctx)
            if note is not None:
                findings[i] = Finding(f.number, "factor", None, note, Reason.FACTOR)
                if f.number.unit is None:
                    factors[f.number.value] = f.number
    if factors:  # the factor named in prose too: "(86.4 converts m3/s per km2 to mm/d)"
        for i, f in enumerate(findings):
            n = f.number
            if f.status in _REEXPLAIN and n.unit is None and n.value in factors:
                findings[i] = Finding(n, "factor", None,
                                      f"the factor {factors[n.value].text} used in the arithmetic",
                                      Reason.FACTOR_IN_ARITHMETIC)
    t = ctx.reading.text
    if "=" in t or "\u2248" in t or "(" in t and BRACKET_OP.search(t):
        # a step's result accepted as the operand of a later step accepts that step's own
        # operands in turn ("2,592,000 / 48 = 54,000"; "25 x 54,000 = 1,350,000"): to a fixed
        # point, at most a few steps back
        at = {n.nstart: (i, n) for i, n in enumerate(numbers)}  # (where each number starts)
        for _ in range(_STEPS_BACK):
            before = [f.status for f in findings]
            findings = _same_literal(_equal_expressions(_formula_operands(findings, ctx, at),
                                                        ctx, at))
            if [f.status for f in findings] == before or "unsourced" not in before:
                break
    findings = _ranges(findings, ctx)
    for i, f in enumerate(findings):
        if f.status == "unsourced":
            hit = truncated(f.number, ctx.ledger)
            if hit is not None:
                findings[i] = hit
    return findings


_RANGE_BETWEEN = re.compile(r"\s*(?:-|\u2013|\u2014|to|and|\.\.)\s*")


def _ranges(findings: list[Finding], ctx: Context) -> list[Finding]:
    """A range ("0.10-0.11 mm/d", "between 4.0 and 4.1 ft") brackets a recorded value: its
    unsourced ends are accepted when a recorded output of its dimension (or a one-step
    derivation) lies inside it. A range wider than a quarter of its upper end says little and
    is not read so; an end written with a contradicting unit stays a mislabel."""
    findings = list(findings)
    text = ctx.reading.text
    numbers = ctx.reading.numbers
    for i in range(len(numbers) - 1):
        a, b = numbers[i], numbers[i + 1]
        fa, fb = findings[i], findings[i + 1]
        if fa.status != "unsourced" and fb.status != "unsourced" or \
                "unit_mislabelled" in (fa.status, fb.status):
            continue
        if not _RANGE_BETWEEN.fullmatch(text, a.nend, b.nstart):
            continue
        if text[a.nend:b.nstart].strip() == "and" and \
                not text[max(0, a.nstart - 9):a.nstart].lower().rstrip().endswith("between"):
            continue
        unit = b.unit or a.unit
        if a.unit is not None and b.unit is not None and a.unit != b.unit or \
                a.percent != b.percent:
            continue
        lo, hi = a.value - a.tolerance, b.value + b.tolerance
        # at most a quarter of its upper end wide, or two neighbours at the precision
        # written ("between 0.2 and 0.3 m", "20-30 cm": the bracket of a one-figure reading)
        step = 2.0 * max(a.boundary_tol, b.boundary_tol)
        if not (a.value < b.value and (b.value - a.value <= 0.25 * abs(b.value) or
                                       abs(b.value - a.value - step) <= 1e-9 * abs(b.value)
                                       and a.boundary_tol == b.boundary_tol)):
            continue
        mid = Number(f"{a.text}-{b.text}", (lo + hi) / 2, unit, b.datum or a.datum, a.start,
                     b.end, (hi - lo) / 2, b.percent, b.negated, None)
        # spans in the read text
        mid.nstart, mid.nend, mid.source_text = a.nstart, b.nend, a.source_text
        inside = classify(mid, ctx)
        if inside.status not in _ACCEPTED:
            continue
        for k, n in ((i, a), (i + 1, b)):
            if findings[k].status in _REEXPLAIN:
                findings[k] = Finding(n, inside.status, inside.match,
                                      f"an end of the range {a.text}-{b.text}, which brackets "
                                      f"{inside.note}", Reason.RANGE_END)
    return findings


_PURE_ARITHMETIC = re.compile(r"[\d\s.,/\u00f7\u00d7*\u00b7()+\u2212^-]+")


def _segments(text: str, a: int, b: int, at: dict):
    """The rows of terms of ``text[a:b]`` written equal (``x = y = z``): [[(tokens, value)]].
    A term of bare pure arithmetic continues a row; any other text between two marks ends the
    row with its leading number (its magnitude as written, with or without a unit) and starts
    the next with its trailing bare arithmetic."""
    marks = [a + m.start() for m in re.finditer("[=\u2248]", text[a:b])]
    if len(marks) < 2:
        return []
    bounds = [a - 1] + marks + [b]
    runs, run = [], []
    for j in range(len(bounds) - 1):
        s, e = bounds[j] + 1, bounds[j + 1]
        term = _bare_term(formula_tokens(text, e, at, s)) \
            if 0 < j < len(bounds) - 2 and _PURE_ARITHMETIC.fullmatch(text, s, e) else None
        if term is not None:
            run.append(term)
            continue
        if j:  # this text's leading number ends the row
            k = s
            while k < e and text[k] in " \u00a0*_":
                k += 1
            hit = at.get(k)
            if hit is not None and not hit[1].percent:
                run.append(([("num", hit, k)], hit[1].value))
            if len(run) > 1:
                runs.append(run)
        run = []
        if j < len(bounds) - 2:  # its trailing arithmetic starts the next
            term = _bare_term(formula_tokens(text, e, at, s))
            if term is not None:
                run.append(term)
    return runs


def _bare_term(tokens):
    """(tokens, magnitude) of a run of bare arithmetic, or None."""
    if not tokens or any(t[0] == "num" and (t[1][1].unit is not None or t[1][1].percent)
                         for t in tokens):
        return None
    value = evaluate(tokens)
    return (tokens, value[0]) if value is not None else None


def _equal_expressions(findings: list[Finding], ctx: Context, at: dict) -> list[Finding]:
    """Bare terms written equal in a row, ``45000/86400 = 450/864 = 25/48 = 0.5208333``: when
    every term has the same value (to 0.5% or the places of a lone number) and one lone-number
    term is accepted, every unsourced number of the row is an ``operand``. ``at``: {where a
    number starts: (its index, the number)}."""
    text = ctx.reading.text
    if text.count("=") + text.count("\u2248") < 2:
        return findings
    out = list(findings)
    start = 0
    for line in text.split("\n"):
        end = start + len(line)
        for run in _segments(text, start, end, at):
            lone = [t[0][1] for t, _ in run if len(t) == 1 and t[0][0] == "num"]
            anchor = next((n for i, n in lone if out[i].status in _ACCEPTED), None)
            if anchor is None:
                continue
            tol = max(0.005 * abs(anchor.value), anchor.tolerance)
            if any(abs(v - anchor.value) > tol for _, v in run):
                continue
            for tokens, _ in run:
                for kind, hit, _ in tokens:
                    if kind == "num" and out[hit[0]].status == "unsourced":
                        out[hit[0]] = Finding(hit[1], "operand", anchor,
                                              f"a term of a row of equal expressions whose "
                                              f"value {anchor.text} is accepted",
                                              Reason.OPERAND)
        start = end + 1
    return out


def _same_literal(findings: list[Finding]) -> list[Finding]:
    """An unsourced figure written again as the operand of an accepted step (the result of
    one step, the operand of the next) takes that reading."""
    accepted: dict[tuple, Finding] = {}
    for f in findings:
        if f.code is Reason.OPERAND:
            n = f.number
            accepted.setdefault((n.value, n.unit, n.percent, n.tolerance), f)
    if not accepted:
        return findings
    out = list(findings)
    for i, f in enumerate(findings):
        n = f.number
        hit = accepted.get((n.value, n.unit, n.percent, n.tolerance)) \
            if f.status == "unsourced" else None
        if hit is not None:
            out[i] = hit.for_number(n)
    return out


def _formula_operands(findings: list[Finding], ctx: Context, at: dict) -> list[Finding]:
    """Written-out formulas ``a op b ... = r``: when the arithmetic checks out, a result
    computed from rounded operands is looked up again within the precision of those operands,
    and a flagged operand of an accepted result is an ``operand``."""
    findings = list(findings)
    reading = ctx.reading
    text = reading.text
    numbers = reading.numbers
    for ri, r in enumerate(numbers):
        k = r.nstart - 1
        while k >= 0 and text[k] in " *_~\u00a0\u2009":
            k -= 1
        if k >= 0 and text[k] in "=\u2248":
            tokens = formula_tokens(text, k, at)
        else:
            # the result first, its working in brackets right after it:
            # "3,058,000 m3 (35.4 m3/s x 86,400 s)"
            k = bracket_after(text, r.nend)
            tokens = formula_tokens(text, k, at, text.index("(", r.nend) + 1) if k else None
            # (text.index finds the bracket _bracket_after found: only spaces and marks between)
        if not tokens:
            continue
        members = [t[1] for t in tokens if t[0] == "num"]
        value = evaluate(tokens)
        if value is None or not formula_matches(value, r, members):
            continue
        expr = text[tokens[0][2]:k].strip()
        result = findings[ri]
        if result.status in _REEXPLAIN and members:
            # the result of rounded operands: as precise as the least precise operand
            rel = min(0.005, max((n.tolerance / abs(n.value) for _, n in members if n.value),
                                 default=0.0))
            if rel * abs(r.value) > r.tolerance:
                wide = r.widened(rel * abs(r.value))
                again = classify(wide, ctx)
                if again.status in _ACCEPTED:
                    result = findings[ri] = Finding(
                        r, again.status, again.match,
                        f"{again.note} (computed as {expr}, from operands rounded to the "
                        f"precision written)", again.code)
        if result.status == "unsourced" and members and \
                all(findings[i].status in _ACCEPTED for i, _ in members) and \
                chain_checks(tokens, members, value, r) and \
                not (ctx.polyphase and single_phase_step(members, r, expr)):
            # a step of a written chain: every operand accepted, arithmetic and units check
            result = findings[ri] = Finding(
                r, "derived", None,
                f"the result of {expr}, whose operands are all accepted and whose arithmetic "
                f"and units check", Reason.DERIVED_FORMULA_RESULT)
        if result.status not in _ACCEPTED:
            continue
        for i, n in members:
            if findings[i].status == "unsourced":  # a unit that contradicts stays flagged
                findings[i] = Finding(n, "operand", result,
                                      f"an operand of {expr} = {r.text}, whose arithmetic "
                                      f"checks and whose result is {result.status}",
                                      Reason.OPERAND)
    return findings


# -- the follow-up passes, in order ---------------------------------------------------------------
def _bad(findings) -> bool:
    return any(f.status in Audit.BAD for f in findings)


def _unsourced(findings) -> bool:
    return any(f.status == "unsourced" for f in findings)


_GENERAL_HINTS = ("typical", "usual", "often", "general", "normal", "common", "rule", "guidance",
                  "standard", "most ", "among")
_PERIOD_WORD = re.compile(r"year|\byr\b|annum|annual|month|week|day|hour|daily|hourly|fortnight|minute|\bmin\b|"
                          r"24[ -]?h")
# every withdrawing phrase above holds one of these (checked with `in` before the pass runs)
_RETRACT_WORDS = ("not ", " as ", " I ", "wrong", "typ", "transpos", "isregard", "gnore", "cratch",
                  "trike", "crap", "answer", "ncorrect", "istake", "error", "ithdrawn", "etracted",
                  "I first", "iscard", "rop the", "raft", "Not ", "slip", "I initially",
                  "I earlier", "I previously", "I originally", "I wrongly", "I mistakenly")


def _modal_gate(findings, ctx) -> bool:
    if not _bad(findings):
        return False
    low = ctx.low
    return bool(("would" in low or "could" in low or "might" in low or "'d " in low or
                 "supp" in low or "hypothe" in low or "scenario" in low or "what if" in low) and
                MODAL.search(low))


def _odds_gate(findings, ctx) -> bool:
    low = ctx.low
    return _unsourced(findings) and (" of every " in low or " of each " in low or " in " in low)


def _period_gate(findings, ctx) -> bool:
    if not _unsourced(findings):
        return False
    low = ctx.low
    return bool(("year" in low or "yr" in low or "annu" in low or "month" in low or
                 "day" in low or "hour" in low or "week" in low or "ly " in low or
                 "daily" in low or "fortnight" in low or "24h" in low or "24 h" in low or
                 "24-h" in low or "min" in low) and _PERIOD_WORD.search(low))


def _general_gate(findings, ctx) -> bool:
    return _unsourced(findings) and any(w in ctx.low for w in _GENERAL_HINTS) and \
        GENERAL.search(ctx.reading.text) is not None


def _duration_gate(findings, ctx) -> bool:
    return any(f.status == "unsourced" and f.number.unit is not None and
               f.number.unit.dims == TIME for f in findings)


class Pass:
    """One follow-up pass: ``run(findings, ctx, skipped)`` returns new (findings, skipped),
    leaving its arguments as they were; it runs only when ``gate(findings, ctx)`` (cheap)
    holds for the findings the passes before it left."""

    __slots__ = ("name", "gate", "run")

    def __init__(self, name: str, gate, run) -> None:
        self.name, self.gate, self.run = name, gate, run

    def __repr__(self) -> str:
        return f"Pass({self.name})"


def _findings_only(run):
    """A pass that changes findings only, in the (findings, ctx, skipped) form."""
    return lambda findings, ctx, skipped: (run(findings, ctx), skipped)


#: the follow-up passes, in the order they run: a later pass sees what the earlier ones decided
PASSES = (
    Pass("explain_in_context", lambda fs, ctx: _bad(fs), _findings_only(explain_in_context)),
    Pass("flat_roundings", lambda fs, ctx: any(n.flat for n in ctx.reading.numbers),
         _findings_only(flat_roundings)),
    Pass("discarded", lambda fs, ctx: bool(ctx.ledger.violation_count) and _bad(fs),
         _findings_only(discarded)),
    Pass("retracted", lambda fs, ctx: _bad(fs) and any(w in ctx.reading.text for w in _RETRACT_WORDS),
         _findings_only(retracted)),
    Pass("elevation_shares", lambda fs, ctx: any(f.status in Audit.BAD and f.number.percent
                                                 for f in fs),
         _findings_only(elevation_shares)),
    Pass("call_arguments", lambda fs, ctx: "=" in ctx.reading.text and "(" in ctx.reading.text
         and _bad(fs), _findings_only(call_arguments)),
    Pass("hypothetical", _modal_gate, _findings_only(hypothetical)),
    Pass("odds", _odds_gate, _findings_only(odds)),
    Pass("per_period", _period_gate, _findings_only(per_period)),
    Pass("general", _general_gate, general),
    Pass("revisions", lambda fs, ctx: _bad(fs), _findings_only(revise)),
    Pass("durations", _duration_gate, mark_durations),
)


def follow_up(findings: list[Finding], ctx: Context, skipped: list) -> tuple[list, list]:
    """Every pass of ``PASSES`` whose gate holds, in order: (findings, skipped) after them."""
    for p in PASSES:
        if p.gate(findings, ctx):
            findings, skipped = p.run(findings, ctx, skipped)
    return findings, skipped

