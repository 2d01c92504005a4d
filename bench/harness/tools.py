"""Tool bodies and the per-condition tool objects built from a suite's declarations.

Every condition gets the same body (a closure over the task's fixed data) and the same
declarations; the conditions differ only in what the model is shown and in enforcement:

- ``baseline``: a plain schema (quantities typed ``number``, the units only in the suite's own
  prose), bare numeric results. The library runs in ``warn`` mode, which hands the body exactly
  what ``off`` would and records what the guard *would* have refused.
- ``schema_only``: the library's schema (units in words, ``x-unit`` etc. in MCP form, the
  ``{"value", "unit"}`` shape) and labelled results; still ``warn``, so nothing is refused.
- ``guarded`` and ``guarded_repair``: the same schema, ``strict``. What the model is told after a
  violation is decided by the run loop, not here.

Plain (identifier) parameters are typed and described identically in every condition.
"""
from __future__ import annotations

import inspect
import json
import math
import re

from quantity_guard.tool import GuardedTool, value_json

ENFORCEMENT = {"baseline": "warn", "schema_only": "warn", "guarded": "strict",
               "guarded_repair": "strict"}
PLAIN_CONDITIONS = frozenset({"baseline"})


class ServiceError(Exception):
    """A tool's upstream data service failed (the suite's scripted failure)."""


# -- bodies ------------------------------------------------------------------------------
def _op_divide(a, b):
    return a / b


def _op_multiply(a, b):
    return a * b


def _op_subtract(a, b):
    return a - b


def _op_three_phase_current(apparent_power, line_voltage):
    from quantity_guard import Q
    # apparent power is its own kind (VA is not W), so the current is formed from magnitudes
    return Q(apparent_power.m_as("VA") / (math.sqrt(3.0) * line_voltage.m_as("V")), "A")


OPS = {"divide": _op_divide, "multiply": _op_multiply, "subtract": _op_subtract,
       "three_phase_current": _op_three_phase_current}

_KEY_FOLD = re.compile(r"[\s\-_./]+")


def fold_key(text) -> str:
    """Identifiers as a model may write them: case, spaces, hyphens, a USGS prefix and the
    leading zeros a JSON number loses are ignored; a vertical datum in any spelling the
    library knows (``NGVD 1929``, ``navd-88``) is its registered name."""
    raw = str(text).strip()
    try:
        from quantity_guard import datums
        return datums.get(raw).name.upper()
    except Exception:  # noqa: BLE001 - not a datum name
        pass
    key = _KEY_FOLD.sub("", raw).upper()
    if key.startswith("USGS") and key[4:].isdigit():
        key = key[4:]
    return key.lstrip("0") or "0" if key.isdigit() else key


def lookup(table: dict, key: str):
    if key in table:
        return table[key]
    folded = fold_key(key)
    for k, v in table.items():
        if fold_key(k) == folded:
            return v
    return None


def run_body(decl, data: dict, kwargs: dict):
    """Execute one tool's body on its (already coerced) arguments."""
    body = decl.body
    if "fail" in body:
        raise ServiceError(body["fail"].format(**{k: str(v) for k, v in kwargs.items()}))
    if "lookup" in body:
        table = data[body["lookup"]]
        keys = body["key"] if isinstance(body["key"], list) else [body["key"]]
        key = "|".join(str(kwargs[k]).strip() for k in keys)
        found = lookup(table, key)
        if found is None and len(keys) > 1:
            folded = "|".join(fold_key(kwargs[k]) for k in keys)
            for k, v in table.items():
                if "|".join(fold_key(part) for part in k.split("|")) == folded:
                    found = v
                    break
        if found is None:
            raise ServiceError(body.get("missing", "no record for {key}").format(
                key=key, **{k: str(v) for k, v in kwargs.items()}))
        if isinstance(found, dict) and "error" in found:
            raise ServiceError(found["error"])
        return float(found)
    if "op" in body:
        return OPS[body["op"]](*(kwargs[name] for name in body["args"]))
    raise ValueError(f"tool {decl.name}: unknown body {body!r}")


def _signature(decl) -> inspect.Signature:
    params = []
    for p in decl.params:
        annotation = {"string": str, "number": float}.get(p.kind, inspect.Parameter.empty)
        params.append(inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY,
                                        annotation=annotation))
    return inspect.Signature(params)


def make_body(decl, data: dict, probe: list | None):
    """A function with the declared keyword-only signature that records what reached it."""
    def body(**kwargs):
        if probe is not None:
            probe.append({"tool": decl.name, "args": value_json(dict(kwargs))})
        return run_body(decl, data, kwargs)
    body.__name__ = decl.name
    body.__qualname__ = decl.name
    body.__doc__ = decl.description
    body.__signature__ = _signature(decl)
    return body


# -- tools -------------------------------------------------------------------------------
class BenchTool(GuardedTool):
    """A guarded tool whose identifier parameters carry the suite's description, and which,
    when ``plain``, shows the baseline schema and returns bare numbers."""

    def __init__(self, decl, data: dict, *, enforcement: str, plain: bool,
                 probe: list | None = None) -> None:
        self.decl = decl
        self.plain = plain
        super().__init__(make_body(decl, data, probe), params=decl.quantity_declarations(),
                         returns=decl.returns, name=decl.name, description=decl.description,
                         enforcement=enforcement)

    def json_schema(self, *, extensions: bool = True) -> dict:
        if self.plain:
            return plain_schema(self.decl)
        schema = super().json_schema(extensions=extensions)
        props = schema["inputSchema"]["properties"]
        for p in self.decl.params:
            if p.kind != "quantity":
                props[p.name] = plain_param_schema(p)
        return schema

    def invoke(self, arguments=None) -> dict:
        result = super().invoke(arguments)
        if self.plain and not result.get("isError"):
            return bare_result(result)
        return result


def plain_param_schema(p) -> dict:
    kind = "number" if p.kind in ("quantity", "number") else "string"
    out = {"type": kind}
    if p.description:
        out["description"] = p.description
    return out


def plain_schema(decl) -> dict:
    """The baseline MCP tool definition: no units metadata beyond the suite's prose."""
    return {"name": decl.name, "description": decl.description,
            "inputSchema": {"type": "object",
                            "properties": {p.name: plain_param_schema(p) for p in decl.params},
                            "required": [p.name for p in decl.params]}}


def _bare(data):
    if isinstance(data, dict):
        if "value" in data and "unit" in data:
            return data["value"]
        return {k: _bare(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_bare(v) for v in data]
    return data


def bare_result(result: dict) -> dict:
    """A labelled result as a plain tool returns it: the magnitude only."""
    data = result.get("structuredContent")
    if data is None:
        return result
    bare = _bare(data)
    out = {"content": [{"type": "text", "text": json.dumps(bare, allow_nan=False)}],
           "isError": False}
    if isinstance(bare, dict):
        out["structuredContent"] = bare
    return out


def build_tools(task, condition: str, probe: list | None = None, *,
                enforcement: str | None = None) -> list[BenchTool]:
    """The task's tools as shown and enforced under ``condition``."""
    plain = condition in PLAIN_CONDITIONS
    mode = enforcement or ENFORCEMENT[condition]
    return [BenchTool(decl, task.data, enforcement=mode, plain=plain, probe=probe)
            for decl in task.tools]


def violation_of(result: dict) -> dict | None:
    """``{"code", "field"}`` when a tool result is a guard violation, else None."""
    meta = result.get("_meta") or {}
    v = meta.get("io.github.quantity-guard/violation")
    return dict(v) if isinstance(v, dict) else None


def result_text(result: dict) -> str:
    return "\n".join(c.get("text", "") for c in result.get("content", [])
                     if c.get("type") == "text")
