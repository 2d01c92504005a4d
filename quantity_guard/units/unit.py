"""``Unit``: an exact factor to SI (a ``Fraction``), an optional offset, a dimension vector.

Two units are equal when they mean the same thing: ``(factor, offset, dims, interval)``.
``cumec == Unit("m3/s")`` although they are spelled differently; the spelling (``terms``) is
only for display. Units are immutable and hashable.

Temperature scales with an offset (``degC``, ``degF``) are *points*. Their differences are
*intervals* (``delta_degC``, ``delta_degF``). Offset units never enter compound units: ``degC/s``
has no meaning, ``delta_degC/s`` has.

Conversion factors are computed once per unit pair in exact arithmetic, floated once and cached:
a conversion is then one float multiply (within one unit in the last place of the exact value).
Between temperature scales whose zeros differ (degC, degF, K) a float multiply-add would round
twice (``32 degF`` would be ``273.15000000000003 K``), so a scalar there is converted exactly,
in integers, and rounded once (``affine``); ``Unit.zero`` is each scale's absolute zero.
"""
from __future__ import annotations

from fractions import Fraction
from math import gcd as _gcd

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # annotations only: they are never evaluated at run time
    from typing import Any, Callable, Optional

    from .format import Describe

from ..errors import DimensionalityError, OffsetUnitError
from . import dimension as _dim
from .dimension import DIMENSIONLESS, MAX_EXPONENT, format_dims
from .format import canonical, long_name, pretty

_set = object.__setattr__
_UNSET = object()
_TEMPERATURE = _dim.AXES.index("temperature")
_TEMPERATURE_DIMS = _dim.base("temperature")
Terms = tuple  # tuple[tuple[str, int], ...]: spelled symbols and their powers, for display


# What a Unit reads from the modules above it. They install it when they are imported (the
# package's ``__init__`` imports them all), so this module imports none of them and the
# kernel's imports form a chain: dimension <- format <- unit <- table <- parser <- ucum <- cf.
class _Above:
    lookup: "Callable[[str], Optional[Unit]]" = staticmethod(lambda name: None)  # table.lookup
    describe: Describe = staticmethod(lambda symbol: None)                      # table.describe
    code_of: "Callable[[Unit], Optional[str]]" = staticmethod(lambda unit: None)  # ucum.code_of


def install(*, lookup: "Callable[[str], Optional[Unit]] | None" = None,
            describe: "Describe | None" = None,
            code_of: "Callable[[Unit], Optional[str]] | None" = None) -> None:
    """Called once by ``table`` (lookup, describe) and ``ucum`` (code_of) when imported."""
    if lookup is not None:
        _Above.lookup = staticmethod(lookup)
    if describe is not None:
        _Above.describe = staticmethod(describe)
    if code_of is not None:
        _Above.code_of = staticmethod(code_of)


class Unit:
    """An immutable physical unit. Build units with ``parse_unit``; combine with ``* / **``."""

    __slots__ = ("factor", "offset", "dims", "terms", "interval", "scale", "shift", "_key",
                 "_hash", "_text", "_ucum", "_zero")
    factor: Fraction
    offset: "Fraction | None"
    dims: "tuple[int, ...]"
    terms: Terms
    interval: bool
    scale: float
    shift: float
    _key: "tuple[Fraction, Fraction | None, tuple[int, ...], bool]"
    _hash: "int | None"
    _text: "str | None"
    _ucum: Any
    _zero: Any

    def __init__(self, factor: Fraction, dims: tuple[int, ...], terms: Terms = (),
                 offset: Fraction | None = None, interval: bool = False) -> None:
        offset = offset or None
        if interval and not dims[_TEMPERATURE]:
            interval = False  # a difference of temperatures divided out (delta_degC*m/delta_degC)
        key = (factor, offset, dims, interval)
        _set(self, "factor", factor)
        _set(self, "offset", offset)
        _set(self, "dims", dims)
        _set(self, "terms", terms)
        _set(self, "interval", interval)
        _set(self, "scale", float(factor))              # the factor and offset as floats, for
        _set(self, "shift", float(offset) if offset else 0.0)  # fast approximate SI values
        _set(self, "_key", key)
        _set(self, "_hash", None)
        _set(self, "_text", None)
        _set(self, "_ucum", _UNSET)
        _set(self, "_zero", _UNSET)

    # -- identity -------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Unit:
            return NotImplemented
        return self is other or self._key == other._key

    def __hash__(self) -> int:
        h = self._hash
        if h is None:  # hashing Fractions is not free: do it once, when first needed
            h = hash(self._key)
            _set(self, "_hash", h)
        return h

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Unit is immutable")

    def __reduce__(self) -> "tuple[type[Unit], tuple[Any, ...]]":
        # by its fields: a unit reads back equal without the table (a defined unit included)
        return (Unit, (self.factor, self.dims, self.terms, self.offset, self.interval))

    # -- renderings -----------------------------------------------------------------------
    @property
    def symbol(self) -> str:
        """Canonical ASCII spelling, read back by the parser: ``m3/s``, ``ft3/s``, ``mm/d``."""
        text = self._text
        if text is None:
            text = canonical(self.terms)
            _set(self, "_text", text)
        return text

    def __str__(self) -> str:
        return self.symbol

    def __repr__(self) -> str:
        return f"Unit({self.symbol!r})"

    def __format__(self, spec: str) -> str:
        if spec in ("", "s", "canonical"):
            return self.symbol
        if spec in ("P", "pretty"):
            return pretty(self.terms, _Above.describe)
        if spec in ("L", "long"):
            return long_name(self.terms, _Above.describe)
        raise ValueError(f"unknown unit format {spec!r}: use '', 'P' (pretty) or 'L' (long)")

    @property
    def ucum(self) -> "str | None":
        """The UCUM code (case-sensitive) of this unit: ``m3/s``, ``[ft_i]3/s``, ``Cel``,
        ``[gal_us]/min``; None where UCUM has no exact code (``kcfs``, ``MGD``, ``delta_degC``,
        ``NTU``). ``parse_unit(u.ucum, vocabulary="ucum") == u`` whenever it is not None."""
        code = self._ucum
        if code is _UNSET:
            code = _Above.code_of(self)
            _set(self, "_ucum", code)
        return code

    @property
    def pretty(self) -> str:
        return format(self, "P")

    @property
    def long_name(self) -> str:
        return format(self, "L")

    @property
    def dimensionality(self) -> str:
        """``"[length]^3 [time]^-1"``."""
        return format_dims(self.dims)

    @property
    def dimensionless(self) -> bool:
        return self.dims == DIMENSIONLESS and self.offset is None

    @property
    def is_offset(self) -> bool:
        """True for a temperature-point scale with an offset (degC, degF)."""
        return self.offset is not None

    @property
    def zero(self) -> "float | None":
        """Absolute zero on this temperature scale, as the float nearest it (``-273.15`` for
        degC, ``-459.67`` for degF, ``0.0`` for K and degR), or None for a unit that is not a
        scale of temperature (a difference such as ``delta_degC``, ``K/s``, a length)."""
        z = self._zero
        if z is _UNSET:
            z = None
            if not self.interval and self.dims == _TEMPERATURE_DIMS:
                z = float(-(self.offset or 0) / self.factor)
            _set(self, "_zero", z)
        return z

    @property
    def delta(self) -> "Unit":
        """The interval unit for differences of this unit (degC -> delta_degC; m -> m)."""
        if self.offset is None:
            return self
        row = _Above.lookup("delta_" + self.symbol)  # the table's delta row (delta_degC)
        if row is not None:
            return row
        return Unit(self.factor, self.dims, (), None, True)  # a defined scale without one

    # -- algebra --------------------------------------------------------------------------
    def __mul__(self, other: "Unit") -> "Unit":
        if other.__class__ is not Unit:
            return NotImplemented
        _no_offset(self, other, "*")
        return Unit(self.factor * other.factor, _dim.mul(self.dims, other.dims),
                    _merge(self.terms, other.terms, 1), None, self.interval or other.interval)

    def __truediv__(self, other: "Unit") -> "Unit":
        if other.__class__ is not Unit:
            return NotImplemented
        _no_offset(self, other, "/")
        return Unit(self.factor / other.factor, _dim.div(self.dims, other.dims),
                    _merge(self.terms, other.terms, -1), None, self.interval or other.interval)

    def __pow__(self, n: int) -> "Unit":
        if n.__class__ is not int:
            raise TypeError("unit exponents are integers")
        if n == 1:
            return self
        _no_offset(self, None, "**")
        dims = _dim.power(self.dims, n)
        terms = tuple((s, p * n) for s, p in self.terms if p * n)
        for _, p in terms:
            if abs(p) > MAX_EXPONENT:
                raise OverflowError(f"exponent {p} is beyond +/-{MAX_EXPONENT}")
        return Unit(self.factor ** n, dims, terms, None, self.interval)

    def is_compatible(self, other: "Unit") -> bool:
        return self.dims == other.dims


ONE = Unit(Fraction(1), DIMENSIONLESS, ())


def _merge(a: Terms, b: Terms, sign: int) -> Terms:
    acc = dict(a)
    for s, p in b:
        acc[s] = acc.get(s, 0) + sign * p
    for s, p in acc.items():
        if abs(p) > MAX_EXPONENT:
            raise OverflowError(f"exponent {p} is beyond +/-{MAX_EXPONENT}")
    return tuple((s, p) for s, p in acc.items() if p)


def _no_offset(a: Unit, b: Unit | None, op: str) -> None:
    for u in (a, b):
        if u is not None and u.offset is not None:
            raise OffsetUnitError(
                f"{u.symbol} is a temperature scale with an offset (a point, not an amount), so "
                f"it cannot take part in a compound unit or a power ({op})",
                suggestion=f"delta_{u.symbol} for a temperature difference, e.g. delta_{u.symbol}/s",
                received=u.symbol)


# -- conversion ---------------------------------------------------------------------------
# keyed on the identities of the two Unit objects (parsed units are shared, so this hits);
# each entry keeps its units alive, so an id is never reused while its entry exists. The pair
# comes first, returned as it is stored: a hit is one dict lookup and no new tuple.
_FACTORS: "dict[tuple[int, int], tuple[tuple[float, float | None], Unit, Unit]]" = {}
_FACTORS_LIMIT = 65536


def conversion(src: Unit, dst: Unit) -> "tuple[float, float | None]":
    """``(a, b)`` such that a value in ``src`` is ``a * x + b`` in ``dst`` (``b`` None if 0).

    Computed exactly with ``Fraction`` once per pair, then floated and cached: a repeated
    pair costs one dictionary lookup, so hot paths call this rather than keep their own cache.
    Raises ``DimensionalityError`` or ``OffsetUnitError`` for a pair that does not convert.
    """
    hit = _FACTORS.get((id(src), id(dst)))
    if hit is not None:
        return hit[0]
    return _convert(src, dst)


def _convert(src: Unit, dst: Unit) -> "tuple[float, float | None]":
    if src.dims != dst.dims:
        raise DimensionalityError(
            f"cannot convert from {src.symbol} ({src.dimensionality}) to {dst.symbol} "
            f"({dst.dimensionality})",
            suggestion=f"a quantity in {dst.symbol} or another unit of {dst.dimensionality}",
            received=src.symbol, expected=dst.symbol)
    if (src.offset is not None and dst.interval) or (src.interval and dst.offset is not None):
        point, interval = (src, dst) if src.offset is not None else (dst, src)
        raise OffsetUnitError(
            f"cannot convert between {src.symbol} and {dst.symbol}: {point.symbol} is a "
            f"temperature point and {interval.symbol} a temperature difference",
            suggestion=f"a difference in {point.delta.symbol}, or a temperature in {point.symbol}",
            received=src.symbol, expected=dst.symbol)
    a = src.factor / dst.factor
    b = ((src.offset or 0) - (dst.offset or 0)) / dst.factor
    pair = (float(a), float(b) if b else None)
    if len(_FACTORS) < _FACTORS_LIMIT:
        _FACTORS[(id(src), id(dst))] = (pair, src, dst)
    return pair


# The exact affine maps of the pairs with an offset, as integers: a value x = n/d (a float's
# exact ratio, d a power of two) in src is (n*P + R*d) / (d*D) in dst, and Python's int / int
# is correctly rounded, so the result is the exact value rounded once. Keyed like _FACTORS.
if TYPE_CHECKING:  # ((P, R, D, zero of src, zero of dst), src, dst)
    _AffineEntry = tuple[tuple[int, int, int, Optional[float], Optional[float]], "Unit", "Unit"]
_AFFINE: "dict[tuple[int, int], _AffineEntry]" = {}


def affine(x: "float | int", src: Unit, dst: Unit) -> float:
    """``x`` in ``src`` as a value in ``dst`` for a pair of temperature scales whose zeros
    differ (degF to K, degC to degF): the exact value ``x * factor + offset``, rounded once to
    the nearest float. ``conversion``'s float pair would round twice (``32 degF`` would be
    ``273.15000000000003 K``); this gives ``273.15``.

    Absolute zero as written converts to absolute zero: ``-459.67 degF`` (the float nearest
    it, which lies 1.6e-14 below it) is ``0.0 K``, and ``0 K`` is ``-459.67 degF``, so a
    value at the bottom of one scale never lands below the bottom of another. A result past the
    float range is an infinity, as float arithmetic gives. Raises like ``conversion``.
    """
    hit = _AFFINE.get((id(src), id(dst)))
    if hit is None:
        hit = _affine(src, dst)
    p, r, dd, zero_src, zero_dst = hit[0]
    if x == zero_src and zero_dst is not None:
        return zero_dst
    n, d = x.as_integer_ratio()
    num = n * p + r * d
    try:
        return num / (d * dd)
    except OverflowError:
        return float("inf") if num > 0 else float("-inf")


def _affine(src: Unit, dst: Unit):
    conversion(src, dst)  # the same refusals (dimensions, a point to a difference)
    a = src.factor / dst.factor
    b = ((src.offset or 0) - (dst.offset or 0)) / dst.factor
    den = a.denominator * b.denominator // _gcd(a.denominator, b.denominator)
    entry = ((a.numerator * (den // a.denominator), b.numerator * (den // b.denominator), den,
              src.zero, dst.zero), src, dst)
    if len(_AFFINE) < _FACTORS_LIMIT:
        _AFFINE[(id(src), id(dst))] = entry
    return entry


def clear_caches() -> None:
    """Forget every cached conversion factor (for tests and benchmarks measuring a cold path)."""
    _FACTORS.clear()
    _AFFINE.clear()


def apply(value, a: float, b: float | None):
    """``a * value + b`` for a float, an int, a numpy array, or a list/tuple of numbers."""
    cls = value.__class__
    if cls is float or cls is int:
        return value * a if b is None else value * a + b
    if cls is bool:
        raise TypeError("a boolean is not a magnitude")
    if cls.__module__ == "numpy":
        out = value * a  # a new float array; numpy is already imported by whoever made `value`
        if b is not None:
            out += b
        return out
    if cls is list or cls is tuple:
        return cls(apply(v, a, b) for v in value)
    if isinstance(value, (int, float, Fraction)) and not isinstance(value, bool):
        v = float(value)
        return v * a if b is None else v * a + b
    raise TypeError(f"cannot convert a {cls.__name__}: expected a number or an array")
