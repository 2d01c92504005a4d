"""``Q``: a magnitude (a float, or a numpy array for a series) with its unit, vertical datum,
coordinate system, record quality and source.

    Q(1250, "cfs")                    Q.parse("1250 cfs")
    Q(12.4, "ft", datum="NAVD88")     Q.parse("12.4 ft NAVD88")
    Q(10, "degC")                     Q("10 degC")

Rules the arithmetic enforces (docs/guide/values.md, "Vertical datums", says why):

- dimensions: ``+ -`` and comparisons need the same dimension (the right operand is converted
  into the left's unit); ``* /`` combine units; anything else raises ``DimensionalityError``.
- datums: a value with a datum is an *elevation* (a point on that datum). Elevation minus
  elevation on one datum is a datum-free difference; elevation plus or minus a difference stays
  on its datum; two elevations on different datums are never combined or compared
  (``DatumMismatch``); summing, scaling or negating an elevation is refused.
- temperatures with an offset (``degC``, ``degF``) are points with the same algebra: point minus
  point is a ``delta_`` difference, point plus difference is a point, the rest is refused.
- no temperature is below absolute zero (``BelowAbsoluteZero``): ``Q`` refuses a point below
  -273.15 degC or -459.67 degF, and so do point plus or minus a difference and ``.to()`` into
  ``degC``/``degF`` when the result would be one. ``K`` and ``degR`` measure differences as well
  as temperatures (``Q(1, "K") - Q(6, "K")`` is ``-5 K``), so a negative value in them is kept as
  a difference, and refused only where it would become a temperature: converted into ``degC`` or
  ``degF``, or sent to a tool parameter declared on a temperature scale (``spec``), which takes
  a temperature. Absolute zero as written (``-459.67 degF``, the float nearest it) is absolute
  zero on every scale. Conversions between scales whose zeros differ are exact, rounded once.
- quality: the result takes the weakest grade of its inputs; an unstated grade is ignored.
- CRS: a tag compared for equality (``EPSG:4326``); never reprojected.

``==`` compares physical amounts: the SI value computed exactly and rounded once, so it is
consistent with ``hash`` (``Q(1, "ft") == Q(0.3048, "m")``); use ``isclose`` for a tolerance
(a conversion by a scale factor is one float multiply, so ``q.to(u)`` may differ from ``q`` in
the last digit). Two values in different stated coordinate systems are never equal, and
ordering them raises ``CRSMismatch``, as combining them does; an unstated one matches any.
A scalar result past the float range is refused (``InvalidArguments``), never an infinity. A
series compares element-wise and is unhashable, like a numpy array.

A series is immutable too: a writeable numpy array given to ``Q`` is copied once; a read-only
one (``x.flags.writeable = False``, over memory nothing else can write) is wrapped without a copy,
so a large series costs no copy when its caller promises not to change it (numpy lets the owner of
an array turn writing back on: don't). ``Q(x, unit, copy=False)`` hands a writeable array over
instead: ``x`` must own its memory and be held by nothing but the caller's one name (no views, no
second name, checked by reference count), and Q makes it read-only in place, so a later write
through ``x`` raises numpy's "assignment destination is read-only" instead of changing the Q.
``copy=False`` never copies: what cannot be handed over (a list, another dtype, a view, an array
held twice) is refused with the reason. Every series an operation computes is read-only, and ``+``
and ``-`` of series in different units convert the right operand into a new array and finish in
it, as the bare numpy expression ``x + y * 0.3048`` does.
"""
from __future__ import annotations

import math
from fractions import Fraction
from sys import getrefcount

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # annotations only: they are never evaluated at run time
    from typing import Any

from .errors import (BelowAbsoluteZero, CRSMismatch, DatumMismatch, DimensionalityError,
                     InvalidArguments, MissingUnit, OffsetUnitError)
from .units import ONE, Unit, conversion, parse_unit, parse_with_datum
from .units.unit import affine, apply

__all__ = ["Q", "normalise_crs", "to_json"]

_new = object.__new__
_LENGTH_DIMS = None  # filled on first use (the table loads lazily)


def _length_dims():
    global _LENGTH_DIMS
    if _LENGTH_DIMS is None:
        _LENGTH_DIMS = parse_unit("m").dims
    return _LENGTH_DIMS


def _is_array(value) -> bool:
    return value.__class__.__module__ == "numpy" and hasattr(value, "shape") and value.shape != ()


def _magnitude(value, what: str = "value", copy=True):
    """A float, or a read-only float64 array for a series. NaN/inf refused for a scalar.
    ``copy=False``: a writeable array is taken over (made read-only), never copied."""
    cls = value.__class__
    if cls is float:
        if value - value != 0.0:  # NaN or infinite
            raise _not_finite(value)
        return value
    if cls is int:
        try:
            return float(value)
        except OverflowError:
            raise _too_large(value) from None
    if cls is bool or cls.__module__ == "numpy" and getattr(value, "dtype", None) is not None \
            and value.dtype.kind == "b" and getattr(value, "shape", None) == ():
        raise InvalidArguments(f"received the boolean {value}, which is not a number",
                               suggestion="a number, e.g. 1250, or a string such as '1250 cfs'",
                               received=value)
    if cls.__module__ == "numpy" and getattr(value, "shape", None) == () \
            and getattr(getattr(value, "dtype", None), "kind", "") not in ("i", "u", "f"):
        # a numpy scalar that is no real number (complex, datetime64, str_): never coerced
        raise InvalidArguments(f"the {what} must be a real number, received the numpy "
                               f"{value.dtype} {value!r}", received=repr(value))
    if cls is list or cls is tuple or cls.__module__ == "numpy":
        if cls.__module__ == "numpy" and getattr(value, "shape", None) == ():
            return _magnitude(float(value), what)
        kind = getattr(getattr(value, "dtype", None), "kind", "f")
        if kind == "O":  # a numpy array of Python objects: checked as a list is
            value, cls = value.tolist(), list
        elif kind not in ("i", "u", "f"):  # booleans, complex, dates, strings: never coerced
            raise InvalidArguments(f"a series must hold real numbers, received a numpy array of "
                                   f"{value.dtype}", received=str(value.dtype),
                                   suggestion="an array of floats or integers, converted by you "
                                              "if that is what the values mean")
        if cls is list or cls is tuple:  # what is wrong with the list is said with or without numpy
            for v in value:
                if v.__class__ is bool or not isinstance(v, (int, float)) and v is not None:
                    raise InvalidArguments(f"a series must hold numbers, received {v!r}",
                                           received=v)
        try:
            import numpy as np
        except ImportError:
            raise InvalidArguments('a series needs numpy, which is not installed: pip install '
                                   '"numpy>=1.22"',
                                   received=type(value).__name__) from None
        if cls is np.ndarray and value.dtype == np.float64 and value.ndim == 1:
            # Q never shares memory that anyone can write: a writeable array is copied (or, with
            # copy=False, taken over); a read-only one over read-only memory is wrapped as it is.
            if _read_only(value, np):
                arr = value
            elif copy is True:
                arr = value.copy()
            else:
                arr = _take(value, copy is _PROBE)
        else:
            if copy is not True:
                raise _cannot_take(value, "it is not a one-dimensional float64 numpy array, so "
                                          "Q would have to build a new one")
            if cls is not np.ndarray:
                value = [math.nan if v is None else v for v in value]
            arr = np.array(value, dtype=float)  # a new array
            if arr.ndim != 1:
                raise InvalidArguments(f"a series must be one-dimensional, received shape "
                                       f"{arr.shape}")
        # One pass, no temporary array: the sum is finite only if every element is. Otherwise
        # NaN (a missing value, allowed), infinity, or a sum past the float range: fmax and
        # fmin, which skip NaN, tell which. A long series is summed by ``einsum`` (a plain
        # vectorised loop, half a multiply on 1e6 elements, where ``np.add.reduce``'s pairwise
        # sum takes four fifths). Not BLAS ``dot``: faster on an idle machine, but its threads
        # wait for a free core, and on a busy 2-core machine one check took 5 ms, not 0.06.
        if arr.size:
            with np.errstate(over="ignore", invalid="ignore"):
                total = float(np.einsum("i->", arr) if arr.size > 4096 else np.add.reduce(arr))
            if not math.isfinite(total) and (np.fmax.reduce(arr) == math.inf
                                             or np.fmin.reduce(arr) == -math.inf):
                raise InvalidArguments("a series may hold NaN for a missing value but not "
                                       "infinity")
        if arr.flags.writeable:
            arr.flags.writeable = False
        return arr
    if isinstance(value, (Fraction, float, int)) or cls.__name__ == "Decimal" or _is_real(value):
        # Fraction, Decimal and other real numbers: the nearest float
        try:
            number = float(value)
        except OverflowError:  # a Fraction or an int past the float range
            raise _too_large(value) from None
        except (TypeError, ValueError):  # Decimal('sNaN')
            raise _not_finite(value) from None
        if number - number != 0.0 and getattr(value, "is_finite", lambda: False)():
            raise _too_large(value)  # Decimal('1e400')
        return _magnitude(number, what)
    hint = None
    if cls is Q:  # Q(Q(1, "m"), "ft"): convert or relabel? Either is a choice to write out
        hint = ".to(unit) to convert the quantity, or .replace(unit=...) to relabel its number"
    elif cls is str:
        hint = "Q(text) or Q.parse(text) for a string with its unit, and .to(unit) to convert"
    raise InvalidArguments(f"the {what} must be a number or a series of numbers, received "
                           f"{type(value).__name__} {value!r}", received=value, suggestion=hint)


def check_finite(number: float, text: str, field: "str | None" = None) -> None:
    """Refuse the number ``split_number`` read from ``text`` if it is past the float range."""
    if number - number != 0.0:
        raise InvalidArguments(f"received {text!r}, whose number is beyond the float range "
                               f"(about 1.8e308), so it cannot be held as a number", field=field,
                               received=text, suggestion="the value in a larger unit, so that "
                               "its magnitude is within the float range")


def _is_real(value) -> bool:
    import numbers
    return isinstance(value, numbers.Real)


def _too_large(value) -> InvalidArguments:
    text = repr(value) if not isinstance(value, int) else str(value)
    if len(text) > 40:
        text = f"{text[:24]}... ({len(text)} characters)"
    return InvalidArguments(f"received {text}, which is beyond the float range (about 1.8e308), "
                            f"so it cannot be held as a number", received=str(value)[:40],
                            suggestion="the value in a larger unit, so that its magnitude is "
                                       "within the float range")


def _read_only(arr, np) -> bool:
    """Nothing can write ``arr``'s memory through numpy: it and the array owning its memory are
    read-only, or the memory is a ``bytes`` object. (The owner of a read-only array may turn
    writing back on: that is the caller's deliberate act, and it is documented.)"""
    if arr.flags.writeable:
        return False
    base = arr.base
    while base is not None:
        if base.__class__ is bytes:
            return True
        if not isinstance(base, np.ndarray) or base.flags.writeable:
            return False
        base = base.base
    return True


_SOLE_HOLDER = 0  # getrefcount seen in _take when one caller's name is the array's only holder
_PROBE = object()  # Q(probe, ONE, copy=_PROBE): measure that count


def _take(arr, probing: bool):
    """``arr`` (writeable float64), taken over by a Q: made read-only in place, not copied.
    Safe only if nothing else can write its memory: it must own that memory (not a view of
    another array or buffer), and its reference count must show no holder but the caller's one
    name (every view of ``arr`` holds a reference to it, as does a second name or a container).
    The count seen for that case depends on the interpreter, so it is measured once, on a probe
    array held by one name and passed through the same ``Q(...)`` call as the caller's."""
    global _SOLE_HOLDER
    held = getrefcount(arr)
    if probing:
        _SOLE_HOLDER = held
        return arr
    if _SOLE_HOLDER == 0:
        probe = arr[:1].copy()
        Q(probe, ONE, copy=_PROBE)  # type: ignore[arg-type]  # the private probe value
    if not arr.flags.owndata:
        raise _cannot_take(arr, "it is a view of memory another object owns")
    if held > _SOLE_HOLDER:
        raise _cannot_take(arr, "something else holds it too (a view of it, a second name, a "
                                "container) and could write it after Q took it")
    arr.flags.writeable = False
    return arr


_TEMP_COUNT = 0  # getrefcount(self) in a method called on a temporary; -1: never elide


def _temporary(q, m) -> bool:
    """Nothing but this call can ever see ``q`` or its array ``m`` again, so ``q.to(...)`` may
    convert ``m`` in place instead of allocating a second array (numpy elides temporaries in
    ``a + b + c`` the same way). ``q`` is a temporary when its reference count is the one a
    method sees when called on an object nobody holds (``Q(x, "cfs").to(...)``); any holder (a
    name, a container, a bound method, an argument in a C call) adds one. ``m`` must own its
    memory, and be referenced only by ``q``'s slot and the caller's local (no ``.magnitude``
    kept, no view, no other Q sharing it). That reasoning holds where a frame owns a strong
    reference to each argument and a bytecode call moves the caller's into it: CPython 3.11 to
    3.13. On 3.10 a C caller's borrowed reference could look like a temporary, and 3.14 lets the
    stack borrow references, so there the array is always copied."""
    global _TEMP_COUNT
    if _TEMP_COUNT <= 0:
        if _TEMP_COUNT < 0:
            return False
        import sys
        if not (3, 11) <= sys.version_info < (3, 14) or sys.implementation.name != "cpython":
            _TEMP_COUNT = -1
            return False
        _TEMP_COUNT = _Probe().count()
    return (getrefcount(q) <= _TEMP_COUNT and m.flags.owndata
            and getrefcount(m) <= 4)  # q's slot, to()'s local, this parameter, getrefcount's


class _Probe:
    def count(self) -> int:  # called on a temporary, and counting one call down, as to() does
        return _count(self)


def _count(obj) -> int:
    return getrefcount(obj)


def _cannot_take(value, why: str) -> InvalidArguments:
    return InvalidArguments(f"copy=False: Q cannot take this {type(value).__name__} over "
                            f"without a copy, because {why}",
                            suggestion="Q(x, unit) (the default copies the array once), or a "
                                       "one-dimensional float64 array that only one name holds",
                            received=type(value).__name__)


def _frozen(m):
    """A newly computed magnitude, made read-only if it is an array (Q is immutable)."""
    if m.__class__ is not float and m.flags.writeable:
        m.flags.writeable = False
    return m


def _not_finite(value) -> InvalidArguments:
    return InvalidArguments(f"received {value}, which is not a finite number; a scalar quantity "
                            f"cannot be NaN or infinite (a series may hold NaN for a missing value)",
                            suggestion="a finite number, or leave the value out if it is missing",
                            received=value)


def _below_zero(m, unit: Unit):
    """The first value of ``m`` (a float or a series) below absolute zero on the temperature
    scale ``unit``, or None (also for a unit that is not a temperature scale). NaN is not
    below anything."""
    zero = unit.zero
    if zero is None:
        return None
    if m.__class__ is float:
        return m if m < zero else None
    low = m[m < zero]
    return float(low[0]) if len(low) else None


def _cold(value: float, unit: Unit, what: str, suggestion: str, received,
          why: str = "so a value this low can only be a temperature difference"
          ) -> BelowAbsoluteZero:
    return BelowAbsoluteZero(
        f"{what} {_fmt(value)} {unit.symbol}, which is below absolute zero "
        f"({_fmt(unit.zero)} {unit.symbol}): no temperature is colder, {why}",
        suggestion=suggestion, received=received, expected=f">= {_fmt(unit.zero)} {unit.symbol}")


def _point_check(q: "Q", what: str) -> "Q":
    """``q``, the result of a temperature plus or minus a difference, or BelowAbsoluteZero."""
    low = _below_zero(q.magnitude, q.unit)
    if low is not None:
        raise _cold(low, q.unit, what, "a smaller difference, one that keeps the temperature "
                    "at or above absolute zero", what, why="and a temperature plus or minus a "
                    "difference is a temperature")
    return q


def _beyond_range(q, unit: Unit) -> InvalidArguments:
    return InvalidArguments(f"{q!r} in {unit.symbol} is beyond the float range (about 1.8e308), "
                            f"so it cannot be held as a number",
                            suggestion=f"the value in a larger unit than {unit.symbol}, or a "
                                       f"smaller value", received=repr(q), expected=unit.symbol)


def normalise_crs(crs: str | None) -> str | None:
    """``epsg:4326`` / ``EPSG:4326`` / ``urn:ogc:def:crs:EPSG::4326`` -> ``EPSG:4326``."""
    if crs is None:
        return None
    if not isinstance(crs, str) or not crs.strip():
        raise InvalidArguments(f"a CRS must be a non-empty string such as 'EPSG:4326', received "
                               f"{crs!r}", received=crs)
    text = crs.strip()
    low = text.lower()
    if low.startswith("urn:ogc:def:crs:epsg:"):
        code = text.rsplit(":", 1)[-1]
        return f"EPSG:{code}"
    if low.startswith("epsg:"):
        return "EPSG:" + text[5:].strip()
    if low in ("wgs84", "wgs 84", "crs84", "ogc:crs84"):
        return "OGC:CRS84" if "crs84" in low else "EPSG:4326"
    return text


def canonical_datum(name, unit: Unit):
    if name is None:
        return None
    from . import datums
    if unit.dims != _length_dims():
        raise InvalidArguments(f"a vertical datum ({name}) applies only to a length, not to "
                               f"{unit.symbol} ({unit.dimensionality})", received=name)
    if name == "ASD":
        raise InvalidArguments(
            "mASD is metres above a station's own datum, and no station was named",
            suggestion="Q.parse('0.117 mASD', station='E21136') or Q(0.117, 'm', "
                       "datum='GAUGE:E21136')", received="mASD")
    return datums.get(name).name


def _grade(flag):
    if flag is None:
        return None
    from . import quality
    return quality.grade(flag)


class Q:
    """A physical value: magnitude, unit, and the frames it is meaningful in. Immutable."""

    __slots__ = ("magnitude", "unit", "datum", "crs", "quality", "source", "_hash")
    magnitude: Any  # a float, or a read-only numpy float array (a series)
    unit: Unit
    datum: "str | None"
    crs: "str | None"
    quality: "str | None"
    source: Any
    _hash: "int | None"

    def __init__(self, value, unit: "str | Unit | None" = None, datum: str | None = None,
                 crs: str | None = None, quality: str | None = None, source=None,
                 copy: bool = True) -> None:
        if unit is None:
            if value.__class__ is str:
                parsed = Q.parse(value)
                value, unit = parsed.magnitude, parsed.unit
                datum = datum if datum is not None else parsed.datum
            elif value.__class__ is Q:
                raise InvalidArguments("Q(Q(...)) is ambiguous: use the Q itself, or .to()/.replace()")
            else:
                raise MissingUnit(f"received the bare number {value!r} with no unit",
                                  suggestion=f"Q({value!r}, 'm3/s') or Q.parse('{value!r} cfs')",
                                  received=value)
        if unit.__class__ is Unit:
            u = unit
        else:
            if unit.__class__ is not str:
                raise InvalidArguments(f"a unit must be a string such as 'm3/s', received "
                                       f"{type(unit).__name__} {unit!r}", received=unit,
                                       suggestion='{"value": <number>, "unit": "m3/s"}')
            cached = _UNITS.get(unit)
            if cached is not None:
                u = cached
            else:
                u, written = parse_with_datum(unit)
                if written is not None:
                    written = canonical_datum(written, u)
                    if datum is not None and canonical_datum(datum, u) != written:
                        raise DatumMismatch(f"the unit {unit!r} names datum {written} but datum="
                                            f"{datum!r} was also given", received=datum,
                                            expected=written)
                    datum = written
                elif len(_UNITS) < 4096:
                    _UNITS[unit] = u
        writeable = False
        try:
            if copy is True:
                m = _magnitude(value)
            elif copy is False or copy is _PROBE:
                writeable = copy is False and getattr(getattr(value, "flags", None),
                                                      "writeable", False)
                m = _magnitude(value, copy=copy)
            else:
                raise InvalidArguments(f"copy must be True or False, received {copy!r}",
                                       received=copy)
        except OverflowError:  # an int past the float range inside a list
            raise InvalidArguments(f"a series must hold numbers within the float range (about "
                                   f"1.8e308), received {str(value)[:40]}...",
                                   received=str(value)[:40]) from None
        if u.offset is not None:  # degC, degF: a point, never below absolute zero
            low = _below_zero(m, u)
            if low is not None:
                if writeable and m is value:  # refused: the array is not taken over after all
                    m.flags.writeable = True
                raise _cold(low, u, "received", f"a temperature of at least {_fmt(u.zero)} "
                            f"{u.symbol}, or a temperature difference in {u.delta.symbol} "
                            f"(Q({_fmt(low)}, {u.delta.symbol!r}))", received=low)
        _set_magnitude(self, m)
        _set_unit(self, u)
        _set_datum(self, canonical_datum(datum, u) if datum is not None else None)
        _set_crs(self, normalise_crs(crs) if crs is not None else None)
        _set_quality(self, _grade(quality) if quality is not None else None)
        _set_source(self, source)
        _set_hash(self, None)

    @classmethod
    def _make(cls, magnitude, unit: Unit, datum, crs, quality, source=None) -> "Q":
        """Trusted constructor for values already validated (no parsing, no checks); a series
        must already be read-only (``_frozen``)."""
        q = _new(cls)
        _set_magnitude(q, magnitude)  # (the slots' own setters: a third cheaper than
        # object.__setattr__, which Q's own __setattr__ leaves as the only other way in)
        _set_unit(q, unit)
        _set_datum(q, datum)
        _set_crs(q, crs)
        _set_quality(q, quality)
        _set_source(q, source)
        _set_hash(q, None)
        return q

    def __setattr__(self, name, value):
        raise AttributeError("Q is immutable: use .to(), .to_datum() or .replace()")

    def __reduce__(self):
        return (Q, (self.magnitude, self.unit.symbol, self.datum, self.crs, self.quality,
                    self.source))

    # -- reading ---------------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str, *, station: str | None = None, quality: str | None = None,
              crs: str | None = None, source=None) -> "Q":
        """``"1250 cfs"``, ``"1,250 cfs"``, ``"1250cfs"``, ``"-3.2e2 m"``, ``"12.4 ft NAVD88"``,
        ``"6.4 mAOD"``, ``"0.117 mASD"`` (with ``station=``: the Environment Agency's
        ``GAUGE:<station>`` datum)."""
        if not isinstance(text, str):
            raise InvalidArguments(f"Q.parse takes a string, received {type(text).__name__}",
                                   received=text)
        number, rest = split_number(text)
        if number is None:
            raise InvalidArguments(f"received {text!r}, which does not start with a number",
                                   suggestion="a number and a unit, e.g. '1250 cfs'",
                                   received=text)
        check_finite(number, text)
        if not rest:
            raise MissingUnit(f"received {text!r} with no unit",
                              suggestion=f"'{text.strip()} cfs' or whichever unit it is in",
                              received=text)
        unit, datum = parse_with_datum(rest)
        if datum == "ASD" and station is not None:
            datum = f"GAUGE:{station}"
        return cls(number, unit, datum=datum, crs=crs, quality=quality, source=source)

    @classmethod
    def from_dict(cls, data: dict) -> "Q":
        """The inverse of ``as_dict``."""
        known = {"value", "unit", "datum", "crs", "quality", "source"}
        if not isinstance(data, dict):
            raise InvalidArguments(f"expected a dict, received {type(data).__name__}")
        extra = set(data) - known
        if extra:
            raise InvalidArguments(f"unknown keys {sorted(extra)} in a quantity; the keys are "
                                   f"{sorted(known)}", received=sorted(extra))
        if "value" not in data or "unit" not in data:
            raise MissingUnit(f"a quantity needs 'value' and 'unit', received keys {sorted(data)}",
                              suggestion='{"value": 1250, "unit": "cfs"}')
        return cls(data["value"], data["unit"], datum=data.get("datum"), crs=data.get("crs"),
                   quality=data.get("quality"), source=data.get("source"))

    # -- views -----------------------------------------------------------------------------
    @property
    def value(self):
        """The magnitude (alias)."""
        return self.magnitude

    @property
    def dimensionality(self) -> str:
        return self.unit.dimensionality

    @property
    def is_series(self) -> bool:
        return self.magnitude.__class__ is not float

    @property
    def is_elevation(self) -> bool:
        return self.datum is not None

    def __len__(self) -> int:
        if self.magnitude.__class__ is float:
            raise TypeError("a scalar quantity has no length")
        return len(self.magnitude)

    def __iter__(self):
        if self.magnitude.__class__ is float:
            raise TypeError("a scalar quantity is not iterable")
        for m in self.magnitude:
            yield Q._make(float(m), self.unit, self.datum, self.crs, self.quality, self.source)

    def __getitem__(self, index):
        if self.magnitude.__class__ is float:
            raise TypeError("a scalar quantity cannot be indexed")
        m = self.magnitude[index]
        m = float(m) if getattr(m, "shape", ()) == () else _frozen(m)
        return Q._make(m, self.unit, self.datum, self.crs, self.quality, self.source)

    def as_dict(self) -> dict:
        """``{"value", "unit", ...}`` with the metadata that is set; ``Q.from_dict`` reads it."""
        m = self.magnitude
        out: dict = {"value": m if m.__class__ is float else
                     [None if v != v else float(v) for v in m.tolist()], "unit": self.unit.symbol}
        if self.datum is not None:
            out["datum"] = self.datum
        if self.crs is not None:
            out["crs"] = self.crs
        if self.quality is not None:
            out["quality"] = self.quality
        if self.source is not None:
            out["source"] = self.source
        return out

    def replace(self, **changes) -> "Q":
        fields = {"value": self.magnitude, "unit": self.unit, "datum": self.datum,
                  "crs": self.crs, "quality": self.quality, "source": self.source}
        unknown = set(changes) - set(fields)
        if unknown:
            raise TypeError(f"replace() got unknown fields {sorted(unknown)}")
        fields.update(changes)
        return Q(**fields)

    def __repr__(self) -> str:
        meta = [x for x in (self.datum, self.crs, self.quality) if x is not None]
        tail = f" ({', '.join(meta)})" if meta else ""
        return f"Q({_fmt(self.magnitude)} {self.unit.symbol}{tail})"

    def __str__(self) -> str:
        tail = f" {self.datum}" if self.datum else ""
        return f"{_fmt(self.magnitude)} {self.unit.symbol}{tail}"

    def __format__(self, spec: str) -> str:
        if not spec:
            return str(self)
        m = self.magnitude
        text = format(m, spec) if m.__class__ is float else str(m)
        return f"{text} {self.unit.symbol}" + (f" {self.datum}" if self.datum else "")

    # -- conversion ------------------------------------------------------------------------
    def to(self, unit: "str | Unit") -> "Q":
        """The same value in another unit of the same dimension (datum and quality kept)."""
        u = unit if unit.__class__ is Unit else _UNITS.get(unit) or _unit(unit)  # type: ignore[arg-type]  # a str here
        if u is self.unit:
            return self
        a, b = conversion(self.unit, u)  # cached per pair of units: one dict lookup
        m = self.magnitude
        if m.__class__ is float:
            if b is None:
                m = m * a
                if a > 1.0 and m - m != 0.0:  # (a factor of at most 1 cannot overflow)
                    raise _beyond_range(self, u)
            else:
                if u.offset is not None and _below_zero(m, self.unit) is not None:
                    raise self._into_point(m, u)  # K, degR below zero: a difference
                m = affine(m, self.unit, u)  # exact, rounded once
                if m - m != 0.0:
                    raise _beyond_range(self, u)
        elif a != 1.0 or b is not None:  # an alias (cumec, m3/s) keeps the read-only array
            if u.offset is not None:
                low = _below_zero(m, self.unit)
                if low is not None:
                    raise self._into_point(low, u)
            if _temporary(self, m):  # Q(x, "cfs").to("m3/s"): convert the private copy in place
                m.flags.writeable = True
                m *= a
                if b is not None:
                    m += b
            else:
                m = apply(m, a, b)  # a new array: (m * a) += b, in place
            m.flags.writeable = False
        q = _new(Q)
        _set_magnitude(q, m)
        _set_unit(q, u)
        _set_datum(q, self.datum)
        _set_crs(q, self.crs)
        _set_quality(q, self.quality)
        _set_source(q, self.source)
        _set_hash(q, None)
        return q

    def _into_point(self, low: float, unit: Unit) -> BelowAbsoluteZero:
        """``low`` (a value of self below absolute zero) cannot become a temperature in
        ``unit``."""
        mine = self.unit
        return BelowAbsoluteZero(
            f"cannot convert {self!r} to {unit.symbol}: {_fmt(low)} {mine.symbol} is below "
            f"absolute zero ({_fmt(mine.zero or 0.0)} {mine.symbol}), and no temperature is "
            f"colder, so it can only be a temperature difference, which {unit.symbol} (a "
            f"temperature scale) cannot hold",
            suggestion=f"the difference in {unit.delta.symbol} (.to({unit.delta.symbol!r})), or "
                       f"a temperature of at least {_fmt(mine.zero or 0.0)} {mine.symbol}",
            received=repr(self), expected=f">= {_fmt(mine.zero or 0.0)} {mine.symbol}")

    def m_as(self, unit: "str | Unit"):
        """The magnitude in ``unit``."""
        return self.to(unit).magnitude

    def to_datum(self, name: str) -> "Q":
        """The same point on another vertical datum, through registered offsets only."""
        from . import datums
        if self.datum is None:
            raise DatumMismatch(
                f"{self!r} has no vertical datum, so it cannot be moved to {name}",
                suggestion=f"an elevation with its datum, e.g. Q({_fmt(self.magnitude)}, "
                           f"'{self.unit.symbol}', datum='NAVD88')", received=repr(self),
                expected=name)
        target = datums.get(name).name
        if target == self.datum:
            return self
        metres = datums.offset(self.datum, target)
        shift = float(metres / self.unit.factor)
        return Q._make(_frozen(self.magnitude + shift), self.unit, target, self.crs, self.quality,
                       self.source)

    def __float__(self) -> float:
        if self.unit.dims != ONE.dims or self.unit.offset is not None:
            raise TypeError(f"float() of {self!r} would drop its unit: use .magnitude or "
                            f".m_as(unit)")
        if self.magnitude.__class__ is not float:
            raise TypeError("float() of a series")
        a, _ = conversion(self.unit, ONE)
        return self.magnitude * a

    # -- arithmetic ------------------------------------------------------------------------
    def _coerce(self, other, op: str) -> "Q":
        if other.__class__ is Q:
            return other
        if other.__class__ in (int, float) or _is_array(other) or isinstance(other, (int, float)) \
                and other.__class__ is not bool:
            if self.unit.dims == ONE.dims and self.unit.offset is None:
                return Q._make(_magnitude(other), ONE, None, None, None)
            raise DimensionalityError(
                f"cannot {op} a bare number and {self!r}: the number has no unit",
                suggestion=f"a quantity, e.g. Q({other!r}, '{self.unit.symbol}')",
                received=other, expected=self.unit.symbol)
        raise TypeError(f"unsupported operand for {op}: Q and {type(other).__name__}")

    def _right_in_my_unit(self, other: "Q", op: str):
        if other.unit is self.unit or other.unit == self.unit:
            return other.magnitude
        if other.unit.dims != self.unit.dims:
            raise DimensionalityError(
                f"cannot {op} {self!r} ({self.unit.dimensionality}) and {other!r} "
                f"({other.unit.dimensionality})", received=repr(other), expected=self.unit.symbol)
        target = self.unit if self.unit.offset is None or other.unit.offset is not None \
            else self.unit.delta
        a, b = conversion(other.unit, target)
        m = other.magnitude
        if m.__class__ is float:
            return m * a if b is None else affine(m, other.unit, target)
        return apply(m, a, b)

    def _meta(self, other: "Q"):
        q1, q2 = self.quality, other.quality
        if q1 is None or q1 == q2:
            quality = q2
        elif q2 is None:
            quality = q1
        else:
            from .quality import weakest
            quality = weakest(q1, q2)
        c1, c2 = self.crs, other.crs
        if c1 is not None and c2 is not None and c1 != c2:
            raise CRSMismatch(f"cannot combine a value in {c1} with one in {c2}: coordinate "
                              f"systems are compared, never reprojected",
                              suggestion=f"both values in {c1}", received=c2, expected=c1)
        return quality, c1 if c1 is not None else c2

    def __add__(self, other) -> "Q":
        other = self._coerce(other, "add")
        d1, d2 = self.datum, other.datum
        o1, o2 = self.unit.offset is not None, other.unit.offset is not None
        if d1 is not None and d2 is not None:
            raise DatumMismatch(
                f"cannot add two elevations ({self!r} + {other!r}): a sum of heights above "
                f"{'a datum' if d1 == d2 else 'two datums'} has no meaning",
                suggestion="subtract them for a difference, or add a length without a datum",
                received=repr(other))
        if o1 and o2:
            raise OffsetUnitError(
                f"cannot add two temperatures ({self!r} + {other!r})",
                suggestion=f"a difference in {self.unit.delta.symbol}", received=repr(other))
        if o2 or d2 is not None:  # difference + point: the point's frame wins
            return other.__add__(self)
        m = self._right_in_my_unit(other, "add")
        quality, crs = self._meta(other)
        a = self.magnitude
        if a.__class__ is float and m.__class__ is float:
            r = a + m
            if r - r != 0.0:
                raise _overflow(self, other, "+")
            q = Q._make(r, self.unit, d1, crs, quality)
        else:
            q = Q._make(_series_op(_ADD, a, m, m is not other.magnitude), self.unit, d1, crs,
                        quality)
        return _point_check(q, f"{self!r} + {other!r} is") if o1 else q

    def __radd__(self, other) -> "Q":
        if other.__class__ is int and other == 0:  # the start of sum(): 0 + q is q
            return self
        return self.__add__(other)

    def __round__(self, ndigits: "int | None" = None) -> "Q":
        """A new Q with the magnitude rounded (``round(q, 2)``), in the same unit and frames;
        ``round(q)`` rounds to a whole number of the unit (still a Q, never a bare int)."""
        if ndigits is not None and (ndigits.__class__ is bool or not isinstance(ndigits, int)):
            raise TypeError(f"round() takes a whole number of digits, not {ndigits!r}")
        m = self.magnitude
        if m.__class__ is float:
            r = float(round(m, ndigits)) if ndigits is not None else float(round(m))
        else:
            import numpy as np
            r = _frozen(np.round(m, ndigits or 0))
        q = Q._make(r, self.unit, self.datum, self.crs, self.quality, self.source)
        return _point_check(q, f"round({self!r}, {ndigits}) is") if self.unit.offset is not None \
            else q

    def __sub__(self, other) -> "Q":
        other = self._coerce(other, "subtract")
        d1, d2 = self.datum, other.datum
        if d1 != d2:
            if d1 is not None and d2 is not None:
                raise DatumMismatch(
                    f"cannot subtract {other!r} from {self!r}: they are on different vertical "
                    f"datums ({d1} and {d2})",
                    suggestion=f"convert the second value first with .to_datum({d1!r}) (this "
                               f"needs an offset registered between {d2} and {d1}, for a gauge "
                               f"with register_station), then subtract",
                    received=d2, expected=d1)
            if d1 is None:
                raise DatumMismatch(
                    f"cannot subtract an elevation ({other!r}) from a length without a datum "
                    f"({self!r})", suggestion="subtract the length from the elevation instead",
                    received=repr(other))
        o1, o2 = self.unit.offset is not None, other.unit.offset is not None
        if o2 and not o1:
            raise OffsetUnitError(f"cannot subtract a temperature ({other!r}) from "
                                  f"{self!r}", received=repr(other))
        quality, crs = self._meta(other)
        m = self._right_in_my_unit(other, "subtract")
        a = self.magnitude
        if a.__class__ is float and m.__class__ is float:
            diff = a - m
            if diff - diff != 0.0:
                raise _overflow(self, other, "-")
        else:
            diff = _series_op(_SUBTRACT, a, m, m is not other.magnitude)
        if o1 and o2:  # point - point -> interval
            return Q._make(diff, self.unit.delta, None, crs, quality)
        datum = None if (d1 is not None and d2 is not None) else d1
        q = Q._make(diff, self.unit, datum, crs, quality)
        return _point_check(q, f"{self!r} - {other!r} is") if o1 else q

    def __rsub__(self, other) -> "Q":
        return self._coerce(other, "subtract").__sub__(self)

    def _scale_check(self, op: str) -> None:
        if self.datum is not None:
            raise DatumMismatch(
                f"cannot {op} an elevation ({self!r}): a height above a datum is a position, "
                f"not an amount", suggestion="difference it against another elevation on the "
                "same datum first, then scale the difference", received=repr(self))
        if self.unit.offset is not None:
            raise OffsetUnitError(
                f"cannot {op} a temperature on an offset scale ({self!r})",
                suggestion=f"convert to K, or use a difference in {self.unit.delta.symbol}",
                received=repr(self))

    def __mul__(self, other) -> "Q":
        if other.__class__ is not Q:
            if isinstance(other, Unit):
                return NotImplemented
            self._scale_check("scale")
            m = _magnitude(other) if other.__class__ is not float else other
            if other.__class__ is float and other - other != 0.0:
                raise _not_finite(other)
            r = self.magnitude * m
            if r.__class__ is not float or r - r != 0.0:
                r = _result(r, self, other, "*")
            return Q._make(r, self.unit, None, self.crs, self.quality)
        self._scale_check("multiply")
        other._scale_check("multiply")
        quality, crs = self._meta(other)
        r = self.magnitude * other.magnitude
        if r.__class__ is not float or r - r != 0.0:
            r = _result(r, self, other, "*")
        return Q._make(r, _mul(self.unit, other.unit), None, crs, quality)

    __rmul__ = __mul__

    def __truediv__(self, other) -> "Q":
        if other.__class__ is not Q:
            self._scale_check("divide")
            m = _magnitude(other)
            r = self.magnitude / m
            if r.__class__ is not float or r - r != 0.0:
                r = _result(r, self, other, "/")
            return Q._make(r, self.unit, None, self.crs, self.quality)
        self._scale_check("divide")
        other._scale_check("divide by")
        quality, crs = self._meta(other)
        r = self.magnitude / other.magnitude
        if r.__class__ is not float or r - r != 0.0:
            r = _result(r, self, other, "/")
        return Q._make(r, _div(self.unit, other.unit), None, crs, quality)

    def __rtruediv__(self, other) -> "Q":
        self._scale_check("divide by")
        m = _magnitude(other)
        r = m / self.magnitude
        return Q._make(_result(r, other, self, "/"), _div(ONE, self.unit), None,
                       self.crs, self.quality)

    def __pow__(self, n) -> "Q":
        if n.__class__ is not int:
            if self.unit.dims == ONE.dims and self.unit.offset is None \
                    and isinstance(n, (int, float)) and n.__class__ is not bool:
                if self.is_series:
                    return Q._make(_frozen(apply(self.magnitude, conversion(self.unit, ONE)[0],
                                                 None) ** n), ONE, None, self.crs, self.quality)
                try:
                    r = float(self) ** n
                except OverflowError:
                    raise _overflow(self, n, "**") from None
                if r.__class__ is not float:  # a negative number to a fractional power
                    raise InvalidArguments(f"{self!r} ** {n!r} is not a real number",
                                           received=f"{self!r} ** {n!r}")
                return Q._make(_result(r, self, n, "**"), ONE, None, self.crs, self.quality)
            raise DimensionalityError(f"a quantity with a unit ({self.unit.symbol}) can only be "
                                      f"raised to a whole number, received {n!r}", received=n)
        self._scale_check("raise to a power")
        try:
            r = self.magnitude ** n
        except OverflowError:
            raise _overflow(self, n, "**") from None
        return Q._make(r if r.__class__ is float else _frozen(r), self.unit ** n, None, self.crs,
                       self.quality)

    def __neg__(self) -> "Q":
        self._scale_check("negate")
        return Q._make(_frozen(-self.magnitude), self.unit, None, self.crs, self.quality,
                       self.source)

    def __pos__(self) -> "Q":
        return self

    def __abs__(self) -> "Q":
        self._scale_check("take the absolute value of")
        return Q._make(_frozen(abs(self.magnitude)), self.unit, None, self.crs, self.quality,
                       self.source)

    # -- comparison ------------------------------------------------------------------------
    def _comparable(self, other, op: str):
        if other.__class__ is not Q:
            other = self._coerce(other, "compare")
        if self.datum != other.datum:
            raise DatumMismatch(
                f"cannot compare {self!r} with {other!r}: "
                + (f"they are on different vertical datums ({self.datum} and {other.datum})"
                   if self.datum and other.datum else "only one of them is an elevation"),
                suggestion="convert one with .to_datum() after registering the offset",
                received=other.datum, expected=self.datum)
        c1, c2 = self.crs, other.crs
        if c1 is not None and c2 is not None and c1 != c2:
            raise CRSMismatch(f"cannot compare {self!r} with {other!r}: coordinate systems are "
                              f"compared, never reprojected", suggestion=f"both values in {c1}",
                              received=c2, expected=c1)
        if (self.unit.offset is None) != (other.unit.offset is None) and \
                self.unit.dims == other.unit.dims and (self.unit.interval or other.unit.interval):
            raise OffsetUnitError(f"cannot compare a temperature with a temperature difference "
                                  f"({self!r}, {other!r})")
        return self._right_in_my_unit(other, "compare")

    def __lt__(self, other):
        return self.magnitude < self._comparable(other, "<")

    def __le__(self, other):
        return self.magnitude <= self._comparable(other, "<=")

    def __gt__(self, other):
        return self.magnitude > self._comparable(other, ">")

    def __ge__(self, other):
        return self.magnitude >= self._comparable(other, ">=")

    def _exact_key(self):
        """What == compares and hash hashes: the SI amount computed exactly and rounded once to
        a float (so 1 ft == 0.3048 m and 1 km == 1000 m), the dimension, datum and kind."""
        u, m = self.unit, self.magnitude
        if u.offset is not None and m == u.zero:  # absolute zero as written (see units.affine)
            return (0.0, u.dims, self.datum, u.interval)
        return (float(Fraction(m) * u.factor + (u.offset or 0)), u.dims, self.datum,
                u.interval)

    def __eq__(self, other):
        if other.__class__ is not Q:
            return NotImplemented
        c1, c2 = self.crs, other.crs
        if c1 is not None and c2 is not None and c1 != c2:
            return False  # two coordinate systems: never the same value (hash ignores crs)
        if self.is_series or other.is_series:
            if self.unit.dims != other.unit.dims or self.datum != other.datum:
                return False
            return self.magnitude == self._right_in_my_unit(other, "compare")
        if self.unit is other.unit or self.unit == other.unit:
            return (self.magnitude == other.magnitude and self.datum == other.datum)
        return self._exact_key() == other._exact_key()

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else ~eq if self.is_series or other.is_series else not eq

    def __hash__(self):
        if self.is_series:
            raise TypeError("a series quantity is unhashable")
        h = self._hash
        if h is None:
            h = hash(self._exact_key())
            _set_hash(self, h)
        return h

    def isclose(self, other: "Q", rel: float = 1e-9, abs_: float = 0.0) -> bool:
        """Equal within a relative (and absolute, in this unit) tolerance, after conversion."""
        m = self._comparable(other, "isclose")
        if self.is_series or (m.__class__ is not float):
            import numpy as np
            return bool(np.allclose(self.magnitude, m, rtol=rel, atol=abs_, equal_nan=True))
        return math.isclose(self.magnitude, m, rel_tol=rel, abs_tol=abs_)

    def __bool__(self) -> bool:
        if self.is_series:
            raise ValueError("the truth value of a series quantity is ambiguous")
        return self.magnitude != 0.0


_set_magnitude, _set_unit, _set_datum, _set_crs, _set_quality, _set_source, _set_hash = (
    Q.__dict__[slot].__set__ for slot in Q.__slots__)  # Q._make's setters, in slot order

_ADD, _SUBTRACT = "add", "subtract"


def to_json(obj):
    """The ``default`` for ``json.dumps``: a ``Q`` as its ``as_dict()`` (value, unit and the
    datum, crs, quality and source that are set), which ``Q.from_dict`` reads back::

        json.dumps({"flow": q}, default=quantity_guard.to_json)

    Anything else is refused as ``json.dumps`` refuses it (``TypeError``)."""
    if obj.__class__ is Q:
        return obj.as_dict()
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable "
                    f"(quantity_guard.to_json writes Q values only)")


def _result(r, a, b, op: str):
    """A computed magnitude: a finite float, or a series made read-only."""
    if r.__class__ is float:
        if r - r != 0.0:
            raise _overflow(a, b, op)
        return r
    return _frozen(r)


def _overflow(a, b, op: str) -> InvalidArguments:
    return InvalidArguments(f"{a!r} {op} {b!r} is beyond the float range (about 1.8e308), so "
                            f"it cannot be held as a number",
                            suggestion="the operands in larger units, so that the result is "
                                       "within the float range", received=f"{a!r} {op} {b!r}")


def _series_op(name: str, a, b, b_is_new: bool):
    """``a + b`` or ``a - b`` where one is a series. A right operand the conversion has just
    allocated (``b_is_new``, the same shape as the result) receives the result in place, so the
    sum of two series in different units allocates one array, as the bare numpy expression
    ``x + y * 0.3048`` does."""
    import numpy as np
    ufunc = np.add if name is _ADD else np.subtract
    if b_is_new and b.__class__ is not float and b.flags.writeable and \
            (a.__class__ is float or a.shape == b.shape):
        out = ufunc(a, b, out=b)
    else:
        out = ufunc(a, b)
    out.flags.writeable = False
    return out


_UNITS: dict[str, Unit] = {}


def _unit(text) -> Unit:
    try:
        u = parse_unit(text)
    except Exception:
        unit, datum = parse_with_datum(text)
        if datum is not None:
            raise InvalidArguments(f"{text!r} names a datum ({datum}); use .to({unit.symbol!r}) "
                                   f"for the unit and .to_datum({datum!r}) for the datum") from None
        raise
    if len(_UNITS) < 4096:
        _UNITS[text] = u
    return u


_MUL: dict = {}


def _mul(a: Unit, b: Unit) -> Unit:
    key = (a, b, 1)
    u = _MUL.get(key)
    if u is None:
        u = a * b
        if len(_MUL) < 8192:
            _MUL[key] = u
    return u


def _div(a: Unit, b: Unit) -> Unit:
    key = (a, b, -1)
    u = _MUL.get(key)
    if u is None:
        u = a / b
        if len(_MUL) < 8192:
            _MUL[key] = u
    return u


def _fmt(m) -> str:
    if m.__class__ is float:
        text = repr(m)
        return text[:-2] if text.endswith(".0") else text
    return "[" + ", ".join(_fmt(float(v)) for v in m[:6]) + (", ...]" if len(m) > 6 else "]")


_NUMBER = None


def split_number(text: str) -> "tuple[float | None, str]":
    """Read a leading number (sign, digits with optional thousands commas, decimals, exponent)
    and return it with the rest of the text: ``"1,250 cfs"`` -> ``(1250.0, "cfs")``. Digits may
    be grouped in threes by commas or, as the SI writes them, by a thin, narrow no-break or
    no-break space (``"1\u2009250 cfs"``); the minus may be U+2212. A number past the float range
    (``"1e400"``) reads as an infinity, which ``Q`` refuses (``check_finite`` says why)."""
    global _NUMBER
    if _NUMBER is None:
        import re
        _NUMBER = re.compile(r"\s*(?P<sign>[-+\u2212])?(?P<num>(?:\d{1,3}(?:,\d{3})+"
                             r"|\d{1,3}(?:\u2009\d{3})+|\d{1,3}(?:\u202f\d{3})+"
                             r"|\d{1,3}(?:\u00a0\d{3})+|\d+)(?:\.\d*)?"
                             r"|\.\d+)(?P<exp>[eE][-+]?\d+)?")
    m = _NUMBER.match(text)
    if m is None:
        return None, text.strip()
    digits = m.group("num")
    for sep in (",", "\u2009", "\u202f", "\u00a0"):
        if sep in digits:
            digits = digits.replace(sep, "")
    value = float(digits + (m.group("exp") or ""))
    if m.group("sign") in ("-", "\u2212"):
        value = -value
    return value, text[m.end():].strip()
