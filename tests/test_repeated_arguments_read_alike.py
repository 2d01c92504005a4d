"""A value read again is read as it was the first time.

The boundary keeps, per declaration, how a ``{"value", "unit"}`` argument's unit converted
(the parsed unit and its factor), so that a repeated call does no parsing; a plain numeric
result is labelled and written without the generic paths. Each case here is read by a
declaration that has already read it (the kept reading) and by a new one (the full reading),
and the two must agree in every field, in the refusals' text too.
"""
from __future__ import annotations

import json
import math

import pytest

from quantity_guard import Q
from quantity_guard.errors import GuardViolation
from quantity_guard.spec import Spec
from quantity_guard.tool import tool_result, value_json

# (declared unit, argument): accepted both ways
ACCEPTED = [
    ("m**3/s", {"value": 1250, "unit": "cfs"}),
    ("m**3/s", {"value": 1250.5, "unit": "cfs"}),
    ("m**3/s", {"value": -3, "unit": "L/s"}),
    ("m**3/s", {"value": 35.39605824, "unit": "m**3/s"}),  # the declared unit itself
    ("m**3/s", {"value": 35.39605824, "unit": "cumec"}),   # an alias of it
    ("m", {"value": 12.4, "unit": "ft NAVD88"}),           # a datum written in the unit
    ("km**2", {"value": 0, "unit": "mi**2"}),
    ("m", {"value": 2 ** 53 + 1, "unit": "ft"}),           # an int that a float rounds
    ("m**3/s", {"unit": "cfs", "value": 7}),               # the keys in the other order
    ("m**3/s", {"value": "1250", "unit": "cfs"}),          # a number written as text
    ("m**3/s", {"value": [1, 2.5], "unit": "cfs"}),        # a series
]

# (declared unit, argument): refused both ways, with the same text
REFUSED = [
    ("m**3/s", {"value": 1250, "unit": "ft"}),             # another dimension
    ("delta_degC", {"value": 5, "unit": "degC"}),          # a temperature for a difference
    ("m**3/s", {"value": float("nan"), "unit": "cfs"}),
    ("m**3/s", {"value": float("inf"), "unit": "cfs"}),
    ("m**3/s", {"value": 10 ** 400, "unit": "cfs"}),       # past the float range
    ("mm", {"value": 1e308, "unit": "km"}),                # past it once converted
    ("m**3/s", {"value": True, "unit": "cfs"}),
    ("m**3/s", {"value": 1250, "unit": "cfz"}),
    ("m**3/s", {"value": 1250, "unit": ["cfs"]}),          # a unit that is not text
]


def _fields(accepted) -> tuple:
    def q(x):
        if x is None:
            return None
        m = x.magnitude if x.magnitude.__class__ is float else tuple(x.magnitude.tolist())
        return (m, x.unit.symbol, x.datum, x.crs, x.quality, x.source)
    return (q(accepted.value), q(accepted.received), accepted.how, accepted.raw,
            accepted.value is accepted.received)


def _primed(unit: str, primer: dict) -> Spec:
    """A declaration that has read ``primer`` (a value in the same unit) once already."""
    spec = Spec(unit, field="x")
    spec.accept(primer, "x")
    return spec


@pytest.mark.parametrize("unit,raw", ACCEPTED)
def test_an_accepted_value_is_read_the_same_the_second_time(unit, raw):
    first = Spec(unit, field="x").accept(raw, "x")
    primed = _primed(unit, {"value": 1.0, "unit": raw["unit"]})
    again = primed.accept(raw, "x")
    assert _fields(again) == _fields(first)
    assert _fields(primed.accept(raw, "x")) == _fields(first)


@pytest.mark.parametrize("unit,raw", REFUSED)
def test_a_refused_value_is_refused_alike_after_its_unit_was_read(unit, raw):
    with pytest.raises(GuardViolation) as fresh:
        Spec(unit, field="x").accept(raw, "x")
    if isinstance(raw["unit"], str):  # the unit itself read once, with a value it accepts
        try:
            primed = _primed(unit, {"value": 1.0, "unit": raw["unit"]})
        except GuardViolation:
            primed = Spec(unit, field="x")
    else:
        primed = _primed(unit, {"value": 1.0, "unit": "m**3/s"})
    with pytest.raises(GuardViolation) as again:
        primed.accept(raw, "x")
    assert (type(again.value), again.value.repair()) == (type(fresh.value), fresh.value.repair())


def test_the_kept_reading_stays_with_its_declaration():
    flow, length = Spec("m**3/s", field="q"), Spec("ft", field="h")
    flow.accept({"value": 1.0, "unit": "cfs"})
    # the same unit text, another declaration: converted into that one's unit, or refused
    assert length.accept({"value": 3.0, "unit": "m"}).value.magnitude == \
        pytest.approx(3.0 / 0.3048, rel=1e-15)
    with pytest.raises(GuardViolation) as refused:
        length.accept({"value": 1.0, "unit": "cfs"})
    assert refused.value.code == "dimensionality_error"


def test_a_declaration_with_a_datum_or_a_floor_reads_every_value_in_full():
    on_datum = Spec("m", datum="NAVD88", field="h")
    for _ in range(2):  # the datum is set on each value, never left off by a kept reading
        q = on_datum.accept({"value": 3.0, "unit": "ft"}).value
        assert (q.datum, q.unit.symbol) == ("NAVD88", "m")
    floor = Spec("m**3/s", quality="approved", field="q")
    floor.accept({"value": 1.0, "unit": "cfs", "quality": "approved"})
    with pytest.raises(GuardViolation) as refused:
        floor.accept({"value": 1.0, "unit": "cfs"})
    assert refused.value.code == "quality_violation"


@pytest.mark.parametrize("value", [1209.6, 3, -0.0, 2 ** 60, 1e-300])
def test_a_numeric_result_is_labelled_as_a_quantity_of_it(value):
    spec = Spec("mm/day", field="r")
    labelled = spec.convert_result(value)
    expected = Q(value, "mm/day")
    assert (labelled.magnitude, labelled.unit, labelled.datum, labelled.crs, labelled.quality,
            labelled.source) == (expected.magnitude, expected.unit, None, None, None, None)
    assert math.copysign(1.0, labelled.magnitude) == math.copysign(1.0, expected.magnitude)


@pytest.mark.parametrize("value,said", [
    (float("nan"), "received nan, which is not a finite number"),
    (float("inf"), "received inf, which is not a finite number"),
    (10 ** 400, "which is beyond the float range"),
    (True, "r: received True, which is not a quantity"),
    ("x", "r: received 'x', which is not a number with a unit"),
])
def test_a_result_that_is_no_number_is_refused_saying_why(value, said):
    with pytest.raises(GuardViolation) as refused:
        Spec("mm/day", field="r").convert_result(value)
    assert refused.value.code == "invalid_arguments" and said in str(refused.value)


@pytest.mark.parametrize("q", [
    Q(1209.6, "mm/day"),
    Q(1250, "cfs", source="USGS 07374000"),          # the source is not shown in a result
    Q(12.4, "ft", datum="NAVD88"),
    Q(3.0, "m**3/s", quality="approved"),
    Q(0.5, "µg/L"),                                   # a symbol that is not plain ASCII
    Q(-0.0, "m"),
])
def test_a_labelled_result_is_the_json_of_its_quantity(q):
    result = tool_result(q)
    data = value_json(q)
    assert result == {"content": [{"type": "text",
                                   "text": json.dumps(data, ensure_ascii=False)}],
                      "isError": False, "structuredContent": data}
