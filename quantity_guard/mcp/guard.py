"""The guarding proxy as a sans-IO state machine.

:class:`Guard` takes one line received from either side and returns what to send::

    guard = Guard(policy)
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\\n')
    # -> [("c2s", b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\\n')]

Directions name the way a message travels: ``C2S`` is client -> upstream server, ``S2C`` is
upstream -> client. Outputs are ``(C2S, line)`` (write to the upstream), ``(S2C, line)`` (write
to the client) and ``(LOG, text)`` (a diagnostic for stderr), each line ending in ``\\n``. The
guard never touches a pipe; :mod:`quantity_guard.mcp.stdio` pumps the bytes.

Transparency
    Every line the guard does not rewrite is forwarded as the original bytes (only a ``\\r\\n``
    terminator becomes ``\\n``), in order. Only three things are ever rewritten, and only for tools
    the policy guards: tools in a ``tools/list`` result (each guarded tool is replaced by
    ``policy.advertise(tool)``, every other byte of the page is kept: ``nextCursor``, ``ttlMs``,
    ``cacheScope``, ``resultType``, ``_meta`` and unguarded tools), the ``arguments`` of a
    ``tools/call`` request (only that value is replaced; ``name``, ``_meta``, ``task``,
    ``inputResponses`` and ``requestState`` keep their bytes; while OpenTelemetry traces the
    call, :mod:`quantity_guard.observe`, its ``_meta`` carries the proxy's span as the
    ``traceparent`` instead of the client's and the request is re-serialised whole), and the
    ``result`` of a plain complete ``tools/call`` result, or of a guarded tool's task (its
    ``tasks/result`` answer, 2025-11-25, or the completed task's ``result`` in a ``tasks/get``
    answer or ``notifications/tasks``, 2026-07-28: :mod:`quantity_guard.mcp.tasks`). A client
    message with a member name twice at its top level or in its ``params`` is refused (a request with its id), never forwarded: a reader that
    keeps the first member and one that keeps the last would route it differently. A response
    with duplicate member names on the path to the value being replaced is re-serialised
    whole, and so are guarded arguments, so no reader can see an unconverted duplicate. A call
    of a name that is not a guarded tool but folds to one (case, spaces, invisible characters:
    :func:`fold_name`) is refused with the exact name to use, unless the upstream lists that
    name as a tool of its own. ``initialize``, ``server/discover``, ``ping``, notifications
    (but a ``notifications/tasks`` carrying a guarded task's result), server->client
    requests and their answers, and unknown methods are never touched. The guard issues no
    requests of its own, so ids are never remapped: they pass with their JSON type.

Eras
    The era is read per message: a request whose ``params._meta`` carries
    ``io.modelcontextprotocol/protocolVersion`` (and ``server/discover``) is 2026-07-28
    ("modern"); anything else is the ``initialize`` era ("legacy"). Nothing is negotiated on the
    client's behalf. ``policy.reset()`` starts a new client session on every ``initialize``
    request and when the traffic turns modern (the first modern request, or the first after
    legacy traffic). Within the modern era the proxy process is the session: a stdio pipe has
    one client.

Policy on odd input (docs/mcp-conformance.md, item 7)
    Valid JSON beyond Python's parser limits (integers over 4,300 digits, nesting deeper than
    the recursion limit) is not an error: the id, method and params are located with a span
    scanner (``jsonrpc.decode_shallow``) and the line passes as bytes; only a guarded
    ``tools/call`` whose arguments cannot be parsed is refused, with ``-32700`` and its own id.
    A request whose id is still in flight (not answered, not cancelled) is refused with
    ``-32600`` and that id, never forwarded (answers are paired by id: a duplicate would make
    the pairing a guess).
    From the client: a line that is not UTF-8 JSON is answered ``-32700`` with ``"id":null``; a
    JSON value that is neither an object nor an array is answered ``-32600`` with
    ``"id":null``; an object that is not a request, notification or response is answered
    ``-32600`` with its id when it has a usable one; an empty batch ``[]`` is answered ``-32600``.
    None of these reach the upstream. A batch (2025-03-26) is forwarded untouched unless it
    contains a ``tools/call`` for a guarded tool, in which case the whole batch is refused: each
    request in it gets a ``-32600`` error naming the reason, and nothing goes upstream (guarded
    calls must be sent one per line). Requests with ``"id":null`` and stray responses are
    forwarded untouched. Blank lines are ignored.
    From the upstream: anything that is not a JSON object or array of them shaped like a
    JSON-RPC message (banners, log lines, invalid UTF-8) is dropped and reported as a LOG
    output; it never reaches the client. Upstream batches are processed element by element.

Tools the policy does not guard (docs/mcp-conformance.md, item 33)
    are forwarded untouched whether or not they appeared in a listing. A tool the policy
    guards is checked even if the client never listed it: the annotation file, not the order
    of requests, decides what is guarded.

Failures of the policy
    An exception from ``guards()`` counts as "guarded" and one from ``check_call()`` refuses
    the call with an ``isError`` result (fail closed: an unchecked value never reaches the
    upstream); one from ``advertise()`` or ``label_result()`` leaves that tool or result as
    the upstream sent it. Each is reported as a LOG output. No input makes ``receive`` raise.
"""
from __future__ import annotations

import copy
import time
from typing import Any, NamedTuple, Protocol, runtime_checkable

from .. import observe
from ..errors import tool_error
from . import jsonrpc as rpc
from .jsonrpc import MISSING
from .tasks import TaskTable

__all__ = [
    "C2S", "S2C", "LOG", "Guard", "Policy", "PassThroughPolicy", "Decision", "Pending",
    "tool_error", "is_modern", "MODERN", "LEGACY", "fold_name", "duplicate_member",
]

C2S = "c2s"
"""Travelling client -> upstream server (an input from the client, or an output to write upstream)."""
S2C = "s2c"
"""Travelling upstream server -> client."""
LOG = "log"
"""Output only: a diagnostic (UTF-8 text, one line) for stderr."""

MODERN = "modern"
LEGACY = "legacy"

_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"


class Decision(NamedTuple):
    """What ``Policy.check_call`` decided: ``("forward", arguments)`` or ``("refuse", result)``.

    A plain tuple of the same shape is accepted too. For ``"forward"`` the payload is the
    arguments object to send upstream (converted into the units the upstream expects); for
    ``"refuse"`` it is a complete ``CallToolResult`` object, normally ``tool_error(repair_text)``.
    """

    action: str
    payload: dict

    @classmethod
    def forward(cls, arguments: dict) -> Decision:
        return cls("forward", arguments)

    @classmethod
    def refuse(cls, result: dict) -> Decision:
        return cls("refuse", result)


@runtime_checkable
class Policy(Protocol):
    """The quantity logic behind the proxy. The guard calls the other four methods only for
    tools where ``guards(name)`` is true; every other tool passes byte for byte.

    ``advertise(tool)``
        returns the tool definition to show the client in place of one from a ``tools/list``
        result (it receives a private copy and may modify it). It must be deterministic: the
        guard remembers the rewritten answer per upstream answer (the last 8 distinct ones, up
        to 1 MiB each) and sends the same rewrite when the upstream answers the same again.
    ``check_call(name, arguments)``
        returns a :class:`Decision`. It must be deterministic: the same arguments give the same
        decision and the same forwarded JSON (MRTR retries of 2026-07-28 re-send a call).
    ``label_result(name, arguments, result)``
        returns the result to give the client; ``arguments`` are those forwarded upstream. It
        is only called for plain complete results: not ``isError``, not ``resultType``
        ``input_required``/``task``/unknown; a task's final result is one (``tasks.py``).
        Optional, for tasks: ``conversation()`` (a token for the call's conversation) and
        ``in_conversation(token)`` (a context in which a result is labelled and recorded).
    ``reset()``
        a new client session began (see the module docstring).

    Optional, used by the command line only: ``close()`` at exit (writes the manifest), and
    ``check_catalogue(tools) -> report`` for ``--check``.
    """

    def guards(self, tool_name: str) -> bool: ...

    def advertise(self, tool: dict) -> dict: ...

    def check_call(self, tool_name: str, arguments: dict) -> Decision | tuple[str, dict]: ...

    def label_result(self, tool_name: str, arguments: dict, result: dict) -> dict: ...

    def reset(self) -> None: ...


class PassThroughPolicy:
    """Guards nothing: the proxy is a byte-faithful relay."""

    def guards(self, tool_name: str) -> bool:
        return False

    def advertise(self, tool: dict) -> dict:
        return tool

    def check_call(self, tool_name: str, arguments: dict) -> Decision:
        return Decision.forward(arguments)

    def label_result(self, tool_name: str, arguments: dict, result: dict) -> dict:
        return result

    def reset(self) -> None:
        pass


class Pending:
    """A client request forwarded upstream and not yet answered.

    ``arguments`` are those forwarded (guarded calls only); ``task`` marks a task-augmented
    ``tools/call`` (2025-11-25), and for a ``tasks/*`` request about a guarded tool's task it
    is that task's id (a string: see ``tasks.py``); ``cursor`` marks a
    ``tools/list`` page after the first.
    """

    __slots__ = ("method", "id", "modern", "tool", "arguments", "guarded", "task", "cursor",
                 "since", "token", "verdict")

    def __init__(self, method: str, id: Any, modern: bool, tool: str | None = None,
                 arguments: dict | None = None, guarded: bool = False, task: bool = False,
                 cursor: bool = False, verdict: Any = None) -> None:
        self.verdict = verdict  # an observed guarded call's (quantity_guard.observe), or None
        self.since = _now()  # sent, or the last progress notification for it (see Guard.expire)
        self.token: tuple | None = None  # its progress token
        self.method = method
        self.id = id
        self.modern = modern
        self.tool = tool
        self.arguments = arguments
        self.guarded = guarded
        self.task = task
        self.cursor = cursor

    def __repr__(self) -> str:
        return f"Pending({self.method!r}, id={self.id!r}, tool={self.tool!r}, guarded={self.guarded})"


_now = time.monotonic


def is_modern(params: Any) -> bool:
    """True when request params carry the 2026-07-28 per-request protocol version."""
    if type(params) is not dict:
        return False
    meta = params.get("_meta")
    return type(meta) is dict and _VERSION_KEY in meta


class _Ambiguous(Exception):
    """Spans could not be located unambiguously: re-serialise the whole message instead."""


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
    if "\\" not in text:  # every member name is written as itself: count its occurrences
        count = text.count
        for k in obj:
            if count('"' + k + '"') > 1:
                break
        else:
            if type(params) is not dict:
                return None
            for k in params:
                if count('"' + k + '"') > 1:
                    break
            else:
                return None
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


def _preview(raw: bytes, limit: int = 160) -> str:
    text = raw[:limit].decode("utf-8", "replace")
    return repr(text) + ("..." if len(raw) > limit else "") + f" ({len(raw)} bytes)"


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


_LARGE_LINE = 1 << 20  # a guarded request this long is rewritten from its bytes, its text let go

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
            return ('{"jsonrpc":"2.0","id":' + rpc.dumps(obj["id"]) + ',"method":"tools/call",'
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
            return '{"jsonrpc":"2.0","id":' + rpc.dumps(obj["id"]) + ',"result":', "}"
        except (ValueError, TypeError):
            return None
    skeleton = dict(obj)
    skeleton["result"] = _MARK
    return _around(skeleton)


_PREFIX = '{"jsonrpc":"2.0","id":'
_SUFFIX = ',"jsonrpc":"2.0","id":'
_LIST_CACHE_SIZE = 8          # distinct tools/list answers remembered
_LIST_CACHE_MAX = 1 << 20     # longest answer remembered (characters)
_LIST_FAST_MIN = 512          # shorter upstream lines are parsed: it is as quick as a search


def _list_key(text: str, ident: Any) -> tuple[tuple, str] | None:
    """A cache key for a tools/list answer: everything but its top-level id, which must be
    written first (``{"jsonrpc":"2.0","id":ID,...``, as Python SDK servers write) or last
    (``...,"jsonrpc":"2.0","id":ID}``, as the TypeScript SDK writes); ``None`` otherwise.
    Two answers with the same key differ only in their id, so they are rewritten alike."""
    if len(text) > _LIST_CACHE_MAX or type(ident) not in (int, str):
        return None
    try:
        idtext = rpc.dumps(ident)
    except (ValueError, TypeError):
        return None
    if text.startswith(_PREFIX + idtext + ","):
        return ("p", text[len(_PREFIX) + len(idtext):]), idtext
    if text.endswith(_SUFFIX + idtext + "}"):
        return ("s", text[:len(text) - len(_SUFFIX) - len(idtext) - 1]), idtext
    return None


def _remembered_line(value: tuple[str, str] | None, ident: str) -> bytes | None:
    """A remembered listing's rewrite (the text around its id) with this answer's id, or None
    where the listing was forwarded unchanged."""
    return None if value is None else (value[0] + ident + value[1]).encode("utf-8")


class Guard:
    """The proxy's state: the pending-request table, the era, the tool catalogue.

    ``receive(direction, line)`` and ``upstream_closed(reason)`` are the whole interface; see
    the module docstring for what they do. Not thread-safe: serialise calls (the stdio layer
    holds one lock around them).
    """

    def __init__(self, policy: Policy | None = None) -> None:
        self.policy: Policy = policy if policy is not None else PassThroughPolicy()
        self._pending: dict[tuple, list[Pending]] = {}
        self._by_token: dict[tuple, Pending] = {}  # pending requests by progress token
        self._folded: tuple[tuple, dict[str, str]] = ((), {})  # see _near_guarded
        self._near: dict[str, str | None] = {}  # its answers by name (at most 1,024)
        self.era: str | None = None
        self.protocol_version: str | None = None  # from the last initialize result
        self.catalogue: dict[str, dict] = {}  # upstream tool definitions by name, as listed
        self.catalogue_stale = False  # set by notifications/tools/list_changed
        # rewritten tools/list answers by upstream result (see _list_key), newest last
        # (rewritten answer split around its id, or None: unchanged; guarded names advertised)
        # key -> (the rewrite's text around the id or None, the guarded names it advertises,
        # the parsed result, for the catalogue; never mutated)
        self._list_cache: dict[tuple, tuple[tuple[str, str] | None, frozenset, Any]] = {}
        self.closed = False
        self.closed_reason: str | None = None
        self.stats = {"forwarded": 0, "rewritten": 0, "refused": 0, "answered": 0, "dropped": 0}
        self._logs: list[tuple[str, bytes]] = []
        self._unsettled = False  # the policy has bookkeeping put off (see settle)
        # for the spans of guarded calls (quantity_guard.observe): the client side's transport
        # and MCP session id, set by the transport that owns this guard
        self.transport = "pipe"
        self.session_id: str | None = None
        self.tasks = TaskTable()  # tasks of guarded tools, followed to their results (tasks.py)

    # ------------------------------------------------------------------ public interface

    def receive(self, direction: str, line: bytes) -> list[tuple[str, bytes]]:
        """Process one line from ``direction`` (C2S: from the client, S2C: from the upstream).

        ``line`` may end in ``\\n`` or ``\\r\\n`` or not at all. Returns what to send, in order.
        """
        if direction != C2S and direction != S2C:
            raise ValueError(f"direction must be {C2S!r} or {S2C!r}, not {direction!r}")
        if self._unsettled:
            self._settle()
        try:
            if line.__class__ is rpc.Oversized:
                out = self._oversized(direction, line)
            else:
                out = self._from_client(line) if direction == C2S else self._from_upstream(line)
        except Exception as exc:  # never let one line take the proxy down
            out = self._internal_error(direction, line, exc)
        if self._logs:
            out.extend(self._logs)
            self._logs = []
        return out

    def upstream_closed(self, reason: str = "the upstream MCP server exited") -> list[tuple[str, bytes]]:
        """The upstream is gone: an error response for every pending client request.

        Afterwards the guard is closed: further client requests are answered with an error at
        once and anything still arriving from the upstream is dropped.
        """
        if self._unsettled:
            self._settle()
        out: list[tuple[str, bytes]] = []
        for entries in self._pending.values():
            for entry in entries:
                if entry.verdict is not None:
                    entry.verdict.end("error", error_type="upstream_closed")
                out.append((S2C, rpc.error_line(
                    entry.id, rpc.INTERNAL_ERROR,
                    f"{reason} before answering this {entry.method} request")))
        self.stats["answered"] += len(out)
        self._pending.clear()
        self._by_token.clear()
        self.closed = True
        self.closed_reason = reason
        if self._logs:
            out.extend(self._logs)
            self._logs = []
        return out

    def expire(self, limit: float, flag: str = "--upstream-timeout") -> list[tuple[str, bytes]]:
        """Give up on the requests the upstream has neither answered nor reported progress on
        for ``limit`` seconds (``subscriptions/listen`` excepted: it stays open on purpose):
        each gets a JSON-RPC error naming ``flag``, and the upstream a
        ``notifications/cancelled`` for it. Returns those outputs."""
        now = _now()
        late = [e for entries in self._pending.values() for e in entries
                if now - e.since > limit and e.method != "subscriptions/listen"]
        out: list[tuple[str, bytes]] = []
        for entry in late:
            key = rpc.id_key(entry.id)
            entries = self._pending.get(key) if key is not None else None
            if key is None or not entries or entry not in entries:
                continue
            entries.remove(entry)
            if not entries:
                del self._pending[key]
            if entry.token is not None and self._by_token.get(entry.token) is entry:
                del self._by_token[entry.token]
            if entry.verdict is not None:
                entry.verdict.end("error", error_type="upstream_timeout")
            why = (f"the upstream MCP server did not answer this {entry.method} request within "
                   f"{limit:g} s (quantity-guard-mcp {flag}); it was cancelled")
            out.append((S2C, rpc.error_line(entry.id, rpc.INTERNAL_ERROR, why)))
            out.append((C2S, rpc.encode({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                         "params": {"requestId": entry.id, "reason": why}})))
            self.stats["answered"] += 1
        if late:
            self._log(f"{len(late)} request(s) unanswered after {limit:g} s ({flag}): answered "
                      "with an error and cancelled upstream")
        if self._logs:
            out.extend(self._logs)
            self._logs = []
        return out

    def settle(self) -> list[tuple[str, bytes]]:
        """Let the policy do the bookkeeping it put off (``policy.settle()``, optional: the
        quantity policy records labelled results in its ledger there). A shell calls this once
        the outputs of ``receive`` are written, so that the bookkeeping is off the answer's
        path; if it does not, the next ``receive`` or ``upstream_closed`` does it first, so
        nothing is lost or reordered. Returns LOG outputs, if any."""
        if self._unsettled:
            self._settle()
        out, self._logs = self._logs, []
        return out

    def _settle(self) -> None:
        self._unsettled = False
        settle = getattr(self.policy, "settle", None)
        if settle is None:
            return
        try:
            settle()
        except Exception as exc:
            self._log(f"policy.settle() failed: {exc!r}")

    @property
    def pending(self) -> dict[tuple, list[Pending]]:
        """The pending table: id key (see ``jsonrpc.id_key``) -> requests with that id."""
        return self._pending

    def pending_count(self) -> int:
        return sum(len(v) for v in self._pending.values())

    def awaited_count(self) -> int:
        """Pending requests that end with an answer: all but ``subscriptions/listen``, whose
        stream stays open for as long as the client keeps it."""
        return sum(1 for v in self._pending.values() for e in v if e.method != "subscriptions/listen")

    # ------------------------------------------------------------------ helpers

    def _log(self, text: str) -> None:
        self._logs.append((LOG, text.encode("utf-8", "replace")))

    def _guards(self, name: str) -> bool:
        try:
            return bool(self.policy.guards(name))
        except Exception as exc:
            self._log(f"policy.guards({name!r}) failed ({exc!r}); treating the tool as guarded")
            return True

    def _reset(self) -> None:
        try:
            self.policy.reset()
        except Exception as exc:
            self._log(f"policy.reset() failed: {exc!r}")

    def _observe(self, msg: rpc.Message) -> bool:
        """Era bookkeeping for a client request; returns whether it is modern."""
        modern = msg.method == "server/discover" or is_modern(msg.params)
        if msg.method == "initialize":
            self.era = LEGACY
            self._reset()
        elif modern and self.era != MODERN:
            self.era = MODERN
            self._reset()
        return modern

    def _track(self, msg: rpc.Message, modern: bool, **extra: Any) -> None:
        key = msg.key
        if key is None:  # id null (or unusable): nobody can match an answer to it
            return
        entry = Pending(msg.method or "", msg.id, modern, **extra)
        self._pending.setdefault(key, []).append(entry)
        params = msg.params
        meta = params.get("_meta") if type(params) is dict else None
        if type(meta) is dict and "progressToken" in meta:
            token = rpc.id_key(meta["progressToken"])
            if token is not None:
                entry.token = token
                self._by_token[token] = entry

    def _pop(self, key: tuple | None, answered: bool = False) -> Pending | None:
        """The pending request ``key`` names, forgotten. Unless it is ``answered`` by a result
        (whose span :meth:`_rewrite_response` closes), its span closes here."""
        if key is None:
            return None
        entries = self._pending.get(key)
        if not entries:
            return None
        entry = entries.pop(0)
        if not entries:
            del self._pending[key]
        if entry.token is not None and self._by_token.get(entry.token) is entry:
            del self._by_token[entry.token]
        if entry.verdict is not None and not answered:
            entry.verdict.end("error", error_type="no_result")
        return entry

    def _closed_error(self, ident: Any) -> list[tuple[str, bytes]]:
        self.stats["answered"] += 1
        return [(S2C, rpc.error_line(ident, rpc.INTERNAL_ERROR,
                                     f"{self.closed_reason}; the request was not forwarded"))]

    def _internal_error(self, direction: str, line: bytes, exc: Exception) -> list[tuple[str, bytes]]:
        self._log(f"internal error while handling a {direction} line: {exc!r}")
        raw = rpc.strip_terminator(line)
        try:
            obj = rpc.loads(raw)
        except rpc.ParseError:
            try:
                obj = rpc.decode_shallow(raw)[1]
            except rpc.ParseError:
                return []
        if direction == S2C:
            # Better an unrewritten answer than a client waiting forever.
            if isinstance(obj, (dict, list)):
                return [(S2C, raw + b"\n")]
            return []
        msg = rpc.classify(obj)
        if msg.kind == rpc.REQUEST:
            self._pop(msg.key)  # it may have been registered before the failure
            return [(S2C, rpc.error_line(msg.id, rpc.INTERNAL_ERROR,
                                         f"quantity-guard-mcp internal error: {exc!r}"))]
        return []

    def _oversized(self, direction: str, line: rpc.Oversized) -> list[tuple[str, bytes]]:
        """A line over the maximum message size (see ``jsonrpc.LineBuffer``): only its first
        and last bytes were kept. The request it was, or the request it answered, gets an error
        naming the limit; the line itself goes nowhere."""
        ident, method, answer = rpc.peek_oversized(line)
        sender = "client" if direction == C2S else "upstream MCP server"
        size = (f"a message of {line.size:,} bytes, over the proxy's maximum message size of "
                f"{line.limit:,} bytes (quantity-guard-mcp --max-message-size)")
        self._log(f"the {sender} sent {size}; it was dropped"
                  + (f" (method {method!r})" if method else "")
                  + ("" if ident is MISSING else f" (id {rpc.dumps(ident)})"))
        self.stats["dropped"] += 1
        if direction == C2S:
            if ident is MISSING and method is not None:
                return []  # a notification: nobody to answer
            if answer and method is None:  # the client's answer to a request of the upstream
                if rpc.id_key(ident) is None:
                    return []
                return [(C2S, rpc.error_line(
                    ident, rpc.INTERNAL_ERROR,
                    f"the client answered this request with {size}; the answer was dropped"))]
            self.stats["answered"] += 1
            return [(S2C, rpc.error_line(
                ident if rpc.id_key(ident) is not None else None, rpc.INVALID_REQUEST,
                f"Invalid Request: the proxy received {size}; it was not forwarded. Send a "
                f"smaller message, or start the proxy with a larger --max-message-size"))]
        if method is not None:  # a request from the upstream: answer it upstream
            if ident is MISSING:
                return []
            return [(C2S, rpc.error_line(
                ident if rpc.id_key(ident) is not None else None, rpc.INVALID_REQUEST,
                f"Invalid Request: the proxy received {size}; it was not passed to the client"))]
        entry = self._pop(rpc.id_key(ident))
        if entry is None:
            return []
        self.stats["answered"] += 1
        return [(S2C, rpc.error_line(
            entry.id, rpc.INTERNAL_ERROR,
            f"the upstream MCP server answered this {entry.method} request with {size}; the "
            f"answer was dropped. Ask for less, or start the proxy with a larger "
            f"--max-message-size"))]

    # ------------------------------------------------------------------ client -> upstream

    def _from_client(self, line: bytes) -> list[tuple[str, bytes]]:
        raw = rpc.strip_terminator(line)
        partial = None
        try:
            text, obj = rpc.decode(raw)
        except rpc.ParseError as exc:
            if not raw.strip():
                return []
            try:  # JSON beyond Python's limits: located, not built, and passed as bytes
                text, obj = rpc.decode_shallow(raw)
                partial = exc
            except rpc.ParseError:
                self.stats["answered"] += 1
                self._log(f"client sent a line that is not JSON-RPC ({exc}): {_preview(raw)}")
                return [(S2C, rpc.error_line(None, rpc.PARSE_ERROR, f"Parse error: {exc}"))]
        if isinstance(obj, list):
            return self._client_batch(raw, obj)
        msg = rpc.classify(obj)
        kind = msg.kind
        if kind == rpc.INVALID:
            self.stats["answered"] += 1
            ident = msg.id if msg.key is not None else None
            return [(S2C, rpc.error_line(ident, rpc.INVALID_REQUEST, f"Invalid Request: {msg.reason}"))]
        twice = duplicate_member(text, obj)
        if twice is not None:
            return self._duplicate_member(msg, twice)
        wrong = call_shape(msg)
        if wrong is not None:
            return self._wrong_shape(msg, wrong)
        if kind == rpc.REQUEST:
            if self.closed:
                return self._closed_error(msg.id)
            key = msg.key
            if key is not None and key in self._pending:
                return self._duplicate_id(msg.id)
            modern = self._observe(msg)
            if msg.method == "tools/call":
                if partial is not None:
                    return self._partial_tool_call(msg, raw, modern, partial)
                if len(raw) >= _LARGE_LINE:
                    text = ""  # the guarded path reads the bytes: the decoded text is let go
                out = self._client_tool_call(msg, raw, text or None, modern)
                if out is not None:
                    return out
                del text, obj, msg  # forwarded as it came: the parsed copies go first
                return [(C2S, raw + b"\n")]
            extra: dict[str, Any] = {}
            if msg.method == "tools/list":
                params = msg.params
                extra["cursor"] = type(params) is dict and params.get("cursor") is not None
            extra["task"] = self.tasks.asked(msg.method, msg.params)  # hook: tasks.py
            self._track(msg, modern, **extra)
        elif self.closed:
            return []
        elif kind == rpc.NOTIFICATION and msg.method == "notifications/cancelled":
            self._cancel(msg.params)
        self.stats["forwarded"] += 1
        del text, obj, msg  # the parsed copies go before the line is copied once more
        return [(C2S, raw + b"\n")]

    def _wrong_shape(self, msg: rpc.Message, wrong: tuple[int, str]) -> list[tuple[str, bytes]]:
        """A message a lenient upstream could run as a tool call, in a shape the guard does not
        check (``call_shape``): a request is answered with the error, a notification dropped;
        neither is forwarded."""
        code, what = wrong
        self._log(f"refused a client {msg.kind}: {what}")
        if msg.kind == rpc.REQUEST:
            self.stats["answered"] += 1
            return [(S2C, rpc.error_line(msg.id, code, what))]
        self.stats["dropped"] += 1
        return []

    def _duplicate_member(self, msg: rpc.Message, twice: str) -> list[tuple[str, bytes]]:
        """A client message with a member name twice on its routing path: refused whole (a
        request with its id; the client's answer to the upstream is answered upstream with an
        error; a notification is dropped), never forwarded."""
        what = (f"the member {twice!r} occurs twice; JSON readers differ on which one counts, "
                "so the message was not forwarded. Send each member once")
        self._log(f"refused a client {msg.kind} with a duplicate member: {what}")
        if msg.kind == rpc.REQUEST:
            self.stats["answered"] += 1
            return [(S2C, rpc.error_line(msg.id, rpc.INVALID_REQUEST, f"Invalid Request: {what}"))]
        self.stats["dropped"] += 1
        if msg.kind in (rpc.RESPONSE, rpc.ERROR) and msg.key is not None:
            return [(C2S, rpc.error_line(msg.id, rpc.INTERNAL_ERROR,
                                         f"the client's answer to this request was dropped: {what}"))]
        return []

    def _near_guarded(self, name: str) -> str | None:
        """The guarded tool that ``name`` is not, but folds to (``Runoff_Depth``,
        ``"runoff_depth "``), unless the upstream lists ``name`` as a tool of its own."""
        if name in self.catalogue:
            return None
        names = getattr(self.policy, "guarded_names", None)
        try:
            candidates = tuple(names()) if callable(names) else tuple(
                n for n in self.catalogue if self._guards(n))
        except Exception as exc:
            self._log(f"policy.guarded_names() failed: {exc!r}")
            return None
        if not candidates:
            return None
        if self._folded[0] != candidates:  # the guarded names by their folded form, once
            self._folded = (candidates, {fold_name(n): n for n in candidates if isinstance(n, str)})
            self._near.clear()
        if name in self._near:
            return self._near[name]
        other = self._folded[1].get(fold_name(name))
        found = other if other != name else None
        if len(self._near) >= 1024:
            self._near.clear()
        self._near[name] = found
        return found

    def _duplicate_id(self, ident: Any) -> list[tuple[str, bytes]]:
        self.stats["answered"] += 1
        shown = rpc.id_text(ident)
        self._log(f"refused a request reusing the in-flight id {shown}")
        return [(S2C, rpc.error_line(
            ident, rpc.INVALID_REQUEST,
            f"Invalid Request: the id {shown} is already used by a request that has "
            "not been answered yet; this request was not forwarded. Send it again with an id "
            "that is not in flight"))]

    def _partial_tool_call(self, msg: rpc.Message, raw: bytes, modern: bool,
                           exc: Exception) -> list[tuple[str, bytes]]:
        """A tools/call Python's JSON parser cannot build: forwarded as bytes if unguarded,
        refused with its id if guarded (its arguments cannot be checked)."""
        params = msg.params
        name = params.get("name") if type(params) is dict else None
        if isinstance(name, str) and (self._guards(name) or self._near_guarded(name) is not None):
            self.stats["answered"] += 1
            self._log(f"refused a guarded tools/call that cannot be parsed ({exc})")
            return [(S2C, rpc.error_line(
                msg.id, rpc.PARSE_ERROR,
                f"Parse error: the call to the unit-guarded tool {name!r} cannot be parsed to "
                f"check its arguments ({exc}); it was not forwarded. Send numbers with at most "
                "4300 digits and arrays or objects nested at most 500 deep"))]
        self._track(msg, modern, tool=name if isinstance(name, str) else None)
        self.stats["forwarded"] += 1
        return [(C2S, raw + b"\n")]

    def _cancel(self, params: Any) -> None:
        # The upstream will not (2026: must not) answer a cancelled request: forget it.
        if type(params) is dict:
            self._pop(rpc.id_key(params.get("requestId", MISSING)))

    def _client_tool_call(self, msg: rpc.Message, raw: bytes, text: str | None,
                          modern: bool) -> list[tuple[str, bytes]] | None:
        """What to send for a tools/call request; ``None``: forward it unchanged (counted).
        ``text`` is the decoded line, or None for a large one (read from ``raw`` if need be)."""
        params = msg.params
        name = params.get("name") if type(params) is dict else None
        if not isinstance(name, str):
            self._track(msg, modern)
            self.stats["forwarded"] += 1
            return None
        if not self._guards(name):
            near = self._near_guarded(name)
            if near is not None:
                self._log(f"refused a call of {name!r}, which is not the unit-guarded tool {near!r}")
                return self._refuse(msg, modern, tool_error(
                    f"{name!r} is not a tool of this server; the unit-guarded tool is named "
                    f"{near!r} (names are matched exactly: case, spaces and invisible characters "
                    f"count). Call {near!r}", code="unknown_tool", field=name))
            self._track(msg, modern, tool=name)
            self.stats["forwarded"] += 1
            return None
        task = "task" in params
        arguments = params.get("arguments", MISSING)
        if arguments is MISSING or arguments is None:
            arguments = {}
        if type(arguments) is not dict:
            return self._refuse(msg, modern, tool_error(
                f"{name}: 'arguments' must be a JSON object of named parameters, "
                f"not {rpc.type_name(arguments)}", code="invalid_arguments", field=name))
        verdict = self._observe_call(msg, name, params, modern)
        try:
            decision = verdict.run(self.policy.check_call, name, arguments)
            action, payload = decision
        except Exception as exc:
            verdict.end(failure=exc)
            self._log(f"policy.check_call({name!r}) failed: {exc!r}; the call was refused")
            return self._refuse(msg, modern, tool_error(
                f"{name}: the call could not be checked (internal error in the unit guard: "
                f"{type(exc).__name__}); it was not sent to the tool",
                code="guard_internal_error", field=name))
        if action == "refuse" and type(payload) is dict:
            verdict.end()
            return self._refuse(msg, modern, payload)
        if action != "forward" or type(payload) is not dict:
            verdict.end("error", error_type="guard_internal_error")
            self._log(f"policy.check_call({name!r}) returned {decision!r}; the call was refused")
            return self._refuse(msg, modern, tool_error(
                f"{name}: the unit guard gave no usable decision; the call was not sent",
                code="guard_internal_error", field=name))
        try:
            line = self._with_arguments(raw if text is None else text, msg.obj, payload, verdict.forward_meta(
                params.get("_meta")))
        except (ValueError, TypeError) as exc:
            verdict.end("error", error_type="guard_internal_error")
            self._log(f"converted arguments for {name!r} are not JSON ({exc!r}); refused")
            return self._refuse(msg, modern, tool_error(
                f"{name}: the converted arguments could not be encoded; the call was not sent",
                code="guard_internal_error", field=name))
        self._track(msg, modern, tool=name, arguments=payload, guarded=True, task=task,
                    verdict=None if verdict is observe.UNOBSERVED else verdict)
        self.stats["rewritten"] += 1
        return [(C2S, line)]

    def _observe_call(self, msg: rpc.Message, name: str, params: dict, modern: bool) -> Any:
        """The verdict of a guarded call, its span continuing the client's trace from
        ``params._meta`` (``observe.UNOBSERVED`` when nothing records it)."""
        if observe.current() is None:
            return observe.UNOBSERVED
        meta = params.get("_meta")
        version = meta.get("io.modelcontextprotocol/protocolVersion") if modern and \
            type(meta) is dict else self.protocol_version
        ident = msg.id if isinstance(msg.id, str) else rpc.id_text(msg.id)
        attributes = {"jsonrpc.request.id": ident, "network.transport": self.transport}
        if isinstance(version, str):
            attributes["mcp.protocol.version"] = version
        if self.session_id is not None:
            attributes["mcp.session.id"] = observe.session_digest(self.session_id)  # a bearer value
        return observe.begin(name, where="proxy", kind="server", meta=meta,
                             attributes=attributes, enter=False)

    def _refuse(self, msg: rpc.Message, modern: bool, result: dict) -> list[tuple[str, bytes]]:
        if modern and "resultType" not in result:
            result = {**result, "resultType": "complete"}
        try:
            text = rpc.dumps(result)
        except (ValueError, TypeError) as exc:
            self._log(f"refusal result is not JSON ({exc!r})")
            text = rpc.dumps(tool_error("the call was refused by the unit guard (its refusal "
                                        "could not be encoded)", code="guard_internal_error")
                             | ({"resultType": "complete"} if modern else {}))
        self.stats["refused"] += 1
        return [(S2C, rpc.response_line(msg.id, text))]

    @staticmethod
    def _with_arguments(text: str | bytes, obj: dict, arguments: dict, meta: dict | None = None) -> bytes:
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

    def _client_batch(self, raw: bytes, batch: list) -> list[tuple[str, bytes]]:
        if not batch:
            self.stats["answered"] += 1
            return [(S2C, rpc.error_line(None, rpc.INVALID_REQUEST, "Invalid Request: empty batch"))]
        msgs = [rpc.classify(el) for el in batch]
        if all(m.kind == rpc.INVALID for m in msgs):
            # nothing in it is a message: answered here (JSON-RPC 2.0 "Batch"), never forwarded
            self.stats["answered"] += 1
            errors = [rpc.error_line(m.id if m.key is not None else None, rpc.INVALID_REQUEST,
                                     f"Invalid Request: {m.reason}")[:-1].decode("utf-8") for m in msgs]
            self._log(f"answered a batch of {len(batch)} values none of which is a JSON-RPC message")
            return [(S2C, ("[" + ",".join(errors) + "]\n").encode("utf-8"))]
        blocked: str | None = None
        if self.closed:
            blocked = f"{self.closed_reason}; the batch was not forwarded"
        else:
            seen: set = set()
            for m in msgs:
                if m.kind == rpc.REQUEST and m.key is not None:
                    if m.key in self._pending or m.key in seen:
                        blocked = (f"Invalid Request: the id {rpc.id_text(m.id)} in this batch is "
                                   "already used by a request that has not been answered yet; "
                                   "nothing in the batch was forwarded. Send it again with ids "
                                   "that are not in flight")
                        break
                    seen.add(m.key)
            for m in msgs if blocked is None else ():
                wrong = call_shape(m)
                if wrong is not None:
                    blocked = (f"{wrong[1].split(';')[0]}; nothing in the batch was forwarded. Send "
                               "each tools/call as a request of its own")
                    break
                if m.kind == rpc.REQUEST and m.method == "tools/call" and type(m.params) is dict:
                    name = m.params.get("name")
                    if isinstance(name, str) and (self._guards(name) or self._near_guarded(name)):
                        blocked = (f"Invalid Request: this batch calls the unit-guarded tool {name!r}; "
                                   "send guarded tools/call requests one per line, not in a batch. "
                                   "Nothing in the batch was forwarded")
                        break
            if blocked is None:
                text = raw.decode("utf-8", "replace")
                try:
                    spans = rpc.elements(text)
                except rpc.ParseError:
                    spans = []
                for (start, end), element in zip(spans, batch):
                    twice = duplicate_member(text[start:end], element)
                    if twice is not None:
                        blocked = (f"Invalid Request: a message in this batch has the member "
                                   f"{twice!r} twice; JSON readers differ on which one counts, so "
                                   "nothing in the batch was forwarded. Send each member once")
                        break
        if blocked is not None:
            errors = []
            for m in msgs:
                if m.kind == rpc.REQUEST or m.kind == rpc.INVALID:
                    ident = m.id if m.kind == rpc.REQUEST else None
                    code = rpc.INTERNAL_ERROR if self.closed else rpc.INVALID_REQUEST
                    errors.append(rpc.error_line(ident, code, blocked)[:-1].decode("utf-8"))
            self._log(f"refused a batch of {len(batch)} messages: {blocked}")
            if not errors:
                return []
            self.stats["answered"] += 1
            return [(S2C, ("[" + ",".join(errors) + "]\n").encode("utf-8"))]
        for m in msgs:
            if m.kind == rpc.REQUEST:
                modern = self._observe(m)
                extra: dict[str, Any] = {}
                if m.method == "tools/call" and type(m.params) is dict:
                    name = m.params.get("name")
                    extra["tool"] = name if isinstance(name, str) else None
                elif m.method == "tools/list":
                    extra["cursor"] = type(m.params) is dict and m.params.get("cursor") is not None
                extra["task"] = self.tasks.asked(m.method, m.params)  # hook: tasks.py
                self._track(m, modern, **extra)
            elif m.kind == rpc.NOTIFICATION and m.method == "notifications/cancelled":
                self._cancel(m.params)
        self.stats["forwarded"] += 1
        return [(C2S, raw + b"\n")]

    # ------------------------------------------------------------------ upstream -> client

    def _from_upstream(self, line: bytes) -> list[tuple[str, bytes]]:
        raw = rpc.strip_terminator(line)
        if self.closed:
            self.stats["dropped"] += 1
            self._log(f"dropped a line from the upstream after it closed: {_preview(raw)}")
            return []
        if self._list_cache and len(raw) >= _LIST_FAST_MIN:
            cached = self._cached_listing(raw)
            if cached is not None:
                return cached
        try:
            text, obj = rpc.decode(raw)
        except rpc.ParseError as exc:
            try:  # JSON beyond Python's limits: located, not built, and passed as bytes
                text, obj = rpc.decode_shallow(raw)
            except rpc.ParseError:
                if raw.strip():
                    self.stats["dropped"] += 1
                    self._log(f"dropped upstream output that is not JSON-RPC ({exc}): "
                              f"{_preview(raw)}")
                return []
        if isinstance(obj, list):
            return self._upstream_batch(raw, text, obj)
        msg = rpc.classify(obj)
        if msg.kind == rpc.INVALID:
            self.stats["dropped"] += 1
            self._log(f"dropped upstream output that is not JSON-RPC ({msg.reason}): {_preview(raw)}")
            return []
        if msg.kind == rpc.RESPONSE or msg.kind == rpc.ERROR:
            entry = self._pop(msg.key, answered=msg.kind == rpc.RESPONSE)
            if entry is not None and msg.kind == rpc.RESPONSE:
                new = self._rewrite_response(entry, msg, text, None)
                if new is not None:
                    self.stats["rewritten"] += 1
                    return [(S2C, new)]
        elif msg.kind == rpc.NOTIFICATION and msg.method == "notifications/tools/list_changed":
            self.catalogue_stale = True
        elif msg.kind == rpc.NOTIFICATION and self.tasks.handles and \
                msg.method in ("notifications/tasks", "notifications/tasks/status"):
            new = self.tasks.notified(self, msg)  # hook: a guarded task's status (tasks.py)
            if new is not None:
                self.stats["rewritten"] += 1
                return [(S2C, new)]
        elif msg.kind == rpc.NOTIFICATION and msg.method == "notifications/progress" and self._by_token:
            params = msg.params
            token = rpc.id_key(params.get("progressToken")) if type(params) is dict else None
            waiting = self._by_token.get(token) if token is not None else None
            if waiting is not None:
                waiting.since = _now()  # the request is alive: its timeout starts again
        self.stats["forwarded"] += 1
        del text, obj, msg  # the parsed copies go before the line is copied once more
        return [(S2C, raw + b"\n")]

    def _cached_listing(self, raw: bytes) -> list[tuple[str, bytes]] | None:
        """The answer to a pending tools/list request that is, but for its id, an answer
        rewritten before: found by its text, without parsing it (parsing a 6 KB listing takes
        about 35 us, most of a listing's cost). ``None``: not one (the caller parses)."""
        if len(self._pending) > 64:  # looking through the pending requests would cost more
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
        for key, entries in self._pending.items():
            entry = entries[0]  # the request an answer with this id answers
            if entry.method != "tools/list":
                continue
            found = _list_key(text, entry.id)
            if found is None:
                continue
            hit = self._list_cache.get(found[0])
            if hit is None:
                return None
            self._pop(key)
            self._catalogue(entry, hit[2])
            line = _remembered_line(hit[0], found[1])
            if line is None:
                self.stats["forwarded"] += 1
                return [(S2C, raw + b"\n")]
            self.stats["rewritten"] += 1
            return [(S2C, line)]
        return None

    def _upstream_batch(self, raw: bytes, text: str, batch: list) -> list[tuple[str, bytes]]:
        msgs = [rpc.classify(el) for el in batch]
        if not batch or all(m.kind == rpc.INVALID for m in msgs):
            self.stats["dropped"] += 1
            self._log(f"dropped upstream output that is not JSON-RPC: {_preview(raw)}")
            return []
        spans: list[tuple[int, int]] | None = None
        edits: list[tuple[int, int, str]] = []
        for i, m in enumerate(msgs):
            if m.kind == rpc.NOTIFICATION and m.method == "notifications/tools/list_changed":
                self.catalogue_stale = True
            if m.kind != rpc.RESPONSE and m.kind != rpc.ERROR:
                continue
            entry = self._pop(m.key, answered=m.kind == rpc.RESPONSE)
            if entry is None or m.kind != rpc.RESPONSE:
                continue
            if spans is None:
                spans = rpc.elements(text)
            start, end = spans[i]
            new = self._rewrite_response(entry, m, None, (text, start, end))
            if new is not None:
                edits.append((start, end, new))
        if edits:
            self.stats["rewritten"] += 1
            return [(S2C, rpc.splice(text, edits).encode("utf-8") + b"\n")]
        self.stats["forwarded"] += 1
        return [(S2C, raw + b"\n")]

    def _rewrite_response(self, entry: Pending, msg: rpc.Message, line_text: str | None,
                          where: tuple[str, int, int] | None) -> Any:
        """Rewrite a response if the policy changes it.

        For a whole line (``line_text``) returns the new line as bytes; for a batch element
        (``where`` = (text, start, end)) returns the element's new JSON text. ``None``: unchanged.
        """
        obj = msg.obj
        if entry.verdict is not None:  # an observed guarded call: its span closes with the answer
            try:
                return self._rewrite(entry, msg, line_text, where)
            finally:
                result = obj.get("result")
                entry.verdict.end("tool_error" if type(result) is dict and
                                  result.get("isError") is True else None)
        return self._rewrite(entry, msg, line_text, where)

    def _rewrite(self, entry: Pending, msg: rpc.Message, line_text: str | None,
                                   where: tuple[str, int, int] | None) -> Any:
        obj = msg.obj
        if isinstance(obj.get("result"), rpc.Unparsed) and (
                entry.method == "tools/list" or (entry.method == "tools/call" and entry.guarded)):
            self._log(f"the answer to {entry.method} id {rpc.id_text(entry.id)} is beyond Python's "
                      "JSON limits; it was forwarded as sent (not re-advertised or labelled)")
            return None
        if entry.method == "initialize":
            result = obj.get("result")
            if type(result) is dict and isinstance(result.get("protocolVersion"), str):
                self.protocol_version = result["protocolVersion"]
            return None
        if entry.method == "tools/list":
            found = _list_key(line_text, msg.id) if line_text is not None else None
            if found is not None:
                hit = self._list_cache.get(found[0], MISSING)
                if hit is not MISSING:  # the same upstream answer as before: same rewrite
                    self._catalogue(entry, obj.get("result"))
                    return _remembered_line(hit[0], found[1])
            changes = self._advertise(entry, obj.get("result"))
            new = self._apply(line_text, where, obj, ("tools", changes)) if changes else None
            if changes or found is not None:
                # a remembered answer that advertised one of these tools differently is stale
                # (the policy has seen the new definition): forget it
                names = {t.get("name") for t in changes.values()}
                for k in [k for k, v in self._list_cache.items() if v[1] & names]:
                    del self._list_cache[k]
                if found is not None:
                    self._remember_list(found, new, frozenset(names), obj.get("result"))
            return new
        if entry.task.__class__ is str:  # hook: an answer about a guarded task (tasks.py)
            new_result = self.tasks.answered(self, entry, obj.get("result"))
            return None if new_result is None else self._apply(line_text, where, obj, ("result", new_result))
        if entry.method == "tools/call" and entry.guarded:
            handle = self.tasks.created(self, entry, obj.get("result"))  # hook: tasks.py
            if handle is not MISSING:  # a task handle: passed (None) or refused (a result)
                return None if handle is None else self._apply(line_text, where, obj, ("result", handle))
            if entry.verdict is not None:
                new_result = entry.verdict.run(self._label, entry, obj.get("result"))
            else:
                new_result = self._label(entry, obj.get("result"))
            if new_result is None:
                return None
            return self._apply(line_text, where, obj, ("result", new_result))
        return None

    def _catalogue(self, entry: Pending, result: Any) -> None:
        """The catalogue bookkeeping of :meth:`_advertise`, for a cached listing."""
        if type(result) is not dict or result.get("resultType", "complete") != "complete":
            return
        tools = result.get("tools")
        if type(tools) is not list:
            return
        if not entry.cursor:
            self.catalogue = {}
            self.catalogue_stale = False
        for tool in tools:
            if type(tool) is dict and isinstance(tool.get("name"), str):
                self.catalogue[tool["name"]] = tool

    def _remember_list(self, found: tuple[tuple, str], new: bytes | None,
                       names: frozenset, result: Any) -> None:
        key, ident = found
        if new is None:
            value = None
        else:
            text = new.decode("utf-8")
            head = key[0]
            if head == "p" and text.startswith(_PREFIX + ident):
                value = (_PREFIX, text[len(_PREFIX) + len(ident):])
            elif head == "s" and text.endswith(_SUFFIX + ident + "}\n"):
                value = (text[:len(text) - len(ident) - 2], "}\n")
            else:
                return
        while len(self._list_cache) >= _LIST_CACHE_SIZE:
            del self._list_cache[next(iter(self._list_cache))]
        self._list_cache[key] = (value, names, result)

    def _advertise(self, entry: Pending, result: Any) -> dict[int, dict]:
        if type(result) is not dict or result.get("resultType", "complete") != "complete":
            return {}
        tools = result.get("tools")
        if type(tools) is not list:
            return {}
        if not entry.cursor:  # a first page starts the catalogue afresh
            self.catalogue = {}
            self.catalogue_stale = False
        changes: dict[int, dict] = {}
        for i, tool in enumerate(tools):
            if type(tool) is not dict:
                continue
            name = tool.get("name")
            if not isinstance(name, str):
                continue
            self.catalogue[name] = tool
            if not self._guards(name):
                continue
            try:
                new = self.policy.advertise(copy.deepcopy(tool))
            except Exception as exc:
                self._log(f"policy.advertise({name!r}) failed: {exc!r}; the tool is listed unchanged")
                continue
            if type(new) is not dict:
                self._log(f"policy.advertise({name!r}) returned {type(new).__name__}; listed unchanged")
                continue
            changes[i] = new
        if result.get("nextCursor") is None:
            self._listing_complete()
        return changes

    def _listing_complete(self) -> None:
        """The last page of a listing: the policy may check its annotations against it
        (``catalogue_seen(tools) -> [warning, ...]``); each warning goes to stderr."""
        seen = getattr(self.policy, "catalogue_seen", None)
        if not callable(seen):
            return
        try:
            warnings = seen(list(self.catalogue.values()))
        except Exception as exc:
            self._log(f"policy.catalogue_seen() failed: {exc!r}")
            return
        for text in warnings or ():
            self._log(str(text))

    def _label(self, entry: Pending, result: Any) -> dict | None:
        if type(result) is not dict:
            return None
        if result.get("resultType", "complete") != "complete" or result.get("isError") is True:
            return None
        if "task" in result or type(result.get("content")) is not list:
            return None
        self._unsettled = True
        try:
            new = self.policy.label_result(entry.tool or "", entry.arguments or {}, result)
        except Exception as exc:
            self._log(f"policy.label_result({entry.tool!r}) failed: {exc!r}; result left unlabelled")
            return None
        if type(new) is not dict:
            return None
        return new

    def _apply(self, line_text: str | None, where: tuple[str, int, int] | None, obj: dict,
               change: tuple[str, Any]) -> Any:
        """Apply a listing change (``("tools", {index: tool})``) or a new result
        (``("result", dict)``) to a response, touching only the replaced values."""
        what, value = change
        if what == "result" and line_text is not None:
            fast = _replace_canonical(line_text, _result_around(obj), value)
            if fast is not None:
                return fast.encode("utf-8") + b"\n"
        try:
            modified = self._modified(obj, what, value)
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
            edits = self._edits(text, start, what, value)
            out = rpc.splice(text, edits)
            if end is not None:  # batch element: return just the element's new text
                out = out[start:len(out) - (len(text) - end)]
        except (_Ambiguous, rpc.ParseError):
            try:
                out = rpc.dumps(modified)
            except (ValueError, TypeError) as exc:
                self._log(f"could not re-encode a rewritten {what} ({exc!r}); forwarded unchanged")
                return None
        if line_text is not None:
            return out.encode("utf-8") + b"\n"
        return out

    def _edits(self, text: str, start: int, what: str, value: Any) -> list[tuple[int, int, str]]:
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
                self._log(f"advertised tool #{i} is not JSON ({exc!r}); listed unchanged")
        return edits

    @staticmethod
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
