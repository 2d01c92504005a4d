"""The quantity policy behind quantity-guard-mcp, driven through the sans-IO guard."""
from __future__ import annotations

import json

import pytest

from quantity_guard.annotations import loads
from quantity_guard.mcp.guard import C2S, LOG, S2C, Guard
from quantity_guard.mcp.policy import QuantityPolicy

ANNOTATIONS = """
[tools.read_discharge]
returns = { unit = "cfs" }

[tools.read_area]
returns = { unit = "km**2" }

[tools.runoff_depth]
returns = { unit = "mm/day" }

[tools.runoff_depth.params]
discharge = { unit = "m**3/s" }
area = { unit = "km**2", sourced = true }

[tools.at]
[tools.at.params]
when = { tz = "America/Chicago" }
"""

UPSTREAM_TOOLS = [
    {"name": "read_discharge", "description": "Discharge in cubic feet per second",
     "inputSchema": {"type": "object", "properties": {"site": {"type": "string"}}}},
    {"name": "read_area", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "runoff_depth", "description": "Runoff.", "inputSchema": {"type": "object", "properties": {
        "discharge": {"type": "number", "minimum": 0, "description": "in m3/s"},
        "area": {"type": "number"}}, "required": ["discharge", "area"]}},
    {"name": "at", "inputSchema": {"type": "object", "properties": {"when": {"type": "string"}}}},
    {"name": "echo", "inputSchema": {"type": "object", "properties": {"x": {"type": "number"}}}},
]


def line(obj) -> bytes:
    return (json.dumps(obj) + "\n").encode()


class Harness:
    def __init__(self, enforcement="strict", **kw):
        self.policy = QuantityPolicy(loads(ANNOTATIONS), enforcement=enforcement, **kw)
        self.guard = Guard(self.policy)
        self.next = 0
        self.guard.receive(C2S, line({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                      "params": {"protocolVersion": "2025-06-18"}}))

    def list_tools(self):
        self.next += 1
        self.guard.receive(C2S, line({"jsonrpc": "2.0", "id": self.next, "method": "tools/list"}))
        out = self.guard.receive(S2C, line({"jsonrpc": "2.0", "id": self.next,
                                            "result": {"tools": UPSTREAM_TOOLS}}))
        return {t["name"]: t for t in json.loads(out[0][1])["result"]["tools"]}

    def call(self, name, arguments, upstream_result=None):
        """Returns (what reached the upstream or None, what the client got)."""
        self.next += 1
        out = self.guard.receive(C2S, line({"jsonrpc": "2.0", "id": self.next, "method": "tools/call",
                                            "params": {"name": name, "arguments": arguments}}))
        sent = [json.loads(b) for d, b in out if d == C2S]
        to_client = [json.loads(b) for d, b in out if d == S2C]
        if to_client:
            return None, to_client[0]["result"]
        assert len(sent) == 1
        reply = self.guard.receive(S2C, line({"jsonrpc": "2.0", "id": self.next,
                                              "result": upstream_result or {"content": []}}))
        return sent[0]["params"]["arguments"], json.loads(reply[0][1])["result"]


def bare(value) -> dict:
    return {"content": [{"type": "text", "text": json.dumps(value)}]}


def test_tools_are_re_advertised_with_units_and_the_rest_untouched():
    h = Harness()
    tools = h.list_tools()
    d = tools["runoff_depth"]["inputSchema"]["properties"]["discharge"]
    assert d["x-unit"] == "m**3/s" and "minimum" not in d and "type" not in d
    assert d["description"].startswith("in m3/s. In cubic metres per second (m3/s).")
    # the upstream's range stays on the bare number (in the declared unit) and is put in words
    assert {"type": "number", "minimum": 0} in d["anyOf"]
    assert d["description"].endswith("The value must be at least 0 m3/s.")
    assert tools["runoff_depth"]["_meta"] == {"io.github.quantity-guard/units": {
        "discharge": "m**3/s", "area": "km**2", "return": "mm/day"}}
    # only declared things change: order, names and every other key are kept
    assert list(tools) == [t["name"] for t in UPSTREAM_TOOLS]
    for name in tools:
        original = next(t for t in UPSTREAM_TOOLS if t["name"] == name)
        changed = {k for k in set(tools[name]) | set(original)
                   if tools[name].get(k) != original.get(k)}
        assert changed <= {"inputSchema", "description", "outputSchema", "_meta"}, (name, changed)
    assert tools["runoff_depth"]["description"] == "Runoff. Returns millimetres per day (mm/d)."
    # the upstream declared no output schema, so none is advertised (issue #12, defect 3): a
    # schema the upstream's results might not satisfy would break the tool for the client
    assert "outputSchema" not in tools["read_discharge"]
    assert tools["echo"] == UPSTREAM_TOOLS[4]
    assert tools["at"]["inputSchema"]["properties"]["when"]["x-tz"] == "America/Chicago"


def test_arguments_are_converted_into_the_upstream_unit_deterministically():
    h = Harness()
    h.call("read_area", {}, bare(29000))
    sent, _ = h.call("runoff_depth", {"discharge": "1250 cfs", "area": 29000}, bare(0.1))
    assert sent == {"discharge": 35.39605824, "area": 29000}
    again, _ = h.call("runoff_depth", {"discharge": "1250 cfs", "area": 29000}, bare(0.1))
    assert again == sent
    sent, _ = h.call("at", {"when": "2025-07-15T15:00:00Z"})
    assert sent == {"when": "2025-07-15T10:00:00-05:00"}


def test_violations_are_answered_by_the_proxy_and_nothing_goes_upstream():
    h = Harness()
    sent, result = h.call("runoff_depth", {"discharge": "12.4 ft", "area": 1})
    assert sent is None and result["isError"] is True
    assert result["content"][0]["text"].startswith(
        "runoff_depth.discharge: expected a quantity in m**3/s ([length]^3 [time]^-1), "
        "received 12.4 ft ([length])")
    assert result["_meta"]["io.github.quantity-guard/violation"]["code"] == "dimensionality_error"


def test_carry_over_across_the_session_and_reset_per_client_session():
    h = Harness()
    _, labelled = h.call("read_discharge", {"site": "07374000"}, bare(1250))
    assert labelled["structuredContent"] == {"value": 1250.0, "unit": "cfs"}
    assert json.loads(labelled["content"][0]["text"]) == {"value": 1250.0, "unit": "cfs"}
    h.call("read_area", {}, bare(29000))
    sent, result = h.call("runoff_depth", {"discharge": 1250, "area": 29000})
    assert sent is None
    assert result["content"][0]["text"].startswith(
        "runoff_depth.discharge: received the bare number 1250, which this tool reads as 1250 "
        "m3/s, but read_discharge.return returned 1250 cfs and no conversion was applied")
    # a new initialize is a new client session: the earlier reading is forgotten
    h.guard.receive(C2S, line({"jsonrpc": "2.0", "id": "s2", "method": "initialize", "params": {}}))
    h.call("read_area", {}, bare(29000))
    sent, result = h.call("runoff_depth", {"discharge": 1250, "area": 29000}, bare(3.7))
    assert sent == {"discharge": 1250, "area": 29000} and not result.get("isError")


def test_unsourced_input_through_the_proxy():
    h = Harness()
    sent, result = h.call("runoff_depth", {"discharge": "1250 cfs", "area": 2915830.0})
    assert sent is None and "received 2.91583e+06 km2, which no tool returned" in \
        result["content"][0]["text"]


@pytest.mark.parametrize("upstream,expected", [
    (bare(0.1054), {"value": 0.1054, "unit": "mm/d"}),
    ({"content": [{"type": "text", "text": "0.1054"}], "structuredContent": {"result": 0.1054}},
     {"value": 0.1054, "unit": "mm/d"}),
    ({"content": [{"type": "text", "text": "0.1054 mm/day"}]}, {"value": 0.1054, "unit": "mm/d"}),
    ({"content": [{"type": "text", "text": "86.4 m3/s"}]}, None),          # wrong dimension: as sent
    ({"content": [{"type": "text", "text": "no data"}]}, None),             # not a number: as sent
    ({"content": [{"type": "text", "text": "1"}], "isError": True}, None),  # errors pass untouched
])
def test_results_are_labelled_only_when_they_are_plain_numbers(upstream, expected):
    h = Harness()
    h.call("read_area", {}, bare(29000))
    _, result = h.call("runoff_depth", {"discharge": 1.0, "area": 29000}, upstream)
    if expected is None:
        assert result == upstream
    else:
        assert json.loads(result["content"][0]["text"]) == expected
        if "structuredContent" in upstream:
            # the upstream's own structured result is kept (it must still satisfy the upstream's
            # output schema, if it has one: issue #12, defect 3); the text carries the label
            assert result["structuredContent"] == upstream["structuredContent"]
        else:
            assert result["structuredContent"] == expected


def test_warn_mode_forwards_the_raw_value_and_records(tmp_path):
    manifest = tmp_path / "m.json"
    log = tmp_path / "log.jsonl"
    h = Harness(enforcement="warn", manifest_path=str(manifest), log_path=str(log))
    sent, _ = h.call("runoff_depth", {"discharge": "12.4 ft", "area": 5}, bare(1))
    assert sent == {"discharge": "12.4 ft", "area": 5}
    h.policy.close()
    data = json.loads(manifest.read_text())
    violations = data["sessions"][0]["violations"]
    assert [v["code"] for v in violations] == ["dimensionality_error", "unsourced_input"]
    assert all(v["blocked"] is False for v in violations)
    events = [json.loads(x)["event"] for x in log.read_text().splitlines()]
    assert events == ["call", "result"]


def test_check_catalogue_reports_unknown_tools_and_parameters():
    policy = QuantityPolicy(loads(ANNOTATIONS + "\n[tools.read_dischrge]\nreturns = 'cfs'\n"
                                  "[tools.echo.params]\ny = 'm'\n"))
    report = policy.check_catalogue(UPSTREAM_TOOLS)
    text = str(report)
    assert not report.ok
    assert "tools.read_dischrge: the server has no tool 'read_dischrge' (did you mean " \
           "'read_discharge'" in text
    assert "tools.echo.params.y: echo has no parameter 'y'" in text
    assert "guarded   runoff_depth(discharge [m**3/s], area [km**2]) -> mm/day" in text
    good = QuantityPolicy(loads(ANNOTATIONS)).check_catalogue(UPSTREAM_TOOLS)
    assert good.ok and "untouched echo" in str(good)


def test_the_guard_never_raises_on_odd_arguments():
    h = Harness()
    for args in ([1, 2], "x", None, {"discharge": {"value": [1, {"a": 1}], "unit": "cfs"}}):
        h.next += 1
        out = h.guard.receive(C2S, line({"jsonrpc": "2.0", "id": h.next, "method": "tools/call",
                                         "params": {"name": "runoff_depth", "arguments": args}}))
        assert out and all(d in (C2S, S2C, LOG) for d, _ in out)


def test_check_call_decides_on_any_json_without_raising():
    from hypothesis import example, given, settings
    from hypothesis import strategies as st

    from quantity_guard.mcp.guard import Decision

    json_values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c, max_size=3),
        max_leaves=6)
    policy = QuantityPolicy(loads(ANNOTATIONS))

    @settings(max_examples=300, deadline=None)
    @given(st.dictionaries(st.sampled_from(["discharge", "area", "when", "other"]), json_values,
                           max_size=4))
    @example(arguments={"when": float("inf")})
    def check(arguments):
        decision = policy.check_call("runoff_depth", arguments)
        assert isinstance(decision, Decision) and decision.action in ("forward", "refuse")
        if decision.action == "forward":
            for name in ("discharge", "area"):
                # an omitted or null argument is forwarded as it came (issue #12, defect 1)
                if arguments.get(name) is None:
                    assert decision.payload.get(name, "omitted") == arguments.get(name, "omitted")
                else:
                    assert isinstance(decision.payload[name], (int, float))
        try:
            json.dumps(arguments, allow_nan=False)
        except ValueError:  # NaN/Infinity in an argument the guard does not convert: as sent
            return
        json.dumps(decision.payload, allow_nan=False)

    check()


def test_a_series_reaches_only_an_upstream_parameter_that_takes_a_list():
    h = Harness()
    h.list_tools()
    h.call("read_area", {}, bare(29000))
    sent, result = h.call("runoff_depth", {"discharge": [1.0, 2.0], "area": 29000})
    assert sent is None and "received a series of 2 values, but this tool takes one value" in \
        result["content"][0]["text"]


# ------------------------------------------------------------------ issue #12: what the upstream declared

INT_TOOLS = """
[tools.fetch.params]
max_length = "1"
timeout = "ms"
[tools.fetch]
returns = { length = "1" }
[tools.series.params]
delays = "ms"
"""


def int_policy():
    policy = QuantityPolicy(loads(INT_TOOLS))
    fetch = policy.advertise({"name": "fetch", "inputSchema": {"type": "object", "properties": {
        "url": {"type": "string"},
        "max_length": {"type": "integer", "default": 5000, "exclusiveMinimum": 0},
        "timeout": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None}},
        "required": ["url"]},
        "outputSchema": {"type": "object", "properties": {"length": {"type": "integer"},
                                                          "text": {"type": "string"}},
                         "required": ["length", "text"]}})
    series = policy.advertise({"name": "series", "inputSchema": {"type": "object", "properties": {
        "delays": {"type": "array", "items": {"type": "integer"}}}}})
    return policy, fetch, series


def test_integer_and_nullable_parameters_keep_saying_so():
    _, fetch, _ = int_policy()
    props = fetch["inputSchema"]["properties"]
    assert fetch["inputSchema"]["required"] == ["url"]
    m = props["max_length"]
    assert m["default"] == 5000 and {"type": "integer", "exclusiveMinimum": 0} in m["anyOf"]
    assert {"type": "number"} not in [{"type": b.get("type")} for b in m["anyOf"]]
    assert m["description"].endswith("The tool takes a whole number.")
    t = props["timeout"]
    assert t["default"] is None and {"type": "null"} in t["anyOf"] and {"type": "integer"} in t["anyOf"]
    assert "whole number of ms" in t["description"]
    # the output schema keeps its shape; the labelled field gets the x-unit
    out = fetch["outputSchema"]
    assert out["required"] == ["length", "text"] and out["properties"]["length"]["type"] == "integer"
    assert out["properties"]["length"]["x-unit"] == "1" and "x-unit" not in out["properties"]["text"]


@pytest.mark.parametrize("arguments,sent", [
    ({"url": "u"}, {"url": "u"}),                                            # omitted: as sent
    ({"url": "u", "timeout": None}, {"url": "u", "timeout": None}),          # null: as sent
    ({"url": "u", "max_length": "120"}, {"url": "u", "max_length": 120}),
    ({"url": "u", "max_length": 120.0}, {"url": "u", "max_length": 120}),
    ({"url": "u", "max_length": {"value": 1.2e3, "unit": "1"}}, {"url": "u", "max_length": 1200}),
    ({"url": "u", "timeout": "1.5 s"}, {"url": "u", "timeout": 1500}),
    ({"url": "u", "timeout": "0.1 s"}, {"url": "u", "timeout": 100}),        # 100.00000000000001
    ({"url": "u", "timeout": "0.0005 s"}, None),
    ({"url": "u", "max_length": 12.5}, None),
])
def test_integer_parameters_get_json_integers_or_a_refusal(arguments, sent):
    policy, _, _ = int_policy()
    decision = policy.check_call("fetch", arguments)
    if sent is None:
        assert decision.action == "refuse"
        text = decision.payload["content"][0]["text"]
        assert "whole number" in text and "Send instead" in text and "e.g." in text
        return
    assert decision.action == "forward" and decision.payload == sent
    for k, v in decision.payload.items():
        assert type(v) is type(sent[k])  # 120, not 120.0


def test_an_integer_series_goes_as_integers():
    pytest.importorskip("numpy", reason="converting a series of values needs numpy "
                                        "(quantity-guard[arrays])")
    policy, _, _ = int_policy()
    d = policy.check_call("series", {"delays": {"value": [1, 2.5], "unit": "s"}})
    assert d.action == "forward" and d.payload == {"delays": [1000, 2500]}
    assert all(type(v) is int for v in d.payload["delays"])
    assert policy.check_call("series", {"delays": {"value": [0.0001], "unit": "s"}}).action == "refuse"


def test_a_labelled_result_keeps_a_declared_structured_shape():
    policy, _, _ = int_policy()
    policy.check_call("fetch", {"url": "u"})
    upstream = {"content": [{"type": "text", "text": '{"length": 42, "text": "x"}'}],
                "structuredContent": {"length": 42, "text": "x"}}
    labelled = policy.label_result("fetch", {"url": "u"}, upstream)
    assert labelled["structuredContent"] == {"length": 42, "text": "x"}
    assert json.loads(labelled["content"][0]["text"]) == {"length": {"value": 42.0, "unit": "1"},
                                                          "text": "x"}


def test_concurrent_calls_of_one_tool_record_their_own_results(tmp_path):
    manifest = tmp_path / "m.json"
    h = Harness(manifest_path=str(manifest))
    for ident in (101, 102):  # two read_discharge calls in flight at once
        h.guard.receive(C2S, line({"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                                   "params": {"name": "read_discharge", "arguments": {"site": str(ident)}}}))
    for ident, value in ((101, 1250), (102, 980)):  # answered in order
        out = h.guard.receive(S2C, line({"jsonrpc": "2.0", "id": ident, "result": bare(value)}))
        assert json.loads(out[0][1])["result"]["structuredContent"]["value"] == value
    h.policy.close()
    calls = json.loads(manifest.read_text())["sessions"][0]["calls"]
    assert [c["outputs"][0]["quantity"]["value"] for c in calls] == [1250.0, 980.0]
    assert [c["arguments"] for c in calls] == [{}, {}]  # "site" is no guarded parameter: not kept


# ------------------------------------------------------------------ issue #18

@pytest.mark.parametrize("enforcement", ["strict", "warn"])
def test_a_result_that_violates_its_declared_unit_is_recorded_not_swallowed(tmp_path, enforcement):
    manifest, log = tmp_path / "m.json", tmp_path / "log.jsonl"
    h = Harness(enforcement=enforcement, manifest_path=str(manifest), log_path=str(log))
    h.call("read_area", {}, bare(29000))
    upstream = {"content": [{"type": "text", "text": "86.4 m3/s"}]}
    _, result = h.call("runoff_depth", {"discharge": 1.0, "area": 29000}, upstream)
    assert result == upstream  # passed on as the upstream sent it, unlabelled
    report = h.policy.enforcement_report()
    assert report.startswith("1 of 2 tool calls would have been blocked:"), report
    assert "1x dimensionality_error" in report
    h.policy.close()
    session = json.loads(manifest.read_text())["sessions"][0]
    [violation] = session["violations"]
    assert violation["tool"] == "runoff_depth" and violation["blocked"] is False
    assert violation["code"] == "dimensionality_error" and "m3/s" in violation["message"]
    assert session["calls"][1]["violations"] and session["calls"][1]["ok"] is True
    events = [json.loads(x) for x in log.read_text().splitlines()]
    assert [e["event"] for e in events][-1] == "violation"
    assert events[-1]["where"] == "result" and events[-1]["violation"]["code"] == "dimensionality_error"


def test_non_object_arguments_are_refused_with_the_invalid_arguments_code():
    policy = QuantityPolicy(loads(ANNOTATIONS))
    decision = policy.check_call("runoff_depth", [1, 2])
    assert decision.action == "refuse"
    assert decision.payload["_meta"]["io.github.quantity-guard/violation"] == {
        "code": "invalid_arguments", "field": "runoff_depth"}
    assert "not an array" in decision.payload["content"][0]["text"]


# ------------------------------------------------------------------ issue #16: x-mcp-header

HEADER_TOOL = {"name": "wait", "inputSchema": {"type": "object", "properties": {
    "seconds": {"type": "integer", "x-mcp-header": "Seconds", "minimum": 0},
    "flag": {"type": "boolean", "x-mcp-header": "Flag"},
    "when": {"type": "string", "x-mcp-header": "When"}}, "required": ["seconds"]}}


def test_a_header_mapped_parameter_keeps_one_primitive_type():
    policy = QuantityPolicy(loads("[tools.wait.params]\nseconds = 's'\nwhen = { tz = 'UTC' }\n"))
    props = policy.advertise(json.loads(json.dumps(HEADER_TOOL)))["inputSchema"]["properties"]
    for name, kind in (("seconds", "integer"), ("when", "string"), ("flag", "boolean")):
        assert props[name]["type"] == kind and "anyOf" not in props[name] and "oneOf" not in props[name]
    assert props["seconds"]["minimum"] == 0 and props["seconds"]["x-unit"] == "s"
    assert props["seconds"]["x-mcp-header"] == "Seconds"
    assert "Mcp-Param-Seconds" in props["seconds"]["description"]
    # the other forms are still accepted and converted; the integer goes as an integer
    assert policy.check_call("wait", {"seconds": "2 min"}).payload == {"seconds": 120}
    assert type(policy.check_call("wait", {"seconds": {"value": 2, "unit": "min"}})
                .payload["seconds"]) is int
    assert policy.check_call("wait", {"seconds": "0.5 s"}).action == "refuse"


def test_sessions_sharing_a_listing_convert_for_the_upstream_types():
    first = QuantityPolicy(loads("[tools.wait.params]\nseconds = 's'\n"))
    second = QuantityPolicy(loads("[tools.wait.params]\nseconds = 's'\n"))
    second.share_listing(first)
    first.advertise(json.loads(json.dumps(HEADER_TOOL)))  # listed on one connection ...
    sent = second.check_call("wait", {"seconds": {"value": 2, "unit": "min"}}).payload
    assert sent == {"seconds": 120} and type(sent["seconds"]) is int  # ... called on another


def test_a_labelled_result_is_recorded_after_the_answer_yet_every_reader_sees_it(tmp_path):
    """The ledger records a labelled result after the answer left (``Guard.settle``), but any
    reader, and the next call's checks, see it as if it were recorded at once."""
    h = Harness(manifest_path=str(tmp_path / "m.json"))
    _, labelled = h.call("read_discharge", {"site": "07374000"}, bare(1250))
    assert labelled["structuredContent"] == {"value": 1250.0, "unit": "cfs"}
    # the next call's carry-over check finds it without any settle() in between
    sent, result = h.call("runoff_depth", {"discharge": 1250, "area": 1})
    assert sent is None and "read_discharge.return returned 1250 cfs" in result["content"][0]["text"]
    _, labelled = h.call("read_area", {}, bare(29000))
    [call] = [c for c in h.policy.ledger.calls if c.tool == "read_area"]  # read straight after
    assert call.ok is True and [e.q.magnitude for e in call.outputs] == [29000.0]
    assert h.policy.counts()["calls_kept"] == 3
    h.call("read_area", {}, bare(29001))
    h.policy.close()
    calls = json.loads((tmp_path / "m.json").read_text())["sessions"][0]["calls"]
    assert [c["ok"] for c in calls] == [True, False, True, True]
    assert h.guard.settle() == []  # nothing left to do, nothing to report


def test_a_refused_call_with_a_log_is_answered(tmp_path):
    """With ``--log``, a refusal used to write its log record while holding the lock the log
    takes: the proxy hung on the first refused call."""
    import threading

    log = tmp_path / "log.jsonl"
    h = Harness(log_path=str(log))
    answer: list = []
    t = threading.Thread(target=lambda: answer.append(
        h.call("runoff_depth", {"discharge": "12.4 ft", "area": 1})), daemon=True)
    t.start()
    t.join(10)
    assert answer, "check_call did not return"
    sent, result = answer[0]
    assert sent is None and result["isError"] is True
    [event] = [json.loads(x) for x in log.read_text().splitlines()]
    assert event["event"] == "violation" and event["violation"]["code"] == "dimensionality_error"
