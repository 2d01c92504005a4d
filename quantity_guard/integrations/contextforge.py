"""The guard inside IBM ContextForge (``pip install mcp-contextforge-gateway``, Python 3.12+).

A ContextForge plug-in enforcing the annotation file ``quantity-guard-mcp`` reads, on the
gateway's ``tool_pre_invoke`` and ``tool_post_invoke`` hooks, with the proxy's policy
(``quantity_guard.mcp.policy.QuantityPolicy``): the same conversions, refusal texts and codes,
labelled results and carry-over checks. In the gateway's ``plugins/config.yaml``::

    plugins:
      - name: "QuantityGuard"
        kind: "quantity_guard.integrations.contextforge.QuantityGuardPlugin"
        hooks: ["tool_pre_invoke", "tool_post_invoke"]
        mode: "enforce"
        priority: 10
        config:
          annotations: "/etc/quantity-guard/annotations.toml"
          enforcement: "strict"        # or "warn": report, refuse nothing
          # tools: {"hydro-runoff-depth": "runoff_depth"}  # gateway name -> annotated name

and start the gateway with ``PLUGINS_ENABLED=true PLUGIN_CONFIG_FILE=plugins/config.yaml``.

- ``tool_pre_invoke``: the arguments of an annotated tool are checked and converted into the
  unit the upstream expects (``"1250 cfs"`` goes on as ``35.39605824``); a violation blocks the
  call (nothing goes upstream) with a ``PluginViolation`` whose ``code`` is the guard's code
  (``unconverted_carry_over``, ``dimensionality_error``, ...) and whose ``reason`` is the
  proxy's repair text, word for word. ContextForge answers the client with an ``isError``
  result whose text it writes as ``tool_pre_invoke blocked by plugin <name>: <code> -
  <reason> (<description>)``; the description names the field.
- ``tool_post_invoke``: a bare numeric result comes back labelled (``{"value": 1250.0,
  "unit": "cfs"}``), as from the proxy.
- Carry-over and provenance are checked across the calls of one user's gateway session: the
  user (and tenant) the gateway authenticated, with the client's ``Mcp-Session-Id`` as the
  gateway itself reads it; a user's calls without one (a 2026-07-28 client has no session)
  share that user's ledger. A session id never joins another user's ledger, and a call the
  gateway did not authenticate has a ledger of its own (no history). One user holds at most
  an eighth of ``max_sessions`` ledgers (its least recent dropped first), so no user can push
  another's out.
- A tool is found in the annotations through ``config.tools``, else by its gateway name, else
  by the name its upstream gave it (the gateway prefixes it with the upstream's slug).
- ContextForge validates the arguments against the input schema it stored for the tool before
  any plug-in runs, so that schema must accept what the guard accepts (``"1250 cfs"``,
  ``{"value", "unit"}``): ``python -m quantity_guard.integrations.contextforge sync --gateway
  URL --annotations FILE`` (token in ``MCPGATEWAY_BEARER_TOKEN``) stores the schemas the proxy
  advertises, after an upstream is registered or re-listed.

Each guarded call is also a span and counted in the metrics when OpenTelemetry is in use
(``quantity_guard.observe``), with ``quantity_guard.where = "contextforge"``.
"""
from __future__ import annotations

from .gateways import Ledgers, annotated_name, check_call, wire_names

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["QuantityGuardPlugin", "MAX_SESSIONS", "Ledgers", "user_of"]

MAX_SESSIONS = 256  # gateway sessions whose ledgers are kept (the least recent dropped first)
_STATE_KEY = "quantity_guard"  # in the plug-in's per-request context, from pre to post
_SESSION_HEADERS = ("mcp-session-id", "x-mcp-session-id")

_CLASS = None


def __getattr__(name: str) -> "Any":
    """``QuantityGuardPlugin`` is built on first access (it subclasses ContextForge's plug-in
    base class, imported then), so importing this module imports no part of ContextForge."""
    if name == "QuantityGuardPlugin":
        return _plugin_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")




def user_of(context: "Any") -> "str | None":
    """The user (and tenant) the gateway authenticated for this call, hashed; None if none."""
    found = getattr(context, "global_context", None)
    user = getattr(found, "user", None)
    if isinstance(user, dict):
        user = user.get("email") or user.get("sub") or user.get("id")
    if not user:
        return None
    import hashlib
    text = f"{getattr(found, 'tenant_id', None) or ''}\0{user}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def _session_key(payload: "Any", context: "Any") -> "str | None":
    """The client's MCP session id, from the hook's HTTP headers where the gateway passes them."""
    sources: "list[Any]" = []
    extensions = getattr(payload, "extensions", None) or getattr(context, "extensions", None)
    http = getattr(extensions, "http", None)
    if http is not None:
        sources.append(getattr(http, "headers", None))
    headers = getattr(payload, "headers", None)
    if headers is not None:
        sources.append(getattr(headers, "root", headers))
    for source in sources:
        if hasattr(source, "model_dump"):
            source = source.model_dump()
        if isinstance(source, dict):
            lowered = {str(k).lower(): v for k, v in source.items()}
            for name in _SESSION_HEADERS:
                value = lowered.get(name)
                if isinstance(value, str) and value:
                    return value
    try:  # in the gateway's process: the downstream session the gateway itself keys on
        from mcpgateway.services.upstream_session_registry import (
            downstream_session_id_from_request_context)
    except ImportError:
        return None
    value = downstream_session_id_from_request_context()
    return value if isinstance(value, str) and value else None


def _original_name(context: "Any") -> "str | None":
    """The name the upstream gave the tool, from the gateway's record of it (if passed)."""
    metadata = getattr(getattr(context, "global_context", None), "metadata", None)
    tool = metadata.get("tool") if isinstance(metadata, dict) else None
    name = getattr(tool, "original_name", None)
    return name if isinstance(name, str) else None


def _plugin_class():
    global _CLASS
    if _CLASS is not None:
        return _CLASS
    from . import require
    framework = require("cpex.framework", "mcp-contextforge-gateway", "contextforge")
    from ..annotations import load
    from ..observe import current, session_digest

    class QuantityGuardPlugin(framework.Plugin):
        """quantity-guard's annotations enforced on ContextForge's tool hooks (module doc)."""

        def __init__(self, config: "Any") -> None:
            super().__init__(config)
            settings = dict(getattr(config, "config", None) or {})
            path = settings.get("annotations")
            if not isinstance(path, str) or not path:
                raise ValueError(f"plugin {config.name}: config.annotations must be the path of "
                                 f"a quantity-guard annotations file (TOML or JSON), received "
                                 f"{path!r}")
            enforcement = settings.get("enforcement", "strict")
            if enforcement not in ("strict", "warn"):
                raise ValueError(f"plugin {config.name}: config.enforcement must be 'strict' or "
                                 f"'warn', received {enforcement!r}")
            aliases = settings.get("tools") or {}
            if not isinstance(aliases, dict):
                raise ValueError(f"plugin {config.name}: config.tools maps gateway tool names "
                                 f"to annotated names, received {type(aliases).__name__}")
            self.annotations = load(path)
            self.enforcement = enforcement
            self.aliases = {str(k): str(v) for k, v in aliases.items()}
            self.sessions = Ledgers(self.annotations, enforcement,
                                      int(settings.get("max_sessions", MAX_SESSIONS)))

        def _annotated(self, name: str) -> "str | None":
            """The annotated tool a gateway tool name stands for, or None."""
            return annotated_name(self.annotations, self.aliases, name)

        async def tool_pre_invoke(self, payload: "Any", context: "Any") -> "Any":
            tool = self._annotated(payload.name)
            if tool is None:
                original = _original_name(context)
                tool = self._annotated(original) if original else None
            if tool is None:
                return framework.PluginResult(continue_processing=True)
            key = _session_key(payload, context)
            policy = self.sessions.policy(key, user_of(context))
            observer = current()
            attributes = {"quantity_guard.enforcement": self.enforcement}
            if key is not None:
                attributes["mcp.session.id"] = session_digest(key)  # never the bearer value
            verdict = observer.start(tool, where="contextforge", kind="server",
                                     attributes=attributes) if observer else None
            decision, refusal = check_call(policy, tool, dict(payload.args or {}), verdict)
            if refusal is not None:
                text, code, field = refusal
                return framework.PluginResult(
                    continue_processing=False,
                    violation=framework.PluginViolation(
                        reason=text, code=code or "invalid_arguments",
                        description=f"field {field}" if field else "the call's arguments",
                        details={"code": code, "field": field, "repair": text}))
            context.state[_STATE_KEY] = (tool, policy, decision.payload, verdict)
            forwarded = payload.model_copy(update={"args": decision.payload})
            return framework.PluginResult(modified_payload=forwarded)

        async def tool_post_invoke(self, payload: "Any", context: "Any") -> "Any":
            kept = context.state.pop(_STATE_KEY, None)
            if kept is None:
                return framework.PluginResult(continue_processing=True)
            tool, policy, forwarded, verdict = kept
            result = payload.result
            if verdict is not None:
                verdict.enter()
                verdict.start()
            try:
                if not isinstance(result, dict) or result.get("isError") is True or \
                        result.get("is_error") is True:
                    call = policy.ledger.calls[-1] if policy.ledger.calls else None
                    if call is not None and call.tool == tool and call.ok is None:
                        call.finish(ok=False)  # the upstream failed: its record is closed
                    if verdict is not None:
                        verdict.end("tool_error")
                    return framework.PluginResult(continue_processing=True)
                raw = wire_names(result)
                labelled = policy.label_result(tool, forwarded, raw)
                policy.settle()  # no answer to send first: record it now
            finally:
                if verdict is not None:
                    verdict.end()
            if labelled is raw:
                return framework.PluginResult(continue_processing=True)
            return framework.PluginResult(
                modified_payload=payload.model_copy(update={"result": labelled}))

    _CLASS = QuantityGuardPlugin
    return _CLASS


# -- the gateway's copy of the tools' schemas ------------------------------------------------------
# ContextForge validates a call's arguments against the input schema it stored when it listed
# the upstream, before any plug-in runs: a guarded parameter must be advertised as the proxy
# advertises it (a number, "1250 cfs" or {"value", "unit"}, with x-unit) or "1250 cfs" is
# refused by the gateway's own validator. ``sync`` stores the advertised schemas.
def advertised(annotations: "Any", tools: list, aliases: "dict | None" = None) -> list:
    """``[(tool id, ToolUpdate body)]`` for the gateway's tools (``GET /tools``) that the
    annotations guard: the input schema, output schema and description the proxy advertises."""
    from ..mcp.policy import QuantityPolicy
    policy = QuantityPolicy(annotations)
    updates = []
    for tool in tools:
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            continue
        name = annotated_name(annotations, aliases or {}, tool["name"])
        if name is None and isinstance(tool.get("originalName"), str):
            name = annotated_name(annotations, aliases or {}, tool["originalName"])
        if name is None:
            continue
        import copy
        listed = {"name": name, "inputSchema": copy.deepcopy(tool.get("inputSchema")),
                  "description": tool.get("originalDescription") or tool.get("description")}
        if isinstance(tool.get("outputSchema"), dict):
            listed["outputSchema"] = copy.deepcopy(tool["outputSchema"])
        shown = policy.advertise(listed)
        body = {"input_schema": shown["inputSchema"], "description": shown.get("description")}
        if "outputSchema" in shown:
            body["output_schema"] = shown["outputSchema"]
        updates.append((tool.get("id"), body))
    return updates


def sync(gateway: str, annotations_path: str, token: "str | None" = None,
         aliases: "dict | None" = None, timeout: float = 30.0) -> list:
    """Store the advertised schemas of the annotated tools in the gateway at ``gateway`` (its
    base URL), through its REST API (``GET /tools``, ``PUT /tools/{id}``); returns the names
    updated. Run it after registering an upstream (and after the gateway re-lists one)."""
    import json
    import urllib.request

    from ..annotations import load
    annotations = load(annotations_path)
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    base = gateway.rstrip("/")

    def call(method: str, path: str, body: "Any" = None) -> "Any":
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            return json.loads(response.read() or b"null")

    tools = call("GET", "/tools?include_inactive=false&limit=0")
    if isinstance(tools, dict):
        tools = tools.get("items") or tools.get("tools") or []
    names = {t.get("id"): t.get("name") for t in tools if isinstance(t, dict)}
    updated = []
    for tool_id, body in advertised(annotations, tools, aliases):
        call("PUT", f"/tools/{tool_id}", body)
        updated.append(names.get(tool_id))
    return updated


def main(argv: "list[str] | None" = None) -> int:
    """``python -m quantity_guard.integrations.contextforge sync --gateway URL --annotations
    FILE``: the bearer token is read from ``MCPGATEWAY_BEARER_TOKEN``."""
    import argparse
    import os
    parser = argparse.ArgumentParser(prog="python -m quantity_guard.integrations.contextforge")
    sub = parser.add_subparsers(dest="command", required=True)
    cmd = sub.add_parser("sync", help="store the advertised schemas of the annotated tools")
    cmd.add_argument("--gateway", required=True, help="the gateway's base URL")
    cmd.add_argument("--annotations", required=True, help="the annotations file")
    args = parser.parse_args(argv)
    updated = sync(args.gateway, args.annotations, os.environ.get("MCPGATEWAY_BEARER_TOKEN"))
    print(f"{len(updated)} tool(s) advertised with units: {', '.join(map(str, updated)) or '-'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
