"""The answer audit's memory, in one object: what a tool name says of a direction, the common
conversion factors and the operand views of products and ratios, with the reading layer's
readings of unit phrases (``reading.cache.READS``).

The memos depend on the unit table and the datum registry, so ``fresh()`` (called when an
audit starts) forgets everything when either changed since they were filled: a unit defined,
or a datum, alias, offset or station registered (or forgotten at the end of
``datums.isolated()``), is read the next time.
"""
from __future__ import annotations

from weakref import WeakKeyDictionary

from ..reading.cache import generation, READS


class AuditCache:
    """Every cache of the audit. Each dict is bounded (``LIMIT`` entries, then no more are
    kept); ``clear()`` empties them all, the readings of unit phrases too."""

    LIMIT = 8192
    __slots__ = ("tool_sides", "factors", "reach", "operands", "_generation")

    def __init__(self) -> None:
        #: (tool, field) -> (direction, subject words, reference words) its name states
        self.tool_sides: dict = {}
        #: "units" -> the common units parsed, "common" -> their factor table
        self.factors: dict = {}
        #: the sorted dimensions of an operand index -> the dimensions one product or ratio reaches
        self.reach: dict = {}
        #: ledger -> (its operand view, {the question's extra operands: the merged view})
        self.operands: WeakKeyDictionary = WeakKeyDictionary()
        self._generation = generation()

    @property
    def unit_reads(self) -> dict:
        return READS.unit_reads

    @property
    def phrases(self) -> dict:
        return READS.phrases

    def fresh(self) -> AuditCache:
        """This cache, emptied first if a unit or datum was registered since it was filled."""
        READS.fresh()
        now = generation()
        if now != self._generation:
            self._clear_own()
            self._generation = now
        return self

    def clear(self) -> None:
        READS.clear()
        self._clear_own()

    def _clear_own(self) -> None:
        for memo in (self.tool_sides, self.factors, self.reach, self.operands):
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
