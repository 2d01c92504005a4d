"""Scripted agents: deterministic stand-ins for a model, for offline runs, tests and examples.

THEY ARE NOT RESULTS. Each persona emulates one behaviour of real models (the hazards listed in
bench/harness/README.md) and goes through the same prompting, tool dispatch, enforcement,
grading and audit as a real model; every record they produce is marked ``"scripted": true``
and every report labels them.

A persona follows the task's reference plan (it knows the task, which no model does) and
differs in how it moves a value from one tool into another:

- ``naive``: copies the number it was given, unit and datum dropped (the carry-over every model
  in the external study made with cfs); skips datum steps; reports a failed tool as unavailable;
- ``careful``: converts units and applies datum offsets;
- ``datum-blind``: converts units, never notices a datum;
- ``fabricator``: careful, but when a tool fails it supplies the widely memorised figure.

When a tool refuses a call with repair text (``guarded_repair``), every persona reads it as a
model would: it resends a concrete suggestion (``Send instead: {...}``), fetches a datum offset
when the text is about datums, and reports the value unavailable when told that nothing supplied
it.
"""
from __future__ import annotations

import json
import re

from .base import Turn, Usage

PERSONAS = ("naive", "careful", "datum-blind", "fabricator")
MAX_REPAIRS = 4
_FIELD = re.compile(r"^\s*(?P<tool>[A-Za-z_][\w]*)\.(?P<param>[A-Za-z_][\w]*):")


class ScriptedAgent:
    scripted = True
    tool_format = "mcp"

    def __init__(self, persona: str) -> None:
        if persona not in PERSONAS:
            raise ValueError(f"unknown scripted agent {persona!r}; the scripted agents are "
                             f"{', '.join('scripted:' + p for p in PERSONAS)}")
        self.persona = persona
        self.model = f"scripted:{persona}"
        self.name = "scripted"

    def session(self, run) -> "ScriptedSession":
        return ScriptedSession(self.persona, run.task)


class ScriptedSession:
    def __init__(self, persona: str, task) -> None:
        self.persona = persona
        self.task = task
        self._script = None

    def complete(self, system: str, messages: list[dict], tools: list[dict]) -> Turn:
        if self._script is None:
            self._script = _script(self.persona, self.task)
            turn = next(self._script)
        else:
            last = messages[-1]
            results = last.get("results", []) if last.get("role") == "tool" else []
            turn = self._script.send(results)
        turn.usage = Usage(requests=1)
        turn.model = f"scripted:{self.persona}"
        return turn


# -- reading tool results --------------------------------------------------------------------
def _number(text: str):
    try:
        data = json.loads(text)
    except ValueError:
        m = re.search(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", text)
        return {"value": float(m.group())} if m else None
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        return {"value": float(data)}
    if isinstance(data, dict) and isinstance(data.get("value"), (int, float)):
        return {"value": float(data["value"]), "unit": data.get("unit"),
                "datum": data.get("datum")}
    return None


def _suggestion(text: str):
    """The JSON object after ``Send instead:``, if it is concrete (has a numeric value)."""
    at = text.find("Send instead:")
    if at < 0:
        return None
    start = text.find("{", at)
    if start < 0:
        return None
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                try:
                    data = json.loads(text[start:i + 1])
                except ValueError:
                    return None
                ok = isinstance(data, dict) and isinstance(data.get("value"), (int, float))
                return data if ok else None
    return None


def _fmt(value: float) -> str:
    return f"{value:.4g}" if abs(value) < 1e5 else f"{value:,.0f}"


# -- the script ---------------------------------------------------------------------------
def _script(persona: str, task):
    from quantity_guard.units import convert
    saved: dict = {}
    done_steps: set = set()
    ids = iter(range(1, 10_000))

    def call(name, args):
        turn = Turn(tool_calls=[{"id": f"call_{next(ids)}", "name": name, "arguments": args}],
                    stop_reason="tool_use")
        results = yield turn
        return results[0] if results else {"content": "", "is_error": True}

    def unit_of(step_name):
        """The unit a saved value is in: its label, else the tool's declared return unit."""
        v = saved[step_name]
        return v.get("unit") or v.get("declared")

    def value_in(step_name, unit):
        v = saved[step_name]
        return convert(v["value"], unit_of(step_name), unit)

    def arguments(step, how):
        decl = task.tool(step["call"])
        args = {}
        for name, value in step.get("args", {}).items():
            if not (isinstance(value, dict) and "ref" in value):
                args[name] = value
                continue
            spec = decl.param(name).spec(name)
            if how == "naive":
                args[name] = saved[value["ref"]]["value"]
                continue
            x = value_in(value["ref"], spec.unit)
            shift = value.get("shift")
            if how == "careful" and shift is not None and shift in saved:
                x += value_in(shift, spec.unit)
            args[name] = x
        return args

    def final(text):
        yield Turn(text=text, stop_reason="end_turn")

    label = task.answer.get("label", "value")

    def unavailable(what):
        return final(f"I could not obtain {what} from the tools, so the {label} cannot be "
                     f"determined without estimating it.\n\nFINAL ANSWER: unavailable")

    base = {"naive": "naive", "careful": "careful", "fabricator": "careful",
            "datum-blind": "datum-blind"}[persona]
    datum_steps = [s for s in task.plan if s.get("datum_step")]

    for step in task.plan:
        if step.get("datum_step") and base in ("naive", "datum-blind"):
            continue
        if id(step) in done_steps:
            continue
        decl = task.tool(step["call"])
        how = base
        args = arguments(step, how)
        result = yield from call(step["call"], args)
        tried: set = set()
        repairs = 0
        while result.get("is_error"):
            text = result.get("content", "")
            if text.startswith(f"{step['call']} failed:"):  # the service failed, not the guard
                name = step.get("save")
                if persona == "fabricator" and name in task.memory:
                    saved[name] = {"value": float(task.memory[name]["value"]),
                                   "unit": task.memory[name]["unit"]}
                    break
                yield from unavailable(f"the {name or step['call']}")
                return
            repairs += 1
            if repairs > MAX_REPAIRS:
                yield from unavailable("a value the tools would accept")
                return
            where = _FIELD.match(text)
            param = where.group("param") if where else None
            suggestion = _suggestion(text)
            if "no tool returned" in text:
                yield from unavailable(f"the {param or 'input'}")
                return
            if suggestion is not None and param in args and (param, json.dumps(
                    suggestion, sort_keys=True)) not in tried:
                tried.add((param, json.dumps(suggestion, sort_keys=True)))
                args = {**args, param: suggestion}
            elif "datum" in text.lower() and how != "careful":
                for ds in datum_steps:  # fetch the offset the text says is missing
                    if id(ds) in done_steps:
                        continue
                    r = yield from call(ds["call"], arguments(ds, "careful"))
                    if r.get("is_error"):
                        yield from unavailable("the datum offset")
                        return
                    saved[ds["save"]] = {**(_number(r["content"]) or {"value": 0.0}),
                                         "declared": (task.tool(ds["call"]).returns or {}).get("unit")}
                    done_steps.add(id(ds))
                how = "careful"
                args = arguments(step, how)
            else:
                yield from unavailable("a value the tools would accept")
                return
            result = yield from call(step["call"], args)
        else:
            if "save" in step:
                parsed = _number(result.get("content", "")) or {"value": float("nan")}
                parsed["declared"] = (decl.returns or {}).get("unit")
                saved[step["save"]] = parsed
        done_steps.add(id(step))

    ref = task.answer["ref"]
    value = value_in(ref, task.answer["unit"])
    unit = task.answer["unit"]
    shown = _fmt(value)
    yield from final(f"The {label} is {shown} {unit}.\n\nFINAL ANSWER: {shown} {unit}")
