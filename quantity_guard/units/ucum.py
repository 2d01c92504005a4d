"""UCUM codes: a documented subset read case-sensitively, and ``Unit.ucum`` written back.

The subset (``data/units_ucum.json``) is every UCUM atom whose definition is *exactly* a unit
of the kernel's table, with UCUM's prefixes on its metric atoms. Atoms UCUM defines otherwise
than the kernel (``[Btu]`` is thermochemical there, ``m[Hg]`` is 133.3220 kPa, not the
conventional 133.322387415 kPa) are refused with the reason, never folded into a near unit; so
are annotations (``{...}``) and numbers other than 1 (``10*3``): a scale belongs in the value.

Grammar (UCUM section 2, restricted to integer exponents and the factor 1)::

    term       := '/'? component ( ('.' | '/') component )*
    component  := '(' term ')' | simple exponent? | '1'
    simple     := prefix? atom           e.g. m, kg, [ft_i], m[H2O], mo_j, ', ''
    exponent   := ('+' | '-')? INT       written straight after the unit: m3, s-1, [ft_i]3

``/`` applies to the next component only and the operators associate left, as in the kernel's
own grammar: ``kg/m2/s`` is ``kg.m-2.s-1``. There are no spaces in a UCUM code.

The kernel grammar reads bracketed atoms too (a bracket is never anything else), so
``parse_unit("[ft_i]3/s")`` works without asking; ``parse_unit(s, vocabulary="ucum")`` reads
UCUM strictly, where ``a`` is the Julian year, ``ar`` the are and ``cfs`` is not a code.
"""
from __future__ import annotations

import os

from ..errors import UnitParseError
from . import parser, table
from . import unit as _unit
from .dimension import MAX_EXPONENT
from .parser import build, parse_unit, try_parse_unit
from .unit import Unit

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                     "units_ucum.json")
_MAX_LENGTH = 200
_MAX_DEPTH = 12
_OPERATORS = frozenset("./()")


class _Vocabulary:
    def __init__(self) -> None:
        import json
        with open(_DATA, encoding="utf-8") as fh:
            data = json.load(fh)
        self.atoms: dict[str, str] = data["atoms"]
        self.metric: frozenset[str] = frozenset(data["metric"])
        self.prefixes: frozenset[str] = frozenset(data["prefixes"])
        self.refused: dict[str, tuple[str, tuple[str, ...]]] = {
            k: (why, tuple(alts)) for k, (why, alts) in data["refused"].items()}
        self.kernel: dict[str, "str | None"] = data["kernel"]
        rows = table.registry().rows
        self.inverse: dict[str, str] = {}
        for atom, expr in self.atoms.items():
            if expr in rows:
                self.inverse.setdefault(expr, atom)


_VOCAB: "_Vocabulary | None" = None
_ATOMS: dict = {}
_CODES: dict = {}


def vocabulary() -> _Vocabulary:
    global _VOCAB
    if _VOCAB is None:
        _VOCAB = _Vocabulary()
    return _VOCAB


def atoms() -> tuple[str, ...]:
    """The UCUM atoms read (without prefixes)."""
    return tuple(vocabulary().atoms)


# -- reading ----------------------------------------------------------------------------------
def atom_unit(atom: str):
    """The kernel Unit for a UCUM atom with an optional prefix (memoised), a refusal
    ``[why, alternatives]``, or None when the atom is not in the subset."""
    try:
        return _ATOMS[atom]
    except KeyError:
        pass
    hit = _atom_unit(atom)
    _ATOMS[atom] = hit
    return hit


def _atom_unit(atom: str):
    v = vocabulary()
    if atom in v.refused:
        why, alts = v.refused[atom]
        return [f"UCUM {atom!r}: {why}", alts]
    expr = v.atoms.get(atom)
    if expr is not None:
        return parse_unit(expr)
    for n in (2, 1):
        prefix, rest = atom[:n], atom[n:]
        if prefix not in v.prefixes or not rest:
            continue
        if rest in v.refused:
            why, alts = v.refused[rest]
            return [f"UCUM {rest!r}: {why}", alts]
        if rest in v.metric:
            base = parse_unit(v.atoms[rest])
            unit = table.lookup(prefix + base.symbol)
            factor = table.registry().prefixes.get(prefix, (None, None))[1]
            if unit is None or factor is None or unit.dims != base.dims \
                    or unit.factor != factor * base.factor:
                return [f"UCUM {atom!r} (prefix {prefix!r} on {rest!r}) is outside the subset "
                        f"this kernel reads", (base.symbol,)]
            return unit
    return None


class _UcumParser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.count = 0
        self.offset: "str | None" = None
        self.whole: "Unit | None" = None

    def error(self, message: str, pos: "int | None", suggestions=()) -> UnitParseError:
        where = f" at position {pos}" if pos is not None else ""
        return UnitParseError(f"{message}{where} in UCUM code {self.text!r}", text=self.text,
                              position=pos, suggestions=tuple(suggestions))

    def parse(self) -> Unit:
        """expression := term END"""
        text = self.text
        if not text:
            raise self.error("empty UCUM code; UCUM writes '1' for a dimensionless quantity",
                             None)
        if len(text) > _MAX_LENGTH:
            raise UnitParseError(f"UCUM code too long ({len(text)} characters; at most "
                                 f"{_MAX_LENGTH})", text=text[:40] + "...")
        for k, ch in enumerate(text):
            if ch == " ":
                raise self.error("a UCUM code has no spaces (a CF/udunits string such as "
                                 "'m3 s-1' is read by the default vocabulary)", k)
            if not ("!" <= ch <= "~"):
                raise self.error(f"character {ch!r} is not in UCUM's ASCII alphabet", k)
            if ch in "{}":
                raise self.error("a UCUM annotation {...} carries no meaning in a unit and is "
                                 "not read; keep the note beside the value", k)
        terms = self.term(0)
        if self.i < len(text):
            raise self.error("unbalanced ')'" if text[self.i] == ")" else
                             f"unexpected {text[self.i]!r}", self.i)
        if self.offset is not None and (self.count != 1 or terms.get(self.offset) != 1):
            err = self.error(f"{self.offset} is a temperature scale with an offset (a point), so "
                             f"it cannot take part in a compound unit", None)
            err.suggestion = "K for a temperature difference, e.g. K/s"
            raise err
        if self.whole is not None and self.count == 1:
            return self.whole
        if self.offset is not None:  # "(Cel)", "Cel1": the scale itself, offset and all
            return table.term_units()[self.offset]
        return build(terms, lambda message: self.error(message, None))

    def term(self, depth: int) -> dict:
        """term := '/'? component ( ('.' | '/') component )*"""
        text, n = self.text, len(self.text)
        if self.i < n and text[self.i] == "/":
            self.i += 1
            acc = {s: -p for s, p in self.component(depth).items()}
            self.whole = None
        else:
            acc = self.component(depth)
        while self.i < n and text[self.i] in "./":
            op = text[self.i]
            self.i += 1
            sign = 1 if op == "." else -1
            for s, p in self.component(depth).items():
                acc[s] = acc.get(s, 0) + sign * p
        return acc

    def component(self, depth: int) -> dict:
        """component := '(' term ')' | simple exponent? | '1'"""
        text, n = self.text, len(self.text)
        start = self.i
        if start >= n:
            raise self.error("the code ends where a unit was expected", start)
        if text[start] == "(":
            if depth >= _MAX_DEPTH:
                raise self.error(f"parentheses nested deeper than {_MAX_DEPTH}", start)
            self.i += 1
            terms = self.term(depth + 1)
            if self.i >= n or text[self.i] != ")":
                raise self.error("missing ')'", self.i)
            self.i += 1
            if self.i < n and text[self.i] not in _OPERATORS:
                raise self.error("UCUM puts no exponent after ')': write each unit's own "
                                 "exponent, e.g. m2.s-2", self.i)
            return terms
        j = start
        while j < n and text[j] not in _OPERATORS:
            if text[j] == "[":
                k = text.find("]", j)
                if k < 0:
                    raise self.error("missing ']'", j)
                j = k + 1
            else:
                j += 1
        run = text[start:j]
        if not run:
            raise self.error(f"unexpected {text[start]!r} where a unit was expected", start)
        self.i = j
        k = len(run)
        while k > 0 and run[k - 1].isdigit():
            k -= 1
        if k > 0 and run[k - 1] in "+-" and k < len(run):
            k -= 1
        atom, digits = run[:k], run[k:]
        if not atom:
            if digits == "1":
                self.count += 1
                return {}
            raise self.error(f"the number {digits} inside a unit; put the scale in the value "
                             f"(only 1 is allowed)", start)
        exp = 1
        if digits:
            body = digits.lstrip("+-")
            if len(body) > 3 or int(body) > parser.MAX_WRITTEN_EXPONENT:
                raise self.error(f"exponent {digits} is out of range (at most "
                                 f"{parser.MAX_WRITTEN_EXPONENT})", start + k)
            exp = int(digits)
            if exp == 0:
                raise self.error("an exponent of 0 makes the unit meaningless", start + k)
        unit = atom_unit(atom)
        if unit is None:
            raise self.error(f"{atom!r} is not a UCUM code in the subset this kernel reads "
                             f"(UCUM is case-sensitive)", start, suggestions=_suggest(atom))
        if unit.__class__ is list:
            raise self.error(unit[0], start, suggestions=unit[1])
        self.count += 1
        self.whole = unit if self.count == 1 and exp == 1 else None
        pieces = table.pieces(unit)
        if unit.offset is not None:
            self.offset = pieces[0][0]
            if exp != 1:
                raise self.error(f"{atom} is a temperature point and cannot be raised to a "
                                 f"power", start + k)
        if exp == 1:
            return dict(pieces)
        self.whole = None
        return {s: p * exp for s, p in pieces}


def _suggest(atom: str) -> list[str]:
    """For a kernel spelling (``cfs``, ``degC``) its UCUM code; else close UCUM atoms."""
    out: list[str] = []
    unit = try_parse_unit(atom)
    if unit is not None and code_of(unit):
        out.append(code_of(unit))  # type: ignore[arg-type]  # not None: tested just above
    import difflib
    for a in difflib.get_close_matches(atom, list(vocabulary().atoms), n=3, cutoff=0.6):
        if a not in out:
            out.append(a)
    return out[:4]


def parse_ucum(text: str) -> Unit:
    """A UCUM code (case-sensitive) -> the kernel Unit with the same exact meaning."""
    return _UcumParser(text).parse()


# -- writing ----------------------------------------------------------------------------------
def code_of(unit: Unit) -> "str | None":
    """The UCUM code of a unit, or None when UCUM has no exact code for it in the subset.

    Every code returned parses back (``vocabulary="ucum"``) to an equal unit."""
    if unit.interval:
        return None  # UCUM has no temperature *difference* distinct from K
    acc: dict[str, int] = {}
    for sym, p in unit.terms:
        code = _term_code(sym)
        if code is None:
            return None
        for atom, q in code:
            acc[atom] = acc.get(atom, 0) + q * p
    text = _render(acc)
    try:
        back = parse_ucum(text)
    except UnitParseError:  # pragma: no cover - a rendering the reader refuses is a bug
        return None
    return text if back == unit else None


def _term_code(sym: str, seen: frozenset = frozenset()):
    try:
        return _CODES[sym]
    except KeyError:
        pass
    if sym in seen:  # pragma: no cover - a definition cycle; the table has none
        return None
    code = _find_code(sym, seen | {sym})
    _CODES[sym] = code
    return code


def _find_code(sym: str, seen: frozenset):
    v = vocabulary()
    if sym in v.kernel:
        text = v.kernel[sym]
        return None if text is None else _atoms_of(text)
    if sym in v.inverse:
        return [(v.inverse[sym], 1)]
    info = table.describe(sym)
    if info is None:
        return None
    row, prefix, _ = info
    if prefix:
        base = _term_code(row.symbol, seen)
        if not base or base[0][1] != 1 or base[0][0] not in v.metric or prefix not in v.prefixes:
            return None
        return [(prefix + base[0][0], 1), *base[1:]]
    head, _, rest = row.definition.partition(" ")
    if head != "1" or not rest:
        return None  # a scaled definition (kcfs = 1000 ft3/s) has no UCUM code without a number
    out: list = []
    for s, p in parse_unit(rest).terms:
        code = _term_code(s, seen)
        if code is None:
            return None
        out.extend((a, q * p) for a, q in code)
    return out


def _atoms_of(text: str) -> list:
    """``"W.h"`` -> ``[("W", 1), ("h", 1)]`` (a kernel override in the data file)."""
    out = []
    for part in text.replace("/", "./").split("."):
        sign = -1 if part.startswith("/") else 1
        part = part.lstrip("/")
        k = len(part)
        while k > 0 and (part[k - 1].isdigit() or part[k - 1] == "-"):
            k -= 1
        out.append((part[:k], sign * (int(part[k:]) if part[k:] else 1)))
    return out


def _render(acc: dict) -> str:
    num = [(a, p) for a, p in acc.items() if p > 0]
    den = [(a, -p) for a, p in acc.items() if p < 0]
    for _, p in num + den:
        if p > MAX_EXPONENT:  # pragma: no cover - the kernel's units never get here
            raise OverflowError(p)
    if not num and not den:
        return "1"
    if not num:
        return ".".join(f"{a}-{p}" for a, p in den)
    text = ".".join(a if p == 1 else f"{a}{p}" for a, p in num)
    for a, p in den:
        text += "/" + (a if p == 1 else f"{a}{p}")
    return text


def ucum_of(text: str) -> "str | None":
    """The UCUM code of a unit expression in the kernel's grammar (None if there is none)."""
    return code_of(parse_unit(text))


table.install(atom_unit=atom_unit)
parser.install(parse_ucum=parse_ucum)
_unit.install(code_of=code_of)

__all__ = ["parse_ucum", "code_of", "atom_unit", "atoms", "ucum_of"]
