"""The dimensional kernel: units as exact data, a parser, conversion. No third-party code.

Importing this package reads no data; the unit table is loaded on first use. It knows nothing
of datums (beyond splitting a datum name off a unit string), tools or agents.

    >>> convert(1250, "cfs", "m3/s")
    35.39605824
    >>> convert(10, "degC", "degF")
    50.0
"""
from __future__ import annotations

from ..errors import DimensionalityError, OffsetUnitError, RedefinitionError, UnitParseError
from .dimension import AXES, format_dims
from . import ucum as _ucum  # noqa: F401  (installs the UCUM reader into the kernel)
from . import cf as _cf  # noqa: F401  (installs the CF / UDUNITS-2 reader; its data loads on use)
from .parser import TEMPERATURE_WORDS, parse_unit, try_parse_unit
from .table import define
from . import parser as _parser
from . import unit as _unit
from .unit import ONE, Unit, affine, apply, conversion

__all__ = ["parse_unit", "try_parse_unit", "parse_with_datum", "convert", "define", "Unit", "ONE", "AXES",
           "UnitParseError", "DimensionalityError", "OffsetUnitError", "RedefinitionError",
           "conversion", "format_dims", "clear_caches"]


def clear_caches() -> None:
    """Forget the parsed strings and the conversion factors (for benchmarks of a cold path and
    for tests); the unit table and its defined units stay."""
    _parser.clear_cache()
    _unit.clear_caches()


def convert(value, from_unit: "str | Unit", to_unit: "str | Unit"):
    """Convert a float, an int, a numpy array or a list of numbers between two units.

    A scalar comes back as a float, an array as a new float array. Between temperature scales
    with different zeros (degC, degF, K) a scalar is converted exactly and rounded once
    (``convert(32, "degF", "K") == 273.15``); an array is converted in float arithmetic, one
    multiply and one add per element, so an element may differ from the scalar result in its
    last digit. Incompatible dimensions raise
    ``DimensionalityError``; a temperature point converted to a difference (or back) raises
    ``OffsetUnitError``.
    """
    src, dst = parse_unit(from_unit), parse_unit(to_unit)
    a, b = conversion(src, dst)
    if b is not None and value.__class__ is not bool:  # a temperature point: exact, rounded once
        if isinstance(value, (int, float)):
            return affine(value, src, dst)
        if value.__class__ is list or value.__class__ is tuple:
            return _affine_each(value, src, dst)
    return apply(value, a, b)


def _affine_each(values: "list | tuple", src: Unit, dst: Unit) -> "list | tuple":
    # (a helper, not a generator inside convert: that would make src and dst closure cells,
    # which costs every call of convert)
    return values.__class__(convert(v, src, dst) for v in values)


# Whole-token spellings that are a unit plus a vertical datum: the EA's mAOD and mASD
# (docs/services.md, "UK Environment Agency flood-monitoring API"), their variants, and
# ft/m above mean sea level (README, "Vertical datums").
# "ASD" (above station datum) names no station by itself: the quantity layer asks which.
_DATUM_UNITS = {
    "mAOD": ("m", "ODN"), "mOD": ("m", "ODN"), "mODN": ("m", "ODN"),
    "mASD": ("m", "ASD"), "ftMSL": ("ft", "MSL"), "mMSL": ("m", "MSL"),
}
_DATUM_REFUSED = {
    "mBDAT": "'mBDAT' is metres below a datum (the sign is flipped); negate the value and give "
             "it as metres above that datum",
}
_ABOVE = ("above", "abv.", "abv", "over")


def parse_with_datum(text: str) -> "tuple[Unit, str | None]":
    """``"ft NAVD88"`` -> ``(Unit('ft'), "NAVD88")``; ``"mAOD"`` -> ``(Unit('m'), "ODN")``;
    ``"m3/s"`` -> ``(Unit('m3/s'), None)``.

    The datum comes back as written (``"AOD"``, ``"NAVD 88"``); the quantity layer resolves it
    against the datum registry and refuses names it does not know. A datum on anything but a
    length is refused.
    """
    if not isinstance(text, str):
        return parse_unit(text), None
    t = text.strip()
    if t in _DATUM_UNITS:
        spelling, named = _DATUM_UNITS[t]
        return parse_unit(spelling), named
    if t in _DATUM_REFUSED:
        raise UnitParseError(_DATUM_REFUSED[t], text=text, suggestions=("mAOD",))
    unit = try_parse_unit(t)
    if unit is not None:
        return unit, None
    head, datum = _split_datum(t)
    if datum is None or datum in TEMPERATURE_WORDS:  # "deg C" is no datum: say why it fails
        parse_unit(t)  # raises the full error, with its position and suggestions
    unit = parse_unit(head)
    from .dimension import base
    if unit.dims != base("length"):
        raise UnitParseError(f"a vertical datum ({datum}) applies only to a length, not to "
                             f"{unit.symbol} ({unit.dimensionality})", text=text)
    return unit, datum


def _split_datum(t: str) -> "tuple[str, str | None]":
    if t.endswith(")") and "(" in t:
        k = t.rindex("(")
        head, datum = t[:k].rstrip(" ,"), t[k + 1:-1].strip()
    else:
        cut = max(t.rfind(" "), t.rfind(","))
        if cut <= 0:
            return t, None
        head, datum = t[:cut].rstrip(" ,"), t[cut + 1:].strip()
        # "NAVD 88", "NGVD 29": a code written with a space before its year
        if datum.isdigit() and " " in head:
            k = head.rfind(" ")
            head, datum = head[:k].rstrip(" ,"), head[k + 1:] + " " + datum
    words = head.split(" ")
    if len(words) > 1 and words[-1].lower() in _ABOVE:
        head = " ".join(words[:-1]).rstrip(" ,")
    if not head or not datum or not (datum[0].isalpha()) \
            or not all(c.isalnum() or c in ":_-. " for c in datum):
        return t, None
    return head, datum
