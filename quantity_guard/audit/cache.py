"""The answer audit's memory, in one object: what a unit phrase means, what a tool name says of
a direction, the common conversion factors, and the operand views of products and ratios.

The readings depend on the unit table and the datum registry, so ``fresh()`` (called when an
audit or a reading starts) compares their generations with the ones the readings were made
under and forgets everything when either changed: a unit defined, or a datum, alias, offset or
station registered (or forgotten at the end of ``datums.isolated()``), is read the next time.
"""
from __future__ import annotations

import sys
from weakref import WeakKeyDictionary

from ..units import table

# the datum registry, by its name in this copy of the package (vendored copies are renamed);
# a registry never imported holds no registration, and is not imported just to ask
_DATUMS = __name__.rpartition(".")[0].rpartition(".")[0] + ".datums"


def _datum_generation():
    module = sys.modules.get(_DATUMS)
    return None if module is None else module.generation()


class AuditCache:
    """Every cache of the audit. Each dict is bounded (``LIMIT`` entries, then no more are
    kept); ``clear()`` empties them all."""

    LIMIT = 8192
    __slots__ = ("unit_reads", "phrases", "tool_sides", "factors", "reach", "operands",
                 "_units", "_datums")

    def __init__(self) -> None:
        #: text up to the next punctuation -> (unit, datum, end) read at its start
        self.unit_reads: dict = {}
        #: a phrase -> (unit, datum), or None when it is no unit
        self.phrases: dict = {}
        #: (tool, field) -> (direction, subject words, reference words) its name states
        self.tool_sides: dict = {}
        #: "units" -> the common units parsed, "common" -> their factor table
        self.factors: dict = {}
        #: the sorted dimensions of an operand index -> the dimensions one product or ratio reaches
        self.reach: dict = {}
        #: ledger -> (its operand view, {the question's extra operands: the merged view})
        self.operands: WeakKeyDictionary = WeakKeyDictionary()
        self._units = table.generation()
        self._datums = _datum_generation()

    def fresh(self) -> AuditCache:
        """This cache, emptied first if a unit or datum was registered since it was filled."""
        units, datums = table.generation(), _datum_generation()
        if units != self._units or datums is not self._datums:
            self.clear()
            self._units, self._datums = units, datums
        return self

    def clear(self) -> None:
        for memo in (self.unit_reads, self.phrases, self.tool_sides, self.factors, self.reach,
                     self.operands):
            memo.clear()

    def merged_operands(self, ledger, base: dict, extra_key, build):
        """The operand view of ``ledger`` (``base``) merged with the question's numbers: built
        by ``build()`` once per ledger state and set of extra operands."""
        held = self.operands.get(ledger)
        if held is None or held[0] is not base:
            held = (base, {})
            self.operands[ledger] = held
        merged = held[1].get(extra_key)
        if merged is None:
            merged = build()
            if len(held[1]) < 64:
                held[1][extra_key] = merged
        return merged


CACHE = AuditCache()
