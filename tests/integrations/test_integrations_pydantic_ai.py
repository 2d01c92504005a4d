"""quantity_guard.integrations.pydantic_ai: guarded tools in a real pydantic-ai agent run.

The model is pydantic-ai's own ``FunctionModel`` answering from ``Script`` (no network); the
schema check uses ``TestModel``, which generates arguments from each tool's JSON schema.
"""
from __future__ import annotations

import asyncio
import json

import pytest

pai = pytest.importorskip("pydantic_ai", reason="pydantic-ai-slim is not installed: pip install "
                                                "-e '.[integrations]' (Python 3.11+)")
from pydantic_ai.messages import (ModelRequest, ModelResponse, RetryPromptPart,  # noqa: E402
                                  TextPart, ToolCallPart, ToolReturnPart)
from pydantic_ai.models.function import FunctionModel  # noqa: E402
from pydantic_ai.models.test import TestModel  # noqa: E402

from integration_tools import (ANSWER, CARRY_OVER, QUESTION, Script,  # noqa: E402
                               check_audit, check_bodies, demo_tools, run_session)
from messages import render  # noqa: E402
from quantity_guard import session, toolbox  # noqa: E402
from quantity_guard.integrations import pydantic_ai as qg_pydantic_ai  # noqa: E402


def scripted(script: Script, kinds: list, tool_defs: list) -> FunctionModel:
    def respond(messages, info):
        tool_defs.append(info.function_tools)
        last = messages[-1]
        shown = None
        if isinstance(last, ModelRequest):
            for part in last.parts:
                if isinstance(part, ToolReturnPart):  # 2.x: a ModelRetry is a retried return
                    retry = getattr(part, "retry", None)
                    kinds.append(f"retry:{retry.cause}" if getattr(part, "outcome", None) ==
                                 "retried" else "return")
                    shown = part.content if isinstance(part.content, str) \
                        else json.dumps(part.content)
                elif isinstance(part, RetryPromptPart):
                    kinds.append("retry")
                    shown = part.content if isinstance(part.content, str) else str(part.content)
        action = script.next(shown)
        if action[0] == "answer":
            return ModelResponse(parts=[TextPart(action[1])])
        return ModelResponse(parts=[ToolCallPart(action[1], action[2],
                                                 tool_call_id=f"call_{script.turn}")])

    return FunctionModel(respond)


@pytest.mark.parametrize("other_open", [False, True], ids=["one-session", "two-sessions"])
@pytest.mark.parametrize("mode", ["run_sync", "run", "run-async-tools"])
def test_agent_turn_loop_refuses_then_accepts_and_audits(mode, other_open):
    read_discharge, runoff_depth, received = demo_tools(asynchronous=mode.endswith("async-tools"))
    script, kinds, tool_defs = Script(), [], []
    agent = pai.Agent(scripted(script, kinds, tool_defs),
                      tools=qg_pydantic_ai.wrap(toolbox([read_discharge, runoff_depth])))
    with run_session(other_open) as ledger:
        if mode == "run_sync":
            result = agent.run_sync(QUESTION)
        else:
            result = asyncio.run(agent.run(QUESTION))
    assert result.output == ANSWER
    # the refusal came back as a retry prompt carrying the repair text (ModelRetry)
    assert kinds == ["return", "retry:model_retry", "return"]
    assert script.shown[2].startswith(render("carry_over", **CARRY_OVER))
    check_bodies(received)
    check_audit(ledger)
    if mode != "run-async-tools":  # sync bodies ran in pydantic-ai's worker threads
        assert all(thread != "MainThread" for _, _, thread in received), received
    discharge = {t.name: t for t in tool_defs[0]}["runoff_depth"].parameters_json_schema[
        "properties"]["discharge"]
    assert [b["type"] for b in discharge["anyOf"]] == ["number", "string", "object"]
    assert "cubic metres per second (m3/s)" in discharge["description"]


def test_arguments_generated_from_the_schema_are_accepted():
    """TestModel calls every tool with arguments generated from the JSON schema it was given;
    they reach the guard, which reads them (a bare number, in the declared unit)."""
    from quantity_guard import quantity_tool
    seen = []

    @quantity_tool(params={"discharge": {"unit": "m**3/s"}}, returns={"unit": "m**3/s"})
    def echo(discharge):
        seen.append(discharge)
        return discharge

    agent = pai.Agent(TestModel(), tools=[qg_pydantic_ai.wrap(echo)])
    with session() as ledger:
        result = agent.run_sync("go")
    assert len(seen) == 1 and seen[0].unit.symbol == "m3/s"
    assert json.loads(result.output) == {"echo": {"value": seen[0].magnitude, "unit": "m3/s"}}
    assert [c.tool for c in ledger.calls] == ["echo"]


def test_too_many_refusals_end_the_run_with_the_frameworks_error():
    _, runoff_depth, received = demo_tools()

    def always_wrong(messages, info):
        return ModelResponse(parts=[ToolCallPart("runoff_depth", {"discharge": "12 ft",
                                                                  "area": 1})])

    agent = pai.Agent(FunctionModel(always_wrong),
                      tools=[qg_pydantic_ai.wrap(runoff_depth, max_retries=2)])
    with pytest.raises(pai.UnexpectedModelBehavior, match="exceeded max retries count of 2"):
        agent.run_sync("go")
    assert received == []
