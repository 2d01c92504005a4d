"""Datum conversions a session's record supports: how a recorded elevation legitimately reaches
another vertical datum.

A recorded elevation on one datum and the same point on another are one measurement, like a
value in two units. The answer audit reads such a converted value as sourced, and a tool input
that is one is supported (a valid source), whether the model converted by hand or a tool did.
The difference of two elevations on different datums is no conversion and stays refused: only
the rules below carry an elevation across datums, each a named row of ``RULES`` with a cheap
gate, applied in order.

| code | an elevation ``e`` on datum A reaches datum B by |
|---|---|
| ``named_offset`` | ``e + d``: a datum-free length ``d`` from a call whose arguments name A as source and B as target (``from_datum``/``to_datum``); and ``e - d`` the other way |
| ``station_height`` | ``e + h``: ``h`` the datum-free height of the station datum A above B (a tool named for a datum or zero, called for that station; B the one other datum recorded) |
| ``registered`` | the datums registry (``register_offset``, ``register_station``): ``e.to_datum(B)`` |
| ``gauge_zero`` | ``e + z``: A a station datum, ``z`` a recorded elevation on B read by a call that received no elevation (the gauge zero's elevation), when the registry does not already relate A to B |
| ``unnamed_offset`` | ``e + d``: ``d`` the one datum-free length (read once or more) read by a call that received no elevation, in a record whose elevations are on exactly the two datums A and B, which no earlier rule and no registered offset relates. The offset is added to reach the datum the tools' inputs are declared on (and subtracted to leave it); with no such frame, added either way |

Each rule returns ``Conversion`` rows; ``offsets`` are the outputs that serve as datum offsets
(they combine with nothing else in a derivation), ``zeros`` the datum-free heights of station
datums (a height written "6.30 m AOD" is that zero on its datum).
"""
from __future__ import annotations

from . import datums
from .errors import GuardViolation
from .quantity import Q

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

WINDOW = 256  # the most recent elevations and offsets a rule considers (bounded work per change)


class Conversion:
    """A recorded elevation carried to another datum: read like a recorded output."""

    __slots__ = ("index", "call", "tool", "role", "field", "q", "magnitude", "unit", "datum",
                 "si", "how", "raw", "label", "code", "parts")

    def __init__(self, e: Any, shift_si: float, datum: str, code: str, via: str,
                 call: int | None = None, by: Any = None) -> None:
        self.index, self.tool, self.role, self.field = e.index, e.tool, "output", e.field
        self.call = e.call if call is None else max(call, e.call)
        magnitude = e.magnitude + shift_si / e.unit.scale
        self.magnitude, self.unit, self.datum = magnitude, e.unit, datum
        self.si = magnitude * e.unit.scale + e.unit.shift
        self.q = Q._make(magnitude, e.unit, datum, None, None)
        self.how = self.raw = None
        self.code = code
        self.parts = frozenset((id(e), id(by)) if by is not None else (id(e),))
        self.label = f"{e.label} {via} (on {datum})"

    def __repr__(self) -> str:
        return f"Conversion({self.label} = {self.magnitude:g} {self.unit.symbol}, {self.code})"


class Found:
    """What the rules found: conversions, ids of offset outputs, station zero heights."""

    __slots__ = ("conversions", "offsets", "zeros")

    def __init__(self) -> None:
        self.conversions: list[Conversion] = []
        self.offsets: set[int] = set()
        self.zeros: dict[int, str] = {}


class Record:
    """The part of a session's record the rules read, computed once per change."""

    __slots__ = ("outputs", "elevations", "lengths", "received_elevation", "arguments", "datums",
                 "input_datums")

    def __init__(self, outputs: list, inputs: dict, arguments: Callable[[int], Any]) -> None:
        self.outputs = outputs
        self.elevations = [e for e in outputs if e.datum is not None][-WINDOW:]
        dims = self.elevations[0].unit.dims if self.elevations else None
        self.lengths = [e for e in outputs if e.datum is None and e.unit.dims == dims
                        and e.magnitude.__class__ is float][-WINDOW:]
        self.received_elevation = frozenset(
            call for call, entries in inputs.items() if any(i.datum is not None for i in entries))
        self.arguments = arguments
        self.datums = list(dict.fromkeys(e.datum for e in self.elevations))
        self.input_datums = frozenset(i.datum for entries in inputs.values() for i in entries
                                      if i.datum is not None)

    def read_by_reader(self, e: Any) -> bool:
        """Whether ``e`` came from a call that received no elevation (a reading, not a result
        computed from elevations)."""
        return e.call not in self.received_elevation


def _station_kind(name: str) -> bool:
    try:
        return datums.get(name).is_local
    except GuardViolation:
        return ":" in name


def _registry_relates(a: str, b: str) -> bool:
    try:
        datums.offset(a, b)
        return True
    except GuardViolation:
        return False


_FROM_KEYS = frozenset({"from", "source", "src", "input"})
_TO_KEYS = frozenset({"to", "target", "dst", "output"})


def _station_datum_height(e: Any, arguments: Any, stations: dict, reference: str):
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
        # station ids are case-blind (a model writes "e21136" for the station E21136)
        if isinstance(value, str) and (value in stations or value.upper() in stations):
            return stations.get(value) or stations[value.upper()], reference
    return None


def _offset_datums(arguments: Any):
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
        try:
            name = datums.get(value).name
        except GuardViolation:
            continue
        if side == "from":
            frm = name
        else:
            to = name
    return (frm, to) if frm and to else None



def _named_offset(rec: Record, found: Found) -> None:
    for d in rec.lengths:
        pair = _offset_datums(rec.arguments(d.call))
        if pair is None:
            continue
        frm, to = pair
        found.offsets.add(id(d))
        for e in rec.elevations:
            if frm != to and e.datum == frm:
                found.conversions.append(Conversion(e, d.si, to, "named_offset",
                                                    f"+ {d.label}", d.call, d))
            elif frm != to and e.datum == to:
                found.conversions.append(Conversion(e, -d.si, frm, "named_offset",
                                                    f"- {d.label}", d.call, d))


def _station_height(rec: Record, found: Found) -> None:
    stations = {n.split(":", 1)[1].upper(): n for n in rec.datums if ":" in n}
    others = [n for n in rec.datums if ":" not in n]
    if not stations or len(others) != 1:
        return
    for h in rec.lengths:
        if id(h) in found.offsets:
            continue
        pair = _station_datum_height(h, rec.arguments(h.call), stations, others[0])
        if pair is None:
            continue
        station, reference = pair
        found.offsets.add(id(h))
        found.zeros[id(h)] = reference
        for e in rec.elevations:
            if e.datum == station:
                found.conversions.append(Conversion(e, h.si, reference, "station_height",
                                                    f"+ {h.label}", h.call, h))
            elif e.datum == reference:
                found.conversions.append(Conversion(e, -h.si, station, "station_height",
                                                    f"- {h.label}", h.call, h))


def _registered(rec: Record, found: Found) -> None:
    if len(rec.datums) < 2:
        return
    for e in rec.elevations:
        if e.magnitude.__class__ is not float:
            continue
        for target in rec.datums:
            if target == e.datum:
                continue
            try:
                moved = e.q.to_datum(target)
            except GuardViolation:
                continue
            shift = (moved.magnitude - e.magnitude) * e.unit.scale
            found.conversions.append(Conversion(e, shift, target, "registered",
                                                "by the registered datum offset"))


def _gauge_zero(rec: Record, found: Found) -> None:
    stations = [n for n in rec.datums if _station_kind(n)]
    if not stations:
        return
    for z in rec.elevations:
        if z.datum in stations or not rec.read_by_reader(z) or z.magnitude.__class__ is not float:
            continue
        for e in rec.elevations:
            if e.datum in stations and e is not z and not _registry_relates(e.datum, z.datum) \
                    and e.magnitude.__class__ is float:
                found.conversions.append(Conversion(e, z.si, z.datum, "gauge_zero",
                                                    f"+ {z.label} (the gauge zero)", z.call, z))


def _unnamed_offset(rec: Record, found: Found) -> None:
    if len(rec.datums) != 2 or found.offsets or _registry_relates(*rec.datums):
        return
    candidates = [d for d in rec.lengths if rec.read_by_reader(d)]
    if not candidates or len({d.si for d in candidates}) != 1:
        return  # (the same offset read again is one offset; of two, which one would be a guess)
    d = candidates[0]
    found.offsets.update(id(c) for c in candidates)
    frames = [n for n in rec.datums if n in rec.input_datums]
    for e in rec.elevations:
        if e.magnitude.__class__ is not float:
            continue
        other = rec.datums[1] if e.datum == rec.datums[0] else rec.datums[0]
        if len(frames) == 1 and e.datum == frames[0]:  # out of the tools' frame: the inverse
            found.conversions.append(Conversion(e, -d.si, other, "unnamed_offset",
                                                f"- {d.label}", d.call, d))
        else:
            found.conversions.append(Conversion(e, d.si, other, "unnamed_offset",
                                                f"+ {d.label}", d.call, d))


def combinable(a: Any, b: Any) -> bool:
    """Whether two operands of a derivation are distinct measurements: a conversion does not
    combine with the elevation it converts or the offset it applied (``13.9 ft NAVD88 - 1.5 ft``
    is the reading it came from, not a derivation)."""
    pa, pb = getattr(a, "parts", None), getattr(b, "parts", None)
    if pa is None and pb is None:
        return True
    return not ((pa and (id(b) in pa or (pb and pa & pb))) or (pb and id(a) in pb))


RULES: tuple[tuple[str, Callable[[Record, Found], None]], ...] = (
    ("named_offset", _named_offset),
    ("station_height", _station_height),
    ("registered", _registered),
    ("gauge_zero", _gauge_zero),
    ("unnamed_offset", _unnamed_offset),
)


def find(outputs: list, inputs: dict, arguments: Callable[[int], Any]) -> Found:
    """Every conversion the record supports: ``outputs`` the recorded outputs in order,
    ``inputs`` {call: input entries}, ``arguments(call)`` a call's arguments as sent."""
    found = Found()
    rec = Record(outputs, inputs, arguments)
    if rec.elevations:
        for _, rule in RULES:
            rule(rec, found)
    return found
