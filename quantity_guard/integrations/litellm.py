"""The guard inside the LiteLLM proxy's MCP gateway (``pip install "litellm[proxy]"``).

A LiteLLM custom guardrail enforcing the annotation file ``quantity-guard-mcp`` reads, on the
MCP calls the proxy routes, with the proxy's policy (``quantity_guard.mcp.policy``): the same
conversions, refusal texts and codes, labelled results and carry-over checks. In the proxy's
``config.yaml``::

    mcp_servers:
      usgs:
        transport: stdio
        command: python
        args: ["demo/usgs_server.py"]
    guardrails:
      - guardrail_name: quantity-guard
        litellm_params:
          guardrail: quantity_guard.integrations.litellm.QuantityGuardrail
          mode: [pre_mcp_call, post_mcp_call]
          default_on: true
          annotations: /etc/quantity-guard/annotations.toml
          enforcement: strict     # or "warn": report, refuse nothing

- ``pre_mcp_call`` (LiteLLM's ``async_pre_call_hook`` with ``call_type="call_mcp_tool"``):
  the arguments of an annotated tool are checked and converted into the unit the upstream
  expects (``"1250 cfs"`` goes on as ``35.39605824``, through the hook's
  ``modified_arguments``); a violation raises, so nothing goes upstream, and LiteLLM answers
  the client with an ``isError`` result carrying the proxy's repair text.
- ``post_mcp_call`` (``async_post_mcp_tool_call_hook``): a bare numeric result comes back
  labelled (``{"value": 1250.0, "unit": "cfs"}``), as from the proxy, and is recorded in the
  conversation's ledger.
- Carry-over and provenance are checked per conversation, keyed by the caller's
  authenticated LiteLLM key (its hash, as the proxy computed it) and, under that key, the
  client's ``Mcp-Session-Id``: a client can choose its session, never another key's ledger;
  a call that proves no key keeps nothing.
- A tool is found in the annotations through ``tools`` (LiteLLM name -> annotated name), else
  by its name, else by its name without the server's prefix (``usgs-read_discharge``).

**It proves it ran.** Every guarded call writes one line on the ``quantity_guard.litellm``
logger at INFO (``guarded pre_mcp_call runoff_depth: converted discharge``, ``refused``,
``labelled``, ``passed``), the guardrail counts them (``QuantityGuardrail.counts``), and with
OpenTelemetry in use each call is a span and counted in the metrics
(``quantity_guard.where = "litellm"``). LiteLLM's own guardrail metrics and logs name the
guardrail too, on its pre-call hook.
"""
from __future__ import annotations

import itertools
import logging
import threading
from collections import OrderedDict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["QuantityGuardrail", "MAX_SESSIONS", "LOGGER_NAME"]

MAX_SESSIONS = 256  # conversations whose ledgers are kept (the least recent dropped first)
MAX_PENDING = 1024  # calls between their pre and post hooks (the oldest dropped first)
LOGGER_NAME = "quantity_guard.litellm"
_CALL_KEY = "quantity_guard_call"  # in LiteLLM's model_call_details, from pre to post
_SESSION_HEADERS = ("mcp-session-id", "x-mcp-session-id")
_COUNTED = ("converted", "passed", "refused", "labelled", "recorded", "unlabelled")
_MCP_MODES = ("pre_mcp_call", "post_mcp_call")
FORMAT = "%(asctime)s - %(name)s:%(levelname)s - %(message)s"

_CLASS = None
_log = logging.getLogger(LOGGER_NAME)
_handler: "logging.Handler | None" = None


def configure_logging(level: str) -> None:
    """The ``quantity_guard`` records at ``level`` and above to this process's stderr, beside
    LiteLLM's own lines (once; ``"off"`` leaves logging as the process configured it)."""
    global _handler
    if str(level).lower() == "off":
        return
    package = logging.getLogger("quantity_guard")
    if _handler is None:
        import sys
        _handler = logging.StreamHandler(sys.stderr)
        _handler.setFormatter(logging.Formatter(FORMAT))
        package.addHandler(_handler)
        package.propagate = False  # the root logger's handlers would print each line twice
    package.setLevel(str(level).upper())


def __getattr__(name: str) -> "Any":
    """``QuantityGuardrail`` is built on first access (it subclasses LiteLLM's
    ``CustomGuardrail``, imported then), so importing this module imports no part of LiteLLM."""
    if name == "QuantityGuardrail":
        return _guardrail_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def conversation_key(data: "dict") -> "tuple[str | None, str | None]":
    """(owner, session) of a call: the caller's authenticated key (the hash LiteLLM computed,
    else its user id; None when the call is not authenticated, whose calls then keep nothing)
    and the client's MCP session id, which only tells one owner's conversations apart."""
    owner = data.get("user_api_key_hash") or data.get("user_api_key_user_id")
    if not isinstance(owner, str) or not owner:
        return None, None
    metadata = data.get("metadata")
    headers = metadata.get("headers") if isinstance(metadata, dict) else None
    session = None
    if isinstance(headers, dict):
        lowered = {str(k).lower(): v for k, v in headers.items()}
        for name in _SESSION_HEADERS:
            value = lowered.get(name)
            if isinstance(value, str) and value:
                session = value
                break
    return owner, session


def _guardrail_class():
    global _CLASS
    if _CLASS is not None:
        return _CLASS
    from . import require
    custom = require("litellm.integrations.custom_guardrail", "litellm", "litellm")
    from ..annotations import load
    from ..observe import current
    from .gateways import Ledgers, annotated_name, check_call

    class QuantityGuardrail(custom.CustomGuardrail):
        """quantity-guard's annotations enforced on LiteLLM's MCP guardrail hooks (module doc)."""

        def __init__(self, annotations: "str | None" = None, enforcement: str = "strict",
                     tools: "dict | None" = None, max_sessions: int = MAX_SESSIONS,
                     log_level: str = "INFO", **kwargs: "Any") -> None:
            name = kwargs.get("guardrail_name") or "quantity-guard"
            if not isinstance(annotations, str) or not annotations:
                raise ValueError(f"guardrail {name}: litellm_params.annotations must be the "
                                 f"path of a quantity-guard annotations file (TOML or JSON), "
                                 f"received {annotations!r}")
            if enforcement not in ("strict", "warn"):
                raise ValueError(f"guardrail {name}: litellm_params.enforcement must be "
                                 f"'strict' or 'warn', received {enforcement!r}")
            if tools is not None and not isinstance(tools, dict):
                raise ValueError(f"guardrail {name}: litellm_params.tools maps LiteLLM tool "
                                 f"names to annotated names, received {type(tools).__name__}")
            super().__init__(**kwargs)
            self.annotations = load(annotations)
            self.enforcement = enforcement
            self.aliases = {str(k): str(v) for k, v in (tools or {}).items()}
            self.sessions = Ledgers(self.annotations, enforcement, int(max_sessions))
            self.counts = dict.fromkeys(_COUNTED, 0)
            self._pending: "OrderedDict[str, tuple]" = OrderedDict()
            self._ids = itertools.count(1)
            self._lock = threading.Lock()
            configure_logging(log_level)
            modes = kwargs.get("event_hook")
            modes = [modes] if isinstance(modes, str) else list(modes or ())
            modes = [str(getattr(m, "value", m)) for m in modes]
            _log.info("guardrail %s: %d annotated tools from %s, on %s, enforcement %s", name,
                      len(self.annotations), annotations, ", ".join(modes) or "no hook",
                      enforcement)
            missing = [m for m in _MCP_MODES if m not in modes]
            if missing:
                _log.warning("guardrail %s: its mode lacks %s, so MCP calls are not %s; set "
                             "mode: [pre_mcp_call, post_mcp_call]", name, " and ".join(missing),
                             "converted or refused" if "pre_mcp_call" in missing
                             else "labelled")
            if kwargs.get("default_on") is not True:
                _log.warning("guardrail %s: default_on is not true, so it runs only on the "
                             "requests that name it", name)

        def _annotated(self, name: str) -> "str | None":
            """The annotated tool a LiteLLM tool name stands for, or None."""
            return annotated_name(self.annotations, self.aliases, name)

        def _count(self, what: str) -> None:
            with self._lock:
                self.counts[what] += 1

        async def async_pre_call_hook(self, user_api_key_dict: "Any", cache: "Any",
                                      data: dict, call_type: "Any") -> "Any":
            if call_type != "call_mcp_tool":
                return data
            name = data.get("mcp_tool_name")
            tool = self._annotated(name) if isinstance(name, str) else None
            if tool is None:
                return data
            arguments = data.get("mcp_arguments")
            owner, session = conversation_key(data)
            policy = self.sessions.policy(session, user=owner)
            _log.debug("pre_mcp_call %s (LiteLLM name %s), conversation %s", tool, name,
                       (owner or "unauthenticated")[-12:])
            observer = current()
            attributes = {"quantity_guard.enforcement": self.enforcement}
            verdict = observer.start(tool, where="litellm", kind="server",
                                     attributes=attributes) if observer else None
            decision, refusal = check_call(
                policy, tool, dict(arguments) if isinstance(arguments, dict) else arguments,
                verdict)
            if refusal is not None:
                text, code, field = refusal
                self._count("refused")
                _log.info("guarded pre_mcp_call %s: refused %s [%s]", tool, field or "the call",
                          code)
                raise _refusal(text, code, field)
            forwarded = decision.payload
            changed = sorted(k for k in forwarded if not isinstance(arguments, dict)
                             or arguments.get(k) != forwarded[k])
            self._count("converted" if changed else "passed")
            _log.info("guarded pre_mcp_call %s: %s", tool,
                      f"converted {', '.join(changed)}" if changed else "passed")
            token = f"{next(self._ids)}"
            with self._lock:
                self._pending[token] = (tool, policy, forwarded, verdict)
                while len(self._pending) > MAX_PENDING:
                    self._pending.popitem(last=False)
            logging_obj = data.get("litellm_logging_obj")
            details = getattr(logging_obj, "model_call_details", None)
            if isinstance(details, dict):
                details[_CALL_KEY] = token
            if changed:
                data["modified_arguments"] = forwarded
                data["mcp_arguments"] = forwarded
            return data

        async def async_post_mcp_tool_call_hook(self, kwargs: dict, response_obj: "Any",
                                                start_time: "Any", end_time: "Any") -> "Any":
            token = kwargs.get(_CALL_KEY) if isinstance(kwargs, dict) else None
            with self._lock:
                kept = self._pending.pop(token, None) if isinstance(token, str) else None
            if kept is None:
                return None
            tool, policy, forwarded, verdict = kept
            sent = kwargs.get("original_response")  # the upstream's CallToolResult
            structured = getattr(sent, "structured_content", None)
            if getattr(sent, "is_error", False) is True:
                call = policy.ledger.calls[-1] if policy.ledger.calls else None
                if call is not None and call.tool == tool and call.ok is None:
                    call.finish(ok=False)  # the upstream failed: its record is closed
                if verdict is not None:
                    verdict.end("tool_error")
                _log.info("guarded post_mcp_call %s: upstream error, passed", tool)
                return None
            content = [c.model_dump(mode="json", by_alias=True, exclude_none=True)
                       if hasattr(c, "model_dump") else c
                       for c in response_obj.mcp_tool_call_response]
            raw: dict = {"content": content, "isError": False}
            if isinstance(structured, dict):
                raw["structuredContent"] = structured
            if verdict is not None:
                verdict.enter()
                verdict.start()
            try:
                labelled = policy.label_result(tool, forwarded, raw)
                policy.settle()
            finally:
                if verdict is not None:
                    verdict.end()
            if labelled is raw or labelled.get("isError") is True:
                self._count("unlabelled")
                _log.info("guarded post_mcp_call %s: unlabelled", tool)
                return None
            out = labelled.get("structuredContent")
            unit = out.get("unit") if isinstance(out, dict) else None
            if "structuredContent" in raw:
                # LiteLLM turns a result whose content a hook replaced while it has a
                # structuredContent into an error: recorded in the ledger, sent as it came
                self._count("recorded")
                _log.info("guarded post_mcp_call %s: recorded, sent as the upstream sent it "
                          "(it has structuredContent)", tool)
                return None
            self._count("labelled")
            _log.info("guarded post_mcp_call %s: labelled%s", tool, f" {unit}" if unit else "")
            from mcp.types import TextContent
            response_obj.mcp_tool_call_response = [
                TextContent.model_validate(c) if isinstance(c, dict) and c.get("type") == "text"
                else c for c in labelled.get("content") or ()]
            return response_obj

    _CLASS = QuantityGuardrail
    return _CLASS


def _refusal(text: str, code: "str | None", field: "str | None") -> Exception:
    """The exception LiteLLM turns into the client's refused call: the repair text, word for
    word, as its message."""
    from fastapi import HTTPException
    return HTTPException(status_code=400, detail={"error": text, "code": code, "field": field})
