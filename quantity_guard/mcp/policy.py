"""The quantity policy behind ``quantity-guard-mcp``: annotations applied to a live server.

- ``advertise``: an annotated parameter accepts a number (read in the declared unit), a string
  such as ``"1250 cfs"`` or ``{"value", "unit"}``, and carries ``x-unit``/``x-datum``/``x-crs``/
  ``x-tz``/``x-quality`` and the unit in words in its description. ``required`` and ``default``
  stay as the upstream declared them; a parameter the upstream types ``integer`` keeps saying
  so (the bare-number form is ``{"type": "integer"}``). An ``outputSchema`` the upstream
  declared is extended in place (``x-unit`` keys on the labelled property, same shape); where
  the upstream declared none, none is added. Nothing else about a tool changes.
- ``check_call``: arguments to annotated parameters are validated and converted into the unit
  the upstream expects (``"1250 cfs"`` arrives as ``35.39605824``); a violation is answered as an
  ``isError`` tool result with the repair text, and nothing goes upstream. An argument the
  client omitted (or sent as ``null``) is forwarded as it was: the upstream decides. Where the
  upstream's schema says ``integer``, an integral converted value goes as a JSON integer and a
  fractional one is refused with what to send. The ledger's carry-over and sourced checks run
  across the client session exactly as in the library.
- ``label_result``: a bare numeric result of an annotated tool comes back labelled
  ``{"value": 1250.0, "unit": "cfs"}`` in the text; in ``structuredContent`` too when the
  upstream declared no output schema (otherwise its ``structuredContent`` is passed unchanged,
  so that it still satisfies the schema, whose ``x-unit`` now names the unit). A result that is
  not a number (prose, a boolean, a tuple) passes unchanged.

Memory: the ledger resets per client session and is bounded (``MAX_ENTRIES`` recorded
quantities, the last ``MAX_CALLS`` call records); of past sessions the last ``MAX_SESSIONS``
summaries are kept; counters of every call and session are kept for the manifest.
"""
from __future__ import annotations

import contextlib
import copy
import json
import math
import threading
from collections import deque
from datetime import datetime, timezone

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # annotations only: they are never evaluated at run time
    from typing import Any, Callable, Iterator

from ..annotations import load
from ..numeric import fmt_g
from ..errors import VIOLATION_META, GuardViolation, InvalidArguments, StoreUnavailable
from ..observe import log_refusal, verdict as _verdict
from ..ledger import Ledger
from ..quantity import Q
from ..spec import Spec
from ..tool import guard_arguments, tool_error, tool_result, value_json
from .gateway import MAX_CALLS, MAX_ENTRIES  # the bounds of one conversation's ledger
from .guard import Decision, fold_name
from .jsonrpc import type_name as _json_type

__all__ = ["build_policy", "QuantityPolicy", "CatalogueReport"]

MAX_SESSIONS = 8      # past client sessions whose ledgers the manifest keeps
_INFLIGHT_KEPT = 1_024  # forwarded calls remembered until their result is labelled
UNITS_META = "io.github.quantity-guard/units"
_RANGES = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def _utc_now() -> str:
    """The time of a log record: ISO 8601 in UTC, to the millisecond ('2026-12-07T18:32:47.123Z')."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


LOG_MAX_BYTES = 64 << 20
"""``--log-max-bytes``' default: the log is rotated before it would pass 64 MiB."""
LOG_BACKUPS = 4
"""``--log-backups``' default: rotated logs kept (``FILE.1`` newest ... ``FILE.4``)."""


def build_policy(annotations_path: str, *, enforcement: str = "strict", log_path: str | None = None,
                 manifest_path: str | None = None, log_max_bytes: int = LOG_MAX_BYTES,
                 log_backups: int = LOG_BACKUPS) -> "QuantityPolicy":
    return QuantityPolicy(load(annotations_path), enforcement=enforcement, log_path=log_path,
                          manifest_path=manifest_path, log_max_bytes=log_max_bytes,
                          log_backups=log_backups)


class _ToolRef:
    """What the ledger records a call against."""

    __slots__ = ("name", "enforcement", "params", "returns")

    def __init__(self, name: str, enforcement: str, params=None, returns=None) -> None:
        self.name, self.enforcement = name, enforcement
        self.params, self.returns = params, returns


class QuantityPolicy:
    def __init__(self, annotations, *, enforcement: str = "strict", log_path: str | None = None,
                 manifest_path: str | None = None, max_entries: int = MAX_ENTRIES,
                 max_calls: int = MAX_CALLS, max_sessions: int = MAX_SESSIONS,
                 log_max_bytes: int = LOG_MAX_BYTES, log_backups: int = LOG_BACKUPS) -> None:
        if enforcement not in ("strict", "warn"):
            raise ValueError(f"enforcement must be strict or warn, not {enforcement!r}")
        self.annotations = annotations
        self.enforcement = enforcement
        self.log_path = log_path
        self.manifest_path = manifest_path
        self.max_entries = max_entries
        self.max_calls = max_calls
        self._ledger = Ledger(max_entries=max_entries, max_calls=max_calls)
        self.sessions: deque[dict] = deque(maxlen=max_sessions)  # the latest past sessions
        self.session_count = 1  # client sessions seen (the current one included)
        self.call_count = 0  # guarded calls over every session
        self._ended_calls = 0  # calls in sessions already ended
        self._log = LogFile.acquire(log_path, log_max_bytes, log_backups) if log_path else None
        self.write_empty_manifest = True  # False: no manifest when no guarded call was made
        self.on_close: "Callable[[], None] | None" = None  # called once close() is done
        self._lock = threading.Lock()
        self._refs = {name: _ToolRef(name, enforcement, ann.params, ann.returns)
                      for name, ann in annotations.items()}
        self._names: tuple = tuple(annotations)
        self._array_params: set[tuple[str, str]] = set()  # upstream parameters that take lists
        # what the upstream's listing declared, per guarded tool: see _Listed
        self._listed: dict[str, _Listed] = {}
        self._bound: "Ledger | None" = None  # a conversation's ledger (see use_ledger)
        self._inflight: dict[int, tuple[dict, object]] = {}  # id(forwarded) -> (forwarded, call)
        # per guarded tool, what check_call needs, worked out once per listing (see _Plan); shared
        # with the policies that share the listing, and cleared whenever a listing changes it
        self._plans: dict[str, _Plan] = {}
        # labelled results not yet recorded in the ledger: (tool, forwarded arguments, value);
        # recorded by settle(), after the labelled answer was sent
        self._later: list[tuple[str, dict, object]] = []
        # annotation problems already warned about (see catalogue_seen), shared with the
        # policies that share the listing
        self._warned: set[str] = set()

    @property
    def ledger(self) -> Ledger:
        """The current client session's ledger (every labelled result recorded)."""
        if self._later:
            self.settle()
        return self._ledger

    def settle(self) -> None:
        """Record in the ledger the results labelled since the last call (the guard calls this
        once the labelled answers are written, so the bookkeeping is off the answer's path).
        Every method that reads or changes the ledger settles first, so the ledger sees the
        same calls in the same order either way."""
        later = self._later
        if not later:
            return
        self._later = []
        with self._lock:
            for tool_name, arguments, out in later:
                call = self._call_for(tool_name, arguments)
                if call is not None:
                    call.finish_with(out)
        if self._log is not None:
            for tool_name, arguments, out in later:
                self._write_log("result", tool_name, arguments, result=value_json(out))

    def share_listing(self, other: "QuantityPolicy") -> None:
        """Use ``other``'s record of what the upstream's listing declared (integer and list
        parameters, required ones, output schemas) instead of a record of this policy's own.
        For several client sessions of one upstream (``--listen``): a 2026-07-28 client may
        list the tools on one connection and call them on another, and the call must still
        be converted for the upstream's declared types (an integer goes as a JSON integer)."""
        self._listed = other._listed
        self._warned = other._warned
        self._array_params = other._array_params
        self._plans = other._plans

    # -- the Policy protocol ---------------------------------------------------------------
    def guards(self, tool_name: str) -> bool:
        return tool_name in self.annotations

    def guarded_names(self) -> tuple:
        """The guarded tools' names (the guard refuses calls of names that fold to one)."""
        names = self._names
        if len(names) != len(self.annotations):
            names = self._names = tuple(self.annotations)
        return names

    def use_ledger(self, ledger: Ledger) -> None:
        """Record the next calls in ``ledger``, a conversation's (``--listen`` hands each
        request's policy the ledger of the request's conversation, see ``mcp/identity.py``;
        with ``--store`` the ledger is shared by every replica). A new client session then
        keeps it (``reset``)."""
        if self._later:
            self.settle()
        self._bound = ledger
        self._ledger = ledger

    def conversation(self) -> Ledger:
        """The conversation the next call belongs to (its ledger), as a token for
        :meth:`in_conversation`: a task's result arrives later, maybe after another
        conversation's call (``mcp/tasks.py``)."""
        return self._ledger

    @contextlib.contextmanager
    def in_conversation(self, token: Ledger) -> Iterator[None]:
        """Label (and settle) inside ``token``'s conversation, then return to the current one."""
        if self._later:
            self.settle()
        current = self._ledger
        self._ledger = token
        try:
            yield
        finally:
            if self._later:
                self.settle()
            self._ledger = current

    @property
    def _stored(self) -> bool:
        """The current ledger is a shared store's: each call is written before its answer."""
        return self._ledger.store is not None

    def reset(self) -> None:
        if self._later:
            self.settle()
        with self._lock:
            if self._bound is not None:  # the conversation's ledger, not this session's
                self._ledger = self._bound
                return
            if self._ledger.call_count:
                self.sessions.append(self._ledger.manifest())
                self._ended_calls += self._ledger.call_count
                self.session_count += 1
            self._ledger = Ledger(max_entries=self.max_entries, max_calls=self.max_calls)
            self._inflight.clear()  # (their records belong to the ledger just set aside)

    def advertise(self, tool: dict) -> dict:
        name = tool.get("name")
        ann = self.annotations[name]
        schema = tool.get("inputSchema")
        units: dict = {}
        listed = _Listed()
        if isinstance(schema, dict) and isinstance(schema.get("properties"), dict):
            props = schema["properties"]
            required = schema.get("required")
            listed.required = frozenset(r for r in required if isinstance(r, str)) \
                if isinstance(required, list) else frozenset()
            listed.properties = frozenset(p for p in props if isinstance(p, str))
            for pname, spec in ann.params.items():
                if pname in props and isinstance(props[pname], dict):
                    if _takes_array(props[pname]) and isinstance(name, str):
                        self._array_params.add((name, pname))
                    integer = _takes_integer(props[pname])
                    if integer:
                        listed.integers.add(pname)
                    merged = _merge_param(props[pname], spec, integer=integer)
                    if _HEADER_KEY in props[pname]:
                        merged = _header_mapped(props[pname], merged)
                    props[pname] = merged
                    units[pname] = spec.unit_text or f"timestamp in {spec.tz_text}"
        output = tool.get("outputSchema")
        listed.output_schema = isinstance(output, dict)
        if ann.returns is not None:
            if isinstance(ann.returns, Spec):
                words = ann.returns.words()
                units["return"] = ann.returns.unit_text
                if isinstance(output, dict):
                    _label_output_schema(output, None, ann.returns)
            else:
                words = "; ".join(f"{k} in {s.words()}" for k, s in ann.returns.items())
                units.update({f"return.{k}": s.unit_text for k, s in ann.returns.items()})
                if isinstance(output, dict):
                    for k, s in ann.returns.items():
                        _label_output_schema(output, k, s)
            tool["description"] = _join(tool.get("description"), f"Returns {words}.")
        if units:  # for clients that drop x-* keys from schemas (SDK 2.x keeps Tool._meta)
            meta = tool.get("_meta")
            if not isinstance(meta, dict):
                meta = {}
            tool["_meta"] = {**meta, UNITS_META: units}
        if ann.description:
            tool["description"] = _join(tool.get("description"), ann.description)
        if isinstance(name, str):
            with self._lock:
                self._listed[name] = listed
                self._plans.clear()  # integer and list parameters may have changed
        return tool

    def check_call(self, tool_name: str, arguments: dict) -> Decision:
        if self._later:
            self.settle()
        ann = self.annotations[tool_name]
        if not isinstance(arguments, dict):
            return Decision.refuse(tool_error(
                f"{tool_name}: the arguments must be a JSON object of named parameters, not "
                f"{_json_type(arguments)}", code="invalid_arguments", field=tool_name))
        plan = self._plans.get(tool_name)
        if plan is None:
            plan = self._plan(tool_name, ann)
        # Only values the client sent are checked: an omitted (or null) argument is forwarded
        # as it came and the upstream applies its own default, unless the upstream's listing
        # says the parameter is required (then the repair text says what to send).
        params, steps = plan.specs, plan.steps
        required = plan.required
        for step in steps:
            pname = step[0]
            if arguments.get(pname) is None and (pname not in required or pname in arguments):
                params = {p: s for p, s in plan.specs.items() if arguments.get(p) is not None
                          or (p in required and p not in arguments)}
                steps = tuple(t for t in steps if t[0] in params)
                break
        with self._lock:
            self.call_count += 1
            # the record keeps the guarded parameters only: other arguments (a key, a
            # password, a document) are none of the ledger's business and must not reach a file
            try:
                call = self._ledger.begin_call(plan.ref, {p: arguments[p] for p in plan.specs if p in arguments})
            except StoreUnavailable as exc:  # the conversation's history cannot be read
                unread: "StoreUnavailable | None" = exc
            else:
                unread = None
        if unread is not None:
            self._write_log("violation", tool_name, arguments, violation=unread)
            return Decision.refuse(tool_error(unread.repair(), unread))
        with self._lock:
            coerced = dict(arguments)
            try:
                if plan.folded:
                    for key in arguments:
                        if key not in plan.specs and key not in plan.own:
                            self._near_parameter(call, plan, tool_name, key)
                # A list for a one-value parameter: refused on its shape, before anything is
                # built from it (a series of values needs numpy; the refusal must not).
                for pname, spec, takes_array, _ in steps:
                    if takes_array:
                        continue
                    raw = arguments.get(pname)
                    if raw.__class__ is dict:
                        raw = raw.get("value")
                    if raw.__class__ is list:
                        self._one_value_only(call, spec, len(raw))
                verdict = _verdict()  # an observed call's (quantity_guard.observe)
                guard_arguments(params, coerced, enforcement=self.enforcement, call=call,
                                verdict=verdict)
                for pname, spec, takes_array, _ in steps:  # a series read from any other form
                    value = coerced.get(pname)
                    if value.__class__ is Q and not takes_array and value.is_series:
                        self._one_value_only(call, spec, len(value))
                warned = {v["field"] for v in call.violations} if call.violations else ()
                forwarded = dict(arguments)
                for pname, spec, _, integer in steps:
                    if pname in coerced and pname in arguments:
                        # warn: a value that violated goes on as the model sent it
                        if spec.field in warned:
                            forwarded[pname] = arguments[pname]
                            continue
                        try:
                            forwarded[pname] = _wire(coerced[pname], arguments[pname], integer)
                        except InvalidArguments as exc:
                            violation = exc.at(spec.field) if exc.field is None else exc
                            blocked = self.enforcement == "strict"
                            call.record_violation(violation, blocked=blocked)
                            if blocked:
                                call.finish(ok=False)
                                raise violation from None
                            log_refusal(violation, tool_name, False)
                            forwarded[pname] = arguments[pname]
                if ann.returns is None and self._stored:
                    call.finish(ok=True)  # no answer of this tool is labelled: recorded now
            except GuardViolation as exc:
                refused: "GuardViolation | None" = exc
            else:
                refused = None
                if ann.returns is not None:  # which call record these arguments belong to
                    inflight = self._inflight
                    inflight[id(forwarded)] = (forwarded, call)
                    if len(inflight) > _INFLIGHT_KEPT:  # answers never labelled
                        del inflight[next(iter(inflight))]
        if refused is not None:  # (logged outside the lock, which the log takes)
            if refused.code == "unsourced_input":
                refused = _unsourced_in_proxy(refused)
            self._write_log("violation", tool_name, arguments, violation=refused)
            log_refusal(refused, tool_name, True)
            verdict = _verdict()
            if verdict is not None:
                verdict.violation(refused, True)
            result = tool_error(refused.repair())
            result["_meta"] = {VIOLATION_META: {"code": refused.code, "field": refused.field}}
            return Decision.refuse(result)
        if self._log is not None:
            self._write_log("call", tool_name, arguments, forwarded=forwarded,
                            warnings=list(call.violations))
        return Decision("forward", forwarded)

    def _plan(self, tool_name: str, ann: "Any") -> "_Plan":
        """What check_call needs to know about a tool, from its annotations and the upstream's
        latest listing (kept until a listing changes it)."""
        listed = self._listed.get(tool_name)
        integers = listed.integers if listed is not None else ()
        plan = _Plan()
        plan.ref = self._refs[tool_name]
        plan.specs = dict(ann.params)
        plan.required = listed.required if listed is not None else frozenset()
        plan.own = listed.properties if listed is not None else frozenset()
        plan.folded = {fold_name(p): p for p in ann.params}
        plan.steps = tuple((pname, spec, (tool_name, pname) in self._array_params,
                            pname in integers) for pname, spec in ann.params.items())
        with self._lock:
            self._plans[tool_name] = plan
        return plan

    def _near_parameter(self, call, plan: "_Plan", tool_name: str, key: str) -> None:
        """An argument that is not a guarded parameter but folds to one (``DISCHARGE``,
        ``"discharge "``): an upstream that ignores case or spaces would read it unconverted."""
        near = plan.folded.get(fold_name(key))
        if near is None or near == key:
            return
        spec = plan.specs[near]
        violation = InvalidArguments(
            f"received the argument {key!r}, which is not the unit-guarded parameter {near!r} "
            f"but may be read as it by a server that ignores case or spaces; it was not checked "
            f"or converted", field=spec.field,
            suggestion=f"send the value as {near!r}, spelled exactly so, and no other spelling of it")
        blocked = self.enforcement == "strict"
        call.record_violation(violation, blocked=blocked)
        if blocked:
            call.finish(ok=False)
            raise violation

    @staticmethod
    def _one_value_only(call, spec, count: int) -> None:
        violation = InvalidArguments(
            f"received a series of {count} values, but this tool takes one value here",
            field=spec.field, suggestion=f"one value: {spec._example()}")
        call.record_violation(violation, blocked=True)
        call.finish(ok=False)
        raise violation

    def label_result(self, tool_name: str, arguments: dict, result: dict) -> dict:
        if self._later:
            self.settle()
        ann = self.annotations[tool_name]
        if ann.returns is None or result.get("isError") is True:
            return result
        value = _result_value(result, ann.returns)
        if value is None:
            self._shape_mismatch(tool_name, arguments, result, ann.returns)
            return result
        out: "Q | dict[str, Any]"
        try:
            if isinstance(ann.returns, Spec):
                out = ann.returns.convert_result(value)
            else:
                out, found = _label_fields(value, ann.returns)
                if not found:
                    self._shape_mismatch(tool_name, arguments, result, ann.returns)
                    return result
        except (GuardViolation, KeyError, TypeError) as exc:
            # The result does not match what the annotations declare (e.g. "86.4 m3/s" for a
            # tool declared to return mm/day). It goes on as the upstream sent it, unlabelled,
            # in both modes; the violation is recorded against the call (ledger, manifest,
            # enforcement report) and in the log, as the library records it.
            violation = exc if isinstance(exc, GuardViolation) else InvalidArguments(
                f"{tool_name} returned {value!r}, which does not match its declared result "
                f"({exc!r})", field=f"{tool_name}.return")
            with self._lock:
                call = self._call_for(tool_name, arguments)
                if call is not None:
                    call.record_violation(violation, blocked=False)
                    call.finish(ok=True)
            self._write_log("violation", tool_name, arguments, violation=violation,
                            where="result", forwarded="unlabelled, as the upstream sent it")
            log_refusal(violation, tool_name, False)
            verdict = _verdict()
            if verdict is not None:
                verdict.violation(violation, False)
            return result
        # recorded in the ledger by settle(), once the labelled answer is on its way; with a
        # shared store, before it is released (fail closed: an unrecorded answer is not sent)
        self._later.append((tool_name, arguments, out))
        if self._stored:
            try:
                self.settle()
            except StoreUnavailable as exc:
                self._write_log("violation", tool_name, arguments, violation=exc, where="result")
                return tool_error(exc.repair(), exc)
        verdict = _verdict()
        if verdict is not None:
            verdict.result(value, out)
        labelled = tool_result(out)
        listed = self._listed.get(tool_name)
        if "structuredContent" in result and (listed is None or listed.output_schema):
            # the upstream's structured result must still satisfy the upstream's own schema:
            # same shape and numbers; the advertised schema's x-unit keys name the unit
            labelled["structuredContent"] = result["structuredContent"]
        elif "structuredContent" not in labelled and "structuredContent" in result:
            labelled["structuredContent"] = result["structuredContent"]
        for key, val in result.items():  # keep _meta and anything else the server sent
            if key not in ("content", "structuredContent", "isError"):
                labelled[key] = val
        return labelled

    def _shape_mismatch(self, tool_name: str, arguments, result: dict, returns) -> None:
        """A result that cannot be labelled as declared (fields declared, a bare number or
        prose arrived; one value declared, an object arrived): passed on as the upstream sent
        it, recorded against the call as ``result_shape_mismatch`` (counted in the ledger and
        the metrics every time) and logged at WARNING once per tool."""
        from ..errors import ResultShapeMismatch
        arrived = _arrived(result)
        if isinstance(returns, Spec):
            declared = "one value (returns = { unit = ... })"
            fix = ("declare the result's fields instead (returns = { <field> = { unit = ... } }, "
                   "a path such as \"items[].value\" for nested ones), or remove returns")
        else:
            declared = f"the fields {sorted(returns)}"
            fix = ("declare the fields the result has (paths such as \"items[].value\" for "
                   "nested ones), or returns = { unit = ... } for a bare number")
        violation = ResultShapeMismatch(
            f"{tool_name} is declared to return {declared}, but its result arrived as {arrived}; "
            f"it was passed on unlabelled, as the upstream sent it",
            field=f"{tool_name}.return", suggestion=fix)
        with self._lock:
            call = self._call_for(tool_name, arguments)
            if call is not None:
                call.record_violation(violation, blocked=False)
                call.finish(ok=True)
            first = f"result-shape:{tool_name}" not in self._warned
            self._warned.add(f"result-shape:{tool_name}")
        verdict = _verdict()
        if verdict is not None:
            verdict.violation(violation, False)
        if first:
            import logging
            path = getattr(self.annotations, "path", "<annotations>")
            logging.getLogger("quantity_guard.mcp").warning(
                "%s: tools.%s.returns: %s; fix: %s (reported once per tool; every such result "
                "is counted as %s)", path, tool_name, violation.message, fix, violation.code,
                extra={"quantity_guard": {"code": violation.code, "field": violation.field,
                                          "tool": tool_name, "blocked": False}})
        self._write_log("violation", tool_name, arguments, violation=violation, where="result",
                        forwarded="unlabelled, as the upstream sent it")

    def _call_for(self, tool_name: str, arguments=None):
        """The call record a result belongs to: the guard hands back the very arguments object
        ``check_call`` returned, so concurrent calls of one tool are told apart; failing that,
        the newest unfinished call of the tool."""
        if arguments is not None:
            found = self._inflight.pop(id(arguments), None)
            if found is not None and found[0] is arguments:
                return found[1]
        for call in reversed(self._ledger.calls):
            if call.tool == tool_name and call.ok is None:
                return call
        return None

    # -- command line extras ------------------------------------------------------------------
    def catalogue_seen(self, tools: list[dict]) -> list[str]:
        """Warnings for annotations the upstream's listing does not match (a tool it does not
        list, a parameter its tool does not have): such a declaration guards nothing. Each
        problem is warned about once (stderr, through the caller, and ``--log``)."""
        out = []
        if "summary" not in self._warned:
            self._warned.add("summary")
            out.append(f"{getattr(self.annotations, 'path', '<annotations>')}: "
                       f"{self.summary(tools)}")
        problems = [(t, p) for t, p in self._catalogue_problems(tools) if p not in self._warned]
        if not problems:
            return out
        self._warned.update(p for _, p in problems)
        path = getattr(self.annotations, "path", "<annotations>")
        for tool, problem in problems:
            text = (f"warning: {path}: {problem}; this declaration guards nothing (fix the "
                    f"annotation file, or run with --strict-annotations to refuse to start)")
            out.append(text)
            self._write_log("annotation_warning", tool, None, warning=text)
        return out

    def summary(self, tools: list[dict]) -> str:
        """What the annotations guard on this listing, in one line: ``guarding 3 parameters
        and 2 results on 2 of 5 tools`` (declarations the listing does not match left out)."""
        listed: "dict[Any, dict]" = {t.get("name"): t for t in tools if isinstance(t, dict)}
        params = results = on = 0
        for name, ann in self.annotations.items():
            tool = listed.get(name)
            if tool is None:
                continue
            props = _properties(tool.get("inputSchema"))
            n = sum(1 for p in ann.params if p in props)
            m = 0 if ann.returns is None else 1 if isinstance(ann.returns, Spec) else sum(
                1 for k in ann.returns if not isinstance(tool.get("outputSchema"), dict)
                or _schema_at(tool["outputSchema"], k) is not None)
            params, results, on = params + n, results + m, on + (1 if n or m else 0)
        return (f"guarding {params} parameter{'s' * (params != 1)} and {results} "
                f"result{'s' * (results != 1)} on {on} of {len(listed)} tool"
                f"{'s' * (len(listed) != 1)}")

    def _catalogue_problems(self, tools: list[dict]) -> "list[tuple[str, str]]":
        """(tool, problem) for each declaration the listing does not match."""
        listed: "dict[Any, dict]" = {t.get("name"): t for t in tools if isinstance(t, dict)}
        problems = []
        for name, ann in self.annotations.items():
            if not ann.params and ann.returns is None:
                problems.append((name, f"tools.{name}: declares no parameter and no result, so "
                                 f"it guards nothing: declare params or returns, or remove it"))
            tool = listed.get(name)
            if tool is None:
                close = _close_names(name, listed)
                problems.append((name, f"tools.{name}: the server has no tool {name!r}"
                                 + (f" (did you mean {close}?)" if close else
                                    f" (it lists {_some(listed)})")))
                continue
            schema = tool.get("inputSchema")
            props = schema.get("properties") if isinstance(schema, dict) else None
            if not isinstance(props, dict):
                props = {}
            for pname, spec in ann.params.items():
                if pname not in props:
                    close = _close_names(pname, props)
                    problems.append((name, f"tools.{name}.params.{pname}: {name} has no "
                                     f"parameter {pname!r} ("
                                     + (f"did you mean {close}? " if close else "")
                                     + f"it has {sorted(props)})"))
                elif isinstance(props[pname], dict):
                    problem = _schema_mismatch(spec, props[pname], f"{name} types {pname}") \
                        or _tz_problem(spec, props[pname], pname, tool.get("description"))
                    if problem:
                        problems.append((name, f"tools.{name}.params.{pname}: {problem}"))
            problems.extend((name, p) for p in _result_mismatches(name, ann.returns,
                                                                  tool.get("outputSchema")))
        return problems

    def check_catalogue(self, tools: list[dict]) -> "CatalogueReport":
        listed: "dict[Any, dict]" = {t.get("name"): t for t in tools if isinstance(t, dict)}
        problems = [p for _, p in self._catalogue_problems(tools)]
        lines = []
        for name, ann in self.annotations.items():
            tool = listed.get(name)
            if tool is None:
                continue
            declared = ", ".join(f"{p} [{_shown(s)}]" for p, s in ann.params.items())
            ret = ""
            if isinstance(ann.returns, Spec):
                ret = f" -> {_shown(ann.returns)}"
            elif ann.returns:
                ret = " -> {" + ", ".join(f"{k} [{_shown(s)}]" for k, s in ann.returns.items()) + "}"
            lines.append(f"guarded   {name}({declared}){ret}")
        for name in sorted(set(listed) - set(self.annotations)):
            lines.append(f"untouched {name}")
        lines.append(self.summary(tools))
        return CatalogueReport(problems, lines)

    def enforcement_report(self) -> str:
        """The current client session's enforcement report (see ``Ledger.enforcement_report``):
        violations of arguments and of results, grouped by code."""
        if self._later:
            self.settle()
        with self._lock:
            return self._ledger.enforcement_report()

    def counts(self) -> dict:
        """How many client sessions and guarded calls there were, and how many are kept."""
        if self._later:
            self.settle()
        kept = len(self.sessions) + (1 if self._ledger.call_count else 0)
        return {"session_count": self.session_count, "call_count": self.call_count,
                "sessions_kept": kept,
                "calls_kept": sum(len(s["calls"]) for s in self.sessions) + len(self._ledger.calls)}

    def close(self) -> None:
        if self._later:
            self.settle()
        if self.enforcement == "warn":
            try:
                self._warn_summary()
            except Exception as exc:  # (a shared store gone) the manifest is still written
                import logging
                logging.getLogger("quantity_guard.mcp").warning(
                    "the warn-mode summary could not be made: %r", exc)
        if self.manifest_path and (self.write_empty_manifest or self.call_count):
            with self._lock:
                sessions = list(self.sessions) + (
                    [self._ledger.manifest()] if self._ledger.call_count else [])
                counts = self.counts()
            data = {"format": "quantity-guard-proxy-manifest", "version": 1,
                    "enforcement": self.enforcement, **counts,
                    "max_sessions_kept": self.sessions.maxlen, "max_calls_kept": self.max_calls,
                    "sessions": sessions}
            try:
                if self.manifest_path:
                    _write_atomically(self.manifest_path, json.dumps(data, indent=1))
            finally:
                if self._log is not None:
                    self._log.close()
                    self._log = None
                if self.on_close is not None:
                    done, self.on_close = self.on_close, None
                    done()
        if self._log is not None:
            self._log.close()
            self._log = None
        if self.on_close is not None:
            done, self.on_close = self.on_close, None
            done()

    def _warn_summary(self) -> None:
        """Warn mode refuses nothing: what it would have refused, logged (WARNING, logger
        ``quantity_guard.mcp``) once the policy is closed."""
        with self._lock:
            ledgers = list(self.sessions) + [self._ledger.manifest()]
        refused = 0
        codes: dict[str, int] = {}
        for data in ledgers:
            refused += len({v["call"] for v in data["violations"] if v.get("call") is not None})
            for v in data["violations"]:
                codes[v["code"]] = codes.get(v["code"], 0) + 1
        calls = self.call_count
        if not calls:
            return
        import logging
        log = logging.getLogger("quantity_guard.mcp")
        if not codes:
            log.warning("warn mode: none of the %d guarded call(s) would have been refused", calls)
            return
        found = ", ".join(f"{n}x {code}" for code, n in sorted(codes.items(),
                                                                key=lambda kv: (-kv[1], kv[0])))
        log.warning("warn mode: %d of %d guarded call(s) would have been refused (%s); nothing was "
                    "refused", refused, calls, found)

    def _write_log(self, kind: str, tool: str, arguments, **extra) -> None:
        if self._log is None:
            return
        guarded = self.annotations[tool].params if tool in self.annotations else {}
        shown = _guarded_only(arguments, guarded)
        record = {"time": _utc_now(), "event": kind, "tool": tool, "arguments": shown}
        if isinstance(extra.get("forwarded"), dict):
            extra["forwarded"] = _guarded_only(extra["forwarded"], guarded)
        if isinstance(arguments, dict) and len(shown) != len(arguments):
            record["other_arguments"] = sorted(k for k in arguments if k not in guarded)
        violation = extra.pop("violation", None)
        if violation is not None:
            record["violation"] = violation.as_dict()
        record.update(extra)
        self._log.write(json.dumps(record, default=str) + "\n")


def _guarded_only(arguments, guarded) -> dict:
    """The guarded parameters of ``arguments`` (what a log may hold), not the rest."""
    if not isinstance(arguments, dict):
        return {}
    return {k: v for k, v in arguments.items() if k in guarded}


class LogFile:
    """``--log FILE``: JSON lines appended, the file readable by its owner only (0600; an
    existing file is made so too). Before a record would take it past ``max_bytes`` (0: never)
    it is rotated: ``FILE.1`` becomes ``FILE.2`` and so on up to ``FILE.<backups>`` (the oldest
    beyond that is deleted), ``FILE`` becomes ``FILE.1`` and a new ``FILE`` is begun, so the log
    takes at most ``(backups + 1) * max_bytes`` bytes (a record larger than ``max_bytes`` is
    written whole, alone in its file). A record is never split between two files.

    One object per file and process, shared by the policies that log to it (``--listen``: one
    per session) through :meth:`acquire` and :meth:`close`, so that they rotate it together.
    Several processes must not share one log file (their rotations would race)."""

    _open: "dict[str, LogFile]" = {}
    _registry = threading.Lock()

    def __init__(self, path: str, max_bytes: int, backups: int) -> None:
        self.path, self.max_bytes, self.backups = path, max_bytes, backups
        self.users = 0
        self.lock = threading.Lock()
        self.fd = self._open_file()
        import os
        self.size = os.fstat(self.fd).st_size

    @classmethod
    def acquire(cls, path: str, max_bytes: int = LOG_MAX_BYTES, backups: int = LOG_BACKUPS) -> "LogFile":
        import os
        key = os.path.abspath(path)
        with cls._registry:
            log = cls._open.get(key)
            if log is None:
                log = cls._open[key] = cls(key, max_bytes, backups)
            log.users += 1
            return log

    def _open_file(self) -> int:
        import os
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.fchmod(fd, 0o600)
        except OSError:
            pass
        return fd

    failed: "set[str]" = set()  # the logs a record could not be written to (exit status 6)

    def write(self, text: str) -> None:
        """Append one record whole. When it cannot be written (a full disk) what was written of
        it is cut off again, the failure is reported once on stderr and the record is dropped:
        the call it records goes on (the proxy then exits 6)."""
        import os
        data = text.encode("utf-8")
        with self.lock:
            try:
                if self.max_bytes and self.size and self.size + len(data) > self.max_bytes:
                    self._rotate()
                view = memoryview(data)
                while view:
                    view = view[os.write(self.fd, view):]
                self.size += len(data)
            except OSError as exc:
                try:  # nothing torn is left: the file ends after the last whole record
                    os.ftruncate(self.fd, self.size)
                except OSError:
                    pass
                if self.path not in LogFile.failed:
                    LogFile.failed.add(self.path)
                    import sys
                    sys.stderr.write(f"quantity-guard-mcp: the --log file {self.path!r} could not be "
                                     f"written ({exc.strerror or exc}); guarded calls go on, their "
                                     "records are dropped until it can be (reported once; the "
                                     "proxy will exit 6)\n")
                    sys.stderr.flush()

    def _rotate(self) -> None:
        import os
        os.close(self.fd)
        try:
            if self.backups == 0:
                os.unlink(self.path)
            else:
                for n in range(self.backups, 0, -1):
                    older = f"{self.path}.{n - 1}" if n > 1 else self.path
                    if os.path.exists(older):
                        os.replace(older, f"{self.path}.{n}")
        finally:
            self.fd = self._open_file()
            self.size = os.fstat(self.fd).st_size

    def close(self) -> None:
        import os
        with LogFile._registry:
            self.users -= 1
            if self.users > 0:
                return
            if LogFile._open.get(self.path) is self:
                del LogFile._open[self.path]
        os.close(self.fd)


def _write_atomically(path: str, text: str) -> None:
    """Write ``path`` whole or not at all: a private (0600) temporary file beside it, flushed
    and fsynced, then renamed over it. A failure (a full disk) raises ``OSError`` and leaves the
    previous file as it was."""
    import os
    import tempfile
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dirfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dirfd)
        finally:
            os.close(dirfd)
    except OSError:
        pass


class CatalogueReport:
    def __init__(self, problems: list[str], lines: list[str]) -> None:
        self.problems = problems
        self.lines = lines

    @property
    def ok(self) -> bool:
        return not self.problems

    def __str__(self) -> str:
        out = list(self.lines)
        if self.problems:
            out.append(f"{len(self.problems)} problem(s):")
            out.extend(f"  {p}" for p in self.problems)
        else:
            out.append("annotations match the server")
        return "\n".join(out)


class _Plan:
    """What ``check_call`` needs about one guarded tool: the ledger's tool reference, the
    declared parameters, the ones the upstream's listing requires, and per parameter
    ``(name, spec, takes a list upstream, takes an integer upstream)``."""

    __slots__ = ("ref", "specs", "required", "steps", "own", "folded")

    ref: _ToolRef
    specs: "dict[str, Spec]"
    required: frozenset
    own: frozenset  # every parameter the upstream's listing declares
    folded: "dict[str, str]"  # the guarded parameters by their folded names (see fold_name)
    steps: "tuple[tuple[str, Spec, bool, bool], ...]"


class _Listed:
    """What a guarded tool's listing declared: its required parameters, the annotated ones it
    types ``integer``, and whether it has an output schema."""

    __slots__ = ("required", "integers", "output_schema", "properties")

    def __init__(self) -> None:
        self.required: frozenset = frozenset()
        self.properties: frozenset = frozenset()
        self.integers: set[str] = set()
        self.output_schema = False


def _branches(schema: dict) -> list:
    """The type names a parameter schema allows (``type``, a type list, anyOf/oneOf branches)."""
    kinds: list = []
    for s in [schema] + [b for key in ("anyOf", "oneOf") for b in schema.get(key, ())
                         if isinstance(b, dict)]:
        t = s.get("type")
        kinds.extend(t if isinstance(t, list) else [t])
    return kinds


def _takes_integer(schema: dict) -> bool:
    """Whether the upstream wants whole numbers here (for an array: as its items)."""
    kinds = _branches(schema)
    if "array" in kinds:
        for s in [schema] + [b for key in ("anyOf", "oneOf") for b in schema.get(key, ())
                             if isinstance(b, dict)]:
            if isinstance(s.get("items"), dict):
                return _takes_integer(s["items"])
        return False
    return "integer" in kinds and "number" not in kinds


def _takes_null(schema: dict) -> bool:
    return "null" in _branches(schema)


def _label_output_schema(output: dict, key: str | None, spec: Spec) -> None:
    """Add the declaration's x-* keys to the property of the upstream's output schema that holds
    the labelled value (``result`` for an SDK-wrapped primitive, ``value``, or ``key``)."""
    x = {k: v for k, v in spec.json_schema().items() if k.startswith("x-")}
    props = output.get("properties")
    if not isinstance(props, dict):
        props = {}
    if key is not None:
        target = _schema_at(output, key)
        if target is not None:
            target.update(x)
            target["description"] = _join(target.get("description"), spec.in_words())
        return
    for n in [n for n in ("result", "value") if n in props][:1]:
        target = props.get(n)
        if isinstance(target, dict):
            target.update(x)
            target["description"] = _join(target.get("description"), spec.in_words())
            return
    # no property holds a number to label: the schema is left as the upstream declared it


def _takes_array(schema: dict) -> bool:
    kinds = [schema.get("type")] + [s.get("type") for s in schema.get("anyOf", ())
                                    if isinstance(s, dict)]
    return any(k == "array" or (isinstance(k, list) and "array" in k) for k in kinds)


def _join(a: str | None, b: str) -> str:
    if not a or not a.strip():
        return b
    a = a.rstrip()
    return f"{a} {b}" if a[-1] in ".!?:;" else f"{a}. {b}"


def _merge_param(original: dict, spec: Spec, integer: bool = False) -> dict:
    """The upstream's schema for one parameter, widened to the shapes the guard accepts, with
    the declaration's x-* keys and the unit stated in words. A range the upstream declared
    stays on the bare-number form (a bare number is in the declared unit) and is stated in
    words for the other forms. Where the upstream takes an ``integer``, the bare-number form
    is ``integer`` too; where it takes ``null``, so does the merged schema. ``default``,
    ``title`` and every other key are kept."""
    ours = copy.deepcopy(spec.json_schema())
    merged = {k: v for k, v in original.items() if k not in ("type", "anyOf", "oneOf", "format",
                                                            "description", *_RANGES)}
    ranges = {k: original[k] for k in _RANGES if isinstance(original.get(k), (int, float))
              and not isinstance(original.get(k), bool)}
    range_words = ""
    unit = spec.unit
    if unit is not None:  # not a timestamp (a Spec has a unit or a tz, never both)
        for branch in ours.get("anyOf", ()):
            if branch.get("type") == "number":
                branch.update(ranges)
                if integer:
                    branch["type"] = "integer"
        if ranges:
            words = {"minimum": "at least", "maximum": "at most", "exclusiveMinimum": "above",
                     "exclusiveMaximum": "below"}
            range_words = " The value must be " + " and ".join(
                f"{words[k]} {v} {unit.symbol}" for k, v in ranges.items()) + "."
        if integer:
            range_words += f" The tool takes a whole number{_of(_per(unit.symbol))}."
        if _takes_null(original) and "anyOf" in ours:
            ours["anyOf"].append({"type": "null"})
    merged.update({k: v for k, v in ours.items() if k != "description"})
    merged["description"] = _join(original.get("description"), ours["description"] + range_words)
    return merged


_HEADER_KEY = "x-mcp-header"
_HEADER_TYPES = ("string", "integer", "boolean")


def _header_mapped(original: dict, merged: dict) -> dict:
    """A parameter the upstream mirrors into an ``Mcp-Param-*`` HTTP header (``x-mcp-header``,
    2026-07-28): its schema must keep a single primitive ``type`` (string, integer or boolean),
    or a client must drop the whole tool from its listing. The widened forms (``anyOf``) are
    taken back out; the upstream's own type, format and range stay, with the x-* keys and the
    unit in words added. A value in another unit is still accepted and converted (the proxy
    recomputes the header from the converted body)."""
    kind = original.get("type")
    if merged.get("type") == kind and "anyOf" not in merged and "oneOf" not in merged:
        return merged
    if kind not in _HEADER_TYPES:  # not valid upstream either: left as the upstream declared it
        return merged
    out = dict(original)
    out.update({k: v for k, v in merged.items() if k.startswith("x-") and k != _HEADER_KEY})
    header = original[_HEADER_KEY]
    out["description"] = _join(merged.get("description"),
                               f"This parameter is also sent as the HTTP header Mcp-Param-"
                               f"{header}, so its schema stays a plain {kind}.")
    return out


def _wire(value, original, integer: bool = False):
    """The value as the upstream expects it: the magnitude in the declared unit. Where the
    upstream's schema says ``integer``, an integral magnitude goes as a JSON integer and a
    fractional one raises ``InvalidArguments`` saying what to send."""
    if value.__class__ is Q:
        m = value.magnitude
        if m.__class__ is float:
            if integer:
                return _whole(m, value)
            return int(m) if m.is_integer() and isinstance(original, int) \
                and not isinstance(original, bool) and abs(m) < 2 ** 53 else m
        if integer:
            return [None if v != v else _whole(float(v), value) for v in m.tolist()]
        return [None if v != v else float(v) for v in m.tolist()]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return original


def _whole(m: float, q: Q) -> int:
    r = round(m)
    if m - m == 0 and abs(m - r) <= 1e-9 * max(1.0, abs(m)):
        return int(r)
    unit = _per(q.unit.symbol)
    low, high = math.floor(m), math.ceil(m)
    raise InvalidArguments(
        f"the value is {fmt_g(m)}{unit}, but this tool takes a whole number{_of(unit)}; "
        f"a fractional value is not rounded for you.",
        suggestion=f"a whole number{_of(unit)}, e.g. {low}{unit} or {high}{unit}")


def _per(symbol: str) -> str:
    return "" if symbol in ("1", "") else " " + symbol


def _of(unit: str) -> str:
    return f" of{unit}" if unit else ""


def _number(x):
    if isinstance(x, bool):
        return None
    if isinstance(x, (int, float)):
        return x
    if isinstance(x, str):
        try:
            value = float(x)  # the common case: a bare number as text
            return value if value - value == 0 else None
        except ValueError:
            pass
        try:
            v = json.loads(x.strip())
        except ValueError:
            return x.strip() if _looks_quantity(x) else None
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return v
        if isinstance(v, dict) and "value" in v:
            return v
    if isinstance(x, dict) and "value" in x:
        return x
    return None


def _looks_quantity(text: str) -> bool:
    from ..quantity import split_number
    number, rest = split_number(text)
    return number is not None and bool(rest) and len(rest) < 40


def _result_value(result: dict, returns):
    """The bare value(s) in an upstream result, or None when it is not a plain labelled-able
    result (then it passes untouched)."""
    structured = result.get("structuredContent")
    texts: "list[Any]" = [c.get("text") for c in result.get("content") or [] if isinstance(c, dict)
             and c.get("type") == "text"]
    if isinstance(returns, Spec):
        if isinstance(structured, dict):
            if set(structured) == {"result"}:  # SDK servers wrap a primitive return this way
                return _number(structured["result"])
            if "value" in structured:
                return structured
        if len(texts) == 1:
            return _number(texts[0])
        return None
    source = structured
    if source is None and len(texts) == 1:
        try:
            source = json.loads(texts[0])
        except ValueError:
            return None
    if isinstance(source, dict):
        return source
    return None


def _label_fields(source: dict, returns: "dict[str, Spec]") -> "tuple[dict, bool]":
    """``source`` with the value at each declared field or path converted to a ``Q`` (a copy
    along the paths only), and whether any declared field was there. A ``null`` at a path
    stays ``null``; a value that is not a number raises (the result is then not labelled)."""
    from ..annotations import path_segments
    out: "Any" = source
    found = False
    for key, spec in returns.items():
        steps = [(key, 0)] if key in source else path_segments(key)
        out, hit = _set_path(out, steps, spec)
        found = found or hit
    return out, found


def _set_path(node: "Any", steps: "list[tuple[str, int]]", spec: Spec) -> "tuple[Any, bool]":
    if not steps:
        if node is None:
            return node, True
        value = _number(node)
        return spec.convert_result(node if value is None else value), True
    if not isinstance(node, dict) or steps[0][0] not in node:
        return node, False
    name, arrays = steps[0]
    child, hit = _into_arrays(node[name], arrays, steps[1:], spec)
    if not hit:
        return node, False
    copied = dict(node)
    copied[name] = child
    return copied, True


def _into_arrays(node: "Any", arrays: int, rest: "list[tuple[str, int]]",
                 spec: Spec) -> "tuple[Any, bool]":
    if arrays == 0:
        return _set_path(node, rest, spec)
    if not isinstance(node, list):
        return node, False
    items, hit = [], False
    for item in node:
        new, h = _into_arrays(item, arrays - 1, rest, spec)
        items.append(new)
        hit = hit or h
    return (items, True) if hit else (node, False)


def _arrived(result: dict) -> str:
    """How a result arrived, in words, for a result that could not be labelled."""
    structured = result.get("structuredContent")
    if isinstance(structured, dict):
        return f"an object with the fields {sorted(structured)[:8]}"
    content = result.get("content")
    if not isinstance(content, list) or not content:
        return "a result with no content"
    texts = [c.get("text") for c in content if isinstance(c, dict) and c.get("type") == "text"]
    if len(texts) != 1 or len(content) != 1:
        return f"{len(content)} content items"
    text = texts[0] if isinstance(texts[0], str) else ""
    try:
        data = json.loads(text)
    except ValueError:
        shown = text.strip().replace("\n", " ")
        return f"text that is not a number or JSON ({shown[:60]!r}{'...' if len(shown) > 60 else ''})"
    if isinstance(data, dict):
        return f"an object with the fields {sorted(data)[:8]}"
    if isinstance(data, list):
        return f"a JSON array of {len(data)} items"
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        return f"a bare number ({data!r})"
    return f"JSON {_json_type(data)}"


def _unsourced_in_proxy(violation: GuardViolation) -> GuardViolation:
    """The refusal of a ``sourced`` value as the proxy can state it. The proxy never sees the
    client's question: a sourced value passes when it traces to a tool output of this client
    session (the same amount in any unit, or a one-step sum or difference of two outputs), and
    a number the question states cannot be verified here, so the repair never suggests one."""
    from ..errors import UnsourcedInput
    head = violation.message.split(", which", 1)[0]
    if not head.startswith("received "):
        head = f"received {violation.received if violation.received is not None else 'a value'}"
    return UnsourcedInput(
        f"{head}, which no tool returned in this session (nor a sum or difference "
        f"of two outputs); this parameter is declared sourced, and the proxy does not see the "
        f"question, so a number stated there cannot be verified and is refused here",
        field=violation.field, received=violation.received, expected=violation.expected,
        suggestion="the value as a tool of this session returned it (call the tool that "
                   "provides it, then pass its result, converted or not); if only the user "
                   "stated it, say that this tool accepts only a value a tool returned, rather "
                   "than estimating or re-typing it")


_NUMERIC = frozenset({"number", "integer"})


def _schema_kinds(schema: dict) -> "set[str] | None":
    """The JSON types a schema allows (an array's items for an array), or None when it states
    none (then anything may come)."""
    kinds = {k for k in _branches(schema) if isinstance(k, str)}
    if "array" in kinds:
        for s in [schema] + [b for key in ("anyOf", "oneOf") for b in schema.get(key, ())
                             if isinstance(b, dict)]:
            if isinstance(s.get("items"), dict):
                items = _schema_kinds(s["items"])
                if items is not None:
                    kinds = (kinds - {"array"}) | items
                break
    return kinds or None


def _schema_mismatch(spec: Spec, schema: dict, what: str) -> "str | None":
    """Why a declaration can never work on a value of this schema (None when it can): a unit
    on a value that is never a number, a tz on one that is never a string."""
    kinds = _schema_kinds(schema)
    if kinds is None:
        return None
    shown = " or ".join(sorted(kinds))
    if spec.unit is not None and not kinds & _NUMERIC:
        instead = ("if it holds a timestamp, declare tz = \"<IANA zone>\" instead; otherwise "
                   "remove the declaration" if "string" in kinds else
                   "a " + shown + " has no unit: remove the declaration")
        return (f"declares unit {spec.unit_text!r}, but {what} as {shown}, never a number: "
                f"the number the proxy would send (or label) in {spec.unit_text} cannot be that; "
                f"{instead}")
    if spec.tz is not None and "string" not in kinds:
        return (f"declares tz {spec.tz_text!r} (a timestamp, sent as an ISO 8601 string with "
                f"its offset), but {what} as {shown}, never a string: remove tz "
                f"(a count of seconds since an epoch is not checked as a timestamp)")
    return None


def _result_mismatches(name: str, returns, output) -> "list[str]":
    """Result declarations the tool's outputSchema rules out (a unit on a string result)."""
    if returns is None or not isinstance(output, dict):
        return []
    props = output.get("properties")
    if not isinstance(props, dict):
        props = {}
    pairs: "list[tuple[str, Spec, str | None]]"
    out: "list[str]" = []
    if isinstance(returns, Spec):
        held = [n for n in ("result", "value") if isinstance(props.get(n), dict)][:1]
        pairs = [(f"tools.{name}.returns", returns, n) for n in held]
        if not held and output.get("type") not in (None, "object"):
            pairs = [(f"tools.{name}.returns", returns, None)]
        if not pairs and props and output.get("type") in (None, "object"):
            return [f"tools.{name}.returns: declares one unit for the whole result, but the "
                    f"outputSchema of {name} makes it an object with the fields "
                    f"{_some(_field_paths(output), 12)}: nothing would be labelled. Declare the "
                    f"fields (returns = {{ <field> = {{ unit = ... }} }}; a nested one as a path "
                    f"such as \"items[].value\")"]
    else:
        pairs = [(f"tools.{name}.returns.{k}", s, k) for k, s in returns.items()
                 if _schema_at(output, k) is not None]
        missing = [k for k in returns if _schema_at(output, k) is None]
        if missing and (props or output.get("$ref")):
            known = _field_paths(output)
            for k in missing:
                close = _close_names(k, known)
                out.append(f"tools.{name}.returns.{k}: the outputSchema of {name} has no result "
                           f"field {k!r}" + (f" (did you mean {close}?)" if close else "")
                           + f"; its fields are {_some(known, 12)}. A declaration of a field "
                           f"the result does not have labels nothing")
    for where, spec, key in pairs:
        schema = output if key is None else _schema_at(output, key)
        what = (f"its outputSchema types the result" if key is None else
                f"its outputSchema types {key!r}")
        problem = _schema_mismatch(spec, schema, what) if isinstance(schema, dict) else None
        if problem:
            out.append(f"{where}: {problem}")
    return out


def _properties(schema) -> dict:
    props = schema.get("properties") if isinstance(schema, dict) else None
    return props if isinstance(props, dict) else {}


def _shown(spec: Spec) -> str:
    """A declaration as ``--check`` lists it: the unit (or the timestamp's zone) and the
    datum, when there is one."""
    text = spec.unit_text or f"timestamp, tz {spec.tz_text}"
    return f"{text}, datum {spec.datum}" if spec.datum else text


def _resolve_ref(schema: "Any", root: dict) -> "Any":
    for _ in range(32):
        if not isinstance(schema, dict) or not isinstance(schema.get("$ref"), str):
            return schema
        ref = schema["$ref"]
        if not ref.startswith("#/"):
            return schema
        node: "Any" = root
        for part in ref[2:].split("/"):
            node = node.get(part.replace("~1", "/").replace("~0", "~")) \
                if isinstance(node, dict) else None
        schema = node
    return schema


def branches_of(schema: "Any", root: dict) -> list:
    """A schema and its anyOf/oneOf/allOf branches, references followed."""
    schema = _resolve_ref(schema, root)
    if not isinstance(schema, dict):
        return []
    out = [schema]
    for key in ("anyOf", "oneOf", "allOf"):
        for b in schema.get(key, ()) if isinstance(schema.get(key), list) else ():
            out.extend(branches_of(b, root))
    return out


def _schema_at(output: dict, key: str) -> "dict | None":
    """The sub-schema of an output schema at a result field or path (``stations[].distance_km``),
    following properties, array items, anyOf/oneOf/allOf branches and local ``$ref``s; None
    when the schema has no such field."""
    from ..annotations import path_segments
    nodes: list = [output]
    for name, arrays in path_segments(key):
        found = []
        for node in nodes:
            for b in branches_of(node, output):
                props = b.get("properties")
                if isinstance(props, dict) and isinstance(props.get(name), dict):
                    found.append(props[name])
        for _ in range(arrays):
            found = [b.get("items") for node in found for b in branches_of(node, output)
                     if isinstance(b.get("items"), dict)]
        nodes = found
        if not nodes:
            return None
    for node in nodes:
        resolved = _resolve_ref(node, output)
        if isinstance(resolved, dict):
            return resolved
    return None


def _field_paths(output: dict, at_most: int = 200) -> "list[str]":
    """The field paths an output schema names (``stations[].distance_km``), for suggestions."""
    out: "list[str]" = []

    def walk(schema: "Any", prefix: str, depth: int) -> None:
        if depth > 8 or len(out) >= at_most:
            return
        for b in branches_of(schema, output):
            items = b.get("items")
            if isinstance(items, dict) and prefix:
                walk(items, prefix + "[]", depth + 1)
            props = b.get("properties")
            if isinstance(props, dict):
                for name, sub in props.items():
                    path = f"{prefix}.{name}" if prefix else name
                    if path not in out:
                        out.append(path)
                    walk(sub, path, depth + 1)

    walk(output, "", 0)
    return out


# a parameter's stated format that is not a timestamp: (pattern, what it is)
_NOT_TIMESTAMP = (
    (r"\bHH:MM\b|\b24-hour\b|\btime of day\b|\bclock time\b",
     "a clock time (HH:MM), without a date"),
    (r"\bYYYY-MM-DD\b(?!T|\s*HH)", "a calendar date (YYYY-MM-DD), without a time"),
)
_TIMESTAMP_WORDS = (r"\bISO[ -]?8601\b|\bRFC[ -]?3339\b|\bdate[- ]?time\b|\btimestamp\b|"
                    r"\bdatetime\b|YYYY-MM-DDT|\bT\d\d:\d\d")


def _tz_problem(spec: Spec, schema: dict, pname: str, tool_text: "Any") -> "str | None":
    """Why a ``tz`` on this parameter would make the tool uncallable (None when it would not):
    the guard sends a timestamp (an ISO 8601 date and time with its offset), so the parameter
    must take one. A ``format`` of ``time`` or ``date``, or words stating a clock time or a
    date alone, rule it out."""
    import re
    if spec.tz is None:
        return None
    fmt = schema.get("format")
    if fmt == "date-time":
        return None
    words = " ".join(str(x) for x in (schema.get("description"), schema.get("title"))
                     if isinstance(x, str))
    if fmt in ("time", "date"):
        stated = {"time": "a clock time (format: time)", "date": "a date (format: date)"}[fmt]
    else:
        stated = None
        own = words + " " + doc_line(tool_text, pname)
        if re.search(_TIMESTAMP_WORDS, own, flags=re.I):
            return None
        for pattern, what in _NOT_TIMESTAMP:
            if re.search(pattern, own):
                stated = what
                break
    if stated is None:
        return None
    return (f"declares tz {spec.tz_text!r}, so the guard would send a timestamp (an ISO 8601 "
            f"date and time with its offset), but the server states {pname} is {stated}: "
            f"every call would be refused or misread. Remove tz here")


def doc_line(text: "Any", pname: str) -> str:
    """The line of a tool description that documents ``pname`` (a docstring's ``Args:``)."""
    if not isinstance(text, str):
        return ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(pname) and stripped[len(pname):len(pname) + 2].lstrip()[:1] in (":", "("):
            return stripped
    return ""


def _some(listed, at_most: int = 8) -> str:
    names = sorted(n for n in listed if isinstance(n, str))
    if not names:
        return "no tools"
    return ", ".join(repr(n) for n in names[:at_most]) + (", ..." if len(names) > at_most else "")


def _close_names(name: str, listed) -> str:
    import difflib
    matches = difflib.get_close_matches(name, [n for n in listed if isinstance(n, str)], n=2)
    return " or ".join(repr(m) for m in matches)
