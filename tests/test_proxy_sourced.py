"""Through the proxy, which never sees the question, a sourced parameter takes a value a tool of
the client session returned (in any unit it converts to); any other number is refused with a
repair text that says the question cannot be verified, never that a value "stated in the
question" would do."""
from __future__ import annotations

from messages import refusal, render
from quantity_guard.annotations import loads
from quantity_guard.mcp.policy import QuantityPolicy

ANNOTATIONS = """
[tools.read_area]
returns = { unit = "km**2" }

[tools.runoff_depth.params]
area = { unit = "km**2", sourced = true }
"""


def _text(result: dict) -> str:
    return result["content"][0]["text"]


def test_a_value_no_tool_returned_is_refused_saying_the_question_cannot_be_verified(tmp_path):
    log = tmp_path / "log.jsonl"
    policy = QuantityPolicy(loads(ANNOTATIONS), log_path=str(log))
    decision = policy.check_call("runoff_depth", {"area": 29000})
    text = refusal(decision, "unsourced_by_proxy", field="runoff_depth.area", value="29000",
                   unit="km2")
    assert text.startswith(render("unsourced_by_proxy", field="runoff_depth.area",
                                  value="29000", unit="km2"))
    assert "stated in the question" not in text and "one stated in the question" not in text
    refusal(decision, "unsourced_repair", field="runoff_depth.area")
    policy.close()
    assert "the proxy does not see the question" in log.read_text()


def test_a_value_a_tool_returned_passes_in_any_unit_it_converts_to():
    policy = QuantityPolicy(loads(ANNOTATIONS))
    forwarded = policy.check_call("read_area", {})
    policy.label_result("read_area", forwarded.payload,
                        {"content": [{"type": "text", "text": "29000"}]})
    assert policy.check_call("runoff_depth", {"area": 29000}).action == "forward"
    assert policy.check_call("runoff_depth", {"area": "11196.96 mi2"}).action == "forward"
    refused = policy.check_call("runoff_depth", {"area": 30000})
    refusal(refused, "unsourced_by_proxy", field="runoff_depth.area", value="30000", unit="km2")
