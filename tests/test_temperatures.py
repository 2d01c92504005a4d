"""Temperature scales at the library's boundary: conversions between scales computed exactly and
rounded once, and nothing colder than absolute zero, wherever a temperature is made."""
from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import example, given, settings, strategies as st

from messages import refusal, render, says
from quantity_guard import Q
from quantity_guard.units import convert, parse_unit

# Every temperature scale in the table, in the kernel's spelling and in UCUM's.
SCALES = ["degC", "degF", "K", "degR", "mK", "Cel", "[degF]", "[degR]"]
OFFSET = ["degC", "degF", "Cel", "[degF]"]


def _exact(x: float, a: str, b: str) -> Fraction:
    """x in a, in b, with the table's exact factors and offsets (no float anywhere)."""
    ua, ub = parse_unit(a), parse_unit(b)
    si = Fraction(x) * ua.factor + (ua.offset or 0)
    return (si - (ub.offset or 0)) / ub.factor


def _at_zero(x: float, unit: str) -> bool:
    return parse_unit(unit).zero == x


# -- 1. temperature scales: exact, rounded once -----------------------------------------------
def test_the_freezing_point_converts_without_a_stray_digit():
    assert Q(32, "degF").to("K").magnitude == 273.15
    assert str(Q(32, "degF").to("K")) == "273.15 K"
    assert Q(0, "degC").to("degF").magnitude == 32.0
    assert Q(212, "degF").to("degC").magnitude == 100.0
    assert Q(98.6, "degF").to("degC").magnitude == 37.0
    assert convert(32, "degF", "K") == 273.15
    assert convert([32, 212.0], "degF", "degC") == [0.0, 100.0]


def test_every_offset_unit_in_the_table_is_covered():
    """The scales with an offset are exactly the ones this file exercises (a new one added to
    the table must be added to OFFSET, and so to the properties below)."""
    from quantity_guard.units import table
    rows = table.registry().rows
    with_offset = {s for s, row in rows.items() if row.unit.offset is not None}
    assert with_offset == {"degC", "degF"}
    assert {parse_unit(s).symbol for s in OFFSET} == with_offset
    assert parse_unit("degR").offset is None and parse_unit("degR").zero == 0.0


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(SCALES), st.sampled_from(SCALES),
       st.floats(-1e12, 1e12, allow_nan=False, allow_infinity=False))
@example("degF", "K", 32.0)
@example("degC", "degF", 1e-300)
@example("K", "degC", 5e-324)
@example("degF", "degC", 98.6)
def test_a_conversion_is_the_exact_value_rounded_once(a, b, x):
    if x < parse_unit(a).zero or (parse_unit(b).offset is not None and _exact(x, a, "K") < 0):
        return  # below absolute zero: refused (test_a_temperature_below_absolute_zero_...)
    got = Q(x, a).to(b).magnitude
    if _at_zero(x, a) and parse_unit(b).zero is not None:
        assert got == parse_unit(b).zero  # absolute zero as written is absolute zero
        return
    exact = float(_exact(x, a, b))
    if parse_unit(a).offset != parse_unit(b).offset:  # an affine map: exact, rounded once
        assert got == exact
    else:  # a scale factor: one float multiply, within one unit in the last place
        assert abs(got - exact) <= math.ulp(exact)
    assert convert(x, a, b) == got


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(OFFSET + ["K"]), st.sampled_from(OFFSET + ["K"]),
       st.floats(0, 1e9, allow_nan=False))
@example("degC", "degF", 0.0)
@example("degF", "K", 1e-9)
def test_round_trips_lose_no_more_than_the_two_roundings(a, b, kelvin):
    """From a, to b and back: the error is the first rounding carried back plus the last half
    unit, and nothing more (float multiply-add conversions can be off by more)."""
    x = convert(kelvin, "K", a)
    y = Q(x, a).to(b)
    back = y.to(a).magnitude
    scale = parse_unit(a).factor / parse_unit(b).factor  # a-units per b-unit, inverted below
    bound = math.ulp(y.magnitude) / 2 / float(scale) + math.ulp(back) / 2
    if _at_zero(x, a):
        assert back == x
    else:
        assert abs(back - x) <= bound * (1 + 1e-12)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(SCALES), st.floats(0, 1e9), st.floats(0, 1e9))
@example("degR", 1.5, 0.0)
def test_conversion_keeps_order_and_lands_equal_in_kelvin(a, k1, k2):
    x1, x2 = convert(k1, "K", a), convert(k2, "K", a)
    q1, q2 = Q(x1, a), Q(x2, a)
    if x1 <= x2:
        assert q1.to("K").magnitude <= q2.to("K").magnitude
    if parse_unit(a).offset is not None or a == "K":  # exact: K is what == compares in
        assert q1.to("K") == q1 and hash(q1.to("K")) == hash(q1)


def test_absolute_zero_as_written_is_absolute_zero_on_every_scale():
    zeros = {"degC": -273.15, "degF": -459.67, "K": 0.0, "degR": 0.0}
    for a, za in zeros.items():
        assert parse_unit(a).zero == za
        for b, zb in zeros.items():
            assert Q(za, a).to(b).magnitude == zb, (a, b)
            assert Q(za, a) == Q(zb, b)
    # a difference and a non-temperature have no absolute zero
    assert parse_unit("delta_degC").zero is None and parse_unit("K/s").zero is None
    assert parse_unit("m").zero is None and parse_unit("K2").zero is None


def test_a_conversion_past_the_float_range_is_refused_not_infinite():
    from quantity_guard.errors import InvalidArguments
    for q, unit in ((Q(1e308, "degC"), "degF"), (Q(1e308, "km"), "m"),
                    (Q(-1e308, "km"), "mm")):
        with pytest.raises(InvalidArguments) as err:
            q.to(unit)
        assert "beyond" in str(err.value) and unit in str(err.value)
    assert convert(1e308, "degC", "degF") == math.inf  # the kernel computes in floats


# -- 2. nothing is colder than absolute zero ---------------------------------------------------
from quantity_guard.errors import BelowAbsoluteZero  # noqa: E402

ZERO = {"degC": -273.15, "degF": -459.67, "K": 0.0, "degR": 0.0}


def test_a_temperature_below_absolute_zero_is_refused_where_it_is_made():
    for unit, zero in (("degC", -273.15), ("degF", -459.67)):
        for make in (lambda: Q(zero - 1, unit), lambda: Q(f"{zero - 1} {unit}"),
                     lambda: Q.parse(f"{zero - 1} {unit}"),
                     lambda: Q.from_dict({"value": zero - 1, "unit": unit}),
                     lambda: Q(20, unit).replace(value=zero - 1)):
            with pytest.raises(BelowAbsoluteZero) as err:
                make()
            assert f"below absolute zero ({zero:g} {unit})" in str(err.value)
            assert f"delta_{unit}" in err.value.repair()  # what a difference is written as
            assert err.value.code == "below_absolute_zero"
        assert Q(zero, unit).magnitude == zero  # absolute zero itself is a temperature
        assert Q(zero - 1, f"delta_{unit}").magnitude == zero - 1  # a difference may be anything
    assert Q(-40, "degC") == Q(-40, "degF")


def test_kelvin_below_zero_is_a_difference_and_cannot_become_a_temperature():
    diff = Q(1, "K") - Q(6, "K")  # K also measures differences: this is one
    assert diff == Q(-5, "K") and diff.to("delta_degC") == Q(-5, "delta_degC")
    assert diff.to("delta_degF").magnitude == -9.0 and Q(-9, "degR").to("K").magnitude == -5.0
    for unit in ("degC", "degF"):
        with pytest.raises(BelowAbsoluteZero) as err:
            diff.to(unit)
        assert ".to('delta_" in err.value.repair() and "Q(-5 K)" in str(err.value)
        assert "-5 K is below absolute zero (0 K)" in str(err.value)
    assert Q(10, "degC") + diff == Q(5, "degC")  # a temperature plus a difference


def test_a_temperature_plus_a_difference_stays_at_or_above_absolute_zero():
    with pytest.raises(BelowAbsoluteZero):
        Q(10, "degC") + Q(-300, "delta_degC")
    with pytest.raises(BelowAbsoluteZero):
        Q(-300, "delta_degC") + Q(10, "degC")
    with pytest.raises(BelowAbsoluteZero):
        Q(10, "degC") - Q(300, "K")
    with pytest.raises(BelowAbsoluteZero):
        Q(0, "degF") - Q(500, "delta_degF")
    assert (Q(10, "degC") - Q(283.15, "delta_degC")).magnitude == -273.15
    assert Q(10, "degC") - Q(400, "degF") == Q(10, "degC").to("degF") - Q(400, "degF")


def test_a_series_of_temperatures_is_checked_whole():
    np = pytest.importorskip("numpy")
    with pytest.raises(BelowAbsoluteZero) as err:
        Q([10.0, math.nan, -300.0, -400.0], "degC")
    assert "-300 degC" in str(err.value)  # the first value below
    q = Q(np.array([10.0, math.nan, -273.15]), "degC")  # NaN is a missing value
    assert q.to("K").magnitude[2] >= 0.0
    with pytest.raises(BelowAbsoluteZero):
        Q([300.0, -5.0], "K").to("degF")
    with pytest.raises(BelowAbsoluteZero):
        q + Q([0.0, 0.0, -1.0], "delta_degC")


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(list(ZERO)), st.floats(-1e4, 1e4, allow_nan=False))
@example("degF", -459.67)
@example("degF", math.nextafter(-459.67, -math.inf))
@example("degC", -273.15)
@example("K", -1.5469761603982138e-224)  # lands on the float of -273.15 degC: still refused
def test_construction_refuses_exactly_the_values_below_absolute_zero(unit, x):
    if x >= ZERO[unit]:
        q = Q(x, unit)
        for other in ZERO:
            assert q.to(other).magnitude >= ZERO[other]
    elif unit in ("K", "degR"):  # a difference: it stays one, and becomes no temperature
        q = Q(x, unit)
        for other in ZERO:
            if parse_unit(other).offset is None:
                assert q.to(other).magnitude < 0
            else:
                with pytest.raises(BelowAbsoluteZero):
                    q.to(other)
    else:
        with pytest.raises(BelowAbsoluteZero):
            Q(x, unit)


def _thermostat():
    from quantity_guard import quantity_tool

    @quantity_tool(params={"t": {"unit": "K"}, "c": {"unit": "degC", "optional": True},
                           "rise": {"unit": "delta_degC", "optional": True},
                           "r": {"unit": "degR", "optional": True}})
    def thermostat(t, c=None, rise=None, r=None):
        return t

    return thermostat


def _refused(tool, args) -> dict:
    result = tool.invoke(args)
    assert result["isError"], args
    return {"text": result["content"][0]["text"],
            **result["_meta"]["io.github.quantity-guard/violation"]}


def test_a_parameter_declared_on_a_temperature_scale_takes_no_value_below_absolute_zero():
    tool = _thermostat()
    import importlib.util
    series = [[280.0, -5.0]] if importlib.util.find_spec("numpy") else []  # a series needs numpy
    for raw in (-5, -5.0, "-5", "-5 K", {"value": -5, "unit": "K"}, Q(-5, "K"), "-9 degR",
                *series, Q(1, "K") - Q(6, "K")):
        refused = _refused(tool, {"t": raw})
        assert refused["code"] == "below_absolute_zero" and refused["field"] == "thermostat.t", raw
        assert "below absolute zero (0 " in refused["text"] and "delta_degC" in refused["text"]
        says(refused["text"], "below_absolute_zero_repair", zero="0 K")
    for raw in (-300, "-300 degC", "-500 degF"):  # refused by Q, told what this parameter takes
        refused = _refused(tool, {"t": 280, "c": raw})
        assert refused["code"] == "below_absolute_zero" and refused["field"] == "thermostat.c"
        says(refused["text"], "below_absolute_zero_repair", zero="-273.15 degC")
    assert _refused(tool, {"t": 280, "r": -1})["code"] == "below_absolute_zero"


def test_a_temperature_parameter_refuses_a_difference_and_a_difference_parameter_takes_one():
    tool = _thermostat()
    for raw in ("5 delta_degC", {"value": 9, "unit": "delta_degF"}, Q(5, "delta_degC")):
        for name in ("t", "c"):
            refused = _refused(tool, {"t": 280, name: raw})
            assert refused["code"] == "offset_unit_error"
            assert refused["field"] == "thermostat." + name
            assert "temperature difference" in refused["text"]
    seen = {}

    from quantity_guard import quantity_tool

    @quantity_tool(params={"t": {"unit": "K"}, "rise": {"unit": "delta_degC"}})
    def warm(t, rise):
        seen.update(t=t, rise=rise)
        return t + rise

    for rise in (-5, "-5 K", "-9 delta_degF", Q(1, "K") - Q(6, "K")):
        assert warm.invoke({"t": "-459.67 degF", "rise": 5})["isError"] is False
        assert seen["t"] == Q(0, "K")  # absolute zero as written is absolute zero
        assert warm.invoke({"t": "10 degC", "rise": rise})["isError"] is False
        assert seen["rise"] == Q(-5, "delta_degC"), rise


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(list(ZERO)), st.sampled_from(list(ZERO)),
       st.floats(-600, 600, allow_nan=False))
@example("degF", "K", -459.67)
@example("K", "degC", -1e-300)
def test_the_boundary_accepts_a_temperature_exactly_when_it_is_at_or_above_absolute_zero(
        declared, sent, x):
    from quantity_guard import quantity_tool

    @quantity_tool(params={"t": {"unit": declared}})
    def tool(t):
        return t

    result = tool.invoke({"t": {"value": x, "unit": sent}})
    if x >= ZERO[sent]:
        assert result["isError"] is False
        assert Q.from_dict(__import__("json").loads(result["content"][0]["text"])).magnitude \
            >= ZERO[declared]
    else:
        assert result["_meta"]["io.github.quantity-guard/violation"]["code"] == \
            "below_absolute_zero"


def test_the_mcp_proxy_refuses_a_temperature_below_absolute_zero():
    from quantity_guard.annotations import loads
    from quantity_guard.mcp.policy import QuantityPolicy
    policy = QuantityPolicy(loads('[tools.set_point.params]\nt = { unit = "K" }\n'
                                  'rise = { unit = "delta_degC" }\n'))
    decision = policy.check_call("set_point", {"t": -5, "rise": 1})
    text = refusal(decision, "below_absolute_zero_repair", field="set_point.t", zero="0 K")
    assert text.startswith(render("below_absolute_zero", field="set_point.t", received="-5 K",
                                  zero="0 K"))
    assert ". " + render("below_absolute_zero_repair", zero="0 K") in text  # one stop between
    assert policy.check_call("set_point", {"t": "10 degC", "rise": "-5 K"}) == \
        ("forward", {"t": 283.15, "rise": -5.0})


def test_a_temperature_parameter_states_absolute_zero_in_its_schema():
    tool = _thermostat()
    props = tool.json_schema()["inputSchema"]["properties"]
    for name, zero, unit in (("t", 0, "K"), ("c", -273.15, "degC"), ("r", 0, "degR")):
        assert {"type": "number", "minimum": zero} in props[name]["anyOf"]
        assert props[name]["description"].endswith(
            f"A temperature, not a difference: at least {zero:g} {unit} (absolute zero).")
    assert {"type": "number"} in props["rise"]["anyOf"]  # a difference has no bound
    assert "absolute zero" not in props["rise"]["description"]


def test_a_series_handed_over_below_absolute_zero_is_refused_and_left_writeable():
    np = pytest.importorskip("numpy")
    x = np.array([10.0, -300.0])
    with pytest.raises(BelowAbsoluteZero):
        Q(x, "degC", copy=False)
    assert x.flags.writeable  # refused, so not taken over
    x[1] = -200.0
    assert Q(x, "degC", copy=False).to("K").magnitude[1] == pytest.approx(73.15)
    with pytest.raises(BelowAbsoluteZero):  # a temporary converted in place: checked first
        Q(np.array([1.0, -1.0]), "K").to("degC")
