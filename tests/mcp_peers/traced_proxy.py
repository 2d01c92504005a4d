"""``quantity-guard-mcp`` with the OpenTelemetry SDK set up, for the tracing tests.

    python traced_proxy.py SPANS METRICS <quantity-guard-mcp arguments...>

Every finished span is appended to SPANS as one JSON line (the SDK's ``to_json``); when the
proxy exits, the metrics read from an in-memory reader are written to METRICS as JSON.
"""
from __future__ import annotations

import atexit
import json
import sys

from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult


class LinesExporter(SpanExporter):
    def __init__(self, path: str) -> None:
        self.path = path

    def export(self, spans):
        with open(self.path, "a", encoding="utf-8") as fh:
            for span in spans:
                fh.write(span.to_json(indent=None) + "\n")
        return SpanExportResult.SUCCESS


def main() -> int:
    spans_path, metrics_path, *argv = sys.argv[1:]
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(LinesExporter(spans_path)))
    trace.set_tracer_provider(provider)
    reader = InMemoryMetricReader()
    metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))

    def dump() -> None:
        data = reader.get_metrics_data()
        with open(metrics_path, "w", encoding="utf-8") as fh:
            fh.write(data.to_json(indent=None) if data is not None else "null")

    atexit.register(dump)
    from quantity_guard.mcp.cli import main as proxy
    try:
        return proxy(argv)
    finally:
        dump()


if __name__ == "__main__":
    sys.exit(main())
