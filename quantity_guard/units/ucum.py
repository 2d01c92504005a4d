"""UCUM codes read case-sensitively, as UCUM defines them, and ``Unit.ucum`` written back.

The vocabulary (``data/units_ucum.json``) is UCUM's own table, ``ucum-essence.xml`` (version
2.2): every atom with its value and definition over the atoms before it, evaluated here in
exact arithmetic on first use. An atom with the same meaning as a kernel row reads as that row
(``[ft_i]`` is ``ft``); one the kernel has not reads as its own term (``[tbs_us]``), or, when
its code could be misread outside UCUM (``g%``, ``U``), as its definition in kernel terms.
Where UCUM defines an atom otherwise than the kernel (``[Btu]`` is thermochemical, ``m[Hg]``
133.3220 kPa), ``vocabulary="ucum"`` reads UCUM's value; the kernel's own grammar, which reads
a bracket as UCUM's too, refuses those few with the reason.

Numbers inside a code are read (``10*3/uL``, ``mL/(8.h)``, ``4.[pi].10*-7.N/A2``): the unit
carries the number as a term of its own, so its symbol (``1000/uL``) is refused, not misread,
by the kernel's grammar, where a scale belongs in the value. Annotations (``{cfu}``) carry no
dimension: ``{cfu}/mL`` is ``1/mL``. Arbitrary units (``[IU]``, ``[APL'U]``: UCUM marks them
so) have no conversion and are refused, saying so; so are the special units whose scale is
neither linear nor logarithmic (``[pH]``, ``[p'diop]``, ``bit_s``, ``[hp'_X]``). The offset
scales ``Cel``, ``[degF]``, ``[degRe]`` are read with their offset; ``Np`` and ``B`` (``dB``)
as the kernel's levels; the levels with a reference (``B[SPL]``, ``dB[V]``, ``B[kW]``) as
scales with an offset on the level axis and their quantity's (``level_unit``), so they convert
among themselves (0 dB[V] is 60 dB[mV]) and never to anything else.

Grammar (UCUM section 2)::

    main-term  := '/'? term
    term       := component ( ('.' | '/') component )*
    component  := annotatable annotation? | annotation | factor annotation? | '(' term ')'
    annotatable:= simple exponent?       e.g. m, kg, [ft_i], m[H2O], mo_j, ', '', 10*3
    simple     := prefix? atom
    exponent   := ('+' | '-')? INT       written straight after the unit: m3, s-1, [ft_i]3
    factor     := INT                     e.g. 8 in mL/(8.h)
    annotation := '{' ASCII characters but braces '}'

``/`` applies to the next component only and the operators associate left, as in the kernel's
own grammar: ``kg/m2/s`` is ``kg.m-2.s-1``. There are no spaces in a UCUM code.
"""
from __future__ import annotations

import os
from fractions import Fraction

from ..errors import UnitParseError
from . import parser, table
from . import unit as _unit
from .dimension import AXES, DIMENSIONLESS, MAX_EXPONENT
from .parser import build, parse_unit, try_parse_unit
from .unit import Unit

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                     "units_ucum.json")
_MAX_LENGTH = 200
_MAX_DEPTH = 12
_OPERATORS = frozenset("./(){")
_TEN_POWER = ("10*", "10^")


class _Vocabulary:
    def __init__(self) -> None:
        import json
        with open(_DATA, encoding="utf-8") as fh:
            data = json.load(fh)
        self.prefixes: dict[str, Fraction] = {k: Fraction(v) for k, v in data["prefixes"].items()}
        self.atoms: dict[str, dict] = {a["code"]: a for a in data["atoms"]}
        self.metric: frozenset[str] = frozenset(a["code"] for a in data["atoms"] if a["metric"])
        self.refused_outside: dict[str, tuple[str, tuple[str, ...]]] = {
            k: (why, tuple(alts)) for k, (why, alts) in data["refused_outside_ucum"].items()}
        self.writer: dict[str, "str | None"] = data["writer"]
        self.inverse: dict[str, str] = {}
        for a in data["atoms"]:
            if "kernel" in a:
                self.inverse.setdefault(a["kernel"], a["code"])


_VOCAB: "_Vocabulary | None" = None
_ATOMS: dict = {}
_CODES: dict = {}


def vocabulary() -> _Vocabulary:
    global _VOCAB
    if _VOCAB is None:
        _VOCAB = _Vocabulary()
    return _VOCAB


def atoms() -> tuple[str, ...]:
    """The UCUM atoms (without prefixes), in ucum-essence.xml's order."""
    return tuple(vocabulary().atoms)


def metric_atoms() -> frozenset[str]:
    """The atoms that take a prefix."""
    return vocabulary().metric


# -- numbers as terms --------------------------------------------------------------------------
def number_symbol(value: Fraction) -> str:
    """The term symbol of a number inside a unit: ``8``, ``1000``, ``0.001``, ``1e23``,
    ``1.60217733e-19``, ``1/3``."""
    n, d = value.numerator, value.denominator
    if d == 1:
        return f"1e{len(str(n)) - 1}" if n >= 10 ** 6 and str(n).rstrip("0") == "1" else str(n)
    rest = d
    for p in (2, 5):
        while rest % p == 0:
            rest //= p
    if rest != 1:
        return f"{n}/{d}"
    from decimal import Context, Decimal
    exact = Context(prec=len(str(n)) + len(str(d)) + 5).divide(Decimal(n), Decimal(d))
    exact = exact.normalize()
    if -5 < exact.adjusted() < 7:
        return format(exact, "f")
    return format(exact, "e").replace("e+", "e")


def number_term(value: Fraction) -> str:
    """Register a number as a term (its own dimensionless unit) and return its symbol."""
    sym = number_symbol(value)
    terms = table.term_units()
    if sym not in terms:
        terms[sym] = Unit(value, DIMENSIONLESS, ((sym, 1),))
    return sym


def own_term(code: str, factor: Fraction, dims: tuple, offset=None) -> Unit:
    """A unit the kernel has no row for (a UCUM atom, a udunits level), as a term of its own,
    spelled ``code``, registered once."""
    terms = table.term_units()
    unit = terms.get(code)
    if unit is None:
        unit = Unit(factor, dims, ((code, 1),), offset)
        terms[code] = unit
    return unit


#: a level's canonical value is lg(X / (1e-100 X_SI)), in bels: every reference then sits at a
#: positive offset on it (1 V at 100 B), so a level with a reference is a scale with an offset,
#: kept out of compound units like a temperature point, and two levels of one quantity convert
#: by their offsets (0 dB[V] is 60 dB[mV])
_LEVEL_ZERO = 100
_LOG_DIGITS = 60


def level_unit(code: str, per_bel: Fraction, reference: Unit) -> Unit:
    """A logarithmic level of ``reference``'s quantity: a value x in it is ``per_bel`` times
    lg(X / reference) (UCUM's 2lg for a field quantity such as a voltage: ``per_bel`` 2;
    scaled by a prefix: dB is a tenth of a bel). Its dimension is the level axis and the
    reference's, so levels of different quantities never convert."""
    from decimal import Context, Decimal
    ctx = Context(prec=_LOG_DIGITS)
    ref = reference.factor
    lg = ctx.subtract(ctx.log10(Decimal(ref.numerator)), ctx.log10(Decimal(ref.denominator)))
    offset = Fraction(lg) + _LEVEL_ZERO
    dims = tuple(a + b for a, b in zip(reference.dims, _LEVEL_DIMS))
    return own_term(code, 1 / per_bel, dims, offset)


_LEVEL_DIMS = tuple(1 if axis == "level_bel" else 0 for axis in AXES)
_LOG_FUNCTIONS = {"lg": 1, "lgTimes2": 2}  # UCUM's level functions with a reference


def is_level(unit: Unit) -> bool:
    """A logarithmic level with a reference (B[V], udunits' BZ)."""
    return unit.offset is not None and bool(unit.dims[_LEVEL_AXIS])


_LEVEL_AXIS = _LEVEL_DIMS.index(1)


# -- reading atoms ----------------------------------------------------------------------------
def atom_unit(atom: str, strict: bool = False):
    """The kernel Unit for a UCUM atom with an optional prefix (memoised), a refusal
    ``[why, alternatives]``, or None when the code is no UCUM atom. ``strict`` is UCUM's own
    reading; without it (the kernel's grammar reading a bracket) the atoms whose UCUM value
    differs from the kernel's convention are refused."""
    key = (atom, strict)
    try:
        return _ATOMS[key]
    except KeyError:
        pass
    hit = _atom_unit(atom, strict)
    _ATOMS[key] = hit
    return hit


def _atom_unit(atom: str, strict: bool):
    v = vocabulary()
    if not strict:
        for code in (atom, atom[1:], atom[2:]):
            if code in v.refused_outside and (code == atom or atom[:len(atom) - len(code)]
                                              in v.prefixes):
                why, alts = v.refused_outside[code]
                return [f"UCUM {code!r}: {why}", alts]
    if atom in v.atoms:
        return _evaluate(atom)
    for n in (2, 1):
        prefix, rest = atom[:n], atom[n:]
        if prefix not in v.prefixes or rest not in v.atoms:
            continue
        if rest not in v.metric:
            return [f"UCUM {rest!r} takes no prefix ({prefix!r}): it is not a metric unit", ()]
        return _prefixed(prefix, rest)
    return None


def _evaluate(code: str):
    """An atom's unit from its definition, or a refusal."""
    rec = vocabulary().atoms[code]
    if rec.get("arbitrary"):
        return [f"UCUM {code!r} ({rec['name']}) is an arbitrary unit: its amount is defined by a "
                f"procedure, so it has no conversion to any other unit; keep the count as a "
                f"plain number and name the unit beside it", ()]
    if "kernel" in rec:
        return parse_unit(rec["kernel"])
    if code in _TEN_POWER:
        return table.term_units().get("10") or own_term("10", Fraction(10), DIMENSIONLESS)
    if rec.get("special") in _LOG_FUNCTIONS and code.startswith("B["):
        reference = _UcumParser(f"{rec['value']}.{rec['unit']}").terms_of()
        return level_unit(code, Fraction(_LOG_FUNCTIONS[rec["special"]]),
                          build(reference, _fail(code)))
    if "special" in rec and "offset" not in rec:
        return [f"UCUM {code!r} ({rec['name']}) is a special unit whose scale is not linear "
                f"({rec['special']} of {rec['value']} {rec['unit']}): it has no conversion "
                f"factor; give the quantity it is a level of", ()]
    value = Fraction(rec["value"])
    inner = _UcumParser(rec["unit"]).terms_of()
    if "offset" in rec:  # an offset scale the kernel has no row for ([degRe])
        u = build(inner, _fail(code))
        return own_term(code, value * u.factor, u.dims, Fraction(rec["offset"]))
    if "[" in code:  # a bracket is read as UCUM's in the kernel grammar too: its own term
        u = build(inner, _fail(code))
        return own_term(code, value * u.factor, u.dims)
    if value != 1:
        sym = number_term(value)
        inner = {sym: inner.get(sym, 0) + 1, **{s: p for s, p in inner.items() if s != sym}}
    return build(inner, _fail(code))


def _prefixed(prefix: str, code: str):
    base = _evaluate(code)
    if base.__class__ is list:
        return base
    v = vocabulary()
    factor = v.prefixes[prefix]
    want = (base.factor * factor, base.dims, base.offset)
    rec = v.atoms[code]
    for spelling in (prefix + rec["kernel"] if "kernel" in rec else None, prefix + code):
        if spelling is None or "[" in spelling or spelling[-1] in "'%":
            continue
        unit = table.lookup(spelling)
        if unit is not None and (unit.factor, unit.dims, unit.offset) == want:
            return unit
    if base.offset is not None and is_level(base):  # dB[V]: a tenth of a bel, same reference
        return own_term(prefix + code, base.factor * factor, base.dims, base.offset)
    if base.offset is not None:
        return [f"UCUM {prefix + code!r}: a prefix on a temperature scale has no meaning", ()]
    if "[" in code:
        return own_term(prefix + code, want[0], base.dims)
    rest = {s: p for s, p in base.terms if not (s[:1].isdigit() and p == 1)}
    for s, p in base.terms:
        if s[:1].isdigit() and p == 1:  # one number: the prefix times the atom's own
            factor *= table.term_units()[s].factor
    terms = {number_term(factor): 1, **rest} if factor != 1 else rest
    return build(terms, _fail(prefix + code))


def _fail(code: str):
    return lambda message: UnitParseError(f"UCUM {code!r}: {message}", text=code)


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

    def check(self) -> None:
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

    def terms_of(self) -> dict:
        """A definition from the table: its exponent map (numbers included)."""
        text = self.text
        if text.startswith("/"):
            self.i = 1
            return {s: -p for s, p in self.term(0).items()}
        terms = self.term(0)
        if self.i < len(text):  # pragma: no cover - the table's definitions all read
            raise self.error(f"unexpected {text[self.i]!r}", self.i)
        return terms

    def parse(self) -> Unit:
        """main-term := '/'? term END"""
        self.check()
        text = self.text
        if text[0] == "/":
            self.i = 1
            terms = {s: -p for s, p in self.term(0).items()}
            self.whole = None
        else:
            terms = self.term(0)
        if self.i < len(text):
            raise self.error("unbalanced ')'" if text[self.i] == ")" else
                             f"unexpected {text[self.i]!r}", self.i)
        if self.offset is not None and (self.count != 1 or terms.get(self.offset) != 1):
            err = self.error(f"{self.offset} is {parser.scale_kind(self.offset)} (a point), so "
                             f"it cannot take part in a compound unit", None)
            err.suggestion = "K for a temperature difference, e.g. K/s"
            raise err
        if self.whole is not None and self.count == 1:
            return self.whole
        if self.offset is not None:  # "(Cel)", "Cel1": the scale itself, offset and all
            return table.term_units()[self.offset]
        return build(terms, lambda message: self.error(message, None))

    def term(self, depth: int) -> dict:
        """term := component ( ('.' | '/') component )*"""
        text, n = self.text, len(self.text)
        acc = self.component(depth)
        while self.i < n and text[self.i] in "./":
            op = text[self.i]
            self.i += 1
            sign = 1 if op == "." else -1
            self.whole = None
            for s, p in self.component(depth).items():
                acc[s] = acc.get(s, 0) + sign * p
        return acc

    def component(self, depth: int) -> dict:
        """component := annotatable annotation? | annotation | factor annotation? | '(' term ')'"""
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
            self._after(start)
            self.whole = None
            return terms
        if text[start] == "{":
            self._annotation()
            self.count += 1
            self.whole = None
            self._after(start)
            return {}
        terms = self.annotatable(start)
        if self.i < n and text[self.i] == "{":
            self._annotation()
            self.whole = None
        self._after(start)
        return terms

    def _after(self, start: int) -> None:
        text = self.text
        if self.i < len(text) and text[self.i] not in "./)":
            if text[start] == "{" or text[self.i - 1] == "}":
                raise self.error("an annotation {...} ends a component: put '.' or '/' after "
                                 "it", self.i)
            if text[self.i - 1] == ")":
                raise self.error("UCUM puts no exponent after ')': write each unit's own "
                                 "exponent, e.g. m2.s-2", self.i)
            raise self.error(f"unexpected {text[self.i]!r} after a unit: join units with '.' "
                             f"or '/'", self.i)

    def _annotation(self) -> None:
        text = self.text
        k = text.find("}", self.i)
        if k < 0:
            raise self.error("missing '}'", self.i)
        if "{" in text[self.i + 1:k]:
            raise self.error("an annotation holds no '{'", self.i)
        self.i = k + 1

    def annotatable(self, start: int) -> dict:
        text, n = self.text, len(self.text)
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
        if run.isdigit():  # a factor
            if int(run) == 0:
                raise self.error("a factor of 0 makes the unit meaningless", start)
            self.count += 1
            self.whole = None
            value = int(run)
            return {} if value == 1 else {number_term(Fraction(value)): 1}
        k = len(run)
        while k > 0 and run[k - 1].isdigit():
            k -= 1
        if k > 0 and run[k - 1] in "+-" and k < len(run):
            k -= 1
        atom, digits = run[:k], run[k:]
        if atom in _TEN_POWER:
            if not digits:
                raise self.error(f"{atom} needs its exponent, e.g. 10*3", start)
            self.count += 1
            self.whole = None
            exp = int(digits)
            if abs(exp) > 99:
                raise self.error(f"exponent {digits} is out of range", start + k)
            return {} if exp == 0 else {number_term(Fraction(10) ** exp): 1}
        if not atom or atom[0].isdigit() and not atom.startswith("10*"):
            raise self.error(f"{run!r} is no unit: a number is joined to a unit with '.' "
                             f"(8.h, not 8h)", start)
        exp = 1
        if digits:
            body = digits.lstrip("+-")
            if len(body) > 3 or int(body) > parser.MAX_WRITTEN_EXPONENT:
                raise self.error(f"exponent {digits} is out of range (at most "
                                 f"{parser.MAX_WRITTEN_EXPONENT})", start + k)
            exp = int(digits)
            if exp == 0:
                raise self.error("an exponent of 0 makes the unit meaningless", start + k)
        unit = atom_unit(atom, strict=True)
        if unit is None:
            raise self.error(f"{atom!r} is not a UCUM code (UCUM is case-sensitive)", start,
                             suggestions=_suggest(atom))
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
    """A UCUM code (case-sensitive) -> the kernel Unit with the same meaning."""
    return _UcumParser(text).parse()


# -- writing ----------------------------------------------------------------------------------
def code_of(unit: Unit) -> "str | None":
    """The UCUM code of a unit, or None when UCUM has no exact code for it.

    Every code returned parses back (``vocabulary="ucum"``) to an equal unit."""
    if unit.interval:
        return None  # UCUM has no temperature *difference* distinct from K
    acc: dict[str, int] = {}
    number = Fraction(1)
    for sym, p in unit.terms:
        if sym[:1].isdigit():  # numbers are written as one factor: 10*3, 8, /10*6
            number *= table.term_units()[sym].factor ** p
            continue
        code = _term_code(sym)
        if code is None:
            return None
        for atom, q in code:
            acc[atom] = acc.get(atom, 0) + q * p
    if number != 1:
        for n, sign in ((number.numerator, 1), (number.denominator, -1)):
            if n != 1:
                digits = str(n)
                ten = digits.rstrip("0") == "1" and len(digits) > 3
                acc[f"10*{len(digits) - 1}" if ten else digits] = sign
    text = _render(acc)
    if text is None:
        return None
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
    if sym in v.writer:
        text = v.writer[sym]
        return None if text is None else _atoms_of(text)
    if sym in v.inverse:
        return [(v.inverse[sym], 1)]
    if "[" in sym:  # a UCUM atom of its own term ([tbs_us], cm[H2O])
        return [(sym, 1)]
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


def _render(acc: dict) -> "str | None":
    num = [(a, p) for a, p in acc.items() if p > 0]
    den = [(a, -p) for a, p in acc.items() if p < 0]
    for a, p in num + den:
        if p > MAX_EXPONENT:  # pragma: no cover - the kernel's units never get here
            raise OverflowError(p)
        if a[:1].isdigit() and p != 1:
            return None  # a number's power has no code of its own (10*3 squared is 10*6)
    if not num and not den:
        return "1"
    if not num and not any(a[:1].isdigit() for a, _ in den):
        return ".".join(f"{a}-{p}" for a, p in den)
    if not num:
        num = [("1", 1)]
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

__all__ = ["parse_ucum", "code_of", "atom_unit", "atoms", "metric_atoms", "ucum_of",
           "number_symbol", "number_term", "own_term", "level_unit", "is_level"]
