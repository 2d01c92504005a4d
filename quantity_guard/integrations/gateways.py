"""What the gateway plug-ins share (ContextForge, LiteLLM): the table of ledgers per
authenticated user's session, the annotated tool a gateway's tool name stands for, and a result
in MCP's wire names. Imports no gateway."""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any


class Ledgers:
    """A policy (and so a ledger) per session of each authenticated user, sharing one record of
    the upstream's listing; the last ``max_sessions`` kept, at most an eighth of them one
    user's."""

    def __init__(self, annotations: "Any", enforcement: str, max_sessions: int) -> None:
        from ..mcp.policy import QuantityPolicy
        self._make = lambda: QuantityPolicy(annotations, enforcement=enforcement)
        self.shared = self._make()
        self.max_sessions = max_sessions
        self._by_key: "OrderedDict[str, Any]" = OrderedDict()
        self._lock = threading.Lock()

    def policy(self, key: "str | None", user: "str | None" = None) -> "Any":
        """The policy of ``user``'s session ``key`` (None: the user's calls without one); a
        fresh one, kept nowhere, for a call without an authenticated user."""
        if user is None:
            fresh = self._make()
            fresh.share_listing(self.shared)
            return fresh
        whose = f"{user}\0{key or ''}"
        with self._lock:
            policy = self._by_key.get(whose)
            if policy is None:
                policy = self._by_key[whose] = self._make()
                policy.share_listing(self.shared)
                mine = [k for k in self._by_key if k.startswith(user + "\0")]
                for old in mine[:max(0, len(mine) - max(1, self.max_sessions // 8))]:
                    del self._by_key[old]  # this user's least recent first
                while len(self._by_key) > self.max_sessions:
                    self._by_key.popitem(last=False)
            else:
                self._by_key.move_to_end(whose)
            return policy


def annotated_name(annotations: "Any", aliases: dict, name: str) -> "str | None":
    """The annotated tool a gateway's tool ``name`` is: by alias, by name, or as the annotated
    name behind a gateway's prefix (``hydro-runoff`` is ``runoff``); None if none."""
    if name in aliases:
        return aliases[name]
    if name in annotations:
        return name
    for annotated in annotations:
        for variant in {annotated, annotated.replace("_", "-")}:
            if len(name) > len(variant) and name.endswith(variant) and \
                    not name[-len(variant) - 1].isalnum():
                return annotated
    return None


def wire_names(result: dict) -> dict:
    """A result the gateway dumped with Python field names, in MCP's wire names."""
    out = dict(result)
    if "structured_content" in out and "structuredContent" not in out:
        out["structuredContent"] = out.pop("structured_content")
    if "is_error" in out and "isError" not in out:
        out["isError"] = out.pop("is_error")
    for key in ("structuredContent", "_meta", "meta"):
        if out.get(key) is None:
            out.pop(key, None)
    return out


def check_call(policy: "Any", tool: str, arguments: "Any", verdict: "Any") -> "tuple[Any, Any]":
    """``policy.check_call`` timed by the call's ``verdict`` (an observer's, or None):
    ``(decision, refusal)``, where a refusal (the verdict then ended) is ``(repair text, code,
    field)`` read from the refused result, and None for a call that goes on."""
    if verdict is not None:
        verdict.enter()
        verdict.start()
    try:
        decision = policy.check_call(tool, arguments)
    finally:
        if verdict is not None:
            verdict.stop()
            verdict.leave()
    if decision.action != "refuse":
        return decision, None
    if verdict is not None:
        verdict.end()
    from ..errors import VIOLATION_META
    result = decision.payload
    meta = (result.get("_meta") or {}).get(VIOLATION_META) or {}
    text = "".join(c.get("text", "") for c in result.get("content") or () if isinstance(c, dict))
    return decision, (text, meta.get("code"), meta.get("field"))
