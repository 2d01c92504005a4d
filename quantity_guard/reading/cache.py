"""What the reading layer remembers, and when it must forget: a unit phrase's meaning depends
on the unit table and the datum registry, so every reading made is kept under the registries'
``generation()`` and dropped when it changes (a unit defined, or a datum, alias, offset or
station registered, or forgotten at the end of ``datums.isolated()``).
"""
from __future__ import annotations

import sys

from ..units import table

# the datum registry, by its name in this copy of the package (vendored copies are renamed);
# a registry never imported holds no registration, and is not imported just to ask
_DATUMS = __name__.rpartition(".")[0].rpartition(".")[0] + ".datums"


def _datum_generation():
    module = sys.modules.get(_DATUMS)
    return None if module is None else module.generation()


def generation() -> tuple:
    """(the unit table's generation, the datum registry's): equal to an earlier value exactly
    when no unit and no datum was registered since. A cache of readings keys on it."""
    return (table.generation(), _datum_generation())


class ReadingCache:
    """The readings of unit phrases. Each dict is bounded (``LIMIT`` entries, then no more are
    kept); ``fresh()`` empties them when the registries changed since they were filled."""

    LIMIT = 8192
    __slots__ = ("unit_reads", "phrases", "_generation")

    def __init__(self) -> None:
        #: text up to the next punctuation -> (unit, datum, end) read at its start
        self.unit_reads: dict = {}
        #: a phrase -> (unit, datum), or None when it is no unit
        self.phrases: dict = {}
        self._generation = generation()

    def fresh(self) -> bool:
        """Empty the readings if a unit or datum was registered since they were made; whether
        they were emptied."""
        now = generation()
        if now != self._generation:
            self.clear()
            self._generation = now
            return True
        return False

    def clear(self) -> None:
        self.unit_reads.clear()
        self.phrases.clear()


READS = ReadingCache()
