"""quantity-guard: physical quantities that keep their unit, datum, timezone, CRS and quality
across an AI agent's tool boundary.

The public API is re-exported here lazily (PEP 562), so ``import quantity_guard`` stays cheap:
each submodule is imported the first time one of its names is used. Type checkers (mypy,
pyright) read the same names from the imports under ``TYPE_CHECKING``, which never run.
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
    StoreUnavailable,
    TimezoneError,
    UnconvertedCarryOver,
    UnitParseError,
    UnknownDatum,
    UnsourcedInput,
)
from .audit import method as _audit_method  # noqa: F401  (supplies Ledger.audit_answer)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # what type checkers see; at run time each name is imported on first use
    from .adapters import Toolbox, toolbox
    from .datums import register_offset, register_station
    from .ledger import Ledger, Session, session
    from .ledger import current as current_session
    from .quality import QUALITY_ALIASES
    from .quantity import Q, to_json
    from .spec import Spec
    from .tool import GuardedTool, quantity_tool
    from .units import Unit, convert, define, parse_unit

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
           "RedefinitionError", "SessionUnbound", "StoreUnavailable", "TimezoneError", "UnconvertedCarryOver",
           "UnitParseError", "UnknownDatum", "UnsourcedInput"]


if not TYPE_CHECKING:  # hidden from type checkers, so a misspelt name is reported, not Any
    def __getattr__(name: str):
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module 'quantity_guard' has no attribute {name!r}")
        value = getattr(import_module(f".{module}", __name__), _RENAMED.get(name, name))
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
