"""The proxy's policy decides a call the same way whether or not it has read the call's units
before: the same arguments go upstream, the ledger records the same inputs, and a refusal
says the same. (A policy keeps, per declaration, how a unit it has read converts.)"""
from __future__ import annotations

import math

import pytest

from quantity_guard.annotations import loads
from quantity_guard.mcp.policy import QuantityPolicy

ANNOTATIONS = """
[tools.runoff]
returns = { unit = "mm/day" }

[tools.runoff.params]
discharge = { unit = "m**3/s" }
area = { unit = "km**2" }
"""

SENT = [
    {"discharge": {"value": 1250, "unit": "cfs"}, "area": 2.5},
    {"discharge": {"value": 1250.25, "unit": "cfs"}, "area": {"value": 3, "unit": "mi**2"}},
    {"discharge": {"value": 35, "unit": "m**3/s"}, "area": 2},
    {"discharge": {"value": -0.0, "unit": "L/s"}, "area": 1e-3, "key": "not guarded"},
    {"discharge": "1250 cfs", "area": {"value": 2.5, "unit": "km**2"}},
    {"discharge": {"value": 2 ** 53 + 1, "unit": "cfs"}, "area": 2.5},
]

REFUSED = [
    {"discharge": {"value": 1250, "unit": "ft"}, "area": 2.5},
    {"discharge": {"value": math.nan, "unit": "cfs"}, "area": 2.5},
    {"discharge": {"value": 1250, "unit": "cfs"}, "area": {"value": 1, "unit": "cfs"}},
    {"discharge": {"value": [1, 2], "unit": "cfs"}, "area": 2.5},
    {"discharge": {"value": True, "unit": "cfs"}, "area": 2.5},
]

PRIMER = {"discharge": {"value": 1, "unit": "cfs"}, "area": {"value": 1, "unit": "mi**2"}}


def _policies() -> tuple[QuantityPolicy, QuantityPolicy]:
    """A new policy and one that has read cfs, L/s, m**3/s and mi**2 arguments before."""
    fresh, primed = (QuantityPolicy(loads(ANNOTATIONS)) for _ in range(2))
    for unit in ("cfs", "L/s", "m**3/s"):
        primed.check_call("runoff", {**PRIMER, "discharge": {"value": 1, "unit": unit}})
    return fresh, primed


def _last_record(policy: QuantityPolicy) -> dict:
    record = policy.ledger.manifest()["calls"][-1]
    return {k: v for k, v in record.items() if k not in ("index", "started", "finished")} | {
        "inputs": [{k: v for k, v in e.items() if k not in ("index", "call")}
                   for e in record["inputs"]]}


def _same(a, b) -> bool:
    """Equal, with -0.0 told from 0.0 (what goes upstream keeps the sign)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("arguments", SENT)
def test_a_call_goes_upstream_and_is_recorded_alike_once_its_units_were_read(arguments):
    fresh, primed = _policies()
    first, again = fresh.check_call("runoff", dict(arguments)), \
        primed.check_call("runoff", dict(arguments))
    assert first.action == again.action == "forward"
    assert first.payload.keys() == again.payload.keys() == arguments.keys()
    assert all(_same(first.payload[k], again.payload[k]) for k in arguments)
    assert _last_record(primed) == _last_record(fresh)


@pytest.mark.parametrize("arguments", REFUSED)
def test_a_call_is_refused_alike_once_its_units_were_read(arguments):
    fresh, primed = _policies()
    first, again = fresh.check_call("runoff", dict(arguments)), \
        primed.check_call("runoff", dict(arguments))
    assert first.action == again.action == "refuse"
    assert again.payload == first.payload
    assert _last_record(primed) == _last_record(fresh)
    assert primed.ledger.violations[-1] | {"call": 0} == fresh.ledger.violations[-1]


def test_a_labelled_result_is_recorded_alike_once_its_unit_was_read():
    results = []
    for policy in _policies():
        decision = policy.check_call("runoff", {"discharge": 1.0, "area": 2.5})
        results.append(policy.label_result("runoff", decision.payload, {
            "content": [{"type": "text", "text": "1209.6"}], "_meta": {"k": 1}}))
        assert policy.ledger.calls[-1].outputs[0].as_dict()["quantity"] == {
            "value": 1209.6, "unit": "mm/d"}
    assert results[0] == results[1] == {
        "content": [{"type": "text", "text": '{"value": 1209.6, "unit": "mm/d"}'}],
        "isError": False, "structuredContent": {"value": 1209.6, "unit": "mm/d"},
        "_meta": {"k": 1}}


@pytest.mark.parametrize("sent,upstream", [
    (35, 35), (35.0, 35.0), (-0.0, -0.0), (35.5, 35.5),
    (2 ** 53 - 1, 2 ** 53 - 1), (2 ** 53 + 2, float(2 ** 53 + 2)),  # past 2**53: a float
    ({"value": 35, "unit": "m**3/s"}, 35.0),  # a quantity's value is not an integer
])
def test_a_number_in_the_declared_unit_goes_upstream_as_it_was_sent(sent, upstream):
    for policy in _policies():
        decision = policy.check_call("runoff", {"discharge": sent, "area": 2.5})
        assert _same(decision.payload["discharge"], upstream)
