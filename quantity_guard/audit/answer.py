"""``audit_answer``: read the answer, classify every number, run the follow-up passes.
"""
from __future__ import annotations

import re

from .cache import CACHE
from .text import TIME
from .reading import extract_numbers, scan
from .findings import Audit, Finding
from .context import Context, is_polyphase
from .classify import classify
from .revisions import revise
from .passes import (call_arguments, discarded, elevation_shares, explain_in_context,
    flat_roundings, GENERAL, general, hypothetical, mark_durations, MODAL, odds, per_period,
    retracted)


def audit_answer(ledger, answer: str, context: str | None = None) -> Audit:
    """Classify each number in ``answer`` against ``ledger``'s outputs and ``context``."""
    if answer is None:
        return Audit([])
    if not isinstance(answer, str):
        raise TypeError(f"audit_answer reads the answer's text: send a str, not "
                        f"{type(answer).__name__}")
    CACHE.fresh()
    quoted = ledger.context_numbers() if context == ledger.context else \
        extract_numbers(context or "")
    # a count of discrete things ("1,240 customers", "one of 3 gauges") is only passed over when
    # no tool returned a plain count (a dimensionless output of factor 1): otherwise a wrong
    # count would be a wrong tool figure, and is read like any other
    # (looked at only when such a count is read)
    def counts() -> bool:
        return not any(e.unit.dimensionless and e.unit.factor == 1 and not e.unit.shift
                       for e in ledger.output_entries())
    reading = scan(answer, True, frozenset(q.value for q in quoted), counts)
    polyphase = is_polyphase(answer) or (is_polyphase(context) if context else False)
    ctx = Context(ledger, quoted, reading, polyphase)
    findings: list[Finding] = []
    seen: dict[tuple, Finding] = {}
    for num in reading.numbers:
        # the same literal written again gets the same reading
        key = (num.value, num.unit, num.datum, num.tolerance, num.negated, num.percent, num.sign)
        known = seen.get(key)
        if known is None:
            known = seen[key] = classify(num, ctx)
        findings.append(known if known.number is num else
                        Finding(num, known.status, known.match, known._note, known.code))
    if any(f.status in Audit.BAD for f in findings):
        explain_in_context(findings, ctx)
    if any(n.flat for n in reading.numbers):
        flat_roundings(findings, ctx)
    if ledger.violation_count and any(f.status in Audit.BAD for f in findings):
        discarded(findings, ctx)
    if any(f.status in Audit.BAD for f in findings) and \
            any(w in reading.text for w in _RETRACT_WORDS):
        retracted(findings, ctx)
    if any(f.status in Audit.BAD and f.number.percent for f in findings):
        elevation_shares(findings, ctx)
    if "=" in reading.text and "(" in reading.text and \
            any(f.status in Audit.BAD for f in findings):
        call_arguments(findings, ctx)
    skipped = reading.skipped
    if any(f.status in Audit.BAD for f in findings):
        low = reading.text.lower()
        if ("would" in low or "could" in low or "might" in low or "'d " in low or "supp" in low or
                "hypothe" in low or "scenario" in low or "what if" in low) and MODAL.search(low):
            hypothetical(findings, ctx)
        if any(f.status == "unsourced" for f in findings) and (" of every " in low or
                                                               " of each " in low or
                                                               " in " in low):
            odds(findings, ctx)
        if any(f.status == "unsourced" for f in findings):
            if ("year" in low or "yr" in low or "annu" in low or "month" in low or
                    "day" in low or "hour" in low or "week" in low or "ly " in low or
                    "daily" in low or "fortnight" in low or "24h" in low or "24 h" in low or
                    "24-h" in low or "min" in low) and \
                    _PERIOD_WORD.search(low):
                per_period(findings, ctx)
            if any(w in low for w in _GENERAL_HINTS) and GENERAL.search(reading.text):
                findings, skipped = general(findings, ctx, skipped)
    if any(f.status in Audit.BAD for f in findings):
        findings = revise(findings, ctx)
    if any(f.status == "unsourced" and f.number.unit is not None and
           f.number.unit.dims == TIME for f in findings):
        findings, skipped = mark_durations(findings, ctx, skipped)
    return Audit(findings, skipped)


_GENERAL_HINTS = ("typical", "usual", "often", "general", "normal", "common", "rule", "guidance",
                  "standard", "most ", "among")
_PERIOD_WORD = re.compile(r"year|\byr\b|annum|annual|month|week|day|hour|daily|hourly|fortnight|minute|\bmin\b|"
                          r"24[ -]?h")


# every withdrawing phrase above holds one of these (checked with `in` before the pass runs)
_RETRACT_WORDS = ("not ", " as ", " I ", "wrong", "typ", "transpos", "isregard", "gnore", "cratch",
                  "trike", "crap", "answer", "ncorrect", "istake", "error", "ithdrawn", "etracted",
                  "I first", "iscard", "rop the", "raft", "Not ", "slip", "I initially",
                  "I earlier", "I previously", "I originally", "I wrongly", "I mistakenly")
