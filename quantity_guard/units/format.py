"""Renderings of a unit's terms: canonical ASCII, pretty Unicode, and long names.

- canonical: ``m3/s``, ``ft3/s``, ``kg*m/s2``, ``W/(m2*K)``, ``1/s``; read back by the parser.
- pretty: ``m³/s``, ``kg·m/s²``, ``°C``, ``µS/cm``; also read back by the parser.
- long: ``cubic feet per second``, ``megalitres per day``; for descriptions a model reads.
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # annotations only: they are never evaluated at run time
    from typing import Any, Callable, Iterable, Optional, Tuple

    Describe = Callable[[str], Optional[Tuple[Any, str, str]]]
    TermsIn = Iterable[Tuple[str, int]]

#: ``table.describe``: a canonical term symbol -> (its row, prefix symbol, prefix long name) or
#: None. Handed in by the caller, so this module reads no table (the row needs ``name`` and
#: ``plural``).

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_PRETTY_SYMBOLS = {"degC": "°C", "degF": "°F", "degR": "°R", "delta_degC": "Δ°C",
                   "delta_degF": "Δ°F", "ohm": "Ω"}


def _split(terms: TermsIn) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    num = [(s, p) for s, p in terms if p > 0]
    den = [(s, -p) for s, p in terms if p < 0]
    return num, den


def _ascii_term(symbol: str, p: int) -> str:
    if p == 1:
        return symbol
    if symbol[-1].isdigit() or not (symbol[-1].isalpha() or symbol[-1] == "_"):
        return f"{symbol}**{p}"  # 'a_365' or '%': a juxtaposed digit would be misread
    return f"{symbol}{p}"


def _render(terms: TermsIn, term: Callable[[str, int], str], joiner: str) -> str:
    num, den = _split(terms)
    top = joiner.join(term(s, p) for s, p in num) or "1"
    if not den:
        return top
    bottom = joiner.join(term(s, p) for s, p in den)
    return f"{top}/({bottom})" if len(den) > 1 else f"{top}/{bottom}"


def canonical(terms: TermsIn) -> str:
    return _render(terms, _ascii_term, "*")


def _pretty_symbol(symbol: str, describe: Describe) -> str:
    if symbol in _PRETTY_SYMBOLS:
        return _PRETTY_SYMBOLS[symbol]
    info = describe(symbol)
    if info is not None and info[1] == "u":
        return "µ" + _pretty_symbol(symbol[1:], describe)
    return symbol


def _pretty_term(symbol: str, p: int, describe: Describe) -> str:
    sym = _pretty_symbol(symbol, describe)
    if p == 1:
        return sym
    if not (sym[-1].isalpha() or sym[-1] == "_"):
        return f"{sym}^{p}"  # 'a_365' or '%': a superscript reads as a juxtaposed digit
    return sym + str(p).translate(_SUPERSCRIPT)


def pretty(terms: TermsIn, describe: Describe) -> str:
    return _render(terms, lambda s, p: _pretty_term(s, p, describe), "·")


_POWER_WORDS = {2: "square ", 3: "cubic "}


def _long_term(symbol: str, p: int, plural: bool, describe: Describe) -> str:
    info = describe(symbol)
    if info is None:
        words = symbol
    else:
        row, _, prefix = info
        words = prefix + (row.plural if plural else row.name)
    if p == 1:
        return words
    if p in _POWER_WORDS:
        return _POWER_WORDS[p] + words
    return f"{words} to the power {p}"


def long_name(terms: TermsIn, describe: Describe, plural: bool = True) -> str:
    num, den = _split(terms)
    parts = [_long_term(s, p, plural and k == len(num) - 1, describe)
             for k, (s, p) in enumerate(num)]
    text = " ".join(parts) if parts else ""
    for s, p in den:
        text += f" per {_long_term(s, p, False, describe)}"
    return text.strip() or "dimensionless"
