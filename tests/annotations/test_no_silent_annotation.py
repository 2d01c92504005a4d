"""Each way an annotation file used to switch the guard off without a sign (issue 31) is now
refused at load, reported by --check, or warned about and counted at run time."""
from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from quantity_guard.annotations import AnnotationError, loads

ROOT = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, str(ROOT / "demo" / "usgs_server.py")]


@pytest.mark.parametrize("text,needle", [
    ('[tools.a]\nreturns = { units = "cfs" }\n', "did you mean 'unit'?"),
    ('[tools.a]\nreturns = { Unit = "cfs" }\n', "did you mean 'unit'?"),
    ('[tools.a]\nreturns = { datums = "NAVD88" }\n', "did you mean 'datum'?"),
])
def test_a_misspelt_whole_result_declaration_is_not_read_as_a_field(text, needle):
    with pytest.raises(AnnotationError) as err:
        loads(text)
    (problem,) = err.value.problems
    assert problem.startswith("line 2: tools.a.returns") and needle in problem


def test_a_result_field_named_like_a_declaration_field_may_be_written_in_full():
    ann = loads('[tools.a]\nreturns = { units = { unit = "cfs" } }\n')
    assert list(ann["a"].returns) == ["units"]


def test_the_decorator_refuses_the_same_typo_when_declared():
    from quantity_guard import quantity_tool
    from quantity_guard.errors import InvalidArguments
    with pytest.raises(InvalidArguments, match="did you mean 'unit'"):
        quantity_tool(returns={"units": "cfs"})(lambda: 1.0)


@pytest.mark.parametrize("text,needle", [
    ('[tools.a.params]\nx = { units = "m" }\n', "unknown keys ['units'] (did you mean 'unit'?)"),
    ('[tools.a]\nreturn = { unit = "m" }\n', "unknown key(s) ['return'] (did you mean 'returns'?)"),
    ('[tools.a]\nresult = { unit = "m" }\n', "(did you mean 'returns'?)"),
    ('[tools.a]\nparam = { x = "m" }\n', "(did you mean 'params'?)"),
    ('[tool.a]\nreturns = "m"\n', "unknown keys ['tool'] (did you mean 'tools'?)"),
    ('[tools.a.returns]\n"st[.x" = "m"\n', "is not a result field or path"),
])
def test_every_unknown_key_says_what_it_may_have_meant(text, needle):
    with pytest.raises(AnnotationError) as err:
        loads(text)
    assert any(needle in p for p in err.value.problems), err.value.problems


def test_a_misspelt_result_field_is_checked_against_the_output_schema(tool, policy_of):
    output = {"type": "object", "properties": {"temperature": {"type": "number"}}}
    report = policy_of('[tools.t.returns]\ntemprature = "degF"\n').check_catalogue(
        [tool("t", {}, output)])
    (problem,) = report.problems
    assert problem.startswith("tools.t.returns.temprature: ") and "did you mean 'temperature'" in problem
    assert not report.ok


def test_a_nested_result_path_is_checked_and_found(tool, policy_of):
    output = {"type": "object", "properties": {"stations": {"type": "array", "items": {
        "type": "object", "properties": {"distance_km": {"type": "number"}}}}}}
    policy = policy_of('[tools.t.returns]\n"stations[].distance_km" = "km"\n')
    assert policy.check_catalogue([tool("t", {}, output)]).ok
    bad = policy_of('[tools.t.returns]\n"stations[].distance" = "km"\n')
    (problem,) = bad.check_catalogue([tool("t", {}, output)]).problems
    assert "did you mean 'stations[].distance_km'" in problem


def test_one_unit_for_an_object_result_is_reported(tool, policy_of):
    output = {"type": "object", "properties": {"flow": {"type": "number"}, "site": {"type": "string"}}}
    (problem,) = policy_of('[tools.t]\nreturns = "cfs"\n').check_catalogue(
        [tool("t", {}, output)]).problems
    assert problem.startswith("tools.t.returns: declares one unit for the whole result")


@pytest.mark.parametrize("schema", [
    {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"},
    {"type": "string", "format": "time"},
    {"type": "string", "description": "Start date in YYYY-MM-DD format"},
])
def test_tz_on_a_clock_time_or_a_date_is_refused(tool, policy_of, schema):
    (problem,) = policy_of('[tools.t.params]\ntime = { tz = "UTC" }\n').check_catalogue(
        [tool("t", {"time": schema})]).problems
    assert problem.startswith("tools.t.params.time: declares tz 'UTC'") and "Remove tz" in problem


@pytest.mark.parametrize("schema", [
    {"type": "string", "format": "date-time"},
    {"type": "string", "description": "ISO 8601 timestamp, e.g. 2026-05-01T00:00:00Z"},
    {"type": "string", "description": "Date 'YYYY-MM-DD' or full UTC 'YYYY-MM-DDTHH:MM:SSZ'"},
    {"type": "string"},
])
def test_tz_on_a_timestamp_or_an_undescribed_string_passes(tool, policy_of, schema):
    assert policy_of('[tools.t.params]\nat = { tz = "UTC" }\n').check_catalogue(
        [tool("t", {"at": schema})]).ok


def test_an_annotation_that_guards_nothing_fails_the_check(tool, policy_of):
    report = policy_of('[tools.t]\ndescription = "x"\n').check_catalogue([tool("t", {})])
    assert not report.ok and "guards nothing" in report.problems[0]


def test_check_lists_every_guarded_field_with_unit_and_datum_and_what_is_guarded(tool, policy_of):
    policy = policy_of('[tools.t]\nreturns = { unit = "ft", datum = "NAVD88" }\n'
                       '[tools.t.params]\nq = "cfs"\n')
    text = str(policy.check_catalogue([tool("t", {"q": {"type": "number"}}), tool("u", {})]))
    assert "guarded   t(q [cfs]) -> ft, datum NAVD88" in text
    assert "guarding 1 parameter and 1 result on 1 of 2 tools" in text


def test_the_first_listing_says_what_is_guarded_once(tool, policy_of):
    policy = policy_of('[tools.t.params]\nq = "cfs"\n[tools.gone.params]\nq = "m"\n')
    tools = [tool("t", {"q": {"type": "number"}}), tool("u", {}), tool("v", {})]
    first = policy.catalogue_seen(tools)
    assert first[0].endswith("guarding 1 parameter and 0 results on 1 of 3 tools")
    assert any("the server has no tool 'gone'" in w for w in first[1:])
    assert policy.catalogue_seen(tools) == []


def _call(policy, name, text):
    decision = policy.check_call(name, {})
    return policy.label_result(name, decision.payload, {"content": [{"type": "text", "text": text}]})


@pytest.mark.parametrize("declared,arrives,shape", [
    ('[tools.t.returns]\nflow = "cfs"\n', "1250", "a bare number"),
    ('[tools.t]\nreturns = "cfs"\n', '{"flow": 1250}', "an object with the fields ['flow']"),
    ('[tools.t]\nreturns = "cfs"\n', "no reading today", "text that is not a number"),
    ('[tools.t.returns]\nflow = "cfs"\n', '{"stage": 3}', "an object with the fields ['stage']"),
])
def test_a_result_of_another_shape_is_warned_once_and_counted_every_time(
        policy_of, caplog, declared, arrives, shape):
    policy = policy_of(declared)
    with caplog.at_level(logging.WARNING, logger="quantity_guard.mcp"):
        for _ in range(3):
            out = _call(policy, "t", arrives)
            assert out["content"][0]["text"] == arrives  # passed on as it came
    warned = [r for r in caplog.records if "result_shape_mismatch" in r.getMessage()]
    assert len(warned) == 1 and shape in warned[0].getMessage()
    codes = [v["code"] for v in policy.ledger.manifest()["violations"]]
    assert codes == ["result_shape_mismatch"] * 3


def test_nested_result_fields_are_labelled_and_recorded(policy_of):
    policy = policy_of('[tools.t.returns]\n"stations[].distance_km" = "km"\n')
    out = _call(policy, "t", json.dumps({"stations": [{"distance_km": 3.5}, {"distance_km": None}]}))
    data = json.loads(out["content"][0]["text"])
    assert data["stations"][0]["distance_km"] == {"value": 3.5, "unit": "km"}
    assert data["stations"][1]["distance_km"] is None
    (entry,) = policy.ledger.manifest()["calls"][0]["outputs"]
    assert entry["field"] == "stations[0].distance_km"


def test_a_proxy_whose_file_does_not_load_answers_the_first_request_and_exits(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[tools.read_discharge]\nreturns = { units = "cfs" }\n')
    requests = ('{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
                '{"jsonrpc":"2.0","id":7,"method":"initialize","params":{}}\n')
    out = subprocess.run([sys.executable, "-m", "quantity_guard.mcp.cli", "--annotations",
                          str(bad), "--", *SERVER], input=requests, capture_output=True,
                         text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 3
    answer = json.loads(out.stdout.splitlines()[0])
    assert answer["id"] == 7 and answer["error"]["code"] == -32002
    assert answer["error"]["data"]["file"] == str(bad)
    (problem,) = answer["error"]["data"]["problems"]
    assert problem.startswith("line 2: ") and "did you mean 'unit'" in problem
    assert "--check" in answer["error"]["message"]


def test_the_cfs_typo_no_longer_lets_a_carry_over_through(tmp_path):
    """The issue's first hole end to end: the file is refused, so the proxy never starts."""
    bad = tmp_path / "water.toml"
    bad.write_text('[tools.read_discharge]\nreturns = { units = "cfs" }\n'
                   '[tools.runoff_depth.params]\ndischarge = "m**3/s"\narea = "km**2"\n')
    out = subprocess.run([sys.executable, "-m", "quantity_guard.mcp.cli", "--check",
                          "--annotations", str(bad), "--", *SERVER], capture_output=True,
                         text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 3 and "did you mean 'unit'" in out.stderr
