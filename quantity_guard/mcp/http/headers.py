"""The MCP request headers of Streamable HTTP, computed from the JSON-RPC body (no I/O).

2026-07-28 ``basic/transports/streamable-http.mdx``, "Request Metadata":

* ``MCP-Protocol-Version`` equals the body's ``_meta["io.modelcontextprotocol/protocolVersion"]``
  ("Protocol Version Header");
* ``Mcp-Method`` is ``method`` on every request, ``Mcp-Name`` is ``params.name`` (``tools/call``,
  ``prompts/get``) or ``params.uri`` (``resources/read``) ("Standard Request Headers");
* ``Mcp-Param-{Name}`` mirrors each argument whose property schema in the tool's ``inputSchema``
  carries ``x-mcp-header: Name``, reached by a chain of ``properties`` keys only ("Custom Headers
  from Tool Parameters"); absent or ``null`` values give no header;
* values that are not plain header-safe ASCII, or that look like the sentinel, are sent as
  ``=?base64?...?=`` ("Value Encoding").

The proxy recomputes these headers from the body it actually forwards, after the guard has
converted the arguments: a header copied from the client's request would then disagree with the
body and the server would reject the call with ``-32020`` (HeaderMismatch, "Server Validation").

For the 2025 revisions (``basic/transports.mdx`` "Protocol Version Header", 2025-06-18 and
2025-11-25) ``MCP-Protocol-Version`` is the version negotiated by ``initialize``.
"""
from __future__ import annotations

import base64
import re
from typing import Any

__all__ = ["VERSION_KEY", "body_version", "encode_value", "standard_headers", "param_headers",
           "modern_headers", "is_mcp_header"]

VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
_SAFE = re.compile(r"^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$")
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
_MAX_SAFE_INT = 2 ** 53 - 1


def body_version(params: Any) -> str | None:
    """The per-request protocol version in ``params._meta``, if any (the modern era)."""
    if type(params) is dict:
        meta = params.get("_meta")
        if type(meta) is dict:
            v = meta.get(VERSION_KEY)
            if isinstance(v, str):
                return v
    return None


def encode_value(value: str) -> str:
    """A header-safe rendering of ``value``: itself when it is plain visible ASCII (inner spaces
    and tabs allowed) and not sentinel-shaped, else ``=?base64?<UTF-8 base64>?=``."""
    if _SAFE.match(value) and not (value.startswith("=?base64?") and value.endswith("?=")):
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8", "surrogatepass")).decode("ascii") + "?="


def _render(value: Any) -> str | None:
    if value is None:
        return None
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        return str(value)
    if type(value) is float and value.is_integer() and abs(value) <= _MAX_SAFE_INT:
        return str(int(value))
    if isinstance(value, str):
        return value
    return None


def standard_headers(method: str, params: Any) -> list[tuple[str, str]]:
    """``Mcp-Method`` and, for the three named methods, ``Mcp-Name``."""
    out = [("Mcp-Method", encode_value(method) if method else method)]
    if type(params) is dict:
        source = None
        if method in ("tools/call", "prompts/get"):
            source = params.get("name")
        elif method == "resources/read":
            source = params.get("uri")
        if isinstance(source, str):
            out.append(("Mcp-Name", encode_value(source)))
    return out


def _annotated(schema: Any, path: tuple, out: list, depth: int = 0) -> None:
    if type(schema) is not dict or depth > 32:
        return
    props = schema.get("properties")
    if type(props) is not dict:
        return
    for key, sub in props.items():
        if type(sub) is not dict:
            continue
        token = sub.get("x-mcp-header")
        if isinstance(token, str) and _TOKEN.match(token):
            out.append((path + (key,), token))
        _annotated(sub, path + (key,), out, depth + 1)


def param_headers(tool: Any, arguments: Any) -> list[tuple[str, str]]:
    """``Mcp-Param-*`` headers for ``arguments`` under the tool definition ``tool`` (as listed
    by the server). A tool whose annotations are invalid gives none (the server rejects it
    anyway; the client was told by the listing)."""
    if type(tool) is not dict or type(arguments) is not dict:
        return []
    found: list[tuple[tuple, str]] = []
    _annotated(tool.get("inputSchema"), (), found)
    out = []
    seen = set()
    for path, token in found:
        if token.lower() in seen:
            return []
        seen.add(token.lower())
        value: Any = arguments
        for key in path:
            if type(value) is not dict or key not in value:
                value = None
                break
            value = value[key]
        rendered = _render(value)
        if rendered is not None:
            out.append((f"Mcp-Param-{token}", encode_value(rendered)))
    return out


def modern_headers(obj: Any, catalogue: dict | None = None) -> list[tuple[str, str]]:
    """All request-metadata headers for one modern JSON-RPC message (request or notification).

    ``catalogue`` maps tool names to their listed definitions (for ``x-mcp-header``).
    """
    if type(obj) is not dict:
        return []
    params = obj.get("params")
    out: list[tuple[str, str]] = []
    version = body_version(params)
    if version is not None:
        out.append(("MCP-Protocol-Version", encode_value(version)))
    method = obj.get("method")
    if isinstance(method, str) and "id" in obj:
        out.extend(standard_headers(method, params))
        if method == "tools/call" and type(params) is dict and catalogue:
            name = params.get("name")
            if isinstance(name, str):
                out.extend(param_headers(catalogue.get(name), params.get("arguments")))
    return out


def is_mcp_header(name: str) -> bool:
    """Headers this module owns (recomputed, never copied from a client)."""
    low = name.lower()
    return low in ("mcp-method", "mcp-name", "mcp-protocol-version") or low.startswith("mcp-param-")
