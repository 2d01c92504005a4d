"""Elevations follow the algebra of vertical datums: sums and differences on one datum, datum
offsets, station datums, shares of an elevation.
"""
from __future__ import annotations

import pytest

from quantity_guard import Q, quantity_tool, register_station, session
from audit_helpers import audited, ledger_of, levee_ledger, station_ledger, status_of


# -- 1. datum-blind derivations -----------------------------------------------------------------
LEVEE = (("read_water_surface", 18.4, "ft", "NAVD88"), ("read_levee_crest", 22.9, "ft", "NGVD29"))


# -- classes the generated corpus showed (beyond the list) ------------------------------------
def offset_ledger(*outputs, offset=-0.44):
    """Elevations plus a datum-offset tool whose call names both datums."""
    with session() as ledger:
        for name, value, unit, datum in outputs:
            quantity_tool(lambda v=value: v, returns={"unit": unit, "datum": datum}, name=name)()
        quantity_tool(lambda location, from_datum, to_datum: offset, returns={"unit": "ft"},
                      name="get_datum_offset")(location="RRL-12", from_datum="NGVD29",
                                               to_datum="NAVD88")
    return ledger


@pytest.mark.parametrize("answer", [
    "ANSWER: 4.5 ft",
    "Freeboard = 22.9 - 18.4 = 4.5 ft.",
    "The levee crest (22.9 ft NGVD29) is 4.5 ft above the water surface (18.4 ft NAVD88).",
    "| crest | water | freeboard |\n|---|---|---|\n| 22.9 ft | 18.4 ft | 4.5 ft |",
    "The freeboard is 4.50 feet.",
    "Stacked, the two read 41.3 ft.",  # a sum of two elevations means nothing, and across datums
    "The water is 4.5 ft below the crest.",
])
def test_no_difference_or_sum_of_elevations_across_datums(answer):
    audit = ledger_of(*LEVEE).audit_answer(answer)
    assert not audit.ok, audit.findings
    assert not audit.by_status("derived")


@pytest.mark.parametrize("answer", [
    "Freeboard = 22.9 - 18.4 = 4.5 ft.", "ANSWER: 4.5 ft", "4.50 ft of freeboard",
])
def test_difference_of_elevations_on_one_datum_is_derived(answer):
    ledger = ledger_of(("read_water_surface", 18.4, "ft", "NAVD88"),
                       ("read_levee_crest", 22.9, "ft", "NAVD88"))
    audit = ledger.audit_answer(answer)
    assert audit.ok, audit.findings
    assert status_of(audit, "4.5") == "derived"
    assert "read_levee_crest" in audit.by_status("derived")[0].note


def test_metric_elevations_on_a_gauge_datum_and_odn():
    register_station("E21136", Q(4.2, "m", datum="ODN"), prefix="GAUGE")
    ledger = ledger_of(("read_level", 0.117, "m", "GAUGE:E21136"),
                       ("flood_threshold", 6.5, "m", "ODN"))
    for answer in ("Margin: 6.5 - 0.117 = 6.383 m.", "The river is 6.38 m below the threshold.",
                   "6.617 m", "Margin 6.383 mAOD"):
        audit = ledger.audit_answer(answer)
        assert not audit.by_status("derived"), (answer, audit.findings)
        assert not audit.ok, answer
    # on one datum (the gauge reading converted to ODN by a tool) the margin is derived
    ledger = ledger_of(("read_level", 4.317, "m", "ODN"), ("flood_threshold", 6.5, "m", "ODN"))
    assert ledger.audit_answer("Margin: 2.183 m.").findings[0].status == "derived"


def test_elevation_and_delta_follow_quantity_arithmetic():
    ledger = ledger_of(("read_stage", 18.4, "ft", "NGVD29"), ("rise", 0.6, "ft"))
    # elevation + a length stays on the elevation's datum
    assert ledger.audit_answer("19.0 ft NGVD29").findings[0].status == "derived"
    assert ledger.audit_answer("19.0 ft").findings[0].status == "derived"
    assert not ledger.audit_answer("19.0 ft NAVD88").ok
    # a length minus an elevation means nothing (Q refuses it)
    assert not ledger.audit_answer("-17.8 ft").ok


def test_question_elevation_on_another_datum_is_not_paired():
    ledger = ledger_of(("read_water_surface", 18.4, "ft", "NAVD88"),
                       context="The levee crest is 22.9 ft NGVD29. What is the freeboard?")
    audit = ledger.audit_answer("Freeboard: 4.5 ft.")
    assert not audit.ok and not audit.by_status("derived")
    ledger = ledger_of(("read_water_surface", 18.4, "ft", "NAVD88"),
                       context="The levee crest is 22.9 ft NAVD88. What is the freeboard?")
    assert ledger.audit_answer("Freeboard: 4.5 ft.").findings[0].status == "derived"


def test_a_recorded_datum_offset_carries_an_elevation_to_the_other_datum():
    ledger = offset_ledger(("get_levee_crest", 32.0, "ft", "NGVD29"),
                           ("get_stage_forecast", 27.5, "ft", "NAVD88"))
    # the crest on NAVD88 (32.0 - 0.44), and the freeboard on one datum
    for answer in ("Crest on NAVD88: 31.56 ft NAVD88.", "32.0 + (-0.44) = 31.56 ft",
                   "31.56 - 27.5 = 4.06 ft", "ANSWER: 4.06 ft", "4.1 ft of freeboard"):
        audited(ledger, answer)
    assert "get_datum_offset" in ledger.audit_answer("4.06 ft").findings[0].note
    # across datums, with the offset ignored or applied twice or the wrong way: flagged
    for answer in ("32.0 - 27.5 = 4.5 ft", "ANSWER: 4.5 ft", "4.94 ft", "32.44 ft NAVD88",
                   "The crest is 32.0 ft NAVD88.", "Crest 32.0 ft (NAVD 88)"):
        audit = ledger.audit_answer(answer)
        assert not audit.ok, (answer, audit.findings)
        assert not any(f.status == "derived" and "4.5" in f.number.text for f in audit.findings)


def test_a_datum_offset_combines_with_no_plain_length():
    # freeboard - offset is the cross-datum difference in disguise
    with session() as ledger:
        quantity_tool(lambda: 32.0, returns={"unit": "ft", "datum": "NGVD29"}, name="crest")()
        quantity_tool(lambda: 27.5, returns={"unit": "ft", "datum": "NAVD88"}, name="ws")()
        quantity_tool(lambda from_datum, to_datum: -0.44, returns={"unit": "ft"},
                      name="offset")(from_datum="NGVD29", to_datum="NAVD88")
        quantity_tool(lambda: 4.06, returns={"unit": "ft"}, name="compute_freeboard")()
    assert ledger.audit_answer("4.06 ft").ok
    assert not ledger.audit_answer("4.5 ft").ok
    assert not ledger.audit_answer("3.62 ft").ok


def test_a_station_datum_height_converts_gauge_readings():
    ledger = station_ledger()
    for answer in ("2.85 mASD + 6.3 m = 9.15 mAOD", "9.4 - 9.15 = 0.25 m below the threshold",
                   "0.25 m", "River level 2.85 m ASD."):
        audited(ledger, answer)
    for answer in ("6.55 m below the threshold", "9.4 - 2.85 = 6.55 m", "9.15 mASD"):
        assert not ledger.audit_answer(answer).ok, answer


def test_echoed_tool_json_carries_its_unit_and_datum():
    ledger = ledger_of(("get_transformer_rating", 90.0, "MVA"), ("crest", 32.0, "ft", "NGVD29"))
    ok = '{"get_transformer_rating": {"value": 90.0, "unit": "MVA"}, ' \
         '"crest": {"value": 32.0, "unit": "ft", "datum": "NGVD29"}}'
    assert ledger.audit_answer(ok).ok
    for wrong in ('{"get_transformer_rating": {"value": 90.0, "unit": "MW"}}',
                  '{"crest": {"value": 32.0, "unit": "ft", "datum": "NAVD88"}}'):
        assert not ledger.audit_answer(wrong).ok, wrong


def test_a_bracketed_station_datum_names_the_gauge_datum():
    register_station("E21136", Q(6.3, "m", datum="ODN"), prefix="GAUGE")
    with session() as ledger:
        quantity_tool(lambda station_id: 2.85, returns={"unit": "m", "datum": "GAUGE:E21136"},
                      name="get_river_level")(station_id="E21136")
        quantity_tool(lambda station_id: 6.3, returns={"unit": "m"},
                      name="get_station_datum")(station_id="E21136")
        quantity_tool(lambda station_id: 9.4, returns={"unit": "m", "datum": "ODN"},
                      name="get_warning_threshold")(station_id="E21136")
    assert ledger.audit_answer("River level: 2.85 m (gauge datum).").ok
    assert ledger.audit_answer("River level: 9.15 m (ODN).").ok
    assert not ledger.audit_answer("River level: 9.15 m (gauge datum).").ok


@pytest.mark.parametrize("answer,ok", [
    ("Station datum: 6.30 m AOD.", True),          # the gauge zero's elevation on ODN
    ("The gauge zero sits at 6.3 mAOD.", True),
    ("Station datum: 6.30 m (NAVD88).", False),     # not the datum it is measured from
    ("Station datum: 6.90 m AOD.", False),
])
def test_a_station_datum_height_written_on_its_reference(answer, ok):
    audited(station_ledger(), answer, ok)


@pytest.mark.parametrize("answer,ok", [
    # shares of two recorded lengths, one an elevation or the datum offset
    ("Freeboard 3.7 ft, roughly 15% of the crest height.", True),      # 3.7 / 25.0
    ("Freeboard 3.7 ft; the river stands at 85% of the crest.", True),  # 21.3 / 25.0
    ("Freeboard 3.7 ft; the river is 15% short of the crest.", True),  # 1 - 21.3 / 25.0
    ("Freeboard 3.7 ft; the crest is 17% above the river.", True),     # 25.0 / 21.3 - 1
    ("Freeboard 3.7 ft; the datum shift alone is 16% of it.", True),   # 0.6 / 3.7
    # shares that no two recorded lengths give, and a share of a length no elevation joins
    ("Freeboard 3.7 ft, roughly 35% of the crest height.", False),
    ("Freeboard 3.7 ft; the river stands at 75% of the crest.", False),
    ("Freeboard 3.7 ft; the datum shift alone is 30% of it.", False),
])
def test_shares_of_an_elevation(answer, ok):
    audit = levee_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status, f.note) for f in audit.findings])


def test_a_share_of_lengths_without_an_elevation_is_not_read_this_way():
    with session() as ledger:
        quantity_tool(lambda: 3.7, returns={"unit": "ft"}, name="freeboard")()
        quantity_tool(lambda: 25.0, returns={"unit": "ft"}, name="levee_height")()
    # an ordinary ratio is a derivation already; 20% is no ratio of these two
    assert ledger.audit_answer("Freeboard 3.7 ft, 15% of the levee height.").ok
    assert not ledger.audit_answer("Freeboard 3.7 ft, 20% of the levee height.").ok


@pytest.mark.parametrize("answer,ok", [
    # the sentence names which share: a rise or a fall of, a figure in apposition
    ("Freeboard 3.7 ft; a rise of about 17% would bring the river to the crest.", True),
    ("Freeboard 3.7 ft; a fall of 15% in the crest would reach the river.", True),
    ("The datum shift cuts the freeboard by 0.6 ft, about 16%.", True),
    # a percentage that names no share of anything is not read as one
    ("Freeboard 3.7 ft; that is 15%.", False),
    ("Freeboard 3.7 ft; a rise of 41.7% would bring the river to the crest.", False),
])
def test_shares_of_an_elevation_named_by_the_sentence(answer, ok):
    audited(levee_ledger(), answer, ok)


def test_random_percentages_against_elevations_are_measured():
    # evaluation/audit_rates.py: the cost of reading shares of elevations, measured (not a bound
    # with slack: the figure is deterministic; with 300 ledgers 1.82% / 7.68% at 3 / 6 outputs,
    # main 2.15% / 5.48%; with these 100, 2.1%)
    from evaluation import audit_rates as rates
    r3 = rates.random_percent_acceptance(3, ledgers=100)
    assert r3["probes"] == 2000 and r3["rate"] < 0.03
