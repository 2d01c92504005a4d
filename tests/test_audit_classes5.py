"""The answer audit on families of numbers that are not measurements, and of figures an answer
does not claim (issue 11, fifth round).

Every phrasing here is written for this file (none is a sentence of a corpus or a held-out set).
Each family is tested on both sides: the correct answer is not flagged, and a wrong figure in
the same phrasing (or the same surface used as a measurement) is still flagged.

Families:
- counts of the work done, written after their noun ("Lookups performed: 2", "Retries = 1");
- positions in a procedure ("Phase 2 of 3", "Étape 2 :", "Paso 3:", "pass 2 of 2");
- self-assessment scores and odds ("Trust: 4/5", "quality 8 out of 10", "9 in 10 that ...");
- section signs (``§2.1``, ``¶ 4``);
- HTTP status codes with a reason phrase ("201 Created", "200 OK") or listed after another
  status code ("503, then 200");
- figures written in a locale's notation inside scientific notation ("1,32·10⁵ V");
- retracted figures: a figure the answer itself withdraws ("ignore that", "disregard it",
  "not the answer") when it states the figure that replaces it;
- percentages of an elevation or of a datum offset (a share of two recorded lengths, one of
  them an elevation, which products and ratios otherwise leave out).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from quantity_guard import datums, quantity_tool, session

sys.path.insert(0, str(Path(__file__).parent))
from audit_helpers import flagged, flow_ledger  # noqa: E402


@pytest.fixture(autouse=True)
def clean_datums():
    with datums.isolated():
        yield


def current_ledger():
    with session(context="A 90 MVA transformer on a 132 kV bus: what is its full-load "
                         "current?") as ledger:
        quantity_tool(lambda: 393.6479, returns={"unit": "A"}, name="full_load_current")()
    return ledger


ACCEPTED = {
    "counts after their noun": [
        "Lookups performed: 2. The depth is 0.102 mm/d.",
        "Total requests = 3; runoff 0.102 mm/d.",
        "Queries issued \u2014 3. Runoff 0.102 mm/d.",
        "API calls so far: 4. Runoff depth 0.102 mm/d.",
        "Retries: 1. Depth: 0.102 mm/d.",
        "Count of tool invocations: 3. 0.102 mm/d.",
        "The number of requests was 3, and the depth is 0.102 mm/d.",
        "Retry count = 1; depth 0.102 mm/d.",
        "Errors encountered: 0. Depth 0.102 mm/d.",
    ],
    "positions in a procedure": [
        "Phase 1 of 2: read the gauge. Runoff 0.102 mm/d.",
        "Stage 3 of 3 \u2014 the depth: 0.102 mm/d.",
        "\u00c9tape 2 : la conversion. 0.102 mm/d.",
        "Paso 3: el resultado, 0.102 mm/d.",
        "Pass 2 of 2 gave 0.102 mm/d.",
        "Stufe 2 von 3: 0.102 mm/d.",
        "Fase 1: leer el caudal. 0.102 mm/d.",
        "Round 2: 0.102 mm/d.",
        "Stage 2: divide by the area. 0.102 mm/d.",
    ],
    "scores and odds": [
        "Trust level: 4/5. Depth 0.102 mm/d.",
        "Quality score 8 out of 10; depth 0.102 mm/d.",
        "My reliability rating: 3/5. 0.102 mm/d.",
        "Depth 0.102 mm/d; odds of that being right are 9 in 10.",
        "Depth 0.102 mm/d (self-assessed accuracy 9/10).",
        "0.102 mm/d. Chances this holds: 4 in 5.",
    ],
    "section signs": [
        "See \u00a72.1 for the conversion; 0.102 mm/d.",
        "As set out in \u00a7 4, the depth is 0.102 mm/d.",
        "(\u00b6 3) The depth is 0.102 mm/d.",
        "\u00a7\u00a72-3 cover the inputs. 0.102 mm/d.",
    ],
    "HTTP status codes": [
        "The area lookup answered 201 Created; depth 0.102 mm/d.",
        "First fetch: 502 Bad Gateway; second: 200 OK. Depth 0.102 mm/d.",
        "Status was 503 at first and 200 after a retry; depth 0.102 mm/d.",
        "The service returned HTTP 429, then 200. 0.102 mm/d.",
        "Both requests came back 200 OK. 0.102 mm/d.",
    ],
}


@pytest.mark.parametrize("answer", [a for v in ACCEPTED.values() for a in v])
def test_non_measurements_are_not_flagged(answer):
    audit = flow_ledger().audit_answer(answer)
    assert audit.ok, (answer, flagged(audit), audit.skipped)


@pytest.mark.parametrize("answer,literal", [
    # the same shapes around a figure that is a claim: it is still read
    ("Lookups performed: 2. The depth is 0.5 mm/d.", "0.5"),
    ("Peak flows: 1700. Depth 0.102 mm/d.", "1700"),          # flows are no count of work
    ("Readings: 1700; depth 0.102 mm/d.", "1700"),
    ("Number of calls: 3; discharge 1700.", "1700"),
    ("Calls used: 3; the tool returned: 350.", "350"),
    ("Phase 1 of 2: the flow is 1700.", "1700"),
    ("Stage 3 of 3 \u2014 the depth: 0.5 mm/d.", "0.5"),
    ("The river stage reached 12 at noon; 0.102 mm/d.", "12"),   # a stage, not a step
    ("Round 2: 0.5 mm/d.", "0.5"),
    ("Trust level: 4/5. Depth 0.5 mm/d.", "0.5"),
    ("The abstraction takes 4/5 of the river; 0.102 mm/d.", "5"),
    ("See \u00a72.1: the flow is 1700.", "1700"),
    ("Both requests came back 200 OK. The flow is 1700.", "1700"),
    ("The service returned HTTP 429, then 200. Flow 350.", "350"),
    ("The flow was 200 at noon; 0.102 mm/d.", "200"),           # a bare 3-figure flow
])
def test_the_same_shapes_around_a_claim_stay_flagged(answer, literal):
    audit = flow_ledger().audit_answer(answer)
    assert not audit.ok, answer
    assert any(t.startswith(literal) for t, _ in flagged(audit)), (answer, flagged(audit))


@pytest.mark.parametrize("answer,ok", [
    # a decimal comma inside scientific notation is a decimal comma whatever the rest of the
    # answer uses: a thousands group has three digits
    ("Full-load current: 393.6 A (S = 9\u00b710\u2077 VA, U = 1,32\u00b710\u2075 V).", True),
    ("I = 393.6 A; U = 1,32 \u00d7 10^5 V, S = 9,0 \u00d7 10^7 VA.", True),
    ("I = 393.6 A, from 9e7 VA and 1,32e5 V.", True),
    # the same notation with a wrong mantissa, or a three-digit group (thousands)
    ("I = 393.6 A; U = 1,23 \u00d7 10^5 V.", False),
    ("I = 393.6 A; U = 1,320 \u00d7 10^5 V.", False),
    ("I = 3,94 \u00d7 10^3 A.", False),
])
def test_decimal_commas_in_scientific_notation(answer, ok):
    audit = current_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])


IDENTIFIERS = [
    # telephone numbers, including a vanity number and short service numbers
    "For questions ring the gauge office on 1-303-555-0199. Depth 0.102 mm/d.",
    "Depth 0.102 mm/d. Out of hours: 0161 496 0000.",
    "Depth 0.102 mm/d (data desk +44 20 7946 0958).",
    "Depth 0.102 mm/d. Help: 1-800-FLOOD-US.",
    "Depth 0.102 mm/d. In an emergency dial 999, or 112 from a mobile.",
    # positions on the earth and grid references
    "The gauge sits at 39\u00b007\u203212\u2033N 76\u00b055\u203244\u2033W; depth 0.102 mm/d.",
    "The gauge sits at 39\u00b007'12\"N; depth 0.102 mm/d.",
    "Gauge at 39.12\u00b0N, 76.93\u00b0W: depth 0.102 mm/d.",
    "Depth 0.102 mm/d at grid reference TQ 3004 8009.",
    # chainages, routes, return periods
    "The gauge is at chainage 3+250 on the left bank; 0.102 mm/d.",
    "Upstream of the US-50 crossing the depth is 0.102 mm/d.",
    "Upstream of the M-25 crossing the depth is 0.102 mm/d.",
    "This is nowhere near a 1-in-50-year event: 0.102 mm/d.",
    "Not a 1 in 200 year flood; 0.102 mm/d.",
    # names holding digits: models, file names, standards and report numbers
    "Computed with mistral-7.2-large-2407; depth 0.102 mm/d.",
    "Series gauge-height-15_min-raw; depth 0.102 mm/d.",
    "Method per ISO 748-2021; depth 0.102 mm/d.",
    "As in ASTM D5388-93 and report 4-B12; depth 0.102 mm/d.",
    # log lines and timestamps, model settings
    "[1/3] read_discharge() -> 1,250 cfs\n[3/3] runoff_depth() -> 0.102 mm/d",
    "(2/2) runoff_depth: 0.102 mm/d.",
    "Data as of epoch 1764500000; depth 0.102 mm/d.",
    "Model settings: temperature 0.2, seed 7. Depth 0.102 mm/d.",
    # calendar positions and sections
    "Week 48 reading: 0.102 mm/d.",
    "Julian day 300 mean: 0.102 mm/d.",
    "On 2026-335 (ordinal date) the depth was 0.102 mm/d.",
    "In 2026-W48-2 the depth was 0.102 mm/d.",
    "Under the Water Act 2014, s. 12, the depth reported is 0.102 mm/d.",
]


@pytest.mark.parametrize("answer", IDENTIFIERS)
def test_identifiers_holding_digits_are_not_flagged(answer):
    audit = flow_ledger().audit_answer(answer)
    assert audit.ok, (answer, flagged(audit), audit.skipped)


@pytest.mark.parametrize("answer,literal", [
    # a figure beside an identifier is still read; digits shaped like one but with a unit or
    # a thousands grouping are measurements
    ("For questions ring 1-303-555-0199. Depth 0.5 mm/d.", "0.5"),
    ("The volume is 1 250 000 000 m\u00b3.", "1 250 000 000"),     # a thousands grouping
    ("The flow is 1 250 000 cfs.", "1 250 000"),
    ("The gauge sits at 39.12\u00b0N; the flow is 1700.", "1700"),
    ("The angle is 39\u00b0 and the flow 1700 cfs.", "1700"),
    ("A 1-in-50-year flood would carry 1700 cfs.", "1700"),
    ("Upstream of the US-50 crossing the flow is 1700 cfs.", "1700"),
    ("Computed with mistral-7.2; the flow is 1700 cfs.", "1700"),
    ("Per ISO 748-2021 the flow is 1700 cfs.", "1700"),
    ("[1/3] read_discharge() -> 1,700 cfs", "1,700"),
    ("The temperature was 12 and the flow 1700 cfs.", "1700"),
    ("Week 48: 0.5 mm/d.", "0.5"),
    ("The flow fell by 2-3 cfs to 1700 cfs.", "1700"),
    ("A 5-MW load for 6 h.", "5"),                                # a compound adjective
])
def test_figures_beside_identifiers_stay_flagged(answer, literal):
    audit = flow_ledger().audit_answer(answer)
    assert not audit.ok, answer
    assert any(t.startswith(literal) for t, _ in flagged(audit)), (answer, flagged(audit))


def test_identifier_skips_say_what_they_are():
    reasons = " ".join(r for _, r in flow_ledger().audit_answer(
        "Ring 1-303-555-0199. Gauge at 39.12\u00b0N, chainage 3+250, near the I-95; "
        "mistral-7.2-large; [1/2]; a 1-in-50-year event; week 48: 0.102 mm/d.").skipped)
    for word in ("telephone", "position on the earth", "chainage", "name", "step counter",
                 "return period", "label"):
        assert word in reasons, (word, reasons)


@pytest.mark.parametrize("answer,ok", [
    # a figure the answer withdraws, with the figure that replaces it
    ("Depth 0.102 mm/d. (I initially put 1.02 mm/d \u2014 a slipped decimal; ignore it.)", True),
    ("Earlier I gave 0.201 mm/d; the depth is 0.102 mm/d.", True),
    ("The discharge is 1,250 cfs (I first typed 1,520 by mistake).", True),
    ("The area is 29,940 km\u00b2, not 29,490 as I wrongly wrote above.", True),
    ("The area is 29,940 km\u00b2, not 29,049.", True),
    ("My draft said 1250 m\u00b3/s; the gauge reads 1250 cfs.", True),
    ("Depth 0.102 mm/d. 3.6 mm/d was wrong (the cfs were never converted).", True),
    ("A share of 2.4% \u2014 not the answer, it used the wrong flow; the depth is 0.102 mm/d.",
     False),                                      # withdrawn, but nothing of its kind replaces it
    # the same words pointing elsewhere, or a withdrawn figure with nothing in its place
    ("The depth is 3.6 mm/d (not a typo).", False),
    ("Ignore the earlier estimate. The depth is 3.6 mm/d.", False),
    ("The depth is 3.6 mm/d; earlier I said 0.102 mm/d.", False),
    ("Earlier I said 1.02 mm/d; that was wrong.", False),     # nothing replaces it
    ("Correction: the depth is 3.6 mm/d.", False),            # brings a figure, withdraws none
    ("The depth is 3.6 mm/d, not 0.102 mm/d.", False),
])
def test_figures_the_answer_withdraws(answer, ok):
    audit = flow_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])
    if ok:
        assert any(f.status == "discarded" for f in audit.findings), audit.findings


def levee_ledger():
    """A river at 21.3 ft and a levee crest at 25.0 ft, both NAVD88; the crest was read on
    NGVD29 (25.6 ft) and carried over by a recorded offset of -0.6 ft."""
    with session() as ledger:
        quantity_tool(lambda: 25.6, returns={"unit": "ft", "datum": "NGVD29"},
                      name="read_crest")()
        quantity_tool(lambda from_datum, to_datum: -0.6, returns={"unit": "ft"},
                      name="datum_offset")(from_datum="NGVD29", to_datum="NAVD88")
        quantity_tool(lambda: 21.3, returns={"unit": "ft", "datum": "NAVD88"},
                      name="read_river")()
        quantity_tool(lambda: 3.7, returns={"unit": "ft"}, name="freeboard")()
    return ledger


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


PLACES_AND_CONVENTIONS = [
    # calendar positions in other shapes
    "Reading of 2026/335: 0.102 mm/d.",
    "Day 335 of 2026: 0.102 mm/d.",
    "Week 12 of the year: 0.102 mm/d.",
    # places named or located by a number
    "The logger sits in cabinet bay 4; depth 0.102 mm/d.",
    "The gauge is at river mile 88.4; depth 0.102 mm/d.",
    "Levee station 45+20 is the check point; depth 0.102 mm/d.",
    "The gauge is at lat 39.12, lon -76.93; depth 0.102 mm/d.",
    "The gauge is 300 m upstream of the railway viaduct; depth 0.102 mm/d.",
    "The gauge is 4 km from the confluence; depth 0.102 mm/d.",
    # precisions written with a unit
    "Depth 0.102 mm/d, accurate to 0.001 mm/d.",
    "Discharge 1,250 cfs, given to the nearest 10 cfs.",
]


@pytest.mark.parametrize("answer", PLACES_AND_CONVENTIONS)
def test_places_calendar_positions_and_precisions(answer):
    audit = flow_ledger().audit_answer(answer)
    assert audit.ok, (answer, flagged(audit), audit.skipped)


@pytest.mark.parametrize("answer,ok", [
    ("On a 100 MVA base the transformer is 0.9 pu, so 393.6 A at 132 kV.", True),
    ("Full-load current 393.6 A (1.00 pu voltage).", True),
    ("On a 100 MVA base the full-load current is 437 A.", False),   # a figure beside the base
    ("Full-load current 393.6 A; the fault level is 2500 MVA.", False),
])
def test_per_unit_values_and_their_base(answer, ok):
    audit = current_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])


@pytest.mark.parametrize("answer,literal", [
    ("Day 335 of 2026 the depth was 0.5 mm/d.", "0.5"),
    ("On day 3 of the storm the flow was 1700 cfs.", "1700"),
    ("The level is 2 m below the weir crest; depth 0.102 mm/d.", "2"),   # a level, not a place
    ("The water is 3 m below the bridge soffit; 0.102 mm/d.", "3"),
    ("The river is 4 km wide at the confluence; 0.102 mm/d.", "4"),
    ("The discharge was rounded to 1,700 cfs.", "1,700"),              # a rounding is a claim
    ("The depth is 0.5 mm/d, accurate to 0.001 mm/d.", "0.5"),
])
def test_the_same_places_and_precisions_beside_a_claim(answer, literal):
    audit = flow_ledger().audit_answer(answer)
    assert not audit.ok, answer
    assert any(t.startswith(literal) for t, _ in flagged(audit)), (answer, flagged(audit))


def energy_ledger():
    with session(context="Feeder F-9 runs at its present load for 6 hours: how much energy "
                         "does it deliver?") as ledger:
        load = quantity_tool(lambda feeder_id: 8.4, returns={"unit": "MW"},
                             name="get_feeder_load")(feeder_id="F-9")
        quantity_tool(lambda power, duration: power * duration,
                      params={"power": {"unit": "kW"}, "duration": {"unit": "h"}},
                      returns={"unit": "kWh"}, name="energy_delivered")(
            power={"value": 8400, "unit": "kW"}, duration={"value": 6, "unit": "h"})
    return ledger


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
    audit = energy_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])


@pytest.mark.parametrize("answer,ok", [
    # a misreading named as one, beside the figure read the right way
    ("Passing the bare 1250 failed: the tool would read it as 1250 m\u00b3/s. With its unit, "
     "1,250 cfs, the depth is 0.102 mm/d.", True),
    ("The service misread as 1250 m\u00b3/s what was 1250 cfs; depth 0.102 mm/d.", True),
    # the same unit stated as the reading, or named as a misreading with nothing in its place
    ("The gauge reads 1250 m\u00b3/s; depth 0.102 mm/d.", False),
    ("The tool would read it as 1250 m\u00b3/s.", False),
])
def test_a_misreading_named_as_one(answer, ok):
    audit = flow_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])


@pytest.mark.parametrize("answer,ok", [
    # an answer in the decimal-comma convention throughout groups thousands with a dot
    ("Die Tiefe betr\u00e4gt 0,102 mm/Tag bei 1.250 cfs.", True),
    ("Profundidad 0,102 mm/d; cuenca de 29.940 km\u00b2.", True),
    # a wrong group, or a point decimal elsewhere (then a lone dot group is a decimal point)
    ("Die Tiefe betr\u00e4gt 0,102 mm/Tag bei 2.250 cfs.", False),
    ("Depth 0.102 mm/d; Tiefe 0,102 mm/Tag; basin 29.940 km\u00b2.", False),
])
def test_a_lone_dot_group_in_a_decimal_comma_answer(answer, ok):
    audit = flow_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])


@pytest.mark.parametrize("answer,ok", [
    # a gallon named with its system is read (a bare "gallon" is ambiguous, and is not)
    ("1,250 cfs (about 808 million US gallons a day).", True),
    ("1,250 cfs, or some 673 million imperial gallons per day.", True),
    ("1,250 cfs (about 900 million US gallons a day).", False),
    # one unit defined by a formula: its right side is read, and must hold
    ("1 cfs = 0.0283 m\u00b3/s, so 1,250 cfs is 35.4 m\u00b3/s.", True),
    ("1 cfs = 0.05 m\u00b3/s, so 1,250 cfs is 62.5 m\u00b3/s.", False),
])
def test_gallons_with_their_system_and_units_defined_by_a_formula(answer, ok):
    audit = flow_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])


def test_one_unit_defined_by_a_formula():
    with session(context="The licence allows 45 Ml/d. What share of the flow is that?") as ledger:
        quantity_tool(lambda: 0.5208, returns={"unit": "m3/s"}, name="licence_rate")()
    # the left side is one unit; the right side's figures are a day's seconds and a megalitre
    audit = ledger.audit_answer("45 Ml/d is 0.5208 m\u00b3/s (1 Ml/d = 1,000 m\u00b3 / 86,400 s).")
    assert audit.ok, [(f.number.text, f.status) for f in audit.findings]
    assert any("one unit" in r for _, r in audit.skipped)
    audit = ledger.audit_answer("45 Ml/d is 0.5208 m\u00b3/s (1 Ml/d = 7,300 m\u00b3 / 86,400 s).")
    assert not audit.ok   # the right side is read: 7,300 m³ is no megalitre


@pytest.mark.parametrize("answer,ok", [
    # a decimal comma in scientific notation inside an answer that groups thousands with commas
    ("393.6 A, from 90,000,000 VA at 132,000 V (U = 1,32\u00b710\u2075 V).", True),
    ("393.6 A, from 90,000,000 VA; U = 1,32e5 V.", True),
    ("393.6 A, from 90,000,000 VA; U = 1,23e5 V.", False),
    ("393.6 A, from 90,000,000 VA; U = 1,320 \u00d7 10^3 V.", False),   # a thousands group
])
def test_a_decimal_comma_in_scientific_notation_beside_thousands_commas(answer, ok):
    audit = current_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])


@pytest.mark.parametrize("answer,ok", [
    # an additive what-if: the actual figure moved by a premise of its dimension
    ("Freeboard 3.7 ft. Were the river 0.5 ft higher, it would be about 3.2 ft.", True),
    ("Freeboard 3.7 ft; a crest 2 ft lower would leave 1.7 ft.", True),
    # a consequence the premise does not give, or a premise with no actual figure stated
    ("Freeboard 3.7 ft; a crest 2 ft lower would leave 2.7 ft.", False),
    ("A crest 2 ft lower would leave 1.7 ft.", False),
])
def test_additive_what_ifs(answer, ok):
    audit = levee_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])


@pytest.mark.parametrize("answer,ok", [
    # an amount over a whole period, the period named with its length or as "a full day"
    ("0.102 mm/d; over a 31-day month that comes to about 3.2 mm.", True),
    ("1,250 cfs; a whole day at that rate moves 3.06 million m\u00b3.", True),
    ("1,250 cfs, or 108 million ft\u00b3 a full day.", True),
    ("0.102 mm/d; over a 31-day month that comes to about 5 mm.", False),
    ("1,250 cfs, or 150 million ft\u00b3 a full day.", False),
])
def test_amounts_over_a_whole_period(answer, ok):
    audit = flow_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])


@pytest.mark.parametrize("answer,ok", [
    # background knowledge of a dimension a tool returns, stated about things in general
    ("Depth 0.102 mm/d. Mountain streams commonly carry over 5,000 cfs in spring.", True),
    ("Depth 0.102 mm/d. As a rule, basins over 50,000 km\u00b2 respond slowly.", True),
    # the same words about this case stay claims
    ("Depth 0.102 mm/d. The flow is usually 5,000 cfs in spring.", False),
    ("Depth 0.102 mm/d. Flows here commonly exceed 5,000 cfs.", False),
    ("Depth 0.102 mm/d. This basin is typically put at 50,000 km\u00b2.", False),
    ("Typically 5,000 cfs at this gauge; depth 0.102 mm/d.", False),
])
def test_general_statements_about_things_in_general(answer, ok):
    audit = flow_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])


@pytest.mark.parametrize("answer,ok", [
    # the interval of a schedule, where a time can be derived (energy over power)
    ("8.4 MW for 6 h gives 50,400 kWh; SCADA polls every 10 s.", True),
    ("50,400 kWh. The meter logs each 30 minutes.", True),
    ("50,400 kWh; readings come every half hour (30 min).", True),
    # a duration claimed, in the same answer
    ("8.4 MW for 7 h gives 50,400 kWh.", False),
    ("50,400 kWh over 11 h; SCADA polls every 10 s.", False),
])
def test_schedule_intervals_where_a_time_can_be_derived(answer, ok):
    audit = energy_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])


MORE_NON_MEASUREMENTS = [
    "Monitoring runs 24/7; depth 0.102 mm/d.",
    "It is a 50/50 call whether it rises further; depth 0.102 mm/d.",
    "The district office is at 12 Levee Road; depth 0.102 mm/d.",
    "This was a Category 4 storm; depth 0.102 mm/d.",
    "Flood alert level 2 is in force; depth 0.102 mm/d.",
    "Hazard class 3, zone 2; depth 0.102 mm/d.",
    "Severity 2 incident; depth 0.102 mm/d.",
    "Depth 0.102 mm/d. Checked by 2 people.",
    "Depth 0.102 mm/d. Data licence CC BY 4.0.",
    "Depth 0.102 mm/d; confidence high (say 8 on a 10-point scale).",
    "Depth 0.102 mm/d. Room 204, Building 7.",
    "Depth 0.102 mm/d. 1 in 5 gauges report late.",
]


@pytest.mark.parametrize("answer", MORE_NON_MEASUREMENTS)
def test_categories_idioms_addresses_and_counts(answer):
    audit = flow_ledger().audit_answer(answer)
    assert audit.ok, (answer, flagged(audit), audit.skipped)


@pytest.mark.parametrize("answer,literal", [
    ("Category 4: the flow is 1700 cfs.", "1700"),
    ("The flow ran at 1700 cfs 24/7.", "1700"),
    ("At 12 Levee Road the flow is 1700 cfs.", "1700"),
    ("1 in 5 gauges report late; the flow is 1700.", "1700"),
    ("The flow is 1 in 5 of the time above 1700 cfs.", "1700"),
    ("Depth 0.5 mm/d (say 8 on a 10-point scale).", "0.5"),
])
def test_figures_beside_categories_idioms_and_counts(answer, literal):
    audit = flow_ledger().audit_answer(answer)
    assert not audit.ok, answer
    assert any(t.startswith(literal) for t, _ in flagged(audit)), (answer, flagged(audit))


@pytest.mark.parametrize("answer,ok", [
    ("Depth 0.102 mm/d. At 2 \u00d7 the rate it would be 0.204 mm/d.", True),
    ("Depth 0.102 mm/d. At 3 times the rate it would be 0.306 mm/d.", True),
    ("Depth 0.102 mm/d. At 2 \u00d7 the rate it would be 0.5 mm/d.", False),
])
def test_a_numeric_factor_in_a_what_if(answer, ok):
    audit = flow_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])


@pytest.mark.parametrize("answer,ok", [
    # inches restated beside another unit: "in" before "or 1.13 m" or "=" is the unit (not
    # before a comma: "2,340 in, 1,980 out")
    ("Freeboard 3.7 ft, i.e. 44.4 in or 1.13 m.", True),
    ("Freeboard 3.7 ft = 44.4 in = 1.13 m.", True),
    ("Freeboard 3.7 ft, i.e. 50 in or 1.27 m.", False),
])
def test_inches_restated_beside_another_unit(answer, ok):
    audit = levee_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])


def margin_ledger():
    with session() as ledger:
        quantity_tool(lambda: 0.25, returns={"unit": "m"}, name="level_below_threshold")()
    return ledger


def share_ledger():
    with session() as ledger:
        quantity_tool(lambda: 0.5208, returns={"unit": "m3/s"}, name="licence_rate")()
        quantity_tool(lambda: 48.6, returns={"unit": "m3/s"}, name="river_flow")()
    return ledger


@pytest.mark.parametrize("ledger,answer,ok", [
    # a signed difference whose sign says what the tool's name does
    (margin_ledger, "Level minus threshold: -0.25 m (below).", True),
    (margin_ledger, "Difference -0.25 m, i.e. under the threshold.", True),
    (margin_ledger, "Difference -0.25 m.", False),                 # a sign, and no direction
    (margin_ledger, "Level minus threshold: -0.25 m (above).", False),
    # the complement of a share computed in one step
    (share_ledger, "1.07% of the flow; the remaining 98.93% stays in the river.", True),
    (share_ledger, "1.07% of the flow; the remaining 97.9% stays in the river.", False),
    # an amount per minutes, and a site number named after it
    (energy_ledger, "50,400 kWh, or 1,400 kWh every 10 minutes.", True),
    (energy_ledger, "50,400 kWh, or 2,400 kWh every 10 minutes.", False),
    (flow_ledger, "The 01646500 site's area is 29,940 km\u00b2; 0.102 mm/d.", True),
    (flow_ledger, "The 1646500 site reads 1,250 cfs; 0.102 mm/d.", True),
    (flow_ledger, "The site reads 1646500; 0.102 mm/d.", False),
])
def test_signed_differences_complements_minutes_and_site_numbers(ledger, answer, ok):
    audit = ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])


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
    audit = levee_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])


def test_random_percentages_against_elevations_are_measured():
    # bench/audit_rates.py: the cost of reading shares of elevations, measured (not a bound
    # with slack: the figure is deterministic; with 300 ledgers 1.82% / 7.68% at 3 / 6 outputs,
    # main 2.15% / 5.48%; with these 100, 2.1%)
    import bench.audit_rates as rates
    r3 = rates.random_percent_acceptance(3, ledgers=100)
    assert r3["probes"] == 2000 and r3["rate"] < 0.03


@pytest.mark.parametrize("answer,ok", [
    # a mixed number: the whole part and the fraction are one figure in the fraction's unit
    ("Freeboard 3.7 ft, about 3 11/16 ft.", True),
    ("Freeboard: roughly 3 3/4 ft.", True),
    ("Freeboard: roughly 4 3/4 ft.", False),
    ("Freeboard: roughly 3 1/4 ft.", False),
])
def test_mixed_numbers(answer, ok):
    audit = levee_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])


@pytest.mark.parametrize("answer,ok", [
    ("Depth 0.102 mm/d. (1) Values as the service returned them.", True),
    ("(2) Computed by the tool. Depth 0.102 mm/d.", True),
    ("Depth 0.102 mm/d. (1) The flow was 1700 cfs.", False),
    ("The flow rose (2) Tuesday; depth 0.102 mm/d.", False),   # not opening a sentence
])
def test_a_note_marker_opening_a_sentence(answer, ok):
    audit = flow_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, [(f.number.text, f.status) for f in audit.findings])
