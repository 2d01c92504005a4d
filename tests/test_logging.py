"""The ``quantity_guard`` logger: refusals at WARNING, conversions at DEBUG, silence unless
logging is configured."""
from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from quantity_guard import observe, quantity_tool, session

REPO = Path(__file__).resolve().parent.parent


def tools(enforcement: str = "strict"):
    @quantity_tool(returns={"unit": "cfs"})
    def read_discharge(site: str):
        return 1250.0

    @quantity_tool(params={"discharge": {"unit": "m**3/s"}}, enforcement=enforcement)
    def flow(discharge):
        return discharge

    return read_discharge, flow


@pytest.fixture
def fresh():
    """The observer looked up again at the next guarded call (and after the test)."""
    observe.refresh()
    yield
    observe.refresh()


def records(caplog, level=None) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "quantity_guard"
            and (level is None or r.levelno == level)]


def refused_carry_over(caplog) -> "tuple[logging.LogRecord, dict]":
    """(the one record at WARNING, the tool's result) of a carry-over refused in a session."""
    read_discharge, flow = tools()
    caplog.set_level(logging.WARNING, logger="quantity_guard")
    with session():
        read_discharge("07374000")
        result = flow.invoke({"discharge": 1250})
    assert result["isError"]
    [record] = records(caplog)
    return record, result


def test_a_refusal_is_logged_at_warning_with_its_code_and_field_only(caplog, fresh):
    record, _ = refused_carry_over(caplog)
    assert record.getMessage() == "flow refused flow.discharge [unconverted_carry_over]"
    assert "1250" not in record.getMessage()  # the values refused are a payload


def test_a_refusal_is_logged_with_its_repair_text_when_asked(caplog, fresh, monkeypatch):
    monkeypatch.setenv("QUANTITY_GUARD_TELEMETRY_PAYLOADS", "1")
    record, result = refused_carry_over(caplog)
    assert record.levelno == logging.WARNING
    message = record.getMessage()
    assert message.startswith("flow refused flow.discharge [unconverted_carry_over]: ")
    assert message.endswith(result["content"][0]["text"])
    assert record.quantity_guard == {"code": "unconverted_carry_over", "field": "flow.discharge",
                                     "tool": "flow", "blocked": True}


def test_a_direct_call_refused_is_logged_as_well(caplog, fresh):
    _, flow = tools()
    caplog.set_level(logging.WARNING, logger="quantity_guard")
    with pytest.raises(Exception):
        flow("3 m")
    [record] = records(caplog)
    assert "[dimensionality_error]" in record.getMessage()


def test_warn_mode_logs_what_it_would_have_refused(caplog, fresh):
    _, flow = tools("warn")
    caplog.set_level(logging.WARNING, logger="quantity_guard")
    with session():
        flow("3 m")
    [record] = records(caplog)
    assert record.getMessage() == "flow would refuse (warn) flow.discharge [dimensionality_error]"
    assert record.quantity_guard["blocked"] is False


def test_conversions_are_logged_at_debug_once_the_logger_is_enabled_for_it(caplog, fresh):
    _, flow = tools()
    caplog.set_level(logging.INFO, logger="quantity_guard")
    flow("1250 cfs")
    assert records(caplog, logging.DEBUG) == []
    caplog.set_level(logging.DEBUG, logger="quantity_guard")
    observe.refresh()  # the level is read at the first guarded call, or after refresh()
    flow("1250 cfs")
    [record] = records(caplog, logging.DEBUG)
    assert record.getMessage() == "flow converted discharge from cfs to m3/s"


def test_with_logging_unconfigured_a_refusal_prints_nothing():
    code = ("import logging\nfrom quantity_guard import quantity_tool\n"
            "@quantity_tool(params={'d': {'unit': 'm'}})\ndef t(d):\n    return d\n"
            "print(t.invoke({'d': '3 s'})['isError'])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                         timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"
    assert out.stderr == ""  # Python's last-resort handler would print the WARNING here
