"""The SEP-2624 protocol conformance fixtures, replayed through this project's adapter
(tests/interceptor_adapter.py) against quantity_guard.mcp.interceptor, in both eras."""
from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from interceptor_adapter import (
    BEHAVIORS,
    SECURITY_BEHAVIORS,
    Session,
    WireError,
    canonical,
    replay,
)

HERE = Path(__file__).parent / "interceptor_fixtures"
FILES = sorted((HERE / "protocol").glob("*.json"))
FIXTURES = {path.stem: json.loads(path.read_text("utf-8")) for path in FILES}


def test_the_fourteen_protocol_fixtures_the_readme_lists_are_here():
    listed = set(re.findall(r"^\| `([a-z-]+)\.json` \|",
                            (HERE / "README.md").read_text("utf-8"), flags=re.MULTILINE))
    assert len(FIXTURES) == 14 and set(FIXTURES) == listed


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_a_fixtures_canonical_strings_are_its_results_canonical_form(name):
    """The copy is whole: each precomputed JCS string is the canonical form of the JSON
    beside it (a character lost in copying shows here)."""
    for step in FIXTURES[name]["steps"]:
        expect = step["expect"]
        if "canonical" in expect:
            assert canonical(expect["result"]) == expect["canonical"]
        if "finalPayloadCanonical" in expect:
            assert canonical(expect["finalPayload"]) == expect["finalPayloadCanonical"]


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_a_protocol_fixture_passes_through_the_adapter(name, era):
    assert replay(FIXTURES[name], era) == []


def test_the_adapter_reports_a_fixture_the_server_does_not_meet():
    """The replay can fail: the fixture expecting the mutated payload to pass validation
    fails once the expected decision, or the expected final payload, is another."""
    fixture = copy.deepcopy(FIXTURES["chain-request-order-mutate-then-validate"])
    expect = fixture["steps"][0]["expect"]
    expect["finalPayloadCanonical"] = '{"arguments":{"note":"hello"},"name":"echo"}'
    assert replay(fixture) == [
        'step 1 apply: final payload {"arguments":{"note":"HELLO"},"name":"echo"}']
    fixture = copy.deepcopy(FIXTURES["invoke-validation-deny"])
    expect = fixture["steps"][0]["expect"]
    expect["canonical"] = expect["canonical"].replace("denied by policy", "denied")
    assert len(replay(fixture)) == 1


def test_every_fixture_behavior_but_the_security_ones_is_bound():
    used = {i["behavior"] for f in FIXTURES.values() for i in f["interceptors"]}
    assert used <= set(BEHAVIORS)
    with pytest.raises(LookupError, match="cross-boundary-guard"):
        Session([{"name": "g", "type": "validation", "behavior": SECURITY_BEHAVIORS[0],
                  "events": ["tools/call"], "phases": "both"}])


def test_a_validator_whose_execution_fails_is_a_32603_error_naming_it():
    session = Session([{"name": "conf/crash", "type": "validation", "behavior": "crash",
                        "events": ["tools/call"], "phases": "both"}])
    with pytest.raises(WireError) as info:
        session.request("interceptor/invoke", {"name": "conf/crash", "event": "tools/call",
                                               "phase": "request", "payload": {}})
    assert info.value.error == {"code": -32603,
                                "message": "Interceptor execution failed: conf/crash",
                                "data": {"interceptor": "conf/crash",
                                         "reason": "RuntimeError: interceptor crashed"}}
