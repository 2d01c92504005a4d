"""``@quantity_tool``: a function whose parameters and result carry declared units.

    @quantity_tool(params={"discharge": {"unit": "m**3/s"}, "area": {"unit": "km**2"}},
                   returns={"unit": "mm/day"})
    def runoff_depth(discharge, area):
        return discharge / area

- Calling it (``runoff_depth("1250 cfs", 29000)``) coerces every declared argument into its
  declared unit and hands the body ``Q`` values; a violation raises.
- ``invoke(arguments)`` never raises: it returns an MCP ``CallToolResult`` dict, with the repair
  text as an ``isError`` result for a violation, so a model can correct the call.
- ``enforcement="warn"`` validates without rejecting: the body runs on the value as received,
  its result goes on as returned, and each violation (argument or result) is recorded in the
  active session for ``enforcement_report()``; ``"off"`` only coerces.
- Every error result carries ``_meta["io.github.quantity-guard/violation"]`` (code, field).
- Works on ``async def`` functions too: calling returns a coroutine, ``ainvoke`` awaits.
"""
from __future__ import annotations

import functools
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # annotations only: they are never evaluated at run time
    from collections.abc import Callable, Collection
    from typing import Any, overload

    from .ledger import CallRecord, Ledger
    from .observe import Observer, Verdict
else:
    def overload(fn):  # typing.overload's run-time effect: the last definition stands
        return fn

from .errors import GuardViolation, InvalidArguments, tool_error
from .quantity import Q
from .spec import Spec, returns_of

__all__ = ["quantity_tool", "GuardedTool", "tool_error", "tool_result", "value_json"]

ENFORCEMENT = ("strict", "warn", "off")


@overload
def quantity_tool(fn: Callable[..., Any], *, params: dict[str, Any] | None = None,
                  returns: Any = None, name: str | None = None, description: str | None = None,
                  enforcement: str = "strict") -> GuardedTool: ...
@overload
def quantity_tool(fn: None = None, *, params: dict[str, Any] | None = None, returns: Any = None,
                  name: str | None = None, description: str | None = None,
                  enforcement: str = "strict") -> Callable[[Callable[..., Any]], GuardedTool]: ...
def quantity_tool(fn: Callable[..., Any] | None = None, *, params: dict[str, Any] | None = None,
                  returns: Any = None, name: str | None = None, description: str | None = None,
                  enforcement: str = "strict") -> Any:
    """Declare the physical meaning of a function's parameters and result (see module doc)."""
    def wrap(f: Callable[..., Any]) -> GuardedTool:
        return GuardedTool(f, params=params, returns=returns, name=name, description=description,
                           enforcement=enforcement)
    return wrap(fn) if fn is not None else wrap


class GuardedTool:
    """A tool with declared parameters: call it, ``invoke`` it, or list its ``json_schema``."""

    def __init__(self, fn: Callable[..., Any], *, params: dict[str, Any] | None = None,
                 returns: Any = None, name: str | None = None, description: str | None = None,
                 enforcement: str = "strict") -> None:
        if enforcement not in ENFORCEMENT:
            raise ValueError(f"enforcement must be one of {ENFORCEMENT}, not {enforcement!r}")
        self.fn = fn
        self.name = name or fn.__name__
        self.description = (description or _cleandoc(getattr(fn, "__doc__", None))).strip()
        self.enforcement = enforcement
        self.signature, self.is_async = _signature(fn)
        declared = params or {}
        unknown = [p for p in declared if p not in self.signature.parameters
                   and not _has_var_keyword(self.signature)]
        if unknown:
            raise InvalidArguments(f"tool {self.name!r} declares {unknown} but the function has no "
                                   f"such parameter (it has {list(self.signature.parameters)})")
        # declarations are validated here, at definition, naming the tool and parameter
        self.params: dict[str, Spec] = {p: Spec.of(d, f"{self.name}.{p}")
                                        for p, d in declared.items()}
        self.returns = returns_of(returns, f"{self.name}.return")
        ps = self.signature.parameters.values()
        self._optional = frozenset(p.name for p in ps if p.default is not p.empty)
        # a plain signature (no *args, **kwargs or positional-only) is bound by a fast path
        self._simple = all(p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in ps)
        self._positional = tuple(p.name for p in ps if p.kind is p.POSITIONAL_OR_KEYWORD)
        self._names = frozenset(p.name for p in ps)
        # a parameter declared optional may be omitted even where the function gives it no
        # default (the schema does not require it): the body then receives None
        self._required = frozenset(p.name for p in ps if p.default is p.empty and not (
            self._simple and p.name in self.params and self.params[p.name].optional))
        # a declared parameter's default reaches the body as what it declares, like a value
        # sent: read and converted once, here (a default that breaks its declaration is refused
        # now, not at the first call that omits it)
        self._defaults: dict[str, Any] = {}
        for pname, spec in self.params.items():
            param = self.signature.parameters.get(pname)
            if param is None or param.default is None:
                continue
            if param.default is param.empty:
                if self._simple and spec.optional:
                    self._defaults[pname] = None
                continue
            default = param.default
            if spec.require_explicit_unit and default.__class__ in (int, float) \
                    and spec.unit is not None:
                default = Q(default, spec.unit)  # the author's default is in the declared unit
            try:
                self._defaults[pname] = spec.accept(default, spec.field).value
            except GuardViolation as err:
                raise err.__class__(
                    f"the default of {spec.field}, {param.default!r}, breaks its declaration: "
                    f"{err.message}", field=spec.field,
                    suggestion="a default the declaration accepts (a Q, or a number in "
                               f"{spec.unit_text}), or None", received=param.default,
                    expected=err.expected) from None
        functools.update_wrapper(self, fn)

    def __repr__(self) -> str:
        return f"<quantity_tool {self.name} ({self.enforcement})>"

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:  # decorating a method binds like a function
        if obj is None:
            return self
        return functools.partial(self.__call__, obj)

    # -- the boundary ------------------------------------------------------------------------
    def _bind(self, args: tuple, kwargs: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """(positional args, keyword arguments dict) for the body, with every declared
        parameter's value findable by name in the dict."""
        if self._simple:
            if len(args) > len(self._positional):
                raise TypeError(f"takes {len(self._positional)} positional arguments but "
                                f"{len(args)} were given")
            arguments = dict(zip(self._positional, args))
            for k, v in kwargs.items():
                if k in arguments:
                    raise TypeError(f"got multiple values for argument {k!r}")
                if k not in self._names:
                    raise TypeError(f"got an unexpected keyword argument {k!r}")
                arguments[k] = v
            if len(arguments) < len(self._names) and not self._required <= arguments.keys():
                missing = sorted(self._required - arguments.keys())
                raise TypeError(f"missing required argument(s) {missing}")
            return (), arguments
        bound = self.signature.bind(*args, **kwargs)
        return bound, bound.arguments

    def _prepare(self, args: tuple, kwargs: dict[str, Any], verdict: Verdict | None = None
                 ) -> tuple[tuple[tuple, dict[str, Any]], CallRecord | None]:
        """Bind and coerce the arguments; returns ((args, kwargs) for the body, call record)."""
        try:
            bound, arguments = self._bind(args, kwargs)
        except TypeError as err:
            raise InvalidArguments(f"{err}; the parameters are {list(self.signature.parameters)}",
                                   field=self.name) from None
        session = _session_for(self)
        call = session.begin_call(self, arguments) if session is not None else None
        guard_arguments(self.params, arguments, enforcement=self.enforcement, call=call,
                        optional=self._optional, defaults=self._defaults, verdict=verdict)
        if bound == ():
            return ((), arguments), call
        return (bound.args, bound.kwargs), call

    def _finish(self, result: Any, call: CallRecord | None, verdict: Verdict | None = None
                ) -> Any:
        if self.enforcement != "strict":
            out = self._convert_leniently(result, call, verdict)
            if call is not None:
                call.finish_with(out)
            return out
        try:
            out = self.convert_result(result)
        except GuardViolation as violation:
            if call is not None:
                call.record_violation(violation, blocked=True)
                call.finish(ok=False)
            raise
        if call is not None:
            call.finish_with(out)
        return out

    def convert_result(self, result: Any) -> Any:
        """The body's result in the declared unit(s): a Q, or a dict with its declared fields
        converted; refused (``GuardViolation``) when it does not match the declaration."""
        spec = self.returns
        if spec is None:
            return result
        if isinstance(spec, Spec):
            return spec.convert_result(result)
        if not isinstance(result, dict):
            raise self._not_a_dict(result, spec)
        out = dict(result)
        for key, s in spec.items():
            if key in out:
                out[key] = s.convert_result(out[key])
        return out

    def _not_a_dict(self, result: Any, fields: dict[str, Spec]) -> InvalidArguments:
        return InvalidArguments(f"{self.name} declares result fields {sorted(fields)} but "
                                f"returned {type(result).__name__}", field=f"{self.name}.return")

    def _convert_leniently(self, result: Any, call: CallRecord | None,
                           verdict: Verdict | None = None) -> Any:
        """Warn and off modes: the result goes on as the body returned it (read as a quantity
        where it can be); warn records each violation in ``call`` (or warns outside a session)."""
        spec = self.returns
        if spec is None:
            return result
        if isinstance(spec, Spec):
            return self._lenient_result(spec, result, call, verdict)
        if not isinstance(result, dict):
            if self.enforcement == "warn":
                _violation(call, self._not_a_dict(result, spec), "warn", verdict)
            return result
        out = dict(result)
        for key, s in spec.items():
            if key in out:
                out[key] = self._lenient_result(s, out[key], call, verdict)
        return out

    def _lenient_result(self, spec: Spec, value: Any, call: CallRecord | None,
                        verdict: Verdict | None = None) -> Any:
        try:
            return spec.convert_result(value)
        except GuardViolation as violation:
            if self.enforcement == "warn":
                _violation(call, violation, "warn", verdict)
            return spec.lenient(value, spec.field).value

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _observer is not None:  # traced or logged at DEBUG (quantity_guard.observe)
            return _observed(self, args, kwargs)
        if self.is_async:
            return self._acall(args, kwargs)
        try:
            (pargs, kw), call = self._prepare(args, kwargs)
        except GuardViolation as violation:
            _log_refusal(violation, self.name)
            raise
        try:
            result = self.fn(*pargs, **kw)
        except BaseException:
            if call is not None:
                call.finish(ok=False)
            raise
        try:
            return self._finish(result, call)
        except GuardViolation as violation:
            _log_refusal(violation, self.name)
            raise

    async def _acall(self, args: tuple, kwargs: dict[str, Any]) -> Any:
        try:
            (pargs, kw), call = self._prepare(args, kwargs)
        except GuardViolation as violation:
            _log_refusal(violation, self.name)
            raise
        try:
            result = await self.fn(*pargs, **kw)
        except BaseException:
            if call is not None:
                call.finish(ok=False)
            raise
        try:
            return self._finish(result, call)
        except GuardViolation as violation:
            _log_refusal(violation, self.name)
            raise

    # -- as a tool a model calls ---------------------------------------------------------------
    def invoke(self, arguments: dict[str, Any] | str | None = None) -> dict[str, Any]:
        """Run with a model's arguments; return an MCP CallToolResult dict. Never raises."""
        if self.is_async:
            import asyncio
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                return asyncio.run(self.ainvoke(arguments))
            return tool_error(f"{self.name} is async: inside an event loop use "
                              f"`await tool.ainvoke(arguments)`", code="async_tool_in_event_loop",
                              field=self.name)
        try:
            return self.result_message(self(**_arguments(arguments, self.name)))
        except GuardViolation as violation:
            return tool_error(violation.repair(), violation)
        except Exception as exc:  # the body failed: an error result, never a traceback
            return self._failed(exc)

    async def ainvoke(self, arguments: dict[str, Any] | str | None = None) -> dict[str, Any]:
        try:
            result = self(**_arguments(arguments, self.name))
            if hasattr(result, "__await__"):
                result = await result
            return self.result_message(result)
        except GuardViolation as violation:
            return tool_error(violation.repair(), violation)
        except Exception as exc:
            return self._failed(exc)

    def _failed(self, exc: Exception) -> dict[str, Any]:
        return tool_error(f"{self.name} failed: {type(exc).__name__}: {exc}", code="tool_failed",
                          field=self.name)

    def result_message(self, result: Any) -> dict[str, Any]:
        return tool_result(result)

    def json_schema(self, *, extensions: bool = True) -> dict[str, Any]:
        """An MCP tool definition; declared parameters carry x-unit, x-datum, x-crs, x-tz,
        x-quality and a description stating the unit in words; ``returns`` is outputSchema."""
        props: dict = {}
        required: list[str] = []
        for pname, p in self.signature.parameters.items():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            spec = self.params.get(pname)
            props[pname] = spec.json_schema(extensions=extensions) if spec else _plain_schema(p)
            if p.default is p.empty and not (spec and spec.optional):
                required.append(pname)
        description = self.description
        if isinstance(self.returns, Spec):
            description = f"{description} Returns {self.returns.words()}.".strip()
        elif self.returns:
            fields = "; ".join(f"{k} in {s.words()}" for k, s in self.returns.items())
            description = f"{description} Returns {fields}.".strip()
        schema: dict[str, Any] = {"name": self.name, "description": description,
                  "inputSchema": {"type": "object", "properties": props, "required": required}}
        if self.returns is not None:
            if isinstance(self.returns, Spec):
                schema["outputSchema"] = self.returns.output_schema()
            else:
                schema["outputSchema"] = {
                    "type": "object", "properties": {k: s.output_schema()
                                                     for k, s in self.returns.items()}}
        return schema


_ledger_for_call: Callable[[Any], Ledger | None] | None = None
_UNSET: Any = object()
# quantity_guard.observe's Observer while guarded calls are traced (or conversions logged at
# DEBUG), None when there is nothing to report, _UNSET until the first guarded call looks
_observer: Any = _UNSET


def _set_observer(state: Any) -> None:
    """Told by quantity_guard.observe whenever its state changes."""
    from .observe import UNRESOLVED
    global _observer
    _observer = _UNSET if state is UNRESOLVED else state


def _log_refusal(violation: GuardViolation, tool: str | None, blocked: bool = True) -> None:
    if "logging" not in sys.modules:  # (observe.log_refusal's own first test, without the call)
        return
    from .observe import log_refusal
    log_refusal(violation, tool, blocked)


def _observed(tool: GuardedTool, args: tuple, kwargs: dict[str, Any]) -> Any:
    """``tool(*args, **kwargs)`` reported to the observer (a span, metrics, DEBUG records)."""
    obs = _observer
    if obs is _UNSET:
        from .observe import listen
        obs = listen(_set_observer)
        if obs is None:
            return tool(*args, **kwargs)
    if tool.is_async:
        return _observed_acall(obs, tool, args, kwargs)
    verdict = obs.start(tool.name, where="library", attributes={
        "quantity_guard.enforcement": tool.enforcement})
    if verdict is None:  # nothing records it (OpenTelemetry imported, no SDK set up)
        return _unobserved(tool, args, kwargs)
    verdict.enter()
    verdict.start()
    try:
        try:
            (pargs, kw), call = tool._prepare(args, kwargs, verdict)
        except GuardViolation as violation:
            verdict.violation(violation, tool.enforcement == "strict")
            _log_refusal(violation, tool.name)
            raise
        verdict.stop()
        try:
            result = tool.fn(*pargs, **kw)
        except BaseException as exc:
            if call is not None:
                call.finish(ok=False)
            verdict.end(failure=exc)
            raise
        verdict.start()
        try:
            out = tool._finish(result, call, verdict)
        except GuardViolation as violation:
            verdict.violation(violation, True)
            _log_refusal(violation, tool.name)
            raise
        verdict.result(result, out)
        return out
    finally:
        verdict.end()


def _unobserved(tool: GuardedTool, args: tuple, kwargs: dict[str, Any]) -> Any:
    """``GuardedTool.__call__``'s own path, for a sync tool while the observer records nothing."""
    try:
        (pargs, kw), call = tool._prepare(args, kwargs)
    except GuardViolation as violation:
        _log_refusal(violation, tool.name)
        raise
    try:
        result = tool.fn(*pargs, **kw)
    except BaseException:
        if call is not None:
            call.finish(ok=False)
        raise
    try:
        return tool._finish(result, call)
    except GuardViolation as violation:
        _log_refusal(violation, tool.name)
        raise


async def _observed_acall(obs: Observer, tool: GuardedTool, args: tuple,
                          kwargs: dict[str, Any]) -> Any:
    verdict = obs.start(tool.name, where="library", attributes={
        "quantity_guard.enforcement": tool.enforcement})
    if verdict is None:
        return await tool._acall(args, kwargs)
    verdict.enter()
    verdict.start()
    try:
        try:
            (pargs, kw), call = tool._prepare(args, kwargs, verdict)
        except GuardViolation as violation:
            verdict.violation(violation, tool.enforcement == "strict")
            _log_refusal(violation, tool.name)
            raise
        verdict.stop()
        try:
            result = await tool.fn(*pargs, **kw)
        except BaseException as exc:
            if call is not None:
                call.finish(ok=False)
            verdict.end(failure=exc)
            raise
        verdict.start()
        try:
            out = tool._finish(result, call, verdict)
        except GuardViolation as violation:
            verdict.violation(violation, True)
            _log_refusal(violation, tool.name)
            raise
        verdict.result(result, out)
        return out
    finally:
        verdict.end()



def _session_for(tool: GuardedTool) -> Ledger | None:
    """The ledger ``tool``'s call records into (``ledger.for_call``), or None."""
    global _ledger_for_call
    if _ledger_for_call is None:
        from .ledger import for_call
        _ledger_for_call = for_call
    return _ledger_for_call(tool)


def guard_arguments(params: dict[str, Spec], arguments: dict[str, Any], *,
                    enforcement: str = "strict", call: CallRecord | None = None,
                    optional: Collection[str] = frozenset(),
                    defaults: dict[str, Any] | None = None,
                    verdict: Verdict | None = None) -> None:
    """Coerce the declared ``arguments`` in place (the tool boundary, shared by ``@quantity_tool``
    and the MCP proxy). Strict: the first violation is recorded in ``call`` and raised. Warn: every
    violation is recorded and the value goes on as received. Off: coercion only. An optional
    argument omitted or null is left out, or set to its entry in ``defaults`` (already coerced,
    or None). ``verdict``: an observed call's verdict (``quantity_guard.observe``), told each
    conversion and violation."""
    for pname, spec in params.items():
        field = spec.field
        if arguments.get(pname) is None:
            if spec.optional or pname in optional:
                if defaults and pname in defaults:
                    arguments[pname] = defaults[pname]
                else:
                    arguments.pop(pname, None)  # an optional parameter sent as null (OpenAI strict)
                continue
            if pname not in arguments:
                _violation(call, InvalidArguments(f"missing the argument {pname}", field=field,
                                                  suggestion=f"{pname}: {spec.words()}"),
                           enforcement, verdict)
                continue
        raw = arguments[pname]
        if enforcement == "off":
            arguments[pname] = spec.lenient(raw, field).value
            continue
        try:
            accepted = spec.accept(raw, field)
            if call is not None:
                call.check_input(pname, spec, accepted)
        except GuardViolation as violation:
            if enforcement == "strict":
                _refused(call, violation, verdict)
                raise  # (as it came: raising it again from _violation costs a frame more)
            _violation(call, violation, enforcement, verdict)
            accepted = spec.lenient(raw, field)
            if call is not None:
                call.record_input(pname, spec, accepted)
        else:
            if verdict is not None:
                verdict.accepted(pname, accepted)
        arguments[pname] = accepted.value


def _violation(call: CallRecord | None, violation: GuardViolation, enforcement: str,
               verdict: Verdict | None = None) -> None:
    if enforcement == "strict":
        _refused(call, violation, verdict)
        raise violation
    if verdict is not None:
        verdict.violation(violation, False)
    # (a strict refusal is logged where it ends the call)
    _log_refusal(violation, call.tool if call is not None else None, False)
    if call is not None:
        call.record_violation(violation, blocked=False)
    elif enforcement == "warn":
        from . import ledger
        ledger.note_unrecorded(violation)


def _refused(call: CallRecord | None, violation: GuardViolation,
             verdict: Verdict | None = None) -> None:
    """A strict refusal, told to the verdict and recorded (the caller raises it)."""
    if verdict is not None:
        verdict.violation(violation, True)
    if call is not None:
        call.record_violation(violation, blocked=True)
        call.finish(ok=False)


class _Param:
    """The part of ``inspect.Parameter`` the tool needs, read from a function's code object
    (importing ``inspect`` costs ~10 ms, too much for a cold agent sandbox)."""

    __slots__ = ("name", "kind", "default", "annotation")
    name: str
    kind: int
    default: Any
    annotation: Any
    empty = object()
    POSITIONAL_ONLY, POSITIONAL_OR_KEYWORD, VAR_POSITIONAL, KEYWORD_ONLY, VAR_KEYWORD = range(5)

    def __init__(self, name: str, kind: int, default: Any, annotation: Any) -> None:
        self.name, self.kind, self.default, self.annotation = name, kind, default, annotation


class _Signature:
    __slots__ = ("parameters",)
    parameters: dict[str, _Param]

    def __init__(self, parameters: dict[str, _Param]) -> None:
        self.parameters = parameters


_CO_VARARGS, _CO_VARKEYWORDS, _CO_COROUTINE = 0x04, 0x08, 0x80


def _signature(fn: Callable[..., Any]) -> tuple[Any, bool]:
    """(signature, is_async). Plain functions are read from ``__code__``; anything else (a
    callable object, a partial, *args/**kwargs, positional-only parameters) goes to inspect."""
    code = getattr(fn, "__code__", None)
    if code is None or type(fn).__name__ != "function" or code.co_posonlyargcount or \
            code.co_flags & (_CO_VARARGS | _CO_VARKEYWORDS):
        import inspect
        return inspect.signature(fn), inspect.iscoroutinefunction(fn)
    n_pos, n_kw = code.co_argcount, code.co_kwonlyargcount
    names = code.co_varnames[:n_pos + n_kw]
    defaults = fn.__defaults__ or ()
    kwdefaults = fn.__kwdefaults__ or {}
    annotations = getattr(fn, "__annotations__", None) or {}
    params = {}
    first_default = n_pos - len(defaults)
    for i, name in enumerate(names):
        if i < n_pos:
            kind = _Param.POSITIONAL_OR_KEYWORD
            default = defaults[i - first_default] if i >= first_default else _Param.empty
        else:
            kind = _Param.KEYWORD_ONLY
            default = kwdefaults.get(name, _Param.empty)
        params[name] = _Param(name, kind, default, annotations.get(name, _Param.empty))
    return _Signature(params), bool(code.co_flags & _CO_COROUTINE)


def _cleandoc(doc: str | None) -> str:
    """A docstring with its common indentation removed (``inspect.cleandoc``'s rule)."""
    if not doc:
        return ""
    lines = doc.expandtabs().split("\n")
    rest = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    margin = min(rest) if rest else 0
    return "\n".join([lines[0].strip()] + [line[margin:].rstrip() for line in lines[1:]]).strip()


def _has_var_keyword(sig: Any) -> bool:
    return any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())


_PY_TYPES = {int: "integer", float: "number", str: "string", bool: "boolean", dict: "object",
             list: "array"}


def _plain_schema(p: Any) -> dict[str, Any]:
    ann = p.annotation
    if isinstance(ann, str):
        ann = {"int": int, "float": float, "str": str, "bool": bool, "dict": dict,
               "list": list}.get(ann, ann)
    kind = _PY_TYPES.get(ann)
    return {"type": kind} if kind else {}


def _arguments(arguments: Any, tool: str | None = None) -> dict[str, Any]:
    """A model's arguments as a dict, or ``InvalidArguments`` (never an in-band error value)."""
    if arguments is None:
        return {}
    if isinstance(arguments, str):
        try:
            import json
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError as err:
            raise InvalidArguments(f"the arguments are not valid JSON ({err})", field=tool,
                                   suggestion="a JSON object of parameter names to values"
                                   ) from None
    if not isinstance(arguments, dict):
        raise InvalidArguments(f"the arguments must be a JSON object, received "
                               f"{type(arguments).__name__}", field=tool,
                               suggestion="a JSON object of parameter names to values")
    return arguments


# -- MCP result shapes ---------------------------------------------------------------------
def value_json(value: Any) -> Any:
    """A tool result as JSON data: a Q becomes {"value", "unit", ...}; containers recurse."""
    if value.__class__ is Q:
        d = value.as_dict()
        d.pop("source", None)
        return d
    if isinstance(value, dict):
        return {str(k): value_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [value_json(v) for v in value]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_*/()%:.- ")


def _plain_text(data: dict[str, Any]) -> str | None:
    """The JSON text of a {"value": float, "unit": str, ...} result without the json module,
    when every string is plain ASCII (the common case); None otherwise."""
    parts = []
    for k, v in data.items():
        if v.__class__ is float:
            if v - v != 0:
                return None
            parts.append(f'"{k}": {v!r}')
        elif v.__class__ is str and _SAFE.issuperset(v):
            parts.append(f'"{k}": "{v}"')
        else:
            return None
    return "{" + ", ".join(parts) + "}"


def tool_result(value: Any) -> dict[str, Any]:
    """A successful MCP CallToolResult for a tool's return value (``structuredContent`` when
    it is a JSON object: a Q is ``{"value", "unit", ...}``)."""
    if value.__class__ is Q:
        m = value.magnitude
        if m.__class__ is float and m - m == 0 and value.datum is None and value.crs is None \
                and value.quality is None:  # the common case: {"value", "unit"} alone
            symbol = value.unit.symbol
            if _SAFE.issuperset(symbol):
                return {"content": [{"type": "text",
                                     "text": f'{{"value": {m!r}, "unit": "{symbol}"}}'}],
                        "isError": False, "structuredContent": {"value": m, "unit": symbol}}
        data = value_json(value)
        text = _plain_text(data)
        if text is not None:
            return {"content": [{"type": "text", "text": text}], "isError": False,
                    "structuredContent": data}
    import json
    data = value_json(value)
    text = json.dumps(data, ensure_ascii=False, allow_nan=False) if not isinstance(data, str) \
        else data
    out: dict = {"content": [{"type": "text", "text": text}], "isError": False}
    if isinstance(data, dict):
        out["structuredContent"] = data
    return out


