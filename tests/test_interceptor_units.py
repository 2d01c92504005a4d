"""The units validator and mutator of ``quantity-guard-mcp interceptor``, on the wire (JSON-RPC
lines through the interceptor server): what each refuses, converts and labels, the
conversation each call belongs to, and the errors."""
from __future__ import annotations

import itertools
import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from quantity_guard.annotations import loads
from quantity_guard.mcp.interceptor import (
    MUTATOR,
    VALIDATOR,
    Interceptors,
    InterceptorServer,
    Invocation,
    UnitsInterceptors,
    execute_chain,
)

ROOT = Path(__file__).resolve().parent.parent
# the demo's tools, and two taking a timestamp and a graded record
ANNOTATIONS = (ROOT / "demo" / "water.toml").read_text("utf-8") + """
[tools.series.params]
start = { tz = "America/Chicago" }
[tools.alarm.params]
stage = { unit = "ft", quality = "approved" }
"""
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
TRACE = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
OTHER_TRACE = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


class Wire:
    """An interceptor server of ANNOTATIONS, spoken to in JSON-RPC lines."""

    def __init__(self, enforcement: str = "strict", modern: bool = False) -> None:
        self.units = UnitsInterceptors(loads(ANNOTATIONS), enforcement=enforcement)
        self.server = InterceptorServer(self.units.register(Interceptors()),
                                        on_initialize=self.units.remember_client)
        self.modern = modern
        self.ids = itertools.count(1)

    def answer(self, method: str, params: dict) -> dict:
        if self.modern:
            params = {**params, "_meta": {**params.get("_meta", {}), VERSION_KEY: "2026-07-28"}}
        line = json.dumps({"jsonrpc": "2.0", "id": next(self.ids), "method": method,
                           "params": params}).encode() + b"\n"
        (out,) = self.server.handle_line(line)
        return json.loads(out)

    def invoke(self, name: str, phase: str, payload, session: str | None = "s1",
               meta: dict | None = None, event: str = "tools/call") -> dict:
        params = {"name": name, "event": event, "phase": phase, "payload": payload}
        if session is not None:
            params["context"] = {"sessionId": session}
        if meta is not None:
            params["_meta"] = meta
        answer = self.answer("interceptor/invoke", params)
        assert "result" in answer, answer
        return answer["result"]

    def error(self, params: dict, method: str = "interceptor/invoke") -> dict:
        answer = self.answer(method, params)
        assert "error" in answer, answer
        return answer["error"]

    def validate(self, tool: str, arguments: dict, **kw) -> dict:
        return self.invoke(VALIDATOR, "request", {"name": tool, "arguments": arguments}, **kw)

    def call(self, tool: str, arguments: dict, text: str, **kw) -> dict:
        """A whole call as a host runs it: the request mutated and validated, the result
        labelled; the labelled result."""
        self.invoke(MUTATOR, "request", {"name": tool, "arguments": arguments}, **kw)
        return self.invoke(MUTATOR, "response", {"content": [{"type": "text", "text": text}]},
                           **kw)["payload"]


VIOLATIONS = [
    # kind, tool, history before, refused arguments, code, path, history after, accepted
    ("wrong dimension", "runoff_depth", [], {"discharge": "3 m"}, "dimensionality_error",
     "arguments.discharge", [], {"discharge": "1250 cfs"}),
    ("datum", "freeboard", [], {"stage": "10 ft NGVD29"}, "datum_mismatch", "arguments.stage",
     [], {"stage": {"value": 10, "unit": "ft", "datum": "NAVD88"}}),
    ("time zone", "series", [], {"start": "2026-03-01T06:00:00"}, "timezone_error",
     "arguments.start", [], {"start": "2026-03-01T06:00:00-06:00"}),
    ("quality", "alarm", [], {"stage": {"value": 3, "unit": "ft", "quality": "provisional"}},
     "quality_violation", "arguments.stage", [],
     {"stage": {"value": 3, "unit": "ft", "quality": "approved"}}),
    ("carry-over", "runoff_depth", [("read_discharge", "1250")], {"discharge": 1250},
     "unconverted_carry_over", "arguments.discharge", [],
     {"discharge": {"value": 1250, "unit": "cfs"}}),
    ("unsourced", "runoff_depth", [], {"area": "2 km**2"}, "unsourced_input", "arguments.area",
     [("read_drainage_area", "2")], {"area": "2 km**2"}),
]


@pytest.mark.parametrize("kind,tool,before,bad,code,path,after,good", VIOLATIONS,
                         ids=[row[0] for row in VIOLATIONS])
def test_the_validator_refuses_a_violation_with_its_repair_text_and_passes_the_repair(
        kind, tool, before, bad, code, path, after, good):
    wire = Wire()
    for name, text in before:
        wire.call(name, {}, text)
    result = wire.validate(tool, bad)
    (message,) = result["messages"]
    assert result["valid"] is False and result["severity"] == "error"
    assert message["path"] == path and message["severity"] == "error"
    assert message["message"].startswith(f"{tool}.{path.split('.')[1]}: ")
    assert "Send instead: " in message["message"]
    assert result["info"] == {"code": code, "tool": tool}
    for name, text in after:
        wire.call(name, {}, text)
    accepted = wire.validate(tool, good)
    assert accepted.pop("durationMs") >= 0
    assert accepted == {"interceptor": VALIDATOR, "type": "validation", "phase": "request",
                        "valid": True}


def test_the_validator_gives_the_proxys_repair_text_word_for_word():
    from quantity_guard.mcp.policy import QuantityPolicy
    policy = QuantityPolicy(loads(ANNOTATIONS))
    refused = policy.check_call("runoff_depth", {"discharge": "3 m"}).payload
    result = Wire().validate("runoff_depth", {"discharge": "3 m"})
    assert result["messages"][0]["message"] == refused["content"][0]["text"]


MUTATIONS = [
    # tool, arguments, modified, arguments sent on
    ("runoff_depth", {"discharge": "1250 cfs"}, True, {"discharge": 35.39605824}),
    ("runoff_depth", {"discharge": {"value": 1, "unit": "m3/s"}}, True, {"discharge": 1.0}),
    ("runoff_depth", {"discharge": 35.4}, False, {"discharge": 35.4}),
    ("unannotated_tool", {"discharge": "1250 cfs"}, False, {"discharge": "1250 cfs"}),
    ("runoff_depth", {"discharge": "3 m"}, False, {"discharge": "3 m"}),  # refused: unchanged
]


@pytest.mark.parametrize("tool,arguments,modified,sent", MUTATIONS)
def test_the_mutator_converts_arguments_into_the_annotated_units(tool, arguments, modified,
                                                                  sent):
    result = Wire().invoke(MUTATOR, "request", {"name": tool, "arguments": arguments})
    assert result["modified"] is modified
    assert result["payload"] == {"name": tool, "arguments": sent}


def test_the_mutator_labels_the_bare_result_of_the_conversations_latest_call():
    wire = Wire()
    wire.invoke(MUTATOR, "request", {"name": "read_discharge", "arguments": {"site": "1"}})
    result = wire.invoke(MUTATOR, "response", {"content": [{"type": "text", "text": "1250"}]})
    assert result["modified"] is True
    assert result["payload"]["structuredContent"] == {"value": 1250.0, "unit": "cfs"}
    assert json.loads(result["payload"]["content"][0]["text"]) == {"value": 1250.0,
                                                                   "unit": "cfs"}


@pytest.mark.parametrize("request_first,result", [
    (None, {"content": [{"type": "text", "text": "1250"}]}),  # no call to belong to
    ({"name": "unannotated_tool", "arguments": {}}, {"content": [{"type": "text", "text": "1"}]}),
    ({"name": "read_discharge", "arguments": {}},
     {"content": [{"type": "text", "text": "upstream down"}], "isError": True}),
    ({"name": "runoff_depth", "arguments": {"discharge": "3 m"}},  # refused, so never sent
     {"content": [{"type": "text", "text": "1"}]}),
])
def test_the_mutator_leaves_a_result_it_cannot_place_or_label(request_first, result):
    wire = Wire()
    if request_first is not None:
        wire.invoke(MUTATOR, "request", request_first)
    answer = wire.invoke(MUTATOR, "response", result)
    assert answer["modified"] is False and answer["payload"] == result


def test_a_result_is_placed_in_its_own_conversation_only():
    wire = Wire()
    wire.invoke(MUTATOR, "request", {"name": "read_discharge", "arguments": {}}, session="a")
    other = wire.invoke(MUTATOR, "response", {"content": [{"type": "text", "text": "9"}]},
                        session="b")
    mine = wire.invoke(MUTATOR, "response", {"content": [{"type": "text", "text": "9"}]},
                       session="a")
    assert other["modified"] is False and mine["modified"] is True


@pytest.mark.parametrize("keys,shared", [
    ({"session": "a"}, {"session": "a"}),
    ({"session": None, "meta": {"traceparent": TRACE}},
     {"session": None, "meta": {"traceparent": TRACE}}),
    ({"session": None, "meta": {"io.modelcontextprotocol/clientInfo": {"name": "h", "version": "1"}}},
     {"session": None, "meta": {"io.modelcontextprotocol/clientInfo": {"name": "h", "version": "1"}}}),
])
def test_a_conversation_is_keyed_by_session_then_trace_then_client(keys, shared):
    """A value labelled in a conversation sources a later call of that conversation, and of
    no other: by context.sessionId, else the trace id, else the client."""
    other = {"session": "b"} if keys.get("session") else \
        {"session": None, "meta": {"traceparent": OTHER_TRACE}}
    wire = Wire()
    wire.call("read_drainage_area", {}, "2", **keys)
    assert wire.validate("runoff_depth", {"area": "2 km**2"}, **other)["valid"] is False
    assert wire.validate("runoff_depth", {"area": "2 km**2"}, **shared)["valid"] is True


def test_a_2025_clients_calls_without_session_or_trace_share_its_initialize_conversation():
    wire = Wire()
    wire.answer("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "host", "version": "2"}})
    wire.call("read_drainage_area", {}, "2", session=None)
    assert wire.validate("runoff_depth", {"area": "2 km**2"}, session=None)["valid"] is True
    assert wire.validate("runoff_depth", {"area": "2 km**2"}, session="x")["valid"] is False


@pytest.mark.parametrize("order", ["mutate then validate", "validate then mutate"])
def test_both_interceptors_on_one_call_check_and_record_it_once(order):
    wire = Wire()
    call = {"name": "runoff_depth", "arguments": {"discharge": "1250 cfs"}}
    if order == "mutate then validate":
        mutated = wire.invoke(MUTATOR, "request", call)["payload"]
        assert wire.invoke(VALIDATOR, "request", mutated)["valid"] is True
    else:
        assert wire.invoke(VALIDATOR, "request", call)["valid"] is True
        assert wire.invoke(MUTATOR, "request", call)["modified"] is True
    key = wire.units.conversation(Invocation("tools/call", "request", call,
                                             {"sessionId": "s1"}, {}))
    policy = wire.units.ledgers.policy(key, user="anon")
    assert policy.ledger.call_count == 1
    assert wire.units.counts["converted"] == 1


def test_in_warn_enforcement_a_violation_is_a_warning_that_blocks_nothing():
    wire = Wire(enforcement="warn")
    strict = Wire().validate("runoff_depth", {"discharge": "3 m"})
    result = wire.validate("runoff_depth", {"discharge": "3 m"})
    assert result["valid"] is False and result["severity"] == "warn"
    assert result["messages"] == [{**strict["messages"][0], "severity": "warn"}]
    mutated = wire.invoke(MUTATOR, "request", {"name": "runoff_depth",
                                               "arguments": {"discharge": "3 m"}})
    assert mutated["modified"] is False
    assert wire.units.counts == {"converted": 0, "passed": 0, "warned": 1, "refused": 0,
                                 "labelled": 0, "unlabelled": 0}
    assert wire.validate("runoff_depth", {"discharge": "1250 cfs"}, session="b")["valid"]


def test_every_guarded_invocation_writes_one_line_and_is_counted(caplog):
    wire = Wire()
    with caplog.at_level(logging.INFO, logger="quantity_guard.interceptor"):
        wire.validate("runoff_depth", {"discharge": "3 m"})
        wire.call("read_discharge", {}, "1250", session="t")
        wire.validate("unannotated_tool", {"x": 1})
    lines = [r.getMessage() for r in caplog.records if r.name == "quantity_guard.interceptor"]
    assert lines == [
        ("guarded tools/call request runoff_depth (validator): refused discharge "
         "[dimensionality_error]"),
        "guarded tools/call request read_discharge (mutator): passed",
        "guarded tools/call response read_discharge (mutator): labelled cfs"]
    assert wire.units.counts == {"converted": 0, "passed": 1, "warned": 0, "refused": 1,
                                 "labelled": 1, "unlabelled": 0}


def test_a_hosts_chain_converts_refuses_and_labels_in_the_trust_boundary_order():
    wire = Wire()
    listed = wire.answer("interceptors/list", {"event": "tools/call"})["result"]["interceptors"]

    def invoke(params):
        answer = wire.answer("interceptor/invoke", params)
        if "error" in answer:
            raise RuntimeError(answer["error"]["message"])
        return answer["result"]

    context = {"sessionId": "chain"}
    refused = execute_chain(listed, invoke, "tools/call", "request",
                            {"name": "runoff_depth", "arguments": {"discharge": "3 m"}}, context)
    assert refused.decision == "deny" and refused.aborted_at["interceptor"] == VALIDATOR
    assert refused.aborted_at["reason"].startswith("runoff_depth.discharge: expected a quantity")
    sent = execute_chain(listed, invoke, "tools/call", "request",
                         {"name": "runoff_depth", "arguments": {"discharge": "1250 cfs"}},
                         context)
    assert sent.decision == "allow"
    assert sent.payload == {"name": "runoff_depth", "arguments": {"discharge": 35.39605824}}
    back = execute_chain(listed, invoke, "tools/call", "response",
                         {"content": [{"type": "text", "text": "0.1"}]}, context)
    assert back.decision == "allow" and back.payload["structuredContent"] == {
        "value": 0.1, "unit": "mm/d"}


@pytest.mark.parametrize("modern", [False, True], ids=["2025-11-25", "2026-07-28"])
def test_the_extension_and_its_supported_events_are_advertised_in_both_eras(modern):
    wire = Wire(modern=modern)
    if modern:
        result = wire.answer("server/discover", {})["result"]
        assert result["supportedVersions"] == ["2026-07-28"]
    else:
        result = wire.answer("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                            "clientInfo": {"name": "c", "version": "1"}})["result"]
        assert result["protocolVersion"] == "2025-11-25"
    assert result["capabilities"] == {"extensions": {
        "io.modelcontextprotocol/interceptors": {"supportedEvents": ["tools/call"]}}}


@pytest.mark.parametrize("method,params", [
    ("interceptors/list", {}),
    ("interceptor/invoke", {"name": VALIDATOR, "event": "tools/call", "phase": "request",
                            "payload": {"name": "runoff_depth", "arguments": {}}}),
])
def test_in_2026_07_28_every_result_is_complete_and_in_2025_none_says_so(method, params):
    assert Wire(modern=True).answer(method, params)["result"]["resultType"] == "complete"
    assert "resultType" not in Wire(modern=False).answer(method, params)["result"]


ERRORS = [
    ("unknown name", {"name": "units", "event": "tools/call", "phase": "request",
                      "payload": {}}, "no interceptor named \"units\"; send one"),
    ("validator on a response", {"name": VALIDATOR, "event": "tools/call", "phase": "response",
                                 "payload": {"content": []}},
     "runs in the request phase, not \"response\""),
    ("unknown phase", {"name": MUTATOR, "event": "tools/call", "phase": "during",
                       "payload": {}}, "not \"during\""),
    ("event not hooked", {"name": MUTATOR, "event": "prompts/get", "phase": "request",
                          "payload": {}}, "hooks tools/call, not \"prompts/get\""),
    ("no payload", {"name": MUTATOR, "event": "tools/call", "phase": "request"},
     "'payload' is missing"),
    ("request payload without a name", {"name": VALIDATOR, "event": "tools/call",
                                        "phase": "request", "payload": {"arguments": {}}},
     "payload is the call's {\"name\": <tool>, \"arguments\": {...}}; received"),
    ("arguments not an object", {"name": MUTATOR, "event": "tools/call", "phase": "request",
                                 "payload": {"name": "runoff_depth", "arguments": [1]}},
     "received {\"name\": \"runoff_depth\", \"arguments\": [1]}"),
    ("response payload not a result", {"name": MUTATOR, "event": "tools/call",
                                       "phase": "response", "payload": "1250"},
     "payload is the CallToolResult"),
]


@pytest.mark.parametrize("case,params,says", ERRORS, ids=[row[0] for row in ERRORS])
def test_a_malformed_invocation_is_a_32602_error_saying_what_to_send(case, params, says):
    error = Wire().error(params)
    assert error["code"] == -32602 and says in error["message"], error


def test_a_list_filter_that_is_not_an_event_name_is_a_32602_error():
    error = Wire().error({"event": 3}, method="interceptors/list")
    assert error["code"] == -32602 and "'event' must be an event name" in error["message"]


def test_a_list_filter_names_the_interceptors_hooking_the_event():
    wire = Wire()
    names = [i["name"] for i in wire.answer("interceptors/list", {"event": "tools/call"})
             ["result"]["interceptors"]]
    assert names == [VALIDATOR, MUTATOR]
    assert wire.answer("interceptors/list", {"event": "prompts/get"})["result"] == {
        "interceptors": []}


def run_cli(*argv):
    return subprocess.run([sys.executable, "-m", "quantity_guard.mcp", "interceptor", *argv],
                          cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize("argv,status,says", [
    ((), 2, "the following arguments are required: --annotations"),
    (("--annotations", "demo/water.toml", "--allow-origin", "x"), 2,
     "the proxy's HTTP options go with --listen"),
    (("--annotations", "demo/no-such-file.toml"), 3, "cannot load demo/no-such-file.toml"),
    (("--annotations", "demo/water.toml", "--enforcement", "loose"), 2, "invalid choice"),
])
def test_the_command_refuses_a_bad_command_line_or_file_with_its_status(argv, status, says):
    out = run_cli(*argv)
    assert out.returncode == status and says in out.stderr, out.stderr


def test_the_command_serves_stdio_until_the_client_closes_it():
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "interceptor/invoke", "params": {
        "name": MUTATOR, "event": "tools/call", "phase": "request",
        "payload": {"name": "runoff_depth", "arguments": {"discharge": "1250 cfs"}}}}]
    out = subprocess.run([sys.executable, "-m", "quantity_guard.mcp", "interceptor",
                          "--annotations", "demo/water.toml"], cwd=ROOT, timeout=60,
                         input="".join(json.dumps(m) + "\n" for m in lines),
                         capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["result"]["payload"]["arguments"] == {"discharge": 35.39605824}
    assert "guarded tools/call request runoff_depth (mutator): converted discharge" in out.stderr

