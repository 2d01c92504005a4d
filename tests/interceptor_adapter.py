"""The SEP-2624 conformance adapter for ``quantity_guard.mcp.interceptor`` (the contract of the
suite's ``conformance/ADAPTER.md``: createSession, list, invoke, chain; and its replay
algorithm).

``list`` and ``invoke`` are JSON-RPC lines through :class:`InterceptorServer` (what it puts on
the wire, parsed back), in either era: ``legacy`` (no protocol version in ``_meta``) or
``modern`` (2026-07-28: the envelope every result carries, ``resultType`` and the
``_meta`` server stamp, is checked and then taken off before the fixture's comparison).
``chain`` is :func:`execute_chain` over that wire. The fixture behaviours are bound in
``BEHAVIORS``; the security behaviours (``cross-boundary-guard``, ``secretless-redactor``)
are not: a units interceptor has none (tests/interceptor_fixtures/README.md)."""
from __future__ import annotations

import itertools
import json
from typing import Any

from quantity_guard.mcp.interceptor import (
    Interceptors,
    InterceptorServer,
    Invocation,
    execute_chain,
)

MODERN = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"


def canonical(value: Any) -> str:
    """RFC 8785 (JCS) for the values the fixtures hold (strings, integers, booleans, null,
    objects, arrays): sorted keys, no whitespace, minimal escapes. Non-integral numbers are
    refused rather than formatted in a way JCS might not."""
    def check(node: Any) -> None:
        if isinstance(node, float):
            raise TypeError(f"canonical(): a non-integral number {node!r} in a compared value")
        for child in node.values() if isinstance(node, dict) else \
                node if isinstance(node, list) else ():
            check(child)
    check(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def scrub(value: Any, keys: set[str]) -> Any:
    if isinstance(value, dict):
        return {k: scrub(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [scrub(v, keys) for v in value]
    return value


def _note(payload: Any) -> str | None:
    arguments = payload.get("arguments") if isinstance(payload, dict) else None
    note = arguments.get("note") if isinstance(arguments, dict) else None
    return note if isinstance(note, str) else None


def _invalid(message: str) -> dict:
    return {"valid": False, "severity": "error",
            "messages": [{"message": message, "severity": "error"}]}


def _require_note(inv: Invocation) -> dict:
    return {"valid": True} if _note(inv.payload) else _invalid("note is required")


def _require_uppercase(inv: Invocation) -> dict:
    note = _note(inv.payload)
    return {"valid": True} if note is not None and note == note.upper() else \
        _invalid("note must be uppercase")


def _uppercase(inv: Invocation) -> dict:
    note = _note(inv.payload)
    if note is None:
        return {"modified": False, "payload": inv.payload}
    return {"modified": True, "payload": {**inv.payload, "arguments": {
        **inv.payload["arguments"], "note": note.upper()}}}


def _crash(inv: Invocation) -> dict:
    raise RuntimeError("interceptor crashed")


BEHAVIORS = {
    "allow-all": lambda inv: {"valid": True},
    "deny-all": lambda inv: _invalid("denied by policy"),
    "require-note": _require_note,
    "require-uppercase-note": _require_uppercase,
    "uppercase-note": _uppercase,
    "crash": _crash,
}
SECURITY_BEHAVIORS = ("cross-boundary-guard", "secretless-redactor")


class WireError(Exception):
    def __init__(self, error: dict) -> None:
        super().__init__(f"JSON-RPC error {error['code']}: {error.get('message')}")
        self.code = error["code"]
        self.error = error


class Session:
    """createSession(interceptors): a fresh server with the fixture's interceptors."""

    def __init__(self, interceptors: list, era: str = "legacy") -> None:
        registry = Interceptors()
        for spec in interceptors:
            if spec["behavior"] not in BEHAVIORS:
                raise LookupError(f"behavior {spec['behavior']!r} is not bound by this adapter")
            registry.add(spec["name"], spec["type"], spec["events"], spec["phases"],
                         BEHAVIORS[spec["behavior"]], mode=spec.get("mode"),
                         fail_open=spec.get("failOpen", False))
        self.server = InterceptorServer(registry)
        self.era = era
        self._ids = itertools.count(1)

    def request(self, method: str, params: dict) -> dict:
        """One request through the server as a line; its result, or WireError."""
        if self.era == "modern":
            params = {**params, "_meta": {VERSION_KEY: MODERN}}
        ident = next(self._ids)
        line = json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        answers = self.server.handle_line(line.encode("utf-8") + b"\n")
        assert len(answers) == 1, answers
        answer = json.loads(answers[0])
        assert answer["jsonrpc"] == "2.0" and answer["id"] == ident, answer
        if "error" in answer:
            raise WireError(answer["error"])
        result = answer["result"]
        if self.era == "modern":  # the 2026-07-28 envelope, checked, then set aside
            assert result.pop("resultType") == "complete", result
            assert SERVER_INFO_KEY in result.pop("_meta"), result
        return result

    def list(self, event: str | None) -> dict:
        return self.request("interceptors/list", {} if event is None else {"event": event})

    def invoke(self, params: dict) -> dict:
        try:
            return {"ok": True, "result": self.request("interceptor/invoke", params)}
        except WireError as exc:
            return {"ok": False, "errorCode": exc.code}

    def chain(self, event: str, phase: str, payload: Any, session_id: str | None) -> dict:
        outcome = execute_chain(self.list(None)["interceptors"],
                                lambda params: self.request("interceptor/invoke", params),
                                event, phase, payload,
                                None if session_id is None else {"sessionId": session_id})
        return {"decision": outcome.decision, "finalPayload": outcome.payload}


def replay(fixture: dict, era: str = "legacy") -> list[str]:
    """The fixture's steps in order on one session: what failed (empty: it passed)."""
    session = Session(fixture["interceptors"], era)
    volatile = set(fixture["volatile"])
    failures: list[str] = []
    for n, step in enumerate(fixture["steps"], 1):
        expect = step["expect"]
        if step["op"] == "list":
            got = canonical(scrub(session.list(step["event"]), volatile))
            if got != expect["canonical"]:
                failures.append(f"step {n} list: {got} != {expect['canonical']}")
        elif step["op"] == "invoke":
            outcome = session.invoke(step["params"])
            if "errorCode" in expect:
                if outcome.get("errorCode") != expect["errorCode"]:
                    failures.append(f"step {n} invoke: {outcome} is not error "
                                    f"{expect['errorCode']}")
            elif not outcome["ok"]:
                failures.append(f"step {n} invoke: error {outcome['errorCode']}")
            else:
                got = canonical(scrub(outcome["result"], volatile))
                if got != expect["canonical"]:
                    failures.append(f"step {n} invoke: {got} != {expect['canonical']}")
        else:
            context = step["context"]
            outcome = session.chain(step["event"], step["phase"], step["payload"],
                                    None if context is None else context["sessionId"])
            if outcome["decision"] != expect["decision"]:
                failures.append(f"step {n} apply: {outcome['decision']} != {expect['decision']}")
                continue
            final = canonical(outcome["finalPayload"])
            if "finalPayloadCanonical" in expect and final != expect["finalPayloadCanonical"]:
                failures.append(f"step {n} apply: final payload {final}")
            for text in expect.get("forbids", ()):
                if text in final:
                    failures.append(f"step {n} apply: {text!r} is in {final}")
            for text in expect.get("requires", ()):
                if text not in final:
                    failures.append(f"step {n} apply: {text!r} is not in {final}")
    return failures
