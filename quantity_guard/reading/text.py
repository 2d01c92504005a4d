"""The reading layer's text primitives: normalising a text (LaTeX, superscripts, markdown),
the ``Number`` token, reading the unit (and datum) written after a number, operators and
sentence boundaries. Nothing here decides what a number is.
"""
from __future__ import annotations

import re

from ..errors import GuardViolation
from ..units.dimension import N_AXES
from ..numeric import canonical_datum, known_datum
from .cache import READS


UNIT_STOP = frozenset({"and", "or", "the", "a", "an", "of", "to", "at", "in", "on", "is", "was",
                        "with", "for", "from", "by", "which", "that", "this", "as", "than", "it"})
_BARE_DEGREE = frozenset({"deg", "degree", "degrees", "\u00b0"})


_MUL_OPS = "\u00d7*/\u00f7\u00b7\u22c5x"


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


def normalise(text: str):
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


def needs_normalising(text: str) -> bool:
    return "\\" in text or "$" in text


class Number:
    """One numeric literal read from prose."""

    __slots__ = ("text", "value", "unit", "datum", "start", "end", "tolerance", "percent",
                 "negated", "sign", "nstart", "nend", "sig1", "source_text", "_ops",
                 "boundary_tol", "flat")

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
        self.source_text = None  #: the (normalised) text it was read from
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
            src = self.source_text
            ops = self._ops = ("", "") if src is None else \
                (_op_before(src, self.nstart), _op_after(src, self.nend))
        return ops

    def __repr__(self) -> str:
        return f"Number({self.text!r}, {self.value}, {self.unit!r})"


_STOPPER = re.compile(r"[,;:!?()\[\]\n]")


def read_unit(text: str, pos: int):
    """The longest unit expression (with an optional datum) starting at ``pos``: up to six
    words, not across punctuation. Returns (unit, datum, end) or (None, None, pos). The
    reading depends only on the text up to the next punctuation: answers repeat it."""
    limit = min(len(text), pos + 80)
    m = _STOPPER.search(text, pos, limit)
    key = text[pos:m.start() + 1 if m else limit]
    reads = READS.unit_reads
    hit = reads.get(key)
    if hit is None:
        unit, datum, end = _read_unit_uncached(key, 0)
        hit = (unit, datum, end)
        if len(reads) < 8192:
            reads[key] = hit
    unit, datum, end = hit
    return unit, datum, pos + end


def _read_unit_uncached(text: str, pos: int):
    spans: list[int] = []
    last = pos
    for w in WORD.finditer(text, pos, min(len(text), pos + 80)):
        gap = text[last:w.start()]
        if gap.strip() or len(gap) > 2 or (not spans and w.start() - pos > 1):
            break
        token = w.group()
        core = token.rstrip(".*_`")
        if core == "in" and not spans and _INCH_AFTER.match(text, w.start() + 2):
            spans.append(w.start() + 2)  # "48.72 in.", "49 in of freeboard": inches
            break
        if core in UNIT_STOP:  # case kept: "393.6 A" is amperes, "a" an article
            break
        if spans and (token[0].isdigit() or token[0] in "-+\u2212" and token[1:2].isdigit()):
            break  # the next number: "86 400 s/day x 1 000 mm/m"
        spans.append(w.start() + len(core))
        last = w.end()
        if len(spans) >= 6 or core != token:
            break
    for end in reversed(spans):
        hit = read_phrase(text[pos:end].strip())
        if hit is not None:
            return hit[0], hit[1], end
    return None, None, pos


_INCH_AFTER = re.compile(r"\.?\s*(?:$|[;)\]=\u2248]|\.(?:\s|$)|of\b|\(|or\s+\d|\(?(?:about|roughly)\b)")


_GALLON = re.compile(r"(US|U\.S\.|UK|imperial|Imperial)\s+gal(?:lon)?s?\b")


def read_phrase(phrase: str):
    """(unit, datum) for a phrase, or None; cached, since answers repeat their units."""
    phrases = READS.phrases
    try:
        return phrases[phrase]
    except KeyError:
        pass
    from ..units import parse_with_datum, try_parse_unit
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
            if datum is None or known_datum(datum):
                hit = (unit, canonical_datum(datum))
    except (GuardViolation, ArithmeticError, ValueError, RecursionError):
        hit = None  # not a unit: prose that merely looks like one
    if len(phrases) < 8192:
        phrases[phrase] = hit
    return hit


_PAREN_DATUM = re.compile(r"\s?\(\s*([A-Za-z][\w :.-]{1,30}?)\s*\)")
LENGTH = (1,) + (0,) * (N_AXES - 1)
TIME = (0, 0, 1) + (0,) * (N_AXES - 3)


def paren_datum(text: str, end: int, unit):
    """The vertical datum named in brackets right after a length: "32.0 ft (NGVD 29)"."""
    if unit.dims != LENGTH:
        return None
    m = _PAREN_DATUM.match(text, end)
    if m is None:
        return None
    name = m.group(1)
    if name.lower().startswith(("above ", "on ")):
        name = name.split(None, 1)[1]
    from .. import datums
    try:
        return datums.get(name).name
    except GuardViolation:
        # "(gauge datum)", "(station datum)": a station's own datum, whichever station
        return "ASD" if name.upper().replace(" ", "").replace("-", "") in _STATION_WORDS \
            else None


_STATION_WORDS = frozenset({"GAGE", "GAUGE", "ASD", "MASD", "STATION", "STATIONDATUM",
                            "STAGEDATUM", "GAGEDATUM", "GAUGEDATUM", "GAGEZERO", "GAUGEZERO",
                            "LOCALDATUM", "ABOVESTATIONDATUM"})


WORD = re.compile(r"[^\s,;:!?()\[\]]+")


NOT_COUNTED = frozenset({"is", "was", "has", "as", "us", "this", "thus", "its", "less", "plus",
                          "minus", "yes", "does", "gives", "goes", "means", "uses", "equals",
                          "makes", "becomes", "stays", "remains", "sits", "lies", "gets", "says",
                          "shows", "reads", "returns", "yields", "comes", "amounts", "totals",
                          "exceeds", "falls", "rises", "across", "towards", "besides",
                          "per", "cross", "process", "access", "bias", "basis", "status"})


def sentence_start_at(text: str, k: int) -> bool:
    """Whether position ``k`` opens a sentence or a line (after ". ", ".) ", a newline)."""
    before = text[max(0, k - 3):k]
    return k == 0 or before.endswith(("\n", ". ", ".) ", ".)", ": ", "! ", "? ")) or \
        before.strip() == "" and "\n" in text[max(0, k - 3):k + 1]


def sentence_start(text: str, s: int) -> int:
    a = max(text.rfind(". ", 0, s), text.rfind("\n", 0, s), text.rfind("? ", 0, s),
            text.rfind("! ", 0, s), text.rfind("; ", 0, s))
    return a + 1


_IRREGULAR_PLURALS = frozenset({"people", "persons", "staff", "men", "women", "children", "crew",
                                "personnel", "engineers", "operators"})


def counted_noun_any(w: str) -> bool:
    return w.lower() in _IRREGULAR_PLURALS or counted_noun(w.lower())


def one_noun(w: str) -> bool:
    """A singular word after "1" that is no unit and no function word: "1 call"."""
    return not w.endswith("s") and w not in UNIT_STOP and w not in NOT_COUNTED and \
        len(w) > 2 and read_phrase(w) is None


def counted_noun(w: str) -> bool:
    """A plural noun that is no unit: "calls", "readings", "figures" (not "feet", "cumecs");
    or a plural without an s: "people", "staff", "crew"."""
    if w in _IRREGULAR_PLURALS:
        return True
    return w.endswith("s") and len(w) > 3 and w not in NOT_COUNTED and \
        w not in UNIT_STOP and w not in _BARE_DEGREE and read_phrase(w) is None and \
        read_phrase(w[:-1]) is None


def is_ratio_unit(unit) -> bool:
    """A dimensionless unit made of two or more units (s/d, L/m3, m3/s per cfs): a factor."""
    return not any(unit.dims) and len(unit.terms) >= 2 and unit.scale != 1.0


def code_before(text: str, k: int) -> bool:
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


def cell_unit(content: str, header: bool = False):
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
        hit = read_phrase(c.strip())
        if hit is not None:
            return hit
    return None


def reversed_words(words):
    """A pattern that matches reversed text ending with one of ``words`` as a whole word
    (trailing spaces ignored): "said" does not end with "id"."""
    alts = []
    for w in sorted(words, key=len, reverse=True):
        # a word that starts with a letter or digit must start at a word boundary
        alts.append(re.escape(w[::-1]) + (r"(?![^\W_])" if w[0].isalnum() else ""))
    return re.compile(r"\s*(?:" + "|".join(alts) + ")")
