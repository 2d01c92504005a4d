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
views of every output, built once per change.

**Long sessions.** ``max_entries`` bounds the history (``entries``: the oldest leave first). An
output leaving it stays in the index as a *kept value*, once per value (unit, datum and
magnitude; a repeat leaving the history refreshes the value kept), so the checks still see it; at most
``max_values`` (default ``MAX_VALUES``, 10,000) are kept, and past that the least recently used
(returned, or matched by an input) is forgotten: counted in ``values_evicted``, logged on the
``quantity_guard`` logger (at the 1st, 2nd, 4th... time) and named in ``enforcement_report()``
and the manifest. A refused call reads no more of the session than an accepted one: the pair
window and ``call_inputs()`` are kept up to date, not rebuilt per call.

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
import threading
from collections import OrderedDict, deque
from contextlib import contextmanager
from time import time as _time

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # annotations only: they are never evaluated at run time
    from collections.abc import Callable, Iterator
    from contextlib import AbstractContextManager
    from typing import Any

    from ..audit import Audit
    from ..spec import Accepted, Spec
    from ..units import Unit
    from .index import SortedRun

from .. import _seams
from .. import datums as _datums
from ..errors import GuardViolation, SessionUnbound
from ..quantity import Q
from ..units import table as _units
from .checks import Checks, held_tolerance
from .index import CHUNK_MAX, NO_FAST, SortedRun, magnitude_bucket
from .record import Entry, jsonable, quantities

__all__ = ["session", "current", "bind", "is_bound", "Ledger", "Session", "Entry", "CallRecord"]
# public beyond __all__: for_call and note_unrecorded (quantity_guard.tool), MAX_VALUES (the
# default bound); SortedRun, magnitude_bucket and held_tolerance (the index's tests)
_PUBLIC = (SortedRun, magnitude_bucket, held_tolerance)

_new = object.__new__  # the hot paths fill an Entry's slots themselves (see check_input)
_REPAIR = GuardViolation.repair  # (record_violation: a violation whose repair() is the base's)
MAX_VALUES = 10_000  # values kept past the history by default (docs/guide/sessions.md)


_CURRENT: contextvars.ContextVar["Ledger | object | None"] = contextvars.ContextVar(
    "quantity_guard_session", default=None)
_DETACHED = object()  # bound to no session on purpose: ``bind(None)``
_OPEN: tuple = ()     # every open session, oldest first (replaced whole, under _OPEN_LOCK)
_OPEN_LOCK = threading.Lock()


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



@contextmanager
def opened(ledger: "Ledger") -> "Iterator[Ledger]":
    """Hold ``ledger`` open (found by threads bound to no session) and bound to this context
    for the block: ``session()``'s body."""
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


@contextmanager
def session(context: str | None = None, *, max_entries: int | None = None,
            max_values: int = MAX_VALUES, store: Any = None,
            conversation: str | None = None) -> "Iterator[Ledger]":
    """Open a session; guarded tools called inside it record into the yielded ledger.

    With ``store`` (a ``redis://`` URL or ``store.open_store(...)``) and ``conversation`` (a
    name every worker of the conversation uses), the ledger is shared through the store: each
    call first sees what other processes recorded, and its own record is written before it
    returns (see ``quantity_guard.store``)."""
    ledger = Ledger(context=context, max_entries=max_entries, max_values=max_values)
    if store is not None or conversation is not None:
        if store is None or not isinstance(conversation, str) or not conversation:
            raise ValueError("a shared session needs both store= and conversation= (a non-empty "
                             "name every worker of the conversation passes)")
        from ..store import open_store
        shared = open_store(store) if isinstance(store, str) else store
        shared.conversation(conversation).attach(ledger)
    with opened(ledger):
        yield ledger


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
            may_carry = ledger._may_carry(m, unit, datum)
            # (before the history makes room: a kept value this copies is used, not forgotten)
            copied = sourced and ledger._copy_of_output(m, unit, datum, index)
            if ledger.max_entries is not None:
                while len(entries) > ledger.max_entries:
                    ledger._evict(entries.popleft())
            counted = ledger._count
        finally:
            ledger._lock.release()
        if may_carry:
            ledger._check_carry_over(self, spec, accepted)
        if sourced and not copied:
            ledger._check_sourced(self, spec, accepted, counted)

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
        for field, q in quantities(result):
            if q.is_series:
                continue
            self.outputs.append(self.ledger._add(self.index, self.tool, "output", field, q))

    def record_violation(self, violation: GuardViolation, *, blocked: bool) -> None:
        message = str(violation)
        # (repair() joins str() and the suggestion: str() is not made twice where it is not
        # overridden)
        repair = violation._join(message) if violation.__class__.repair is _REPAIR else \
            violation.repair()
        code, field = violation.code, violation.field
        if self._violations is None:
            self._violations = []
        self._violations.append({"code": code, "field": field, "message": message,
                                 "repair": repair, "blocked": blocked})
        ledger = self.ledger
        kept = ledger.violations
        kept.append({"call": self.index, "tool": self.tool, "code": code, "field": field,
                     "message": message, "repair": repair, "blocked": blocked})
        ledger.violation_count += 1
        if ledger.max_calls is not None and len(kept) > ledger.max_calls:
            del kept[0]

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
                    if m >= maxes[-1] and len(keys) < CHUNK_MAX:
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
                "arguments": jsonable(self.arguments), "inputs": [e.as_dict() for e in self.inputs],
                "outputs": [e.as_dict() for e in self.outputs], "violations": self.violations,
                "ok": self.ok, "started": self.started, "finished": self.finished}



class Ledger(Checks):
    """What a session recorded. Use ``audit_answer``, ``manifest`` and ``enforcement_report``."""

    def __init__(self, context: str | None = None, *, max_entries: int | None = None,
                 max_calls: int | None = None, max_values: int = MAX_VALUES) -> None:
        self.context = context
        self.max_entries = max_entries
        # max_entries bounds the history (``entries``); an output leaving it stays indexed for
        # the checks as a kept value, once per value, up to max_values (the least recently
        # used forgotten first: counted in values_evicted, logged; 0 keeps none)
        self.max_values = max_values
        self._kept: OrderedDict[tuple, Entry] = OrderedDict()
        self.values_evicted = 0
        self._by_call: "dict[int, list[Entry]] | None" = None  # call_inputs(), once built
        self._by_call_upto = -1  # the newest entry index call_inputs() has read
        self._pairs: dict = {}  # dims -> the pair window, sorted (see Index._pair_view)
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
        self._safe_last: tuple = NO_FAST  # the interval of _safe used last
        self._last_out: "Entry | None" = None  # the output indexed last
        # (unit, datum, start, end, run, recent): the last output's footing, its bucket's
        # [start, end) (which lists the footing), its run and its dimension's window
        self._fast: tuple = NO_FAST
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
    def values_kept(self) -> int:
        """Output values kept for the checks after they left the history (at most
        ``max_values``)."""
        return len(self._kept)

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
            with bind(self):
                try:
                    result["value"] = fn(*args, **kwargs)
                except BaseException as exc:  # re-raised in the caller
                    result["error"] = exc

        t = threading.Thread(target=target)
        t.start()
        t.join()
        if "error" in result:
            raise result["error"]
        return result.get("value")

    # -- reports ----------------------------------------------------------------------------
    def audit_answer(self, answer: str, context: str | None = None) -> Audit:
        """Classify every number in ``answer`` against this record and ``context`` (the
        session's question by default): ``quantity_guard.audit``, which supplies this method
        (the ledger imports nothing of the audit)."""
        return _seams.auditor()(self, answer, context)

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
        if self.values_evicted:  # the checks no longer see them (see max_values)
            head += (f"; {self.values_evicted} output value(s) forgotten past "
                     f"max_values={self.max_values}")
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
        if self.values_evicted:  # output values the checks forgot (max_values)
            data["values_evicted"] = self.values_evicted
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


