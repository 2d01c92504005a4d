"""Second readings of flagged figures: each a named rule of ``REVISIONS`` (a code, a cheap gate
on the answer, and a pure function from the findings to the findings), run in order after the
other passes.

| code | a flagged figure is accepted when |
|---|---|
| ``revised_working`` | it stands in working the answer itself revises ("Wait, let me recalculate", "Actually, let me reconsider", "That seems too small"), and an accepted figure of the same dimension follows the revision: the answer gave that working up (status ``discarded``) |
| ``supposition`` | it stands in the consequence of a supposition about what a value is ("If it's in m³, then 1350 m³ = 1.35 Ml"; "if the result is in kWh, then ...") or of an operation supposed ("if we divide by 10,000, we get 17.31%"), and the answer states an accepted figure of the same dimension outside that sentence: ``hypothetical`` |
| ``final_answer`` | it misstates a recorded output (a wrong unit, or the output of a call whose input was refused) in working before the answer's explicit final-answer line ("ANSWER: 1350 Ml", "**Final answer:** ..."), and that line states an accepted figure of the output's dimension: that very output, rightly written, or (for a refused call's output) another value, so the answer did not carry it: ``discarded`` |
| ``double_rounding`` | it is a recorded output rounded twice, to one place more and then to the places written (0.105456 -> 0.1055 -> 0.106): ``sourced``. Only that exact path: 0.107 stays flagged |
"""
from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal

from ..numeric import is_close, power_dims, same_datum
from ..units.dimension import DIMENSIONLESS
from .codes import Reason
from .findings import Audit, Finding, si_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from .context import Context

_ACCEPTED = ("sourced", "derived", "quoted", "factor", "operand")

# words with which an answer revises the working it has just written
_REVISION = re.compile(
    r"\b(?:wait|hmm+|actually|hold on|on second thought|oops)\b[\s,.!:;-]*"
    r"(?:let me|let's|I (?:need|should|made|think)|that|this|the)\b|"
    r"\blet me (?:re-?calculate|re-?consider|re-?check|re-?think|re-?do|re-?examine|re-?evaluate|"
    r"recompute|double-check|verify (?:this|that|the)|check (?:this|that) again|calculate (?:this|"
    r"that|it) (?:more )?(?:carefully|again|properly))\b|"
    r"\b(?:that|this|which) (?:seems|looks|is|would be) (?:far |much |way )?(?:too (?:small|large|"
    r"big|low|high)|wrong|off|incorrect|unreasonable|implausible|not right)\b", re.I)
_REVISION_HINTS = ("ait", "mm", "ctually", "old on", "econd thought", "ops", "et me", "eems",
                   "ooks", "rong", "ncorrect", "easonable", "lausible", "not right", "too ")
_WORKING_REACH = 600  # a revision gives up the working written this close before it

# "If it's in m3, then", "if this is the volume in litres, then", "If the result were in kWh,"
_SUPPOSITION = re.compile(
    r"\bif (?:it|this|that|the (?:\w+ ){0,2}?(?:result|output|value|figure|number|answer|"
    r"return(?:ed value)?))(?:'s| is| was| were| are)\b[^.;:!?\n]{1,60}?(?:,\s*then\b|\bthen\b|,)|"
    # an operation supposed: "if we divide by 10,000, we get", "if I multiply it by 1000, I'd get"
    r"\bif (?:we|I|you|one) (?:divide|multiply|convert|scale|assume|take|treat|read|interpret)\w*"
    r"\b(?:[^.;:!?\n]|\.(?=\d)){0,60}?,\s*(?:then\s+)?(?:we|I|you|one)(?:'d| would| will)? (?:get|obtain|have|"
    r"arrive at|end up with)\b",
    re.I)
# an explicit final-answer line: "ANSWER: 1350 Ml", "**Final answer:** 3.72 mm/day"
_FINAL_LINE = re.compile(r"^[ \t>#*_]*(?:final[ \t]+)?answer[ \t*_]*[:：][^\n]*", re.I | re.M)
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[;\n]")  # where a supposition's consequence ends


def _dims(n):
    return power_dims(n.unit.dims) if n.unit is not None else None


def _kind(n):
    """What a supposition's consequence is set against: its dimension, or a share in per cent
    (a kind of its own)."""
    return "%" if n.unit is None and n.percent else _dims(n)


def revised_working(findings: list[Finding], ctx: Context) -> list[Finding]:
    text = ctx.reading.text
    marks = [m.start() for m in _REVISION.finditer(text)]
    if not marks:
        return findings
    out = list(findings)
    for i, f in enumerate(findings):
        n = f.number
        if f.status not in Audit.BAD:
            continue
        mark = next((k for k in marks if n.nend <= k <= n.nend + _WORKING_REACH), None)
        if mark is None:
            continue
        dims = _dims(n)
        replacing = next((g.number for g in findings if g.status in _ACCEPTED and
                          g.number.nstart > mark and g.number.unit is not None and
                          (dims is None or _dims(g.number) == dims)), None)
        if replacing is not None:
            out[i] = Finding(n, "discarded", f.match,
                             f"working the answer revises ({text[mark:mark + 24].strip()!r}); "
                             f"it gives {replacing.text} after it", Reason.REVISED_WORKING)
    return out


def supposition(findings: list[Finding], ctx: Context) -> list[Finding]:
    text = ctx.reading.text
    spans = []
    for m in _SUPPOSITION.finditer(text):
        end = _SENTENCE_END.search(text, m.end())
        spans.append((m.start(), m.end(), end.start() if end else len(text)))
    if not spans:
        return findings
    out = list(findings)
    for i, f in enumerate(findings):
        n = f.number
        if f.status not in Audit.BAD:
            continue
        span = next((sp for sp in spans if sp[1] <= n.nstart < sp[2]), None)
        if span is None:
            continue
        dims = _kind(n)
        actual = next((g.number for g in findings if g.status in _ACCEPTED and
                       _kind(g.number) == dims and
                       not span[0] <= g.number.nstart < span[2]), None)
        if dims is not None and actual is not None:
            out[i] = Finding(n, "hypothetical", f.match,
                             f"the consequence of a supposition ({text[span[0]:span[1]].strip()!r}); "
                             f"the answer states {actual.text}", Reason.HYPOTHETICAL)
    return out


_RATIO = power_dims(DIMENSIONLESS)


def _si(n):
    """(SI value, its tolerance) of a figure with a unit or in per cent; else None."""
    if n.unit is not None:
        return si_of(n.value, n.unit), n.tolerance * n.unit.scale
    return (n.value / 100.0, n.tolerance / 100.0) if n.percent else None


def _entry_dims(e):
    q = getattr(e, "q", None)
    return power_dims(q.unit.dims) if q is not None else None


def final_answer(findings: list[Finding], ctx: Context) -> list[Finding]:
    lines = list(_FINAL_LINE.finditer(ctx.reading.text))
    if not lines:
        return findings
    start, end = lines[-1].span()
    final = [g for g in findings if g.status in _ACCEPTED and _si(g.number) is not None and
             start <= g.number.nstart < end]
    if not final:
        return findings
    out = list(findings)
    for i, f in enumerate(findings):
        e = f.match
        if f.status not in ("unit_mislabelled", "tainted") or f.number.nstart >= start or \
                getattr(e, "si", None) is None:
            continue
        dims = _entry_dims(e)
        for g in final:
            (si, tol), n = _si(g.number), g.number
            if (power_dims(n.unit.dims) if n.unit is not None else _RATIO) != dims:
                continue
            same = is_close(si, e.si, tol)
            if same if f.status == "unit_mislabelled" else not same:
                out[i] = Finding(f.number, "discarded", e,
                                 f"working its final-answer line supersedes: "
                                 f"{lines[-1].group().strip()!r}", Reason.SUPERSEDED)
                break
    return out


def _half_up(x: float, step: Decimal) -> Decimal:
    return (Decimal(repr(x)) / step).quantize(Decimal(1), ROUND_HALF_UP) * step


def rounded_twice(x: float, written: float, tolerance: float) -> bool:
    """``written`` is ``x`` rounded half up to one place more than written, then to the
    places written (``tolerance`` is half a unit in the last place written)."""
    if not (tolerance > 0 and math.isfinite(x)):
        return False
    step = Decimal(repr(2 * tolerance)).normalize()
    first = _half_up(x, step / 10)
    second = (first / step).quantize(Decimal(1), ROUND_HALF_UP) * step
    return abs(float(second) - written) <= tolerance / 100


def double_rounding(findings: list[Finding], ctx: Context) -> list[Finding]:
    ledger = ctx.ledger
    out = list(findings)
    unsound = None
    for i, f in enumerate(findings):
        n = f.number
        if f.status != "unsourced" or n.unit is None or n.percent or n.unit.shift or \
                not n.tolerance:
            continue
        scale = n.unit.scale
        si = abs(n.value) * scale
        for e in ledger.outputs_in_si_range(n.unit.dims, si, 1.1 * n.tolerance * scale):
            if e.magnitude.__class__ is not float or \
                    (n.datum is not None and not same_datum(n.datum, e.datum)):
                continue
            x = abs(e.si) / scale
            if abs(x - abs(n.value)) <= n.tolerance or \
                    not rounded_twice(x, abs(n.value), n.tolerance):
                continue  # (within its own precision: flagged for another reason)
            if unsound is None:
                unsound = ledger.unsound_calls()
            if e.call in unsound:
                continue
            out[i] = Finding(n, "sourced", e, f"{e.label} = {x:.6g} {n.unit.symbol}, rounded "
                                              f"twice (to one place more, then as written)",
                             Reason.SOURCED_ROUNDED_TWICE)
            break
    return out


REVISIONS: tuple[tuple[str, Callable[[str], bool],
                       Callable[[list[Finding], Context], list[Finding]]], ...] = (
    ("revised_working", lambda text: any(h in text for h in _REVISION_HINTS), revised_working),
    ("supposition", lambda text: "f " in text or "F " in text, supposition),
    ("final_answer", lambda text: "nswer" in text or "NSWER" in text, final_answer),
    ("double_rounding", lambda text: True, double_rounding),
)


def revise(findings: list[Finding], ctx: Context) -> list[Finding]:
    """``findings`` after every rule of ``REVISIONS`` whose gate the answer passes."""
    text = ctx.reading.text
    for _, gate, rule in REVISIONS:
        if not any(f.status in Audit.BAD for f in findings):
            break
        if gate(text):
            findings = rule(findings, ctx)
    return findings
