"""The answer audit: every numeric literal in a final answer, classified against the ledger.

    audit = ledger.audit_answer(answer, context=question)
    audit.ok            # False only if something is unsourced or unit_mislabelled
    audit.findings      # one Finding per number: text, value, unit, status, match, note (why)
    audit.skipped       # (text, reason) for each run of digits that is not a quantity

Statuses:

- ``sourced``: matches a value a tool returned (converted into the unit written, if any; the
  magnitude of a negative output written without its sign counts, and the note says so);
- ``derived``: one step from recorded outputs (or an output and a number from the question):
  a sum or difference of like dimension that respects vertical datums (the algebra of ``Q``:
  two elevations on different datums are never combined, elevation minus elevation is a
  length, an elevation plus or minus a length stays on its datum), or a product or ratio whose
  dimension is the dimension written (a percentage is a ratio times 100), optionally with a
  constant the answer writes (the square roots of 2 and 3, pi);
- ``quoted``: repeated back from the question;
- ``factor``: a conversion factor, a unit identity (``1 cfs = 0.0283168 m3/s``) or a constant:
  not a claim about the world;
- ``operand``: a number inside a written-out formula whose arithmetic checks out and whose
  result is itself accepted (a recorded 42 MVA re-expressed as 42,000,000 in a current formula);
- ``unsourced``: matches nothing;
- ``unit_mislabelled``: matches a recorded magnitude of the same dimension but is written with a
  unit that contradicts it (1350 Ml written as 1.35 Ml, or 35.4 written as cfs when it was m3/s).
  A different dimension is never a mislabel.

Numbers are read the way people write them: thousands separators (commas, spaces, thin and
no-break spaces), the Unicode minus, signs carried in words ("a deficit of 2.9 ft"), ranges
("3-5 ft"), percentages, rounding to the precision written (17.1 written as 17, 11,200 for
11,196.96; a one-significant-figure number such as 1000 covers 10% either way, never 1250),
full-precision float copies, units spelled out ("cubic feet per second"), number words
("59.8 million m3"), "1.05 x 10^-4", LaTeX (``\\times``, ``\\frac{}{}``, ``\\sqrt{3}``,
``\\,``), markdown emphasis and units given in a table's next cell or column header. Years,
dates, times and zone offsets, identifiers (station and site numbers, EPSG and ISO codes), unit
exponents (``km^2``), list markers, step labels and ordinals are not quantities: they are
skipped, each with its reason in ``Audit.skipped``.
"""
from __future__ import annotations

import math
import re
from itertools import chain
from bisect import bisect_left, bisect_right

from .errors import GuardViolation
from .units.dimension import DIMENSIONLESS as _DIMENSIONLESS, N_AXES

__all__ = ["Number", "Finding", "Audit", "extract_numbers", "audit_answer"]

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
_DATE = re.compile(r"(?=\d)(?:\b(?:19|20)\d{2}(?:-(?:[0-3]\d{2}\b(?![-.,]\d)|W[0-5]\d(?:-[1-7])?\b)|"
                   r"/[0-3]\d{2}\b(?![-.,/]\d))"
                   r"|\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
                   r"|\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[aApP]\.?[mM]\b\.?|\b)"
                   r"|\b(?:[01]?\d|2[0-3])h[0-5]\d\b)")
# Other clock notations and dotted versions. Each is a separate pattern run only when the text
# holds the literal it cannot match without (checked with `in`, or a regex led by a literal,
# which the engine scans for quickly): read on every answer, one combined pattern tried all its
# alternatives at every digit and cost more than the rest of the reading of a plain answer.
# ISO "T14:05:00Z" (needs "T" and a digit)
_CLOCK_T = re.compile(r"(?<=T)\d{2}:?\d{2}(?::?\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?(?![\d.])")
_T_DIGIT = re.compile(r"T\d")
# "14.05 UTC", "14:05 BST", "09h30 GMT", "1405Z", "0930 hrs" (needs a zone word, "hrs" or "local")
_CLOCK_ZONE = re.compile(r"(?=\d)(?:\b(?:[01]?\d|2[0-3])[.:h]\s?[0-5]\d\s?(?:UTC|GMT|Z|BST|CET|CEST|EST|"
                         r"EDT|CST|CDT|MST|MDT|PST|PDT|local(?: time)?|Uhr)\b"
                         r"|\b(?:[01]\d|2[0-3])[0-5]\d\s?(?:Z\b|UTC\b|GMT\b|hrs\b|hours local\b))")
# every zone word above holds one of these ("ST": BST, CEST, EST, CST, MST, PST; "DT": EDT, ...)
_ZONE_HINTS = ("Z", "ST", "DT", "UTC", "GMT", "CET", "local", "Uhr", "hrs")
# "14 h 05" (not "2 h 30 min", a duration; needs " h ")
_CLOCK_H = re.compile(r"(?=\d)\b(?:[01]?\d|2[0-3]) h [0-5]\d\b(?!\s?(?:min|m\b|mn|'|\u2032))")
# "2 pm", "2pm", "11 a.m.", "2.05 p.m." (needs "am", "pm", "a.m." or "p.m." in any case)
_CLOCK_AMPM = re.compile(r"(?=\d)\b(?:1[0-2]|0?[1-9])(?:[.:][0-5]\d)?\s?(?:[aApP]\.[mM]\.|[aApP][mM]\b)")
# dotted version numbers and addresses: "1.2.3", "0.4.1", "10.0.0.1" (needs ".<digits>.<digit>")
_VERSION = re.compile(r"(?<![\w.])\d+\.\d+\.\d+(?:\.\d+)*(?![\w.]*\d)")
_VERSION_HINT = re.compile(r"\.\d+\.\d")


def _clock_spans(text: str) -> list:
    """The spans of dates, clock times and dotted versions in ``text``: never measurements."""
    spans = [m.span() for m in _DATE.finditer(text)]
    if "T" in text and _T_DIGIT.search(text):
        spans += [m.span() for m in _CLOCK_T.finditer(text)]
    if any(z in text for z in _ZONE_HINTS):
        spans += [m.span() for m in _CLOCK_ZONE.finditer(text)]
    if " h " in text:
        spans += [m.span() for m in _CLOCK_H.finditer(text)]
    low = text.lower()
    if ("am" in low or "pm" in low or "a.m." in low or "p.m." in low):
        spans += [m.span() for m in _CLOCK_AMPM.finditer(text)]
    if "." in text and _VERSION_HINT.search(text):
        spans += [m.span() for m in _VERSION.finditer(text)]
    return spans


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
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_NEGATIVE_WORDS = ("deficit of", "shortfall of", "below", "short by", "lower by", "drop of",
                   "decrease of", "decline of", "down by", "fell by", "minus", "negative")
_ONE_UNIT_WORDS = ("per", "over", "each", "every", "within", "in", "a", "an")
_UNIT_STOP = frozenset({"and", "or", "the", "a", "an", "of", "to", "at", "in", "on", "is", "was",
                        "with", "for", "from", "by", "which", "that", "this", "as", "than", "it"})
_BARE_DEGREE = frozenset({"deg", "degree", "degrees", "\u00b0"})
_HEDGE_WORDS = ("about", "approximately", "approx", "approx.", "roughly", "around", "nearly",
                "almost", "some", "circa", "ca.", "~", "\u2248", "\u223c", "order of", "under",
                "over", "up to", "less than", "more than", "at least", "at most", "close to",
                "near", "within", "below", "above", "just", "estimate", "estimated", "roundly",
                "call it", "say", "round numbers", "round figures", "rounded", "rounding",
                "round terms", "ballpark", "order", "or so", "about ~", "some")
_RANGE_SEP = re.compile(r"\s*(?:-|\u2013|\u2014|to)\s*$")
_MUL_OPS = "\u00d7*/\u00f7\u00b7\u22c5x"
_MAX_EXP = 300  # beyond 1e300 a float overflows: such a literal is not a measurement


# -- LaTeX, read as the plain text it renders to ------------------------------------------------
_LATEX_SYMBOLS = {"times": "\u00d7", "cdot": "\u00b7", "div": "\u00f7", "approx": "\u2248",
                  "simeq": "\u2248", "sim": "~", "pi": "\u03c0", "%": "%", ",": "\u2009",
                  ";": " ", ":": " ", "!": "", " ": " ", "quad": " ", "qquad": " ", "left": "",
                  "right": "", "Delta": "\u0394", "minus": "\u2212", "le": "\u2264",
                  "ge": "\u2265", "leq": "\u2264", "geq": "\u2265", "to": " to ",
                  "rightarrow": " \u2192 ", "Rightarrow": " \u21d2 ", "{": "", "}": "",
                  "\\": "\n", "$": "", "_": "_", "degree": "\u00b0", "circ": "\u00b0"}
_LATEX_TEXT = frozenset({"text", "mathrm", "mathit", "textrm", "rm", "mbox", "operatorname",
                         "mathbf", "textbf", "boldsymbol", "unit", "si", "mathsf", "textit"})
_LATEX_CMD = re.compile(r"\\([A-Za-z]+|.)")


def _normalise(text: str):
    """LaTeX read as the text it renders to, with a map back to the original positions:
    ``\\frac{a}{b}`` is ``(a)/(b)``, ``\\sqrt{3}`` is ``\u221a(3)``, ``\\times`` is ``\u00d7``,
    ``\\,`` a thin space, ``\\text{..}`` its content; dollar signs and braces vanish.
    Returns (text, starts, ends): for each character of the new text, the span it came from."""
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    stack: list[str] = []  # what each open brace closes with
    pending = ""           # the kind the next "{" opens: frac numerator, sqrt, text, ...
    i, n = 0, len(text)

    def emit(s: str, a: int, b: int) -> None:
        for ch in s:
            out.append(ch)
            starts.append(a)
            ends.append(b)

    while i < n:
        ch = text[i]
        if ch == "\\":
            m = _LATEX_CMD.match(text, i)
            if m is None:
                emit(" ", i, i + 1)
                i += 1
                continue
            name = m.group(1)
            if name in ("frac", "dfrac", "tfrac"):
                pending = "num"
                emit("(", i, m.end())
            elif name == "sqrt":
                pending = "sqrt"
                emit("\u221a", i, m.end())
            elif name in _LATEX_TEXT:
                pending = "text"
            else:
                emit(_LATEX_SYMBOLS.get(name, " "), i, m.end())
            i = m.end()
            continue
        if ch == "{":
            if pending == "num":
                stack.append("num")
            elif pending == "den":
                stack.append("den")
                emit("(", i, i + 1)
            elif pending == "sqrt":
                stack.append("sqrt")
                emit("(", i, i + 1)
            else:
                stack.append("")
            pending = ""
            i += 1
            continue
        if ch == "}":
            kind = stack.pop() if stack else ""
            if kind == "num":
                emit(")/", i, i + 1)
                pending = "den"
            elif kind in ("den", "sqrt"):
                emit(")", i, i + 1)
            i += 1
            continue
        if ch == "$":
            i += 1
            continue
        if ch == "~":  # a LaTeX tie (a no-break space) unless it means "about"
            nxt = text[i + 1:i + 2]
            emit("~" if nxt.isdigit() or nxt == " " else "\u00a0", i, i + 1)
            i += 1
            continue
        if pending and not ch.isspace():
            pending = ""
        emit(ch, i, i + 1)
        i += 1
    return "".join(out), starts, ends


def _needs_normalising(text: str) -> bool:
    return "\\" in text or "$" in text


class Number:
    """One numeric literal read from prose."""

    __slots__ = ("text", "value", "unit", "datum", "start", "end", "tolerance", "percent",
                 "negated", "sign", "nstart", "nend", "sig1", "_src", "_ops", "boundary_tol",
                 "flat")

    def __init__(self, text, value, unit, datum, start, end, tolerance, percent, negated,
                 sign=None) -> None:
        self.text, self.value, self.unit, self.datum = text, value, unit, datum
        self.start, self.end = start, end
        #: half a unit in the last place written: 17 covers 16.5..17.5, 17.1 covers 17.05..17.15,
        #: 11,200 covers 11,150..11,250 (trailing zeros of a whole number are not significant);
        #: one significant figure covers at most 10% either way (1000 is 900..1100)
        self.tolerance = tolerance
        self.percent, self.negated = percent, negated
        self.sign = sign  # the sign character written, if any
        self.nstart, self.nend = start, end  # the span in the normalised text (LaTeX read)
        self.sig1 = False
        #: for a one-significant-figure number stated without a hedge ("400 A", "0.4 m"): the
        #: tolerance of its next place (400 -> 5, 0.4 -> 0.005), used when the answer also
        #: writes the precise figure it would round (then it is a separate claim); else 0.0
        self.flat = 0.0
        #: the tolerance the tool-boundary checks read (``written_tolerance``): half a unit in
        #: the last place, at most 3 trailing zeros counted, no one-significant-figure cap
        self.boundary_tol = tolerance
        self._src = None   # the (normalised) text it was read from
        self._ops = None   # (operator before, operator after), read when first asked

    def widened(self, tolerance: float) -> "Number":
        """The same literal, every span and reading kept, with a wider ``tolerance``."""
        other = Number.__new__(Number)
        for name in Number.__slots__:
            object.__setattr__(other, name, getattr(self, name))
        other.tolerance = tolerance
        other.flat = 0.0  # read at the tolerance given, for every look-up
        return other

    @property
    def op_before(self) -> str:
        """An arithmetic operator written right before it ("x 0.0283"), or ""."""
        return self._operators()[0]

    @property
    def op_after(self) -> str:
        """An arithmetic operator written right after it ("0.0283 x"), or ""."""
        return self._operators()[1]

    def _operators(self):
        ops = self._ops
        if ops is None:
            src = self._src
            ops = self._ops = ("", "") if src is None else \
                (_op_before(src, self.nstart), _op_after(src, self.nend))
        return ops

    def __repr__(self) -> str:
        return f"Number({self.text!r}, {self.value}, {self.unit!r})"


_STOPPER = re.compile(r"[,;:!?()\[\]\n]")
_UNIT_READS: dict = {}


def _read_unit(text: str, pos: int):
    """The longest unit expression (with an optional datum) starting at ``pos``: up to six
    words, not across punctuation. Returns (unit, datum, end) or (None, None, pos). The
    reading depends only on the text up to the next punctuation: answers repeat it."""
    limit = min(len(text), pos + 80)
    m = _STOPPER.search(text, pos, limit)
    key = text[pos:m.start() + 1 if m else limit]
    hit = _UNIT_READS.get(key)
    if hit is None:
        unit, datum, end = _read_unit_uncached(key, 0)
        hit = (unit, datum, end)
        if len(_UNIT_READS) < 8192:
            _UNIT_READS[key] = hit
    unit, datum, end = hit
    return unit, datum, pos + end


def _read_unit_uncached(text: str, pos: int):
    spans: list[int] = []
    last = pos
    for w in _WORD.finditer(text, pos, min(len(text), pos + 80)):
        gap = text[last:w.start()]
        if gap.strip() or len(gap) > 2 or (not spans and w.start() - pos > 1):
            break
        token = w.group()
        core = token.rstrip(".*_`")
        if core == "in" and not spans and _INCH_AFTER.match(text, w.start() + 2):
            spans.append(w.start() + 2)  # "48.72 in.", "49 in of freeboard": inches
            break
        if core in _UNIT_STOP:  # case kept: "393.6 A" is amperes, "a" an article
            break
        if spans and (token[0].isdigit() or token[0] in "-+\u2212" and token[1:2].isdigit()):
            break  # the next number: "86 400 s/day x 1 000 mm/m"
        spans.append(w.start() + len(core))
        last = w.end()
        if len(spans) >= 6 or core != token:
            break
    for end in reversed(spans):
        hit = _phrase(text[pos:end].strip())
        if hit is not None:
            return hit[0], hit[1], end
    return None, None, pos


_INCH_AFTER = re.compile(r"\.?\s*(?:$|[;)\]=\u2248]|\.(?:\s|$)|of\b|\(|or\s+\d|\(?(?:about|roughly)\b)")
_PHRASES: dict[str, tuple | None] = {}


_GALLON = re.compile(r"(US|U\.S\.|UK|imperial|Imperial)\s+gal(?:lon)?s?\b")


def _phrase(phrase: str):
    """(unit, datum) for a phrase, or None; cached, since answers repeat their units."""
    try:
        return _PHRASES[phrase]
    except KeyError:
        pass
    from .units import parse_with_datum, try_parse_unit
    hit = None
    g = _GALLON.match(phrase) if phrase[:2] in ("US", "U.", "im", "Im", "UK") else None
    if g is not None:
        # "US gallons", "imperial gallons": a gallon named with its system is no longer
        # ambiguous (the kernel refuses a bare "gallon")
        us = g.group(1)[0] in "Uu" and g.group(1)[:2].upper() != "UK"
        phrase = ("[gal_us]" if us else "[gal_br]") + phrase[g.end():]
    try:
        unit = try_parse_unit(phrase)
        if unit is not None and phrase.lower() in _BARE_DEGREE:
            pass  # prose "12 degrees" may be a temperature or an angle: no unit is read
        elif unit is not None:
            hit = (unit, None)
        elif " " in phrase or phrase[:1] in "mf":  # "ft NAVD88", "mAOD": a unit and a datum
            unit, datum = parse_with_datum(phrase)
            if datum is None or _known_datum(datum):
                hit = (unit, canonical_datum(datum))
    except (GuardViolation, ArithmeticError, ValueError, RecursionError):
        hit = None  # not a unit: prose that merely looks like one
    if len(_PHRASES) < 8192:
        _PHRASES[phrase] = hit
    return hit


_A_PER = re.compile(r" (?:an?|every|each) (second|minute|hour|day|week|month|year)\b", re.I)
_PAREN_DATUM = re.compile(r"\s?\(\s*([A-Za-z][\w :.-]{1,30}?)\s*\)")
_LENGTH = (1,) + (0,) * (N_AXES - 1)
_TIME = (0, 0, 1) + (0,) * (N_AXES - 3)


def _paren_datum(text: str, end: int, unit):
    """The vertical datum named in brackets right after a length: "32.0 ft (NGVD 29)"."""
    if unit.dims != _LENGTH:
        return None
    m = _PAREN_DATUM.match(text, end)
    if m is None:
        return None
    name = m.group(1)
    if name.lower().startswith(("above ", "on ")):
        name = name.split(None, 1)[1]
    from . import datums
    try:
        return datums.get(name).name
    except GuardViolation:
        # "(gauge datum)", "(station datum)": a station's own datum, whichever station
        return "ASD" if name.upper().replace(" ", "").replace("-", "") in _STATION_WORDS \
            else None


_STATION_WORDS = frozenset({"GAGE", "GAUGE", "ASD", "MASD", "STATION", "STATIONDATUM",
                            "STAGEDATUM", "GAGEDATUM", "GAUGEDATUM", "GAGEZERO", "GAUGEZERO",
                            "LOCALDATUM", "ABOVESTATIONDATUM"})


def _known_datum(name: str) -> bool:
    from . import datums
    try:
        datums.get(name)
        return True
    except GuardViolation:
        return name == "ASD"


def canonical_datum(name):
    """The registry's own spelling of a datum name (``navd 88`` -> ``NAVD88``); the name as
    written when the registry does not know it; None for None."""
    if name is None:
        return None
    from . import datums
    try:
        return datums.get(name).name
    except GuardViolation:
        return name


_WORD = re.compile(r"[^\s,;:!?()\[\]]+")


def _written_tolerance(raw: str, exp: int, max_zeros: int = 99) -> float:
    """Half a unit in the last significant place written. ``max_zeros`` caps the trailing
    zeros of a whole number counted as rounding (the boundary checks count at most 3)."""
    if "." in raw:
        return 0.5 * 10.0 ** (exp - len(raw.split(".")[1]))
    digits = _digits(raw)
    zeros = min(len(digits) - len(digits.rstrip("0")), max_zeros) if digits.strip("0") else 0
    return 0.5 * 10.0 ** (exp + zeros)


def _digits(raw: str) -> str:
    return raw.replace(",", "").replace(" ", "").replace("\u2009", "").replace(
        "\u202f", "").replace("\u00a0", "")


def _significant(d: str) -> int:
    """Significant figures written (trailing zeros of a whole number are not significant)."""
    if "." in d:
        return len(d.replace(".", "").lstrip("0")) or 1
    return len(d.lstrip("0").rstrip("0")) or 1


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
_SQRT_BEFORE = re.compile(r"(?:\u221a|sqrt|root)\s*\(?\s*$", re.I)
_PI = re.compile(r"\u03c0|\bpi\b", re.I)


# -- round 5: identifiers that hold digits and are read in an answer only ---------------------
# A telephone number: three to six groups of digits (or the letters of a vanity number) joined
# by single hyphens or spaces, nine digits or more, and not a thousands grouping (which has
# groups of exactly three after the first): "1-888-275-8747", "0800 80 70 60", "0345 988 1188".
_PHONE = re.compile(r"(?:\+\d{1,3}[ -]?)?(?:\(\d{1,5}\)[ -]?)?\d{1,5}(?:([ \u00a0-])(?:\d{2,5}|[A-Z]{3,5}))"
                    r"(?:[ \u00a0-](?:\d{2,5}|[A-Z]{3,5})){1,4}(?![\w.,]?\d)")
# short service numbers need a word of telephones in their sentence: "call 911", "line: 311"
_SERVICE_NUMBER = frozenset({"111", "112", "211", "311", "411", "511", "611", "711", "811", "911",
                             "999", "000", "101", "105"})
_PHONE_WORDS = re.compile(r"\b(?:call|dial|phone|telephone|tel|line|hotline|helpline|number|"
                          r"emergency|ring|text|contact)\b", re.I)
# A position on the earth: degrees (minutes, seconds) and a hemisphere, "38°56′58″N",
# "38.9496° N"; or a grid reference, "SU 7175 7370" (two letters, two equal digit groups)
_COORD = re.compile(r"\d{1,3}(?:\.\d+)?\s?\u00b0\s?(?:\d{1,2}(?:\.\d+)?\s?['\u2032]\s?(?:\d{1,2}(?:\.\d+)?"
                    r"\s?(?:[\"\u2033]|'')\s?)?)?[NSEW]\b")
_GRIDREF = re.compile(r"\b[HNOST][A-HJ-Z]\s?(\d{2,5})\s(\d{2,5})\b")
# a chainage or a kilometre post, "12+400"; odds and return periods, "1-in-100", "1 in 200-year"
_CHAINAGE = re.compile(r"\+\d{2,3}\b(?![.,]\d)")
_ONE_IN = re.compile(r"(?:-in-|\s+in\s+)(\d{1,5})(?:-|\s+)(?:years?|yrs?|chance|AEP|annual|event|"
                     r"flood|storm)\b", re.I)
_EPOCH_WORDS = re.compile(r"\b(?:unix|epoch|posix|timestamp)\b", re.I)
_MODEL_SETTING = re.compile(r"\b(?:top[_ -]?[pk]|seed|max[_ ]tokens|temperature)\s*[:=]?\s*$", re.I)
_MODEL_WORDS = re.compile(r"\b(?:model|llm|sampling|decoding|gpt|claude|gemini|llama|mistral|qwen)",
                          re.I)
_PROGRESS = re.compile(r"/\d{1,3}[\])]")
# A distance to a place: "150 m below the A33 bridge", "2 km downstream of the intake" (a
# structure or a place, never a level: "below the bridge soffit" is a clearance, and "below the
# threshold", "below the gauge datum" are claims)
_LANDMARK_AFTER = re.compile(
    r"\s+(?:(?:up|down)stream\b(?!\s+(?:level|stage|flow|water))|(?:(?:up|down)stream\s+|north\s+|"
    r"south\s+|east\s+|west\s+)?(?:of|from|below|above|past|beyond|before|after)\s+(?:the\s+)?"
    r"(?:[A-Z][\w-]*\s+){0,3}(?:bridge|intake|weir|confluence|outfall|dam|lock|crossing|road|"
    r"mouth|junction|village|town|mill|culvert|sluice|footbridge|viaduct|ford|barrage|"
    r"substation|railway|motorway|highway|outlet)s?\b(?!\s+(?:crest|top|deck|level|height|soffit|"
    r"invert|datum|zero|threshold|sill|spill|apron|floor)))")
# a per-unit value ("0.9 pu") is read on a base the answer picks; the base ("on a 100 MVA base")
# is a convention
_DEFINED_AS = re.compile(r"\s*(?:=|\u2261|:=|equals|is equal to|is defined as)\s*\(?\d[^=;\n]{0,40}?"
                         r"\s[/\u00d7*\u00f7]\s*\d")  # (a formula: "1 kV = 1000 V" is read as before)
_PRECISION_HINTS = ("exact", "accura", "precis", "correct to", "good to", "given to", "resolved",
                    "known to", "nearest", "resolution")
_LANDMARK_FIRST = frozenset("udnsewofbpaUDNSEWOFBPA")  # up, down, north ... of, from, below ...
_PU_AFTER = re.compile(r"\s+base\b", re.I)
_PU_BASE = re.compile(r"\bbase\s+(?:of\s+)?$", re.I)
_PU_VALUE = re.compile(r"\s?(?:pu|p\.u\.)(?![\w.])")
# a precision written with a unit: "exact to 0.1 A", "given to the nearest 0.1 ft"
_PRECISION_BEFORE = re.compile(r"\b(?:(?:exact|accurate|precise|correct|good|given|resolved|known)"
                               r"\s+to(?:\s+within)?(?:\s+the\s+nearest)?|"
                               r"to\s+the\s+nearest|resolution(?:\s+of)?|precision(?:\s+of)?)\s*$", re.I)
_SITE_AFTER = re.compile(r"(?:'s)?\s+(?:site|station|gauge|gage|well|sensor|monitoring)", re.I)
_IDIOM = re.compile(r"(?:24/7|24-7|50/50|50-50)\b")
_ADDRESS = re.compile(r"(?:\s[A-Z][a-z]+){1,3}\s(?:Street|St\.?|Road|Rd\.?|Avenue|Ave\.?|Lane|Ln\.?|"
                      r"Drive|Dr\.?|Way|Boulevard|Blvd\.?|Place|Pl\.?|Court|Ct\.?|Square|Terrace|"
                      r"Parkway|Highway|Close|Crescent)\b")
_CALENDAR_BEFORE = re.compile(r"\b(?:day|week|month)\s*$", re.I)
_CALENDAR_AFTER = re.compile(r"\s+(?:of|in)\s+(?:the\s+year|(?:19|20)\d{2}\b)", re.I)
_LATLON_BEFORE = re.compile(r"\b(?:lat|lon|long|latitude|longitude)\.?\s*[:=]?\s*$", re.I)
_PROGRESS_BEFORE = re.compile(r"[\[(]\d{1,3}/$")


_NAME_NOT = _UNIT_STOP | {"per", "out", "than"}  # "1-in-30-year": words, not a name


_ID_NEXT = frozenset("-+])/_\u2013")       # a character after the number that starts one
_ID_PREV = frozenset("-[(/:")                # a character before it
_ID_NEXT2 = frozenset("0123456789ipPABCDEFGHIJKLMNOQRSTUVWXYZ")  # after a space: a phone
# group, "in", "pu", a street name


def _id_hints(low: str) -> tuple:
    """Which of the word-led identifier rules can apply to a text at all (cheap ``in`` checks,
    made once per text): (a calendar word, a model setting word)."""
    return (("day" in low or "week" in low or "month" in low),
            ("temperature" in low or "seed" in low or "top" in low or "max" in low))


def _identifier_at(text: str, s: int, e: int, raw: str, sign, last_skip: int, stated=frozenset(),
                   hints=(True, True)):
    """An identifier starting at the number read at ``s`` (a telephone number, a position on
    the earth, a chainage, a return period, a model's name or setting, a log's step counter,
    the next part of a standard's number): ``(start, end, reason)``, or None."""
    nxt = text[e:e + 1] or "\0"
    prev = text[s - 1:s] or "\0"
    if raw.isdigit() and nxt in "- \u00a0" and text[e + 1:e + 2].isdigit() or \
            raw.isdigit() and sign == "+" and nxt in " -":
        ph = _PHONE.match(text, s)
        if ph is not None:
            body = ph.group()
            groups = re.split(r"[ \u00a0-]+", body.lstrip("+"))
            n = sum(len(g.strip("()")) for g in groups)
            thousands = ph.group(1) != "-" and len(groups[0]) <= 3 and \
                all(len(g) == 3 and g.isdigit() for g in groups[1:])
            if n >= 9 and not thousands and not _read_unit(text, ph.end())[0]:
                return (s, ph.end(), "a telephone number")
    if raw in _SERVICE_NUMBER and _PHONE_WORDS.search(text, max(0, s - 40), s) and \
            _read_unit(text, e)[0] is None:
        return (s, e, "a telephone number (a service number)")
    if "\u00b0" in text[e:e + 3]:
        c = _COORD.match(text, s)
        if c is not None:
            return (s, c.end(), "a position on the earth (latitude or longitude)")
    if raw.isdigit() and s >= 3 and prev == " " and text[s - 3:s - 1].isupper():
        g = _GRIDREF.match(text, s - 3)
        if g is not None and len(g.group(1)) == len(g.group(2)):
            return (s - 3, g.end(), "a position on the earth (a grid reference)")
    ch = _CHAINAGE.match(text, e) if raw.isdigit() and nxt == "+" else None
    if ch is not None:
        return (s, ch.end(), "a chainage (a distance along a line, used as a place name)")
    if raw.isdigit() and nxt in "- \u00a0":
        o = _ONE_IN.match(text, e)
        if o is not None and float(raw) not in stated and float(o.group(1)) not in stated:
            # (the question's own "1 in 30 year storm" is quoted, and read)
            return (s, o.end(), "odds or a return period (1 in 100 years)")
    if prev == "-" and s >= 2 and text[s - 2].isalpha() and \
            text[max(0, s - 12):s - 1].split()[-1:][0].lower().split("-")[-1] not in _NAME_NOT and (
            text[e:e + 1] in "-_" and text[e + 1:e + 2].isalnum() or
            s >= 3 and not text[s - 3].isalnum() and text[s - 2].isupper()):
        # inside a hyphenated name ("gemini-1.5-pro", "stage-i-15_min") or a route ("I-10")
        return (s, e, "part of a name (a model, a file, a route)")
    if prev == "-" and last_skip > max(text.rfind(" ", 0, s), text.rfind("\n", 0, s)) and \
            _read_unit(text, e)[0] is None:
        return (s, e, "part of a name (a model, a file, a route)")  # "...-large-2407"
    if raw.isdigit() and prev in "-/:" and s - 1 == last_skip and _read_unit(text, e)[0] is None:
        return (s, e, "the next part of an identifier (IEC 60076-1, EM 1110-2-1913)")
    if raw.isdigit() and nxt == "-" and text[e + 1:e + 2].isupper() and \
            text[e + 2:e + 3].isdigit():
        return (s, e, "an identifier (a code: 3-A8)")
    if raw.isdigit() and prev in "[(" and _PROGRESS.match(text, e) or \
            raw.isdigit() and nxt in "])" and _PROGRESS_BEFORE.search(text, max(0, s - 5), s):
        return (s, e, "a step counter ([2/4])")
    if raw.isdigit() and len(raw) >= 6 and _SITE_AFTER.match(text, e):
        return (s, e, "an identifier (a site number named after it: the 7374000 site)")
    if raw.isdigit() and len(raw) >= 9 and _EPOCH_WORDS.search(text, max(0, s - 30), e + 30):
        return (s, e, "a timestamp (seconds since an epoch)")
    idiom = _IDIOM.match(text, s) if raw in ("24", "50") and nxt in "/-" else None
    if idiom is not None:
        return (s, idiom.end(), "an idiom written in digits (24/7, 50/50)")
    if raw.isdigit() and nxt == " " and text[e + 1:e + 2].isupper():
        ad = _ADDRESS.match(text, e)
        if ad is not None:
            return (s, e, "a street number (an address)")
    if nxt in " pP" and _PU_VALUE.match(text, e):
        return (s, e, "a per-unit value (a ratio to a base the answer picks)")
    if hints[0] and _CALENDAR_BEFORE.search(text, max(0, s - 8), s) and \
            _CALENDAR_AFTER.match(text, e):
        return (s, e, "a calendar position (day 334 of 2026)")
    if sign and _LATLON_BEFORE.search(text, max(0, s - 14), s):
        return (s, e, "a position on the earth (latitude or longitude)")
    if hints[1] and _MODEL_SETTING.search(text, max(0, s - 16), s) and \
            _read_unit(text, e)[0] is None and \
            _MODEL_WORDS.search(text, max(0, s - 120), min(len(text), e + 60)):
        return (s, e, "a model setting (temperature 0, seed 42)")
    return None


def extract_numbers(text: str) -> list[Number]:
    """Every quantity-like number in ``text``, with the unit written after it if any."""
    return _scan(text).numbers if text else []


def _scan(original: str, answer: bool = False, stated=frozenset(), counts=None) -> _Reading:
    """Read ``original``. ``answer``: it is an answer to audit, not a question or an argument
    (``extract_numbers``): then counts, precisions, periods, uncertainties, probabilities and
    more labels are skipped too, and a one-significant-figure number is read as a rounding
    (a question states every number it has; the boundary and the grader read them all)."""
    if not original:
        return _Reading([], [], frozenset(), "")
    if _needs_normalising(original):
        text, starts, ends = _normalise(original)
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
    skip = _clock_spans(text)
    if "://" in text or "www." in text:
        skip += [(m.start(), m.end()) for m in _URL.finditer(text)]
    if ":" in text:
        skip += [(m.start(), m.end()) for m in _OFFSET.finditer(text)]
    if answer and ("_" in text or "/" in text) and "." in text:
        skip += _file_names(text)
    out: list[Number] = []
    skipped: list[tuple[str, str]] = []
    constants: set[str] = set()
    low_text = text.lower()
    if "\u03c0" in text or "pi" in low_text:
        if _PI.search(text):
            constants.add("pi")
    hints = _id_hints(low_text) if answer else (False, False)
    precise_hint = answer and any(w in low_text for w in _PRECISION_HINTS)
    base_hint = answer and "base" in low_text
    sqrt_written = "\u221a" in text or "sqrt" in text or "root" in text
    plus_minus = "\u00b1" in text or "+/-" in text
    ids: list[tuple[int, int, str]] = []  # spans of identifiers read so far, with the reason
    last_skip = -1  # where the last identifier or label read ended
    counts_ok = None  # whether counts of discrete things may be passed over (see audit_answer)
    for m in _NUM.finditer(text):
        sign, raw, gexp, gexp10, gexp10s, gpow, gsup10, pct = m.groups()
        gexp10 = gexp10 or gexp10s
        s, e = m.span()
        if out and s < out[-1].nend:
            skipped.append((m.group(), "part of the unit written before it"))
            continue
        if skip:
            ns = m.start(2)
            if any(a <= ns < b for a, b in skip):
                skipped.append((m.group(), "a date, a time, a zone offset or a web address"))
                continue
        if ids:
            ns = m.start(2)
            hit = next((r for a, b, r in ids if a <= ns < b), None)
            if hit is not None:
                skipped.append((m.group(), hit))
                continue
        nxt = text[e:e + 1]
        if answer and not pct and (hints[0] or hints[1] or sign or len(raw) >= 6 or
                                   nxt in _ID_NEXT or text[s - 1:s] in _ID_PREV or
                                   nxt == " " and text[e + 1:e + 2] in _ID_NEXT2 or
                                   nxt == "\u00a0" or nxt == "\u00b0" or
                                   raw in _SERVICE_NUMBER or "\u00b0" in text[e:e + 3] or
                                   s >= 3 and text[s - 3:s - 1].isupper()):
            # (a cheap look at the characters around the number first: most numbers are
            # none of these, and the checks below are regular expressions)
            span = _identifier_at(text, s, e, raw, sign, last_skip, stated, hints)
            if span is not None:
                ids.append(span)
                skipped.append((m.group(), span[2]))
                last_skip = e
                continue
        if nxt.isalpha() and not pct and text[e:e + 2] in ("st", "nd", "rd", "th") and \
                not text[e + 2:e + 3].isalnum():
            skipped.append((m.group(), "an ordinal"))
            continue  # "1st", "2nd": ordinals; but "1250cfs" is a number with a unit
        digits = raw if raw.isdigit() or raw.replace(".", "", 1).isdigit() else _digits(raw)
        integer = digits.isdigit()
        before = text[max(0, s - 24):s].lower()
        rev = before[::-1]  # the words before, read backwards: one anchored match each
        # station and site numbers, codes, list markers, years, dates written with a month name
        id_rev = rev[1:] if rev[:1] in ("+", "-", "\u2212") else rev
        if id_rev[:1] in ("=", ":", " ", '"', "'"):
            t = id_rev.lstrip()
            if t[:1] == "=" or t[:1] == ":" and (len(t) == len(id_rev) or t[1:2] in "\"'"):
                id_rev = t.lstrip(" \t\"'=:#-_")  # "station": 7374000, EPSG:4326, site=..
        if answer and s > 0 and text[s - 1] in "\"'`" and text[e:e + 1] == text[s - 1] and \
                not pct and not sign:
            skipped.append((m.group(), "a string in code or JSON (an identifier), not a number"))
            continue
        if _ID_RX.match(id_rev) or (
                integer and len(digits) >= 3 and digits[0] == "0" and raw == digits) or (
                s >= 3 and text[s - 1] == "-" and _code_before(text, s - 1)):  # RRL-12
            skipped.append((m.group(), "an identifier (a station, site, code or standard number)"))
            last_skip = e
            continue
        lab = rev.lstrip(" \t*_#:") if rev[:1] in " \t*_#:" else rev
        if not pct and not sign and (lab[:1].isalpha() or lab[:1] == ".") and \
                not (gexp or gexp10 or gpow or gsup10) and (
                integer and (_ANSWER_LABEL_RX if answer else _LABEL_RX).match(lab) or
                answer and not integer and _DOTTED_LABEL_RX.match(lab)) and \
                _read_unit(text, e)[0] is None or \
                answer and integer and lab[:3] == "fo " and _OF_LABEL.match(lab) and \
                _read_unit(text, e)[0] is None:
            # (never with a unit written after it: "the stage 2.85 m" is a measurement)
            skipped.append((m.group(), "a step, list or section label"))
            last_skip = e
            continue
        if integer and not pct:
            if len(digits) <= 2 and nxt in ".)" and nxt and \
                    text[e + 1:e + 4].lstrip("*_")[:1].isspace() and _is_marker(text, s, e, nxt):
                skipped.append((m.group(), "a list marker"))
                continue
            if raw == digits and len(digits) == 4 and 1800 <= int(digits) <= 2100:
                unit, _, _ = _read_unit(text, e)
                if unit is None:
                    skipped.append((m.group(), "a year"))
                    continue
            if len(digits) <= 2 and int(digits) <= 31:
                words_before = before.split()
                word_after = text[e:e + 12].strip().lower()
                if (words_before and words_before[-1][:3] in _MONTHS) or \
                        word_after[:3] in _MONTHS:
                    skipped.append((m.group(), "a day of a month"))
                    continue
                if sqrt_written and int(digits) <= 10 and \
                        _SQRT_BEFORE.search(text, max(0, s - 8), s):
                    constants.add(f"sqrt{int(digits)}")
                    skipped.append((m.group(), f"the constant \u221a{int(digits)}"))
                    continue
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
        if abs(exp) > _MAX_EXP or len(digits) > _MAX_EXP:
            skipped.append((m.group(), "out of the range of a measurement"))
            continue
        base = float(digits)
        value = base * 10.0 ** exp if exp else base
        tol = _written_tolerance(raw, exp)
        frac = _FRACTIONS.get(text[e:e + 1]) if integer and not exp else None
        if frac is not None:  # "48\u00be inches": a whole number and a vulgar fraction
            value, tol = value + frac, 0.125
            e += 1
            nxt = text[e:e + 1]
        btol = _written_tolerance(raw, exp, 3)
        if gsup10 and raw == "10":
            value, tol = 10.0 ** (exp + 1), 0.005 * 10.0 ** (exp + 1)
        elif gpow:
            try:
                value = base ** int(gpow.translate(_SUPERSCRIPTS))
            except (OverflowError, ZeroDivisionError):
                value = math.inf
            tol = 0.005 * abs(value)
        if not math.isfinite(value) or abs(value) > 1e300:
            skipped.append((m.group(), "out of the range of a measurement"))
            continue
        sig1 = not gpow and not gsup10 and _significant(digits) == 1
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
            word = _WORD.match(text, e + (1 if nxt == " " else 0))
            factor = _MULTIPLIERS.get(word.group().lower().rstrip(".")) if word else None
            if factor is not None:  # "59.8 million m3"
                assert word is not None  # a factor is only looked up for a word read
                value, tol, end = value * factor, tol * factor, word.end()
                btol *= factor
            unit, datum, end = _read_unit(text, end)
            if unit is None and factor is not None:
                assert word is not None  # a factor is only looked up for a word read
                end = word.end()
            elif unit is not None and datum is None and text[end:end + 2].strip()[:1] == "(":
                datum = _paren_datum(text, end, unit)  # "32.0 ft (NGVD 29)"
            if unit is not None and text[end:end + 3] in (" a ", " an", " ev", " ea"):
                rate = _A_PER.match(text, end)  # "45 megalitres a day"
                if rate is not None:
                    per = _phrase(f"{unit.symbol}/{rate.group(1).lower()}")
                    if per is not None:
                        unit, end = per[0], rate.end()
        why = _not_a_measurement(text, s, e, end, raw, digits, integer, unit, percent, sign,
                                 exp, factor, rev) if answer and (
            unit is None or percent or plus_minus or unit.dims == _TIME) else None
        if why is None and answer and unit is None and integer and not percent and \
                not sign and not exp and factor is None and len(digits) <= 7:
            why = _discrete_count(text, s, e, raw, digits)
            if why is not None and counts is not None:
                if counts_ok is None:
                    counts_ok = counts()
                if not counts_ok:
                    why = None
        if why is None and answer and unit is not None and value == 1.0 and not exp and \
                factor is None and _DEFINED_AS.match(text, end):
            # "1 Ml/d = 1,000 m\u00b3 / 86,400 s": one unit defined by what follows (its right
            # side is read, and must hold)
            why = "one unit, defined by what follows (1 Ml/d = 1,000 m\u00b3/d)"
        elif why is None and answer and unit is not None and datum is None and \
                unit.dims == _LENGTH and text[end + 1:end + 2] in _LANDMARK_FIRST and \
                _LANDMARK_AFTER.match(text, end):
            why = "a distance to a place (150 m below the bridge, 2 km downstream)"
        elif why is None and base_hint and unit is not None and \
                (_PU_AFTER.match(text, end) or _PU_BASE.search(text, max(0, s - 12), s)):
            why = "the base of a per-unit system (a convention, 100 MVA)"
        elif why is None and precise_hint and unit is not None and not percent and \
                ("to " in text[max(0, s - 20):s] or "resolution" in before or
                 "precision" in before) and \
                _PRECISION_BEFORE.search(text, max(0, s - 28), s):
            why = "a precision (exact to 0.1 A, to the nearest 0.1 ft)"
        if why is not None and value not in stated:
            skipped.append((m.group(), why))
            if why.startswith("an identifier"):
                last_skip = e
            continue
        if unit is None and not percent and nxt.isalpha() and factor is None:
            skipped.append((m.group() + text[e:e + 8].split()[0] if text[e:e + 1].strip() else
                            m.group(), "an identifier (digits run into letters)"))
            continue
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
        if gexp10 and unit is not None and _is_ratio_unit(unit) and \
                _close(10.0 ** exp * unit.scale, 1.0, 1e-9) and \
                not _close(value * unit.scale, 1.0, tol * unit.scale):
            # "29940 x 10^6 m2/km2": a number times a written factor, not 2.994e10 m2/km2
            ten = text.index("10", m.end(2))
            sig1 = _significant(digits) == 1
            mtol = _written_tolerance(raw, 0)
            if sig1:
                mtol = min(mtol, 0.1 * base) or mtol
            out.append(_number(original, text, starts, ends, s, m.end(2),
                               -base if sign in ("-", "\u2212") else base, None, None,
                               mtol, False, negated, sign, sig1))
            out.append(_number(original, text, starts, ends, ten, end, 10.0 ** exp, unit, datum,
                               0.0, False, False, None, True))
            continue
        num = _number(original, text, starts, ends, s, end, value, unit, datum, tol, percent,
                      negated, sign, sig1)
        num.flat = flat
        if not (gpow or gsup10):
            num.boundary_tol = btol
        out.append(num)
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
    if answer and len(out) > 1 and "/" in text:
        out = _slash_fractions(original, text, out, starts, ends)
    if len(out) > 1 and ("ft" in text or "fe" in text or "foot" in text or "'" in text or
                         "\u2032" in text):
        out = _feet_and_inches(original, text, out, starts, ends)
    if "|" in text:
        _table_units(text, out)
    if '"value"' in text:
        _json_units(text, out)
    return _Reading(out, skipped, frozenset(constants), text)


# a count: a small whole number and the plural noun it counts ("3 tool calls", "2 decimal
# places", "10 of 12 readings"), or a precision ("2 d.p.", "3 s.f.", "3 sig figs")
_COUNTED = re.compile(r"[ \u00a0]+(?:out of (?:the )?\d{1,3}[ \u00a0]+|of (?:the )?\d{1,3}[ \u00a0]+)?"
                      r"(?:([a-z][a-z-]{1,20})[ \u00a0]+)?([a-z][a-z-]{1,20})\b")
_PRECISION = re.compile(r"[ \u00a0]*(?:d\.?p\.?|s\.?f\.?|sig\.? ?figs?|significant|decimal)(?![a-z])",
                        re.I)
_NOT_COUNTED = frozenset({"is", "was", "has", "as", "us", "this", "thus", "its", "less", "plus",
                          "minus", "yes", "does", "gives", "goes", "means", "uses", "equals",
                          "makes", "becomes", "stays", "remains", "sits", "lies", "gets", "says",
                          "shows", "reads", "returns", "yields", "comes", "amounts", "totals",
                          "exceeds", "falls", "rises", "across", "towards", "besides",
                          "per", "cross", "process", "access", "bias", "basis", "status"})
_HTTP_AFTER = re.compile(r"\s*(?:\((?:[A-Z][a-z]+ ?){1,3}\)|(?:[A-Z][a-z]+ ){0,2}(?:error|response|"
                         r"status|Service Unavailable|Not Found|Bad Gateway|Gateway Timeout)\b)")
_HTTP_BEFORE = re.compile(r"(?:\b(?:with|returned|got|gave|threw|raised|a|an)\s+(?:an?\s+)?|HTTP[ /]?|"
                          r"\b(?:error|status|code|response|failure|HTTP)(?:\s+code)?(?:\s+(?:was|is|of))?\s*[(:=#]?\s*)$",
                          re.I)
_NOTE_BEFORE = re.compile(r"\b(?:note|footnote|ref\.?|reference|source|citation|fn\.?)\s*#?$", re.I)
_OF_THEM = re.compile(r"\s+of\s+(?:them|these|those|which|us|it)\b", re.I)
# a period: "the last 7 days", "the past 24 hours" (the data window, not a claim)
_PERIOD_RX = re.compile(r"\s*(?:tsal|tsap|suoiverp|gnideceserp|roirp|tsrif|lanif)(?![^\W_])")
# a probability or confidence level: "95% confidence", "a 1% chance", "the 1% AEP flood"
_CONFIDENT_BEFORE = re.compile(r"\b(?:confiden(?:ce|t)|certainty|certain|sure|probability|"
                               r"likelihood)\b[^.\n]{0,24}$", re.I)
_OUT_OF_TEN = re.compile(r"\s?/\s?(?:10|100)\b[^.\n]{0,16}\b(?:confiden|certain|sure)", re.I)
# a confidence written as a fraction or score right after its word: "confidence: 0.9",
# "probability of 0.95", "p ≈ 0.9", "certainty ~ 8/10"
_CONFIDENCE_NEAR = re.compile(r"(?:\b(?:confiden(?:ce|t)|certainty|probability|likelihood|credence)"
                              r"(?:\s+(?:level|score|rating|estimate))?(?:\s+(?:this|that|it)\s+is\s+"
                              r"(?:right|correct))?|\bp)\s*(?:[:=\u2248~]|is|of|at|about|around)?\s*"
                              r"(?:about|around|~|\u2248)?\s*$", re.I)
_CONFIDENCE_SCORE = re.compile(r"\b(?:confiden(?:ce|t)|certainty)\b[^.\n]{0,12}(?:/|out of)\s*$", re.I)
_SCORE_AFTER = re.compile(r"\s?(?:/|out of)\s?(?:5|10|100)\b")
_SCORE_BEFORE = re.compile(r"\d\s?(?:/|out of)\s?$")
# a list reference: "(2) above", "per (2)", "point (2)", "item (b) 2"
_LISTREF_AFTER = re.compile(r"\s*(?:above|below|earlier|later|before)\b", re.I)
_LISTREF_BEFORE = re.compile(r"\b(?:see|per|in|from|point|item|step|note|bullet|under|as)\s*$", re.I)
_SUBITEM_BEFORE = re.compile(r"\([a-z]\)\s*$")
# a margin of error in words: "uncertainty about 5%", "give or take 5%", "accurate to within 5%"
_UNCERTAIN_BEFORE = re.compile(r"\b(?:uncertaint(?:y|ies)|error margin|margin of error|margin|"
                               r"give or take|plus or minus|accurate to(?: within)?|good to(?: within)?|"
                               r"accuracy(?: of)?|tolerance|precision|error(?: of| bars?)?)"
                               r"\s*(?:[:=]|is|of|about|around|roughly|approximately|~|\u2248|\s)*$", re.I)
_N_EQUALS = re.compile(r"(?<![\w.])[nN]\s?=\s?$")
_CURRENCY = "\u00a3$\u20ac\u00a5\u20b9"
_MONEY_AFTER = re.compile(r"\s?(?:p|pence|cents?|pounds|dollars|euros|GBP|USD|EUR)\b(?!\s*/)", re.I)
_PROBABILITY = re.compile(r"\s*(?:confiden(?:ce|t)|CI\b|credible|probability|chance|likelihood|sure|"
                          r"odds\b|(?:\w+\s+)?odds\b|certainty|"
                          r"certain|"
                          r"AEP\b|annual[- ](?:exceedance|chance)|exceedance probability)", re.I)


# -- round 5: families of numbers that are not measurements -----------------------------------
# A count of the work done, written after its noun: "Lookups performed: 2", "Total requests = 3",
# "Number of calls made - 3", "Retry count = 1". The nouns are the steps of the procedure (calls,
# requests, retries, passes ...), never quantities an answer measures: "Peak flows: 1700" and
# "Readings: 1700" stay claims, and so does "the tool returned: 350" (a singular noun).
_WORK = (r"calls|invocations|requests|look-?ups|queries|fetch(?:es)?|retries|attempts|tries|steps|"
         r"stages|passes|iterations|rounds|hops|turns|operations|retrievals|errors|failures|"
         r"warnings|timeouts|tool ?uses")
_WORK_ONE = (r"call|invocation|request|look-?up|query|fetch|retry|attempt|try|step|stage|pass|"
             r"iteration|round|error|failure|tool ?use")
_WORK_COUNT_BEFORE = re.compile(
    r"(?:\b(?:number|count|total|no\.|tally) of\s+(?:(?:tool|api|function|http|web|data|"
    r"service)\s+)?(?:" + _WORK + r")|\b(?:" + _WORK + r")|\b(?:" + _WORK_ONE + r")\s+(?:count|"
    r"total|tally))(?:\s+(?:used|made|performed|issued|needed|required|taken|executed|run|sent|"
    r"in total|total|overall|altogether|so far|counted|logged|recorded|encountered|seen|"
    r"attempted))?\s*(?:[:=\u2014\u2013]|--?|\b(?:were|was|is|are|came to|totall?ed|numbered|"
    r"stands at|stood at)\b)\s*$", re.I)
# A position in a procedure: "Phase 2 of 3", "Stufe 2 von 3", "pass 2/2"; "Etape 2 :", "Paso 3:"
# (a step noun of a common European language, then a heading's colon or dash). "Stage", "pass"
# and "round" are words of measurement too (a river stage, "a round 400 A"): they are read as
# steps only with "of N" or a heading's colon or dash after the number.
_STEP_NOUN_BEFORE = re.compile(
    r"\b(?:step|stage|phase|part|pass|round|schritt|stufe|teil|\u00e9tape|etape|paso|fase|etapa|"
    r"parte|passo|stap|fase|krok|steg|vaihe)\s*#?\s*$", re.I)
_POSITION_AFTER = re.compile(r"\s*(?::|\u2014|\u2013|-\s|\)|\.\s|(?:of|von|sur|de|di|van|z)\s+\d{1,2}\b"
                             r"|/\s?\d{1,2}\b(?!\s?[A-Za-z\u00b0%]))", re.I)
# N of M, the total of a position or a count: "Phase 2 of 3", "2 of 3 gauges"
_OF_TOTAL_BEFORE = re.compile(r"(?<![\d.,])(\d{1,2})\s+(?:out\s+)?(?:of|von|sur|de|di|van|z)\s+$",
                              re.I)
# A self-assessment, as a score or odds: "Trust level: 4/5", "quality 8 out of 10", "odds of
# that being right are 9 in 10", "self-assessed accuracy 9/10". Only on the scales people score
# on (3, 4, 5, 10, 20, 100) and only after a word of trust, quality or chance.
_SELF_SCORE_WORDS = re.compile(
    r"\b(?:confiden(?:ce|t)|certain(?:ty)?|sure|trust(?:worth\w*)?|reliab\w*|quality|score|"
    r"grade|self-?(?:assessed|rated)|odds|chances?|likel\w*|probab\w*|accuracy|rating)\b"
    r"[^.;\n\d]{0,30}$", re.I)
_SCORE_SCALE = re.compile(r"\s?(?:/|out of|in)\s?(3|4|5|10|20|100)\b(?!\s?[A-Za-z\u00b0%])(?![.,]\d)")
_SCORE_OF = re.compile(r"(?<![\d.,])(\d{1,3})\s?(?:/|out of|in)\s?$")
# A section sign and what it numbers: "§2.1", "§ 4", "¶ 3", "§§2-3"
_SECTION_BEFORE = re.compile(r"[\u00a7\u00b6]\s*(?:\d+(?:\.\d+)*\s*(?:[-\u2013,]|and|to)\s*)?$")
# HTTP: a reason phrase after the code ("201 Created", "200 OK", "502 Bad Gateway") ...
_HTTP_REASON = re.compile(
    r"\s*(?:OK\b|Created\b|Accepted\b|No Content\b|Moved|Found\b|Not Modified|Bad Request|"
    r"Unauthori[sz]ed|Forbidden|Not Found|Method Not Allowed|Conflict\b|Gone\b|Too Many Requests|"
    r"Internal Server Error|Bad Gateway|Service Unavailable|Gateway Time-?out|Request Timeout)")
# ... or a code listed after another code of the same sentence, which names status or HTTP:
# "HTTP 429, then 200", "status was 503 at first and 200 after a retry"
_HTTP_LISTED = re.compile(r"\b[1-5]\d\d\b(?:[^\d.;:\n]{0,30}?)(?:,|\band\b|\bthen\b|\u2192|->|/)\s*"
                          r"(?:then\s+|later\s+|finally\s+|eventually\s+)?(?:an?\s+|got\s+|returned\s+)?$")
_HTTP_WORDS = re.compile(r"\b(?:status|HTTP|response code|error code|retr(?:y|ied|ies))\b", re.I)


def _not_a_measurement(text, s, e, end, raw, digits, integer, unit, percent, sign, exp, factor,
                       rev):
    """Why a number read is no measurement (a count, a precision, a period, an uncertainty, a
    probability), or None."""
    k = s - 1
    while k >= 0 and text[k] in " \u00a0":
        k -= 1
    if k >= 0 and (text[k] == "\u00b1" or text[max(0, k - 2):k + 1] == "+/-"):
        return "an uncertainty (\u00b1 a tolerance)"
    if integer and s > 0 and text[s - 1] == "[" and text[e:e + 1] == "]" or \
            integer and text[max(0, s - 2):s] == "[^":
        return "a citation or footnote marker ([1])"
    if integer and _NOTE_BEFORE.search(text, max(0, s - 12), s):
        return "a citation or footnote marker (note 2, ref. 1)"
    if integer and unit is None and s >= 3 and text[s - 1] == " " and _code_before(text, s - 1) \
            and text[max(0, s - 12):s - 1].split()[-1:] != ["FINAL"] and \
            not text[max(0, s - 8):s - 1].endswith(("ANSWER", "FINAL")):
        return "an identifier (a code and its number: RRL 12)"
    if unit is None and not percent and k >= 0 and text[k] in "\u00a7\u00b6-\u2013," and \
            _SECTION_BEFORE.search(text, max(0, s - 16), s if text[k] in "\u00a7\u00b6" else s):
        return "a section reference (\u00a72.1, \u00b6 3)"
    if k >= 0 and text[k] in _CURRENCY or _MONEY_AFTER.match(text, end):
        return "a price or a sum of money"
    if percent and _UNCERTAIN_BEFORE.search(text, max(0, s - 32), s):
        return "an uncertainty (a margin of error in words)"
    if percent:
        return "a probability or confidence level" if _PROBABILITY.match(text, end) or \
            _CONFIDENT_BEFORE.search(text, max(0, s - 40), s) else None
    if unit is None and _OUT_OF_TEN.match(text, e):
        return "a probability or confidence level (9/10 confidence)"
    if unit is None and not sign and (_CONFIDENCE_NEAR.search(text, max(0, s - 40), s) or
                                      _CONFIDENCE_SCORE.search(text, max(0, s - 20), s)):
        # a self-rated confidence as a fraction or a score: "confidence: 0.9", "p ≈ 0.9",
        # "confidence 8/10", "4 out of 5"
        if not integer and float(digits) <= 1 or _SCORE_AFTER.match(text, e) or \
                _SCORE_BEFORE.search(text, max(0, s - 10), s):
            return "a probability or confidence level (confidence 0.9, 8/10)"
    if unit is None and integer and len(digits) <= 2 and (
            text[s - 1:s] == "(" and text[e:e + 1] == ")" and (
                _LISTREF_AFTER.match(text, e + 1) or _LISTREF_BEFORE.search(text, max(0, s - 16), s - 1)
                or _NOTE_START.match(text, e + 1) and _sentence_start_at(text, s - 1))
            or _SUBITEM_BEFORE.search(text, max(0, s - 8), s)):
        # (also a note's marker opening a sentence: "(1) Data as returned by the service.")
        return "a list reference ((2) above, item (b) 2)"
    if unit is not None:
        if integer and raw == digits and unit.dims == _TIME and not unit.shift and \
                _PERIOD_RX.match(rev.lstrip(" \t").removeprefix("eht ")):
            return "a period (the last 7 days)"
        return None
    if sign or exp or factor is not None or not integer or raw != digits or len(digits) > 3:
        return None
    if text[e:e + 1] == "-" and text[e + 1:e + 2].isalpha():
        # a compound adjective naming an interval: "15-minute data", "a 7-day mean"; or a
        # count: "a 3-phase system", "a 2-step check"
        word = _WORD.match(text, e + 1)
        w = word.group().lower().split("-")[0] if word else ""
        hit = _phrase(w) if w else None
        if hit is not None and hit[0].dims == _TIME or w in ("year", "month", "yr", "week"):
            return "an interval named as an adjective (a 7-day mean)"
        if hit is None and w.isalpha() and len(w) > 2 and w not in _UNIT_STOP:
            return "a compound adjective (a 3-phase system)"
        return None
    if _PRECISION.match(text, e):
        return "a precision (2 d.p., 3 significant figures)"
    why = _work_or_position(text, s, e, digits)
    if why is not None:
        return why
    if len(digits) == 3 and 100 <= int(digits) <= 599 and (
            _HTTP_AFTER.match(text, e) or _HTTP_BEFORE.search(text, max(0, s - 20), s) or
            _HTTP_REASON.match(text, e) or _http_listed(text, s)):
        return "an HTTP status code"
    if _N_EQUALS.search(text, max(0, s - 6), s):
        return "a count (n = 96)"
    if _OF_THEM.match(text, e):
        return "a count (2 of them)"
    m = _COUNTED.match(text, e)
    if m is None:
        return None
    first, noun = m.group(1), m.group(2)
    end_noun = m.end()
    if first is not None and (_counted_noun(first) or digits == "1" and _one_noun(first)):
        end_noun = m.start(2) - 1   # "3 readings were averaged", "1 call to get"
    elif first is not None and (first in _UNIT_STOP or first in _NOT_COUNTED or
                                _phrase(first) is not None):
        return None
    elif not (_counted_noun(noun) or digits == "1" and first is None and _one_noun(noun)):
        return None
    if text[end_noun:end_noun + 1] in ("/", "\u00b7", "*", "^"):
        return None  # a unit after all ("3 things/day")
    if "times" in (first, noun):
        after = m.start(2) - 1 if first == "times" else m.end()
        if _RATIO_AFTER.match(text, after):
            return None  # "35 times too large", "3 times the flow": a ratio, not a count
    return "a count (3 tool calls, 10 of 12 readings)"


_NOTE_START = re.compile(r" [A-Z][a-z]")

# a count of discrete things the tools do not measure: "one of 3 USGS gauges", "one of 4
# gauging stations", "supplies 1,240 customers". Round 5 passed a small number before a counted
# noun ("38 substations"); a grouped or longer count ("1,240 customers") and the total after a
# word number ("one of 3") are counts the same way. The caller passes these only when no tool
# returned a plain count (a wrong "1,250 customers" is then a wrong tool figure), and only with
# no unit read after the number.
_WORD_OF_BEFORE = re.compile(r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten)\s+"
                             r"(?:out\s+)?of\s+(?:the\s+)?$", re.I)
_GROUPED_COUNT = re.compile(r"\d{1,3}(?:,\d{3})+")
_COUNT_NOUN_AFTER = re.compile(r"[ \u00a0]+(?:[A-Z][A-Z0-9]{1,5}[ \u00a0]+)?(?:([a-z][a-z-]{1,20})[ \u00a0]+)?"
                               r"([a-z][a-z-]{1,20})\b")


def _discrete_count(text: str, s: int, e: int, raw: str, digits: str):
    """A count of discrete things ("1,240 customers", "one of 3 USGS gauges"), or None."""
    word_of = len(digits) <= 3 and "of" in text[max(0, s - 9):s] and \
        _WORD_OF_BEFORE.search(text, max(0, s - 16), s) is not None
    grouped = len(digits) >= 4 and (raw == digits or _GROUPED_COUNT.fullmatch(raw) is not None)
    if not (word_of or grouped):
        return None
    m = _COUNT_NOUN_AFTER.match(text, e)
    if m is None:
        return None
    first, noun = m.group(1), m.group(2)
    if first is not None and _counted_noun(first):
        end_noun = m.start(2) - 1
    elif first is not None and (first in _UNIT_STOP or first in _NOT_COUNTED or
                                _phrase(first) is not None):
        return None
    elif _counted_noun(noun):
        end_noun = m.end()
    else:
        return None
    if text[end_noun:end_noun + 1] in ("/", "\u00b7", "*", "^"):
        return None  # a unit after all ("1,240 things/day")
    if "times" in (first, noun):
        return None  # "6,000 times the load": a factor, not a count
    return "a count of discrete things (1,240 customers, one of 3 gauges)"


# a file name or path: a token with no spaces holding "_" or "/" and ending in a file
# extension ("potomac_01646500_2026-11-30.csv", "out/rrl12_v2.json"). Its digits are part of a
# name, like a URL's; a measurement is never written inside one ("2.5_m.csv" is no claim).
_FILE_EXT = re.compile(r"\.(?:csv|tsv|json|jsonl|xlsx?|txt|parquet|nc|xml|pdf|png|jpe?g|svg|"
                       r"zip|gz|h5|hdf5|ya?ml|toml|md|html?|log|dat|geojson|shp|tiff?|py|ipynb|"
                       r"feather|db|sqlite)(?![\w/])", re.I)
_TOKEN_STOP = " \t\n\u00a0<>()[]{}\"'`"


def _file_names(text: str) -> list:
    spans = []
    for m in _FILE_EXT.finditer(text):
        a = m.start()
        while a > 0 and text[a - 1] not in _TOKEN_STOP:
            a -= 1
        token = text[a:m.start()]
        if ("_" in token or "/" in token) and any(c.isalpha() for c in token):
            spans.append((a, m.end()))
    return spans


def _sentence_start_at(text: str, k: int) -> bool:
    """Whether position ``k`` opens a sentence or a line (after ". ", ".) ", a newline)."""
    before = text[max(0, k - 3):k]
    return k == 0 or before.endswith(("\n", ". ", ".) ", ".)", ": ", "! ", "? ")) or \
        before.strip() == "" and "\n" in text[max(0, k - 3):k + 1]


def _sentence_start(text: str, s: int) -> int:
    a = max(text.rfind(". ", 0, s), text.rfind("\n", 0, s), text.rfind("? ", 0, s),
            text.rfind("! ", 0, s), text.rfind("; ", 0, s))
    return a + 1


def _http_listed(text: str, s: int) -> bool:
    """An HTTP status code listed after another one in a sentence naming status or HTTP."""
    a = _sentence_start(text, s)
    return _HTTP_LISTED.search(text, max(a, s - 48), s) is not None and \
        _HTTP_WORDS.search(text, a, s) is not None


_IN_OF_COUNT = re.compile(r"\s+in\s+(\d{1,3})\s+([a-z][a-z-]{2,20})\b", re.I)
_POINT_SCALE = re.compile(r"\s+(?:on|out of)\s+(?:a|the)\s+\d{1,3}[- ]point\s+scale\b", re.I)
_IRREGULAR_PLURALS = frozenset({"people", "persons", "staff", "men", "women", "children", "crew",
                                "personnel", "engineers", "operators"})


def _counted_noun_any(w: str) -> bool:
    return w.lower() in _IRREGULAR_PLURALS or _counted_noun(w.lower())


def _work_or_position(text: str, s: int, e: int, digits: str):
    """A small whole number (no unit) that counts the work done, numbers a step, or scores the
    answer itself; None when it may be a measurement."""
    if len(digits) > 3:
        return None
    if _WORK_COUNT_BEFORE.search(text, max(0, s - 56), s):
        return "a count of the work done (calls used: 3)"
    if len(digits) <= 2:
        if _STEP_NOUN_BEFORE.search(text, max(0, s - 12), s) and _POSITION_AFTER.match(text, e):
            return "a position in a procedure (phase 2 of 3, \u00e9tape 2 :)"
        m = _OF_TOTAL_BEFORE.search(text, max(0, s - 12), s)
        if m is not None and int(m.group(1)) <= int(digits) and \
                _read_unit(text, e)[0] is None and text[e:e + 1] not in ("/", "%"):
            return "the total of a position or a count (2 of 3)"
        m = _OF_TOTAL_BEFORE.match(text, e)  # (the N of "N of M": read after M)
        if m is None:
            after = re.match(r"\s+(?:out\s+)?(?:of|von|sur|de|di|van|z)\s+(\d{1,2})\b", text[e:e + 16],
                             re.I)
            if after is not None and int(digits) <= int(after.group(1)) and \
                    _read_unit(text, e + after.end())[0] is None and \
                    text[e + after.end():e + after.end() + 1] not in ("/", "%", ".", ","):
                return "a position or a count out of a total (2 of 3)"
    in_of = _IN_OF_COUNT.match(text, e)
    if in_of is not None and _counted_noun_any(in_of.group(2)):
        return "a count out of a total (1 in 5 gauges)"
    if _POINT_SCALE.match(text, e):
        return "a self-assessment score (8 on a 10-point scale)"
    sc = _SCORE_SCALE.match(text, e)
    if sc is not None and int(digits) <= int(sc.group(1)) and \
            _SELF_SCORE_WORDS.search(text, max(0, s - 48), s):
        return "a self-assessment score (trust 4/5, 9 in 10)"
    m = _SCORE_OF.search(text, max(0, s - 12), s)
    if m is not None and digits in ("3", "4", "5", "10", "20", "100") and \
            int(m.group(1)) <= int(digits) and _read_unit(text, e)[0] is None and \
            _SELF_SCORE_WORDS.search(text, max(0, m.start() - 48), m.start()):
        return "a self-assessment score (trust 4/5, 9 in 10)"
    return None


_RATIO_AFTER = re.compile(r"\s+(?:too|larger|bigger|higher|greater|smaller|lower|more|less|"
                          r"as|the|that|this|its|over|faster|slower)\b")


def _one_noun(w: str) -> bool:
    """A singular word after "1" that is no unit and no function word: "1 call"."""
    return not w.endswith("s") and w not in _UNIT_STOP and w not in _NOT_COUNTED and \
        len(w) > 2 and _phrase(w) is None


def _counted_noun(w: str) -> bool:
    """A plural noun that is no unit: "calls", "readings", "figures" (not "feet", "cumecs");
    or a plural without an s: "people", "staff", "crew"."""
    if w in _IRREGULAR_PLURALS:
        return True
    return w.endswith("s") and len(w) > 3 and w not in _NOT_COUNTED and \
        w not in _UNIT_STOP and w not in _BARE_DEGREE and _phrase(w) is None and \
        _phrase(w[:-1]) is None


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
                a.unit = _phrase("ft")[0]
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


def _is_marker(text: str, s: int, e: int, close: str) -> bool:
    """A list or step marker ``n.`` / ``n)`` / ``(n)`` (the caller checked: at most two digits,
    then the closing mark and a space). It is one when the line before it holds only markdown
    marks (``**1. Levee crest``, ``### 2. ``, ``> - (3) ``), or, inline, when a word follows
    and the mark closes an enumeration: ``(1) Get the data. (2) Convert.`` (the bracket
    opened right before the number) or ``Plan: 1) read 2) compute`` (a ``)`` that closes no
    bracket of its line). A quantity is never written this way: ``(2 m)``, ``x 2)``."""
    line_start = text.rfind("\n", 0, s) + 1
    if not text[line_start:s].strip(" \t*_#>-+(|"):
        return True
    k = e + 1
    while k < len(text) and text[k] in "*_":
        k += 1
    word = text[k + 1:k + 2]
    if not word.isalpha():
        return False
    if close == "." and word.isupper():
        # inline numbered sentences: "... 35.4 m3/s. 3. Fetched the area: ..." (after the end
        # of a sentence or a heading's colon, the enumeration's neighbour written too)
        j = s - 1
        while j >= line_start and text[j] in " *_":
            j -= 1
        if j < line_start or text[j] in ".:;!?":
            n = int(text[s:e])
            return any(re.search(rf"(?<![\d.,]){v}\.[*_]*\s+[A-Z]", text) for v in (n - 1, n + 1)
                       if v >= 1)
        return False
    if close == ")" and text[s - 1:s] == "(":
        if text[max(line_start, s - 3):s - 1].strip(" *_") in ("", ".", ":", ";") or \
                text[s - 3:s - 1] in (". ", ": ", "; "):
            return True
        # in running text, a marker of a sequence: "pick one: (1) a time series, (2) a chart,
        # (3) an alert". The neighbour "(n-1)" or "(n+1)" is written in the same line, each a
        # bracketed number with a word after it (a quantity is never written "(2) a")
        line_end = text.find("\n", e)
        line = text[line_start:line_end if line_end >= 0 else len(text)]
        n = int(text[s:e])
        return any(re.search(rf"\({v}\)[*_]*\s+[A-Za-z]", line) for v in (n - 1, n + 1) if v >= 1)
    if close == ")" and text[s - 1:s] in (" ", ":"):
        before = text[line_start:s]
        return before.count("(") <= before.count(")")
    return False


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
            hit = _phrase(fields["unit"])
            if hit is not None:
                num.unit = hit[0]
                if "datum" in fields:
                    num.datum = canonical_datum(fields["datum"]) if _known_datum(
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
    num._src = text
    return num


def _is_ratio_unit(unit) -> bool:
    """A dimensionless unit made of two or more units (s/d, L/m3, m3/s per cfs): a factor."""
    return not any(unit.dims) and len(unit.terms) >= 2 and unit.scale != 1.0


def _code_before(text: str, k: int) -> bool:
    """An upper-case code ends at ``k`` ("RRL" of RRL-12, "USGS" of USGS-07374000)."""
    j = k
    while j > 0 and text[j - 1].isalnum():
        j -= 1
    word = text[j:k]
    return len(word) >= 2 and word.isupper()


def _op_before(text: str, s: int) -> str:
    k = s - 1
    while k >= 0:
        ch = text[k]
        if ch in " (\u00a0\u2009_":
            k -= 1
        elif ch == "*" and k > 0 and text[k - 1] == "*":
            k -= 2  # "**" is emphasis
        else:
            break
    if k >= 0 and text[k] in _MUL_OPS:
        if text[k] == "x" and k > 0 and text[k - 1].isalnum():
            return ""
        return text[k]
    return ""


def _op_after(text: str, e: int) -> str:
    k = e
    n = len(text)
    while k < n and text[k] in " )\u00a0\u2009":
        k += 1
    if k < n and text[k] in _MUL_OPS:
        if text[k] == "x" and k + 1 < n and text[k + 1].isalnum():
            return ""
        if text[k] == "*" and k + 1 < n and text[k + 1] == "*":
            return ""
        return text[k]
    return ""


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
                header_units = [_cell_unit(c[2], header=True) for c in cells]
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
                    unit = _cell_unit(cells[k + 1][2]) if k + 1 < len(cells) else None
                    if unit is None and k < len(units):
                        unit = units[k]
                    if unit is not None:
                        num.unit, num.datum = unit
                    break


def _cell_unit(content: str, header: bool = False):
    """(unit, datum) if a table cell is a unit, or (in a header) ends with one, else None."""
    text = content.strip().strip("*_` ")
    if not text:
        return None
    candidates = [text]
    if header:
        if text.endswith(")") and "(" in text:
            candidates.insert(0, text[text.rindex("(") + 1:-1])
        if "," in text:
            candidates.append(text.rsplit(",", 1)[1])
        parts = text.split()
        for k in range(1, min(4, len(parts))):
            candidates.append(" ".join(parts[-k:]))
    for c in candidates:
        hit = _phrase(c.strip())
        if hit is not None:
            return hit
    return None


def _reversed_words(words):
    """A pattern that matches reversed text ending with one of ``words`` as a whole word
    (trailing spaces ignored): "said" does not end with "id"."""
    alts = []
    for w in sorted(words, key=len, reverse=True):
        # a word that starts with a letter or digit must start at a word boundary
        alts.append(re.escape(w[::-1]) + (r"(?![^\W_])" if w[0].isalnum() else ""))
    return re.compile(r"\s*(?:" + "|".join(alts) + ")")


_ID_RX = _reversed_words(_ID_WORDS)
_LABEL_RX = _reversed_words(_LABEL_WORDS)
_DOTTED_LABEL_RX = _reversed_words(_DOTTED_LABEL_WORDS)
# "step 2 of 3", "call 1 of 2": the total of a numbered label (read reversed)
_OF_LABEL = re.compile(r"\s*fo\s+\d{1,2}\s+(?:pets|llac|tpmetta|trap|meti|noitaretI|noitareti|nur)(?![^\W_])")
_ANSWER_LABEL_RX = _reversed_words(_LABEL_WORDS + _ANSWER_LABEL_WORDS)
_NEG_RX = _reversed_words(_NEGATIVE_WORDS)
_HEDGE_RX = _reversed_words(_HEDGE_WORDS)


class Finding:
    """One number's verdict. ``note`` says why: the recorded output it matches, the operands
    and operator of a derivation, the factor or formula that explains it, or what was tried."""

    __slots__ = ("number", "status", "match", "_note")

    def __init__(self, number: Number, status: str, match=None, note="") -> None:
        self.number, self.status, self.match, self._note = number, status, match, note

    @property
    def note(self) -> str:
        """Why this status (written when first read: a callable until then)."""
        note = self._note
        if note.__class__ is not str:
            note = self._note = note()
        return note

    @note.setter
    def note(self, value) -> None:
        self._note = value

    def __repr__(self) -> str:
        return f"Finding({self.number.text!r}: {self.status}{' - ' + self.note if self.note else ''})"

    def as_dict(self) -> dict:
        return {"text": self.number.text, "value": self.number.value,
                "unit": self.number.unit.symbol if self.number.unit is not None else None,
                "status": self.status, "note": self.note, "match": _match_dict(self.match)}


def _match_dict(match):
    if match is None:
        return None
    if isinstance(match, tuple):
        return {"operands": [_match_dict(m) for m in match[:2]], "operator": match[2]}
    if isinstance(match, Number):
        return {"text": match.text, "value": match.value}
    if isinstance(match, Finding):
        return {"text": match.number.text, "status": match.status}
    label = getattr(match, "label", None)
    if label is not None:
        return {"label": label, "quantity": _show(match)}
    return {"text": str(match)}


class Audit:
    """The findings for one answer; ``ok`` is False if any is unsourced or unit_mislabelled.
    ``skipped`` lists (text, reason) for the digits that are not quantities."""

    # ``tainted``: the number is a recorded output (or derived from one) of a call that ran
    # although the ledger recorded a violation of its inputs (warn/off mode): the boundary
    # refused what it was computed from, so it is no source.
    BAD = ("unsourced", "unit_mislabelled", "tainted")

    def __init__(self, findings: list[Finding], skipped=()) -> None:
        self.findings = findings
        self.skipped = list(skipped)

    @property
    def ok(self) -> bool:
        return not any(f.status in self.BAD for f in self.findings)

    def by_status(self, status: str) -> list[Finding]:
        return [f for f in self.findings if f.status == status]

    def as_dict(self) -> dict:
        return {"ok": self.ok, "findings": [f.as_dict() for f in self.findings],
                "skipped": [{"text": t, "reason": r} for t, r in self.skipped]}

    def __repr__(self) -> str:
        counts: dict[str, int] = {}
        for f in self.findings:
            counts[f.status] = counts.get(f.status, 0) + 1
        return f"Audit(ok={self.ok}, {counts})"


_ACCEPTED = ("sourced", "derived", "quoted", "factor", "operand")
# ``discarded`` and ``hypothetical`` are accepted too, but explain nothing: they never stand
# for another number
# what the context may still explain (a factor, an operand, a range end); a tainted number
# stays tainted: no formula written around it makes its source sound
_REEXPLAIN = ("unsourced", "unit_mislabelled")


def _close(a: float, b: float, tol: float) -> bool:
    return abs(a - b) <= max(tol, 1e-9 * max(abs(a), abs(b)))


def audit_answer(ledger, answer: str, context: str | None = None) -> Audit:
    """Classify each number in ``answer`` against ``ledger``'s outputs and ``context``."""
    if answer is None:
        return Audit([])
    if not isinstance(answer, str):
        raise TypeError(f"audit_answer reads the answer's text: send a str, not "
                        f"{type(answer).__name__}")
    quoted = ledger.context_numbers() if context == ledger.context else \
        extract_numbers(context or "")
    # a count of discrete things ("1,240 customers", "one of 3 gauges") is only passed over when
    # no tool returned a plain count (a dimensionless output of factor 1): otherwise a wrong
    # count would be a wrong tool figure, and is read like any other
    # (looked at only when such a count is read)
    def counts() -> bool:
        return not any(e.unit.dimensionless and e.unit.factor == 1 and not e.unit.shift
                       for e in ledger.output_entries())
    reading = _scan(answer, True, frozenset(q.value for q in quoted), counts)
    polyphase = _polyphase(answer) or (_polyphase(context) if context else False)
    ctx = _Context(ledger, quoted, reading, polyphase)
    findings: list[Finding] = []
    seen: dict[tuple, Finding] = {}
    for num in reading.numbers:
        # the same literal written again gets the same reading
        key = (num.value, num.unit, num.datum, num.tolerance, num.negated, num.percent, num.sign)
        known = seen.get(key)
        if known is None:
            known = seen[key] = _classify(num, ctx)
        findings.append(known if known.number is num else
                        Finding(num, known.status, known.match, known._note))
    if any(f.status in Audit.BAD for f in findings):
        _explain_in_context(findings, ctx)
    if any(n.flat for n in reading.numbers):
        _flat_roundings(findings, ctx)
    if ledger.violation_count and any(f.status in Audit.BAD for f in findings):
        _discarded(findings, ctx)
    if any(f.status in Audit.BAD for f in findings) and \
            any(w in reading.text for w in _RETRACT_WORDS):
        _retracted(findings, ctx)
    if any(f.status in Audit.BAD and f.number.percent for f in findings):
        _elevation_shares(findings, ctx)
    if "=" in reading.text and "(" in reading.text and \
            any(f.status in Audit.BAD for f in findings):
        _call_arguments(findings, ctx)
    skipped = reading.skipped
    if any(f.status in Audit.BAD for f in findings):
        low = reading.text.lower()
        if ("would" in low or "could" in low or "might" in low or "'d " in low or "supp" in low or
                "hypothe" in low or "scenario" in low or "what if" in low) and _MODAL.search(low):
            _hypothetical(findings, ctx)
        if any(f.status == "unsourced" for f in findings) and (" of every " in low or
                                                               " of each " in low or
                                                               " in " in low):
            _odds(findings, ctx)
        if any(f.status == "unsourced" for f in findings):
            if ("year" in low or "yr" in low or "annu" in low or "month" in low or
                    "day" in low or "hour" in low or "week" in low or "ly " in low or
                    "daily" in low or "fortnight" in low or "24h" in low or "24 h" in low or
                    "24-h" in low or "min" in low) and \
                    _PERIOD_WORD.search(low):
                _per_period(findings, ctx)
            if any(w in low for w in _GENERAL_HINTS) and _GENERAL.search(reading.text):
                findings, skipped = _general(findings, ctx, skipped)
    if any(f.status == "unsourced" and f.number.unit is not None and
           f.number.unit.dims == _TIME for f in findings):
        findings, skipped = _durations(findings, ctx, skipped)
    return Audit(findings, skipped)


# a figure the answer does not claim: what a mistake would have given, or a what-if
_MODAL = re.compile(r"\b(?:would|could|might)\b|\w'd\b|\b(?:suppos(?:e|ing)|hypothetical(?:ly)?|"
                    r"scenario|what if)\b", re.I)
_COUNTERFACTUAL = re.compile(
    r"\bwould have\b|\bhad\b[^.;\n]{0,60}\b(?:been|read|used|passed|applied|taken|ignored)\b|"
    r"\bwithout (?:the|a|its|any) (?:[\w\u2192>/ -]{0,30})?(?:conversion|correction|offset|unit|"
    r"shift)|\b(?:which|that) (?:is|was|would be) (?:wrong|incorrect)|\bmix(?:es|ing)? (?:the )?"
    r"datums|\bdirectly\b|\btoo (?:high|large|low|small|big)\b|\boverstat|\bunderstat|"
    r"\bby mistake\b|\bwrongly\b|\bnaive(?:ly)?\b|\btoo (?:little|much|few|many)\b|"
    r"\b(?:treat|tak|read|mistak)(?:ing|en|e|ed)? [^.;\n]{1,30} as\b", re.I)
_WHAT_IF = re.compile(
    r"\bif\b|\bsustained\b|\bheld (?:for|over)\b|\bover (?:a|the) (?:full|whole)\b|\boverload|"
    r"\bwere\b|\bat \S{1,6} ?% (?:load|of)\b|\bat (?:the )?same\b|"
    r"\S{1,6} ?% (?:rise|increase|drop|fall|decrease|cut|higher|lower|more|less|over|under)|"
    r"\bat (?:half|a quarter|a third|double|twice)\b|"
    r"\bfor a (?:full |whole )?(?:day|week|month|year)\b|"
    r"\b(?:suppos(?:e|ing)|hypothetical(?:ly)?|scenario|what if)\b|"
    r"\b(?:halved|doubled|tripled|twice|double|half)\b|"
    r"\d\s?[^\s\d]{1,6}\s(?:lower|higher|less|more|shorter|longer|smaller|larger)\b|"
    r"\d\s?(?:\u00d7|x|times)\s+(?:the|its|that|this)\b", re.I)


def _hypothetical(findings: list[Finding], ctx: _Context) -> None:
    """A figure in a sentence that says it is hypothetical is no claim of the answer, when
    the answer also states its actual claim of that dimension elsewhere:

    - what a mistake would have given ("had the 1,250 been read as m3/s, the result would have
      been 3.6 mm/d"; "subtracting them directly would give 6.55 m, which mixes datums");
    - a what-if: its premise, a percentage or a duration ("if the load rose 10%", "at 80%
      load", "over a full 24 hours"), and its consequence when that is the actual figure
      scaled by the premise (55,440 kWh = 50,400 kWh x 1.1; 315 A = 393.6 A x 0.8). A premise
      that is a fact about the world ("if the load follows its usual evening peak of 9.1 MW")
      is a claim, and stays one.

    A modal alone ("abstracting would take 1.07%") is not enough: such figures are read as
    claims."""
    text = ctx.reading.text
    kinds: dict = {}

    def kind(n):
        a = max((m.end() for m in _SENTENCE_END.finditer(text, 0, n.nstart)), default=0)
        m = _SENTENCE_END.search(text, n.nend)
        b = m.start() if m else len(text)
        if (a, b) not in kinds:
            part = text[a:b]
            k = None
            if _MODAL.search(part):
                k = "counterfactual" if _COUNTERFACTUAL.search(part) else \
                    "what-if" if _WHAT_IF.search(part) else None
            kinds[(a, b)] = (k, a, b)
        return kinds[(a, b)]

    def dims_of(n):
        return power_dims(n.unit.dims) if n.unit is not None else ("%" if n.percent else None)

    actual: dict = {}
    for g in findings:
        if g.status in ("sourced", "derived", "quoted") and kind(g.number)[0] is None:
            actual.setdefault(dims_of(g.number), []).append(g.number)
    if not actual:
        return
    numbers = ctx.reading.numbers
    for i, f in enumerate(findings):
        n = f.number
        if f.status not in Audit.BAD:
            continue
        k, a, b = kind(n)
        if k is None:
            continue
        d = dims_of(n)
        if k == "counterfactual":
            ok = d in actual or n.percent
            why = "what a mistake would have given"
        elif n.percent or d == _TIME:
            ok, why = True, "the premise of a what-if"
        elif n.unit is None and _TIMES_AFTER.match(text, n.nend) and any(
                _scaled(g.number, base, (), ctx, [n.value])
                for g in findings if g is not f and a <= g.number.nstart < b
                for base in actual.get(dims_of(g.number), ())):
            # "2 \u00d7 the usual rate would be 0.204": a factor, with its consequence checked
            ok, why = True, "the factor of a what-if"
        else:
            premises = [p for p in numbers if a <= p.nstart < b and p is not n and
                        (p.percent or p.unit is not None and p.unit.dims == _TIME)]
            words = [_WORD_FACTORS[w.lower()] for w in _WORD_FACTOR.findall(text, a, b)] + \
                [p.value for p in numbers if a <= p.nstart < b and p is not n and
                 p.unit is None and not p.percent and _TIMES_AFTER.match(text, p.nend)]
            ok = any(_scaled(n, base, premises, ctx, words) for base in actual.get(d, ()))
            why = "the actual figure scaled by the premise of a what-if"
            if not ok and n.unit is not None:
                # an additive what-if: "a crest 1 ft lower would leave about 3.06 ft" (the
                # actual 4.06 ft less the premise); the premise is then no claim either
                steps = [p for p in numbers if a <= p.nstart < b and p is not n and
                         p.unit is not None and dims_of(p) == d and _ADDITIVE_AFTER.match(text, p.nend)]
                for p in steps:
                    if any(_shifted(n, base, p) for base in actual.get(d, ())):
                        ok, why = True, "the actual figure moved by the premise of a what-if"
                        j = next((k for k, g in enumerate(findings) if g.number is p), None)
                        if j is not None and findings[j].status in Audit.BAD:
                            findings[j] = Finding(p, "hypothetical", findings[j].match,
                                                  "the premise of a what-if: not a figure the "
                                                  "answer claims")
                        break
        if ok:
            findings[i] = Finding(n, "hypothetical", f.match,
                                  f"{why}: not a figure the answer claims (its claim of this "
                                  f"dimension is stated outside the sentence)")


_TIMES_AFTER = re.compile(r"\s?(?:\u00d7|x\b|times\b)", re.I)
_WORD_FACTOR = re.compile(r"\b(half|halved|quarter|third|double|doubled|twice|triple|tripled)\b",
                          re.I)
_WORD_FACTORS = {"half": 0.5, "halved": 0.5, "quarter": 0.25, "third": 1 / 3.0, "double": 2.0,
                 "doubled": 2.0, "twice": 2.0, "triple": 3.0, "tripled": 3.0}


_ADDITIVE_AFTER = re.compile(r"\s+(?:lower|higher|less|more|shorter|longer|smaller|larger|"
                             r"up|down|further|extra|above|below)\b", re.I)


def _shifted(n: Number, base: Number, p: Number) -> bool:
    """``n`` is ``base`` plus or minus the premise ``p`` (all with units of one dimension)."""
    want, have, step = _si(n.value, n.unit), _si(base.value, base.unit), _si(p.value, p.unit)
    tol = max(n.tolerance * n.unit.scale, 0.005 * abs(want))
    return abs(have + step - want) <= tol or abs(have - step - want) <= tol


def _scaled(n: Number, base: Number, premises, ctx, words=()) -> bool:
    """``n`` is ``base`` times a factor a premise gives: p% (x p/100, 1 + p/100, 1 - p/100) or a
    duration (its ratio to a duration of the question or of the answer)."""
    if not base.value:
        return False
    want = _si(n.value, n.unit) if n.unit is not None else n.value
    have = _si(base.value, base.unit) if base.unit is not None else base.value
    tol = max(n.tolerance * (n.unit.scale if n.unit is not None else 1.0), 0.005 * abs(want))
    factors = list(words)  # "at half load"
    durations = [q for q in ctx.quoted if q.unit is not None and q.unit.dims == _TIME] + \
        [p for p in ctx.reading.numbers if p.unit is not None and p.unit.dims == _TIME]
    for p in premises:
        if p.percent:
            f = p.value / 100.0
            factors += [f, 1 + f, 1 - f] + ([1 / (1 + f), 1 / (1 - f)] if f < 1 else [])
        else:
            t = p.value * p.unit.scale
            factors += [t / (q.value * q.unit.scale) for q in durations
                        if q is not p and q.value]
    return any(abs(have * c - want) <= tol for c in factors)


# background knowledge, not a figure of this case: "USGS rates most records as accurate to
# within 5-10%", "protection is typically set at around 125%", "design guidance often calls
# for at least 3 ft"
_GENERAL = re.compile(r"\b(?:typically|usually|often|generally|normally|commonly|as a rule|"
                      r"(?:is|are) (?:normal|typical|common|usual|standard)|"
                      r"rule of thumb|guidance|standard practice|in general|most (?:\w+ ){0,2}"
                      r"(?:records|gauges|stations|utilities|levees|rivers|feeders|transformers)|"
                      r"among the)\b", re.I)


_GENERAL_HINTS = ("typical", "usual", "often", "general", "normal", "common", "rule", "guidance",
                  "standard", "most ", "among")
_PERIOD_WORD = re.compile(r"year|\byr\b|annum|annual|month|week|day|hour|daily|hourly|fortnight|minute|\bmin\b|"
                          r"24[ -]?h")


_ODDS = re.compile(r"\s+(?:(?:out\s+)?of\s+(?:every|each)|in)\s+$", re.I)


def _odds(findings: list[Finding], ctx: _Context) -> None:
    """A share written as odds: "nearly 99 of every 100 litres stay in the river" (99 %, the
    complement of 1.07 %), "roughly 1 in 93 litres" (1/93 = 1.07 %): both numbers are accepted
    when their ratio, as a percentage, is a recorded percentage or its complement (the count
    M is exact; N is read to its written place)."""
    text = ctx.reading.text
    numbers = ctx.reading.numbers
    for i in range(len(numbers) - 1):
        a, b = numbers[i], numbers[i + 1]
        fa, fb = findings[i], findings[i + 1]
        if fa.status not in _REEXPLAIN and fb.status not in _REEXPLAIN or a.unit is not None \
                or a.percent or b.percent or not b.value or a.value >= b.value:
            continue
        if not _ODDS.match(text[a.nend:b.nstart]):
            continue
        pct = Number(f"{a.text} in {b.text}", 100.0 * a.value / b.value, None, None, a.start,
                     b.end, 100.0 * (min(a.tolerance, a.boundary_tol) / b.value if a.value != 1
                                     else b.boundary_tol / (b.value * b.value)),
                     True, False)
        pct._src = text
        hit = _classify(pct, ctx)
        if hit.status not in ("sourced", "derived"):
            continue
        for k, n in ((i, a), (i + 1, b)):
            if findings[k].status in _REEXPLAIN:
                findings[k] = Finding(n, "derived", hit.match,
                                      f"a share written as odds ({a.text} of {b.text}, "
                                      f"{pct.value:.4g} %): {hit.note}")


def _general(findings, ctx, skipped):
    """A number in a sentence that states background knowledge (typically, usually, often,
    guidance, as a rule) is about the world in general, not this case: nothing the ledger
    could source. It is skipped with its reason when flagged ``unsourced``."""
    text = ctx.reading.text
    kept, skipped = [], list(skipped)
    # never a figure of a dimension the tools return: "the flow is usually 11,500 cfs" is a
    # claim about this gauge
    recorded = {power_dims(e.unit.dims) for e in ctx.ledger.output_entries()}
    for f in findings:
        n = f.number
        dims = power_dims(n.unit.dims) if n.unit is not None else _DIMENSIONLESS
        if f.status == "unsourced":
            a = max((m.end() for m in _SENTENCE_END.finditer(text, 0, n.nstart)), default=0)
            m = _SENTENCE_END.search(text, n.nend)
            b = m.start() if m else len(text)
            if _GENERAL.search(text, a, b) and (
                    dims not in recorded or not _CASE_REFERENCE.search(text, a, b)):
                # of a dimension the tools return, only a statement about things in general
                # (no word in its sentence points at this case: "urban levees are commonly
                # designed with 3 ft of freeboard", but not "the flow is usually 11,500 cfs",
                # "flows here often exceed ...", "breakers at this voltage ...")
                skipped.append((n.text, "background knowledge (typically, usually, as a "
                                        "rule), not a figure of this case"))
                continue
        kept.append(f)
    return kept, skipped


# a word that points at the case an answer is about: a general statement has none
_CASE_REFERENCE = re.compile(
    r"\b(?:this|these|that|those|here|today|tonight|now|currently|at present|right now|at the "
    r"moment|its|our|your|the (?:gauge|gage|river|site|station|feeder|bus|transformer|levee|crest|"
    r"flow|discharge|level|licen[cs]e|catchment|basin|reservoir|stage|forecast|answer|result|"
    r"reading|value|figure|current|load|area|depth|threshold|runoff|share|freeboard|rating|"
    r"circuit|line|abstraction|intake|peak|energy|power|voltage)s?)\b", re.I)


# a figure per month or per year, which the unit kernel does not name: "37 mm/yr",
# "3.1 mm a month", "16,400 megalitres a year", "1,350 Ml over a 30-day month"
_PERIOD_AFTER = re.compile(r"[ \u00a0]*(?P<unit>[^\s\d/.,;:!?()]{1,12})?(?:[ \u00a0]+[a-z]+){0,4}?"
                           r"[ \u00a0]*(?:(?:/|per|a full|a whole|an entire|the whole|the full|"
                           r"a complete|a|an|each|every|over a|in a|in|over|for|during|"
                           r"in each|in every|over each)[ \u00a0]*"
                           r"(?:(?P<n>\d{1,3}-day )|(?P<d>\d{1,3}) )?"
                           r"(?P<p>year|yr|annum|month|mo|fortnight|week|day|hour|minute|min)s?\b|"
                           r"(?P<adj>annually|yearly|monthly|fortnightly|weekly|daily|hourly)\b)", re.I)
_PERIOD_BEFORE = re.compile(r"\b(?:(?P<adj>annuali[sz]ed|annual|yearly|monthly|fortnightly|weekly|daily|"
                            r"hourly)|(?:per|each|every|a|an|one|over a|in a|a full|full|over the|"
                            r"in each|in every|over each|in one|over one|a whole|an entire|the whole)"
                            r"\s+(?:(?P<bn>\d{1,3})[- ]day\s+)?"
                            r"(?P<p>year|annum|month|fortnight|week|day|hour|24[ -]?(?:hours|hour|h|hr))"
                            r"(?:'s)?)\b[^.\n]{0,44}$", re.I)
_PERIOD_DAYS = {"year": (365.0, 366.0), "yr": (365.0, 366.0), "annum": (365.0, 366.0),
                "month": (28.0, 31.0), "mo": (28.0, 31.0), "week": (7.0, 7.0),
                "day": (1.0, 1.0), "hour": (1 / 24.0, 1 / 24.0), "fortnight": (14.0, 14.0),
                "minute": (1 / 1440.0, 1 / 1440.0), "min": (1 / 1440.0, 1 / 1440.0)}
_PERIOD_ADJ = {"annualised": "year", "annualized": "year", "annual": "year", "yearly": "year",
               "annually": "year", "monthly": "month", "weekly": "week", "daily": "day",
               "hourly": "hour", "fortnightly": "fortnight"}


def _per_period(findings: list[Finding], ctx: _Context) -> None:
    """A rate recorded per day (or second) restated as an amount per month or year: the
    amount over that period is the accepted rate times the period's days (a month 28 to 31
    days, a year 365 or 366, or the N written: "a 30-day month")."""
    text = ctx.reading.text
    # the recorded rates (an answer may restate one it never wrote per day)
    rates = [e for e in ctx.ledger.output_entries() if e.magnitude.__class__ is float and
             not e.unit.shift and e.datum is None]
    if not rates:
        return
    day = 86400.0
    for i, f in enumerate(findings):
        n = f.number
        if f.status != "unsourced":
            continue
        m = _PERIOD_AFTER.match(text, n.nend)
        unit = n.unit
        if m is not None and unit is None and m.group("unit"):
            hit = _phrase(m.group("unit"))
            unit = hit[0] if hit is not None else None
        period = None
        if m is not None and m.group("adj"):  # "0.7 mm weekly"
            period = _PERIOD_ADJ[m.group("adj").lower()]
            lo, hi = _PERIOD_DAYS[period]
        elif m is not None:
            period = m.group("p").lower()
            lo, hi = _PERIOD_DAYS[period]
            if m.group("n"):
                lo = hi = float(m.group("n").split("-")[0])
            elif m.group("d"):  # "per 30 days"
                lo, hi = lo * float(m.group("d")), hi * float(m.group("d"))
        elif unit is not None:
            b = _PERIOD_BEFORE.search(text, max(0, n.nstart - 48), n.nstart)
            if b is None:
                continue
            period = (b.group("p") or _PERIOD_ADJ[b.group("adj").lower()]).lower()
            if period[:2] == "24" or period == "annum":  # "every 24 hours": a day
                period = "day" if period[:2] == "24" else "year"
            lo, hi = _PERIOD_DAYS[period]
            if b.group("bn"):  # "over a 30-day month"
                lo = hi = float(b.group("bn"))
        else:
            continue
        if unit is None or unit.shift:
            continue
        amount = n.value * unit.scale
        tol = max(n.tolerance * unit.scale, 1e-12)
        dims = power_dims(unit.dims)
        for r in rates:
            if tuple(x - y for x, y in zip(dims, power_dims(r.unit.dims))) != _TIME:
                continue
            per_day = r.si * day
            if per_day and lo * per_day - tol <= amount <= hi * per_day + tol:
                findings[i] = Finding(n, "derived", r,
                                      f"{_show(r)} over a {period} ({lo:g}-{hi:g} days): an "
                                      f"amount per period")
                break


_SCHEDULE_BEFORE = re.compile(r"\b(?:every|each|once every|once each)\s+(?:(?:about|roughly|some|"
                              r"approximately|~)\s+)?$|\bevery\s+[\w -]{1,20}\(\s*$", re.I)


def _durations(findings, ctx, skipped):
    """A duration ("updates every 5 minutes", "retry in 10-15 minutes", "over 24 hours") in an
    answer whose tools return no time and whose outputs give none in one product or ratio
    (a runoff depth, a freeboard) is no figure the ledger could ever check: it is skipped,
    with its reason, rather than flagged. Where a time can be derived (a volume over a rate,
    an energy over a power) a duration stays a claim."""
    derivable = any(e.unit.dims == _TIME for e in ctx.ledger.output_entries()) or \
        _TIME in ctx.reachable() or ctx.given(_TIME)
    if derivable:
        # where a time can be derived, a duration is a claim, except the interval of a
        # schedule: "updates every 15 min", "refreshes every quarter hour (15 minutes)", "each
        # 5 minutes" (how often data come, never how long something ran)
        text = ctx.reading.text
        kept, skipped = [], list(skipped)
        for f in findings:
            n = f.number
            if f.status == "unsourced" and n.unit is not None and n.unit.dims == _TIME and \
                    _SCHEDULE_BEFORE.search(text, max(0, n.nstart - 40), n.nstart):
                skipped.append((n.text, "the interval of a schedule (every 15 min), not a "
                                        "duration the answer claims"))
                continue
            kept.append(f)
        return kept, skipped
    kept, skipped = [], list(skipped)
    numbers = ctx.reading.numbers
    for i, f in enumerate(findings):
        n = f.number
        bare_end = f.status == "unsourced" and n.unit is None and i + 1 < len(numbers) and \
            numbers[i + 1].unit is not None and numbers[i + 1].unit.dims == _TIME and \
            _RANGE_BETWEEN.fullmatch(ctx.reading.text, n.nend, numbers[i + 1].nstart)
        if f.status == "unsourced" and (n.unit is not None and n.unit.dims == _TIME or bare_end):
            skipped.append((n.text, "a duration, and no tool returns a time (nothing to check "
                                    "it against)"))
            continue
        kept.append(f)
    return kept, skipped


# between a precise figure and its rounding written as a restatement: "393.6 A (400 A)",
# "393.6 A, or 400 A", "393.6 A, i.e. 400 A", "393.6 A, rounded to 400 A"
_RESTATED = re.compile(r"[\s*_]*(?:[(\[\u2192]|,?\s*(?:or|i\.e\.?|ie|that is|rounded(?: up| down)?"
                       r"(?: to)?|rounds to|to one (?:significant )?figure)\b|[=\u2248~])", re.I)


def _flat_roundings(findings: list[Finding], ctx: _Context) -> None:
    """A one-significant-figure number stated without a hedge ("400 A") is read as a rounding
    (half its last place, at most 10%). When the answer also writes a more precise figure that
    it would round (393.6 A), it is not that figure's rounding but a separate claim ("393.6 A,
    within the 400 A rating"), unless written as its restatement ("393.6 A (400 A)"): it is
    then read to its next place (400 covers 395..405) and classified again."""
    text = ctx.reading.text
    for i, f in enumerate(findings):
        n = f.number
        if not n.flat or f.status not in ("sourced", "derived"):
            continue
        numbers = ctx.reading.numbers
        if i and _RANGE_BETWEEN.fullmatch(text, numbers[i - 1].nend, n.nstart) or \
                i + 1 < len(numbers) and _RANGE_BETWEEN.fullmatch(text, n.nend,
                                                                   numbers[i + 1].nstart):
            continue  # an end of a range ("390-400 A") is no figure stated on its own
        for j, g in enumerate(findings):
            p = g.number
            if j == i or p.sig1 or p.tolerance >= n.tolerance or g.status not in _ACCEPTED or \
                    p.percent != n.percent or (p.unit is None) != (n.unit is None):
                continue
            if n.unit is None:
                near = abs(p.value - n.value) <= n.tolerance
            else:
                near = p.unit.dims == n.unit.dims and not n.unit.shift and not p.unit.shift and \
                    abs(p.value * p.unit.scale - n.value * n.unit.scale) <= n.tolerance * n.unit.scale
            if not near:
                continue
            a, b = (p, n) if p.nstart < n.nstart else (n, p)
            if _RESTATED.match(text, a.nend, b.nstart) and b.nstart - a.nend <= 24:
                continue
            if not _RATING_AFTER.match(text, n.nend) and \
                    not _RATING_BEFORE.search(text, max(0, n.nstart - 16), n.nstart):
                continue  # "That leaves 4 ft." beside 4.06 ft: its rounding, said again
            again = _classify(n.widened(n.flat), ctx)
            if again.status in _ACCEPTED:
                findings[i] = Finding(n, again.status, again.match, again._note)
            else:
                findings[i] = Finding(
                    n, "unsourced", f.match,
                    f"{n.text} is stated flat beside the precise {p.text} the answer writes: "
                    f"a separate figure, not its rounding (a rounding is said so: about, ~, "
                    f"\u2248), and no recorded output matches it to its next place")
            break


# words that present a figure as an attempt given up: the first call, a mistake, a refusal
_DISCARD = re.compile(
    r"\b(?:first|initial(?:ly)?|earlier|previous(?:ly)?|original(?:ly)?|prior|old)\s+"
    r"(?:\w+\s+)?(?:call|attempt|run|try|result|output|value|pass|request|input|reading|"
    r"figure|answer)s?\b|\b(?:initially|originally|previously|at first|first time)\b|"
    r"\battempt|\bmistak|\bwrong(?:ly)?\b|\bincorrect|\berroneous|\berror\b|\binvalid|"
    r"\brefus|\breject|\bdiscard|\bignor|\binstead of\b|\brather than\b|\bin place of\b|"
    r"\breplac|\b(?:correct|fix|chang|updat)(?:ed|ing)?\s+(?:\w+\s+){0,3}from\b|"
    r"\bre-?(?:ran|run|tried|try|issued|did)|\bretr(?:y|ied)|\bsupersed|\bbogus|\bunconverted|"
    r"\bwithout (?:a|the|its|any) units?\b|\bno units?\b|\bbare (?:number|value)|\bmis(?:read|typed|labell?ed)|"
    r"\bnot (?:the |a )?(?:correct|right|valid|usable)\b|\bshould(?: not)? have\b|"
    # a pasted log line or error message of the refused call: "ERR received the bare number
    # 1250, which this tool reads as 1250 m3/s", "WARN runoff_depth" (upper case only: a flood
    # "warning" is no log level)
    r"(?-i:\bERR\b|\bWARN\b)|\bbare number\b|\breads (?:it )?as\b",
    re.I)
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[;\n]")


def _discarded(findings: list[Finding], ctx: _Context) -> None:
    """A figure the answer presents as the attempt it gave up (warn/off mode: "my first call
    returned 3.61 mm/d, which was wrong; rerun with 35.4 m3/s it is 0.102 mm/d"; or an input
    it says it corrected) is not its claim: a ``tainted`` output, or a figure that is the
    input of a call with a recorded violation, whose sentence says so, is ``discarded`` when
    the answer also gives the accepted figure of the same dimension that replaces it. A
    tainted figure stated as the result (no such words in its sentence, or nothing replacing
    it) stays flagged."""
    ledger = ctx.ledger
    text = ctx.reading.text
    bad_inputs = None
    for i, f in enumerate(findings):
        if f.status not in Audit.BAD:
            continue
        n = f.number
        why = None
        if f.status == "tainted":
            why = "the output of a call whose input was refused or has no source"
        else:
            if bad_inputs is None:
                bad_inputs = _violating_inputs(ledger)
            e = _matching_input(n, bad_inputs)
            if e is not None:
                why = f"the input {e.label} = {_show(e)} of a call whose inputs were refused"
        if why is None:
            continue
        a = max((m.end() for m in _SENTENCE_END.finditer(text, 0, n.nstart)), default=0)
        m = _SENTENCE_END.search(text, n.nend)
        b = m.start() if m else len(text)
        # a word that says so, nearer to this number than to any other of its sentence
        # ("Runoff: 3.61 mm/d (0.102 mm/d on the retry)": the retry is the other figure's)
        dims = power_dims(n.unit.dims) if n.unit is not None else None
        if dims is None and getattr(f.match, "unit", None) is not None:
            dims = power_dims(f.match.unit.dims)  # "ignore the 3.6 from my first call"
        # a word that says so, with no figure that replaces it (accepted, of the same
        # dimension) between the word and this number ("Runoff: 3.61 mm/d (0.102 mm/d on
        # the retry)": the retry is the other figure's)
        between = [g.number for g in findings if g.status in _ACCEPTED and
                   g.number.unit is not None and power_dims(g.number.unit.dims) == dims and
                   a <= g.number.nstart < b]
        marker = None
        for mk in _DISCARD.finditer(text, a, b):
            lo, hi = (mk.end(), n.nstart) if mk.start() < n.nstart else (n.nend, mk.start())
            if not any(lo <= p.nstart < hi for p in between):
                marker = mk
                break
        if marker is None:
            continue
        for g in findings:
            p = g.number
            if g.status in _ACCEPTED and (p.percent == n.percent or n.unit is None) and \
                    (power_dims(p.unit.dims) if p.unit is not None else None) == dims and \
                    not _close(p.value, n.value, max(p.tolerance, n.tolerance)):
                word = marker.group().strip()
                findings[i] = Finding(
                    n, "discarded", f.match,
                    f"presented as an attempt given up ({word!r}): {why}; the answer gives "
                    f"{p.text} in its place")
                break


# A figure the answer withdraws itself. Two kinds of words: those that withdraw the figure
# written just before them ("1,205 cfs - a typo", "3.6 mm/d ...; disregard it", "92.6% - not the
# answer", "29,490 as I first typed"), and those that withdraw the figure just after them
# ("Earlier I said 0.52 m", "I first wrote 1,205", "ignore the 3.6 mm/d"). Words that bring the
# replacing figure ("Correction: the area is ...", "it should read ...") withdraw nothing.
_RETRACT_BEFORE = re.compile(
    r"\b(?:typo|mis-?typ\w*|transpos\w*|slip of the (?:pen|keyboard)|disregard (?:it|that|this)|"
    r"ignore (?:it|that|this)|scratch that|strike that|scrap that|not the answer|isn't the answer|"
    r"(?:is|was|were) (?:wrong|incorrect|a mistake|an error)|in error|by mistake|my mistake|"
    r"as I (?:first|initially|earlier|originally|wrongly|mistakenly) (?:typed|wrote|said|gave|put|"
    r"stated|quoted)|(?:now )?(?:withdrawn|retracted)|should be (?:ignored|disregarded))\b", re.I)
_RETRACT_AFTER = re.compile(
    r"\b(?:earlier I|I (?:first|initially|earlier|previously|originally|wrongly|mistakenly)|"
    r"previously I|at first I)\s+(?:had\s+)?(?:said|wrote|typed|gave|put|stated|quoted|reported|"
    r"gave you)\b|\b(?:ignore|disregard|scrap|discard|drop) the\b|\b(?:my|the|an?) (?:earlier |"
    r"first |previous )?draft (?:said|had|gave|read|stated|showed)\b|"
    r"\bnot\s*$|"
    # a misreading named as one: "which this tool reads as 1250 m3/s", "misread as 90 VA"
    r"\bwhich (?:this|the|that) (?:tool|service|call|function) (?:reads|treats|takes|interprets)"
    r"(?: it)? as\s*$|\b(?:would|could|might) (?:be )?(?:read|interpreted|treated|taken)(?: it)? as\s*$|"
    r"\bmis(?:read|interpreted|taken) as\s*$", re.I)
_RETRACT_HINT = re.compile(r"typo|typ(?:ed|ing)|transpos|disregard|ignore|scratch|strike|scrap|"
                           r"not the answer|isn't the answer|wrong|incorrect|mistake|in error|"
                           r"withdrawn|retracted|earlier I|I (?:first|initially|earlier|"
                           r"previously|originally)|previously I|at first I|discard|drop the|"
                           r"draft|\bnot\b| as\b",
                           re.I)
# every withdrawing phrase above holds one of these (checked with `in` before the pass runs)
_RETRACT_WORDS = ("not ", " as ", " I ", "wrong", "typ", "transpos", "isregard", "gnore", "cratch",
                  "trike", "crap", "answer", "ncorrect", "istake", "error", "ithdrawn", "etracted",
                  "I first", "iscard", "rop the", "raft", "Not ", "slip", "I initially",
                  "I earlier", "I previously", "I originally", "I wrongly", "I mistakenly")
_RETRACT_SENTENCE = re.compile(r"[.!?](?=\s|$)|\n")


def _retracted(findings: list[Finding], ctx: _Context) -> None:
    """A flagged figure the answer itself withdraws (see _RETRACT_BEFORE and _RETRACT_AFTER),
    nearest to the withdrawing words with no figure between, is ``discarded`` when the answer
    also states an accepted figure that replaces it: of the same dimension, or a bare number
    within a factor of ten in the same sentence ("... a typo; the gauge reads 1,250"). A figure
    withdrawn with nothing in its place stays flagged, and so does a figure the words do not
    point at ("the area is 29,490 km2 (not a typo)")."""
    text = ctx.reading.text
    nums = sorted((f.number for f in findings), key=lambda n: n.nstart)
    for i, f in enumerate(findings):
        if f.status not in Audit.BAD:
            continue
        n = f.number
        a = max((m.end() for m in _RETRACT_SENTENCE.finditer(text, 0, n.nstart)), default=0)
        m = _RETRACT_SENTENCE.search(text, n.nend)
        b = m.start() if m else len(text)
        marker = None
        for mk in _RETRACT_BEFORE.finditer(text, n.nend, b):
            if re.search(r"\b(?:not|no|never)\s+(?:an?\s+)?$", text[max(0, mk.start() - 8):mk.start()]):
                continue  # "not a typo"
            if not any(n.nend <= p.nstart < mk.start() for p in nums):
                marker = mk
            break
        if marker is None:
            for mk in _RETRACT_AFTER.finditer(text, a, n.nstart):
                if not any(mk.end() <= p.nstart < n.nstart for p in nums):
                    marker = mk
        if marker is None:
            continue
        dims = power_dims(n.unit.dims) if n.unit is not None else None
        for g in findings:
            p = g.number
            if g.status not in _ACCEPTED or p is n or p.unit == n.unit and \
                    _close(p.value, n.value, max(p.tolerance, n.tolerance)):
                continue  # (the same figure again replaces nothing; "132 V; it is 132 kV" does)
            pd = power_dims(p.unit.dims) if p.unit is not None else None
            same = pd == dims and p.percent == n.percent and (dims is not None or n.percent)
            # a figure of the same sentence within a factor of ten, one of them bare ("the
            # gauge reads 1,250"; "the area is 29,940 km2, not 29,490")
            near = (pd is None or dims is None) and not p.percent and not n.percent and \
                a <= p.nstart < b and n.value != 0 and 0.1 <= abs(p.value / n.value) <= 10.0
            if same or near:
                findings[i] = Finding(
                    n, "discarded", f.match,
                    f"withdrawn by the answer itself ({marker.group().strip()!r}); it gives "
                    f"{p.text} in its place")
                break


# a call written out, with this number as one of its arguments: "energy_delivered(power=8400,"
_CALL_ARGUMENT = re.compile(r"\b[A-Za-z_][\w.]*\((?:[^()\n]*?,)?\s*[A-Za-z_]\w*\s*=\s*$")


def _call_arguments(findings: list[Finding], ctx: _Context) -> None:
    """A bare number written as an argument of a call (``tool(name=8400, ...)``, a pasted log)
    that is what a recorded call received (its converted input, as the ledger holds it) is
    quoted from the ledger, not claimed; any other argument stays flagged."""
    text = ctx.reading.text
    ledger = ctx.ledger
    for i, f in enumerate(findings):
        n = f.number
        if f.status not in Audit.BAD or n.unit is not None or n.percent:
            continue
        line = max(text.rfind("\n", 0, n.nstart), n.nstart - 160, 0)
        if not _CALL_ARGUMENT.search(text, line, n.nstart):
            continue
        tol = max(n.tolerance, 1e-9 * abs(n.value))
        for e in ledger.outputs_in_range(n.value, tol, "input"):
            if _close(n.value, e.magnitude, tol):
                findings[i] = Finding(n, "sourced", e,
                                      lambda e=e: f"an argument of a call written out: "
                                                  f"{e.label} received {_show(e)}")
                break


_PCT_OF = re.compile(r"\s*(?:of|of the|of its)\b", re.I)
_PCT_BY = re.compile(r"\bby\s+(?:about\s+|roughly\s+|some\s+|around\s+|~\s*|\u2248\s*)?$", re.I)
_PCT_APPOSITION = re.compile(r"\d\s?[^\s\d,;()]{1,8}\s*[,(]\s*(?:about|roughly|around|some|nearly|"
                             r"~|\u2248|or|i\.e\.)?\s*$", re.I)
_PCT_RISE = re.compile(r"\b(?:rise|increase|growth|jump|climb|gain)\s+(?:of|by)\s+(?:about\s+|"
                       r"roughly\s+|some\s+|around\s+|~\s*|\u2248\s*)?$", re.I)
_PCT_FALL = re.compile(r"\b(?:drop|fall|decrease|decline|reduction|cut|loss)\s+(?:of|by)\s+(?:about\s+|"
                       r"roughly\s+|some\s+|around\s+|~\s*|\u2248\s*)?$", re.I)
_PCT_BELOW = re.compile(r"\s*(?:\w+\s+){0,2}?(?:below|under|beneath|short|lower|less|down)\b", re.I)
_PCT_ABOVE = re.compile(r"\s*(?:\w+\s+){0,2}?(?:above|over|higher|more|up|beyond)\b", re.I)


def _elevation_shares(findings: list[Finding], ctx: _Context) -> None:
    """A percentage that is a share of two recorded lengths, at least one of them an elevation
    or a datum offset: "the freeboard is ~13% of the crest elevation", "the level is at 97% of
    the threshold", "the datum shift is 11% of the freeboard", "2.7% below the threshold".
    Products and ratios leave elevations out (a height above a datum times anything has no
    meaning), but a share between two of them is what answers write to give a sense of scale:
    the share (a/b), its complement (1 - a/b, "2.7% below") and its excess (a/b - 1) are
    read, to the precision written. Recorded outputs and converted elevations only: a share of
    a question's number is not a recorded ratio."""
    ledger = ctx.ledger
    text = ctx.reading.text
    offsets = ledger.datum_offsets()
    lengths = [e for e in chain(ledger.output_entries(), ledger.converted_elevations())
               if e.unit.dims == _LENGTH and not e.unit.shift and e.si and math.isfinite(e.si)]
    if not any(e.datum is not None or id(e) in offsets for e in lengths):
        return
    for i, f in enumerate(findings):
        n = f.number
        if f.status not in Audit.BAD or not n.percent or n.unit is not None:
            continue
        v, tol = abs(n.value), max(n.tolerance, 1e-9)
        # the sentence says which share it is: "13% of the crest", "by 10%" (a/b); "2.7%
        # below the threshold" (1 - a/b); "17% above the river" (a/b - 1). A percentage that
        # names nothing it is a share of is not read this way.
        after = text[n.nend:n.nend + 40]
        forms = []
        before = text[max(0, n.nstart - 32):n.nstart]
        if _PCT_OF.match(after) or _PCT_BY.search(before) or _PCT_APPOSITION.search(before):
            forms.append("")  # (apposition: "reduces it by 0.44 ft, about 10%")
        if _PCT_BELOW.match(after) or _PCT_FALL.search(before):
            forms.append("100% - ")
        if _PCT_ABOVE.match(after) or _PCT_RISE.search(before):
            forms.append(" - 100%")
        if not forms:
            continue
        hit = None
        for a in lengths:
            for b in lengths:
                if a is b or not (a.datum is not None or b.datum is not None or
                                  id(a) in offsets or id(b) in offsets):
                    continue
                r = 100.0 * abs(a.si / b.si)
                for share, how in ((r, ""), (100.0 - r, "100% - "), (r - 100.0, " - 100%")):
                    if how in forms and share > 0 and abs(share - v) <= tol:
                        hit = (a, b, how)
                        break
                if hit:
                    break
            if hit:
                break
        if hit is not None:
            a, b, how = hit
            findings[i] = Finding(
                n, "derived", (a, b, "\u00f7"),
                f"a share of two recorded lengths, one an elevation or a datum offset: "
                f"{how.lstrip(' -') if how.startswith('100') else ''}{_name(a)} / {_name(b)}"
                f"{how if how.startswith(' ') else ''} = {fmt_g(100.0 * a.si / b.si)}%")


def _gap(m, n: Number) -> int:
    """Characters between a match and a number."""
    return m.start() - n.nend if m.start() >= n.nend else max(0, n.nstart - m.end())


def _violating_inputs(ledger) -> list:
    """The recorded inputs of calls with a recorded violation (blocked or not), the field
    the violation names when it names one."""
    by_call: dict = {}
    for v in ledger.violations:
        field = (v.get("field") or "").rsplit(".", 1)[-1]
        by_call.setdefault(v["call"], set()).add(field)
    out = []
    inputs = ledger.call_inputs()
    for call, fields in by_call.items():
        for e in inputs.get(call, ()):
            if "" in fields or e.field in fields:
                out.append(e)
    return out


def _matching_input(n: Number, entries):
    for e in entries:
        if e.magnitude.__class__ is not float:
            continue
        if n.unit is not None:
            if e.unit.dims == n.unit.dims and \
                    _close(_si(n.value, n.unit), e.si, n.tolerance * n.unit.scale):
                return e
        elif _close(n.value, e.magnitude, n.tolerance):
            return e
    return None


def _text(note) -> str:
    return note if note.__class__ is str else note()


def _si(value: float, unit) -> float:
    return value * unit.scale + unit.shift


def _show(e) -> str:
    q = getattr(e, "q", None)
    if q is not None:
        return f"{fmt_g(q.magnitude)} {q.unit.symbol}" + (f" {q.datum}" if q.datum else "")
    if isinstance(e, Number):
        return e.text
    return str(e)


def _name(e) -> str:
    if isinstance(e, Number):
        return f"the question's {e.text}"
    return e.label


class _Context:
    """One audit's look-ups: the ledger, the question's numbers, the answer as read, and
    (built on first use) the operands of products and ratios, constants and unit factors."""

    __slots__ = ("ledger", "quoted", "reading", "_operands", "_constants", "_reach", "_given",
                 "polyphase")

    def __init__(self, ledger, quoted, reading, polyphase=False) -> None:
        self.ledger, self.quoted, self.reading = ledger, quoted, reading
        self._operands: dict | None = None
        self._constants: list | None = None
        self._reach: set | None = None
        self._given: dict | None = None
        #: the question or the answer names a polyphase system (see _POLYPHASE)
        self.polyphase = polyphase

    def given(self, dims) -> list:
        """The question's numbers with a unit of ``dims``."""
        if self._given is None:
            self._given = {}
            for q in self.quoted:
                if q.unit is not None:
                    self._given.setdefault(q.unit.dims, []).append(q)
        return self._given.get(dims, ())

    def reachable(self) -> set:
        """The dimensions one product or ratio of two operands (or one operand and a
        constant) can have: a number of any other dimension needs no search."""
        if self._reach is None:
            index = self.operands()
            key = ("reach", tuple(sorted(index)), self.ledger._count)
            reach = self.ledger._views.get(key)
            if reach is None:
                reach = set()
                dims = list(index)
                for a in dims:
                    for b in dims:
                        reach.add(tuple([x + y for x, y in zip(a, b)]))
                        reach.add(tuple([x - y for x, y in zip(a, b)]))
                self.ledger._views[key] = reach
            self._reach = reach
        return self._reach

    def constants(self) -> list:
        """(name, value) of the constants the answer writes, each also as its reciprocal."""
        if self._constants is None:
            out = [("", 1.0)]
            found = set(self.reading.constants)
            for num in self.reading.numbers:
                if num.unit is None and (num.op_before or num.op_after):
                    for name, c in _CONSTANTS:
                        if _close(abs(num.value), c, num.tolerance):
                            found.add(name)
            for name, c in _CONSTANTS:
                if name in found:
                    out += [(_CONSTANT_TEXT[name], c), (f"1/{_CONSTANT_TEXT[name]}", 1.0 / c)]
            self._constants = out
        return self._constants

    def operands(self) -> dict:
        """{dimension: (sorted log10 |SI value|, [(SI value, entry or question number)])}:
        recorded outputs and the question's numbers with units, elevations excluded."""
        if self._operands is None:
            base = self.ledger.product_operands()
            extra = [q for q in self.quoted
                     if q.unit is not None and q.datum is None and not q.unit.shift
                     and q.value != 0 and math.isfinite(q.value * q.unit.scale)]
            if extra:
                key = ("operands", tuple((q.value, q.unit, q.text) for q in extra),
                       self.ledger._count)
                merged = self.ledger._views.get(key)
                if merged is None:
                    groups = {k: list(zip(v[0], v[1])) for k, v in base.items()}
                    for q in extra:
                        si = q.value * q.unit.scale
                        groups.setdefault(power_dims(q.unit.dims), []).append(
                            (math.log10(abs(si)), (si, q)))
                    merged = {}
                    for k, pairs in groups.items():
                        pairs.sort(key=lambda p: p[0])
                        merged[k] = ([p[0] for p in pairs], [p[1] for p in pairs])
                    self.ledger._views[key] = merged
                base = merged
            self._operands = base
        return self._operands


_CONSTANTS = (("sqrt2", math.sqrt(2.0)), ("sqrt3", math.sqrt(3.0)), ("pi", math.pi))
_CONSTANT_TEXT = {"sqrt2": "\u221a2", "sqrt3": "\u221a3", "pi": "\u03c0"}


def _in_formula(num: Number, text: str) -> bool:
    """Written in arithmetic: next to an operator, an equals sign or a bracket of a formula."""
    if num.op_before or num.op_after:
        return True
    k = num.nstart - 1
    while k >= 0 and text[k] in " \u00a0\u2009*_$":
        k -= 1
    if k >= 0 and text[k] in "=\u2248(":
        return True
    k, n = num.nend, len(text)
    while k < n and text[k] in " \u00a0\u2009*_$":
        k += 1
    return k < n and text[k] in "=\u2248)"


def power_dims(dims: tuple) -> tuple:
    """A dimension for arithmetic: apparent and reactive power (VA, var) are powers (W)."""
    if len(dims) > 8 and (dims[7] or dims[8]):
        k = dims[7] + dims[8]
        d = list(dims)
        d[7] = d[8] = 0
        d[0] += 2 * k
        d[1] += k
        d[2] -= 3 * k
        return tuple(d)
    return dims


def _leading_one(x: float) -> bool:
    m = abs(x) / 10.0 ** math.floor(math.log10(abs(x)))
    return 0.9999 < m < 1.0001


_SIGNED_BELOW = re.compile(r"[\s(,]{0,3}(?:(?:i\.e\.|that is|so),?\s+)?(?:below|under|beneath|short)\b",
                           re.I)


def _classify(num: Number, ctx: _Context) -> Finding:
    """Index look-ups only (by magnitude, by SI value, sorted pairs and sorted log-magnitudes):
    the cost of a number does not grow with the ledger beyond the pair window."""
    ledger, quoted = ctx.ledger, ctx.quoted
    values = (num.value, -num.value) if num.negated else (num.value,)
    # the precision written, and never less than a float's own margin (a full-precision copy)
    tol = max(num.tolerance, 1e-9 * abs(num.value))
    unit = num.unit
    mislabel = None
    # 1. sourced: a recorded output, converted into the unit written (or with no unit written)
    if num.sig1 and num.value and _leading_one(num.value) and tol >= 0.099 * abs(num.value):
        # one figure, a leading 1: below it the last place is ten times finer (96 rounds to
        # 100, but 90 stays 90), so "100" covers 95..110, not 90..110
        hit, mislabel = _sourced(num, tuple(1.025 * v for v in values), unit,
                                 0.075 * abs(num.value), ledger)
    else:
        hit, mislabel = _sourced(num, values, unit, tol, ledger)
    taint = None
    if hit is not None:
        if hit.status != "tainted":
            wrong_way = _direction_contradicts(num, hit.match, ctx) \
                if hit.match.__class__ is not tuple else None
            if wrong_way is not None:
                return Finding(num, "unsourced", hit.match, wrong_way)
            return hit
        taint = hit  # unless the question states it or a sound derivation explains it
    if unit is None and not num.percent and _in_formula(num, ctx.reading.text):
        # a recorded figure re-expressed in base units without its unit (42 MVA as 42,000,000)
        for v in values:
            for e in ledger.outputs_in_any_si_range(v, tol):
                if _close(e.si, v, tol) and not _close(e.magnitude, v, tol):
                    return Finding(num, "sourced", e,
                                   lambda: f"{e.label} = {_show(e)}, in SI base units")
    if num.sign is None and not num.negated and num.value > 0 and ledger.has_negative_output():
        # the magnitude of a negative output, written without its sign
        hit, _ = _sourced(num, (-num.value,), unit, tol, ledger)
        if hit is not None and hit.status != "tainted" and hit.match.__class__ is not tuple:
            wrong_way = _direction_contradicts(num, hit.match, ctx)
            if wrong_way is not None:
                return Finding(num, "unsourced", hit.match, wrong_way)
        if hit is not None:
            inner = hit._note
            hit._note = lambda: f"the magnitude of {_text(inner)}; the minus sign is not written"
            return hit
    # 2. quoted from the question
    for v in values:
        si = _si(v, unit) if unit is not None else 0.0
        for q in quoted:
            if abs(v - q.value) <= tol and (unit is None or q.unit is None or unit == q.unit):
                return Finding(num, "quoted", q, lambda: f"stated in the question as {q.text!r}")
            if unit is not None and q.unit is not None and unit.dims == q.unit.dims and \
                    _close(si, _si(q.value, q.unit), tol * unit.scale):
                return Finding(num, "quoted", q, lambda: f"stated in the question as {q.text!r}")
    # 3. derived: a one-step sum or difference of two outputs of like dimension that respects
    #    their datums, or of an output and a number from the question (11 kV asked, 10.7 kV
    #    read: 0.3 kV); then a product or ratio of the written dimension
    if num.sign is not None:
        # an explicit sign on a recorded output of the opposite sign: a sign flipped
        flipped, _ = _sourced(num, (-num.value,), unit, tol, ledger)
        if flipped is not None:
            e = flipped.match
            if num.value < 0 < getattr(e, "magnitude", 0) and \
                    _tool_direction(getattr(e, "tool", None), getattr(e, "field", None)) == -1 and \
                    _SIGNED_BELOW.match(ctx.reading.text, num.nend):
                # "difference -0.25 m (below)": a signed difference whose sign says what the
                # tool's name does (level_below_threshold = 0.25 m)
                return Finding(num, "sourced", e,
                               lambda: f"{e.label} = {_show(e)}, written as a signed "
                                       f"difference with its direction")
            return Finding(num, "unsourced", e,
                           lambda: f"the sign is flipped: {e.label} = {_show(e)}")
    # a one-figure number stated flat is a rounding of a recorded output or a question
    # number (above); as a derivation it is read to its next place: one step of arithmetic
    # over the ledger offers too many values for a 10% window (measured in
    # bench/audit_rates.py: random one-figure numbers)
    dtol = max(num.flat, 1e-9 * abs(num.value)) if num.flat else tol
    hit = ledger.find_derivation(values, unit, dtol, datum=num.datum) or \
        _with_question(values, unit, dtol, num.datum, ctx)
    if hit is not None:
        a, b, op = hit
        bad = _taints(hit, ledger)
        if bad is not None:
            return Finding(num, "tainted", hit, _tainted_note(bad, ledger))
        return Finding(num, "derived", hit,
                       lambda: f"{_name(a)} {op} {_name(b)}: {_show(a)} {op} {_show(b)}")
    if mislabel is None or unit is None or power_dims(mislabel.unit.dims) != power_dims(unit.dims):
        found = _product(num, values, unit, dtol, ctx)
        if found is not None:
            bad = _taints(found.match, ledger) if found.match.__class__ is tuple else None
            if bad is not None:
                return Finding(num, "tainted", found.match, _tainted_note(bad, ledger))
            return found
    if num.percent and unit is None and not num.negated and 0 < num.value < 100:
        # the complement of a share: "it would leave 98.93% of the flow" (100 % - 1.07 %)
        rest, _ = _sourced(num, (100.0 - num.value,), None, tol, ledger)
        if rest is not None and rest.status == "sourced":
            e = rest.match
            return Finding(num, "derived", e,
                           lambda: f"100 % \u2212 {e.label}: 100 % \u2212 {_show(e)}")
        # ... or of a share computed in one step ("the remaining 98.93%": 100 % - 0.5208 m3/s /
        # 48.6 m3/s)
        share = _product(num, (100.0 - num.value,), None, tol, ctx)
        if share is not None and share.match.__class__ is tuple and \
                _taints(share.match, ledger) is None:
            inner = share._note
            return Finding(num, "derived", share.match,
                           lambda: f"100 % \u2212 ({_text(inner)})")
    if taint is not None:
        return taint
    if mislabel is not None and num.datum is not None and \
            _same_datum(num.datum, ledger.station_zeros().get(id(mislabel))):
        e = mislabel  # "(station datum: 6.30 m AOD)": the station's zero on the reference
        return Finding(num, "sourced", e,
                       lambda: f"{e.label} = {_show(e)}: the height of the station's datum, "
                               f"written as the elevation of its zero on {num.datum}")
    if mislabel is not None:
        return Finding(num, "unit_mislabelled", mislabel,
                       lambda: f"{num.text} matches {mislabel.label} = {mislabel.q}, but the "
                               f"unit written contradicts it")
    # 4. a prefix or unit off by a power of ten (1350 Ml restated as 1.35 Ml), or a value
    #    converted into SI that kept its original unit (1250 cfs written as 35.4 cfs)
    if unit is not None:
        view = ledger.si_view(unit.dims)
        for v in values:
            for e in _in_view(view, v, tol):
                if _close(e.si, v, tol) and not _close(e.magnitude, v, tol) and e.magnitude != 0:
                    return Finding(num, "unit_mislabelled", e,
                                   _si_note(num, e))
            for scale in (1e3, 1e-3, 1e6, 1e-6):
                si, si_tol = _si(v * scale, unit), tol * abs(scale) * unit.scale
                for e in _in_view(view, si, si_tol):
                    if e.magnitude != 0 and _close(e.si, si, si_tol):
                        return Finding(num, "unit_mislabelled", e,
                                       _scale_note(num, e, scale))
    return Finding(num, "unsourced", None, _UNSOURCED if unit is None else
                   lambda: f"{_UNSOURCED} in {unit.symbol}")


_UNSOURCED = ("no recorded output, question number, one-step sum, difference, product or ratio "
              "of them matches it")


def _sourced_note(e, unit):
    if unit is None or e.unit == unit:
        return lambda: f"{e.label} = {_show(e)}"
    return lambda: f"{e.label} = {_show(e)}, converted to {unit.symbol}"


def _si_note(num, e):
    return lambda: f"{num.text} is {e.q} in SI units, written with the wrong unit"


def _scale_note(num, e, scale):
    return lambda: f"{num.text} is {e.q} off by a factor of {scale:g}: a prefix or unit was misstated"


def _in_view(view, x: float, tol: float):
    """The entries of a sorted view within ``tol`` of ``x``."""
    keys = view[0]
    if not keys or x + tol < keys[0] or x - tol > keys[-1]:
        return ()
    return view[1][bisect_left(keys, x - tol):bisect_right(keys, x + tol)]


def _sourced(num, values, unit, tol, ledger):
    """(Finding or None, a mislabel candidate or None). An output of a tainted call (one
    that ran despite a recorded violation of its inputs) is a source only of a ``tainted``
    finding, and only when no sound output matches."""
    mislabel = taint = None
    tainted = ledger.unsound_calls()
    view = ledger.si_view(unit.dims) if unit is not None else None
    converted = ledger.converted_elevations() if unit is not None else None
    for v in values:
        if unit is not None:
            si, si_tol = _si(v, unit), tol * unit.scale
            near = _in_view(view, si, si_tol)
            for e in chain(near, converted) if converted else near:
                # (a recorded elevation carried to another datum by a recorded offset is the
                # same point, sourced like a unit conversion)
                if _close(e.si, si, si_tol) and e.unit.dims == unit.dims:
                    if num.datum is None or _same_datum(num.datum, e.datum):
                        if tainted and e.call in tainted:
                            taint = taint or e
                            continue
                        return Finding(num, "sourced", e, _sourced_note(e, unit)), None
                    if mislabel is None:  # the right number on the wrong datum
                        mislabel = e
            for near in (ledger.outputs_in_range(v, tol), ledger.outputs_in_range(v, tol, "input")):
                for e in near:
                    if mislabel is None and e.unit != unit and \
                            power_dims(e.unit.dims) == power_dims(unit.dims) and \
                            _close(v, e.magnitude, tol) and e.magnitude != 0:
                        mislabel = e
        else:
            for e in ledger.outputs_in_range(v, tol):
                if _close(v, e.magnitude, tol):
                    if num.percent and not e.unit.dimensionless:
                        # "48.6%" for a recorded 48.6 m3/s: the per cent sign is a unit, and
                        # the wrong one (a share is a ratio: read below, or derived)
                        mislabel = mislabel or e
                        continue
                    if tainted and e.call in tainted:
                        taint = taint or e
                        continue
                    return Finding(num, "sourced", e, _sourced_note(e, None)), None
            if num.percent:
                for e in ledger.outputs_in_range(v / 100.0, tol / 100.0):
                    if e.unit.dimensionless and _close(v / 100.0, e.magnitude, tol / 100.0):
                        if tainted and e.call in tainted:
                            taint = taint or e
                            continue
                        return Finding(num, "sourced", e,
                                       lambda: f"{e.label} = {_show(e)}, as a percentage"), None
    if taint is not None:
        return Finding(num, "tainted", taint, _tainted_note(taint, ledger)), None
    return None, mislabel


# A direction in words. An output whose tool (or field) name states a direction
# (``level_below_threshold``, ``headroom_above_limit``) means that direction when positive and
# the other when negative; a number followed by the opposite word ("0.25 m above the
# threshold" for a positive ``level_below_threshold``) states the sign flipped.
_DIR_WORDS = {"below": -1, "under": -1, "beneath": -1, "deficit": -1, "shortfall": -1,
              "short": -1, "above": 1, "over": 1, "exceedance": 1, "excess": 1, "surplus": 1,
              "exceeds": 1}
_DIRECTION_TEXT = {1: "above (over, in excess)", -1: "below (under, short)"}
_WRITTEN_UP = re.compile(r"\s*(?:above|higher than|in excess of|more than|over the|exceed)", re.I)
_WRITTEN_DOWN = re.compile(r"\s*(?:below|lower than|under the|beneath|short of|less than)", re.I)
_NAME_SPLIT = re.compile(r"[^a-z]+")
# nouns that name a reference a quantity is measured against: in "the warning level" or "the
# crest elevation" the reference dominates the noun it qualifies
_LIMIT_NOUNS = frozenset({"threshold", "limit", "warning", "alarm", "alert", "trigger", "rating",
                          "capacity", "allowance", "maximum", "max", "minimum", "min", "design",
                          "target", "licence", "license", "licensed", "crest", "setpoint",
                          "trip", "cap", "ceiling", "floor"})
# a round figure named as a rating or a limit: "the 400 A rating", "rated 400 A"
_RATING_AFTER = re.compile(r"[\s*_]*(?:" + "|".join(sorted(_LIMIT_NOUNS, key=len, reverse=True)) +
                           r"|rated|allowance|nameplate)\b", re.I)
_RATING_BEFORE = re.compile(r"\b(?:rated(?: at)?|rating of|limit of|capacity of|limited to|"
                            r"capped at|maximum of|allowance of)\s*$", re.I)


_NAME_FILLER = frozenset({"get", "read", "compute", "calc", "calculate", "check", "how", "far",
                          "is", "the", "of", "by", "to", "a", "an", "return", "value", "amount",
                          "margin", "distance", "difference", "height", "m", "ft"})
_CLAUSE_END = re.compile(r"[.;:!?,()\[\]\n]|\b(?:and|but|while|whereas|so)\b")
_WORDS = re.compile(r"[a-z]+")


def _written_direction(num, ctx) -> int:
    text = ctx.reading.text
    if _WRITTEN_UP.match(text, num.nend):
        return 1
    if _WRITTEN_DOWN.match(text, num.nend):
        return -1
    return 0


_TOOL_DIRECTION: dict = {}


def _tool_direction(tool, field) -> int:
    """+1 or -1 when the tool (and field) name states one direction, else 0 (cached)."""
    return _tool_sides(tool, field)[0]


def _tool_sides(tool, field):
    """(direction, subject words, reference words) of a tool (and field) name that states one
    direction: ``level_below_threshold`` is (-1, {level}, {threshold}): the level is below
    the threshold by the value. (0, (), ()) when the name states none (cached)."""
    key = (tool, field)
    d = _TOOL_DIRECTION.get(key)
    if d is None:
        words = [w for w in _NAME_SPLIT.split(f"{tool} {field or ''}".lower()) if w]
        dirs = {_DIR_WORDS[w] for w in words if w in _DIR_WORDS}
        if len(dirs) == 1:
            k = next(i for i, w in enumerate(words) if w in _DIR_WORDS)
            subject = frozenset(w for w in words[:k] if w not in _NAME_FILLER)
            reference = frozenset(w for w in words[k + 1:] if w not in _NAME_FILLER and
                                  w not in _DIR_WORDS)
            d = (dirs.pop(), subject, reference)
        else:
            d = (0, frozenset(), frozenset())
        if len(_TOOL_DIRECTION) < 4096:
            _TOOL_DIRECTION[key] = d
    return d


def _names(words, side) -> bool:
    """Some word names one of ``side``'s words (its first five letters: level/levels)."""
    return any(w[:5] == s[:5] for w in words for s in side if len(w) > 2)


def _side_named(words, subject, reference) -> int:
    """+1 when a phrase names the reference side (a limit noun counts when the reference is
    one, and dominates: "the warning level"), -1 the subject side, 0 neither."""
    limit = bool(reference & _LIMIT_NOUNS)
    if _names(words, reference) or limit and any(w in _LIMIT_NOUNS for w in words):
        return 1
    if _names(words, subject) or not limit and subject & _LIMIT_NOUNS and \
            any(w in _LIMIT_NOUNS for w in words):
        return -1
    return 0


def _subject_reversed(num, ctx, subject, reference, after: int) -> bool:
    """Whether the sentence states the relation the other way round: "the threshold is 0.25 m
    above the level" for ``level_below_threshold``. Read from what follows the direction word
    (the object) and, when that names neither side, the clause before the number (the
    subject). Neither named: the tool's own order."""
    text = ctx.reading.text
    m = _CLAUSE_END.search(text.lower(), after, min(len(text), after + 80))
    obj = _WORDS.findall(text[after:m.start() if m else after + 80].lower())
    side = _side_named(obj, subject, reference)
    if side:
        return side < 0
    low = text.lower()
    start = max(low.rfind(c, 0, num.nstart) for c in ".;:!?,()[]\n") + 1
    before = _WORDS.findall(low[max(start, num.nstart - 80):num.nstart])
    return _side_named(before, subject, reference) > 0


def _direction_contradicts(num, e, ctx):
    """None, or why the direction written contradicts the output of a tool that names one."""
    if getattr(e, "role", None) != "output" or not e.magnitude:
        return None
    direction, subject, reference = _tool_sides(e.tool, e.field)
    if not direction:
        return None
    text = ctx.reading.text
    m = _WRITTEN_UP.match(text, num.nend) or _WRITTEN_DOWN.match(text, num.nend)
    if m is None:
        return None
    written = 1 if _WRITTEN_UP.match(text, num.nend) else -1
    meant = direction if e.magnitude > 0 else -direction
    turned = _subject_reversed(num, ctx, subject, reference, m.end())
    if turned:
        meant = -meant
    if written == meant:
        return None
    how = " (read with the sentence's subject and reference the other way round)" if turned \
        else ""
    return (f"the direction is reversed: {e.label} = {_show(e)} means "
            f"{_DIRECTION_TEXT[-written]}{how}")


def _tainted_note(e, ledger):
    def note():
        codes = sorted({v["code"] for v in ledger.violations if v["call"] == e.call})
        if not codes:
            i = ledger.unsupported_calls().get(e.call)
            if i is not None:
                return (f"{e.label} = {_show(e)}, but that call received {i.label} = {_show(i)}, "
                        f"which no earlier output, question number or one-step sum or "
                        f"difference supports: it is computed from a value of unknown "
                        f"provenance")
        return (f"{e.label} = {_show(e)}, but that call ran with a recorded violation of its "
                f"inputs ({', '.join(codes) or 'violation'}): it is computed from a value the "
                f"boundary refused")
    return note


def _taints(hit, ledger):
    """The first operand of a derivation that is an output of a tainted call, or None."""
    tainted = ledger.unsound_calls()
    if tainted:
        for e in hit[:2]:
            if getattr(e, "role", None) == "output" and e.call in tainted:
                return e
    return None


def pair_datum_ok(da, db, op: str, written) -> bool:
    """Whether ``a op b`` is meaningful for elevations (``Q``'s algebra) and lands on the
    datum written: elevation - elevation on one datum is a length; elevation +/- length
    stays on its datum; length + elevation too; elevations on two datums, a sum of two
    elevations and length - elevation mean nothing."""
    if da is not None and db is not None:
        if op != "-" or da != db:
            return False
        return written is None or _same_datum(written, da)
    if da is not None:
        return written is None or _same_datum(written, da)
    if db is not None:
        if op != "+":
            return False
        return written is None or _same_datum(written, db)
    return True


def _with_question(values, unit, tol: float, written_datum, ctx):
    """A question number q and a recorded output e (or a second question number) with
    v = q + e, q - e or e - q, all in SI; like dimensions only, one step deep, and
    meaningful for their datums."""
    if unit is None:
        return None
    given = ctx.given(unit.dims)
    if not given:
        return None
    ledger = ctx.ledger
    view = ledger.si_view(unit.dims)
    si_tol = tol * unit.scale
    for v in values:
        target = _si(v, unit)
        for q in given:
            qs = q.value * q.unit.scale
            qd = q.datum
            for other, a_is_q, op in ((target - qs, True, "+"), (qs - target, True, "-"),
                                      (target + qs, False, "-")):
                for e in _in_view(view, other, si_tol):
                    if not _close(e.si, other, si_tol) or id(e) in ledger.datum_offsets() or \
                            ledger.inverts_call((e,), power_dims(unit.dims), target, si_tol):
                        continue
                    pair = (q, e) if a_is_q else (e, q)
                    if pair_datum_ok(pair[0].datum, pair[1].datum, op, written_datum):
                        return (pair[0], pair[1], op)
            for q2 in given:
                if q2 is q:
                    continue
                q2s = q2.value * q2.unit.scale
                if _close(target - qs, q2s, si_tol) and pair_datum_ok(qd, q2.datum, "+",
                                                                      written_datum):
                    return (q, q2, "+")
                if _close(qs - target, q2s, si_tol) and pair_datum_ok(qd, q2.datum, "-",
                                                                      written_datum):
                    return (q, q2, "-")
    return None


def _product(num, values, unit, tol, ctx):
    """One step of product or ratio: a * b * c or a / b * c, for recorded outputs (or question
    numbers with units) a and b and a constant c the answer writes (1 always), whose dimension
    is the dimension written and whose SI value is the number's. A number with no unit (or a
    percentage) is a ratio of like dimensions."""
    if unit is not None and unit.shift:
        return None
    index = ctx.operands()
    if not index:
        return None
    if unit is None:
        dims = _DIMENSIONLESS
        scale = 0.01 if num.percent else 1.0
    else:
        dims = power_dims(unit.dims)
        scale = unit.scale
    # constants: only those the answer writes (any of them always would accept too much)
    # (a share or a ratio is a plain quotient: constants join only results with a dimension)
    consts = ctx.constants() if any(dims) else _NO_CONSTANT
    if dims not in ctx.reachable() and not (dims in index and len(consts) > 1):
        return None
    tol_si = tol * scale
    ledger = ctx.ledger
    inverts = ledger.call_inputs() and ledger.inverts_call
    for v in values:
        s = v * scale
        if s == 0.0 or not math.isfinite(s):
            continue
        # a product or ratio with a call's output that lands on that call's own input runs
        # the tool backwards (see Ledger.inverts_call): never a derivation
        reject = (lambda ea, eb, s=s: inverts((ea, eb), dims, s, tol_si)) if inverts else None
        L = math.log10(abs(s))
        w = math.log10(1.0 + tol_si / abs(s)) + 1e-12
        for da, (la, ia) in index.items():
            db = tuple([x - y for x, y in zip(dims, da)])
            hit = index.get(db)
            if hit is not None and da <= db:
                found = _search(la, ia, hit, L, w, consts, s, tol_si, "\u00d7",
                                unit is not None and _kind(unit.dims), reject, ctx.polyphase)
                if found is not None:
                    return _product_finding(num, found, "\u00d7")
            db = tuple([x - y for x, y in zip(da, dims)])
            hit = index.get(db)
            if hit is not None:
                found = _search(la, ia, hit, L, w, consts, s, tol_si, "\u00f7", False, reject,
                                ctx.polyphase)
                if found is not None:
                    return _product_finding(num, found, "\u00f7")
            if da == dims and len(consts) > 1:
                for cname, c in consts[1:]:
                    lo = bisect_left(la, L - math.log10(c) - w)
                    for k in range(lo, bisect_right(la, L - math.log10(c) + w)):
                        sa, ea = ia[k]
                        if _close(sa * c, s, tol_si):
                            return Finding(num, "derived", (ea, cname, "\u00d7"),
                                           f"{cname} \u00d7 {_name(ea)}: {cname} \u00d7 {_show(ea)}")
    return None


# A polyphase system: "three-phase", "3-phase", "3φ", or a line quantity ("line current",
# "line-to-line voltage"), which exists only where there are several phases. There the
# relation between apparent power, line voltage and line current is S = √3 V I; the
# single-phase S = V I (a current computed as S / V) is a formula error, not a derivation.
_POLYPHASE = re.compile(r"\b(?:three|3)[- ]?phase|3\s?[\u03c6\u03a6]|\bline[- ](?:current|voltage)|"
                        r"\bline[- ]to[- ]line\b|\bphase[- ]to[- ]phase\b", re.I)
def _polyphase(text: str) -> bool:
    low = text.lower()
    if "phase" not in low and "line" not in low and "\u03c6" not in low:
        return False  # (the pattern's every branch holds one of these)
    return _POLYPHASE.search(text) is not None


_ROOT3 = [("\u221a3", math.sqrt(3.0))]
_INV_ROOT3 = [("1/\u221a3", 1.0 / math.sqrt(3.0))]


def _kind(d) -> bool:
    """An apparent or reactive power (VA, var) in the dimension."""
    return len(d) > 8 and bool(d[7] or d[8])


def _has_kind(e) -> bool:
    return _kind(e.unit.dims)


def _search(la, ia, other, L, w, consts, s, tol_si, op, kind_result=False, reject=None,
            polyphase=False):
    """One operand a from (la, ia), the other from ``other``, a constant c: a*b*c or a/b*c
    within ``tol_si`` of ``s``. Three-phase relations carry sqrt(3) whether written or not:
    S = sqrt(3) V I (a product whose result is an apparent or reactive power), and
    I = S / (sqrt(3) V) (a ratio whose numerator is one)."""
    lb, ib = other
    for ka, (sa, ea) in zip(la, ia):
        cs = consts
        if op == "\u00d7" and kind_result:
            cs = _NO_CONSTANT + _ROOT3        # S = sqrt(3) V I, never S = V I / sqrt(3)
        elif op == "\u00f7" and _has_kind(ea):
            cs = _NO_CONSTANT + _INV_ROOT3    # I = S / (sqrt(3) V), never sqrt(3) S / V
        for cname, c in cs:
            lc = math.log10(c) if c != 1.0 else 0.0
            t = L - ka - lc if op == "\u00d7" else ka + lc - L
            lo = bisect_left(lb, t - w)
            hi = bisect_right(lb, t + w)
            for k in range(lo, hi):
                sb, eb = ib[k]
                if eb is ea:
                    continue
                if polyphase and not cname and cs is not consts and \
                        (op == "\u00d7" and not _has_kind(ea) and not _has_kind(eb) or
                         op == "\u00f7" and not _has_kind(eb)):
                    continue  # S = V I or I = S / V: single-phase only (see _POLYPHASE)
                value = sa * sb * c if op == "\u00d7" else sa / sb * c
                if _close(value, s, tol_si) and not (reject and reject(ea, eb)):
                    return ea, eb, cname
    return None


def _product_finding(num, found, op):
    a, b, cname = found
    c = f" \u00d7 {cname}" if cname else ""
    pct = " \u00d7 100 %" if num.percent else ""
    return Finding(num, "derived", (a, b, op),
                   lambda: f"{_name(a)} {op} {_name(b)}{c}{pct}: {_show(a)} {op} {_show(b)}{c}{pct}")


_NO_CONSTANT = [("", 1.0)]


# -- numbers explained by what is written around them ---------------------------------------------
def _explain_in_context(findings: list[Finding], ctx: _Context) -> None:
    """A flagged number may be a conversion factor, a unit identity, a constant, one unit
    ("over 1 d") or an operand of a written-out formula whose result is accepted."""
    numbers = ctx.reading.numbers
    factors = {}
    for i, f in enumerate(findings):
        if f.status in _REEXPLAIN:
            note = _factor_note(numbers, i, ctx)
            if note is not None:
                findings[i] = Finding(f.number, "factor", None, note)
                if f.number.unit is None:
                    factors[f.number.value] = f.number
    if factors:  # the factor named in prose too: "(86.4 converts m3/s per km2 to mm/d)"
        for i, f in enumerate(findings):
            n = f.number
            if f.status in _REEXPLAIN and n.unit is None and n.value in factors:
                findings[i] = Finding(n, "factor", None,
                                      f"the factor {factors[n.value].text} used in the arithmetic")
    t = ctx.reading.text
    if "=" in t or "\u2248" in t or "(" in t and _BRACKET_OP.search(t):
        _formula_operands(findings, ctx)
    _ranges(findings, ctx)
    for i, f in enumerate(findings):
        if f.status == "unsourced":
            hit = _truncated(f.number, ctx.ledger)
            if hit is not None:
                findings[i] = hit


def _truncated(num: Number, ledger):
    """A recorded output with its digits cut, not rounded (35.396 written as 35.39, 0.102145
    as 0.10214): four significant figures or more written, and the recorded value within one
    unit of the last place written above it."""
    src = num._src
    if src is None or num.sig1 or num.tolerance <= 0:
        return None
    written = src[num.nstart:num.nend]
    if "." in written:
        if num.tolerance > 5.001e-4 * abs(num.value):
            return None  # (four significant figures or more: half a unit in the last place
            #              is at most 0.05% of the value)
    elif not (num.tolerance == 0.5 and abs(num.value) >= 100 and
              not _digits(written.split()[0]).endswith("0")):
        return None  # a whole number of three figures or more, its last digit written
    values = (-num.value, num.value) if num.negated else (num.value,)
    half = 0.999 * num.tolerance  # [v, v + one unit): the next value up is no truncation of v
    up = tuple(v + math.copysign(half, v) for v in values)
    hit, _ = _sourced(num, up, num.unit, half, ledger)
    if hit is None or hit.status != "sourced":
        return None
    e = hit.match
    return Finding(num, "sourced", e,
                   lambda: f"{e.label} = {_show(e)}, truncated (its digits cut, not rounded)")




_RANGE_BETWEEN = re.compile(r"\s*(?:-|\u2013|\u2014|to|and|\.\.)\s*")


def _ranges(findings: list[Finding], ctx: _Context) -> None:
    """A range ("0.10-0.11 mm/d", "between 4.0 and 4.1 ft") brackets a recorded value: its
    unsourced ends are accepted when a recorded output of its dimension (or a one-step
    derivation) lies inside it. A range wider than a quarter of its upper end says little and
    is not read so; an end written with a contradicting unit stays a mislabel."""
    text = ctx.reading.text
    numbers = ctx.reading.numbers
    for i in range(len(numbers) - 1):
        a, b = numbers[i], numbers[i + 1]
        fa, fb = findings[i], findings[i + 1]
        if fa.status != "unsourced" and fb.status != "unsourced" or \
                "unit_mislabelled" in (fa.status, fb.status):
            continue
        if not _RANGE_BETWEEN.fullmatch(text, a.nend, b.nstart):
            continue
        if text[a.nend:b.nstart].strip() == "and" and \
                not text[max(0, a.nstart - 9):a.nstart].lower().rstrip().endswith("between"):
            continue
        unit = b.unit or a.unit
        if a.unit is not None and b.unit is not None and a.unit != b.unit or \
                a.percent != b.percent:
            continue
        lo, hi = a.value - a.tolerance, b.value + b.tolerance
        # at most a quarter of its upper end wide, or two neighbours at the precision
        # written ("between 0.2 and 0.3 m", "20-30 cm": the bracket of a one-figure reading)
        step = 2.0 * max(a.boundary_tol, b.boundary_tol)
        if not (a.value < b.value and (b.value - a.value <= 0.25 * abs(b.value) or
                                       abs(b.value - a.value - step) <= 1e-9 * abs(b.value)
                                       and a.boundary_tol == b.boundary_tol)):
            continue
        mid = Number(f"{a.text}-{b.text}", (lo + hi) / 2, unit, b.datum or a.datum, a.start,
                     b.end, (hi - lo) / 2, b.percent, b.negated, None)
        mid.nstart, mid.nend, mid._src = a.nstart, b.nend, a._src  # spans in the read text
        inside = _classify(mid, ctx)
        if inside.status not in _ACCEPTED:
            continue
        for k, n in ((i, a), (i + 1, b)):
            if findings[k].status in _REEXPLAIN:
                findings[k] = Finding(n, inside.status, inside.match,
                                      f"an end of the range {a.text}-{b.text}, which brackets "
                                      f"{inside.note}")


def _factor_note(numbers, i, ctx):
    num = numbers[i]
    text = ctx.reading.text
    unit = num.unit
    # a unit identity: "1 cfs = 0.0283168 m3/s", "1 MWh is 3.6 GJ"
    for j in (i - 1, i + 1):
        if 0 <= j < len(numbers):
            a, b = (numbers[j], num) if j < i else (num, numbers[j])
            if _identity(a, b, text):
                return (f"a unit identity ({a.text} = {b.text}): a conversion, not a "
                        f"measurement")
    # a unit identity as a share: "1 cfs is about 2.8% of a cubic metre per second"
    for j in (i, i + 1):
        if 1 <= j < len(numbers) and _share_identity(numbers[j - 1], numbers[j], text):
            a, b = numbers[j - 1], numbers[j]
            return f"a unit identity as a share ({a.text} is {b.text} of the other unit)"
    # a conversion table row: "| 1 ft³/s | m³/s | 0.028316846592 |" is 1 ft³/s = k m³/s
    if "|" in text:
        note = _table_identity(numbers, i, text)
        if note is not None:
            return note
    # the value of a constant the answer names: "√3 ≈ 1.7320508", "π = 3.14159"
    if unit is None and not num.percent and ctx.reading.constants:
        m = _CONST_BEFORE.search(text, max(0, num.nstart - 24), num.nstart)
        if m is not None:
            c = math.sqrt(int(m.group(1) or m.group(2))) if (m.group(1) or m.group(2)) \
                else math.pi
            if _close(num.value, c, max(num.tolerance, 1e-9 * c)):
                return f"the value of the constant {m.group().split('=')[0].split(chr(0x2248))[0].strip()}"
    # a factor written with its ratio unit: "86 400 s/day", "1000 L/m3", "3.6e9 J/MWh"
    if unit is not None and _is_ratio_unit(unit) and \
            _close(num.value * unit.scale, 1.0, num.tolerance * unit.scale):
        return f"the conversion factor {num.text}: a unit identity, not a measurement"
    # a bare factor next to a multiplication or division: "x 0.0283168", "/ 86 400", "x 100 %"
    if (num.op_before or num.op_after) and (unit is None or num.percent):
        if num.percent and _close(num.value, 100.0, num.tolerance):
            return "100 %: the factor of a percentage"
        name = _known_factor(abs(num.value), max(num.tolerance, 1e-9 * abs(num.value)), ctx)
        if name is not None:
            return f"{name}, written as a factor of the arithmetic"
    # a factor in words: "the conversion divides the number by about 35", "multiply by 86,400"
    if unit is None and not num.percent and num.value > 0 and \
            "by" in text[max(0, num.nstart - 60):num.nstart] and \
            _BY_WORDS.search(text, max(0, num.nstart - 60), num.nstart):
        name = _known_factor(num.value, max(num.tolerance, 1e-9 * num.value), ctx)
        if name is not None:
            return f"{name}, named in words as a factor of the arithmetic"
    # one unit written in a smaller one, as an operand: "x 86,400 s" (one day), "/ 3600 s"
    if unit is not None and (num.op_before or num.op_after) and not unit.shift and \
            num.value > 1 and num.sign is None:
        one = _one_common_unit(num.value * unit.scale, unit)
        if one is not None:
            return (f"{num.text} is one {one} written in {unit.symbol}: a unit factor of the "
                    f"arithmetic, not a measurement")
    # a unit identity in words: "86,400 seconds in a day", "1000 litres per cubic metre",
    # "a day has 86,400 s"
    if unit is not None and not unit.shift and num.value > 0:
        other = _one_unit_named(text, num)
        if other is not None and other.dims == unit.dims and not other.shift and \
                other != unit and _close(num.value * unit.scale, other.scale,
                                         max(num.tolerance, 1e-9 * num.value) * unit.scale):
            return (f"a unit identity in words (1 {other.symbol} = {num.text}): a conversion, "
                    f"not a measurement")
    # one unit: "over 1 d", "per 1 km2"
    if unit is not None and num.text.split()[0] in ("1", "one") and num.value == 1.0:
        before = text[max(0, num.nstart - 12):num.nstart].lower().split()
        if before and before[-1] in _ONE_UNIT_WORDS:
            return f"one {unit.symbol}: a unit of measure, not a measurement"
    return None


_ONE_AFTER = re.compile(r"\s+(?:in|per|to|make|makes|make up|to make)\s+(?:a|an|one|1|each|every)\s+",
                        re.I)
_ONE_BEFORE = re.compile(r"\b(?:a|an|one|1|each|every)\s+([a-z][a-z ]{0,20}?)\s+(?:has|have|is|"
                         r"equals|contains|holds|=|\u2248)\s*$", re.I)


def _one_unit_named(text: str, num: Number):
    """The unit named as "a <unit>" right after ("86,400 s in a day") or before ("a day has
    86,400 s") a number, or None."""
    m = _ONE_AFTER.match(text, num.nend) if text[num.nend + 1:num.nend + 4] in (
        "in ", "per", "to ", "mak") else None
    if m is not None:
        unit, _, end = _read_unit(text, m.end())
        if unit is not None:
            return unit
    if not text[max(0, num.nstart - 10):num.nstart].rstrip().endswith(
            ("has", "have", "is", "equals", "contains", "holds", "=", "\u2248")):
        return None
    m = _ONE_BEFORE.search(text, max(0, num.nstart - 40), num.nstart)
    if m is not None:
        hit = _phrase(m.group(1).strip())
        if hit is not None:
            return hit[0]
    return None


_BY_WORDS = re.compile(r"\b(?:divid|multipl|scal)\w*\s+(?:[\w-]+\s+){0,4}?by\s+(?:a factor of\s+)?"
                       r"(?:about|roughly|approximately|around|some|nearly|almost|~|\u2248)?\s*$",
                       re.I)
_SHARE_IS = re.compile(r"\s+(?:is|=|equals|makes)\s+(?:about|roughly|approximately|around|nearly|"
                       r"just under|just over|~|\u2248)?\s*$", re.I)
_SHARE_OF = re.compile(r"\s+of\s+(?:a|an|one|1)\s+", re.I)


def _share_identity(a: Number, b: Number, text: str) -> bool:
    """``1 X is P% of a Y``: P/100 = X/Y, checked by the kernel."""
    if a.unit is None or a.value != 1.0 or not b.percent or b.value <= 0 or a.unit.shift or \
            not _SHARE_IS.match(text[a.nend:b.nstart]):
        return False
    m = _SHARE_OF.match(text, b.nend)
    if m is None:
        return False
    other, _, _ = _read_unit(text, m.end())
    if other is None or other.dims != a.unit.dims or other.shift:
        return False
    return abs(b.value / 100.0 - a.unit.scale / other.scale) <= b.tolerance / 100.0 + 1e-12


_CONST_BEFORE = re.compile(r"(?:\u221a\s*\(?\s*(\d{1,2})\s*\)?|\bsqrt\s*\(?\s*(\d{1,2})\s*\)?|\u03c0|\bpi)"
                           r"\s*(?:=|\u2248|~|is about|is)\s*$", re.I)


def _table_identity(numbers, i, text):
    """A row of a conversion table: one cell ``1 X``, one cell a unit ``Y`` alone, one cell a
    number ``k`` with no unit; when the kernel agrees that 1 X = k Y (within the precision
    written), ``1 X`` and ``k`` are the two sides of a unit identity, not measurements."""
    num = numbers[i]
    a = text.rfind("\n", 0, num.nstart) + 1
    b = text.find("\n", num.nend)
    b = len(text) if b < 0 else b
    line = text[a:b]
    if not line.lstrip().startswith("|"):
        return None
    row = [n for n in numbers if a <= n.nstart < b]
    ones = [n for n in row if n.unit is not None and n.value == 1.0 and not n.percent]
    bare = [n for n in row if n.unit is None and not n.percent]
    if len(row) != 2 or len(ones) != 1 or len(bare) != 1:
        return None
    one, k = ones[0], bare[0]
    to = None
    pos = a
    for cell in line.split("|"):
        lo, hi = pos, pos + len(cell)
        pos = hi + 1
        if any(lo <= n.nstart < hi for n in row):
            continue
        hit = _cell_unit(cell)
        if hit is not None:
            to = hit[0]
            break
    if to is None or to.dims != one.unit.dims or to.shift or one.unit.shift or k.value == 0:
        return None
    want = one.unit.scale / to.scale
    if not _close(k.value, want, max(k.tolerance, 1e-9 * abs(want))):
        return None
    return f"a row of a conversion table (1 {one.unit.symbol} = {k.text} {to.symbol}): a unit identity"


def _one_common_unit(si: float, unit):
    """The symbol of a common unit (``_COMMON_FACTOR_UNITS``) of ``unit``'s dimension whose
    size is exactly ``si`` (within a float's margin), other than ``unit`` itself, or None."""
    common = _FACTOR_CACHE.get("units")
    if common is None:
        from .units import try_parse_unit
        common = _FACTOR_CACHE["units"] = [u for u in map(try_parse_unit, _COMMON_FACTOR_UNITS)
                                           if u is not None and not u.shift]
    for u in common:
        if u != unit and u.dims == unit.dims and abs(u.scale - si) <= 1e-9 * u.scale:
            return u.symbol
    return None


def _identity(a: Number, b: Number, text: str) -> bool:
    if a.unit is None or b.unit is None or a.unit.dims != b.unit.dims or a.unit == b.unit:
        return False
    if a.unit.shift or b.unit.shift or not (a.value == 1.0 or b.value == 1.0):
        return False
    if not re.fullmatch(r"\s*(?:=|\u2248|~|is|equals|is about)\s*", text[a.nend:b.nstart]):
        return False
    sa, sb = a.value * a.unit.scale, b.value * b.unit.scale
    rel = max(a.tolerance / abs(a.value) if a.value else 0.0,
              b.tolerance / abs(b.value) if b.value else 0.0, 1e-9)
    return abs(sa - sb) <= rel * max(abs(sa), abs(sb))


_FACTOR_CACHE: dict = {}
_COMMON_FACTOR_UNITS = ("s", "min", "h", "d", "yr", "m", "mm", "cm", "km", "ft", "in", "mi", "L",
                        "m3", "ft3", "ML", "gal", "acre_ft", "m2", "km2", "ft2", "mi2", "ha",
                        "acre", "W", "kW", "MW", "J", "kJ", "MJ", "GJ", "Wh", "kWh", "MWh", "V",
                        "kV", "A", "kA", "VA", "MVA", "cfs", "m3/s", "ML/d", "L/s", "m3/d")


def _known_factor(x: float, tol: float, ctx: _Context):
    """The name of a conversion factor between two units of one dimension (the ledger's, the
    answer's, or common ones), a power of ten or a constant equal to ``x``, or None."""
    table = _FACTOR_CACHE.get("common")
    if table is None:
        from .units import try_parse_unit
        units = [u for u in (try_parse_unit(s) for s in _COMMON_FACTOR_UNITS) if u is not None]
        table = _FACTOR_CACHE["common"] = _factor_table(units)
    extra_units = {e.unit for e in ctx.ledger.output_entries()}
    extra_units.update(n.unit for n in ctx.reading.numbers if n.unit is not None)
    for name, c in _CONSTANTS:
        if _close(x, c, tol):
            return f"the constant {_CONSTANT_TEXT[name]}"
    if x > 0 and _close(math.log10(x), round(math.log10(x)), 1e-9) and abs(math.log10(x)) <= 12:
        return f"{x:g}, a power of ten (a prefix)"
    for f, a, b in table:
        if _close(x, f, tol):
            return f"the factor from {a} to {b}"
    if extra_units:
        from .units import try_parse_unit
        common = [u for u in (try_parse_unit(s) for s in _COMMON_FACTOR_UNITS) if u is not None]
        for u in extra_units:
            if u.shift:
                continue
            for v in list(extra_units) + common:
                if v is u or v.dims != u.dims or v.shift or v.scale == u.scale:
                    continue
                if _close(x, u.scale / v.scale, tol):
                    return f"the factor from {u.symbol} to {v.symbol}"
    return None


def _factor_table(units):
    out = []
    for u in units:
        for v in units:
            if u is not v and u.dims == v.dims and not u.shift and not v.shift and \
                    u.scale != v.scale:
                out.append((u.scale / v.scale, u.symbol, v.symbol))
    return out


_FORMULA_TOKEN = re.compile(r"\s+|\*\*|sqrt|pi\b|[-+\u2212\u00d7*x\u00b7\u22c5/\u00f7^()\u221a\u03c0]"
                            r"|\d+(?:\.\d+)?")


def _formula_operands(findings: list[Finding], ctx: _Context) -> None:
    """Written-out formulas ``a op b ... = r``: when the arithmetic checks out, a result
    computed from rounded operands is looked up again within the precision of those operands,
    and a flagged operand of an accepted result is an ``operand``."""
    reading = ctx.reading
    text = reading.text
    numbers = reading.numbers
    at = {n.nstart: (i, n) for i, n in enumerate(numbers)}
    for ri, r in enumerate(numbers):
        k = r.nstart - 1
        while k >= 0 and text[k] in " *_~\u00a0\u2009":
            k -= 1
        if k >= 0 and text[k] in "=\u2248":
            tokens = _formula_tokens(text, k, at)
        else:
            # the result first, its working in brackets right after it:
            # "3,058,000 m3 (35.4 m3/s x 86,400 s)"
            k = _bracket_after(text, r.nend)
            tokens = _formula_tokens(text, k, at, text.index("(", r.nend) + 1) if k else None
            # (text.index finds the bracket _bracket_after found: only spaces and marks between)
        if not tokens:
            continue
        members = [t[1] for t in tokens if t[0] == "num"]
        value = _evaluate(tokens)
        if value is None or not _formula_matches(value, r, members):
            continue
        expr = text[tokens[0][2]:k].strip()
        result = findings[ri]
        if result.status in _REEXPLAIN and members:
            # the result of rounded operands: as precise as the least precise operand
            rel = min(0.005, max((n.tolerance / abs(n.value) for _, n in members if n.value),
                                 default=0.0))
            if rel * abs(r.value) > r.tolerance:
                wide = r.widened(rel * abs(r.value))
                again = _classify(wide, ctx)
                if again.status in _ACCEPTED:
                    result = findings[ri] = Finding(
                        r, again.status, again.match,
                        f"{again.note} (computed as {expr}, from operands rounded to the "
                        f"precision written)")
        if result.status == "unsourced" and members and \
                all(findings[i].status in _ACCEPTED for i, _ in members) and \
                _chain_checks(tokens, members, value, r) and \
                not (ctx.polyphase and _single_phase_step(members, r, expr)):
            # a step of a written chain: every operand accepted, arithmetic and units check
            result = findings[ri] = Finding(
                r, "derived", None,
                f"the result of {expr}, whose operands are all accepted and whose arithmetic "
                f"and units check")
        if result.status not in _ACCEPTED:
            continue
        for i, n in members:
            if findings[i].status == "unsourced":  # a unit that contradicts stays flagged
                findings[i] = Finding(n, "operand", result,
                                      f"an operand of {expr} = {r.text}, whose arithmetic "
                                      f"checks and whose result is {result.status}")


_ROOT3_TEXT = re.compile(r"\u221a\s*\(?\s*3|sqrt\s*\(?\s*3|\b1\.73", re.I)


def _single_phase_step(members, r: Number, expr: str) -> bool:
    """A written step between apparent power and voltage/current (one side an apparent or
    reactive power, the other not) without √3: the single-phase relation, which a polyphase
    system (see _POLYPHASE) does not follow."""
    kind_in = any(n.unit is not None and _kind(n.unit.dims) for _, n in members)
    kind_out = r.unit is not None and _kind(r.unit.dims)
    return kind_in != kind_out and not _ROOT3_TEXT.search(expr)


def _chain_checks(tokens, members, value, r: Number) -> bool:
    """A written step ``a op b = r`` read on one footing: all bare (magnitudes), or every
    operand and the result with a unit (SI values, and the dimension of the arithmetic must be
    the result's). Mixed (a bare factor times a quantity) is not read: its units are unknown."""
    numbers = [n for _, n in members]
    if any(n.percent for n in numbers) or r.percent:
        return False
    rel = min(0.005, max((n.tolerance / abs(n.value) for n in numbers if n.value), default=0.0))
    if all(n.unit is None for n in numbers) and r.unit is None:
        return abs(value[0] - r.value) <= max(r.tolerance, rel * abs(r.value), 1e-12)
    if r.unit is None or any(n.unit is None for n in numbers) or r.unit.shift or \
            any(n.unit.shift for n in numbers):
        return False
    dims = _formula_dims(tokens)
    if dims is None or dims != power_dims(r.unit.dims):
        return False
    want = r.value * r.unit.scale
    return abs(value[1] - want) <= max(r.tolerance * r.unit.scale, rel * abs(want), 1e-300)


def _formula_dims(tokens):
    """The dimension of a token run's arithmetic (sums of like dimensions only), or None."""
    pos = 0
    zero = _DIMENSIONLESS

    def atom():
        nonlocal pos
        if pos >= len(tokens):
            raise ValueError
        kind, payload, _ = tokens[pos]
        pos += 1
        if kind == "op" and payload in "-\u2212":
            return atom()
        if kind == "sqrt":
            d = atom()
            if any(x % 2 for x in d):
                raise ValueError
            return tuple(x // 2 for x in d)
        if kind == "(":
            d = expr()
            if pos >= len(tokens) or tokens[pos][0] != ")":
                raise ValueError
            pos += 1
            return d
        if kind == "num":
            n = payload[1]
            return power_dims(n.unit.dims) if n.unit is not None else zero
        if kind == "lit":
            return zero
        raise ValueError

    def power():
        nonlocal pos
        d = atom()
        if pos < len(tokens) and tokens[pos][0] == "op" and tokens[pos][1] == "^":
            pos += 1
            kind, payload, _ = tokens[pos] if pos < len(tokens) else (None, None, None)
            if kind != "lit" or payload != int(payload) or abs(payload) > 9:
                raise ValueError
            pos += 1
            return tuple(x * int(payload) for x in d)
        return d

    def term():
        nonlocal pos
        d = power()
        while pos < len(tokens) and tokens[pos][0] == "op" and tokens[pos][1] not in "+-\u2212^":
            op = tokens[pos][1]
            pos += 1
            d2 = power()
            d = tuple(x - y if op in "/\u00f7" else x + y for x, y in zip(d, d2))
        return d

    def expr():
        nonlocal pos
        d = term()
        while pos < len(tokens) and tokens[pos][0] == "op" and tokens[pos][1] in "+-\u2212":
            pos += 1
            if term() != d:
                raise ValueError
        return d

    try:
        d = expr()
    except (ValueError, IndexError, TypeError):
        return None
    return d if pos == len(tokens) else None


def _bracket_after(text: str, pos: int):
    """The position of the ``)`` closing a bracket that opens right after ``pos`` (spaces and
    markdown emphasis allowed: ``**3,058 m3** (...)``) and holds no other bracket, within 200
    characters; else None."""
    k = pos
    while k < len(text) and text[k] in " \u00a0\u2009*_":  # spaces, markdown emphasis
        k += 1
    if text[k:k + 1] != "(":
        return None
    close = text.find(")", k + 1, k + 200)
    if close < 0 or "(" in text[k + 1:close] or not _BRACKET_OP.search(text, k + 1, close):
        return None  # no arithmetic inside ("(35.4 m3/s)" is a conversion, read elsewhere)
    return close


_BRACKET_OP = re.compile(r"[\u00d7*\u00f7\u00b7\u22c5]|\s[/x+\u2212-]\s")


def _formula_tokens(text: str, end: int, at: dict, start: int | None = None):
    """The trailing run of arithmetic before ``end`` (from ``start`` when given): [(kind,
    payload, start)]; kinds are "num" (payload (index, Number) or None for a bare literal,
    value in the start slot's neighbour), "op", "(", ")", "sqrt", "pi". Prose resets the run."""
    if start is None:
        start = max(text.rfind(c, 0, end) for c in "=\u2248\n:;")
        start = max(start + 1, end - 400)
    tokens: list = []
    pos = start
    while pos < end:
        hit = at.get(pos)
        if hit is not None:
            i, n = hit
            if n.sign and tokens and tokens[-1][0] in ("num", ")"):
                tokens.append(("op", "+", pos))
            tokens.append(("num", (i, n), pos))
            pos = max(n.nend, pos + 1)
            continue
        m = _FORMULA_TOKEN.match(text, pos)
        if m is None or m.end() > end:
            tokens = []  # prose: the formula, if any, starts after it
            pos += 1
            continue
        tok = m.group()
        pos = m.end()
        if tok.isspace() or tok == "**":
            continue
        if tok[0].isdigit():
            tokens.append(("lit", float(tok), m.start()))
        elif tok in ("sqrt", "\u221a"):
            tokens.append(("sqrt", None, m.start()))
        elif tok in ("pi", "\u03c0"):
            tokens.append(("lit", math.pi, m.start()))
        elif tok in "()":
            tokens.append((tok, None, m.start()))
        else:
            tokens.append(("op", tok, m.start()))
    while tokens and tokens[0][0] == "op":
        tokens.pop(0)
    if not any(t[0] == "op" for t in tokens):
        # a restatement "8.4 x 10^3 = 8,400 kW": one bare number, no arithmetic
        if len(tokens) == 1 and tokens[0][0] == "num" and tokens[0][1][1].unit is None:
            return tokens
        return []
    return tokens


def _evaluate(tokens):
    """(magnitude as written, SI value) of a token run, or None if it does not parse."""
    pos = 0

    def atom():
        nonlocal pos
        if pos >= len(tokens):
            raise ValueError
        kind, payload, _ = tokens[pos]
        if kind == "op" and payload in "-\u2212":
            pos += 1
            m, s = atom()
            return -m, -s
        if kind == "sqrt":
            pos += 1
            m, s = atom()
            if m < 0 or s < 0:
                raise ValueError
            return math.sqrt(m), math.sqrt(s)
        if kind == "(":
            pos += 1
            value = expr()
            if pos >= len(tokens) or tokens[pos][0] != ")":
                raise ValueError
            pos += 1
            return value
        if kind == "num":
            n = payload[1]
            pos += 1
            if n.percent:
                return n.value, n.value / 100.0
            return n.value, (_si(n.value, n.unit) if n.unit is not None else n.value)
        if kind == "lit":
            pos += 1
            return payload, payload
        raise ValueError

    def power():
        nonlocal pos
        base = atom()
        if pos < len(tokens) and tokens[pos][0] == "op" and tokens[pos][1] == "^":
            pos += 1
            ex = atom()
            return base[0] ** ex[0], base[1] ** ex[0]
        return base

    def term():
        nonlocal pos
        m, s = power()
        while pos < len(tokens) and tokens[pos][0] == "op" and tokens[pos][1] not in "+-\u2212^":
            op = tokens[pos][1]
            pos += 1
            m2, s2 = power()
            if op in "/\u00f7":
                m, s = m / m2, s / s2
            else:
                m, s = m * m2, s * s2
        return m, s

    def expr():
        nonlocal pos
        m, s = term()
        while pos < len(tokens) and tokens[pos][0] == "op" and tokens[pos][1] in "+-\u2212":
            op = tokens[pos][1]
            pos += 1
            m2, s2 = term()
            m, s = (m + m2, s + s2) if op == "+" else (m - m2, s - s2)
        return m, s

    try:
        value = expr()
    except (ValueError, ArithmeticError, TypeError):
        return None
    if pos != len(tokens):
        return None
    if not all(isinstance(x, float) and math.isfinite(x) for x in value):
        return None
    return value


def _formula_matches(value, r: Number, members=()) -> bool:
    """The arithmetic gives the result written, within 0.5% or the precision of the operands
    as written (at most 5%: "9.0e7 VA / 2.3e5 V = 394 A")."""
    m, s = value
    rel = max(0.005, min(0.05, max((n.tolerance / abs(n.value) for _, n in members if n.value),
                                   default=0.0)))
    if r.percent:
        targets = [(m, r.value), (s * 100.0, r.value), (s, r.value / 100.0)]
    elif r.unit is not None:
        targets = [(m, r.value), (s, _si(r.value, r.unit))]
    else:
        targets = [(m, r.value), (s, r.value)]
    for got, want in targets:
        if abs(got - want) <= max(r.tolerance if got is m else 0.0, rel * abs(want), 1e-12):
            return True
    return False


def _same_datum(written: str, recorded) -> bool:
    """The datum written names the recorded one; "ASD" (above station datum, as in "mASD")
    names whichever station datum the reading is on."""
    if recorded is None:
        return False
    if written == recorded:
        return True
    if written.upper() in ("ASD", "MASD"):
        return recorded.split(":", 1)[0] in ("GAGE", "GAUGE", "STND")
    try:
        from . import datums
        return datums.get(written).name == recorded
    except GuardViolation:
        return False


def is_close(a: float, b: float, tol: float) -> bool:
    return _close(a, b, tol)


def written_tolerance(raw) -> float:
    """Half a unit in the last place of a number as a model wrote it (a JSON number, a string)."""
    if raw.__class__ is bool:
        return 0.0
    if isinstance(raw, (int, float)):
        if isinstance(raw, int) or float(raw).is_integer():
            return _written_tolerance(str(int(raw)), 0, 3)
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


def relative_cap(value: float, tol: float, cap: float = 0.005) -> float:
    """A written-precision tolerance, capped at ``cap`` relative (0.5%) and at least 1e-9."""
    mag = abs(value)
    return max(min(tol, cap * mag), 1e-9 * mag)


def fmt_g(x: float) -> str:
    """Six significant digits, as a person reads it: 1250, 35.3961, 2.91583e+06."""
    return f"{x:g}"


def fmt_exact(x: float) -> str:
    """Every digit of the float, for a value a model should copy: 1250, 35.39605824."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text
