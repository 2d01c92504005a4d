"""quantity-guard-mcp continues the client's trace and reports each guarded call.

A real proxy process (tests/mcp_peers/traced_proxy.py: the CLI with the OpenTelemetry SDK set
up, spans and metrics written to files) in front of the stdlib upstream
(tests/mcp_peers/fault_server.py, which logs every line it receives), over stdio and over
Streamable HTTP (``--listen``). The client's W3C trace context travels in ``params._meta``: the
proxy's span is a child of the client's, and the request reaching the upstream carries the same
trace id with the proxy's span as parent.
"""
from __future__ import annotations

import http.client
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk.trace", reason="opentelemetry-sdk is not installed: "
                                                       "pip install -e '.[dev]'")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers.driver import FAULT_SERVER, Peer, env, init_params, new_tag, reap  # noqa: E402
from mcp_peers import annotation_texts  # noqa: E402

TESTS = Path(__file__).resolve().parents[1]
TRACED = str(TESTS / "mcp_peers" / "traced_proxy.py")
ANNOTATIONS = annotation_texts.RUNOFF
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
CLIENT_SPANS = ["00f067aa0ba902b7", "00f067aa0ba902b8", "00f067aa0ba902b9"]
CALLS = [("read_discharge", {"site": "07374000"}),
         ("runoff", {"discharge": 1250, "area": 2}),          # a carry-over: refused
         ("runoff", {"discharge": "1250 cfs", "area": 2})]    # converted


def traceparent(span_id: str) -> str:
    return f"00-{TRACE_ID}-{span_id}-01"


def call_params(i: int) -> dict:
    name, arguments = CALLS[i]
    return {"name": name, "arguments": arguments,
            "_meta": {"traceparent": traceparent(CLIENT_SPANS[i]), "tracestate": "vendor=qg"}}


@pytest.fixture
def files(tmp_path):
    annotations = tmp_path / "water.toml"
    annotations.write_text(ANNOTATIONS)
    tag = new_tag()
    yield {"annotations": str(annotations), "spans": tmp_path / "spans.jsonl",
           "metrics": tmp_path / "metrics.json", "wire": tmp_path / "wire.log", "tag": tag}
    reap(tag)


def upstream(files) -> list:
    return [sys.executable, FAULT_SERVER, "--tag", files["tag"], "--wire-log", str(files["wire"])]


def spans(files) -> list[dict]:
    return [json.loads(line) for line in files["spans"].read_text().splitlines()]


def forwarded_calls(files) -> list[dict]:
    out = []
    for line in files["wire"].read_text().splitlines():
        msg = json.loads(line)
        if msg.get("method") == "tools/call":
            out.append(msg)
    return out


def metric_points(files) -> dict:
    data = json.loads(files["metrics"].read_text())
    out: dict = {}
    for rm in data["resource_metrics"]:
        for sm in rm["scope_metrics"]:
            for m in sm["metrics"]:
                for p in m["data"]["data_points"]:
                    key = (m["name"], tuple(sorted(p["attributes"].items())))
                    out[key] = p.get("value", p.get("count"))
    return out


def check(files, transport: str, session: str | None) -> None:
    calls = [s for s in spans(files) if s["name"].startswith("tools/call ")]
    assert [s["name"] for s in calls] == ["tools/call read_discharge", "tools/call runoff",
                                          "tools/call runoff"]
    for span, parent, ident in zip(calls, CLIENT_SPANS, (1, 2, 3)):
        assert span["kind"] == "SpanKind.SERVER"
        assert span["context"]["trace_id"] == "0x" + TRACE_ID   # the client's trace, continued
        assert span["parent_id"] == "0x" + parent
        attributes = span["attributes"]
        assert attributes["mcp.method.name"] == "tools/call"
        assert attributes["gen_ai.operation.name"] == "execute_tool"
        assert attributes["jsonrpc.request.id"] == str(ident)
        assert attributes["network.transport"] == transport
        assert attributes["quantity_guard.where"] == "proxy"
        assert attributes.get("mcp.session.id") == session
    reading, refused, converted = calls
    assert reading["attributes"]["quantity_guard.result.unit"] == "cfs"
    assert refused["attributes"]["error.type"] == "unconverted_carry_over"
    assert refused["status"]["status_code"] == "ERROR"
    [event] = [e for e in refused["events"] if e["name"] == "quantity_guard.refusal"]
    assert event["attributes"]["quantity_guard.refusal.field"] == "runoff.discharge"
    assert "quantity_guard.refusal.repair" not in event["attributes"]  # a payload: only when asked
    assert refused["status"]["description"] == "unconverted_carry_over (runoff.discharge)"
    assert [(e["attributes"]["quantity_guard.parameter"], e["attributes"]["quantity_guard.unit.from"])
            for e in converted["events"] if e["name"] == "quantity_guard.conversion"] == [
        ("discharge", "cfs")]

    # upstream, the two calls forwarded carry the client's trace id, the proxy's span as parent
    sent = forwarded_calls(files)
    assert [m["params"]["name"] for m in sent] == ["read_discharge", "runoff"]
    for msg, span in zip(sent, (reading, converted)):
        meta = msg["params"]["_meta"]
        assert meta["traceparent"] == f"00-{TRACE_ID}-{span['context']['span_id'][2:]}-01"
        assert meta["tracestate"] == "vendor=qg"
    assert sent[1]["params"]["arguments"] == {"discharge": 35.39605824, "area": 2}

    points = metric_points(files)
    where = ("quantity_guard.where", "proxy")
    assert points[("quantity_guard.calls", tuple(sorted([
        ("gen_ai.tool.name", "runoff"), ("quantity_guard.outcome", "refused"), where])))] == 1
    assert points[("quantity_guard.calls", tuple(sorted([
        ("gen_ai.tool.name", "runoff"), ("quantity_guard.outcome", "ok"), where])))] == 1
    assert points[("quantity_guard.calls", tuple(sorted([
        ("gen_ai.tool.name", "read_discharge"), ("quantity_guard.outcome", "ok"), where])))] == 1
    assert points[("quantity_guard.refusals", tuple(sorted([
        ("gen_ai.tool.name", "runoff"), ("quantity_guard.refusal.blocked", True),
        ("quantity_guard.refusal.code", "unconverted_carry_over")])))] == 1
    assert points[("quantity_guard.conversions", tuple(sorted([
        ("gen_ai.tool.name", "runoff"), ("quantity_guard.unit.from", "cfs"),
        ("quantity_guard.unit.to", "m3/s")])))] == 1
    assert points[("quantity_guard.guard.duration", tuple(sorted([
        ("gen_ai.tool.name", "runoff"), where])))] == 2


def test_over_stdio_the_trace_continues_through_the_proxy_to_the_upstream(files):
    p = Peer([sys.executable, TRACED, str(files["spans"]), str(files["metrics"]),
              "--annotations", files["annotations"], "--", *upstream(files)])
    p.call(0, "initialize", init_params())
    p.notify("notifications/initialized")
    results = [p.call(i + 1, "tools/call", call_params(i))["result"] for i in range(3)]
    assert [r.get("isError", False) for r in results] == [False, True, False]
    p.close_stdin()
    p.read_eof()
    assert p.wait() == 0, p.stderr()
    check(files, "pipe", None)


def test_over_http_the_trace_continues_through_the_proxy_to_the_upstream(files):
    proc = subprocess.Popen([sys.executable, TRACED, str(files["spans"]), str(files["metrics"]),
                             "--listen", "0", "--annotations", files["annotations"], "--",
                             *upstream(files)], stderr=subprocess.PIPE, text=True, env=env())
    try:
        line = proc.stderr.readline()
        assert "serving MCP" in line, line
        port = int(line.strip().rsplit(":", 1)[1].split("/")[0])

        def post(body: dict, session: str | None = None):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            headers = {"Content-Type": "application/json",
                       "Accept": "application/json, text/event-stream",
                       "MCP-Protocol-Version": "2025-11-25"}
            if session:
                headers["Mcp-Session-Id"] = session
            conn.request("POST", "/mcp", body=json.dumps(body), headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            conn.close()
            text = data.decode()
            if resp.getheader("Content-Type", "").startswith("text/event-stream"):
                text = [x[5:] for x in text.splitlines() if x.startswith("data:")][-1]
            return resp.getheader("Mcp-Session-Id"), json.loads(text) if text.strip() else None

        session, answer = post({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                "params": init_params()})
        assert session and answer["result"]
        post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        results = [post({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                         "params": call_params(i)}, session)[1]["result"] for i in range(3)]
        assert [r.get("isError", False) for r in results] == [False, True, False]
    finally:
        proc.terminate()
        proc.wait(30)
    import hashlib
    assert session not in json.dumps(spans(files))  # the session id is a bearer value: a digest
    check(files, "tcp", hashlib.sha256(session.encode()).hexdigest()[:16])


def test_a_call_the_upstream_never_answers_closes_its_span_with_the_reason(files):
    (Path(files["annotations"])).write_text(ANNOTATIONS + '\n[tools.hang]\nreturns = { unit = "s" }\n')
    p = Peer([sys.executable, TRACED, str(files["spans"]), str(files["metrics"]),
              "--annotations", files["annotations"], "--upstream-timeout", "1", "--",
              *upstream(files)])
    p.call(0, "initialize", init_params())
    p.notify("notifications/initialized")
    answer = p.call(1, "tools/call", {"name": "hang", "arguments": {},
                                      "_meta": {"traceparent": traceparent(CLIENT_SPANS[0])}})
    assert "did not answer" in answer["error"]["message"]
    p.close_stdin()
    p.read_eof()
    p.wait()
    [span] = [s for s in spans(files) if s["name"] == "tools/call hang"]
    assert span["attributes"]["error.type"] == "upstream_timeout"
    assert span["attributes"]["quantity_guard.outcome"] == "error"
    assert span["status"]["status_code"] == "ERROR"
    assert span["context"]["trace_id"] == "0x" + TRACE_ID
