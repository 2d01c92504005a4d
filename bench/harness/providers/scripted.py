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


# -- the personas' policies ------------------------------------------------------------------
class _Policy:
    """How a persona moves a value from one tool into another, and what it does when a tool
    fails. ``moves``: ``naive`` copies the bare number, ``careful`` converts and applies datum
    offsets, ``datum-blind`` converts units but ignores datums."""
    __slots__ = ("moves", "skips_datum_steps", "invents_on_failure")

    def __init__(self, moves: str, skips_datum_steps: bool, invents_on_failure: bool) -> None:
        self.moves = moves
        self.skips_datum_steps = skips_datum_steps
        self.invents_on_failure = invents_on_failure


POLICIES = {
    "naive": _Policy("naive", skips_datum_steps=True, invents_on_failure=False),
    "careful": _Policy("careful", skips_datum_steps=False, invents_on_failure=False),
    "datum-blind": _Policy("datum-blind", skips_datum_steps=True, invents_on_failure=False),
    # converts carefully, but answers a failed read with the figure it remembers
    "fabricator": _Policy("careful", skips_datum_steps=False, invents_on_failure=True),
}


class _GiveUp(Exception):
    """The persona stops and reports ``what`` unavailable."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


# -- the script ---------------------------------------------------------------------------
class _Run:
    """One persona working through one task's reference plan. Generators yield ``Turn``s and
    receive the tool results of each turn."""

    def __init__(self, policy: _Policy, task) -> None:
        self.policy = policy
        self.task = task
        self.saved: dict = {}
        self.done_steps: set = set()
        self.ids = iter(range(1, 10_000))
        self.datum_steps = [s for s in task.plan if s.get("datum_step")]

    def call(self, name, args):
        turn = Turn(tool_calls=[{"id": f"call_{next(self.ids)}", "name": name,
                                 "arguments": args}], stop_reason="tool_use")
        results = yield turn
        return results[0] if results else {"content": "", "is_error": True}

    def value_in(self, step_name, unit):
        """A saved value in ``unit``: from its label, else the tool's declared return unit."""
        from quantity_guard.units import convert
        v = self.saved[step_name]
        return convert(v["value"], v.get("unit") or v.get("declared"), unit)

    def arguments(self, step, how):
        decl = self.task.tool(step["call"])
        args = {}
        for name, value in step.get("args", {}).items():
            if not (isinstance(value, dict) and "ref" in value):
                args[name] = value
                continue
            if how == "naive":
                args[name] = self.saved[value["ref"]]["value"]
                continue
            x = self.value_in(value["ref"], decl.param(name).spec(name).unit)
            shift = value.get("shift")
            if how == "careful" and shift is not None and shift in self.saved:
                x += self.value_in(shift, decl.param(name).spec(name).unit)
            args[name] = x
        return args

    def save(self, name, content, tool, unreadable=float("nan")):
        """Save a tool's result; ``unreadable`` stands in when it holds no number."""
        parsed = _number(content)
        self.saved[name] = {**(parsed or {"value": unreadable}),
                            "declared": (self.task.tool(tool).returns or {}).get("unit")}

    def steps(self):
        """Every step of the plan the policy takes, each with its repairs."""
        for step in self.task.plan:
            if step.get("datum_step") and self.policy.skips_datum_steps:
                continue
            if id(step) in self.done_steps:
                continue
            yield from self.step(step)
            self.done_steps.add(id(step))

    def step(self, step):
        how = self.policy.moves
        args = self.arguments(step, how)
        result = yield from self.call(step["call"], args)
        tried: set = set()
        repairs = 0
        while result.get("is_error"):
            text = result.get("content", "")
            if text.startswith(f"{step['call']} failed:"):  # the service failed, not the guard
                self.service_failed(step)
                return
            repairs += 1
            if repairs > MAX_REPAIRS:
                raise _GiveUp("a value the tools would accept")
            args, how = yield from self.repair(step, text, args, how, tried)
            result = yield from self.call(step["call"], args)
        if "save" in step:
            self.save(step["save"], result.get("content", ""), step["call"])

    def service_failed(self, step):
        name = step.get("save")
        memory = self.task.memory
        if self.policy.invents_on_failure and name in memory:
            self.saved[name] = {"value": float(memory[name]["value"]),
                                "unit": memory[name]["unit"]}
            return
        raise _GiveUp(f"the {name or step['call']}")

    def repair(self, step, text, args, how, tried):
        """Act on the guard's repair text: (the next arguments, how values are now moved)."""
        where = _FIELD.match(text)
        param = where.group("param") if where else None
        suggestion = _suggestion(text)
        if "no tool returned" in text:
            raise _GiveUp(f"the {param or 'input'}")
        key = (param, json.dumps(suggestion, sort_keys=True))
        if suggestion is not None and param in args and key not in tried:
            tried.add(key)
            return {**args, param: suggestion}, how
        if "datum" in text.lower() and how != "careful":
            yield from self.fetch_datum_offsets()
            return self.arguments(step, "careful"), "careful"
        raise _GiveUp("a value the tools would accept")

    def fetch_datum_offsets(self):
        """Fetch the offsets the repair text says are missing (the plan's datum steps)."""
        for ds in self.datum_steps:
            if id(ds) in self.done_steps:
                continue
            r = yield from self.call(ds["call"], self.arguments(ds, "careful"))
            if r.get("is_error"):
                raise _GiveUp("the datum offset")
            self.save(ds["save"], r["content"], ds["call"], unreadable=0.0)
            self.done_steps.add(id(ds))


def _final(text):
    yield Turn(text=text, stop_reason="end_turn")


def _script(persona: str, task):
    run = _Run(POLICIES[persona], task)
    label = task.answer.get("label", "value")
    try:
        yield from run.steps()
    except _GiveUp as stop:
        yield from _final(f"I could not obtain {stop.what} from the tools, so the {label} "
                          f"cannot be determined without estimating it.\n\nFINAL ANSWER: "
                          f"unavailable")
        return
    unit = task.answer["unit"]
    shown = _fmt(run.value_in(task.answer["ref"], unit))
    yield from _final(f"The {label} is {shown} {unit}.\n\nFINAL ANSWER: {shown} {unit}")
