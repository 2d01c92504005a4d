"""One run: a model, a task, a condition, a replicate. Prompt, dispatch every tool call through
the condition's tools inside a quantity-guard session, grade, audit, and return the record.

The system prompt and the question are the same in every condition; only the tool schemas the
model sees and the enforcement differ. Under ``guarded`` the first guard violation ends the run
(``blocked``); under ``guarded_repair`` the violation's repair text goes back as the tool result.
A violation that is only about the shape of a call (``invalid_arguments``: a misspelt
parameter) goes back to the model in every condition, as any tool error would.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timezone

from . import BENCH_VERSION, RECORD_SCHEMA
from .grading import PHYSICAL_VIOLATIONS, grade
from .providers.base import FatalProviderError, ProviderError, Usage
from .tools import build_tools, result_text, violation_of

SYSTEM_PROMPT = (
    "You are a technical assistant with access to tools. Answer the user's question using the "
    "tools; call them as often as you need. When you are done, end your reply with one line of "
    "the form\n"
    "FINAL ANSWER: <number> <unit>\n"
    "or, if the question cannot be answered from the tools and the question,\n"
    "FINAL ANSWER: unavailable")
MAX_TURNS = 12


@dataclass(frozen=True)
class RunSpec:
    suite: object  # suites.Suite
    task: object   # suites.Task
    condition: str
    model: str
    replicate: int

    @property
    def run_id(self) -> str:
        return run_id(self.suite.name, self.task.id, self.condition, self.model, self.replicate)


def run_id(suite: str, task: str, condition: str, model: str, replicate: int) -> str:
    return f"{suite}/{task}/{condition}/{model}/r{replicate}"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def library_version() -> str:
    import quantity_guard
    return quantity_guard.__version__


def dispatch(box, probe: list, call: dict, turn_no: int) -> tuple[dict, dict]:
    """Run one tool call; return (call record, neutral tool result)."""
    before = len(probe)
    result = box.invoke(call["name"], call["arguments"])
    text = result_text(result)
    violation = violation_of(result)
    record = {"turn": turn_no, "id": call["id"], "name": call["name"],
              "arguments": call["arguments"], "is_error": bool(result.get("isError")),
              "content": text, "violation": violation, "reached_body": len(probe) > before}
    neutral = {"id": call["id"], "name": call["name"], "content": text,
               "is_error": bool(result.get("isError"))}
    return record, neutral


def ends_run(condition: str, violation: dict | None) -> bool:
    return condition == "guarded" and violation is not None \
        and violation.get("code") in PHYSICAL_VIOLATIONS


def run_one(run: RunSpec, provider, *, max_turns: int = MAX_TURNS) -> dict:
    """Execute one run and return its JSONL record (``status`` ok or excluded)."""
    from quantity_guard import session, toolbox
    task, condition = run.task, run.condition
    started, t0 = _now(), time.monotonic()
    probe: list = []
    box = toolbox(build_tools(task, condition, probe))
    schemas = box.schemas(provider.tool_format, strict=False)
    messages: list[dict] = [{"role": "user", "content": task.question}]
    calls: list[dict] = []
    usage = Usage()
    final_text, end_reason, served = None, None, None
    base = {"schema": RECORD_SCHEMA, "run_id": run.run_id, "suite": run.suite.name,
            "suite_digest": run.suite.digest, "task": task.id, "condition": condition,
            "model": run.model, "provider": provider.name,
            "scripted": bool(getattr(provider, "scripted", False)), "replicate": run.replicate,
            "started_at": started, "library_version": library_version(),
            "bench_version": BENCH_VERSION}
    with session(context=task.question) as ledger:
        try:
            chat = provider.session(run)
            for turn_no in range(max_turns):
                turn = chat.complete(SYSTEM_PROMPT, messages, schemas)
                usage.add(turn.usage)
                served = turn.model or served
                messages.append(turn.message())
                if not turn.tool_calls:
                    final_text, end_reason = turn.text, "answer"
                    break
                results = []
                for call in turn.tool_calls:
                    record, neutral = dispatch(box, probe, call, turn_no)
                    calls.append(record)
                    results.append(neutral)
                    if ends_run(condition, record["violation"]):
                        record["ended_run"] = True
                        end_reason = "blocked"
                        break
                messages.append({"role": "tool", "results": results})
                if end_reason == "blocked":
                    break
            else:
                end_reason = "max_turns"
        except FatalProviderError:
            raise
        except ProviderError as err:
            return {**base, "status": "excluded", "excluded_reason": err.reason,
                    "http_status": err.status, "usage": usage.as_dict(),
                    "elapsed_s": round(time.monotonic() - t0, 3), "turns": len(
                        [m for m in messages if m["role"] == "assistant"]),
                    "transcript": {"system": SYSTEM_PROMPT, "messages": messages,
                                   "calls": calls, "final_text": None}}
        graded = grade(task, calls, final_text, end_reason, ledger)
        violations = [{k: v.get(k) for k in ("tool", "code", "field", "blocked", "message")}
                      for v in ledger.violations]
    return {**base, "status": "ok", "excluded_reason": None, "served_model": served,
            **graded, "end_reason": end_reason, "violations": violations,
            "turns": len([m for m in messages if m["role"] == "assistant"]),
            "tool_calls": len(calls), "usage": usage.as_dict(),
            "elapsed_s": round(time.monotonic() - t0, 3),
            "transcript": {"system": SYSTEM_PROMPT, "messages": messages, "calls": calls,
                           "final_text": final_text}}
