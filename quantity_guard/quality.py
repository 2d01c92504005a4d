"""Record quality: canonical grades, publisher vocabularies, and weakest-wins propagation.

A record's quality is one of five canonical grades, best to worst::

    approved > estimated > provisional > unverified > suspect

* ``approved``: reviewed and approved for publication (USGS ``A``, EA ``Good``, CO-OPS ``v``).
* ``estimated``: reviewed, but the value was estimated (USGS ``e``/``E``, EA ``Estimated``).
* ``provisional``: not yet reviewed, subject to revision (USGS ``P``, CO-OPS ``p``).
* ``unverified``: not checked at all (EA ``Unchecked``).
* ``suspect``: checked and judged doubtful (EA ``Suspect``).

``None`` means "quality not stated"; it is ignored when grades combine, and refused by a floor.

Publishers emit more than grades. Their flags are of three kinds (``data/quality.json``):

* **grade** flags map to a canonical grade;
* **condition** flags say the value is affected or missing (USGS ``Ice``, ``Eqp``, ``Bkw``,
  ``<``, ``***``; OGC ``ICE``, ``EQUIP``; EA ``Missing``). They are reported beside the grade by
  :func:`classify`, never folded into it;
* **remark** flags change neither (USGS ``R`` = the record was *revised*, which is a property of
  approved data, not a grade of its own; OGC ``REVISED``).

**One case rule, for every vocabulary:** flags and grade names are matched without regard to
case (USGS ``a`` is ``A``, CO-OPS ``V`` is ``v``, OGC ``ICE`` and legacy ``Ice`` agree). A flag
written exactly as a publisher spells it takes that spelling's meaning (USGS ``e`` and ``E`` are
different codes, both estimated); a folded spelling that would mean different things (possible
only through registered flags) is refused as ambiguous, naming the publishers.
Vocabularies are read from ``data/quality.json`` on first use, never at import.
"""
from __future__ import annotations

import os

from .errors import QualityViolation, RedefinitionError

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~10 ms under -S
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable

__all__ = [
    "GRADES",
    "QUALITY_ALIASES",
    "QUALITY_CONDITIONS",
    "grade",
    "classify",
    "weakest",
    "meets",
    "check_floor",
    "validate_grade",
    "register_alias",
    "register_condition",
    "describe",
    "publishers",
]

GRADES: tuple[str, ...] = ("approved", "estimated", "provisional", "unverified", "suspect")
"""Canonical grades, best to worst."""

_RANK: dict[str, int] = {g: i for i, g in enumerate(GRADES)}

QUALITY_ALIASES: dict[str, dict[str, str]] = {}
"""User-registered grade flags: publisher -> {flag: canonical grade}.

Extend it with :func:`register_alias` (which refuses redefinitions), or directly. Entries are
checked when used: a flag mapped to an unknown grade is refused then. Built-in vocabularies
(USGS, Environment Agency, NOAA CO-OPS) live in ``data/quality.json``, not here.
"""

QUALITY_CONDITIONS: dict[str, dict[str, str]] = {}
"""User-registered condition flags: publisher -> {flag: meaning}. See :func:`register_condition`."""


class _Entry:
    """One meaning of one flag. ``publisher`` is None for a canonical grade name; ``kind`` is
    "grade", "condition" or "remark"; ``grade`` is set for grades only."""

    __slots__ = ("publisher", "flag", "kind", "grade", "meaning", "source")

    def __init__(self, publisher: str | None, flag: str, kind: str, grade: str | None,
                 meaning: str, source: str) -> None:
        self.publisher = publisher
        self.flag = flag
        self.kind = kind
        self.grade = grade
        self.meaning = meaning
        self.source = source


class _Vocab:
    __slots__ = ("titles", "names", "exact", "folded", "grade_examples", "index")

    def __init__(self, data: dict) -> None:
        self.titles: dict[str, str] = {}
        self.names: dict[str, str] = {}  # lower-case name or synonym -> publisher key
        self.exact: dict[str, dict[str, _Entry]] = {}
        self.folded: dict[str, dict[str, list[_Entry]]] = {}
        self.grade_examples: dict[str, list[str]] = {g: [] for g in GRADES}
        seen_for: dict[str, set] = {}
        for pub, spec in data["publishers"].items():
            self.titles[pub] = spec.get("title", "")
            self.names[pub.lower()] = pub
            for syn in spec.get("synonyms", ()):
                self.names[syn.lower()] = pub
            exact: dict[str, _Entry] = {}
            folded: dict[str, list[_Entry]] = {}
            for flag, row in spec["flags"].items():
                entry = _Entry(pub, flag, row["kind"], row.get("grade"), row.get("meaning", ""),
                               row.get("source", ""))
                exact[flag] = entry
                folded.setdefault(flag.lower(), []).append(entry)
                if (entry.kind == "grade" and entry.grade in self.grade_examples
                        and pub not in seen_for.setdefault(entry.grade, set())):
                    seen_for[entry.grade].add(pub)
                    label = {"usgs": "USGS", "ea": "EA", "noaa_coops": "CO-OPS"}.get(pub, pub)
                    self.grade_examples[entry.grade].append(f"{label} {flag!r}")
            self.exact[pub] = exact
            self.folded[pub] = folded
        # flag as written -> its meanings across all built-in publishers (the fast path)
        self.index: dict[str, tuple[_Entry, ...]] = {}
        spellings = {f for pub in self.exact for f in self.exact[pub]}
        spellings |= {f.lower() for f in spellings} | {f.upper() for f in spellings}
        for f in spellings:
            found: list[_Entry] = []
            for pub in self.exact:
                found.extend(self._builtin(f, pub))
            self.index[f] = tuple(found)

    def _builtin(self, flag: str, pub: str) -> list[_Entry]:
        exact = self.exact.get(pub, {})
        if flag in exact:
            return [exact[flag]]
        return list(self.folded.get(pub, {}).get(flag.lower(), ()))


_VOCAB: _Vocab | None = None


def _data_text() -> str:
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "quality.json")
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError:  # e.g. imported from a zip archive
        from importlib import resources
        package = __name__.rpartition(".")[0]
        return resources.files(package).joinpath("data/quality.json").read_text(encoding="utf-8")


def _vocab() -> _Vocab:
    global _VOCAB
    if _VOCAB is None:
        import json
        _VOCAB = _Vocab(json.loads(_data_text()))
    return _VOCAB


# -- names -------------------------------------------------------------------------------------

def _clean_flag(flag: object, what: str = "quality flag") -> str:
    if not isinstance(flag, str):
        raise QualityViolation(
            f"expected a {what} as a string, received {flag!r} ({type(flag).__name__}).",
            received=flag, suggestion=f"a {what} such as 'approved' or a publisher code such as 'A'")
    text = flag.strip()
    if not text:
        raise QualityViolation(f"received an empty {what}.", received=flag,
                               suggestion=f"a {what} such as 'approved' or a publisher code such as 'A'")
    return text


def _user_key(table: dict, pub: str) -> str | None:
    if pub in table:
        return pub
    low = pub.lower()
    for key in table:
        if key.lower() == low:
            return key
    return None


def _publisher_key(publisher: object) -> str:
    """Resolve a publisher name (case-insensitive, synonyms allowed) to its key."""
    if not isinstance(publisher, str) or not publisher.strip():
        raise QualityViolation(f"expected a publisher name, received {publisher!r}.",
                               received=publisher, suggestion=f"one of {_publisher_list()}")
    name = publisher.strip()
    key = _vocab().names.get(name.lower())
    if key is not None:
        return key
    for table in (QUALITY_ALIASES, QUALITY_CONDITIONS):
        user = _user_key(table, name)
        if user is not None:
            return user
    raise QualityViolation(
        f"unknown quality publisher {publisher!r}; known publishers: {_publisher_list()}.",
        received=publisher, expected=publishers(),
        suggestion=(f"one of {_publisher_list()}, or register this publisher's flags first with "
                    f"register_alias({name!r}, flag, grade)"))


def publishers() -> tuple[str, ...]:
    """Every publisher with a vocabulary: built-in ones first, then registered ones."""
    seen = list(_vocab().exact)
    for table in (QUALITY_ALIASES, QUALITY_CONDITIONS):
        for key in table:
            if key.lower() not in {p.lower() for p in seen}:
                seen.append(key)
    return tuple(seen)


def _publisher_list() -> str:
    return ", ".join(publishers())


# -- look-up -----------------------------------------------------------------------------------

def _in_publisher(flag: str, pub: str) -> list[_Entry]:
    """The meanings ``flag`` has for one publisher (built-in, then registered)."""
    found = _vocab()._builtin(flag, pub)
    for table, kind in ((QUALITY_ALIASES, "grade"), (QUALITY_CONDITIONS, "condition")):
        key = _user_key(table, pub)
        if key is None:
            continue
        flags = table[key]
        same = [flag] if flag in flags else [f for f in flags if f.lower() == flag.lower()]
        for f in same:
            val = flags[f]
            if kind == "grade":
                found.append(_Entry(key, f, "grade", val, f"registered alias for {val}", "user"))
            else:
                found.append(_Entry(key, f, "condition", None, val or "registered condition",
                                    "user"))
    return found


def _lookup(flag: str, publisher: str | None) -> tuple[_Entry, ...]:
    """Every meaning of ``flag``: canonical grade name, or publisher flags."""
    low = flag.lower()
    if low in _RANK:
        return (_Entry(None, low, "grade", low, "canonical grade", "quantity_guard"),)
    if publisher is not None:
        return tuple(_in_publisher(flag, _publisher_key(publisher)))
    if not QUALITY_ALIASES and not QUALITY_CONDITIONS:
        hit = _vocab().index.get(flag)  # odd spellings and unknown flags take the full search
        if hit is not None:
            return hit
    found: list[_Entry] = []
    for pub in publishers():
        found.extend(_in_publisher(flag, pub))
    return tuple(found)


def _meaning(e: _Entry) -> tuple[str, str | None]:
    return (e.kind, e.grade)


def _describe_entry(e: _Entry) -> str:
    if e.kind == "grade":
        return f"{e.publisher}: {e.grade}" if e.publisher else f"grade {e.grade}"
    return f"{e.publisher}: {e.kind}"


def _known_flags(publisher: str | None) -> list[str]:
    pubs = [_publisher_key(publisher)] if publisher is not None else list(publishers())
    flags: list[str] = []
    for pub in pubs:
        flags.extend(_vocab().exact.get(pub, {}))
        for table in (QUALITY_ALIASES, QUALITY_CONDITIONS):
            key = _user_key(table, pub)
            if key is not None:
                flags.extend(f for f in table[key] if f not in flags)
    return flags


def _close(flag: str, candidates: Iterable[str]) -> list[str]:
    import difflib
    cands = list(dict.fromkeys(candidates))
    low = flag.lower()
    first = [c for c in cands if c.lower() == low and c != flag]
    by_lower: dict[str, list[str]] = {}
    for c in cands:
        by_lower.setdefault(c.lower(), []).append(c)
    out = list(first)
    for match in difflib.get_close_matches(low, list(by_lower), n=6, cutoff=0.6):
        out.extend(c for c in by_lower[match] if c not in out)
    return out


def _unknown(flag: str, publisher: str | None) -> QualityViolation:
    flags = _known_flags(publisher)
    close = _close(flag, [*GRADES, *flags])
    where = f" for publisher {_publisher_key(publisher)!r}" if publisher is not None else ""
    parts = [f"unknown quality flag {flag!r}{where}."]
    if close:
        parts.append("Close matches: " + ", ".join(repr(c) for c in close)
                     + ".")
    if publisher is not None:
        parts.append(f"Known flags for {_publisher_key(publisher)}: " + ", ".join(flags) + ".")
    else:
        groups = [f"grades {', '.join(GRADES)}"]
        for pub in publishers():
            groups.append(f"{pub} {', '.join(_known_flags(pub))}")
        parts.append("Known: " + "; ".join(groups) + ".")
    target = repr(close[0]) if close else "a known flag"
    return QualityViolation(
        " ".join(parts), received=flag, expected=tuple(dict.fromkeys([*close, *GRADES, *flags])),
        suggestion=(f"{target}, or register this publisher's flag first with "
                    f"register_alias(publisher, {flag!r}, grade)"))


def _resolve(flag: str, publisher: str | None) -> _Entry:
    """The single meaning of ``flag``, or a QualityViolation (unknown or ambiguous)."""
    entries = _lookup(flag, publisher)
    if not entries:
        raise _unknown(flag, publisher)
    meanings = {_meaning(e) for e in entries}
    if len(meanings) > 1:
        pubs = sorted({e.publisher for e in entries if e.publisher})
        listed = "; ".join(dict.fromkeys(_describe_entry(e) for e in entries))
        raise QualityViolation(
            f"quality flag {flag!r} means different things to different publishers ({listed}), "
            f"so it cannot be read without naming the publisher.",
            received=flag, expected=tuple(pubs),
            suggestion=" or ".join(f"grade({flag!r}, publisher={p!r})" for p in pubs))
    return entries[0]


def _entry_grade(e: _Entry) -> str:
    g = e.grade
    if isinstance(g, str) and g.lower() in _RANK:
        return g.lower()
    raise QualityViolation(
        f"{e.publisher} flag {e.flag!r} is registered as grade {g!r}, which is not a grade; "
        f"grades, best to worst: {', '.join(GRADES)}.",
        received=g, expected=GRADES,
        suggestion=f"fix QUALITY_ALIASES[{e.publisher!r}][{e.flag!r}] to one of {', '.join(GRADES)}")


# -- public API --------------------------------------------------------------------------------

def grade(flag: str, publisher: str | None = None) -> str:
    """The canonical grade a flag stands for.

    ``flag`` is a canonical grade name (any case), a publisher flag (``"A"``, ``"e"``,
    ``"Provisional"``, ``"ESTIMATED"``, ``"Good"``), or a :data:`QUALITY_ALIASES` entry. With
    ``publisher=None`` every publisher is searched, and a flag that means different things to
    different publishers is refused. Condition and remark codes (``"Ice"``, ``"R"``) are not
    grades and are refused with a pointer to :func:`classify`.
    """
    text = _clean_flag(flag)
    low = text.lower()
    if low in _RANK:
        return low
    e = _resolve(text, publisher)
    if e.kind == "grade":
        return _entry_grade(e)
    if e.kind == "condition":
        raise QualityViolation(
            f"{text!r} is a condition code, not a quality grade ({e.publisher}: {e.meaning}); "
            f"it says the value is affected or missing, not how far the record was reviewed.",
            received=text, expected=GRADES,
            suggestion=("a grade flag such as 'A' or 'P'; to read a value's whole qualifier list "
                        "use classify(), which returns the grade and the conditions separately: "
                        "classify(['P', 'Ice']) -> ('provisional', ('Ice',))"))
    raise QualityViolation(
        f"{text!r} is a remark, not a quality grade ({e.publisher}: {e.meaning}); the grade comes "
        f"from the record's approval flag.",
        received=text, expected=GRADES,
        suggestion=("a grade flag such as 'A' or 'P'; to read a value's whole qualifier list "
                    "use classify(): classify(['A', 'R']) -> ('approved', ())"))


def classify(flags: Iterable[str | None] | str | None,
             publisher: str | None = None) -> tuple[str | None, tuple[str, ...]]:
    """Split a value's qualifier codes into (weakest grade or None, condition codes).

    ``flags`` is the list as publishers emit it: USGS ``["P", "Ice"]`` or ``["A", "e"]``, OGC
    ``[approval_status, *qualifier]`` such as ``["Approved", "ESTIMATED", "REVISED"]``, EA
    ``["Good"]``. ``None`` (an OGC ``qualifier: null``) and ``None`` entries are skipped; a single
    string is one flag. Remarks (USGS ``R``) are dropped. Conditions come back as written, in
    order, without repeats. Unknown or ambiguous flags are refused as in :func:`grade`.
    """
    if flags is None:
        return None, ()
    if isinstance(flags, str):
        flags = (flags,)
    grades: list[str] = []
    conditions: list[str] = []
    for raw in flags:
        if raw is None:
            continue
        text = _clean_flag(raw)
        low = text.lower()
        if low in _RANK:
            grades.append(low)
            continue
        e = _resolve(text, publisher)
        if e.kind == "grade":
            grades.append(_entry_grade(e))
        elif e.kind == "condition" and text not in conditions:
            conditions.append(text)
    return weakest(*grades), tuple(conditions)


def weakest(*grades: str | None) -> str | None:
    """The worst of ``grades``; ``None`` (quality not stated) is ignored; all ``None`` -> None."""
    worst = -1
    result: str | None = None
    for g in grades:
        if g is None:
            continue
        rank = _RANK.get(g)
        if rank is None:
            g = validate_grade(g)
            rank = _RANK[g]
        if rank > worst:
            worst, result = rank, g
    return result


def validate_grade(name: str) -> str:
    """Normalise a canonical grade name (case-insensitive); refuse anything else.

    Used for declared floors, so publisher codes are refused here with a pointer to the grade
    they stand for: declare ``quality="approved"``, not ``quality="A"``.
    """
    if isinstance(name, str):
        low = name.strip().lower()
        if low in _RANK:
            return low
    order = ", ".join(GRADES)
    hint = ""
    if isinstance(name, str) and name.strip():
        try:
            meant = grade(name)
        except QualityViolation:
            meant = None
        if meant is not None:
            hint = f" {name.strip()!r} is a publisher flag meaning {meant!r}."
            best: str | None = meant
        else:
            import difflib
            close = difflib.get_close_matches(name.strip().lower(), GRADES, n=1, cutoff=0.5)
            best = close[0] if close else None
            if best:
                hint = f" Did you mean {best!r}?"
    else:
        best = None
    raise QualityViolation(
        f"unknown quality grade {name!r}; grades, best to worst: {order}.{hint}",
        received=name, expected=GRADES,
        suggestion=(f"{best!r}" if best else "one of " + ", ".join(repr(g) for g in GRADES)))


def meets(grade: str | None, floor: str | None) -> bool:
    """True when ``grade`` is at least as good as ``floor``.

    No floor (``None``) is met by anything; an unstated grade (``None``) meets no floor.
    """
    if floor is None:
        return True
    f = validate_grade(floor)
    if grade is None:
        return False
    g = grade if grade in _RANK else validate_grade(grade)
    return _RANK[g] <= _RANK[f]


def _examples(floor: str) -> str:
    """'approved data (USGS 'A', EA 'Good')', listing the grades that meet ``floor``."""
    ok = GRADES[: _RANK[floor] + 1]
    flags = _vocab().grade_examples.get(GRADES[0], [])
    text = f"{GRADES[0]} data" + (f" ({', '.join(flags)})" if flags else "")
    if len(ok) > 1:
        text = f"{' or '.join(ok)} data, e.g. {text}"
    return text


def check_floor(grade: str | None, floor: str | None, *, field: str | None = None) -> str | None:
    """Refuse a record weaker than ``floor``; return the normalised grade otherwise.

    A value with no stated quality (``grade=None``) is refused against any floor, because it
    cannot be shown to meet it. ``floor=None`` accepts everything.
    """
    if floor is None:
        return None if grade is None else validate_grade(grade)
    f = validate_grade(floor)
    order = ", ".join(GRADES)
    if grade is None:
        raise QualityViolation(
            f"received a value with no stated quality, so it cannot be shown to meet the "
            f"declared floor {f!r}; its quality is unknown (grades, best to worst: {order}).",
            field=field, received=None, expected=f,
            suggestion=(f"a value that states its quality, at least {f}: {_examples(f)}; "
                        f"or relax the declaration (drop quality={f!r}) if values of unknown "
                        f"quality are acceptable"))
    g = grade if grade in _RANK else validate_grade(grade)
    if _RANK[g] <= _RANK[f]:
        return g
    raise QualityViolation(
        f"received a {g} record, but this requires quality {f} or better "
        f"(grades, best to worst: {order}).",
        field=field, received=g, expected=f,
        suggestion=(f"a record of at least {f} quality: {_examples(f)}; or relax the "
                    f"declaration to quality={g!r} if {g} records are acceptable"))


def _check_redefinition(pub: str, text: str, kind: str, g: str | None) -> None:
    if text.lower() in _RANK and (kind != "grade" or text.lower() != g):
        raise RedefinitionError(
            f"{text!r} is a canonical quality grade and cannot be redefined as "
            f"{g if kind == 'grade' else 'a condition'} for {pub}")
    for e in _in_publisher(text, pub):
        if _meaning(e) != (kind, g):
            now = f"grade {e.grade}" if e.kind == "grade" else f"a {e.kind}"
            new = f"grade {g}" if kind == "grade" else "a condition"
            raise RedefinitionError(
                f"{pub} flag {e.flag!r} already means {now} ({e.meaning}); refusing to redefine "
                f"{text!r} as {new}")


def _new_publisher_key(publisher: object) -> str:
    if not isinstance(publisher, str) or not publisher.strip():
        raise QualityViolation(f"expected a publisher name, received {publisher!r}.",
                               received=publisher, suggestion="a publisher name such as 'sepa'")
    name = publisher.strip()
    key = _vocab().names.get(name.lower())
    if key is None:
        key = _user_key(QUALITY_ALIASES, name) or _user_key(QUALITY_CONDITIONS, name) or name.lower()
    return key


def register_alias(publisher: str, flag: str, grade: str) -> None:
    """Teach a publisher's flag: ``register_alias("sepa", "50", "approved")``.

    Refuses an unknown grade (QualityViolation), and a flag that already means something else
    for that publisher, or a canonical grade name mapped elsewhere (RedefinitionError).
    Registering the same meaning twice is harmless.
    """
    g = validate_grade(grade)
    pub = _new_publisher_key(publisher)
    text = _clean_flag(flag)
    _check_redefinition(pub, text, "grade", g)
    QUALITY_ALIASES.setdefault(pub, {})[text] = g


def register_condition(publisher: str, flag: str, meaning: str = "") -> None:
    """Teach a publisher's condition code (value affected or missing), e.g. a new OGC word.

    Refuses a flag that already means a grade or remark for that publisher (RedefinitionError).
    """
    pub = _new_publisher_key(publisher)
    text = _clean_flag(flag)
    _check_redefinition(pub, text, "condition", None)
    QUALITY_CONDITIONS.setdefault(pub, {})[text] = meaning


def describe(flag: str, publisher: str | None = None) -> dict:
    """What a flag means: ``{"flag", "publisher", "kind", "grade", "meaning", "source"}``."""
    e = _resolve(_clean_flag(flag), publisher)
    return {"flag": e.flag, "publisher": e.publisher, "kind": e.kind,
            "grade": _entry_grade(e) if e.kind == "grade" else None,
            "meaning": e.meaning, "source": e.source}
