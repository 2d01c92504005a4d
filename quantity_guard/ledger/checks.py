"""The two checks on a guarded call's inputs: carry-over and sourced (see the package doc)."""
from __future__ import annotations

from itertools import chain

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # annotations only: they are never evaluated at run time
    from collections.abc import Iterable
    from typing import Any

    from ..spec import Accepted
    from ..units import Unit
    from .record import Entry

from ..conversions import combinable
from ..errors import (
    DimensionalityError,
    GuardViolation,
    UnconvertedCarryOver,
    UnsourcedInput,
)
from ..numeric import (
    canonical_datum,
    fmt_exact,
    fmt_g,
    is_close,
    pair_datum_ok,
    power_dims,
    relative_cap,
)
from ..quantity import Q
from ..reading import written_tolerance
from .index import window


class Checks:
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

    def _check_sourced(self, call, spec, accepted) -> None:
        held: Q = accepted.value
        m = held.magnitude
        u = held.unit
        # A value copied exactly from an output in the same unit and datum (the same SI value,
        # so within any tolerance): one bisection of that footing's run.
        si = m * u.scale + u.shift
        with self._lock:  # the index changes as other threads record
            if self._copied(m, u, held.datum, call.index):
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

    def find_derivation(self, values, unit, tol: float, datum=None):
        """A pair (a, b, op) of recorded outputs whose sum or difference is one of ``values``:
        in SI among outputs of ``unit``'s dimension, or, with no unit written, among outputs
        of one unit by their own magnitudes. Elevations follow ``Q``'s algebra (two datums
        never combine; elevation - elevation is a length; elevation +/- length stays on its
        datum, which must be ``datum`` if one was written). Two-pointer scans of sorted
        values: O(window) per target, plus the pairs within the tolerance."""
        converted = self.converted_elevations()
        offsets = self.datum_offsets() if converted else frozenset()
        views: "list[tuple[Any, Any, Any, Unit | None]]"
        if unit is not None:
            if converted:
                recent: "Iterable[Entry]" = chain(
                    self._recent.get(unit.dims, ()),
                    (c for c in converted if c.unit.dims == unit.dims))
                view = self._sorted_view(("pairs", unit.dims), recent, lambda e: e.si)
            else:
                with self._lock:
                    view = self._pair_view(unit.dims)
            views = [(view, [v * unit.scale for v in values], tol * unit.scale, None)]
        else:
            units = dict.fromkeys(e.unit for recent in self._recent.values() for e in recent)
            views = [(self._sorted_view(("pairs", u), chain(
                (e for e in self._recent[u.dims] if e.unit == u),
                (c for c in converted if c.unit == u)), lambda e: e.magnitude),
                      values, tol, u) for u in units]
        if datum is not None:
            datum = canonical_datum(datum)
        inverts = self.inverts_call  # reads call_inputs() only for a pair found
        for (keys, entries), targets, t_tol, own in views:
            if len(keys) < 2:
                continue
            for target in targets:
                for i, j, op in chain(_pair_sums(keys, target, t_tol),
                                      _pair_differences(keys, target, t_tol)):
                    a, b = entries[i], entries[j]
                    if pair_datum_ok(a.datum, b.datum, op, datum) and \
                            not (offsets and (id(a) in offsets or id(b) in offsets)) and \
                            combinable(a, b) and \
                            not (inverts and _backwards(inverts, a, b, target, t_tol, own)):
                        return a, b, op
        return None


def _backwards(inverts, a, b, target: float, tol: float, own) -> bool:
    """A sum or difference of ``a`` and ``b`` landing on an input of the call that produced
    either (freeboard + water level = the crest passed in): the tool run backwards.
    ``target`` is in SI, or in the unit ``own`` when the pair is compared by magnitudes."""
    u = a.unit
    if own is not None:
        target, tol = target * own.scale + own.shift, tol * own.scale
    return inverts((a, b), power_dims(u.dims), target, tol)


def _pair_sum(keys: list[float], target: float, tol: float):
    """Indices i < j with keys[i] + keys[j] within tol of target (keys sorted), or None."""
    return next(_pair_sums(keys, target, tol), None)


def _pair_difference(keys: list[float], target: float, tol: float):
    """Indices with keys[j] - keys[i] within tol of |target| (keys sorted), or None."""
    return next(_pair_differences(keys, target, tol), None)


def _pair_sums(keys: list[float], target: float, tol: float):
    """Every (i, j, "+") with i < j and keys[i] + keys[j] within tol of target (keys sorted):
    a two-pointer scan, then the run of partners within the tolerance for each i."""
    i, j = 0, len(keys) - 1
    lo, hi = target - tol, target + tol
    if j < 1 or keys[j] + keys[j - 1] < lo or keys[0] + keys[1] > hi:
        return
    while i < j:
        s = keys[i] + keys[j]
        if s < lo:
            i += 1
        elif s > hi:
            j -= 1
        else:
            k = j
            while k > i and keys[i] + keys[k] >= lo:
                yield i, k, "+"
                k -= 1
            i += 1


def _pair_differences(keys: list[float], target: float, tol: float):
    """Every (a, b, "-") with keys[a] - keys[b] within tol of target (keys sorted)."""
    t = abs(target)
    n = len(keys)
    if n < 2 or keys[-1] - keys[0] < t - tol:
        return
    i, j = 0, 1
    while j < n:
        if i == j:
            j += 1
            continue
        d = keys[j] - keys[i]
        if d < t - tol:
            j += 1
        elif d > t + tol:
            i += 1
        else:
            k = j
            while k < n and keys[k] - keys[i] <= t + tol:
                if k != i:
                    yield (k, i, "-") if target >= 0 else (i, k, "-")
                k += 1
            i += 1



_HALF_UNITS = [0.5 * 10.0 ** -k for k in range(20)]  # half a unit in the k-th decimal place


def held_tolerance(accepted: Accepted) -> float:
    """The precision the model wrote, in the unit the tool holds the value in (the carry-over
    check's tolerance). Public (not in ``__all__``): the index's tests check it against a
    reference reading."""
    raw = accepted.raw
    if raw.__class__ is float and accepted.received is accepted.value:  # a bare number
        text = repr(raw)  # written_tolerance's reading, without its general dispatch
        if "e" not in text and "n" not in text and text[-2:] != ".0":
            decimals = len(text) - text.index(".") - 1
            if decimals < 20:
                return _HALF_UNITS[decimals]
    tol = written_tolerance(raw)
    received, held = accepted.received, accepted.value
    if received is not None and received.unit is not held.unit:
        tol *= received.unit.scale / held.unit.scale
    return tol


def _label(q: Q) -> str:
    text = f"{fmt_g(q.magnitude)} {q.unit.symbol}"
    return f"{text} on {q.datum}" if q.datum else text


