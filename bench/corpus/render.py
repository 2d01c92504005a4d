"""Style renderers: one plan, many ways of writing it down.

A ``Writer`` accumulates text and records every figure it writes (its span, the value the text
denotes, the unit written, and what the figure is). Styles decide what to say; the writer's
options (digit grouping, minus sign, scientific spelling, precision, unit spellings, hedging)
decide how each number looks, so one style is many phrasings.
"""
from __future__ import annotations

import math
import re

from . import numbers as N
from . import units as U
from .model import CONSTANTS, IDENTITIES, Fact, depth

_DIGIT_TOKEN = re.compile(r"\S*\d\S*")
HEDGES = ["about ", "roughly ", "approximately ", "~", "≈ ", "around ", "some "]
MUL_SIGNS = [" × ", " × ", " * ", " · ", " x "]
DIV_SIGNS = [" / ", " / ", " ÷ "]


class Writer:
    def __init__(self, rng, facts: dict, opts: dict) -> None:
        self.rng = rng
        self.facts = facts
        self.o = opts
        self.parts: list[str] = []
        self.n = 0
        self.figures: list[dict] = []
        self._spell: dict = {}

    # -- text ------------------------------------------------------------------------------
    def _raw(self, s: str) -> None:
        self.parts.append(s)
        self.n += len(s)

    def t(self, s: str, what: str = "text") -> "Writer":
        """Write text; any digits in it (a unit exponent, a datum name, an id) are recorded as
        non-quantities, so every digit of an answer belongs to a recorded figure."""
        pos = 0
        for m in _DIGIT_TOKEN.finditer(s):
            tok = m.group(0).strip(".,;:()[]*|$")
            start = m.start() + m.group(0).index(tok)
            self._raw(s[pos:start])
            self._record(tok, kind="non_quantity", what=what)
            pos = start + len(tok)
        self._raw(s[pos:])
        return self

    def text(self) -> str:
        return "".join(self.parts)

    def _record(self, text: str, **rec) -> None:
        start = self.n
        self._raw(text)
        self.figures.append({"start": start, "end": self.n, "text": text, **rec})

    def nq(self, text: str, what: str) -> "Writer":
        """A string with digits that is not a quantity (an id, a date, a step label)."""
        self._record(text, kind="non_quantity", what=what)
        return self

    # -- spelling choices (one per answer) -------------------------------------------------
    def unit_spelling(self, unit: str, datum: str | None = None) -> str:
        key = (unit, datum, self.o.get("latex", False))
        if key not in self._spell:
            if datum and (unit, datum) in U.DATUM_TAILS:
                tail = self.rng.choice(U.DATUM_TAILS[(unit, datum)])
                if self.o.get("latex"):
                    tail = "\\ \\text{" + tail.strip() + "}"
                self._spell[key] = tail
            elif self.o.get("latex"):
                s = self.rng.choice(U.LATEX[unit])
                self._spell[key] = s if s.startswith("\\,") else "\\ " + s
            else:
                s = self.rng.choice(U.PLAIN[unit])
                if s.startswith(" "):
                    self._spell[key] = s
                elif s == "%":
                    self._spell[key] = "%" if self.rng.random() < 0.7 else " %"
                else:
                    self._spell[key] = " " + s
        return self._spell[key]

    # -- numbers ---------------------------------------------------------------------------
    def _format(self, value: float, fact: Fact | None, *, signed: bool = True,
                hedged: bool = False, sci: bool | None = None, prec: str | None = None):
        o = self.o
        mode = prec or o.get("prec", "sig3")
        minus = o.get("minus", "-")
        group = o.get("group", ",")
        gmin = o.get("group_min", 5)
        av = abs(value)
        if sci is not None:
            use_sci = sci
        elif av != 0 and (av >= 1e9 or av < 1e-4):
            use_sci = True   # nobody writes 0.00000000118
        elif o.get("sci_all"):
            use_sci = av != 0 and (av >= 100 or av < 0.1)
        else:
            use_sci = o.get("sci") and av != 0 and (av >= 1e5 or av < 1e-3)
        if mode == "full":
            return N.full_precision(value, minus=minus, signed=signed)
        exact = fact is not None and fact.exact
        if exact and not use_sci:
            # a short exact figure is copied as the tool printed it (27.5, 1250, 32.0)
            text = repr(float(value))
            dec = len(text.split(".")[1]) if "." in text else 0
            if text.endswith(".0"):
                dec = 1 if (o.get("keep_zero") and av < 1000) or fact.error == "wrong_datum" \
                    else 0
            return N.positional(value, decimals=dec, group=group, group_min=gmin, minus=minus,
                                signed=signed)
        sig = {"sig2": 2, "sig3": 3, "sig4": 4, "sig5": 5}.get(mode, 3)
        if hedged and o.get("coarse"):
            sig = 1
        # a careful writer keeps the rounding error small: 1% plain, 3% hedged
        limit = 0.03 if hedged else 0.006
        while sig < 6:
            r = N.round_sig(value, sig)
            if value == 0 or abs(r - value) <= limit * abs(value):
                break
            sig += 1
        if use_sci and av != 0:
            return N.scientific(value, sig, o.get("sci_spelling", "times_sup"), minus=minus,
                                signed=signed)
        if mode == "dec2" and 0.01 <= av < 1000:
            d = 2
            while abs(round(value, d) - value) > limit * abs(value) and d < 8:
                d += 1
            return N.positional(value, decimals=d, group=group, group_min=gmin, minus=minus,
                                signed=signed)
        r = N.round_sig(value, sig)
        # trailing zeros of an exactly written value (4.500 for 4.5) are usually dropped
        trim = o.get("trim", False) or abs(r - value) <= 1e-12 * abs(value)
        return N.positional(value, sig=sig, group=group, group_min=gmin, minus=minus,
                            signed=signed, trim=trim)

    def _fact_record(self, f: Fact, w: N.Written, unit: str | None, **extra) -> dict:
        rec = {"value": w.value, "step": w.step, "unit": unit, "datum": None, "fact": f.key,
               "kind": "wrong" if f.error else f.kind, "error": f.error}
        if unit is None and f.unit is not None:
            rec["meant_unit"] = f.unit   # written bare (in a formula); the fact's unit
        if not f.error and f.kind in ("derivation", "conversion"):
            d = depth(self.facts, f.key)
            if d > 1:
                rec["depth"] = d         # needs a written intermediate
        if f.tool:
            rec["tool"] = f.tool
        if f.of:
            rec["of"] = f.of
        if f.op:
            rec["op"], rec["operands"] = f.op, list(f.args)
        rec.update(extra)
        return rec

    def fig(self, key: str, *, unit: bool = True, signed: bool = True, hedge: bool = False,
            prec: str | None = None, sci: bool | None = None, datum: bool = True,
            loose: bool = False, unit_elsewhere: bool = False) -> "Writer":
        """Write fact ``key`` (with its unit and datum unless told otherwise)."""
        f = self.facts[key]
        if f.error == "over_rounded" and not hedge and not self.text().endswith(
                tuple(h for h in HEDGES)):
            hedge = True   # "about 1000 cfs" for 1250: rounded far past what the data allow
        if f.error == "over_rounded":
            sci = False    # 1 × 10³ would be a one-figure rounding, legitimately 1250
        if hedge:
            self.t(self.rng.choice(HEDGES))
        value = f.value
        if (prec or self.o.get("prec")) == "full" and f.kind == "derivation" \
                and self.rng.random() < 0.5:
            # a model's own recomputation differs from the tool's float in the last digits
            for _ in range(self.rng.randint(1, 4)):
                value = math.nextafter(value, math.inf)
        w = self._format(value, f, signed=signed, hedged=hedge or loose, prec=prec, sci=sci)
        rec = self._fact_record(f, w, f.unit if unit or unit_elsewhere else None,
                                datum=f.datum if (unit or unit_elsewhere) and datum else None,
                                hedged=hedge or loose)
        if unit_elsewhere:
            rec["unit_elsewhere"] = True   # the unit is written apart (a table's unit column)
        if f.error in ("wrong_unit", "wrong_datum") and \
                (rec["unit"] is None if f.error == "wrong_unit" else rec["datum"] is None):
            # a wrong label not written is no error: the bare figure is the legitimate one
            rec["error"] = None
            rec["kind"] = f.kind
            rec.pop("meant_unit", None)
        if not signed and f.value < 0:
            rec["sign_in_words"] = True   # the magnitude is written; the sign is in words
            rec["value"] = -w.value
        self._record(w.text, **rec)
        if unit and f.unit:
            self.t(self.unit_spelling(f.unit, f.datum if datum else None), "unit")
        return self

    def fig_range(self, key: str) -> "Writer":
        """``between a and b`` / ``a–b`` around fact ``key``, each end one step away."""
        f = self.facts[key]
        v = f.value
        sig = 2 if self.rng.random() < 0.6 else 3
        d = N.decimals_for_sig(v, sig)
        step = 10.0 ** (-d)
        lo = math.floor(v / step + 1e-9) * step
        hi = lo + step
        if abs(lo - v) < 1e-9 * abs(v):
            lo, hi = v - step, v + step
        minus = self.o.get("minus", "-")
        group = self.o.get("group", ",")
        wl = N.positional(lo, decimals=d, group=group, minus=minus)
        wh = N.positional(hi, decimals=d, group=group, minus=minus)
        base = self._fact_record(f, wl, f.unit, datum=f.datum, range_bound=True)
        form = self.rng.choice(["between {a} and {b}", "{a}–{b}", "{a} to {b}", "{a}-{b}"])
        pre, rest = form.split("{a}")
        mid, post = rest.split("{b}")
        self.t(pre)
        self._record(wl.text, **base)
        self.t(mid)
        self._record(wh.text, **{**base, "value": wh.value, "step": wh.step})
        self.t(post)
        if f.unit:
            self.t(self.unit_spelling(f.unit, f.datum), "unit")
        return self

    def const(self, ckey: str) -> "Writer":
        value, plain, latex = CONSTANTS[ckey]
        forms = latex if self.o.get("latex") else plain
        for part in self.rng.choice(forms):
            if isinstance(part, str):
                self.t(part)
            elif part[0] == "grouped":
                g = self.o.get("group", ",")
                text = N.group_int(str(part[1]), "\\," if self.o.get("latex") and g else g, 4)
                self._record(text, kind="constant", constant=ckey, value=float(part[1]),
                             step=0.0, unit=None, error=None)
            else:
                self._record(part[2], kind="constant", constant=ckey, value=float(part[1]),
                             step=0.0, unit=None, error=None)
        return self

    def identity(self, ikey: str) -> "Writer":
        (lv, lu), (rv, ru) = self.rng.choice(IDENTITIES[ikey])
        for i, (v, u) in enumerate(((lv, lu), (rv, ru))):
            if i:
                self.t(self.rng.choice([" = ", " ≈ "]) if rv != int(rv) else " = ")
            if v == 1e6:
                text = self.rng.choice(["10⁶", "1,000,000", "1e6"])
            elif v >= 1e7:
                w = N.scientific(v, 2, self.rng.choice(["times_sup", "e", "x_caret"]))
                text = w.text.replace(" ", "") if self.rng.random() < 0.5 else w.text
            else:
                text = N.group_int(str(int(v)), self.o.get("group", ","), 4) if v == int(v) \
                    else f"{v:g}" if len(f"{v:g}") < len(str(v)) else str(v)
            self._record(text, kind="identity", identity=ikey, value=float(v), step=0.0,
                         unit=None, error=None)
            self.t(" " + u, "unit")
        return self

    # -- expressions -------------------------------------------------------------------------
    def expr(self, node, *, symbolic: bool = False, units: bool = False) -> "Writer":
        kind = node[0]
        latex = self.o.get("latex")
        if kind == "f":
            f = self.facts[node[1]]
            if symbolic:
                self.t(_latex_sym(f.sym or f.key) if latex else (f.sym or f.key))
                return self
            show = units if len(node) < 3 or node[2] is None else node[2] and units
            if f.value < 0 and not symbolic:
                self.t("(")
                self.fig(node[1], unit=show, datum=False)
                self.t(")")
                return self
            return self.fig(node[1], unit=show, datum=False)
        if kind == "c":
            return self.const(node[1])
        if kind == "paren":
            self.t("\\left(" if latex and self.rng.random() < 0.3 else "(")
            self.expr(node[1], symbolic=symbolic, units=units)
            self.t("\\right)" if self.parts[-1:] and False else ")")
            return self
        if kind == "abs":
            return self.fig(node[1][1], unit=units, signed=False)
        a, b = node[1], node[2]
        if kind == "div" and latex:
            self.t("\\frac{")
            self.expr(a, symbolic=symbolic, units=units)
            self.t("}{")
            self.expr(b[1] if b[0] == "paren" else b, symbolic=symbolic, units=units)
            self.t("}")
            return self
        self.expr(a, symbolic=symbolic, units=units)
        if kind == "mul":
            self.t(" \\times " if latex else self.o.get("mul", " × "))
        elif kind == "div":
            self.t(self.o.get("div", " / "))
        elif kind == "add":
            # x + (-0.44) is often written x - 0.44: the magnitude, the sign in the operator
            if b[0] == "f" and self.facts[b[1]].value < 0 and not symbolic \
                    and self.o.get("fold_sign", True):
                self.t(" − " if self.o.get("minus") == N.MINUS else " - ")
                return self.fig(b[1], unit=units, signed=False, datum=False)
            self.t(" + ")
        elif kind == "sub":
            self.t(" − " if self.o.get("minus") == N.MINUS else " - ")
        self.expr(b, symbolic=symbolic, units=units)
        return self

    def step_eq(self, step, *, symbolic: bool = True, units: bool = False,
                final_unit: bool = True) -> "Writer":
        f = self.facts[step.result]
        latex = self.o.get("latex")
        if symbolic and f.sym and f.kind != "conversion" and f.sym not in _syms(step.expr, self):
            self.t((_latex_sym(f.sym) if latex else f.sym) + " = ")
            self.expr(step.expr, symbolic=True)
            self.t(" = ")
        self.expr(step.expr, units=units)
        approx = not f.exact and self.o.get("prec") != "full"
        self.t(" \\approx " if latex and approx else " ≈ " if approx else " = ")
        return self.fig(step.result, unit=final_unit)


def _syms(node, w) -> set:
    if node[0] == "f":
        return {w.facts[node[1]].sym}
    if node[0] in ("c",):
        return set()
    return set().union(*(_syms(n, w) for n in node[1:] if isinstance(n, tuple)))


def _latex_sym(s: str) -> str:
    if "_" in s:
        base, sub = s.split("_", 1)
        return f"{base}_{{\\text{{{sub}}}}}"
    return s


def new_opts(rng, *, latex: bool = False) -> dict:
    """Per-answer writing habits."""
    group = rng.choice(["comma", "comma", "comma", "none", "thin", "nnbsp", "space"])
    return {
        "group": N.GROUPINGS[group], "group_name": group,
        "group_min": rng.choice([4, 4, 5]),
        "minus": N.MINUS if rng.random() < 0.3 else "-",
        "prec": rng.choice(["sig3", "sig3", "sig4", "sig2", "dec2", "sig5"]),
        "sci": rng.random() < 0.5,
        "sci_spelling": "latex" if latex else rng.choice(N.SCI_SPELLINGS[:-1]),
        "latex": latex,
        "mul": rng.choice(MUL_SIGNS), "div": rng.choice(DIV_SIGNS),
        "keep_zero": rng.random() < 0.5, "trim": rng.random() < 0.3,
        "coarse": rng.random() < 0.3, "fold_sign": rng.random() < 0.6,
    }
