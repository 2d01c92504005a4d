"""Figures sourced from a recorded output: full-precision copies, the magnitude of a negative
output, truncations, re-expressions in base units, the arguments of a call written out.
"""
from __future__ import annotations

import pytest

from quantity_guard import Q
from quantity_guard.audit.codes import Reason
from audit_helpers import FLOW, VERTCON, audited, energy_ledger, ledger_of


# -- 3. magnitudes of negative outputs -------------------------------------------------------------
@pytest.mark.parametrize("answer,literal", [
    ("The old datum overstated the freeboard by 0.44 ft.", "0.44"),
    ("A datum shift of 0.44 ft (NGVD29 sits higher).", "0.44"),
    ("The pool is 2.9 ft short of the top of conservation... a margin of 2.9 ft.", "2.9"),
    ("| offset | 0.44 ft |", "0.44"),
    ("Offset magnitude: 0.134 m.", "0.134"),
])
def test_the_magnitude_of_a_negative_output_is_sourced_and_says_so(answer, literal):
    audit = audited(ledger_of(*VERTCON), answer)
    finding = [f for f in audit.findings if f.number.text.startswith(literal)][0]
    assert finding.status == "sourced"
    if not finding.number.negated:
        assert finding.code is Reason.SOURCED_MAGNITUDE and "vertcon_offset" in finding.note or \
            "pool_margin" in finding.note


# -- 4. full-precision copies ----------------------------------------------------------------------
@pytest.mark.parametrize("written", ["0.10545584248055169", "0.1054558424805517",
                                     "0.105455842480551730", "1.0545584248055169e-1"])
def test_a_full_precision_copy_is_sourced(written):
    ledger = ledger_of(("runoff_depth", 0.10545584248055173, "mm/d"))
    for answer in (f"{written} mm/d", f"depth = {written}", f'{{"depth": {written}}}'):
        audit = ledger.audit_answer(answer)
        assert [f.status for f in audit.findings] == ["sourced"], (answer, audit.findings)


def test_a_full_precision_copy_of_a_conversion():
    ledger = ledger_of(*FLOW)
    exact = Q(1250, "cfs").to("m3/s").magnitude
    assert ledger.audit_answer(f"{exact!r} m3/s").ok
    assert ledger.audit_answer(f"{exact * (1 + 3e-16)!r} m3/s").ok
    assert not ledger.audit_answer(f"{exact * 1.001!r} m3/s").ok


def test_figures_re_expressed_in_base_units_and_restated():
    ledger = ledger_of(("get_transformer_rating", 90.0, "MVA"), ("get_bus_voltage", 132.0, "kV"))
    for answer in ("90 000 000 / (\u221a3 \u00d7 132 000) \u2248 394 A",
                   "Rating in VA: 90.0 x 1e6 \u2248 90000000 VA",
                   r"$90.0 \times 10^{6} \approx 9.0000 \times 10^{7}\ \text{VA}$",
                   "Full-load current: 393.6 A", "0.3936 kA", "\u221a3 \u00d7 V = 230 000 volts"):
        audited(ledger, answer)
    # a three-phase current carries sqrt(3) whether written or not; a power written in MW is
    # not the rating in MVA
    assert ledger.audit_answer("393.6 amperes").findings[0].status == "derived"
    assert not ledger.audit_answer("90 MW").ok
    assert not ledger.audit_answer("1,180.9 A").ok


@pytest.mark.parametrize("answer,ok", [
    ("The current is 393 A.", True),     # 393.648 with its digits cut
    ("The current is 392 A.", False),
    ("The current is 394 A.", True),     # rounded
    ("The current is 395 A.", False),
])
def test_a_whole_number_truncated_from_a_recorded_value(answer, ok):
    audited(ledger_of(("full_load_current", 393.648, "A")), answer, ok)


@pytest.mark.parametrize("answer,ok", [
    # a pasted log: the arguments a recorded call received are quoted, not claimed
    ("get_feeder_load(feeder_id=\"F-9\") -> 8.4 MW\nenergy_delivered(power=8400, duration=6) "
     "-> 50,400 kWh", True),
    ("energy_delivered(duration=6, power=8400) gave 50,400 kWh.", True),
    # an argument no call received, or the same number outside a call
    ("energy_delivered(power=9400, duration=6) -> 50,400 kWh", False),
    ("The feeder drew 8400 over the day; 50,400 kWh.", False),
])
def test_arguments_of_a_call_written_out(answer, ok):
    audited(energy_ledger(), answer, ok)
