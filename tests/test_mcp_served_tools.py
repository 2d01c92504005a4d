"""Decorated tools served with quantity_guard.mcp.server, under the official SDK client: the
schemas carry units, results validate against their outputSchema, and the served session
catches carry-over across calls (a new client session starts a new ledger)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp")
anyio = pytest.importorskip("anyio")

sys.path.insert(0, str(Path(__file__).parent))
from mcp_peers.driver import env  # noqa: E402
from messages import refusal  # noqa: E402

from mcp import Client, StdioServerParameters  # noqa: E402

TIMEOUT = 60


def server() -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "quantity_guard.mcp.server", "mcp_peers.water_tools:box"],
        env=env(PYTHONPATH=str(Path(__file__).parent) + ":" + env()["PYTHONPATH"]))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_served_decorated_tools(mode):
    async def session():
        async with Client(server(), mode=mode, read_timeout_seconds=TIMEOUT) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert tools["runoff_depth"].input_schema["properties"]["discharge"]["x-unit"] == \
                "m**3/s"
            r = await client.call_tool("read_crest", {"site": "x"})
            assert r.structured_content == {"value": 31.0, "unit": "ft", "datum": "NAVD88"}
            r = await client.call_tool("read_discharge", {"site": "x"})
            assert r.structured_content == {"value": 1250.0, "unit": "cfs"}
            r = await client.call_tool("runoff_depth", {"discharge": "1250 cfs", "area": 29000})
            assert not r.is_error and r.structured_content["unit"] == "mm/d"
            r = await client.call_tool("runoff_depth", {"discharge": 1250, "area": 29000})
            refusal(r, "carry_over", field="runoff_depth.discharge", value="1250",
                    unit="m3/s", source="read_discharge.return", source_unit="cfs")

    async def both():
        with anyio.fail_after(TIMEOUT * 2):
            await session()
            await session()  # a new client process: a fresh ledger, the same behaviour

    anyio.run(both)


def test_toolbox_call_tool_keeps_its_own_session_and_reset_forgets_it():
    from mcp_peers.water_tools import box
    box.reset()
    box.call_tool("read_discharge", {"site": "x"})
    assert box.call_tool("runoff_depth", {"discharge": 1250, "area": 29000})["isError"]
    box.reset()
    assert not box.call_tool("runoff_depth", {"discharge": 1250, "area": 29000})["isError"]
    # invoke/dispatch use the caller's session() only
    assert not box.invoke("runoff_depth", {"discharge": 1250, "area": 29000})["isError"]
