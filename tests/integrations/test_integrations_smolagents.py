"""quantity_guard.integrations.smolagents: guarded tools in real smolagents agent runs.

The model is a ``smolagents.Model`` subclass answering from ``Script`` (no network): tool calls
for ``ToolCallingAgent``, Python code for ``CodeAgent``; the agents validate the arguments and
run the tools as they run any other.
"""
from __future__ import annotations

import json
import threading

import pytest

smolagents = pytest.importorskip("smolagents", reason="smolagents is not installed: pip install -e "
                                                      "'.[integrations]'")
from smolagents.models import (ChatMessage, ChatMessageToolCall,  # noqa: E402
                               ChatMessageToolCallFunction, MessageRole, Model,
                               get_tool_json_schema)
from smolagents.monitoring import LogLevel  # noqa: E402

from integration_tools import (ANSWER, CARRY_OVER, QUESTION, SITE,  # noqa: E402
                               WRONG_DIMENSION, Script, check_audit, check_bodies, demo_tools,
                               run_session)
from messages import refusal as refused_as, render  # noqa: E402
from quantity_guard import quantity_tool, session, toolbox  # noqa: E402
from quantity_guard.integrations import smolagents as qg_smolagents  # noqa: E402


def text_of(message) -> str:
    content = message.content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""


class ScriptedModel(Model):
    """Each turn from ``script``, shown the last tool response; ``code`` writes the calls as
    Python for a CodeAgent instead of tool calls."""

    def __init__(self, script: Script, *, code: bool = False) -> None:
        super().__init__(model_id="scripted")
        self.script, self.code = script, code
        self.tools_sent: list = []
        self.responses: list = []  # the text of each tool response the model was shown

    def generate(self, messages, stop_sequences=None, response_format=None,
                 tools_to_call_from=None, **kwargs):
        self.tools_sent.append([get_tool_json_schema(t) for t in tools_to_call_from or ()])
        last = messages[-1]
        shown = None
        if last.role == MessageRole.TOOL_RESPONSE:
            text = text_of(last)
            self.responses.append(text)
            shown = self._shown(text)
        action = self.script.next(shown)
        if self.code:
            if action[0] == "answer":
                code = f"final_answer({action[1]!r})"
            else:
                args = ", ".join(f"{k}={v!r}" for k, v in action[2].items())
                code = f"result = {action[1]}({args})\nprint(result)"
            return ChatMessage(role=MessageRole.ASSISTANT,
                               content=f"Thought: next step.\n<code>\n{code}\n</code>")
        name, arguments = ("final_answer", {"answer": action[1]}) if action[0] == "answer" \
            else action[1:]
        return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[
            ChatMessageToolCall(id=f"call_{self.script.turn}", type="function",
                                function=ChatMessageToolCallFunction(name=name,
                                                                     arguments=arguments))])

    @staticmethod
    def _shown(text: str) -> str:
        """The tool's own text: its output after ``Observation:`` or the printed result after
        ``Execution logs:``, or the whole error message."""
        for head in ("Observation:\n", "Execution logs:\n"):
            if text.startswith(head):
                text = text[len(head):]
        return text.split("\n")[0] if text.startswith("{") else text


@pytest.mark.parametrize("other_open", [False, True], ids=["one-session", "two-sessions"])
@pytest.mark.parametrize("agent_class", ["ToolCallingAgent", "CodeAgent"])
def test_agent_run_refuses_then_accepts_and_audits(agent_class, other_open):
    read_discharge, runoff_depth, received = demo_tools()
    script = Script()
    model = ScriptedModel(script, code=agent_class == "CodeAgent")
    options = {}
    if agent_class == "CodeAgent" and other_open:
        # the local executor runs each snippet in a fresh thread that does not carry the caller's
        # context (see the test below); without the timeout it runs in the agent's own thread
        options["executor_kwargs"] = {"timeout_seconds": None}
    agent = getattr(smolagents, agent_class)(
        tools=qg_smolagents.wrap(toolbox([read_discharge, runoff_depth])), model=model,
        verbosity_level=LogLevel.OFF, max_steps=6, **options)
    with run_session(other_open) as ledger:
        answer = agent.run(QUESTION)
    assert answer == ANSWER
    # the refusal was the step's error, carrying the repair text, and the run went on
    errors = [step.error for step in agent.memory.steps if getattr(step, "error", None)]
    assert len(errors) == 1
    refusal = model.responses[1]
    if agent_class == "ToolCallingAgent":
        assert refusal.startswith(
            "Error:\nError executing tool 'runoff_depth' with arguments {'discharge': 1250, "
            "'area': 29000}: ToolRefused: " + render("carry_over", **CARRY_OVER))
    else:
        assert refusal.startswith(
            "Call id: call_2\nError:\nCode execution failed at line 'result = runoff_depth("
            "discharge=1250, area=29000)' due to: ToolRefused: "
            + render("carry_over", **CARRY_OVER))
    assert "Now let's retry" in refusal
    check_bodies(received)
    check_audit(ledger)
    if agent_class == "ToolCallingAgent":
        sent = {t["function"]["name"]: t["function"] for t in model.tools_sent[0]}
        discharge = sent["runoff_depth"]["parameters"]["properties"]["discharge"]
        assert discharge["type"] == ["number", "integer", "string", "object"]
        assert discharge["properties"] == {"value": {"type": "number"},
                                           "unit": {"type": "string"}}
        assert "cubic metres per second (m3/s)" in discharge["description"]
        assert sent["read_discharge"]["description"].endswith(
            "Returns cubic feet per second (cfs).")
    else:  # the code agent's system prompt shows each tool as a Python signature with its doc
        prompt = text_of(agent.memory.system_prompt.to_messages()[0])
        assert "def runoff_depth(discharge: ['number', 'integer', 'string', 'object']" in prompt
        assert "discharge: In cubic metres per second (m3/s)." in prompt


def test_code_agent_snippet_thread_with_two_sessions_open_is_refused_not_unchecked():
    """smolagents' local executor runs each code snippet in a new worker thread without the
    caller's context: with two sessions open the guarded call cannot tell which it serves, so it
    is refused (SessionUnbound), and the model is told so, instead of running unchecked."""
    read_discharge, _, received = demo_tools()
    shown = []

    class TwoTurns(Model):
        def generate(self, messages, **kwargs):
            if messages[-1].role == MessageRole.TOOL_RESPONSE:
                shown.append(text_of(messages[-1]))
                code = "final_answer('no reading')"
            else:
                code = f"print(read_discharge(site={SITE!r}))"
            return ChatMessage(role=MessageRole.ASSISTANT, content=f"<code>\n{code}\n</code>")

    agent = smolagents.CodeAgent(tools=[qg_smolagents.wrap(read_discharge)], model=TwoTurns(),
                                 verbosity_level=LogLevel.OFF)
    with run_session(other_open=True) as ledger:
        assert agent.run(QUESTION) == "no reading"
    assert received == [] and ledger.calls == []
    assert len(shown) == 1
    assert ("due to: ToolRefused: read_discharge: called from a thread (or task) bound to no "
            "session while 2 sessions are open") in shown[0], \
        shown[0]


def test_parallel_tool_calls_run_in_worker_threads_with_the_session():
    """Several calls in one step run in smolagents' thread pool, each with the caller's context:
    with a second session open, the run's session still records them."""
    read_discharge, runoff_depth, received = demo_tools()
    turns = iter(["both", "answer"])

    class Parallel(Model):
        def generate(self, messages, stop_sequences=None, response_format=None,
                     tools_to_call_from=None, **kwargs):
            if next(turns) == "answer":
                calls = [("final_answer", {"answer": ANSWER})]
            else:
                calls = [("read_discharge", {"site": SITE}),
                         ("runoff_depth", {"discharge": {"value": 1250, "unit": "cfs"},
                                           "area": 29000})]
            return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[
                ChatMessageToolCall(id=f"c{i}", type="function",
                                    function=ChatMessageToolCallFunction(name=n, arguments=a))
                for i, (n, a) in enumerate(calls)])

    agent = smolagents.ToolCallingAgent(
        tools=qg_smolagents.wrap([read_discharge, runoff_depth]), model=Parallel(),
        verbosity_level=LogLevel.OFF)
    with run_session(other_open=True) as ledger:
        assert agent.run(QUESTION) == ANSWER
    check_bodies(received)
    assert all(thread != threading.current_thread().name for _, _, thread in received)
    assert sorted(c.tool for c in ledger.calls) == ["read_discharge", "runoff_depth"]


def test_smolagents_argument_check_lets_every_form_through_and_checks_the_rest():
    seen = []

    @quantity_tool(params={"discharge": {"unit": "m**3/s"}}, returns={"unit": "m**3/s"})
    def echo(discharge, note: str = ""):
        """Echo a discharge."""
        seen.append(discharge)
        return discharge

    class Calls(Model):
        def __init__(self, calls):
            super().__init__(model_id="calls")
            self.calls, self.shown = iter(calls), []

        def generate(self, messages, **kwargs):
            if messages[-1].role == MessageRole.TOOL_RESPONSE:
                self.shown.append(text_of(messages[-1]))
            name, arguments = next(self.calls)
            return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[
                ChatMessageToolCall(id="c", type="function",
                                    function=ChatMessageToolCallFunction(name=name,
                                                                         arguments=arguments))])

    model = Calls([("echo", {"discharge": 2}), ("echo", {"discharge": 2.5}),
                   ("echo", {"discharge": "1250 cfs"}),
                   ("echo", {"discharge": {"value": 1250, "unit": "cfs"}, "note": "x"}),
                   ("echo", {"discharge": [1250]}), ("echo", {"note": "x"}),
                   ("final_answer", {"answer": "done"})])
    agent = smolagents.ToolCallingAgent(tools=[qg_smolagents.wrap(echo)], model=model,
                                        verbosity_level=LogLevel.OFF, max_steps=8)
    with session() as ledger:
        assert agent.run("go") == "done"
    assert [round(q.magnitude, 4) for q in seen] == [2, 2.5, 35.3961, 35.3961]
    assert [json.loads(s.split("\n", 1)[1]) for s in model.shown[:4]] == [
        {"value": v, "unit": "m3/s"} for v in (2, 2.5, 35.39605824, 35.39605824)]
    # a list is none of the declared types: smolagents' own check refuses it, naming them
    assert "Argument discharge has type 'array' but should be '['number', 'integer', " \
           "'string', 'object']'" in model.shown[4]
    assert "Argument discharge is required" in model.shown[5]
    assert [c.tool for c in ledger.calls] == ["echo"] * 4


def test_tool_called_directly():
    """Outside an agent: the dict result, its JSON text, and ToolRefused with the code."""
    _, runoff_depth, received = demo_tools()
    tool = qg_smolagents.wrap(runoff_depth)
    out = tool(discharge="1250 cfs", area=29000)
    assert out["unit"] == "mm/d" and json.loads(str(out)) == out
    with pytest.raises(qg_smolagents.ToolRefused) as refused:
        tool(discharge="12.4 ft", area=1)
    assert str(refused.value).startswith(render("wrong_dimension", **WRONG_DIMENSION))
    refused_as(refused.value.result, "wrong_dimension", **WRONG_DIMENSION)
    assert refused.value.code == "dimensionality_error"
    with pytest.raises(qg_smolagents.ToolRefused, match="received 2 positional argument") as \
            positional:
        tool(1, 2)
    assert positional.value.code == "invalid_arguments"
    assert len(received) == 1
    _, async_runoff, received = demo_tools(asynchronous=True)
    assert qg_smolagents.wrap(async_runoff)(discharge=1, area=1)["unit"] == "mm/d"
    assert len(received) == 1


def test_async_tool_called_while_an_event_loop_runs():
    """An agent run from async code (a notebook): the async body runs to completion in a worker
    thread carrying the caller's context, so the run's session (one of two) records it."""
    import asyncio
    _, runoff_depth, received = demo_tools(asynchronous=True)
    tool = qg_smolagents.wrap(runoff_depth)

    async def main():
        return tool(discharge="1250 cfs", area=29000)

    with run_session(other_open=True) as ledger:
        out = asyncio.run(main())
    assert out["unit"] == "mm/d"
    assert len(received) == 1 and received[0][2] != "MainThread"
    assert [c.tool for c in ledger.calls] == ["runoff_depth"]
