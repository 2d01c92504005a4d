"""quantity_guard.integrations.google_adk: guarded tools in a real Google ADK agent run.

The model is a ``google.adk.models.BaseLlm`` subclass answering from ``Script`` with function
calls (no network); ADK's ``InMemoryRunner`` runs the agent loop and the tools.
"""
from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("google.adk", reason="google-adk is not installed: pip install -e "
                                         "'.[integrations]' (Python 3.11+)")
from google.adk.agents import LlmAgent  # noqa: E402
from google.adk.models.base_llm import BaseLlm  # noqa: E402
from google.adk.models.llm_response import LlmResponse  # noqa: E402
from google.adk.runners import InMemoryRunner  # noqa: E402
from google.genai import types  # noqa: E402

from integration_tools import (ANSWER, CARRY_OVER, QUESTION, Script,  # noqa: E402
                               check_audit, check_bodies, demo_tools, run_session)
from messages import render  # noqa: E402
from quantity_guard import toolbox  # noqa: E402
from quantity_guard.integrations import google_adk  # noqa: E402


class ScriptedLlm(BaseLlm):
    """A model whose turns come from ``Script``, shown the last function response."""

    script: Script
    declarations: list = []

    async def generate_content_async(self, llm_request, stream: bool = False):
        for tool in llm_request.config.tools or ():
            self.declarations.extend(tool.function_declarations or ())
        shown = None
        last = llm_request.contents[-1]
        for part in last.parts or ():
            if part.function_response is not None:
                response = part.function_response.response
                shown = f"Error: {response['error']}" if "error" in response \
                    else json.dumps(response)
        if shown and shown.startswith("Error: "):
            self.script.errors.append(self.script.turn + 1)
            shown = shown[len("Error: "):]
        action = self.script.next(shown)
        if action[0] == "answer":
            part = types.Part(text=action[1])
        else:
            part = types.Part(function_call=types.FunctionCall(
                name=action[1], args=action[2], id=f"call_{self.script.turn}"))
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


async def run_agent(agent) -> str:
    runner = InMemoryRunner(agent=agent, app_name="quantity-guard")
    adk_session = await runner.session_service.create_session(app_name="quantity-guard",
                                                              user_id="u")
    final = None
    async for event in runner.run_async(user_id="u", session_id=adk_session.id,
                                        new_message=types.Content(role="user",
                                                                  parts=[types.Part(
                                                                      text=QUESTION)])):
        if event.is_final_response() and event.content and event.content.parts:
            final = "".join(p.text or "" for p in event.content.parts)
    return final


@pytest.mark.parametrize("other_open", [False, True], ids=["one-session", "two-sessions"])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync-tools", "async-tools"])
def test_adk_turn_loop_refuses_then_accepts_and_audits(asynchronous, other_open):
    read_discharge, runoff_depth, received = demo_tools(asynchronous)
    script = Script()
    script.errors = []
    model = ScriptedLlm(model="scripted", script=script)
    agent = LlmAgent(name="hydrologist", model=model, instruction="Answer with tools.",
                     tools=google_adk.wrap(toolbox([read_discharge, runoff_depth])))
    with run_session(other_open) as ledger:
        answer = asyncio.run(run_agent(agent))
    assert answer == ANSWER
    assert script.errors == [3]
    assert script.shown[2].startswith(render("carry_over", **CARRY_OVER))
    check_bodies(received)
    check_audit(ledger)
    declared = {d.name: d for d in model.declarations}
    discharge = declared["runoff_depth"].parameters.properties["discharge"]
    assert [s.type for s in discharge.any_of][:2] == [types.Type.NUMBER, types.Type.STRING]
    assert "cubic metres per second (m3/s)" in discharge.description
