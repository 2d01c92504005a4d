"""What the tracing tests share: providers the guard reports to for one test, and readers of what
they recorded."""
from __future__ import annotations

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from messages import render
from quantity_guard import observe

#: the repair text's first sentence when runoff_depth gets read_discharge's 1250 cfs bare
CARRY_OVER = render("carry_over", field="runoff_depth.discharge", value="1250", unit="m3/s",
                    source="read_discharge.return", source_unit="cfs") + "."


@pytest.fixture
def otel():
    """(span exporter, metric reader) of providers the guard reports to for the test."""
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    observe.enable(tracer_provider, MeterProvider(metric_readers=[reader]))
    try:
        yield exporter, reader
    finally:
        observe.refresh()


def metrics(reader) -> dict:
    """{metric name: {frozenset(attributes): value, or count for a histogram}}."""
    out: dict = {}
    data = reader.get_metrics_data()
    for rm in data.resource_metrics if data else ():
        for sm in rm.scope_metrics:
            for m in sm.metrics:
                points = out.setdefault(m.name, {})
                for p in m.data.data_points:
                    key = frozenset(p.attributes.items())
                    points[key] = getattr(p, "value", None) if hasattr(p, "value") else p.count
    return out


def events(span, name: str) -> list[dict]:
    return [dict(e.attributes) for e in span.events if e.name == name]
