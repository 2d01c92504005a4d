"""``toolbox([...])``: guarded tools as MCP, OpenAI or Anthropic tool definitions, with
dispatch of each provider's own tool-call shape and result wrapping into its tool-result message.

    box = toolbox([read_discharge, runoff_depth])
    box.schemas("openai")                 # [{"type": "function", "function": {...}}]
    box.schemas("gemini")                 # [{"name", "description", "parameters"}]
    box.dispatch(tool_call)               # OpenAI tool call -> {"role": "tool", ...}
    box.dispatch(tool_use_block)          # Anthropic tool_use -> {"type": "tool_result", ...}
    box.invoke("runoff_depth", {...})     # an MCP CallToolResult dict

Provider schemas carry no ``x-*`` keys (several providers reject unknown schema keywords); the
unit is stated in words in each description instead. OpenAI strict mode gets a schema its
validator accepts: every property required, ``additionalProperties: false``, and optional
parameters nullable. Gemini gets function declarations whose ``parameters`` keep to the OpenAPI
3.0 subset its ``Schema`` object reads: one ``type`` per node (never a list), ``anyOf``,
``properties``/``required``/``items``, ``description``, ``format``, ``nullable``, ``enum`` and
numeric ranges; no ``additionalProperties``, ``$ref``, ``oneOf``/``allOf``/``const`` or ``x-*``
keys, and no ``parameters`` at all for a tool without any.
"""
from __future__ import annotations

import copy
import json
from typing import TYPE_CHECKING

from .errors import VIOLATION_META, InvalidToolCall
from .tool import GuardedTool, tool_error

if TYPE_CHECKING:  # ledger imports lazily at run time (it is only needed to serve)
    from .ledger import Ledger

__all__ = ["toolbox", "Toolbox", "ToolMessage", "InvalidToolCall", "PROVIDERS"]

PROVIDERS = ("mcp", "openai", "anthropic", "gemini")


def toolbox(tools) -> "Toolbox":
    return Toolbox(tools)


class Toolbox:
    """A set of guarded tools with unique names."""

    def __init__(self, tools) -> None:
        self.tools: dict[str, GuardedTool] = {}
        self._ledger: Ledger | None = None  # the served session's (``call_tool``)
        for t in tools:
            if not isinstance(t, GuardedTool):
                raise TypeError(f"{t!r} is not a @quantity_tool; decorate it first")
            if t.name in self.tools:
                raise ValueError(f"duplicate tool name {t.name!r}: tool names must be unique")
            self.tools[t.name] = t

    def __iter__(self):
        return iter(self.tools.values())

    def __len__(self) -> int:
        return len(self.tools)

    def __getitem__(self, name: str) -> GuardedTool:
        return self.tools[name]

    # -- schemas -----------------------------------------------------------------------------
    def schemas(self, provider: str = "mcp", *, strict: bool = True) -> list[dict]:
        if provider == "mcp":
            return [t.json_schema() for t in self]
        if provider == "openai":
            return [openai_tool(t, strict=strict) for t in self]
        if provider == "anthropic":
            return [anthropic_tool(t) for t in self]
        if provider == "gemini":
            return [gemini_tool(t) for t in self]
        raise ValueError(f"unknown provider {provider!r}: use one of {PROVIDERS}")

    # -- MCP server handler protocol (quantity_guard.mcp.server.serve) ------------------------
    def list_tools(self) -> list[dict]:
        return self.schemas("mcp")

    def call_tool(self, name: str, arguments) -> dict:
        """The MCP server's entry point. Calls record into the toolbox's own session (one per
        client session, started again by ``reset``), so carry-over and sourced checks work for
        a served toolbox; an explicitly active ``session()`` takes precedence."""
        from .ledger import Ledger, bind, is_bound
        if is_bound():
            return self.invoke(name, arguments)
        if self._ledger is None:
            self._ledger = Ledger(max_entries=10_000)
        with bind(self._ledger):
            return self.invoke(name, arguments)

    def reset(self) -> None:
        """Forget the served session's ledger (the MCP server calls this on ``initialize``)."""
        self._ledger = None

    # -- calls -------------------------------------------------------------------------------
    def invoke(self, name: str, arguments=None) -> dict:
        tool = self.tools.get(name)
        if tool is None:
            return _unknown(name, self.tools)
        return tool.invoke(arguments)

    async def ainvoke(self, name: str, arguments=None) -> dict:
        tool = self.tools.get(name)
        if tool is None:
            return _unknown(name, self.tools)
        return await tool.ainvoke(arguments)

    def dispatch(self, tool_call) -> "ToolMessage":
        """Run a provider's tool call; return that provider's tool-result message (a
        ``ToolMessage``: the provider's dict, with the MCP result, and so the violation's code,
        on ``.result`` and ``.violation``)."""
        provider, call_id, name, arguments = parse_tool_call(tool_call)
        result = self.invoke(name, arguments)
        return ToolMessage(wrap_result(provider, call_id, result), result)

    async def adispatch(self, tool_call) -> "ToolMessage":
        provider, call_id, name, arguments = parse_tool_call(tool_call)
        result = await self.ainvoke(name, arguments)
        return ToolMessage(wrap_result(provider, call_id, result), result)




class ToolMessage(dict):
    """A provider's tool-result message, exactly the dict the provider expects (nothing is
    added to what is sent), carrying the MCP ``CallToolResult`` it wraps on ``.result``;
    ``.violation`` is its ``{"code", "field"}`` for an error, else None. Provider messages
    have no place for ``_meta``, so the code travels here instead."""

    __slots__ = ("result",)

    def __init__(self, message: dict, result: dict) -> None:
        super().__init__(message)
        self.result = result

    @property
    def violation(self) -> dict | None:
        return (self.result.get("_meta") or {}).get(VIOLATION_META)


def _unknown(name, tools) -> dict:
    return tool_error(f"unknown tool {name!r}; the tools are {sorted(tools)}",
                      code="unknown_tool", field=name if isinstance(name, str) else None)


def _get(obj, key, default=None):
    if isinstance(obj, dict):
        return obj.get(key, default)
    return getattr(obj, key, default)


def parse_tool_call(call) -> tuple[str, str | None, str, object]:
    """(provider, id, name, arguments) from an OpenAI tool call, an Anthropic tool_use block or
    an MCP-style ``{"name", "arguments"}``; dicts or SDK objects alike."""
    function = _get(call, "function")
    if function is not None:  # OpenAI chat completions: arguments is a JSON string
        return "openai", _get(call, "id"), _get(function, "name"), _get(function, "arguments")
    if _get(call, "type") == "tool_use" or _get(call, "input") is not None:
        return "anthropic", _get(call, "id"), _get(call, "name"), _get(call, "input") or {}
    if _get(call, "type") == "function_call":  # OpenAI Responses API
        return "openai_responses", _get(call, "call_id"), _get(call, "name"), _get(call, "arguments")
    name = _get(call, "name")
    if name is None:
        raise InvalidToolCall(
            f"not a tool call: {call!r}", received=call,
            suggestion='an OpenAI tool call ({"id", "function": {"name", "arguments"}}), a '
                       'Responses function_call, an Anthropic tool_use block, or {"name", '
                       '"arguments"}')
    return "mcp", _get(call, "id"), name, _get(call, "arguments")


def result_text(result: dict) -> str:
    return "\n".join(c.get("text", "") for c in result.get("content", []) if c.get("type") == "text")


def wrap_result(provider: str, call_id, result: dict) -> dict:
    if provider == "openai":
        text = result_text(result)
        return {"role": "tool", "tool_call_id": call_id,
                "content": f"Error: {text}" if result.get("isError") else text}
    if provider == "openai_responses":
        return {"type": "function_call_output", "call_id": call_id, "output": result_text(result)}
    if provider == "anthropic":
        out = {"type": "tool_result", "tool_use_id": call_id,
               "content": [{"type": "text", "text": result_text(result)}]}
        if result.get("isError"):
            out["is_error"] = True
        return out
    return result


def anthropic_tool(tool: GuardedTool) -> dict:
    s = tool.json_schema(extensions=False)
    return {"name": s["name"], "description": s["description"] or s["name"],
            "input_schema": s["inputSchema"]}


def openai_tool(tool: GuardedTool, *, strict: bool = True) -> dict:
    s = tool.json_schema(extensions=False)
    params = copy.deepcopy(s["inputSchema"])
    if strict:
        params = _strict(params)
    function = {"name": s["name"], "description": s["description"] or s["name"],
                "parameters": params}
    if strict:
        function["strict"] = True
    return {"type": "function", "function": function}


def gemini_tool(tool: GuardedTool) -> dict:
    """A Gemini ``FunctionDeclaration``: the unit in words in each description, no ``x-*`` keys,
    and only the schema keywords Gemini's function declarations read."""
    s = tool.json_schema(extensions=False)
    out = {"name": s["name"], "description": s["description"] or s["name"]}
    if s["inputSchema"].get("properties"):  # Gemini refuses an OBJECT with no properties
        out["parameters"] = gemini_schema(s["inputSchema"])
    return out


# the keywords of Gemini's Schema object (an OpenAPI 3.0 subset) that a tool schema may carry
GEMINI_KEYWORDS = frozenset({
    "type", "format", "title", "description", "nullable", "enum", "items", "minItems", "maxItems",
    "properties", "required", "minProperties", "maxProperties", "minLength", "maxLength",
    "pattern", "minimum", "maximum", "anyOf", "propertyOrdering", "default", "example"})
_GEMINI_ANY = {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]}


def gemini_schema(schema) -> dict:
    """A JSON schema rewritten into Gemini's subset: a list of types becomes ``anyOf`` (with
    ``nullable`` for "null"), an empty schema any scalar; unknown keywords are dropped."""
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key not in GEMINI_KEYWORDS:
            continue
        if key == "properties":
            value = {k: gemini_schema(v) for k, v in value.items()}
        elif key in ("anyOf",):
            value = [gemini_schema(v) for v in value]
        elif key == "items":
            value = gemini_schema(value)
        out[key] = value
    kind = out.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        if len(kinds) < len(kind):
            out["nullable"] = True
        del out["type"]
        if len(kinds) == 1:
            out["type"] = kinds[0]
        elif kinds:
            out["anyOf"] = [{"type": k} for k in kinds]
    if out.get("type") == "array" and "items" not in out:
        out["items"] = dict(_GEMINI_ANY)
    if "type" not in out and "anyOf" not in out:
        out.update(copy.deepcopy(_GEMINI_ANY))
    return out


_ANY_SCALAR = {"type": ["string", "number", "boolean"]}


def _strict(schema: dict) -> dict:
    """Make a schema acceptable to OpenAI strict mode: closed objects, all properties required
    (those that were optional become nullable), and no empty schemas."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if "anyOf" in out:
        out["anyOf"] = [_strict(s) for s in out["anyOf"]]
    if out.get("type") == "object":
        required = set(out.get("required", ()))
        props = {}
        for k, v in out.get("properties", {}).items():
            v = _strict(v) if v else dict(_ANY_SCALAR)
            props[k] = v if k in required else _nullable(v)
        out["properties"] = props
        out["required"] = list(props)
        out["additionalProperties"] = False
    if out.get("type") == "array" and "items" not in out:
        out["items"] = dict(_ANY_SCALAR)
    if not out or set(out) == {"description"}:
        out.update(_ANY_SCALAR)
    return out


def _nullable(schema: dict) -> dict:
    if "anyOf" in schema:
        return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
    kind = schema.get("type")
    if isinstance(kind, str):
        return {**schema, "type": [kind, "null"]}
    if isinstance(kind, list) and "null" not in kind:
        return {**schema, "type": [*kind, "null"]}
    return schema


def dumps(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, indent=1)
