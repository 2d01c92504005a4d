"""Vertical datums: a registry of named height reference frames, station datums and offsets.

A datum is a reference frame, not a unit. Two elevations on different datums cannot be combined,
and converting between datums needs an offset that someone registered explicitly, because the
true offset varies with location. No offset is ever assumed, guessed or defaulted.

Names
    ``get(name)`` accepts a datum's name or any alias exactly (``"ODN"``, ``"AOD"``), and also
    spelling variants of them: case, spaces, hyphens, underscores and dots are ignored, so
    ``"NAVD 88"``, ``"NAVD-88"`` and ``"navd88"`` are all NAVD88. Folding is safe here because
    the registry refuses to hold two datums whose names differ only in those ways (``register``
    raises RedefinitionError), so a variant can never select a different datum than intended.
    Station identifiers after a colon are never case-folded (``"GAGE:07374000"``).

Station and other location-specific datums
    ``PREFIX:ID`` names one station's local datum. ``GAGE:<USGS site number>`` is a USGS gage
    datum ("gage zero"), ``GAUGE:<EA station reference>`` an Environment Agency stage datum
    (mASD), ``STND:<CO-OPS station>`` a NOAA tide station datum. A tidal datum realised at one
    station is also its own datum: ``MLLW:8761724`` is MLLW at Grand Isle, distinct from the
    generic ``MLLW`` and from MLLW anywhere else. Such names are well formed whether or not
    anything is registered for them yet (``get`` returns them), but no offset to or from them
    exists until one is registered.

Offsets (the sign convention)
    ``register_offset(from_datum, to_datum, metres)`` declares

        height on to_datum = height on from_datum + metres

    for the same physical point. A gauge zero 1.5 ft above NAVD88 is therefore
    ``register_offset("GAGE:07374000", "NAVD88", Fraction("0.4572"))``: a stage of 0 on the gage
    is 0.4572 m on NAVD88. The reverse direction is implied (``-metres``). Offsets are exact
    ``Fraction``s; floats are taken exactly (``Fraction(0.1)`` is the binary value of 0.1, so
    pass a decimal string or a Fraction when the published figure is a decimal).

    ``offset(a, b)`` follows registered offsets directly, in reverse, or along the shortest chain
    (breadth first), summing exact Fractions. A chain never uses one location's local datum to
    link two datums elsewhere: ``NAVD88 -> STND:9447130 -> NGVD29`` would turn Seattle's local
    relation into a national NAVD88/NGVD29 offset, so it is refused. Location-specific datums
    (kinds other than ``geodetic`` and ``tidal``, and any ``PREFIX:ID`` name) may appear only
    in the runs at either end of a chain, never between two datums of national or tidal kind.

Thread safety
    Registration takes a lock and publishes a new immutable snapshot; reads take no lock.

The data file ``data/datums.json`` (with sources and EPSG codes) is read on first use.
"""
from __future__ import annotations

import contextlib

import numbers
import re
import threading
from fractions import Fraction

from .errors import DatumConversionUnavailable, DatumMismatch, RedefinitionError, UnknownDatum

__all__ = [
    "Datum",
    "get",
    "is_registered",
    "names",
    "register",
    "register_offset",
    "register_station",
    "offset",
    "path",
    "registered_offsets",
    "check_same",
    "isolated",
]

KINDS = ("geodetic", "tidal", "station", "local")
"""The kinds used by the pre-registered datums. ``register`` accepts any other word too; every
kind other than ``geodetic`` and ``tidal`` is treated as location-specific."""

_GLOBAL_KINDS = frozenset({"geodetic", "tidal"})
_STATION_PREFIXES = {"GAGE": "GAGE", "GAUGE": "GAUGE"}  # besides registered station/tidal datums
_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*\Z")
_FOLD_RE = re.compile(r"[\s\-_.]+")

# Spellings refused with an explanation instead of a guess (keys are folded, see _fold).
_CHART = ("'chart datum' differs by country: LAT in the UK and the Netherlands, MLLW on US "
          "charts, LWD on the Great Lakes; name the one meant, e.g. 'LAT' or 'MLLW:<station id>'")
_GAUGE = ("a gauge or stage datum belongs to one station: use 'GAGE:<USGS site number>' or "
          "'GAUGE:<EA station reference>'")
_AMBIGUOUS = {
    "CD": _CHART,
    "CHARTDATUM": _CHART,
    "IGLD": "IGLD names two datums: 'IGLD85' (current) or 'IGLD55'",
    "NHN": "NHN heights exist in two German realisations: 'DHHN2016' or 'DHHN92'",
    "NN": "NN may mean DHHN85 (Germany) or NN2000 (Norway): name it, e.g. 'DHHN85' or 'NN2000'",
    "AMSL": "'above mean sea level' does not say which datum: name the national datum"
            " ('NAVD88', 'ODN', 'NAP', 'AHD', ...) or a tide station's MSL ('MSL:<station id>')",
    "ORDNANCEDATUM": "'Ordnance Datum' differs by island: 'ODN' (Great Britain, also 'AOD'/'OD'),"
                     " 'Malin Head' (Ireland) or 'Belfast' (Northern Ireland)",
    **dict.fromkeys(("GAGE", "GAUGE", "ASD", "MASD", "STATION", "STATIONDATUM", "STAGEDATUM",
                     "GAGEDATUM", "GAUGEDATUM", "GAGEZERO", "GAUGEZERO", "LOCAL"), _GAUGE),
}


class Datum:
    """One vertical datum. ``epsg`` is the EPSG vertical CRS code when one exists.

    ``kind``: ``"geodetic"`` (a national or global height datum), ``"tidal"`` (a tidal surface),
    ``"station"`` (one station's gauge zero) or ``"local"`` (anything else location-specific).
    Immutable; equal when every field is equal. (A plain class rather than a dataclass: the
    dataclasses module imports inspect, ~10 ms at a cold start.)
    """

    __slots__ = ("name", "kind", "epsg", "region", "description", "aliases", "source")
    name: str
    kind: str
    epsg: int | None
    region: str | None
    description: str
    aliases: tuple[str, ...]
    source: str | None

    def __init__(self, name: str, kind: str = "local", epsg: int | None = None,
                 region: str | None = None, description: str = "", aliases: tuple = (),
                 source: str | None = None) -> None:
        for field, value in zip(self.__slots__, (name, kind, epsg, region, description,
                                                 tuple(aliases), source)):
            object.__setattr__(self, field, value)

    def __setattr__(self, name, value):
        raise AttributeError("Datum is immutable")

    def _fields(self) -> tuple:
        return tuple(getattr(self, f) for f in self.__slots__)

    def __eq__(self, other) -> bool:
        return other.__class__ is Datum and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return "Datum(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in self.__slots__) + ")"

    def replace(self, **changes) -> "Datum":
        return Datum(**{**{f: getattr(self, f) for f in self.__slots__}, **changes})

    @property
    def is_local(self) -> bool:
        """True for a datum that belongs to one place (a station, a tide gauge, a site)."""
        return self.kind not in _GLOBAL_KINDS or ":" in self.name

    @property
    def station(self) -> str | None:
        """The station identifier of a ``PREFIX:ID`` datum, else None."""
        prefix, sep, ident = self.name.partition(":")
        return ident if sep else None

    def __str__(self) -> str:
        return self.name


class _State:
    """One immutable snapshot of the registry. Writers copy, modify and publish a new one."""

    __slots__ = ("datums", "exact", "folded", "edges", "sources", "order", "stations", "paths",
                 "implicit")

    def __init__(self) -> None:
        self.datums: dict[str, Datum] = {}          # canonical name -> Datum
        self.exact: dict[str, str] = {}             # name or alias, as written -> canonical
        self.folded: dict[str, str] = {}            # folded name or alias -> canonical
        self.edges: dict[str, dict[str, Fraction]] = {}  # a -> {b: h_b - h_a}
        self.sources: dict[tuple[str, str], str | None] = {}  # (a, b) as registered -> source
        self.order: list[tuple[str, str]] = []      # registration order of offset pairs
        self.stations: dict[str, tuple[str, Fraction]] = {}  # station datum -> (datum, metres)
        self.paths: dict[tuple[str, str], tuple[tuple[str, ...], Fraction] | None] = {}  # memo
        self.implicit: frozenset[str] = frozenset()  # station datums created by an offset

    def copy(self) -> "_State":
        new = _State.__new__(_State)
        new.datums = dict(self.datums)
        new.exact = dict(self.exact)
        new.folded = dict(self.folded)
        new.edges = dict(self.edges)               # inner dicts are copied when modified
        new.sources = dict(self.sources)
        new.order = list(self.order)
        new.stations = dict(self.stations)
        new.paths = {}
        new.implicit = self.implicit
        return new


_LOCK = threading.RLock()
_STATE: _State | None = None
#: what ``generation()`` returns, readable without a call (for a reader that compares it on
#: every look-up)
GENERATION: _State | None = None
_SYNTHETIC: dict[str, Datum] = {}  # cache of well-formed but unregistered PREFIX:ID datums


# --------------------------------------------------------------------------------- loading

def _state() -> _State:
    st = _STATE
    return st if st is not None else _load()


def _load() -> _State:
    global _STATE, GENERATION
    with _LOCK:
        if _STATE is not None:
            return _STATE
        import json

        text = _read_data_file()
        entries = json.loads(text)["datums"]
        st = _State()
        for entry in entries:
            try:
                datum = Datum(
                    name=entry["name"], kind=entry["kind"], epsg=entry.get("epsg"),
                    region=entry.get("region"), description=entry.get("description", ""),
                    aliases=tuple(entry.get("aliases", ())), source=entry.get("source"),
                )
                _add_datum(st, datum)
            except (KeyError, TypeError, ValueError) as exc:  # a broken data file, not user input
                raise RuntimeError(f"quantity_guard/data/datums.json: bad entry "
                                   f"{entry.get('name')!r}: {exc}") from exc
        _STATE = GENERATION = st
        return st


def _read_data_file() -> str:
    try:
        from importlib.resources import files

        return files(__package__).joinpath("data", "datums.json").read_text(encoding="utf-8")
    except (ImportError, TypeError, ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        import os

        with open(os.path.join(os.path.dirname(__file__), "data", "datums.json"),
                  encoding="utf-8") as fh:
            return fh.read()


# ------------------------------------------------------------------------------ resolution

def _fold(text: str) -> str:
    """The spelling-insensitive key: upper case, without spaces, hyphens, underscores, dots.

    In ``PREFIX:ID`` names only the prefix is folded; the station identifier is kept as given.
    """
    prefix, sep, ident = text.partition(":")
    head = _FOLD_RE.sub("", prefix.upper())
    return f"{head}:{ident.strip()}" if sep else head


def _lookup(st: _State, name: str) -> str | None:
    """Canonical name of a registered datum spelled ``name`` (exactly or as a variant)."""
    canon = st.exact.get(name)
    if canon is None:
        canon = st.folded.get(_fold(name))
    return canon


def _station_prefix(st: _State, prefix: str) -> tuple[str, str] | None:
    """(canonical prefix, kind) when ``prefix`` may head a ``PREFIX:ID`` datum name."""
    folded = _FOLD_RE.sub("", prefix.upper())
    if folded in _STATION_PREFIXES:
        return _STATION_PREFIXES[folded], "station"
    canon = st.exact.get(prefix.strip()) or st.folded.get(folded)
    if canon is not None:
        d = st.datums[canon]
        if ":" not in canon and d.kind in ("tidal", "station"):
            return canon, d.kind
    return None


def _synthesise(st: _State, name: str) -> Datum | None:
    """A well-formed station datum (``GAGE:07374000``, ``MLLW:8761724``) not yet registered."""
    prefix, sep, ident = name.partition(":")
    ident = ident.strip()
    if not sep or not _ID_RE.match(ident):
        return None
    found = _station_prefix(st, prefix)
    if found is None:
        return None
    canon_prefix, kind = found
    canon = f"{canon_prefix}:{ident}"
    cached = _SYNTHETIC.get(canon)
    if cached is not None:
        return cached
    if canon_prefix == "GAGE":
        desc = f"gage datum (gage zero) of USGS station {ident}"
    elif canon_prefix == "GAUGE":
        desc = f"stage datum (gauge zero) of station {ident}"
    elif kind == "station":
        desc = f"{canon_prefix} station datum of station {ident}"
    else:
        desc = f"{canon_prefix} as realised at station {ident}"
    datum = Datum(name=canon, kind=kind, description=desc)
    if len(_SYNTHETIC) >= 4096:   # a cache only; bound it in long-lived processes
        _SYNTHETIC.clear()
    _SYNTHETIC[canon] = datum
    return datum


def _resolve(st: _State, name: object, *, field: str | None = None) -> Datum:
    if isinstance(name, Datum):
        name = name.name
    if not isinstance(name, str):
        raise UnknownDatum(
            f"expected a vertical datum name, received {name!r}", field=field,
            suggestion="a datum name such as 'NAVD88', 'ODN' or 'GAGE:07374000'",
            received=name, expected="a datum name (str)")
    canon = _lookup(st, name)
    if canon is not None:
        return st.datums[canon]
    synthetic = _synthesise(st, name)
    if synthetic is not None:
        registered = _lookup(st, synthetic.name)
        return st.datums[registered] if registered is not None else synthetic
    raise _unknown(st, name, field=field)


def _unknown(st: _State, name: str, *, field: str | None = None) -> UnknownDatum:
    import difflib

    folded = _fold(name)
    hint = _AMBIGUOUS.get(folded)
    prefix, sep, ident = name.partition(":")
    matches: list[str] = []
    problem = ""
    if hint:
        pass
    elif sep:
        prefixes = dict.fromkeys([*_STATION_PREFIXES] + [
            c for c, d in st.datums.items() if ":" not in c and d.kind in ("tidal", "station")])
        by_fold = {_FOLD_RE.sub("", p.upper()): p for p in prefixes}
        close = difflib.get_close_matches(_FOLD_RE.sub("", prefix.upper()), list(by_fold), n=4,
                                          cutoff=0.6)
        shown_id = ident.strip() or "<station id>"
        matches = [f"{by_fold[c]}:{shown_id}" for c in close]
        problem = ("a station datum is 'PREFIX:ID' with PREFIX one of GAGE (USGS), GAUGE (EA), "
                   "STND or a tidal datum such as MLLW, and ID letters, digits, '_', '.' or '-'")
    else:
        candidates: dict[str, str] = {}
        for spelling, canon in st.folded.items():
            if ":" not in spelling:
                candidates.setdefault(spelling, canon)
        close = difflib.get_close_matches(folded, list(candidates), n=8, cutoff=0.6)
        matches = list(dict.fromkeys(candidates[c] for c in close))[:5]
    message = f"unknown vertical datum {name!r}"
    if hint:
        message += f": {hint}"
        suggestion = "the datum meant, by one of the names above (datums.names() lists all)"
    else:
        if problem:
            message += f": {problem}"
        if matches:
            message += "; close matches: " + ", ".join(repr(m) for m in matches)
        suggestion = ((f"one of {', '.join(repr(m) for m in matches)}, or " if matches else "")
                      + "a registered datum name (datums.names() lists them), or register a "
                      f'new one first: datums.register("{name}", kind="local", '
                      'description="...", source="...")')
    return UnknownDatum(message, field=field, suggestion=suggestion, received=name,
                        expected="a registered vertical datum name")


# ------------------------------------------------------------------------------- reading

def get(name: str) -> Datum:
    """The datum called ``name`` (a name, an alias, a spelling variant, or ``PREFIX:ID``).

    Raises UnknownDatum, listing close matches and how to register a new datum.
    """
    return _resolve(_state(), name)


def is_registered(name: str) -> bool:
    """True when ``name`` resolves to a registered datum (a well-formed but unregistered
    station datum such as ``GAGE:99999999`` is not registered)."""
    if isinstance(name, Datum):
        name = name.name
    if not isinstance(name, str):
        return False
    st = _state()
    if _lookup(st, name) is not None:
        return True
    synthetic = _synthesise(st, name) if ":" in name else None
    return synthetic is not None and synthetic.name in st.datums


def names() -> list[str]:
    """The canonical names of all registered datums, sorted."""
    return sorted(_state().datums)


def registered_offsets() -> list[tuple[str, str, Fraction, str | None]]:
    """Every registered offset as ``(from, to, metres, source)``, in registration order,
    with ``height on to = height on from + metres``."""
    st = _state()
    return [(a, b, st.edges[a][b], st.sources[(a, b)]) for a, b in st.order]


# ------------------------------------------------------------------------------ registering

def register(name: str, *, kind: str = "local", epsg: int | None = None,
             region: str | None = None, description: str = "", aliases=(),
             source: str | None = None) -> Datum:
    """Register a datum. Returns the registered Datum.

    Registering an existing name again with the same meaning (kind, EPSG code and region, and
    the same description and source when those are given) is a no-op; new aliases given then
    are added. A different meaning, a name that is already an alias or spelling variant of
    another datum, or an alias that already names another datum raises RedefinitionError.

    A ``PREFIX:ID`` name (``GAGE:X``, ``GAUGE:X``, ``STND:X``, ``MLLW:X``) takes the kind of
    its prefix (station, or tidal for a tidal prefix); passing a different kind is an error.
    """
    if isinstance(aliases, str):
        aliases = (aliases,)
    datum_name, kind = _check_new_name(_state(), name, kind)
    if epsg is not None and (isinstance(epsg, bool) or not isinstance(epsg, int) or epsg <= 0):
        raise TypeError(f"epsg must be a positive int or None, received {epsg!r}")
    for alias in aliases:
        if not isinstance(alias, str) or not alias.strip():
            raise TypeError(f"aliases must be non-empty strings, received {alias!r}")
    datum = Datum(name=datum_name, kind=kind, epsg=epsg, region=region,
                  description=description or "", aliases=tuple(a.strip() for a in aliases),
                  source=source)
    global _STATE, GENERATION
    with _LOCK:
        st = _state()
        existing = st.datums.get(datum_name)
        if existing is not None and _same_meaning(existing, datum) and all(
                _lookup(st, a) == datum_name for a in datum.aliases):
            return existing                              # nothing new: publish nothing
        new = st.copy()
        result = _add_datum(new, datum)
        _STATE = GENERATION = new
        return result


def _check_new_name(st: _State, name: object, kind: object) -> tuple[str, str]:
    if not isinstance(name, str) or not name.strip():
        raise TypeError(f"a datum name must be a non-empty string, received {name!r}")
    if not isinstance(kind, str) or not kind.strip():
        raise TypeError(f"kind must be a non-empty string such as {KINDS}, received {kind!r}")
    name = name.strip()
    if ":" in name:
        synthetic = _synthesise(st, name)
        if synthetic is not None:
            if kind not in ("local", synthetic.kind):
                raise ValueError(
                    f"{synthetic.name!r} names a {synthetic.kind} datum (from its prefix); "
                    f"it cannot be registered with kind {kind!r}")
            return synthetic.name, synthetic.kind
        prefix = name.partition(":")[0]
        if _station_prefix(st, prefix) is not None:
            raise ValueError(f"{name!r}: a station identifier after {prefix.strip()!r}: must be "
                             f"letters, digits, '_', '.' or '-'")
    return name, kind


def _same_meaning(old: Datum, new: Datum) -> bool:
    return (old.kind == new.kind and old.epsg == new.epsg and old.region == new.region
            and (not new.description or new.description == old.description)
            and (new.source is None or new.source == old.source))


def _add_datum(st: _State, datum: Datum) -> Datum:
    """Add ``datum`` (or new aliases of it) to ``st`` in place. ``st`` must be unpublished."""
    name = datum.name
    owner = _lookup(st, name)
    if owner is not None and owner != name:
        how = "an alias" if st.exact.get(name) == owner else "a spelling variant"
        raise RedefinitionError(
            f"cannot register datum {name!r}: it is already {how} of {owner!r}; use {owner!r}, "
            f"or choose a name that differs by more than case, spaces, hyphens or dots")
    existing = st.datums.get(name)
    if existing is not None and name in st.implicit and existing.kind == datum.kind:
        # created implicitly by register_offset/register_station: the first explicit
        # registration may describe it (region, description, source, EPSG code)
        st.implicit = st.implicit - {name}
        existing = datum.replace(aliases=existing.aliases)
        st.datums[name] = existing
    if existing is not None and not _same_meaning(existing, datum):
        diffs = [f"{f}: {getattr(existing, f)!r} -> {getattr(datum, f)!r}"
                 for f in ("kind", "epsg", "region", "description", "source")
                 if getattr(existing, f) != getattr(datum, f)
                 and not (f == "description" and not datum.description)
                 and not (f == "source" and datum.source is None)]
        raise RedefinitionError(
            f"datum {name!r} is already registered with a different meaning "
            f"({'; '.join(diffs)}); a datum is never silently redefined: register the new one "
            f"under another name")
    for alias in datum.aliases:
        alias_owner = _lookup(st, alias)
        if alias_owner is not None and alias_owner != name:
            raise RedefinitionError(
                f"cannot make {alias!r} an alias of {name!r}: it already names {alias_owner!r}")
    if existing is not None:
        merged = tuple(dict.fromkeys(existing.aliases + tuple(
            a for a in datum.aliases if a not in existing.aliases and a != name)))
        result = existing.replace(aliases=merged)
    else:
        result = datum.replace(aliases=tuple(dict.fromkeys(a for a in datum.aliases
                                                            if a != name)))
    st.datums[name] = result
    for spelling in (name, *result.aliases):
        st.exact.setdefault(spelling, name)
        st.folded.setdefault(_fold(spelling), name)
    return result


def _to_fraction(metres: object, what: str = "metres") -> Fraction:
    """``metres`` as an exact Fraction: Fractions, ints and decimal strings as written, floats
    exactly (their binary value), other real numbers (numpy scalars, Decimal) likewise."""
    if isinstance(metres, bool):
        raise TypeError(f"{what} must be a number, received {metres!r}")
    if isinstance(metres, Fraction):
        return metres
    if isinstance(metres, int):
        return Fraction(metres)
    if isinstance(metres, str):
        try:
            return Fraction(metres.strip())
        except ValueError:
            raise ValueError(f"{what} must be a decimal or ratio such as '0.4572' or "
                             f"'381/833', received {metres!r}") from None
    if isinstance(metres, numbers.Rational):
        return Fraction(int(metres.numerator), int(metres.denominator))
    if isinstance(metres, numbers.Real) or type(metres).__name__ == "Decimal":
        try:  # a Decimal's text is its exact value; other reals are exact as binary floats
            return Fraction(str(metres)) if type(metres).__name__ == "Decimal" else Fraction(
                float(metres))  # type: ignore[arg-type]  # numbers.Real, narrowed above
        except (ValueError, OverflowError):
            raise ValueError(f"{what} must be finite, received {metres!r}") from None
    raise TypeError(f"{what} must be a Fraction, int, decimal string or float, received "
                    f"{type(metres).__name__} {metres!r}")


def _ensure_registered(st: _State, datum: Datum) -> None:
    """Add a synthesised station datum to the (unpublished) state ``st``."""
    if datum.name not in st.datums:
        _add_datum(st, datum)
        st.implicit = st.implicit | {datum.name}


def register_offset(from_datum: str, to_datum: str, metres, *,
                    source: str | None = None) -> Fraction:
    """Declare ``height on to_datum = height on from_datum + metres`` for this pair.

    ``metres`` may be a Fraction, int, decimal string or float (taken exactly); it is stored as
    a Fraction and returned. The reverse direction is implied. A pair is registered once:
    registering it again (either way round) with the same value is a no-op, and with a value
    that disagrees with the offset already known for the pair (directly or through a chain)
    raises RedefinitionError. A value that agrees with an existing chain is kept as a direct
    pair.

    Offsets vary with location. Between two national datums (NAVD88 and NGVD29) an offset
    registered here applies to every value converted afterwards, so register one only for a
    session confined to one place; prefer station-specific datums (``GAGE:X``, ``MLLW:X``).
    """
    value = _to_fraction(metres)
    global _STATE, GENERATION
    with _LOCK:
        st = _state()
        a = _resolve(st, from_datum)
        b = _resolve(st, to_datum)
        if a.name == b.name:
            if value == 0:
                return value
            raise RedefinitionError(
                f"{from_datum!r} and {to_datum!r} are the same datum ({a.name}); the offset "
                f"from a datum to itself is 0, not {_fmt(value)}")
        found = _find_path(st, a.name, b.name)
        if found is not None:
            chain, known = found
            if known == value:
                if len(chain) > 2:      # agrees with a chain: keep it as a direct pair too
                    new = st.copy()
                    _add_edge(new, a.name, b.name, value, source)
                    _STATE = GENERATION = new
                return value
            via = "" if len(chain) == 2 else " through " + " -> ".join(chain)
            raise RedefinitionError(
                f"an offset from {a.name!r} to {b.name!r} is already known{via}: "
                f"{_fmt(known)} (exactly {known}); received {_fmt(value)} (exactly {value}), "
                f"which differs by {_fmt(value - known)}. Registered offsets are never "
                f"overwritten. If the figures are the same published decimal, pass it as a "
                f"string or Fraction so binary float noise does not make them differ")
        new = st.copy()
        _ensure_registered(new, a)
        _ensure_registered(new, b)
        _add_edge(new, a.name, b.name, value, source)
        _STATE = GENERATION = new
        return value


def _add_edge(st: _State, a: str, b: str, value: Fraction, source: str | None) -> None:
    st.edges[a] = {**st.edges.get(a, {}), b: value}
    st.edges[b] = {**st.edges.get(b, {}), a: -value}
    st.sources[(a, b)] = source
    st.order.append((a, b))


def register_station(station_id: str, elevation, *, prefix: str = "GAGE",
                     source: str | None = None) -> str:
    """Register a station's local datum from the elevation of its gauge zero. Returns its name.

    ``elevation`` is the gauge zero's elevation on a named datum, as a quantity (it needs
    ``.magnitude``, ``.unit.factor`` in metres per unit as a Fraction, and ``.datum``), e.g.
    ``register_station("07374000", Q(1.5, "ft", datum="NAVD88"))`` registers ``GAGE:07374000``
    with ``height on NAVD88 = stage + 0.4572 m``. The offset goes to the datum the elevation is
    on: a gauge surveyed on NGVD29 is related to NGVD29, never to NAVD88. An elevation without
    a datum is refused, since the offset would then be assumed.

    ``prefix`` is ``"GAGE"`` (USGS) by default, ``"GAUGE"`` for Environment Agency stations,
    ``"STND"`` for a CO-OPS station datum, or a tidal datum (``"MLLW"``) to register that tidal
    surface at the station (``MLLW:<station_id>``) from its elevation on another datum.
    Registering the same station again with the same elevation is a no-op; a different
    elevation (or one on another datum) raises RedefinitionError.
    """
    if isinstance(station_id, bool) or not isinstance(station_id, str):
        raise TypeError(
            f"station_id must be a string, received {type(station_id).__name__} "
            f"{station_id!r} (station numbers keep their leading zeros: '07374000')")
    ident = station_id.strip()
    if not _ID_RE.match(ident):
        raise ValueError(f"station_id must be letters, digits, '_', '.' or '-', received "
                         f"{station_id!r}")
    if not isinstance(prefix, str):
        raise TypeError(f"prefix must be a string such as 'GAGE' or 'GAUGE', received {prefix!r}")
    st = _state()
    found = _station_prefix(st, prefix)
    if found is None:
        raise _unknown(st, f"{prefix}:{ident}")
    name = f"{found[0]}:{ident}"
    metres, on = _elevation_metres(st, elevation, name, ident, prefix)
    global _STATE, GENERATION
    with _LOCK:
        st = _state()
        station = _resolve(st, name)
        target = _resolve(st, on)
        if target.name == station.name:
            raise RedefinitionError(
                f"the gauge zero of {name} cannot be given on {name} itself: give its "
                f"elevation on another datum (NAVD88, NGVD29, ODN, ...)")
        known = st.stations.get(station.name)
        if known is not None:
            if known == (target.name, metres):
                return station.name
            raise RedefinitionError(
                f"station datum {station.name} is already registered with its zero at "
                f"{_fmt(known[1])} on {known[0]} (exactly {known[1]} m); received "
                f"{_fmt(metres)} on {target.name} (exactly {metres} m). A station's datum is "
                f"registered once; if the station was re-levelled, register the new datum "
                f"under its own name, e.g. datums.register({station.name + '-2'!r}, "
                f"kind='station') and datums.register_offset(...)")
        chain = _find_path(st, station.name, target.name)
        if chain is not None and chain[1] != metres:
            raise RedefinitionError(
                f"{station.name} is already related to {target.name} through "
                f"{' -> '.join(chain[0])}: {_fmt(chain[1])} (exactly {chain[1]}); received "
                f"{_fmt(metres)} (exactly {metres}). Registered offsets are never overwritten")
        new = st.copy()
        _ensure_registered(new, station)
        if chain is None or len(chain[0]) > 2:
            _add_edge(new, station.name, target.name, metres, source)
        new.stations[station.name] = (target.name, metres)
        _STATE = GENERATION = new
        return station.name


def _elevation_metres(st: _State, elevation, name: str, ident: str,
                      prefix: str) -> tuple[Fraction, str]:
    """(metres, datum name) of a quantity-like gauge-zero elevation, exactly."""
    try:
        magnitude = elevation.magnitude
        unit = elevation.unit
        factor = unit.factor
    except AttributeError:
        raise TypeError(
            f"the elevation of {name}'s zero must be a quantity with a unit and a datum, e.g. "
            f"Q(1.5, 'ft', datum='NAVD88'); received {elevation!r}") from None
    datum = getattr(elevation, "datum", None)
    shown = f"{magnitude!r} {unit}"
    prefix_arg = "" if _FOLD_RE.sub("", prefix.upper()) == "GAGE" else f', prefix="{prefix}"'
    if datum is None or (isinstance(datum, str) and not datum.strip()):
        raise DatumConversionUnavailable(
            f"the elevation given for the zero of {name} has no vertical datum (received "
            f"{shown}); registering it would assume one, and the offset would be wrong by the "
            f"difference between datums",
            suggestion=('give the datum the elevation is on, e.g. datums.register_station('
                        f'"{ident}", Q({magnitude!r}, "{unit}", datum="NAVD88"){prefix_arg})'
                        f" with the datum from the station record (USGS alt_datum_cd or "
                        f"vertical_datum; EA stageScale.datum and datumOffset are on ODN); if the "
                        f"record names no datum, the station cannot be converted"),
            received=shown, expected="an elevation on a named datum")
    if getattr(unit, "offset", None):
        raise ValueError(f"the elevation of {name}'s zero must be a length, received {shown}")
    if isinstance(magnitude, bool) or not isinstance(magnitude, numbers.Real):
        raise TypeError(f"the elevation of {name}'s zero must be one number, received "
                        f"{type(magnitude).__name__} {magnitude!r}")
    value = _to_fraction(magnitude, f"the elevation of {name}'s zero") * _to_fraction(
        factor, "the unit factor")
    return value, datum


# ---------------------------------------------------------------------------- conversions

def _find_path(st: _State, a: str, b: str) -> tuple[tuple[str, ...], Fraction] | None:
    """Shortest chain of registered offsets from ``a`` to ``b`` that never uses a
    location-specific datum between two global ones (shape: local* global* local*).

    Memoised per snapshot: a snapshot never changes, so its answers never go stale."""
    key = (a, b)
    try:
        return st.paths[key]
    except KeyError:
        pass
    found = _search(st, a, b)
    if len(st.paths) >= 4096:   # bound the memo in long-lived processes
        st.paths.clear()
    st.paths[key] = found
    return found


def _search(st: _State, a: str, b: str) -> tuple[tuple[str, ...], Fraction] | None:
    if a == b:
        return (a,), Fraction(0)
    datums = st.datums
    edges = st.edges

    def local(n: str) -> bool:
        d = datums.get(n)
        return d is None or d.is_local

    # phase 0: still in the leading run of local datums; 1: on global datums; 2: trailing locals
    start = (a, 0 if local(a) else 1)
    previous: dict[tuple[str, int], tuple[str, int] | None] = {start: None}
    total: dict[tuple[str, int], Fraction] = {start: Fraction(0)}
    frontier = [start]
    while frontier:
        following = []
        for state in frontier:
            node, phase = state
            for nxt, step in edges.get(node, {}).items():
                if local(nxt):
                    nphase = 0 if phase == 0 else 2
                elif phase == 2:
                    continue
                else:
                    nphase = 1
                key = (nxt, nphase)
                if key in previous:
                    continue
                previous[key] = state
                total[key] = total[state] + step
                if nxt == b:
                    chain = []
                    cur: tuple[str, int] | None = key
                    while cur is not None:
                        chain.append(cur[0])
                        cur = previous[cur]
                    return tuple(chain[::-1]), total[key]
                following.append(key)
        frontier = following
    return None


def _any_path(st: _State, a: str, b: str) -> list[str] | None:
    """Shortest chain ignoring the locality rule (only to explain a refusal)."""
    previous: dict[str, str | None] = {a: None}
    frontier = [a]
    while frontier:
        following = []
        for node in frontier:
            for nxt in st.edges.get(node, {}):
                if nxt in previous:
                    continue
                previous[nxt] = node
                if nxt == b:
                    chain: list[str] = []
                    step: str | None = nxt
                    while step is not None:
                        chain.append(step)
                        step = previous[step]
                    return chain[::-1]
                following.append(nxt)
        frontier = following
    return None


def offset(from_datum: str, to_datum: str) -> Fraction:
    """Metres to add to a height on ``from_datum`` to get the height on ``to_datum``.

    Uses registered offsets directly, in reverse, or along the shortest chain, exactly.
    Raises DatumConversionUnavailable when no chain exists, saying what to register.
    """
    st = _state()
    a = _resolve(st, from_datum)
    b = _resolve(st, to_datum)
    found = _find_path(st, a.name, b.name)
    if found is None:
        raise _unavailable(st, a, b)
    return found[1]


def path(from_datum: str, to_datum: str) -> list[str]:
    """The chain of datums ``offset(from_datum, to_datum)`` follows, ends included."""
    st = _state()
    a = _resolve(st, from_datum)
    b = _resolve(st, to_datum)
    found = _find_path(st, a.name, b.name)
    if found is None:
        raise _unavailable(st, a, b)
    return list(found[0])


def _station_hint(st: _State, station: Datum, other: Datum) -> str:
    prefix, _, ident = station.name.partition(":")
    prefix_arg = "" if prefix == "GAGE" else f', prefix="{prefix}"'
    unit = "m" if prefix == "GAUGE" else "ft"
    return (f'datums.register_station("{ident}", Q(<elevation of the {prefix.lower()} zero>, '
            f'"{unit}", datum="{other.name}"){prefix_arg}) from the station record')


def _unavailable(st: _State, a: Datum, b: Datum) -> DatumConversionUnavailable:
    message = (f"no offset is registered from {a.name!r} to {b.name!r}: the offset between two "
               f"vertical datums varies with location, so it is never assumed")
    leak = _any_path(st, a.name, b.name)
    if leak is not None:
        inner = [n for n in leak[1:-1] if st.datums[n].is_local]
        message += (f"; the only chain of registered offsets ({' -> '.join(leak)}) passes "
                    f"through {', '.join(repr(n) for n in inner)}, which belongs to one "
                    f"location, and would apply that location's offset elsewhere")
    for d, other in ((a, b), (b, a)):
        if d.station is not None and not _lookup(st, d.name):
            twins = [n for n in st.datums if n.endswith(":" + d.station) and n != d.name]
            if twins:
                message += (f"; {d.name!r} has nothing registered, but "
                            f"{', '.join(repr(t) for t in twins)} has: was that meant?")
    suggestion = (f'register the offset for this location first: datums.register_offset('
                  f'"{a.name}", "{b.name}", <metres>), where a height on {b.name} = the height '
                  f'on {a.name} + <metres> (NOAA VDatum and similar tools give location-specific '
                  f'offsets)')
    for d, other in ((a, b), (b, a)):
        if d.kind == "station" and d.station is not None:
            suggestion += f", or {_station_hint(st, d, other)}"
            break
    suggestion += f'; then convert with .to_datum("{b.name}")'
    return DatumConversionUnavailable(message, suggestion=suggestion, received=a.name,
                                      expected=b.name)


def check_same(a: str | None, b: str | None, *, field: str | None = None) -> None:
    """Raise DatumMismatch when ``a`` and ``b`` are both given and are different datums
    (after resolving aliases and spelling variants). None means "no datum" and passes."""
    if a is None or b is None:
        return
    st = _state()
    da = _resolve(st, a, field=field)
    db = _resolve(st, b, field=field)
    if da.name == db.name:
        return
    found = _find_path(st, da.name, db.name)
    if found is not None:
        suggestion = (f'convert first: value.to_datum("{db.name}") (registered offset '
                      f"{da.name} -> {db.name}: {_fmt(found[1])})")
    else:
        how = (_station_hint(st, da, db) if da.kind == "station" and da.station
               else _station_hint(st, db, da) if db.kind == "station" and db.station
               else f'datums.register_offset("{da.name}", "{db.name}", <metres>)')
        suggestion = (f"register the offset between them for this location first ({how}), "
                      f'then convert with value.to_datum("{db.name}")')
    raise DatumMismatch(
        f"a value on vertical datum {da.name} cannot be combined with or used as one on "
        f"{db.name} (received {da.name}, expected {db.name}): they are different reference "
        f"frames, and the result would be off by the offset between them", field=field,
        suggestion=suggestion, received=da.name, expected=db.name)


def _fmt(x: Fraction) -> str:
    return f"{float(x):+.10g} m"


def generation() -> object:
    """An object that is replaced whenever the registry changes (a datum, alias, offset or station
    registered, or a scope of ``isolated()`` ending): readers that remember what a datum name
    meant (the answer audit) compare it by identity to know whether their readings are stale.
    None until the registry is first read."""
    return _STATE


# ------------------------------------------------------------------------- scopes

@contextlib.contextmanager
def isolated():
    """A scope for registrations: whatever is registered inside it is forgotten at exit.

    For tests, and for code that registers station datums for one job and must not leave them
    behind. Inside the scope the registry starts as it was; on exit (normal or by an exception)
    the registry is put back exactly as it was on entry. Scopes nest. The registry is
    process-wide, so a scope is not a per-thread sandbox: do not register from other threads
    while one is open.
    """
    saved = _state()
    try:
        yield
    finally:
        global _STATE, GENERATION
        with _LOCK:
            _STATE = GENERATION = saved
