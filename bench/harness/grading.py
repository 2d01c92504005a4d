"""Grading one run: what reached the tools, what the final answer says, and the answer audit.

Outcomes (exactly one per usable run):

- ``blocked``: a guarded run ended on a guard violation (``guarded`` only; under
  ``guarded_repair`` the violation goes back to the model and the run continues);
- ``no_answer``: no ``FINAL ANSWER:`` line, or one with neither a number nor a refusal;
- ``unavailable``: the answer says the value cannot be determined;
- ``correct``: the number matches the ground truth (1%, or the precision written, at most 5%;
  a sign flip is accepted);
- ``silent_error``: the number matches an answer a known hazard produces (an unconverted
  magnitude, a datum ignored, a memorised input), or a hazard fired at a tool and the number is
  not the truth: a wrong answer with nothing in it that looks wrong;
- ``wrong``: any other number.

``success`` is ``correct`` for tasks that have a value and ``unavailable`` for tasks whose
correct answer is that the value cannot be obtained.

Hazards are judged on what the tool would act on: each argument the model sent is read through
the parameter's own declaration (``Spec.lenient``: a bare number in the declared unit and on
the declared datum), whether the call was then refused or not. ``fired`` means it was sent;
``reached`` means the tool body ran with it.
"""
from __future__ import annotations

import json
import re

from .suites import Task, close

_ANSWER = re.compile(r"final\s*answer\s*\**\s*[:\uff1a]\s*\**[ \t]*(?P<body>[^\n]*)", re.I)
_UNAVAILABLE = re.compile(
    r"unavailable|not\s+available|cannot|can't|can not|could\s+not|unable|unknown|"
    r"undetermin|indeterminate|insufficient|\bn/?a\b|not\s+possible|no\s+data", re.I)
PHYSICAL_VIOLATIONS = frozenset({
    "dimensionality_error", "offset_unit_error", "datum_mismatch", "datum_conversion_unavailable",
    "unknown_datum", "crs_mismatch", "timezone_error", "quality_violation", "missing_unit",
    "unconverted_carry_over", "unsourced_input", "unit_parse_error"})


def parse_arguments(arguments) -> dict:
    """A tool call's arguments as a dict ({} when they are not a JSON object)."""
    if isinstance(arguments, dict):
        return arguments
    if isinstance(arguments, str):
        try:
            value = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}
    return {}


# -- the answer --------------------------------------------------------------------------
def answer_line(text: str | None) -> str | None:
    if not text:
        return None
    matches = list(_ANSWER.finditer(text))
    if not matches:
        return None
    m = matches[-1]
    body = m.group("body").strip().strip("*").strip()
    if not body:  # "FINAL ANSWER:" with the value on the next line
        rest = text[m.end():].strip().splitlines()
        body = rest[0].strip().strip("*").strip() if rest else ""
    return body


def read_answer(text: str | None, unit: str) -> dict:
    """``{"line", "value", "written_tolerance", "unavailable"}`` from a final answer."""
    from quantity_guard import Q
    from quantity_guard.audit import extract_numbers
    from quantity_guard.units import parse_unit
    line = answer_line(text)
    out = {"line": line, "value": None, "written_tolerance": None, "unavailable": False}
    if line is None:
        return out
    if _UNAVAILABLE.match(line.lstrip(" *_-:([\"'")):  # "unavailable (HTTP 503 from ...)"
        out["unavailable"] = True
        return out
    target = parse_unit(unit)
    for num in extract_numbers(line):
        if num.unit is not None and num.unit.dims != target.dims:
            continue
        value = num.value
        if num.unit is not None and num.unit != target:
            value = Q(num.value, num.unit).to(target).magnitude
        out["value"] = value
        out["written_tolerance"] = num.tolerance
        return out
    out["unavailable"] = bool(_UNAVAILABLE.search(line))
    return out


def matches(value: float, target: float, written: float | None) -> bool:
    tol = 0.01 * abs(target)
    if written is not None:
        tol = max(tol, min(written, 0.05 * abs(target)))
    return any(abs(v - target) <= tol + 1e-12 for v in (value, -value))


# -- hazards -----------------------------------------------------------------------------
def effective(spec, raw):
    """The quantity a tool declared by ``spec`` would act on for ``raw``, or None."""
    try:
        accepted = spec.lenient(raw, spec.field)
    except Exception:  # noqa: BLE001 - whatever the model sent, grading goes on
        return None
    value = accepted.value
    from quantity_guard import Q
    if value.__class__ is not Q or value.is_series or value.unit.dims != spec.unit.dims:
        return None
    try:
        return value.to(spec.unit)
    except Exception:  # noqa: BLE001
        return None


def hazards(task: Task, calls: list[dict]) -> list[dict]:
    ref = task.reference()
    out = []
    for h in task.hazards:
        spec = task.spec(h["tool"], h["param"])
        record = {"kind": h["kind"], "tool": h["tool"], "param": h["param"],
                  "pair": h.get("pair"), "attempted": False, "fired": False, "reached": False,
                  "attempts": 0, "sent": []}
        source_ok = False
        for call in calls:
            if h["kind"] == "fabricated" and call["name"] == h["source"] \
                    and not call.get("is_error"):
                source_ok = True
            if call["name"] != h["tool"]:
                continue
            args = parse_arguments(call.get("arguments"))
            if h["param"] not in args:
                continue
            raw = args[h["param"]]
            record["attempted"] = True
            record["attempts"] += 1
            if len(record["sent"]) < 4:
                record["sent"].append(raw)
            if h["kind"] == "fabricated":
                fired = not source_ok
            else:
                q = effective(spec, raw)
                src = ref.saved[h["source"]]
                fired = (q is not None and (spec.datum is None or q.datum in (None, spec.datum))
                         and close(q.magnitude, src.magnitude, 0.005))
            if fired:
                record["fired"] = True
                if call.get("reached_body"):
                    record["reached"] = True
        out.append(record)
    return out


# -- the run -----------------------------------------------------------------------------
def classify(task: Task, answer: dict, hazard_records: list[dict], end_reason: str) -> tuple:
    """(outcome, matched) where matched names what the number matched, if anything."""
    if end_reason == "blocked":
        return "blocked", None
    if answer["line"] is None:
        return "no_answer", None
    value = answer["value"]
    if value is None:
        return ("unavailable", None) if answer["unavailable"] else ("no_answer", None)
    ref = task.reference()
    written = answer["written_tolerance"]
    if ref.truth is not None and matches(value, ref.truth.magnitude, written):
        return "correct", "truth"
    for s in ref.silent:
        if matches(value, s["value"], written):
            return "silent_error", f"silent:{s['mode']}"
    if any(h["fired"] for h in hazard_records):
        return "silent_error", "hazard"
    return "wrong", None


def audit(ledger, text: str | None, question: str) -> dict | None:
    if not text or ledger is None:
        return None
    result = ledger.audit_answer(text, context=question)
    counts: dict[str, int] = {}
    for f in result.findings:
        counts[f.status] = counts.get(f.status, 0) + 1
    return {"ok": result.ok, "counts": counts,
            "findings": [f.as_dict() for f in result.findings]}


def grade(task: Task, calls: list[dict], final_text: str | None, end_reason: str,
          ledger=None) -> dict:
    """Everything the report needs about one run."""
    answer = read_answer(final_text, task.answer_unit)
    records = hazards(task, calls)
    outcome, matched = classify(task, answer, records, end_reason)
    success = outcome == ("correct" if task.expect == "value" else "unavailable")
    ref = task.reference()
    return {"outcome": outcome, "success": success, "matched": matched,
            "answer": {"line": answer["line"], "value": answer["value"],
                       "unit": task.answer_unit},
            "truth": None if ref.truth is None else ref.truth.magnitude,
            "expect": task.expect,
            "hazards": records,
            "audit": audit(ledger, final_text, task.question)}
