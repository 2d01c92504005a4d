"""Guarded tools as pydantic-ai ``Tool``s (``pip install pydantic-ai-slim``).

    from pydantic_ai import Agent
    from quantity_guard.integrations import pydantic_ai as qg_pydantic_ai

    agent = Agent(model, tools=qg_pydantic_ai.wrap(toolbox([read_discharge, runoff_depth])))

Each tool carries the library's JSON schema (a unit parameter takes a number, ``"1250 cfs"`` or
``{"value", "unit"}``, the unit in words in its description) and is built with
``Tool.from_schema``, so pydantic-ai does not re-validate the arguments against a numeric type:
the guard converts them. A violation raises ``ModelRetry(repair_text)``, which pydantic-ai
returns to the model as a retry prompt so it corrects the call; ``max_retries`` (default 3)
bounds how many refused calls of one tool a run tolerates. A success returns the labelled value
(``{"value": 1250.0, "unit": "cfs"}``). A sync body runs in pydantic-ai's worker thread.
"""
from __future__ import annotations

from . import guarded_tools, require

__all__ = ["wrap", "tool"]


def wrap(tool_or_toolbox, *, max_retries: int | None = 3):
    """A ``pydantic_ai.Tool`` for one guarded tool, or a list of them for a toolbox or a list."""
    tools, single = guarded_tools(tool_or_toolbox)
    wrapped = [tool(t, max_retries=max_retries) for t in tools]
    return wrapped[0] if single else wrapped


def tool(guarded, *, max_retries: int | None = 3):
    pai = require("pydantic_ai", "pydantic-ai-slim", "pydantic_ai")
    from ..adapters import result_text

    def answer(result: dict):
        if result.get("isError"):
            raise pai.ModelRetry(result_text(result))
        structured = result.get("structuredContent")
        return structured if structured is not None else result_text(result)

    if guarded.is_async:
        async def function(**arguments):
            return answer(await guarded.ainvoke(arguments))
    else:
        def function(**arguments):  # type: ignore[misc]  # sync or async: one is defined
            # pydantic-ai runs a sync function in its worker thread
            return answer(guarded.invoke(arguments))

    schema = guarded.json_schema(extensions=False)
    out = pai.Tool.from_schema(function, name=schema["name"],
                               description=schema["description"] or schema["name"],
                               json_schema=schema["inputSchema"])
    out.max_retries = max_retries
    return out
