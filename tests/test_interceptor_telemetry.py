"""The interceptor's guarded calls as OpenTelemetry spans and metrics: how a host's operator
sees that the interceptor ran."""
from __future__ import annotations

import pytest

pytest.importorskip("opentelemetry.sdk.trace", reason="opentelemetry-sdk is not installed: "
                                                       "pip install -e '.[dev]'")
from otel_helpers import metrics, otel  # noqa: F401 (the fixture)
from test_interceptor_units import Wire


def test_each_guarded_call_is_a_span_and_counted_where_the_interceptor_ran(otel):  # noqa: F811
    exporter, reader = otel
    wire = Wire()
    wire.call("read_discharge", {}, "1250")
    wire.validate("runoff_depth", {"discharge": "3 m"})
    wire.call("runoff_depth", {"discharge": "1250 cfs"}, "0.1")
    wire.validate("series", {"start": "2026-03-01T06:00:00-06:00"})  # no result to label
    calls = metrics(reader)["quantity_guard.calls"]
    assert calls == {
        frozenset({"gen_ai.tool.name": tool, "quantity_guard.outcome": outcome,
                   "quantity_guard.where": "interceptor"}.items()): count
        for tool, outcome, count in [("read_discharge", "ok", 1), ("runoff_depth", "refused", 1),
                                     ("runoff_depth", "ok", 1), ("series", "ok", 1)]}
    assert sorted(span.name for span in exporter.get_finished_spans()) == [
        "tools/call read_discharge", "tools/call runoff_depth", "tools/call runoff_depth",
        "tools/call series"]


def test_a_call_whose_result_never_came_is_closed_by_the_conversations_next_call(
        otel):  # noqa: F811
    exporter, _ = otel
    wire = Wire()
    wire.validate("read_discharge", {"site": "1"})  # a validator-only host: no response phase
    assert exporter.get_finished_spans() == ()
    wire.validate("read_drainage_area", {"site": "1"})
    assert [s.name for s in exporter.get_finished_spans()] == ["tools/call read_discharge"]
