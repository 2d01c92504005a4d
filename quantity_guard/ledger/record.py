"""What a session records: an ``Entry`` per quantity (a call's arguments and results), and
the JSON forms of what a call received."""
from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # annotations only: they are never evaluated at run time
    from typing import Any

    from ..units import Unit

from ..quantity import Q


class Entry:
    """One recorded quantity."""

    __slots__ = ("index", "call", "tool", "role", "field", "q", "magnitude", "unit", "datum",
                 "si", "how", "raw")
    index: int
    call: int         # the index of the call that recorded it
    tool: str
    role: str         # "input" or "output"
    field: "str | None"
    q: Q
    magnitude: Any    # q.magnitude: a float, or a series
    unit: "Unit"
    datum: "str | None"
    si: Any           # the magnitude in SI (m * scale + shift)
    how: "str | None"  # for an input, how it arrived (see spec.Accepted.how)
    raw: Any          # for an input, the argument as the model sent it

    def __init__(self, index: int, call: int, tool: str, role: str, field: "str | None", q: Q,
                 how: "str | None" = None, raw: Any = None) -> None:
        self.index = index
        self.call = call
        self.tool = tool
        self.role = role
        self.field = field
        self.q = q
        self.magnitude = m = q.magnitude
        self.unit = u = q.unit
        self.datum = q.datum
        self.si = m * u.scale + u.shift
        self.how = how
        self.raw = raw

    @property
    def label(self) -> str:
        """``read_discharge.return`` for an output, ``runoff_depth.discharge`` for an input."""
        if self.role == "output":
            return f"{self.tool}.{'return' if self.field is None else f'return.{self.field}'}"
        return f"{self.tool}.{self.field}"

    def as_dict(self) -> dict:
        d = {"index": self.index, "call": self.call, "tool": self.tool, "role": self.role,
             "field": self.field, "quantity": self.q.as_dict()}
        if self.how is not None:
            d["received_as"] = self.how
        if self.raw is not None:
            d["raw"] = jsonable(self.raw)
        return d


def quantities(result, field=None):
    if result.__class__ is Q:
        yield field, result
    elif isinstance(result, dict):
        for k, v in result.items():
            yield from quantities(v, k if field is None else f"{field}.{k}")
    elif isinstance(result, list):  # a labelled array of records (``stations[].distance_km``)
        for i, v in enumerate(result):
            yield from quantities(v, f"{field or ''}[{i}]")


def jsonable(value):
    if value.__class__ is Q:
        return value.as_dict()
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return repr(value)
