"""How one number is classified against the ledger: sourced, derived (one step), quoted,
unsourced or unit_mislabelled, with the direction and taint checks.
"""
from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from itertools import chain

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # annotations only: they are never evaluated at run time
    from typing import Any

from ..units.dimension import DIMENSIONLESS as _DIMENSIONLESS
from ..conversions import Conversion
from ..numeric import is_close, pair_datum_ok, power_dims, same_datum, share_matches
from .cache import CACHE
from .codes import Reason
from ..reading.text import Number
from .findings import entry_name, Finding, note_text, shown, si_of
from .context import Context
from .formula import entry_has_kind, has_kind_axis, in_formula


def _leading_one(x: float) -> bool:
    m = abs(x) / 10.0 ** math.floor(math.log10(abs(x)))
    return 0.9999 < m < 1.0001


_SIGNED_BELOW = re.compile(r"[\s(,]{0,3}(?:(?:i\.e\.|that is|so),?\s+)?(?:below|under|beneath|short)\b",
                           re.I)


class Case:
    """One number being classified, and what its rules share: the values it may stand for
    (both signs when a word carries its sign), the tolerance written (never less than a float's
    own margin), the tolerance of a derivation, and what the first rule found on the way (a
    recorded magnitude with a contradicting unit or datum, a tainted source)."""

    __slots__ = ("num", "ctx", "ledger", "values", "tol", "dtol", "unit", "mislabel", "taint")

    def __init__(self, num: Number, ctx: Context) -> None:
        self.num, self.ctx, self.ledger, self.unit = num, ctx, ctx.ledger, num.unit
        self.values = (num.value, -num.value) if num.negated else (num.value,)
        self.tol = tol = max(num.tolerance, 1e-9 * abs(num.value))
        # a one-figure number stated flat is a rounding of a recorded output or a question
        # number; as a derivation it is read to its next place: one step of arithmetic over
        # the ledger offers too many values for a 10% window (measured in
        # evaluation/audit_rates.py: random one-figure numbers)
        self.dtol = max(num.flat, 1e-9 * abs(num.value)) if num.flat else tol
        self.mislabel: Any = None  # a recorded entry, once the first rule found one
        self.taint: Finding | None = None


def _recorded(c: Case) -> Finding | None:
    """A recorded output, converted into the unit written (or with no unit written), unless
    the direction written contradicts the tool's; a tainted one is kept for later."""
    num = c.num
    if num.sig1 and num.value and _leading_one(num.value) and c.tol >= 0.099 * abs(num.value):
        # one figure, a leading 1: below it the last place is ten times finer (96 rounds to
        # 100, but 90 stays 90), so "100" covers 95..110, not 90..110
        hit, c.mislabel = sourced(num, tuple(1.025 * v for v in c.values), c.unit,
                                  0.075 * abs(num.value), c.ledger)
    else:
        hit, c.mislabel = sourced(num, c.values, c.unit, c.tol, c.ledger)
    if hit is not None:
        if hit.status != "tainted":
            wrong_way = _direction_contradicts(num, hit.match, c.ctx) \
                if hit.match.__class__ is not tuple else None
            if wrong_way is not None:
                return Finding(num, "unsourced", hit.match, wrong_way, Reason.DIRECTION_REVERSED)
            return hit
        c.taint = hit  # unless the question states it or a sound derivation explains it
    return None


def _in_si_base(c: Case) -> Finding | None:
    """A recorded figure re-expressed in base units without its unit (42 MVA as 42,000,000)."""
    num, tol = c.num, c.tol
    if in_formula(num, c.ctx.reading.text):
        for v in c.values:
            for e in c.ledger.outputs_in_any_si_range(v, tol):
                if is_close(e.si, v, tol) and not is_close(e.magnitude, v, tol):
                    return Finding(num, "sourced", e,
                                   lambda: f"{e.label} = {shown(e)}, in SI base units",
                                   Reason.SOURCED_IN_SI_BASE)
    return None


def _share_as_fraction(c: Case) -> Finding | None:
    """A recorded share in a scaled ratio unit (per cent, per mille, ppm) written as a bare
    fraction: 20.0308 % as 0.20031, to the places written."""
    num, tol = c.num, c.tol
    view = c.ledger.si_view(_DIMENSIONLESS)
    for v in c.values:
        for e in _in_view(view, v, tol):
            u = e.unit
            if u.scale != 1 and not u.shift and is_close(e.si, v, tol) and \
                    e.call not in c.ledger.unsound_calls():
                return Finding(num, "sourced", e, lambda: f"{e.label} = {shown(e)}, as a fraction",
                               Reason.SOURCED_AS_FRACTION)
    return None


def _magnitude(c: Case) -> Finding | None:
    """The magnitude of a negative output, written without its sign."""
    num = c.num
    hit, _ = sourced(num, (-num.value,), c.unit, c.tol, c.ledger)
    if hit is not None and hit.status != "tainted" and hit.match.__class__ is not tuple:
        wrong_way = _direction_contradicts(num, hit.match, c.ctx)
        if wrong_way is not None:
            return Finding(num, "unsourced", hit.match, wrong_way, Reason.DIRECTION_REVERSED)
    if hit is not None:
        inner = hit.lazy_note
        return Finding(num, hit.status, hit.match,
                       lambda: f"the magnitude of {note_text(inner)}; the minus sign is not written",
                       Reason.SOURCED_MAGNITUDE if hit.status == "sourced" else hit.code)
    return None


def _quoted(c: Case) -> Finding | None:
    """A number the question states, in its unit or converted."""
    num, unit, tol = c.num, c.unit, c.tol
    for v in c.values:
        si = si_of(v, unit) if unit is not None else 0.0
        for q in c.ctx.quoted:
            if abs(v - q.value) <= tol and (unit is None or q.unit is None or unit == q.unit):
                return Finding(num, "quoted", q, lambda: f"stated in the question as {q.text!r}",
                               Reason.QUOTED)
            if unit is not None and q.unit is not None and unit.dims == q.unit.dims and \
                    is_close(si, si_of(q.value, q.unit), tol * unit.scale):
                return Finding(num, "quoted", q, lambda: f"stated in the question as {q.text!r}",
                               Reason.QUOTED)
            if unit is None and q.unit is None and \
                    share_matches(v, bool(num.percent), tol, q.value, bool(q.percent), q.tolerance):
                return Finding(num, "quoted", q,
                               lambda: f"stated in the question as {q.text!r} (as a "
                                       f"{'percentage' if num.percent else 'fraction'})",
                               Reason.QUOTED_AS_SHARE)
    return None


def _supported_input(c: Case) -> Finding | None:
    """What a sound call received (an input that itself traces to the record or the
    question), written back: the model quotes its own supported argument."""
    num, unit, tol, ledger = c.num, c.unit, c.tol, c.ledger
    for v in c.values:
        for e in ledger.outputs_in_range(v, tol, "input"):
            if e.call not in ledger.unsound_calls() and \
                    e.call not in ledger.refused_calls() and \
                    (e.unit == unit if unit is not None else
                     e.unit.dimensionless and not num.percent) and \
                    (num.datum is None or same_datum(num.datum, e.datum)) and \
                    e.magnitude.__class__ is float and abs(e.magnitude - v) <= tol:
                return Finding(num, "sourced", e,
                               lambda: f"{e.label} = {shown(e)}, the argument that call "
                                       f"received (it traces to the record)",
                               Reason.SOURCED_SUPPORTED_INPUT)
    return None


def _signed(c: Case) -> Finding | None:
    """An explicit sign on a recorded output of the opposite sign: a sign flipped, unless the
    tool's name states the direction the sign gives."""
    num = c.num
    flipped, _ = sourced(num, (-num.value,), c.unit, c.tol, c.ledger)
    if flipped is not None:
        e = flipped.match
        if num.value < 0 < getattr(e, "magnitude", 0) and \
                _tool_direction(getattr(e, "tool", None), getattr(e, "field", None)) == -1 and \
                _SIGNED_BELOW.match(c.ctx.reading.text, num.nend):
            # "difference -0.25 m (below)": a signed difference whose sign says what the
            # tool's name does (level_below_threshold = 0.25 m)
            return Finding(num, "sourced", e,
                           lambda: f"{e.label} = {shown(e)}, written as a signed "
                                   f"difference with its direction",
                           Reason.SOURCED_SIGNED_DIFFERENCE)
        return Finding(num, "unsourced", e,
                       lambda: f"the sign is flipped: {e.label} = {shown(e)}",
                       Reason.SIGN_FLIPPED)
    return None


def _sum_or_difference(c: Case) -> Finding | None:
    """A one-step sum or difference of two outputs of like dimension that respects their
    datums, or of an output and a number from the question (11 kV asked, 10.7 kV read:
    0.3 kV)."""
    num, ledger = c.num, c.ledger
    hit = ledger.find_derivation(c.values, c.unit, c.dtol, datum=num.datum) or \
        _with_question(c.values, c.unit, c.dtol, num.datum, c.ctx)
    if hit is not None:
        a, b, op = hit
        bad = _taints(hit, ledger)
        if bad is not None:
            return Finding(num, "tainted", hit, _tainted_note(bad, ledger),
                           Reason.TAINTED_DERIVATION)
        return Finding(num, "derived", hit,
                       lambda: f"{entry_name(a)} {op} {entry_name(b)}: {shown(a)} {op} {shown(b)}",
                       Reason.DERIVED)
    return None


def _product_or_ratio(c: Case) -> Finding | None:
    """A one-step product or ratio whose dimension is the dimension written."""
    found = _product(c.num, c.values, c.unit, c.dtol, c.ctx)
    if found is not None:
        bad = _taints(found.match, c.ledger) if found.match.__class__ is tuple else None
        if bad is not None:
            return Finding(c.num, "tainted", found.match, _tainted_note(bad, c.ledger),
                           Reason.TAINTED_DERIVATION)
        return found
    return None


def _complement(c: Case) -> Finding | None:
    """The complement of a share: "it would leave 98.93% of the flow" (100 % - 1.07 %), or of
    a share computed in one step ("the remaining 98.93%": 100 % - 0.5208 m3/s / 48.6 m3/s)."""
    num, tol, ledger = c.num, c.tol, c.ledger
    rest, _ = sourced(num, (100.0 - num.value,), None, tol, ledger)
    if rest is not None and rest.status == "sourced":
        e = rest.match
        return Finding(num, "derived", e,
                       lambda: f"100 % \u2212 {e.label}: 100 % \u2212 {shown(e)}",
                       Reason.DERIVED_COMPLEMENT)
    share = _product(num, (100.0 - num.value,), None, tol, c.ctx)
    if share is not None and share.match.__class__ is tuple and \
            _taints(share.match, ledger) is None:
        inner = share.lazy_note
        return Finding(num, "derived", share.match,
                       lambda: f"100 % \u2212 ({note_text(inner)})", Reason.DERIVED_COMPLEMENT)
    return None


def _tainted(c: Case) -> Finding | None:
    """A recorded output of a tainted call that nothing sound explains."""
    return c.taint


def _station_zero(c: Case) -> Finding | None:
    """"(station datum: 6.30 m AOD)": the station's zero on the reference datum."""
    num, e = c.num, c.mislabel
    if same_datum(num.datum, c.ledger.station_zeros().get(id(e))):
        return Finding(num, "sourced", e,
                       lambda: f"{e.label} = {shown(e)}: the height of the station's datum, "
                               f"written as the elevation of its zero on {num.datum}",
                       Reason.SOURCED_STATION_ZERO)
    return None


def _mislabelled(c: Case) -> Finding | None:
    """A recorded magnitude written with a unit (or datum) that contradicts it."""
    num, mislabel = c.num, c.mislabel
    return Finding(num, "unit_mislabelled", mislabel,
                   lambda: f"{num.text} matches {mislabel.label} = {mislabel.q}, but the "
                           f"unit written contradicts it", Reason.MISLABELLED)


def _off_scale(c: Case) -> Finding | None:
    """A prefix or unit off by a power of ten (1350 Ml restated as 1.35 Ml), or a value
    converted into SI that kept its original unit (1250 cfs written as 35.4 cfs)."""
    num, unit, tol = c.num, c.unit, c.tol
    view = c.ledger.si_view(unit.dims)
    for v in c.values:
        for e in _in_view(view, v, tol):
            if is_close(e.si, v, tol) and not is_close(e.magnitude, v, tol) and e.magnitude != 0:
                return Finding(num, "unit_mislabelled", e,
                               _si_note(num, e), Reason.MISLABELLED_SI)
        for scale in (1e3, 1e-3, 1e6, 1e-6):
            si, si_tol = si_of(v * scale, unit), tol * abs(scale) * unit.scale
            for e in _in_view(view, si, si_tol):
                if e.magnitude != 0 and is_close(e.si, si, si_tol):
                    return Finding(num, "unit_mislabelled", e,
                                   _scale_note(num, e, scale), Reason.MISLABELLED_SCALE)
    return None


class Rule:
    """One classification rule: ``decide(case)`` returns a finding (one of ``codes``) or None;
    it is tried only when ``gate(case)`` (cheap) holds."""

    __slots__ = ("name", "codes", "gate", "decide")

    def __init__(self, name: str, codes: tuple, gate, decide) -> None:
        self.name, self.codes, self.gate, self.decide = name, codes, gate, decide

    def __repr__(self) -> str:
        return f"Rule({self.name})"


def _always(c: Case) -> bool:
    return True


#: how a number is classified: the first rule whose gate holds and that decides, in this order
RULES = (
    Rule("recorded", (Reason.SOURCED, Reason.SOURCED_CONVERTED, Reason.SOURCED_AS_PERCENTAGE,
                      Reason.SOURCED_DATUM_CONVERSION, Reason.DIRECTION_REVERSED), _always,
         _recorded),
    Rule("share_as_fraction", (Reason.SOURCED_AS_FRACTION,),
         lambda c: c.unit is None and not c.num.percent, _share_as_fraction),
    Rule("in_si_base", (Reason.SOURCED_IN_SI_BASE,),
         lambda c: c.unit is None and not c.num.percent, _in_si_base),
    Rule("magnitude", (Reason.SOURCED_MAGNITUDE, Reason.DIRECTION_REVERSED, Reason.TAINTED),
         lambda c: c.num.sign is None and not c.num.negated and c.num.value > 0 and
         c.ledger.has_negative_output(), _magnitude),
    Rule("quoted", (Reason.QUOTED, Reason.QUOTED_AS_SHARE), lambda c: bool(c.ctx.quoted),
         _quoted),
    Rule("supported_input", (Reason.SOURCED_SUPPORTED_INPUT,), lambda c: bool(c.ledger.call_count),
         _supported_input),
    Rule("signed", (Reason.SOURCED_SIGNED_DIFFERENCE, Reason.SIGN_FLIPPED),
         lambda c: c.num.sign is not None, _signed),
    Rule("sum_or_difference", (Reason.DERIVED, Reason.TAINTED_DERIVATION), _always,
         _sum_or_difference),
    Rule("product_or_ratio", (Reason.DERIVED_PRODUCT, Reason.TAINTED_DERIVATION), _always,
         _product_or_ratio),
    Rule("complement", (Reason.DERIVED_COMPLEMENT,),
         lambda c: c.num.percent and c.unit is None and not c.num.negated and
         0 < c.num.value < 100, _complement),
    Rule("tainted", (Reason.TAINTED,), lambda c: c.taint is not None, _tainted),
    Rule("station_zero", (Reason.SOURCED_STATION_ZERO,),
         lambda c: c.mislabel is not None and c.num.datum is not None, _station_zero),
    Rule("mislabelled", (Reason.MISLABELLED,), lambda c: c.mislabel is not None, _mislabelled),
    Rule("off_scale", (Reason.MISLABELLED_SI, Reason.MISLABELLED_SCALE),
         lambda c: c.unit is not None, _off_scale),
)


_ORDER = tuple((None if r.gate is _always else r.gate, r.decide) for r in RULES)


def classify(num: Number, ctx: Context) -> Finding:
    """The first of ``RULES`` that decides, else ``unsourced``. Index look-ups only (by
    magnitude, by SI value, sorted pairs and sorted log-magnitudes): the cost of a number does
    not grow with the ledger beyond the pair window."""
    case = Case(num, ctx)
    for gate, decide in _ORDER:
        if gate is None or gate(case):
            found = decide(case)
            if found is not None:
                return found
    unit = num.unit
    return Finding(num, "unsourced", None, _UNSOURCED if unit is None else
                   lambda: f"{_UNSOURCED} in {unit.symbol}", Reason.UNSOURCED)


_UNSOURCED = ("no recorded output, question number, one-step sum, difference, product or ratio "
              "of them matches it")


def _sourced_note(e, unit):
    if unit is None or e.unit == unit:
        return lambda: f"{e.label} = {shown(e)}"
    return lambda: f"{e.label} = {shown(e)}, converted to {unit.symbol}"


def _sourced_code(e, unit) -> Reason:
    if e.__class__ is Conversion:
        return Reason.SOURCED_DATUM_CONVERSION
    return Reason.SOURCED if unit is None or e.unit == unit else Reason.SOURCED_CONVERTED


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


def sourced(num, values, unit, tol, ledger):
    """(Finding or None, a mislabel candidate or None). An output of a tainted call (one
    that ran despite a recorded violation of its inputs) is a source only of a ``tainted``
    finding, and only when no sound output matches."""
    mislabel = taint = None
    tainted = ledger.unsound_calls()
    view = ledger.si_view(unit.dims) if unit is not None else None
    converted = ledger.converted_elevations() if unit is not None else None
    for v in values:
        if unit is not None:
            si, si_tol = si_of(v, unit), tol * unit.scale
            near = _in_view(view, si, si_tol)
            for e in chain(near, converted) if converted else near:
                # (a recorded elevation carried to another datum by a recorded offset is the
                # same point, sourced like a unit conversion)
                if is_close(e.si, si, si_tol) and e.unit.dims == unit.dims:
                    if num.datum is None or same_datum(num.datum, e.datum):
                        if tainted and e.call in tainted:
                            taint = taint or e
                            continue
                        return Finding(num, "sourced", e, _sourced_note(e, unit),
                                       _sourced_code(e, unit)), None
                    if mislabel is None:  # the right number on the wrong datum
                        mislabel = e
            for near in (ledger.outputs_in_range(v, tol), ledger.outputs_in_range(v, tol, "input")):
                for e in near:
                    if mislabel is None and e.unit != unit and \
                            power_dims(e.unit.dims) == power_dims(unit.dims) and \
                            is_close(v, e.magnitude, tol) and e.magnitude != 0:
                        mislabel = e
        else:
            for e in ledger.outputs_in_range(v, tol):
                if is_close(v, e.magnitude, tol):
                    if num.percent and not e.unit.dimensionless:
                        # "48.6%" for a recorded 48.6 m3/s: the per cent sign is a unit, and
                        # the wrong one (a share is a ratio: read below, or derived)
                        mislabel = mislabel or e
                        continue
                    if tainted and e.call in tainted:
                        taint = taint or e
                        continue
                    return Finding(num, "sourced", e, _sourced_note(e, None),
                                   Reason.SOURCED), None
            if num.percent:
                for e in ledger.outputs_in_range(v / 100.0, tol / 100.0):
                    if e.unit.dimensionless and is_close(v / 100.0, e.magnitude, tol / 100.0):
                        if tainted and e.call in tainted:
                            taint = taint or e
                            continue
                        return Finding(num, "sourced", e,
                                       lambda: f"{e.label} = {shown(e)}, as a percentage",
                                       Reason.SOURCED_AS_PERCENTAGE), None
    if taint is not None:
        return Finding(num, "tainted", taint, _tainted_note(taint, ledger),
                       Reason.TAINTED), None
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
LIMIT_NOUNS = frozenset({"threshold", "limit", "warning", "alarm", "alert", "trigger", "rating",
                          "capacity", "allowance", "maximum", "max", "minimum", "min", "design",
                          "target", "licence", "license", "licensed", "crest", "setpoint",
                          "trip", "cap", "ceiling", "floor"})


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


def _tool_direction(tool, field) -> int:
    """+1 or -1 when the tool (and field) name states one direction, else 0 (cached)."""
    return _tool_sides(tool, field)[0]


def _tool_sides(tool, field):
    """(direction, subject words, reference words) of a tool (and field) name that states one
    direction: ``level_below_threshold`` is (-1, {level}, {threshold}): the level is below
    the threshold by the value. (0, (), ()) when the name states none (cached)."""
    key = (tool, field)
    memo = CACHE.tool_sides
    d = memo.get(key)
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
        if len(memo) < 4096:
            memo[key] = d
    return d


def _names(words, side) -> bool:
    """Some word names one of ``side``'s words (its first five letters: level/levels)."""
    return any(w[:5] == s[:5] for w in words for s in side if len(w) > 2)


def _side_named(words, subject, reference) -> int:
    """+1 when a phrase names the reference side (a limit noun counts when the reference is
    one, and dominates: "the warning level"), -1 the subject side, 0 neither."""
    limit = bool(reference & LIMIT_NOUNS)
    if _names(words, reference) or limit and any(w in LIMIT_NOUNS for w in words):
        return 1
    if _names(words, subject) or not limit and subject & LIMIT_NOUNS and \
            any(w in LIMIT_NOUNS for w in words):
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
    return (f"the direction is reversed: {e.label} = {shown(e)} means "
            f"{_DIRECTION_TEXT[-written]}{how}")


def _tainted_note(e, ledger):
    def note():
        codes = sorted({v["code"] for v in ledger.violations if v["call"] == e.call})
        if not codes:
            i = ledger.unsupported_calls().get(e.call)
            if i is not None:
                return (f"{e.label} = {shown(e)}, but that call received {i.label} = {shown(i)}, "
                        f"which no earlier output, question number or one-step sum or "
                        f"difference supports: it is computed from a value of unknown "
                        f"provenance")
        return (f"{e.label} = {shown(e)}, but that call ran with a recorded violation of its "
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
        target = si_of(v, unit)
        for q in given:
            qs = q.value * q.unit.scale
            qd = q.datum
            for other, a_is_q, op in ((target - qs, True, "+"), (qs - target, True, "-"),
                                      (target + qs, False, "-")):
                for e in _in_view(view, other, si_tol):
                    if not is_close(e.si, other, si_tol) or id(e) in ledger.datum_offsets() or \
                            ledger.inverts_call((e,), power_dims(unit.dims), target, si_tol):
                        continue
                    pair = (q, e) if a_is_q else (e, q)
                    if pair_datum_ok(pair[0].datum, pair[1].datum, op, written_datum):
                        return (pair[0], pair[1], op)
            for q2 in given:
                if q2 is q:
                    continue
                q2s = q2.value * q2.unit.scale
                if is_close(target - qs, q2s, si_tol) and pair_datum_ok(qd, q2.datum, "+",
                                                                      written_datum):
                    return (q, q2, "+")
                if is_close(qs - target, q2s, si_tol) and pair_datum_ok(qd, q2.datum, "-",
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
                                unit is not None and has_kind_axis(unit.dims), reject, ctx.polyphase)
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
                        if is_close(sa * c, s, tol_si):
                            return Finding(num, "derived", (ea, cname, "\u00d7"),
                                           f"{cname} \u00d7 {entry_name(ea)}: {cname} \u00d7 {shown(ea)}",
                                           Reason.DERIVED_PRODUCT)
    return None


_ROOT3 = [("\u221a3", math.sqrt(3.0))]
_INV_ROOT3 = [("1/\u221a3", 1.0 / math.sqrt(3.0))]


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
        elif op == "\u00f7" and entry_has_kind(ea):
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
                        (op == "\u00d7" and not entry_has_kind(ea) and not entry_has_kind(eb) or
                         op == "\u00f7" and not entry_has_kind(eb)):
                    continue  # S = V I or I = S / V: single-phase only (see _POLYPHASE)
                value = sa * sb * c if op == "\u00d7" else sa / sb * c
                if is_close(value, s, tol_si) and not (reject and reject(ea, eb)):
                    return ea, eb, cname
    return None


def _product_finding(num, found, op):
    a, b, cname = found
    c = f" \u00d7 {cname}" if cname else ""
    pct = " \u00d7 100 %" if num.percent else ""
    return Finding(num, "derived", (a, b, op),
                   lambda: f"{entry_name(a)} {op} {entry_name(b)}{c}{pct}: {shown(a)} {op} {shown(b)}{c}{pct}",
                   Reason.DERIVED_PRODUCT)


_NO_CONSTANT = [("", 1.0)]
