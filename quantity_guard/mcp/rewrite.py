"""Rewriting a message while keeping every byte the guard does not change.

A replaced value (a guarded call's ``params.arguments``, a response's ``result``, tools of a
``tools/list`` page) is put in place of the old one's span; when everything around it is
written as Python writes it, the message is put together from the text around the value
instead (one serialisation of the new value, none of the old). Members written twice on the
path to the value make the spans ambiguous: then the message is re-serialised whole.
"""
from __future__ import annotations

from typing import Any, Callable

from . import jsonrpc as rpc

__all__ = ["LARGE_LINE", "with_arguments", "apply_change"]


class _Ambiguous(Exception):
    """Spans could not be located unambiguously: re-serialise the whole message instead."""



def _has_duplicates(found: list[tuple[str, int, int]]) -> bool:
    return len({k for k, _, _ in found}) != len(found)


def _canonical_rewrite(text: str, original: Any, modified: Any) -> str | None:
    """``dumps(modified)`` when ``text`` is exactly ``dumps(original)``, else ``None``.

    Most peers write compact JSON that Python writes identically; then serialising the modified
    message changes only the replaced value, and is much cheaper than locating spans.
    """
    try:
        if len(text) >= 2 and rpc.dumps(original) == text:
            return rpc.dumps(modified)
    except (ValueError, TypeError):
        pass
    return None


LARGE_LINE = 1 << 20  # a guarded request this long is rewritten from its bytes, its text let go

_MARK = "\ue000quantity-guard:the-replaced-value\ue001"
_MARK_JSON = '"' + _MARK + '"'


def _replace_canonical(text: str | bytes, around: tuple[str, str] | None, value: Any) -> str | None:
    """``text`` with one value replaced by ``dumps(value)``, when everything outside that value
    is written exactly as Python writes it; ``None`` otherwise (then the caller locates spans).

    ``around`` is what ``dumps`` writes before and after the value (see :func:`_around`). When
    ``text`` begins and ends with those, the result is exactly ``dumps`` of the modified
    message, and equals what splicing the value's span gives; the old value (the bulk of the
    message) is never serialised. This is the common case (peers write compact JSON): one
    serialisation of the rest and one of the new value, instead of the old and the new message
    whole. ``text`` may be the line's UTF-8 bytes instead (the same test: UTF-8 keeps prefixes
    and suffixes), so that a large line's decoded text need not be kept.
    """
    if around is None:
        return None
    head, tail = around
    if isinstance(text, bytes):
        head_b, tail_b = head.encode("utf-8"), tail.encode("utf-8")
        if len(text) <= len(head_b) + len(tail_b) or not text.startswith(head_b) or \
                not text.endswith(tail_b):
            return None  # written otherwise
    elif len(text) <= len(head) + len(tail) or not text.startswith(head) or \
            not text.endswith(tail):
        return None  # written otherwise
    try:
        return head + rpc.dumps(value) + tail
    except (ValueError, TypeError):
        return None


def _spliced_arguments(text: str, obj: dict, arguments: dict) -> str:
    """The request ``text`` with the value of ``params.arguments`` replaced by ``arguments``
    (added when absent), every other byte kept; re-serialised whole when the members on that
    path are ambiguous (duplicates)."""
    args_json = rpc.dumps(arguments)
    try:
        _, top = rpc.members(text)
        if _has_duplicates(top):
            raise _Ambiguous
        pspan = rpc.unique_member(top, "params")
        if type(pspan) is not tuple:
            raise _Ambiguous
        brace, inner = rpc.members(text, pspan[0])
        if _has_duplicates(inner):
            raise _Ambiguous
        aspan = rpc.unique_member(inner, "arguments")
        if aspan is None:
            return (text[:brace + 1] + '"arguments":' + args_json + ("," if inner else "")
                    + text[brace + 1:])
        return rpc.splice(text, [(aspan[0], aspan[1], args_json)])
    except (_Ambiguous, rpc.ParseError):
        del args_json
        whole = dict(obj)
        whole["params"] = {**obj["params"], "arguments": arguments}
        return rpc.dumps(whole)


def _around(skeleton: Any) -> tuple[str, str] | None:
    """What ``dumps(skeleton)`` writes before and after :data:`_MARK`, which stands for the
    value to replace; ``None`` when it cannot be serialised or the mark occurs twice (the
    message itself holds it)."""
    try:
        canon = rpc.dumps(skeleton)
    except (ValueError, TypeError):
        return None
    head, found, tail = canon.partition(_MARK_JSON)
    if not found or _MARK_JSON in tail:
        return None
    return head, tail


_CALL_KEYS = ("jsonrpc", "id", "method", "params")
_RESULT_KEYS = ("jsonrpc", "id", "result")


def _call_around(obj: dict) -> tuple[str, str] | None:
    """:func:`_around` for a tools/call request's ``params.arguments``. For the usual shape
    (``jsonrpc``, ``id``, ``method``, ``params`` of ``name`` and ``arguments``, in that order)
    the text is put together from the id and the name alone, as ``dumps`` would write it."""
    params = obj["params"]
    if len(obj) == 4 and len(params) == 2 and tuple(obj) == _CALL_KEYS and \
            tuple(params) == ("name", "arguments") and obj["jsonrpc"] == "2.0" and \
            obj["method"] == "tools/call" and type(params["name"]) is str and \
            type(obj["id"]) in (int, str):
        try:
            return ('{"jsonrpc":"2.0","id":' + rpc.id_text(obj["id"]) + ',"method":"tools/call",'
                    '"params":{"name":' + rpc.dumps(params["name"]) + ',"arguments":', "}}")
        except (ValueError, TypeError):
            return None
    skeleton = dict(obj)
    skeleton["params"] = {**params, "arguments": _MARK}
    return _around(skeleton)


def _result_around(obj: dict) -> tuple[str, str] | None:
    """:func:`_around` for a response's ``result``; the usual ``jsonrpc``, ``id``, ``result``
    (in that order) is put together from the id alone."""
    if len(obj) == 3 and tuple(obj) == _RESULT_KEYS and obj["jsonrpc"] == "2.0" and \
            type(obj["id"]) in (int, str):
        try:
            return '{"jsonrpc":"2.0","id":' + rpc.id_text(obj["id"]) + ',"result":', "}"
        except (ValueError, TypeError):
            return None
    skeleton = dict(obj)
    skeleton["result"] = _MARK
    return _around(skeleton)



def with_arguments(text: str | bytes, obj: dict, arguments: dict, meta: dict | None = None) -> bytes:
    """The request line with ``params.arguments`` replaced and every other byte kept; with
    ``meta`` (an observed call's trace context for the upstream), re-serialised whole with
    ``params._meta`` replaced too."""
    if meta is not None:
        whole = dict(obj)
        whole["params"] = {**obj["params"], "arguments": arguments, "_meta": meta}
        return rpc.dumps(whole).encode("utf-8") + b"\n"
    new = _replace_canonical(text, _call_around(obj), arguments)
    if new is None:
        new = _spliced_arguments(text.decode("utf-8") if isinstance(text, bytes) else text,
                                 obj, arguments)
    data = new.encode("utf-8")
    del new  # one copy of the new line at a time
    return data + b"\n"


def apply_change(line_text: str | None, where: tuple[str, int, int] | None, obj: dict,
           change: tuple[str, Any], log: Callable[[str], None]) -> Any:
    """Apply a listing change (``("tools", {index: tool})``) or a new result
    (``("result", dict)``) to a response, touching only the replaced values."""
    what, value = change
    if what == "result" and line_text is not None:
        fast = _replace_canonical(line_text, _result_around(obj), value)
        if fast is not None:
            return fast.encode("utf-8") + b"\n"
    try:
        modified = _modified(obj, what, value)
    except (KeyError, TypeError, IndexError):  # pragma: no cover - checked by the callers
        return None
    if line_text is not None:
        text, start, end = line_text, 0, None
        if what != "result":
            fast = _canonical_rewrite(text, obj, modified)
            if fast is not None:
                return fast.encode("utf-8") + b"\n"
    else:
        assert where is not None
        text, start, end = where
    try:
        edits = _edits(text, start, what, value, log)
        out = rpc.splice(text, edits)
        if end is not None:  # batch element: return just the element's new text
            out = out[start:len(out) - (len(text) - end)]
    except (_Ambiguous, rpc.ParseError):
        try:
            out = rpc.dumps(modified)
        except (ValueError, TypeError) as exc:
            log(f"could not re-encode a rewritten {what} ({exc!r}); forwarded unchanged")
            return None
    if line_text is not None:
        return out.encode("utf-8") + b"\n"
    return out


def _edits(text: str, start: int, what: str, value: Any, log: Callable[[str], None]) -> list[tuple[int, int, str]]:
    _, top = rpc.members(text, start)
    if _has_duplicates(top):
        raise _Ambiguous
    rspan = rpc.unique_member(top, "result")
    if type(rspan) is not tuple:
        raise _Ambiguous
    if what == "result":
        return [(rspan[0], rspan[1], rpc.dumps(value))]
    _, inner = rpc.members(text, rspan[0])
    if _has_duplicates(inner):
        raise _Ambiguous
    tspan = rpc.unique_member(inner, "tools")
    if type(tspan) is not tuple:
        raise _Ambiguous
    spans = rpc.elements(text, tspan[0])
    edits = []
    for i, tool in value.items():
        s, e = spans[i]
        try:
            edits.append((s, e, rpc.dumps(tool)))
        except (ValueError, TypeError) as exc:
            log(f"advertised tool #{i} is not JSON ({exc!r}); listed unchanged")
    return edits


def _modified(obj: dict, what: str, value: Any) -> dict:
    whole = dict(obj)
    if what == "result":
        whole["result"] = value
    else:
        result = dict(obj["result"])
        tools = list(result["tools"])
        for i, tool in value.items():
            tools[i] = tool
        result["tools"] = tools
        whole["result"] = result
    return whole
