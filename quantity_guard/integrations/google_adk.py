"""Guarded tools as Google Agent Development Kit tools (``pip install google-adk``).

    from google.adk.agents import LlmAgent
    from quantity_guard.integrations import google_adk

    agent = LlmAgent(name="hydrologist", model="gemini-2.5-flash",
                     tools=google_adk.wrap(toolbox([read_discharge, runoff_depth])))

Each tool is an ADK ``BaseTool`` whose declaration is the library's Gemini flavour
(``toolbox(...).schemas("gemini")``: a unit parameter takes a number, ``"1250 cfs"`` or
``{"value", "unit"}``, the unit in words, only the schema keywords Gemini reads). ADK hands
``run_async`` the model's arguments as they are; the guard converts them, a sync body runs in a
worker thread carrying the caller's context, and the function response is the labelled value
(``{"value": 1250.0, "unit": "cfs"}``) or, for a violation, ``{"error": <repair text>}``, the
shape ADK's own tools give the model for a failed call.
"""
from __future__ import annotations

from . import guarded_tools, require, run_sync_in_thread

__all__ = ["wrap"]

_CLASS = None


def _tool_class():
    global _CLASS
    if _CLASS is not None:
        return _CLASS
    base = require("google.adk.tools.base_tool", "google-adk", "google_adk")
    from google.genai import types

    from ..adapters import gemini_tool, result_text

    class ADKGuardedTool(base.BaseTool):
        """A ``@quantity_tool`` as an ADK tool (see the module doc)."""

        def __init__(self, guarded) -> None:
            self.declaration = gemini_tool(guarded)
            super().__init__(name=self.declaration["name"],
                             description=self.declaration["description"])
            self.guarded = guarded

        def _get_declaration(self):
            return types.FunctionDeclaration.model_validate(self.declaration)

        async def run_async(self, *, args, tool_context):
            result = await run_sync_in_thread(self.guarded, dict(args or {}))
            if result.get("isError"):
                return {"error": result_text(result)}
            structured = result.get("structuredContent")
            return structured if structured is not None else {"result": result_text(result)}

    _CLASS = ADKGuardedTool
    return _CLASS


def wrap(tool_or_toolbox):
    """An ADK tool for one guarded tool, or a list of them for a toolbox or a list."""
    tools, single = guarded_tools(tool_or_toolbox)
    cls = _tool_class()
    wrapped = [cls(t) for t in tools]
    return wrapped[0] if single else wrapped
