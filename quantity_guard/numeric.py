"""Number helpers the ledger, the MCP policy and the answer audit share: closeness, written
precision, display, the arithmetic dimension of a unit and the datum rules of a sum or difference.

They depend on the unit kernel and the datum registry only, so every layer above may use them.
"""
from __future__ import annotations

from .errors import GuardViolation


def known_datum(name: str) -> bool:
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


def tolerance_of_digits(raw: str, exp: int, max_zeros: int = 99) -> float:
    """Half a unit in the last significant place written. ``max_zeros`` caps the trailing
    zeros of a whole number counted as rounding (the boundary checks count at most 3)."""
    if "." in raw:
        return 0.5 * 10.0 ** (exp - len(raw.split(".")[1]))
    digits = plain_digits(raw)
    zeros = min(len(digits) - len(digits.rstrip("0")), max_zeros) if digits.strip("0") else 0
    return 0.5 * 10.0 ** (exp + zeros)


def plain_digits(raw: str) -> str:
    return raw.replace(",", "").replace(" ", "").replace("\u2009", "").replace(
        "\u202f", "").replace("\u00a0", "")


def significant_figures(d: str) -> int:
    """Significant figures written (trailing zeros of a whole number are not significant)."""
    if "." in d:
        return len(d.replace(".", "").lstrip("0")) or 1
    return len(d.lstrip("0").rstrip("0")) or 1


def is_close(a: float, b: float, tol: float) -> bool:
    return abs(a - b) <= max(tol, 1e-9 * max(abs(a), abs(b)))


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


def pair_datum_ok(da, db, op: str, written) -> bool:
    """Whether ``a op b`` is meaningful for elevations (``Q``'s algebra) and lands on the
    datum written: elevation - elevation on one datum is a length; elevation +/- length
    stays on its datum; length + elevation too; elevations on two datums, a sum of two
    elevations and length - elevation mean nothing."""
    if da is not None and db is not None:
        if op != "-" or da != db:
            return False
        return written is None or same_datum(written, da)
    if da is not None:
        return written is None or same_datum(written, da)
    if db is not None:
        if op != "+":
            return False
        return written is None or same_datum(written, db)
    return True


def same_datum(written: str, recorded) -> bool:
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


def share_matches(v: float, percent: bool, tol: float, q_value: float, q_percent: bool,
                  q_tol: float) -> bool:
    """A share written as a percentage on one side and as a fraction on the other (75% of the
    question sent or written as 0.75, or 0.75 as 75%), to the precision of either."""
    if percent == q_percent:
        return False
    if q_percent:
        return abs(v - q_value / 100.0) <= max(tol, q_tol / 100.0)
    return abs(v / 100.0 - q_value) <= max(tol / 100.0, q_tol)
