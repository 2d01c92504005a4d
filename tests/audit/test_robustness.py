"""The audit never raises and keeps its spans on arbitrary text.
"""
from __future__ import annotations

from hypothesis import example, given, HealthCheck, settings, strategies as st
import pytest

from quantity_guard import quantity_tool, session
from quantity_guard.audit import Audit, extract_numbers


_TOOLS = [quantity_tool(lambda v=v: v, returns=r, name=n) for n, v, r in (
    ("read_discharge", 1250.0, {"unit": "cfs"}),
    ("read_stage", 18.4, {"unit": "ft", "datum": "NAVD88"}),
    ("read_crest", 22.9, {"unit": "ft", "datum": "NGVD29"}),
    ("read_offset", -0.44, {"unit": "ft"}),
    ("read_power", 42.0, {"unit": "MVA"}),
    ("read_zero", 0.0, {"unit": "m"}),
    ("read_share", 0.2003, {"unit": "1"}),
    ("read_temp", 12.0, {"unit": "degC"}),
)]


@pytest.fixture(scope="module")
def ledger():
    with session(context="The crest is 22.9 ft NGVD29; over 6 hours; 1 in 30 years.") as led:
        for tool in _TOOLS:
            tool()
    return led


FRAGMENTS = st.sampled_from([
    "1", "0", "9", "1,250", "86 400", "86\u2009400", "86\u202f400", "0.10545584248055169", ".5",
    "1e999", "1e-999", "1e3", "10^", "10^999", "10^-4", "10\u2076", "10**3", "\u00d7 10^", "x10",
    "\u2212", "-", "+", "=", "\u2248", "/", "\u00f7", "\u00d7", "*", "**", "\u00b7", "^", "(", ")",
    "\u221a", "\u221a3", "sqrt(", "\u03c0", "pi", "%", " ", "\n", "|", "|---|", ":", ",", ".",
    " cfs", " m\u00b3/s", " m^3/s", " km^2", " ft NAVD88", " ft NGVD29", " mAOD", " MVA", " kV",
    " A", " Ml/d", " d", " degC", " s/day", " L/m\u00b3", " per cfs", " thousand", " million",
    "\\frac{", "}{", "}", "{", "\\sqrt{", "\\times", "\\cdot", "\\,", "\\text{", "\\mathrm{",
    "$", "\\", "~", "Step ", "station=", "USGS-", "ISO ", "Etc/GMT+", "-06:00", "2026-08-20",
    "14:15", "deficit of ", "below", "1 cfs = ", "over 1 ", "m**", "\u00b2", "\u207b",
    "9" * 400, "1" + "0" * 320, "0." + "0" * 330 + "1",
])


@given(st.text(max_size=300))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example("1e999 cfs")
@example("10^999")
@example("1" + "0" * 320 + " cfs")
@example("\\frac{}{}")
@example("}}}{{{\\sqrt")
@example("= (((( 1 ^ 999 ^ 999 = 1")
def test_arbitrary_text_never_raises(ledger, text):
    audit = ledger.audit_answer(text)
    assert isinstance(audit, Audit)
    audit.as_dict()
    repr(audit)


@given(st.lists(FRAGMENTS, max_size=40).map("".join))
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example("10^999 = 10^999 \u00d7 1")
@example("0^-1 = 1")
@example("(-1)^0.5 = 1")
@example("\u221a-4 = 2")
@example("1 / 0 = 5 cfs")
@example("9" * 400 + " = 1")
@example("1e3 \u00d7 10^-4 = 0.1")
@example("10^-999 = 0 cfs")
@example("1 cfs = 0 m\u00b3/s")
@example("$\\frac{1,250}{0} \\approx 3$")
def test_number_fragments_never_raise(ledger, text):
    audit = ledger.audit_answer(text)
    assert isinstance(audit, Audit)
    for f in audit.findings:
        assert f.status in ("sourced", "derived", "quoted", "factor", "operand", "discarded", "hypothetical",
                            "unsourced",
                            "unit_mislabelled")
        assert isinstance(f.note, str)
        assert text[f.number.start:f.number.end] == f.number.text
    audit.as_dict()


def test_the_answer_must_be_text(ledger):
    assert ledger.audit_answer(None).findings == []
    with pytest.raises(TypeError, match="send a str"):
        ledger.audit_answer(12.5)
    assert extract_numbers("") == []
