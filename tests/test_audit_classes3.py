"""The answer audit on what sparse real answers carry (issue 11, third round).

Each class is tested with several phrasings written here, on both sides: the answers it must
accept and those it must still flag.

- a figure the answer presents as the attempt it gave up (a tainted output, or the refused
  input of a call), with the figure that replaces it, is ``discarded``, not a false alarm; a
  tainted figure stated as the result stays ``tainted``;
- a direction in words is read with the sentence's subject: "the threshold is 0.25 m above the
  level" states the same as "the level is 0.25 m below the threshold";
- a one-significant-figure number stated flat is a rounding (half its last place, at most 10%),
  unless the answer writes the precise figure beside it (then it is a separate claim);
- counts, precisions, periods, uncertainties, probabilities, labels and unit identities in
  words are not measurements.
"""
from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings, strategies as st

from quantity_guard import datums, quantity_tool, session
from quantity_guard.audit import extract_numbers


@pytest.fixture(autouse=True)
def clean_datums():
    with datums.isolated():
        yield


def statuses(audit):
    return [(f.number.text, f.status) for f in audit.findings]


def status_of(audit, literal):
    hits = [f for f in audit.findings if f.number.text.startswith(literal)]
    assert hits, f"{literal!r} not read: {[f.number.text for f in audit.findings]}"
    return hits[0].status


# -- 1. a discarded attempt -------------------------------------------------------------------
read_discharge = quantity_tool(lambda: 1250.0, returns={"unit": "cfs"}, name="read_discharge")
get_area = quantity_tool(lambda: 29940.0, returns={"unit": "km2"}, name="get_drainage_area")


def depth_tool(enforcement):
    return quantity_tool(
        lambda discharge, area: discharge.to("m3/s").magnitude / area.to("m2").magnitude
        * 86400 * 1000,
        params={"discharge": {"unit": "m3/s", "sourced": True},
                "area": {"unit": "km2", "sourced": True}},
        returns={"unit": "mm/d"}, name="runoff_depth", enforcement=enforcement)


def retried_ledger(enforcement="warn"):
    """read 1250 cfs and 29,940 km2; runoff_depth first called with a bare 1250 (an
    unconverted carry-over: in warn mode it runs and returns 3.607 mm/d), then again with
    35.396 m3/s (0.1021 mm/d)."""
    with session() as ledger, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        read_discharge()
        get_area()
        try:
            depth_tool(enforcement)(discharge=1250, area=29940)
        except Exception:  # noqa: BLE001 - strict mode refuses it: the point of the test
            pass
        depth_tool(enforcement)(discharge="35.396 m3/s", area=29940)
    assert ledger.violations
    return ledger


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


@pytest.mark.parametrize("answer", DISCARDED_OUTPUT)
def test_a_tainted_output_presented_as_the_discarded_attempt_is_no_false_alarm(answer):
    audit = retried_ledger().audit_answer(answer)
    assert audit.ok, statuses(audit)
    d = [f for f in audit.findings if f.status == "discarded"]
    assert d and d[0].number.value == pytest.approx(3.61, abs=0.01), statuses(audit)
    assert "runoff_depth" not in d[0].note or "refused" in d[0].note
    assert "in its place" in d[0].note


@pytest.mark.parametrize("answer", [
    "The runoff depth is 3.61 mm/d.",                                   # stated as the result
    "FINAL ANSWER: 3.607 mm/d",
    "Although the first attempt failed, the runoff is 3.61 mm/d.",      # nothing replaces it
    "The first call returned 3.61 mm/d, which was wrong. FINAL ANSWER: 3.61 mm/d",
    "The corrected runoff depth is 3.61 mm/d.",                          # no discard words
    "Runoff: 3.61 mm/d (0.102 mm/d on the retry).",                      # bracket on the other
])
def test_a_tainted_figure_stated_as_the_result_stays_flagged(answer):
    audit = retried_ledger().audit_answer(answer)
    assert not audit.ok, statuses(audit)
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
    audit = retried_ledger(enforcement).audit_answer(answer)
    assert audit.ok, statuses(audit)
    assert status_of(audit, "1") == "discarded"


@pytest.mark.parametrize("answer", [
    "The discharge is 1250 m3/s and the depth is 0.102 mm/d.",   # the bad input as a claim
    "Initially the flow is 1250 m3/s.",                            # words, nothing replacing it
])
def test_the_refused_input_as_a_claim_stays_flagged(answer):
    audit = retried_ledger().audit_answer(answer)
    assert not audit.ok, statuses(audit)


def test_discard_words_do_not_excuse_an_invented_figure():
    # only a figure the ledger knows as a bad call's input or tainted output is discarded on
    # the loose words of an attempt ("my first attempt gave"); round 5 (audit5): a figure the
    # answer explicitly withdraws ("which was wrong") with a replacement is discarded whatever
    # its source (tests/test_audit_classes5.py::test_figures_the_answer_withdraws)
    audit = retried_ledger().audit_answer(
        "My first attempt gave 7.5 mm/d; the depth is 0.102 mm/d.")
    assert not audit.ok
    assert status_of(audit, "7.5") == "unsourced"
    audit = retried_ledger().audit_answer(
        "My first attempt gave 7.5 mm/d, which was wrong; the depth is 0.102 mm/d.")
    assert audit.ok and status_of(audit, "7.5") == "discarded"


def test_a_clean_ledger_has_nothing_to_discard():
    with session() as ledger:
        read_discharge()
    audit = ledger.audit_answer("My first attempt gave 35.4 cfs; 1250 cfs.")
    assert not audit.ok and status_of(audit, "35.4") == "unit_mislabelled"


# -- 2. a direction in words, either way round -----------------------------------------------
def margin_ledger(value, name="level_below_threshold"):
    with session() as ledger:
        quantity_tool(lambda: value, returns={"unit": "m"}, name=name)()
    return ledger


@pytest.mark.parametrize("answer", [
    "The level is 0.25 m below the threshold.",
    "The threshold is 0.25 m above the level.",
    "The warning threshold sits 0.25 m higher than the river level.",
    "The warning level is 0.25 m above the river.",
    "The alarm level is 0.25 m over the current river level.",
    "Flood warning threshold: 0.25 m above the latest level.",
    "The river is 0.25 m short of the warning threshold.",
    "The threshold lies 0.25 m above where the level is now.",
])
def test_a_direction_stated_either_way_round_is_accepted(answer):
    audit = margin_ledger(0.25).audit_answer(answer)
    assert audit.ok, (answer, statuses(audit))


@pytest.mark.parametrize("answer", [
    "The level is 0.25 m above the threshold.",
    "The threshold is 0.25 m below the level.",
    "The river is 0.25 m higher than the warning level.",
    "The warning threshold is 0.25 m lower than the river level.",
    "It sits 0.25 m above the alarm threshold.",
    "The river, at E21136, is 0.25 m above its threshold.",
])
def test_a_truly_reversed_direction_is_still_flagged(answer):
    audit = margin_ledger(0.25).audit_answer(answer)
    assert not audit.ok, (answer, statuses(audit))
    assert "direction is reversed" in audit.findings[0].note


def test_a_negative_output_reads_both_ways_round_too():
    ledger = margin_ledger(-0.4)   # the level is 0.4 m above the threshold
    assert ledger.audit_answer("The level is 0.4 m above the threshold.").ok
    assert ledger.audit_answer("The threshold is 0.4 m below the level.").ok
    assert not ledger.audit_answer("The threshold is 0.4 m above the level.").ok
    assert not ledger.audit_answer("The level is 0.4 m below the threshold.").ok


@pytest.mark.parametrize("name,ok_answer,bad_answer", [
    ("headroom_below_limit", "The limit is 12 m above the load point.",
     "The load point is 12 m above the limit."),
    ("water_below_crest", "The crest is 12 m above the water.",
     "The water is 12 m above the crest."),
    ("load_over_rating", "The rating is 12 m below the load.",
     "The rating is 12 m above the load."),
])
def test_other_directed_tools_read_with_their_subject(name, ok_answer, bad_answer):
    ledger = margin_ledger(12.0, name)
    assert ledger.audit_answer(ok_answer).ok, ok_answer
    assert not ledger.audit_answer(bad_answer).ok, bad_answer


# -- 3. a one-significant-figure rounding -------------------------------------------------------
def one_ledger(value, unit, name="compute"):
    with session() as ledger:
        quantity_tool(lambda: value, returns={"unit": unit}, name=name)()
    return ledger


@pytest.mark.parametrize("value,unit,answer", [
    (393.6, "A", "The full-load current is 400 A."),
    (393.6, "A", "FINAL ANSWER: 400 A"),
    (393.6, "A", "I = 400 A"),
    (0.38, "m", "The margin is 0.4 m."),
    (0.38, "m", "FINAL ANSWER: 0.4 m"),
    (0.102, "mm/d", "Runoff: 0.1 mm/d"),
    (5.3, "d", "The storage lasts 5 days."),
    (20.03, "%", "It takes 20% of the flow."),
    (8.4, "MW", "Load is 8 MW."),
    (393.6, "A", "393.6 A (400 A)"),                 # a restatement in brackets
    (393.6, "A", "393.6 A, or about 400 A"),
    (393.6, "A", "393.6 A, i.e. 400 A"),
    (393.6, "A", "I estimate 390-400 A (point value 394 A)."),   # a range end
    # the precise figure and its rounding said again (not named as a rating or limit)
    (4.06, "ft", "The freeboard is 4.060 ft. That leaves 4 ft."),
    (4.06, "ft", "Freeboard 4.06 ft. In round numbers: 4 ft of freeboard."),
    (1.0717, "%", "It would take 1.072% of the river. Call it 1% of the river."),
    (8.4, "MW", "8.4 MW on a 8 MW feeder"),
])
def test_a_flat_one_figure_rounding_is_accepted(value, unit, answer):
    audit = one_ledger(value, unit).audit_answer(answer)
    assert audit.ok, (answer, statuses(audit))


@pytest.mark.parametrize("value,unit,answer", [
    (1250.0, "cfs", "The discharge is 1000 cfs."),      # 20% off: the cap holds
    (1250.0, "cfs", "about 1000 cfs"),
    (234000.0, "cfs", "Discharge: 200000 cfs"),
    (0.38, "m", "The margin is 0.3 m."),
    (393.6, "A", "The current is 300 A."),
    (393.6, "A", "The full-load current is 393.6 A, within the 400 A rating."),  # beside it
    (393.6, "A", "I = 393.6 A. The bushings are rated 400 A."),
    (0.38, "m", "The margin is 0.38 m against a 0.4 m allowance."),
    (8.4, "MW", "8.4 MW against an 8 MW limit"),
    (8.4, "MW", "The load is 8.4 MW; the feeder is rated 8 MW."),
])
def test_a_one_figure_number_that_is_no_rounding_is_flagged(value, unit, answer):
    audit = one_ledger(value, unit).audit_answer(answer)
    assert not audit.ok, (answer, statuses(audit))


def two_outputs():
    with session() as ledger:
        quantity_tool(lambda: 27.5, returns={"unit": "ft"}, name="water_surface")()
        quantity_tool(lambda: 31.56, returns={"unit": "ft"}, name="levee_crest")()
    return ledger   # crest - water = 4.06 ft, computed by hand


@pytest.mark.parametrize("answer,ok", [
    ("The freeboard is about 4 ft.", True),      # a hedged rounding of a derivation
    ("Freeboard ≈ 4 ft", True),
    ("The freeboard is 4.06 ft.", True),
    ("The freeboard is 4.1 ft.", True),
    ("The freeboard is 4 ft.", False),           # flat: a derivation is read to its next place
    ("The crest is 30 ft.", True),               # flat, but the rounding of a recorded output
    ("The crest is 40 ft.", False),
])
def test_a_flat_one_figure_derivation_is_read_to_its_next_place(answer, ok):
    assert two_outputs().audit_answer(answer).ok is ok, answer


def test_a_separate_flat_figure_says_why():
    audit = one_ledger(393.6, "A").audit_answer("393.6 A, within the 400 A rating.")
    f = [f for f in audit.findings if f.status == "unsourced"][0]
    assert f.number.text == "400 A" and "393.6 A" in f.note and "rounding" in f.note


def test_a_flat_figure_that_is_recorded_itself_stays_sourced():
    with session() as ledger:
        quantity_tool(lambda: 393.6, returns={"unit": "A"}, name="full_load_current")()
        quantity_tool(lambda: 400.0, returns={"unit": "A"}, name="get_bushing_rating")()
    assert ledger.audit_answer("393.6 A, within the 400 A rating.").ok


def test_question_numbers_keep_their_reading():
    # extract_numbers reads a question or an argument: a flat round number there is read to
    # the tens of its second figure (the grader's FINAL ANSWER line too), and counts,
    # periods and labels are all numbers the question states
    (n,) = extract_numbers("FINAL ANSWER: 400 A")
    assert n.tolerance == 5.0
    assert [x.value for x in extract_numbers("the last 7 days, 3 readings, call 2")] == \
        [7.0, 3.0, 2.0]


# -- 4. numbers that are not measurements ------------------------------------------------------
def runoff_ledger():
    with session() as ledger:
        read_discharge()
        get_area()
        quantity_tool(lambda: 0.102, returns={"unit": "mm/d"}, name="runoff_depth")()
    return ledger


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
    audit = runoff_ledger().audit_answer(answer)
    assert audit.ok, (answer, statuses(audit), audit.skipped)


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
    audit = runoff_ledger().audit_answer(answer)
    assert not audit.ok, (answer, statuses(audit))
    assert status_of(audit, literal) in ("unsourced", "unit_mislabelled")


def test_a_count_is_not_a_number_with_a_unit():
    # "feet", "cumecs", "litres" are units: never counted
    texts = ["3 feet", "35 cumecs", "400 amps", "12 litres", "45 megalitres", "6 hours"]
    for t in texts:
        assert extract_numbers(t)[0].unit is not None, t
    audit = runoff_ledger().audit_answer("It rose 3 feet.")
    assert not audit.ok


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([
    "3 ", "tool ", "calls ", "of ", "12 ", "readings ", "±", "5%", "+/- ", "95% ", "confidence ",
    "the last ", "7 days ", "15-minute ", "Call 2 ", "version 2.1 ", "(2 d.p.) ", "in a day ",
    "86,400 s ", "a day has ", "first call ", "wrong ", "3.61 mm/d ", "0.102 mm/d ", "400 A ",
    "393.6 A ", "above the ", "threshold ", "level ", "below ", "0.25 m ", "; ", ". ", "\n",
    "(", ")", "-", "1250 m3/s ", "instead of ", "retry ",
]), max_size=25))
def test_the_new_readers_never_raise(parts):
    text = "".join(parts)
    ledger = retried_ledger()
    audit = ledger.audit_answer(text)
    for f in audit.findings:
        assert text[f.number.start:f.number.end] == f.number.text
        assert isinstance(f.note, str)
    margin_ledger(0.25).audit_answer(text)


# -- classes found on the third held-out set (phrasings written here) --------------------------
def share_ledger():
    with session() as ledger:
        quantity_tool(lambda: 45.0, returns={"unit": "ML/d"}, name="get_licence_rate")()
        quantity_tool(lambda: 48.6, returns={"unit": "m3/s"}, name="get_river_flow")()
        quantity_tool(lambda: 1.0717, returns={"unit": "%"}, name="abstraction_share")()
    return ledger


@pytest.mark.parametrize("answer,ok", [
    # decimal commas, when the answer writes them
    ("The licence would take 1,0717 % of the flow; the river runs at 48,6 m³/s.", True),
    ("Share: 1,07 %. Flow 48,60 m3/s. FINAL ANSWER: 1,072 %", True),
    ("Share: 1,07 %. Flow 46,60 m3/s.", False),
    # the complement of a share
    ("It takes 1.07% and leaves 98.93% of the flow in the river.", True),
    ("It takes 1.07% and leaves 97.9% of the flow in the river.", False),
    # amounts per year or month from a daily rate
    ("45 Ml/d. Annual volume at the full rate: roughly 16,400 megalitres.", True),
    ("45 Ml/d, about 1,350 Ml over a 30-day month.", True),
    ("45 Ml/d, about 1,600 Ml over a 30-day month.", False),
    # background knowledge of a dimension no tool returns
    ("1.07%. Abstraction licences are typically reviewed every 6 years.", True),
    ("1.07%. Licensed rates are usually 45 Ml/d or less.", True),   # 45 Ml/d is recorded
    ("1.07%. The flow is usually 52 m3/s.", False),                   # a tool's dimension
    # a share written as odds
    ("1.07%: nearly 99 of every 100 litres stay in the river.", True),
    ("A share of 1.07% (roughly 1 in 93 litres).", True),
    ("Nearly 90 of every 100 litres stay in the river.", False),
    ("Roughly 1 in 60 litres is taken.", False),
    ("Over a year the licence allows about 16,425 Ml.", True),       # the recorded rate
])
def test_share_answers(answer, ok):
    audit = share_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, statuses(audit))


def level_ledger():
    from quantity_guard import Q, register_station
    register_station("E21136", Q(6.3, "m", datum="ODN"), prefix="GAUGE")
    with session() as ledger:
        quantity_tool(lambda station_id: 2.85, returns={"unit": "m", "datum": "GAUGE:E21136"},
                      name="get_river_level")(station_id="E21136")
        quantity_tool(lambda station_id: 9.4, returns={"unit": "m", "datum": "ODN"},
                      name="get_warning_threshold")(station_id="E21136")
        quantity_tool(lambda station_id: 6.3, returns={"unit": "m"},
                      name="get_station_datum")(station_id="E21136")
    return ledger


@pytest.mark.parametrize("answer,ok", [
    ("Station datum: 6.30 m AOD.", True),          # the gauge zero's elevation on ODN
    ("The gauge zero sits at 6.3 mAOD.", True),
    ("Station datum: 6.30 m (NAVD88).", False),     # not the datum it is measured from
    ("Station datum: 6.90 m AOD.", False),
])
def test_a_station_datum_height_written_on_its_reference(answer, ok):
    audit = level_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, statuses(audit))


def flow_ledger():
    with session() as ledger:
        read_discharge()
        get_area()
        quantity_tool(lambda: 0.10214476953907817, returns={"unit": "mm/d"},
                      name="runoff_depth")()
    return ledger


@pytest.mark.parametrize("answer,ok", [
    # truncated copies (four figures or more), not rounded
    ("In SI the flow is 35.39 m³/s.", True),
    ("The depth is 0.10214 mm/d.", True),
    ("In SI the flow is 35.38 m³/s.", False),
    ("0.102 mm/d. 1 cfs is about 2.8% of a cubic metre per second.", True),
    ("0.102 mm/d. 1 cfs is about 5% of a cubic metre per second.", False),
    ("Over the area that is 29,939 km².", False),   # truncation is downward only
    # citations, footnotes, codes, compound adjectives, HTTP codes, confidence
    ("0.102 mm/d [1]. Sources: the data service [1] and the site inventory [2].", True),
    ("0.102 mm/d.[^1] (See note 2 on the data.) Ref. 3: the site service.", True),
    ("A 5xx error (503) came back from the area service; 0.102 mm/d.", True),
    ("I'm about 95% confident in 0.102 mm/d. Confidence: high (90%+).", True),
    ("A 2-step calculation gives 0.102 mm/d.", True),
    ("I tried the lookup 2 times; 0.102 mm/d.", True),
    ("The flow was 3 times the mean.", False),      # a ratio, not a count
    # hypothetical figures: what a mistake would have given, a what-if
    ("0.102 mm/d. Had the 1,250 been read as m³/s, it would have been 3.6 mm/d.", True),
    ("0.102 mm/d. (Without the cfs conversion you would get 3.61 mm/d, which is wrong.)", True),
    ("The depth would be 3.61 mm/d.", False),      # a modal alone: a claim
    ("If the flow rose 10%, the depth would be about 0.112 mm/d. Today: 0.102 mm/d.", True),
    ("If the flow rose 10%, the depth would be about 0.150 mm/d. Today: 0.102 mm/d.", False),
    ("If the flow follows its usual peak of 2,000 cfs the depth would be higher. 0.102 mm/d",
     False),                                       # a premise stated as a fact
    # amounts per period
    ("0.1021 mm/d. Annualised: about 37 mm/yr.", True),
    ("0.1021 mm/d, about 3.1 mm a month.", True),
    ("0.1021 mm/d, about 5.1 mm a month.", False),
    # durations no tool returns
    ("The service updates every 15 minutes; 0.102 mm/d.", True),
])
def test_runoff_answers(answer, ok):
    audit = flow_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, statuses(audit))


@pytest.mark.parametrize("answer,ok", [
    ("That is 4'0.7\" of freeboard.", True),
    ("Some 48¾ inches of freeboard.", True),
    ("That is 48.72 in. About 49 in of freeboard.", True),
    ("About 4 ft 3/4 in.", True),
    ("About 4 ft 1/4 in.", False),
    ("That is 4'3\" of freeboard.", False),
    ("Some 52¾ inches of freeboard.", False),
])
def test_feet_and_inches_notations(answer, ok):
    with session() as ledger:
        quantity_tool(lambda: 4.06, returns={"unit": "ft"}, name="compute_freeboard")()
    audit = ledger.audit_answer(answer)
    assert audit.ok is ok, (answer, statuses(audit))


def test_an_output_computed_from_an_unsupported_input_is_tainted():
    # a factor slip passed to a tool that declares no sourced check: 3.5396 m3/s is no
    # conversion of the 1250 cfs read, so the depth computed from it is no source
    tool = quantity_tool(
        lambda discharge, area: discharge.to("m3/s").magnitude / area.to("m2").magnitude
        * 86400 * 1000,
        params={"discharge": {"unit": "m3/s"}, "area": {"unit": "km2"}},
        returns={"unit": "mm/d"}, name="runoff_depth")
    with session() as ledger:
        read_discharge()
        get_area()
        slipped = tool(discharge={"value": 3.5396, "unit": "m3/s"}, area=29940)
    assert not ledger.violations
    audit = ledger.audit_answer(f"The depth is {slipped.magnitude:.4f} mm/d.")
    assert [f.status for f in audit.findings] == ["tainted"]
    assert "runoff_depth.discharge" in audit.findings[0].note
    with session() as good:
        read_discharge()
        get_area()
        depth = tool(discharge={"value": 35.396, "unit": "m3/s"}, area=29940)   # converted
        tool(discharge="1250 cfs", area=29940)                                 # with its unit
    assert not good.unsupported_calls()
    assert good.audit_answer(f"The depth is {depth.magnitude:.4f} mm/d.").ok


@pytest.mark.parametrize("answer,ok", [
    ("50,400 kWh. Per day at this load: about 201.6 MWh.", True),
    ("50,400 kWh. Each hour adds 8,400 kWh.", True),
    ("50,400 kWh. Over a year at this load it would be about 73.6 GWh.", True),
    ("50,400 kWh. Per day at this load: about 300 MWh.", False),
    ("Per hour that is 8,400 kWh. Over a year at this load it would be about 73.6 GWh.", True),
    ("50,400 kWh. (Treating 8.4 as kW would give 50.4 kWh, a thousand times too little.)", True),
    ("50,400 kWh. Treating 8.4 as kW gives 50.4 kWh.", False),   # no modal: a claim
    ("50,400 kWh. A 5% rise in load would give about 52,920 kWh.", True),
    ("50,400 kWh. A 5% rise in load would give about 60,000 kWh.", False),
    ("50,400 kWh. Over a full 24 hours it would be 201,600 kWh.", True),
    ("50,400 kWh. If the load follows its usual evening peak of 9.1 MW, it would be higher.",
     False),
])
def test_energy_answers(answer, ok):
    question = "How much energy, in kWh, will feeder F-207 deliver over the next 6 hours?"
    with session(context=question) as ledger:
        quantity_tool(lambda: 8.4, returns={"unit": "MW"}, name="get_feeder_load")()
        quantity_tool(lambda: 50400.0, returns={"unit": "kWh"}, name="energy_delivered")()
    audit = ledger.audit_answer(answer, context=question)
    assert audit.ok is ok, (answer, statuses(audit))


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


def test_a_conversion_with_a_rounded_factor_is_supported():
    # 1250 x 0.0283 = 35.375 m3/s (0.06% from 35.396): a rounded factor, not a slip
    tool = quantity_tool(lambda discharge: discharge.to("m3/s").magnitude * 2.0,
                         params={"discharge": {"unit": "m3/s"}}, returns={"unit": "m3/s"},
                         name="double_it")
    with session() as ledger:
        read_discharge()
        out = tool(discharge={"value": 35.375, "unit": "m3/s"})
    assert not ledger.unsupported_calls()
    assert ledger.audit_answer(f"{out.magnitude:.2f} m3/s").ok


@pytest.mark.parametrize("answer,ok", [
    ("The current is 393 A.", True),     # 393.648 with its digits cut
    ("The current is 392 A.", False),
    ("The current is 394 A.", True),     # rounded
    ("The current is 395 A.", False),
])
def test_a_whole_number_truncated_from_a_recorded_value(answer, ok):
    with session() as ledger:
        quantity_tool(lambda: 393.648, returns={"unit": "A"}, name="full_load_current")()
    assert ledger.audit_answer(answer).ok is ok, answer


@pytest.mark.parametrize("answer,ok", [
    ("0.102 mm/d. Certainty: 99% (values come straight from the tools).", True),
    ("0.102 mm/d. I'd put this at 9/10 confidence.", True),
    ("Area unavailable: HTTP/1.1 503 Service Unavailable.", True),
    ("0.102 mm/d. As noted in point 2 above, the units were checked.", True),
    ("0.102 mm/d (tool API 3, library 0.4).", True),
    ("0.102 mm/d. Pulled at 14h05.", True),
    ("0.102 mm/d, worth about £7,560 at £0.15 per unit.", True),
    ("About 3,058,000 m³ flow past the gauge each day.", True),
    ("About 3,500,000 m³ flow past the gauge each day.", False),
    ("That is roughly 3 mm per 30 days.", True),
    ("That is roughly 5 mm per 30 days.", False),
    ("Losses of 3-4% are normal on schemes like this; 0.102 mm/d.", True),
    ("V = 132 kV", False),                       # no identifier: a voltage nobody recorded
])
def test_fresh_runoff_answers(answer, ok):
    audit = flow_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, statuses(audit))


@pytest.mark.parametrize("answer,ok", [
    ("That is 1.07 \u2030 of the current flow.", False),   # per mille for a percentage
    ("FINAL ANSWER: 1.072 \u2030", False),
    ("It is 10.7 \u2030 of the flow.", True),
    ("It is 10.72 per mille of the flow.", True),
])
def test_per_mille(answer, ok):
    audit = share_ledger().audit_answer(answer)
    assert audit.ok is ok, (answer, statuses(audit))


@pytest.mark.parametrize("answer,ok", [
    ("The current is 393.6 A. At half load it would be about 197 A.", True),
    ("The current is 393.6 A. At half load it would be about 250 A.", False),
    ("The current is 393.6 A. At double the load it would be about 787 A.", True),
])
def test_a_what_if_in_words(answer, ok):
    with session() as ledger:
        quantity_tool(lambda: 393.648, returns={"unit": "A"}, name="full_load_current")()
    assert ledger.audit_answer(answer).ok is ok, answer
