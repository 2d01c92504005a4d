"""What the answer audit reads of a ledger: ``LedgerView``, declared. ``Ledger`` provides it
(its ``AuditViews`` part, ``ledger/views.py``); the audit reads nothing else of a ledger (a
test reads the audit's source for it)."""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from ..ledger.record import Entry


@runtime_checkable
class LedgerView(Protocol):
    """A session's record as the audit reads it. Views are built once per change of the
    record and searched by bisection; an "output" here may also be a recorded elevation
    carried to another datum (``conversions.Conversion``), read like a recorded output."""

    context: str | None           # the question, as the session was opened with it
    calls: "Sequence[Any]"        # the call records kept (``CallRecord``), oldest first
    violations: list[dict]        # every violation kept, blocked or not
    violation_count: int
    declared: "Mapping[str, Any]"  # {tool name: the guarded tool} for each tool called

    @property
    def call_count(self) -> int: ...

    def output_entries(self) -> "list[Entry]": ...

    def context_numbers(self) -> list: ...

    def outputs_in_range(self, magnitude: float, tol: float, role: str = "output") -> list: ...

    def outputs_in_si_range(self, dims: Any, si: float, tol: float) -> list: ...

    def outputs_in_any_si_range(self, si: float, tol: float) -> list: ...

    def si_view(self, dims: Any) -> tuple: ...

    def has_negative_output(self) -> bool: ...

    def converted_elevations(self) -> list: ...

    def datum_offsets(self) -> frozenset: ...

    def station_zeros(self) -> dict: ...

    def call_inputs(self) -> dict: ...

    def inverts_call(self, operands: "Iterable[Any]", dims: Any, si: float,
                     tol: float) -> bool: ...

    def refused_calls(self) -> frozenset: ...

    def unsupported_calls(self) -> dict: ...

    def unsound_calls(self) -> frozenset: ...

    def find_derivation(self, values: Any, unit: Any, tol: float,
                        datum: str | None = None) -> Any: ...

    def product_operands(self) -> dict: ...
