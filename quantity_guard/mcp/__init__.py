"""MCP support: ``quantity-guard-mcp`` (a guarding stdio proxy for servers you did not write)
and :func:`serve` (a zero-dependency MCP server for your own tools).

Import-light: nothing below is imported until one of its names is used.

* :mod:`.jsonrpc` framing and classification, no I/O
* :mod:`.guard`   the guarding proxy as a sans-IO state machine, and the policy interface
* :mod:`.stdio`   pipes, threads, the upstream child and signals
* :mod:`.server`  ``serve(toolbox)`` over stdio, both protocol eras
* :mod:`.cli`     the ``quantity-guard-mcp`` command
"""
from __future__ import annotations

from importlib import import_module

_LAZY = {
    "serve": "server",
    "ServerCore": "server",
    "Guard": "guard",
    "Policy": "guard",
    "PassThroughPolicy": "guard",
    "Decision": "guard",
    "tool_error": "guard",
    "run_proxy": "stdio",
    "Proxy": "stdio",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'quantity_guard.mcp' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
