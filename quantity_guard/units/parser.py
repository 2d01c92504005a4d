"""Unit expressions: a hand-written tokenizer and a recursive-descent parser. No ``eval``.

It reads what services and models write: ``m**3/s``, ``m^3/s``, ``m3/s``, ``ft³/s``,
``m3 s-1``, ``m.s-1``, ``kg·m/s²``, ``1/s``, ``mm / d``, ``acre-ft``, ``kW h``, ``°C``,
``Δ°C``, ``µS/cm``; CF/udunits strings (``kg m-2 s-1``, ``degree_Celsius``, ``degrees``);
bracketed UCUM atoms (``[ft_i]3/s``, ``[gal_us]/min``, ``m[H2O]``). ``vocabulary="ucum"``
reads UCUM codes strictly instead (``ucum.py``).

Grammar (precedence of ``/`` as in pint, unyt and quantities; astropy differs)::

    expression := product END
    product    := power ( ('*' | '.' | '·' | ' ') power | ('/' | 'per') power )*
    power      := primary exponent?
    primary    := NAME | '1' | '(' product ')' | ('sq' | 'cu') NAME
    exponent   := ('**' | '^') ('+' | '-')? INT      e.g. m**3, s^-1
                | ('+' | '-')? INT   written directly after a NAME or ')', e.g. s-1, (m/s)2
                | a trailing INT inside a NAME that is not itself a unit, e.g. m3, ft3, km2
    NAME       := letters, digits, '_' and bracketed UCUM atoms ([ft_i], m[H2O]); two words
                  that are one long name of the table ("degrees Celsius") are one NAME

``/`` takes exactly the next power: ``a/b/c`` is ``a/(b*c)`` and ``a/b*c`` is ``(a/b)*c``.
Implicit products (a space, ``.``, ``·``) bind like ``*``. A hyphen between two names is part
of a table name (``acre-ft``, ``second-foot``) or a product of two known units (``kW-h``).
Numbers other than ``1`` are refused: a scale belongs in the value, not the unit. A CF time
coordinate (``days since 1970-01-01``) is refused: it is a timestamp, not a unit.

Degrees: a degree alone (``deg``, ``degree``, ``degrees``, ``°``) is a plane angle, as in UCUM,
udunits and the SI; a temperature is ``degC``/``°C``/``degree_Celsius``, ``degF``, ``K``.
"deg K", "degree C" and the like are refused rather than read as an angle times a kelvin.

Evaluation builds no intermediate unit: the rules return exponent maps (term symbol ->
power), and one ``Unit`` is made at the end from the table's units of those symbols (its
factor from integer numerators and denominators, one ``Fraction``). Name resolution is
memoised in the table (``table.resolve``), and units built from the same terms are shared.
The common shape (names and exponents joined by ``*``, ``/``, ``.`` or one space) is read by
``_fast`` without tokens; anything else, and every error, goes through the full parser.

Before tokenizing, characters are normalised one by one (NFKC, so superscripts become digits),
``µ``/``μ`` -> ``u``, ``°C``/``℃``/``ºC`` -> ``degC``, ``°`` alone -> ``deg``, ``Δ`` ->
``delta_``, ``·×⋅`` -> ``*``, ``−`` -> ``-``. Any other character outside
``[A-Za-z0-9_*/^().%+- []]`` is refused with its position (a UCUM annotation ``{...}`` with a
reason; a prime mark ``'`` ``''`` ``"`` ``′`` ``″`` ``’`` as ambiguous: a foot or an inch in US
usage, an arc minute or an arc second in UCUM, which ``vocabulary="ucum"`` reads). Input longer than ``MAX_LENGTH`` or nested deeper than ``MAX_DEPTH``
is refused.
"""
from __future__ import annotations

import re
import unicodedata
from fractions import Fraction

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # annotations only: they are never evaluated at run time
    from typing import Callable

from ..errors import UnitParseError
from . import table
from .dimension import AXES, MAX_EXPONENT, N_AXES
from .unit import ONE, Unit

MAX_LENGTH = 200
MAX_DEPTH = 12
# Any power a unit's term can reach (the algebra allows MAX_EXPONENT) can also be written, so
# every printed form of a unit reads back (``[cft_i]10`` is ft**30 and prints as ``ft30``).
MAX_WRITTEN_EXPONENT = MAX_EXPONENT

_CHARS = {
    "\u2019": "'", "\u2032": "'", '"': "''", "\u2033": "''",   # prime marks (refused, see _PRIME_SINGLE)
    "\u00b7": "*", "\u22c5": "*", "\u00d7": "*", "\u2219": "*",   # middle dots, times
    "\u2212": "-", "\u2010": "-", "\u2011": "-",                   # minus sign, hyphens
    "\u00b5": "u", "\u03bc": "u",                                  # micro sign, Greek mu
    "\u0394": "delta_", "\u2206": "delta_",                        # Delta, increment
    "\u00ba": "\u00b0",                                            # ordinal indicator typed for degree
    "\t": " ", "\u00a0": " ", "\u202f": " ", "\u2009": " ",
    "\u2103": "degC", "\u2109": "degF",                           # the one-character symbols
    "\u03a9": "ohm", "\u2126": "ohm",                             # Greek capital omega, ohm sign
}
_ALLOWED = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_*/^().%+- "
                     "[]'{}")
_DEGREE_SCALES = {"C": "degC", "F": "degF", "R": "degR"}
_POWER_WORDS = {"sq": 2, "square": 2, "cu": 3, "cubic": 3}
#: words after a degree that make it a temperature, not an angle: "deg K", "degrees Kelvin"
TEMPERATURE_WORDS = frozenset({"C", "F", "K", "R", "Celsius", "Fahrenheit", "Kelvin", "Rankine",
                                "celsius", "fahrenheit", "kelvin", "rankine", "centigrade"})
VOCABULARIES = ("kernel", "ucum", "cf")

_CACHE: dict[str, Unit] = {}
_UCUM_CACHE: dict[str, Unit] = {}
_CF_CACHE: dict[str, Unit] = {}
_CACHE_LIMIT = 4096


_KERNEL = "kernel"


def parse_unit(text: "str | Unit", vocabulary: str = _KERNEL) -> Unit:
    """Parse a unit expression (cached). A ``Unit`` is returned unchanged.

    ``vocabulary="kernel"`` (the default) reads the kernel's own grammar, which also takes
    CF/udunits spellings (``m3 s-1``, ``degree_Celsius``) and bracketed UCUM atoms
    (``[ft_i]3/s``, ``[gal_us]/min``: a bracket is never anything else). ``vocabulary="ucum"``
    reads UCUM codes strictly, case-sensitively, as UCUM defines them: there ``a`` is the
    Julian year and ``ar`` the are, while kernel spellings such as ``cfs`` are not UCUM.

    Raises ``UnitParseError`` (and nothing else) for anything it cannot read, with the
    position of the problem and close matches.
    """
    if text.__class__ is Unit:
        return text
    if vocabulary is not _KERNEL and vocabulary != _KERNEL:
        return _parse_in(text, vocabulary)
    try:
        return _CACHE[text]  # type: ignore[index]
    except KeyError:
        pass
    except TypeError:
        raise UnitParseError(f"a unit must be a string, not {type(text).__name__}",
                             text=repr(text)) from None
    if not isinstance(text, str):
        raise UnitParseError(f"a unit must be a string, not {type(text).__name__}", text=repr(text))
    unit = _fast(text) or _Parser(text).parse()
    if len(_CACHE) < _CACHE_LIMIT:
        _CACHE[text] = unit
    return unit


_FACTOR = re.compile(r"([*/. ]?)([A-Za-z_][A-Za-z0-9_]*)(?:(?:\*\*|\^)([+-]?[0-9]{1,2})|([+-][0-9]{1,2}))?")


def _fast(text: str) -> "Unit | None":
    """The common shape, read without tokens: names with optional exponents joined by ``*``,
    ``/``, ``.`` or one space (``ft**3/s``, ``kg m-2 s-1``, ``uS/cm``). Anything else, and
    anything this path is unsure of (an unknown or refused name, a temperature scale, a
    two-word name, ``per``, ``sq``, an exponent out of range), returns None and the full
    parser reads it, with its errors. Same results as the full parser (tested)."""
    n = len(text)
    if n > MAX_LENGTH or not text.isascii():
        return None
    match = _FACTOR.match
    terms: dict = {}
    pos = 0
    count = 0
    whole = None
    heads = table.multiword_heads()
    degree = None
    while pos < n:
        m = match(text, pos)
        if m is None:
            return None
        op, name, e1, e2 = m.groups()
        if (count == 0) != (op == ""):
            return None
        if op == " " and (degree or name == "since"):
            return None  # "deg K", "days since ...": the full parser says why
        if name in _POWER_WORDS or name == "per":
            return None
        hit = table.resolve(name)
        if hit.__class__ is not tuple or hit[3] is not None:
            return None  # unknown, refused, or a temperature point
        unit, pieces, exp, _ = hit
        if exp != 1:
            digits = name[len(name.rstrip("0123456789")):]
            if len(digits) > 2 or exp == 0 or exp > MAX_WRITTEN_EXPONENT:
                return None
        written = e1 or e2
        if written is not None:
            w = int(written)
            if w == 0 or w > MAX_WRITTEN_EXPONENT or w < -MAX_WRITTEN_EXPONENT:
                return None
            exp *= w
        end = m.end()
        if end < n and text[end] == " " and name.lower() in heads:
            return None  # perhaps a two-word name ("degrees Celsius")
        degree = unit is not None and unit is _degree()
        sign = -1 if op == "/" else 1
        for sym, p in pieces:
            p *= exp
            if p > MAX_EXPONENT or p < -MAX_EXPONENT:
                return None  # the full parser refuses it as out of range
            terms[sym] = terms.get(sym, 0) + sign * p
        count += 1
        whole = unit if count == 1 and exp == 1 and written is None else None
        pos = end
    if count == 0:
        return None
    if whole is not None and count == 1:
        return whole
    if terms.get("Mm") in (3, -3):
        return None  # "Mm3": ambiguous, and the full parser says so
    try:
        return build(terms, lambda message: UnitParseError(message, text=text))
    except UnitParseError:
        return None  # out of range: the full parser raises it with its position


def _parse_in(text, vocabulary: str) -> Unit:
    if vocabulary == "ucum":
        cache, read = _UCUM_CACHE, _Above.parse_ucum
    elif vocabulary == "cf":
        cache, read = _CF_CACHE, _Above.parse_cf
    else:
        raise ValueError(f"unknown unit vocabulary {vocabulary!r}: use one of {VOCABULARIES}")
    hit = cache.get(text) if text.__class__ is str else None
    if hit is not None:
        return hit
    if not isinstance(text, str):
        raise UnitParseError(f"a unit must be a string, not {type(text).__name__}", text=repr(text))
    unit = read(text)
    if len(cache) < _CACHE_LIMIT:
        cache[text] = unit
    return unit


def _not_cf(text: str) -> Unit:  # pragma: no cover - replaced when cf is imported
    return table.not_installed("cf")  # (the package's __init__ imports it)


class _Above:
    """What the parser reads from ``ucum`` and ``cf`` (above it), installed by them."""
    parse_ucum: Callable[[str], Unit] = staticmethod(
        lambda text: table.not_installed("ucum"))
    parse_cf: Callable[[str], Unit] = staticmethod(_not_cf)


def install(*, parse_ucum: "Callable[[str], Unit] | None" = None,
            parse_cf: "Callable[[str], Unit] | None" = None) -> None:
    """Called once by ``ucum`` and ``cf`` when imported."""
    if parse_ucum is not None:
        _Above.parse_ucum = staticmethod(parse_ucum)
    if parse_cf is not None:
        _Above.parse_cf = staticmethod(parse_cf)


_FAILED: set[str] = set()


def try_parse_unit(text: str) -> "Unit | None":
    """``parse_unit`` that returns None instead of raising, cheaply: no suggestions are
    computed and failures are remembered (for scanning prose, where most attempts fail)."""
    if text.__class__ is Unit:
        return text
    hit = _CACHE.get(text)
    if hit is not None:
        return hit
    if text in _FAILED:
        return None
    try:
        unit = (_fast(text) if text.__class__ is str else None) or \
            _Parser(text, quiet=True).parse()
    except UnitParseError:
        if len(_FAILED) < _CACHE_LIMIT:
            _FAILED.add(text)
        return None
    if len(_CACHE) < _CACHE_LIMIT:
        _CACHE[text] = unit
    return unit


def parse_fast(text: str) -> "Unit | None":
    """The reader of the common shape alone: a Unit, or None where it leaves the text to the
    full parser (for tests that compare the two readers)."""
    return _fast(text)


def parse_full(text: str) -> Unit:
    """The full parser alone, bypassing the cache and the common-shape reader."""
    return _Parser(text).parse()


def clear_cache() -> None:
    """Forget every parsed string (both vocabularies) and every remembered failure: the next
    ``parse_unit`` of a string reads it again (the table's name resolution stays memoised)."""
    _CACHE.clear()
    _UCUM_CACHE.clear()
    _CF_CACHE.clear()
    _FAILED.clear()


def forget_failures() -> None:
    """Called when the table grows: a spelling that failed may now mean something."""
    _FAILED.clear()


def normalise(text: str) -> tuple[str, list[int]]:
    """Normalise character by character; return the new text and, per character, the index
    of the original character it came from (for error positions)."""
    if text.isascii() and _ALLOWED.issuperset(text):
        return text, range(len(text))  # type: ignore[return-value]  # indexes as the list would
    out: list[str] = []
    where: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\u00b0" or ch == "\u00ba":
            nxt = text[i + 1] if i + 1 < n else ""
            if nxt in _DEGREE_SCALES:
                scale = _DEGREE_SCALES[nxt]
                out.extend(scale)
                where.extend([i] * len(scale))
                i += 2
                continue
            out.extend("deg")  # a degree sign alone is a plane angle (UCUM, udunits, SI)
            where.extend([i] * 3)
            i += 1
            continue
        rep = _CHARS.get(ch)
        if rep is None:
            rep = ch if ch in _ALLOWED else unicodedata.normalize("NFKC", ch)
            rep = "".join(_CHARS.get(c, c) for c in rep)
        for c in rep:
            if c not in _ALLOWED:
                what = f"control character U+{ord(ch):04X}" if unicodedata.category(ch)[0] == "C" \
                    else f"character {ch!r}"
                raise UnitParseError(f"unexpected {what} at position {i} in {text!r}",
                                     text=text, position=i)
        out.append(rep)
        where.extend([i] * len(rep))
        i += 1
    return "".join(out), where


_WORD_CHARS = re.compile(r"[A-Za-z0-9_]*").match  # normalised text is ASCII
_DIGITS = re.compile(r"[0-9]*").match
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?").match

# token kinds
NAME, INT, MUL, DIV, POW, SIGN, LP, RP, JEXP, SPACE, END = (
    "name", "int", "*", "/", "**", "sign", "(", ")", "jexp", "space", "end")


_SINGLE = {"^": POW, ".": MUL, "/": DIV, "(": LP, ")": RP, "+": SIGN, "-": SIGN}


class _Parser:
    """Tokens in, one ``Unit`` out. The grammar rules return *exponent maps* (canonical term
    symbol -> integer power); the factor, dimension and interval flag are computed once, in
    ``build``, from the table's units of those symbols. No intermediate ``Unit`` is made."""

    #: NAME resolution (a vocabulary's reader replaces it, as ``cf`` does), and whether scale
    #: numbers and prime marks are read (udunits reads both; the kernel's grammar refuses them)
    resolve = staticmethod(table.resolve)
    numbers = False

    def number_term(self, text: str, pos: int) -> str:  # pragma: no cover - numbers is False
        raise self.error(f"the number {text} inside a unit", pos)

    def __init__(self, text: str, quiet: bool = False) -> None:
        self.quiet = quiet
        self.original = text
        if len(text) > MAX_LENGTH:
            raise UnitParseError(f"unit expression too long ({len(text)} characters; at most "
                                 f"{MAX_LENGTH})", text=text[:40] + "...", position=MAX_LENGTH)
        if "since" in text:
            _refuse_since(text)
        self.text, self.where = normalise(text)
        self.tokens = self._tokenize()
        self.i = 0
        self.count = 0        # primaries read (a temperature point must be the only one)
        self.offset = None    # the symbol of a temperature point met, if any
        self.whole = None     # the table's own Unit when the expression is one plain name

    # -- errors ----------------------------------------------------------------------------
    def error(self, message: str, pos: int | None, suggestions=(), hint: str = "") -> UnitParseError:
        """The error at ``pos``; ``hint`` (what to write instead) follows the location."""
        if self.quiet:
            return UnitParseError(message, text=self.original)
        opos = self.where[pos] if pos is not None and pos < len(self.where) else \
            (len(self.original) if pos is not None else None)
        where = f" at position {opos}" if opos is not None else ""
        return UnitParseError(f"{message}{where} in {self.original!r}", text=self.original,
                              position=opos, suggestions=tuple(suggestions), hint=hint)

    # -- tokenizer -------------------------------------------------------------------------
    def _tokenize(self) -> list[tuple[str, str, int]]:
        s, n = self.text, len(self.text)
        toks: list[tuple[str, str, int]] = []
        i = 0
        while i < n:
            c = s[i]
            if c == " ":
                j = i
                while j < n and s[j] == " ":
                    j += 1
                toks.append((SPACE, " ", i))
                i = j
            elif c.isalpha() or c == "_" or c == "[":
                j = self._name_end(i)
                # a hyphen joining two names: part of a table name, or a product
                while j + 1 < n and s[j] == "-" and (s[j + 1].isalpha() or s[j + 1] == "_"):
                    k = j + 1
                    while k < n and (s[k].isalnum() or s[k] == "_"):
                        k += 1
                    if table.lookup(s[i:k]) is not None:
                        j = k
                        continue
                    toks.append((NAME, s[i:j], i))
                    toks.append((MUL, "-", j))
                    i, j = j + 1, k
                if j - i == 3 and s[i:j] == "per":  # the word form of '/': "feet per second"
                    toks.append((DIV, "per", i))
                    i = j
                    continue
                toks.append((NAME, s[i:j], i))
                i = j
                i = self._juxtaposed(toks, i)
            elif c == "%":
                if toks and toks[-1][0] in (NAME, RP, JEXP):  # "g%": no operator before it
                    raise self.error(_GLUED_PERCENT, i, suggestions=("g/dL",),
                                     hint="; write the unit in full (g/dL), or '*%' for a "
                                          "product with a percent")
                toks.append((NAME, "%", i))
                i += 1
            elif c.isdigit() and self.numbers:  # a vocabulary that reads scale numbers (CF)
                number = _NUMBER(s, i)
                assert number is not None  # a digit starts it
                toks.append((INT, number.group(0), i))
                i = number.end()
            elif c.isdigit():
                j = _DIGITS(s, i).end()  # type: ignore[union-attr]  # "[0-9]*" always matches
                if j < n and s[j] == "." and j + 1 < n and s[j + 1].isdigit():
                    raise self.error("a decimal number inside a unit; put the scale in the value",
                                     i)
                if j + 1 < n and s[j] in "eE" and (s[j + 1].isdigit() or s[j + 1] in "+-"):
                    raise self.error("a number in scientific notation inside a unit; put the "
                                     "scale in the value", i)
                toks.append((INT, s[i:j], i))
                i = j
            elif c == "*":
                if i + 1 < n and s[i + 1] == "*":
                    toks.append((POW, "**", i))
                    i += 2
                else:
                    toks.append((MUL, "*", i))
                    i += 1
            elif c in _SINGLE:
                toks.append((_SINGLE[c], c, i))
                i += 1
                if c == ")":
                    i = self._juxtaposed(toks, i)
            elif c == "{":
                raise self.error("a UCUM annotation {...} carries no meaning in a unit and is not "
                                 "read; keep the note beside the value", i)
            elif c == "'" and self.numbers:  # udunits: arc minute, arc second
                double = i + 1 < n and s[i + 1] == "'"
                toks.append((NAME, "''" if double else "'", i))
                i += 2 if double else 1
            elif c == "'":  # (every prime mark is normalised to ' or '')
                double = i + 1 < n and s[i + 1] == "'"
                message, suggestions, hint = _PRIME_DOUBLE if double else _PRIME_SINGLE
                at = self.where[i] if i < len(self.where) else 0
                mark = self.original[at:at + 1]
                if double and mark in ("'", "\u2019"):
                    mark = self.original[at:at + 2]
                raise self.error(message.format(mark=mark), i, suggestions=suggestions, hint=hint)
            else:
                raise self.error(f"unexpected character {c!r}", i)
        if " " not in s:
            toks.append((END, "", n))
            return toks
        # spaces are products between two operands and nothing elsewhere
        out: list[tuple[str, str, int]] = []
        k, m = 0, len(toks)
        while k < m:
            tok = toks[k]
            k += 1
            if tok[0] != SPACE:
                out.append(tok)
                continue
            prev = out[-1][0] if out else None
            nxt = toks[k][0] if k < m else None
            if prev in (NAME, INT, RP, JEXP) and nxt in (NAME, INT, LP) \
                    and not (out and out[-1][1] == "per"):
                if prev == NAME and nxt == NAME:
                    left, right = out[-1], toks[k]
                    if left[1].lower() in table.multiword_heads() \
                            and left[1] not in _POWER_WORDS \
                            and table.lookup(f"{left[1]} {right[1]}") is not None:
                        out[-1] = (NAME, f"{left[1]} {right[1]}", left[2])  # "degrees Celsius"
                        k += 1
                        continue
                    self._degree_scale(left, right)
                out.append((MUL, " ", tok[2]))
        out.append((END, "", n))
        return out

    def _name_end(self, i: int) -> int:
        """The end of a NAME: letters, digits and '_', and a bracketed UCUM atom
        (``[ft_i]``, ``m[H2O]``, ``[in_i'H2O]``) with the digits after it."""
        s, n = self.text, len(self.text)
        j = i
        while True:
            j = _WORD_CHARS(s, j).end()  # type: ignore[union-attr]  # "[...]*" always matches
            if j < n and s[j] == "[":
                k = s.find("]", j)
                if k < 0:
                    raise self.error("missing ']'", j)
                if "[" in s[j + 1:k] or not s[j + 1:k]:
                    raise self.error("a bracket must hold one UCUM atom, e.g. [ft_i]", j)
                j = k + 1
                continue
            return j

    def _degree_scale(self, left, right) -> None:
        """"deg K", "degrees Kelvin": a degree alone is an angle, so this is refused."""
        if right[1] in TEMPERATURE_WORDS and table.lookup(left[1]) is _degree():
            raise self.error(f"'{left[1]} {right[1]}': a degree alone is a plane angle; write a "
                             f"temperature as degC, degF or K", left[2],
                             suggestions=("degC", "degF", "K"))

    def _juxtaposed(self, toks: list, i: int) -> int:
        """An exponent written straight after a name or ')': ``s-1``, ``(m/s)2``."""
        s, n = self.text, len(self.text)
        j = i
        if j < n and s[j] in "+-":
            j += 1
        k = j
        while k < n and s[k].isdigit():
            k += 1
        if k > j and (j > i or toks[-1][0] == RP):
            toks.append((JEXP, s[i:k], i))
            return k
        return i

    # -- parser ----------------------------------------------------------------------------
    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.i]

    def take(self) -> tuple[str, str, int]:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def parse(self) -> Unit:
        """expression := product END"""
        if self.tokens[0][0] == END:
            raise self.error("empty unit expression; write '1' for a dimensionless quantity",
                             None)
        terms = self.product(0)
        kind, value, pos = self.peek()
        if kind != END:
            if kind == RP:
                raise self.error("unbalanced ')'", pos)
            raise self.error(f"unexpected {value!r}", pos)
        if self.offset is not None and (self.count != 1 or terms.get(self.offset) != 1):
            sym = self.offset
            kind = scale_kind(sym)
            temperature = kind.startswith("a temperature")
            err = self.error(f"{sym} is {kind} (a point, not an amount), so it cannot take "
                             f"part in a compound unit", None,
                             suggestions=(f"delta_{sym}",) if temperature else ())
            if temperature:
                err.suggestion = f"delta_{sym} for a temperature difference, e.g. delta_{sym}/s"
            raise err
        if self.whole is not None and self.count == 1:
            return self.whole
        if self.offset is not None:  # "(degC)", "degC1": the scale itself, offset and all
            return table.term_units()[self.offset]
        return self.build(terms)

    def build(self, terms: dict) -> Unit:
        return build(terms, lambda message: self.error(message, None))

    def product(self, depth: int) -> dict:
        """product := power ( ('*' | '.' | ' ') power | '/' power )*"""
        acc = self.power(depth)
        while True:
            kind = self.tokens[self.i][0]
            if kind == MUL:
                self.i += 1
                for s, p in self.power(depth).items():
                    acc[s] = acc.get(s, 0) + p
            elif kind == DIV:
                self.i += 1
                for s, p in self.power(depth).items():
                    acc[s] = acc.get(s, 0) - p
            else:
                return acc

    def power(self, depth: int) -> dict:
        """power := primary exponent?"""
        start = self.tokens[self.i][2]
        terms, exp, offset = self.primary(depth)
        kind, value, pos = self.tokens[self.i]
        if kind == POW:
            self.take()
            sign = ""
            if self.peek()[0] == SIGN:
                sign = self.take()[1]
            kind, value, pos = self.take()
            if kind != INT:
                raise self.error("an exponent must be a whole number", pos)
            exp *= self.exponent(sign + value, pos)
        elif kind == JEXP:
            self.take()
            exp *= self.exponent(value, pos)
        if exp != 1:
            if offset is not None:
                raise self.error(f"{offset} is a temperature point and cannot be raised to a "
                                 f"power", pos, suggestions=(f"delta_{offset}",))
            terms = {s: p * exp for s, p in terms.items()}
            for p in terms.values():
                if p > MAX_EXPONENT or p < -MAX_EXPONENT:
                    raise self.error(f"exponent out of range ({p} is beyond +/-{MAX_EXPONENT})",
                                     None)
            if terms.get("Mm") in (3, -3):
                err = self.error(_CUBIC_MEGAMETRE, start, suggestions=("hm3", "m3"),
                                 hint=_CUBIC_MEGAMETRE_HINT)
                err.suggestion = ("the value in hm3 (a cubic hectometre is exactly 1e6 m3: "
                                  "0.5 Mm3/d is '0.5 hm3/d') or in m3 ('5e5 m3/d')")
                raise err
            self.whole = None
        return terms

    def exponent(self, digits: str, pos: int) -> int:
        body = digits.lstrip("+-")
        if len(body) > 3 or int(body) > MAX_WRITTEN_EXPONENT:
            raise self.error(f"exponent {digits} is out of range (at most {MAX_WRITTEN_EXPONENT})",
                             pos)
        value = int(digits)
        if value == 0:
            raise self.error("an exponent of 0 makes the unit meaningless", pos)
        return value

    def primary(self, depth: int) -> "tuple[dict, int, str | None]":
        """primary := NAME | '1' | '(' product ')' | ('sq' | 'cu') NAME"""
        kind, value, pos = self.tokens[self.i]
        self.i += 1
        if kind == NAME:
            power = _POWER_WORDS.get(value)
            if power and self.peek()[0] == MUL and self.peek()[1] == " " \
                    and self.tokens[self.i + 1][0] == NAME and table.lookup(value) is None:
                self.take()
                terms, exp, offset = self.primary(depth)
                return terms, exp * power, offset
            return self.name(value, pos)
        if kind == INT and self.numbers and value != "1":
            self.count += 1
            self.whole = None
            return {self.number_term(value, pos): 1}, 1, None
        if kind == INT:
            if value == "1":
                self.count += 1
                return {}, 1, None
            raise self.error(f"the number {value} inside a unit; put the scale in the value "
                             f"(only 1 is allowed, as in 1/s)", pos)
        if kind == LP:
            if depth >= MAX_DEPTH:
                raise self.error(f"parentheses nested deeper than {MAX_DEPTH}", pos)
            terms = self.product(depth + 1)
            kind2, _, pos2 = self.take()
            if kind2 != RP:
                raise self.error("missing ')'", pos2)
            offset = self.offset if self.offset in terms else None
            return terms, 1, offset
        if kind == END:
            raise self.error("the expression ends where a unit was expected", pos)
        raise self.error(f"unexpected {value!r} where a unit was expected", pos)

    def name(self, name: str, pos: int) -> "tuple[dict, int, str | None]":
        """A NAME: the whole name first; only then a trailing integer as an exponent."""
        hit = self.resolve(name)
        if hit.__class__ is tuple:
            whole, pieces, exp, offset = hit
            self.count += 1
            self.whole = whole if self.count == 1 and exp == 1 else None
            if offset is not None:
                self.offset = offset
            if exp != 1:
                stem = len(name.rstrip("0123456789"))
                exp = self.exponent(name[stem:], pos + stem)
            return dict(pieces), exp, offset
        if hit is not None:  # refused: (why, alternatives[, position offset])
            hint = f"; write {_either(hit[1])} instead" if hit[1] else ""
            raise self.error(hit[0], pos, suggestions=hit[1], hint=hint)
        hint = ""
        if pos > 0 and name[:1].isupper() and name.upper() == name and len(name) >= 3:
            hint = (f" ({name} looks like a vertical datum: a datum is not part of a unit; give "
                    f"it as the datum of the value, e.g. Q.parse('12.4 ft {name}') or "
                    f"Q(12.4, 'ft', datum='{name}'))")
        close = () if self.quiet else suggest(name)
        raise self.error(f"unknown unit {name!r}{hint}", pos, suggestions=close,
                         hint=f" (did you mean {_either(close)}?)" if close else "")


#: the grammar's reader, for a vocabulary that reads its own names with it (``cf``): it
#: replaces ``resolve`` and may read scale numbers (``numbers``)
Parser = _Parser


def build(terms: dict, fail) -> Unit:
    """One ``Unit`` from an exponent map (canonical term symbol -> power): the exact factor,
    dimension and interval flag are computed here, once. ``fail(message)`` makes the error."""
    spelled = tuple([(sym, p) for sym, p in terms.items() if p])
    hit = _BUILT.get(spelled)
    if hit is not None:  # another spelling of a unit already built ("m3/s", "m**3 s-1")
        return hit
    num = den = 1
    dims = [0] * N_AXES
    interval = False
    for sym, p in spelled:
        if p > MAX_EXPONENT or p < -MAX_EXPONENT:
            raise fail(f"exponent out of range ({p} is beyond +/-{MAX_EXPONENT})")
        n, d, sparse, iv = _TERM.get(sym) or _term(sym)
        if p > 0:
            num *= n ** p
            den *= d ** p
        else:
            num *= d ** -p
            den *= n ** -p
        for axis, e in sparse:
            dims[axis] += e * p
        if iv:
            interval = True
    for e in dims:
        if e > MAX_EXPONENT or e < -MAX_EXPONENT:
            raise fail(f"exponent out of range (dimension exponent {e} is beyond "
                       f"+/-{MAX_EXPONENT})")
    if not spelled:
        return ONE
    try:
        unit = Unit(Fraction(num, den), tuple(dims), spelled, None, interval)
    except OverflowError:  # e.g. am**-22: a factor beyond a float
        raise fail("exponent out of range (the unit's factor is beyond a float)") from None
    if len(_BUILT) < 8192:
        _BUILT[spelled] = unit
    return unit


#: units built from exponent maps, by their spelled terms; a symbol never changes meaning
#: (the table only grows), so an entry never goes stale
_BUILT: dict[tuple, Unit] = {}
_TERM: dict[str, tuple] = {}


def _term(sym: str) -> tuple:
    """(numerator, denominator, non-zero (axis, exponent) pairs, interval) of a term symbol's
    own unit, memoised: what ``build`` needs, without attribute look-ups."""
    u = table.term_units()[sym]
    hit = (u.factor.numerator, u.factor.denominator,
           tuple((i, e) for i, e in enumerate(u.dims) if e), u.interval)
    _TERM[sym] = hit
    return hit


def _refuse_since(text: str) -> None:
    """CF/udunits time coordinates ("days since 1970-01-01") are timestamps, not units."""
    m = re.match(r"\s*(\S+)\s+since(\s|$)", text)
    if m:
        unit = m.group(1)
        raise UnitParseError(
            f"{text!r} is a time coordinate (a count of {unit} from an epoch), not a unit: convert "
            f"the values to timestamps, or give durations in {unit}", text=text,
            position=m.start(0) + len(m.group(0).rstrip()) - 5, suggestions=(unit,))


_GLUED_PERCENT = ("'%' written straight after a unit: UCUM's 'g%' is a gram per decilitre (a "
                  "mass concentration), not a gram times a percent")

#: "Mm3" (or Mm**3): a cubic megametre by the SI's rules, a million cubic metres in water
#: supply and hydrology (0.5 Mm3/d is 500,000 m3/d, not 5.8e12 m3/s): never guessed
# Prime marks: a foot and an inch in US usage (5' 10''), an arc minute and an arc second in
# UCUM and in coordinates (40°26'46''). Nothing tells them apart, so none is read as a unit.
_PRIME_WHAT = ("; a length in feet and inches is one value in one unit (5' 10'' is '70 in'), "
               "and UCUM's ' and '' are read as arc minute and arc second with "
               "parse_unit(text, vocabulary='ucum')")
_PRIME_SINGLE = ("{mark!r} is ambiguous: a foot in US usage (5' is 5 ft), an arc minute in UCUM "
                 "and in coordinates (1/60 of a degree)", ("ft", "arcmin"),
                 "; write ft for a length or arcmin for an angle" + _PRIME_WHAT)
_PRIME_DOUBLE = ("{mark!r} is ambiguous: an inch in US usage (10'' is 10 in), an arc second in "
                 "UCUM and in coordinates (1/3600 of a degree)", ("in", "arcsec"),
                 "; write in for a length or arcsec for an angle" + _PRIME_WHAT)

_CUBIC_MEGAMETRE = ("'Mm3' is ambiguous: a million cubic metres (1e6 m3) in water supply and "
                    "hydrology, a cubic megametre (1e18 m3) by the SI's prefix rules")
_CUBIC_MEGAMETRE_HINT = ("; for a million cubic metres write the value in m3 (0.5 Mm3/d is "
                         "'5e5 m3/d') or in hm3 (a cubic hectometre is exactly 1e6 m3: "
                         "'0.5 hm3/d'); for cubic megametres, in km3 (1 Mm3 is 1e9 km3)")


def scale_kind(symbol: str) -> str:
    """What a scale with an offset is, for messages: a temperature scale or a level."""
    unit = table.term_units().get(symbol)
    if unit is not None and unit.dims[_TEMPERATURE_AXIS] == 0:
        return "a logarithmic level with a reference, a scale with an offset"
    return "a temperature scale with an offset"


_TEMPERATURE_AXIS = AXES.index("temperature")


def _degree() -> "Unit | None":
    return table.lookup("deg")


def _either(names) -> str:
    return " or ".join(repr(n) for n in names)


def suggest(name: str) -> list[str]:
    """Close matches for an unknown name: the same letters in another case first (a prefixed
    unit too: ``kw`` -> ``kW``, ``MW`` for ``mw``), then difflib."""
    import difflib
    spellings = table.spellings()
    out = [s for s in spellings if s.lower() == name.lower() and s != name]
    for variant in (name.lower(), name.upper(), name[:1].upper() + name[1:].lower()):
        if variant != name and variant not in out and table.lookup(variant) is not None:
            out.append(variant)
    for variant in table.prefixed_case_variants(name):
        if variant != name and variant not in out:
            out.append(variant)
    for s in difflib.get_close_matches(name, spellings, n=4, cutoff=0.6):
        if s not in out:
            out.append(s)
    return out[:4]


table.install(parse=parse_unit, row_added=forget_failures)
