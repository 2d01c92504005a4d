"""One audit's look-ups: the ledger, the question's numbers, the answer as read and the
operands of products and ratios, built on first use.
"""
from __future__ import annotations

import math
import re

from ..numeric import is_close, power_dims
from .cache import CACHE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .view import LedgerView


class Context:
    """One audit's look-ups: the ledger, the question's numbers, the answer as read, and
    (built on first use) the operands of products and ratios, constants and unit factors."""

    __slots__ = ("ledger", "quoted", "reading", "_operands", "_constants", "_reach", "_given",
                 "_low", "polyphase")

    def __init__(self, ledger: LedgerView, quoted, reading, polyphase=False) -> None:
        self.ledger: LedgerView = ledger
        self.quoted, self.reading = quoted, reading
        self._operands: dict | None = None
        self._constants: list | None = None
        self._reach: set | None = None
        self._given: dict | None = None
        self._low: str | None = None
        #: the question or the answer names a polyphase system (see _POLYPHASE)
        self.polyphase = polyphase

    @property
    def low(self) -> str:
        """The answer as read, in lower case."""
        if self._low is None:
            self._low = self.reading.text.lower()
        return self._low

    def given(self, dims) -> list:
        """The question's numbers with a unit of ``dims``."""
        if self._given is None:
            self._given = {}
            for q in self.quoted:
                if q.unit is not None:
                    self._given.setdefault(q.unit.dims, []).append(q)
        return self._given.get(dims, ())

    def reachable(self) -> set:
        """The dimensions one product or ratio of two operands (or one operand and a
        constant) can have: a number of any other dimension needs no search."""
        if self._reach is None:
            index = self.operands()
            key = tuple(sorted(index))
            reach = CACHE.reach.get(key)
            if reach is None:
                reach = set()
                dims = list(index)
                for a in dims:
                    for b in dims:
                        reach.add(tuple([x + y for x, y in zip(a, b)]))
                        reach.add(tuple([x - y for x, y in zip(a, b)]))
                if len(CACHE.reach) < 4096:
                    CACHE.reach[key] = reach
            self._reach = reach
        return self._reach

    def constants(self) -> list:
        """(name, value) of the constants the answer writes, each also as its reciprocal."""
        if self._constants is None:
            out = [("", 1.0)]
            found = set(self.reading.constants)
            for num in self.reading.numbers:
                if num.unit is None and (num.op_before or num.op_after):
                    for name, c in CONSTANTS:
                        if is_close(abs(num.value), c, num.tolerance):
                            found.add(name)
            for name, c in CONSTANTS:
                if name in found:
                    out += [(CONSTANT_TEXT[name], c), (f"1/{CONSTANT_TEXT[name]}", 1.0 / c)]
            self._constants = out
        return self._constants

    def operands(self) -> dict:
        """{dimension: (sorted log10 |SI value|, [(SI value, entry or question number)])}:
        recorded outputs and the question's numbers with units, elevations excluded."""
        if self._operands is None:
            base = self.ledger.product_operands()
            extra = [q for q in self.quoted
                     if q.unit is not None and q.datum is None and not q.unit.shift
                     and q.value != 0 and math.isfinite(q.value * q.unit.scale)]
            if extra:
                key = tuple((q.value, q.unit, q.text) for q in extra)
                base = CACHE.merged_operands(self.ledger, base, key,
                                             lambda: _merged_operands(base, extra))
            self._operands = base
        return self._operands


def _merged_operands(base: dict, extra: list) -> dict:
    """The ledger's operand view with the question's numbers added, each group sorted."""
    groups = {k: list(zip(v[0], v[1])) for k, v in base.items()}
    for q in extra:
        si = q.value * q.unit.scale
        groups.setdefault(power_dims(q.unit.dims), []).append((math.log10(abs(si)), (si, q)))
    merged = {}
    for k, pairs in groups.items():
        pairs.sort(key=lambda p: p[0])
        merged[k] = ([p[0] for p in pairs], [p[1] for p in pairs])
    return merged


CONSTANTS = (("sqrt2", math.sqrt(2.0)), ("sqrt3", math.sqrt(3.0)), ("pi", math.pi))
CONSTANT_TEXT = {"sqrt2": "\u221a2", "sqrt3": "\u221a3", "pi": "\u03c0"}


# A polyphase system: "three-phase", "3-phase", "3φ", or a line quantity ("line current",
# "line-to-line voltage"), which exists only where there are several phases. There the
# relation between apparent power, line voltage and line current is S = √3 V I; the
# single-phase S = V I (a current computed as S / V) is a formula error, not a derivation.
_POLYPHASE = re.compile(r"\b(?:three|3)[- ]?phase|3\s?[\u03c6\u03a6]|\bline[- ](?:current|voltage)|"
                        r"\bline[- ]to[- ]line\b|\bphase[- ]to[- ]phase\b", re.I)


def is_polyphase(text: str) -> bool:
    low = text.lower()
    if "phase" not in low and "line" not in low and "\u03c6" not in low:
        return False  # (the pattern's every branch holds one of these)
    return _POLYPHASE.search(text) is not None
