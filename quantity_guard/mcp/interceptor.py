"""``quantity-guard-mcp interceptor``: the guard as an MCP interceptor server (SEP-2624).

An interceptor host (a client, gateway or agent harness implementing the MCP interceptors
extension, ``io.modelcontextprotocol/interceptors``) discovers this server's interceptors with
``interceptors/list`` and runs them on each ``tools/call`` with ``interceptor/invoke``:

``quantity-guard/units-validator`` (validation; ``tools/call``, request phase)
    The call's arguments checked against the annotation file: a wrong dimension, datum, time
    zone or quality, a carry-over and an unsourced input are ``valid: false``, severity
    ``error``, with the repair text as the message and the parameter's path
    (``arguments.discharge``).
``quantity-guard/units-mutator`` (mutation; ``tools/call``, request and response phases)
    Request phase: the arguments converted into the units the annotations give the server
    (``"1250 cfs"`` goes on as ``35.39605824``), ``modified`` true when a value changed.
    Response phase: a bare numeric result labelled (``{"value": 1250.0, "unit": "cfs"}``) and
    recorded in the conversation's ledger, so carry-over from it is seen.

Payloads are as the SEP-2624 conformance fixtures send them: a request-phase payload is the
call's ``{name, arguments}``; a response-phase payload is the bare ``CallToolResult``, which
belongs to the latest request-phase call of the same conversation. The conversation is keyed
as the gateway keys it (:mod:`quantity_guard.mcp.identity`): the invocation's
``context.sessionId``, else the W3C trace id of ``params._meta.traceparent``, else the client
(its ``clientInfo``); each has its own ledger. When a host runs both interceptors on one
call (mutator then validator on the way out, or validator then mutator), the second sees the
first's decision for that payload: the call is checked and recorded once.

The server answers both eras (:class:`~quantity_guard.mcp.server.ServerCore`): the
``initialize`` era up to 2025-11-25 and 2026-07-28 (``server/discover``; every result carries
``resultType: "complete"``), and advertises the extension with its ``supportedEvents`` in
the capabilities of both. An unknown interceptor name, an event or phase it does not hook, or
a payload of the wrong shape is a ``-32602`` error saying what to send; an interceptor that
fails is ``-32603`` naming it.

Every guarded invocation writes one INFO line on the ``quantity_guard.interceptor`` logger
(``guarded tools/call request runoff_depth (validator): refused area [unsourced_input]``),
counts it (:attr:`UnitsInterceptors.counts`), and with OpenTelemetry in use is a span and a
count in the metrics (``quantity_guard.where = "interceptor"``).

:func:`execute_chain` is a host's chain executor in the SEP's trust-boundary order (request:
mutate then validate; response: validate then mutate; ``audit`` never blocks; a failing
interceptor blocks unless ``failOpen``), over any server's ``interceptors/list`` and
``interceptor/invoke``.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, NamedTuple

from ..integrations.gateways import Ledgers, annotated_name, check_call
from ..observe import current
from . import jsonrpc as rpc
from .identity import ANON, IdentityKey, conversation_of
from .server import RpcError, ServerCore, serve

__all__ = [
    "EXTENSION",
    "LOGGER_NAME",
    "MUTATOR",
    "VALIDATOR",
    "ChainResult",
    "InterceptorServer",
    "Interceptors",
    "Invocation",
    "UnitsInterceptors",
    "execute_chain",
    "main",
]

EXTENSION = "io.modelcontextprotocol/interceptors"
LIST = "interceptors/list"
INVOKE = "interceptor/invoke"
VALIDATOR = "quantity-guard/units-validator"
MUTATOR = "quantity-guard/units-mutator"
TOOLS_CALL = "tools/call"
LOGGER_NAME = "quantity_guard.interceptor"
MAX_SESSIONS = 256  # conversations whose ledgers are kept (the least recent dropped first)
PHASES = ("request", "response")
TYPES = ("validation", "mutation")
EXECUTION_FAILED = -32603

_log = logging.getLogger(LOGGER_NAME)


class Invocation(NamedTuple):
    """What an interceptor's handler is given."""
    event: str
    phase: str
    payload: Any
    context: dict  # the invocation's ``context`` (``sessionId`` ...), {} when none was sent
    meta: dict  # the request's ``params._meta``, {} when none was sent


def _matches(events: tuple[str, ...], event: str, phase: str | None) -> bool:
    """Whether a hook on ``events`` fires on ``event`` (in ``phase``; None: in either):
    the event itself, or the wildcards ``*``, ``*/request``, ``*/response``."""
    return any(e == event or e == "*" or (e in ("*/request", "*/response")
                                          and (phase is None or e == f"*/{phase}"))
               for e in events)


class _Registered:
    def __init__(self, name: str, type: str, events: tuple[str, ...], phases: tuple[str, ...],
                 handler: Callable[[Invocation], dict], mode: str, fail_open: bool,
                 description: str | None, priority: int | None) -> None:
        self.name, self.type, self.events, self.phases = name, type, events, phases
        self.handler, self.mode, self.fail_open = handler, mode, fail_open
        self.description, self.priority = description, priority

    def descriptor(self) -> dict:
        """The SEP wire shape: a hook per phase, the defaults (mode enforce, failOpen false,
        priority 0) left out."""
        out: dict[str, Any] = {"name": self.name, "type": self.type}
        if self.description:
            out["description"] = self.description
        out["hooks"] = [{"events": list(self.events), "phase": p} for p in self.phases]
        if self.mode == "audit":
            out["mode"] = "audit"
        if self.fail_open:
            out["failOpen"] = True
        if self.priority:
            out["priorityHint"] = self.priority
        return out


class Interceptors:
    """The interceptors a server offers: ``interceptors/list`` and ``interceptor/invoke``."""

    def __init__(self) -> None:
        self._by_name: OrderedDict[str, _Registered] = OrderedDict()

    def add(self, name: str, type: str, events: list[str] | tuple[str, ...], phases: str,
            handler: Callable[[Invocation], dict], *, mode: str | None = None,
            fail_open: bool = False, description: str | None = None,
            priority: int | None = None) -> None:
        """Register ``handler`` as interceptor ``name``. ``phases`` is ``request``,
        ``response`` or ``both``; ``mode`` ``enforce`` (default; ``active`` is read as it)
        or ``audit``. A validator's handler returns ``{valid, severity?, messages?}``, a
        mutator's ``{modified, payload}``."""
        if type not in TYPES:
            raise ValueError(f"interceptor {name!r}: type must be one of {TYPES}, not {type!r}")
        if phases not in (*PHASES, "both"):
            raise ValueError(f"interceptor {name!r}: phases must be request, response or both, "
                             f"not {phases!r}")
        if mode not in (None, "enforce", "active", "audit"):
            raise ValueError(f"interceptor {name!r}: mode must be enforce or audit, not {mode!r}")
        if name in self._by_name:
            raise ValueError(f"interceptor {name!r} is registered already")
        self._by_name[name] = _Registered(
            name, type, tuple(events), PHASES if phases == "both" else (phases,), handler,
            "audit" if mode == "audit" else "enforce", bool(fail_open), description, priority)

    def events(self) -> list[str]:
        """Every event some interceptor hooks, in registration order (``supportedEvents``)."""
        seen: dict[str, None] = {}
        for reg in self._by_name.values():
            seen.update(dict.fromkeys(reg.events))
        return list(seen)

    def list(self, event: Any = None) -> dict:
        """The ``interceptors/list`` result: every interceptor, or those hooking ``event``."""
        if event is not None and not isinstance(event, str):
            raise RpcError(rpc.INVALID_PARAMS, f"interceptors/list: 'event' must be an event "
                           f"name such as \"tools/call\", not {json.dumps(event)}")
        return {"interceptors": [reg.descriptor() for reg in self._by_name.values()
                                 if event is None or _matches(reg.events, event, None)]}

    def invoke(self, params: dict) -> dict:
        """The ``interceptor/invoke`` result for ``params`` (``name``, ``event``, ``phase``,
        ``payload``, optional ``context``); raises :class:`RpcError` (the error answer)."""
        name = params.get("name")
        reg = self._by_name.get(name) if isinstance(name, str) else None
        if reg is None:
            known = ", ".join(self._by_name) or "none"
            raise RpcError(rpc.INVALID_PARAMS, f"interceptor/invoke: no interceptor named "
                           f"{json.dumps(name)}; send one interceptors/list gives: {known}")
        event, phase = params.get("event"), params.get("phase")
        if phase not in reg.phases:
            raise RpcError(rpc.INVALID_PARAMS, f"interceptor/invoke: {reg.name} runs in the "
                           f"{' and '.join(reg.phases)} phase, not {json.dumps(phase)}; send "
                           f"'phase': {json.dumps(reg.phases[0])}")
        if not isinstance(event, str) or not _matches(reg.events, event, phase):
            raise RpcError(rpc.INVALID_PARAMS, f"interceptor/invoke: {reg.name} hooks "
                           f"{', '.join(reg.events)}, not {json.dumps(event)}")
        if "payload" not in params:
            raise RpcError(rpc.INVALID_PARAMS, "interceptor/invoke: 'payload' is missing: "
                           "send the intercepted message's params (for tools/call, the "
                           "request's {name, arguments} or the CallToolResult)")
        context = params.get("context")
        meta = params.get("_meta")
        invocation = Invocation(event, phase, params["payload"],
                                context if isinstance(context, dict) else {},
                                meta if isinstance(meta, dict) else {})
        began = time.perf_counter()
        try:
            outcome = reg.handler(invocation)
        except RpcError:
            raise
        except Exception as exc:  # noqa: BLE001 (any failure of a handler is its crash)
            _log.warning("interceptor %s failed on %s %s: %r", reg.name, event, phase, exc)
            reason = f"{type(exc).__name__}: {exc}"
            raise RpcError(EXECUTION_FAILED, f"Interceptor execution failed: {reg.name}",
                           {"interceptor": reg.name, "reason": reason}) from None
        result = {"interceptor": reg.name, "type": reg.type, "phase": phase}
        result.update(outcome)
        result["durationMs"] = round((time.perf_counter() - began) * 1000, 3)
        return result


class InterceptorServer(ServerCore):
    """A :class:`ServerCore` answering ``interceptors/list`` and ``interceptor/invoke`` from
    ``interceptors`` and advertising the extension (no tools)."""

    def __init__(self, interceptors: Interceptors, *, name: str = "quantity-guard-interceptor",
                 version: str | None = None,
                 on_initialize: Callable[[dict], None] | None = None) -> None:
        super().__init__(_NoTools(), name=name, version=version)
        self.interceptors = interceptors
        self.on_initialize = on_initialize

    def _dispatch(self, method: str, params: dict, modern: str | None) -> dict:
        if method == LIST:
            return self.interceptors.list(params.get("event"))
        if method == INVOKE:
            return self.interceptors.invoke(params)
        result = super()._dispatch(method, params, modern)
        if method in ("initialize", "server/discover"):
            capabilities = result["capabilities"]
            capabilities.pop("tools", None)
            capabilities["extensions"] = {EXTENSION: {"supportedEvents":
                                                      self.interceptors.events()}}
            if method == "initialize" and self.on_initialize is not None:
                self.on_initialize(params)
        return result


class _NoTools:
    def list_tools(self) -> list:
        return []

    def call_tool(self, name: str, arguments: dict) -> dict:  # never reached: no tool is listed
        raise LookupError(name)


# ------------------------------------------------------------------ the units interceptors

class _Turn:
    """The latest request-phase tools/call of a conversation: what it was sent, what goes on."""
    __slots__ = ("forwarded", "refusal", "sent", "tool", "verdict", "warned")

    def __init__(self, tool: str, sent: Any, forwarded: Any, refusal: Any, verdict: Any,
                 warned: list) -> None:
        self.tool, self.sent, self.forwarded = tool, sent, forwarded
        self.refusal, self.verdict = refusal, verdict
        self.warned = warned  # warn enforcement: the violations let through


_COUNTED = ("converted", "passed", "warned", "refused", "labelled", "unlabelled")


class UnitsInterceptors:
    """The validator and the mutator of an annotation file, with a ledger per conversation."""

    def __init__(self, annotations: Any, *, enforcement: str = "strict",
                 max_sessions: int = MAX_SESSIONS, aliases: dict | None = None) -> None:
        self.annotations = annotations
        self.enforcement = enforcement
        self.aliases = dict(aliases or {})
        self.ledgers = Ledgers(annotations, enforcement, max_sessions)
        self.max_sessions = max_sessions
        self.counts = dict.fromkeys(_COUNTED, 0)
        self.initialize: dict | None = None  # the 2025 client's initialize params
        self._key = IdentityKey()
        self._turns: OrderedDict[str, _Turn] = OrderedDict()
        self._lock = threading.RLock()

    def register(self, interceptors: Interceptors) -> Interceptors:
        interceptors.add(VALIDATOR, "validation", [TOOLS_CALL], "request", self.validate,
                         description="Refuses tools/call arguments in the wrong unit, datum, "
                                     "time zone or quality, carried over or unsourced, with "
                                     "the repair text")
        interceptors.add(MUTATOR, "mutation", [TOOLS_CALL], "both", self.mutate,
                         description="Converts tools/call arguments into the server's units; "
                                     "labels bare numeric results with theirs")
        return interceptors

    def remember_client(self, params: dict) -> None:
        self.initialize = params

    # -- the conversation ----------------------------------------------------------------
    def conversation(self, inv: Invocation) -> str:
        """The conversation key of an invocation (module docstring), as the gateway keys it."""
        session = inv.context.get("sessionId")
        return conversation_of(header=session if isinstance(session, str) else None,
                               meta=inv.meta, initialize=self.initialize, key=self._key,
                               principal=ANON).key

    def _count(self, what: str) -> None:
        with self._lock:
            self.counts[what] += 1

    # -- the request phase ---------------------------------------------------------------
    def _request(self, inv: Invocation, who: str) -> _Turn | None:
        """The decision on a request-phase payload (None for a tool the annotations do not
        name)."""
        payload = inv.payload
        name = payload.get("name") if isinstance(payload, dict) else None
        if not isinstance(name, str) or ("arguments" in payload and payload["arguments"]
                                         is not None and not isinstance(payload["arguments"],
                                                                        dict)):
            raise RpcError(rpc.INVALID_PARAMS, "interceptor/invoke: a tools/call request-"
                           "phase payload is the call's {\"name\": <tool>, \"arguments\": "
                           "{...}}; received " + _shape(payload))
        tool = annotated_name(self.annotations, self.aliases, name)
        if tool is None:
            return None
        arguments = payload.get("arguments") or {}
        key = self.conversation(inv)
        policy = self.ledgers.policy(key, user=ANON)
        with self._lock:
            turn = self._turns.get(key)
            if turn is not None and turn.tool == tool and arguments in (turn.sent, turn.forwarded):
                return turn  # the other interceptor of this call decided it
            observer = current()
            verdict = observer.start(tool, where="interceptor", kind="server", attributes={
                "quantity_guard.enforcement": self.enforcement,
                "quantity_guard.interceptor": who}) if observer else None
            decision, refusal = check_call(policy, tool, dict(arguments), verdict)
            forwarded = None if refusal is not None else decision.payload
            calls = policy.ledger.calls
            warned = list(calls[-1].violations) if refusal is None and calls and \
                calls[-1].tool == tool and calls[-1].violations else []
            turn = _Turn(tool, dict(arguments), forwarded, refusal, verdict, warned)
            if verdict is not None and self.annotations[tool].returns is None:
                verdict.end()  # no result of this tool is labelled: the call is decided
            _end(self._turns.pop(key, None))  # an earlier call whose result never came
            self._turns[key] = turn
            while len(self._turns) > self.max_sessions:
                _end(self._turns.popitem(last=False)[1])
        if refusal is not None:
            self._count("refused")
            _log.info("guarded tools/call request %s (%s): refused %s [%s]", tool, who,
                      _param(refusal[2], tool) or "the call", refusal[1])
        elif warned:
            self._count("warned")
            _log.info("guarded tools/call request %s (%s): warned %s", tool, who, ", ".join(
                f"{_param(v.get('field'), tool) or 'the call'} [{v.get('code')}]"
                for v in warned))
        else:
            changed = sorted(k for k, v in (forwarded or {}).items() if arguments.get(k) != v)
            self._count("converted" if changed else "passed")
            _log.info("guarded tools/call request %s (%s): %s", tool, who,
                      f"converted {', '.join(changed)}" if changed else "passed")
        return turn

    def validate(self, inv: Invocation) -> dict:
        """``valid: false``, severity ``error``, for a refused call; in warn enforcement,
        severity ``warn`` (which blocks nothing) for the violations let through."""
        turn = self._request(inv, "validator")
        if turn is None:
            return {"valid": True}
        if turn.refusal is not None:
            found, severity = [turn.refusal], "error"
        elif turn.warned:
            found = [(v.get("repair"), v.get("code"), v.get("field")) for v in turn.warned]
            severity = "warn"
        else:
            return {"valid": True}
        messages = []
        for text, _, field in found:
            param = _param(field, turn.tool)
            messages.append({"path": f"arguments.{param}" if param else "arguments",
                             "message": text, "severity": severity})
        return {"valid": False, "severity": severity, "messages": messages,
                "info": {"code": found[0][1], "tool": turn.tool}}

    def mutate(self, inv: Invocation) -> dict:
        if inv.phase == "request":
            turn = self._request(inv, "mutator")
            if turn is None or turn.refusal is not None:
                return {"modified": False, "payload": inv.payload}
            if turn.forwarded == (inv.payload.get("arguments") or {}):
                return {"modified": False, "payload": inv.payload}
            return {"modified": True, "payload": {**inv.payload, "arguments": turn.forwarded}}
        return self._label(inv)

    # -- the response phase --------------------------------------------------------------
    def _label(self, inv: Invocation) -> dict:
        result = inv.payload
        if not isinstance(result, dict) or not isinstance(result.get("content", []), list):
            raise RpcError(rpc.INVALID_PARAMS, "interceptor/invoke: a tools/call response-"
                           "phase payload is the CallToolResult ({\"content\": [...], "
                           "\"structuredContent\"?: {...}, \"isError\"?: bool}); received "
                           + _shape(result))
        key = self.conversation(inv)
        with self._lock:
            turn = self._turns.pop(key, None)
        if turn is None or turn.forwarded is None:
            return {"modified": False, "payload": result}
        policy = self.ledgers.policy(key, user=ANON)
        verdict = turn.verdict
        if verdict is not None:
            verdict.enter()
            verdict.start()
        try:
            labelled = policy.label_result(turn.tool, turn.forwarded, dict(result))
            policy.settle()
        finally:
            if verdict is not None:
                verdict.end()
        if labelled == result:
            self._count("unlabelled")
            _log.info("guarded tools/call response %s (mutator): unlabelled", turn.tool)
            return {"modified": False, "payload": result}
        out = labelled.get("structuredContent")
        unit = out.get("unit") if isinstance(out, dict) else None
        self._count("labelled")
        _log.info("guarded tools/call response %s (mutator): labelled%s", turn.tool,
                  f" {unit}" if isinstance(unit, str) else "")
        return {"modified": True, "payload": labelled}


def _end(turn: _Turn | None) -> None:
    if turn is not None and turn.verdict is not None:
        turn.verdict.end()


def _param(field: Any, tool: str) -> str | None:
    """The parameter a violation's field (``runoff_depth.area``) names, or None."""
    if isinstance(field, str) and field.startswith(tool + "."):
        return field[len(tool) + 1:]
    return None


def _shape(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 120 else text[:117] + "..."


# ------------------------------------------------------------------------- a chain executor

class ChainResult(NamedTuple):
    decision: str  # "allow" (the chain completed) or "deny" (it was blocked)
    payload: Any  # the payload after the applied mutations (the original one when denied)
    results: list  # each invocation's result, or {"interceptor", "error"} for a failure
    aborted_at: dict | None  # {interceptor, reason, type} when denied


def _priority(descriptor: dict, phase: str) -> int:
    hint = descriptor.get("priorityHint", 0)
    if isinstance(hint, dict):
        hint = hint.get(phase, 0)
    return hint if isinstance(hint, int) else 0


def execute_chain(descriptors: list, invoke: Callable[[dict], dict], event: str, phase: str,
                  payload: Any, context: dict | None = None) -> ChainResult:
    """Run one lifecycle event through the interceptors ``descriptors`` lists (an
    ``interceptors/list`` result's), calling ``invoke(params)`` (an ``interceptor/invoke``;
    raising on an error answer) for each, in the trust-boundary order: on a request,
    mutations (by ``priorityHint``, then name) then validations; on a response, validations
    then mutations. An ``audit`` interceptor never blocks and its mutation is not applied;
    a validation of severity ``error`` blocks; a failing interceptor blocks unless it is
    ``failOpen``. Mutations apply all or none."""
    hooked = [d for d in descriptors if any(
        h.get("phase") == phase and _matches(tuple(h.get("events") or ()), event, phase)
        for h in d.get("hooks") or ())]
    mutators = sorted((d for d in hooked if d.get("type") == "mutation"),
                      key=lambda d: (_priority(d, phase), d.get("name", "")))
    validators = [d for d in hooked if d.get("type") == "validation"]
    results: list = []
    current = payload

    def run(d: dict, body: Any) -> tuple[dict | None, dict | None]:
        params = {"name": d["name"], "event": event, "phase": phase, "payload": body}
        if context is not None:
            params["context"] = context
        try:
            result = invoke(params)
        except Exception as exc:  # noqa: BLE001 (an error answer or a broken transport)
            results.append({"interceptor": d["name"], "error": str(exc)})
            if d.get("failOpen") is True or d.get("mode") == "audit":
                return None, None
            return None, {"interceptor": d["name"], "reason": str(exc), "type": d.get("type")}
        results.append(result)
        return result, None

    def mutate(body: Any) -> tuple[Any, dict | None]:
        for d in mutators:
            result, abort = run(d, body)
            if abort is not None:
                return payload, abort
            if result is not None and result.get("modified") is True and d.get("mode") != "audit":
                body = result.get("payload")
        return body, None

    def validate(body: Any) -> dict | None:
        for d in validators:
            result, abort = run(d, body)
            if abort is not None:
                return abort
            if result is not None and result.get("valid") is False and \
                    result.get("severity") == "error" and d.get("mode") != "audit":
                messages = result.get("messages") or [{}]
                return {"interceptor": d["name"], "type": "validation",
                        "reason": messages[0].get("message", "invalid")}
        return None

    if phase == "request":
        current, abort = mutate(current)
        if abort is None:
            abort = validate(current)
    else:
        abort = validate(current)
        if abort is None:
            current, abort = mutate(current)
    if abort is not None:
        return ChainResult("deny", payload, results, abort)
    return ChainResult("allow", current, results, None)


# ---------------------------------------------------------------------------- the command

PROG = "quantity-guard-mcp interceptor"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Serve the guard as an MCP interceptor server (SEP-2624) over "
        "stdio, or over Streamable HTTP with --listen: a validator and a mutator for tools/call "
        "from an annotation file.",
        epilog="With --listen, the proxy's HTTP options (--allow-origin, --client-token-env, "
        "--session-header, --max-sessions ...) may follow and apply as they do to the proxy. "
        "Exit status: 0 when the client closed stdin (or on a signal with --listen, 128+N); 2 "
        "usage error; 3 the annotation file does not load; 4 --listen cannot bind.")
    parser.add_argument("--annotations", metavar="FILE", required=True,
                        help="TOML or JSON annotation file naming the guarded tools")
    parser.add_argument("--enforcement", choices=("strict", "warn"), default="strict",
                        help="strict (default): a violation is valid false, severity error; "
                        "warn: severity warn, which blocks nothing")
    parser.add_argument("--listen", metavar="[HOST:]PORT",
                        help="serve Streamable HTTP at /mcp instead of stdio")
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING",
                                                                 "ERROR"),
                        type=str.upper, help="what goes to stderr (one INFO line per guarded "
                        "invocation)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    try:
        opts, rest = parser.parse_known_args(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    if rest and not opts.listen:
        parser.print_usage(sys.stderr)
        sys.stderr.write(f"{PROG}: error: unrecognized arguments: {' '.join(rest)} (the "
                         "proxy's HTTP options go with --listen)\n")
        return 2
    from ..annotations import AnnotationError, load
    try:
        annotations = load(opts.annotations)
    except (OSError, AnnotationError) as exc:
        sys.stderr.write(f"{PROG}: cannot load {opts.annotations}: {exc}\n")
        return 3
    if opts.listen:
        # Streamable HTTP is the proxy's listener (this process becomes the proxy), relaying,
        # unguarded, to this command over stdio: its Origin, Host, token, session and size
        # checks apply unchanged.
        command = [sys.executable, "-m", "quantity_guard.mcp"]
        child = [*command, "interceptor", "--annotations", opts.annotations, "--enforcement",
                 opts.enforcement, "--log-level", opts.log_level]
        sys.stderr.flush()
        os.execv(sys.executable, [*command, "--listen", opts.listen, "--log-level",
                                  opts.log_level, *rest, "--", *child])
    from .logs import configure
    configure(opts.log_level)
    units = UnitsInterceptors(annotations, enforcement=opts.enforcement)
    server = InterceptorServer(units.register(Interceptors()),
                               on_initialize=units.remember_client)
    _log.info("interceptor server: %d annotated tools from %s, enforcement %s; interceptors "
              "%s, %s", len(annotations), opts.annotations, opts.enforcement, VALIDATOR, MUTATOR)
    return serve(_NoTools(), core=server)


if __name__ == "__main__":
    sys.exit(main())
