"""Streamable HTTP for ``quantity-guard-mcp``: the guard in front of remote MCP servers and for
HTTP clients.

Nothing here is imported by ``import quantity_guard`` or ``import quantity_guard.mcp``; the
command line imports it only when ``--upstream`` or ``--listen`` is given.

* :mod:`.wire`     HTTP/1.1 messages and Server-Sent Events, sans-IO (bytes in, events out)
* :mod:`.client`   an asyncio HTTP/1.1 client (keep-alive pool, TLS with the stdlib ``ssl``)
* :mod:`.upstream` the stdio client -> proxy -> remote Streamable HTTP server shell
* :mod:`.listen`   the HTTP client -> proxy -> (stdio command | remote server) shell

The guard (:mod:`quantity_guard.mcp.guard`) stays the single place where MCP messages are
inspected and rewritten; these modules only move them.
"""
