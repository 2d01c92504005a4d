"""Whole answers to the bench tasks (runoff, shares, energy), each audited as written.
"""
from __future__ import annotations

import pytest

from quantity_guard import quantity_tool, session
from audit_helpers import GRID, audited, flow_ledger, ledger_of, share_ledger


@quantity_tool(returns={"unit": "cfs"})
def read_discharge():
    return 1250.0


@quantity_tool(returns={"unit": "ft"})
def read_level(which: str):
    return {"crest": 31.0, "stage": 12.4, "low": -2.9}[which]


@quantity_tool(returns={"unit": "ML"})
def tank():
    return 1350.0


def test_classification():
    with session(context="The crest is at 31.0 ft; what is the freeboard?") as ledger:
        read_discharge()
        read_level("crest")
        read_level("stage")
        tank()
    audit = ledger.audit_answer(
        "Flow is 1,250 cfs (35.4 m3/s). Freeboard 31.0 - 12.4 = 18.6 ft, about 19 ft. "
        "The tank holds 1350 Ml.")
    statuses = [(f.number.text, f.status) for f in audit.findings]
    assert statuses == [("1,250 cfs", "sourced"), ("35.4 m3/s", "sourced"), ("31.0", "sourced"),
                        ("12.4", "sourced"), ("18.6 ft", "derived"), ("19 ft", "derived"),
                        ("1350 Ml", "sourced")]
    assert audit.ok
    bad = ledger.audit_answer("Flow is 1250 m3/s and the tank holds 1.35 Ml; peak 4,200 cfs.")
    assert [f.status for f in bad.findings] == ["unit_mislabelled", "unit_mislabelled", "unsourced"]
    assert not bad.ok
    quoted = ledger.audit_answer("The crest is 31.0 ft.", context="crest 31.0 ft")
    assert quoted.findings[0].status == "sourced"
    assert ledger.audit_answer("the question said 7 ft", context="7 ft of rain").findings[0].status \
        == "quoted"


def test_every_finding_says_why():
    ledger = ledger_of(*GRID, context="over 6 hours")
    audit = ledger.audit_answer(
        "S = 42 MVA, V = 138 kV; I = 42,000,000 / (\u221a3 \u00d7 138,000) \u2248 175.7 A; "
        "an invented 99.9 kA; 1 kV = 1000 V; over 6 hours. Step 2 done.")
    notes = {f.number.text: (f.status, f.note) for f in audit.findings}
    assert notes["42 MVA"] == ("sourced", "read_apparent_power.return = 42 MVA")
    assert notes["175.7 A"][0] == "derived" and "\u00f7" in notes["175.7 A"][1] and \
        "read_bus_voltage" in notes["175.7 A"][1] and "\u221a3" in notes["175.7 A"][1]
    assert notes["42,000,000"][0] in ("sourced", "operand") and notes["42,000,000"][1]
    assert notes["99.9 kA"][0] == "unsourced" and "no recorded output" in notes["99.9 kA"][1]
    assert notes["1 kV"][0] == "factor" and "identity" in notes["1 kV"][1]
    assert notes["6 hours"][0] == "quoted" and "question" in notes["6 hours"][1]
    assert ("2", "a step, list or section label") in audit.skipped
    d = audit.as_dict()
    assert {"text", "value", "unit", "status", "note", "match"} <= set(d["findings"][0])
    assert d["findings"][0]["match"] == {"label": "read_apparent_power.return",
                                         "quantity": "42 MVA"}


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
    audited(share_ledger(), answer, ok)


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
    audited(flow_ledger(), answer, ok)


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
    ledger = ledger_of(("get_feeder_load", 8.4, "MW"), ("energy_delivered", 50400.0, "kWh"),
                       context=question)
    audited(ledger, answer, ok, context=question)


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
    audited(flow_ledger(), answer, ok)
