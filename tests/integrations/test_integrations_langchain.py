"""quantity_guard.integrations.langchain: guarded tools in a real LangGraph agent loop.

The chat model is a LangChain ``BaseChatModel`` subclass answering from ``Script`` with tool
calls (a fake chat model: no network); LangGraph's prebuilt ``ToolNode`` runs the tools.
"""
from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("langchain_core", reason="langchain-core is not installed: pip install -e "
                                             "'.[integrations]' (Python 3.11+)")
langgraph_prebuilt = pytest.importorskip("langgraph.prebuilt", reason="langgraph is not installed: "
                                         "pip install -e '.[integrations]' (Python 3.11+)")
from langchain_core.language_models.chat_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage, ToolMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatResult  # noqa: E402
from langchain_core.utils.function_calling import convert_to_openai_tool  # noqa: E402
from langgraph.graph import END, START, MessagesState, StateGraph  # noqa: E402

from integration_tools import (ANSWER, CARRY_OVER, QUESTION, WRONG_DIMENSION,  # noqa: E402
                               Script, check_audit, check_bodies, demo_tools, run_session)
from messages import render  # noqa: E402
from quantity_guard import toolbox  # noqa: E402
from quantity_guard.integrations import langchain as qg_langchain  # noqa: E402


class ScriptedChatModel(BaseChatModel):
    """A fake chat model whose every turn comes from ``Script``, given the last ToolMessage."""

    script: Script
    seen_messages: list = []
    bound_tools: list = []

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        self.bound_tools = [convert_to_openai_tool(t) for t in tools]  # what a provider is sent
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen_messages.append(list(messages))
        last = messages[-1]
        shown = last.content if isinstance(last, ToolMessage) else None
        if isinstance(last, ToolMessage) and last.status == "error":
            shown = f"[status=error] {shown}"
        action = self.script.next(shown)
        if action[0] == "answer":
            message = AIMessage(content=action[1])
        else:
            message = AIMessage(content="", tool_calls=[{
                "name": action[1], "args": action[2], "id": f"call_{self.script.turn}",
                "type": "tool_call"}])
        return ChatResult(generations=[ChatGeneration(message=message)])


def agent_graph(model, tools):
    bound = model.bind_tools(tools)

    def call_model(state):
        return {"messages": [bound.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("model", call_model)
    graph.add_node("tools", langgraph_prebuilt.ToolNode(tools))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", langgraph_prebuilt.tools_condition,
                                {"tools": "tools", END: END})
    graph.add_edge("tools", "model")
    return graph.compile()


class Shown(Script):
    def next(self, shown):
        if shown and shown.startswith("[status=error] "):
            shown = shown[len("[status=error] "):]
            self.errors.append(self.turn + 1)
        return super().next(shown)

    def __init__(self) -> None:
        super().__init__()
        self.errors: list = []


@pytest.mark.parametrize("other_open", [False, True], ids=["one-session", "two-sessions"])
@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "ainvoke-async-tools"])
def test_langgraph_turn_loop_refuses_then_accepts_and_audits(mode, other_open):
    read_discharge, runoff_depth, received = demo_tools(asynchronous=mode.endswith("async-tools"))
    script = Shown()
    model = ScriptedChatModel(script=script)
    tools = qg_langchain.wrap(toolbox([read_discharge, runoff_depth]))
    app = agent_graph(model, tools)
    with run_session(other_open) as ledger:
        if mode == "invoke":
            state = app.invoke({"messages": [("user", QUESTION)]})
        else:
            state = asyncio.run(app.ainvoke({"messages": [("user", QUESTION)]}))
    messages = state["messages"]
    assert messages[-1].content == ANSWER
    tool_messages = [m for m in messages if isinstance(m, ToolMessage)]
    assert [m.status for m in tool_messages] == ["success", "error", "success"]
    assert script.errors == [3]  # the model's third turn was shown the refusal as an error
    assert tool_messages[1].content.startswith(render("carry_over", **CARRY_OVER))
    assert tool_messages[1].tool_call_id == "call_2"
    assert tool_messages[0].artifact == {"value": 1250.0, "unit": "cfs"}
    assert tool_messages[2].artifact["unit"] == "mm/d"
    check_bodies(received)
    check_audit(ledger)
    if mode != "ainvoke-async-tools":  # sync bodies ran in LangGraph's / LangChain's workers
        assert all(thread != "MainThread" for _, _, thread in received), received


def test_tools_show_the_librarys_schema_to_the_provider():
    read_discharge, runoff_depth, _ = demo_tools()
    model = ScriptedChatModel(script=Script())
    model.bind_tools(qg_langchain.wrap([read_discharge, runoff_depth]))
    sent = {t["function"]["name"]: t["function"] for t in model.bound_tools}
    discharge = sent["runoff_depth"]["parameters"]["properties"]["discharge"]
    assert [b["type"] for b in discharge["anyOf"]] == ["number", "string", "object"]
    assert "cubic metres per second (m3/s)" in discharge["description"]
    assert "x-unit" not in json.dumps(sent)
    assert sent["read_discharge"]["description"].endswith("Returns cubic feet per second (cfs).")


def test_tool_call_outside_a_graph_gives_tool_messages():
    _, runoff_depth, received = demo_tools()
    tool = qg_langchain.wrap(runoff_depth)
    ok = tool.invoke({"name": "runoff_depth", "args": {"discharge": {"value": 1250, "unit": "cfs"},
                                                       "area": 29000},
                      "id": "c1", "type": "tool_call"})
    assert isinstance(ok, ToolMessage) and ok.status == "success"
    assert json.loads(ok.content)["unit"] == "mm/d"
    bad = tool.invoke({"name": "runoff_depth", "args": {"discharge": "12.4 ft", "area": 1},
                       "id": "c2", "type": "tool_call"})
    assert bad.status == "error" and bad.tool_call_id == "c2"
    assert bad.content.startswith(render("wrong_dimension", **WRONG_DIMENSION))
    missing = tool.invoke({"name": "runoff_depth", "args": {"area": 1}, "id": "c3",
                           "type": "tool_call"})
    assert missing.status == "error"
    assert "missing required argument(s) ['discharge']" in missing.content
    # plain invocation with a dict (no tool call): the content, and errors as text, not raised
    assert tool.invoke({"discharge": "1250 cfs", "area": 29000}).startswith('{"value": 0.105')
    assert len(received) == 2
