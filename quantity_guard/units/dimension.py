"""Dimension vectors: integer exponents over the SI base axes plus "kind" axes.

A dimension is a plain ``tuple[int, ...]`` aligned with ``AXES``. The kind axes keep apart
quantities that share an SI dimension but must never convert silently: apparent power (VA) and
reactive power (var) are not watts, NTU and FNU turbidity are different methods, and a standard
cubic foot of gas is an amount at reference conditions, not a geometric volume.

Plane angle is a kind axis too (the SI counts the radian as dimensionless, m/m): a wind
direction in degrees must not convert silently to a percentage or a ratio, and ``rad/s`` is not
``Hz``. Solid angle is angle squared (``sr = rad2``).

Logarithmic levels (the SI's neper and bel, with the decibel) are kind axes too, one each: a
level is not a ratio, and how many nepers a bel is depends on whether a power or a field
quantity is meant (SI Brochure 9th ed., Table 8, note), so the two never convert.
"""
from __future__ import annotations

AXES: tuple[str, ...] = (
    "length", "mass", "time", "current", "temperature", "substance", "luminosity",
    "apparent_power", "reactive_power", "turbidity_ntu", "turbidity_fnu", "standard_volume",
    "angle", "level_neper", "level_bel",
)
N_AXES = len(AXES)
DIMENSIONLESS: tuple[int, ...] = (0,) * N_AXES
#: the largest exponent magnitude a dimension may carry; beyond it nothing physical is meant
MAX_EXPONENT = 64


def base(axis: str) -> tuple[int, ...]:
    i = AXES.index(axis)
    return DIMENSIONLESS[:i] + (1,) + DIMENSIONLESS[i + 1:]


def mul(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return _check(tuple([x + y for x, y in zip(a, b)]))


def div(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return _check(tuple([x - y for x, y in zip(a, b)]))


def power(a: tuple[int, ...], n: int) -> tuple[int, ...]:
    return _check(tuple([x * n for x in a]))


def _check(d: tuple[int, ...]) -> tuple[int, ...]:
    for e in d:
        if e > MAX_EXPONENT or e < -MAX_EXPONENT:
            raise OverflowError(f"dimension exponent {e} is beyond +/-{MAX_EXPONENT}")
    return d


def format_dims(d: tuple[int, ...]) -> str:
    """``(3, 0, -1, ...)`` -> ``"[length]^3 [time]^-1"``; dimensionless -> ``"[dimensionless]"``."""
    parts = []
    for axis, e in zip(AXES, d):
        if e == 1:
            parts.append(f"[{axis}]")
        elif e:
            parts.append(f"[{axis}]^{e}")
    return " ".join(parts) or "[dimensionless]"
