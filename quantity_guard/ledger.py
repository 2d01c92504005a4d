"""The session ledger: every quantity crossing a guarded tool's boundary, and two checks on it.

    with session(context=question) as ledger:
        read_discharge("07374000")                # returns 1250 cfs
        runoff_depth(discharge=1250, area=29000)  # UnconvertedCarryOver

**Carry-over.** A bare number entering a tool is read in the tool's declared unit: the contract
the schema states. The contract breaks when a model reuses a magnitude from an earlier tool
without converting it. The check is keyed on the value the tool will act on: if it equals (within
the precision the model wrote it to, at most 0.5% relative) a value an earlier tool returned on a
different footing (another unit, or another datum) and it is not the same physical amount, no
conversion was applied. Not an alarm: the same unit on both sides (aliases such as cumec and m3/s
are the same unit), the same number stated in the question in the tool's unit (or with no unit),
and zero. The tolerance follows the digits written because models round what they copy (35.396
for 35.39605824); the 0.5% cap keeps a coarse integer from matching a different value.

**Sourced inputs.** A parameter declared ``sourced=True`` must trace to a tool output (as the
same physical amount), a one-step sum or difference of two recorded outputs of like dimension,
or a number in the question; otherwise ``UnsourcedInput``.

Look-ups are indexed, so a call costs the same with ten thousand entries as with none, however
densely they cluster: each footing (unit and datum) keeps its outputs sorted by magnitude, and
each magnitude bucket (about 1.6% wide) lists the footings it holds. A carry-over check reads
only the footings near the value that could be one (another unit, or another datum) and bisects
their runs, naming the nearest offending output; a sourced check bisects each footing of the
value's dimension at the magnitude its SI value has there.
One-step sums and differences are searched among the
256 most recent outputs of each dimension (``_PAIR_WINDOW``); the answer audit bisects sorted
views of every output, built once per change. ``max_entries`` bounds a long-lived ledger (the oldest
entries are evicted).

**Recording.** A guarded call costs a call record, an entry per output and, for its first input,
nothing more: the input's facts are held in the call record, which stands in the ledger's
``entries`` until something reads them (``entries``, ``call.inputs``, the manifest, the audit);
its ``Entry`` is made then, once. A result on the previous output's footing and bucket is indexed
without a dict look-up, and each recording takes the ledger's lock once.

**Threads.** The session is a ``ContextVar``: it follows asyncio tasks and ``asyncio.to_thread``.
A thread that carries no session (``ThreadPoolExecutor``, ``loop.run_in_executor``, a plain
``threading.Thread``) finds the session when exactly one is open in the process. With several
open, such a thread must be bound (``with ledger.bind():``, ``pool.submit(ledger.bound(fn))``,
``ledger.run_in_thread(fn)`` or ``contextvars.copy_context().run``): an unbound guarded call is
refused with ``SessionUnbound`` (strict), or warned and recorded in every open session (warn), so
no call loses its checks silently. ``bind(None)`` runs a thread outside every session on purpose.
"""
from __future__ import annotations

import contextvars
from bisect import bisect_left, bisect_right
from itertools import chain
from math import frexp as _frexp, ldexp as _ldexp
import threading
from time import perf_counter as _perf_counter, time as _time
from collections import deque
from contextlib import contextmanager

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # annotations only: they are never evaluated at run time
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
    from contextlib import AbstractContextManager
    from typing import Any

    from .audit import Audit
    from .spec import Accepted, Spec
    from .units import Unit

from . import datums as _datums
from .reading import extract_numbers, written_tolerance
from .units import table as _units
from .conversions import combinable
from .numeric import (share_matches, canonical_datum, fmt_exact, fmt_g, is_close, pair_datum_ok,
                      power_dims, relative_cap)
from .errors import (DimensionalityError, GuardViolation, SessionUnbound, UnconvertedCarryOver,
                     UnsourcedInput)
from .quantity import Q

__all__ = ["session", "current", "bind", "is_bound", "Ledger", "Session", "Entry", "CallRecord"]

_new = object.__new__  # the hot paths fill an Entry's slots themselves (see check_input)

_CURRENT: contextvars.ContextVar["Ledger | object | None"] = contextvars.ContextVar(
    "quantity_guard_session", default=None)
_DETACHED = object()  # bound to no session on purpose: ``bind(None)``
_OPEN: tuple = ()     # every open session, oldest first (replaced whole, under _OPEN_LOCK)
_OPEN_LOCK = threading.Lock()
_PAIR_WINDOW = 256  # outputs of one dimension searched for one-step sums and differences


def current() -> "Ledger | None":
    """The ledger a guarded call here records into: the session bound to this context, else the
    only open session in the process; None when there is none, or several and none is bound."""
    ledger = _CURRENT.get()
    if ledger is not None:
        # the context holds a Ledger or _DETACHED (mypy sees Ledger | object)
        return None if ledger is _DETACHED else ledger  # type: ignore[return-value]  # see above
    open_ = _OPEN
    return open_[0] if len(open_) == 1 else None


def for_call(tool: Any) -> "Ledger | None":
    """``current()`` for a guarded call of ``tool``, which must not lose its checks silently:
    with several sessions open and none bound here, strict refuses (``SessionUnbound``), warn
    warns and records the call in every open session, off (coercion only) proceeds."""
    ledger = _CURRENT.get()
    if ledger is not None:
        # the context holds a Ledger or _DETACHED (mypy sees Ledger | object)
        return None if ledger is _DETACHED else ledger  # type: ignore[return-value]  # see above
    open_ = _OPEN
    if len(open_) < 2:
        return open_[0] if open_ else None
    enforcement = getattr(tool, "enforcement", "strict")
    if enforcement == "off":
        return None
    name = getattr(tool, "name", str(tool))
    violation = SessionUnbound(
        f"called from a thread (or task) bound to no session while {len(open_)} sessions "
        f"are open, so its carry-over and provenance checks cannot run",
        field=name, suggestion=_HOW_TO_BIND)
    if enforcement == "strict":
        raise violation
    import warnings
    warnings.warn(f"quantity-guard (warn): no session is bound: {violation.repair()}",
                  RuntimeWarning, stacklevel=5)  # the caller of the guarded tool
    item = {"call": None, "tool": name, "code": violation.code, "field": violation.field,
            "message": str(violation), "repair": violation.repair(), "blocked": False}
    for open_ledger in open_:
        with open_ledger._lock:
            open_ledger.violations.append(dict(item))
    return None


_HOW_TO_BIND = ("bind the worker to its session: `with ledger.bind(): ...` inside the thread, "
                "`executor.submit(ledger.bound(fn), ...)`, `ledger.run_in_thread(fn, ...)`, or "
                "`contextvars.copy_context().run(fn, ...)` from inside the session; "
                "`quantity_guard.ledger.bind(None)` runs it outside every session on purpose")


@contextmanager
def session(context: str | None = None, *, max_entries: int | None = None,
            store: Any = None, conversation: str | None = None) -> "Iterator[Ledger]":
    """Open a session; guarded tools called inside it record into the yielded ledger.

    With ``store`` (a ``redis://`` URL or ``store.open_store(...)``) and ``conversation`` (a
    name every worker of the conversation uses), the ledger is shared through the store: each
    call first sees what other processes recorded, and its own record is written before it
    returns (see ``quantity_guard.store``)."""
    ledger = Ledger(context=context, max_entries=max_entries)
    if store is not None or conversation is not None:
        if store is None or not isinstance(conversation, str) or not conversation:
            raise ValueError("a shared session needs both store= and conversation= (a non-empty "
                             "name every worker of the conversation passes)")
        from .store import open_store
        opened = open_store(store) if isinstance(store, str) else store
        opened.conversation(conversation).attach(ledger)
    global _OPEN
    with _OPEN_LOCK:
        _OPEN = (*_OPEN, ledger)
    token = _CURRENT.set(ledger)
    try:
        yield ledger
    finally:
        _CURRENT.reset(token)
        with _OPEN_LOCK:
            _OPEN = tuple(x for x in _OPEN if x is not ledger)


def is_bound() -> bool:
    """True when this context (thread or task) is bound to a session, by ``session()`` or
    ``bind()``, or detached on purpose with ``bind(None)``: not left to find the only open one."""
    return _CURRENT.get() is not None


@contextmanager
def bind(ledger: "Ledger | None") -> "Iterator[Ledger | None]":
    """Bind this thread (this context) to ``ledger`` for the block; ``None`` detaches it from
    every session on purpose (its guarded calls are then unchecked, as outside any session)."""
    token = _CURRENT.set(_DETACHED if ledger is None else ledger)
    try:
        yield ledger
    finally:
        _CURRENT.reset(token)


def note_unrecorded(violation: GuardViolation) -> None:
    """A warn-mode violation outside any session: say so rather than lose it."""
    import warnings
    warnings.warn(f"quantity-guard (warn, no session): {violation.repair()}", stacklevel=4)


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


def _window(x: float, tol: float) -> tuple[float, float]:
    """An interval holding every value ``is_close(value, x, tol)`` accepts (it also accepts
    anything within 1e-9 relative), for bisection; the caller then compares exactly."""
    w = tol + 4e-9 * abs(x)
    return x - w, x + w


def _si_window(unit, si: float, tol: float) -> tuple[float, float]:
    """The magnitudes in ``unit`` whose SI value (``m * scale + shift``, as ``Entry`` computes
    it) may lie within ``tol`` of ``si`` by ``is_close``: ``_window`` carried into the unit and
    widened by far more than the rounding of either computation."""
    w = tol + 4e-9 * abs(si)  # _window(si, tol)
    lo, hi = si - w, si + w
    scale, shift = unit.scale, unit.shift
    a, b = (lo - shift) / scale, (hi - shift) / scale
    if a > b:
        a, b = b, a
    pad = 1e-12 * (abs(lo) + abs(hi) + abs(shift)) / abs(scale)
    return a - pad, b + pad


_CHUNK = 256  # a run's chunks are split when they pass 2 * _CHUNK entries
_CHUNK_MAX = 2 * _CHUNK
_NO_FAST = (None, None, 0.0, 0.0, None, None)  # matches no value (see Ledger._fast)


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
            if len(keys) > _CHUNK_MAX:
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
        if len(keys) > _CHUNK_MAX:
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


class Entry:
    """One recorded quantity."""

    __slots__ = ("index", "call", "tool", "role", "field", "q", "magnitude", "unit", "datum",
                 "si", "how", "raw")
    index: int
    call: int         # the index of the call that recorded it
    tool: str
    role: str         # "input" or "output"
    field: "str | None"
    q: Q
    magnitude: Any    # q.magnitude: a float, or a series
    unit: "Unit"
    datum: "str | None"
    si: Any           # the magnitude in SI (m * scale + shift)
    how: "str | None"  # for an input, how it arrived (see spec.Accepted.how)
    raw: Any          # for an input, the argument as the model sent it

    def __init__(self, index: int, call: int, tool: str, role: str, field: "str | None", q: Q,
                 how: "str | None" = None, raw: Any = None) -> None:
        self.index = index
        self.call = call
        self.tool = tool
        self.role = role
        self.field = field
        self.q = q
        self.magnitude = m = q.magnitude
        self.unit = u = q.unit
        self.datum = q.datum
        self.si = m * u.scale + u.shift
        self.how = how
        self.raw = raw

    @property
    def label(self) -> str:
        """``read_discharge.return`` for an output, ``runoff_depth.discharge`` for an input."""
        if self.role == "output":
            return f"{self.tool}.{'return' if self.field is None else f'return.{self.field}'}"
        return f"{self.tool}.{self.field}"

    def as_dict(self) -> dict:
        d = {"index": self.index, "call": self.call, "tool": self.tool, "role": self.role,
             "field": self.field, "quantity": self.q.as_dict()}
        if self.how is not None:
            d["received_as"] = self.how
        if self.raw is not None:
            d["raw"] = _jsonable(self.raw)
        return d


class _EntryList:
    """A call record's ``inputs`` or ``outputs``: the list is made when first read (most calls
    never have theirs read while they run); until then no entry is held as None, a single
    entry as itself, and a call's first input as the facts in the record's ``_in_*`` slots
    (``_HELD``), from which its ``Entry`` is made on first need (see ``check_input``)."""

    def __init__(self, slot: str, doc: str) -> None:
        self.slot = slot
        self.__doc__ = doc

    def __get__(self, call: "CallRecord | None", owner: Any = None) -> "list[Entry]":
        if call is None:  # the class attribute: this descriptor
            return self  # type: ignore[return-value]  # see above
        slot = self.slot
        held = getattr(call, slot)
        if held.__class__ is list and (not held or held[0] is not _HELD):
            return held
        with call.ledger._lock:  # the call may be recording in another thread
            held = getattr(call, slot)
            if held.__class__ is list:
                if held and held[0] is _HELD:  # a first input held as facts, then more
                    call._first_input(True)
                return held
            if held is None:
                held = []
            elif held is _HELD:
                held = [call._first_input(True)]
            else:  # a single entry
                held = [held]
            setattr(call, slot, held)
            return held

    def __set__(self, call: "CallRecord", value: "list[Entry]") -> None:
        setattr(call, self.slot, value)


_HELD = object()  # a call's first input, held as facts in its record's slots (see check_input)


class CallRecord:
    """One guarded call in a session: what went in (as received and as converted), what came
    out, and the violations, blocked or not."""

    __slots__ = ("ledger", "index", "tool", "enforcement", "arguments", "_inputs", "_outputs",
                 "_violations", "ok", "started", "finished",
                 "_in_index", "_in_name", "_in_q", "_in_how", "_in_raw")
    ledger: "Ledger"
    index: int
    tool: str
    enforcement: str
    arguments: dict
    _inputs: "list[Entry] | Entry | object | None"  # object: _HELD (also as a list's first)
    _outputs: "list[Entry] | Entry | None"
    _violations: "list[dict] | None"
    ok: "bool | None"
    started: float
    finished: "float | None"
    # the first input's facts, set only while ``_inputs`` is _HELD or once it was: the entry's
    # index, the parameter's name, the value, how it arrived and the argument as sent
    _in_index: int
    _in_name: str
    _in_q: Q
    _in_how: "str | None"
    _in_raw: Any

    inputs = _EntryList("_inputs", "The entries recorded for this call's arguments.")
    outputs = _EntryList("_outputs", "The entries recorded for this call's result.")

    def __init__(self, ledger: "Ledger", index: int, tool: Any, arguments: dict) -> None:
        self.ledger = ledger
        self.index = index
        try:  # a guarded tool has both; anything else is named by str()
            self.tool = tool.name
            self.enforcement = tool.enforcement
        except AttributeError:
            self.tool = tool.name if hasattr(tool, "name") else str(tool)
            self.enforcement = getattr(tool, "enforcement", "strict")
        self.arguments = dict(arguments)  # as received (made JSON-ready in as_dict)
        self._inputs = None
        self._outputs = None
        self._violations = None
        self.ok = None
        self.started = _time()
        self.finished = None

    def _first_input(self, locked: bool = False) -> Entry:
        """The entry of this call's first input: made from the held facts on first need (the
        ledger's ``entries`` hold this record in its place until then), then kept. Made under
        the ledger's lock (``locked``: the caller holds it), so it is made once."""
        if not locked:
            with self.ledger._lock:
                return self._first_input(True)
        held = self._inputs
        first = held[0] if held.__class__ is list else held  # type: ignore[index]
        if first is _HELD:
            q = self._in_q
            entry = _new(Entry)  # Entry(self._in_index, self.index, self.tool, "input", ...)
            entry.index = self._in_index
            entry.call = self.index
            entry.tool = self.tool
            entry.role = "input"
            entry.field = self._in_name
            entry.q = q
            entry.magnitude = m = q.magnitude
            entry.unit = unit = q.unit
            entry.datum = q.datum
            entry.si = m * unit.scale + unit.shift
            entry.how = self._in_how
            entry.raw = self._in_raw
            if held.__class__ is list:
                held[0] = entry  # type: ignore[index]
            else:
                self._inputs = entry
            return entry
        return first  # type: ignore[return-value]

    @property
    def violations(self) -> list[dict]:
        """This call's violations, blocked or not."""
        if self._violations is None:
            self._violations = []
        return self._violations

    @violations.setter
    def violations(self, value: list[dict]) -> None:
        self._violations = value

    # -- the two checks ------------------------------------------------------------------
    def check_input(self, name: str, spec: Spec, accepted: Accepted) -> None:
        """Record one accepted argument, then refuse carry-over or an unsourced value."""
        value = accepted.value
        if value.__class__ is not Q or value.magnitude.__class__ is not float:
            return  # a timestamp or a series: not recorded, not checked
        ledger = self.ledger
        index = self.index
        m = value.magnitude
        unit = value.unit
        datum = value.datum
        # A call's first input is held as facts in this record (no Entry object until something
        # reads it: ``_first_input``); the ledger's entries hold the record in its place.
        first = self._inputs is None
        if first:  # _inputs becomes _HELD under the lock, with _in_index
            self._in_name = name
            self._in_q = value
            self._in_how = accepted.how
            self._in_raw = accepted.raw
            item: "Entry | CallRecord" = self
        else:
            item = entry = _new(Entry)  # Entry(0, index, self.tool, "input", name, value, ...)
            entry.call = index
            entry.tool = self.tool
            entry.role = "input"
            entry.field = name
            entry.q = value
            entry.magnitude = m
            entry.unit = unit
            entry.datum = datum
            entry.si = m * unit.scale + unit.shift
            entry.how = accepted.how
            entry.raw = accepted.raw
        sourced = spec.sourced
        # One lock for recording and both checks' common outcome (nothing near on another
        # footing; an exact copy of an output in the same unit and datum); the full checks run
        # only otherwise. The carry-over probe is ``_eligible``'s, inlined for one or two
        # buckets (the common cases): this runs on every input.
        may_carry = copied = False
        ledger._lock.acquire()  # not `with`: acquire/release cost half as much
        try:
            n = ledger._count
            ledger._count = n + 1
            entries = ledger._entries
            entries.append(item)
            if first:
                self._in_index = n
                self._inputs = _HELD
                if ledger._held is None:
                    ledger._held = n  # the oldest entry still held as its call's record
            else:
                entry.index = n
                held = self._inputs  # (not self.inputs: it would take the lock)
                if held.__class__ is list:
                    held.append(entry)  # type: ignore[union-attr]
                else:
                    self._inputs = [held, entry]  # type: ignore[list-item]
            if ledger.max_entries is not None:
                while len(entries) > ledger.max_entries:
                    ledger._evict(entries.popleft())
            # A positive value whose buckets were found free of other footings for this unit and
            # datum, with no footing added to any bucket since, needs no probe while its 0.6%
            # stays inside those buckets (``_safe``: unit, datum, [start, end), ``_shape``).
            # The last interval used is tried first (``_safe_last``; its start is positive).
            safe = ledger._safe_last
            if safe[0] is unit and safe[1] == datum and safe[2] <= m * 0.994 and \
                    m * 1.006 < safe[3] and safe[4] == ledger._shape:
                pass
            elif (kept := ledger._safe.get(id(unit)) if m > 0.0 else None) is not None and \
                    kept[0] is unit and kept[1] == datum and kept[4] == ledger._shape and \
                    kept[2] <= m * 0.994 and m * 1.006 < kept[3]:
                ledger._safe_last = kept
            elif m != 0.0 and abs(m) < 1e308:
                mant, exp = _frexp(m * 0.994)
                lo = exp * 128 + int(mant * 64) if mant >= 0.0 else \
                    exp * 128 + 64 - int(mant * 64)
                mant, exp = _frexp(m * 1.006)
                hi = exp * 128 + int(mant * 64) if mant >= 0.0 else \
                    exp * 128 + 64 - int(mant * 64)
                if -1 <= hi - lo <= 1:
                    footings = ledger._near
                    for counts in (footings.get(lo), footings.get(hi) if hi != lo else None):
                        if counts is not None:
                            for f_unit, f_datum in counts:
                                if not ((f_unit is unit or f_unit == unit) and (
                                        datum is None or f_datum is None or f_datum == datum)):
                                    may_carry = True  # another footing near: the full check
                                    break
                    if 1e-300 < m < 1e300 and not may_carry:  # buckets lo..hi: [start, end)
                        if len(ledger._safe) >= 64:
                            ledger._safe.clear()
                        ledger._safe[id(unit)] = ledger._safe_last = (
                            unit, datum, _ldexp(lo & 127, (lo >> 7) - 6),
                            _ldexp((hi & 127) + 1, (hi >> 7) - 6), ledger._shape)
                else:  # many buckets (a subnormal value): _eligible reads them all
                    may_carry = ledger._eligible(m, unit, datum) is not None
            elif m != 0.0:  # the largest floats
                may_carry = ledger._eligible(m, unit, datum) is not None
            if sourced:  # _copied, inlined: the last output (in a pipeline, the one copied)
                run: "SortedRun | None"
                out = ledger._last_out
                if out is not None and out.magnitude == m and out.unit is unit and \
                        out.datum == datum and out.call != index:
                    copied = True
                    run = None
                else:  # the run of this footing (the last output's, when it is on it)
                    last = ledger._last
                    if last is not None and last[0] is unit and last[1] == datum:
                        run = last[3]
                    else:
                        run = ledger._by_footing.get((unit, datum))
                if run is not None:
                    maxes = run.maxes
                    if maxes[-1] == m and run.items[-1][-1].call != index:
                        copied = True  # a copy of the largest (in a series, the latest) output
                    else:
                        i = bisect_left(maxes, m)
                        if i < len(maxes):
                            keys = run.keys[i]
                            j = bisect_left(keys, m)
                            copied = keys[j] == m and run.items[i][j].call != index
        finally:
            ledger._lock.release()
        if may_carry:
            ledger._check_carry_over(self, spec, accepted)
        if sourced and not copied:
            ledger._check_sourced(self, spec, accepted)

    def record_input(self, name: str, spec: Spec, accepted: Accepted) -> None:
        value = accepted.value
        if value.__class__ is Q and not value.is_series:
            entry = self.ledger._add(self.index, self.tool, "input", name, value, accepted.how,
                                     accepted.raw)
            self.inputs.append(entry)

    def record_output(self, result: Any) -> None:
        if result.__class__ is Q:  # the common case, without the generator
            if result.magnitude.__class__ is float:
                self.outputs.append(self.ledger._add_output(self.index, self.tool, None, result))
            return
        for field, q in _quantities(result):
            if q.is_series:
                continue
            self.outputs.append(self.ledger._add(self.index, self.tool, "output", field, q))

    def record_violation(self, violation: GuardViolation, *, blocked: bool) -> None:
        item = {"code": violation.code, "field": violation.field, "message": str(violation),
                "repair": violation.repair(), "blocked": blocked}
        self.violations.append(item)
        self.ledger.violations.append({"call": self.index, "tool": self.tool, **item})
        self.ledger.violation_count += 1
        if self.ledger.max_calls is not None and len(self.ledger.violations) > self.ledger.max_calls:
            del self.ledger.violations[0]

    def finish(self, ok: bool) -> None:
        self.ok = ok
        self.finished = _time()
        store = self.ledger.store
        if store is not None:  # written before the call's answer is released
            store.record(self)

    def finish_with(self, result: Any) -> None:
        """``record_output(result)``, then ``finish(ok=True)``: a guarded call's last step."""
        if result.__class__ is Q and result.magnitude.__class__ is float:
            ledger = self.ledger  # _add_output, inlined
            entry = _new(Entry)  # Entry(0, self.index, self.tool, "output", None, result), inlined
            entry.call = self.index
            entry.tool = self.tool
            entry.role = "output"
            entry.field = None
            entry.q = result
            entry.magnitude = m = result.magnitude
            entry.unit = u = result.unit
            entry.datum = datum = result.datum
            entry.si = m * u.scale + u.shift
            entry.how = entry.raw = None
            ledger._lock.acquire()  # not `with`: acquire/release cost half as much
            try:
                entry.index = ledger._count
                ledger._count += 1
                entries = ledger._entries
                entries.append(entry)
                fast = ledger._fast
                if fast[0] is u and fast[1] == datum and fast[2] <= m < fast[3]:
                    # _index's common case, inlined: the footing and bucket of the previous
                    # output (the bucket already lists the footing; the run is not empty)
                    run = fast[4]
                    maxes = run.maxes
                    keys = run.keys[-1]
                    if m >= maxes[-1] and len(keys) < _CHUNK_MAX:
                        keys.append(m)
                        run.items[-1].append(entry)
                        maxes[-1] = m
                    else:
                        run.add(m, entry)
                    fast[5].append(entry)
                    ledger._last_out = entry
                else:
                    ledger._index(entry)
                if ledger.max_entries is not None:
                    while len(entries) > ledger.max_entries:
                        ledger._evict(entries.popleft())
                first = self._outputs is None
                if first:
                    self._outputs = entry
            finally:
                ledger._lock.release()
            if not first:
                self.outputs.append(entry)
        else:
            self.record_output(result)
        self.ok = True
        self.finished = _time()
        store = self.ledger.store
        if store is not None:  # written before the call's answer is released
            store.record(self)

    def as_dict(self) -> dict:
        return {"index": self.index, "tool": self.tool, "enforcement": self.enforcement,
                "arguments": _jsonable(self.arguments), "inputs": [e.as_dict() for e in self.inputs],
                "outputs": [e.as_dict() for e in self.outputs], "violations": self.violations,
                "ok": self.ok, "started": self.started, "finished": self.finished}


class Ledger:
    """What a session recorded. Use ``audit_answer``, ``manifest`` and ``enforcement_report``."""

    def __init__(self, context: str | None = None, *, max_entries: int | None = None,
                 max_calls: int | None = None) -> None:
        self.context = context
        self.max_entries = max_entries
        # max_calls bounds the call records (and violation records) kept, oldest dropped first;
        # call_count and violation_count still count every one.
        self.max_calls = max_calls
        self.calls: "list[CallRecord] | deque[CallRecord]" = [] if max_calls is None else deque(maxlen=max_calls)
        self.calls_dropped = 0
        self.violation_count = 0
        # Every recorded quantity still kept, oldest first; a call's first input is held as
        # its CallRecord until ``entries`` is read (``_held``: the index of the oldest so held)
        self._entries: "deque[Entry | CallRecord]" = deque()
        self._held: "int | None" = None
        self.violations: list[dict] = []
        # {tool name: the tool} for each tool called: its declared ``params`` and ``returns``
        # tell the audit what a refused call needed (``audit.abandoned``)
        self.declared: dict[str, Any] = {}
        self._near: dict[int, dict[tuple, None]] = {}  # magnitude bucket -> its footings
        self._by_footing: dict[tuple, SortedRun] = {}   # (unit, datum) -> outputs by magnitude
        self._by_dims: dict[tuple, dict] = {}       # dims -> the footings of that dimension
        self._recent: dict[tuple, deque[Entry]] = {}        # outputs by dims, for pair search
        self._context_numbers: "list | None" = None
        self._unsound: "tuple | None" = None  # ((count, violations), unsound_calls())
        self._views: dict = {}  # sorted views of outputs, rebuilt after each change
        # the registries the views and the question's numbers were read under (see
        # ``_registries_changed``)
        self._units_seen = _units.generation()
        self._datums_seen = _datums.generation()
        self._lock = threading.Lock()
        self._count = 0
        self._last: "tuple[Unit, str | None, tuple, SortedRun, deque[Entry]] | None" = None
        # (unit, datum, footing, run, recent) of the last output indexed
        self._last_bucket: "tuple[float, float, dict[tuple, None]] | None" = None
        # (start, end, footings) of the last output's bucket, if positive (see _index)
        self._safe: dict[int, tuple] = {}  # id(unit) -> buckets free of other footings
        self._safe_last: tuple = _NO_FAST  # the interval of _safe used last
        self._last_out: "Entry | None" = None  # the output indexed last
        # (unit, datum, start, end, run, recent): the last output's footing, its bucket's
        # [start, end) (which lists the footing), its run and its dimension's window
        self._fast: tuple = _NO_FAST
        self._shape = 0  # counts the footings added to buckets (see check_input)
        # a shared store's side of this conversation (``store.StoredConversation``): synced
        # before each call begins, written when each call finishes; None keeps all in memory
        self.store: "Any" = None

    # -- recording -------------------------------------------------------------------------
    def begin_call(self, tool: Any, arguments: dict) -> CallRecord:
        if self.store is not None:  # what other processes recorded in this conversation
            self.store.sync(self)
        try:  # CallRecord(self, 0, tool, arguments), inlined for a tool with a name and a mode
            name, enforcement = tool.name, tool.enforcement
        except AttributeError:
            call = CallRecord(self, 0, tool, arguments)
        else:
            if name not in self.declared:
                self.declared[name] = tool
            call = _new(CallRecord)
            call.ledger = self
            call.tool = name
            call.enforcement = enforcement
            call.arguments = dict(arguments)  # as received (made JSON-ready in as_dict)
            call._inputs = call._outputs = call._violations = call.ok = call.finished = None
            call.started = _time()
        self._lock.acquire()  # not `with`: acquire/release cost half as much
        try:
            calls = self.calls
            call.index = self.calls_dropped + len(calls)  # call_count
            if self.max_calls is not None and len(calls) >= self.max_calls:
                self.calls_dropped += 1  # the deque drops the oldest record
            calls.append(call)
        finally:
            self._lock.release()
        return call

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
    def call_count(self) -> int:
        """Calls begun in this ledger, including records dropped by ``max_calls``."""
        return self.calls_dropped + len(self.calls)

    def _add(self, call: int, tool: str, role: str, field, q: Q, how=None, raw=None) -> Entry:
        entry = Entry(0, call, tool, role, field, q, how, raw)
        with self._lock:
            entry.index = self._count
            self._count += 1
            entries = self._entries
            entries.append(entry)
            if role == "output":
                self._index(entry)
            if self.max_entries is not None:
                while len(entries) > self.max_entries:
                    self._evict(entries.popleft())
            return entry

    def _add_output(self, call: int, tool: str, field, q: Q) -> Entry:
        """``_add(call, tool, "output", field, q)``."""
        entry = Entry(0, call, tool, "output", field, q)
        with self._lock:
            entry.index = self._count
            self._count += 1
            entries = self._entries
            entries.append(entry)
            self._index(entry)
            if self.max_entries is not None:
                while len(entries) > self.max_entries:
                    self._evict(entries.popleft())
            return entry

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
        if maxes and magnitude >= maxes[-1] and len(run.keys[-1]) < _CHUNK_MAX:
            run.keys[-1].append(magnitude)  # run.add's common case, inlined
            run.items[-1].append(entry)
            maxes[-1] = magnitude
        else:
            run.add(magnitude, entry)
        recent.append(entry)
        self._last_out = entry
        bucket = self._last_bucket  # finish_with's fast path: this footing, in this bucket
        self._fast = _NO_FAST if bucket is None else \
            (unit, datum, bucket[0], bucket[1], run, recent)

    def _evict(self, entry: "Entry | CallRecord") -> None:
        if entry.__class__ is not Entry or entry.role != "output":  # type: ignore[union-attr]
            return  # an input (a call's first input, still held as its record, included)
        unit, datum, m = entry.unit, entry.datum, entry.magnitude
        footing = (unit, datum)
        run = self._by_footing.get(footing)
        if run is not None and run.remove(m, entry):
            key = magnitude_bucket(m)
            if entry is self._last_out:
                self._last_out = None
            if not run.maxes:
                self._last = None  # it may hold this run
                self._fast = _NO_FAST
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
                self._fast = _NO_FAST
        recent = self._recent.get(unit.dims)
        if recent and recent[0] is entry:  # the oldest entry, if still recent, is the first
            recent.popleft()

    def bind(self) -> "AbstractContextManager[Ledger | None]":
        """``with ledger.bind():`` records the block's guarded calls here (use it inside a worker
        thread: see the module doc on threads)."""
        return bind(self)

    def bound(self, fn: "Callable[..., Any]") -> "Callable[..., Any]":
        """``fn`` wrapped to run bound to this session, in whatever thread calls it:
        ``executor.submit(ledger.bound(fn), *args)``, ``loop.run_in_executor(None,
        ledger.bound(fn), *args)``."""
        def run(*args: Any, **kwargs: Any) -> Any:
            with bind(self):
                return fn(*args, **kwargs)
        run.__name__ = getattr(fn, "__name__", "bound")
        return run

    def run_in_thread(self, fn: "Callable[..., Any]", *args: Any, **kwargs: Any) -> Any:
        """Run ``fn`` in a new thread inside this session and return its result."""
        result: dict = {}

        def target() -> None:
            token = _CURRENT.set(self)
            try:
                result["value"] = fn(*args, **kwargs)
            except BaseException as exc:  # re-raised in the caller
                result["error"] = exc
            finally:
                _CURRENT.reset(token)

        t = threading.Thread(target=target)
        t.start()
        t.join()
        if "error" in result:
            raise result["error"]
        return result.get("value")

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

    def _outputs_near(self, magnitude: float, tol: float) -> list:
        """Every recorded output whose own-unit magnitude is within ``tol`` of ``magnitude``
        (``is_close``), oldest first: the footings in the buckets around it, bisected."""
        lo, hi = _window(magnitude, tol)
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

    def call_record(self, index: int) -> "CallRecord | None":
        """The record of call ``index``; None for a call never made or one no longer kept
        (``max_calls`` drops the oldest records, so ``calls[i]`` is not call ``i`` then)."""
        i = index - self.calls_dropped
        return self.calls[i] if 0 <= i < len(self.calls) else None

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
            from . import conversions
            outputs = [e for e in self.entries if e.role == "output"]
            found = conversions.find(outputs, self.call_inputs(), self._call_arguments)
            view = found.conversions
            self._views[("zeros", self._count)] = found.zeros
            self._views[("offsets", self._count)] = frozenset(found.offsets)
            self._views[key] = view
        return view

    def _call_arguments(self, index: int):
        record = self.call_record(index)
        return record.arguments if record is not None else None

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
        the audit's rule that a derivation must not run a tool backwards."""
        key = ("inputs", self._count)
        view = self._views.get(key)
        if view is None:
            view = {}
            for e in self.entries:
                if e.role == "input":
                    view.setdefault(e.call, []).append(e)
            self._views[key] = view
        return view

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

    def _in_question(self, held: Q, tol: float) -> bool:
        """The held value is stated in the question in the tool's unit, or with no unit."""
        for num in self.context_numbers():
            if not is_close(num.value, held.magnitude, tol):
                continue
            if num.unit is None or num.unit == held.unit:
                return True
        return False

    # -- the checks -------------------------------------------------------------------------
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
                    return True
        return False

    def _check_carry_over(self, call: CallRecord, spec, accepted) -> None:
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
        lo, hi = _window(m, tol)
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
            from .spec import datum_repair
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

    def _check_sourced(self, call: CallRecord, spec, accepted) -> None:
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
                        return True
                    j += 1
                if j < n:
                    break
                i += 1
        return False

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
            recent: "Iterable[Entry]" = self._recent.get(unit.dims, ())
            if converted:
                recent = chain(recent, (c for c in converted if c.unit.dims == unit.dims))
            views = [(self._sorted_view(("pairs", unit.dims), recent, lambda e: e.si),
                      [v * unit.scale for v in values], tol * unit.scale, None)]
        else:
            units = dict.fromkeys(e.unit for recent in self._recent.values() for e in recent)
            views = [(self._sorted_view(("pairs", u), chain(
                (e for e in self._recent[u.dims] if e.unit == u),
                (c for c in converted if c.unit == u)), lambda e: e.magnitude),
                      values, tol, u) for u in units]
        if datum is not None:
            datum = canonical_datum(datum)
        inverts = self.inverts_call if self.call_inputs() else None
        for (keys, entries), targets, t_tol, own in views:
            if len(keys) < 2:
                continue
            for target in targets:
                for i, j, op in _pair_sums(keys, target, t_tol):
                    a, b = entries[i], entries[j]
                    if pair_datum_ok(a.datum, b.datum, "+", datum) and \
                            not (offsets and (id(a) in offsets or id(b) in offsets)) and \
                            combinable(a, b) and \
                            not (inverts and _backwards(inverts, a, b, target, t_tol, own)):
                        return a, b, "+"
                for i, j, op in _pair_differences(keys, target, t_tol):
                    a, b = entries[i], entries[j]
                    if pair_datum_ok(a.datum, b.datum, "-", datum) and \
                            not (offsets and (id(a) in offsets or id(b) in offsets)) and \
                            combinable(a, b) and \
                            not (inverts and _backwards(inverts, a, b, target, t_tol, own)):
                        return a, b, "-"
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

    # -- reports ----------------------------------------------------------------------------
    def audit_answer(self, answer: str, context: str | None = None) -> Audit:
        from . import observe
        from .audit.answer import audit_answer
        observer = observe.current()
        if observer is None:
            return audit_answer(self, answer, context if context is not None else self.context)
        start = _perf_counter()
        audit = audit_answer(self, answer, context if context is not None else self.context)
        observer.audited(audit, _perf_counter() - start)
        return audit

    def enforcement_report(self) -> str:
        """``2 of 3 tool calls would have been blocked:`` then the violations grouped by code."""
        blocked_calls = [c for c in self.calls if c.violations]
        unbound = sum(1 for v in self.violations if v["code"] == "session_unbound")
        head = (f"{len(blocked_calls)} of {len(self.calls)} tool calls "
                f"{'would have been' if any(not v['blocked'] for v in self.violations) else 'were'}"
                f" blocked")
        if unbound:  # calls in a thread bound to no session: recorded here, not in self.calls
            head += (f"; {unbound} call{'s' if unbound > 1 else ''} in an unbound thread ran "
                     f"unchecked")
        lines = [head + (":" if self.violations else ".")]
        groups: dict[str, list[dict]] = {}
        for v in self.violations:
            groups.setdefault(v["code"], []).append(v)
        for code, items in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            lines.append(f"  {len(items)}x {code}")
            for message in dict.fromkeys(v["message"] for v in items):
                lines.append(f"      {message}")
        return "\n".join(lines)

    def manifest(self) -> dict:
        """The whole ledger as JSON-serialisable data; ``Session.from_manifest`` reads it back."""
        data = {"format": "quantity-guard-manifest", "version": 1, "context": self.context,
                "calls": [c.as_dict() for c in self.calls], "violations": list(self.violations)}
        if self.max_calls is not None:  # bounded: say how many there were in all
            data["call_count"] = self.call_count
            data["violation_count"] = self.violation_count
        return data

    @classmethod
    def from_manifest(cls, data: dict) -> "Ledger":
        if data.get("format") != "quantity-guard-manifest":
            raise ValueError("not a quantity-guard manifest")
        ledger = cls(context=data.get("context"))
        for c in data["calls"]:
            call = CallRecord(ledger, c["index"], c["tool"], {})
            call.arguments, call.enforcement = c["arguments"], c.get("enforcement", "strict")
            call.ok, call.started, call.finished = c["ok"], c["started"], c["finished"]
            call.violations = list(c["violations"])
            ledger.calls.append(call)
            for role, bucket in (("input", call.inputs), ("output", call.outputs)):
                for e in c[f"{role}s"]:
                    bucket.append(ledger._add(call.index, call.tool, role, e["field"],
                                              Q.from_dict(e["quantity"]), e.get("received_as"),
                                              e.get("raw")))
        ledger.violations = list(data.get("violations", []))
        return ledger


Session = Ledger


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


def _by_index(entry: Entry) -> int:
    return entry.index


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


def _quantities(result, field=None):
    if result.__class__ is Q:
        yield field, result
    elif isinstance(result, dict):
        for k, v in result.items():
            yield from _quantities(v, k if field is None else f"{field}.{k}")
    elif isinstance(result, list):  # a labelled array of records (``stations[].distance_km``)
        for i, v in enumerate(result):
            yield from _quantities(v, f"{field or ''}[{i}]")


def _jsonable(value):
    if value.__class__ is Q:
        return value.as_dict()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return repr(value)
