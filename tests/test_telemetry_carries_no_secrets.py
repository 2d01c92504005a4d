"""Telemetry carries digests, never bearer values or refused payloads unless asked
(``QUANTITY_GUARD_TELEMETRY_PAYLOADS=1``), and says when spans are exported on the guarded
call's own path (a SimpleSpanProcessor in front of a collector)."""
from __future__ import annotations

import logging

import pytest

pytest.importorskip("opentelemetry.sdk.trace")
from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import (SimpleSpanProcessor, SpanExporter,  # noqa: E402
                                            SpanExportResult)
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

from quantity_guard import observe, quantity_tool, session  # noqa: E402


def _tools():
    @quantity_tool(returns={"unit": "cfs"})
    def read_discharge(site: str):
        return 1250.0

    @quantity_tool(params={"discharge": {"unit": "m**3/s"}})
    def flow(discharge):
        return discharge
    return read_discharge, flow


def _refused_span(monkeypatch, payloads: bool):
    if payloads:
        monkeypatch.setenv("QUANTITY_GUARD_TELEMETRY_PAYLOADS", "1")
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    observe.enable(provider, MeterProvider())
    try:
        read_discharge, flow = _tools()
        with session():
            read_discharge("07374000")
            assert flow.invoke({"discharge": 1250})["isError"]
    finally:
        observe.refresh()
    return [s for s in exporter.get_finished_spans() if s.name == "tools/call flow"][0]


def test_a_refused_span_names_code_and_field_but_quotes_no_value(monkeypatch):
    span = _refused_span(monkeypatch, payloads=False)
    shown = str(span.status.description) + repr([dict(e.attributes) for e in span.events])
    assert "unconverted_carry_over" in shown and "flow.discharge" in shown
    assert "1250" not in shown


def test_the_repair_text_is_there_when_asked(monkeypatch):
    span = _refused_span(monkeypatch, payloads=True)
    assert "1250" in span.status.description
    [event] = [dict(e.attributes) for e in span.events if e.name == "quantity_guard.refusal"]
    assert "no conversion was applied" in event["quantity_guard.refusal.repair"]


class _Collector(SpanExporter):
    def export(self, spans):
        return SpanExportResult.SUCCESS


def test_spans_exported_on_the_calls_path_are_warned_about(caplog):
    caplog.set_level(logging.WARNING, logger="quantity_guard")
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(_Collector()))
    try:
        observe.enable(provider, MeterProvider())
    finally:
        observe.refresh()
    assert any("SimpleSpanProcessor" in r.getMessage() and "BatchSpanProcessor" in r.getMessage()
               for r in caplog.records)


class _HungCollector(SpanExporter):
    """A collector that takes 2 s to take each span."""

    def __init__(self) -> None:
        self.got: list = []

    def export(self, spans):
        import time
        time.sleep(2)
        self.got.extend(spans)
        return SpanExportResult.SUCCESS


def test_a_hung_collector_behind_a_simple_processor_does_not_hold_guarded_calls():
    import time
    collector = _HungCollector()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(collector))
    observe.enable(provider, MeterProvider())
    try:
        read_discharge, flow = _tools()
        started = time.monotonic()
        with session():
            for _ in range(5):
                read_discharge("07374000")
        took = time.monotonic() - started
        assert took < 5, took  # five exports in line would take 10 s
        deadline = time.monotonic() + 60
        while len(collector.got) < 5:  # every span is still exported, in its own time
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert all(s.end_time - s.start_time < 1e9 for s in collector.got)  # its own duration
    finally:
        observe.refresh()
