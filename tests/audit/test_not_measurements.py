"""Digits that are not measurements (dates, times, identifiers, labels, counts, codes, scores,
places, precisions) are skipped with their reason, and the same shapes around a claim are
still read and flagged.
"""
from __future__ import annotations

import pytest

from quantity_guard.audit import extract_numbers
from quantity_guard.audit.codes import Skip
from audit_helpers import (FLOW, audited, current_ledger, flagged, flags, flow_ledger, ledger_of,
                           nums, session_with_nothing, status_of)


# -- 1. a discarded attempt -------------------------------------------------------------------
# -- 4. numbers that are not measurements ------------------------------------------------------
def runoff_ledger():
    return ledger_of(*FLOW, ("get_drainage_area", 29940.0, "km2"), ("runoff_depth", 0.102, "mm/d"))


ACCEPTED = {
    "clock": [
        "Data pulled at 14.05 UTC; 0.102 mm/d.",
        "Reading time 1405Z; 0.102 mm/d.",
        "As of 2:05 pm local, 0.102 mm/d.",
        "As of 2 pm, 0.102 mm/d.",
        "As of 2pm the depth was 0.102 mm/d.",
        "As of 11 a.m. the depth was 0.102 mm/d.",
        "Timestamp T14:05:00Z; 0.102 mm/d.",
        "Observed at 14:05:30.123 UTC: 0.102 mm/d.",
        "Retrieved 09h30 GMT: 0.102 mm/d.",
        "Retrieved at 0930 hrs: 0.102 mm/d.",
        "Retrieved at 14 h 05: 0.102 mm/d.",
        "Time: 14:05 BST. 0.102 mm/d.",
        "Query window PT24H; 0.102 mm/d.",
        "Mean over P1DT12H: 0.102 mm/d.",
    ],
    "version": [
        "Tool v1.2.3 returned 0.102 mm/d.",
        "Using library 1.2.3: 0.102 mm/d.",
        "Release 2026.8 of the service: 0.102 mm/d.",
        "The API (v2) gives 0.102 mm/d.",
        "With python 3.11 the depth is 0.102 mm/d.",
        "quantity-guard 0.4.1 reports 0.102 mm/d.",
        "Built with rev 7 of the tool; 0.102 mm/d.",
        "(API ver. 2.4) 0.102 mm/d.",
        "Schema revision 12 of the feed; 0.102 mm/d.",
    ],
    "http": [
        "HTTP/2 503 from the area service; 0.102 mm/d.",
        "The area lookup got a 429 Too Many Requests; retried; 0.102 mm/d.",
        "status=503 on the first try; 0.102 mm/d.",
        "Status: 503. Then it worked: 0.102 mm/d.",
        "Error code 504 at first; 0.102 mm/d.",
        "First request failed (HTTP 500 Internal Server Error); 0.102 mm/d.",
        "The server responded with status code 503; 0.102 mm/d.",
    ],
    "confidence": [
        "Confidence level: 90%. 0.102 mm/d.",
        "Certainty ~ 95 %. 0.102 mm/d.",
        "My confidence: 0.9. 0.102 mm/d.",
        "Probability this is right: 0.95. 0.102 mm/d.",
        "0.102 mm/d (confidence 8/10).",
        "0.102 mm/d. I'd put 90% odds on it.",
        "0.102 mm/d (p \u2248 0.9 that this is right).",
        "0.102 mm/d. Confidence 4 out of 5.",
        "0.102 mm/d. Certainty: 7/10.",
    ],
    "list reference": [
        "As in #3 above, 0.102 mm/d.",
        "See item (b) 2: 0.102 mm/d.",
        "From step #2, 0.102 mm/d.",
        "Per (2) above, 0.102 mm/d.",
        "As in point (2), 0.102 mm/d.",
        "Per footnote 3, 0.102 mm/d.",
        "Entry no. 5: 0.102 mm/d.",
        "See the 2nd point: 0.102 mm/d.",
        "Q2: 0.102 mm/d.",
    ],
}


COUNTS_POSITIONS_SCORES = {
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


def counting_ledger():
    """A tool that returns a plain count (a dimensionless number), beside a measurement."""
    return ledger_of(("count_households", 2310.0, "1"),
                     ("runoff_depth", 0.10214476953907817, "mm/d"))


MARKERS_COUNTS_FILE_NAMES = {
    "list markers in running text": [
        "Depth 0.102 mm/d. I can also send (1) the hydrograph, (2) a CSV or (3) a summary.",
        "Next steps, your call: (1) refresh later, (2) widen the window. Depth 0.102 mm/d.",
        "Depth 0.102 mm/d; options are (2) a chart and (3) an alert, as listed before (1) a "
        "series.",
        "Depth 0.102 mm/d. Plan: 1) check the gauge 2) rerun the depth.",
    ],
    "counts of discrete things": [
        "The catchment serves 2,310 households. Depth 0.102 mm/d.",
        "The basin holds 4812 wells; depth 0.102 mm/d.",
        "This gauge is one of 5 gauges on the river. Depth 0.102 mm/d.",
        "The site is one of 7 NOAA stations in the county; depth 0.102 mm/d.",
        "It is two of the 6 monitoring sites that report hourly. 0.102 mm/d.",
        "Across 12 stations the pattern holds; depth 0.102 mm/d.",
    ],
    "file names and paths": [
        "Wrote river_0412_2026-03-14.csv; depth 0.102 mm/d.",
        "Depth 0.102 mm/d (saved to out/run_17/depth_v3.json).",
        "Attached: basin-7_summary_2026-12.xlsx. Depth 0.102 mm/d.",
        "Depth 0.102 mm/d, logged in logs/2026/11/30.log.",
    ],
}


@pytest.mark.parametrize("text", [
    "Site 07374000 on 2026-08-20 at 14:15", "In 2025 the gauge moved.", "station E21136",
    "1. First item\n2. Second item", "the 2nd reading", "on 08/20/2026", "USGS 01646500",
    "on August 20", "at 2026-08-20T14:15:00-05:00",
])
def test_non_quantities_are_skipped(text):
    assert nums(text) == []


# -- 5. digits that are not quantities ---------------------------------------------------------------
@pytest.mark.parametrize("text,expected", [
    ("over 29000 km^2", [29000.0]),
    ("35.4 m^3/s", [35.4]),
    ("35.4 m3/s", [35.4]),
    ("35.4 m**3/s", [35.4]),
    ("an area of 29,000 km²", [29000.0]),
    ("for station=7374000 the flow is 1250 cfs", [1250.0]),
    ('{"station": 7374000, "discharge_cfs": 1250}', [1250.0]),
    ('{"site_no": "07374000", "value": 1250.0, "unit": "cfs"}', [1250.0]),
    ("USGS-07374000 reads 1,250 cfs", [1250.0]),
    ("**Step 1:** read 1250 cfs", [1250.0]),
    ("Step 2 - convert: 35.4 m3/s", [35.4]),
    ("step 3: 35.4 m3/s", [35.4]),
    ("timestamps in ISO 8601 with 35.4 m3/s", [35.4]),
    ("zone Etc/GMT+6, reading 12.4 ft", [12.4]),
    ("at 14:15-06:00 the stage was 12.4 ft", [12.4]),
    ("offset -06:00 (CST)", []),
    ("UTC-6: 12.4 ft", [12.4]),
    ("86 400 s per day", [86400.0]),
    ("2 592 000 s in 30 days", [2592000.0, 30.0]),
    ("86\u2009400 s", [86400.0]),
    ("86\u202f400 s", [86400.0]),
    ("86\u00a0400 s", [86400.0]),
    (r"86\,400 s", [86400.0]),
    ("EPSG:4326 and 12.4 ft", [12.4]),
    ("between 3 and 400 m", [3.0, 400.0]),
])
def test_non_quantity_digits_are_skipped_and_digit_groups_joined(text, expected):
    assert [n.value for n in extract_numbers(text)] == expected


def test_skipped_numbers_are_reported_with_a_reason():
    ledger = ledger_of(*FLOW)
    audit = ledger.audit_answer("**Step 1:** USGS-07374000 read 1250 cfs over 29000 km^2.")
    reasons = dict(audit.skipped)
    assert "1" in reasons and reasons["1"].code is Skip.LABEL
    assert any(r.code is Skip.IDENTIFIER for r in reasons.values())
    assert "skipped" in audit.as_dict()


@pytest.mark.parametrize("text,expected", [
    ("the site service answered HTTP 503", []),
    ("for 2604TH: 45.0 ML/d", [45.0]),
    ("levee segment RRL-12", []),
    ("licence 6/33/12/*S/0041", []),
    ("the 1-in-30-year storm", [1.0, 30.0]),
    ("1.072 per cent", [1.072]),
    ("45 megalitres a day", [45.0]),
    ("35.4 m3 s-1", [35.4]),
    ("86 400 s/day \u00b7 1 000 mm/m", [86400.0, 1000.0]),
    ("1.18e-9 \u00d7 86400 \u00d7 1000 mm/m", [1.18e-9, 86400.0, 1000.0]),
    ("8.4 \u00b7 10\u00b3 kW", [8400.0]),
])
def test_more_digits_read_or_skipped(text, expected):
    assert [n.value for n in extract_numbers(text)] == pytest.approx(expected)


# -- digits that are not quantities ---------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "**1. Levee crest (get_levee_crest)**\n31.0 ft",
    "## 2. Convert the flow\n35.4 m3/s",
    "> 3. Compute the share\n20 %",
    "(1) Read the gauge. (2) Convert it. (3) Compare.",
    "Plan: 1) read the values 2) compute the margin",
    "Steps: (1) fetch; (2) convert.",
])
def test_list_markers_are_not_numbers(text):
    reading = session_with_nothing().audit_answer(text)  # .skipped: (text, reason) each
    assert [s for s in reading.skipped if s[1].code in (Skip.LIST_MARKER, Skip.IDENTIFIER)], \
        reading.skipped
    numbers = extract_numbers(text)
    assert all(n.value not in (1.0, 2.0, 3.0) or n.unit is not None for n in numbers), numbers


@pytest.mark.parametrize("text", ["Read at 10:36am on Monday.", "as of 9:05 pm", "at 7:15a.m.",
                                  "the 23:59 reading"])
def test_clock_times_are_not_numbers(text):
    assert extract_numbers(text) == [], extract_numbers(text)


@pytest.mark.parametrize("text", ["Source: https://example.org/station/8208/readings?days=7",
                                  "see www.example.gov/api/v2/site/0417",
                                  "(http://10.0.0.1:8080/flow)"])
def test_digits_in_a_web_address_are_not_numbers(text):
    assert extract_numbers(text) == [], extract_numbers(text)


@pytest.mark.parametrize("answer", [
    # counts
    "I made 3 tool calls; the depth is 0.102 mm/d.",
    "After 2 attempts the depth is 0.102 mm/d.",
    "Both of the 2 tools agree: 0.102 mm/d.",
    "3 readings were averaged: 0.102 mm/d.",
    "10 of 12 readings passed QC; depth 0.102 mm/d.",
    "one of the 50 states",
    "It took 1 call to get 0.102 mm/d.",
    # precisions
    "Rounded to 3 significant figures: 0.102 mm/d",
    "Answer (2 d.p.): 0.10 mm/d",
    "0.102 mm/d (3 s.f.)",
    "to 3 decimal places, 0.102 mm/d",
    # periods and intervals
    "The last 7 days averaged 0.102 mm/d.",
    "Over the past 24 hours: 0.102 mm/d.",
    "The 15-minute data give 0.102 mm/d.",
    "a 7-day mean of 0.102 mm/d",
    # uncertainties and probabilities
    "0.102 mm/d within ±5%",
    "0.102 mm/d +/- 10%",
    "At 95% confidence the depth is 0.102 mm/d.",
    "The 1% AEP flood is not in scope; today 0.102 mm/d.",
    # labels
    "Call 2 returned 0.102 mm/d.",
    "attempt 3: 0.102 mm/d",
    "Per section 4.2 of the method, 0.102 mm/d.",
    "Using version 2.1 of the tool: 0.102 mm/d.",
    "Table 3.1: 0.102 mm/d",
    # unit identities in words
    "There are 86,400 seconds in a day, so 0.102 mm/d.",
    "A day has 86 400 s.",
    "With 3600 s per hour and 1000 mm to a metre, 0.102 mm/d.",
    # echoed JSON metadata
    '```json\n{"station": "07374000", "value": 1250, "unit": "cfs", "count": 96}\n```\n0.102 mm/d',
])
def test_numbers_that_are_not_measurements(answer):
    audited(runoff_ledger(), answer)


@pytest.mark.parametrize("answer,literal", [
    ("The depth is 3 mm/d over 2 calls.", "3 mm/d"),          # a count beside a wrong figure
    ("After 2 attempts the depth is 7.5 mm/d.", "7.5"),
    ("The discharge is 900 cfs.", "900"),
    ("There are 100 cm in a foot.", "100"),                      # a false identity
    ("The stage 2.85 m", "2.85"),                               # no label with a unit after it
    ("Call 2 returned 5.5 mm/d.", "5.5"),
    ("3 gauges report 750 cfs.", "750"),
    ("The 7-day mean is 0.5 mm/d.", "0.5"),
    ("The flow rose 300 cfs over the last 7 days.", "300"),
    ("0.102 mm/d at 95% confidence, 15 mm/d at peak", "15"),
])
def test_measurements_beside_them_are_still_read(answer, literal):
    audit = audited(runoff_ledger(), answer, ok=False)
    assert status_of(audit, literal) in ("unsourced", "unit_mislabelled")


def test_a_count_is_not_a_number_with_a_unit():
    # "feet", "cumecs", "litres" are units: never counted
    texts = ["3 feet", "35 cumecs", "400 amps", "12 litres", "45 megalitres", "6 hours"]
    for t in texts:
        assert extract_numbers(t)[0].unit is not None, t
    audit = runoff_ledger().audit_answer("It rose 3 feet.")
    assert not audit.ok


@pytest.mark.parametrize("answer", [a for v in ACCEPTED.values() for a in v])
def test_general_non_measurements_are_not_flagged(answer):
    audited(flow_ledger(), answer)


@pytest.mark.parametrize("answer,literal", [
    # the same surfaces beside a wrong figure: the figure is still read
    ("Data pulled at 14.05 UTC; 0.5 mm/d.", "0.5"),
    ("Tool v1.2.3 returned 3.6 mm/d.", "3.6"),
    ("Status: 503. The depth is 0.5 mm/d.", "0.5"),
    ("My confidence: high. The runoff ratio is 0.5.", "0.5"),
    ("I'm confident the depth is 0.5 mm/d.", "0.5"),
    ("Per (2) above, the depth is 0.5 mm/d.", "0.5"),
    # the same notations as real measurements no tool returned
    ("The depth of water is 3.5 m.", "3.5"),
    ("The flow was 14.05 m³/s.", "14.05"),           # a decimal with a unit, not 14:05
    ("The flow was 1405 cfs.", "1405"),               # four figures, no zone after them
    ("The ratio is 0.9 of the mean.", "0.9"),         # a fraction with no confidence word
    ("It rose (2 m) above the mark.", "2"),          # a bracketed figure with a unit
    ("The area service returned 503 km².", "503"),  # a three-figure number with a unit
    ("The flow, 2 pm³/s, is tiny.", "2"),             # not a clock time: a unit follows
])
def test_the_same_surfaces_as_measurements_stay_flagged(answer, literal):
    flags(flow_ledger(), answer, literal)


def test_skip_reasons_name_the_class():
    reasons = {r for _, r in flow_ledger().audit_answer(
        "Confidence 8/10. Per (2) above, v1.2.3, Status: 503, at 1405Z: 0.102 mm/d.").skipped}
    text = " ".join(reasons)
    for word in ("confidence", "list reference", "HTTP", "time"):
        assert word in text, (word, reasons)


@pytest.mark.parametrize("answer", [a for v in COUNTS_POSITIONS_SCORES.values() for a in v])
def test_counts_positions_scores_and_codes_are_not_flagged(answer):
    audited(flow_ledger(), answer)


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
def test_the_same_shapes_as_counts_and_scores_around_a_claim_stay_flagged(answer, literal):
    flags(flow_ledger(), answer, literal)


@pytest.mark.parametrize("answer", IDENTIFIERS)
def test_identifiers_holding_digits_are_not_flagged(answer):
    audited(flow_ledger(), answer)


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
    flags(flow_ledger(), answer, literal)


def test_identifier_skips_say_what_they_are():
    reasons = " ".join(r for _, r in flow_ledger().audit_answer(
        "Ring 1-303-555-0199. Gauge at 39.12\u00b0N, chainage 3+250, near the I-95; "
        "mistral-7.2-large; [1/2]; a 1-in-50-year event; week 48: 0.102 mm/d.").skipped)
    for word in ("telephone", "position on the earth", "chainage", "name", "step counter",
                 "return period", "label"):
        assert word in reasons, (word, reasons)


@pytest.mark.parametrize("answer", PLACES_AND_CONVENTIONS)
def test_places_calendar_positions_and_precisions(answer):
    audited(flow_ledger(), answer)


@pytest.mark.parametrize("answer,ok", [
    ("On a 100 MVA base the transformer is 0.9 pu, so 393.6 A at 132 kV.", True),
    ("Full-load current 393.6 A (1.00 pu voltage).", True),
    ("On a 100 MVA base the full-load current is 437 A.", False),   # a figure beside the base
    ("Full-load current 393.6 A; the fault level is 2500 MVA.", False),
])
def test_per_unit_values_and_their_base(answer, ok):
    audited(current_ledger(), answer, ok)


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
    flags(flow_ledger(), answer, literal)


@pytest.mark.parametrize("answer", MORE_NON_MEASUREMENTS)
def test_categories_idioms_addresses_and_counts(answer):
    audited(flow_ledger(), answer)


@pytest.mark.parametrize("answer,literal", [
    ("Category 4: the flow is 1700 cfs.", "1700"),
    ("The flow ran at 1700 cfs 24/7.", "1700"),
    ("At 12 Levee Road the flow is 1700 cfs.", "1700"),
    ("1 in 5 gauges report late; the flow is 1700.", "1700"),
    ("The flow is 1 in 5 of the time above 1700 cfs.", "1700"),
    ("Depth 0.5 mm/d (say 8 on a 10-point scale).", "0.5"),
])
def test_figures_beside_categories_idioms_and_counts(answer, literal):
    flags(flow_ledger(), answer, literal)


@pytest.mark.parametrize("answer,ok", [
    ("Depth 0.102 mm/d. (1) Values as the service returned them.", True),
    ("(2) Computed by the tool. Depth 0.102 mm/d.", True),
    ("Depth 0.102 mm/d. (1) The flow was 1700 cfs.", False),
    ("The flow rose (2) Tuesday; depth 0.102 mm/d.", False),   # not opening a sentence
])
def test_a_note_marker_opening_a_sentence(answer, ok):
    audited(flow_ledger(), answer, ok)


@pytest.mark.parametrize("answer", [a for v in MARKERS_COUNTS_FILE_NAMES.values() for a in v])
def test_markers_counts_and_file_names_are_not_flagged(answer):
    audited(flow_ledger(), answer)


@pytest.mark.parametrize("answer,literal", [
    # a wrong figure in the same sentence as the markers is still read
    ("I can also send (1) the hydrograph, (2) a CSV; the depth is 0.5 mm/d.", "0.5"),
    # a lone bracketed number in running text is no marker of a sequence
    ("The flow (2) is as read; depth 0.102 mm/d.", "2"),
    # a bracketed quantity is never a marker
    ("I can send (1) a plot; flow (1700) then.", "1700"),
    # counts beside a wrong measurement
    ("The catchment serves 2,310 households and the depth is 0.5 mm/d.", "0.5"),
    ("This gauge is one of 5 gauges; the flow is 1,400 cfs.", "1,400"),
    # a grouped number with a unit, or before a non-count word, is still a figure
    ("The flow is 1,400 cubic feet per second; depth 0.102 mm/d.", "1,400"),
    ("The flow was 1,400 at noon; depth 0.102 mm/d.", "1,400"),
    ("The depth is 6,000 times the usual; flow 1,250 cfs.", "6,000"),
    # a file name does not hide the figure written beside it
    ("Wrote river_0412.csv with a depth of 0.5 mm/d.", "0.5"),
    # a path needs a file extension: a ratio written with a slash is still read
    ("The flow is 1700/29940 of the area; depth 0.102 mm/d.", "1700"),
])
def test_the_same_shapes_as_markers_and_counts_around_a_claim_stay_flagged(answer, literal):
    flags(flow_ledger(), answer, literal)


def test_a_count_is_read_when_a_tool_returns_counts():
    # the tool returned 2,310 households: "2,310" is sourced, and a wrong count is a wrong
    # tool figure, flagged (counts are only passed over when no tool returns one)
    ledger = counting_ledger()
    assert ledger.audit_answer("The catchment serves 2,310 households; 0.102 mm/d.").ok
    audit = counting_ledger().audit_answer("The catchment serves 2,450 households; 0.102 mm/d.")
    assert ("2,450", "unsourced") in flagged(audit), flagged(audit)
    audit = counting_ledger().audit_answer("The basin holds 4812 wells; 0.102 mm/d.")
    assert ("4812", "unsourced") in flagged(audit), flagged(audit)


def test_the_skips_say_what_they_are():
    audit = flow_ledger().audit_answer(
        "Wrote river_0412_2026-03-14.csv. The basin serves 2,310 households; pick (1) a plot or "
        "(2) a table. Depth 0.102 mm/d.")
    assert audit.ok, flagged(audit)
    reasons = dict(audit.skipped)
    assert reasons["2,310"].code is Skip.COUNT_OF_THINGS, audit.skipped
    assert reasons["2"].code is Skip.LIST_MARKER, audit.skipped
    # the file name's digits are not read as numbers at all
    assert not any(n.text.startswith(("0412", "2026")) for n in
                   (f.number for f in audit.findings)), audit.findings
