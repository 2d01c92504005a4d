"""The audit's results: ``Finding`` (one number's verdict) and ``Audit`` (all of an answer's),
and the small helpers that show a ledger entry in a note.
"""
from __future__ import annotations

from ..numeric import fmt_g, is_close
from .codes import BY_STATUS, Reason, said
from ..reading.text import Number


class Finding:
    """One number's verdict. ``code`` (a ``Reason``) names the rule that decided the status;
    ``note`` says why in words: the recorded output it matches, the operands and operator of a
    derivation, the factor or formula that explains it, or what was tried."""

    __slots__ = ("number", "status", "match", "_note", "code")

    def __init__(self, number: Number, status: str, match=None, note="",
                 code: Reason | None = None) -> None:
        self.number, self.status, self.match, self._note = number, status, match, note
        self.code = BY_STATUS[status] if code is None else code

    @property
    def note(self) -> str:
        """Why this status (written when first read: a callable until then)."""
        note = self._note
        if note.__class__ is not str:
            note = self._note = note()
        return note

    @note.setter
    def note(self, value) -> None:
        self._note = value

    @property
    def lazy_note(self):
        """The note as held: a str, or a callable that writes it when first read."""
        return self._note

    def for_number(self, number: Number) -> Finding:
        """The same verdict (status, match, note, code) for another literal of the answer."""
        return Finding(number, self.status, self.match, self._note, self.code)

    def __repr__(self) -> str:
        return f"Finding({self.number.text!r}: {self.status}{' - ' + self.note if self.note else ''})"

    def as_dict(self) -> dict:
        return {"text": self.number.text, "value": self.number.value,
                "unit": self.number.unit.symbol if self.number.unit is not None else None,
                "status": self.status, "code": self.code.value, "note": self.note,
                "match": _match_dict(self.match)}


def _match_dict(match):
    if match is None:
        return None
    if isinstance(match, tuple):
        return {"operands": [_match_dict(m) for m in match[:2]], "operator": match[2]}
    if isinstance(match, Number):
        return {"text": match.text, "value": match.value}
    if isinstance(match, Finding):
        return {"text": match.number.text, "status": match.status}
    label = getattr(match, "label", None)
    if label is not None:
        return {"label": label, "quantity": shown(match)}
    return {"text": str(match)}


class Audit:
    """The findings for one answer; ``ok`` is False if any is unsourced, unit_mislabelled or
    tainted, or if the answer gave up on a refused call it could have made again
    (``abandoned``, see ``audit.abandoned``). ``skipped`` lists (text, reason) for the digits
    that are not quantities; each reason is a sentence (a ``str``) whose ``code`` is a
    ``Skip``."""

    # ``tainted``: the number is a recorded output (or derived from one) of a call that ran
    # although the ledger recorded a violation of its inputs (warn/off mode): the boundary
    # refused what it was computed from, so it is no source.
    BAD = ("unsourced", "unit_mislabelled", "tainted")

    def __init__(self, findings: list[Finding], skipped=(), abandoned=()) -> None:
        self.findings = findings
        self.skipped = [(t, said(r)) for t, r in skipped]
        self.abandoned = list(abandoned)

    @property
    def ok(self) -> bool:
        return not self.abandoned and not any(f.status in self.BAD for f in self.findings)

    def by_status(self, status: str) -> list[Finding]:
        return [f for f in self.findings if f.status == status]

    def as_dict(self) -> dict:
        return {"ok": self.ok, "findings": [f.as_dict() for f in self.findings],
                "abandoned": [a.as_dict() for a in self.abandoned],
                "skipped": [{"text": t, "reason": str(r), "code": getattr(r, "code", None) and r.code.name}
                            for t, r in self.skipped]}

    def __repr__(self) -> str:
        counts: dict[str, int] = {}
        for f in self.findings:
            counts[f.status] = counts.get(f.status, 0) + 1
        if self.abandoned:
            counts["abandoned"] = len(self.abandoned)
        return f"Audit(ok={self.ok}, {counts})"


def _gap(m, n: Number) -> int:
    """Characters between a match and a number."""
    return m.start() - n.nend if m.start() >= n.nend else max(0, n.nstart - m.end())


def violating_inputs(ledger) -> list:
    """The recorded inputs of calls with a recorded violation (blocked or not), the field
    the violation names when it names one."""
    by_call: dict = {}
    for v in ledger.violations:
        field = (v.get("field") or "").rsplit(".", 1)[-1]
        by_call.setdefault(v["call"], set()).add(field)
    out = []
    inputs = ledger.call_inputs()
    for call, fields in by_call.items():
        for e in inputs.get(call, ()):
            if "" in fields or e.field in fields:
                out.append(e)
    return out


def matching_input(n: Number, entries):
    for e in entries:
        if e.magnitude.__class__ is not float:
            continue
        if n.unit is not None:
            if e.unit.dims == n.unit.dims and \
                    is_close(si_of(n.value, n.unit), e.si, n.tolerance * n.unit.scale):
                return e
        elif is_close(n.value, e.magnitude, n.tolerance):
            return e
    return None


def note_text(note) -> str:
    return note if note.__class__ is str else note()


def si_of(value: float, unit) -> float:
    return value * unit.scale + unit.shift


def shown(e) -> str:
    q = getattr(e, "q", None)
    if q is not None:
        return f"{fmt_g(q.magnitude)} {q.unit.symbol}" + (f" {q.datum}" if q.datum else "")
    if isinstance(e, Number):
        return e.text
    return str(e)


def entry_name(e) -> str:
    if isinstance(e, Number):
        return f"the question's {e.text}"
    return e.label
