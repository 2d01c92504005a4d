"""Guarded tools inside agent frameworks: ``integrations.<framework>.wrap(tool_or_toolbox)``.

One module per framework, each importing its framework the first time it is used (``import
quantity_guard`` imports none of them):

- ``openai_agents``: ``agents.FunctionTool`` (OpenAI Agents SDK);
- ``langchain``: a ``langchain_core`` ``BaseTool`` (LangChain, LangGraph's ``ToolNode``);
- ``pydantic_ai``: ``pydantic_ai.Tool``;
- ``fastmcp``: ``fastmcp`` tools from ``@quantity_tool`` functions, and a transform guarding a
  FastMCP server's own tools from an annotations file (the format ``quantity-guard-mcp`` reads);
- ``google_adk``: Google ADK ``BaseTool``s declared in the Gemini schema flavour.

Whatever the framework, the tool keeps the library's contract: the model is shown the library's
schema (a number, ``"1250 cfs"`` or ``{"value", "unit"}``, the unit in words), the framework does
not re-validate arguments against a plain numeric schema, the body receives converted ``Q``
values, and a violation reaches the model as a tool result carrying the repair text, in the form
that framework gives a model for a failed call, never as an exception that ends the run.
"""
from __future__ import annotations

from importlib import import_module

__all__ = ["require", "guarded_tools", "MissingFramework"]


class MissingFramework(ImportError):
    """The framework an integration module adapts to is not installed."""


def require(module: str, package: str, integration: str):
    """Import ``module`` or raise ``MissingFramework`` naming the package to install."""
    try:
        return import_module(module)
    except ImportError as err:
        raise MissingFramework(
            f"quantity_guard.integrations.{integration} needs {package}, which is not installed "
            f"({err}); install it with: pip install {package}") from err


def guarded_tools(tool_or_toolbox) -> tuple[list, bool]:
    """(the GuardedTools, whether one tool was given rather than a collection)."""
    from ..adapters import Toolbox
    from ..tool import GuardedTool
    if isinstance(tool_or_toolbox, GuardedTool):
        return [tool_or_toolbox], True
    if isinstance(tool_or_toolbox, Toolbox):
        return list(tool_or_toolbox), False
    if isinstance(tool_or_toolbox, (list, tuple)):
        from ..adapters import toolbox
        return list(toolbox(tool_or_toolbox)), False  # the toolbox checks types and names
    raise TypeError(f"wrap() takes a @quantity_tool, a toolbox([...]) or a list of them, not "
                    f"{type(tool_or_toolbox).__name__}")


def run_sync_in_thread(tool, arguments):
    """A coroutine running a sync tool's ``invoke`` in a worker thread (``asyncio.to_thread``
    copies the caller's context, so an open session goes with it); async tools are awaited."""
    if tool.is_async:
        return tool.ainvoke(arguments)
    import asyncio
    return asyncio.to_thread(tool.invoke, arguments)


def invoke_sync(tool, arguments):
    """Run a guarded tool from a framework's synchronous call path: ``invoke``, except that an
    async tool called while an event loop runs in this thread (a notebook, a sync tool API
    called from async code) runs to completion in a worker thread carrying this context."""
    if tool.is_async:
        import asyncio
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return tool.invoke(arguments)
        import contextvars
        from concurrent.futures import ThreadPoolExecutor
        context = contextvars.copy_context()
        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(context.run, asyncio.run, tool.ainvoke(arguments)).result()
    return tool.invoke(arguments)
