"""An independent reading of the UDUNITS-2 XML database, for the conformance tests.

It evaluates each unit's ``<def>`` in exact rationals over the units before it (the database's
own order), with the dimension over the seven SI base axes, the offset of a scale (``@``), and
the tolerance the database's printed digits allow: a literal printed with five significant
digits or more (``3.785412e-3``) stands for any value that rounds to it, so the kernel's exact
definition of the same unit (231 in3) agrees within half a unit of its last digit; shorter
literals (``2.54``, ``0.9``) are taken as exact. Logarithmic units (``lg(re ...)``) are marked,
not evaluated. Nothing here imports the kernel.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).parent / "conformance"
FILES = ("udunits2-base.xml", "udunits2-derived.xml", "udunits2-accepted.xml",
         "udunits2-common.xml")
BASES = {"meter": 0, "kilogram": 1, "second": 2, "ampere": 3, "kelvin": 4, "mole": 5,
         "candela": 6}
ZERO = (0,) * 7


class Value:
    __slots__ = ("factor", "dims", "offset", "tol", "level", "ref")

    def __init__(self, factor, dims=ZERO, offset=Fraction(0), tol=0.0, level=None, ref=None):
        self.factor, self.dims, self.offset, self.tol, self.level = factor, dims, offset, tol, level
        self.ref = ref  # a level's reference quantity

    def __mul__(self, o):
        return Value(self.factor * o.factor, tuple(a + b for a, b in zip(self.dims, o.dims)),
                     tol=self.tol + o.tol, level=self.level or o.level)

    def __truediv__(self, o):
        return Value(self.factor / o.factor, tuple(a - b for a, b in zip(self.dims, o.dims)),
                     tol=self.tol + o.tol, level=self.level or o.level)

    def __pow__(self, n):
        return Value(self.factor ** n, tuple(a * n for a in self.dims), tol=self.tol * abs(n),
                     level=self.level)


def literal(text: str) -> Value:
    f = Fraction(text)
    mantissa = re.match(r"[+-]?([0-9.]*)", text).group(1)
    digits = mantissa.replace(".", "").lstrip("0")
    tol = 0.0
    if len(digits) >= 5 and f:
        last = -len(mantissa.split(".")[1]) if "." in mantissa else 0
        exp = int(text.lower().split("e")[1]) if "e" in text.lower() else 0
        tol = 0.5 * 10.0 ** (last + exp) / abs(float(f))
    return Value(f, tol=tol)


def prefixes() -> "dict[str, Fraction]":
    out = {}
    for p in ET.parse(HERE / "udunits2-prefixes.xml").getroot().iter("prefix"):
        value = Fraction(p.findtext("value").strip())
        out[p.findtext("name").strip()] = value
        for s in p.findall("symbol"):
            out[s.text.strip()] = value
    return out


def _plural(name: str) -> str:
    """udunits' rule for a name without <plural> (lib/xml.c, ut_form_plural)."""
    if name.endswith(("s", "x", "z", "ch", "sh")):
        return name + "es"
    if name.endswith("y") and len(name) > 1 and name[-2] not in "aeiou":
        return name[:-1] + "ies"
    return name + "s"


class Database:
    def __init__(self) -> None:
        self.prefixes = prefixes()
        self.prefix_names = {k for k in self.prefixes if len(k) > 2}
        self.units: dict[str, Value] = {}     # every spelling -> its value
        self.kind: dict[str, str] = {}        # spelling -> "name", "plural" or "symbol"
        self.file: dict[str, str] = {}
        self.order: list[str] = []
        for f in FILES:
            for u in ET.parse(HERE / f).getroot().iter("unit"):
                self._unit(u, f)

    def _unit(self, u, f) -> None:
        if u.find("base") is not None:
            name = u.find("name").findtext("singular").strip()
            dims = [0] * 7
            dims[BASES[name]] = 1
            value = Value(Fraction(1), tuple(dims))
        elif u.find("dimensionless") is not None:
            value = Value(Fraction(1))
        else:
            value = self.evaluate(u.findtext("def").strip())
        for parent in (u, u.find("aliases")):
            if parent is None:
                continue
            for n in parent.findall("name"):
                singular = n.findtext("singular").strip()
                self._add(singular, value, "name", f)
                if n.find("plural") is not None:
                    self._add(n.findtext("plural").strip(), value, "plural", f)
                elif n.find("noplural") is None:
                    self._add(_plural(singular), value, "generated plural", f)
            for s in parent.findall("symbol"):
                self._add(s.text.strip(), value, "symbol", f)

    def _add(self, spelling, value, kind, f) -> None:
        if spelling not in self.units:
            self.units[spelling] = value
            self.kind[spelling] = kind
            self.file[spelling] = f
            self.order.append(spelling)

    def spellings(self, generated_plurals: bool = False) -> list[str]:
        return [s for s in self.order if generated_plurals or self.kind[s] != "generated plural"]

    # -- the def grammar ------------------------------------------------------------------
    def evaluate(self, text: str) -> Value:
        if text.startswith(("lg(", "ln(", "lb(")):
            ref = text[text.index("re") + 2:-1].strip()
            v = self.evaluate(ref)
            return Value(Fraction(1), level="lg" if ref == "1" else f"re {ref}", ref=v)
        if "@" in text:
            head, off = text.split("@")
            v = self.evaluate(head.strip())
            return Value(v.factor, v.dims, Fraction(off.strip()) * v.factor, v.tol)
        tokens = re.findall(r"[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?|[-]?[0-9]+|\*\*|[()/.^*]|\s+"
                            r"|[^\s()/.^*0-9][^\s()/.^*]*", text)
        self.toks, self.i = [t for t in tokens], 0
        return self._product()

    def _peek(self):
        while self.i < len(self.toks) and self.toks[self.i].isspace() and \
                self._space_is_op() is False:
            self.i += 1
        return self.toks[self.i] if self.i < len(self.toks) else None

    def _space_is_op(self):
        return False

    def _product(self) -> Value:
        acc = self._power()
        while True:
            t = self._next_op()
            if t is None:
                return acc
            if t == "/":
                acc = acc / self._power()
            else:
                acc = acc * self._power()

    def _next_op(self):
        j = self.i
        space = False
        while j < len(self.toks) and self.toks[j].isspace():
            j, space = j + 1, True
        if j >= len(self.toks) or self.toks[j] == ")":
            self.i = j
            return None
        if self.toks[j] in ("/", ".", "*"):
            self.i = j + 1
            return self.toks[j]
        if space:
            self.i = j
            return " "
        self.i = j
        return " "  # juxtaposed: "2 pi" handled above; "(pi/180) rad"

    def _skip(self):
        while self.i < len(self.toks) and self.toks[self.i].isspace():
            self.i += 1

    def _power(self) -> Value:
        self._skip()
        base = self._primary()
        if self.i < len(self.toks) and self.toks[self.i] in ("^", "**"):
            self.i += 1
            n = int(self.toks[self.i])
            self.i += 1
            return base ** n
        return base

    def _primary(self) -> Value:
        t = self.toks[self.i]
        self.i += 1
        if t == "(":
            v = self._product()
            self._skip()
            assert self.toks[self.i] == ")", self.toks
            self.i += 1
            return v
        if t == "-" or re.fullmatch(r"[-]?[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?", t):
            if t.startswith("-") and len(t) == 1:
                v = self._primary()
                return Value(-v.factor, v.dims, tol=v.tol)
            return literal(t)
        return self.name(t)

    def name(self, t: str) -> Value:
        if t in self.units:
            return self.units[t]
        m = re.fullmatch(r"(.*?[^0-9])([0-9]+)", t)
        if m and m.group(1) in self.units:
            return self.units[m.group(1)] ** int(m.group(2))
        for p, f in sorted(self.prefixes.items(), key=lambda kv: -len(kv[0])):
            rest = t[len(p):]
            if t.startswith(p) and rest in self.units:
                v = self.units[rest]
                return Value(v.factor * f, v.dims, tol=v.tol, level=v.level)
            if t.startswith(p) and m and m.group(1).startswith(p) and m.group(1)[len(p):] in self.units:
                v = self.units[m.group(1)[len(p):]]
                return Value(v.factor * f, v.dims, tol=v.tol) ** int(m.group(2))
        raise KeyError(t)


_DB: "Database | None" = None


def database() -> Database:
    global _DB
    if _DB is None:
        _DB = Database()
    return _DB
