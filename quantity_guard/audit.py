"""The answer audit: every numeric literal in a final answer, classified against the ledger.

    audit = ledger.audit_answer(answer, context=question)
    audit.ok            # False only if something is unsourced or unit_mislabelled
    audit.findings      # one Finding per number: text, value, unit, status, match

Statuses:

- ``sourced``: matches a value a tool returned (converted into the unit written, if any);
- ``derived``: a sum or difference of two recorded outputs of like dimension (or of an output
  and a number from the question), one step deep; products and quotients would accept most
  random numbers, so they are not followed;
- ``quoted``: repeated back from the question;
- ``unsourced``: matches nothing;
- ``unit_mislabelled``: matches a recorded magnitude but is written with a unit that contradicts
  it (1350 Ml written as 1.35 Ml, or 35.4 written as cfs when it was m3/s).

Numbers are read the way people write them: thousands separators, the Unicode minus, signs
carried in words ("a deficit of 2.9 ft"), ranges ("3-5 ft"), percentages, rounding to the
precision written (17.1 written as 17, 11,200 for 11,196.96), units spelled out ("cubic feet
per second"), number words ("59.8 million m3"), "1.05 x 10^-4", markdown emphasis and units
given in a table's next cell or column header. Years,
dates, times, station and site numbers, list markers and ordinals are not quantities and are
skipped.
"""
from __future__ import annotations

import re

from .errors import GuardViolation

__all__ = ["Number", "Finding", "Audit", "extract_numbers", "audit_answer"]

_NUM = re.compile(
    r"(?<![\w.])(?P<sign>[-+\u2212])?(?P<num>(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)"
    r"(?:[eE](?P<exp>[-+]?\d{1,3})|\s?[\u00d7x*]\s?10(?:\^|\*\*)?"
    r"(?P<exp10>[-+\u2212\u207b]?[0-9\u2070\u00b9\u00b2\u00b3\u2074-\u2079]{1,3}))?"
    r"(?P<pct>\s?%)?")
_SUPERSCRIPTS = str.maketrans("\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b\u2212",
                              "0123456789--")
_MULTIPLIERS = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9}
_AFTER_NEGATIVE = re.compile(r"\s*(?:below|lower|less|short|under|down|beneath)\b", re.I)
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
                   r"|\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b\d{1,2}:\d{2}(?::\d{2})?\b")
_ID_WORDS = ("station", "site", "gage", "gauge", "usgs", "id", "no.", "number", "#", "sensor",
             "monitoring location", "location", "nwis", "huc", "code", "parameter")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_NEGATIVE_WORDS = ("deficit of", "shortfall of", "below", "short by", "lower by", "drop of",
                   "decrease of", "decline of", "down by", "fell by", "minus", "negative")
_UNIT_STOP = frozenset({"and", "or", "the", "a", "an", "of", "to", "at", "in", "on", "is", "was",
                        "with", "for", "from", "by", "which", "that", "this", "as", "than", "it"})
_BARE_DEGREE = frozenset({"deg", "degree", "degrees", "\u00b0"})
_RANGE_SEP = re.compile(r"\s*(?:-|\u2013|\u2014|to)\s*$")


class Number:
    """One numeric literal read from prose."""

    __slots__ = ("text", "value", "unit", "datum", "start", "end", "tolerance", "percent",
                 "negated")

    def __init__(self, text, value, unit, datum, start, end, tolerance, percent, negated) -> None:
        self.text, self.value, self.unit, self.datum = text, value, unit, datum
        self.start, self.end = start, end
        #: half a unit in the last place written: 17 covers 16.5..17.5, 17.1 covers 17.05..17.15,
        #: 11,200 covers 11,150..11,250 (trailing zeros of a whole number are not significant)
        self.tolerance = tolerance
        self.percent, self.negated = percent, negated

    def __repr__(self) -> str:
        return f"Number({self.text!r}, {self.value}, {self.unit!r})"


def _read_unit(text: str, pos: int):
    """The longest unit expression (with an optional datum) starting at ``pos``: up to six
    words, not across punctuation. Returns (unit, datum, end) or (None, None, pos)."""
    spans = []
    last = pos
    for w in _WORD.finditer(text, pos, min(len(text), pos + 80)):
        gap = text[last:w.start()]
        if gap.strip() or len(gap) > 2 or (not spans and w.start() - pos > 1):
            break
        token = w.group()
        core = token.rstrip(".*_`")
        if core in _UNIT_STOP:  # case kept: "393.6 A" is amperes, "a" an article
            break
        spans.append(w.start() + len(core))
        last = w.end()
        if len(spans) >= 6 or core != token:
            break
    for end in reversed(spans):
        hit = _phrase(text[pos:end].strip())
        if hit is not None:
            return hit[0], hit[1], end
    return None, None, pos


_PHRASES: dict[str, tuple | None] = {}


def _phrase(phrase: str):
    """(unit, datum) for a phrase, or None; cached, since answers repeat their units."""
    try:
        return _PHRASES[phrase]
    except KeyError:
        pass
    from .units import parse_with_datum, try_parse_unit
    hit = None
    unit = try_parse_unit(phrase)
    if unit is not None and phrase.lower() in _BARE_DEGREE:
        pass  # prose "12 degrees" may be a temperature or an angle: no unit is read
    elif unit is not None:
        hit = (unit, None)
    elif " " in phrase or phrase[:1] in "mf":  # "ft NAVD88", "mAOD": a unit and a datum
        try:
            unit, datum = parse_with_datum(phrase)
            if datum is None or _known_datum(datum):
                hit = (unit, datum)
        except GuardViolation:
            pass
    if len(_PHRASES) < 8192:
        _PHRASES[phrase] = hit
    return hit


def _known_datum(name: str) -> bool:
    from . import datums
    try:
        datums.get(name)
        return True
    except GuardViolation:
        return name == "ASD"


_WORD = re.compile(r"[^\s,;:!?()\[\]]+")


def _written_tolerance(raw: str, exp: int) -> float:
    if "." in raw:
        return 0.5 * 10.0 ** (exp - len(raw.split(".")[1]))
    digits = raw.replace(",", "")
    zeros = min(len(digits) - len(digits.rstrip("0")), 3) if digits.strip("0") else 0
    return 0.5 * 10.0 ** (exp + zeros)


def extract_numbers(text: str) -> list[Number]:
    """Every quantity-like number in ``text``, with the unit written after it if any."""
    if not text:
        return []
    skip = [(m.start(), m.end()) for m in _DATE.finditer(text)]
    out: list[Number] = []
    for m in _NUM.finditer(text):
        s, e = m.start(), m.end()
        if skip and any(a <= s < b for a, b in skip):
            continue
        raw = m.group("num")
        before = text[max(0, s - 24):s].lower()
        if text[e:e + 1].isalpha() and not m.group("pct") and \
                re.match(r"(st|nd|rd|th)\b", text[e:e + 3]):
            continue  # "1st", "2nd": ordinals; but "1250cfs" is a number with a unit
        digits = raw.replace(",", "")
        # station and site numbers, list markers, years, dates written with a month name
        if _ends_with_word(before, _ID_WORDS) or (
                digits.isdigit() and len(digits) >= 6 and digits.startswith("0")):
            continue
        if len(digits) <= 2 and text[e:e + 1] in ".)" and digits.isdigit() and \
                re.match(r"[.)]\s", text[e:e + 2]) and \
                text[text.rfind("\n", 0, s) + 1:s].strip() in ("", "-", "*", "("):
            continue  # a list marker: "1. ", "(2) "
        if digits.isdigit() and raw == digits and len(digits) == 4 \
                and 1800 <= int(digits) <= 2100 and not m.group("pct"):
            unit, _, _ = _read_unit(text, e)
            if unit is None:
                continue
        if digits.isdigit() and int(digits) <= 31 and not m.group("pct"):
            words_before = before.split()
            word_after = text[e:e + 12].strip().lower()
            if (words_before and words_before[-1][:3] in _MONTHS) or word_after[:3] in _MONTHS:
                continue
        exp = 0
        if m.group("exp"):
            exp = int(m.group("exp"))
        elif m.group("exp10"):
            exp = int(m.group("exp10").translate(_SUPERSCRIPTS))
        value = float(digits) * 10.0 ** exp
        tol = _written_tolerance(raw, exp)
        sign = m.group("sign")
        negated = False
        if sign in ("-", "\u2212"):
            value = -value
        elif _ends_with_word(before, _NEGATIVE_WORDS):
            negated = True
        percent = bool(m.group("pct"))
        unit = datum = None
        end = e
        if not percent:
            word = _WORD.match(text, e + (1 if text[e:e + 1] == " " else 0))
            factor = _MULTIPLIERS.get(word.group().lower().rstrip(".")) if word else None
            if factor is not None:  # "59.8 million m3"
                value, tol, end = value * factor, tol * factor, word.end()
            unit, datum, end = _read_unit(text, end)
            if unit is None and factor is not None:
                end = word.end()
        if not negated and _AFTER_NEGATIVE.match(text, end):
            negated = True  # "2.7% below the nominal"
        out.append(Number(text[s:end], value, unit, datum, s, end, tol, percent, negated))
    # a range "3-5 ft": the unit written after the second number applies to the first
    for a, b in zip(out, out[1:]):
        if a.unit is None and b.unit is not None and _RANGE_SEP.search(text[a.end:b.start] + " ") \
                and b.start - a.end <= 4:
            a.unit, a.datum = b.unit, b.datum
    if "|" in text:
        _table_units(text, out)
    return out


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
                if a <= num.start < b:
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


_SPLIT_WORDS: dict = {}


def _ends_with_word(before: str, words) -> bool:
    """``before`` ends with one of ``words`` as whole words ("said" does not end with "id")."""
    split = _SPLIT_WORDS.get(words)
    if split is None:
        split = _SPLIT_WORDS[words] = (frozenset(w for w in words if w.isalnum()),
                                       tuple(w for w in words if not w.isalnum()))
    singles, others = split
    tail = before.rstrip()
    k = len(tail)
    while k and (tail[k - 1].isalnum()):
        k -= 1
    if tail[k:] in singles:
        return True
    for w in others:  # phrases and symbols: "deficit of", "no.", "#"
        if tail.endswith(w):
            j = len(tail) - len(w)
            if j == 0 or not tail[j - 1].isalnum() or not w[0].isalnum():
                return True
    return False


class Finding:
    __slots__ = ("number", "status", "match", "note")

    def __init__(self, number: Number, status: str, match=None, note: str = "") -> None:
        self.number, self.status, self.match, self.note = number, status, match, note

    def __repr__(self) -> str:
        return f"Finding({self.number.text!r}: {self.status}{' - ' + self.note if self.note else ''})"

    def as_dict(self) -> dict:
        return {"text": self.number.text, "value": self.number.value,
                "unit": self.number.unit.symbol if self.number.unit is not None else None,
                "status": self.status, "note": self.note}


class Audit:
    """The findings for one answer; ``ok`` is False if any is unsourced or unit_mislabelled."""

    BAD = ("unsourced", "unit_mislabelled")

    def __init__(self, findings: list[Finding]) -> None:
        self.findings = findings

    @property
    def ok(self) -> bool:
        return not any(f.status in self.BAD for f in self.findings)

    def by_status(self, status: str) -> list[Finding]:
        return [f for f in self.findings if f.status == status]

    def as_dict(self) -> dict:
        return {"ok": self.ok, "findings": [f.as_dict() for f in self.findings]}

    def __repr__(self) -> str:
        counts: dict[str, int] = {}
        for f in self.findings:
            counts[f.status] = counts.get(f.status, 0) + 1
        return f"Audit(ok={self.ok}, {counts})"


def _close(a: float, b: float, tol: float) -> bool:
    return abs(a - b) <= max(tol, 1e-9 * max(abs(a), abs(b)))


def audit_answer(ledger, answer: str, context: str | None = None) -> Audit:
    """Classify each number in ``answer`` against ``ledger``'s outputs and ``context``."""
    quoted = ledger.context_numbers() if context == ledger.context else \
        extract_numbers(context or "")
    findings, seen = [], {}
    for num in extract_numbers(answer):
        # the same literal written again gets the same reading
        key = (num.value, num.unit, num.datum, num.tolerance, num.negated, num.percent)
        known = seen.get(key)
        if known is None:
            known = seen[key] = _classify(num, quoted, ledger)
        findings.append(known if known.number is num else
                        Finding(num, known.status, known.match, known.note))
    return Audit(findings)


def _si(value: float, unit) -> float:
    return value * unit.scale + unit.shift


def _classify(num: Number, quoted, ledger) -> Finding:
    """Index look-ups only (by magnitude, by SI value, sorted pairs): the cost of a number
    does not grow with the ledger beyond the pair window."""
    values = (num.value, -num.value) if num.negated else (num.value,)
    tol = num.tolerance
    unit = num.unit
    mislabel = None
    # 1. sourced: a recorded output, converted into the unit written (or with no unit written)
    for v in values:
        if unit is not None:
            si, si_tol = _si(v, unit), tol * unit.scale
            for e in ledger.outputs_in_si_range(unit.dims, si, si_tol):
                if _close(e.si, si, si_tol):
                    if num.datum is None or _same_datum(num.datum, e.datum):
                        return Finding(num, "sourced", e)
                    if mislabel is None:  # the right number on the wrong datum
                        mislabel = e
            for near in (ledger.outputs_in_range(v, tol), ledger.outputs_in_range(v, tol, "input")):
                for e in near:
                    if mislabel is None and e.unit != unit and _close(v, e.magnitude, tol) \
                            and e.magnitude != 0:
                        mislabel = e
        else:
            for e in ledger.outputs_in_range(v, tol):
                if _close(v, e.magnitude, tol):
                    return Finding(num, "sourced", e)
            if num.percent:
                for e in ledger.outputs_in_range(v / 100.0, tol / 100.0):
                    if e.unit.dimensionless and _close(v / 100.0, e.magnitude, tol / 100.0):
                        return Finding(num, "sourced", e)
    # 2. quoted from the question
    for q in quoted:
        for v in values:
            if _close(v, q.value, tol) and (unit is None or q.unit is None or unit == q.unit):
                return Finding(num, "quoted", q)
            if unit is not None and q.unit is not None and unit.dims == q.unit.dims and \
                    _close(_si(v, unit), _si(q.value, q.unit), tol * unit.scale):
                return Finding(num, "quoted", q)
    # 3. derived: a one-step sum or difference of two outputs of like dimension, or of an
    #    output and a number from the question (11 kV asked, 10.7 kV read: 0.3 kV)
    hit = ledger.find_derivation(values, unit, tol) or _with_question(values, unit, tol, quoted,
                                                                       ledger)
    if hit is not None:
        return Finding(num, "derived", hit)
    if mislabel is not None:
        return Finding(num, "unit_mislabelled", mislabel,
                       f"{num.text} matches {mislabel.label} = {mislabel.q}, but the unit "
                       f"written contradicts it")
    # 4. a prefix or unit off by a power of ten (1350 Ml restated as 1.35 Ml), or a value
    #    converted into SI that kept its original unit (1250 cfs written as 35.4 cfs)
    if unit is not None:
        for v in values:
            for e in ledger.outputs_in_si_range(unit.dims, v, tol):
                if _close(e.si, v, tol) and not _close(e.magnitude, v, tol) and e.magnitude != 0:
                    return Finding(num, "unit_mislabelled", e,
                                   f"{num.text} is {e.q} in SI units, written with the wrong unit")
            for scale in (1e3, 1e-3, 1e6, 1e-6):
                si, si_tol = _si(v * scale, unit), tol * abs(scale) * unit.scale
                for e in ledger.outputs_in_si_range(unit.dims, si, si_tol):
                    if e.magnitude != 0 and _close(e.si, si, si_tol):
                        return Finding(num, "unit_mislabelled", e,
                                       f"{num.text} is {e.q} off by a factor of {scale:g}: a "
                                       f"prefix or unit was misstated")
    return Finding(num, "unsourced", None)


def _with_question(values, unit, tol: float, quoted, ledger):
    """A question number q and a recorded output e (or a second question number) with
    v = q + e, q - e or e - q, all in SI; like dimensions only, one step deep."""
    if unit is None:
        return None
    given = [q for q in quoted if q.unit is not None and q.unit.dims == unit.dims]
    if not given:
        return None
    si_tol = tol * unit.scale
    for v in values:
        target = _si(v, unit)
        for q in given:
            qs = q.value * q.unit.scale
            for other in (target - qs, qs - target, target + qs):
                for e in ledger.outputs_in_si_range(unit.dims, other, si_tol):
                    if _close(e.si, other, si_tol):
                        return (q, e, "question")
            for q2 in given:
                if q2 is not q and any(_close(x, q2.value * q2.unit.scale, si_tol)
                                       for x in (target - qs, qs - target)):
                    return (q, q2, "question")
    return None


def _same_datum(written: str, recorded) -> bool:
    if recorded is None:
        return False
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
            return _written_tolerance(str(int(raw)), 0)
        text = repr(float(raw))
        if "e" in text:
            mant, exp = text.split("e")
            dec = len(mant.split(".")[1]) if "." in mant else 0
            return 0.5 * 10.0 ** (int(exp) - dec)
        return 0.5 * 10.0 ** -len(text.split(".")[1])
    if isinstance(raw, str):
        nums = extract_numbers(raw)
        return nums[0].tolerance if nums else 0.0
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
