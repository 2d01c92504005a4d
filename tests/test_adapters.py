"""toolbox(): schemas for MCP, OpenAI and Anthropic; dispatch of each provider's call shape."""
from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from adapter_tools import BOX, read_discharge
from json_nodes import nodes
from messages import render
from quantity_guard import quantity_tool, toolbox

SNAPSHOTS = Path(__file__).parent / "snapshots"


@pytest.mark.parametrize("provider", ["mcp", "openai", "anthropic"])
def test_schema_snapshots(provider):
    """The exact JSON each provider is shown; regenerate with QG_UPDATE_SNAPSHOTS=1."""
    import os
    got = json.dumps(BOX.schemas(provider), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    path = SNAPSHOTS / f"schemas_{provider}.json"
    if os.environ.get("QG_UPDATE_SNAPSHOTS"):
        path.write_text(got, "utf-8")
    assert got == path.read_text("utf-8")


def test_openai_strict_schema_rules():
    for tool in BOX.schemas("openai"):
        params = tool["function"]["parameters"]
        assert tool["function"]["strict"] is True
        for node in nodes(params):
            if isinstance(node, dict):
                assert not any(k.startswith("x-") for k in node)
                if node.get("type") == "object":
                    assert node["additionalProperties"] is False
                    assert sorted(node["required"]) == sorted(node["properties"])
                assert node != {}
    label = BOX.schemas("openai")[1]["function"]["parameters"]["properties"]["label"]
    assert label["type"] == ["string", "null"]

    @quantity_tool(params={"stage": {"unit": "ft", "datum": "NAVD88"}})
    def stage_tool(stage):
        return stage

    stage = toolbox([stage_tool]).schemas("openai")[0]["function"]["parameters"]["properties"]
    labelled = stage["stage"]["anyOf"][2]
    assert labelled["required"] == ["value", "unit", "datum"]
    assert labelled["properties"]["datum"]["type"] == ["string", "null"]
    assert stage_tool({"value": 12.4, "unit": "ft", "datum": None}).datum == "NAVD88"


def test_shapes_validate_against_the_provider_sdk_types():
    pydantic = pytest.importorskip("pydantic")
    openai_types = pytest.importorskip("openai.types.chat")
    anthropic_types = pytest.importorskip("anthropic.types")
    for tool in BOX.schemas("openai"):
        pydantic.TypeAdapter(openai_types.ChatCompletionToolParam).validate_python(tool, strict=True)
    for tool in BOX.schemas("anthropic"):
        pydantic.TypeAdapter(anthropic_types.ToolParam).validate_python(tool)
        assert tool["input_schema"]["type"] == "object"
        assert "x-unit" not in json.dumps(tool)
    call = openai_types.ChatCompletionMessageToolCall(
        id="call_1", type="function",
        function={"name": "runoff_depth", "arguments": '{"discharge": "1250 cfs", "area": 29000}'})
    msg = BOX.dispatch(call)
    pydantic.TypeAdapter(openai_types.ChatCompletionToolMessageParam).validate_python(msg)
    block = anthropic_types.ToolUseBlock(id="toolu_1", type="tool_use", name="runoff_depth",
                                         input={"discharge": "12 ft", "area": 29000})
    result = BOX.dispatch(block)
    pydantic.TypeAdapter(anthropic_types.ToolResultBlockParam).validate_python(result)
    assert result["is_error"] is True


def test_dispatch_round_trips():
    msg = BOX.dispatch({"id": "call_9", "type": "function", "function": {
        "name": "runoff_depth", "arguments": '{"discharge": "1250 cfs", "area": 29000, "label": null}'}})
    assert msg["role"] == "tool" and msg["tool_call_id"] == "call_9"
    assert json.loads(msg["content"])["unit"] == "mm/d"
    bad = BOX.dispatch({"id": "c", "function": {"name": "runoff_depth",
                                                 "arguments": '{"discharge": "12.4 ft", "area": 1}'}})
    assert bad["content"].startswith("Error: " + render(
        "wrong_dimension", field="runoff_depth.discharge", unit="m**3/s",
        dims="[length]^3 [time]^-1", received="12.4 ft", received_dims="[length]"))
    res = BOX.dispatch({"type": "tool_use", "id": "toolu_2", "name": "read_discharge",
                        "input": {"site": "07374000"}})
    assert res == {"type": "tool_result", "tool_use_id": "toolu_2",
                   "content": [{"type": "text", "text": '{"value": 1250.0, "unit": "cfs"}'}]}
    assert BOX.dispatch({"name": "nope", "arguments": {}})["isError"]
    assert asyncio.run(BOX.adispatch({"type": "tool_use", "id": "t", "name": "read_discharge",
                                      "input": {"site": "x"}}))["tool_use_id"] == "t"
    assert BOX.invoke("read_discharge", {"site": "x"})["structuredContent"]["unit"] == "cfs"
    assert BOX.list_tools() == BOX.schemas("mcp")


def test_duplicate_names_are_refused():
    with pytest.raises(ValueError, match="duplicate tool name 'read_discharge'"):
        toolbox([read_discharge, read_discharge])
    with pytest.raises(TypeError):
        toolbox([lambda: 1])
    with pytest.raises(ValueError):
        BOX.schemas("bedrock")


# -- issue 18 item 3: unknown tools and bad calls carry a code in every form -----------------
def test_unknown_tool_has_a_code_in_invoke_and_every_dispatch_form():
    from quantity_guard.adapters import ToolMessage
    meta = "io.github.quantity-guard/violation"
    want = {"code": "unknown_tool", "field": "nope"}
    assert BOX.invoke("nope", {})["_meta"][meta] == want
    assert asyncio.run(BOX.ainvoke("nope", {}))["_meta"][meta] == want
    assert BOX.call_tool("nope", {})["_meta"][meta] == want
    forms = {
        "openai": {"id": "c1", "type": "function", "function": {"name": "nope", "arguments": "{}"}},
        "responses": {"type": "function_call", "call_id": "c2", "name": "nope", "arguments": "{}"},
        "anthropic": {"type": "tool_use", "id": "t1", "name": "nope", "input": {}},
        "mcp": {"name": "nope", "arguments": {}},
    }
    for form, call in forms.items():
        for msg in (BOX.dispatch(call), asyncio.run(BOX.adispatch(call))):
            assert isinstance(msg, ToolMessage), form
            assert msg.violation == want, form
            assert msg.result["isError"] is True
            assert "unknown tool 'nope'" in json.dumps(msg)
    # what is sent to a provider is unchanged: no key it does not define
    openai_msg = BOX.dispatch(forms["openai"])
    assert set(openai_msg) == {"role", "tool_call_id", "content"}
    assert json.loads(json.dumps(openai_msg)) == dict(openai_msg)
    ok = BOX.dispatch({"type": "tool_use", "id": "t", "name": "read_discharge", "input": {}})
    assert ok.violation == {"code": "invalid_arguments", "field": "read_discharge"}
    fine = BOX.dispatch({"type": "tool_use", "id": "t", "name": "read_discharge",
                         "input": {"site": "x"}})
    assert fine.violation is None and fine.result["isError"] is False


def test_a_non_tool_call_is_refused_with_a_code():
    from quantity_guard.errors import InvalidToolCall
    with pytest.raises(ValueError) as info:
        BOX.dispatch({"arguments": {}})
    assert isinstance(info.value, InvalidToolCall) and info.value.code == "invalid_tool_call"
    assert "Anthropic tool_use block" in info.value.repair()
