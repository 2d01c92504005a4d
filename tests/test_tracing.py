"""quantity_guard.observe: guarded calls as OpenTelemetry spans and metrics.

Read back with the OpenTelemetry SDK's in-memory span exporter and metric reader, through direct
calls, and the cost-free path: without OpenTelemetry in use nothing is imported. The spans of
the frameworks' own runs are in tests/integrations/test_framework_spans.py.
"""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk.trace", reason="opentelemetry-sdk is not installed: "
                                                       "pip install -e '.[dev]'")
from opentelemetry.trace import StatusCode  # noqa: E402

from integration_tools import demo_tools, run_session  # noqa: E402
from otel_helpers import CARRY_OVER, events, metrics, otel  # noqa: E402,F401
from quantity_guard import GuardViolation, quantity_tool, session  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
def test_warn_mode_reports_what_it_would_have_refused_without_an_error(otel):
    exporter, reader = otel

    @quantity_tool(params={"discharge": {"unit": "m**3/s"}}, enforcement="warn")
    def flow(discharge):
        return discharge

    with session():
        flow("12 ft")
    [span] = exporter.get_finished_spans()
    assert span.attributes["quantity_guard.outcome"] == "warned"
    assert "error.type" not in span.attributes
    assert span.status.status_code is StatusCode.UNSET
    [refusal] = events(span, "quantity_guard.refusal")
    assert refusal["quantity_guard.refusal.code"] == "dimensionality_error"
    assert refusal["quantity_guard.refusal.blocked"] is False
    assert metrics(reader)["quantity_guard.refusals"] == {frozenset({
        ("quantity_guard.refusal.code", "dimensionality_error"),
        ("quantity_guard.refusal.blocked", False), ("gen_ai.tool.name", "flow")}): 1}


def test_a_failing_body_and_an_async_tool_are_spans_too(otel):
    exporter, _ = otel

    @quantity_tool(params={"depth": {"unit": "m"}})
    def broken(depth):
        raise ZeroDivisionError("no gauge")

    @quantity_tool(params={"depth": {"unit": "m"}}, returns={"unit": "m"})
    async def deeper(depth):
        return depth * 2

    assert broken.invoke({"depth": "3 ft"})["isError"]
    assert asyncio.run(deeper.ainvoke({"depth": "3 ft"}))["isError"] is False
    failed, doubled = exporter.get_finished_spans()
    assert failed.attributes["error.type"] == "ZeroDivisionError"
    assert failed.attributes["quantity_guard.outcome"] == "failed"
    assert failed.status.description == "ZeroDivisionError"  # not the message: a payload
    assert [e["quantity_guard.unit.from"] for e in events(failed, "quantity_guard.conversion")] == ["ft"]
    assert doubled.name == "tools/call deeper"
    assert doubled.attributes["quantity_guard.outcome"] == "ok"
    assert [e["quantity_guard.unit.to"] for e in events(doubled, "quantity_guard.conversion")] == ["m"]


def test_the_span_is_current_while_the_body_runs(otel):
    from opentelemetry import trace
    exporter, _ = otel
    seen = []

    @quantity_tool(params={"depth": {"unit": "m"}})
    def depth_tool(depth):
        seen.append(trace.get_current_span().get_span_context().span_id)
        return depth

    depth_tool(1.0)
    [span] = exporter.get_finished_spans()
    assert seen == [span.context.span_id]


def _child(code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO), **env})


GUARDED_CALLS = """
import sys
from quantity_guard import quantity_tool, session
@quantity_tool(params={"d": {"unit": "m**3/s"}}, returns={"unit": "m**3/s"})
def t(d):
    return d
with session():
    t("1250 cfs")
    t.invoke({"d": "3 m"})
"""


def test_without_opentelemetry_in_use_nothing_is_imported_or_reported():
    out = _child(GUARDED_CALLS + "print(sorted(m for m in sys.modules if m.split('.')[0] in "
                                 "('opentelemetry', 'logging')))")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
    assert out.stderr == ""


def test_the_environment_switch_turns_tracing_on_and_off():
    code = ("from opentelemetry import trace\n"
            "from opentelemetry.sdk.trace import TracerProvider\n"
            "from opentelemetry.sdk.trace.export import SimpleSpanProcessor\n"
            "from opentelemetry.sdk.trace.export.in_memory_span_exporter import "
            "InMemorySpanExporter\n"
            "exporter = InMemorySpanExporter()\n"
            "provider = TracerProvider()\n"
            "provider.add_span_processor(SimpleSpanProcessor(exporter))\n"
            "trace.set_tracer_provider(provider)\n" + textwrap.dedent(GUARDED_CALLS)
            + "print([s.name for s in exporter.get_finished_spans()])")
    on = _child(code)
    assert on.returncode == 0, on.stderr
    assert on.stdout.strip() == "['tools/call t', 'tools/call t']"
    off = _child(code, QUANTITY_GUARD_OTEL="0")
    assert off.returncode == 0, off.stderr
    assert off.stdout.strip() == "[]"


def test_enable_without_opentelemetry_installed_names_the_extra():
    out = _child("import sys\nsys.modules['opentelemetry'] = None  # as if not installed\n"
                 "from quantity_guard import observe\n"
                 "try:\n    observe.enable()\nexcept ImportError as err:\n    print(err)\n")
    assert out.returncode == 0, out.stderr
    assert "pip install opentelemetry-api (this project's otel extra)" in out.stdout


def test_an_answer_that_gives_up_on_a_refused_call_is_an_error_span_naming_the_call(otel):
    exporter, _ = otel
    read_discharge, runoff_depth, _ = demo_tools()
    with run_session(False) as ledger:
        read_discharge("07374000")
        with pytest.raises(GuardViolation):
            runoff_depth(1250, 2915830.0)
        audit = ledger.audit_answer("ANSWER: unavailable")
    [span] = [s for s in exporter.get_finished_spans() if s.name == "quantity_guard.audit_answer"]
    assert span.attributes["quantity_guard.audit.abandoned"] == len(audit.abandoned) == 1
    assert span.status.status_code is StatusCode.ERROR
    assert "gives up on a refused call" in span.status.description
    [event] = events(span, "quantity_guard.audit.abandoned")
    assert event["gen_ai.tool.name"] == "runoff_depth"
    assert event["quantity_guard.refusal.code"] == audit.abandoned[0].violation["code"]
