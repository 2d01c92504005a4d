"""Guarded tools as LlamaIndex tools (``pip install llama-index-core``).

    from llama_index.core.agent.workflow import FunctionAgent
    from quantity_guard.integrations import llama_index as qg_llama_index

    agent = FunctionAgent(tools=qg_llama_index.wrap(toolbox([read_discharge, runoff_depth])),
                          llm=llm)

Each tool is a LlamaIndex ``AsyncBaseTool`` (what ``FunctionAgent``, ``ReActAgent``,
``AgentWorkflow`` and ``llm.predict_and_call`` run) whose ``metadata.fn_schema`` reports the
library's JSON schema: ``to_openai_tool()`` and the ReAct prompt show the model a unit parameter
as a number, ``"1250 cfs"`` or ``{"value", "unit"}``, the unit in words. LlamaIndex hands a tool
the model's arguments as they are (the schema is never used to validate them), so the guard
converts them. The answer is a ``ToolOutput``: the result's JSON text as content and the labelled
value (``{"value": 1250.0, "unit": "cfs"}``) as ``raw_output``; a violation is a ``ToolOutput``
with ``is_error=True`` and the repair text as content, the form LlamaIndex gives the model for a
tool that failed, and the agent goes on. ``acall`` (what the agents await) runs a sync body in a
worker thread carrying the caller's context (``asyncio.to_thread``), so an open ``session()``
records the call; ``call`` runs it in the calling thread (an async body called there while an
event loop is running runs in a worker thread carrying the caller's context).
"""
from __future__ import annotations

import copy

from . import guarded_tools, invoke_sync, require, run_sync_in_thread

__all__ = ["wrap", "GuardedTool"]

_CLASS = None


def _tool_class():
    global _CLASS
    if _CLASS is not None:
        return _CLASS
    types = require("llama_index.core.tools.types", "llama-index-core", "llama_index")
    from llama_index.core.bridge.pydantic import BaseModel, ConfigDict

    from ..adapters import result_text
    from ..errors import tool_error

    class GuardedArguments(BaseModel):
        """Stands for a guarded tool's arguments in ``ToolMetadata.fn_schema``: LlamaIndex reads
        the schema it reports (``model_json_schema``), which is the library's."""

        model_config = ConfigDict(extra="allow")

        @classmethod
        def model_json_schema(cls, *args, **kwargs):
            return copy.deepcopy(cls.__qg_schema__)

    class LlamaIndexGuardedTool(types.AsyncBaseTool):
        """A ``@quantity_tool`` as a LlamaIndex tool (see the module doc)."""

        def __init__(self, guarded, *, return_direct: bool = False) -> None:
            schema = guarded.json_schema(extensions=False)
            fn_schema = type(f"{schema['name']}_arguments", (GuardedArguments,),
                             {"__qg_schema__": schema["inputSchema"],
                              "__module__": __name__})
            self.guarded = guarded
            self._params = list(schema["inputSchema"]["properties"])
            self._metadata = types.ToolMetadata(
                name=schema["name"], description=schema["description"] or schema["name"],
                fn_schema=fn_schema, return_direct=return_direct)

        @property
        def metadata(self):
            return self._metadata

        def _arguments(self, args: tuple, kwargs: dict):
            """The call's arguments by name. LlamaIndex's ``call_tool`` passes a one-parameter
            tool its one argument positionally; any other positional use is refused."""
            if not args:
                return kwargs, None
            if len(args) == 1 and not kwargs and len(self._params) == 1:
                return {self._params[0]: args[0]}, None
            return None, self._output(kwargs, tool_error(
                f"{self.guarded.name}: received {len(args)} positional argument(s); send the "
                f"arguments by name: {self._params}", code="invalid_arguments",
                field=self.guarded.name))

        def _output(self, arguments, result: dict):
            text = result_text(result)
            structured = result.get("structuredContent")
            return types.ToolOutput(
                content=text, tool_name=self._metadata.name,
                raw_input={"args": (), "kwargs": arguments},
                raw_output=structured if structured is not None else text,
                is_error=bool(result.get("isError")))

        def call(self, *args, **kwargs):
            arguments, refused = self._arguments(args, kwargs)
            if refused is not None:
                return refused
            return self._output(arguments, invoke_sync(self.guarded, arguments))

        async def acall(self, *args, **kwargs):
            arguments, refused = self._arguments(args, kwargs)
            if refused is not None:
                return refused
            return self._output(arguments, await run_sync_in_thread(self.guarded, arguments))

    _CLASS = LlamaIndexGuardedTool
    return _CLASS


def GuardedTool(tool, *, return_direct: bool = False):  # noqa: N802 (reads as the class it builds)
    """A LlamaIndex tool for one ``@quantity_tool``."""
    return _tool_class()(tool, return_direct=return_direct)


def wrap(tool_or_toolbox, *, return_direct: bool = False):
    """A LlamaIndex tool for one guarded tool, or a list of them for a toolbox or a list."""
    tools, single = guarded_tools(tool_or_toolbox)
    cls = _tool_class()
    wrapped = [cls(t, return_direct=return_direct) for t in tools]
    return wrapped[0] if single else wrapped
