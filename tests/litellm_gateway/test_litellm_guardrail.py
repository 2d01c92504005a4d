"""quantity_guard.integrations.litellm: the guard inside a real LiteLLM proxy, offline.

The call path is LiteLLM's whole MCP gateway: the proxy itself (``python -m
litellm.proxy.proxy_cli --config config.yaml``, uvicorn on a loopback port, master key only,
no database, the local model cost map) loads the guardrail from the ``guardrails:`` section of
its config.yaml, starts the demo server (``demo/usgs_server.py``, stdio) from its
``mcp_servers:`` section, and the official MCP SDK client calls the tools at the proxy's
``/mcp/`` endpoint (Streamable HTTP, ``Authorization: Bearer <master key>``). Each
``tools/call`` goes through LiteLLM's ``execute_mcp_tool`` -> ``MCPServerManager.call_tool``
-> ``pre_call_tool_check`` -> ``ProxyLogging.pre_call_hook`` (our ``async_pre_call_hook``,
``call_type="call_mcp_tool"``) -> the upstream -> ``Logging.async_post_mcp_tool_call_hook``
(ours). The config.yaml is the one docs/guide/litellm.md shows, read from the page.

LiteLLM lives in an environment of its own (Python 3.12, the ``litellm`` extra: LiteLLM 1.110.2
and what its proxy imports); elsewhere these tests skip.
"""
from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("litellm.integrations.custom_guardrail", reason="litellm is not installed "
                    "(it gets an environment of its own: .ci/run makes one and runs this "
                    "folder there)")
pytest.importorskip("fastapi", reason="the LiteLLM proxy's dependencies are not installed "
                    "(the litellm extra)")
anyio = pytest.importorskip("anyio")

from mcp import Client  # noqa: E402
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "guide" / "litellm.md"
KEY = "sk-quantity-guard-test-0123456789"  # a throw-away test proxy's master key
SITE = {"site": "07374000"}
TIMEOUT = 120


def page_config() -> str:
    """The proxy's config.yaml as the docs page gives it (its only yaml block)."""
    found = re.findall(r"^```yaml\n(.*?)^```", PAGE.read_text("utf-8"), flags=re.S | re.M)
    assert len(found) == 1, f"{PAGE} must show exactly one yaml block, the proxy's config"
    return found[0]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def proxy(tmp_path_factory):
    """A LiteLLM proxy with the guardrail, the demo server behind it: (base URL, log path)."""
    work = tmp_path_factory.mktemp("litellm")
    config = work / "config.yaml"
    config.write_text(page_config(), "utf-8")
    log = work / "proxy.log"
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update({
        "LITELLM_MASTER_KEY": KEY,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",   # offline: no fetch of the model cost map
        "LITELLM_ENABLE_MCP_STDIO": "true",       # stdio MCP servers are off by default
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])),
        # "python" in the config is this environment's interpreter
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
    })
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "litellm.proxy.proxy_cli", "--config", str(config),
             "--host", "127.0.0.1", "--port", str(port), "--num_workers", "1"],
            cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the LiteLLM proxy exited ({proc.returncode}):\n"
                                   f"{log.read_text(errors='replace')[-4000:]}")
            try:
                with urllib.request.urlopen(base + "/health/liveliness", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the LiteLLM proxy did not start in 180 s:\n"
                                   f"{log.read_text(errors='replace')[-4000:]}")
            time.sleep(0.5)
        yield base, log
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def session(base: str, calls: list) -> tuple[list, list]:
    """One MCP client session at the proxy: (listed tool names, [result as JSON per call])."""
    async def run():
        with anyio.fail_after(TIMEOUT):
            return await calls_in_one_session()

    async def calls_in_one_session():
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {KEY}"})
        async with http:
            async with Client(streamable_http_client(base + "/mcp/", http_client=http),
                              read_timeout_seconds=60) as client:
                listed = [t.name for t in (await client.list_tools()).tools]
                results = []
                for name, arguments in calls:
                    r = await client.call_tool(name, arguments)
                    results.append(r.model_dump(mode="json", by_alias=True, exclude_none=True))
                return listed, results
    return anyio.run(run)


def text(result: dict) -> str:
    return "".join(c.get("text", "") for c in result.get("content") or ())


def repair(tool: str, arguments: dict, before=()) -> str:
    """The proxy's own refusal text for the same call (the library, not LiteLLM)."""
    from quantity_guard.annotations import load
    from quantity_guard.mcp.policy import QuantityPolicy
    policy = QuantityPolicy(load(str(REPO / "demo" / "water.toml")))
    for name, args, value in before:
        forwarded = policy.check_call(name, args).payload
        policy.label_result(name, forwarded, {"content": [{"type": "text", "text": value}]})
        policy.settle()
    decision = policy.check_call(tool, arguments)
    assert decision.action == "refuse"
    return text(decision.payload)


def guarded_lines(log: Path) -> list[str]:
    return [line.split(" - ", 2)[-1] for line in log.read_text(errors="replace").splitlines()
            if "quantity_guard.litellm:" in line and " - guarded " in line]


def test_the_guardrail_converts_refuses_and_labels_on_litellm_mcp_calls(proxy):
    base, log = proxy
    before = len(guarded_lines(log))
    listed, (discharge, area, runoff, wrong, carried) = session(base, [
        ("usgs-read_discharge", SITE),
        ("usgs-read_drainage_area", SITE),
        ("usgs-runoff_depth", {"discharge": "1250 cfs", "area": 29000}),
        ("usgs-runoff_depth", {"discharge": "3 m", "area": 29000}),
        ("usgs-runoff_depth", {"discharge": 1250, "area": 29000}),
    ])
    assert "usgs-runoff_depth" in listed
    # a bare numeric result, labelled with the annotated unit
    assert json.loads(text(discharge)) == {"value": 1250.0, "unit": "cfs"}
    assert discharge.get("isError") is not True
    assert json.loads(text(area)) == {"value": 29000.0, "unit": "km2"}
    # "1250 cfs" went upstream as 35.39605824 m3/s: the server computed from that
    assert runoff.get("isError") is not True, text(runoff)
    value = json.loads(text(runoff))
    assert value["unit"] == "mm/d"
    assert value["value"] == pytest.approx(35.39605824 / 29000 * 86.4)
    # a length for a discharge: refused, nothing upstream, the proxy's repair text word for word
    assert wrong.get("isError") is True
    assert text(wrong) == "Error: " + repair("runoff_depth", {"discharge": "3 m", "area": 29000})
    assert "dimensionality_error" not in text(wrong)  # the model reads the repair, not a code
    # the reading's magnitude reused bare: an unconverted carry-over, refused in this session
    assert carried.get("isError") is True
    assert text(carried) == "Error: " + repair(
        "runoff_depth", {"discharge": 1250, "area": 29000},
        before=[("read_discharge", SITE, "1250.0"), ("read_drainage_area", SITE, "29000.0")])
    # each guarded call proved it ran: one line per hook on the proxy's stderr
    assert guarded_lines(log)[before:] == [
        "guarded pre_mcp_call read_discharge: passed",
        "guarded post_mcp_call read_discharge: labelled cfs",
        "guarded pre_mcp_call read_drainage_area: passed",
        "guarded post_mcp_call read_drainage_area: labelled km2",
        "guarded pre_mcp_call runoff_depth: converted discharge",
        "guarded post_mcp_call runoff_depth: labelled mm/d",
        "guarded pre_mcp_call runoff_depth: refused runoff_depth.discharge "
        "[dimensionality_error]",
        "guarded pre_mcp_call runoff_depth: refused runoff_depth.discharge "
        "[unconverted_carry_over]",
    ]


def test_each_client_session_of_a_key_has_its_own_ledger(proxy):
    base, log = proxy
    _, (first,) = session(base, [("usgs-read_drainage_area", SITE)])
    assert json.loads(text(first)) == {"value": 29000.0, "unit": "km2"}
    # another session of the same key: the area read in the first one is not this one's, so
    # the sourced parameter is refused as unsourced (the first session's ledger is not shared)
    _, (runoff,) = session(base, [("usgs-runoff_depth", {"discharge": 35.4, "area": 29000})])
    assert runoff.get("isError") is True
    assert text(runoff) == "Error: " + repair("runoff_depth",
                                              {"discharge": 35.4, "area": 29000})
    assert guarded_lines(log)[-1] == ("guarded pre_mcp_call runoff_depth: refused "
                                      "runoff_depth.area [unsourced_input]")


def test_the_guardrail_says_it_is_loaded_and_on_which_hooks(proxy):
    _, log = proxy
    lines = log.read_text(errors="replace")
    assert re.search(r"quantity_guard\.litellm:INFO - guardrail quantity-guard: 5 annotated "
                     r"tools from demo/water\.toml, on pre_mcp_call, post_mcp_call, "
                     r"enforcement strict", lines), lines[-3000:]
    assert "its mode lacks" not in lines and "default_on is not true" not in lines
