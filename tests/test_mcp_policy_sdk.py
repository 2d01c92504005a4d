"""quantity-guard-mcp with the real quantity policy, under the official MCP SDK client, over real
pipes: against an SDK-built upstream server and against the demo's stdlib server."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp")
anyio = pytest.importorskip("anyio")

sys.path.insert(0, str(Path(__file__).parent))
from mcp_peers.driver import REPO, SDK_SERVER, env  # noqa: E402
from mcp_peers.sdk_client import run, stdio_params  # noqa: E402

from mcp import Client, StdioServerParameters  # noqa: E402

DEMO_SERVER = str(REPO / "demo" / "usgs_server.py")
DEMO_ANNOTATIONS = str(REPO / "demo" / "water.toml")
TIMEOUT = 60
CFS = 0.028316846592


def guarded(annotations: str, *upstream: str, options: tuple = ()) -> StdioServerParameters:
    return stdio_params([sys.executable, "-m", "quantity_guard.mcp.cli", "--annotations", annotations,
                         *options, "--", *upstream])


async def all_tools(client) -> dict:
    tools, cursor = {}, None
    while True:
        page = await client.list_tools(cursor=cursor)
        tools.update({t.name: t for t in page.tools})
        cursor = page.next_cursor
        if not cursor:
            return tools


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_sdk_upstream_guarded_by_annotations(mode, tmp_path):
    annotations = tmp_path / "sdk.toml"
    annotations.write_text('[tools.read_discharge]\nreturns = { unit = "cfs" }\n\n'
                           '[tools.runoff.params]\ndischarge = { unit = "m**3/s" }\n'
                           'area = { unit = "km**2" }\n')
    manifest = tmp_path / "manifest.json"

    async def session():
        server = guarded(str(annotations), sys.executable, SDK_SERVER,
                         options=("--manifest", str(manifest)))
        async with Client(server, mode=mode, read_timeout_seconds=TIMEOUT) as client:
            tools = await all_tools(client)
            jsonschema = pytest.importorskip("jsonschema")
            for tool in tools.values():  # the rewritten listing is valid JSON Schema 2020-12
                assert tool.input_schema["type"] == "object"
                jsonschema.Draft202012Validator.check_schema(tool.input_schema)
                if tool.output_schema:
                    jsonschema.Draft202012Validator.check_schema(tool.output_schema)
            props = tools["runoff"].input_schema["properties"]
            assert props["discharge"]["x-unit"] == "m**3/s"
            assert "cubic metres per second (m3/s)" in props["discharge"]["description"]
            # the upstream's output schema is extended, not replaced (issue #12, defect 3)
            out = tools["read_discharge"].output_schema
            assert out["required"] == ["result"] and out["properties"]["result"]["type"] == "number"
            assert out["properties"]["result"]["x-unit"] == "cfs"

            # a reading is labelled in the text; the structured result keeps the upstream's shape
            # and the SDK validates it against the advertised outputSchema
            r = await client.call_tool("read_discharge", {"site": "07374000"})
            assert r.structured_content == {"result": 1250.0}
            assert json.loads(r.content[0].text) == {"value": 1250.0, "unit": "cfs"}

            # converted in flight: the upstream receives m3/s
            r = await client.call_tool("runoff", {"discharge": "1250 cfs", "area": 29000})
            assert not r.is_error
            received = json.loads(r.content[0].text)["received"]
            assert received == {"discharge": pytest.approx(1250 * CFS, rel=1e-15), "area": 29000}

            # the carry-over is refused as a tool error, not an exception
            r = await client.call_tool("runoff", {"discharge": 1250, "area": 29000})
            assert r.is_error is True
            assert "read_discharge.return returned 1250 cfs and no conversion was applied" in \
                r.content[0].text

            # a wrong dimension likewise; nothing reaches the upstream
            r = await client.call_tool("runoff", {"discharge": "12.4 ft", "area": 29000})
            assert r.is_error and "expected a quantity in m**3/s" in r.content[0].text

            # unguarded tools pass untouched
            r = await client.call_tool("echo", {"k": 1})
            assert r.structured_content == {"args": {"k": 1}}

    run(session)
    data = json.loads(manifest.read_text())
    calls = [c for s in data["sessions"] for c in s["calls"]]
    assert [c["tool"] for c in calls][:2] == ["read_discharge", "runoff"]
    assert [v["code"] for s in data["sessions"] for v in s["violations"]] == [
        "unconverted_carry_over", "dimensionality_error"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_demo_server_under_the_sdk_client(mode):
    async def session():
        async with Client(guarded(DEMO_ANNOTATIONS, sys.executable, DEMO_SERVER), mode=mode,
                          read_timeout_seconds=TIMEOUT) as client:
            tools = await all_tools(client)
            assert tools["freeboard"].input_schema["properties"]["stage"]["x-datum"] == "NAVD88"
            r = await client.call_tool("read_discharge", {"site": "07374000"})
            assert r.structured_content == {"value": 1250.0, "unit": "cfs"}
            await client.call_tool("read_drainage_area", {"site": "07374000"})
            r = await client.call_tool("runoff_depth", {"discharge": 1250, "area": 29000})
            assert r.is_error
            r = await client.call_tool("runoff_depth", {"discharge": {"value": 1250, "unit": "cfs"},
                                                        "area": 29000})
            assert r.structured_content == {"value": pytest.approx(0.10545584248055173),
                                            "unit": "mm/d"}
            r = await client.call_tool("runoff_depth", {"discharge": "1250 cfs", "area": 2915830})
            assert r.is_error and "which no tool returned" in r.content[0].text
            r = await client.call_tool("freeboard", {"stage": "12.4 ft GAGE:07374000",
                                                     "crest": 31.0})
            assert r.is_error and "never silently shifted" in r.content[0].text
            r = await client.call_tool("freeboard", {"stage": "13.9 ft NAVD88", "crest": 31.0})
            assert r.structured_content == {"value": pytest.approx(17.1), "unit": "ft"}

    run(session)


def test_check_reports_against_the_live_catalogue(tmp_path):
    import subprocess
    bad = tmp_path / "bad.toml"
    bad.write_text('[tools.read_dischrge]\nreturns = "cfs"\n[tools.runoff_depth.params]\n'
                   'flow = "m3/s"\n')
    argv = [sys.executable, "-m", "quantity_guard.mcp.cli", "--check", "--annotations"]
    good = subprocess.run([*argv, DEMO_ANNOTATIONS, "--", sys.executable, DEMO_SERVER],
                          capture_output=True, text=True, env=env(), timeout=TIMEOUT)
    assert good.returncode == 0, good.stderr
    assert "annotations match the server" in good.stdout
    assert "guarded   freeboard(stage [ft, datum NAVD88], crest [ft, datum NAVD88]) -> ft" in good.stdout
    out = subprocess.run([*argv, str(bad), "--", sys.executable, DEMO_SERVER],
                         capture_output=True, text=True, env=env(), timeout=TIMEOUT)
    assert out.returncode != 0
    assert "the server has no tool 'read_dischrge' (did you mean 'read_discharge'" in out.stdout
    assert "runoff_depth has no parameter 'flow'" in out.stdout


def test_bad_annotations_are_reported_before_the_upstream_starts(tmp_path):
    import subprocess
    bad = tmp_path / "bad.toml"
    bad.write_text('[tools.x.params]\nq = { unit = "cfz" }\n')
    marker = tmp_path / "started"
    upstream = [sys.executable, "-c", f"open({str(marker)!r}, 'w').close()"]
    out = subprocess.run([sys.executable, "-m", "quantity_guard.mcp.cli", "--annotations",
                          str(bad), "--", *upstream], capture_output=True, text=True, env=env(),
                         timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert out.returncode != 0 and not marker.exists()
    assert "line 2: tools.x.q" in out.stderr and "unknown unit 'cfz'" in out.stderr
