"""Spans of guarded calls inside the agent frameworks' own runs: LangGraph's ToolNode with the
scripted model of test_integrations_langchain.py, Google ADK's runner in a child process whose
global tracer provider ADK traces to, and a FastMCP server's own tools guarded by the transform."""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk.trace", reason="opentelemetry-sdk is not installed: "
                    "pip install -e '.[test]'")
from opentelemetry.trace import StatusCode  # noqa: E402

from integration_tools import QUESTION, demo_tools, run_session  # noqa: E402
from otel_helpers import CARRY_OVER, events, metrics, otel  # noqa: E402,F401
from quantity_guard import session, toolbox  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def test_a_langgraph_agent_run_is_one_span_per_tool_call_with_its_verdict(otel):
    pytest.importorskip("langgraph.prebuilt", reason="langgraph is not installed: pip install "
                        "-e '.[integrations]' (Python 3.11+)")
    from test_integrations_langchain import ScriptedChatModel, Shown, agent_graph

    from quantity_guard.integrations import langchain as qg_langchain
    exporter, reader = otel
    read_discharge, runoff_depth, _ = demo_tools()
    app = agent_graph(ScriptedChatModel(script=Shown()),
                      qg_langchain.wrap(toolbox([read_discharge, runoff_depth])))
    with run_session(False) as ledger:
        app.invoke({"messages": [("user", QUESTION)]})
        ledger.audit_answer("The runoff depth is 0.1055 mm/d, from 1250 cfs; about 7 mm/d.")
    spans = exporter.get_finished_spans()
    calls = [s for s in spans if s.name.startswith("tools/call ")]
    assert [s.name for s in calls] == ["tools/call read_discharge", "tools/call runoff_depth",
                                       "tools/call runoff_depth"]
    for s in calls:
        assert s.attributes["mcp.method.name"] == "tools/call"
        assert s.attributes["gen_ai.operation.name"] == "execute_tool"
        assert s.attributes["gen_ai.tool.name"] == s.name.split()[1]
    reading, refused, converted = calls
    assert reading.attributes["quantity_guard.result.unit"] == "cfs"
    assert reading.status.status_code is StatusCode.UNSET
    # the carry-over: an error span whose event carries the code, the field and the repair text
    assert refused.status.status_code is StatusCode.ERROR
    assert refused.attributes["error.type"] == "unconverted_carry_over"
    assert refused.attributes["quantity_guard.outcome"] == "refused"
    [refusal] = events(refused, "quantity_guard.refusal")
    assert refusal["quantity_guard.refusal.code"] == "unconverted_carry_over"
    assert refusal["quantity_guard.refusal.field"] == "runoff_depth.discharge"
    assert refusal["quantity_guard.refusal.kind"] == "carry_over"
    assert refusal["quantity_guard.refusal.blocked"] is True
    assert "quantity_guard.refusal.repair" not in refusal  # it quotes values: only when asked
    assert refused.status.description == "unconverted_carry_over (runoff_depth.discharge)"
    # the corrected call: each conversion, parameter by parameter, and the result's
    assert converted.status.status_code is StatusCode.UNSET
    assert "error.type" not in converted.attributes
    assert [(e["quantity_guard.parameter"], e["quantity_guard.unit.from"],
             e["quantity_guard.unit.to"]) for e in events(converted, "quantity_guard.conversion")] \
        == [("discharge", "cfs", "m3/s"), ("return", "m3/(s*km2)", "mm/d")]
    # the audit of the answer: its own span, the unsupported figure as an event
    [audit] = [s for s in spans if s.name == "quantity_guard.audit_answer"]
    assert audit.attributes["quantity_guard.audit.ok"] is False
    assert audit.attributes["quantity_guard.audit.sourced"] == 2
    assert audit.attributes["quantity_guard.audit.unsourced"] == 1
    [finding] = events(audit, "quantity_guard.audit.finding")
    assert "quantity_guard.audit.text" not in finding  # the answer's own figure: a payload
    assert finding["quantity_guard.audit.status"] == "unsourced"

    found = metrics(reader)
    where = ("quantity_guard.where", "library")
    assert found["quantity_guard.calls"] == {
        frozenset({("gen_ai.tool.name", "read_discharge"), ("quantity_guard.outcome", "ok"), where}): 1,
        frozenset({("gen_ai.tool.name", "runoff_depth"), ("quantity_guard.outcome", "refused"), where}): 1,
        frozenset({("gen_ai.tool.name", "runoff_depth"), ("quantity_guard.outcome", "ok"), where}): 1}
    assert found["quantity_guard.refusals"] == {frozenset({
        ("quantity_guard.refusal.code", "unconverted_carry_over"),
        ("quantity_guard.refusal.blocked", True), ("gen_ai.tool.name", "runoff_depth")}): 1}
    assert found["quantity_guard.conversions"] == {
        frozenset({("quantity_guard.unit.from", "cfs"), ("quantity_guard.unit.to", "m3/s"),
                   ("gen_ai.tool.name", "runoff_depth")}): 1,
        frozenset({("quantity_guard.unit.from", "m3/(s*km2)"), ("quantity_guard.unit.to", "mm/d"),
                   ("gen_ai.tool.name", "runoff_depth")}): 1}
    assert found["quantity_guard.guard.duration"] == {
        frozenset({("gen_ai.tool.name", "read_discharge"), where}): 1,
        frozenset({("gen_ai.tool.name", "runoff_depth"), where}): 2}


ADK_RUN = """
import asyncio, json, sys
sys.path[:0] = [{tests!r}, {tests!r} + '/integrations']
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
from google.adk.agents import LlmAgent
from integration_tools import Script, demo_tools, run_session
from test_integrations_google_adk import ScriptedLlm, run_agent
from quantity_guard import toolbox
from quantity_guard.integrations import google_adk
read_discharge, runoff_depth, _ = demo_tools()
script = Script()
script.errors = []
agent = LlmAgent(name="hydrologist", model=ScriptedLlm(model="scripted", script=script),
                 tools=google_adk.wrap(toolbox([read_discharge, runoff_depth])))
with run_session(False):
    asyncio.run(run_agent(agent))
print(json.dumps([{{"name": s.name, "attributes": dict(s.attributes),
                   "events": [[e.name, dict(e.attributes)] for e in s.events],
                   "status": s.status.status_code.name}}
                  for s in exporter.get_finished_spans()]))
"""


def test_an_adk_run_carries_the_verdict_on_adks_own_execute_tool_spans():
    """ADK opens an ``execute_tool <name>`` span per call (GenAI conventions): the guard adds
    its attributes and events to it rather than opening a second span."""
    pytest.importorskip("google.adk", reason="google-adk is not installed: pip install -e "
                        "'.[integrations]' (Python 3.11+)")
    code = ADK_RUN.format(tests=str(REPO / "tests"))
    # the repair text is a payload: on spans only when asked, as here
    env = {**os.environ, "PYTHONPATH": str(REPO), "QUANTITY_GUARD_TELEMETRY_PAYLOADS": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, cwd=REPO, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    spans = json.loads(out.stdout.strip().splitlines()[-1])
    assert not [s for s in spans if s["name"].startswith("tools/call")], "a second span per call"
    tools = [s for s in spans if s["attributes"].get("gen_ai.tool.name") in
             ("read_discharge", "runoff_depth") and s["name"].startswith("execute_tool")]
    assert [s["name"] for s in tools] == ["execute_tool read_discharge", "execute_tool runoff_depth",
                                          "execute_tool runoff_depth"]
    assert all(s["attributes"]["mcp.method.name"] == "tools/call" for s in tools)
    refused = tools[1]
    assert refused["attributes"]["error.type"] == "unconverted_carry_over"
    assert refused["status"] == "ERROR"
    assert [e for e in refused["events"] if e[0] == "quantity_guard.refusal"][0][1][
        "quantity_guard.refusal.repair"].startswith(CARRY_OVER)
    assert [e[1]["quantity_guard.unit.from"] for e in tools[2]["events"]
            if e[0] == "quantity_guard.conversion"] == ["cfs", "m3/(s*km2)"]


def test_a_fastmcp_servers_own_tools_guarded_by_the_transform_are_spans(otel):
    fastmcp = pytest.importorskip("fastmcp", reason="fastmcp is not installed: pip install -e "
                                  "'.[integrations]' (Python 3.11+)")
    from test_integrations_fastmcp import WATER, plain_server

    from quantity_guard.annotations import loads
    from quantity_guard.integrations import fastmcp as qg_fastmcp
    exporter, reader = otel
    server = plain_server([])
    qg_fastmcp.guard(server, loads(WATER.replace(", sourced = true", "")))

    async def calls():
        async with fastmcp.Client(server) as client:
            await client.call_tool("read_discharge", {"site": "07374000"})
            await client.call_tool("runoff_depth", {"discharge": "12.4 ft", "area": 1},
                                   raise_on_error=False)
            await client.call_tool("runoff_depth", {"discharge": "1250 cfs", "area": 29000})

    with session():
        asyncio.run(calls())
    reading, wrong, converted = [s for s in exporter.get_finished_spans()
                                 if s.name.startswith("tools/call ")]
    assert {s.attributes["quantity_guard.where"] for s in (reading, wrong, converted)} == {"fastmcp"}
    assert reading.attributes["quantity_guard.result.unit"] == "cfs"
    assert wrong.attributes["error.type"] == "dimensionality_error"
    assert [e["quantity_guard.refusal.field"] for e in events(wrong, "quantity_guard.refusal")] \
        == ["runoff_depth.discharge"]
    assert [(e["quantity_guard.parameter"], e["quantity_guard.unit.from"], e["quantity_guard.unit.to"])
            for e in events(converted, "quantity_guard.conversion")] == [
        ("discharge", "cfs", "m3/s")]
    assert converted.attributes["quantity_guard.result.unit"] == "mm/d"
    durations = metrics(reader)["quantity_guard.guard.duration"]
    assert durations == {frozenset({("gen_ai.tool.name", "read_discharge"),
                                    ("quantity_guard.where", "fastmcp")}): 1,
                         frozenset({("gen_ai.tool.name", "runoff_depth"),
                                    ("quantity_guard.where", "fastmcp")}): 2}
