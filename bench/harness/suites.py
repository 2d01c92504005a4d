"""Suites are data: ``bench/suites/<name>.json``. This module reads and checks them, and
computes each task's ground truth with the library.

A suite file::

    {"suite": "core", "description": "...",
     "tools": {"<name>": {"name": "<advertised name, if not the key>", "description": "<prose, units as the publisher writes them>",
                          "params": {"station_id": {"type": "string", "description": "..."},
                                     "discharge": {"unit": "m**3/s", "description": "..."}},
                          "returns": {"unit": "cfs"},
                          "body": {"lookup": "<table>", "key": "station_id"}
                                | {"op": "divide", "args": ["discharge", "area"]}
                                | {"fail": "<message>"}}},
     "data": {"<table>": {"<key>": <number in the declared return unit> | {"error": "..."}}},
     "tasks": [{"id": "...", "title": "...", "question": "...",
                "tools": ["<name>", ...], "data": {...overrides...},
                "expect": "value" | "unavailable",
                "answer": {"ref": "<saved step>", "unit": "mm/d", "label": "runoff depth"},
                "plan": [{"call": "<tool>", "args": {...}, "save": "<name>"}, ...],
                "memory": {"<saved step>": {"value": ..., "unit": ...}},
                "hazards": [{"kind": "carry_over" | "datum" | "fabricated", ...}]}]}

``plan`` is the reference solution as data flow. An argument ``{"ref": "q"}`` means "the value
step ``q`` returned, in this parameter's unit"; ``{"ref": "crest", "shift": "offset"}`` adds the
offset step's result (``height on the target datum = height on the source datum + offset``).
Steps marked ``"datum_step": true`` are the ones a datum-blind solver skips. ``memory`` holds
the widely memorised figure a fabricating solver would supply when a step fails.

Hazards say where the task can go silently wrong, keyed on what reaches a tool:
``carry_over`` (``tool``, ``param``, ``source`` step, ``pair`` such as ``"cfs->m3/s"``): the
parameter holds the source's magnitude unconverted; ``datum``: likewise across datums;
``fabricated`` (``tool``, ``param``, ``source`` tool): a value for the parameter although the
source tool never returned one.
"""
from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

SUITES_DIR = Path(__file__).resolve().parent.parent / "suites"
HAZARD_KINDS = ("carry_over", "datum", "fabricated")
_QUANTITY_KEYS = {"unit", "datum", "sourced", "require_explicit_unit", "quality", "crs",
                  "description"}


class SuiteError(ValueError):
    """A suite file that does not describe a runnable, gradeable task."""


@dataclass(frozen=True)
class ParamDecl:
    name: str
    kind: str  # "quantity" | "string" | "number"
    description: str
    declaration: dict | None = None  # the @quantity_tool declaration, for quantities

    def spec(self, field_name: str):
        from quantity_guard.spec import Spec
        return Spec.of(self.declaration, field_name)


@dataclass(frozen=True)
class ToolDecl:
    name: str
    description: str
    params: tuple[ParamDecl, ...]
    returns: dict | None
    body: dict

    def quantity_declarations(self) -> dict:
        return {p.name: dict(p.declaration) for p in self.params if p.kind == "quantity"}

    def param(self, name: str) -> ParamDecl | None:
        for p in self.params:
            if p.name == name:
                return p
        return None


@dataclass
class Task:
    id: str
    suite: str
    title: str
    question: str
    expect: str
    answer: dict
    tools: tuple[ToolDecl, ...]
    data: dict
    plan: list
    memory: dict
    hazards: list
    notes: str = ""
    _reference: "Reference | None" = field(default=None, repr=False, compare=False)

    @property
    def answer_unit(self) -> str:
        return self.answer["unit"]

    def tool(self, name: str) -> ToolDecl | None:
        for t in self.tools:
            if t.name == name:
                return t
        return None

    def spec(self, tool: str, param: str):
        """The declared Spec of ``tool.param`` (the same declaration in every condition)."""
        decl = self.tool(tool)
        p = decl.param(param) if decl else None
        if p is None or p.kind != "quantity":
            return None
        return p.spec(f"{tool}.{param}")

    def reference(self) -> "Reference":
        """Ground truth and the known silent-error answers, computed once with the library."""
        if self._reference is None:
            self._reference = compute_reference(self)
        return self._reference


@dataclass
class Suite:
    name: str
    description: str
    tasks: list[Task]
    path: str
    digest: str

    def task(self, task_id: str) -> Task:
        for t in self.tasks:
            if t.id == task_id:
                return t
        raise KeyError(f"suite {self.name} has no task {task_id!r}; its tasks are "
                       f"{[t.id for t in self.tasks]}")


def available() -> list[str]:
    return sorted(p.stem for p in SUITES_DIR.glob("*.json"))


_CACHE: dict[str, Suite] = {}


def load(name_or_path: str) -> Suite:
    """A suite by name (``core``) or by path to its JSON file."""
    path = Path(name_or_path)
    if not path.suffix:
        path = SUITES_DIR / f"{name_or_path}.json"
    if not path.is_file():
        raise SuiteError(f"no suite {name_or_path!r}; the suites are {available()}")
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()[:16]
    key = f"{path.resolve()}:{digest}"
    if key not in _CACHE:
        _CACHE[key] = parse(json.loads(raw), str(path), digest)
    return _CACHE[key]


def parse(doc: dict, path: str = "<memory>", digest: str = "") -> Suite:
    name = doc.get("suite")
    if not isinstance(name, str) or not name:
        raise SuiteError(f"{path}: 'suite' (the suite's name) is required")
    tools = {key: _tool(key, t, path) for key, t in doc.get("tools", {}).items()}
    tasks = []
    seen = set()
    for raw in doc.get("tasks", []):
        task = _task(name, raw, tools, doc.get("data", {}), path)
        if task.id in seen:
            raise SuiteError(f"{path}: duplicate task id {task.id!r}")
        seen.add(task.id)
        tasks.append(task)
    if not tasks:
        raise SuiteError(f"{path}: a suite needs at least one task")
    return Suite(name, doc.get("description", ""), tasks, path,
                 digest or hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16])


def _tool(key: str, raw: dict, path: str) -> ToolDecl:
    name = raw.get("name", key)  # variants of one tool ("read_discharge@cfs") share a name
    where = f"{path}: tool {key}"
    if not isinstance(raw.get("description"), str) or not raw["description"].strip():
        raise SuiteError(f"{where}: a description (the publisher's prose) is required")
    params = []
    for pname, p in raw.get("params", {}).items():
        if not isinstance(p, dict):
            raise SuiteError(f"{where}: parameter {pname} must be an object")
        if "unit" in p:
            unknown = set(p) - _QUANTITY_KEYS
            if unknown:
                raise SuiteError(f"{where}.{pname}: unknown keys {sorted(unknown)}")
            params.append(ParamDecl(pname, "quantity", p.get("description", ""), dict(p)))
        else:
            kind = p.get("type", "string")
            if kind not in ("string", "number"):
                raise SuiteError(f"{where}.{pname}: type must be string or number")
            params.append(ParamDecl(pname, kind, p.get("description", "")))
    body = raw.get("body")
    if not isinstance(body, dict) or not ({"lookup", "op", "fail"} & set(body)):
        raise SuiteError(f"{where}: body must be a lookup, an op or a fail")
    from .tools import OPS
    if "op" in body and body["op"] not in OPS:
        raise SuiteError(f"{where}: unknown op {body['op']!r}; the ops are {sorted(OPS)}")
    decl = ToolDecl(name, raw["description"].strip(), tuple(params), raw.get("returns"), body)
    try:  # declarations are checked by the library, as @quantity_tool would at import
        from .tools import BenchTool
        BenchTool(decl, {}, enforcement="strict", plain=False)
    except Exception as err:
        raise SuiteError(f"{where}: {err}") from None
    return decl


def _task(suite: str, raw: dict, tools: dict, suite_data: dict, path: str) -> Task:
    tid = raw.get("id")
    where = f"{path}: task {tid}"
    for key in ("id", "title", "question", "plan", "answer", "tools"):
        if key not in raw:
            raise SuiteError(f"{where}: {key!r} is required")
    missing = [t for t in raw["tools"] if t not in tools]
    if missing:
        raise SuiteError(f"{where}: unknown tools {missing}")
    names = [tools[t].name for t in raw["tools"]]
    if len(set(names)) != len(names):
        raise SuiteError(f"{where}: two of its tools have the same name ({names})")
    data = copy.deepcopy(suite_data)
    for table, rows in raw.get("data", {}).items():
        data.setdefault(table, {}).update(rows)
    expect = raw.get("expect", "value")
    if expect not in ("value", "unavailable"):
        raise SuiteError(f"{where}: expect must be 'value' or 'unavailable'")
    task = Task(tid, suite, raw["title"], raw["question"].strip(), expect, dict(raw["answer"]),
                tuple(tools[t] for t in raw["tools"]), data, list(raw["plan"]),
                dict(raw.get("memory", {})), list(raw.get("hazards", [])), raw.get("notes", ""))
    _check_task(task, where)
    return task


def _check_task(task: Task, where: str) -> None:
    from quantity_guard.units import parse_unit
    try:
        parse_unit(task.answer["unit"])
    except Exception as err:
        raise SuiteError(f"{where}: answer unit: {err}") from None
    saved = set()
    for i, step in enumerate(task.plan):
        decl = task.tool(step.get("call", ""))
        if decl is None:
            raise SuiteError(f"{where}: plan step {i} calls {step.get('call')!r}, not one of "
                             f"the task's tools")
        for arg, value in step.get("args", {}).items():
            if decl.param(arg) is None:
                raise SuiteError(f"{where}: plan step {i}: {decl.name} has no parameter {arg}")
            if isinstance(value, dict) and "ref" in value:
                for ref in (value["ref"], value.get("shift")):
                    if ref is not None and ref not in saved:
                        raise SuiteError(f"{where}: plan step {i} uses {ref!r} before a step "
                                         f"saves it")
        if "save" in step:
            saved.add(step["save"])
    if task.answer.get("ref") not in saved:
        raise SuiteError(f"{where}: the answer refers to {task.answer.get('ref')!r}, which no "
                         f"plan step saves")
    for h in task.hazards:
        if h.get("kind") not in HAZARD_KINDS:
            raise SuiteError(f"{where}: hazard kind must be one of {HAZARD_KINDS}")
        if task.spec(h.get("tool", ""), h.get("param", "")) is None:
            raise SuiteError(f"{where}: hazard on {h.get('tool')}.{h.get('param')}, which is "
                             f"not a declared quantity parameter")
        if h["kind"] != "fabricated" and h.get("source") not in saved:
            raise SuiteError(f"{where}: hazard source {h.get('source')!r} is not a saved step")
        if h["kind"] == "fabricated" and task.tool(h.get("source", "")) is None:
            raise SuiteError(f"{where}: fabricated hazard source must name a tool")
    for key in task.memory:
        if key not in saved:
            raise SuiteError(f"{where}: memory for {key!r}, which is not a saved step")


# -- ground truth --------------------------------------------------------------------------
SILENT_MODES = ("unconverted", "datum_blind", "memory")


@dataclass
class Evaluation:
    mode: str
    answer: object  # Q in the answer unit, or None
    saved: dict
    failed_step: str | None = None


@dataclass
class Reference:
    truth: object           # Q in the answer unit, or None for "unavailable" tasks
    saved: dict             # step name -> Q (the reference path's outputs)
    silent: list            # [{"mode", "value"}]: answers the known hazards produce
    failed_step: str | None

    def as_dict(self) -> dict:
        return {"truth": None if self.truth is None else self.truth.magnitude,
                "silent": self.silent, "failed_step": self.failed_step}


def _arg(value, param: ParamDecl, mode: str, saved: dict):
    if not (isinstance(value, dict) and "ref" in value):
        return value
    from quantity_guard import Q
    src = saved[value["ref"]]
    spec = param.spec(param.name)
    if mode == "unconverted":
        return src.magnitude  # a bare number, read in the declared unit (and datum)
    shift = value.get("shift")
    if mode == "datum_blind":
        return src.to(spec.unit).magnitude
    if shift is None:
        return src  # the library converts it at the boundary
    moved = src.to(spec.unit).magnitude + saved[shift].to(spec.unit).magnitude
    return Q(moved, spec.unit, datum=spec.datum)


def evaluate(task: Task, mode: str) -> Evaluation:
    """Run the plan through the task's tools. ``truth``: every conversion and offset applied
    (under strict enforcement, so the reference path must satisfy the guard); ``unconverted``:
    magnitudes copied as published, datum steps skipped; ``datum_blind``: units converted,
    datum steps skipped; ``memory``: as truth, with memorised figures for failing steps."""
    from quantity_guard import Q, session
    from quantity_guard.errors import GuardViolation
    from .tools import ServiceError, build_tools
    enforcement = "strict" if mode == "truth" else "off"
    tools = {t.name: t for t in build_tools(task, "guarded", enforcement=enforcement)}
    saved: dict = {}
    with session(context=task.question):
        for step in task.plan:
            if step.get("datum_step") and mode in ("unconverted", "datum_blind"):
                continue
            tool = tools[step["call"]]
            decl = task.tool(step["call"])
            args = {k: _arg(v, decl.param(k), mode, saved) for k, v in step.get("args", {}).items()}
            try:
                out = tool(**args)
            except ServiceError:
                name = step.get("save")
                if mode == "memory" and name in task.memory:
                    saved[name] = Q.from_dict(task.memory[name])
                    continue
                return Evaluation(mode, None, saved, step.get("save") or step["call"])
            except GuardViolation as err:
                if mode == "truth":
                    raise SuiteError(f"task {task.id}: the reference path is refused by the "
                                     f"guard: {err.repair()}") from None
                raise
            if "save" in step:
                saved[step["save"]] = out
    answer = saved[task.answer["ref"]].to(task.answer["unit"])
    return Evaluation(mode, answer, saved)


def close(a: float, b: float, rel: float = 0.01) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def compute_reference(task: Task) -> Reference:
    truth = evaluate(task, "truth")
    if task.expect == "value" and truth.answer is None:
        raise SuiteError(f"task {task.id}: the reference path fails at {truth.failed_step}")
    if task.expect == "unavailable" and truth.answer is not None:
        raise SuiteError(f"task {task.id}: expected 'unavailable' but the reference path "
                         f"answers {truth.answer}")
    silent = []
    for mode in SILENT_MODES:
        ev = evaluate(task, mode)
        if ev.answer is None:
            continue
        v = ev.answer.magnitude
        if truth.answer is not None and close(v, truth.answer.magnitude, 1e-6):
            continue
        if any(close(v, s["value"], 1e-6) for s in silent):
            continue
        silent.append({"mode": mode, "value": v})
    return Reference(truth.answer, truth.saved, silent, truth.failed_step)
