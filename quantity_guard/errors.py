"""The violations quantity-guard raises, and the repair text each one carries.

Every violation says three things: what was received, what was expected, and what to send
instead. ``code`` is stable (it keys enforcement reports and tool errors); ``field`` names the
place (``"runoff_depth.discharge"``) when the violation happened at a tool boundary.

This module is a leaf: it imports nothing from the package, so every layer may raise from it.
"""
from __future__ import annotations

__all__ = [
    "GuardViolation",
    "ResultShapeMismatch",
    "UnitParseError",
    "DimensionalityError",
    "OffsetUnitError",
    "DatumMismatch",
    "DatumConversionUnavailable",
    "UnknownDatum",
    "CRSMismatch",
    "TimezoneError",
    "QualityViolation",
    "MissingUnit",
    "InvalidArguments",
    "BelowAbsoluteZero",
    "InvalidToolCall",
    "UnconvertedCarryOver",
    "UnsourcedInput",
    "SessionUnbound",
    "StoreUnavailable",
    "RedefinitionError",
    "VIOLATION_META",
    "tool_error",
]

#: the ``_meta`` key of an error tool result naming its violation's ``code`` and ``field``
VIOLATION_META = "io.github.quantity-guard/violation"


def tool_error(text: str, violation: "GuardViolation | None" = None, *, code: str | None = None,
               field: str | None = None) -> dict:
    """An ``isError`` MCP ``CallToolResult`` a model can read and repair. Its ``_meta`` names the
    violation's code and field, or the ``code`` and ``field`` given for an error that is not a
    violation (``unknown_tool``, ``tool_failed``, ``guard_internal_error``); without either it
    has no ``_meta``. The one builder for the library, the proxy and the server."""
    out: dict = {"content": [{"type": "text", "text": text}], "isError": True}
    if violation is not None:
        code, field = violation.code, violation.field
    if code is not None:
        out["_meta"] = {VIOLATION_META: {"code": code, "field": field}}
    return out


class GuardViolation(Exception):
    """Base class: a value that must not cross the boundary as it is.

    ``message`` says what was wrong (received vs expected); ``suggestion`` says what to send
    instead. ``repair()`` joins them into one text a model can act on.
    """

    code = "guard_violation"

    def __init__(self, message: str, *, field: str | None = None, suggestion: str | None = None,
                 received: object = None, expected: object = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.suggestion = suggestion
        self.received = received
        self.expected = expected

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message

    def repair(self) -> str:
        """What was wrong and exactly what to send instead, as one paragraph."""
        return self._join(str(self))

    def _join(self, text: str) -> str:
        if self.suggestion:
            end = text.rstrip()
            # one sentence ends before the next begins: "... was applied. Send instead: ..."
            stop = "" if not end or end[-1] in ".!?:;" else "."
            text = f"{end}{stop} Send instead: {self.suggestion}"
        return text

    def at(self, field: str | None) -> "GuardViolation":
        """Return this violation located at ``field`` (the original is left untouched)."""
        clone = self.__class__.__new__(self.__class__)
        clone.__dict__.update(self.__dict__)
        Exception.__init__(clone, self.message)
        clone.field = field
        return clone

    def as_dict(self) -> dict:
        return {"code": self.code, "field": self.field, "message": self.message,
                "repair": self.repair()}


class UnitParseError(GuardViolation, ValueError):
    """A unit expression that cannot be read, or that is ambiguous.

    ``position`` is the 0-based character offset of the problem in ``text`` (or None).
    """

    code = "unit_parse_error"

    hint = ""

    def __init__(self, message: str, *, text: str | None = None, position: int | None = None,
                 suggestions: tuple[str, ...] = (), hint: str = "", **kw) -> None:
        """``hint`` follows the message in ``str()`` (what to write instead, in words), and is
        left out of ``repair()``, whose "Send instead" names the same alternatives."""
        self.hint = hint
        self.text = text
        self.position = position
        self.suggestions = tuple(suggestions)
        if suggestions and "suggestion" not in kw:
            kw["suggestion"] = " or ".join(repr(s) for s in suggestions)
        super().__init__(message, **kw)

    def __str__(self) -> str:
        return super().__str__() + self.hint

    def repair(self) -> str:
        # the hint ("(did you mean 'kW'?)", "; write 'gal_US' or 'gal_imp' instead") names
        # what "Send instead" says: it is not said twice
        return self._join(GuardViolation.__str__(self)) if self.suggestion else str(self)


class DimensionalityError(GuardViolation, ValueError):
    """Two dimensions that cannot be converted or combined (a length where a flow is needed)."""

    code = "dimensionality_error"


class OffsetUnitError(DimensionalityError):
    """An operation on an offset (temperature-point) unit that has no physical meaning."""

    code = "offset_unit_error"


class DatumMismatch(GuardViolation, ValueError):
    """Two elevations on different vertical datums combined, or a value on the wrong datum."""

    code = "datum_mismatch"


class UnknownDatum(GuardViolation, ValueError):
    """A vertical datum name that is not registered."""

    code = "unknown_datum"


class DatumConversionUnavailable(GuardViolation, ValueError):
    """A datum conversion asked for with no registered offset to do it."""

    code = "datum_conversion_unavailable"


class CRSMismatch(GuardViolation, ValueError):
    code = "crs_mismatch"


class TimezoneError(GuardViolation, ValueError):
    """A naive timestamp, or an offset that is wrong for the declared zone at that instant."""

    code = "timezone_error"


class QualityViolation(GuardViolation, ValueError):
    """A record weaker than the declared quality floor, or an unknown quality flag."""

    code = "quality_violation"


class MissingUnit(GuardViolation, ValueError):
    """A bare number where the declaration requires an explicit unit."""

    code = "missing_unit"


class InvalidArguments(GuardViolation, ValueError):
    """Arguments that are not of any accepted shape (unknown keys, booleans, missing fields)."""

    code = "invalid_arguments"


class ResultShapeMismatch(InvalidArguments):
    """A result that cannot be labelled as its annotation declares it (fields declared, a bare
    number or prose arrived; one value declared, an object arrived). Never blocking: the result
    goes on as the upstream sent it, and the mismatch is recorded and counted."""

    code = "result_shape_mismatch"


class BelowAbsoluteZero(InvalidArguments):
    """A temperature below absolute zero: a point on degC or degF below -273.15 degC, or a
    value below 0 K sent where an absolute temperature is declared. No temperature is colder;
    a value that low can only be a temperature difference (``delta_degC``)."""

    code = "below_absolute_zero"


class InvalidToolCall(InvalidArguments):
    """``dispatch`` received something that is no provider's tool-call shape."""

    code = "invalid_tool_call"


class UnconvertedCarryOver(GuardViolation, ValueError):
    """A magnitude reused from an earlier tool on a different footing, with no conversion."""

    code = "unconverted_carry_over"


class UnsourcedInput(GuardViolation, ValueError):
    """A ``sourced`` input that traces to no tool output and not to the question."""

    code = "unsourced_input"


class SessionUnbound(GuardViolation, RuntimeError):
    """A guarded call in a thread bound to no session while several sessions are open: which
    session's checks apply cannot be known, so the call is refused rather than left unchecked."""

    code = "session_unbound"


class StoreUnavailable(GuardViolation, RuntimeError):
    """The shared store (``--store``, ``session(store=...)``) could not be read or written, so
    the conversation's history is unknown here (or this call's record would be lost): the call
    is refused rather than checked against an incomplete ledger (fail closed)."""

    code = "store_unavailable"


class RedefinitionError(ValueError):
    """An attempt to give an existing unit, datum or alias a different meaning."""
