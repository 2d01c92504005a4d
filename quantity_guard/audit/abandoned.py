"""Answers that give up on a refused call which the session could have made again.

A call the guard refused (strict) ran nothing. When no later call of that tool succeeded, the
answer states no figure of the tool's result, and the session recorded a sound output (or the
question stated a number) for every physical parameter the tool declares, the refusal was of
the call's form, not of missing data: an answer that reports the figure "unavailable" (or
stops) misleads whoever reads it. Such a
call is ``Audit.abandoned`` (code ``abandoned_refusal``) and the audit is not ok.

Nothing here is read from the answer's words: only which figures it states (the findings) and
what the ledger recorded. A tool whose body failed (no violation), a warn-mode call (it ran), a
tool with no physical parameter and one whose declarations the ledger does not hold (a call
replayed from a shared store) are never abandoned.
"""
from __future__ import annotations

from .codes import Reason

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .context import Context
    from .findings import Finding

_NO_CLAIM = ("hypothetical", "discarded")


class Abandoned:
    """A refused call the answer gave up on: ``tool``, the ``call`` index, the refusal's
    ``violation`` (as recorded) and ``sources``, {parameter: the label of a sound recorded
    output of its dimension, or "the question's <number>"}."""

    __slots__ = ("tool", "call", "violation", "sources")
    code = Reason.ABANDONED_REFUSAL

    def __init__(self, tool: str, call: int, violation: dict, sources: dict[str, str]) -> None:
        self.tool, self.call, self.violation, self.sources = tool, call, violation, sources

    @property
    def note(self) -> str:
        have = ", ".join(f"{p} from {label}" for p, label in self.sources.items())
        return (f"{self.tool} (call {self.call}) was refused ({self.violation['code']}) and not "
                f"made again, and the answer states no figure of its result; the session "
                f"recorded what it needs ({have}). {self.violation.get('repair') or ''}").strip()

    def as_dict(self) -> dict:
        return {"tool": self.tool, "call": self.call, "code": self.code.value,
                "violation": self.violation["code"], "field": self.violation.get("field"),
                "sources": dict(self.sources), "note": self.note}

    def __repr__(self) -> str:
        return f"Abandoned({self.tool!r}, call {self.call}: {self.violation['code']})"


def _dims(spec):
    unit = getattr(spec, "unit", None)
    return unit.dims if unit is not None else None


def _given_up(ledger) -> dict:
    """{tool: the record of its last refused call} for tools no later call of ran."""
    last: dict = {}
    for record in ledger.calls:
        if record.ok is False and any(v["blocked"] for v in record.violations or ()):
            last[record.tool] = record
        elif record.ok:
            last.pop(record.tool, None)
    return last


def _sources(tool, ledger) -> dict[str, str] | None:
    """{parameter: a sound output of its dimension, or else a number of the question} for each
    physical parameter of ``tool``; None when one has neither, or the tool declares none."""
    params = getattr(tool, "params", None)
    physical = {p: d for p, spec in (params or {}).items() if (d := _dims(spec)) is not None}
    if not physical:
        return None
    unsound = ledger.unsound_calls()
    outputs = [e for e in ledger.output_entries() if e.call not in unsound]
    quoted = [n for n in ledger.context_numbers() if n.unit is not None]
    found = {}
    for p, dims in physical.items():
        e = next((e for e in reversed(outputs) if e.unit.dims == dims), None)
        if e is not None:
            found[p] = e.label
            continue
        n = next((n for n in quoted if n.unit.dims == dims), None)
        if n is None:
            return None
        found[p] = f"the question's {n.text}"
    return found


def abandoned(findings: list[Finding], ctx: Context) -> list[Abandoned]:
    ledger = ctx.ledger
    if not ledger.violations:
        return []
    out = []
    for name, record in _given_up(ledger).items():
        tool = ledger.declared.get(name)
        sources = _sources(tool, ledger) if tool is not None else None
        if sources is None:
            continue
        result = _dims(getattr(tool, "returns", None))
        if any(f.status not in _NO_CLAIM and f.number.unit is not None and
               (result is None or f.number.unit.dims == result) for f in findings):
            continue
        violation = next(v for v in record.violations if v["blocked"])
        out.append(Abandoned(name, record.index, violation, sources))
    return out
