"""``Ledger.audit_answer``, supplied by the audit (the audit takes a ledger; the ledger imports
nothing of the audit). Importing this module installs it; the audit itself is imported on the
first call, so ``import quantity_guard`` stays light."""
from __future__ import annotations

from time import perf_counter as _perf_counter

from .. import _seams

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .findings import Audit
    from .view import LedgerView


def audit_answer(ledger: "LedgerView", answer: str, context: str | None = None) -> "Audit":
    """``ledger.audit_answer(answer, context=question)``: every number in ``answer`` classified
    against ``ledger`` and ``context`` (the session's question by default), timed for an
    observer when one is installed."""
    from .. import observe
    from .answer import audit_answer as run
    question = context if context is not None else ledger.context
    observer = observe.current()
    if observer is None:
        return run(ledger, answer, question)
    start = _perf_counter()
    audit = run(ledger, answer, question)
    observer.audited(audit, _perf_counter() - start)
    return audit


_seams.supply_auditor(audit_answer)
