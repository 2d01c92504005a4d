"""Outputs of calls whose inputs were refused or unsourced are no source (tainted), unless the
answer presents them as the attempt it gave up.
"""
from __future__ import annotations

import warnings

import pytest

from quantity_guard import quantity_tool, session
from quantity_guard.audit.codes import Reason
from audit_helpers import (audited, carry_over_ledger, discharge_of, get_area, ledger_of,
                           retried_ledger, station_ledger, status_of, statuses)


# -- tools: a discharge, an area and a depth rate computed from them ---------------------------
read_discharge = quantity_tool(lambda: 1250.0, returns={"unit": "cfs"}, name="read_discharge")


def _depth(discharge, area):
    """mm/d from m3/s and km2 (the body receives the values the boundary converted)."""
    return discharge.to("m3/s").magnitude / area.to("m2").magnitude * 86400 * 1000


def depth_tool(enforcement):
    return quantity_tool(
        lambda discharge, area: _depth(discharge, area),
        params={"discharge": {"unit": "m3/s", "sourced": True},
                "area": {"unit": "km2", "sourced": True}},
        returns={"unit": "mm/d"}, name="runoff_depth", enforcement=enforcement)


def runoff_ledger(discharge_m3s, area_km2=None, enforcement="warn"):
    """read_discharge -> 1250 cfs, get_drainage_area -> 29,940 km2, then runoff_depth with
    what the model passed (a wrong conversion, or a remembered area)."""
    with session() as ledger:
        read_discharge()
        if area_km2 is None:
            get_area()
            area_km2 = 29940.0
        depth_tool(enforcement)(discharge={"value": discharge_m3s, "unit": "m3/s"},
                                area={"value": area_km2, "unit": "km2"})
    return ledger


# -- outputs of a call that ran with a recorded violation are tainted -----------------------------
# -- 1. a discarded attempt -------------------------------------------------------------------
DISCARDED_OUTPUT = [
    "The first call returned 3.61 mm/d, which was wrong because the discharge had no unit. "
    "Rerunning with 35.4 m3/s gives 0.102 mm/d.",
    "My initial attempt gave 3.607 mm/d (the guard flagged an unconverted input); the "
    "corrected run gives 0.1021 mm/d.",
    "- First try: 3.61 mm/d (wrong: 1250 was passed as m3/s)\n- Retry with 35.40 m3/s: "
    "0.102 mm/d\n\nFINAL ANSWER: 0.102 mm/d",
    "Ignore the earlier 3.61 mm/d result. With the discharge in m³/s the depth is 0.102 mm/day.",
    "0.102 mm/d. (An erroneous 3.607 mm/d came from passing the discharge without a unit.)",
    "The runoff depth is 0.102 mm/d; the previous value of 3.61 mm/d used an unconverted "
    "discharge and is discarded.",
]


# -- a derivation must not run a tool backwards ---------------------------------------------------
@pytest.mark.parametrize("answer", [
    "The discharge is 32.40 m3/s.",
    "Q = 32.4 m³/s, so the depth is 0.0935 mm/d.",
    "Converted flow: 32.40 m^3/s (from 1250 cfs).",
    "| flow | 32.4 m3/s |",
])
def test_a_wrong_input_is_not_rebuilt_from_the_output(answer):
    ledger = runoff_ledger(32.40)  # 1250 cfs is 35.40 m3/s, not 32.40
    audit = ledger.audit_answer(answer)
    assert not audit.ok, audit.findings
    assert status_of(audit, "32.4") in ("unsourced", "tainted")
    assert "derived" != status_of(audit, "32.4")


@pytest.mark.parametrize("answer", [
    "The basin drains about 2.92 million km².",
    "Area: 2,915,830 km2; depth 0.1 mm/d",
    "A = 2.9e6 km^2",
])
def test_a_remembered_area_passed_to_the_tool_is_not_derived_back(answer):
    # the model ran the depth tool with a memorised area: discharge / depth gives it back
    with session() as ledger:
        read_discharge()
        depth_tool("warn")(discharge={"value": 35.396, "unit": "m3/s"},
                           area={"value": 2915830.0, "unit": "km2"})
    audit = ledger.audit_answer(answer)
    assert not audit.ok, audit.findings
    assert not any(f.status == "derived" and f.number.text.startswith(("2.9", "2,9"))
                   for f in audit.findings)


@pytest.mark.parametrize("answer", [
    "The discharge is 35.40 m3/s and the depth 0.102 mm/d.",
    "0.102 mm/d × 29,940 km² = 35.4 m³/s, which checks against the gauge.",
    "Depth 0.10 mm/day over 29940 km2.",
])
def test_a_correct_run_is_still_accepted(answer):
    ledger = runoff_ledger(35.396, enforcement="strict")
    audited(ledger, answer)
    assert not ledger.violations


def test_a_sum_landing_on_a_call_input_is_not_a_derivation():
    # freeboard(crest, water): freeboard + water rebuilds the crest passed in
    fb = quantity_tool(lambda crest, water: crest.to("ft").magnitude - water.to("ft").magnitude,
                       params={"crest": {"unit": "ft"}, "water": {"unit": "ft"}},
                       returns={"unit": "ft"}, name="compute_freeboard")
    water = quantity_tool(lambda: 27.5, returns={"unit": "ft"}, name="read_water")
    with session() as ledger:
        water()
        fb(crest=31.0, water=27.5)  # 31.0 was never read from a tool
    for answer in ("The crest is at 31.0 ft.", "crest = 3.5 + 27.5 = 31.0 ft"):
        audit = ledger.audit_answer(answer)
        assert status_of(audit, "31.0") != "derived", audit.findings
    # the freeboard itself is computed from that unsupported crest, so it is no
    # source either (Ledger.unsupported_calls): tainted, with the input named
    for answer in ("Freeboard 3.5 ft above the water at 27.5 ft.", "3.50 ft"):
        audit = ledger.audit_answer(answer)
        assert status_of(audit, "3.5") == "tainted", answer
        assert "compute_freeboard.crest" in [f for f in audit.findings
                                             if f.status == "tainted"][0].note


def test_a_ratio_of_two_independent_outputs_is_still_derived():
    # outputs of two different calls, neither an input of the other: the usual derivation
    ledger = ledger_of(("get_river_flow", 224.6, "ML/d"), ("get_licence_rate", 45.0, "ML/d"))
    for answer in ("The share is 20.04 %.", "45 / 224.6 = 0.2004", "about 20 % of the flow"):
        assert ledger.audit_answer(answer).ok, answer


@pytest.mark.parametrize("answer", [
    "The full-load current is 0.394 A.",
    "I = 0.3936 A",
    "FINAL ANSWER: 0.39 A",
    "The tool says 3.94e-1 A.",
])
def test_citing_a_tainted_output_is_flagged(answer):
    ledger = carry_over_ledger()
    assert ledger.violations and not ledger.violations[0]["blocked"]
    audit = ledger.audit_answer(answer)
    assert not audit.ok
    f = [f for f in audit.findings if f.status == "tainted"]
    assert f, audit.findings
    assert f[0].code in (Reason.TAINTED, Reason.TAINTED_DERIVATION)
    assert "full_load_current" in f[0].note
    assert f[0].as_dict()["status"] == "tainted"


def test_sound_outputs_of_the_same_ledger_stay_sourced():
    ledger = carry_over_ledger()
    for answer in ("The rating is 90 MVA at 132 kV.", "S = 90 MVA", "V = 132 kV"):
        assert ledger.audit_answer(answer).ok, answer


def test_a_retried_call_makes_the_value_sound_again():
    # the same figure from a sound call: sourced, not tainted
    ledger = carry_over_ledger()
    sound = quantity_tool(lambda: 0.3936, returns={"unit": "A"}, name="full_load_current")
    with ledger.bind():
        sound()
    assert ledger.audit_answer("I = 0.394 A").ok


def test_a_blocked_call_taints_nothing():
    # strict mode: the call never ran, no output, no taint; the answer gives up on it
    rating = quantity_tool(lambda: 90.0, returns={"unit": "MVA"}, name="get_transformer_rating")
    current = quantity_tool(lambda s: 1.0, params={"s": {"unit": "VA"}}, returns={"unit": "A"},
                            name="full_load_current")
    with session() as ledger:
        rating()
        try:
            current(s=90)
        except Exception:  # noqa: BLE001 - the refusal is the point
            pass
    assert ledger.tainted_calls() == frozenset()
    audit = ledger.audit_answer("90 MVA")
    assert [f.status for f in audit.findings] == ["sourced"]
    assert [a.tool for a in audit.abandoned] == ["full_load_current"]  # (audit.abandoned)


def test_station_ids_in_call_arguments_are_case_blind():
    ledger = station_ledger(called_as="e21136")
    assert ledger.audit_answer("Level 2.85 + 6.30 = 9.15 m AOD; margin 0.25 m.").ok
    assert not ledger.audit_answer("9.4 - 2.85 = 6.55 m").ok


@pytest.mark.parametrize("answer", DISCARDED_OUTPUT)
def test_a_tainted_output_presented_as_the_discarded_attempt_is_no_false_alarm(answer):
    audit = audited(retried_ledger(), answer)
    d = [f for f in audit.findings if f.status == "discarded"]
    assert d and d[0].number.value == pytest.approx(3.61, abs=0.01), statuses(audit)
    assert "runoff_depth" not in d[0].note or "refused" in d[0].note
    assert d[0].code is Reason.DISCARDED


@pytest.mark.parametrize("answer", [
    "The runoff depth is 3.61 mm/d.",                                   # stated as the result
    "FINAL ANSWER: 3.607 mm/d",
    "Although the first attempt failed, the runoff is 3.61 mm/d.",      # nothing replaces it
    "The first call returned 3.61 mm/d, which was wrong. FINAL ANSWER: 3.61 mm/d",
    "The corrected runoff depth is 3.61 mm/d.",                          # no discard words
    "Runoff: 3.61 mm/d (0.102 mm/d on the retry).",                      # bracket on the other
])
def test_a_tainted_figure_stated_as_the_result_stays_flagged(answer):
    audit = audited(retried_ledger(), answer, ok=False)
    assert "tainted" in [s for _, s in statuses(audit)]


@pytest.mark.parametrize("enforcement", ["warn", "strict"])
@pytest.mark.parametrize("answer", [
    "Initially I passed 1250 m3/s by mistake; corrected to 35.4 m3/s, the depth is 0.102 mm/d.",
    "I corrected the discharge from 1250 m³/s to 35.40 m³/s and got 0.102 mm/d.",
    "The guard refused my first call (1,250 m3/s, an unconverted carry-over). Converted: "
    "35.4 m3/s, giving 0.102 mm/d.",
    "Instead of 1250 m3/s I should have passed 35.4 m3/s: the depth is 0.102 mm/d.",
])
def test_an_input_the_answer_says_it_corrected_is_no_false_alarm(answer, enforcement):
    audit = audited(retried_ledger(enforcement), answer)
    assert status_of(audit, "1") == "discarded"


@pytest.mark.parametrize("answer", [
    "The discharge is 1250 m3/s and the depth is 0.102 mm/d.",   # the bad input as a claim
    "Initially the flow is 1250 m3/s.",                            # words, nothing replacing it
])
def test_the_refused_input_as_a_claim_stays_flagged(answer):
    audited(retried_ledger(), answer, ok=False)


def test_discard_words_do_not_excuse_an_invented_figure():
    # only a figure the ledger knows as a bad call's input or tainted output is discarded on
    # the loose words of an attempt ("my first attempt gave"); a figure the
    # answer explicitly withdraws ("which was wrong") with a replacement is discarded whatever
    # its source (tests/audit/test_not_claims.py::test_figures_the_answer_withdraws)
    audit = retried_ledger().audit_answer(
        "My first attempt gave 7.5 mm/d; the depth is 0.102 mm/d.")
    assert not audit.ok
    assert status_of(audit, "7.5") == "unsourced"
    audit = retried_ledger().audit_answer(
        "My first attempt gave 7.5 mm/d, which was wrong; the depth is 0.102 mm/d.")
    assert audit.ok and status_of(audit, "7.5") == "discarded"


def test_a_clean_ledger_has_nothing_to_discard():
    with session() as ledger:
        discharge_of()
    audit = ledger.audit_answer("My first attempt gave 35.4 cfs; 1250 cfs.")
    assert not audit.ok and status_of(audit, "35.4") == "unit_mislabelled"


def test_an_output_computed_from_an_unsupported_input_is_tainted():
    # a factor slip passed to a tool that declares no sourced check: 3.5396 m3/s is no
    # conversion of the 1250 cfs read, so the depth computed from it is no source
    tool = quantity_tool(
        lambda discharge, area: discharge.to("m3/s").magnitude / area.to("m2").magnitude
        * 86400 * 1000,
        params={"discharge": {"unit": "m3/s"}, "area": {"unit": "km2"}},
        returns={"unit": "mm/d"}, name="runoff_depth")
    with session() as ledger:
        discharge_of()
        get_area()
        slipped = tool(discharge={"value": 3.5396, "unit": "m3/s"}, area=29940)
    assert not ledger.violations
    audit = ledger.audit_answer(f"The depth is {slipped.magnitude:.4f} mm/d.")
    assert [f.status for f in audit.findings] == ["tainted"]
    assert "runoff_depth.discharge" in audit.findings[0].note
    with session() as good:
        discharge_of()
        get_area()
        depth = tool(discharge={"value": 35.396, "unit": "m3/s"}, area=29940)   # converted
        tool(discharge="1250 cfs", area=29940)                                 # with its unit
    assert not good.unsupported_calls()
    assert good.audit_answer(f"The depth is {depth.magnitude:.4f} mm/d.").ok


@pytest.mark.parametrize("crest,ok", [
    (31.56, True),     # the crest carried to NAVD88 by the recorded offset
    (31.6, True),      # rounded as written
    (31.65, False),    # digits swapped: the freeboard computed from it is no source
    (32.0, False),     # the NGVD29 crest passed as NAVD88 with no offset applied
])
def test_a_freeboard_computed_from_a_slipped_crest_is_tainted(crest, ok):
    levee = quantity_tool(lambda: 32.0, returns={"unit": "ft", "datum": "NGVD29"},
                          name="get_levee_crest")
    stage = quantity_tool(lambda: 27.5, returns={"unit": "ft", "datum": "NAVD88"},
                          name="get_stage_forecast")
    offset = quantity_tool(lambda from_datum, to_datum: -0.44, returns={"unit": "ft"},
                           name="get_datum_offset")
    fb = quantity_tool(lambda crest_elevation, water_surface:
                       crest_elevation.magnitude - water_surface.magnitude,
                       params={"crest_elevation": {"unit": "ft", "datum": "NAVD88"},
                               "water_surface": {"unit": "ft", "datum": "NAVD88"}},
                       returns={"unit": "ft"}, name="compute_freeboard", enforcement="warn")
    with session() as ledger, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        levee()
        stage()
        offset(from_datum="NGVD29", to_datum="NAVD88")
        out = fb(crest_elevation={"value": crest, "unit": "ft", "datum": "NAVD88"},
                 water_surface={"value": 27.5, "unit": "ft", "datum": "NAVD88"})
    audit = ledger.audit_answer(f"The freeboard is {out.magnitude:.2f} ft.")
    assert audit.ok is ok, statuses(audit)
