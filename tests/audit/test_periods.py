"""Amounts per period and durations: a rate times its period, schedule intervals, durations
when no tool returns a time.
"""
from __future__ import annotations

import pytest

from audit_helpers import audited, energy_ledger, flow_ledger, ledger_of


def travel_ledger():
    return ledger_of(("travel_time", 2.5, "h"))


@pytest.mark.parametrize("answer,ok", [
    ("The wave arrives in 2.5 h; the data were pulled at 14 h 05.", True),
    ("The travel time is 14 h.", False),              # a duration when a tool returns times
    ("The travel time is 14 h 05 min.", False),       # a duration, not a clock time
    ("The travel time is 2 h 30 min.", False),
    ("The travel time is 2.5 h (pulled 1405Z).", True),
])
def test_clock_times_and_durations_when_a_tool_returns_times(answer, ok):
    audited(travel_ledger(), answer, ok)


@pytest.mark.parametrize("answer,ok", [
    # an amount per period, the period written in any of several ways
    ("35.4 m\u00b3/s; about 3,058,000 m\u00b3 pass the gauge per 24 hours.", True),
    ("35.4 m\u00b3/s; a daily volume of about 3.06 million m\u00b3.", True),
    ("35.4 m\u00b3/s; every 24 h some 3.06 million m\u00b3 pass.", True),
    ("35.4 m\u00b3/s; each hour about 127,000 m\u00b3 pass.", True),
    ("0.102 mm/d; per annum about 37 mm.", True),
    ("0.102 mm/d; about 0.7 mm weekly.", True),
    ("0.102 mm/d; some 3 mm in 30 days.", True),
    ("0.102 mm/d; per fortnight 1.4 mm.", True),
    ("0.102 mm/d; in one week, 0.72 mm.", True),
    # the same shapes with the wrong amount, or an amount with no period
    ("0.102 mm/d; about 2 mm weekly.", False),
    ("35.4 m\u00b3/s; every 24 h some 9 million m\u00b3 pass.", False),
    ("0.102 mm/d; per fortnight 3 mm.", False),
    ("0.102 mm/d; some 3 mm in all.", False),
    ("35.4 m\u00b3/s; a daily volume of about 3.06 million m\u00b3 per hour.", False),
])
def test_amounts_per_period_in_other_words(answer, ok):
    audited(flow_ledger(), answer, ok)


@pytest.mark.parametrize("answer,ok", [
    # an amount over a whole period, the period named with its length or as "a full day"
    ("0.102 mm/d; over a 31-day month that comes to about 3.2 mm.", True),
    ("1,250 cfs; a whole day at that rate moves 3.06 million m\u00b3.", True),
    ("1,250 cfs, or 108 million ft\u00b3 a full day.", True),
    ("0.102 mm/d; over a 31-day month that comes to about 5 mm.", False),
    ("1,250 cfs, or 150 million ft\u00b3 a full day.", False),
])
def test_amounts_over_a_whole_period(answer, ok):
    audited(flow_ledger(), answer, ok)


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
    audited(energy_ledger(), answer, ok)
