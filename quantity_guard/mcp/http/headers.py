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

__all__ = ["VERSION_KEY", "HEADER_MISMATCH", "body_version", "encode_value", "decode_value",
           "standard_headers", "param_headers", "modern_headers", "is_mcp_header", "header_mismatch"]

VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
_SAFE = re.compile(r"^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?\Z")
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")
_MAX_SAFE_INT = 2 ** 53 - 1
HEADER_MISMATCH = -32020  # 2026-07-28 "Server Validation": headers and body disagree


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


def decode_value(value: str) -> str | None:
    """The value a header carries: ``=?base64?...?=`` decoded, else the text itself; ``None``
    for a sentinel that is not valid base64 of UTF-8."""
    if value.startswith("=?base64?") and value.endswith("?=") and len(value) >= 11:
        try:
            return base64.b64decode(value[9:-2], validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return None
    return value


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


def header_mismatch(obj: Any, headers: Any, catalogue: Any = None) -> str | None:
    """What disagrees between a modern (2026-07-28) request's body and its request headers, or
    ``None``. ``headers`` has ``get(name)`` and ``get_all(name)`` (case-insensitive).

    A server must reject such a request with ``-32020`` (``basic/transports/streamable-http.mdx``,
    "Server Validation"); a proxy that recomputes the headers for the body it forwards would
    otherwise hide the client's disagreement, so ``--listen`` checks what the client sent:
    ``MCP-Protocol-Version`` present and equal to the body's version, ``Mcp-Method``, ``Mcp-Name``,
    and each ``Mcp-Param-*`` header of a parameter the listing annotates (present exactly when the
    argument is, equal after decoding). Headers for parameters it does not know pass.
    """
    if type(obj) is not dict or "id" not in obj:
        return None
    params = obj.get("params")
    version = body_version(params)
    if version is None:
        return None
    sent = headers.get("MCP-Protocol-Version")
    if sent is None:
        return f"the MCP-Protocol-Version header is missing; the body's _meta says {version!r}"
    if sent != version:
        return f"the MCP-Protocol-Version header is {sent!r} but the body's _meta says {version!r}"
    expected = standard_headers(obj.get("method") or "", params)
    if obj.get("method") == "tools/call" and type(params) is dict and catalogue is not None:
        name = params.get("name")
        tool = catalogue.get(name) if isinstance(name, str) else None
        if tool is not None:
            arguments = params.get("arguments")
            found: list[tuple[tuple, str]] = []
            _annotated(tool.get("inputSchema") if type(tool) is dict else None, (), found)
            given = dict(param_headers(tool, arguments))
            for _, token in found:
                header = f"Mcp-Param-{token}"
                if header not in given and headers.get(header) is not None:
                    return (f"the {header} header is present but the body has no value for "
                            f"that parameter")
            expected.extend(given.items())
    for header, value in expected:
        values = headers.get_all(header)
        if not values:
            return f"the {header} header is missing; the body says {decode_value(value)!r}"
        if len(values) > 1:
            return f"the {header} header appears {len(values)} times"
        if decode_value(values[0]) != decode_value(value):
            return (f"the {header} header is {values[0]!r} but the body says "
                    f"{decode_value(value)!r}")
    return None
