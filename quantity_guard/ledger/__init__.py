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

from .checks import held_tolerance
from .core import (
                   MAX_VALUES,
                   CallRecord,
                   Ledger,
                   Session,
                   bind,
                   current,
                   for_call,
                   is_bound,
                   note_unrecorded,
                   session,
)
from .index import SortedRun, magnitude_bucket
from .record import Entry

__all__ = ["session", "current", "bind", "is_bound", "Ledger", "Session", "Entry", "CallRecord"]
# public beyond __all__: for_call and note_unrecorded (quantity_guard.tool), SortedRun,
# magnitude_bucket and held_tolerance (the index's tests), MAX_VALUES (the default bound)
_PUBLIC = (for_call, note_unrecorded, SortedRun, magnitude_bucket, held_tolerance, MAX_VALUES)
