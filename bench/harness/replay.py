"""``--replay FILE``: re-grade recorded transcripts under the current library.

Every recorded tool call is sent again, in order and with the model's exact arguments, to the
condition's tools as the current library builds them, inside a fresh session; the recorded
final answer is then graded and audited against that ledger. What the model said is fixed; what
the library does with it is not, so a change in the guard, the audit or the grader shows up as
a changed outcome, and each tool result that now differs is listed as a divergence.

Under ``guarded``, if the current library refuses a call the recording let through, the replay
stops there (``blocked``); if the recording stopped on a refusal the current library no longer
makes, the model's continuation was never recorded, so the run is marked ``incomplete`` and has
no answer.
"""
from __future__ import annotations

from datetime import datetime, timezone

from . import suites as suites_mod
from .episode import library_version, dispatch, ends_run
from .grading import grade
from .tools import build_tools


def regrade(record: dict) -> dict:
    """The record re-graded under the current library (excluded records pass through)."""
    if record.get("status") != "ok" or "transcript" not in record:
        return record
    from quantity_guard import session, toolbox
    try:
        suite = suites_mod.load(record["suite"])
        task = suite.task(record["task"])
    except (suites_mod.SuiteError, KeyError) as err:  # the task is gone: nothing to re-grade
        return {**record, "replay": {"error": f"cannot re-grade: {err}",
                                     "recorded_outcome": record.get("outcome"),
                                     "divergences": []}}
    condition = record["condition"]
    recorded_calls = record["transcript"].get("calls", [])
    probe: list = []
    box = toolbox(build_tools(task, condition, probe))
    calls, divergences = [], []
    end_reason = record.get("end_reason")
    final_text = record["transcript"].get("final_text")
    truncated = incomplete = False
    with session(context=task.question) as ledger:
        for i, old in enumerate(recorded_calls):
            new, _ = dispatch(box, probe, {"id": old["id"], "name": old["name"],
                                           "arguments": old["arguments"]}, old.get("turn", 0))
            calls.append(new)
            if (new["content"], new["is_error"]) != (old.get("content"), old.get("is_error")):
                divergences.append({"call": i, "tool": old["name"],
                                    "recorded": old.get("content"), "now": new["content"]})
            if ends_run(condition, new["violation"]):
                new["ended_run"] = True
                truncated = i < len(recorded_calls) - 1 or end_reason != "blocked"
                end_reason, final_text = "blocked", None
                break
        else:
            if end_reason == "blocked":  # the refusal that ended the recording is gone
                incomplete = True
                end_reason, final_text = "incomplete", None
        graded = grade(task, calls, final_text, end_reason, ledger)
        violations = [{k: v.get(k) for k in ("tool", "code", "field", "blocked", "message")}
                      for v in ledger.violations]
    transcript = {**record["transcript"], "calls": calls}
    return {**record, **graded, "end_reason": end_reason, "violations": violations,
            "transcript": transcript, "library_version": library_version(),
            "replay": {"replayed_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                       "recorded_library_version": record.get("library_version"),
                       "recorded_outcome": record.get("outcome"),
                       "suite_changed": record.get("suite_digest") != suite.digest,
                       "divergences": divergences, "truncated": truncated,
                       "incomplete": incomplete}}
