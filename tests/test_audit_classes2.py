"""The answer audit on the classes an independent held-out set found (issue 11, second round).

Each rule is tested with phrasings written here (not copied from the held-out set), both the
answers it must accept and those it must still flag:

- a derivation never runs a tool backwards (output combined to land on that call's input);
- an output of a call that ran despite a recorded violation of its inputs is ``tainted``;
- list markers, clock times, web addresses, conversion-table rows, the written value of a
  named constant and feet-and-inches are not separate measurements.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from quantity_guard import Q, datums, quantity_tool, register_station, session
from quantity_guard.audit import extract_numbers


@pytest.fixture(autouse=True)
def clean_datums():
    with datums.isolated():
        yield


def bad(audit):
    return [(f.number.text, f.status) for f in audit.findings if f.status in audit.BAD]


def status_of(audit, literal):
    hits = [f for f in audit.findings if f.number.text.startswith(literal)]
    assert hits, f"{literal!r} not read: {[f.number.text for f in audit.findings]}"
    return hits[0].status


# -- tools: a discharge, an area and a depth rate computed from them ---------------------------
read_discharge = quantity_tool(lambda: 1250.0, returns={"unit": "cfs"}, name="read_discharge")
get_area = quantity_tool(lambda: 29940.0, returns={"unit": "km2"}, name="get_drainage_area")


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
    audit = ledger.audit_answer(answer)
    assert audit.ok, bad(audit)
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
    # round 3: the freeboard itself is computed from that unsupported crest, so it is no
    # source either (Ledger.unsupported_calls): tainted, with the input named
    for answer in ("Freeboard 3.5 ft above the water at 27.5 ft.", "3.50 ft"):
        audit = ledger.audit_answer(answer)
        assert status_of(audit, "3.5") == "tainted", answer
        assert "compute_freeboard.crest" in [f for f in audit.findings
                                             if f.status == "tainted"][0].note


def test_a_ratio_of_two_independent_outputs_is_still_derived():
    # outputs of two different calls, neither an input of the other: the usual derivation
    share = quantity_tool(lambda: 224.6, returns={"unit": "ML/d"}, name="get_river_flow")
    lic = quantity_tool(lambda: 45.0, returns={"unit": "ML/d"}, name="get_licence_rate")
    with session() as ledger:
        share()
        lic()
    for answer in ("The share is 20.04 %.", "45 / 224.6 = 0.2004", "about 20 % of the flow"):
        assert ledger.audit_answer(answer).ok, answer


# -- outputs of a call that ran with a recorded violation are tainted -----------------------------
def carry_over_ledger():
    """The transformer call got 90 and 132 bare after 90 MVA and 132 kV were read: the
    boundary (warn mode) recorded an unconverted carry-over, and the call ran anyway."""
    rating = quantity_tool(lambda: 90.0, returns={"unit": "MVA"}, name="get_transformer_rating")
    volts = quantity_tool(lambda: 132.0, returns={"unit": "kV"}, name="get_bus_voltage")
    current = quantity_tool(lambda s, v: s.to("VA").magnitude / (3 ** 0.5 * v.to("V").magnitude),
                            params={"s": {"unit": "VA"}, "v": {"unit": "V"}},
                            returns={"unit": "A"}, name="full_load_current", enforcement="warn")
    with session() as ledger:
        rating()
        volts()
        current(s=90, v=132)
    return ledger


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
    assert "violation" in f[0].note and "full_load_current" in f[0].note
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
    # strict mode: the call never ran, no output, no taint, nothing new in the audit
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
    assert ledger.audit_answer("90 MVA").ok


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
    assert [s for s in reading.skipped if s[1] in ("a list marker", "an identifier (a station, site, "
                                                 "code or standard number)")], reading.skipped
    numbers = extract_numbers(text)
    assert all(n.value not in (1.0, 2.0, 3.0) or n.unit is not None for n in numbers), numbers


@pytest.mark.parametrize("text", ["the depth (2 m) is", "multiply by (2) 5 m", "x 2) 3",
                                  "ratio 1.5) then"])
def test_bracketed_quantities_are_still_read(text):
    assert extract_numbers(text), text


@pytest.mark.parametrize("text", ["Read at 10:36am on Monday.", "as of 9:05 pm", "at 7:15a.m.",
                                  "the 23:59 reading"])
def test_clock_times_are_not_numbers(text):
    assert extract_numbers(text) == [], extract_numbers(text)


@pytest.mark.parametrize("text", ["Source: https://example.org/station/8208/readings?days=7",
                                  "see www.example.gov/api/v2/site/0417",
                                  "(http://10.0.0.1:8080/flow)"])
def test_digits_in_a_web_address_are_not_numbers(text):
    assert extract_numbers(text) == [], extract_numbers(text)


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


def session_with_nothing():
    with session() as ledger:
        quantity_tool(lambda: 1.0, returns={"unit": "m"}, name="noop")()
    return ledger


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


@pytest.mark.parametrize("text,feet", [
    ("about 4 ft 0.7 in", 4 + 0.7 / 12),
    ("5 feet 3 inches", 5.25),
    ("6 ft and 9 in", 6.75),
    ("4 ft 0.7″", 4 + 0.7 / 12),
])
def test_feet_and_inches_are_one_length(text, feet):
    nums = extract_numbers(text)
    assert len(nums) == 1 and nums[0].unit.symbol == "ft", nums
    assert abs(nums[0].value - feet) < 1e-9


def test_feet_and_inches_are_audited_as_one_length():
    with session() as ledger:
        quantity_tool(lambda: 4.06, returns={"unit": "ft"}, name="compute_freeboard")()
    assert ledger.audit_answer("Freeboard 4.06 ft (about 4 ft 0.7 in).").ok
    assert not ledger.audit_answer("Freeboard about 4 ft 9 in.").ok  # 4.75 ft


def test_station_ids_in_call_arguments_are_case_blind():
    register_station("E21136", Q(6.3, "m", datum="ODN"), prefix="GAUGE")
    with session() as ledger:
        quantity_tool(lambda station_id: 2.85, returns={"unit": "m", "datum": "GAUGE:E21136"},
                      name="get_river_level")(station_id="e21136")
        quantity_tool(lambda station_id: 9.4, returns={"unit": "m", "datum": "ODN"},
                      name="get_warning_threshold")(station_id="e21136")
        quantity_tool(lambda station_id: 6.3, returns={"unit": "m"},
                      name="get_station_datum")(station_id="e21136")
    assert ledger.audit_answer("Level 2.85 + 6.30 = 9.15 m AOD; margin 0.25 m.").ok
    assert not ledger.audit_answer("9.4 - 2.85 = 6.55 m").ok


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789 .:()|*#-ftinamp√=≈\n/w")), max_size=60))
def test_the_new_readers_never_raise(text):
    carry_over_ledger().audit_answer(text)


# -- a polyphase system: S = √3 V I, so S / V is not a line current ---------------------------------
def transformer_ledger():
    rating = quantity_tool(lambda: 45.0, returns={"unit": "MVA"}, name="get_rating")
    volts = quantity_tool(lambda: 110.0, returns={"unit": "kV"}, name="get_voltage")
    with session() as ledger:
        rating()
        volts()
    return ledger


@pytest.mark.parametrize("question", [
    "What is the full-load line current of the transformer?",
    "Give the three-phase full-load current.",
    "For this 3-phase unit, what current flows at rated load?",
    "Rated current on the 110 kV line-to-line winding?",
])
def test_a_polyphase_current_without_root3_is_not_derived(question):
    ledger = transformer_ledger()
    for answer in ("I = S / V = 45 MVA / 110 kV = 409.1 A", "The current is 409 A.",
                   "409.09 A"):
        audit = ledger.audit_answer(answer, context=question)
        assert not audit.ok, (question, answer, audit.findings)
    for answer in ("I = S / (√3 V) = 45 MVA / (√3 × 110 kV) = 236.2 A", "The current is 236 A.",
                   "236.19 A"):
        audit = ledger.audit_answer(answer, context=question)
        assert audit.ok, (question, answer, bad(audit))


def test_without_a_polyphase_word_both_relations_stand():
    ledger = transformer_ledger()
    for answer in ("The current is 409 A.", "The current is 236 A."):
        assert ledger.audit_answer(answer, context="What current flows at rated load?").ok
    # a three-phase word in the answer itself decides too
    assert not ledger.audit_answer("Three-phase, so the current is 409 A.").ok


def test_a_ratio_of_two_apparent_powers_is_unaffected_by_polyphase():
    rating = quantity_tool(lambda: 45.0, returns={"unit": "MVA"}, name="get_rating")
    load = quantity_tool(lambda: 30.0, returns={"unit": "MVA"}, name="get_load")
    with session() as ledger:
        rating()
        load()
    assert ledger.audit_answer("The three-phase transformer is loaded to 66.7 %.").ok


# -- a direction in words against a tool that names its direction --------------------------------
def margin_ledger(value):
    with session() as ledger:
        quantity_tool(lambda: value, returns={"unit": "m"}, name="level_below_threshold")()
        quantity_tool(lambda: 1.8, returns={"unit": "m"}, name="depth")()
    return ledger


@pytest.mark.parametrize("answer", [
    "The river is 0.25 m above the threshold.",
    "It sits 0.25 m higher than the warning level.",
    "Level exceeds the threshold: 0.25 m in excess of it.",
])
def test_the_opposite_direction_in_words_is_flagged(answer):
    audit = margin_ledger(0.25).audit_answer(answer)
    assert not audit.ok, audit.findings
    assert "direction" in [f for f in audit.findings if f.status == "unsourced"][0].note


@pytest.mark.parametrize("answer", [
    "The river is 0.25 m below the threshold.",
    "0.25 m short of the warning level",
    "Margin: 0.25 m.",
    "The depth is 1.8 m above the bed.",  # a tool that names no direction: not checked
])
def test_the_stated_direction_is_accepted(answer):
    assert margin_ledger(0.25).audit_answer(answer).ok, answer


def test_a_negative_output_of_a_directed_tool_means_the_other_way():
    ledger = margin_ledger(-0.4)
    assert ledger.audit_answer("The level is 0.4 m above the threshold.").ok
    assert not ledger.audit_answer("The level is 0.4 m below the threshold.").ok


# -- the working in brackets after the result, and one unit written in another ------------------
@pytest.mark.parametrize("answer,ok", [
    ("Daily volume 3,059,000 m³ (35.40 m³/s × 86,400 s)", True),
    ("That is 3.06 million m3 (35.4 m3/s x 86 400 s) a day.", True),
    ("Per hour: 127,440 m3 (35.40 m3/s * 3600 s)", True),
    ("In a day 3.06e6 m3 (1250 cfs × 86,400 s)", True),
    ("| Daily | **3,059,000 m³** (35.40 m³/s × 86,400 s) |", True),
    ("Daily volume 4,000,000 m³ (35.4 m³/s × 86,400 s)", False),   # the arithmetic is wrong
    ("Daily volume 3,058,000 m³ (32.4 m³/s × 86,400 s)", False),   # an operand is wrong
    ("A volume of 5000 L", False),                                   # not one unit, no operator
])
def test_a_bracketed_working_after_its_result(answer, ok):
    with session() as ledger:
        read_discharge()
    audit = ledger.audit_answer(answer)
    assert audit.ok is ok, (answer, audit.findings)


# -- a round whole number stated flat is not a one-significant-figure rounding -------------------
@pytest.mark.parametrize("answer,ok", [
    ("The current is about 400 A.", True),
    ("I ≈ 400 A", True),
    ("roughly 400 amperes", True),
    ("~400 A at full load", True),
    ("The current is 393.6 A, within the 400 A rating.", False),
    ("Full-load current: 400 A.", True),   # alone: a one-figure rounding (round 3, item 3)
    ("It is 380 A.", False),   # two figures: 375..385 does not cover 393.6
    ("It is 390 A.", True),    # two figures: 385..395 covers 393.6
])
def test_a_flat_round_number_is_not_a_coarse_rounding(answer, ok):
    with session() as ledger:
        quantity_tool(lambda: 393.6, returns={"unit": "A"}, name="full_load_current")()
    assert ledger.audit_answer(answer).ok is ok, answer
