"""Writing numbers the ways language models write them.

Every function returns the text and the value the text denotes, so the generator records exactly
what it wrote (the written value, not the value it meant to round).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

THIN = "\u2009"        # thin space
NNBSP = "\u202f"       # narrow no-break space
MINUS = "\u2212"       # Unicode minus sign
GROUPINGS = {"comma": ",", "thin": THIN, "nnbsp": NNBSP, "space": " ", "none": ""}
SCI_SPELLINGS = ("e", "E", "times_sup", "x_caret", "dot_caret", "times_caret", "latex")
_SUP = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


@dataclass(frozen=True)
class Written:
    text: str
    value: float      # the value the text denotes (signed)
    step: float       # one unit in the last written place (0 for an exact full-precision copy)


def decimals_for_sig(value: float, sig: int) -> int:
    if value == 0:
        return sig - 1
    return sig - 1 - math.floor(math.log10(abs(value)))


def round_sig(value: float, sig: int) -> float:
    d = decimals_for_sig(value, sig)
    r = round(value, d)
    # rounding may carry into a new decade (9.996 -> 10.0): recompute on the rounded value
    d2 = decimals_for_sig(r, sig) if r else d
    return round(value, min(d, d2)) if d2 < d else r


def group_int(digits: str, sep: str, min_digits: int = 5) -> str:
    """Group an unsigned integer string in threes; 4-digit numbers are grouped only when
    ``min_digits`` <= 4 (models write both 1250 and 1,250)."""
    if not sep or len(digits) < min_digits:
        return digits
    out = []
    while len(digits) > 3:
        out.append(digits[-3:])
        digits = digits[:-3]
    out.append(digits)
    return sep.join(reversed(out))


def positional(value: float, *, sig: int | None = None, decimals: int | None = None,
               trim: bool = False, group: str = "", group_min: int = 5,
               minus: str = "-", signed: bool = True) -> Written:
    """``value`` written positionally at ``sig`` significant figures or ``decimals`` places.

    ``trim`` drops trailing zeros of the fraction (32.0 -> 32). ``signed`` False writes the
    magnitude (the sign is then carried in words by the caller)."""
    if decimals is None:
        decimals = decimals_for_sig(value, sig or 3)
    r = round(value, decimals)
    if decimals <= 0:
        text = f"{abs(r):.0f}"
        step = 10.0 ** (-decimals)
    else:
        text = f"{abs(r):.{decimals}f}"
        step = 10.0 ** (-decimals)
        if trim:
            stripped = text.rstrip("0").rstrip(".")
            if stripped != text:
                kept = len(stripped.split(".")[1]) if "." in stripped else 0
                step = 10.0 ** (-kept)
                text = stripped
    int_part, _, frac = text.partition(".")
    text = group_int(int_part, group, group_min) + ("." + frac if frac else "")
    written = abs(float(f"{abs(r):.{max(decimals, 0)}f}"))
    if signed and r < 0 and written != 0:
        text = minus + text
        written = -written
    if not signed:
        written = abs(written)
    return Written(text, written, step)


def full_precision(value: float, *, minus: str = "-", signed: bool = True) -> Written:
    """The float as Python prints it (a model copying a tool's JSON)."""
    text = repr(float(abs(value) if not signed else value))
    if text.endswith(".0"):
        text = text[:-2] + ".0"
    if text.startswith("-"):
        text = minus + text[1:]
    return Written(text, float(value if signed else abs(value)), 0.0)


def scientific(value: float, sig: int, spelling: str, *, minus: str = "-",
               signed: bool = True) -> Written:
    """``value`` in scientific notation, in one of SCI_SPELLINGS."""
    v = value if signed else abs(value)
    if v == 0:
        raise ValueError("zero has no scientific form here")
    exp = math.floor(math.log10(abs(v)))
    mant = round(v / 10.0 ** exp, sig - 1)
    if abs(mant) >= 10:
        exp += 1
        mant = round(v / 10.0 ** exp, sig - 1)
    m_text = f"{abs(mant):.{sig - 1}f}"
    sign = minus if mant < 0 else ""
    e_text = str(exp)
    if spelling == "e":
        text = f"{sign}{m_text}e{exp}"
    elif spelling == "E":
        text = f"{sign}{m_text}E{exp:+03d}"
    elif spelling == "times_sup":
        text = f"{sign}{m_text} × 10{e_text.translate(_SUP)}"
    elif spelling == "x_caret":
        text = f"{sign}{m_text}x10^{e_text}"
    elif spelling == "dot_caret":
        text = f"{sign}{m_text}·10^{e_text}"
    elif spelling == "times_caret":
        text = f"{sign}{m_text} × 10^{e_text}"
    elif spelling == "latex":
        text = f"{sign}{m_text} \\times 10^{{{e_text}}}"
    else:
        raise ValueError(f"unknown scientific spelling {spelling!r}; use one of {SCI_SPELLINGS}")
    written = float(f"{mant:.{sig - 1}f}") * 10.0 ** exp
    return Written(text, written, 10.0 ** (exp - (sig - 1)))


def within(written: float, step: float, target: float, *, ulps: float = 0.5) -> bool:
    """Is ``target`` within ``ulps`` units of the last written place of ``written``
    (with a relative float margin for full-precision copies)?"""
    margin = ulps * step + 1e-9 * max(abs(target), abs(written))
    return abs(written - target) <= margin
