"""The two checks on a guarded call's inputs: carry-over and sourced (see the package doc)."""
from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # annotations only: they are never evaluated at run time
    from typing import Any

    from ..spec import Accepted
    from .record import Entry

from ..errors import (
    DimensionalityError,
    GuardViolation,
    UnconvertedCarryOver,
    UnsourcedInput,
)
from ..numeric import (
    fmt_exact,
    fmt_g,
    is_close,
    relative_cap,
)
from ..quantity import Q
from ..reading import written_tolerance
from .index import window
from .views import AuditViews


class Checks(AuditViews):
    """Carry-over and sourced checks, and the one-step derivations they accept, as methods of
    ``Ledger``."""

    def _in_question(self, held: Q, tol: float) -> bool:
        """The held value is stated in the question in the tool's unit, or with no unit."""
        for num in self.context_numbers():
            if not is_close(num.value, held.magnitude, tol):
                continue
            if num.unit is None or num.unit == held.unit:
                return True
        return False

    def _check_carry_over(self, call, spec, accepted) -> None:
        """Refuse a value equal (within the written precision) to an output recorded on another
        footing that is not the same physical amount, unless the question states it. The output
        named is the nearest such one (the oldest among equally near)."""
        held: Q = accepted.value
        m = held.magnitude
        if m == 0.0:
            return
        unit, datum = held.unit, held.datum
        with self._lock:  # the index changes as other threads record
            eligible = self._eligible(m, unit, datum)
        if eligible is None:
            return
        tol = relative_cap(m, held_tolerance(accepted))
        lo, hi = window(m, tol)
        held_si = m * unit.scale + unit.shift
        index, candidates = call.index, []
        with self._lock:
            for footing in eligible:
                run = self._by_footing.get(footing)
                if run is None:
                    continue
                f_unit, f_datum = footing
                may_be_same_amount = f_unit != unit and f_unit.dims == unit.dims and \
                    f_datum == datum
                for e in run.scan(lo, hi):
                    if e.call == index or not is_close(e.magnitude, m, tol):
                        continue
                    if may_be_same_amount and is_close(e.si, held_si, 1e-9 * abs(e.si)):
                        continue  # the same physical amount, correctly converted
                    candidates.append(e)
        if candidates and not self._in_question(held, tol):
            best = min(candidates, key=lambda e: (abs(e.magnitude - m), e.index))
            raise self._carry_over(call, spec, accepted, best, best.unit == unit)

    def _carry_over(self, call, spec, accepted, e: Entry, datum_only: bool):
        held: Q = accepted.value
        shown = fmt_g(accepted.received.magnitude if accepted.received is not None else held.magnitude)
        if accepted.how == "bare":
            opening = (f"received the bare number {shown}, which this tool reads as "
                       f"{_label(held)}")
        else:
            opening = f"received {_label(accepted.received or held)}"
        if datum_only and held.datum is not None:  # same unit: both datums given, different
            msg = (f"{opening}, but {e.label} returned {_label(e.q)} and no datum conversion was "
                   f"applied")
            from ..spec import datum_repair
            suggestion = datum_repair(e.q, held.datum, spec.unit)
        else:
            # only what the declaration accepts is offered: the output as it was labelled (with
            # its datum and quality), and its conversion, each checked against the parameter
            stated = {"value": e.magnitude, "unit": e.unit.symbol}
            for key in ("datum", "quality", "crs"):
                if getattr(e.q, key) is not None:
                    stated[key] = getattr(e.q, key)
            why: "GuardViolation | None" = None
            converted: Any = None
            try:
                converted = spec.accept(stated, spec.field).value
            except GuardViolation as refused:
                why = refused
            if why is None:
                msg = (f"{opening}, but {e.label} returned {_label(e.q)} and no conversion was "
                       f"applied")
                hint = (f", or the converted value {fmt_exact(converted.magnitude)} "
                        f"{spec.unit.symbol}" if converted.magnitude.__class__ is float else "")
                extra = "".join(f', "{k}": "{stated[k]}"' for k in ("datum", "quality", "crs")
                                if k in stated)
                suggestion = (f'{{"value": {fmt_exact(e.magnitude)}, "unit": "{e.unit.symbol}"'
                              f'{extra}}} (the guard converts it){hint}')
            elif isinstance(why, DimensionalityError):  # another kind of quantity
                msg = (f"{opening}, but that is the number {e.label} returned as "
                       f"{_label(e.q)}, reused as it is: {why.message}")
                suggestion = (f"a value in {spec.unit.symbol} ({spec.unit.dimensionality}) worked "
                              f"out for this parameter, not {_label(e.q)} (it cannot be passed "
                              f"here in any unit); if no tool returns it, compute it from what "
                              f"the tools returned, or report it as unavailable")
            else:  # the output itself lacks what the parameter requires (a quality, a datum)
                msg = (f"{opening}, but that is the number {e.label} returned as "
                       f"{_label(e.q)}, reused as it is; and {_label(e.q)} as it was returned "
                       f"would be refused here too: {why.message}")
                suggestion = (f"{_label(e.q)} only with what this parameter also requires, as "
                              f"its source states it (never assumed): {why.suggestion}"
                              if why.suggestion else
                              f"a value this parameter accepts ({spec._example()})")
        return UnconvertedCarryOver(msg, field=spec.field, suggestion=suggestion,
                                    received=shown, expected=spec.unit_text)

    def _check_sourced(self, call, spec, accepted, not_copied_at: int = -1) -> None:
        """``not_copied_at``: the entry count at which the caller found the value no exact
        copy (``_copy_of_output``); while nothing is recorded since, that is not asked again."""
        held: Q = accepted.value
        m = held.magnitude
        u = held.unit
        # A value copied exactly from an output in the same unit and datum (the same SI value,
        # so within any tolerance): one bisection of that footing's run.
        si = m * u.scale + u.shift
        with self._lock:  # the index changes as other threads record
            if self._count != not_copied_at and self._copied(m, u, held.datum, call.index):
                return
            # The tolerance is at least 1e-9 relative: an output that matches that closely (a
            # value copied exactly, perhaps converted) is found before the precision is read.
            if self._output_matches(call.index, u.dims, held.datum, si,
                                    1e-9 * abs(si) or 1e-12):
                return
        written = held_tolerance(accepted)
        tol = relative_cap(si, written * u.scale) or 1e-12
        if tol > 1e-9 * abs(si):
            with self._lock:
                if self._output_matches(call.index, u.dims, held.datum, si, tol):
                    return
        for num in self.context_numbers():  # before the derivations: a few numbers, no sort
            if num.unit is None:
                if is_close(num.value, m, relative_cap(m, num.tolerance)):
                    return
            elif num.unit.dims == u.dims:
                nsi = num.value * num.unit.scale + num.unit.shift
                if is_close(nsi, si, relative_cap(si, num.tolerance * num.unit.scale)):
                    return
        if self.find_derivation((m,), u, relative_cap(m, written)):
            return
        shown = accepted.received if accepted.received is not None else held
        raise UnsourcedInput(
            f"received {fmt_g(shown.magnitude)} {shown.unit.symbol}, which no tool returned and "
            f"the question did not supply", field=spec.field, received=str(shown),
            suggestion="a value a tool returned in this session (call the tool that provides "
                       "it) or one stated in the question; if none can provide it, report it as "
                       "unavailable rather than estimating it")


_HALF_UNITS = [0.5 * 10.0 ** -k for k in range(20)]  # half a unit in the k-th decimal place
_HALF_UNITS_UP = [0.5 * 10.0 ** k for k in range(4)]  # half of 1, 10, 100, 1000


def held_tolerance(accepted: Accepted) -> float:
    """The precision the model wrote, in the unit the tool holds the value in (the carry-over
    check's tolerance). Public (not in ``__all__``): the index's tests check it against a
    reference reading."""
    raw = accepted.raw
    if raw.__class__ is float and accepted.received is accepted.value:  # a bare number
        text = repr(raw)  # written_tolerance's reading, without its general dispatch
        if "e" not in text and "n" not in text:
            if text[-2:] != ".0":
                decimals = len(text) - text.index(".") - 1
                if decimals < 20:
                    return _HALF_UNITS[decimals]
            else:  # a whole number: its trailing zeros (at most 3) are read as rounding
                digits = text[:-2] if raw else "0"  # str(int(raw)): tolerance_of_digits(.., 0, 3)
                zeros = min(len(digits) - len(digits.rstrip("0")), 3) \
                    if digits.strip("0") else 0
                return _HALF_UNITS_UP[zeros]
    tol = written_tolerance(raw)
    received, held = accepted.received, accepted.value
    if received is not None and received.unit is not held.unit:
        tol *= received.unit.scale / held.unit.scale
    return tol


def _label(q: Q) -> str:
    text = f"{fmt_g(q.magnitude)} {q.unit.symbol}"
    return f"{text} on {q.datum}" if q.datum else text


