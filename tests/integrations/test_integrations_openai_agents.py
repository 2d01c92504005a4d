"""quantity_guard.integrations.openai_agents: guarded tools in a real OpenAI Agents SDK run.

The model is the SDK's own ``agents.testing.ScriptedModel`` (a ``Model`` subclass), each step a
responder that reads what the runner sent it, so nothing reaches the network.
"""
from __future__ import annotations

import asyncio
import json

import pytest

agents = pytest.importorskip("agents", reason="openai-agents is not installed: pip install -e "
                                              "'.[integrations]'")
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call  # noqa: E402

from integration_tools import (ANSWER, CARRY_OVER, QUESTION, WRONG_DIMENSION,  # noqa: E402
                               Script, check_audit, check_bodies, demo_tools, run_session)
from messages import render  # noqa: E402
from quantity_guard import toolbox  # noqa: E402
from quantity_guard.integrations import openai_agents  # noqa: E402

agents.set_tracing_disabled(True)  # nothing leaves the machine


def last_tool_output(call) -> str | None:
    """The text of the newest function_call_output item the runner sent the model."""
    items = call.input if isinstance(call.input, list) else []
    outputs = [i for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]
    if not outputs:
        return None
    out = outputs[-1]["output"]
    if isinstance(out, list):  # structured output items: keep their text
        return "".join(part.get("text", "") for part in out if isinstance(part, dict))
    return out


def scripted_model(script: Script) -> ScriptedModel:
    counter = iter(range(100))

    def respond(call):
        action = script.next(last_tool_output(call))
        if action[0] == "answer":
            return [assistant_message(action[1])]
        _, name, arguments = action
        return [function_call(name, arguments, call_id=f"call_{next(counter)}")]

    return ScriptedModel([ModelStep.respond(respond) for _ in range(4)])


@pytest.mark.parametrize("other_open", [False, True], ids=["one-session", "two-sessions"])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync-tools", "async-tools"])
def test_agent_turn_loop_refuses_then_accepts_and_audits(asynchronous, other_open):
    read_discharge, runoff_depth, received = demo_tools(asynchronous)
    script = Script()
    model = scripted_model(script)
    agent = agents.Agent(name="hydrologist", instructions="Answer with tools.", model=model,
                         tools=openai_agents.wrap(toolbox([read_discharge, runoff_depth])))
    with run_session(other_open) as ledger:
        result = agents.Runner.run_sync(agent, QUESTION)
    model.assert_complete()
    assert result.final_output == ANSWER
    # turn 3's input held the repair text as the refused call's output, marked as an error
    assert script.shown[2].startswith("Error: " + render("carry_over", **CARRY_OVER))
    check_bodies(received)
    check_audit(ledger)
    if not asynchronous:  # sync bodies ran in the worker threads of the run, not the caller's
        assert all(thread != "MainThread" for _, _, thread in received), received


def test_function_tool_shows_the_librarys_strict_schema():
    read_discharge, runoff_depth, _ = demo_tools()
    tool = openai_agents.wrap(runoff_depth)
    assert isinstance(tool, agents.FunctionTool) and tool.strict_json_schema is True
    props = tool.params_json_schema["properties"]
    assert [b["type"] for b in props["discharge"]["anyOf"]] == ["number", "string", "object"]
    assert "cubic metres per second (m3/s)" in props["discharge"]["description"]
    assert tool.params_json_schema["additionalProperties"] is False
    assert tool.description.endswith("Returns millimetres per day (mm/d).")
    both = openai_agents.wrap([read_discharge, runoff_depth])
    assert [t.name for t in both] == ["read_discharge", "runoff_depth"]


def test_invoking_directly_returns_text_never_raises():
    _, runoff_depth, received = demo_tools()
    tool = openai_agents.wrap(runoff_depth)
    ok = asyncio.run(tool.on_invoke_tool(None, '{"discharge": "1250 cfs", "area": 29000}'))
    assert json.loads(ok)["unit"] == "mm/d"
    bad = asyncio.run(tool.on_invoke_tool(None, '{"discharge": "12.4 ft", "area": 29000}'))
    assert bad.startswith("Error: " + render("wrong_dimension", **WRONG_DIMENSION))
    broken = asyncio.run(tool.on_invoke_tool(None, '{"discharge": '))
    assert "the arguments are not valid JSON" in broken and broken.startswith("Error: ")
    assert len(received) == 1
