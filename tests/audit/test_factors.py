"""Conversion factors, unit identities and constants are no claims about the world.
"""
from __future__ import annotations

import pytest

from audit_helpers import FLOW, audited, ledger_of, session_with_nothing


@pytest.mark.parametrize("answer", [
    "1250 cfs × 0.0283168 = 35.4 m³/s",
    "1,250 cfs (1 cfs = 0.0283168 m³/s) is 35.40 m³/s",
    "1,250 ft³/s ÷ 35.3147 = 35.40 m³/s",
    "Q = 1250 × 0.028317 m³/s per cfs = 35.396 m³/s",
    "35.396 m³/s × 86 400 s/day = 3,058,214 m³/day",
    "35.396 m³/s × 86\u2009400 s/d ≈ 3.058 × 10⁶ m³/d",
    r"$1250 \times 0.0283168 = 35.396\ \mathrm{m^3/s}$",
    "Using 1 ft = 0.3048 m, the 1,250 cfs flow is 35.4 m3/s.",
    "1250 cfs is 35.4 m³/s, i.e. 35,396 L/s (1000 L/m³).",
])
def test_conversion_identities_and_factors_are_not_claims(answer):
    audited(ledger_of(*FLOW), answer)


def test_energy_factor_and_percent_factor():
    ledger = ledger_of(("read_energy", 2.5, "MWh"), ("read_share", 0.2003, "1"))
    for answer in ("2.5 MWh × 3.6×10⁹ J/MWh = 9.0 × 10⁹ J",
                   "0.2003 × 100 % = 20.03 %", "2.5 MWh = 9000 MJ (3.6 GJ per MWh)"):
        audited(ledger, answer)


@pytest.mark.parametrize("answer", [
    "1 cfs = 0.0353 m³/s, so 1250 cfs is 44.1 m³/s",   # a false identity and a wrong result
    "1250 cfs × 0.0353 = 44.1 m³/s",
])
def test_a_false_identity_or_factor_is_not_accepted(answer):
    assert not ledger_of(*FLOW).audit_answer(answer).ok


@pytest.mark.parametrize("answer", [
    "1250 m³/s would be wrong by a factor of 1000 for the volume; 1250 cfs is 35.4 m³/s.",
    "The 35.4 m³/s differs from 1250 by a factor of about 35.3.",
    "The tool's figure is missing a factor of 1000.",
])
def test_a_conversion_factor_named_as_a_factor_of_is_no_claim(answer):
    audit = ledger_of(*FLOW).audit_answer(answer)
    assert [f.status for f in audit.findings if f.number.text in ("1000", "35.3")] == ["factor"]


@pytest.mark.parametrize("answer", [
    "The tool's figure is missing a factor of 37.",       # no conversion factor
    "The tool's figure is missing 1000.",                  # no "factor of"
    "The flow grew by a factor of 1000 cfs.",              # a figure with a unit
])
def test_a_number_after_factor_of_that_is_no_conversion_factor_is_read(answer):
    assert not ledger_of(*FLOW).audit_answer(answer).ok


@pytest.mark.parametrize("answer,ok", [
    ("The result reads like parts per 100,000 of the flow; 1250 cfs is 35.4 m³/s.", True),
    ("The result reads like parts per 120,000 of the flow.", False),   # no power of ten
    ("The result is 100,000 of the flow.", False),                     # no "parts per"
])
def test_the_base_of_parts_per_is_no_claim(answer, ok):
    assert ledger_of(*FLOW).audit_answer(answer).ok is ok


def test_a_chain_of_unit_identities_is_no_claim():
    audit = ledger_of(*FLOW).audit_answer("1 megalitre = 1,000,000 litres = 1,000 m³.")
    assert [f.status for f in audit.findings] == ["factor"] * 3


@pytest.mark.parametrize("answer", [
    "1 megalitre = 1,000,000 litres = 100 m³.",     # a wrong link
    "45 Ml = 45,000,000 litres = 45,000 m³.",       # no identity starts the chain
])
def test_a_chain_with_a_wrong_link_or_no_identity_is_read(answer):
    assert not ledger_of(*FLOW).audit_answer(answer).ok


def test_pi_and_root_two_only_when_written():
    ledger = ledger_of(("read_diameter", 0.9, "m"), ("read_amplitude", 10.0, "kV"))
    assert ledger.audit_answer("circumference = π × 0.9 m = 2.83 m").ok
    assert not ledger.audit_answer("The circumference is 2.83 m.").ok
    assert ledger.audit_answer("peak = √2 × 10 kV = 14.14 kV").ok
    assert not ledger.audit_answer("peak is 14.14 kV").ok


@pytest.mark.parametrize("row,ok", [
    ("| 1 ft³/s | m³/s | 0.028316846592 |", True),
    ("| 1 day | s | 86,400 |", True),
    ("| 1 km² | m² | 10⁶ |", True),
    ("| 1 kWh | MJ | 3.6 |", True),
    ("| 1 mile | km | 1.609 |", True),
    ("| 1 ft | m | 0.348 |", False),     # a wrong factor is not an identity
    ("| 1 day | s | 3,600 |", False),
])
def test_conversion_table_rows_are_identities(row, ok):
    ledger = session_with_nothing()
    audit = ledger.audit_answer("Conversions used:\n\n| From | To | Factor |\n|---|---|---|\n"
                                + row + "\n")
    assert audit.ok is ok, audit.findings
    if ok:
        assert {f.status for f in audit.findings} == {"factor"}


@pytest.mark.parametrize("answer,ok", [
    ("with √3 ≈ 1.7320508075688772", True),
    ("sqrt(3) = 1.732", True),
    ("π ≈ 3.14159", True),
    ("√2 = 1.41421356", True),
    ("√3 ≈ 1.8", False),
    ("π = 3.5", False),
])
def test_the_written_value_of_a_named_constant(answer, ok):
    assert session_with_nothing().audit_answer(answer).ok is ok, answer
