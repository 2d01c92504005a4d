"""The audit's look-ups: sorted views of what the ledger recorded, built once per change."""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import chain

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # annotations only: they are never evaluated at run time
    from collections.abc import Iterable
    from typing import Any

    from ..units import Unit
    from .record import Entry

from .. import datums as _datums
from ..conversions import combinable
from ..numeric import canonical_datum, pair_datum_ok, power_dims, share_matches
from ..reading import extract_numbers, written_tolerance
from ..units import table as _units
from .index import Index, added_since


class AuditViews(Index):
    """What the answer audit reads of a ledger (``audit.view.LedgerView``), and the search for
    one-step sums and differences the sourced check shares with it, as methods of ``Ledger``."""

    context: str | None
    calls: Any                  # the call records kept: a list, or a deque under max_calls
    calls_dropped: int
    violations: list[dict]
    violation_count: int
    _views: dict                # sorted views, rebuilt after each change
    _units_seen: Any            # the registries' generations the views were read under
    _datums_seen: Any
    _context_numbers: list | None
    _unsound: tuple | None

    # -- look-ups ---------------------------------------------------------------------------
    def output_entries(self) -> list[Entry]:
        return [e for e in self.entries if e.role == "output"]

    def context_numbers(self) -> list:
        """The numbers the question (``context``) states (``reading.extract_numbers``), read
        again after a unit or datum is registered."""
        if _units.GENERATION != self._units_seen or _datums.GENERATION is not self._datums_seen:
            self._registries_changed()
        if self._context_numbers is None:
            self._context_numbers = extract_numbers(self.context or "")
        return self._context_numbers

    # -- sorted views, for the answer audit: one sort per change, then bisection ---------------
    def _registries_changed(self) -> None:
        """A unit or datum was registered (or forgotten) since the views were built: the
        question's numbers, the datum conversions and what they support are read again. Each
        accessor whose view reads a registry compares its generation first (the views of
        recorded elevations read the datum registry only; the readings of text both), as
        ``GENERATION`` (``generation()`` without the call: the audit looks its views up some
        two hundred times an answer)."""
        self._units_seen, self._datums_seen = _units.generation(), _datums.generation()
        self._views = {}
        self._unsound = None
        self._context_numbers = None

    def _sorted_view(self, key: tuple, entries, value_of):
        cache_key = (*key, self._count)
        view = self._views.get(cache_key)
        if view is None:
            pairs = sorted(((value_of(e), e) for e in entries), key=lambda p: p[0])
            view = ([p[0] for p in pairs], [p[1] for p in pairs])
            self._views = {k: v for k, v in self._views.items() if k[-1] == self._count}
            self._views[cache_key] = view
        return view

    def _in_range(self, view, value: float, tol: float) -> list:
        keys, entries = view
        return entries[bisect_left(keys, value - tol):bisect_right(keys, value + tol)]

    def outputs_in_si_range(self, dims, si: float, tol: float) -> list:
        """Every recorded output of ``dims`` whose SI value is within ``tol`` of ``si`` (and,
        for elevations, the same point on another datum through a recorded offset)."""
        if _datums.GENERATION is not self._datums_seen:
            self._registries_changed()
        view = self._views.get(("si", dims, self._count))
        if view is None:
            view = self._sorted_view(("si", dims), chain(
                (e for e in self.entries if e.role == "output" and e.unit.dims == dims),
                (c for c in self.converted_elevations() if c.unit.dims == dims)),
                lambda e: e.si)
        keys = view[0]
        return view[1][bisect_left(keys, si - tol):bisect_right(keys, si + tol)]

    def si_view(self, dims) -> tuple:
        """(sorted SI values, outputs) of ``dims``, as ``outputs_in_si_range`` searches them."""
        if _datums.GENERATION is not self._datums_seen:
            self._registries_changed()
        view = self._views.get(("si", dims, self._count))
        if view is None:
            self.outputs_in_si_range(dims, 0.0, 0.0)
            view = self._views[("si", dims, self._count)]
        return view

    def outputs_in_range(self, magnitude: float, tol: float, role: str = "output") -> list:
        """Every recorded output (or input) whose own-unit magnitude is within ``tol``."""
        if _datums.GENERATION is not self._datums_seen:
            self._registries_changed()
        view = self._views.get(("m", role, self._count))
        if view is None:
            view = self._sorted_view(("m", role), chain(
                (e for e in self.entries if e.role == role),
                self.converted_elevations() if role == "output" else ()),
                lambda e: e.magnitude)
        keys = view[0]
        return view[1][bisect_left(keys, magnitude - tol):bisect_right(keys, magnitude + tol)]

    def outputs_in_any_si_range(self, si: float, tol: float) -> list:
        """Every recorded output, of any dimension, whose SI value is within ``tol`` of ``si``
        (a figure re-expressed in base units without its unit: 42 MVA as 42,000,000)."""
        view = self._views.get(("si*", self._count))
        if view is None:
            view = self._sorted_view(("si*",), (e for e in self.entries if e.role == "output"),
                                     lambda e: e.si)
        keys = view[0]
        return view[1][bisect_left(keys, si - tol):bisect_right(keys, si + tol)]

    def call_record(self, index: int) -> Any:  # a CallRecord, or None
        """The record of call ``index``; None for a call never made or one no longer kept
        (``max_calls`` drops the oldest records, so ``calls[i]`` is not call ``i`` then)."""
        i = index - self.calls_dropped
        return self.calls[i] if 0 <= i < len(self.calls) else None

    def _call_arguments(self, index: int):
        record = self.call_record(index)
        return record.arguments if record is not None else None

    def converted_elevations(self) -> list:
        """Recorded elevations carried to another datum by a conversion the record supports
        (``conversions.RULES``: a recorded offset, a station datum's height or gauge zero, the
        datums registry). These are the same points, like a unit conversion; the audit reads
        them as sourced and a tool input that is one is supported."""
        if _datums.GENERATION is not self._datums_seen:
            self._registries_changed()
        key = ("converted", self._count)
        view = self._views.get(key)
        if view is None:
            for _, datum in self._by_footing:
                if datum is not None:
                    break
            else:  # no elevation recorded: nothing to convert, no zeros, no offsets (the
                # accessors' defaults); nothing is kept: this runs on each sourced check
                return []
            from .. import conversions
            outputs = [e for e in self.entries if e.role == "output"]
            found = conversions.find(outputs, self.call_inputs(), self._call_arguments)
            view = found.conversions
            self._views[("zeros", self._count)] = found.zeros
            self._views[("offsets", self._count)] = frozenset(found.offsets)
            self._views[key] = view
        return view

    def datum_offsets(self) -> frozenset:
        """ids of the outputs that are datum offsets (see ``converted_elevations``): they
        carry an elevation to another datum and combine with nothing else."""
        self.converted_elevations()
        return self._views.get(("offsets", self._count), frozenset())

    def station_zeros(self) -> dict:
        """{id of an output: datum} for the heights of station datums (see
        ``converted_elevations``): the height is the elevation of the station's zero on that
        datum, so "6.30 m AOD" writes it correctly."""
        self.converted_elevations()
        return self._views.get(("zeros", self._count), {})

    def tainted_calls(self) -> frozenset:
        """Indexes of the calls that ran although a violation of their inputs was recorded
        (warn or off mode: an unconverted carry-over, an unsourced or datum-blind input). Their
        outputs are computed from a value the boundary refused, so the audit does not count
        them as a source (status ``tainted``)."""
        key = ("tainted", self._count, self.violation_count)
        view = self._views.get(key)
        if view is None:
            view = frozenset(v["call"] for v in self.violations if not v.get("blocked"))
            self._views[key] = view
        return view

    def refused_calls(self) -> frozenset:
        """Indexes of the calls with any recorded violation (refused, or run in warn mode)."""
        key = ("refused", self._count, self.violation_count)
        view = self._views.get(key)
        if view is None:
            view = self._views[key] = frozenset(v["call"] for v in self.violations)
        return view

    def unsupported_calls(self) -> dict:
        """{call index: input entry} for the calls (with no recorded violation) that received a
        quantity which no earlier output (in any unit; an elevation carried by a recorded datum
        offset too), no number of the question and no one-step sum or difference of outputs
        supports, within the precision the model wrote it (at least 0.1%, for a factor rounded
        on the way, and at most 5%). Their
        outputs are computed from a value of unknown provenance (a slipped factor, a hand
        conversion gone wrong, a remembered figure) where the tool declared no ``sourced``
        check: the audit does not count them as a source (status ``tainted``)."""
        if _units.GENERATION != self._units_seen or _datums.GENERATION is not self._datums_seen:
            self._registries_changed()
        key = ("unsupported", self._count)
        view = self._views.get(key)
        if view is None:
            view = {}
            inputs = self.call_inputs()
            if inputs:
                refused = self.refused_calls()
                for call, entries in inputs.items():
                    if call in refused:
                        continue
                    for e in entries:
                        if e.magnitude.__class__ is float and not self._supported(e):
                            view[call] = e
                            break
            self._views[key] = view
        return view

    def _supported(self, e: Entry) -> bool:
        raw = e.raw
        value = raw.get("value") if isinstance(raw, dict) else raw
        if isinstance(value, str):
            nums = extract_numbers(value)
            value = nums[0].value if nums else None
        rel = 0.001
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value:
            rel = min(0.05, max(0.001, written_tolerance(raw) / abs(float(value))))
        si, m = e.si, e.magnitude
        tol = max(rel * abs(si), 1e-12)
        keys, entries = self.si_view(e.unit.dims)
        for o in entries[bisect_left(keys, si - tol):bisect_right(keys, si + tol)]:
            if o.call < e.call and (o.datum is None or e.datum is None or o.datum == e.datum):
                return True
        for c in self.converted_elevations():
            if c.call < e.call and c.unit.dims == e.unit.dims and abs(c.si - si) <= tol and \
                    (e.datum is None or c.datum == e.datum):
                return True
        for num in self.context_numbers():
            if num.unit is None:
                if abs(num.value - m) <= max(num.tolerance, rel * abs(m)):
                    return True
                if e.unit.dimensionless and (
                        share_matches(si, False, rel * abs(si), num.value, bool(num.percent),
                                      num.tolerance) or
                        not num.percent and abs(num.value - si) <= max(num.tolerance,
                                                                       rel * abs(si))):
                    return True  # 75% in the question sent as 0.75; 0.75 sent as 75 %
            elif num.unit.dims == e.unit.dims:
                nsi = num.value * num.unit.scale + num.unit.shift
                if abs(nsi - si) <= max(num.tolerance * num.unit.scale, tol):
                    return True
        return self.find_derivation((m,), e.unit, rel * abs(m), datum=e.datum) is not None

    def unsound_calls(self) -> frozenset:
        """``tainted_calls()`` and the ``unsupported_calls()``: calls whose outputs are no
        source for the audit."""
        if _units.GENERATION != self._units_seen or _datums.GENERATION is not self._datums_seen:
            self._registries_changed()
        key = (self._count, self.violation_count)
        held = self._unsound
        if held is not None and held[0] == key:
            return held[1]
        view = self.tainted_calls() | frozenset(self.unsupported_calls())
        self._unsound = (key, view)
        return view

    def call_inputs(self) -> dict:
        """{call index: [input entries]}: what each recorded call received (as converted), for
        the audit's rule that a derivation must not run a tool backwards. Kept up to date once
        built: each call reads only the entries recorded since (``Index._evict`` removes the
        inputs that leave the history)."""
        entries = self.entries
        by_call = self._by_call
        if by_call is None:
            by_call = self._by_call = {}
            self._by_call_upto = -1
        new = added_since(entries, self._by_call_upto)
        for e in new:
            if e.role == "input":
                by_call.setdefault(e.call, []).append(e)
        if new:
            self._by_call_upto = new[-1].index
        return by_call

    def inverts_call(self, operands, dims, si: float, tol: float) -> bool:
        """Whether ``si`` (a result of dimension ``dims``, within ``tol`` in SI) is an input of
        the call that produced one of ``operands``: combining a tool's output with anything
        to land on that tool's own input runs the tool backwards. It shows only that the input
        was passed, never that it was sourced (a wrong conversion passed in comes back out:
        depth x area = the discharge given; discharge / depth = the area given). A correct
        input is itself sourced or quoted, so refusing this costs a correct answer nothing."""
        inputs = self.call_inputs()
        if not inputs:
            return False
        for e in operands:
            if getattr(e, "role", None) != "output":
                continue
            for i in inputs.get(e.call, ()):
                if power_dims(i.unit.dims) == dims and abs(i.si - si) <= tol + 1e-9 * abs(si):
                    return True
        return False

    def has_negative_output(self) -> bool:
        """Whether any recorded output is negative (the audit then reads unsigned magnitudes)."""
        self.outputs_in_range(0.0, 0.0)
        keys = self._views[("m", "output", self._count)][0]
        return bool(keys) and keys[0] < 0

    def find_derivation(self, values, unit, tol: float, datum=None):
        """A pair (a, b, op) of recorded outputs whose sum or difference is one of ``values``:
        in SI among outputs of ``unit``'s dimension, or, with no unit written, among outputs
        of one unit by their own magnitudes. Elevations follow ``Q``'s algebra (two datums
        never combine; elevation - elevation is a length; elevation +/- length stays on its
        datum, which must be ``datum`` if one was written). Two-pointer scans of sorted
        values: O(window) per target, plus the pairs within the tolerance."""
        converted = self.converted_elevations()
        if unit is not None and not converted:  # the common case: one window, maybe no pair
            with self._lock:
                keys, _ = self._pair_view(unit.dims)
            if len(keys) < 2:
                return None
            scale, reach = unit.scale, tol * unit.scale
            top, span = keys[-1] + keys[-2], keys[-1] - keys[0]
            for v in values:
                if top >= v * scale - reach or span >= abs(v * scale) - reach:
                    break  # a pair may be near
            else:  # (_pair_sums' and _pair_differences' first tests: no pair for any value)
                return None
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
                            not _backwards(self.inverts_call, a, b, target, t_tol, own):
                        return a, b, op
        return None

    def product_operands(self) -> dict:
        """For the audit's products and ratios: {dimension: (sorted log10 |SI value|,
        [(SI value, entry)])} of the recorded outputs that are not elevations and not zero
        (powers in VA and var counted as watts). Built once per change."""
        if _datums.GENERATION is not self._datums_seen:
            self._registries_changed()
        key = ("products", self._count)
        view = self._views.get(key)
        if view is None:
            from math import isfinite, log10
            groups: dict = {}
            offsets = self.datum_offsets()
            for e in self.entries:
                if e.role == "output" and e.datum is None and e.si != 0.0 and \
                        id(e) not in offsets and \
                        not e.unit.shift and isfinite(e.si):
                    groups.setdefault(power_dims(e.unit.dims), []).append((log10(abs(e.si)), e))
            view = {}
            for dims, pairs in groups.items():
                pairs.sort(key=lambda p: p[0])
                view[dims] = ([p[0] for p in pairs], [(p[1].si, p[1]) for p in pairs])
            self._views = {k: v for k, v in self._views.items() if k[-1] == self._count}
            self._views[key] = view
        return view


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
