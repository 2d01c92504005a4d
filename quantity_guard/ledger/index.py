"""The ledger's index of outputs: per footing (unit and datum) a run sorted by magnitude, per
magnitude bucket the footings it holds, per dimension its footings and its recent outputs."""
from __future__ import annotations

import threading
from bisect import bisect_left, bisect_right
from collections import OrderedDict, deque
from math import frexp as _frexp
from math import ldexp as _ldexp

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # annotations only: they are never evaluated at run time
    from collections.abc import Iterable, Iterator, Mapping, Sequence
    from typing import Any


from ..numeric import is_close
from ..observe import logger
from .record import Entry

_PAIR_WINDOW = 256  # outputs of one dimension searched for one-step sums and differences

_LARGEST = 1.7976931348623157e308


def magnitude_bucket(x: float) -> int:
    """A magnitude's bucket: its binary exponent and the first six bits of its mantissa, so
    a bucket is 1/64 to 1/32 of its value wide. Keys grow with |x| within each sign (positive
    keys are 32-63 modulo 128, negative ones 96-127, zero's 0), so a key range covers an
    interval of one sign. Public (not in ``__all__``): the index's tests model it."""
    if x - x != 0.0:  # an interval's end past the largest float: the largest float's bucket
        x = _LARGEST if x > 0.0 else -_LARGEST
    mant, exp = _frexp(x)
    if mant >= 0.0:
        return exp * 128 + int(mant * 64)
    return exp * 128 + 64 - int(mant * 64)


_EVERY = object()  # a tolerance interval that contains zero: no key range bounds it


def _buckets(x: float, tol: float):
    """The keys of every bucket that may hold a value within ``tol`` of ``x``."""
    a, b = x - tol, x + tol
    if a <= 0.0 <= b:
        return _EVERY
    lo, hi = magnitude_bucket(a), magnitude_bucket(b)
    if lo > hi:
        lo, hi = hi, lo
    return range(lo, hi + 1)


def window(x: float, tol: float) -> tuple[float, float]:
    """An interval holding every value ``is_close(value, x, tol)`` accepts (it also accepts
    anything within 1e-9 relative), for bisection; the caller then compares exactly."""
    w = tol + 4e-9 * abs(x)
    return x - w, x + w


def _si_window(unit, si: float, tol: float) -> tuple[float, float]:
    """The magnitudes in ``unit`` whose SI value (``m * scale + shift``, as ``Entry`` computes
    it) may lie within ``tol`` of ``si`` by ``is_close``: ``_window`` carried into the unit and
    widened by far more than the rounding of either computation."""
    w = tol + 4e-9 * abs(si)  # window(si, tol)
    lo, hi = si - w, si + w
    scale, shift = unit.scale, unit.shift
    a, b = (lo - shift) / scale, (hi - shift) / scale
    if a > b:
        a, b = b, a
    pad = 1e-12 * (abs(lo) + abs(hi) + abs(shift)) / abs(scale)
    return a - pad, b + pad


_CHUNK = 256  # a run's chunks are split when they pass 2 * _CHUNK entries
CHUNK_MAX = 2 * _CHUNK
NO_FAST = (None, None, 0.0, 0.0, None, None)  # matches no value (see Ledger._fast)


class SortedRun:
    """Entries sorted by a float key (a magnitude, or an SI value), held in chunks of at most
    2 * _CHUNK, so adding or removing one moves at most that many references and the entries
    within a key range are found by two bisections. Public (not in ``__all__``): the
    index's tests check it against a plain sorted list."""

    __slots__ = ("maxes", "keys", "items")

    def __init__(self) -> None:
        self.maxes: list[float] = []            # the largest key of each chunk
        self.keys: list[list[float]] = []
        self.items: list[list[Entry]] = []

    def __len__(self) -> int:
        return sum(map(len, self.keys))

    def add(self, key: float, item: "Entry") -> None:
        maxes = self.maxes
        if maxes and key >= maxes[-1]:  # the common case in a series: a new largest key
            keys = self.keys[-1]
            keys.append(key)
            self.items[-1].append(item)
            maxes[-1] = key
            if len(keys) > CHUNK_MAX:
                self._split(len(maxes) - 1)
            return
        i = bisect_right(maxes, key)
        if i == len(maxes):
            if not maxes:
                maxes.append(key)
                self.keys.append([key])
                self.items.append([item])
                return
            i -= 1
            keys = self.keys[i]
            keys.append(key)
            self.items[i].append(item)
            maxes[i] = key
        else:
            keys = self.keys[i]
            j = bisect_right(keys, key)
            keys.insert(j, key)
            self.items[i].insert(j, item)
        if len(keys) > CHUNK_MAX:
            self._split(i)

    def _split(self, i: int) -> None:
        keys, items = self.keys[i], self.items[i]
        self.keys[i:i + 1] = [keys[:_CHUNK], keys[_CHUNK:]]
        self.items[i:i + 1] = [items[:_CHUNK], items[_CHUNK:]]
        self.maxes[i:i + 1] = [keys[_CHUNK - 1], keys[-1]]

    def remove(self, key: float, item: "Entry") -> bool:
        """Remove ``item`` (recorded under ``key``); False if it is not held."""
        maxes = self.maxes
        i = bisect_left(maxes, key)
        while i < len(maxes):
            keys, items = self.keys[i], self.items[i]
            j, n = bisect_left(keys, key), len(keys)
            while j < n and keys[j] == key:
                if items[j] is item:
                    del keys[j]
                    del items[j]
                    if keys:
                        maxes[i] = keys[-1]
                    else:
                        del maxes[i], self.keys[i], self.items[i]
                    return True
                j += 1
            if j < n:
                return False
            i += 1
        return False

    def neighbours(self, key: float) -> list[float]:
        """The keys held on either side of ``key``: the largest below it and the smallest at or
        above it (none, one or two)."""
        maxes = self.maxes
        i = bisect_left(maxes, key)
        if i == len(maxes):
            return maxes[-1:]
        keys = self.keys[i]
        j = bisect_left(keys, key)
        if j:
            return [keys[j - 1], keys[j]]
        return [self.keys[i - 1][-1], keys[0]] if i else [keys[0]]

    def scan(self, lo: float, hi: float) -> "Iterator[Entry]":
        """The entries whose key lies in [lo, hi], in key order."""
        maxes = self.maxes
        i, n = bisect_left(maxes, lo), len(maxes)
        while i < n:
            keys, items = self.keys[i], self.items[i]
            j = bisect_left(keys, lo)
            k = len(keys)
            while j < k:
                if keys[j] > hi:
                    return
                yield items[j]
                j += 1
            i += 1


def added_since(entries: "deque", index: int) -> list:
    """The items of ``entries`` (in index order) whose index is above ``index``, oldest first:
    read from the newest end (a deque is not sliced cheaply)."""
    new = []
    for e in reversed(entries):
        if e.index <= index:
            break
        new.append(e)
    new.reverse()
    return new


def _shown(entry: Entry) -> str:
    return f"{entry.magnitude:g} {entry.unit.symbol}" + (f" on {entry.datum}" if entry.datum
                                                         else "")


def _by_index(entry: Entry) -> int:
    return entry.index


class Index:
    """The index's upkeep and look-ups, as methods of ``Ledger`` (the caller holds the lock where
    a method says so)."""

    # the state, set by Ledger.__init__ (see there)
    max_entries: int | None
    max_values: int
    values_evicted: int
    _lock: threading.Lock
    _count: int
    _entries: deque[Any]        # Entry, or a CallRecord holding its first input
    _held: int | None
    _near: dict[int, dict[tuple, None]]
    _by_footing: dict[tuple, SortedRun]
    _by_dims: dict[Any, dict]
    _recent: dict[Any, deque[Entry]]
    _last: tuple | None
    _last_bucket: tuple | None
    _safe: dict[int, tuple]
    _safe_last: tuple
    _last_out: Entry | None
    _fast: tuple
    _shape: int
    _kept: OrderedDict[tuple, Entry]
    _by_call: dict[int, list[Entry]] | None
    _by_call_upto: int
    _pairs: dict[Any, tuple]

    @property
    def entries(self) -> "deque[Entry]":
        """Every recorded quantity still kept (``max_entries``), oldest first."""
        if self._held is not None:
            self._make_held()
        return self._entries  # type: ignore[return-value]  # _make_held made them all Entries

    @entries.setter
    def entries(self, value: "Iterable[Entry]") -> None:
        with self._lock:
            self._entries = deque(value)
            self._held = None
            self._by_call = None

    def _make_held(self) -> None:
        """Replace each call record held in ``entries`` (for its first input) by that input's
        Entry. Entries are kept in the order of their indexes, the newest last, so the held
        ones are among the last ``_count - _held``."""
        with self._lock:
            if self._held is None:
                return
            entries = self._entries
            tail = [entries.pop() for _ in range(min(self._count - self._held, len(entries)))]
            tail.reverse()
            entries.extend(e if e.__class__ is Entry
                           else e._first_input(True)  # type: ignore[union-attr]
                           for e in tail)
            self._held = None

    @property
    def _footings(self) -> dict[int, dict[tuple, int]]:
        """Per magnitude bucket, how many outputs of each footing it holds, counted from the
        runs (the checks read ``_near``, which lists the footings alone): for the tests."""
        counts: dict[int, dict[tuple, int]] = {}
        with self._lock:
            for footing, run in self._by_footing.items():
                for keys in run.keys:
                    for m in keys:
                        bucket = counts.setdefault(magnitude_bucket(m), {})
                        bucket[footing] = bucket.get(footing, 0) + 1
        return counts

    def _index(self, entry: Entry) -> None:
        unit, datum, magnitude = entry.unit, entry.datum, entry.magnitude
        run: "SortedRun | None"
        recent: "deque[Entry] | None"
        near: "dict[tuple, None] | None"
        last = self._last  # the previous output's footing, its run and its dimension's window
        if last is not None and last[0] is unit and last[1] == datum:
            _, _, footing, run, recent = last
        else:
            footing = (unit, datum)
            run = self._by_footing.get(footing)
            if run is None:
                run = self._by_footing[footing] = SortedRun()
                self._by_dims.setdefault(unit.dims, {})[footing] = run
            recent = self._recent.get(unit.dims)
            if recent is None:
                recent = self._recent[unit.dims] = deque(maxlen=_PAIR_WINDOW)
            self._last = (unit, datum, footing, run, recent)
        # The previous output's bucket, [start, end) and its footings. Invariant: it is this
        # output's bucket and lists this output's footing (or None), as finish_with relies on.
        bucket = self._last_bucket
        if bucket is not None and bucket[0] <= magnitude < bucket[1]:
            near = bucket[2]
        else:
            mant, exp = _frexp(magnitude)  # magnitude_bucket(magnitude), inlined: this runs on every output
            j = int(mant * 64)
            key = exp * 128 + j if mant >= 0.0 else exp * 128 + 64 - j
            near = self._near.get(key)
            if near is None:
                near = self._near[key] = {}
            # a positive bucket: exactly [j, j + 1) * 2**(exp - 6)
            self._last_bucket = (_ldexp(j, exp - 6), _ldexp(j + 1, exp - 6), near) \
                if 1e-300 < magnitude < 1e300 else None
        if footing not in near:
            near[footing] = None
            self._shape += 1  # a footing new to a bucket: every entry of _safe is stale
        maxes = run.maxes
        if maxes and magnitude >= maxes[-1] and len(run.keys[-1]) < CHUNK_MAX:
            run.keys[-1].append(magnitude)  # run.add's common case, inlined
            run.items[-1].append(entry)
            maxes[-1] = magnitude
        else:
            run.add(magnitude, entry)
        recent.append(entry)
        self._last_out = entry
        bucket = self._last_bucket  # finish_with's fast path: this footing, in this bucket
        self._fast = NO_FAST if bucket is None else \
            (unit, datum, bucket[0], bucket[1], run, recent)

    def _evict(self, entry: "Entry | object") -> None:
        """``entry`` leaves the history (``max_entries``; the caller holds the lock). An output
        stays indexed as a kept value, once per value (unit, datum, magnitude): a repeat of a
        value already kept leaves the index and refreshes the kept one's last use. Past
        ``max_values`` kept values, the least recently used leaves the index (``_forget``)."""
        if not isinstance(entry, Entry):
            return  # a call's first input, still held as its call's record
        if entry.role != "output":
            if self._by_call is not None:
                self._input_left(entry)
            return
        recent = self._recent.get(entry.unit.dims)
        if recent and recent[0] is entry:  # the oldest entry, if still recent, is the first
            recent.popleft()
        if self.max_values:
            key = (entry.unit, entry.datum, entry.magnitude)
            kept = self._kept
            try:
                kept.move_to_end(key)  # a repeat: the value kept stands for it
            except KeyError:
                kept[key] = entry
                if len(kept) > self.max_values:
                    self._forget(kept.popitem(last=False)[1])
                return
            # The value kept is indexed on the same footing with the same magnitude: the run
            # keeps an entry and the bucket its footing, so only the entry itself leaves.
            last = self._last
            run = last[3] if last is not None and last[0] is entry.unit and \
                last[1] == entry.datum else self._by_footing.get((entry.unit, entry.datum))
            if run is not None and run.remove(entry.magnitude, entry) and \
                    entry is self._last_out:
                self._last_out = None
            return
        self._unindex(entry)

    def _input_left(self, entry: Entry) -> None:
        """An input left the history: out of ``call_inputs()`` too."""
        if entry.index <= self._by_call_upto:
            held = self._by_call.get(entry.call)  # type: ignore[union-attr]
            if held is not None and entry in held:
                held.remove(entry)
                if not held:
                    del self._by_call[entry.call]  # type: ignore[union-attr]

    def _pair_view(self, dims) -> tuple[list[float], list[Entry]]:
        """(sorted SI values, outputs) of the pair window of ``dims`` (its ``_PAIR_WINDOW``
        most recent outputs), kept in step with it: the outputs that left are taken out and
        those added since are put in, by bisection, instead of sorting the window again."""
        recent = self._recent.get(dims)
        view = self._pairs.get(dims)
        if not recent:
            return [], []
        if view is None:
            return self._sort_pairs(dims, recent)
        keys, items, order = view
        first = recent[0].index
        while order and order[0].index < first:
            e = order.popleft()
            i, n = bisect_left(keys, e.si), len(items)
            while i < n and items[i] is not e:
                i += 1
            if i == n:  # not where its key sorts (a NaN): sort the window again
                return self._sort_pairs(dims, recent)
            del keys[i], items[i]
        for e in added_since(recent, order[-1].index if order else -1):
            i = bisect_right(keys, e.si)
            keys.insert(i, e.si)
            items.insert(i, e)
            order.append(e)
        return keys, items

    def _sort_pairs(self, dims, recent: "deque[Entry]") -> tuple[list[float], list[Entry]]:
        pairs = sorted(((e.si, e) for e in recent), key=lambda p: p[0])
        keys, items = [p[0] for p in pairs], [p[1] for p in pairs]
        self._pairs[dims] = (keys, items, deque(recent))
        return keys, items

    def _touch(self, entry: Entry) -> None:
        """A kept value matched an input: it is the most recently used. The caller holds the
        lock."""
        key = (entry.unit, entry.datum, entry.magnitude)
        if self._kept.get(key) is entry:
            self._kept.move_to_end(key)

    def _forget(self, entry: Entry) -> None:
        """The least recently used kept value leaves the index: counted in ``values_evicted``
        and logged (a warning on the ``quantity_guard`` logger at the 1st, 2nd, 4th, 8th...
        eviction), for an input equal to it is now refused as unsourced."""
        self._unindex(entry)
        self.values_evicted = n = self.values_evicted + 1
        if n & (n - 1) == 0:
            logger().warning(
                "quantity-guard: a session's ledger forgot %d value(s) (the least recently "
                "used past max_values=%d kept values; the latest %s from %s): an input equal "
                "to one is now refused as unsourced. Open the session with a larger "
                "max_values= to keep more", n, self.max_values, _shown(entry), entry.label)

    def _unindex(self, entry: Entry) -> None:
        """Remove an output from the index (its run, its bucket's footings, its dimension)."""
        unit, datum, m = entry.unit, entry.datum, entry.magnitude
        footing = (unit, datum)
        run = self._by_footing.get(footing)
        if run is not None and run.remove(m, entry):
            key = magnitude_bucket(m)
            if entry is self._last_out:
                self._last_out = None
            if not run.maxes:
                self._last = None  # it may hold this run
                self._fast = NO_FAST
                del self._by_footing[footing]
                of_dims = self._by_dims[unit.dims]
                del of_dims[footing]
                if not of_dims:
                    del self._by_dims[unit.dims]
                gone = True
            else:  # buckets are intervals: if any output of the footing is left in this one,
                # the nearest on either side is
                gone = key not in map(magnitude_bucket, run.neighbours(m))
            if gone:
                near = self._near.get(key)
                if near is not None and footing in near:
                    del near[footing]
                    if not near:
                        del self._near[key]
                self._last_bucket = None  # it may list this footing in this bucket
                self._fast = NO_FAST

    def _outputs_near(self, magnitude: float, tol: float) -> list:
        """Every recorded output whose own-unit magnitude is within ``tol`` of ``magnitude``
        (``is_close``), oldest first: the footings in the buckets around it, bisected."""
        lo, hi = window(magnitude, tol)
        keys = _buckets(magnitude, hi - magnitude)
        with self._lock:
            if keys is _EVERY or len(keys) > 4096:
                footings = list(self._by_footing)
            else:
                footings = list(dict.fromkeys(f for key in keys
                                              for f in self._near.get(key, ())))
            out = [e for f in footings for e in self._by_footing[f].scan(lo, hi)
                   if is_close(e.magnitude, magnitude, tol)]
        out.sort(key=_by_index)
        return out

    def _outputs_near_si(self, dims, si: float, tol: float) -> list:
        """Every recorded output of ``dims`` whose SI value is within ``tol`` of ``si``, oldest
        first."""
        with self._lock:
            out = [e for (unit, _), run in self._by_dims.get(dims, {}).items()
                   for e in run.scan(*_si_window(unit, si, tol)) if is_close(e.si, si, tol)]
        out.sort(key=_by_index)
        return out

    def _eligible(self, m: float, unit, datum):
        """The footings near ``m`` (non-zero) on which a value in ``unit`` on ``datum`` could be
        a carry-over (another unit, or the same unit on another datum), or None. Any tolerance
        is at most 0.5% of m, so the buckets within 0.6% (one or two) are enough:
        ``_buckets(m, 0.006 * abs(m))``, inlined, for this runs on every input. The caller
        holds the lock."""
        mant, exp = _frexp(m * 0.994)
        lo = exp * 128 + int(mant * 64) if mant >= 0.0 else exp * 128 + 64 - int(mant * 64)
        if abs(m) < 1e308:
            mant, exp = _frexp(m * 1.006)
            hi = exp * 128 + int(mant * 64) if mant >= 0.0 else exp * 128 + 64 - int(mant * 64)
        else:
            hi = magnitude_bucket(m * 1.006)
        footings = self._near
        near: "Sequence[Mapping[tuple, object] | None]"
        if lo == hi or lo - hi == 1 or hi - lo == 1:  # one bucket or two: the common cases
            counts = footings.get(lo)
            other = footings.get(hi) if hi != lo else None
            if counts is None:
                if other is None:
                    return None
                near = (other,)
            else:
                near = (counts,) if other is None else (counts, other)
        elif abs(hi - lo) < 8:
            near = [footings.get(k) for k in range(min(lo, hi), max(lo, hi) + 1)]
        else:  # a subnormal value, whose 0.6% spans many buckets: every footing
            near = (self._by_footing,)
        eligible = None
        for found in near:
            if found is None:
                continue
            for footing in found:
                f_unit = footing[0]
                if (f_unit is unit or f_unit == unit) and (
                        datum is None or footing[1] is None or footing[1] == datum):
                    continue  # the same unit with no datum differing: never a carry-over
                if eligible is None:
                    eligible = [footing]
                elif footing not in eligible:
                    eligible.append(footing)
        return eligible

    def _may_carry(self, m: float, unit, datum) -> bool:
        """Whether a value ``m`` in ``unit`` on ``datum`` may be a carry-over: another footing
        lies within 0.6% (``_eligible``'s probe, for one or two buckets, the common cases:
        this runs on every input). The caller holds the lock."""
        may_carry = False
        # A positive value whose buckets were found free of other footings for this unit and
        # datum, with no footing added to any bucket since, needs no probe while its 0.6%
        # stays inside those buckets (``_safe``: unit, datum, [start, end), ``_shape``).
        # The last interval used is tried first (``_safe_last``; its start is positive).
        safe = self._safe_last
        if safe[0] is unit and safe[1] == datum and safe[2] <= m * 0.994 and \
                m * 1.006 < safe[3] and safe[4] == self._shape:
            pass
        elif (kept := self._safe.get(id(unit)) if m > 0.0 else None) is not None and \
                kept[0] is unit and kept[1] == datum and kept[4] == self._shape and \
                kept[2] <= m * 0.994 and m * 1.006 < kept[3]:
            self._safe_last = kept
        elif m != 0.0 and abs(m) < 1e308:
            mant, exp = _frexp(m * 0.994)
            lo = exp * 128 + int(mant * 64) if mant >= 0.0 else \
                exp * 128 + 64 - int(mant * 64)
            mant, exp = _frexp(m * 1.006)
            hi = exp * 128 + int(mant * 64) if mant >= 0.0 else \
                exp * 128 + 64 - int(mant * 64)
            if -1 <= hi - lo <= 1:
                footings = self._near
                for counts in (footings.get(lo), footings.get(hi) if hi != lo else None):
                    if counts is not None:
                        for f_unit, f_datum in counts:
                            if not ((f_unit is unit or f_unit == unit) and (
                                    datum is None or f_datum is None or f_datum == datum)):
                                may_carry = True  # another footing near: the full check
                                break
                if 1e-300 < m < 1e300 and not may_carry:  # buckets lo..hi: [start, end)
                    if len(self._safe) >= 64:
                        self._safe.clear()
                    self._safe[id(unit)] = self._safe_last = (
                        unit, datum, _ldexp(lo & 127, (lo >> 7) - 6),
                        _ldexp((hi & 127) + 1, (hi >> 7) - 6), self._shape)
            else:  # many buckets (a subnormal value): _eligible reads them all
                may_carry = self._eligible(m, unit, datum) is not None
        elif m != 0.0:  # the largest floats
            may_carry = self._eligible(m, unit, datum) is not None
        return may_carry

    def _copy_of_output(self, m: float, unit, datum, index: int) -> bool:
        """``_copied``, for the common cases first: the last output (in a pipeline, the one
        copied), then the largest of its footing (in a series, the latest). The caller holds
        the lock."""
        out = self._last_out
        if out is not None and out.magnitude == m and out.unit is unit and \
                out.datum == datum and out.call != index:
            return True  # the last output: in the history, not a kept value
        last = self._last  # the run of this footing (the last output's, when it is on it)
        run = last[3] if last is not None and last[0] is unit and last[1] == datum else \
            self._by_footing.get((unit, datum))
        if run is None:
            return False
        maxes = run.maxes
        if maxes[-1] == m and run.items[-1][-1].call != index:
            e = run.items[-1][-1]  # a copy of the largest (in a series, the latest) output
        else:
            i = bisect_left(maxes, m)
            if i == len(maxes):
                return False
            keys = run.keys[i]
            j = bisect_left(keys, m)
            if keys[j] != m:
                return False
            e = run.items[i][j]
        if e.call == index:
            return False
        if self._kept:
            self._touch(e)
        return True

    def _copied(self, m: float, unit, datum, call: int) -> bool:
        """An output of another call in the same unit and datum has exactly the magnitude ``m``
        (so it is the same amount within any tolerance): one bisection of that footing's run.
        The caller holds the lock."""
        run = self._by_footing.get((unit, datum))
        if run is not None:
            maxes = run.maxes
            i = bisect_left(maxes, m)
            if i < len(maxes):
                keys = run.keys[i]
                j = bisect_left(keys, m)
                if keys[j] == m and run.items[i][j].call != call:
                    if self._kept:
                        self._touch(run.items[i][j])
                    return True
        return False

    def _output_matches(self, call: int, dims, datum, si: float, tol: float) -> bool:
        """An output of another call is the same physical amount (within ``tol`` in SI) on a
        compatible datum (none, or ``datum``; any when ``datum`` is None). Each footing of the
        dimension is bisected at the magnitude that SI value has in its unit. The caller holds
        the lock."""
        footings = self._by_dims.get(dims)
        if not footings:
            return False
        for (unit, d), run in footings.items():
            if datum is not None and d is not None and d != datum:
                continue
            if unit.scale == 1.0 and unit.shift == 0.0:  # magnitudes are SI values
                w = tol + 4e-9 * abs(si)
                lo, hi = si - w, si + w
            else:
                lo, hi = _si_window(unit, si, tol)
            maxes = run.maxes  # run.scan and is_close, inlined
            i, n_chunks = bisect_left(maxes, lo), len(maxes)
            while i < n_chunks:
                keys = run.keys[i]
                j, n = bisect_left(keys, lo), len(keys)
                items = run.items[i]
                while j < n and keys[j] <= hi:
                    e = items[j]
                    if e.call != call and \
                            abs(e.si - si) <= max(tol, 1e-9 * max(abs(e.si), abs(si))):
                        if self._kept:
                            self._touch(e)
                        return True
                    j += 1
                if j < n:
                    break
                i += 1
        return False

