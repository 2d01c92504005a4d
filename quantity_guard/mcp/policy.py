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
import json
import math
import threading
from collections import deque

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
from .policy_files import LOG_BACKUPS, LOG_MAX_BYTES, LogFile, log_record, write_atomically
from .policy_report import CatalogueReport, catalogue_problems, check_catalogue, summary, \
    warn_summary
from .policy_schema import Listed, advertise_tool, of_unit, unit_suffix

__all__ = ["build_policy", "QuantityPolicy", "CatalogueReport", "LogFile"]

MAX_SESSIONS = 8      # past client sessions whose ledgers the manifest keeps
_INFLIGHT_KEPT = 1_024  # forwarded calls remembered until their result is labelled
_tuple_new = tuple.__new__  # Decision("forward", x) without NamedTuple's Python-level __new__


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
        # what the upstream's listing declared, per guarded tool: see Listed
        self._listed: dict[str, Listed] = {}
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
        self.settle()
        current = self._ledger
        self._ledger = token
        try:
            yield
        finally:
            self.settle()
            self._ledger = current

    @property
    def _stored(self) -> bool:
        """The current ledger is a shared store's: each call is written before its answer."""
        return self._ledger.store is not None

    def reset(self) -> None:
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
        listed = advertise_tool(tool, self.annotations[name], self._array_params)
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
        # the record keeps the guarded parameters only: other arguments (a key, a password, a
        # document) are none of the ledger's business and must not reach a file
        guarded = {}
        omitted = False
        for step in steps:
            pname = step[0]
            if pname in arguments:
                value = guarded[pname] = arguments[pname]
                if value is None:
                    omitted = True
            elif pname not in required:
                omitted = True
        if omitted:
            params = {p: s for p, s in plan.specs.items() if arguments.get(p) is not None
                      or (p in required and p not in arguments)}
            steps = tuple(t for t in steps if t[0] in params)
        refused: "GuardViolation | None" = None
        with self._lock:
            self.call_count += 1
            try:
                call = self._ledger.begin_call(plan.ref, guarded)
            except StoreUnavailable as exc:  # the conversation's history cannot be read
                unread: "StoreUnavailable | None" = exc
            else:
                unread = None
                try:
                    # (the record made its own copy of ``guarded``: converted in place)
                    forwarded = self._converted(call, plan, params, steps, arguments, guarded,
                                                tool_name)
                    if ann.returns is None and self._stored:
                        call.finish(ok=True)  # no answer of this tool is labelled: recorded now
                except GuardViolation as exc:
                    refused = exc
                else:
                    if ann.returns is not None:  # which call record these arguments belong to
                        inflight = self._inflight
                        inflight[id(forwarded)] = (forwarded, call)
                        if len(inflight) > _INFLIGHT_KEPT:  # answers never labelled
                            del inflight[next(iter(inflight))]
        if unread is not None:  # (logged outside the lock, which the log takes)
            self._write_log("violation", tool_name, arguments, violation=unread)
            return Decision.refuse(tool_error(unread.repair(), unread))
        if refused is not None:
            return self._refusal(tool_name, arguments, refused)
        if self._log is not None:
            self._write_log("call", tool_name, arguments, forwarded=forwarded,
                            warnings=list(call.violations))
        return _tuple_new(Decision, ("forward", forwarded))  # Decision("forward", ...)

    def _converted(self, call, plan: "_Plan", params: dict, steps: tuple, arguments: dict,
                   coerced: dict, tool_name: str) -> dict:
        """The arguments as they go upstream: each guarded one checked (raising the
        ``GuardViolation`` that refuses the call) and converted into the declared unit.
        ``coerced``: the guarded arguments, a copy converted in place."""
        if not plan.known.issuperset(arguments):
            for key in arguments:
                if key not in plan.known:
                    _near_parameter(call, plan, key, self.enforcement == "strict")
        # A list for a one-value parameter: refused on its shape, before anything is
        # built from it (a series of values needs numpy; the refusal must not).
        for pname, spec in plan.single:
            raw = arguments.get(pname)
            if raw.__class__ is dict:
                raw = raw.get("value")
            if raw.__class__ is list:
                _one_value_only(call, spec, len(raw))
        guard_arguments(params, coerced, enforcement=self.enforcement, call=call,
                        verdict=_verdict())  # an observed call's (quantity_guard.observe)
        for pname, spec, takes_array, _ in steps:  # a series read from any other form
            value = coerced.get(pname)
            if value.__class__ is Q and not takes_array and value.magnitude.__class__ is not \
                    float:
                _one_value_only(call, spec, len(value))
        forwarded = dict(arguments)
        warned = {v["field"] for v in call._violations} if call._violations else ()
        for pname, spec, _, integer in steps:
            # warn: a value that violated goes on as the model sent it
            if pname in coerced and pname in arguments and spec.field not in warned:
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
        return forwarded

    def _refusal(self, tool_name: str, arguments: dict, refused: GuardViolation) -> Decision:
        """A refused call's answer (an ``isError`` result with the repair text), logged."""
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
        plan.known = plan.own | frozenset(ann.params)
        plan.steps = tuple((pname, spec, (tool_name, pname) in self._array_params,
                            pname in integers) for pname, spec in ann.params.items())
        plan.single = tuple((pname, spec) for pname, spec, takes_array, _ in plan.steps
                            if not takes_array)
        with self._lock:
            self._plans[tool_name] = plan
        return plan

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
        problems = [(t, p) for t, p in catalogue_problems(self.annotations, tools) if p not in self._warned]
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
        """What the annotations guard on this listing, in one line (see policy_report)."""
        return summary(self.annotations, tools)

    def check_catalogue(self, tools: list[dict]) -> CatalogueReport:
        return check_catalogue(self.annotations, tools)

    def enforcement_report(self) -> str:
        """The current client session's enforcement report (see ``Ledger.enforcement_report``):
        violations of arguments and of results, grouped by code."""
        self.settle()
        with self._lock:
            return self._ledger.enforcement_report()

    def counts(self) -> dict:
        """How many client sessions and guarded calls there were, and how many are kept."""
        self.settle()
        kept = len(self.sessions) + (1 if self._ledger.call_count else 0)
        return {"session_count": self.session_count, "call_count": self.call_count,
                "sessions_kept": kept,
                "calls_kept": sum(len(s["calls"]) for s in self.sessions) + len(self._ledger.calls)}

    def close(self) -> None:
        self.settle()
        if self.enforcement == "warn":
            try:
                with self._lock:
                    ledgers = list(self.sessions) + [self._ledger.manifest()]
                warn_summary(ledgers, self.call_count)
            except Exception as exc:  # (a shared store gone) the manifest is still written
                import logging
                logging.getLogger("quantity_guard.mcp").warning(
                    "the warn-mode summary could not be made: %r", exc)
        try:
            if self.manifest_path and (self.write_empty_manifest or self.call_count):
                with self._lock:
                    sessions = list(self.sessions) + (
                        [self._ledger.manifest()] if self._ledger.call_count else [])
                    counts = self.counts()
                data = {"format": "quantity-guard-proxy-manifest", "version": 1,
                        "enforcement": self.enforcement, **counts,
                        "max_sessions_kept": self.sessions.maxlen,
                        "max_calls_kept": self.max_calls, "sessions": sessions}
                write_atomically(self.manifest_path, json.dumps(data, indent=1))
        finally:
            if self._log is not None:
                self._log.close()
                self._log = None
            if self.on_close is not None:
                done, self.on_close = self.on_close, None
                done()

    def _write_log(self, kind: str, tool: str, arguments, **extra) -> None:
        if self._log is None:
            return
        guarded = self.annotations[tool].params if tool in self.annotations else {}
        self._log.write(log_record(kind, tool, arguments, guarded, **extra))


class _Plan:
    """What ``check_call`` needs about one guarded tool: the ledger's tool reference, the
    declared parameters, the ones the upstream's listing requires, and per parameter
    ``(name, spec, takes a list upstream, takes an integer upstream)``."""

    __slots__ = ("ref", "specs", "required", "steps", "own", "folded", "known", "single")

    ref: _ToolRef
    specs: "dict[str, Spec]"
    required: frozenset
    own: frozenset  # every parameter the upstream's listing declares
    folded: "dict[str, str]"  # the guarded parameters by their folded names (see fold_name)
    steps: "tuple[tuple[str, Spec, bool, bool], ...]"
    known: frozenset  # the guarded parameters and every one the listing declares
    single: "tuple[tuple[str, Spec], ...]"  # the guarded parameters that take one value


def _near_parameter(call, plan: _Plan, key: str, strict: bool) -> None:
    """An argument that is not a guarded parameter but folds to one (``DISCHARGE``,
    ``"discharge "``): an upstream that ignores case or spaces would read it unconverted.
    Recorded in ``call``; raised (the call refused) when ``strict``."""
    near = plan.folded.get(fold_name(key))
    if near is None or near == key:
        return
    spec = plan.specs[near]
    violation = InvalidArguments(
        f"received the argument {key!r}, which is not the unit-guarded parameter {near!r} "
        f"but may be read as it by a server that ignores case or spaces; it was not checked "
        f"or converted", field=spec.field,
        suggestion=f"send the value as {near!r}, spelled exactly so, and no other spelling of it")
    call.record_violation(violation, blocked=strict)
    if strict:
        call.finish(ok=False)
        raise violation


def _one_value_only(call, spec, count: int) -> None:
    """A list of ``count`` values sent for a parameter that takes one: recorded, raised."""
    violation = InvalidArguments(
        f"received a series of {count} values, but this tool takes one value here",
        field=spec.field, suggestion=f"one value: {spec._example()}")
    call.record_violation(violation, blocked=True)
    call.finish(ok=False)
    raise violation


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
    unit = unit_suffix(q.unit.symbol)
    low, high = math.floor(m), math.ceil(m)
    raise InvalidArguments(
        f"the value is {fmt_g(m)}{unit}, but this tool takes a whole number{of_unit(unit)}; "
        f"a fractional value is not rounded for you.",
        suggestion=f"a whole number{of_unit(unit)}, e.g. {low}{unit} or {high}{unit}")


def _number(x):
    if isinstance(x, str):  # (first: a result's text is the common case; the types are disjoint)
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
        return None
    if isinstance(x, bool):
        return None
    if isinstance(x, (int, float)):
        return x
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
    content = result.get("content")
    if structured is None and content.__class__ is list and len(content) == 1 and \
            returns.__class__ is Spec:  # the common case: one text, one value declared
        item = content[0]
        if item.__class__ is dict and item.get("type") == "text":
            return _number(item.get("text"))
    texts: "list[Any]" = [c.get("text") for c in content or [] if isinstance(c, dict)
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


