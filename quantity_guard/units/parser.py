"""Unit expressions: a hand-written tokenizer and a recursive-descent parser. No ``eval``.

It reads what services and models write: ``m**3/s``, ``m^3/s``, ``m3/s``, ``ft³/s``,
``m3 s-1``, ``m.s-1``, ``kg·m/s²``, ``1/s``, ``mm / d``, ``acre-ft``, ``kW h``, ``°C``,
``Δ°C``, ``µS/cm``.

Grammar (precedence of ``/`` as in pint, unyt and quantities; astropy differs)::

    expression := product END
    product    := power ( ('*' | '.' | '·' | ' ') power | ('/' | 'per') power )*
    power      := primary exponent?
    primary    := NAME | '1' | '(' product ')' | ('sq' | 'cu') NAME
    exponent   := ('**' | '^') ('+' | '-')? INT      e.g. m**3, s^-1
                | ('+' | '-')? INT   written directly after a NAME or ')', e.g. s-1, (m/s)2
                | a trailing INT inside a NAME that is not itself a unit, e.g. m3, ft3, km2

``/`` takes exactly the next power: ``a/b/c`` is ``a/(b*c)`` and ``a/b*c`` is ``(a/b)*c``.
Implicit products (a space, ``.``, ``·``) bind like ``*``. A hyphen between two names is part
of a table name (``acre-ft``, ``second-foot``) or a product of two known units (``kW-h``).
Numbers other than ``1`` are refused: a scale belongs in the value, not the unit.

Before tokenizing, characters are normalised one by one (NFKC, so superscripts become digits),
``µ``/``μ`` -> ``u``, ``°C``/``℃``/``ºC`` -> ``degC``, ``Δ`` -> ``delta_``, ``·×⋅`` -> ``*``,
``−`` -> ``-``. Any other character outside ``[A-Za-z0-9_*/^().%+- ]`` is refused with its
position. Input longer than ``MAX_LENGTH`` or nested deeper than ``MAX_DEPTH`` is refused.
"""
from __future__ import annotations

import unicodedata

from ..errors import UnitParseError
from . import table
from .unit import ONE, Unit

MAX_LENGTH = 200
MAX_DEPTH = 12
MAX_WRITTEN_EXPONENT = 24

_CHARS = {
    "\u00b7": "*", "\u22c5": "*", "\u00d7": "*", "\u2219": "*",   # middle dots, times
    "\u2212": "-", "\u2010": "-", "\u2011": "-",                   # minus sign, hyphens
    "\u00b5": "u", "\u03bc": "u",                                  # micro sign, Greek mu
    "\u0394": "delta_", "\u2206": "delta_",                        # Delta, increment
    "\u00ba": "\u00b0",                                            # ordinal indicator typed for degree
    "\t": " ", "\u00a0": " ", "\u202f": " ", "\u2009": " ",
    "\u2103": "degC", "\u2109": "degF",                           # the one-character symbols
    "\u03a9": "ohm", "\u2126": "ohm",                             # Greek capital omega, ohm sign
}
_ALLOWED = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_*/^().%+- ")
_DEGREE_SCALES = {"C": "degC", "F": "degF", "R": "degR"}
_POWER_WORDS = {"sq": 2, "square": 2, "cu": 3, "cubic": 3}

_CACHE: dict[str, Unit] = {}
_CACHE_LIMIT = 4096


def parse_unit(text: "str | Unit") -> Unit:
    """Parse a unit expression (cached). A ``Unit`` is returned unchanged.

    Raises ``UnitParseError`` (and nothing else) for anything it cannot read, with the
    position of the problem and close matches.
    """
    if text.__class__ is Unit:
        return text  # type: ignore[return-value]
    try:
        return _CACHE[text]  # type: ignore[index]
    except KeyError:
        pass
    except TypeError:
        raise UnitParseError(f"a unit must be a string, not {type(text).__name__}",
                             text=repr(text)) from None
    if not isinstance(text, str):
        raise UnitParseError(f"a unit must be a string, not {type(text).__name__}", text=repr(text))
    unit = _Parser(text).parse()
    if len(_CACHE) < _CACHE_LIMIT:
        _CACHE[text] = unit
    return unit


_FAILED: set[str] = set()


def try_parse_unit(text: str) -> "Unit | None":
    """``parse_unit`` that returns None instead of raising, cheaply: no suggestions are
    computed and failures are remembered (for scanning prose, where most attempts fail)."""
    if text.__class__ is Unit:
        return text  # type: ignore[return-value]
    hit = _CACHE.get(text)
    if hit is not None:
        return hit
    if text in _FAILED:
        return None
    try:
        unit = _Parser(text, quiet=True).parse()
    except UnitParseError:
        if len(_FAILED) < _CACHE_LIMIT:
            _FAILED.add(text)
        return None
    if len(_CACHE) < _CACHE_LIMIT:
        _CACHE[text] = unit
    return unit


def check_name(name: str) -> None:
    """Refuse a spelling that could not be read back as one NAME token (for ``define``)."""
    if not name or not (name == "%" or (name[0].isalpha() or name[0] == "_")):
        raise UnitParseError(f"{name!r} is not a valid unit symbol: start with a letter", text=name)
    for ch in name:
        if not (ch.isascii() and (ch.isalnum() or ch in "_-")):
            raise UnitParseError(f"{name!r} is not a valid unit symbol: use letters, digits, _ or -",
                                 text=name)


def normalise(text: str) -> tuple[str, list[int]]:
    """Normalise character by character; return the new text and, per character, the index
    of the original character it came from (for error positions)."""
    if text.isascii() and _ALLOWED.issuperset(text):
        return text, range(len(text))  # type: ignore[return-value]
    out: list[str] = []
    where: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\u00b0" or ch == "\u00ba":
            nxt = text[i + 1] if i + 1 < n else ""
            if nxt in _DEGREE_SCALES:
                rep = _DEGREE_SCALES[nxt]
                out.extend(rep)
                where.extend([i] * len(rep))
                i += 2
                continue
            raise UnitParseError(f"a degree sign must be followed by C, F or R (position {i} "
                                 f"in {text!r})", text=text, position=i,
                                 suggestions=("degC", "degF", "delta_degC"))
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


# token kinds
NAME, INT, MUL, DIV, POW, SIGN, LP, RP, JEXP, SPACE, END = (
    "name", "int", "*", "/", "**", "sign", "(", ")", "jexp", "space", "end")


_SINGLE = {"^": POW, ".": MUL, "/": DIV, "(": LP, ")": RP, "+": SIGN, "-": SIGN}


class _Parser:
    def __init__(self, text: str, quiet: bool = False) -> None:
        self.quiet = quiet
        self.original = text
        if len(text) > MAX_LENGTH:
            raise UnitParseError(f"unit expression too long ({len(text)} characters; at most "
                                 f"{MAX_LENGTH})", text=text[:40] + "...", position=MAX_LENGTH)
        self.text, self.where = normalise(text)
        self.tokens = self._tokenize()
        self.i = 0

    # -- errors ----------------------------------------------------------------------------
    def error(self, message: str, pos: int | None, suggestions=()) -> UnitParseError:
        if self.quiet:
            return UnitParseError(message, text=self.original)
        opos = self.where[pos] if pos is not None and pos < len(self.where) else \
            (len(self.original) if pos is not None else None)
        where = f" at position {opos}" if opos is not None else ""
        return UnitParseError(f"{message}{where} in {self.original!r}", text=self.original,
                              position=opos, suggestions=tuple(suggestions))

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
            elif c.isalpha() or c == "_":
                j = i + 1
                while j < n and (s[j].isalnum() or s[j] == "_"):
                    j += 1
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
                if s[i:j] == "per":  # the word form of '/': "cubic feet per second"
                    toks.append((DIV, "per", i))
                    i = j
                    continue
                toks.append((NAME, s[i:j], i))
                i = j
                i = self._juxtaposed(toks, i)
            elif c == "%":
                toks.append((NAME, "%", i))
                i += 1
            elif c.isdigit():
                j = i
                while j < n and s[j].isdigit():
                    j += 1
                if j < n and s[j] == "." and j + 1 < n and s[j + 1].isdigit():
                    raise self.error("a decimal number inside a unit; put the scale in the value",
                                     i)
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
            else:  # pragma: no cover - normalise() admits nothing else
                raise self.error(f"unexpected character {c!r}", i)
        # spaces are products between two operands and nothing elsewhere
        out: list[tuple[str, str, int]] = []
        for k, tok in enumerate(toks):
            if tok[0] != SPACE:
                out.append(tok)
                continue
            prev = out[-1][0] if out else None
            nxt = toks[k + 1][0] if k + 1 < len(toks) else None
            if prev in (NAME, INT, RP, JEXP) and nxt in (NAME, INT, LP) \
                    and not (out and out[-1][1] == "per"):
                out.append((MUL, " ", tok[2]))
        out.append((END, "", n))
        return out

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
        try:
            unit = self.product(0)
        except OverflowError as exc:
            raise self.error(f"exponent out of range ({exc})", None) from None
        except UnitParseError:
            raise
        except Exception as exc:  # a definition the algebra refuses (offset units, ...)
            from ..errors import GuardViolation
            if isinstance(exc, GuardViolation):
                err = self.error(exc.message, None)
                err.suggestion = exc.suggestion
                raise err from None
            raise
        kind, value, pos = self.peek()
        if kind != END:
            if kind == RP:
                raise self.error("unbalanced ')'", pos)
            raise self.error(f"unexpected {value!r}", pos)
        return unit

    def product(self, depth: int) -> Unit:
        """product := power ( ('*' | '.' | ' ') power | '/' power )*"""
        unit = self.power(depth)
        while True:
            kind = self.peek()[0]
            if kind == MUL:
                self.take()
                unit = unit * self.power(depth)
            elif kind == DIV:
                self.take()
                unit = unit / self.power(depth)
            else:
                return unit

    def power(self, depth: int) -> Unit:
        """power := primary exponent?"""
        unit, exp = self.primary(depth)
        kind, value, pos = self.peek()
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
            if unit.offset is not None:
                raise self.error(f"{unit.symbol} is a temperature point and cannot be raised to a "
                                 f"power", pos, suggestions=(f"delta_{unit.symbol}",))
            unit = unit ** exp
        return unit

    def exponent(self, digits: str, pos: int) -> int:
        body = digits.lstrip("+-")
        if len(body) > 3 or int(body) > MAX_WRITTEN_EXPONENT:
            raise self.error(f"exponent {digits} is out of range (at most {MAX_WRITTEN_EXPONENT})",
                             pos)
        value = int(digits)
        if value == 0:
            raise self.error("an exponent of 0 makes the unit meaningless", pos)
        return value

    def primary(self, depth: int) -> tuple[Unit, int]:
        """primary := NAME | '1' | '(' product ')' | ('sq' | 'cu') NAME"""
        kind, value, pos = self.take()
        if kind == NAME:
            power = _POWER_WORDS.get(value)
            if power and self.peek()[0] == MUL and self.peek()[1] == " " \
                    and self.tokens[self.i + 1][0] == NAME and table.lookup(value) is None:
                self.take()
                unit, exp = self.primary(depth)
                return unit, exp * power
            return self.name(value, pos)
        if kind == INT:
            if value == "1":
                return ONE, 1
            raise self.error(f"the number {value} inside a unit; put the scale in the value "
                             f"(only 1 is allowed, as in 1/s)", pos)
        if kind == LP:
            if depth >= MAX_DEPTH:
                raise self.error(f"parentheses nested deeper than {MAX_DEPTH}", pos)
            unit = self.product(depth + 1)
            kind2, _, pos2 = self.take()
            if kind2 != RP:
                raise self.error("missing ')'", pos2)
            return unit, 1
        if kind == END:
            raise self.error("the expression ends where a unit was expected", pos)
        raise self.error(f"unexpected {value!r} where a unit was expected", pos)

    def name(self, name: str, pos: int) -> tuple[Unit, int]:
        """A NAME: the whole name first; only then a trailing integer as an exponent."""
        why = table.refusal(name)
        if why is not None:
            raise self.error(why[0], pos, suggestions=why[1])
        unit = table.lookup(name)
        if unit is not None:
            return unit, 1
        stem = name.rstrip("0123456789")
        if stem and stem != name and stem[-1] != "_":
            why = table.refusal(stem)
            if why is not None:
                raise self.error(why[0], pos, suggestions=why[1])
            unit = table.lookup(stem)
            if unit is not None:
                return unit, self.exponent(name[len(stem):], pos + len(stem))
        hint = ""
        if pos > 0 and name[:1].isupper() and name.upper() == name and len(name) >= 3:
            hint = (f" ({name} looks like a vertical datum: a datum is not part of a unit; give "
                    f"it as the datum of the value, e.g. Q.parse('12.4 ft {name}') or "
                    f"Q(12.4, 'ft', datum='{name}'))")
        raise self.error(f"unknown unit {name!r}{hint}", pos,
                         suggestions=() if self.quiet else suggest(name))


def suggest(name: str) -> list[str]:
    """Close matches for an unknown name: same letters in another case first, then difflib."""
    import difflib
    spellings = table.spellings()
    out = [s for s in spellings if s.lower() == name.lower() and s != name]
    for variant in (name.lower(), name.upper(), name[:1].upper() + name[1:].lower()):
        if variant != name and variant not in out and table.lookup(variant) is not None:
            out.append(variant)
    for s in difflib.get_close_matches(name, spellings, n=4, cutoff=0.6):
        if s not in out:
            out.append(s)
    return out[:4]
