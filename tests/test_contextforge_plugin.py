"""quantity_guard.integrations.contextforge: the guard inside a real IBM ContextForge gateway.

The tests start ContextForge (``mcpgateway``, with the plug-in loaded from plugins.yaml and an
SQLite database in a temporary folder), register the SDK test server (tests/mcp_peers,
Streamable HTTP) with it, store the advertised schemas (``contextforge.sync``) and call the
tools through the gateway with the official SDK client. The same calls go through
``quantity-guard-mcp`` in front of the same server, and the gateway must answer what the proxy
answers: the same conversion, the same labelled result, the proxy's refusal text and code.

ContextForge needs Python 3.12+ and pins many packages: it lives in an environment of its own
(``.ci/run`` installs it and runs this file there); elsewhere these tests skip.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("cpex.framework", reason="mcp-contextforge-gateway is not installed (it needs "
                    "Python 3.12+ and an environment of its own: .ci/run makes one and runs "
                    "this file there)")
anyio = pytest.importorskip("anyio")

from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client  # noqa: E402

from mcp_peers.driver import env  # noqa: E402
from mcp_peers import annotation_texts  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
ANNOTATIONS = annotation_texts.RUNOFF
PLUGINS = """\
plugins:
  - name: "QuantityGuard"
    kind: "quantity_guard.integrations.contextforge.QuantityGuardPlugin"
    hooks: ["tool_pre_invoke", "tool_post_invoke"]
    mode: "enforce"
    priority: 10
    config:
      annotations: "{annotations}"
plugin_dirs: []
plugin_settings:
  plugin_timeout: 30
  fail_on_plugin_error: true
"""
SECRET = "k3J9xQ2mZ7vR1tY8wB4nL6pF0sD5hG2c"  # a throw-away test gateway's signing key
# (tool, arguments) as a model sends them: a reading, its magnitude reused bare (a carry-over),
# the same value with its unit (converted), a wrong dimension
SCENARIO = [("read_discharge", {"site": "07374000"}),
            ("runoff", {"discharge": 1250, "area": 2}),
            ("runoff", {"discharge": "1250 cfs", "area": 2}),
            ("runoff", {"discharge": "3 m", "area": 2})]
TIMEOUT = 120


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(url: str, proc: subprocess.Popen, log: Path, seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"ContextForge exited ({proc.returncode}):\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"ContextForge did not answer {url} in {seconds} s:\n{log.read_text()[-4000:]}")


def _api(base: str, token: str, method: str, path: str, body=None):
    request = urllib.request.Request(
        base + path, method=method, data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as r:
        return json.loads(r.read())


@pytest.fixture(scope="module")
def gateway(tmp_path_factory):
    """(gateway base URL, bearer token, upstream URL, annotations path, the gateway's log)."""
    work = tmp_path_factory.mktemp("contextforge")
    annotations = work / "water.toml"
    annotations.write_text(ANNOTATIONS)
    (work / "plugins.yaml").write_text(PLUGINS.format(annotations=annotations))
    upstream = subprocess.Popen([sys.executable, str(HERE / "mcp_peers" / "http_server.py")],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                env=env())
    procs = [upstream]
    try:
        line = upstream.stdout.readline()
        assert line.startswith("PORT "), line
        upstream_url = f"http://127.0.0.1:{line.split()[1]}/mcp"
        port = _free_port()
        gw_env = env(
            HOME=str(work), DATABASE_URL=f"sqlite:///{work / 'gateway.db'}",
            PLUGINS_ENABLED="true", PLUGINS_CONFIG_FILE=str(work / "plugins.yaml"),
            PLUGINS_FAIL_ON_PLUGIN_ERROR="true", AUTH_REQUIRED="true",
            MCP_CLIENT_AUTH_ENABLED="true", JWT_SECRET_KEY=SECRET,
            AUTH_ENCRYPTION_SECRET="M8qT2zR6yW1vK9pL4nX7bC3jH5fD0sGa",
            PLATFORM_ADMIN_PASSWORD="Rt5-Yh3-Nb6-Gf1-Dc0", DEFAULT_USER_PASSWORD="Xq7-Vw9-Lm2-Kp4-Zt8",
            BASIC_AUTH_PASSWORD="Pq8-Wr2-Ez5-Ux7-Ty1", SSRF_PROTECTION_ENABLED="false",
            CACHE_TYPE="memory", MCPGATEWAY_UI_ENABLED="false", MCPGATEWAY_ADMIN_API_ENABLED="false",
            USE_STATEFUL_SESSIONS="true", LOG_LEVEL="WARNING",
            # the gateway's own OpenTelemetry set-up, its spans printed to its log
            OTEL_ENABLE_OBSERVABILITY="true", OTEL_TRACES_EXPORTER="console")
        log = work / "gateway.log"
        with open(log, "w") as out:
            gw = subprocess.Popen([sys.executable, "-c", "from mcpgateway.cli import main; main()",
                                   "--host", "127.0.0.1", "--port", str(port)],
                                  stdout=out, stderr=subprocess.STDOUT, cwd=work, env=gw_env)
        procs.append(gw)
        base = f"http://127.0.0.1:{port}"
        _wait(base + "/health", gw, log)
        token = subprocess.run(
            [sys.executable, "-m", "mcpgateway.utils.create_jwt_token", "--username",
             "admin@example.com", "--exp", "120", "--admin", "--secret", SECRET],
            capture_output=True, text=True, check=True, cwd=work, env=gw_env).stdout.split()[-1]
        _api(base, token, "POST", "/gateways", {"name": "hydro", "url": upstream_url,
                                                "transport": "STREAMABLEHTTP"})
        from quantity_guard.integrations import contextforge
        updated = contextforge.sync(base, str(annotations), token)
        assert sorted(updated) == ["hydro-read-discharge", "hydro-runoff"], updated
        yield base, token, upstream_url, annotations, log
    finally:
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def _run(fn):
    async def bounded():
        with anyio.fail_after(TIMEOUT):
            return await fn()
    return anyio.run(bounded)


def _through_gateway(base: str, token: str, calls: list, mode: str = "auto") -> list:
    async def session():
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with Client(streamable_http_client(base + "/mcp", http_client=http), mode=mode,
                          read_timeout_seconds=60) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            out = [tools]
            for name, arguments in calls:
                out.append(await client.call_tool(f"hydro-{name.replace('_', '-')}", arguments))
            return out
    return _run(session)


def _through_proxy(upstream_url: str, annotations: Path, calls: list) -> list:
    async def session():
        server = StdioServerParameters(command=sys.executable, env=env(), args=[
            "-m", "quantity_guard.mcp", "--annotations", str(annotations), "--upstream", upstream_url])
        async with Client(server, read_timeout_seconds=60) as client:
            return [await client.call_tool(name, arguments) for name, arguments in calls]
    return _run(session)


def _text(result) -> str:
    return "".join(c.text for c in result.content)


def test_the_gateway_answers_the_guard_scenario_as_the_proxy_does(gateway):
    base, token, upstream_url, annotations, _ = gateway
    tools, reading, carried, converted, wrong = _through_gateway(base, token, SCENARIO)
    p_reading, p_carried, p_converted, p_wrong = _through_proxy(upstream_url, annotations, SCENARIO)

    # the listing advertises units, so the gateway's own validator lets "1250 cfs" through
    discharge = tools["hydro-runoff"].input_schema["properties"]["discharge"]
    assert discharge["x-unit"] == "m**3/s"

    # a bare result is labelled, as by the proxy
    assert not reading.is_error
    assert json.loads(_text(reading)) == json.loads(_text(p_reading)) == {"value": 1250.0, "unit": "cfs"}

    # the magnitude reused bare is refused as a carry-over: nothing went upstream, and the text
    # is ContextForge's frame around the proxy's repair text and code
    assert carried.is_error and p_carried.is_error
    assert p_carried.meta["io.github.quantity-guard/violation"]["code"] == "unconverted_carry_over"
    assert _text(carried) == (f"tool_pre_invoke blocked by plugin QuantityGuard: "
                              f"unconverted_carry_over - {_text(p_carried)} (field runoff.discharge)")

    # "1250 cfs" reaches the upstream converted into m3/s
    assert not converted.is_error
    assert json.loads(_text(converted)) == json.loads(_text(p_converted)) == {
        "received": {"area": 2, "discharge": 35.39605824}}

    # a length where a flow is declared is refused with the proxy's text and code
    assert wrong.is_error and p_wrong.is_error
    assert p_wrong.meta["io.github.quantity-guard/violation"]["code"] == "dimensionality_error"
    assert _text(wrong) == (f"tool_pre_invoke blocked by plugin QuantityGuard: "
                            f"dimensionality_error - {_text(p_wrong)} (field runoff.discharge)")


def test_carry_over_is_checked_within_a_gateway_session_not_across_sessions(gateway):
    base, token, _, _, _ = gateway
    # (the initialize era: a 2026-07-28 client has no session, its calls share one ledger)
    # a session that read 1250 cfs is refused the bare 1250 ...
    _, _, carried = _through_gateway(base, token, SCENARIO[:2], mode="legacy")
    assert carried.is_error and "unconverted_carry_over" in _text(carried)
    # ... a session that never read it is not
    _, fresh = _through_gateway(base, token, [SCENARIO[1]], mode="legacy")
    assert not fresh.is_error, _text(fresh)
    assert json.loads(_text(fresh)) == {"received": {"area": 2, "discharge": 1250}}


def _printed_spans(log: Path) -> list[dict]:
    """The spans the gateway's console exporter printed (JSON objects among its log lines)."""
    text = log.read_text(errors="replace")
    decoder = json.JSONDecoder()
    spans, at = [], text.find("\n{\n")
    while at != -1:
        try:
            obj, end = decoder.raw_decode(text, at + 1)
        except ValueError:
            end = at + 2
        else:
            if isinstance(obj, dict) and "context" in obj and "attributes" in obj:
                spans.append(obj)
        at = text.find("\n{\n", end)
    return spans


def test_inside_the_gateway_a_guarded_call_is_a_span_in_the_gateways_trace(gateway):
    pytest.importorskip("opentelemetry.sdk.trace", reason="opentelemetry-sdk is not installed in "
                        "the gateway's environment (.ci/run installs it there)")
    base, token, _, _, log = gateway
    _, _, carried = _through_gateway(base, token, SCENARIO[:2], mode="legacy")
    assert carried.is_error
    deadline = time.monotonic() + 30  # the gateway exports in batches, every 5 s
    while True:
        spans = _printed_spans(log)
        ours = [s for s in spans if s["name"] == "tools/call runoff"
                and s["attributes"].get("error.type") == "unconverted_carry_over"
                and "mcp.session.id" in s["attributes"]]
        if ours or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert ours, [s["name"] for s in spans]
    span = ours[-1]
    assert span["kind"] == "SpanKind.SERVER"
    assert span["attributes"]["quantity_guard.where"] == "contextforge"
    assert span["attributes"]["gen_ai.tool.name"] == "runoff"
    assert span["status"]["status_code"] == "ERROR"
    [refusal] = [e for e in span["events"] if e["name"] == "quantity_guard.refusal"]
    assert refusal["attributes"]["quantity_guard.refusal.field"] == "runoff.discharge"
    # a child of the gateway's own handling of the same call: one trace
    gateway_spans = {s["context"]["span_id"]: s for s in spans}
    assert span["parent_id"] in gateway_spans
    assert gateway_spans[span["parent_id"]]["context"]["trace_id"] == span["context"]["trace_id"]


def test_the_plugin_refuses_a_configuration_without_annotations():
    from cpex.framework import PluginConfig

    from quantity_guard.integrations.contextforge import QuantityGuardPlugin
    config = PluginConfig(name="QuantityGuard", kind="quantity_guard.integrations.contextforge."
                          "QuantityGuardPlugin", hooks=["tool_pre_invoke"], config={})
    with pytest.raises(ValueError, match="config.annotations must be the path of a quantity-guard "
                                         "annotations file"):
        QuantityGuardPlugin(config)


def test_importing_the_module_imports_no_part_of_contextforge():
    code = ("import sys\nfrom quantity_guard.integrations import contextforge\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('cpex', 'mcpgateway')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env(),
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
