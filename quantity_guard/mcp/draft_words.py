"""The words of a server's tools read for ``quantity-guard-mcp annotate`` (see
:mod:`quantity_guard.mcp.draft`): where a unit may be stated (the slots), what the words in a
slot mean to the kernel, the unit a property name ends in, the datums and the time zone named.
Every reading names the rule of :data:`RULES` it used."""
from __future__ import annotations

import json
import re
from typing import NamedTuple

__all__ = ["RULES", "Rule", "Reading", "read_unit_words", "read_text", "read_name", "slots",
           "name_words", "datums_in", "read_tz", "kernel", "quote", "STATION_DATUM",
           "TEMPERATURE"]


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
TEMPERATURE = re.compile(r"temp", re.I)
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


def kernel():
    from ..units import parse_with_datum, try_parse_unit
    from ..units import table
    return parse_with_datum, try_parse_unit, table


def _key(unit) -> tuple:
    return (unit.dims, unit.factor, unit.offset)


def read_unit_words(words: str, rule: str = "in-words", evidence: str = "") -> "Reading | None":
    """The unit (and datum) a short run of words states, read by the kernel: the longest
    leading run of words that is one unit. None when the words state none."""
    parse_with_datum, try_parse_unit, table = kernel()
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
    _, try_parse_unit, _ = kernel()
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
    _, try_parse_unit, _ = kernel()
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
            out.append(reading._replace(evidence=quote(text, words)))
    return out


def _time_count(word: str) -> "Reading | None":
    """The unit of ``number of <word>``: only a time unit (a count of days is a duration in
    days; a count of revolutions or points is a count)."""
    _, try_parse_unit, _ = kernel()
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
    parse_with_datum, _, _ = kernel()
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


def quote(text: str, words: str) -> str:
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
        _, try_parse_unit, _ = kernel()
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
    _, try_parse_unit, _ = kernel()
    unit = try_parse_unit(word) if word.isalpha() else None
    return word if unit is not None and unit.dims == _time_dims() else None


_TIME = None


def _time_dims():
    global _TIME
    if _TIME is None:
        _, try_parse_unit, _ = kernel()
        _TIME = try_parse_unit("s").dims
    return _TIME


def _name_unit(word: str):
    """One word of a name as a unit: ``(Unit, spelling)``; ``"statistic"`` for min; a Reading
    for a word several units spell in other cases; None."""
    _, try_parse_unit, table = kernel()
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
    parse_with_datum, _, _ = kernel()
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


STATION_DATUM = re.compile(r"\b(?:gauge|gage|station|local)\s+datum\b|\bstation zero\b", re.I)
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
        return None, "tz-not-a-timestamp", quote(text, text[:40]) if text else ""
    if not is_stamp:
        return None, "", ""
    zone = _IANA.search(text)
    if zone is not None and _is_zone(zone.group(0)):
        return zone.group(0), "tz-timestamp", quote(text, zone.group(0))
    utc = _UTC.search(text)
    if utc is not None:
        return "UTC", "tz-timestamp", quote(text, utc.group(0))
    offset = _OFFSET.search(text)
    if offset is not None:
        return None, "tz-offset-only", quote(text, offset.group(0))
    return None, "", ""


def _is_zone(name: str) -> bool:
    try:
        from zoneinfo import ZoneInfo
        ZoneInfo(name)
        return True
    except Exception:
        return False
