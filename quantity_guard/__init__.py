"""quantity-guard: physical quantities that keep their unit, datum, timezone, CRS and quality
across an AI agent's tool boundary.

The public API is re-exported here lazily (PEP 562), so ``import quantity_guard`` stays cheap:
each submodule is imported the first time one of its names is used.
"""
from __future__ import annotations

from importlib import import_module

from ._version import __version__
from .errors import (
    BelowAbsoluteZero,
    CRSMismatch,
    DatumConversionUnavailable,
    DatumMismatch,
    DimensionalityError,
    GuardViolation,
    InvalidArguments,
    MissingUnit,
    OffsetUnitError,
    QualityViolation,
    RedefinitionError,
    SessionUnbound,
    TimezoneError,
    UnconvertedCarryOver,
    UnitParseError,
    UnknownDatum,
    UnsourcedInput,
)

# name -> submodule that defines it
_LAZY = {
    "parse_unit": "units",
    "convert": "units",
    "define": "units",
    "Unit": "units",
    "Q": "quantity",
    "to_json": "quantity",
    "register_station": "datums",
    "register_offset": "datums",
    "QUALITY_ALIASES": "quality",
    "Spec": "spec",
    "quantity_tool": "tool",
    "GuardedTool": "tool",
    "session": "ledger",
    "current_session": "ledger",
    "Ledger": "ledger",
    "Session": "ledger",
    "toolbox": "adapters",
    "Toolbox": "adapters",
}
_RENAMED = {"current_session": "current"}

__all__ = ["__version__", *sorted(_LAZY), "BelowAbsoluteZero", "CRSMismatch",
           "DatumConversionUnavailable", "DatumMismatch", "DimensionalityError", "GuardViolation",
           "InvalidArguments", "MissingUnit", "OffsetUnitError", "QualityViolation",
           "RedefinitionError", "SessionUnbound", "TimezoneError", "UnconvertedCarryOver",
           "UnitParseError", "UnknownDatum", "UnsourcedInput"]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'quantity_guard' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), _RENAMED.get(name, name))
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
