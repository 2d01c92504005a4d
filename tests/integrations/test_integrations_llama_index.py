"""quantity_guard.integrations.llama_index: guarded tools in real LlamaIndex agent runs.

The model is LlamaIndex's own ``MockFunctionCallingLLM`` (no network) answering from ``Script``:
tool calls as ``ToolCallBlock``s for ``FunctionAgent``, ReAct text (``Action:`` / ``Action
Input:``) for ``ReActAgent``; the agents run the tools as they run any other.
"""
from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("numpy", reason="llama-index-core needs numpy, which is not installed")
pytest.importorskip("llama_index.core", reason="llama-index-core is not installed: pip install -e "
                                               "'.[integrations]'")
from llama_index.core.agent.workflow import (FunctionAgent, ReActAgent,  # noqa: E402
                                             ToolCallResult)
from llama_index.core.base.llms.types import (ChatMessage, MessageRole,  # noqa: E402
                                              ToolCallBlock)
from llama_index.core.llms.mock import MockFunctionCallingLLM  # noqa: E402
from llama_index.core.tools.calling import call_tool  # noqa: E402
from llama_index.core.tools.types import ToolOutput  # noqa: E402

from integration_tools import (ANSWER, CARRY_OVER, QUESTION, WRONG_DIMENSION,  # noqa: E402
                               Script, check_audit, check_bodies, demo_tools, run_session)
from messages import render  # noqa: E402
from quantity_guard import quantity_tool, session, toolbox  # noqa: E402
from quantity_guard.integrations import llama_index as qg_llama_index  # noqa: E402

# LlamaIndex's workflow inspects its own pydantic objects with deprecated attributes (a plain
# FunctionTool run warns the same): not this integration's warnings
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def function_calling_llm(script: Script, shown_tools: list) -> MockFunctionCallingLLM:
    """Tool calls as blocks; the turn's input is the last tool message's text."""
    def respond(messages, **kwargs):
        shown_tools.append([t.metadata.to_openai_tool() for t in kwargs.get("tools", [])])
        last = messages[-1]
        action = script.next(last.content if last.role == MessageRole.TOOL else None)
        if action[0] == "answer":
            return ChatMessage(role=MessageRole.ASSISTANT, content=action[1])
        return ChatMessage(role=MessageRole.ASSISTANT, blocks=[ToolCallBlock(
            tool_call_id=f"call_{script.turn}", tool_name=action[1], tool_kwargs=action[2])])

    return MockFunctionCallingLLM(response_generator=respond)


def react_llm(script: Script, prompts: list) -> MockFunctionCallingLLM:
    """ReAct text; the turn's input is the text after the last ``Observation:``."""
    def respond(messages, **kwargs):
        prompts.append(messages[0].content)  # the system prompt, with the tools' schemas
        last = messages[-1].content or ""
        shown = last.split("Observation: ", 1)[1] if last.startswith("Observation: ") else None
        action = script.next(shown)
        if action[0] == "answer":
            return ChatMessage(role=MessageRole.ASSISTANT,
                               content=f"Thought: I can answer without using any more tools.\n"
                                       f"Answer: {action[1]}")
        return ChatMessage(role=MessageRole.ASSISTANT, content=(
            f"Thought: I need to use a tool.\nAction: {action[1]}\n"
            f"Action Input: {json.dumps(action[2])}"))

    return MockFunctionCallingLLM(response_generator=respond, is_function_calling_model=False)


async def run_agent(agent):
    handler = agent.run(user_msg=QUESTION)
    results = [ev async for ev in handler.stream_events() if isinstance(ev, ToolCallResult)]
    return await handler, results


@pytest.mark.parametrize("other_open", [False, True], ids=["one-session", "two-sessions"])
@pytest.mark.parametrize("mode", ["function-agent", "function-agent-async-tools", "react-agent"])
def test_agent_run_refuses_then_accepts_and_audits(mode, other_open):
    read_discharge, runoff_depth, received = demo_tools(asynchronous=mode.endswith("async-tools"))
    tools = qg_llama_index.wrap(toolbox([read_discharge, runoff_depth]))
    script, seen = Script(), []
    if mode == "react-agent":
        agent = ReActAgent(tools=tools, llm=react_llm(script, seen), streaming=False)
    else:
        agent = FunctionAgent(tools=tools, llm=function_calling_llm(script, seen),
                              streaming=False)
    with run_session(other_open) as ledger:
        response, results = asyncio.run(run_agent(agent))
    assert str(response.response.content).strip() == ANSWER
    # the refusal was the tool's error output, carrying the repair text, and the run went on
    assert [r.tool_output.is_error for r in results] == [False, True, False]
    assert results[1].tool_output.content.startswith(render("carry_over", **CARRY_OVER))
    assert script.shown[2] == results[1].tool_output.content
    assert results[0].tool_output.raw_output == {"value": 1250.0, "unit": "cfs"}
    assert results[2].tool_output.raw_output["unit"] == "mm/d"
    check_bodies(received)
    check_audit(ledger)
    if mode != "function-agent-async-tools":  # sync bodies ran in worker threads
        assert all(thread != "MainThread" for _, _, thread in received), received
    if mode == "react-agent":  # the ReAct prompt carries the library's schema
        assert "cubic metres per second (m3/s)" in seen[0]
        assert '"anyOf": [{"type": "number"}, {"type": "string"}' in seen[0]
    else:
        sent = {t["function"]["name"]: t["function"] for t in seen[0]}
        discharge = sent["runoff_depth"]["parameters"]["properties"]["discharge"]
        assert [b["type"] for b in discharge["anyOf"]] == ["number", "string", "object"]
        assert "cubic metres per second (m3/s)" in discharge["description"]
        assert sent["read_discharge"]["description"].endswith(
            "Returns cubic feet per second (cfs).")


def test_predict_and_call_runs_the_tool_in_the_calling_thread():
    """``llm.predict_and_call`` (sync) goes through LlamaIndex's ``call_tool``: the refusal is an
    error output, not an exception, and a converted call is recorded in the session."""
    _, runoff_depth, received = demo_tools()
    tool = qg_llama_index.wrap(runoff_depth)
    calls = iter([{"discharge": "12.4 ft", "area": 1}, {"discharge": "1250 cfs", "area": 29000}])

    def respond(messages, **kwargs):
        return ChatMessage(role=MessageRole.ASSISTANT, blocks=[ToolCallBlock(
            tool_call_id="c", tool_name="runoff_depth", tool_kwargs=next(calls))])

    llm = MockFunctionCallingLLM(response_generator=respond)
    with session() as ledger:
        refused = llm.predict_and_call([tool], "go")
        answered = llm.predict_and_call([tool], "go")
    assert refused.sources[0].is_error
    assert refused.response.startswith(render("wrong_dimension", **WRONG_DIMENSION))
    assert not answered.sources[0].is_error
    assert json.loads(answered.response)["unit"] == "mm/d"
    assert [name for name, _, thread in received] == ["runoff_depth"]
    assert received[0][2] == "MainThread"
    assert [c.tool for c in ledger.calls] == ["runoff_depth", "runoff_depth"]


def test_call_tool_outcomes():
    """LlamaIndex's ``call_tool`` passes a one-parameter tool its argument positionally: the
    tool reads it as that parameter, in any of the three forms; mistakes are error outputs."""
    seen = []

    @quantity_tool(params={"discharge": {"unit": "m**3/s"}}, returns={"unit": "m**3/s"})
    def echo(discharge):
        """Echo a discharge."""
        seen.append(discharge)
        return discharge

    tool = qg_llama_index.wrap(echo)
    for argument in (1.5, "1250 cfs", {"value": 1250, "unit": "cfs"}):
        out = call_tool(tool, {"discharge": argument})
        assert isinstance(out, ToolOutput) and not out.is_error, out
    assert [round(q.magnitude, 4) for q in seen] == [1.5, 35.3961, 35.3961]
    wrong = call_tool(tool, {"discharge": "3 ft"})
    assert wrong.is_error and wrong.content.startswith("echo.discharge: expected a quantity")
    assert wrong.raw_input == {"args": (), "kwargs": {"discharge": "3 ft"}}
    unknown = call_tool(tool, {"discharge": 1, "flow": 2})
    assert unknown.is_error and "flow" in unknown.content
    positional = tool(1, 2)
    assert positional.is_error
    assert positional.content == ("echo: received 2 positional argument(s); send the arguments "
                                  "by name: ['discharge']")
    assert len(seen) == 3
    # the metadata: name, description with the returned unit, the library's schema
    assert tool.metadata.name == "echo"
    assert tool.metadata.description == "Echo a discharge. Returns cubic metres per second (m3/s)."
    assert json.loads(tool.metadata.fn_schema_str) == \
        echo.json_schema(extensions=False)["inputSchema"]


def test_async_tool_called_synchronously_outside_a_loop():
    _, runoff_depth, received = demo_tools(asynchronous=True)
    out = qg_llama_index.wrap(runoff_depth)(discharge="1250 cfs", area=29000)
    assert not out.is_error and out.raw_output["unit"] == "mm/d"
    assert len(received) == 1


def test_async_tool_called_synchronously_while_an_event_loop_runs():
    _, runoff_depth, received = demo_tools(asynchronous=True)
    tool = qg_llama_index.wrap(runoff_depth)

    async def main():
        return tool.call(discharge="1250 cfs", area=29000)

    with run_session(other_open=True) as ledger:
        out = asyncio.run(main())
    assert not out.is_error and out.raw_output["unit"] == "mm/d"
    assert len(received) == 1 and received[0][2] != "MainThread"
    assert [c.tool for c in ledger.calls] == ["runoff_depth"]
