"""Signs and directions: a sign flipped, a direction stated the wrong way round, a negative
output of a directed tool.
"""
from __future__ import annotations

import pytest

from quantity_guard.audit.codes import Reason
from audit_helpers import VERTCON, audited, directed_ledger, energy_ledger, flow_ledger, ledger_of


# -- 3. magnitudes of negative outputs -------------------------------------------------------------
# -- a direction in words against a tool that names its direction --------------------------------
def margin_ledger(value):
    return ledger_of(("level_below_threshold", value, "m"), ("depth", 1.8, "m"))


# -- 2. a direction in words, either way round -----------------------------------------------
def level_below_threshold_ledger():
    return directed_ledger(0.25)


def share_ledger():
    return ledger_of(("licence_rate", 0.5208, "m3/s"), ("river_flow", 48.6, "m3/s"))


def test_an_explicit_plus_sign_on_a_negative_output_is_a_sign_flip():
    ledger = ledger_of(*VERTCON)
    assert not ledger.audit_answer("The offset is +0.44 ft.").ok
    assert not ledger.audit_answer("The stage is -12.4 ft.").ok   # a positive output negated


def test_an_explicit_sign_on_a_recorded_value_of_the_other_sign():
    ledger = ledger_of(("compute_freeboard", 4.06, "ft"), ("crest", 32.0, "ft", "NAVD88"),
                       ("ws", 27.94, "ft", "NAVD88"))
    audit = ledger.audit_answer("freeboard: \u22124.06 ft")
    assert not audit.ok and audit.findings[0].code is Reason.SIGN_FLIPPED


@pytest.mark.parametrize("answer", [
    "The river is 0.25 m above the threshold.",
    "It sits 0.25 m higher than the warning level.",
    "Level exceeds the threshold: 0.25 m in excess of it.",
])
def test_the_opposite_direction_in_words_is_flagged(answer):
    audit = audited(margin_ledger(0.25), answer, ok=False)
    assert [f for f in audit.findings if f.status == "unsourced"][0].code is \
        Reason.DIRECTION_REVERSED


@pytest.mark.parametrize("answer", [
    "The river is 0.25 m below the threshold.",
    "0.25 m short of the warning level",
    "Margin: 0.25 m.",
    "The depth is 1.8 m above the bed.",  # a tool that names no direction: not checked
])
def test_the_stated_direction_is_accepted(answer):
    audited(margin_ledger(0.25), answer)


def test_a_negative_output_of_a_directed_tool_means_the_other_way():
    ledger = margin_ledger(-0.4)
    assert ledger.audit_answer("The level is 0.4 m above the threshold.").ok
    assert not ledger.audit_answer("The level is 0.4 m below the threshold.").ok


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
    audited(directed_ledger(0.25), answer)


@pytest.mark.parametrize("answer", [
    "The level is 0.25 m above the threshold.",
    "The threshold is 0.25 m below the level.",
    "The river is 0.25 m higher than the warning level.",
    "The warning threshold is 0.25 m lower than the river level.",
    "It sits 0.25 m above the alarm threshold.",
    "The river, at E21136, is 0.25 m above its threshold.",
])
def test_a_truly_reversed_direction_is_still_flagged(answer):
    audit = audited(directed_ledger(0.25), answer, ok=False)
    assert audit.findings[0].code is Reason.DIRECTION_REVERSED


def test_a_negative_output_reads_both_ways_round_too():
    ledger = directed_ledger(-0.4)   # the level is 0.4 m above the threshold
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
    ledger = directed_ledger(12.0, name)
    assert ledger.audit_answer(ok_answer).ok, ok_answer
    assert not ledger.audit_answer(bad_answer).ok, bad_answer


@pytest.mark.parametrize("ledger,answer,ok", [
    # a signed difference whose sign says what the tool's name does
    (level_below_threshold_ledger, "Level minus threshold: -0.25 m (below).", True),
    (level_below_threshold_ledger, "Difference -0.25 m, i.e. under the threshold.", True),
    (level_below_threshold_ledger, "Difference -0.25 m.", False),                 # a sign, and no direction
    (level_below_threshold_ledger, "Level minus threshold: -0.25 m (above).", False),
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
    audited(ledger(), answer, ok)
