"""Methods a lower layer offers and a higher one supplies, so the lower imports nothing of the
higher: ``Ledger.audit_answer`` runs the answer audit, which ``quantity_guard.audit.method``
supplies (``quantity_guard/__init__`` imports it, so the method works however the ledger was
imported)."""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_AUDITOR: "Callable[..., Any] | None" = None


def supply_auditor(audit: "Callable[..., Any]") -> None:
    """Install ``audit(ledger, answer, context)`` as what ``Ledger.audit_answer`` runs."""
    global _AUDITOR
    _AUDITOR = audit


def auditor() -> "Callable[..., Any]":
    """What ``Ledger.audit_answer`` runs."""
    if _AUDITOR is None:
        raise RuntimeError("no answer audit is installed: import quantity_guard (whose "
                           "__init__ installs quantity_guard.audit.method) before auditing")
    return _AUDITOR
