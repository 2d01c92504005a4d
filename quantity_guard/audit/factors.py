"""Conversion factors, unit identities and truncated copies: numbers that explain themselves.
"""
from __future__ import annotations

import math
import re

from ..numeric import is_close, plain_digits
from .cache import CACHE
from .codes import Reason
from ..reading.text import cell_unit, is_ratio_unit, Number, read_phrase, read_unit
from .findings import Finding, shown
from .context import CONSTANT_TEXT, CONSTANTS, Context
from .classify import sourced


_ONE_UNIT_WORDS = ("per", "over", "each", "every", "within", "in", "a", "an")


def truncated(num: Number, ledger):
    """A recorded output with its digits cut, not rounded (35.396 written as 35.39, 0.102145
    as 0.10214): four significant figures or more written, and the recorded value within one
    unit of the last place written above it."""
    src = num.source_text
    if src is None or num.sig1 or num.tolerance <= 0:
        return None
    written = src[num.nstart:num.nend]
    if "." in written:
        if num.tolerance > 5.001e-4 * abs(num.value):
            return None  # (four significant figures or more: half a unit in the last place
            #              is at most 0.05% of the value)
    elif not (num.tolerance == 0.5 and abs(num.value) >= 100 and
              not plain_digits(written.split()[0]).endswith("0")):
        return None  # a whole number of three figures or more, its last digit written
    values = (-num.value, num.value) if num.negated else (num.value,)
    half = 0.999 * num.tolerance  # [v, v + one unit): the next value up is no truncation of v
    up = tuple(v + math.copysign(half, v) for v in values)
    hit, _ = sourced(num, up, num.unit, half, ledger)
    if hit is None or hit.status != "sourced":
        return None
    e = hit.match
    return Finding(num, "sourced", e,
                   lambda: f"{e.label} = {shown(e)}, truncated (its digits cut, not rounded)",
                   Reason.SOURCED_TRUNCATED)


def _identity_note(numbers, i, text):
    """Why ``numbers[i]`` is part of a unit identity, or None."""
    num = numbers[i]
    # a unit identity: "1 cfs = 0.0283168 m3/s", "1 MWh is 3.6 GJ"
    for j in (i - 1, i + 1):
        if 0 <= j < len(numbers):
            a, b = (numbers[j], num) if j < i else (num, numbers[j])
            if _identity(a, b, text):
                return (f"a unit identity ({a.text} = {b.text}): a conversion, not a "
                        f"measurement")
    # a chain of them: "1 megalitre = 1,000,000 litres = 1,000 m3"
    k = i - 1
    while k >= 1 and _identity(numbers[k], numbers[k + 1], text, one=False):
        if _identity(numbers[k - 1], numbers[k], text):
            return (f"a unit identity ({numbers[k - 1].text} = ... = {num.text}): a "
                    f"conversion, not a measurement")
        k -= 1
    # a unit identity as a share: "1 cfs is about 2.8% of a cubic metre per second"
    for j in (i, i + 1):
        if 1 <= j < len(numbers) and _share_identity(numbers[j - 1], numbers[j], text):
            a, b = numbers[j - 1], numbers[j]
            return f"a unit identity as a share ({a.text} is {b.text} of the other unit)"
    # a conversion table row: "| 1 ft³/s | m³/s | 0.028316846592 |" is 1 ft³/s = k m³/s
    if "|" in text:
        return _table_identity(numbers, i, text)
    return None


def factor_note(numbers, i, ctx):
    num = numbers[i]
    text = ctx.reading.text
    unit = num.unit
    note = _identity_note(numbers, i, text)
    if note is not None:
        return note
    # the value of a constant the answer names: "√3 ≈ 1.7320508", "π = 3.14159"
    if unit is None and not num.percent and ctx.reading.constants:
        m = _CONST_BEFORE.search(text, max(0, num.nstart - 24), num.nstart)
        if m is not None:
            c = math.sqrt(int(m.group(1) or m.group(2))) if (m.group(1) or m.group(2)) \
                else math.pi
            if is_close(num.value, c, max(num.tolerance, 1e-9 * c)):
                return f"the value of the constant {m.group().split('=')[0].split(chr(0x2248))[0].strip()}"
    # a factor written with its ratio unit: "86 400 s/day", "1000 L/m3", "3.6e9 J/MWh"
    if unit is not None and is_ratio_unit(unit) and \
            is_close(num.value * unit.scale, 1.0, num.tolerance * unit.scale):
        return f"the conversion factor {num.text}: a unit identity, not a measurement"
    # a bare factor next to a multiplication or division: "x 0.0283168", "/ 86 400", "x 100 %"
    if (num.op_before or num.op_after) and (unit is None or num.percent):
        if num.percent and is_close(num.value, 100.0, num.tolerance):
            return "100 %: the factor of a percentage"
        name = _known_factor(abs(num.value), max(num.tolerance, 1e-9 * abs(num.value)), ctx)
        if name is not None:
            return f"{name}, written as a factor of the arithmetic"
    # a factor in words: "the conversion divides the number by about 35", "multiply by 86,400",
    # "off by a factor of 1000", "missing a factor of 1000"
    if unit is None and not num.percent and num.value > 0 and \
            ("by" in text[max(0, num.nstart - 60):num.nstart] or
             "factor of" in text[max(0, num.nstart - 24):num.nstart]) and \
            _BY_WORDS.search(text, max(0, num.nstart - 60), num.nstart):
        name = _known_factor(num.value, max(num.tolerance, 1e-9 * num.value), ctx)
        if name is not None:
            return f"{name}, named in words as a factor of the arithmetic"
    # the base of a ratio named in words: "parts per 100,000", "per 1000 people"
    if unit is None and not num.percent and num.value >= 10 and \
            _PARTS_PER.search(text, max(0, num.nstart - 16), num.nstart) and \
            math.log10(num.value) % 1 == 0:
        return f"parts per {num.text}: the base of a ratio, not a measurement"
    # one unit written in a smaller one, as an operand: "x 86,400 s" (one day), "/ 3600 s"
    if unit is not None and (num.op_before or num.op_after) and not unit.shift and \
            num.value > 1 and num.sign is None:
        one = _one_common_unit(num.value * unit.scale, unit)
        if one is not None:
            return (f"{num.text} is one {one} written in {unit.symbol}: a unit factor of the "
                    f"arithmetic, not a measurement")
    # a unit identity in words: "86,400 seconds in a day", "1000 litres per cubic metre",
    # "a day has 86,400 s"
    if unit is not None and not unit.shift and num.value > 0:
        other = _one_unit_named(text, num)
        if other is not None and other.dims == unit.dims and not other.shift and \
                other != unit and is_close(num.value * unit.scale, other.scale,
                                         max(num.tolerance, 1e-9 * num.value) * unit.scale):
            return (f"a unit identity in words (1 {other.symbol} = {num.text}): a conversion, "
                    f"not a measurement")
    # one unit: "over 1 d", "per 1 km2"
    if unit is not None and num.text.split()[0] in ("1", "one") and num.value == 1.0:
        before = text[max(0, num.nstart - 12):num.nstart].lower().split()
        if before and before[-1] in _ONE_UNIT_WORDS:
            return f"one {unit.symbol}: a unit of measure, not a measurement"
    return None


_ONE_AFTER = re.compile(r"\s+(?:in|per|to|make|makes|make up|to make)\s+(?:a|an|one|1|each|every)\s+",
                        re.I)
_ONE_BEFORE = re.compile(r"\b(?:a|an|one|1|each|every)\s+([a-z][a-z ]{0,20}?)\s+(?:has|have|is|"
                         r"equals|contains|holds|=|\u2248)\s*$", re.I)


def _one_unit_named(text: str, num: Number):
    """The unit named as "a <unit>" right after ("86,400 s in a day") or before ("a day has
    86,400 s") a number, or None."""
    m = _ONE_AFTER.match(text, num.nend) if text[num.nend + 1:num.nend + 4] in (
        "in ", "per", "to ", "mak") else None
    if m is not None:
        unit, _, end = read_unit(text, m.end())
        if unit is not None:
            return unit
    if not text[max(0, num.nstart - 10):num.nstart].rstrip().endswith(
            ("has", "have", "is", "equals", "contains", "holds", "=", "\u2248")):
        return None
    m = _ONE_BEFORE.search(text, max(0, num.nstart - 40), num.nstart)
    if m is not None:
        hit = read_phrase(m.group(1).strip())
        if hit is not None:
            return hit[0]
    return None


_PARTS_PER = re.compile(r"\bparts? per\s+$", re.I)
_BY_WORDS = re.compile(r"(?:\b(?:divid|multipl|scal)\w*\s+(?:[\w-]+\s+){0,4}?by\s+(?:a factor of\s+)?|"
                       r"\ba factor of\s+)"
                       r"(?:about|roughly|approximately|around|some|nearly|almost|~|\u2248)?\s*$",
                       re.I)
_SHARE_IS = re.compile(r"\s+(?:is|=|equals|makes)\s+(?:about|roughly|approximately|around|nearly|"
                       r"just under|just over|~|\u2248)?\s*$", re.I)
_SHARE_OF = re.compile(r"\s+of\s+(?:a|an|one|1)\s+", re.I)


def _share_identity(a: Number, b: Number, text: str) -> bool:
    """``1 X is P% of a Y``: P/100 = X/Y, checked by the kernel."""
    if a.unit is None or a.value != 1.0 or not b.percent or b.value <= 0 or a.unit.shift or \
            not _SHARE_IS.match(text[a.nend:b.nstart]):
        return False
    m = _SHARE_OF.match(text, b.nend)
    if m is None:
        return False
    other, _, _ = read_unit(text, m.end())
    if other is None or other.dims != a.unit.dims or other.shift:
        return False
    return abs(b.value / 100.0 - a.unit.scale / other.scale) <= b.tolerance / 100.0 + 1e-12


_CONST_BEFORE = re.compile(r"(?:\u221a\s*\(?\s*(\d{1,2})\s*\)?|\bsqrt\s*\(?\s*(\d{1,2})\s*\)?|\u03c0|\bpi)"
                           r"\s*(?:=|\u2248|~|is about|is)\s*$", re.I)


def _table_identity(numbers, i, text):
    """A row of a conversion table: one cell ``1 X``, one cell a unit ``Y`` alone, one cell a
    number ``k`` with no unit; when the kernel agrees that 1 X = k Y (within the precision
    written), ``1 X`` and ``k`` are the two sides of a unit identity, not measurements."""
    num = numbers[i]
    a = text.rfind("\n", 0, num.nstart) + 1
    b = text.find("\n", num.nend)
    b = len(text) if b < 0 else b
    line = text[a:b]
    if not line.lstrip().startswith("|"):
        return None
    row = [n for n in numbers if a <= n.nstart < b]
    ones = [n for n in row if n.unit is not None and n.value == 1.0 and not n.percent]
    bare = [n for n in row if n.unit is None and not n.percent]
    if len(row) != 2 or len(ones) != 1 or len(bare) != 1:
        return None
    one, k = ones[0], bare[0]
    to = None
    pos = a
    for cell in line.split("|"):
        lo, hi = pos, pos + len(cell)
        pos = hi + 1
        if any(lo <= n.nstart < hi for n in row):
            continue
        hit = cell_unit(cell)
        if hit is not None:
            to = hit[0]
            break
    if to is None or to.dims != one.unit.dims or to.shift or one.unit.shift or k.value == 0:
        return None
    want = one.unit.scale / to.scale
    if not is_close(k.value, want, max(k.tolerance, 1e-9 * abs(want))):
        return None
    return f"a row of a conversion table (1 {one.unit.symbol} = {k.text} {to.symbol}): a unit identity"


def _one_common_unit(si: float, unit):
    """The symbol of a common unit (``_COMMON_FACTOR_UNITS``) of ``unit``'s dimension whose
    size is exactly ``si`` (within a float's margin), other than ``unit`` itself, or None."""
    common = CACHE.factors.get("units")
    if common is None:
        from ..units import try_parse_unit
        common = CACHE.factors["units"] = [u for u in map(try_parse_unit, _COMMON_FACTOR_UNITS)
                                           if u is not None and not u.shift]
    for u in common:
        if u != unit and u.dims == unit.dims and abs(u.scale - si) <= 1e-9 * u.scale:
            return u.symbol
    return None


def _identity(a: Number, b: Number, text: str, one: bool = True) -> bool:
    """``a = b``, two units of one dimension equal as written; one side is 1 of its unit
    unless ``one`` is False (a further link of a chain that starts with one)."""
    if a.unit is None or b.unit is None or a.unit.dims != b.unit.dims or a.unit == b.unit:
        return False
    if a.unit.shift or b.unit.shift or one and not (a.value == 1.0 or b.value == 1.0):
        return False
    if not re.fullmatch(r"\s*(?:=|\u2248|~|is|equals|is about)\s*", text[a.nend:b.nstart]):
        return False
    sa, sb = a.value * a.unit.scale, b.value * b.unit.scale
    rel = max(a.tolerance / abs(a.value) if a.value else 0.0,
              b.tolerance / abs(b.value) if b.value else 0.0, 1e-9)
    return abs(sa - sb) <= rel * max(abs(sa), abs(sb))


_COMMON_FACTOR_UNITS = ("s", "min", "h", "d", "yr", "m", "mm", "cm", "km", "ft", "in", "mi", "L",
                        "m3", "ft3", "ML", "gal", "acre_ft", "m2", "km2", "ft2", "mi2", "ha",
                        "acre", "W", "kW", "MW", "J", "kJ", "MJ", "GJ", "Wh", "kWh", "MWh", "V",
                        "kV", "A", "kA", "VA", "MVA", "cfs", "m3/s", "ML/d", "L/s", "m3/d")


def _known_factor(x: float, tol: float, ctx: Context):
    """The name of a conversion factor between two units of one dimension (the ledger's, the
    answer's, or common ones), a power of ten or a constant equal to ``x``, or None."""
    table = CACHE.factors.get("common")
    if table is None:
        from ..units import try_parse_unit
        units = [u for u in (try_parse_unit(s) for s in _COMMON_FACTOR_UNITS) if u is not None]
        table = CACHE.factors["common"] = _factor_table(units)
    extra_units = {e.unit for e in ctx.ledger.output_entries()}
    extra_units.update(n.unit for n in ctx.reading.numbers if n.unit is not None)
    for name, c in CONSTANTS:
        if is_close(x, c, tol):
            return f"the constant {CONSTANT_TEXT[name]}"
    if x > 0 and is_close(math.log10(x), round(math.log10(x)), 1e-9) and abs(math.log10(x)) <= 12:
        return f"{x:g}, a power of ten (a prefix)"
    for f, a, b in table:
        if is_close(x, f, tol):
            return f"the factor from {a} to {b}"
    if extra_units:
        from ..units import try_parse_unit
        common = [u for u in (try_parse_unit(s) for s in _COMMON_FACTOR_UNITS) if u is not None]
        for u in extra_units:
            if u.shift:
                continue
            for v in list(extra_units) + common:
                if v is u or v.dims != u.dims or v.shift or v.scale == u.scale:
                    continue
                if is_close(x, u.scale / v.scale, tol):
                    return f"the factor from {u.symbol} to {v.symbol}"
    return None


def _factor_table(units):
    out = []
    for u in units:
        for v in units:
            if u is not v and u.dims == v.dims and not u.shift and not v.shift and \
                    u.scale != v.scale:
                out.append((u.scale / v.scale, u.symbol, v.symbol))
    return out
