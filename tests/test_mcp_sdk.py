"""The official MCP SDK (2.3) as the client, over real pipes: directly against an SDK-built
upstream, through the pass-through proxy, and through a guarding proxy (fake policy);
plus quantity_guard.mcp.server under the SDK client. Both the default auto mode (server/discover
probe, 2026-07-28) and mode="legacy" (initialize)."""
from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp")
anyio = pytest.importorskip("anyio")
jsonschema = pytest.importorskip("jsonschema")

sys.path.insert(0, str(Path(__file__).parent))
from mcp_peers.driver import (  # noqa: E402
    FAULT_SERVER, SDK_SERVER, env, new_tag, proxy_argv, reap, wait_gone)
from mcp_peers.fake_policy import CFS  # noqa: E402
from mcp_peers.sdk_client import run  # noqa: E402,F401 (the other SDK suites import it from here)
from mcp_peers.sdk_client import stdio_params as params  # noqa: E402

import mcp_types as types  # noqa: E402
from mcp import Client, MCPError, StdioServerParameters  # noqa: E402

MODES = ["auto", "legacy"]
TIMEOUT = 60


def direct(*upstream):
    return params(list(upstream))


def proxied(*upstream, guarded=False, options=()):
    return params(proxy_argv(*upstream, guarded=guarded, options=options))


def dump(model) -> dict:
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


async def list_all(client) -> list:
    pages, cursor = [], None
    while True:
        page = await client.list_tools(cursor=cursor)
        pages.append(page)
        cursor = page.next_cursor
        if not cursor:
            return pages


async def transcript(server: StdioServerParameters, mode: str) -> dict:
    out: dict = {}
    with anyio.fail_after(TIMEOUT):
        async with Client(server, mode=mode, read_timeout_seconds=TIMEOUT) as client:
            out["version"] = client.protocol_version
            pages = await list_all(client)
            out["pages"] = [[dump(t) for t in p.tools] for p in pages]
            out["cursors"] = [p.next_cursor for p in pages]
            for name, args in [("read_discharge", {"site": "07374000"}),
                               ("runoff", {"discharge": 35.4, "area": 2}),
                               ("echo", {"nested": {"x": [1, 2.5, "é"]}}),
                               ("fail", {})]:
                out[name] = dump(await client.call_tool(name, args))
            steps: list = []

            async def on_progress(progress, total, message):
                steps.append((progress, total, message))

            out["progress"] = dump(await client.call_tool("progress", {"steps": 3}, progress_callback=on_progress))
            out["steps"] = steps
    return out


@pytest.mark.parametrize("mode", MODES)
def test_pass_through_proxy_results_equal_direct_results(mode):
    want = run(transcript, direct(sys.executable, SDK_SERVER), mode)
    got = run(transcript, proxied(sys.executable, SDK_SERVER), mode)
    assert got == want
    assert want["version"] == ("2026-07-28" if mode == "auto" else "2025-11-25")
    assert len(want["pages"]) == 4 and want["cursors"][-1] is None
    assert want["fail"]["isError"] is True
    assert want["echo"]["structuredContent"] == {"args": {"nested": {"x": [1, 2.5, "é"]}}}
    assert [s[0] for s in want["steps"]] == [1, 2, 3]


@pytest.mark.parametrize("upstream_flags,version", [(("--legacy-only",), "2025-11-25"), ((), "2026-07-28")])
def test_auto_mode_negotiates_the_same_version_through_the_proxy(upstream_flags, version):
    tag = new_tag()

    async def probe(server):
        async with Client(server, read_timeout_seconds=TIMEOUT) as client:
            return client.protocol_version

    try:
        upstream = (sys.executable, FAULT_SERVER, "--tag", tag, *upstream_flags)
        assert run(probe, direct(*upstream)) == version
        assert run(probe, proxied(*upstream)) == version
    finally:
        assert wait_gone(tag, 5.0) == []
        reap(tag)


async def guarded_calls(client) -> None:
    """The calls of a session through a guarding proxy (runoff's discharge annotated in m**3/s)
    in front of the water tools: a quantity converted, a violation, a labelled result, progress."""
    # converted: 1250 cfs arrives upstream as 35.396... m3/s
    r = await client.call_tool("runoff", {"discharge": {"value": 1250, "unit": "cfs"}, "area": 2})
    assert not r.is_error
    received = json.loads(r.content[0].text)["received"]
    assert received["discharge"] == pytest.approx(1250 * CFS) and received["area"] == 2

    # a violation is a tool error, not an exception
    r = await client.call_tool("runoff", {"discharge": 1.0, "area": -5})
    assert r.is_error is True and "runoff.area" in r.content[0].text

    # a labelled result, validated by the SDK against the advertised outputSchema
    r = await client.call_tool("read_discharge", {"site": "07374000"})
    assert r.structured_content == {"value": 1250.0, "unit": "cfs"}
    assert json.loads(r.content[0].text) == {"value": 1250.0, "unit": "cfs"}

    # progress passes
    steps: list = []

    async def on_progress(progress, total, message):
        steps.append(progress)

    r = await client.call_tool("progress", {"steps": 2}, progress_callback=on_progress)
    assert steps == [1, 2] and r.content[0].text == "done"


@pytest.mark.parametrize("mode", MODES)
def test_guarding_proxy_with_the_sdk_client(mode, tmp_path):
    annotations = tmp_path / "water.toml"
    annotations.write_text("[tools.runoff.params]\ndischarge = 'm**3/s'\n")
    manifest = tmp_path / "manifest.json"

    async def session():
        server = proxied(sys.executable, SDK_SERVER, guarded=True,
                         options=("--annotations", str(annotations), "--manifest", str(manifest)))
        async with Client(server, mode=mode, read_timeout_seconds=TIMEOUT) as client:
            pages = await list_all(client)
            assert len(pages) == 4  # pages pass through unflattened
            tools = {t.name: t for p in pages for t in p.tools}
            runoff = tools["runoff"]
            assert runoff.input_schema["type"] == "object"
            assert runoff.input_schema["properties"]["discharge"]["x-unit"] == "m**3/s"
            assert runoff.meta["io.quantity-guard/units"] == {"discharge": "m**3/s", "area": "km**2"}
            assert tools["read_discharge"].output_schema["required"] == ["value", "unit"]
            assert tools["echo"].input_schema == {"type": "object", "properties": {}, "additionalProperties": True}
            for tool in tools.values():  # still valid JSON Schema 2020-12
                jsonschema.Draft202012Validator.check_schema(tool.input_schema)
                if tool.output_schema is not None:
                    jsonschema.Draft202012Validator.check_schema(tool.output_schema)
            await guarded_calls(client)
            # unguarded tools and errors pass
            r = await client.call_tool("echo", {"k": 1})
            assert r.structured_content == {"args": {"k": 1}}
            assert (await client.call_tool("fail", {})).is_error is True

    run(session)
    assert json.loads(manifest.read_text())["closed"] is True  # policy.close() ran at exit


async def on_elicit(ctx, params):
    return types.ElicitResult(action="accept", content={"ok": True})


async def on_sample(ctx, params):
    return types.CreateMessageResult(role="assistant", model="m",
                                     content=types.TextContent(type="text", text="sampled!"))


async def on_roots(ctx):
    return types.ListRootsResult(roots=[types.Root(uri="file:///tmp/x")])


CALLBACKS = dict(elicitation_callback=on_elicit, sampling_callback=on_sample, list_roots_callback=on_roots)


async def ask_transcript(server, mode):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        async with Client(server, mode=mode, read_timeout_seconds=TIMEOUT, **CALLBACKS) as client:
            await list_all(client)
            ask = await client.call_tool("ask", {})
            confirm = await client.call_tool("runoff", {"discharge": {"value": 1250, "unit": "cfs"}, "area": 2,
                                                        "confirm": True})
            return json.loads(ask.content[0].text), json.loads(confirm.content[0].text)


@pytest.mark.parametrize("mode", MODES)
def test_back_channel_and_multi_round_trip_pass_through(mode, tmp_path):
    """Legacy: the upstream's elicitation/create, sampling/createMessage and roots/list reach the
    client and its answers come back. 2026-07-28: input_required results and the retry pass."""
    want = run(ask_transcript, direct(sys.executable, SDK_SERVER), mode)
    got = run(ask_transcript, proxied(sys.executable, SDK_SERVER), mode)
    assert got == want
    ask, _ = want
    if mode == "legacy":
        assert ask == {"elicited": {"ok": True}, "sampled": "sampled!", "roots": ["file:///tmp/x"]}
    else:
        assert ask == {"state": "round-1", "responses": {"confirm": {"action": "accept", "content": {"ok": True}}}}
    # the same, through the guarding proxy: a retried guarded call is converted identically
    annotations = tmp_path / "water.toml"
    annotations.write_text("[tools.runoff.params]\ndischarge = 'm**3/s'\n")
    ask, confirm = run(ask_transcript, proxied(sys.executable, SDK_SERVER, guarded=True,
                                               options=("--annotations", str(annotations))), mode)
    assert ask == want[0]
    rounds = [json.loads(h) for h in confirm["history"]]
    assert len(rounds) == (2 if mode == "auto" else 1)
    assert all(r == rounds[0] for r in rounds)
    assert rounds[0]["discharge"] == pytest.approx(1250 * CFS)


# ------------------------------------------------------------------ quantity_guard.mcp.server


def toolbox_server(*extra):
    return params([sys.executable, "-m", "quantity_guard.mcp.server", *extra, "mcp_peers.toolbox:toolbox"],
                  PYTHONPATH=str(Path(__file__).parent) + ":" + env()["PYTHONPATH"])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("through_proxy", [False, True])
def test_zero_dependency_server_under_the_sdk_client(mode, through_proxy):
    server = toolbox_server("--page-size", "3")
    if through_proxy:
        server = StdioServerParameters(command=sys.executable,
                                       args=["-m", "quantity_guard.mcp", server.command, *server.args],
                                       env=server.env)

    async def session():
        async with Client(server, mode=mode, read_timeout_seconds=TIMEOUT) as client:
            assert client.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
            assert client.server_info.name == "test-toolbox"
            pages = await list_all(client)
            assert [len(p.tools) for p in pages] == [3, 3, 1]
            r = await client.call_tool("add", {"a": 1.5, "b": 2})
            assert r.structured_content == {"sum": 3.5} and not r.is_error
            r = await client.call_tool("fail", {})
            assert r.is_error and r.content[0].text == "bad input: try again"
            r = await client.call_tool("explode", {})
            assert r.is_error and "kaboom" in r.content[0].text
            r = await client.call_tool("shout", {"s": "quiet"})
            assert r.content[0].text == "QUIET"
            with pytest.raises(MCPError) as e:
                await client.call_tool("no_such_tool", {})
            assert e.value.code == -32602
            if mode == "legacy":
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    await client.send_ping()

    run(session)
