"""Written-out formulas: tokens, the dimension of an expression and its value.
"""
from __future__ import annotations

import math
import re

from ..units.dimension import DIMENSIONLESS as _DIMENSIONLESS
from ..numeric import power_dims
from ..reading.text import Number
from .findings import si_of


def in_formula(num: Number, text: str) -> bool:
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


def has_kind_axis(d) -> bool:
    """An apparent or reactive power (VA, var) in the dimension."""
    return len(d) > 8 and bool(d[7] or d[8])


def entry_has_kind(e) -> bool:
    return has_kind_axis(e.unit.dims)


_FORMULA_TOKEN = re.compile(r"\s+|\*\*|sqrt|pi\b|[-+\u2212\u00d7*x\u00b7\u22c5/\u00f7^()\u221a\u03c0]"
                            r"|\d+(?:\.\d+)?")


_ROOT3_TEXT = re.compile(r"\u221a\s*\(?\s*3|sqrt\s*\(?\s*3|\b1\.73", re.I)


def single_phase_step(members, r: Number, expr: str) -> bool:
    """A written step between apparent power and voltage/current (one side an apparent or
    reactive power, the other not) without √3: the single-phase relation, which a polyphase
    system (see _POLYPHASE) does not follow."""
    kind_in = any(n.unit is not None and has_kind_axis(n.unit.dims) for _, n in members)
    kind_out = r.unit is not None and has_kind_axis(r.unit.dims)
    return kind_in != kind_out and not _ROOT3_TEXT.search(expr)


def chain_checks(tokens, members, value, r: Number) -> bool:
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
    dims = formula_dims(tokens)
    if dims is None or dims != power_dims(r.unit.dims):
        return False
    want = r.value * r.unit.scale
    return abs(value[1] - want) <= max(r.tolerance * r.unit.scale, rel * abs(want), 1e-300)


def parse_formula(tokens):
    """The expression tree of a token run: ("num", Number), ("lit", float), ("neg", x),
    ("sqrt", x), ("group", x), ("pow", base, exponent), ("op", operator, a, b). Raises
    ValueError when the run is not one expression."""
    pos = 0

    def atom():
        nonlocal pos
        if pos >= len(tokens):
            raise ValueError
        kind, payload, _ = tokens[pos]
        pos += 1
        if kind == "op" and payload in "-\u2212":
            return ("neg", atom())
        if kind == "sqrt":
            return ("sqrt", atom())
        if kind == "(":
            inner = expr()
            if pos >= len(tokens) or tokens[pos][0] != ")":
                raise ValueError
            pos += 1
            return ("group", inner)
        if kind == "num":
            return ("num", payload[1])
        if kind == "lit":
            return ("lit", payload)
        raise ValueError

    def power():
        nonlocal pos
        base = atom()
        if pos < len(tokens) and tokens[pos][0] == "op" and tokens[pos][1] == "^":
            pos += 1
            return ("pow", base, atom())
        return base

    def term():
        nonlocal pos
        node = power()
        while pos < len(tokens) and tokens[pos][0] == "op" and tokens[pos][1] not in "+-\u2212^":
            op = tokens[pos][1]
            pos += 1
            node = ("op", op, node, power())
        return node

    def expr():
        nonlocal pos
        node = term()
        while pos < len(tokens) and tokens[pos][0] == "op" and tokens[pos][1] in "+-\u2212":
            op = tokens[pos][1]
            pos += 1
            node = ("op", op, node, term())
        return node

    tree = expr()
    if pos != len(tokens):
        raise ValueError
    return tree


def _dims_of(node):
    """The dimension of an expression tree (sums of like dimensions only; an exponent must be a
    whole number written as such, at most 9); ValueError if it has none."""
    kind = node[0]
    if kind == "num":
        n = node[1]
        return power_dims(n.unit.dims) if n.unit is not None else _DIMENSIONLESS
    if kind == "lit":
        return _DIMENSIONLESS
    if kind == "neg" or kind == "group":
        return _dims_of(node[1])
    if kind == "sqrt":
        d = _dims_of(node[1])
        if any(x % 2 for x in d):
            raise ValueError
        return tuple(x // 2 for x in d)
    if kind == "pow":
        d, ex = _dims_of(node[1]), node[2]
        if ex[0] != "lit" or ex[1] != int(ex[1]) or abs(ex[1]) > 9:
            raise ValueError
        return tuple(x * int(ex[1]) for x in d)
    op, a, b = node[1], _dims_of(node[2]), _dims_of(node[3])
    if op in "+-\u2212":
        if b != a:
            raise ValueError
        return a
    return tuple(x - y if op in "/\u00f7" else x + y for x, y in zip(a, b))


def _value_of(node):
    """(magnitude as written, SI value) of an expression tree."""
    kind = node[0]
    if kind == "num":
        n = node[1]
        if n.percent:
            return n.value, n.value / 100.0
        return n.value, (si_of(n.value, n.unit) if n.unit is not None else n.value)
    if kind == "lit":
        return node[1], node[1]
    if kind == "group":
        return _value_of(node[1])
    if kind == "neg":
        m, s = _value_of(node[1])
        return -m, -s
    if kind == "sqrt":
        m, s = _value_of(node[1])
        if m < 0 or s < 0:
            raise ValueError
        return math.sqrt(m), math.sqrt(s)
    if kind == "pow":
        base, ex = _value_of(node[1]), _value_of(node[2])
        return base[0] ** ex[0], base[1] ** ex[0]
    op = node[1]
    m, s = _value_of(node[2])
    m2, s2 = _value_of(node[3])
    if op in "+-\u2212":
        return (m + m2, s + s2) if op == "+" else (m - m2, s - s2)
    if op in "/\u00f7":
        return m / m2, s / s2
    return m * m2, s * s2


def formula_dims(tokens):
    """The dimension of a token run's arithmetic (sums of like dimensions only), or None."""
    try:
        return _dims_of(parse_formula(tokens))
    except (ValueError, IndexError, TypeError):
        return None


def evaluate(tokens):
    """(magnitude as written, SI value) of a token run, or None if it does not parse."""
    try:
        value = _value_of(parse_formula(tokens))
    except (ValueError, ArithmeticError, TypeError):
        return None
    if not all(isinstance(x, float) and math.isfinite(x) for x in value):
        return None
    return value


def bracket_after(text: str, pos: int):
    """The position of the ``)`` closing a bracket that opens right after ``pos`` (spaces and
    markdown emphasis allowed: ``**3,058 m3** (...)``) and holds no other bracket, within 200
    characters; else None."""
    k = pos
    while k < len(text) and text[k] in " \u00a0\u2009*_":  # spaces, markdown emphasis
        k += 1
    if text[k:k + 1] != "(":
        return None
    close = text.find(")", k + 1, k + 200)
    if close < 0 or "(" in text[k + 1:close] or not BRACKET_OP.search(text, k + 1, close):
        return None  # no arithmetic inside ("(35.4 m3/s)" is a conversion, read elsewhere)
    return close


BRACKET_OP = re.compile(r"[\u00d7*\u00f7\u00b7\u22c5]|\s[/x+\u2212-]\s")


def formula_tokens(text: str, end: int, at: dict, start: int | None = None):
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


def formula_matches(value, r: Number, members=()) -> bool:
    """The arithmetic gives the result written, within 0.5% or the precision of the operands
    as written (at most 5%: "9.0e7 VA / 2.3e5 V = 394 A")."""
    m, s = value
    rel = max(0.005, min(0.05, max((n.tolerance / abs(n.value) for _, n in members if n.value),
                                   default=0.0)))
    if r.percent:
        targets = [(m, r.value), (s * 100.0, r.value), (s, r.value / 100.0)]
    elif r.unit is not None:
        targets = [(m, r.value), (s, si_of(r.value, r.unit))]
    else:
        targets = [(m, r.value), (s, r.value)]
    for got, want in targets:
        if abs(got - want) <= max(r.tolerance if got is m else 0.0, rel * abs(want), 1e-12):
            return True
    return False
