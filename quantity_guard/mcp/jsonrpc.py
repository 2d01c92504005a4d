"""JSON-RPC 2.0 framing and message classification for MCP's stdio transport.

No I/O happens here. The stdio transport of every MCP revision is UTF-8 JSON-RPC, one message
per line, delimited by ``\\n`` and never containing a raw newline. This module

* splits a byte stream into lines (:class:`LineBuffer`, kept in :mod:`.lines` and named here
  too: ``\\n`` only, a trailing ``\\r`` is tolerated and removed), however long a line is;
* parses a line (:func:`loads`) and classifies the result (:func:`classify`) as a request,
  notification, response, error response or invalid message, keeping ids with their JSON type
  (``1`` and ``"1"`` never meet: :func:`id_key`);
* builds the lines the proxy and the server emit (:func:`encode`, :func:`response_line`,
  :func:`error_line`);
* finds the exact character spans of values inside a JSON text (:func:`members`,
  :func:`elements`) so that a message can be rewritten by replacing one value and leaving
  every other byte as it was received (:func:`splice`).
"""
from __future__ import annotations

import json
import re
# CPython's json internals, used on purpose: typeshed does not declare them
from json.decoder import scanstring as _scanstring  # type: ignore[attr-defined]  # see above
from typing import Any, Iterable

from .lines import DEFAULT_MAX_MESSAGE, LineBuffer, Oversized, strip_terminator

__all__ = [
    "PARSE_ERROR", "INVALID_REQUEST", "METHOD_NOT_FOUND", "INVALID_PARAMS", "INTERNAL_ERROR",
    "REQUEST", "NOTIFICATION", "RESPONSE", "ERROR", "INVALID", "MISSING",
    "LineBuffer", "ParseError", "Message", "decode", "loads", "classify", "id_key", "id_text",
    "dumps", "encode",
    "response_line", "error_line", "error_object", "members", "elements", "splice",
    "unique_member", "strip_terminator", "type_name", "skip_value", "decode_shallow", "Unparsed",
    "Oversized", "DEFAULT_MAX_MESSAGE", "peek_oversized", "loads_lenient",
]

# Standard JSON-RPC 2.0 error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

# Message kinds returned by classify().
REQUEST = "request"
NOTIFICATION = "notification"
RESPONSE = "response"
ERROR = "error"
INVALID = "invalid"


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()
"""Marks an absent member (distinct from a JSON ``null``)."""


# --------------------------------------------------------------------------------------------
# Framing


READ_ONCE_MAX = 1 << 20
"""Messages shorter than this are read once and carried read (:class:`Parsed`); longer ones
are parsed where needed and let go at once, so that one parsed copy at most is held."""


class Parsed(bytes):
    """A message's bytes (without a line terminator) with what reading them gave: ``text``,
    ``obj`` (the value :func:`decode` built, or the one :func:`decode_shallow` located) and
    ``partial`` (the :class:`ParseError` of Python's parser when the value was only located;
    None otherwise).

    Made once, where a transport receives the message (:func:`read_once`); the guard and the
    shells read these instead of parsing the bytes again, and the bytes, unchanged, are what
    is written on. The guard forwards a message it does not change as a :class:`Parsed` line.
    """

    text: str
    obj: Any
    partial: ParseError | None

    @classmethod
    def carrying(cls, data: bytes, text: str, obj: Any, partial: ParseError | None = None) -> Parsed:
        """``data`` carrying ``text``, ``obj`` and ``partial`` (read from it by the caller)."""
        out = cls(data)
        out.text, out.obj, out.partial = text, obj, partial
        return out

    def as_line(self, raw: bytes) -> Parsed:
        """``raw`` (these bytes, or a message equal to them) and ``\n``, carrying what was read."""
        return Parsed.carrying(raw + b"\n", self.text, self.obj, self.partial)


def made(line: bytes, obj: Any) -> bytes:
    """A line the guard wrote (``\n``-terminated) carrying ``obj``, the value it encoded, so the
    other edge need not parse it again; a line of :data:`READ_ONCE_MAX` bytes or more is
    returned as it is (no parsed copy is held beside it)."""
    if len(line) >= READ_ONCE_MAX:
        return line
    return Parsed.carrying(line, line[:-1].decode("utf-8"), obj)


def read_once(data: bytes) -> bytes:
    """``data`` read (:class:`Parsed`, its line terminator removed) when it is JSON shorter
    than :data:`READ_ONCE_MAX`; otherwise ``data`` as it is."""
    if data.__class__ is Parsed or len(data) >= READ_ONCE_MAX:
        return data
    raw = strip_terminator(data)
    try:
        text, obj = decode(raw)
        partial = None
    except ParseError as exc:
        try:
            text, obj = decode_shallow(raw)
        except ParseError:
            return data
        partial = exc
    return Parsed.carrying(raw, text, obj, partial)


def peek_oversized(line: Oversized) -> tuple[Any, str | None, bool]:
    """``(id, method, is_answer)`` of an over-limit line, read from what is left of it: the
    top-level members complete within its first bytes, else an ``"id"`` that is the last
    member; ``MISSING``/``None`` where not found. ``is_answer``: a top-level ``result`` or
    ``error`` member begins within the first bytes (the line is a response)."""
    text = bytes(line).decode("utf-8", "replace")
    found: dict[str, Any] = {}
    answer = False
    n = len(text)
    try:
        i = _skip_ws(text, 0)
        if i < n and text[i] == "{":
            i += 1
            while True:
                i = _skip_ws(text, i)
                if i >= n or text[i] != '"':
                    break
                key, i = _scanstring(text, i + 1)
                i = _skip_ws(text, i)
                if i >= n or text[i] != ":":
                    break
                if key == "result" or key == "error":
                    answer = True
                start = _skip_ws(text, i + 1)
                i = skip_value(text, start)
                if key in ("id", "method") and key not in found:
                    found[key] = json.loads(text[start:i])
                i = _skip_ws(text, i)
                if i >= n or text[i] != ",":
                    break
                i += 1
    except (ValueError, RecursionError):
        pass
    if "id" not in found:
        m = _LAST_ID.search(line.tail.decode("utf-8", "replace"))
        if m is not None:
            try:
                found["id"] = json.loads(m.group(1))
            except ValueError:
                pass
    method = found.get("method")
    return found.get("id", MISSING), method if isinstance(method, str) else None, answer


_LAST_ID = re.compile(r'[,{]\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*"|null)\s*\}\s*$')


# --------------------------------------------------------------------------------------------
# Parsing and classification


class ParseError(ValueError):
    """A line that is not UTF-8 JSON."""


_decoder = json.JSONDecoder()


def decode(line: bytes | str) -> tuple[str, Any]:
    """``(text, value)``: the line as text and its parsed JSON value; :class:`ParseError` otherwise.

    Python's reading of JSON is used, so the non-standard literals ``NaN`` and ``Infinity`` are
    accepted (they are forwarded untouched like any other text); a UTF-8 byte order mark, other
    encodings, invalid UTF-8, empty lines, trailing garbage and nesting too deep to parse are
    all parse errors.
    """
    if isinstance(line, bytes):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ParseError(f"not valid UTF-8 (byte {exc.start})") from None
    else:
        text = line
    try:
        try:  # fast path: the C scanner directly, as json.loads does under a few more layers
            obj, end = _decoder.scan_once(text, 0)  # type: ignore[attr-defined]  # set in __init__
        except StopIteration:  # empty, leading whitespace or not JSON: the full decoder decides
            return text, _decoder.decode(text)
        if end != len(text) and text[end:].strip(" \t\n\r"):
            raise ParseError(f"not valid JSON (extra data at character {end})")
        return text, obj
    except RecursionError:
        raise ParseError("JSON nested too deeply") from None
    except ValueError as exc:  # json.JSONDecodeError
        raise ParseError(f"not valid JSON ({exc})") from None


def loads(line: bytes | str) -> Any:
    """Parse one line (terminator optional) as UTF-8 JSON; see :func:`decode`."""
    return decode(line)[1]


def loads_lenient(line: bytes | str) -> Any:
    """:func:`loads`, or for JSON beyond Python's parser limits (nesting, integers of more
    than 4,300 digits) what :func:`decode_shallow` locates: enough to classify a message and
    find its id. Raises :class:`ParseError` only for what is not JSON at all."""
    try:
        return decode(line)[1]
    except ParseError:
        return decode_shallow(line)[1]


class Message:
    """A classified JSON value.

    ``kind`` is one of REQUEST, NOTIFICATION, RESPONSE, ERROR or INVALID; ``id`` is the parsed id
    (``MISSING`` when absent, possibly ``None`` for a request or error with ``"id":null``);
    ``method`` is set for requests and notifications; ``params`` is ``MISSING`` when absent;
    ``reason`` says why a message is INVALID.
    """

    __slots__ = ("kind", "obj", "id", "method", "params", "reason")

    def __init__(self, kind: str, obj: Any, id: Any = MISSING, method: str | None = None,
                 params: Any = MISSING, reason: str | None = None) -> None:
        self.kind = kind
        self.obj = obj
        self.id = id
        self.method = method
        self.params = params
        self.reason = reason

    def __repr__(self) -> str:
        return (f"Message({self.kind!r}, id={self.id!r}, method={self.method!r}"
                + (f", reason={self.reason!r})" if self.reason else ")"))

    @property
    def key(self) -> tuple | None:
        """The id as a type-tagged dictionary key, or ``None`` if the id is absent or unusable."""
        return id_key(self.id)


def classify(obj: Any) -> Message:
    """Classify one parsed JSON value (not a batch: classify batch elements one by one).

    The shape decides, leniently: an object with a string ``method`` is a request when it has an
    ``id`` member (even ``null``) and a notification otherwise; an object with an ``id`` and an
    ``error`` is an error response; with an ``id`` and a ``result`` a response. Anything else is
    INVALID. A missing or wrong ``"jsonrpc":"2.0"`` member is tolerated, as peers tolerate it.
    """
    if not isinstance(obj, dict):
        what = "an array" if isinstance(obj, list) else (
            "a value nested or sized beyond the parser's limits" if isinstance(obj, Unparsed)
            else type_name(obj))
        return Message(INVALID, obj, reason=f"a JSON-RPC message must be an object, not {what}")
    ident = obj.get("id", MISSING)
    if "method" in obj:
        method = obj["method"]
        if not isinstance(method, str):
            return Message(INVALID, obj, id=ident, reason="'method' must be a string")
        params = obj.get("params", MISSING)
        if ident is MISSING:
            return Message(NOTIFICATION, obj, method=method, params=params)
        return Message(REQUEST, obj, id=ident, method=method, params=params)
    if ident is not MISSING:
        if "error" in obj:
            return Message(ERROR, obj, id=ident)
        if "result" in obj:
            return Message(RESPONSE, obj, id=ident)
    return Message(INVALID, obj, id=ident,
                   reason="neither a request, a notification nor a response")


_ANSWER_HEAD = re.compile(rb'\{"jsonrpc":"2\.0","id":(-?(?:0|[1-9][0-9]{0,17})|"[^"\\\x00-\x1f]{0,256}"),'
                          rb'"(?:result|error)":')


def answer_key(line: bytes) -> tuple | None:
    """The id key (:func:`id_key`) of an answer read from its first bytes, without parsing it:
    for an answer written as peers usually write it (``{"jsonrpc":"2.0","id":ID,"result":`` or
    ``"error":``, compact, the id an integer or a string without escapes), in which neither
    the id nor a ``method`` can be written further on (``"id"`` occurs once, ``"method"`` not
    at all, and no ``\\u`` escape could spell them); ``None`` for any other line, which is then
    parsed."""
    m = _ANSWER_HEAD.match(line)
    if m is None or not line.endswith(b"}") or line.count(b'"id"') != 1 or \
            b'"method"' in line or b"\\u" in line:
        return None
    ident = m.group(1)
    if ident[:1] == b'"':
        try:
            return ("s", ident[1:-1].decode("utf-8"))
        except UnicodeDecodeError:
            return None
    return ("i", int(ident))


def id_key(ident: Any) -> tuple | None:
    """A dictionary key for a JSON-RPC id that keeps its JSON type.

    ``1`` and ``"1"`` give different keys, and so do ``1``, ``1.0`` and ``true`` (which Python's
    own ``==`` would merge). ``None``, ``MISSING``, objects and arrays give ``None``: such ids
    cannot be correlated.
    """
    tag = _ID_TAGS.get(ident.__class__)
    return None if tag is None else (tag, ident)


_ID_TAGS = {str: "s", int: "i", float: "f"}  # the exact types only: bool is not int here


def type_name(value: Any) -> str:
    """The JSON name of a parsed value's type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


# --------------------------------------------------------------------------------------------
# Building messages


def _not_json(o: Any) -> Any:
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


_ascii_encoder = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"), allow_nan=False)
try:  # the C encoder, built once (json.dumps builds one per call)
    from json.encoder import c_make_encoder as _c_make_encoder  # type: ignore[attr-defined]  # untyped
    from json.encoder import encode_basestring as _encode_basestring

    _c_encoder = _c_make_encoder(None, _not_json, _encode_basestring, None, ":", ",", False, False,
                                 False) if _c_make_encoder is not None else None
except ImportError:  # pragma: no cover - CPython always has it
    _c_encoder = None
_py_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def dumps(obj: Any) -> str:
    """Compact JSON text with raw (unescaped) non-ASCII characters and no NaN/Infinity.

    Never contains a raw newline. Raises ``ValueError`` for NaN/Infinity or a circular structure
    and ``TypeError`` for values JSON cannot carry. Strings holding lone surrogates (which only
    ``\\ud800``-style escapes can produce) are written with ASCII escapes so that the text stays
    encodable as UTF-8.
    """
    try:
        if _c_encoder is not None:
            text = "".join(_c_encoder(obj, 0))
        else:  # pragma: no cover
            text = _py_encoder.encode(obj)
    except RecursionError:
        raise ValueError("circular or too deeply nested to encode") from None
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = _ascii_encoder.encode(obj)
    return text


def encode(obj: Any) -> bytes:
    """One wire line: ``dumps(obj)`` as UTF-8 plus ``\\n``."""
    return dumps(obj).encode("utf-8") + b"\n"


def id_text(ident: Any) -> str:
    """A request id as the JSON text of a response's ``id`` (``null`` for none; a NaN or
    infinite id as the peer wrote it). Used by the responses built here and by ``guard``."""
    if ident.__class__ is int:  # the usual id: its JSON text is its decimal text
        return str(ident)
    if ident is None or ident is MISSING:
        return "null"
    if type(ident) is float and ident - ident != 0:  # NaN/Infinity as the peer wrote it
        return json.dumps(ident)
    return dumps(ident)


def response_line(ident: Any, result_json: str) -> bytes:
    """A success response line for ``ident`` whose ``result`` is the JSON text given."""
    return ('{"jsonrpc":"2.0","id":' + id_text(ident) + ',"result":' + result_json
            + "}\n").encode("utf-8")


def error_object(code: int, message: str, data: Any = MISSING) -> dict:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not MISSING:
        err["data"] = data
    return err


def error_line(ident: Any, code: int, message: str, data: Any = MISSING) -> bytes:
    """An error response line; ``ident`` ``None``/``MISSING`` gives ``"id":null``."""
    return ('{"jsonrpc":"2.0","id":' + id_text(ident) + ',"error":'
            + dumps(error_object(code, message, data)) + "}\n").encode("utf-8")


# --------------------------------------------------------------------------------------------
# Spans: locating values inside a JSON text without re-serialising it

_WS = " \t\n\r"
_WS_RUN = re.compile(r"[ \t\n\r]*")
_scan_once = _decoder.scan_once  # type: ignore[attr-defined]  # JSONDecoder sets it in __init__


def _skip_ws(text: str, i: int) -> int:
    if i < len(text) and text[i] not in _WS:
        return i
    return _WS_RUN.match(text, i).end()  # type: ignore[union-attr]  # [ \t\n\r]* always matches


def _value_end(text: str, i: int) -> int:
    """Index just past the JSON value that starts at ``text[i]``."""
    try:
        return _scan_once(text, i)[1]
    except StopIteration:
        raise ParseError(f"expected a JSON value at {i}") from None
    except (RecursionError, ValueError):
        # beyond the parser's limits (nesting, digits of an integer) or invalid: the span
        # scanner decides, without building the value
        return skip_value(text, i)


_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_LITERALS = ("true", "false", "null", "NaN", "Infinity", "-Infinity")


def _after_key(text: str, i: int) -> int:
    """``text[i]`` (after whitespace) begins a member name: the index after its ``:``."""
    i = _skip_ws(text, i)
    if i >= len(text) or text[i] != '"':
        raise ParseError("expected a member name")
    try:
        _, i = _scanstring(text, i + 1)
    except ValueError as exc:
        raise ParseError(str(exc)) from None
    i = _skip_ws(text, i)
    if i >= len(text) or text[i] != ":":
        raise ParseError("expected ':'")
    return i + 1


def skip_value(text: str, i: int) -> int:
    """Index just past the JSON value starting at (or after whitespace from) ``text[i]``.

    Iterative and value-free: any nesting depth and any number of digits (where Python's own
    parser stops at its recursion limit and at 4,300-digit integers). Raises ``ParseError``.
    """
    n = len(text)
    closers: list[str] = []
    while True:
        i = _skip_ws(text, i)
        if i >= n:
            raise ParseError("unexpected end of JSON")
        c = text[i]
        if c == '"':
            try:
                _, i = _scanstring(text, i + 1)
            except ValueError as exc:
                raise ParseError(str(exc)) from None
        elif c == "{" or c == "[":
            closer = "}" if c == "{" else "]"
            j = _skip_ws(text, i + 1)
            if j < n and text[j] == closer:
                i = j + 1
            else:
                closers.append(closer)
                i = _after_key(text, j) if closer == "}" else j
                continue
        else:
            m = _NUMBER.match(text, i)
            if m is not None:
                i = m.end()
            else:
                for lit in _LITERALS:
                    if text.startswith(lit, i):
                        i += len(lit)
                        break
                else:
                    raise ParseError(f"expected a JSON value at {i}")
        while closers:  # a value ended: close containers until one continues
            i = _skip_ws(text, i)
            if i < n and text[i] == ",":
                i = _after_key(text, i + 1) if closers[-1] == "}" else i + 1
                break
            if i < n and text[i] == closers[-1]:
                closers.pop()
                i += 1
                continue
            raise ParseError(f"expected ',' or '{closers[-1]}' at {i}")
        else:
            return i


class Unparsed:
    """A value :func:`decode_shallow` located but did not build (``text[start:end]``)."""

    __slots__ = ("start", "end")

    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end

    def __repr__(self) -> str:
        return f"Unparsed({self.start}, {self.end})"


def _shallow_value(text: str, start: int, end: int, inner: bool) -> Any:
    try:
        value, stop = _scan_once(text, start)
        if stop == end:
            return value
    except (StopIteration, RecursionError, ValueError):
        pass
    if inner and text[start] == "{":
        return _shallow_object(text, start, False)
    return Unparsed(start, end)


def _shallow_object(text: str, start: int, inner: bool) -> dict:
    _, found = members(text, start)
    return {k: _shallow_value(text, s, e, inner and k == "params") for k, s, e in found}


def decode_shallow(line: bytes | str) -> tuple[str, Any]:
    """``(text, value)`` for a line :func:`decode` cannot parse although it is JSON (nesting or
    integers beyond Python's limits): an object becomes a dict of its members with each value
    parsed where possible and an :class:`Unparsed` marker where not (``params`` is opened one
    level more, for ``name`` and ``_meta``); an array becomes a list of such dicts (or markers).
    Enough to classify a message and find its id and method. Raises :class:`ParseError` if the
    line is not JSON at all."""
    if isinstance(line, bytes):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ParseError(f"not valid UTF-8 (byte {exc.start})") from None
    else:
        text = line
    i = _skip_ws(text, 0)
    if i >= len(text):
        raise ParseError("empty")
    if text[i] == "{":
        value: Any = _shallow_object(text, i, True)
        end = skip_value(text, i)
    elif text[i] == "[":
        value = [(_shallow_object(text, s, True) if text[s] == "{" else Unparsed(s, e))
                 for s, e in elements(text, i)]
        end = skip_value(text, i)
    else:
        raise ParseError("not an object or array")
    if text[end:].strip(" \t\n\r"):
        raise ParseError(f"not valid JSON (extra data at character {end})")
    return text, value


def members(text: str, start: int = 0) -> tuple[int, list[tuple[str, int, int]]]:
    """The members of the JSON object that begins at (or after whitespace from) ``start``.

    Returns ``(open_brace_index, [(key, value_start, value_end), ...])`` in document order,
    duplicates included, so that ``text[value_start:value_end]`` is each value's exact source.
    Raises :class:`ParseError` if there is no well-formed object there.
    """
    i = _skip_ws(text, start)
    if i >= len(text) or text[i] != "{":
        raise ParseError("expected an object")
    brace = i
    out: list[tuple[str, int, int]] = []
    i = _skip_ws(text, i + 1)
    if i < len(text) and text[i] == "}":
        return brace, out
    while True:
        if i >= len(text) or text[i] != '"':
            raise ParseError("expected a member name")
        try:
            key, i = _scanstring(text, i + 1)
        except ValueError as exc:
            raise ParseError(str(exc)) from None
        i = _skip_ws(text, i)
        if i >= len(text) or text[i] != ":":
            raise ParseError("expected ':'")
        vstart = _skip_ws(text, i + 1)
        vend = _value_end(text, vstart)
        out.append((key, vstart, vend))
        i = _skip_ws(text, vend)
        if i < len(text) and text[i] == ",":
            i = _skip_ws(text, i + 1)
            continue
        if i < len(text) and text[i] == "}":
            return brace, out
        raise ParseError("expected ',' or '}'")


def elements(text: str, start: int = 0) -> list[tuple[int, int]]:
    """``[(value_start, value_end), ...]`` for the JSON array beginning at ``start``."""
    i = _skip_ws(text, start)
    if i >= len(text) or text[i] != "[":
        raise ParseError("expected an array")
    out: list[tuple[int, int]] = []
    i = _skip_ws(text, i + 1)
    if i < len(text) and text[i] == "]":
        return out
    while True:
        vend = _value_end(text, i)
        out.append((i, vend))
        i = _skip_ws(text, vend)
        if i < len(text) and text[i] == ",":
            i = _skip_ws(text, i + 1)
            continue
        if i < len(text) and text[i] == "]":
            return out
        raise ParseError("expected ',' or ']'")


def unique_member(found: list[tuple[str, int, int]], key: str) -> tuple[int, int] | None | Any:
    """The span of member ``key``: ``None`` if absent, ``MISSING`` if it occurs more than once."""
    hit: tuple[int, int] | None = None
    for k, s, e in found:
        if k == key:
            if hit is not None:
                return MISSING
            hit = (s, e)
    return hit


def splice(text: str, replacements: Iterable[tuple[int, int, str]]) -> str:
    """``text`` with each ``[start, end)`` span replaced; spans must not overlap."""
    parts: list[str] = []
    pos = 0
    for s, e, new in sorted(replacements, key=lambda r: r[0]):
        parts.append(text[pos:s])
        parts.append(new)
        pos = e
    parts.append(text[pos:])
    return "".join(parts)
