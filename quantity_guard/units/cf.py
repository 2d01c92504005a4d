"""CF / UDUNITS-2 unit strings read as udunits reads them: ``parse_unit(text, vocabulary="cf")``.

The CF conventions say a unit string is what UDUNITS-2 reads. This vocabulary reads every
spelling of the UDUNITS-2 database (``data/units_udunits.json``: names, plurals, symbols,
aliases) with the database's value, udunits' prefixes on any of them (``kilogallon``,
``mgal``), and scale numbers (``1e-3``, ``1e-3 kg m-2``), in the kernel's grammar (``m s-1``,
``W m-2 sr-1``, ``kg/m^3``). Where udunits defines a spelling the default vocabulary refuses as
ambiguous, udunits' reading applies here: ``gallon`` is the US liquid gallon, ``ton`` the short
ton, ``yr`` and ``year`` the tropical year, ``gal`` the galileo (cm/s2), ``C`` the coulomb,
``calorie`` the International Table calorie, ``acre`` the US survey acre. Case is never folded.
Logarithmic units with a reference (``BZ``, ``dBZ``, ``B_SPL``, ``dBm``) are read as levels of
their quantity (``ucum.level_unit``): they convert among themselves by their offsets (30 dBm is
0 dBW) and never to anything else. Time coordinates (``days since 1970-01-01``) are refused as in the default vocabulary.

A unit read here prints in the kernel's spelling (``gal_US``, ``cal_IT``, ``acre_US``), or with
udunits' value as a number term (``31556925.9747*s`` for a tropical year), which the default
vocabulary refuses rather than misreads.
"""
from __future__ import annotations

import os
from fractions import Fraction

from ..errors import UnitParseError
from . import parser, table
from .parser import build, parse_unit
from .ucum import own_term, level_unit, number_term
from .unit import Unit

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                     "units_udunits.json")


class _Vocabulary:
    def __init__(self) -> None:
        import json
        with open(_DATA, encoding="utf-8") as fh:
            data = json.load(fh)
        self.spellings: dict[str, str] = data["spellings"]
        self.levels: dict[str, str] = data["levels"]
        self.prefixes: list[tuple[str, Fraction]] = sorted(
            ((k, Fraction(v)) for k, v in data["prefixes"].items()), key=lambda p: -len(p[0]))
        self.kernel_conventions: dict[str, str] = data["kernel_conventions"]


_VOCAB: "_Vocabulary | None" = None
_MEMO: dict = {}
_UNITS: dict[str, Unit] = {}


def vocabulary() -> _Vocabulary:
    global _VOCAB
    if _VOCAB is None:
        _VOCAB = _Vocabulary()
    return _VOCAB


def _unit_of(definition: str) -> Unit:
    """``"1 gal_US"`` -> the kernel's row; ``"315569259747/10000 s"`` -> a number term and s."""
    hit = _UNITS.get(definition)
    if hit is not None:
        return hit
    head, _, rest = definition.partition(" ")
    number = Fraction(head)
    unit = parse_unit(rest)
    if number != 1:
        terms = {number_term(number): 1, **dict(unit.terms)}
        unit = build(terms, lambda message: UnitParseError(message, text=definition))
    _UNITS[definition] = unit
    return unit


def _whole(name: str):
    v = vocabulary()
    if name in v.levels:  # lg(re 1 mW): a level with a reference, as UCUM's B[W]
        return level_unit(name, Fraction(1), _CfParser(v.levels[name][3:]).parse())
    definition = v.spellings.get(name)
    if definition is not None:
        return _unit_of(definition)
    for prefix, factor in v.prefixes:
        rest = name[len(prefix):]
        if rest and name.startswith(prefix) and rest in v.levels:  # dBZ: a tenth of a BZ
            base = _whole(rest)
            return own_term(name, base.factor * factor, base.dims, base.offset)
        if rest and name.startswith(prefix) and rest in v.spellings:
            base = _unit_of(v.spellings[rest])
            if base.offset is not None:
                return None
            for sym, p in base.terms:  # the kernel's own prefixed row, where there is one
                if len(base.terms) == 1 and p == 1 and not sym[:1].isdigit():
                    own = table.lookup(_SYMBOL_PREFIX.get(prefix, prefix) + sym)
                    if own is not None and own.factor == factor * base.factor \
                            and own.dims == base.dims:
                        return own
            number = factor
            terms = {}
            for sym, p in base.terms:
                if sym[:1].isdigit() and p == 1:
                    number *= table.term_units()[sym].factor
                else:
                    terms[sym] = p
            if number != 1:
                terms = {number_term(number): 1, **terms}
            return build(terms, lambda message: UnitParseError(message, text=name))
    return None


# udunits' prefix names and its other micro signs, as the kernel's prefix symbols
_SYMBOL_PREFIX = {"yotta": "Y", "zetta": "Z", "exa": "E", "peta": "P", "tera": "T", "giga": "G",
                  "mega": "M", "kilo": "k", "hecto": "h", "deka": "da", "deci": "d",
                  "centi": "c", "milli": "m", "micro": "u", "\u00b5": "u", "\u03bc": "u",
                  "nano": "n", "pico": "p", "femto": "f", "atto": "a", "zepto": "z",
                  "yocto": "y"}


def resolve(name: str):
    """The parser's protocol (see ``table.resolve``) over udunits' spellings, memoised."""
    try:
        return _MEMO[name]
    except KeyError:
        pass
    hit = _resolve(name)
    if len(_MEMO) < 16384:
        _MEMO[name] = hit
    return hit


def _resolve(name: str):
    unit = _whole(name)
    if unit.__class__ is list:
        return unit
    if unit is not None:
        return unit, table.pieces(unit), 1, _offset(unit)
    stem = name.rstrip("0123456789")
    if stem and stem != name:
        unit = _whole(stem)
        if unit.__class__ is list:
            return unit
        if unit is not None:
            digits = name[len(stem):]
            exp = int(digits) if len(digits) < 5 else 0
            return (unit if exp == 1 else None), table.pieces(unit), exp, _offset(unit)
    return None


def _offset(unit: Unit):
    return unit.terms[0][0] if unit.offset is not None else None


class _CfParser(parser.Parser):
    resolve = staticmethod(resolve)
    numbers = True

    def parse(self) -> Unit:
        """As the kernel's grammar, but a temperature scale inside a compound is its interval,
        as udunits reads it (``kg degree_C m-2`` is kg K/m2: the offset drops out of a
        product); alone it is the scale, offset and all."""
        try:
            return super().parse()
        except UnitParseError as err:
            offset = self.offset
            if offset is None or self.count == 1 or table.lookup("delta_" + offset) is None:
                raise  # a level has no interval to enter a product: refused as the kernel does
            refusal = err
        self.i, self.count, self.whole, self.offset = 0, 0, None, None
        terms = self.product(0)
        interval = table.lookup("delta_" + offset)
        if interval is None:  # pragma: no cover - tested above
            raise refusal
        (delta, _), = table.pieces(interval)
        terms[delta] = terms.pop(offset)
        return self.build(terms)

    def number_term(self, text: str, pos: int) -> str:
        value = Fraction(text)
        if not value:
            raise self.error("a factor of 0 makes the unit meaningless", pos)
        return number_term(value)

    def name(self, name: str, pos: int):
        hit = resolve(name)
        if hit is None:
            import difflib
            close = [] if self.quiet else difflib.get_close_matches(
                name, list(vocabulary().spellings), n=4, cutoff=0.7)
            raise self.error(f"{name!r} is not a UDUNITS-2 unit (the CF vocabulary reads "
                             f"udunits' spellings, case-sensitively)", pos, suggestions=close)
        return super().name(name, pos)


def parse_cf(text: str) -> Unit:
    """A CF / UDUNITS-2 unit string -> the kernel Unit with udunits' meaning."""
    stripped = text.strip()
    v = vocabulary()
    if stripped in v.spellings or stripped in v.levels:  # whole spellings, non-ASCII included
        hit = _whole(stripped)
        if hit.__class__ is list:
            raise UnitParseError(f"{hit[0]} in {text!r}", text=text, position=0)
        return hit
    return _CfParser(text).parse()


parser.install(parse_cf=parse_cf)

__all__ = ["parse_cf", "resolve", "vocabulary"]
