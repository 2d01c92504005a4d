"""The unit table: ``data/units.json`` loaded once, on first use, then only ever added to.

Name resolution, in this order (it is what keeps ``ftH2O``, ``Mcf``, ``kcfs``, ``MGD`` and
``Ml`` whole):

1. a refused spelling (``gal``, ``ton``, ``mgd``...) -> ``UnitParseError`` naming the
   unambiguous alternatives;
2. an exact symbol or alias (case is never folded: ``Ml`` is megalitres, ``ml`` millilitres);
3. a long name as written, then case-insensitively (``Metres``) but only where no two rows'
   names differ by case alone: ``calorie`` (4.184 J) and ``Calorie`` (the kilocalorie) are
   both declared, so each is read as written and ``CALORIE`` is read as neither;
4. an SI prefix symbol on a prefixable symbol (``km``, ``MW``, ``uS``), or a long prefix on a
   prefixable long name (``megalitres``);
5. a bracketed UCUM atom (``[ft_i]``, ``[gal_us]``), through ``data/units_ucum.json``.

``resolve`` memoises all of this per NAME for the parser (cleared whenever a row is added).

The caller (the parser) reads a trailing integer as an exponent only when the whole name does
not resolve (``m3`` -> ``m``, 3; ``ftH2O`` stays whole).
"""
from __future__ import annotations

import os
import threading
from fractions import Fraction

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # annotations only: they are never evaluated at run time
    from typing import Any, Callable, Optional

from ..errors import RedefinitionError, UnitParseError
from . import unit as _unit
from .dimension import AXES, base
from .unit import Unit



# What the table reads from the modules above it, installed by them when imported (the
# package's ``__init__`` imports them all): the parser evaluates definitions and forgets its
# failures when a row is added; the UCUM reader resolves bracketed atoms.
class _Above:
    parse: Callable[[str], Unit] = staticmethod(lambda text: not_installed("parser"))
    row_added: Callable[[], None] = staticmethod(lambda: None)
    atom_unit: Callable[[str], Any] = staticmethod(lambda atom: not_installed("ucum"))


def not_installed(module: str) -> Any:
    raise RuntimeError(f"quantity_guard.units.{module} is not imported: import quantity_guard.units")


def install(*, parse: "Callable[[str], Unit] | None" = None,
            row_added: "Callable[[], None] | None" = None,
            atom_unit: "Callable[[str], Any] | None" = None) -> None:
    """Called once by ``parser`` (parse, row_added) and ``ucum`` (atom_unit) when imported."""
    if parse is not None:
        _Above.parse = staticmethod(parse)
    if row_added is not None:
        _Above.row_added = staticmethod(row_added)
    if atom_unit is not None:
        _Above.atom_unit = staticmethod(atom_unit)


_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                     "units.json")


class Row:
    """One table entry. ``unit`` is the row's own unit, spelled with ``symbol``."""

    __slots__ = ("symbol", "name", "plural", "unit", "aliases", "names", "prefixable", "group",
                 "source", "note", "exact", "definition", "prefixed_as", "prefixes")
    symbol: str
    name: str
    plural: str
    unit: Unit
    aliases: "tuple[str, ...]"
    names: "tuple[str, ...]"
    prefixable: bool
    group: str
    source: str
    note: str
    exact: bool
    definition: str
    prefixed_as: str  # the spelling a prefix is written on (farad: "F", so "uF"), or ""
    prefixes: "frozenset[str] | None"  # the prefix symbols it takes (None: every one)

    def __init__(self, **fields: Any) -> None:
        for name in self.__slots__:
            object.__setattr__(self, name, fields[name])

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("table rows are immutable")

    def __repr__(self) -> str:
        return f"Row({self.symbol!r}, {self.name!r}, {self.definition!r})"


class _Registry:
    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.generation = 0  # grows with every change (see ``generation()``)
        self.clear()

    def clear(self) -> None:
        self.rows: dict[str, Row] = {}           # canonical symbol -> row
        self.spellings: dict[str, Row] = {}      # symbol or alias (exact case) -> row
        self.names: dict[str, Row] = {}          # long name as written -> row
        self.long: dict[str, "Row | None"] = {}  # long name, lower case -> row (None: two rows
        #                                          have names differing by case alone)
        self.prefixes: dict[str, tuple[str, Fraction]] = {}       # "k" -> ("kilo", 1000)
        self.long_prefixes: dict[str, tuple[str, Fraction]] = {}  # "kilo" -> ("k", 1000)
        self.refused: dict[str, tuple[str, tuple[str, ...]]] = {}
        self.heads: set[str] = set()             # first words of long names with a space
        self.loaded = False
        self.generation += 1
        global GENERATION
        GENERATION = self.generation


#: what ``generation()`` returns, readable without a call (for a reader that compares it on
#: every look-up)
GENERATION = 0
_REG = _Registry()


def generation() -> int:
    """A number that grows whenever the table does (``define``, or the table loading): readers
    above that remember what a spelling meant (the answer audit) compare it to know whether
    their readings may be stale."""
    return _REG.generation


def registry() -> _Registry:
    if not _REG.loaded:
        _load()
    return _REG


def _load() -> None:
    with _REG.lock:
        if _REG.loaded:
            return
        import json
        with open(_DATA, encoding="utf-8") as fh:
            data = json.load(fh)
        for sym, long, factor in data["prefixes"]:
            f = Fraction(factor)
            _REG.prefixes[sym] = (long, f)
            _REG.long_prefixes[long] = (sym, f)
        for word, (why, alternatives) in data["refused"].items():
            _REG.refused[word] = (why, tuple(alternatives))
        # rows are defined in file order, each over the rows before it; lookups during the
        # load see the partial table (the flag is set first so resolution does not recurse)
        _REG.loaded = True
        try:
            for entry in data["units"]:
                _add_row(entry)
        except BaseException:
            _REG.clear()
            raise


def _add_row(entry: dict) -> Row:
    symbol = entry["symbol"]
    offset = Fraction(entry["offset"]) if entry.get("offset") else None
    interval = bool(entry.get("interval"))
    if "base" in entry:
        if entry["base"] not in AXES:
            raise ValueError(f"unit {symbol!r}: unknown base axis {entry['base']!r}")
        factor, dims, definition = Fraction(1), base(entry["base"]), f"base {entry['base']}"
    else:
        definition = entry["def"]
        u = evaluate_definition(definition)
        factor, dims = u.factor, u.dims
    unit = Unit(factor, dims, ((symbol, 1),), offset, interval)
    name = entry.get("name", symbol)
    row = Row(symbol=symbol, name=name, plural=entry.get("plural") or _plural(name), unit=unit,
              aliases=tuple(entry.get("aliases", ())), names=tuple(entry.get("names", ())),
              prefixable=bool(entry.get("prefixable")), group=entry.get("group", ""),
              source=entry.get("source", ""), note=entry.get("note", ""),
              exact=entry.get("exact", True), definition=definition,
              prefixed_as=entry.get("prefixed_as", ""),
              prefixes=frozenset(entry["prefixes"]) if "prefixes" in entry else None)
    _REG.rows[symbol] = row
    for s in (symbol, *row.aliases):
        _REG.spellings[s] = row
    # long names fold case (where unambiguous), and so do aliases written as words with a
    # hyphen ("second-foot"): else "Second-foot" would be read as a second times a foot
    for n in (name, row.plural, *row.names, *(a for a in row.aliases if "-" in a)):
        if n not in row.aliases:
            _REG.names.setdefault(n, row)
        low = n.lower()
        if low not in _REG.long:
            _REG.long[low] = row
        else:
            other = _REG.long[low]
            if other is not None and other.unit != unit:
                _REG.long[low] = None  # case alone tells them apart: never folded
        if " " in n:
            _REG.heads.add(n.split(" ")[0].lower())
    _MEMO.clear()  # a name that failed may mean something now
    global GENERATION
    _REG.generation += 1
    GENERATION = _REG.generation
    _Above.row_added()
    return row


def _plural(name: str) -> str:
    if name.endswith(("s", "z", "x")):
        return name
    return name + "s"


def evaluate_definition(text: str) -> Unit:
    """``"0.3048 m"``, ``"1200/3937 m"``, ``"1 ft3/s"``, ``"1/100 1"`` -> an unnamed Unit."""
    head, _, rest = text.strip().partition(" ")
    try:
        number = Fraction(head)
    except (ValueError, ZeroDivisionError):
        number, rest = Fraction(1), text
    u = _Above.parse(rest.strip() or "1")
    if u.offset is not None:
        raise ValueError(f"definition {text!r} is over an offset unit")
    return Unit(number * u.factor, u.dims, u.terms, None, u.interval)


# -- resolution ---------------------------------------------------------------------------
def refusal(name: str) -> tuple[str, tuple[str, ...]] | None:
    return registry().refused.get(name)


def lookup(name: str) -> Unit | None:
    """Resolve one whole name (no exponent) to a Unit spelled canonically, or None."""
    reg = registry()
    row = reg.spellings.get(name) or long_name(name)
    if row is not None:
        return row.unit
    hit = _split_prefix(name)
    if hit is not None:
        (psym, pfactor), row = hit
        u = row.unit
        return Unit(u.factor * pfactor, u.dims, ((psym + (row.prefixed_as or row.symbol), 1),),
                    None, u.interval)
    return None


def long_name(name: str) -> "Row | None":
    """The row of a long name: as written, else case-insensitively where that is unambiguous."""
    reg = registry()
    row = reg.names.get(name)
    if row is None:
        row = reg.long.get(name.lower())
    return row


def case_folds() -> "dict[str, Row | None]":
    """Long names (and hyphenated aliases) in lower case -> their row, None where two rows'
    names differ by case alone (for tests)."""
    return registry().long


# -- memoised resolution for the parser ----------------------------------------------------
_MEMO: dict = {}
_TERMS: dict[str, Unit] = {}   # canonical term symbol -> its own one-term Unit


def term_units() -> dict[str, Unit]:
    return _TERMS


def multiword_heads() -> set[str]:
    return registry().heads


def resolve(name: str):
    """What the parser needs for one NAME token, memoised: ``(whole, pieces, exp, offset)``
    when it resolves (``whole`` the Unit if the name is used alone, ``pieces`` its
    ``(symbol, power)`` terms, ``exp`` a trailing exponent, ``offset`` the symbol of a
    temperature point), ``[why, alternatives]`` when refused, None when unknown."""
    try:
        return _MEMO[name]
    except KeyError:
        pass
    hit = _resolve(name)
    if len(_MEMO) < 16384:
        _MEMO[name] = hit
    return hit


def _resolve(name: str):
    why = refusal(name)
    if why is not None:
        return [why[0], why[1]]
    unit = _whole(name)
    if unit.__class__ is list:
        return unit
    if unit is not None:
        return unit, pieces(unit), 1, _offset(unit)
    stem = name.rstrip("0123456789")
    if stem and stem != name and stem[-1] != "_" and not stem.endswith(" "):
        why = refusal(stem)
        if why is not None:
            return [why[0], why[1]]
        unit = _whole(stem)
        if unit.__class__ is list:
            return unit
        if unit is not None:
            digits = name[len(stem):]
            exp = int(digits) if len(digits) < 5 else 0
            return (unit if exp == 1 else None), pieces(unit), exp, _offset(unit)
    return None


def _whole(name: str):
    if "[" in name:  # a bracketed UCUM atom: never anything else
        return _Above.atom_unit(name)
    return lookup(name)


def pieces(unit: Unit) -> tuple:
    for sym, p in unit.terms:
        if sym not in _TERMS:
            if unit.terms == ((sym, 1),):
                _TERMS[sym] = unit
            else:
                own = lookup(sym)
                if own is None:  # pragma: no cover - every term symbol is a table spelling
                    raise ValueError(f"term {sym!r} of {unit!r} is not in the table")
                _TERMS[sym] = own
    return unit.terms


def _offset(unit: Unit):
    return unit.terms[0][0] if unit.offset is not None else None


def _split_prefix(name: str):
    reg = registry()
    for n in (2, 1):
        p = reg.prefixes.get(name[:n])
        if p is not None and len(name) > n:
            row = reg.spellings.get(name[n:])
            if row is not None and row.prefixable and (row.prefixes is None or name[:n] in
                                                       row.prefixes):
                return (name[:n], p[1]), row
    low = name.lower()
    for long, (psym, pfactor) in reg.long_prefixes.items():
        if low.startswith(long) and len(low) > len(long):
            row = long_name(name[len(long):])
            if row is not None and row.prefixable and (row.prefixes is None or psym in
                                                       row.prefixes):
                return (psym, pfactor), row
    return None


def prefixed_case_variants(name: str) -> list[str]:
    """The prefixed spellings that are ``name`` in another case (``kw`` -> ``kW``; ``mw`` ->
    ``mW``, ``MW``), SI prefix before unit symbol, smaller prefixes first: for suggestions."""
    reg = registry()
    low = name.lower()
    found = []
    for psym, (_long, factor) in sorted(reg.prefixes.items(), key=lambda p: p[1][1]):
        if len(low) <= len(psym) or not low.startswith(psym.lower()):
            continue
        rest = low[len(psym):]
        for sym, row in reg.spellings.items():
            if sym.lower() == rest and row.prefixable and sym == row.symbol:
                spelled = psym + sym
                if spelled not in found:
                    found.append(spelled)
    return found


def describe(symbol: str) -> tuple[Row, str, str] | None:
    """For a canonical term symbol: (row, prefix symbol, prefix long name), or None."""
    reg = registry()
    row = reg.rows.get(symbol) or reg.spellings.get(symbol)
    if row is not None:
        return row, "", ""
    hit = _split_prefix(symbol)
    if hit is None:
        return None
    (psym, _), row = hit
    return row, psym, reg.prefixes[psym][0]


def spellings() -> list[str]:
    reg = registry()
    return [*reg.spellings, *reg.names]


def rows() -> tuple[Row, ...]:
    return tuple(registry().rows.values())


# -- extension ------------------------------------------------------------------------------
def check_name(name: str) -> None:
    """Refuse a spelling that could not be read back as one NAME token (for ``define``)."""
    if not name or not (name == "%" or (name[0].isalpha() or name[0] == "_")):
        raise UnitParseError(f"{name!r} is not a valid unit symbol: start with a letter", text=name)
    for ch in name:
        if not (ch.isascii() and (ch.isalnum() or ch in "_-")):
            raise UnitParseError(f"{name!r} is not a valid unit symbol: use letters, digits, _ or -",
                                 text=name)


def define(symbol: str, definition: str, *, name: str | None = None, plural: str | None = None,
           aliases: tuple[str, ...] | list[str] = (), names: tuple[str, ...] | list[str] = (),
           prefixable: bool = False, offset: str | Fraction | None = None, interval: bool = False,
           source: str = "", note: str = "", group: str = "") -> Unit:
    """Add a unit to the table and return it.

    ``definition`` is ``"<number> <unit expression>"`` over existing units (``"1000 ft3/s"``,
    ``"1233.48183754752 m3"``). A spelling that already means something is never redefined:
    defining it again with the same meaning is a no-op, with another meaning raises
    ``RedefinitionError``.
    """
    parse_unit = _Above.parse
    reg = registry()
    with reg.lock:
        new = evaluate_definition(definition)
        off = Fraction(offset) if offset is not None else None
        candidate = Unit(new.factor, new.dims, ((symbol, 1),), off, interval)
        for spelling in (symbol, *aliases):
            check_name(spelling)
            if refusal(spelling):
                raise RedefinitionError(f"{spelling!r} is refused as ambiguous and cannot be defined")
            try:
                existing = parse_unit(spelling)
            except UnitParseError:
                continue
            if existing == candidate and spelling in reg.spellings:
                continue
            raise RedefinitionError(
                f"{spelling!r} already means {existing.symbol} ({existing.dimensionality}); "
                f"units are never redefined: choose another symbol")
        if symbol in reg.rows:
            return reg.rows[symbol].unit
        entry = {"symbol": symbol, "def": definition, "aliases": list(aliases), "names": list(names),
                 "prefixable": prefixable, "source": source, "note": note, "group": group,
                 "interval": interval}
        if name:
            entry["name"] = name
        if plural:
            entry["plural"] = plural
        if off is not None:
            entry["offset"] = str(off)
        return _add_row(entry).unit


_unit.install(lookup=lookup, describe=describe)
