"""The reading pass: an answer's text into ``Number`` tokens (value, unit, datum, span,
written precision), with the digits that are not quantities listed with their reason.
"""
from __future__ import annotations

import math
import re

from ..numeric import (canonical_datum, is_close, known_datum, plain_digits, significant_figures,
    tolerance_of_digits)
from .cache import READS
from .codes import Said, Skip
from .text import (cell_unit, code_before, is_ratio_unit, needs_normalising, normalise,
    Number, paren_datum, read_phrase, read_unit, reversed_words, WORD)
from .skips import (base_hint, clock_spans, file_names, id_hints, identifier_at, marked_skip,
    not_a_measurement, precision_hint, SERVICE_NUMBER, whole_number_skip)


_SEP_GROUPS = r"\d{1,3}(?:,\d{3})+|\d{1,3}(?:[\u2009\u202f\u00a0]\d{3})+|\d{1,3}(?: \d{3})+(?![\d,])"
_NUM = re.compile(
    r"(?=[-+\u2212.\d])(?<![\w.^])(?<![A-Za-z]\*\*)(?<!\^[-+\u2212])(?P<sign>[-+\u2212])?(?P<num>(?:" + _SEP_GROUPS +
    r"|\d+)(?:\.\d+)?|\.\d+)"
    r"(?:[eE](?P<exp>[-+]?\d{1,3})\b|\s?[\u00d7x*\u00b7\u22c5]\s?10(?:(?:\^|\*\*)"
    r"(?P<exp10>[-+\u2212]?\d{1,3})(?![\d.])|(?P<exp10s>[\u207b]?[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]{1,3}))"
    r"|(?:\^|\*\*)(?P<pow>[-+\u2212]?\d{1,3})(?![\d.])"
    r"|(?<=10)(?P<sup10>[\u207b]?[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]{1,3}))?"
    r"(?P<pct>\s?%|\s(?:per\s?cent|percent)\b)?")
_FRACTIONS = {"\u00bc": 0.25, "\u00bd": 0.5, "\u00be": 0.75, "\u215b": 0.125, "\u215c": 0.375,
              "\u215d": 0.625, "\u215e": 0.875}
_PER_MILLE = re.compile(r"\s?(\u2030|\u2031|per\s?mille\b|permille\b)", re.I)
_SUPERSCRIPTS = str.maketrans("\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b\u2212",
                              "0123456789--")
_MULTIPLIERS = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9}
_AFTER_NEGATIVE = re.compile(r"\s*(?:below|lower|less|short|under|down|beneath)\b", re.I)


# a web address: its digits are a path, a port or a query, never a quantity
_URL = re.compile(r"(?:\b[a-z][a-z0-9+.-]*://|\bwww\.)[^\s<>()\[\]{}\"']+", re.I)
_ID_WORDS = ("station", "site", "gage", "gauge", "usgs", "id", "no.", "number", "#", "sensor",
             "monitoring location", "location", "nwis", "huc", "code", "parameter", "site_no",
             "station_id", "site_id", "sta", "epsg", "srid", "iso", "rfc", "iec", "ieee", "astm",
             "utc", "gmt", "etc/gmt", "crs", "count", "http/", "https/", "api", "wgs", "http", "https", "status", "error", "nad", "navd", "ngvd", "osgb", "itrf", "utm")
_LABEL_WORDS = ("step", "steps", "item", "part", "table", "figure", "fig.", "eq.", "equation",
                "option", "section", "appendix", "scenario", "row", "column", "phase")
# labels read in an answer only ("call 2 returned ...", "version 2.1")
_ANSWER_LABEL_WORDS = ("call", "attempt", "iteration", "version", "release", "page", "chapter",
                       "clause", "paragraph", "case", "trial", "run", "rank", "priority", "batch",
                       "tier", "point", "library", "build", "line", "bullet", "ver.", "ver",
                       "rev", "rev.", "revision", "python", "schema", "sdk", "firmware",
                       "protocol", "entry", "heading", "question", "q", "no.", "item no.",
                       "note", "finding", "remark", "caveat", "assumption", "v.",
                       # calendar positions: a week or a day of the year numbers a date
                       "week", "wk", "wk.", "kw", "woche", "semaine", "semana", "settimana",
                       "day-of-year", "day of year", "day of the year", "doy", "julian day",
                       "ordinal day", "day number", "quarter",
                       # sections of an act or a standard: "s. 24", "art. 5", "reg. 3"
                       "s.", "ss.", "sec.", "sect.", "art.", "reg.", "para.", "cl.",
                       # places named by a number: "bay 3", "river mile 229.3", "milepost 12"
                       "bay", "berth", "platform", "pier", "gate no.", "river mile", "mile marker",
                       "milepost", "mile post", "km post", "kilometre post", "kilometer post",
                       "rm", "lat", "lat.", "latitude", "lon", "lon.", "long.", "longitude",
                       # categories and classes: "Category 4", "hazard class 3", "severity 2"
                       "category", "cat.", "class", "type", "grade", "severity", "sev",
                       "band", "group", "division", "zone", "sector", "district", "ward",
                       "room", "building", "floor", "alert level", "risk level", "threat level",
                       "cc by", "cc-by", "cc by-sa", "cc by-nc")
# labels also numbered with a decimal point: "section 4.2", "version 2.1", "Table 3.1"
_DOTTED_LABEL_WORDS = ("cc by", "cc-by", "cc by-sa", "cc by-nc",
                       "river mile", "mile marker", "milepost", "km post", "rm", "lat", "lat.",
                       "latitude", "lon", "lon.", "long.", "longitude",
                       "table", "figure", "fig.", "eq.", "equation", "section", "appendix",
                       "version", "release", "chapter", "clause", "paragraph", "step", "library",
                       "build", "ver.", "ver", "rev", "rev.", "revision", "python", "schema",
                       "api", "sdk", "firmware", "protocol", "spec", "specification", "v.")
_NEGATIVE_WORDS = ("deficit of", "shortfall of", "below", "short by", "lower by", "drop of",
                   "decrease of", "decline of", "down by", "fell by", "minus", "negative")


_HEDGE_WORDS = ("about", "approximately", "approx", "approx.", "roughly", "around", "nearly",
                "almost", "some", "circa", "ca.", "~", "\u2248", "\u223c", "order of", "under",
                "over", "up to", "less than", "more than", "at least", "at most", "close to",
                "near", "within", "below", "above", "just", "estimate", "estimated", "roundly",
                "call it", "say", "round numbers", "round figures", "rounded", "rounding",
                "round terms", "ballpark", "order", "or so", "about ~", "some")
_RANGE_SEP = re.compile(r"\s*(?:-|\u2013|\u2014|to)\s*$")


_MAX_EXP = 300  # beyond 1e300 a float overflows: such a literal is not a measurement


_A_PER = re.compile(r" (?:an?|every|each) (second|minute|hour|day|week|month|year)\b", re.I)


class _Reading:
    """What one text holds: its numbers, the digits skipped (with reasons), the constants it
    writes (the 3 of a square root of 3, pi) and its normalised form."""

    __slots__ = ("numbers", "skipped", "constants", "text")

    def __init__(self, numbers, skipped, constants, text) -> None:
        self.numbers, self.skipped, self.constants, self.text = numbers, skipped, constants, text


# a comma that can only be a decimal comma: one, two or four and more digits after it, or
# a leading "0,"; a thousands comma has groups of three ("1,250", "234,000,000", "1,250.5")
_DECIMAL_COMMA = re.compile(r"(?<![\d.,])(?:0,\d+|\d+,(?:\d{1,2}|\d{4,}))(?![\d,]|\.\d)")
_THOUSANDS_COMMA = re.compile(r"\d,\d{3}(?:,\d{3}|\.\d)")
_DOT_THEN_COMMA = re.compile(r"(?<![\w.,])\d{1,3}(?:\.\d{3})+,\d")  # "1.250,5": continental
# dot-grouped thousands that cannot be a decimal point: followed by a decimal comma
# ("1.250,5") or in two groups or more ("1.234.567"); a single group ("29.940", "0.250") stays a
# decimal point, since answers that mix conventions write "0.250 m" beside "0,25 m"
_DOT_THOUSANDS = re.compile(r"(?<![\w.,])\d{1,3}(?:(?:\.\d{3})+(?=,\d)|(?:\.\d{3}){2,})(?!\d|\.\d)")
_COMMA_IN_NUMBER = re.compile(r"(?<=\d),(?=\d)")
# (led by its comma, which the engine scans for quickly; the whole part is checked in code)
_SCI_COMMA = re.compile(r",(?<=\d,)(?:\d{1,2}|\d{4,})(?=\s?[\u00d7x*\u00b7\u22c5]\s?10|[eE][-+]?\d)")
_POINT_DECIMAL = re.compile(r"(?<![\w.,])(?:0\.\d+|\d+\.(?:\d{1,2}|\d{4,}))(?![\d,]|\.\d)")
_DOT_GROUP = re.compile(r"(?<![\w.,])[1-9]\d{0,2}\.\d{3}(?![\d]|[.,]\d)")
_OFFSET = re.compile(r"(?<![\w.])[-+\u2212]\d{1,2}:\d{2}\b")
_PI = re.compile(r"\u03c0|\bpi\b", re.I)





_ID_NEXT = frozenset("-+])/_\u2013")       # a character after the number that starts one
_ID_PREV = frozenset("-[(/:")                # a character before it
_ID_NEXT2 = frozenset("0123456789ipPABCDEFGHIJKLMNOQRSTUVWXYZ")  # after a space: a phone
# group, "in", "pu", a street name


def extract_numbers(text: str) -> list[Number]:
    """Every quantity-like number in ``text``, with the unit written after it if any."""
    if not text:
        return []
    READS.fresh()
    return scan(text).numbers


def scan(original: str, answer: bool = False, stated=frozenset(), counts=None) -> _Reading:
    """Read ``original``. ``answer``: it is an answer to audit, not a question or an argument
    (``extract_numbers``): then counts, precisions, periods, uncertainties, probabilities and
    more labels are skipped too, and a one-significant-figure number is read as a rounding
    (a question states every number it has; the boundary and the grader read them all)."""
    if not original:
        return _Reading([], [], frozenset(), "")
    text, starts, ends = _prepared(original, answer)
    st = _Scan(original, text, starts, ends, answer, stated, counts)
    for m in _NUM.finditer(text):
        _read_literal(st, m)
    out = _joined(st, st.out)
    return _Reading(out, st.skipped, frozenset(st.constants), text)


def _prepared(original: str, answer: bool):
    """(text, starts, ends): the text normalised (LaTeX, superscripts, markdown) and, in an
    answer, its decimal commas read as points; ``starts``/``ends`` map positions back (None
    when nothing moved)."""
    if needs_normalising(original):
        text, starts, ends = normalise(original)
    else:
        text, starts, ends = original, None, None
    if answer and "," in text and _COMMA_IN_NUMBER.search(text) and \
            (_DECIMAL_COMMA.search(text) or _DOT_THEN_COMMA.search(text)) and \
            not _THOUSANDS_COMMA.search(text):
        # a decimal comma ("0,25 m", "48,6 m3/s", "1,0717 %"): every comma between digits
        # of this answer is one (a convention is kept through an answer)
        if starts is None:
            starts, ends = list(range(len(text))), list(range(1, len(text) + 1))
        if "." in text:
            # the same convention groups thousands with a dot ("1.250,5", "1.234.567"): read
            # as the thin space it stands for
            text = _DOT_THOUSANDS.sub(lambda g: g.group().replace(".", "\u2009"), text)
            if not _POINT_DECIMAL.search(text):
                # no figure of the answer uses a decimal point: a lone dot group is a thousands
                # group too ("Einzugsgebiet 29.940 km\u00b2" beside "0,102 mm/Tag"); beside a
                # point decimal ("0.250 m" next to "0,25 m") it stays a decimal point
                text = _DOT_GROUP.sub(lambda g: g.group().replace(".", "\u2009"), text)
        text = _COMMA_IN_NUMBER.sub(".", text)
    if answer and "," in text and _SCI_COMMA.search(text):
        # a decimal comma in scientific notation ("U = 1,32\u00b710\u2075 V") whatever the
        # rest of the answer uses: a thousands group has three digits, and nobody groups the
        # thousands of a mantissa (same length: every position stays)
        chars = list(text)
        for g in _SCI_COMMA.finditer(text):
            ci = cj = g.start()
            while cj > 0 and text[cj - 1].isdigit():
                cj -= 1
            if 1 <= ci - cj <= 3 and (cj == 0 or text[cj - 1] not in ",."):
                chars[ci] = "."
        text = "".join(chars)
    return text, starts, ends


class _Scan:
    """One reading of a text: what is known before its numbers are read (the spans of dates,
    times, addresses and file names; which rare rules its words allow) and what the reading
    has found so far (numbers, skipped digits, constants, identifier spans)."""

    __slots__ = ("original", "text", "starts", "ends", "answer", "stated", "counts", "skip",
                 "out", "skipped", "constants", "hints", "precise_hint", "base_hint",
                 "sqrt_written", "plus_minus", "ids", "last_skip", "counts_ok")

    def __init__(self, original, text, starts, ends, answer, stated, counts) -> None:
        self.original, self.text, self.starts, self.ends = original, text, starts, ends
        self.answer, self.stated, self.counts = answer, stated, counts
        skip = clock_spans(text)
        if "://" in text or "www." in text:
            skip += [(m.start(), m.end()) for m in _URL.finditer(text)]
        if ":" in text:
            skip += [(m.start(), m.end()) for m in _OFFSET.finditer(text)]
        if answer and ("_" in text or "/" in text) and "." in text:
            skip += file_names(text)
        self.skip = skip
        self.out: list[Number] = []
        self.skipped: list[tuple[str, Skip | Said]] = []
        self.constants: set[str] = set()
        low_text = text.lower()
        if "\u03c0" in text or "pi" in low_text:
            if _PI.search(text):
                self.constants.add("pi")
        self.hints = id_hints(low_text) if answer else (False, False)
        self.precise_hint = answer and precision_hint(low_text)
        self.base_hint = answer and base_hint(low_text)
        self.sqrt_written = "\u221a" in text or "sqrt" in text or "root" in text
        self.plus_minus = "\u00b1" in text or "+/-" in text
        self.ids: list[tuple[int, int, Skip]] = []  # identifier spans read so far, with the code
        self.last_skip = -1  # where the last identifier or label read ended
        self.counts_ok: "bool | None" = None  # whether counts of discrete things may be passed over

    def counts_skipped(self) -> bool:
        """Whether a count of discrete things may be passed over (asked of the audit once per
        text, when such a count is first read)."""
        if self.counts is None:
            return True
        ok = self.counts_ok
        if ok is None:
            ok = self.counts_ok = bool(self.counts())
        return ok


def _read_literal(st: _Scan, m) -> None:
    """One numeric literal: skipped (with its code) at the first stage that says it is no
    measurement, else read into a Number."""
    sign, raw, gexp, gexp10, gexp10s, gpow, gsup10, pct = m.groups()
    gexp10 = gexp10 or gexp10s
    s, e = m.span()
    text = st.text
    why = _span_skip(st, m, s, e, raw, sign, pct)
    if why is not None:
        st.skipped.append((m.group(), why))
        return
    nxt = text[e:e + 1]
    digits = raw if raw.isdigit() or raw.replace(".", "", 1).isdigit() else plain_digits(raw)
    integer = digits.isdigit()
    # the words before, read backwards: one anchored match each
    rev = text[max(0, s - 24):s].lower()[::-1]
    why = marked_skip(st, text, s, e, raw, digits, integer, rev, sign, pct)
    if why is None:
        why = _written_skip(st, m, s, e, raw, digits, integer, rev, sign, pct,
                            gexp or gexp10 or gpow or gsup10)
    if why is not None:
        st.skipped.append((m.group(), why))
        return
    exp = _exponent(raw, gexp, gexp10, gsup10) if gexp or gexp10 or gsup10 else 0
    if abs(exp) > _MAX_EXP or len(digits) > _MAX_EXP:
        st.skipped.append((m.group(), Skip.OUT_OF_RANGE))
        return
    _read_value(st, m, s, e, nxt, raw, digits, integer, rev, exp, sign, pct, gexp10, gpow, gsup10)


def _span_skip(st: _Scan, m, s: int, e: int, raw: str, sign, pct):
    """Digits inside what was read already: the unit before, a date, time or address span, an
    identifier (read here, then its span kept)."""
    text, out = st.text, st.out
    if out and s < out[-1].nend:
        return Skip.PART_OF_UNIT
    if st.skip:
        ns = m.start(2)
        if any(a <= ns < b for a, b in st.skip):
            return Skip.DATE_TIME_OR_ADDRESS
    if st.ids:
        ns = m.start(2)
        hit = next((r for a, b, r in st.ids if a <= ns < b), None)
        if hit is not None:
            return hit
    nxt = text[e:e + 1]
    hints = st.hints
    if st.answer and not pct and (hints[0] or hints[1] or sign or len(raw) >= 6 or
                                  nxt in _ID_NEXT or text[s - 1:s] in _ID_PREV or
                                  nxt == " " and text[e + 1:e + 2] in _ID_NEXT2 or
                                  nxt == "\u00a0" or nxt == "\u00b0" or
                                  raw in SERVICE_NUMBER or "\u00b0" in text[e:e + 3] or
                                  s >= 3 and text[s - 3:s - 1].isupper()):
        # (a cheap look at the characters around the number first: most numbers are
        # none of these, and the checks below are regular expressions)
        span = identifier_at(text, s, e, raw, sign, st.last_skip, st.stated, hints)
        if span is not None:
            st.ids.append(span)
            st.last_skip = e
            return span[2]
    return None


def _written_skip(st: _Scan, m, s, e, raw, digits, integer, rev, sign, pct, powered):
    """What the words around the digits make them: an identifier, a step or section label;
    then, for a whole number, the rules of the stage "whole" of ``skips.SKIP_RULES`` (a list
    marker, a year, a day of a month, the root of a constant)."""
    text, answer = st.text, st.answer
    # station and site numbers, codes, list markers, years, dates written with a month name
    id_rev = rev[1:] if rev[:1] in ("+", "-", "\u2212") else rev
    if id_rev[:1] in ("=", ":", " ", '"', "'"):
        t = id_rev.lstrip()
        if t[:1] == "=" or t[:1] == ":" and (len(t) == len(id_rev) or t[1:2] in "\"'"):
            id_rev = t.lstrip(" \t\"'=:#-_")  # "station": 7374000, EPSG:4326, site=..
    if _ID_RX.match(id_rev) or (
            integer and len(digits) >= 3 and digits[0] == "0" and raw == digits) or (
            s >= 3 and text[s - 1] == "-" and code_before(text, s - 1)):  # RRL-12
        st.last_skip = e
        return Skip.IDENTIFIER
    lab = rev.lstrip(" \t*_#:") if rev[:1] in " \t*_#:" else rev
    if not pct and not sign and (lab[:1].isalpha() or lab[:1] == ".") and \
            not powered and (
            integer and (_ANSWER_LABEL_RX if answer else _LABEL_RX).match(lab) or
            answer and not integer and _DOTTED_LABEL_RX.match(lab)) and \
            read_unit(text, e)[0] is None or \
            answer and integer and lab[:3] == "fo " and _OF_LABEL.match(lab) and \
            read_unit(text, e)[0] is None:
        # (never with a unit written after it: "the stage 2.85 m" is a measurement)
        st.last_skip = e
        return Skip.LABEL
    if integer and not pct:
        return whole_number_skip(st, text, s, e, raw, digits, rev)
    return None


def _exponent(raw: str, gexp, gexp10, gsup10) -> int:
    """The power of ten written ("e-4", "x 10^-4", "10\u207b\u2074"), or 0."""
    exp = 0
    if gexp or gexp10 or gsup10:
        try:
            if gexp:
                exp = int(gexp)
            elif gexp10:
                exp = int(gexp10.translate(_SUPERSCRIPTS))
            elif raw == "10":
                exp = int(gsup10.translate(_SUPERSCRIPTS)) - 1
        except ValueError:
            exp = 0
    return exp


def _read_value(st: _Scan, m, s, e, nxt, raw, digits, integer, rev, exp, sign, pct,
                gexp10, gpow, gsup10) -> None:
    """The value, its written precision and the unit after it; then what that makes of the
    number (``skips.not_a_measurement``), or the Number."""
    text = st.text
    base = float(digits)
    value = base * 10.0 ** exp if exp else base
    tol = tolerance_of_digits(raw, exp)
    # the boundary's reading counts at most three trailing zeros of a whole number as rounding:
    # the same tolerance, unless the digits end in four zeros or more
    btol = tol if "." in raw or digits[-4:] != "0000" else tolerance_of_digits(raw, exp, 3)
    frac = _FRACTIONS.get(text[e:e + 1]) if integer and not exp else None
    if frac is not None:  # "48\u00be inches": a whole number and a vulgar fraction
        value, tol = value + frac, 0.125
        e += 1
        nxt = text[e:e + 1]
    if gsup10 and raw == "10":
        value, tol = 10.0 ** (exp + 1), 0.005 * 10.0 ** (exp + 1)
    elif gpow:
        try:
            value = base ** int(gpow.translate(_SUPERSCRIPTS))
        except (OverflowError, ZeroDivisionError):
            value = math.inf
        tol = 0.005 * abs(value)
    if not math.isfinite(value) or abs(value) > 1e300:
        st.skipped.append((m.group(), Skip.OUT_OF_RANGE))
        return
    sig1 = not gpow and not gsup10 and significant_figures(digits) == 1
    negated = False
    if sign in ("-", "\u2212"):
        value = -value
    elif _NEG_RX.match(rev):
        negated = True
    percent = bool(pct)
    unit = datum = None
    end = e
    factor = None
    if not percent and (nxt in " \u2030\u2031p") and (
            "\u2030" in text or "\u2031" in text or "mille" in text):
        pm = _PER_MILLE.match(text, e)
        if pm is not None:  # "1.07 \u2030": a tenth of a percent (\u2031: a hundredth)
            k = 100.0 if pm.group(1) == "\u2031" else 10.0
            value, tol, btol = value / k, tol / k, btol / k
            percent, end = True, pm.end()
    if not percent:
        word = WORD.match(text, e + (1 if nxt == " " else 0))
        factor = _MULTIPLIERS.get(word.group().lower().rstrip(".")) if word else None
        if factor is not None:  # "59.8 million m3"
            assert word is not None  # a factor is only looked up for a word read
            value, tol, end = value * factor, tol * factor, word.end()
            btol *= factor
        # the unit (and datum) written after it: "32.0 ft (NGVD 29)", "45 megalitres a day"
        unit, datum, end = read_unit(text, end)
        if unit is None and factor is not None:
            assert word is not None  # a factor is only looked up for a word read
            end = word.end()
        elif unit is not None and datum is None and text[end:end + 2].strip()[:1] == "(":
            datum = paren_datum(text, end, unit)  # "32.0 ft (NGVD 29)"
        if unit is not None and text[end:end + 3] in (" a ", " an", " ev", " ea"):
            rate = _A_PER.match(text, end)  # "45 megalitres a day"
            if rate is not None:
                per = read_phrase(f"{unit.symbol}/{rate.group(1).lower()}")
                if per is not None:
                    unit, end = per[0], rate.end()
    why = not_a_measurement(st, text, s, e, end, raw, digits, integer, unit, percent, sign, exp,
                            factor, rev, value, datum)
    if why is Skip.DIGITS_INTO_LETTERS:  # (recorded with the letters its digits run into)
        st.skipped.append((m.group() + text[e:e + 8].split()[0] if text[e:e + 1].strip() else
                           m.group(), why))
        return
    if why is not None:
        st.skipped.append((m.group(), why))
        if why.identifier:
            st.last_skip = e
        return
    _emit(st, m, s, end, raw, digits, integer, rev, base, value, tol, btol, exp, sig1, negated,
          percent, unit, datum, factor, sign, gexp10, gpow, gsup10)


def _emit(st: _Scan, m, s, end, raw, digits, integer, rev, base, value, tol, btol, exp, sig1,
          negated, percent, unit, datum, factor, sign, gexp10, gpow, gsup10) -> None:
    """The Number read (two for a number times a written factor), with the tolerance its
    writing gives it."""
    text, answer = st.text, st.answer
    flat = 0.0
    if sig1:  # one significant figure: half its last place, at most 10% either way
        # (nobody means 1000 for 1250, nor "over 1 d" for 1.35)
        hedged = _HEDGE_RX.match(rev.lstrip(" *_$:,"))
        if answer and not exp and factor is None and value and not hedged:
            # stated flat ("400 A", "0.4 m"): a rounding, unless the answer also writes
            # the precise figure (see _flat_roundings); then it is read to its next place
            flat = tol / 10.0
        tol = min(tol, 0.1 * abs(value)) or tol
        if not answer and integer and not exp and factor is None and \
                len(digits) > 1 and not hedged:
            # a question or an argument: a round whole number stated flat is read to the
            # tens of its second figure (the grader's "FINAL ANSWER: 400 A" too)
            tol = 0.5 * 10.0 ** (len(digits) - len(digits.rstrip("0")) - 1)
    if not negated and _AFTER_NEGATIVE.match(text, end):
        negated = True  # "2.7% below the nominal"
    original, starts, ends, out = st.original, st.starts, st.ends, st.out
    if gexp10 and unit is not None and is_ratio_unit(unit) and \
            is_close(10.0 ** exp * unit.scale, 1.0, 1e-9) and \
            not is_close(value * unit.scale, 1.0, tol * unit.scale):
        # "29940 x 10^6 m2/km2": a number times a written factor, not 2.994e10 m2/km2
        ten = text.index("10", m.end(2))
        sig1 = significant_figures(digits) == 1
        mtol = tolerance_of_digits(raw, 0)
        if sig1:
            mtol = min(mtol, 0.1 * base) or mtol
        out.append(_number(original, text, starts, ends, s, m.end(2),
                               -base if sign in ("-", "\u2212") else base, None, None,
                               mtol, False, negated, sign, sig1))
        out.append(_number(original, text, starts, ends, ten, end, 10.0 ** exp, unit, datum,
                               0.0, False, False, None, True))
        return
    num = _number(original, text, starts, ends, s, end, value, unit, datum, tol, percent,
                      negated, sign, sig1)
    num.flat = flat
    if not (gpow or gsup10):
        num.boundary_tol = btol
    out.append(num)


def _joined(st: _Scan, out: list) -> list:
    """The numbers read, with what spans two of them: a range's unit, a slash fraction, feet
    and inches, a table's or a JSON object's unit."""
    text, original, starts, ends = st.text, st.original, st.starts, st.ends
    # a range "3-5 ft": the unit written after the second number applies to the first
    for a, b in zip(out, out[1:]):
        gap = text[a.nend:b.nstart]
        if a.unit is None and (b.unit is not None or b.percent and not a.percent) and (
                _RANGE_SEP.search(gap + " ") and b.nstart - a.nend <= 4 or
                gap.strip() == "and" and
                text[max(0, a.nstart - 9):a.nstart].lower().rstrip().endswith("between")):
            a.unit, a.datum = b.unit, b.datum
            if b.percent:
                a.percent = True
    if st.answer and len(out) > 1 and "/" in text:
        out = _slash_fractions(original, text, out, starts, ends)
    if len(out) > 1 and ("ft" in text or "fe" in text or "foot" in text or "'" in text or
                         "\u2032" in text):
        out = _feet_and_inches(original, text, out, starts, ends)
    if "|" in text:
        _table_units(text, out)
    if '"value"' in text:
        _json_units(text, out)
    return out


def _slash_fractions(original, text, out, starts, ends) -> list:
    """``3/4 in``: a fraction of a unit written with a slash (two small whole numbers, no
    spaces), one number (0.75 in, read to half its denominator's step)."""
    merged: list[Number] = []
    skip_next = False
    for k, a in enumerate(out):
        if skip_next:
            skip_next = False
            continue
        b = out[k + 1] if k + 1 < len(out) else None
        if b is not None and a.unit is None and b.unit is not None and a.sign is None and \
                text[a.nend:b.nstart] == "/" and a.value == int(a.value) and \
                b.nstart == a.nend + 1 and 0 < a.value < b.value <= 64 and \
                b.value == int(b.value) and not b.unit.shift:
            whole = merged[-1] if merged else None
            if whole is not None and whole.unit is None and whole.sign is None and \
                    not whole.percent and whole.value == int(whole.value) and \
                    0 <= whole.value < 1000 and text[whole.nend:a.nstart] == " ":
                # a mixed number, "4 1/16 ft", "2 1/2 hours": the whole part and the fraction
                # are one figure in the fraction's unit
                merged[-1] = _number(original, text, starts, ends, whole.nstart, b.nend,
                                     whole.value + a.value / b.value, b.unit, b.datum,
                                     0.5 / b.value, False, False, None, False)
                skip_next = True
                continue
            frac = _number(original, text, starts, ends, a.nstart, b.nend, a.value / b.value,
                           b.unit, b.datum, 0.5 / b.value, False, False, None, False)
            merged.append(frac)
            skip_next = True
            continue
        merged.append(a)
    return merged


_FT_IN_GAP = re.compile(r"\s*(?:,|and|'|\u2032)?\s*$")
_INCHES = re.compile(r"\s?(?:in\b\.?|inch(?:es)?\b|\u2033|\")")


def _feet_and_inches(original: str, text: str, out: list, starts=None, ends=None) -> list:
    """``4 ft 0.7 in`` / ``5 feet 3 inches``: one length written in two units, read as one
    number (feet plus inches under twelve) with the precision of the inches written."""
    merged, skip_next = [], False
    for k, a in enumerate(out):
        if skip_next:
            skip_next = False
            continue
        b = out[k + 1] if k + 1 < len(out) else None
        inch = None
        if b is not None and a.unit is not None and a.unit.symbol == "ft":
            if b.unit is not None:
                inch = b.end if b.unit.symbol == "in" else None
            else:  # "in" alone is read as a word, not a unit: "0.7 in"
                m = _INCHES.match(text, b.nend)
                inch = None if m is None else (m.end() if starts is None else
                                               ends[m.end() - 1])
        if b is not None and a.unit is None and b.unit is None and \
                text[a.nend:b.nstart] in ("'", "\u2032", "' ", "\u2032 ") and \
                text[b.nend:b.nend + 1] in ('"', "\u2033"):
            inch = b.nend + 1 if starts is None else ends[b.nend]   # 4'0.7": feet and inches
            if a.unit is None:
                a.unit = read_phrase("ft")[0]
        if inch is not None and b is not None and 0 <= b.value < 12 and \
                a.sign is None and b.sign is None and a.value == int(a.value) and \
                b.nstart - a.nend <= 6 and _FT_IN_GAP.match(text[a.nend:b.nstart]):
            a.value = a.value + b.value / 12.0
            a.tolerance = max(b.tolerance, b.boundary_tol) / 12.0  # "1 in": +-0.5 in
            a.boundary_tol = b.boundary_tol / 12.0
            a.sig1 = False
            a.flat = 0.0
            a.end, a.nend = inch, b.nend
            a.text = original[a.start:inch]
            skip_next = True
        merged.append(a)
    return merged


_JSON_VALUE = re.compile(r'"value"\s*:\s*$')
_JSON_FIELD = re.compile(r'"(unit|datum)"\s*:\s*"([^"]{1,40})"')


def _json_units(text: str, numbers: list[Number]) -> None:
    """Echoed tool JSON: {"value": 90.0, "unit": "MW", "datum": "NAVD88"} gives the number
    its unit and datum (the unit the answer wrote, right or wrong)."""
    for num in numbers:
        if num.unit is not None or not _JSON_VALUE.search(text, max(0, num.nstart - 12),
                                                          num.nstart):
            continue
        close = text.find("}", num.nend)
        start = text.rfind("{", 0, num.nstart)
        if close < 0 or start < 0 or close - start > 300:
            continue
        fields = {m.group(1): m.group(2) for m in _JSON_FIELD.finditer(text, start, close)}
        if "unit" in fields:
            hit = read_phrase(fields["unit"])
            if hit is not None:
                num.unit = hit[0]
                if "datum" in fields:
                    num.datum = canonical_datum(fields["datum"]) if known_datum(
                        fields["datum"]) else None


def _number(original, text, starts, ends, s, end, value, unit, datum, tol, percent, negated,
            sign, sig1) -> Number:
    if starts is None:
        num = Number(text[s:end], value, unit, datum, s, end, tol, percent, negated, sign)
    else:
        a, b = starts[s], ends[end - 1] if end > s else ends[s]
        num = Number(original[a:b], value, unit, datum, a, b, tol, percent, negated, sign)
        num.nstart, num.nend = s, end
    num.sig1 = sig1
    num.source_text = text
    return num


def _table_units(text: str, numbers: list[Number]) -> None:
    """Markdown tables: a unit in the next cell ("| 35.4 | m3/s |") or in the column header
    ("| Flow (m3/s) |") applies to a number written without one."""
    header_units: list = []
    in_table = False
    pos = 0
    rows = []
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith("|"):
            cells, start = [], pos + line.index("|") + 1
            for part in stripped.strip("|").split("|"):
                cells.append((start, start + len(part), part.strip()))
                start += len(part) + 1
            if not in_table:
                header_units = [cell_unit(c[2], header=True) for c in cells]
                in_table = True
            elif not set(stripped) <= set("|-: "):
                rows.append((cells, header_units))
        else:
            in_table = False
        pos += len(line)
    for cells, units in rows:
        for num in numbers:
            if num.unit is not None:
                continue
            for k, (a, b, content) in enumerate(cells):
                if a <= num.nstart < b:
                    unit = cell_unit(cells[k + 1][2]) if k + 1 < len(cells) else None
                    if unit is None and k < len(units):
                        unit = units[k]
                    if unit is not None:
                        num.unit, num.datum = unit
                    break


_ID_RX = reversed_words(_ID_WORDS)
_LABEL_RX = reversed_words(_LABEL_WORDS)
_DOTTED_LABEL_RX = reversed_words(_DOTTED_LABEL_WORDS)
# "step 2 of 3", "call 1 of 2": the total of a numbered label (read reversed)
_OF_LABEL = re.compile(r"\s*fo\s+\d{1,2}\s+(?:pets|llac|tpmetta|trap|meti|noitaretI|noitareti|nur)(?![^\W_])")
_ANSWER_LABEL_RX = reversed_words(_LABEL_WORDS + _ANSWER_LABEL_WORDS)
_NEG_RX = reversed_words(_NEGATIVE_WORDS)
_HEDGE_RX = reversed_words(_HEDGE_WORDS)


def written_tolerance(raw) -> float:
    """Half a unit in the last place of a number as a model wrote it (a JSON number, a string)."""
    if raw.__class__ is bool:
        return 0.0
    if isinstance(raw, (int, float)):
        if isinstance(raw, int) or float(raw).is_integer():
            return tolerance_of_digits(str(int(raw)), 0, 3)
        text = repr(float(raw))
        if "e" in text:
            mant, exp = text.split("e")
            dec = len(mant.split(".")[1]) if "." in mant else 0
            return 0.5 * 10.0 ** (int(exp) - dec)
        return 0.5 * 10.0 ** -len(text.split(".")[1])
    if isinstance(raw, str):
        nums = extract_numbers(raw)
        return nums[0].boundary_tol if nums else 0.0
    if isinstance(raw, dict) and "value" in raw:
        return written_tolerance(raw["value"])
    return 0.0
