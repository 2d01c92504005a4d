"""An elevation carried to another datum by a conversion the record supports is the same point:
sourced in the answer, and a supported input for a tool. The difference of two elevations on
different datums is no conversion: flagged in the answer, refused at the boundary.

One test per rule of ``quantity_guard.conversions.RULES``, each with an answer it accepts and a
near one it must not; the tools are real ``@quantity_tool`` functions called in a session."""
from __future__ import annotations

import pytest

from quantity_guard import Q, quantity_tool, session
from quantity_guard.conversions import RULES
from quantity_guard.datums import register_station
from quantity_guard.audit.codes import Reason
from quantity_guard.errors import DatumMismatch
from audit_helpers import audited

BAD = ("unsourced", "unit_mislabelled", "tainted")



def reader(name, value, unit, datum=None):
    return quantity_tool(lambda site="X": Q(value, unit, datum=datum),
                         returns={"unit": unit, **({"datum": datum} if datum else {})}, name=name)


def freeboard_tool(datum, unit="ft"):
    return quantity_tool(lambda stage, crest: crest - stage,
                         params={"stage": {"unit": unit, "datum": datum},
                                 "crest": {"unit": unit, "datum": datum}},
                         returns={"unit": unit}, name="freeboard", enforcement="warn")


def statuses(audit):
    return {f.number.text: f.status for f in audit.findings}


def flagged(audit):
    return [f.number.text for f in audit.findings if f.status in BAD]


def test_the_rules_are_a_table_of_named_codes():
    codes = [code for code, _ in RULES]
    assert codes == ["named_offset", "station_height", "registered", "gauge_zero",
                     "unnamed_offset"]


# -- unnamed_offset: an offset tool that names no datums (VERTCON for a site) -------------------
def levee(*, crest_input=None, stage_input=18.4, offset_reads=1):
    with session() as ledger:
        reader("read_water_surface", 18.4, "ft", "NAVD88")()
        reader("read_levee_crest", 22.9, "ft", "NGVD29")()
        for _ in range(offset_reads):
            reader("vertcon_offset", -0.44, "ft")()
        if crest_input is not None:
            freeboard_tool("NAVD88")(stage=stage_input, crest=crest_input)
    return ledger


@pytest.mark.parametrize("answer", [
    "22.9 ft + (-0.44 ft) = 22.46 ft NAVD88; 22.46 - 18.4 = 4.06 ft of freeboard.",
    "The crest on NAVD88 is 22.46 ft, so the freeboard is 4.06 ft.",
    "ANSWER: 4.06 ft",
    "Rounded: 4.1 ft.",
])
def test_an_elevation_plus_the_recorded_offset_is_the_crest_on_the_other_datum(answer):
    audited(levee(), answer)


@pytest.mark.parametrize("answer", [
    "22.9 - 18.4 = 4.5 ft of freeboard.",          # the datums ignored
    "The crest is 23.34 ft NAVD88.",               # the offset applied the wrong way
    "Freeboard: 4.94 ft.",                          # ... and differenced
    "The crest is 22.9 ft NAVD88.",                 # relabelled without converting
])
def test_the_offset_ignored_or_applied_the_wrong_way_is_flagged(answer):
    # the freeboard tool's inputs are declared on NAVD88: the offset is added to reach it
    assert not levee(crest_input=22.46).audit_answer(answer).ok


def test_with_no_tool_frame_the_offset_is_read_in_either_direction():
    # no call received an elevation, so nothing says which datum the offset leads to: the
    # crest carried to NAVD88 and the water surface carried to NGVD29 are both read
    ledger = levee()
    assert ledger.audit_answer("Freeboard: 4.06 ft.").ok
    assert ledger.audit_answer("Freeboard: 4.94 ft.").ok


def test_an_offset_read_twice_is_still_one_offset():
    assert levee(offset_reads=3).audit_answer("ANSWER: 4.06 ft").ok


def test_the_converted_crest_is_a_supported_input_and_its_result_a_source():
    ledger = levee(crest_input=22.46)
    audit = ledger.audit_answer("ANSWER: 4.06 ft")
    assert audit.ok and statuses(audit)["4.06 ft"] == "sourced", flagged(audit)
    assert not ledger.unsupported_calls()
    crest = ledger.audit_answer("The crest is 22.46 ft NAVD88.").findings[0]
    assert crest.code is Reason.SOURCED_DATUM_CONVERSION and crest.match.code == "unnamed_offset"


def test_a_rounded_converted_input_is_supported():
    ledger = levee(crest_input=22.5)
    assert ledger.audit_answer("ANSWER: 4.1 ft").ok
    assert not ledger.unsupported_calls()


def test_a_crest_converted_the_wrong_way_is_no_source_for_the_tool():
    ledger = levee(crest_input=23.34)
    assert ledger.unsupported_calls()
    assert statuses(ledger.audit_answer("ANSWER: 4.94 ft"))["4.94 ft"] == "tainted"


def test_two_different_datum_free_lengths_make_no_offset():
    with session() as ledger:
        reader("read_water_surface", 18.4, "ft", "NAVD88")()
        reader("read_levee_crest", 22.9, "ft", "NGVD29")()
        reader("vertcon_offset", -0.44, "ft")()
        reader("freeboard_design", 3.0, "ft")()
    assert not ledger.audit_answer("The crest is 22.46 ft NAVD88.").ok


# -- gauge_zero: a reading on a gauge datum plus the gauge zero read from a tool ---------------
def gauge(station, *, stage_input=None):
    datum = f"GAGE:{station}"
    with session() as ledger:
        reader("read_gage_height", 12.4, "ft", datum)()
        reader("read_flood_stage", 31.0, "ft", "NAVD88")()
        reader("read_station_datum", 1.5, "ft", "NAVD88")()
        if stage_input is not None:
            freeboard_tool("NAVD88")(stage=stage_input, crest=31.0)
    return ledger


@pytest.mark.parametrize("answer", [
    "12.4 ft + 1.5 ft = 13.9 ft NAVD88, so 31.0 - 13.9 = 17.1 ft.",
    "Stage on NAVD88: 13.9 ft. ANSWER: 17.1 ft",
])
def test_a_gauge_reading_plus_its_zero_is_the_stage_on_the_national_datum(answer):
    audited(gauge("QGZERO1"), answer)


@pytest.mark.parametrize("answer", [
    "31.0 - 12.4 = 18.6 ft of freeboard.",   # the stage on the gauge datum, differenced
    "The stage is 12.4 ft NAVD88.",           # relabelled without its zero
    "The stage on NAVD88 is 10.9 ft NAVD88.", # the zero subtracted
])
def test_a_gauge_reading_differenced_or_relabelled_is_flagged(answer):
    assert not gauge("QGZERO2").audit_answer(answer).ok


def test_the_converted_stage_is_a_supported_input():
    ledger = gauge("QGZERO3", stage_input=13.9)
    assert not ledger.unsupported_calls()
    assert ledger.audit_answer("ANSWER: 17.1 ft").ok
    stage = ledger.audit_answer("Stage 13.9 ft NAVD88.").findings[0]
    assert stage.code is Reason.SOURCED_DATUM_CONVERSION and stage.match.code == "gauge_zero"


def test_a_stage_sent_without_its_zero_is_refused_at_the_boundary():
    with session():
        reader("read_gage_height", 12.4, "ft", "GAGE:QGZERO4")()
        strict = quantity_tool(lambda stage: stage, params={"stage": {"unit": "ft",
                                                                      "datum": "NAVD88"}},
                               returns={"unit": "ft", "datum": "NAVD88"}, name="use_stage")
        with pytest.raises(DatumMismatch):
            strict(stage=Q(12.4, "ft", datum="GAGE:QGZERO4"))


# -- registered: the datums registry relates the two ------------------------------------------
def test_a_registered_gauge_datum_converts_and_a_wrong_zero_does_not():
    register_station("QGREG1", Q(6.3, "m", datum="ODN"), prefix="GAUGE")
    with session() as ledger:
        reader("read_river_level", 0.117, "m", "GAUGE:QGREG1")()
        reader("read_warning_level", 7.2, "m", "ODN")()
    audit = ledger.audit_answer("The level is 6.417 mAOD; headroom 0.783 m.")
    assert audit.ok and audit.findings[0].match.code == "registered"
    assert not ledger.audit_answer("The level is 6.517 mAOD.").ok
    assert not ledger.audit_answer("Headroom: 7.083 m.").ok   # 7.2 - 0.117 across datums


def test_a_gauge_zero_read_from_a_tool_never_overrides_the_registered_one():
    register_station("QGREG2", Q(6.3, "m", datum="ODN"), prefix="GAUGE")
    with session() as ledger:
        reader("read_river_level", 0.117, "m", "GAUGE:QGREG2")()
        reader("read_warning_level", 7.2, "m", "ODN")()
        reader("read_gauge_datum", 6.4, "m", "ODN")()   # disagrees with the registry
    assert ledger.audit_answer("Level 6.417 m ODN.").ok
    assert not ledger.audit_answer("Level 6.517 m ODN.").ok


# -- named_offset and station_height: the rules the record already had ------------------------
def test_an_offset_whose_call_names_its_datums_converts_both_ways():
    with session() as ledger:
        reader("read_crest", 32.0, "ft", "NGVD29")()
        reader("read_stage", 27.5, "ft", "NAVD88")()
        quantity_tool(lambda location, from_datum, to_datum: Q(-0.44, "ft"),
                      returns={"unit": "ft"}, name="get_datum_offset")(
            location="R-1", from_datum="NGVD29", to_datum="NAVD88")
    assert ledger.audit_answer("Crest 31.56 ft NAVD88; stage 27.94 ft NGVD29.").ok
    assert not ledger.audit_answer("Crest 32.44 ft NAVD88.").ok


def test_a_station_datum_height_from_a_datum_tool_converts_the_reading():
    with session() as ledger:
        reader("read_level", 0.9, "m", "GAUGE:QGHEIGHT1")()
        reader("read_threshold", 5.0, "m", "ODN")()
        quantity_tool(lambda station: Q(3.6, "m"), returns={"unit": "m"},
                      name="get_station_datum")(station="QGHEIGHT1")
    assert ledger.audit_answer("The level is 4.5 m AOD, 0.5 m below the threshold.").ok
    assert not ledger.audit_answer("The level is 2.7 m AOD.").ok
