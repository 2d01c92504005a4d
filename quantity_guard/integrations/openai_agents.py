"""Guarded tools as OpenAI Agents SDK ``FunctionTool``s (``pip install openai-agents``).

    from agents import Agent
    from quantity_guard.integrations import openai_agents

    agent = Agent(name="hydrologist", tools=openai_agents.wrap(toolbox([read_discharge,
                                                                        runoff_depth])))

Each ``FunctionTool`` shows the model the library's strict schema (every parameter required,
closed objects; a unit parameter takes a number in the declared unit, ``"1250 cfs"`` or
``{"value", "unit"}``, and its description states the unit in words). ``on_invoke_tool`` runs the
guarded tool, a sync body in a worker thread that carries the caller's context (so an open
``session()`` records the call); a violation returns ``"Error: <repair text>"`` as the tool's
output, which the SDK sends back to the model for its next turn, never an exception that would
end the run. A success returns the result's JSON text (``{"value": 1250.0, "unit": "cfs"}``).
"""
from __future__ import annotations

from . import guarded_tools, require, run_sync_in_thread

__all__ = ["wrap", "function_tool"]


def _agents():
    return require("agents", "openai-agents", "openai_agents")


def wrap(tool_or_toolbox, *, strict: bool = True):
    """A ``FunctionTool`` for one guarded tool, or a list of them for a toolbox or a list."""
    tools, single = guarded_tools(tool_or_toolbox)
    wrapped = [function_tool(t, strict=strict) for t in tools]
    return wrapped[0] if single else wrapped


def function_tool(tool, *, strict: bool = True):
    agents = _agents()
    from ..adapters import openai_tool, result_text
    spec = openai_tool(tool, strict=strict)["function"]

    async def on_invoke_tool(ctx, arguments: str) -> str:
        result = await run_sync_in_thread(tool, arguments)
        text = result_text(result)
        return f"Error: {text}" if result.get("isError") else text

    return agents.FunctionTool(name=spec["name"], description=spec["description"],
                               params_json_schema=spec["parameters"],
                               on_invoke_tool=on_invoke_tool, strict_json_schema=strict)
