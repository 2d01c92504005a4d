"""What a JSON-RPC message is, read from its text: names as a lenient reader folds them, tool
calls in shapes the guard does not check, member names written twice, a short preview for a
diagnostic."""
from __future__ import annotations

from typing import Any

from . import jsonrpc as rpc

__all__ = ["fold_name", "call_shape", "duplicate_member", "preview"]


def fold_name(name: str) -> str:
    """A name as a lenient reader might match it: NFKC-normalised, case-folded, without
    whitespace or invisible format characters, ``-`` read as ``_``. Two names that fold alike
    can reach the same tool or parameter on an upstream that folds case or trims."""
    if name.isascii():  # NFKC leaves ASCII as it is and it has no format characters
        return "".join(name.lower().replace("-", "_").split())
    import unicodedata
    text = unicodedata.normalize("NFKC", name).casefold()
    return "".join("_" if c == "-" else c for c in text
                   if not c.isspace() and unicodedata.category(c) != "Cf")


def call_shape(msg: rpc.Message) -> "tuple[int, str] | None":
    """Why a client message is a tool call in a shape the guard does not check (a lenient
    upstream could still run it): a ``tools/call`` notification, a method that only folds to
    ``tools/call`` (``Tools/Call``), positional or missing ``params``, a ``name`` that is not a
    string. Returns the JSON-RPC error code and text, or None (not a tool call, or a checkable
    one)."""
    method = msg.method
    if not isinstance(method, str) or (method != "tools/call" and fold_name(method) != "tools/call"):
        return None
    if msg.kind != rpc.REQUEST:
        return (rpc.INVALID_REQUEST, "Invalid Request: tools/call is a request and needs an id; "
                "this notification was not forwarded")
    if method != "tools/call":
        return (rpc.METHOD_NOT_FOUND, f"Method not found: {method!r} is not a method (methods are "
                "matched exactly); the method is 'tools/call'. The request was not forwarded")
    params = msg.params
    if type(params) is not dict:
        return (rpc.INVALID_PARAMS, "Invalid params: tools/call takes its params by name, an "
                "object {\"name\": ..., \"arguments\": {...}}, not "
                f"{rpc.type_name(params) if params is not rpc.MISSING else 'nothing'}; the request "
                "was not forwarded")
    name = params.get("name")
    if not isinstance(name, str):
        return (rpc.INVALID_PARAMS, "Invalid params: the tool's name must be a string, not "
                f"{rpc.type_name(name) if 'name' in params else 'missing'}; the request was not "
                "forwarded")
    return None


def duplicate_member(text: str, obj: Any) -> str | None:
    """The first member name that occurs twice at the top level of the JSON object ``text``
    (``obj`` is its parsed value) or in its ``params`` object (as ``params.NAME``); ``None``
    when there is none. A reader that keeps the first of two members and one that keeps the
    last would see different messages."""
    if type(obj) is not dict:
        return None
    params = obj.get("params")
    if "\\" not in text:  # every member name is written as itself: each occurs at least once
        count, quoted = text.count, '"{}"'.format
        if sum(map(count, map(quoted, obj))) == len(obj) and (
                type(params) is not dict or sum(map(count, map(quoted, params))) == len(params)):
            return None  # and each exactly once
    try:
        _, top = rpc.members(text)
        seen: set[str] = set()
        pspan = None
        for k, start, end in top:
            if k in seen:
                return k
            seen.add(k)
            if k == "params":
                pspan = start
        if pspan is None or text[pspan] != "{":
            return None
        seen.clear()
        for k, _, _ in rpc.members(text, pspan)[1]:
            if k in seen:
                return "params." + k
            seen.add(k)
    except rpc.ParseError:
        return None
    return None


def preview(raw: bytes, limit: int = 160) -> str:
    text = raw[:limit].decode("utf-8", "replace")
    return repr(text) + ("..." if len(raw) > limit else "") + f" ({len(raw)} bytes)"

