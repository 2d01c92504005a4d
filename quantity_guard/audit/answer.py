"""``audit_answer``: read the answer, classify every number, run the follow-up passes.
"""
from __future__ import annotations

from .cache import CACHE
from ..reading.reader import extract_numbers, scan
from .findings import Audit, Finding
from .context import Context, is_polyphase
from .classify import classify
from .passes import follow_up
from .abandoned import abandoned

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .view import LedgerView


def audit_answer(ledger: LedgerView, answer: str, context: str | None = None) -> Audit:
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
                        known.for_number(num))
    findings, skipped = follow_up(findings, ctx, reading.skipped)
    return Audit(findings, skipped, abandoned(findings, ctx))

