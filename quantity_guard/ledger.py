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

Look-ups are indexed by magnitude (binary buckets about 1.6% wide), so a call costs the same
with ten thousand entries as with none. One-step sums and differences are searched among the
256 most recent outputs of each dimension (``_PAIR_WINDOW``); the answer audit bisects sorted
views of every output, built once per change. ``max_entries`` bounds a long-lived ledger (the oldest
entries are evicted).

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
from math import frexp as _frexp
import threading
import time
from collections import deque
from contextlib import contextmanager

from .audit import (Audit, _pair_datum_ok, audit_answer, extract_numbers, fmt_exact, fmt_g,
                    is_close, relative_cap, written_tolerance)
from .errors import GuardViolation, SessionUnbound, UnconvertedCarryOver, UnsourcedInput
from .quantity import Q

__all__ = ["session", "current", "bind", "Ledger", "Session", "Entry", "CallRecord"]

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
        return None if ledger is _DETACHED else ledger
    open_ = _OPEN
    return open_[0] if len(open_) == 1 else None


def for_call(tool) -> "Ledger | None":
    """``current()`` for a guarded call of ``tool``, which must not lose its checks silently:
    with several sessions open and none bound here, strict refuses (``SessionUnbound``), warn
    warns and records the call in every open session, off (coercion only) proceeds."""
    ledger = _CURRENT.get()
    if ledger is not None:
        return None if ledger is _DETACHED else ledger
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
def session(context: str | None = None, *, max_entries: int | None = None):
    """Open a session; guarded tools called inside it record into the yielded ledger."""
    ledger = Ledger(context=context, max_entries=max_entries)
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
def bind(ledger: "Ledger | None"):
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


def _bucket(x: float) -> int:
    """A magnitude's bucket: its binary exponent and the first six bits of its mantissa, so
    a bucket is 1/32 to 1/64 of its value wide. Keys grow with |x| within each sign."""
    mant, exp = _frexp(x)
    return exp * 128 + int(mant * 64)


_EVERY = object()  # a tolerance interval that contains zero: no key range bounds it


def _buckets(x: float, tol: float):
    """The keys of every bucket that may hold a value within ``tol`` of ``x``."""
    a, b = x - tol, x + tol
    if a <= 0.0 <= b:
        return _EVERY
    lo, hi = _bucket(a), _bucket(b)
    if lo > hi:
        lo, hi = hi, lo
    return range(lo, hi + 1)


class Entry:
    """One recorded quantity."""

    __slots__ = ("index", "call", "tool", "role", "field", "q", "magnitude", "unit", "datum",
                 "si", "how", "raw")

    def __init__(self, index, call, tool, role, field, q: Q, how=None, raw=None) -> None:
        self.index, self.call, self.tool, self.role, self.field = index, call, tool, role, field
        self.q = q
        self.magnitude = q.magnitude
        self.unit = q.unit
        self.datum = q.datum
        u = q.unit
        self.si = q.magnitude * u.scale + u.shift
        self.how, self.raw = how, raw

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


class CallRecord:
    """One guarded call in a session: what went in (as received and as converted), what came
    out, and the violations, blocked or not."""

    __slots__ = ("ledger", "index", "tool", "enforcement", "arguments", "inputs", "outputs",
                 "violations", "ok", "started", "finished")

    def __init__(self, ledger: "Ledger", index: int, tool, arguments: dict) -> None:
        self.ledger = ledger
        self.index = index
        self.tool = tool.name if hasattr(tool, "name") else str(tool)
        self.enforcement = getattr(tool, "enforcement", "strict")
        self.arguments = dict(arguments)  # as received (made JSON-ready in as_dict)
        self.inputs: list[Entry] = []
        self.outputs: list[Entry] = []
        self.violations: list[dict] = []
        self.ok: bool | None = None
        self.started = time.time()
        self.finished: float | None = None

    # -- the two checks ------------------------------------------------------------------
    def check_input(self, name: str, spec, accepted) -> None:
        """Record one accepted argument, then refuse carry-over or an unsourced value."""
        self.record_input(name, spec, accepted)
        value = accepted.value
        if value.__class__ is not Q or value.is_series:
            return
        self.ledger._check_carry_over(self, spec, accepted)
        if spec.sourced:
            self.ledger._check_sourced(self, spec, accepted)

    def record_input(self, name: str, spec, accepted) -> None:
        value = accepted.value
        if value.__class__ is Q and not value.is_series:
            entry = self.ledger._add(self.index, self.tool, "input", name, value, accepted.how,
                                     accepted.raw)
            self.inputs.append(entry)

    def record_output(self, result) -> None:
        for field, q in _quantities(result):
            if q.is_series:
                continue
            self.outputs.append(self.ledger._add(self.index, self.tool, "output", field, q))

    def record_violation(self, violation: GuardViolation, *, blocked: bool) -> None:
        item = {"code": violation.code, "field": violation.field, "message": str(violation),
                "repair": violation.repair(), "blocked": blocked}
        self.violations.append(item)
        self.ledger.violations.append({"call": self.index, "tool": self.tool, **item})

    def finish(self, ok: bool) -> None:
        self.ok = ok
        self.finished = time.time()

    def as_dict(self) -> dict:
        return {"index": self.index, "tool": self.tool, "enforcement": self.enforcement,
                "arguments": _jsonable(self.arguments), "inputs": [e.as_dict() for e in self.inputs],
                "outputs": [e.as_dict() for e in self.outputs], "violations": self.violations,
                "ok": self.ok, "started": self.started, "finished": self.finished}


class Ledger:
    """What a session recorded. Use ``audit_answer``, ``manifest`` and ``enforcement_report``."""

    def __init__(self, context: str | None = None, *, max_entries: int | None = None) -> None:
        self.context = context
        self.max_entries = max_entries
        self.calls: list[CallRecord] = []
        self.entries: deque[Entry] = deque()
        self.violations: list[dict] = []
        self._by_magnitude: dict[tuple, list[Entry]] = {}   # outputs by own-unit magnitude
        self._by_si: dict[tuple, list[Entry]] = {}          # outputs by (dims, SI magnitude)
        self._recent: dict[tuple, deque[Entry]] = {}        # outputs by dims, for pair search
        self._context_numbers = None
        self._views: dict = {}  # sorted views of outputs, rebuilt after each change
        self._lock = threading.Lock()
        self._count = 0

    # -- recording -------------------------------------------------------------------------
    def begin_call(self, tool, arguments: dict) -> CallRecord:
        with self._lock:
            call = CallRecord(self, len(self.calls), tool, arguments)
            self.calls.append(call)
            return call

    def _add(self, call: int, tool: str, role: str, field, q: Q, how=None, raw=None) -> Entry:
        with self._lock:
            entry = Entry(self._count, call, tool, role, field, q, how, raw)
            self._count += 1
            self.entries.append(entry)
            if role == "output":
                self._by_magnitude.setdefault(_bucket(entry.magnitude), []).append(entry)
                self._by_si.setdefault((entry.unit.dims, _bucket(entry.si)), []).append(entry)
                recent = self._recent.setdefault(entry.unit.dims, deque(maxlen=_PAIR_WINDOW))
                recent.append(entry)
            if self.max_entries is not None:
                while len(self.entries) > self.max_entries:
                    self._evict(self.entries.popleft())
            return entry

    def _evict(self, entry: Entry) -> None:
        if entry.role != "output":
            return
        for index, key in ((self._by_magnitude, _bucket(entry.magnitude)),
                           (self._by_si, (entry.unit.dims, _bucket(entry.si)))):
            bucket = index.get(key)
            if bucket is not None:
                try:
                    bucket.remove(entry)
                except ValueError:
                    pass
                if not bucket:
                    del index[key]
        recent = self._recent.get(entry.unit.dims)
        if recent is not None and entry in recent:
            recent.remove(entry)

    def bind(self):
        """``with ledger.bind():`` records the block's guarded calls here (use it inside a worker
        thread: see the module doc on threads)."""
        return bind(self)

    def bound(self, fn):
        """``fn`` wrapped to run bound to this session, in whatever thread calls it:
        ``executor.submit(ledger.bound(fn), *args)``, ``loop.run_in_executor(None,
        ledger.bound(fn), *args)``."""
        def run(*args, **kwargs):
            with bind(self):
                return fn(*args, **kwargs)
        run.__name__ = getattr(fn, "__name__", "bound")
        return run

    def run_in_thread(self, fn, *args, **kwargs):
        """Run ``fn`` in a new thread inside this session and return its result."""
        result: dict = {}

        def target():
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

    def context_numbers(self):
        if self._context_numbers is None:
            self._context_numbers = extract_numbers(self.context or "")
        return self._context_numbers

    def _near(self, index: dict, dims, value: float, tol: float, window) -> list:
        """Entries of ``index`` whose bucket may hold a value within ``tol`` of ``value`` (the
        caller compares exactly). An interval around zero, or a huge one, has no bounded key
        range: then the recent ``window`` of entries is scanned instead (only the audit's
        coarse tolerances get there; the boundary checks' are 0.5% at most)."""
        keys = _buckets(value, tol)
        if keys is _EVERY or len(keys) > 4096:
            return window()
        if dims is None:
            if len(keys) == 1:
                return index.get(keys[0], ())
            out: list = []
            for key in keys:
                out.extend(index.get(key, ()))
            return out
        if len(keys) == 1:
            return index.get((dims, keys[0]), ())
        out = []
        for key in keys:
            out.extend(index.get((dims, key), ()))
        return out

    def _outputs_near(self, magnitude: float, tol: float):
        return self._near(self._by_magnitude, None, magnitude, tol,
                          lambda: [e for recent in self._recent.values() for e in recent])

    def _outputs_near_si(self, dims, si: float, tol: float):
        return self._near(self._by_si, dims, si, tol, lambda: list(self._recent.get(dims, ())))

    # -- sorted views, for the answer audit: one sort per change, then bisection ---------------
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
        view = self._views.get(("si", dims, self._count))
        if view is None:
            self.outputs_in_si_range(dims, 0.0, 0.0)
            view = self._views[("si", dims, self._count)]
        return view

    def outputs_in_range(self, magnitude: float, tol: float, role: str = "output") -> list:
        """Every recorded output (or input) whose own-unit magnitude is within ``tol``."""
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

    def converted_elevations(self) -> list:
        """Recorded elevations carried to another datum by a recorded datum offset: an
        output with no datum whose call names the two datums (``from_datum``/``to_datum``,
        ``source``/``target``), read as "height on to = height on from + offset". These are
        the same points, like a unit conversion; the audit reads them as sourced."""
        key = ("converted", self._count)
        view = self._views.get(key)
        if view is None:
            view = []
            outputs = [e for e in self.entries if e.role == "output"]
            elevations = [e for e in outputs if e.datum is not None]
            if elevations:
                offsets = []
                stations = {d.split(":", 1)[1]: d for d in {e.datum for e in elevations}
                            if ":" in d}
                others = {e.datum for e in elevations if ":" not in e.datum}
                for e in outputs:
                    if e.datum is None and e.unit.dims == elevations[0].unit.dims and \
                            0 <= e.call < len(self.calls):
                        args = self.calls[e.call].arguments
                        pair = _offset_datums(args)
                        if pair is None and stations and len(others) == 1:
                            pair = _station_datum_height(e, args, stations, next(iter(others)))
                        if pair is not None:
                            offsets.append((e, *pair))
                self._views[("offsets", self._count)] = frozenset(id(o) for o, _, _ in offsets)
                for e in elevations:
                    for o, frm, to in offsets:
                        if e.datum == frm and to != frm:
                            view.append(_Converted(e, o, 1.0, to))
                        elif e.datum == to and to != frm:
                            view.append(_Converted(e, o, -1.0, frm))
            self._views[key] = view
        return view

    def datum_offsets(self) -> frozenset:
        """ids of the outputs that are datum offsets (see ``converted_elevations``): they
        carry an elevation to another datum and combine with nothing else."""
        self.converted_elevations()
        return self._views.get(("offsets", self._count), frozenset())

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
    def _check_carry_over(self, call: CallRecord, spec, accepted) -> None:
        held: Q = accepted.value
        m = held.magnitude
        if m == 0.0:
            return
        tol = relative_cap(m, _held_tolerance(accepted))
        for e in self._outputs_near(m, tol):
            if e.call == call.index or not is_close(e.magnitude, m, tol):
                continue
            same_unit = e.unit == held.unit
            datum_differs = held.datum is not None and e.datum is not None and e.datum != held.datum
            if same_unit and not datum_differs:
                continue
            if not same_unit and e.unit.dims == held.unit.dims and e.datum == held.datum and \
                    is_close(e.si, held.magnitude * held.unit.scale
                             + held.unit.shift, 1e-9 * abs(e.si)):
                continue  # the same physical amount, correctly converted
            if self._in_question(held, tol):
                continue
            raise self._carry_over(call, spec, accepted, e, datum_differs and same_unit)

    def _carry_over(self, call, spec, accepted, e: Entry, datum_only: bool):
        held: Q = accepted.value
        shown = fmt_g(accepted.received.magnitude if accepted.received is not None else held.magnitude)
        if accepted.how == "bare":
            opening = (f"received the bare number {shown}, which this tool reads as "
                       f"{_label(held)}")
        else:
            opening = f"received {_label(accepted.received or held)}"
        if datum_only:
            msg = (f"{opening}, but {e.label} returned {_label(e.q)} and no datum conversion was "
                   f"applied")
            from .spec import datum_repair
            suggestion = datum_repair(e.q, held.datum, spec.unit)
        else:
            msg = f"{opening}, but {e.label} returned {_label(e.q)} and no conversion was applied"
            try:
                converted = e.q.to(spec.unit)
                hint = f", or the converted value {fmt_exact(converted.magnitude)} {spec.unit.symbol}"
            except GuardViolation:
                hint = ""
            suggestion = (f'{{"value": {fmt_exact(e.magnitude)}, "unit": "{e.unit.symbol}"}} '
                          f'(the guard converts it){hint}')
        return UnconvertedCarryOver(msg, field=spec.field, suggestion=suggestion,
                                    received=shown, expected=spec.unit_text)

    def _check_sourced(self, call: CallRecord, spec, accepted) -> None:
        held: Q = accepted.value
        m = held.magnitude
        u = held.unit
        si = m * u.scale + u.shift
        written = _held_tolerance(accepted)
        tol = relative_cap(si, written * u.scale) or 1e-12
        for e in self._outputs_near_si(u.dims, si, tol):
            if e.call != call.index and is_close(e.si, si, tol) and \
                    (held.datum is None or e.datum in (None, held.datum)):
                return
        if self.find_derivation((m,), u, relative_cap(m, written)):
            return
        for num in self.context_numbers():
            if num.unit is None:
                if is_close(num.value, m, relative_cap(m, num.tolerance)):
                    return
            elif num.unit.dims == u.dims:
                nsi = num.value * num.unit.scale + num.unit.shift
                if is_close(nsi, si, relative_cap(si, num.tolerance * num.unit.scale)):
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
        if unit is not None:
            recent = self._recent.get(unit.dims, ())
            if converted:
                recent = chain(recent, (c for c in converted if c.unit.dims == unit.dims))
            views = [(self._sorted_view(("pairs", unit.dims), recent, lambda e: e.si),
                      [v * unit.scale for v in values], tol * unit.scale)]
        else:
            units = dict.fromkeys(e.unit for recent in self._recent.values() for e in recent)
            views = [(self._sorted_view(("pairs", u), chain(
                (e for e in self._recent[u.dims] if e.unit == u),
                (c for c in converted if c.unit == u)), lambda e: e.magnitude),
                      values, tol) for u in units]
        if datum is not None:
            from .audit import _canonical_datum
            datum = _canonical_datum(datum)
        for (keys, entries), targets, t_tol in views:
            if len(keys) < 2:
                continue
            for target in targets:
                for i, j, op in _pair_sums(keys, target, t_tol):
                    a, b = entries[i], entries[j]
                    if _pair_datum_ok(a.datum, b.datum, "+", datum) and \
                            not (offsets and (id(a) in offsets or id(b) in offsets)):
                        return a, b, "+"
                for i, j, op in _pair_differences(keys, target, t_tol):
                    a, b = entries[i], entries[j]
                    if _pair_datum_ok(a.datum, b.datum, "-", datum) and \
                            not (offsets and (id(a) in offsets or id(b) in offsets)):
                        return a, b, "-"
        return None

    def product_operands(self) -> dict:
        """For the audit's products and ratios: {dimension: (sorted log10 |SI value|,
        [(SI value, entry)])} of the recorded outputs that are not elevations and not zero
        (powers in VA and var counted as watts). Built once per change."""
        key = ("products", self._count)
        view = self._views.get(key)
        if view is None:
            from .audit import _pdims
            from math import isfinite, log10
            groups: dict = {}
            offsets = self.datum_offsets()
            for e in self.entries:
                if e.role == "output" and e.datum is None and e.si != 0.0 and \
                        id(e) not in offsets and \
                        not e.unit.shift and isfinite(e.si):
                    groups.setdefault(_pdims(e.unit.dims), []).append((log10(abs(e.si)), e))
            view = {}
            for dims, pairs in groups.items():
                pairs.sort(key=lambda p: p[0])
                view[dims] = ([p[0] for p in pairs], [(p[1].si, p[1]) for p in pairs])
            self._views = {k: v for k, v in self._views.items() if k[-1] == self._count}
            self._views[key] = view
        return view

    # -- reports ----------------------------------------------------------------------------
    def audit_answer(self, answer: str, context: str | None = None) -> Audit:
        return audit_answer(self, answer, context if context is not None else self.context)

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
        return {"format": "quantity-guard-manifest", "version": 1, "context": self.context,
                "calls": [c.as_dict() for c in self.calls], "violations": list(self.violations)}

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


class _Converted:
    """A recorded elevation carried to another datum by a recorded offset (for the audit)."""

    __slots__ = ("index", "call", "tool", "role", "field", "q", "magnitude", "unit", "datum",
                 "si", "how", "raw", "label")

    def __init__(self, e: Entry, offset: Entry, sign: float, datum: str) -> None:
        self.index, self.call, self.tool, self.role, self.field = \
            e.index, e.call, e.tool, "output", e.field
        magnitude = e.magnitude + sign * offset.si / e.unit.scale
        self.magnitude, self.unit, self.datum = magnitude, e.unit, datum
        self.si = magnitude * e.unit.scale + e.unit.shift
        self.q = Q._make(magnitude, e.unit, datum, None, None)
        self.how = self.raw = None
        self.label = f"{e.label} {'+' if sign > 0 else '-'} {offset.label} (on {datum})"


_FROM_KEYS = frozenset({"from", "source", "src", "input"})
_TO_KEYS = frozenset({"to", "target", "dst", "output"})


def _station_datum_height(e: Entry, arguments: dict, stations: dict, reference: str):
    """(station datum, reference datum) when ``e`` is the height of a station's datum: a
    length from a tool whose name says datum (or gauge zero), called for a station whose
    datum a recorded elevation is on, in a ledger whose other elevations are all on one
    datum (the reference the height is measured from)."""
    name = f"{e.tool} {e.field or ''}".lower()
    if "datum" not in name and "zero" not in name:
        return None
    if not isinstance(arguments, dict):
        return None
    for value in arguments.values():
        if isinstance(value, str) and value in stations:
            return stations[value], reference
    return None


def _offset_datums(arguments: dict):
    """(from, to) when a call's arguments name a source and a target vertical datum."""
    if not isinstance(arguments, dict) or len(arguments) > 16:
        return None
    frm = to = None
    for key, value in arguments.items():
        if not isinstance(key, str) or not isinstance(value, str) or len(value) > 64:
            continue
        words = set(key.lower().replace("-", "_").split("_"))
        side = "from" if words & _FROM_KEYS else "to" if words & _TO_KEYS else None
        if side is None:
            continue
        from . import datums
        try:
            name = datums.get(value).name
        except GuardViolation:
            continue
        if side == "from":
            frm = name
        else:
            to = name
    return (frm, to) if frm and to else None


def _held_tolerance(accepted) -> float:
    """The precision the model wrote, in the unit the tool holds the value in."""
    tol = written_tolerance(accepted.raw)
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
