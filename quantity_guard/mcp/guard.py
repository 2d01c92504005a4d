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

from typing import Any, NamedTuple, Protocol, runtime_checkable

from .. import observe
from ..errors import tool_error
from . import batch, faults
from . import jsonrpc as rpc
from .jsonrpc import MISSING
from .listing import FAST_MIN, Listings
from .rewrite import LARGE_LINE, apply_change, with_arguments
from .shape import call_shape, duplicate_member, fold_name, preview
from .state import (C2S, ERA_STEPS, LEGACY, LOG, MODERN, S2C, Pending, PendingTable, is_modern,
                    request_kind)
from .tasks import TaskTable

__all__ = [
    "C2S", "S2C", "LOG", "Guard", "Policy", "PassThroughPolicy", "Decision", "Pending",
    "tool_error", "is_modern", "MODERN", "LEGACY", "fold_name", "duplicate_member",
]


def _as_it_came(line: bytes, raw: bytes) -> bytes:
    """The line to forward for a message passed unchanged: ``raw`` and ``\n``, still carrying
    what was read of it when it came read (``jsonrpc.Parsed``)."""
    if line.__class__ is rpc.Parsed:
        return line.as_line(raw)
    return raw + b"\n"


_LIST_FAST_MIN = FAST_MIN  # shorter upstream lines are parsed: it is as quick as a search


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


class Guard:
    """The proxy's state: the pending-request table, the era, the tool catalogue.

    ``receive(direction, line)`` and ``upstream_closed(reason)`` are the whole interface; see
    the module docstring for what they do. Not thread-safe: serialise calls (the stdio layer
    holds one lock around them).
    """

    def __init__(self, policy: Policy | None = None) -> None:
        self.policy: Policy = policy if policy is not None else PassThroughPolicy()
        self.table = PendingTable()
        self.listings = Listings(self)  # the upstream's tools, the listings rewritten
        self.era: str | None = None
        self.protocol_version: str | None = None  # from the last initialize result
        self.closed = False
        self.closed_reason: str | None = None
        self.stats = {"forwarded": 0, "rewritten": 0, "refused": 0, "answered": 0, "dropped": 0}
        self._logs: list[tuple[str, bytes]] = []
        self._unsettled = False  # the policy has bookkeeping put off (see settle)
        # for the spans of guarded calls (quantity_guard.observe): the client side's transport
        # and MCP session id, set by the transport that owns this guard
        self.transport = "pipe"
        # a line the guard writes carries the value it encoded (jsonrpc.made), for an edge that
        # reads it (HTTP); one that only writes the bytes (the stdio proxy) turns this off
        self.carry_values = True
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
                out = faults.oversized(self, direction, line)
            else:
                out = self._from_client(line) if direction == C2S else self._from_upstream(line)
        except Exception as exc:  # never let one line take the proxy down
            out = faults.internal_error(self, direction, line, exc)
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
        for entry in self.table.drain():
            if entry.verdict is not None:
                entry.verdict.end("error", error_type="upstream_closed")
            out.append((S2C, rpc.error_line(
                entry.id, rpc.INTERNAL_ERROR,
                f"{reason} before answering this {entry.method} request")))
        self.stats["answered"] += len(out)
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
        late = self.table.overdue(limit)
        out: list[tuple[str, bytes]] = []
        for entry in late:
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

    def settle_due(self) -> bool:
        """Whether :meth:`settle` has anything to do (bookkeeping put off or logs to send)."""
        return self._unsettled or bool(self._logs)

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
        return self.table.by_key

    def pending_count(self) -> int:
        return self.table.count()

    def awaited_count(self) -> int:
        """Pending requests that end with an answer: all but ``subscriptions/listen``, whose
        stream stays open for as long as the client keeps it."""
        return self.table.awaited()

    @property
    def catalogue(self) -> dict[str, dict]:
        """The upstream's tool definitions by name, as listed."""
        return self.listings.catalogue

    @property
    def catalogue_stale(self) -> bool:
        """Set by ``notifications/tools/list_changed``; a first listing page clears it."""
        return self.listings.stale

    # ------------------------------------------------------------------ helpers

    def note(self, text: str) -> None:
        """A diagnostic for stderr, sent with the outputs of the call under way."""
        self._logs.append((LOG, text.encode("utf-8", "replace")))

    _log = note

    def guarded(self, name: str) -> bool:
        """Whether the policy guards the tool ``name`` (yes, when it fails to say)."""
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

    def observe_era(self, msg: rpc.Message) -> bool:
        """Era bookkeeping for a client request (:data:`state.ERA_STEPS`); returns whether it
        is modern."""
        modern = msg.method == "server/discover" or is_modern(msg.params)
        self.era, reset = ERA_STEPS[self.era, request_kind(msg.method, modern)]
        if reset:
            self._reset()
        return modern

    # ------------------------------------------------------------------ client -> upstream

    def _from_client(self, line: bytes) -> list[tuple[str, bytes]]:
        raw = rpc.strip_terminator(line)
        partial = None
        try:
            if line.__class__ is rpc.Parsed:  # read where it was received: not parsed again
                text, obj, partial = line.text, line.obj, line.partial
            else:
                text, obj = rpc.decode(raw)
        except rpc.ParseError as exc:
            if not raw.strip():
                return []
            try:  # JSON beyond Python's limits: located, not built, and passed as bytes
                text, obj = rpc.decode_shallow(raw)
                partial = exc
            except rpc.ParseError:
                self.stats["answered"] += 1
                self._log(f"client sent a line that is not JSON-RPC ({exc}): {preview(raw)}")
                return [(S2C, rpc.error_line(None, rpc.PARSE_ERROR, f"Parse error: {exc}"))]
        if isinstance(obj, list):
            return batch.client_batch(self, raw, obj)
        msg = rpc.classify(obj)
        kind = msg.kind
        if kind == rpc.INVALID:
            self.stats["answered"] += 1
            ident = msg.id if msg.key is not None else None
            return [(S2C, rpc.error_line(ident, rpc.INVALID_REQUEST, f"Invalid Request: {msg.reason}"))]
        twice = duplicate_member(text, obj)
        if twice is not None:
            return faults.duplicate_member_refused(self, msg, twice)
        wrong = call_shape(msg)
        if wrong is not None:
            return faults.wrong_shape(self, msg, wrong)
        if kind == rpc.REQUEST:
            if self.closed:
                return faults.closed_error(self, msg.id)
            key = msg.key
            if key is not None and key in self.table.by_key:
                return faults.duplicate_id(self, msg.id)
            modern = self.observe_era(msg)
            if msg.method == "tools/call":
                if partial is not None:
                    return self._partial_tool_call(msg, raw, modern, partial)
                if len(raw) >= LARGE_LINE:
                    text = ""  # the guarded path reads the bytes: the decoded text is let go
                out = self._client_tool_call(msg, raw, text or None, modern)
                if out is not None:
                    return out
                del text, obj, msg  # forwarded as it came: the parsed copies go first
                return [(C2S, _as_it_came(line, raw))]
            extra: dict[str, Any] = {}
            if msg.method == "tools/list":
                params = msg.params
                extra["cursor"] = type(params) is dict and params.get("cursor") is not None
            extra["task"] = self.tasks.asked(msg.method, msg.params)  # hook: tasks.py
            self.table.add(msg, modern, **extra)
        elif self.closed:
            return []
        elif kind == rpc.NOTIFICATION and msg.method == "notifications/cancelled":
            self.forget_cancelled(msg.params)
        self.stats["forwarded"] += 1
        del text, obj, msg  # the parsed copies go before the line is copied once more
        return [(C2S, _as_it_came(line, raw))]

    def _partial_tool_call(self, msg: rpc.Message, raw: bytes, modern: bool,
                           exc: Exception) -> list[tuple[str, bytes]]:
        """A tools/call Python's JSON parser cannot build: forwarded as bytes if unguarded,
        refused with its id if guarded (its arguments cannot be checked)."""
        params = msg.params
        name = params.get("name") if type(params) is dict else None
        if isinstance(name, str) and (self.guarded(name) or self.listings.near_guarded(name) is not None):
            self.stats["answered"] += 1
            self._log(f"refused a guarded tools/call that cannot be parsed ({exc})")
            return [(S2C, rpc.error_line(
                msg.id, rpc.PARSE_ERROR,
                f"Parse error: the call to the unit-guarded tool {name!r} cannot be parsed to "
                f"check its arguments ({exc}); it was not forwarded. Send numbers with at most "
                "4300 digits and arrays or objects nested at most 500 deep"))]
        self.table.add(msg, modern, tool=name if isinstance(name, str) else None)
        self.stats["forwarded"] += 1
        return [(C2S, raw + b"\n")]

    def forget_cancelled(self, params: Any) -> None:
        # The upstream will not (2026: must not) answer a cancelled request: forget it.
        if type(params) is dict:
            self.table.pop(rpc.id_key(params.get("requestId", MISSING)))

    def _client_tool_call(self, msg: rpc.Message, raw: bytes, text: str | None,
                          modern: bool) -> list[tuple[str, bytes]] | None:
        """What to send for a tools/call request; ``None``: forward it unchanged (counted).
        ``text`` is the decoded line, or None for a large one (read from ``raw`` if need be)."""
        params = msg.params
        name = params.get("name") if type(params) is dict else None
        if not isinstance(name, str):
            self.table.add(msg, modern)
            self.stats["forwarded"] += 1
            return None
        if not self.guarded(name):
            near = self.listings.near_guarded(name)
            if near is not None:
                self._log(f"refused a call of {name!r}, which is not the unit-guarded tool {near!r}")
                return self._refuse(msg, modern, tool_error(
                    f"{name!r} is not a tool of this server; the unit-guarded tool is named "
                    f"{near!r} (names are matched exactly: case, spaces and invisible characters "
                    f"count). Call {near!r}", code="unknown_tool", field=name))
            self.table.add(msg, modern, tool=name)
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
        meta = verdict.forward_meta(params.get("_meta"))
        try:
            line = with_arguments(raw if text is None else text, msg.obj, payload, meta)
        except (ValueError, TypeError) as exc:
            verdict.end("error", error_type="guard_internal_error")
            self._log(f"converted arguments for {name!r} are not JSON ({exc!r}); refused")
            return self._refuse(msg, modern, tool_error(
                f"{name}: the converted arguments could not be encoded; the call was not sent",
                code="guard_internal_error", field=name))
        self.table.add(msg, modern, tool=name, arguments=payload, guarded=True, task=task,
                       verdict=None if verdict is observe.UNOBSERVED else verdict)
        self.stats["rewritten"] += 1
        if self.carry_values and line.__class__ is bytes:  # the request it encodes, carried on
            line = rpc.made(line, {**msg.obj, "params": {**params, "arguments": payload} | (
                {} if meta is None else {"_meta": meta})})
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

    # ------------------------------------------------------------------ upstream -> client

    def _from_upstream(self, line: bytes) -> list[tuple[str, bytes]]:
        raw = rpc.strip_terminator(line)
        if self.closed:
            self.stats["dropped"] += 1
            self._log(f"dropped a line from the upstream after it closed: {preview(raw)}")
            return []
        if self.listings.cache and len(raw) >= _LIST_FAST_MIN:
            cached = self.listings.cached_answer(raw)
            if cached is not None:
                return cached
        key = None if line.__class__ is rpc.Parsed else rpc.answer_key(raw)
        if key is not None:
            if self.table.pop_passing(key):  # passed as sent, unparsed
                self.stats["forwarded"] += 1
                return [(S2C, _as_it_came(line, raw))]
        try:
            if line.__class__ is rpc.Parsed:  # read where it was received: not parsed again
                text, obj = line.text, line.obj
            else:
                text, obj = rpc.decode(raw)
        except rpc.ParseError as exc:
            try:  # JSON beyond Python's limits: located, not built, and passed as bytes
                text, obj = rpc.decode_shallow(raw)
            except rpc.ParseError:
                if raw.strip():
                    self.stats["dropped"] += 1
                    self._log(f"dropped upstream output that is not JSON-RPC ({exc}): "
                              f"{preview(raw)}")
                return []
        if key is None and obj.__class__ is dict and "method" not in obj and (
                "result" in obj or "error" in obj):  # (a key found above: its answer is read)
            key = rpc.id_key(obj.get("id"))
            if key is not None and self.table.pop_passing(key):  # an answer passed as sent
                self.stats["forwarded"] += 1
                del text, obj
                return [(S2C, _as_it_came(line, raw))]
        elif isinstance(obj, list):
            return batch.upstream_batch(self, raw, text, obj)
        msg = rpc.classify(obj)
        if msg.kind == rpc.INVALID:
            self.stats["dropped"] += 1
            self._log(f"dropped upstream output that is not JSON-RPC ({msg.reason}): {preview(raw)}")
            return []
        if msg.kind == rpc.RESPONSE or msg.kind == rpc.ERROR:
            entry = self.table.pop(msg.key, answered=msg.kind == rpc.RESPONSE)
            if entry is not None and msg.kind == rpc.RESPONSE:
                new = self.rewrite_response(entry, msg, text, None)
                if new is not None:
                    self.stats["rewritten"] += 1
                    return [(S2C, new)]
        elif msg.kind == rpc.NOTIFICATION and msg.method == "notifications/tools/list_changed":
            self.listings.stale = True
        elif msg.kind == rpc.NOTIFICATION and self.tasks.handles and \
                msg.method in ("notifications/tasks", "notifications/tasks/status"):
            new = self.tasks.notified(self, msg)  # hook: a guarded task's status (tasks.py)
            if new is not None:
                self.stats["rewritten"] += 1
                return [(S2C, new)]
        elif msg.kind == rpc.NOTIFICATION and msg.method == "notifications/progress" and self.table.by_token:
            params = msg.params
            self.table.progressed(rpc.id_key(params.get("progressToken"))
                                  if type(params) is dict else None)
        self.stats["forwarded"] += 1
        del text, obj, msg  # the parsed copies go before the line is copied once more
        return [(S2C, _as_it_came(line, raw))]

    def rewrite_response(self, entry: Pending, msg: rpc.Message, line_text: str | None,
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
            return self.listings.rewrite(entry, msg, line_text, where)
        if entry.task.__class__ is str:  # hook: an answer about a guarded task (tasks.py)
            new_result = self.tasks.answered(self, entry, obj.get("result"))
            return None if new_result is None else apply_change(
                line_text, where, obj, ("result", new_result), self.note)
        if entry.method == "tools/call" and entry.guarded:
            handle = self.tasks.created(self, entry, obj.get("result"))  # hook: tasks.py
            if handle is not MISSING:  # a task handle: passed (None) or refused (a result)
                return None if handle is None else apply_change(
                    line_text, where, obj, ("result", handle), self.note)
            if entry.verdict is not None:
                new_result = entry.verdict.run(self._label, entry, obj.get("result"))
            else:
                new_result = self._label(entry, obj.get("result"))
            if new_result is None:
                return None
            new = apply_change(line_text, where, obj, ("result", new_result), self.note)
            if self.carry_values and where is None and new.__class__ is bytes:  # carried on
                new = rpc.made(new, {**obj, "result": new_result})
            return new
        return None

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
