"""quantity_guard.integrations.fastmcp: a FastMCP server's tools guarded in process.

The agent loop runs ``Script`` against FastMCP's in-memory ``Client`` (no sockets, no network):
the model's tool calls go through the MCP protocol to the server, and what the model is shown is
the tool result's text, as an MCP host would pass it on.
"""
from __future__ import annotations

import asyncio
import json

import pytest

fastmcp = pytest.importorskip("fastmcp", reason="fastmcp is not installed: pip install -e "
                                                "'.[integrations]' (Python 3.11+)")

from integration_tools import (ANSWER, CARRY_OVER, SITE, WRONG_DIMENSION,  # noqa: E402
                               Script, check_audit, check_bodies, demo_tools, run_session)
from messages import refusal, render  # noqa: E402
from quantity_guard import session, toolbox  # noqa: E402
from quantity_guard.annotations import loads  # noqa: E402
from quantity_guard.integrations import fastmcp as qg_fastmcp  # noqa: E402

# the proxy's annotation format, as in demo/water.toml
WATER = """
[tools.read_discharge]
returns = { unit = "cfs" }

[tools.runoff_depth]
returns = { unit = "mm/day" }

[tools.runoff_depth.params]
discharge = { unit = "m**3/s" }
area = { unit = "km**2", sourced = true }
"""


def plain_server(received: list):
    """An ordinary FastMCP server that states units only in prose and answers bare numbers."""
    server = fastmcp.FastMCP("usgs-demo")

    @server.tool
    def read_discharge(site: str) -> float:
        """Latest discharge at a USGS site, in cubic feet per second."""
        received.append(("read_discharge", {"site": site}))
        return 1250.0

    @server.tool
    def runoff_depth(discharge: float, area: float) -> float:
        """Depth-equivalent runoff over the contributing area, in millimetres per day."""
        received.append(("runoff_depth", {"discharge": discharge, "area": area}))
        return discharge / area * 86.4

    @server.tool
    def station_name(site: str) -> str:
        """Not annotated: passes untouched."""
        return f"station {site}"

    return server


def result_text(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def agent_loop(client, script: Script) -> str:
    shown = None
    while True:
        action = script.next(shown)
        if action[0] == "answer":
            return action[1]
        result = await client.call_tool(action[1], action[2], raise_on_error=False)
        shown = ("Error: " if result.is_error else "") + result_text(result)


async def run_agent(server, script):
    async with fastmcp.Client(server) as client:
        listed = {t.name: t for t in await client.list_tools()}
        answer = await agent_loop(client, script)
    return listed, answer


class _Answer(Script):
    def next(self, shown):
        return ("answer", "")


class ErrorAware(Script):
    def next(self, shown):
        if shown and shown.startswith("Error: "):
            self.errors.append(self.turn + 1)
            shown = shown[len("Error: "):]
        return super().next(shown)

    def __init__(self) -> None:
        super().__init__()
        self.errors: list = []


@pytest.mark.parametrize("other_open", [False, True], ids=["one-session", "two-sessions"])
def test_annotated_server_turn_loop_converts_refuses_labels_and_audits(other_open):
    received: list = []
    server = plain_server(received)
    qg_fastmcp.guard(server, loads(WATER))
    script = ErrorAware()
    with run_session(other_open) as ledger:
        listed, answer = asyncio.run(run_agent(server, script))
    assert answer == ANSWER and script.errors == [3]
    assert script.shown[2].startswith(render("carry_over", **CARRY_OVER))
    # advertised with units; the untouched tool keeps its schema
    discharge = listed["runoff_depth"].input_schema["properties"]["discharge"]
    assert discharge["x-unit"] == "m**3/s"
    assert [b["type"] for b in discharge["anyOf"]] == ["number", "string", "object"]
    assert "cubic metres per second (m3/s)" in discharge["description"]
    # the tool's own output schema, extended: the number it returns carries its unit
    assert listed["read_discharge"].output_schema["properties"]["result"]["x-unit"] == "cfs"
    plain, _ = asyncio.run(run_agent(plain_server([]), _Answer()))
    assert listed["station_name"] == plain["station_name"]
    assert listed["runoff_depth"].description.startswith(plain["runoff_depth"].description)
    # the server's own body received the converted float, once; the refused call never ran
    assert [name for name, _ in received] == ["read_discharge", "runoff_depth"]
    assert received[1][1]["discharge"] == pytest.approx(35.39605824)
    check_audit(ledger)


@pytest.mark.parametrize("other_open", [False, True], ids=["one-session", "two-sessions"])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync-tools", "async-tools"])
def test_decorated_tools_served_by_fastmcp(asynchronous, other_open):
    read_discharge, runoff_depth, received = demo_tools(asynchronous)
    server = fastmcp.FastMCP("guarded")
    for tool in qg_fastmcp.wrap(toolbox([read_discharge, runoff_depth])):
        server.add_tool(tool)
    script = ErrorAware()
    with run_session(other_open) as ledger:
        listed, answer = asyncio.run(run_agent(server, script))
    assert answer == ANSWER and script.errors == [3]
    assert listed["runoff_depth"].input_schema["properties"]["area"]["x-unit"] == "km**2"
    assert listed["read_discharge"].output_schema == read_discharge.json_schema()["outputSchema"]
    check_bodies(received)
    check_audit(ledger)


@pytest.mark.parametrize("how", ["annotations", "decorated"])
def test_without_a_session_the_server_keeps_its_own_ledger(how):
    """No session() around the server: carry-over is still caught across calls (here from two
    clients: MCP's 2026 revision makes every request a connection of its own), until reset()."""
    if how == "annotations":
        server = plain_server([])
        guarded = qg_fastmcp.guard(server, loads(WATER.replace(", sourced = true", "")))
    else:
        read_discharge, runoff_depth, _ = demo_tools()
        server = fastmcp.FastMCP("guarded")
        tools = qg_fastmcp.wrap([read_discharge, runoff_depth])
        for tool in tools:
            server.add_tool(tool)
        guarded = tools[0]

    async def call(name, arguments):
        async with fastmcp.Client(server) as client:
            return await client.call_tool(name, arguments, raise_on_error=False)

    bare = {"discharge": 1250, "area": 29000}
    assert not asyncio.run(call("runoff_depth", bare)).is_error  # nothing read yet: 1250 m3/s
    asyncio.run(call("read_discharge", {"site": SITE}))
    refused = asyncio.run(call("runoff_depth", bare))
    refusal(refused, "carry_over", **CARRY_OVER)
    guarded.reset()
    assert not asyncio.run(call("runoff_depth", bare)).is_error


def test_dimension_errors_and_labelled_results():
    received: list = []
    server = plain_server(received)
    qg_fastmcp.guard(server, loads(WATER))

    async def calls():
        async with fastmcp.Client(server) as client:
            reading = await client.call_tool("read_discharge", {"site": SITE})
            wrong = await client.call_tool("runoff_depth", {"discharge": "12.4 ft", "area": 1},
                                           raise_on_error=False)
            untouched = await client.call_tool("station_name", {"site": SITE})
            return reading, wrong, untouched

    with session():
        reading, wrong, untouched = asyncio.run(calls())
    assert reading.structured_content == {"result": 1250.0}  # the shape its schema declares
    assert json.loads(result_text(reading)) == {"value": 1250.0, "unit": "cfs"}
    refusal(wrong, "wrong_dimension", **WRONG_DIMENSION)
    assert result_text(wrong).startswith(render("wrong_dimension", **WRONG_DIMENSION))
    assert result_text(untouched) == f"station {SITE}"
    assert [name for name, _ in received] == ["read_discharge"]


def test_annotation_errors_are_reported_before_serving(tmp_path):
    from quantity_guard.annotations import AnnotationError
    path = tmp_path / "bad.toml"
    path.write_text('[tools.runoff_depth.params]\ndischarge = { unit = "furlongs/fortnight" }\n')
    with pytest.raises(AnnotationError, match="line 2: tools.runoff_depth.discharge"):
        qg_fastmcp.guard(fastmcp.FastMCP("x"), path)
    ok = tmp_path / "water.toml"
    ok.write_text(WATER)
    transform = qg_fastmcp.guard(fastmcp.FastMCP("x"), ok)
    assert "runoff_depth" in repr(transform)


def test_guard_warns_about_tools_and_parameters_the_server_does_not_have(caplog):
    """Like the proxy: when the tools are first listed, one line says what is guarded and each
    declaration that matches nothing is warned about, with the name it may have meant."""
    import logging
    server = plain_server([])
    qg_fastmcp.guard(server, loads(WATER.replace("read_discharge", "read_dischrge")))

    async def listed():
        async with fastmcp.Client(server) as client:
            await client.list_tools()
            await client.list_tools()

    with caplog.at_level(logging.INFO, logger="quantity_guard.mcp"):
        asyncio.run(listed())
    texts = [r.getMessage() for r in caplog.records if r.name == "quantity_guard.mcp"]
    assert sum("guarding 2 parameters and 1 result on 1 of" in t for t in texts) == 1
    (warning,) = [t for t in texts if "read_dischrge" in t]
    assert "did you mean 'read_discharge'" in warning
