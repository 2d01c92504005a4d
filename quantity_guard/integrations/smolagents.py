"""Guarded tools as smolagents ``Tool``s (``pip install smolagents``).

    from smolagents import ToolCallingAgent
    from quantity_guard.integrations import smolagents as qg_smolagents

    agent = ToolCallingAgent(tools=qg_smolagents.wrap(toolbox([read_discharge, runoff_depth])),
                             model=model)       # or CodeAgent(tools=..., model=model)

smolagents describes a tool's arguments in ``Tool.inputs`` and checks each argument's JSON type
against it before calling the tool (``validate_tool_arguments``). A unit parameter is declared
with the types of the library's schema, ``["number", "integer", "string", "object"]`` (integer
listed because smolagents matches a whole number only against a bare ``"number"``), the object
form's ``value``/``unit`` properties, and the library's description stating the unit in words,
so ``1250``, ``"1250 cfs"`` and ``{"value": 1250, "unit": "cfs"}`` all reach the guard, which
converts them. A parameter with a default is ``nullable`` (smolagents' mark for optional).

A success returns the labelled value, a ``dict`` (``{"value": 1250.0, "unit": "cfs"}``, what a
``CodeAgent``'s code indexes) whose text is the result's JSON (what a ``ToolCallingAgent`` shows
the model as the observation). A violation raises ``ToolRefused(<repair text>)``, which is how a
smolagents tool fails: the agent records it as the step's error and shows it to the model on its
next step ("Error executing tool ... Please try again or use another tool"), and the run goes on
(bounded by ``max_steps``).

Threads: a ``ToolCallingAgent`` runs a tool in the agent's thread, or several calls of one step
in a thread pool with the caller's context copied, so an open ``session()`` records every call.
A ``CodeAgent``'s local executor runs each code snippet in a new worker thread that does not
carry the caller's context: its calls find the session when it is the only one open; with
several open they are refused (``SessionUnbound``, shown to the model as the step's error, never
run unchecked) unless the agent is built with ``executor_kwargs={"timeout_seconds": None}``,
which runs snippets in the agent's own thread. An async ``@quantity_tool`` runs with
``asyncio.run``: in the tool's thread, or, when an event loop is already running there (an agent
run from a notebook), in a worker thread carrying the caller's context.
"""
from __future__ import annotations

import json

from . import guarded_tools, invoke_sync, require

__all__ = ["wrap", "GuardedTool", "ToolRefused", "LabelledValue"]


class ToolRefused(Exception):
    """A guarded smolagents tool refused its call; ``str()`` is the repair text for the model,
    ``result`` the ``isError`` tool result and ``code`` the violation's code (or None)."""

    def __init__(self, text: str, result: dict) -> None:
        super().__init__(text)
        self.result = result
        meta = (result.get("_meta") or {}).values()
        self.code = next((m.get("code") for m in meta if isinstance(m, dict)), None)


class LabelledValue(dict):
    """A tool's labelled value (``{"value": 1250.0, "unit": "cfs"}``); ``str()`` is its JSON,
    the text a model is shown."""

    def __str__(self) -> str:
        return json.dumps(self, ensure_ascii=False)


def _input(name: str, schema: dict, optional: bool) -> dict:
    """One ``Tool.inputs`` entry from a property of the library's input schema."""
    out: dict = {"type": "any", "description": schema.get("description", "")}
    if "anyOf" in schema:  # a declared quantity: number, string or {"value", "unit"}
        types: list = []
        for branch in schema["anyOf"]:
            kind = branch.get("type", "any")
            if kind == "null":
                optional = True
                continue
            types.append(kind)
            if kind == "number":
                types.append("integer")
            if kind == "object":
                out.update({k: branch[k] for k in ("properties", "required") if k in branch})
        out["type"] = types if len(types) > 1 else types[0]
    else:
        out.update({k: v for k, v in schema.items() if k != "description"})
    if optional:
        out["nullable"] = True
    return out


_CLASS = None


def _tool_class():
    global _CLASS
    if _CLASS is not None:
        return _CLASS
    smol = require("smolagents", "smolagents", "smolagents")
    from ..adapters import result_text
    from ..errors import tool_error

    class SmolagentsGuardedTool(smol.Tool):
        """A ``@quantity_tool`` as a smolagents tool (see the module doc)."""

        skip_forward_signature_validation = True  # forward takes the inputs as **kwargs

        def __init__(self, guarded) -> None:
            schema = guarded.json_schema(extensions=False)
            params = schema["inputSchema"]
            required = set(params.get("required", ()))
            self.guarded = guarded
            self.name = schema["name"]
            self.description = schema["description"] or schema["name"]
            self.inputs = {name: _input(name, prop, name not in required)
                           for name, prop in params["properties"].items()}
            self.output_schema = schema.get("outputSchema")
            self.output_type = "object" if self.output_schema else "any"
            super().__init__()

        def forward(self, *args, **kwargs):
            if args:  # smolagents passes a one-input tool a non-dict argument positionally
                if len(args) == 1 and not kwargs and len(self.inputs) == 1:
                    kwargs = {next(iter(self.inputs)): args[0]}
                else:
                    text = (f"{self.name}: received {len(args)} positional argument(s); send "
                            f"the arguments by name: {list(self.inputs)}")
                    raise ToolRefused(text, tool_error(text, code="invalid_arguments",
                                                       field=self.name))
            result = invoke_sync(self.guarded, kwargs)
            text = result_text(result)
            if result.get("isError"):
                raise ToolRefused(text, result)
            structured = result.get("structuredContent")
            return LabelledValue(structured) if isinstance(structured, dict) else text

    _CLASS = SmolagentsGuardedTool
    return _CLASS


def GuardedTool(tool):  # noqa: N802 (a factory that reads as the class it builds)
    """A smolagents tool for one ``@quantity_tool``."""
    return _tool_class()(tool)


def wrap(tool_or_toolbox):
    """A smolagents tool for one guarded tool, or a list of them for a toolbox or a list."""
    tools, single = guarded_tools(tool_or_toolbox)
    cls = _tool_class()
    wrapped = [cls(t) for t in tools]
    return wrapped[0] if single else wrapped
