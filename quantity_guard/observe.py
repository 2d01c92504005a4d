"""What the guard decided, as OpenTelemetry spans and metrics and as ``logging`` records.

Nothing here costs anything until a guarded call runs, and ``import quantity_guard`` imports
neither ``opentelemetry`` nor ``logging``. At the first guarded call the process is looked at
once (``current()``):

- OpenTelemetry is used when ``opentelemetry-api`` is installed (the ``otel`` extra: ``pip
  install ".[otel]"`` from this checkout) and the process already imported it (an SDK set up, an
  auto-instrumentation agent, a framework that traces); ``QUANTITY_GUARD_OTEL=1`` uses it
  whenever it is installed, ``QUANTITY_GUARD_OTEL=0`` never. ``enable()`` turns it on
  explicitly (with a tracer and meter provider of its own, if given), ``disable()`` off, and
  ``refresh()`` looks again at the next call.
- Records go to the ``quantity_guard`` logger: refusals at WARNING (whenever ``logging`` is in
  use in the process; the logger has a ``NullHandler``, so nothing prints unless logging is
  configured), conversions at DEBUG (when the logger was enabled for DEBUG at the first guarded
  call, or since ``refresh()``).

A guarded call is a span named and attributed after the OpenTelemetry semantic conventions for
MCP and GenAI tool execution (``tools/call <tool>``, ``mcp.method.name``,
``gen_ai.operation.name = execute_tool``, ``gen_ai.tool.name``, ``mcp.session.id`` where there
is a session, ``error.type`` on a refusal). Where a framework already opened the tool's
``execute_tool <tool>`` span, the attributes go on that span instead of a second one. The
guard's own findings are named under ``quantity_guard.*`` (the GenAI guardrail conventions are
still a proposal): a ``quantity_guard.conversion`` event per converted value, a
``quantity_guard.refusal`` event per violation (code, field, whether it blocked, the repair
text), and the metrics ``quantity_guard.calls``, ``quantity_guard.refusals``,
``quantity_guard.conversions`` and ``quantity_guard.guard.duration``.

Telemetry carries no secret and no payload unless asked: ``mcp.session.id`` is a digest of the
session id (the id is the client's bearer credential for its session, :func:`session_digest`);
a refusal's repair text, which quotes the values refused and the values of earlier calls, goes
on the span (its status and its ``quantity_guard.refusal.repair`` attribute) and into the
WARNING record only with ``QUANTITY_GUARD_TELEMETRY_PAYLOADS=1`` (the opt-in of the GenAI
conventions' ``gen_ai.tool.call.arguments``); otherwise they name the code and the field.
"""
from __future__ import annotations

import sys
from contextvars import ContextVar
from time import perf_counter

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["current", "enable", "disable", "refresh", "logger", "Observer", "Verdict",
           "LOGGER_NAME", "SCOPE", "session_digest", "payloads"]

LOGGER_NAME = "quantity_guard"
SCOPE = "quantity_guard"  # the instrumentation scope of the tracer and the meter
ENV = "QUANTITY_GUARD_OTEL"
PAYLOADS_ENV = "QUANTITY_GUARD_TELEMETRY_PAYLOADS"

# the kinds of finding a refusal's code is (the rest are the boundary's own checks)
_KINDS = {"unconverted_carry_over": "carry_over", "unsourced_input": "provenance",
          "session_unbound": "session"}

UNRESOLVED: "Any" = object()
_MISSING: "Any" = object()
_state: "Any" = UNRESOLVED           # the Observer, None (nothing to do) or UNRESOLVED
_listeners: "list[Callable[[Any], None]]" = []  # told the new state (hot paths keep a copy)
_forced: "tuple | None" = None        # enable()'s providers, or () for disable()
_logger: "Any" = None
_VERDICT: "ContextVar[Verdict | None]" = ContextVar("quantity_guard_verdict", default=None)


# -- the switch ---------------------------------------------------------------------------------
def current() -> "Observer | None":
    """The observer guarded calls report to, or None (looked up once; see the module doc)."""
    state = _state
    if state is UNRESOLVED:
        state = _resolve()
    return state


def listen(setter: "Callable[[Any], None]") -> "Observer | None":
    """``current()``, and call ``setter`` with the new state whenever it changes (a hot path
    keeps the state in a module global and checks it for None)."""
    if setter not in _listeners:
        _listeners.append(setter)
    return current()


def enable(tracer_provider: "Any" = None, meter_provider: "Any" = None) -> "Observer":
    """Report to OpenTelemetry from now on (the global providers, or the ones given);
    raises ``ImportError`` naming the extra when ``opentelemetry-api`` is not installed."""
    global _forced
    _forced = (tracer_provider, meter_provider)
    observer = _resolve()
    if observer is None or observer.tracer is None:  # pragma: no cover - _resolve raised
        raise ImportError("opentelemetry-api is not installed: pip install opentelemetry-api "
                          "(this project's otel extra)")
    return observer


def disable() -> None:
    """Report to OpenTelemetry no more (refusals are still logged)."""
    global _forced
    _forced = ()
    _resolve()


def refresh() -> None:
    """Look again, at the next guarded call, at whether OpenTelemetry is in use and at the
    ``quantity_guard`` logger's level (after configuring either later than the first call)."""
    global _forced, _state
    _forced = None
    _state = UNRESOLVED
    for setter in _listeners:
        setter(UNRESOLVED)


def _resolve() -> "Observer | None":
    global _state
    forced = _forced
    otel = None
    if forced is None:
        flag = _env_flag()
        if flag is True or (flag is None and "opentelemetry.trace" in sys.modules):
            otel = _import_otel(required=False)
        providers: tuple = (None, None)
    elif forced == ():
        providers = (None, None)
    else:
        otel = _import_otel(required=True)
        providers = forced
    debug = "logging" in sys.modules and logger().isEnabledFor(10)
    state = Observer(otel, *providers, debug=debug) if otel is not None or debug else None
    _state = state
    for setter in _listeners:
        setter(state)
    return state


def _env_flag() -> "bool | None":
    import os
    value = os.environ.get(ENV, "").strip().lower()
    if value in ("1", "true", "on", "yes"):
        return True
    if value in ("0", "false", "off", "no"):
        return False
    return None


def _import_otel(required: bool):
    try:
        from opentelemetry import context, metrics, propagate, trace
    except ImportError:
        if required:
            raise ImportError("quantity_guard.observe.enable() needs opentelemetry-api, which "
                              "is not installed: pip install opentelemetry-api (this "
                              "project's otel extra)") from None
        return None
    return context, metrics, propagate, trace


def logger():
    """The ``quantity_guard`` logger (with a ``NullHandler``: silent until logging is set up)."""
    global _logger
    if _logger is None:
        import logging
        log = logging.getLogger(LOGGER_NAME)
        if not any(isinstance(h, logging.NullHandler) for h in log.handlers):
            log.addHandler(logging.NullHandler())
        _logger = log
    return _logger


def _warn_synchronous_export(provider: "Any") -> bool:
    """Whether spans are exported on the guarded call's own path (a ``SimpleSpanProcessor`` in
    front of an exporter that sends them somewhere), warned about once: a slow or hung
    collector would delay every guarded call by up to the exporter's timeout, so the guard then
    ends its spans on a thread of its own (``_Ender``)."""
    active = getattr(provider, "_active_span_processor", None)
    for processor in getattr(active, "_span_processors", None) or ():
        exporter = type(getattr(processor, "span_exporter", None)).__name__
        if type(processor).__name__ == "SimpleSpanProcessor" and \
                exporter not in ("InMemorySpanExporter", "ConsoleSpanExporter", "NoneType"):
            logger().warning(
                "spans are exported by a SimpleSpanProcessor (%s): the guard ends its spans on "
                "a thread of its own so that a slow collector does not hold guarded calls "
                "(at most %d waiting, the rest dropped); use a BatchSpanProcessor", exporter,
                _Ender.LIMIT)
            return True
    return False


class _Ender:
    """Ends spans on a daemon thread, in order, at most ``LIMIT`` waiting (more are dropped,
    counted in ``dropped``): for a span processor that exports on the caller's path."""

    LIMIT = 1024

    def __init__(self) -> None:
        import queue
        import threading
        self.queue: "Any" = queue.Queue(self.LIMIT)
        self.dropped = 0
        threading.Thread(target=self._run, daemon=True, name="quantity-guard span ender").start()

    def end(self, span: "Any") -> None:
        import queue
        import time
        try:
            self.queue.put_nowait((span, time.time_ns()))
        except queue.Full:
            self.dropped += 1

    def _run(self) -> None:
        while True:
            span, when = self.queue.get()
            try:
                span.end(end_time=when)
            except Exception:
                pass


def payloads() -> bool:
    """Whether telemetry may carry refused payloads (``QUANTITY_GUARD_TELEMETRY_PAYLOADS=1``)."""
    import os
    return os.environ.get(PAYLOADS_ENV, "") == "1"


def session_digest(session_id: str) -> str:
    """What telemetry shows of a session id: 16 hex digits of its SHA-256."""
    import hashlib
    return hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def log_refusal(violation: "Any", tool: "str | None", blocked: bool) -> None:
    """A refusal (or, ``blocked`` False, what warn mode would have refused) at WARNING. Where
    nothing imported ``logging``, nothing configured it either: the record would reach only the
    ``NullHandler``, so ``logging`` is not imported for it."""
    if "logging" not in sys.modules:
        return
    log = logger()
    if log.isEnabledFor(30):
        log.warning("%s %s %s [%s]" + (": %s" if payloads() else "%s"),
                    tool or violation.field or "a tool call",
                    "refused" if blocked else "would refuse (warn)", violation.field or "the call",
                    violation.code, violation.repair() if payloads() else "",
                    extra={"quantity_guard": {"code": violation.code, "field": violation.field,
                                              "tool": tool, "blocked": blocked}})


def verdict() -> "Verdict | None":
    """The verdict of the guarded call being handled in this context, if one is observed."""
    return _VERDICT.get()


def unit_text(value: "Any") -> "str | None":
    unit = getattr(value, "unit", None)
    return getattr(unit, "symbol", None) if unit is not None else None


# -- the observer ---------------------------------------------------------------------------------
class Observer:
    """Opens the span of a guarded call and keeps the instruments (``tracer`` is None when only
    the DEBUG log is on)."""

    def __init__(self, otel: "tuple | None", tracer_provider: "Any" = None,
                 meter_provider: "Any" = None, *, debug: bool = False) -> None:
        self.debug = debug
        self.tracer: "Any" = None
        self.ender: "_Ender | None" = None  # spans ended off the call's path (see _Ender)
        if otel is None:
            return
        from ._version import __version__
        self._context, metrics, self._propagate, self._trace = otel
        self.tracer = self._trace.get_tracer(SCOPE, __version__, tracer_provider)
        meter = metrics.get_meter(SCOPE, __version__, meter_provider=meter_provider)
        self.calls = meter.create_counter(
            "quantity_guard.calls", unit="{call}",
            description="Guarded tool calls, by tool, outcome and where the guard ran")
        self.refusals = meter.create_counter(
            "quantity_guard.refusals", unit="{refusal}",
            description="Violations found, by code (blocked, or only reported in warn mode)")
        self.conversions = meter.create_counter(
            "quantity_guard.conversions", unit="{conversion}",
            description="Values converted by the guard, by unit pair")
        self.duration = meter.create_histogram(
            "quantity_guard.guard.duration", unit="s",
            description="The guard's own time per guarded call (the tool's run excluded)")
        # the global providers stay the API's proxies until an SDK is set: while both are,
        # nothing would be recorded and a call is not reported at all (see live())
        self._given = tracer_provider is not None or meter_provider is not None
        if tracer_provider is not None and _warn_synchronous_export(tracer_provider):
            self.ender = _Ender()
        self._proxy_tracers = self._trace.ProxyTracerProvider
        self._metrics = metrics
        self._internal = self._trace.SpanKind.INTERNAL
        self._server = self._trace.SpanKind.SERVER
        self._error = self._trace.StatusCode.ERROR

    def live(self) -> bool:
        """Whether anything would record a span or a measurement: providers were given to
        ``enable()``, or an SDK replaced either global proxy provider."""
        if self._given:
            return True
        # the API keeps the global providers in module attributes, None until one is set (a
        # provider once set is never unset); get_*_provider() would read os.environ each time
        trace, metrics = self._trace, self._metrics
        tracers = getattr(trace, "_TRACER_PROVIDER", _MISSING)
        meters = getattr(getattr(metrics, "_internal", None), "_METER_PROVIDER", _MISSING)
        if tracers is _MISSING or meters is _MISSING:  # another API layout: its public calls
            live = not isinstance(trace.get_tracer_provider(), self._proxy_tracers) or \
                type(metrics.get_meter_provider()).__name__ != "_ProxyMeterProvider"
        else:
            live = tracers is not None or meters is not None
        if live:
            self._given = True
            if _warn_synchronous_export(trace.get_tracer_provider()):
                self.ender = _Ender()
        return live

    # -- spans ---------------------------------------------------------------------------------
    def start(self, tool: str, *, where: str, kind: str = "internal", parent: "Any" = None,
              attributes: "dict | None" = None, reuse: bool = True) -> "Verdict | None":
        """A verdict for one guarded call, with its span started (not yet current); None when
        nothing would record it (no SDK set up, DEBUG records off)."""
        traced = self.tracer is not None and self.live()
        if not traced and not self.debug:
            return None
        span = None
        owned = True
        if traced:
            if reuse and parent is None:
                here = self._trace.get_current_span()
                # a framework's own span for this tool's execution (GenAI or MCP conventions,
                # e.g. Google ADK's, FastMCP's): the attributes go on it, not on a second span
                if here.is_recording() and getattr(here, "name", None) in (
                        f"execute_tool {tool}", f"tools/call {tool}"):
                    span, owned = here, False
            attrs = {"mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool",
                     "gen_ai.tool.name": tool, "quantity_guard.where": where}
            if attributes:
                attrs.update(attributes)
            if span is None:
                span = self.tracer.start_span(
                    f"tools/call {tool}", context=parent,
                    kind=self._server if kind == "server" else self._internal, attributes=attrs)
            else:
                span.set_attributes(attrs)
        return Verdict(self, span, owned, tool, where, traced)

    def context_from_meta(self, meta: "Any") -> "Any":
        """The OpenTelemetry context a client passed in ``params._meta`` (W3C trace context:
        ``traceparent``, ``tracestate``), or None."""
        if self.tracer is None or not isinstance(meta, dict) or "traceparent" not in meta:
            return None
        carrier = {k: v for k, v in meta.items() if k in ("traceparent", "tracestate", "baggage")
                   and isinstance(v, str)}
        return self._propagate.extract(carrier)

    # -- other records --------------------------------------------------------------------------
    def audited(self, audit: "Any", elapsed: float) -> None:
        """An ``audit_answer`` result: a span of its own (a child of whatever is current)."""
        counts: dict[str, int] = {}
        for f in audit.findings:
            counts[f.status] = counts.get(f.status, 0) + 1
        if self.tracer is not None:
            attrs: dict = {"quantity_guard.audit.ok": audit.ok,
                           "quantity_guard.audit.numbers": len(audit.findings),
                           "quantity_guard.audit.abandoned": len(audit.abandoned)}
            for status, n in counts.items():
                attrs[f"quantity_guard.audit.{status}"] = n
            span = self.tracer.start_span("quantity_guard.audit_answer", attributes=attrs,
                                          start_time=_ns_ago(elapsed))
            for f in audit.findings:
                if f.status in audit.BAD:
                    event = {"quantity_guard.audit.status": f.status}
                    if payloads():  # the figure and the note quote the answer
                        event["quantity_guard.audit.text"] = f.number.text
                        event["quantity_guard.audit.note"] = f.note or ""
                    span.add_event("quantity_guard.audit.finding", event)
            for a in audit.abandoned:
                span.add_event("quantity_guard.audit.abandoned", {
                    "gen_ai.tool.name": a.tool,
                    "quantity_guard.refusal.code": a.violation["code"],
                    "quantity_guard.audit.note": a.note})
            if not audit.ok:
                span.set_status(self._error, "the answer gives up on a refused call it could "
                                "have repeated" if audit.abandoned and not counts.keys() &
                                set(audit.BAD) else "the answer states figures no tool call "
                                "supports")
            span.end()
        if self.debug:
            logger().debug("audit_answer: ok=%s %s", audit.ok, counts)


def _ns_ago(seconds: float) -> int:
    from time import time_ns
    return time_ns() - int(seconds * 1e9)


class Verdict:
    """What the guard found in one call, reported to its span, the metrics and the log."""

    __slots__ = ("observer", "span", "owned", "tool", "where", "violations", "conversions",
                 "elapsed", "_t", "_token", "refused", "ended", "traced")

    def __init__(self, observer: Observer, span: "Any", owned: bool, tool: str, where: str,
                 traced: bool = True) -> None:
        self.observer = observer
        self.traced = traced  # spans and metrics recorded (else only DEBUG records)
        self.span = span
        self.owned = owned
        self.tool = tool
        self.where = where
        self.violations: list = []
        self.conversions = 0
        self.elapsed = 0.0       # the guard's own time, summed over its phases
        self._t = 0.0
        self._token: "Any" = None
        self.refused: "Any" = None  # the violation that blocked the call
        self.ended = False

    # the span (and this verdict) current in this context, for what runs inside the call
    def enter(self) -> None:
        obs = self.observer
        if self.span is not None and self.owned:
            ctx = obs._trace.set_span_in_context(self.span)
            self._token = (obs._context.attach(ctx), _VERDICT.set(self))
        else:
            self._token = (None, _VERDICT.set(self))

    def leave(self) -> None:
        token = self._token
        if token is not None:
            self._token = None
            _VERDICT.reset(token[1])
            if token[0] is not None:
                self.observer._context.detach(token[0])

    # the guard's own time: summed over the stretches between start() and stop()
    def start(self) -> None:
        self._t = perf_counter()

    def stop(self) -> None:
        if self._t:
            self.elapsed += perf_counter() - self._t
            self._t = 0.0

    def run(self, fn: "Callable[..., Any]", *args: "Any") -> "Any":
        """``fn(*args)`` as a stretch of the guard's own work: timed, with this verdict (and
        the span, if this verdict opened it) current while it runs."""
        self.enter()
        self.start()
        try:
            return fn(*args)
        finally:
            self.stop()
            self.leave()

    def set(self, key: str, value: "Any") -> None:
        if self.span is not None and value is not None:
            self.span.set_attribute(key, value)

    def forward_meta(self, meta: "Any") -> "dict | None":
        """The ``params._meta`` to send upstream: the client's, with this span's W3C trace
        context (``traceparent``, ``tracestate``) in place of the client's; None when there is
        no span to continue the trace from."""
        obs = self.observer
        if self.span is None or not self.traced:
            return None
        carrier: dict = {}
        obs._propagate.inject(carrier, context=obs._trace.set_span_in_context(self.span))
        if "traceparent" not in carrier:
            return None
        out = {k: v for k, v in meta.items() if k not in ("traceparent", "tracestate")} \
            if isinstance(meta, dict) else {}
        out.update(carrier)
        return out

    # findings
    def converted(self, parameter: str, source: "Any", target: "Any") -> None:
        """A value the guard converted (``source``/``target``: unit symbols)."""
        if source == target or source is None or target is None:
            return
        self.conversions += 1
        obs = self.observer
        if self.span is not None:
            self.span.add_event("quantity_guard.conversion", {
                "quantity_guard.parameter": parameter, "quantity_guard.unit.from": source,
                "quantity_guard.unit.to": target})
        if self.traced:
            obs.conversions.add(1, {"quantity_guard.unit.from": source,
                                    "quantity_guard.unit.to": target,
                                    "gen_ai.tool.name": self.tool})
        if obs.debug:
            logger().debug("%s converted %s from %s to %s", self.tool, parameter, source, target)

    def accepted(self, parameter: str, accepted: "Any") -> None:
        """An argument the boundary accepted (converted or not)."""
        received = accepted.received
        if received is not None and received is not accepted.value:
            self.converted(parameter, unit_text(received), unit_text(accepted.value))

    def violation(self, violation: "Any", blocked: bool) -> None:
        """A violation found (``blocked``: it refused the call; else warn mode let it pass)."""
        for seen, _ in self.violations:
            if seen is violation:
                return
        self.violations.append((violation, blocked))
        if blocked:
            self.refused = violation
        obs = self.observer
        kind = _KINDS.get(violation.code, "boundary")
        if self.span is not None:
            event = {"quantity_guard.refusal.code": violation.code,
                     "quantity_guard.refusal.field": violation.field or "",
                     "quantity_guard.refusal.kind": kind,
                     "quantity_guard.refusal.blocked": blocked}
            if payloads():
                event["quantity_guard.refusal.repair"] = violation.repair()
            self.span.add_event("quantity_guard.refusal", event)
        if self.traced:
            obs.refusals.add(1, {"quantity_guard.refusal.code": violation.code,
                                 "quantity_guard.refusal.blocked": blocked,
                                 "gen_ai.tool.name": self.tool})

    def result(self, before: "Any", after: "Any") -> None:
        """A result as the tool returned it and as the guard passed it on: a value converted
        to the declared unit, or a bare number labelled with it (a dict's fields likewise)."""
        unit = unit_text(after)
        if unit is not None:
            if unit_text(before) is None:
                self.labelled(unit)
            elif before.unit is not after.unit:
                self.converted("return", unit_text(before), unit)
        elif isinstance(after, dict) and isinstance(before, dict):
            for key, value in after.items():
                unit = unit_text(value)
                old: "Any" = before.get(key)
                if unit is None or old is value:
                    continue
                if unit_text(old) is None:
                    self.labelled(unit, key)
                elif old.unit is not value.unit:
                    self.converted(f"return.{key}", unit_text(old), unit)

    def labelled(self, unit: "str | None", key: "str | None" = None) -> None:
        """A bare result the guard labelled with its unit."""
        if self.span is not None and unit:
            self.span.set_attribute("quantity_guard.result.unit" if key is None else
                                    f"quantity_guard.result.{key}.unit", unit)

    def end(self, outcome: "str | None" = None, failure: "BaseException | None" = None,
            error_type: "str | None" = None) -> None:
        """Close the call: the outcome on the span and in the metrics, the span ended
        (``error_type``: why a call that was not refused failed, e.g. ``upstream_timeout``)."""
        if self.ended:
            return
        self.ended = True
        self.stop()
        if self._token is not None:
            self.leave()
        if outcome is None:
            outcome = "refused" if self.refused is not None else \
                "failed" if failure is not None else \
                "warned" if self.violations else "ok"
        obs = self.observer
        span = self.span
        if span is not None:
            span.set_attribute("quantity_guard.outcome", outcome)
            span.set_attribute("quantity_guard.conversions", self.conversions)
            if self.refused is not None:
                span.set_attribute("error.type", self.refused.code)
                span.set_attribute("quantity_guard.refusal.code", self.refused.code)
                span.set_status(obs._error, self.refused.repair() if payloads() else
                                f"{self.refused.code} ({self.refused.field or 'the call'})")
            elif failure is not None:
                span.set_attribute("error.type", type(failure).__qualname__)
                span.set_status(obs._error, f"{type(failure).__name__}: {failure}" if payloads()
                                else type(failure).__name__)
            elif outcome == "tool_error" or error_type is not None:
                span.set_attribute("error.type", error_type or "tool_error")
                span.set_status(obs._error)
            if self.owned:
                if obs.ender is not None:
                    obs.ender.end(span)
                else:
                    span.end()
        if self.traced:
            attrs = {"gen_ai.tool.name": self.tool, "quantity_guard.outcome": outcome,
                     "quantity_guard.where": self.where}
            obs.calls.add(1, attrs)
            obs.duration.record(self.elapsed, {"gen_ai.tool.name": self.tool,
                                               "quantity_guard.where": self.where})


class _Unobserved:
    """``begin()``'s answer when nothing observes: every step does nothing."""

    __slots__ = ()
    span = None
    ended = True

    def enter(self) -> None: ...
    def leave(self) -> None: ...
    def start(self) -> None: ...
    def stop(self) -> None: ...
    def set(self, key: str, value: "Any") -> None: ...
    def forward_meta(self, meta: "Any") -> None: ...
    def result(self, before: "Any", after: "Any") -> None: ...

    def run(self, fn: "Callable[..., Any]", *args: "Any") -> "Any":
        return fn(*args)

    def violation(self, violation: "Any", blocked: bool) -> None: ...
    def end(self, outcome: "str | None" = None, failure: "BaseException | None" = None,
            error_type: "str | None" = None) -> None: ...


UNOBSERVED: "Any" = _Unobserved()


def begin(tool: str, *, where: str, kind: str = "internal", meta: "Any" = None,
          attributes: "dict | None" = None, enter: bool = True) -> "Any":
    """The verdict of a guarded call handled outside ``@quantity_tool`` (the proxy, a gateway
    plug-in, a FastMCP transform), made current in this context (``enter()``; ``enter=False``
    for a caller that handles the request and its answer in different contexts, such as the
    proxy: it makes the verdict current with ``run()``), or ``UNOBSERVED``. ``meta``: the
    request's ``params._meta``, whose W3C trace context (if any) the span continues. Between ``start()`` and ``stop()`` the guard's own time is counted;
    ``end()`` closes it."""
    obs = current()
    if obs is None:
        return UNOBSERVED
    verdict = obs.start(tool, where=where, kind=kind, parent=obs.context_from_meta(meta),
                        attributes=attributes)
    if verdict is None:
        return UNOBSERVED
    if enter:
        verdict.enter()
    return verdict
