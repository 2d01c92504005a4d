"""The answer audit: every numeric literal in a final answer, classified against the ledger.

    audit = ledger.audit_answer(answer, context=question)
    audit.ok            # False if a figure is unsourced, unit_mislabelled or tainted, or
                        # the answer gave up on a refused call it could have repeated
    audit.findings      # one Finding per number: text, value, unit, status, match, note (why)
    audit.skipped       # (text, reason) for each run of digits that is not a quantity
    audit.abandoned     # an Abandoned per refused call given up on (audit/abandoned.py)

Statuses:

- ``sourced``: matches a value a tool returned (converted into the unit written, if any; the
  magnitude of a negative output written without its sign counts, and the note says so);
- ``derived``: one step from recorded outputs (or an output and a number from the question):
  a sum or difference of like dimension that respects vertical datums (the algebra of ``Q``:
  two elevations on different datums are never combined, elevation minus elevation is a
  length, an elevation plus or minus a length stays on its datum), or a product or ratio whose
  dimension is the dimension written (a percentage is a ratio times 100), optionally with a
  constant the answer writes (the square roots of 2 and 3, pi);
- ``quoted``: repeated back from the question;
- ``factor``: a conversion factor, a unit identity (``1 cfs = 0.0283168 m3/s``) or a constant:
  not a claim about the world;
- ``operand``: a number inside a written-out formula whose arithmetic checks out and whose
  result is itself accepted (a recorded 42 MVA re-expressed as 42,000,000 in a current formula);
- ``unsourced``: matches nothing;
- ``unit_mislabelled``: matches a recorded magnitude of the same dimension but is written with a
  unit that contradicts it (1350 Ml written as 1.35 Ml, or 35.4 written as cfs when it was m3/s).
  A different dimension is never a mislabel.

Numbers are read the way people write them: thousands separators (commas, spaces, thin and
no-break spaces), the Unicode minus, signs carried in words ("a deficit of 2.9 ft"), ranges
("3-5 ft"), percentages, rounding to the precision written (17.1 written as 17, 11,200 for
11,196.96; a one-significant-figure number such as 1000 covers 10% either way, never 1250),
full-precision float copies, units spelled out ("cubic feet per second"), number words
("59.8 million m3"), "1.05 x 10^-4", LaTeX (``\\times``, ``\\frac{}{}``, ``\\sqrt{3}``,
``\\,``), markdown emphasis and units given in a table's next cell or column header. Years,
dates, times and zone offsets, identifiers (station and site numbers, EPSG and ISO codes), unit
exponents (``km^2``), list markers, step labels and ordinals are not quantities: they are
skipped, each with its reason in ``Audit.skipped``.
"""
from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False
if TYPE_CHECKING:  # what type checkers see; at run time each name is imported on first use
    from ..numeric import (canonical_datum, fmt_exact, fmt_g, is_close, pair_datum_ok,
                           power_dims, relative_cap)
    from ..reading.reader import extract_numbers, written_tolerance
    from ..reading.text import Number
    from .abandoned import Abandoned
    from .answer import audit_answer
    from .findings import Audit, Finding
    from .view import LedgerView

# name -> the module that defines it (relative to this package), imported on first use, so
# that ``quantity_guard/__init__`` can install ``Ledger.audit_answer`` (``.method``) cheaply
_LAZY = {
    **dict.fromkeys(("canonical_datum", "fmt_exact", "fmt_g", "is_close", "pair_datum_ok",
                     "power_dims", "relative_cap"), "..numeric"),
    "extract_numbers": "..reading.reader", "written_tolerance": "..reading.reader",
    "Number": "..reading.text", "Abandoned": ".abandoned", "audit_answer": ".answer",
    "Audit": ".findings", "Finding": ".findings", "LedgerView": ".view",
}

__all__ = ["Number", "Finding", "Audit", "Abandoned", "extract_numbers", "audit_answer",
           "LedgerView"]


if not TYPE_CHECKING:  # hidden from type checkers, so a misspelt name is reported, not Any
    def __getattr__(name: str):
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module 'quantity_guard.audit' has no attribute {name!r}")
        value = getattr(import_module(module, __name__), name)
        globals()[name] = value
        return value
