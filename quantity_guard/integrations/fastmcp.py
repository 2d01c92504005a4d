"""Guarded tools in FastMCP servers (``pip install fastmcp``), in process.

Two ways in:

- ``wrap(tool_or_toolbox)``: ``@quantity_tool`` functions as FastMCP tools, to
  ``server.add_tool``. They advertise the library's MCP schema (``x-unit``, ``x-datum``, ...
  and the unit in words), take a number, ``"1250 cfs"`` or ``{"value", "unit"}``, hand the body
  converted ``Q`` values and answer ``{"value": 1250.0, "unit": "cfs"}``.
- ``guard(server, annotations)`` (or ``server.add_transform(QuantityTransform(annotations))``):
  the server's own tools, guarded from an annotations file in the format ``quantity-guard-mcp``
  reads (a path, TOML/JSON text via ``quantity_guard.annotations.loads``, or an ``Annotations``).
  What the proxy does on the wire, done in process: annotated parameters are advertised with
  units, arguments are converted into the unit the tool already expects before FastMCP validates
  them against the tool's own signature (``"1250 cfs"`` reaches a ``discharge: float`` as
  ``35.396``), and bare numeric results come back labelled. Tools without annotations are
  untouched.

A violation is an ``isError`` tool result carrying the repair text, which MCP clients give the
model, never a protocol error. Calls record into the active ``session()`` when the server runs
inside one (an in-memory client, an agent loop in the same process); otherwise into one bounded
ledger per ``guard``/``wrap`` (MCP's 2026 revision has no client session to key one on), so
carry-over detection works across calls either way; ``reset()`` on the transform or on a wrapped
tool forgets it.
"""
from __future__ import annotations

import threading
from typing import Any

from . import guarded_tools, require, run_sync_in_thread

__all__ = ["wrap", "guard", "QuantityTransform"]

MAX_ENTRIES = 10_000  # bounds the server's own ledger


def _fastmcp():
    return require("fastmcp", "fastmcp", "fastmcp")


class _Ledgers:
    """The ledger a call records into: the active ``session()``'s, else the server's own, bounded
    (MCP's 2026 revision gives every request a connection of its own, so there is no client
    session to key a ledger on; ``reset()`` forgets it)."""

    def __init__(self) -> None:
        self._own = None
        self._lock = threading.Lock()

    def current(self):
        from ..ledger import Ledger, current
        active = current()
        if active is not None:
            return active
        with self._lock:
            if self._own is None:
                self._own = Ledger(max_entries=MAX_ENTRIES)
            return self._own

    def reset(self) -> None:
        with self._lock:
            self._own = None


def _tool_result(result: dict):
    """Our CallToolResult dict as a FastMCP ``ToolResult``."""
    from fastmcp.tools.base import ToolResult
    from mcp_types import CallToolResult
    return ToolResult.from_mcp_result(CallToolResult.model_validate(result))


# -- @quantity_tool functions as FastMCP tools -------------------------------------------------
_TOOL_CLASS = None


def _tool_class():
    global _TOOL_CLASS
    if _TOOL_CLASS is not None:
        return _TOOL_CLASS
    fastmcp = _fastmcp()
    from pydantic import PrivateAttr

    class GuardedFastMCPTool(fastmcp.tools.Tool):
        """A ``@quantity_tool`` served by FastMCP (see the module doc)."""

        _guarded: Any = PrivateAttr(default=None)
        _ledgers: Any = PrivateAttr(default=None)

        def reset(self) -> None:
            """Forget the server's own ledger (shared by the tools wrapped together)."""
            self._ledgers.reset()

        async def run(self, arguments):
            from ..ledger import bind
            # a sync body runs in a worker thread, with this context
            with bind(self._ledgers.current()):
                return _tool_result(await run_sync_in_thread(self._guarded, dict(arguments)))

    _TOOL_CLASS = GuardedFastMCPTool
    return _TOOL_CLASS


def wrap(tool_or_toolbox):
    """A FastMCP tool for one guarded tool, or a list of them for a toolbox or a list. Tools
    wrapped together share their per-MCP-session ledgers."""
    tools, single = guarded_tools(tool_or_toolbox)
    cls = _tool_class()
    ledgers = _Ledgers()
    wrapped = []
    for t in tools:
        schema = t.json_schema()
        ft = cls(name=schema["name"], description=schema["description"] or None,
                 parameters=schema["inputSchema"], output_schema=schema.get("outputSchema"))
        ft._guarded = t
        ft._ledgers = ledgers
        wrapped.append(ft)
    return wrapped[0] if single else wrapped


# -- a FastMCP server's own tools, guarded from annotations -------------------------------------
def guard(server, annotations, *, enforcement: str = "strict"):
    """Guard ``server``'s annotated tools in process; returns the transform it added."""
    transform = QuantityTransform(annotations, enforcement=enforcement)
    server.add_transform(transform)
    return transform


def _load(annotations):
    from ..annotations import Annotations, load
    if isinstance(annotations, Annotations):
        return annotations
    if isinstance(annotations, str) or hasattr(annotations, "__fspath__"):
        return load(str(annotations))
    raise TypeError("annotations must be a path to an annotations file or an Annotations "
                    "(quantity_guard.annotations.loads(text))")


def QuantityTransform(annotations, *, enforcement: str = "strict"):  # noqa: N802 (a factory)
    """A FastMCP ``Transform`` guarding the annotated tools (see the module doc)."""
    return _transform_class()(_load(annotations), enforcement)


_TRANSFORM_CLASS = None


def _transform_class():
    global _TRANSFORM_CLASS
    if _TRANSFORM_CLASS is not None:
        return _TRANSFORM_CLASS
    fastmcp = _fastmcp()
    from fastmcp.server.transforms import Transform
    from pydantic import PrivateAttr

    from ..mcp.policy import QuantityPolicy
    from ..observe import begin

    class _Policy(QuantityPolicy):
        """The proxy's policy, recording into the active session or the MCP session's ledger."""

        @property
        def _ledger(self):  # what QuantityPolicy records into and reads
            return self._ledgers.current()

        @_ledger.setter
        def _ledger(self, value):  # QuantityPolicy assigns a fresh one; ours come from _ledgers
            self._ledgers = getattr(self, "_ledgers", None) or _Ledgers()

    class AnnotatedTool(fastmcp.tools.Tool):
        """A server tool re-advertised with units; calls are checked and converted, then run by
        the original tool; its result is labelled."""

        _original: object = PrivateAttr(default=None)
        _policy: object = PrivateAttr(default=None)

        async def run(self, arguments):
            name = self._original.name
            policy = self._policy
            verdict = begin(name, where="fastmcp", attributes={
                "quantity_guard.enforcement": policy.enforcement})
            verdict.start()
            decision = policy.check_call(name, dict(arguments or {}))
            verdict.stop()
            if decision.action == "refuse":
                verdict.end()
                return _tool_result(decision.payload)
            try:
                result = await self._original._run(decision.payload)
            except BaseException as exc:
                call = policy._call_for(name)
                if call is not None:
                    call.finish(ok=False)
                verdict.end(failure=exc)
                raise  # FastMCP answers a failed tool with an isError result
            verdict.start()
            raw = _result_dict(result)
            labelled = policy.label_result(name, arguments, raw)
            policy.settle()  # in process there is no answer to send first: record it now
            if labelled is raw and result.meta:  # untouched: as the tool sent it
                labelled["_meta"] = result.meta
            verdict.end("tool_error" if raw.get("isError") else None)
            return _tool_result(labelled)

    class Guard(Transform):
        def __init__(self, annotations, enforcement: str) -> None:
            self.policy = _Policy(annotations, enforcement=enforcement)
            self._cache: dict = {}

        def __repr__(self) -> str:
            return f"QuantityTransform({sorted(self.policy.annotations)})"

        def reset(self) -> None:
            """Forget the server's own ledger."""
            self.policy._ledgers.reset()

        def _guarded(self, tool):
            if not self.policy.guards(tool.name):
                return tool
            cached = self._cache.get(tool.name)
            if cached is not None and cached._original is tool:
                return cached
            advertised = self.policy.advertise(tool.to_mcp_tool().model_dump(
                by_alias=True, exclude_none=True, mode="json"))
            out = AnnotatedTool(name=tool.name, title=tool.title,
                                description=advertised.get("description"),
                                parameters=advertised["inputSchema"],
                                output_schema=advertised.get("outputSchema"),
                                annotations=tool.annotations, tags=tool.tags,
                                meta=advertised.get("_meta"), timeout=tool.timeout)
            out._original = tool
            out._policy = self.policy
            self._cache[tool.name] = out
            return out

        async def list_tools(self, tools):
            self._seen(tools)
            return [self._guarded(t) for t in tools]

        def _seen(self, tools) -> None:
            """As the proxy does on its first listing: one line saying what is guarded, and a
            warning (with "did you mean") for each declaration the server's tools do not match
            (a tool it does not have, a parameter or result field its tool does not have),
            once each, on the ``quantity_guard.mcp`` logger."""
            import logging
            if not tools:  # FastMCP also asks a transform about empty lists (other providers)
                return
            listed = [t.to_mcp_tool().model_dump(by_alias=True, exclude_none=True, mode="json")
                      for t in tools]
            log = logging.getLogger("quantity_guard.mcp")
            for text in self.policy.catalogue_seen(listed):
                if text.startswith("warning: "):
                    log.warning("%s", text[len("warning: "):])
                else:
                    log.info("%s", text)

        async def get_tool(self, name, call_next, *, version=None):
            tool = await call_next(name, version=version)
            return None if tool is None else self._guarded(tool)

    _TRANSFORM_CLASS = Guard
    return _TRANSFORM_CLASS


def _result_dict(result) -> dict:
    """A FastMCP ``ToolResult`` as the CallToolResult dict the policy labels."""
    out = {"content": [c.model_dump(by_alias=True, exclude_none=True, mode="json")
                       for c in result.content], "isError": bool(result.is_error)}
    if result.structured_content is not None:
        out["structuredContent"] = result.structured_content
    return out  # not its _meta: FastMCP's wrap_result flag no longer holds once labelled
