"""Guarded tools as LangChain tools (``pip install langchain-core``; LangGraph's ``ToolNode``
runs them as any other tool).

    from quantity_guard.integrations import langchain as qg_langchain

    tools = qg_langchain.wrap(toolbox([read_discharge, runoff_depth]))
    model.bind_tools(tools)            # or langgraph.prebuilt.ToolNode(tools)

Each tool is a ``langchain_core.tools.BaseTool`` whose ``args_schema`` is the library's JSON
schema (a unit parameter takes a number, ``"1250 cfs"`` or ``{"value", "unit"}``; the unit in
words in its description; no ``x-*`` keys, which some providers refuse), so LangChain passes the
arguments through unvalidated and the guard converts them. Called with a tool call, it answers
with a ``ToolMessage``: the result's JSON text as content and the labelled value
(``{"value": 1250.0, "unit": "cfs"}``) as ``artifact``; a violation gives ``status="error"`` and
the repair text as content, for the model's next turn, never an exception.
"""
from __future__ import annotations

from . import guarded_tools, require

__all__ = ["wrap", "GuardedTool"]

_CLASS = None


def _tool_class():
    global _CLASS
    if _CLASS is not None:
        return _CLASS
    tools = require("langchain_core.tools", "langchain-core", "langchain")
    from ..adapters import result_text

    class LangChainGuardedTool(tools.BaseTool):
        """A ``@quantity_tool`` as a LangChain tool (see the module doc)."""

        guarded: object = None
        handle_tool_error: bool = True
        response_format: str = "content_and_artifact"

        def _answer(self, result: dict):
            text = result_text(result)
            if result.get("isError"):
                raise tools.ToolException(text)  # handled: a ToolMessage with status="error"
            return text, result.get("structuredContent")

        def _run(self, **arguments):
            return self._answer(self.guarded.invoke(arguments))

        async def _arun(self, **arguments):
            if self.guarded.is_async:
                return self._answer(await self.guarded.ainvoke(arguments))
            return await super()._arun(**arguments)  # LangChain's executor, with the context

    _CLASS = LangChainGuardedTool
    return _CLASS


def GuardedTool(tool):  # noqa: N802 (a factory that reads as the class it builds)
    schema = tool.json_schema(extensions=False)
    return _tool_class()(name=schema["name"], description=schema["description"] or schema["name"],
                         args_schema=schema["inputSchema"], guarded=tool)


def wrap(tool_or_toolbox):
    """A LangChain tool for one guarded tool, or a list of them for a toolbox or a list."""
    tools, single = guarded_tools(tool_or_toolbox)
    wrapped = [GuardedTool(t) for t in tools]
    return wrapped[0] if single else wrapped
