"""``quantity-guard-mcp annotate``: an annotation file drafted from a server's own words.

The drafter reads a ``tools/list`` result (tool and property descriptions, titles, property names,
output schemas) and writes TOML that ``--annotations`` loads as it is. It declares a unit, a datum
or a time zone only where the server's words state one, with the quoted words as a comment; where
nothing is stated, or the words are ambiguous, it writes a comment and no declaration. A wrong unit
in a draft is worse than none: every rule below prefers saying nothing.

Units are recognised with the kernel's own names and spellings (``quantity_guard.units``: every
symbol, alias, long name, prefix and refusal of the unit table), datums with the datum registry's
names and aliases (``data/datums.json``), zones with the IANA database. The reading is a table of
named rules (:data:`RULES`), each with tests on both sides (``tests/annotations/``):

- where a unit may be stated in words (the *slots*): after ``in`` and its kin (``measured in``,
  ``units of``), alone in parentheses (``stage (ft)``), after ``unit:``, and as the last word(s) of
  a property name (``flow_cfs``, ``elevationFt``);
- what the words in a slot mean: the longest run of words the kernel reads as one unit (with a
  datum: ``feet above MLLW``), a qualifier that settles one of the kernel's own ambiguities
  (``US gallons``, ``metric tons``), a degree with its scale letter (``degrees F``);
- when to say nothing: the kernel refuses the word as ambiguous (``gallons``, ``tons``), a degree
  on a temperature, several different units in one field's words, a unit chosen per call by
  another parameter or carried by a sibling field.
"""
from __future__ import annotations

import json
import re
import textwrap
from typing import Any, Callable, NamedTuple

__all__ = ["draft", "draft_toml", "FieldDraft", "ToolDraft", "RULES", "read_unit_words",
           "read_name", "tools_of"]


class Rule(NamedTuple):
    code: str
    what: str


#: the drafting rules, by code: every reading and every refusal to read names the rule it used
RULES = {r.code: r for r in (
    Rule("in-words", "a unit after 'in', 'measured in', 'expressed in', 'units of'"),
    Rule("unit-above-datum", "a unit right before 'above'/'below' a datum the kernel reads with "
                             "it: 'feet above NAVD88' (unit and datum)"),
    Rule("result-in-description", "a result with no output schema whose tool description states "
                                  "one unit, in its first sentence and nowhere another: "
                                  "returns = { unit = ... }"),
    Rule("parenthesised", "a unit alone in parentheses after a word: 'stage (ft)'"),
    Rule("unit-label", "a unit after 'unit:' or 'units:'"),
    Rule("count-of-time-units", "a count of a time unit is a duration in it: 'number of days', "
         "'how many hours', a clause opening 'Hours of ...'; time units only (never 'number of "
         "revolutions', 'number of points')"),
    Rule("statute-mile", "'statute' before miles names the kernel's mile (mi); before any other "
         "unit it states nothing"),
    Rule("name-suffix", "the last word(s) of a property name: flow_cfs, elevationFt, speed_cm_s"),
    Rule("qualifier", "US / imperial / metric / short / long before a unit word the kernel finds "
                      "ambiguous picks the kernel's own alternative: US gallons -> gal_US"),
    Rule("degree-scale", "a degree followed by its scale letter: 'degrees F' -> degF"),
    Rule("kernel-ambiguous", "a unit word the kernel refuses as ambiguous (gallons, tons, kt, C): "
                             "a comment with its choices, no declaration"),
    Rule("degree-on-temperature", "'degrees' on a temperature does not say Celsius or Fahrenheit: "
                                  "a comment with the choices, no declaration"),
    Rule("several-units", "the field's words name several different units: a comment, no "
                          "declaration"),
    Rule("chosen-per-call", "the words say another parameter chooses the unit (a parameter whose "
                            "name holds 'unit', or 'the requested units'): no declaration"),
    Rule("carried-by-sibling", "the value sits beside a field naming its unit (unit, unitCode, "
                               "units): no declaration"),
    Rule("name-ambiguous-case", "a name's last word that several units spell in another case "
                                "(mhz: mHz or MHz; ms: ms or mS): not read"),
    Rule("name-statistic", "a name ending in min reads as a minimum (temp_min), not minutes"),
    Rule("datum-named", "one vertical datum named in the field's words (NAVD88, MLLW, ODN, "
                        "'feet above MLLW', glued to its unit as in 'mAOD'; a name inside a "
                        "longer one counts once) on a length"),
    Rule("datum-several", "several datums named ('NAVD 88 or NGVD 29'): a comment, no datum"),
    Rule("datum-station", "'gauge datum' / 'station datum': a comment, the station is not named"),
    Rule("datum-chosen-per-call", "a parameter named datum chooses the reference: no datum"),
    Rule("tz-timestamp", "a timestamp parameter (ISO 8601, RFC 3339, date-time, 'timestamp') "
                         "whose words name its zone (UTC, Z, an IANA name)"),
    Rule("tz-offset-only", "a timestamp that must carry an offset but names no zone: a comment"),
    Rule("tz-not-a-timestamp", "a clock time or a date alone: never a tz"),
    Rule("prose-result", "a result with no usable output schema (prose, or the SDK's "
                         "{result: string}): units named are listed in a comment"),
)}

_SLOT_RE = re.compile(
    r"(?:\b(?:measured|expressed|given|reported|stated|specified)\s+in|\bin\s+units\s+of|"
    r"\bunits?\s+of|\bin)\s+(?P<in>[^,;:()\[\]\n]+)"
    r"|(?<=\s)\((?P<paren>[^()\n]{1,40})\)"
    r"|\bunits?\s*:\s*(?P<label>[^,;()\[\]\n]+)"
    r"|(?P<above>(?<![\w-])[^\W\d][^\s,;:()]*(?:\s+[^\W\d][^\s,;:()]*)?\s+(?:above|below)\s+"
    r"[A-Z][\w-]*(?:\s\d{2,4})?)", re.I)
_STOP = re.compile(r"\.\s|\.$|\s[-–—]\s|\s(?:and|or|for|from|to|with|when|where|if|of|at|"
                   r"around|relative|which|that|per\s+\w+\s+(?:for|of))\s")
_ARTICLES = frozenset({"a", "an", "the", "this", "that", "these", "those", "each", "any", "its",
                       "their", "your", "our", "which", "what", "order", "case"})
_MODIFIERS = frozenset({"decimal", "whole", "integer", "fractional", "signed", "unsigned"})
_QUALIFIERS = {"us": "US", "u.s.": "US", "imperial": "imp", "uk": "imp", "short": "short",
               "long": "long", "metric": "metric"}
_MAX_WORDS = 5
# "number of days", "how many hours", a clause opening "Hours of history": the counted word
_COUNT_OF = re.compile(r"\b(?:number|count)\s+of\s+(?P<counted>[A-Za-z]{3,})\b"
                       r"|\bhow\s+many\s+(?P<many>[A-Za-z]{3,})\b"
                       r"|(?:^|[.:;]\s+)(?P<lead>[A-Za-z]{3,})\s+of\s", re.I)
_TEMPERATURE = re.compile(r"temp", re.I)
_DEGREE_SCALE = re.compile(r"^deg(?:rees?|s)?\.?\s*(?:°\s*)?([CFK])\b\.?$", re.I)


class Reading(NamedTuple):
    """What one slot of words says: a unit (``unit`` the text to declare, ``dims`` and
    ``factor`` for comparison), or ``choices`` when the words are ambiguous."""

    unit: "str | None"
    key: "tuple | None"  # (dims, factor, offset): equal keys are the same unit
    datum: "str | None"
    choices: "tuple[str, ...]"
    rule: str
    evidence: str
    why: str = ""
    words: int = 0  # how many of the words given were read


def _kernel():
    from ..units import parse_with_datum, try_parse_unit
    from ..units import table
    return parse_with_datum, try_parse_unit, table


def _key(unit) -> tuple:
    return (unit.dims, unit.factor, unit.offset)


def read_unit_words(words: str, rule: str = "in-words", evidence: str = "") -> "Reading | None":
    """The unit (and datum) a short run of words states, read by the kernel: the longest
    leading run of words that is one unit. None when the words state none."""
    parse_with_datum, try_parse_unit, table = _kernel()
    from ..errors import GuardViolation
    tokens = words.strip().strip(".").split()
    if not tokens:
        return None
    if tokens[0].lower() in ("in", "unit:", "units:") and len(tokens) > 1:
        tokens = tokens[1:]  # "(in seconds)": the preposition, not inches
    if tokens[0].lower() in _ARTICLES or tokens[0].startswith("`"):
        return None
    qualifier = None
    if tokens[0].lower() in _MODIFIERS:
        tokens = tokens[1:]
    statute = bool(tokens) and tokens[0].lower() == "statute"
    if statute:
        tokens = tokens[1:]
        rule = "statute-mile"
    if tokens and tokens[0].lower().strip("()") in _QUALIFIERS:
        qualifier = _QUALIFIERS[tokens[0].lower().strip("()")]
        tokens = tokens[1:]
    for n in range(min(len(tokens), _MAX_WORDS), 0, -1):
        text = " ".join(tokens[:n]).rstrip(".")
        if not text or not any(c.isalpha() or c in "%°" for c in text):
            continue
        scale = _DEGREE_SCALE.match(text)
        if scale:
            symbol = {"C": "degC", "F": "degF", "K": "K"}[scale.group(1).upper()]
            unit = try_parse_unit(symbol)
            return Reading(symbol, _key(unit), None, (), "degree-scale", evidence or text, "", n)
        refused = _refused(text, table)
        if refused is not None:
            why, choices = refused
            if qualifier is not None:
                picked = _qualified(choices, qualifier)
                if picked is not None:
                    unit = try_parse_unit(picked)
                    if unit is not None:
                        return Reading(picked, _key(unit), None, (), "qualifier", evidence or text,
                                       "", n)
            return Reading(None, None, None, tuple(choices), "kernel-ambiguous", evidence or text,
                           why, n)
        try:
            unit, datum = parse_with_datum(text)
        except (GuardViolation, ValueError):
            continue
        if statute and _key(unit) != _key(try_parse_unit("mi")):
            return None
        if qualifier == "imp" and "imp" not in unit.symbol:
            return Reading(None, None, None, (unit.symbol,), "kernel-ambiguous", evidence or text,
                           f"{words.strip()!r}: the kernel's {unit.symbol} is not the imperial unit",
                           n)
        if datum is not None:
            datum = _datum_name(datum)
        return Reading(_spelled(unit, text), _key(unit), datum, (), rule, evidence or text, "", n)
    return None


def _spelled(unit, text: str) -> str:
    """What to write in the declaration: the kernel's canonical spelling, which reads back as
    the same unit (``kcfs``, ``ft3/s``, ``gal_US/min``)."""
    _, try_parse_unit, _ = _kernel()
    symbol = unit.symbol
    again = try_parse_unit(symbol)
    if again is not None and _key(again) == _key(unit):
        return symbol
    return text


def _refused(text: str, table) -> "tuple[str, tuple[str, ...]] | None":
    """The kernel's refusal of a word as ambiguous (``gallons``, ``tons``, ``kt``), if any, with
    its alternatives. Only a single-word unit is looked up; a refused word inside a longer
    expression (``gallons per minute``) is found by parsing it."""
    from ..errors import UnitParseError
    hit = table.refusal(text)
    if hit is not None:
        return hit[0], tuple(hit[1])
    _, try_parse_unit, _ = _kernel()
    from ..units import parse_unit
    if try_parse_unit(text) is not None:
        return None
    try:
        parse_unit(text)
    except UnitParseError as exc:
        message = str(exc)
        if "ambiguous" in message:
            word = re.match(r"'([^']+)' is ambiguous", message)
            alts = table.refusal(word.group(1))[1] if word and table.refusal(word.group(1)) \
                else tuple(getattr(exc, "suggestions", ()) or ())
            return message.split(" at position")[0], tuple(alts)
    except Exception:
        return None
    return None


def _qualified(choices: "tuple[str, ...]", qualifier: str) -> "str | None":
    if qualifier == "metric":
        plain = [c for c in choices if "_" not in c]
        return plain[0] if len(plain) == 1 else None
    hits = [c for c in choices if qualifier.lower() in c.lower().replace("-", "_").split("_")]
    return hits[0] if len(hits) == 1 else None


def _datum_name(text: str) -> "str | None":
    from .. import datums
    try:
        return datums.get(text).name
    except Exception:
        return None


# -- the words about one field ------------------------------------------------------------------
def slots(text: str) -> "list[tuple[str, str]]":
    """``(rule, words)`` for each place in ``text`` where a unit may be stated."""
    if not isinstance(text, str) or not text:
        return []
    text = re.sub(r"`[^`]*`", " `code` ", text)
    found = []
    for m in _SLOT_RE.finditer(text):
        if m.group("in") is not None:
            words = _STOP.split(m.group("in") + " ", 1)[0]
            found.append(("in-words", words))
        elif m.group("paren") is not None:
            inner = m.group("paren").strip()
            found.append(("parenthesised", inner))
        elif m.group("label") is not None:
            found.append(("unit-label", _STOP.split(m.group("label") + " ", 1)[0]))
        elif m.group("above") is not None:
            found.append(("unit-above-datum", m.group("above")))
    for m in _COUNT_OF.finditer(text):
        found.append(("count-of-time-units", m.group("counted") or m.group("many")
                      or m.group("lead")))
    return found


def read_text(text: str) -> "list[Reading]":
    """Every unit statement in ``text``, in order."""
    out = []
    for rule, words in slots(text):
        if rule == "parenthesised":
            reading = _whole(words, rule)
        elif rule == "unit-above-datum":
            reading = _above(words)
        elif rule == "count-of-time-units":
            reading = _time_count(words)
        else:
            reading = read_unit_words(words, rule)
        if reading is not None:
            out.append(reading._replace(evidence=_quote(text, words)))
    return out


def _time_count(word: str) -> "Reading | None":
    """The unit of ``number of <word>``: only a time unit (a count of days is a duration in
    days; a count of revolutions or points is a count)."""
    _, try_parse_unit, _ = _kernel()
    reading = read_unit_words(word, "count-of-time-units")
    if reading is None or reading.unit is None:
        return None
    unit = try_parse_unit(reading.unit)
    if unit is None or unit.dims != try_parse_unit("s").dims:
        return None
    return reading


def _whole(words: str, rule: str) -> "Reading | None":
    """A parenthesis states a unit only when the unit is all it holds: ``(ft)``, ``(US GPM)``,
    never ``(feet for english, meters for metric)``."""
    reading = read_unit_words(words, rule)
    if reading is None:
        return None
    tokens = words.strip().strip(".").split()
    skipped = sum(1 for t in tokens[:3] if t.lower() in _MODIFIERS or t.lower() in _QUALIFIERS
                  or t.lower() in ("in", "unit:", "units:"))
    return reading if reading.words + skipped >= len(tokens) else None


def _above(words: str) -> "Reading | None":
    """``feet above NAVD88``: a unit and a datum the kernel reads together, the unit being the
    word (or two) right before ``above``; nothing unless both are read."""
    parse_with_datum, _, _ = _kernel()
    from ..errors import GuardViolation
    head, _, tail = re.split(r"\s+(above|below)\s+", words, maxsplit=1, flags=re.I)[0:3] \
        if re.search(r"\s(above|below)\s", words, re.I) else (words, "", "")
    parts = head.split()
    for n in (2, 1):
        if len(parts) < n:
            continue
        text = " ".join(parts[-n:]) + " above " + words.split()[-1] if False else \
            " ".join(parts[-n:]) + words[len(head):]
        try:
            unit, datum = parse_with_datum(text)
        except (GuardViolation, ValueError):
            continue
        name = _datum_name(datum) if datum else None
        if name is None:
            return None
        return Reading(_spelled(unit, text), _key(unit), name, (), "unit-above-datum", text, "",
                       n)
    return None


def _quote(text: str, words: str) -> str:
    """The sentence of ``text`` holding ``words``, for the comment."""
    text = " ".join(text.split())
    i = text.find(words.strip())
    if i < 0:
        return text[:120]
    start = max(text.rfind(". ", 0, i) + 2, 0) if text.rfind(". ", 0, i) >= 0 else 0
    end = text.find(". ", i)
    end = len(text) if end < 0 else end + 1
    quote = text[start:end].strip()
    return quote if len(quote) <= 160 else quote[:157] + "..."


_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\b|[0-9_])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def name_words(name: str) -> "list[str]":
    """``flow_rate_m3_hr`` -> ``[flow, rate, m3, hr]``; ``elevationFt`` -> ``[elevation, Ft]``."""
    out = []
    for part in re.split(r"[_\-\s.]+", name):
        if not part:
            continue
        if re.fullmatch(r"[a-z]+[0-9]+|[A-Za-z]{1,3}[0-9]", part):  # m3, lbft3
            out.append(part)
            continue
        out.extend(_CAMEL.findall(part))
    # a digit run after a unit word is its exponent (m3), not a word of its own
    merged: "list[str]" = []
    for w in out:
        if w.isdigit() and merged and merged[-1].isalpha():
            merged[-1] += w
        else:
            merged.append(w)
    return merged


def read_name(name: str) -> "Reading | None":
    """The unit a property name's last word(s) state (``flow_cfs``, ``elevationFt``,
    ``speed_cm_s``, ``flow_rate_m3_hr``), or None. Only a name of two words or more is read;
    its last word is read as written (the kernel never folds case: ``ml`` is millilitres),
    else in another case when exactly one unit of the kernel is spelled so (``Ft``, ``Khz``).
    Two unit words at the end are a rate when the second is a time (``cm_s``: cm/s), else
    nothing is read (``ms_cm`` may be mS/cm)."""
    words = name_words(name)
    if len(words) < 2:
        return None
    last = _name_unit(words[-1])
    if last == "statistic":
        return None
    if isinstance(last, Reading):
        return last._replace(evidence=name)
    before = _name_unit(words[-2]) if len(words) >= 3 else None
    if words[-2].lower() == "per":
        before = _name_unit(words[-3]) if len(words) >= 3 else None
        if not isinstance(before, tuple):
            return None  # count_per_day: a rate of something that is not a unit
    time_last = _time_unit(words[-1])
    if isinstance(before, tuple) and time_last is not None:
        rate = f"{before[1]}/{time_last}"
        _, try_parse_unit, _ = _kernel()
        parsed = try_parse_unit(rate)
        if parsed is not None and before[0].dims != _time_dims():
            return Reading(_spelled(parsed, rate), _key(parsed), None, (), "name-suffix", name)
    if last is None:
        return None
    if isinstance(before, tuple) and len(words) >= 3:
        return None  # two units side by side, not a rate: ms_cm, kw_h ... not read
    unit, text = last
    return Reading(_spelled(unit, text), _key(unit), None, (), "name-suffix", name)


def _time_unit(word: str) -> "str | None":
    """The word as a unit of time, read as written (``s``, ``hr``, ``min``), or None."""
    _, try_parse_unit, _ = _kernel()
    unit = try_parse_unit(word) if word.isalpha() else None
    return word if unit is not None and unit.dims == _time_dims() else None


_TIME = None


def _time_dims():
    global _TIME
    if _TIME is None:
        _, try_parse_unit, _ = _kernel()
        _TIME = try_parse_unit("s").dims
    return _TIME


def _name_unit(word: str):
    """One word of a name as a unit: ``(Unit, spelling)``; ``"statistic"`` for min; a Reading
    for a word several units spell in other cases; None."""
    _, try_parse_unit, table = _kernel()
    if word.isdigit() or not word[:1].isalpha():
        return None
    if word.lower() == "min":
        return "statistic"
    for written in dict.fromkeys((word, word[:1].lower() + word[1:])):
        if table.refusal(written) is not None:
            return None
        unit = try_parse_unit(written)
        if unit is not None:
            if len(written) == 1 and written != word:
                return None
            return unit, written
    if len(word) < 2:
        return None
    found: dict = {}
    spellings = {word.lower(), word.upper(), word[:1].upper() + word[1:].lower()}
    spellings.update(table.prefixed_case_variants(word))
    low = word.lower()
    for s in table.spellings():
        if s.lower() == low:
            spellings.add(s)
    for s in spellings:
        if table.refusal(s) is not None:
            continue
        unit = try_parse_unit(s)
        if unit is not None:
            found.setdefault(_key(unit), (unit, s))
    if len(found) == 1:
        return next(iter(found.values()))
    if len(found) > 1:
        return Reading(None, None, None, tuple(sorted(u.symbol for u, _ in found.values())),
                       "name-ambiguous-case", word)
    return None


# -- datums and time zones -----------------------------------------------------------------------
def datums_in(text: str) -> "list[tuple[str, str]]":
    """``(datum, words)`` for every vertical datum the text names: by a registry name or alias
    of three characters or more (``OD`` alone is an outside diameter as often as a datum), by a
    name with its year apart (``NAVD 88``), or glued to a unit as the kernel reads it
    (``mAOD``, ``mODN``). A name inside a longer one already found (``Ordnance Datum`` in
    ``Ordnance Datum Malin Head``) is that one, not a second datum."""
    if not isinstance(text, str):
        return []
    from .. import datums
    found: "list[tuple[int, int, str, str]]" = []  # (start, end, datum, words)

    def add(start: int, end: int, canonical: str, words: str) -> None:
        if not any(start < e and s < end for s, e, _, _ in found):
            found.append((start, end, canonical, words))

    for spelled, canonical in _datum_vocabulary():  # longest first
        flags = re.I if len(spelled) > 6 and " " in spelled else 0
        pattern = r"(?<![\w-])" + re.escape(spelled).replace(r"\ ", r"[\s-]?") + r"(?![\w-])"
        for m in re.finditer(pattern, text, flags):
            add(m.start(), m.end(), canonical, m.group(0))
    for m in re.finditer(r"\b([A-Z]{3,5})\s(\d{2,4})\b", text):
        try:
            add(m.start(), m.end(), datums.get(m.group(1) + m.group(2)).name, m.group(0))
        except Exception:
            pass
    for m in _GLUED_DATUM.finditer(text):
        glued = _glued_datum(m.group(0))
        if glued is not None:
            add(m.start(), m.end(), glued, m.group(0))
    seen: dict = {}
    for _, _, canonical, words in sorted(found):
        seen.setdefault(canonical, words)
    return list(seen.items())


# a unit's letters run into a datum's capitals: 'mAOD', 'ftMSL', 'mODN' (read by the kernel)
_GLUED_DATUM = re.compile(r"(?<![\w-])[a-z]{1,3}[A-Z]{2,}[A-Z0-9]*(?![\w-])")


def _glued_datum(token: str) -> "str | None":
    """The datum of a unit-and-datum token the kernel reads (``mAOD`` is m on ODN), if any."""
    parse_with_datum, _, _ = _kernel()
    try:
        _, datum = parse_with_datum(token)
    except Exception:
        return None
    return _datum_name(datum) if datum else None


_VOCAB: "list[tuple[str, str]] | None" = None


def _datum_vocabulary() -> "list[tuple[str, str]]":
    global _VOCAB
    if _VOCAB is None:
        import os
        path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                            "datums.json")
        with open(path, encoding="utf-8") as fh:
            rows = json.load(fh)["datums"]
        vocab = []
        for row in rows:
            if row.get("kind") == "station":
                continue
            for spelled in [row["name"], *row.get("aliases", [])]:
                if len(spelled) >= 3:
                    vocab.append((spelled, row["name"]))
        vocab.sort(key=lambda p: -len(p[0]))
        _VOCAB = vocab
    return _VOCAB


_STATION_DATUM = re.compile(r"\b(?:gauge|gage|station|local)\s+datum\b|\bstation zero\b", re.I)
_TIMESTAMP = re.compile(r"\bISO[ -]?8601\b|\bRFC[ -]?3339\b|\bdate[- ]?time\b|\btimestamp\b|"
                        r"YYYY-MM-DDT|\d{4}-\d\d-\d\dT\d\d:\d\d", re.I)
_CLOCK_OR_DATE = re.compile(r"\bHH:MM\b|\b24-hour\b|\btime of day\b|^(?!.*T\d).*\bYYYY-MM-DD\b"
                            r"(?!T)", re.I)
_OFFSET = re.compile(r"\bRFC[ -]?3339\b|±hh:mm|[+-]hh:?mm|\boffset\b", re.I)
_IANA = re.compile(r"\b[A-Z][a-z]+(?:_[A-Z][a-z]+)*/[A-Z][A-Za-z_]+(?:/[A-Z][A-Za-z_]+)?\b")
_UTC = re.compile(r"\bUTC\b|\bGMT\b|\bZulu\b")  # a "Z" in an example is not a rule


def read_tz(text: str, schema: dict) -> "tuple[str | None, str, str]":
    """``(tz, rule, evidence)`` for a string parameter: the zone its words name when they say it
    is a timestamp; ``(None, rule, evidence)`` otherwise."""
    text = text or ""
    is_stamp = schema.get("format") == "date-time" or bool(_TIMESTAMP.search(text))
    if schema.get("format") in ("time", "date") or (_CLOCK_OR_DATE.search(text) and
                                                    not is_stamp):
        return None, "tz-not-a-timestamp", _quote(text, text[:40]) if text else ""
    if not is_stamp:
        return None, "", ""
    zone = _IANA.search(text)
    if zone is not None and _is_zone(zone.group(0)):
        return zone.group(0), "tz-timestamp", _quote(text, zone.group(0))
    utc = _UTC.search(text)
    if utc is not None:
        return "UTC", "tz-timestamp", _quote(text, utc.group(0))
    offset = _OFFSET.search(text)
    if offset is not None:
        return None, "tz-offset-only", _quote(text, offset.group(0))
    return None, "", ""


def _is_zone(name: str) -> bool:
    try:
        from zoneinfo import ZoneInfo
        ZoneInfo(name)
        return True
    except Exception:
        return False


# -- the fields of a tool ------------------------------------------------------------------------
class FieldDraft:
    """One numeric (or timestamp) parameter or result field and what its words state."""

    __slots__ = ("where", "path", "kind", "unit", "datum", "tz", "evidence", "rules", "notes",
                 "declarable")

    def __init__(self, where: str, path: str, kind: str, declarable: bool = True) -> None:
        self.where, self.path, self.kind = where, path, kind
        self.unit: "str | None" = None
        self.datum: "str | None" = None
        self.tz: "str | None" = None
        self.evidence: "list[str]" = []
        self.rules: "list[str]" = []
        self.notes: "list[str]" = []
        self.declarable = declarable

    @property
    def field(self) -> str:
        return f"{self.where}.{self.path}" if self.path else self.where

    @property
    def declared(self) -> bool:
        return self.declarable and (self.unit is not None or self.tz is not None)

    def declaration(self) -> str:
        parts = []
        if self.unit is not None:
            parts.append(f"unit = {_toml_str(self.unit)}")
            if self.datum is not None:
                parts.append(f"datum = {_toml_str(self.datum)}")
        elif self.tz is not None:
            parts.append(f"tz = {_toml_str(self.tz)}")
        return "{ " + ", ".join(parts) + " }"


class ToolDraft:
    __slots__ = ("name", "fields", "notes")

    def __init__(self, name: str) -> None:
        self.name = name
        self.fields: "list[FieldDraft]" = []
        self.notes: "list[str]" = []


def _types(schema: dict, root: dict) -> "set[str]":
    from .policy_schema import branches_of as _branches_of
    kinds: "set[str]" = set()
    for b in _branches_of(schema, root):
        t = b.get("type")
        if isinstance(t, list):
            kinds.update(x for x in t if isinstance(x, str))
        elif isinstance(t, str):
            kinds.add(t)
        if "enum" in b and not t:
            kinds.update(type(v).__name__ for v in b["enum"])
    return kinds


def _walk(schema: dict, root: dict, prefix: str, depth: int = 0):
    """``(path, schema, parent properties)`` for every property under ``schema``, arrays
    stepped into with ``[]``."""
    from .policy_schema import branches_of as _branches_of
    if depth > 10:
        return
    for b in _branches_of(schema, root):
        items = b.get("items")
        if isinstance(items, dict) and prefix:
            sub = [x for x in _branches_of(items, root)]
            if any(isinstance(x.get("properties"), dict) or isinstance(x.get("items"), dict)
                   for x in sub):
                yield from _walk(items, root, prefix + "[]", depth + 1)
        props = b.get("properties")
        if isinstance(props, dict):
            for name, sub in props.items():
                if not isinstance(sub, dict):
                    continue
                path = f"{prefix}.{name}" if prefix else name
                yield path, sub, props
                yield from _walk(sub, root, path, depth + 1)


def _leaf_kind(schema: dict, root: dict) -> "tuple[str, int]":
    """``("number" | "string" | "other", array depth)`` of a property schema."""
    from .policy_schema import branches_of as _branches_of
    depth = 0
    node = schema
    for _ in range(4):
        kinds = _types(node, root)
        if "array" in kinds:
            items = [b.get("items") for b in _branches_of(node, root) if isinstance(b.get("items"), dict)]
            if not items:
                return "other", depth
            node = items[0]
            depth += 1
            continue
        if kinds & {"number", "integer"}:
            return "number", depth
        if kinds == {"string"} or kinds == {"string", "null"}:
            return "string", depth
        return "other", depth
    return "other", depth


def tools_of(doc: Any) -> "list[dict]":
    """The tools of a saved ``tools/list`` result: ``{"tools": [...]}``, a JSON-RPC answer
    holding one, a published-tools record (``tools_list``), or a bare list."""
    if isinstance(doc, dict):
        for key in ("result", "tools_list"):
            if isinstance(doc.get(key), dict):
                return tools_of(doc[key])
        if isinstance(doc.get("tools"), list):
            return [t for t in doc["tools"] if isinstance(t, dict)]
    if isinstance(doc, list):
        return [t for t in doc if isinstance(t, dict)]
    raise ValueError("not a tools/list result: expected {\"tools\": [...]}")


def draft(tools: "list[dict]") -> "list[ToolDraft]":
    return [_draft_tool(t) for t in tools if isinstance(t.get("name"), str)]


def _unit_param_names(tool: dict) -> "list[str]":
    props = (tool.get("inputSchema") or {}).get("properties") or {}
    return [p for p in props if isinstance(p, str) and "unit" in p.lower()]


def _datum_param(tool: dict) -> bool:
    props = (tool.get("inputSchema") or {}).get("properties") or {}
    return any(isinstance(p, str) and "datum" in p.lower() for p in props)


def _draft_tool(tool: dict) -> ToolDraft:
    out = ToolDraft(tool["name"])
    text = tool.get("description")
    description: str = text if isinstance(text, str) else ""
    per_call = _unit_param_names(tool)
    given = tool.get("inputSchema")
    schema: dict = given if isinstance(given, dict) else {}
    listed = schema.get("properties")
    props: dict = listed if isinstance(listed, dict) else {}
    for pname, sub in props.items():
        if not isinstance(sub, dict) or not isinstance(pname, str):
            continue
        kind, depth = _leaf_kind(sub, schema)
        own = _own_words(sub) + " " + _doc_line(description, pname)
        if kind == "other":
            nested = [p for p, s, _ in _walk(sub, schema, pname)
                      if _leaf_kind(s, schema)[0] == "number"]
            if nested:
                f = FieldDraft("params", pname, "nested", declarable=False)
                f.notes.append(f"an object; its numbers ({', '.join(nested[:4])}) are inside it, "
                               f"and the guard declares top-level parameters only")
                out.fields.append(f)
            continue
        f = FieldDraft("params", pname, kind)
        if kind == "number":
            _read_unit(f, own, pname, {}, per_call, _datum_param(tool))
        else:
            _read_timestamp(f, own, sub)
            if f.tz is None and not f.notes:
                continue
        out.fields.append(f)
    _draft_results(tool, out, description, per_call)
    return out


def _own_words(schema: dict) -> str:
    return " ".join(str(schema[k]) for k in ("title", "description") if isinstance(schema.get(k), str))


def _doc_line(text: str, name: str) -> str:
    from .policy_report import doc_line as line
    return line(text, name)


def _read_unit(f: FieldDraft, words: str, name: str, siblings: dict, per_call: "list[str]",
               datum_param: bool) -> None:
    leaf = name.rsplit(".", 1)[-1].rstrip("[]")
    carried = [s for s in siblings if isinstance(s, str) and s != leaf
               and re.fullmatch(r"(?i)(standard_?)?units?(_?code|_?of_?measure)?", s)]
    if carried:
        f.rules.append("carried-by-sibling")
        f.notes.append(f"the unit is carried beside it, in {carried[0]!r}: no declaration")
        return
    chosen = [p for p in per_call if re.search(r"(?<![\w])" + re.escape(p) + r"(?![\w])", words)]
    if chosen or re.search(r"\brequested units?\b|\bselected units?\b", words, re.I):
        f.rules.append("chosen-per-call")
        f.notes.append("the unit is chosen per call" + (f" by {chosen[0]!r}" if chosen else "")
                       + ": no declaration")
        return
    readings = read_text(words)
    if not readings:
        named = read_name(leaf)
        if named is not None:
            readings = [named]
    if not readings:
        f.notes.append("no unit stated" + (f" ({_short(words)!r})" if words.strip() else
                                           " (no description)"))
        _note_height(f, words, leaf)
        return
    ambiguous = [r for r in readings if r.unit is None]
    units = {r.key for r in readings if r.unit is not None}
    if ambiguous:
        r = ambiguous[0]
        f.rules.append(r.rule)
        f.notes.append(f"ambiguous: {_short(r.evidence)!r}; choose one of "
                       f"{', '.join(r.choices) or 'the units it may mean'}")
        return
    if len(units) > 1:
        f.rules.append("several-units")
        f.notes.append("the words name several units (" + ", ".join(
            dict.fromkeys(r.unit for r in readings if r.unit)) + f"): {_short(words)!r}")
        return
    r = readings[0]
    _, try_parse_unit, _ = _kernel()
    unit = try_parse_unit(r.unit) if r.unit else None
    if unit is not None and unit.symbol == "deg" and _TEMPERATURE.search(words + " " + leaf):
        f.rules.append("degree-on-temperature")
        f.notes.append(f"ambiguous: {_short(r.evidence)!r} on a temperature; choose degC or degF")
        return
    f.unit = r.unit
    f.rules.append(r.rule)
    f.evidence.append(r.evidence)
    datum = next((x.datum for x in readings if x.datum), None)
    length = unit is not None and unit.dims == try_parse_unit("m").dims
    if length:
        _read_datum(f, words, datum, datum_param)


def _note_height(f: FieldDraft, words: str, name: str) -> None:
    return None


def _read_datum(f: FieldDraft, words: str, datum: "str | None", datum_param: bool) -> None:
    named = datums_in(words)
    if datum is not None and all(d != datum for d, _ in named):
        named.insert(0, (datum, datum))
    if len(named) > 1:
        f.rules.append("datum-several")
        f.notes.append(f"several datums named ({', '.join(d for d, _ in named)}): no datum; "
                       f"declare the one the values are on, once you know it")
        return
    if named:
        f.datum = named[0][0]
        f.rules.append("datum-named")
        return
    if datum_param and re.search(r"\bdatum\b", words, re.I):
        f.rules.append("datum-chosen-per-call")
        f.notes.append("the datum is chosen per call: no datum")
        return
    if _STATION_DATUM.search(words):
        f.rules.append("datum-station")
        f.notes.append("on the station's own datum: declare datum = \"GAGE:<station id>\" once "
                       "you know the station")


def _read_timestamp(f: FieldDraft, words: str, schema: dict) -> None:
    tz, rule, evidence = read_tz(words, schema)
    if rule:
        f.rules.append(rule)
    if tz is not None:
        f.tz = tz
        f.evidence.append(evidence)
    elif rule == "tz-offset-only":
        f.notes.append(f"a timestamp with an offset, no zone named ({_short(evidence)!r}): "
                       f"declare tz = \"<IANA zone>\" only if every caller uses one zone")
    elif rule == "tz-not-a-timestamp" and words.strip():
        f.notes.append(f"not a timestamp ({_short(words)!r}): no tz")


def _draft_results(tool: dict, out: ToolDraft, description: str, per_call: "list[str]") -> None:
    given = tool.get("outputSchema")
    output: dict = given if isinstance(given, dict) else {}
    listed = output.get("properties")
    props: dict = listed if isinstance(listed, dict) else {}
    wrapped = set(props) == {"result"}
    if not isinstance(listed, dict) or wrapped:
        if wrapped and _leaf_kind(props["result"], output)[0] == "number":
            f = FieldDraft("returns", "", "number")
            _read_unit(f, _own_words(props["result"]) + " " + description, "result", {}, per_call,
                       _datum_param(tool))
            out.fields.append(f)
            return
        readings = read_text(description)
        first = re.split(r"(?<=[.!?])\s|\n\s*\n", description.strip(), maxsplit=1)[0]
        units = {r.key for r in readings}
        if not wrapped and len(units) == 1 and None not in units and read_text(first) \
                and not _is_param_words(readings[0], tool):
            r = readings[0]
            f = FieldDraft("returns", "", "number")
            f.unit = r.unit
            f.rules.append("result-in-description")
            f.evidence.append(_quote(description, first[:40]))
            f.notes.append("declared for a bare-number result: a result that arrives as prose or "
                           "JSON is passed on unlabelled, with a warning once")
            _, try_parse_unit, _ = _kernel()
            unit = try_parse_unit(r.unit)
            if unit is not None and unit.dims == try_parse_unit("m").dims:
                _read_datum(f, description, r.datum, _datum_param(tool))
            out.fields.append(f)
            return
        named = list(dict.fromkeys(f"{r.unit or 'ambiguous'} ({_short(r.evidence, 60)!r})"
                                   for r in readings))
        if named:
            out.notes.append("the result is prose or untyped JSON (no output schema to label "
                             "fields of); its words name: " + "; ".join(named[:6]))
        return
    for path, sub, siblings in _walk(output, output, ""):
        kind, _ = _leaf_kind(sub, output)
        if kind == "number":
            f = FieldDraft("returns", path, kind)
            _read_unit(f, _own_words(sub), path, siblings, per_call, _datum_param(tool))
            out.fields.append(f)
        elif kind == "string":
            words = _own_words(sub)
            tz, rule, evidence = read_tz(words, sub)
            if tz is not None:
                f = FieldDraft("returns", path, "string", declarable=False)
                f.tz = tz
                f.rules.append(rule)
                f.notes.append(f"a timestamp in {tz} ({_short(evidence)!r}); results are labelled "
                               f"with units only, so it is not declared")
                out.fields.append(f)


def _is_param_words(reading: Reading, tool: dict) -> bool:
    """Whether the unit a tool description states is a parameter's (its name is in the same
    sentence): ``radius in km`` describes the input, not the result."""
    props = (tool.get("inputSchema") or {}).get("properties") or {}
    return any(isinstance(p, str) and re.search(r"\b" + re.escape(p) + r"\s+(?:\w+\s+){0,2}"
                                                r"(?:in|\()", reading.evidence) for p in props)


def _short(text: str, at_most: int = 100) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= at_most else text[:at_most - 3] + "..."


# -- TOML ----------------------------------------------------------------------------------------
_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml_key(key: str) -> str:
    return key if _BARE.match(key) else _toml_str(key)


def _toml_str(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _comment(text: str) -> str:
    """A TOML comment, wrapped at 88 columns (its continuation lines indented)."""
    return "\n".join(textwrap.wrap(" ".join(str(text).split()), 88, initial_indent="# ",
                                   subsequent_indent="#   ", break_long_words=False,
                                   break_on_hyphens=False))


def draft_toml(drafts: "list[ToolDraft]", source: str = "") -> str:
    """The draft as TOML: active declarations with their evidence, comments for the rest."""
    declared = sum(1 for t in drafts for f in t.fields if f.declared)
    lines = [
        _comment("Drafted by quantity-guard-mcp annotate" + (f" from {source}" if source else "")
                 + f": {declared} declaration(s) on {len(drafts)} tool(s)."),
        "# Each declaration quotes the server's own words; where the words state no unit, or an",
        "# ambiguous one, there is a comment and no declaration. Review every line, then run",
        "# quantity-guard-mcp --check --annotations FILE -- COMMAND.",
    ]
    for t in drafts:
        params = [f for f in t.fields if f.where == "params"]
        results = [f for f in t.fields if f.where == "returns"]
        active_params = [f for f in params if f.declared]
        active_results = [f for f in results if f.declared]
        tool_key = _toml_key(t.name)
        lines.append("")
        if not active_params and not active_results:
            lines.append(f"# tools.{tool_key}: nothing to declare")
            for f in t.fields:
                lines.extend(_field_comments(f, inactive=True))
            for note in t.notes:
                lines.append(_comment(note))
            continue
        single = [f for f in active_results if f.path == ""]
        if single or (t.notes and not active_params):
            lines.append(f"[tools.{tool_key}]")
            for note in t.notes:
                lines.append(_comment(note))
            for f in single:
                lines.extend(_field_comments(f))
                lines.append(f"returns = {f.declaration()}")
        elif t.notes:
            lines.append(f"# tools.{tool_key}:")
            lines.extend(_comment(n) for n in t.notes)
        if params:
            if active_params:
                lines.append(f"[tools.{tool_key}.params]")
            for f in params:
                lines.extend(_field_comments(f, inactive=not f.declared))
                if f.declared:
                    lines.append(f"{_toml_key(f.path)} = {f.declaration()}")
        fields = [f for f in results if f.path]
        if fields:
            if any(f.declared for f in fields):
                lines.append(f"[tools.{tool_key}.returns]")
            for f in fields:
                lines.extend(_field_comments(f, inactive=not f.declared))
                if f.declared:
                    lines.append(f"{_toml_key(f.path)} = {f.declaration()}")
    return "\n".join(lines) + "\n"


def _field_comments(f: FieldDraft, inactive: bool = False) -> "list[str]":
    out = []
    label = f"{f.where}.{f.path}" if f.path else f.where
    for ev in f.evidence:
        out.append(_comment(f"{label}: \"{ev}\" [{', '.join(f.rules)}]"))
    for note in f.notes:
        out.append(_comment(f"{label}: {note}"))
    if inactive and not f.notes and not f.evidence:
        out.append(_comment(f"{label}: nothing stated"))
    return out


def summary(drafts: "list[ToolDraft]") -> str:
    fields = [f for t in drafts for f in t.fields]
    units = sum(1 for f in fields if f.declared and f.unit)
    datums = sum(1 for f in fields if f.declared and f.datum)
    zones = sum(1 for f in fields if f.declared and f.tz)
    return (f"drafted {units} unit(s), {datums} datum(s) and {zones} time zone(s) for "
            f"{len(fields)} field(s) on {len(drafts)} tool(s)")


Reader = Callable[[str], "Reading | None"]
