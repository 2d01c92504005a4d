"""Odd inputs at the public API: what Q and a tool boundary make of numbers that are not plain
floats (numpy scalars, Decimal, Fraction, huge ints, '1e400'), of SI digit grouping, and of a
declared parameter's Python default. Each was a defect: a crash, a silent coercion, or a value
the body received unchecked."""
from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import example, given, settings, strategies as st

from quantity_guard import Q, quantity_tool
from quantity_guard.errors import (BelowAbsoluteZero, DimensionalityError, GuardViolation,
                                   InvalidArguments)


@quantity_tool(params={"x": {"unit": "m"}})
def length(x):
    return x


def _code(result: dict) -> str:
    return result["_meta"]["io.github.quantity-guard/violation"]["code"]


# -- numbers that are not floats -----------------------------------------------------------------
def test_decimal_and_fraction_are_numbers_for_q_and_for_a_tool():
    assert Q(Decimal("1.1"), "m").magnitude == 1.1 and Q(Fraction(1, 4), "m").magnitude == 0.25
    assert length(Decimal("1.5")) == Q(1.5, "m") and length(Fraction(1, 2)) == Q(0.5, "m")
    assert length({"value": Decimal("2"), "unit": "ft"}) == Q(0.6096, "m")
    for bad in (Decimal("NaN"), Decimal("sNaN"), Decimal("Infinity")):
        with pytest.raises(InvalidArguments, match="not a finite number"):
            Q(bad, "m")


@pytest.mark.parametrize("big", [10 ** 400, -(10 ** 400), Fraction(10 ** 400, 3),
                                 Decimal("1e400")], ids=["int", "-int", "Fraction", "Decimal"])
def test_a_number_past_the_float_range_is_refused_with_a_violation(big):
    with pytest.raises(InvalidArguments, match="beyond the float range") as err:
        Q(big, "m")
    assert len(str(err.value)) < 200  # the 401 digits are not all repeated
    result = length.invoke({"x": big}) if not isinstance(big, Fraction) else None
    if result is not None:
        assert result["isError"] and _code(result) == "invalid_arguments"
        assert "beyond the float range" in result["content"][0]["text"]
    with pytest.raises(InvalidArguments, match="beyond the float range"):
        length(big)


def test_a_series_with_an_int_past_the_float_range_is_refused_with_a_violation():
    pytest.importorskip("numpy")
    with pytest.raises(InvalidArguments, match="float range"):
        Q([1, 10 ** 400], "m")
    assert _code(length.invoke({"x": [1, 10 ** 400]})) == "invalid_arguments"


@pytest.mark.parametrize("text", ["1e400 m", "1e4000 m", "-1e400 m", "1e400"])
def test_a_string_past_the_float_range_says_so(text):
    result = length.invoke({"x": text})
    assert result["isError"] and _code(result) == "invalid_arguments"
    assert f"received {text!r}, whose number is beyond the float range" in \
        result["content"][0]["text"]
    if " " in text:
        with pytest.raises(InvalidArguments, match="beyond the float range"):
            Q(text)
    assert "beyond the float range" in length.invoke({"x": {"value": "1e400", "unit": "m"}}
                                                     )["content"][0]["text"]


def test_numpy_scalars_are_numbers_and_numpy_booleans_are_not():
    np = pytest.importorskip("numpy")
    for scalar in (np.float64(5), np.float32(5), np.int64(5), np.uint8(5), np.array(5.0)):
        assert Q(scalar, "m") == Q(5, "m")
        assert length(scalar) == Q(5, "m"), type(scalar)  # before: TypeError (no len())
        assert length.invoke({"x": scalar})["isError"] is False
    assert length({"value": np.int64(3), "unit": "ft"}).isclose(Q(3, "ft"))
    for bad in (np.bool_(True), np.bool_(False)):
        with pytest.raises(InvalidArguments, match="boolean"):
            Q(bad, "m")  # before: Q(1 m)
        assert _code(length.invoke({"x": bad})) == "invalid_arguments"
        assert _code(length.invoke({"x": {"value": bad, "unit": "m"}})) == "invalid_arguments"
    for bad in (np.complex128(1 + 2j), np.datetime64("2020-01-01"), np.str_("5")):
        with pytest.raises(InvalidArguments, match="real number"):
            Q(bad, "m")  # before: the real part, a TypeError, and Q(5 m)


def test_a_numpy_series_of_no_real_numbers_is_refused_like_such_a_list():
    np = pytest.importorskip("numpy")
    with pytest.raises(InvalidArguments):
        Q([1.0, True], "m")  # a list
    for bad in (np.array([True, False]), np.array([1 + 2j]), np.array(["5", "6"]),
                np.array(["2020-01-01"], dtype="datetime64[D]")):
        with pytest.raises(InvalidArguments, match="real numbers") as err:
            Q(bad, "m")  # before: Q([1, 0] m), the real part, Q([5, 6] m), a TypeError
        assert str(bad.dtype) in str(err.value)
    with pytest.raises(InvalidArguments, match="received True"):
        Q(np.array([1.0, True], dtype=object), "m")  # objects: checked as a list
    assert list(Q(np.array([1.5, None], dtype=object), "m").magnitude[:1]) == [1.5]
    assert list(Q(np.array([1, 2], dtype=np.int32), "m").magnitude) == [1.0, 2.0]


# -- strings ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("sep", ["\u2009", "\u202f", "\u00a0"], ids=["thin", "narrow-nbsp", "nbsp"])
def test_digits_grouped_by_the_si_spaces_read_as_one_number(sep):
    assert Q(f"1{sep}250 cfs") == Q(1250, "cfs")
    assert Q(f"\u22121{sep}250{sep}000.5 m") == Q(-1250000.5, "m")
    assert length(f"2{sep}500 ft") == Q(2500, "ft")
    # a group of other than three digits is not a thousands group: refused, not misread
    with pytest.raises(GuardViolation):
        Q(f"1{sep}25 m")
    with pytest.raises(GuardViolation):
        Q(f"1{sep}2500 m")
    with pytest.raises(GuardViolation):  # separators are not mixed
        Q(f"1,250{sep}000 m" if sep != "\u00a0" else "1\u2009250\u00a0000 m")


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10 ** 12), st.sampled_from([",", "\u2009", "\u202f", "\u00a0"]),
       st.booleans())
@example(1250, "\u2009", False)
@example(0, ",", True)
def test_a_grouped_integer_reads_back_as_itself(n, sep, negative):
    text = f"{n:,}".replace(",", sep)
    value = float(-n if negative else n)
    assert Q(("\u2212" if negative else "") + text + " m").magnitude == value


# -- the decorator's defaults ------------------------------------------------------------------
def _with_default(default, unit="ft"):
    seen = []

    @quantity_tool(params={"x": {"unit": "m"}, "y": {"unit": unit}})
    def tool(x, y=default):
        seen.append(y)
        return x

    return tool, seen


@pytest.mark.parametrize("default, expected", [
    (3, Q(3, "ft")), (2.5, Q(2.5, "ft")), ("1 m", Q(1, "m")), (Q(1, "m"), Q(1, "m")),
    ({"value": 12, "unit": "in"}, Q(1, "ft"))])
def test_a_declared_default_reaches_the_body_in_the_declared_unit(default, expected):
    tool, seen = _with_default(default)
    tool(1)
    assert tool.invoke({"x": 1})["isError"] is False
    assert tool.invoke({"x": 1, "y": None})["isError"] is False  # null: the default
    tool(1, y="6 in")
    assert [y.unit.symbol for y in seen] == ["ft"] * 4  # before: 3, '1 m', Q(1 m), the dict
    assert seen[0] == seen[1] == seen[2] and seen[0].isclose(expected) and \
        seen[3] == Q(0.5, "ft")


@pytest.mark.parametrize("default, unit, error", [
    (Q(1, "m"), "s", DimensionalityError), ("12 parsecs", "ft", GuardViolation),
    (-5, "K", BelowAbsoluteZero), (object(), "ft", InvalidArguments),
    (True, "ft", InvalidArguments)])
def test_a_default_that_breaks_its_declaration_is_refused_at_definition(default, unit, error):
    with pytest.raises(error) as err:
        _with_default(default, unit)
    assert err.value.field == "tool.y" and "the default of tool.y" in str(err.value)
    assert "Send instead: a default the declaration accepts" in err.value.repair()


def test_a_default_of_none_still_means_omitted():
    tool, seen = _with_default(None)
    tool(1)
    assert seen == [None]
    assert tool(1, 2) == Q(1, "m") and seen[-1] == Q(2, "ft")


def test_defaults_of_keyword_only_parameters_beside_var_args_are_converted_too():
    seen = []

    @quantity_tool(params={"y": {"unit": "ft"}})
    def tool(*args, y=Q(0.3048, "m"), **kw):
        seen.append(y)

    tool()
    assert seen == [Q(1, "ft")] and seen[0].unit.symbol == "ft"


# -- overflow in arithmetic ------------------------------------------------------------------
@pytest.mark.parametrize("op", [
    lambda: Q(1e308, "m") + Q(1e308, "m"), lambda: Q(-1e308, "m") - Q(1e308, "m"),
    lambda: Q(1e308, "m") + Q(1e308, "km"), lambda: Q(1e200, "m") * Q(1e200, "m"),
    lambda: Q(1e308, "m") * 10, lambda: 10 * Q(1e308, "m"), lambda: Q(1e300, "m") / Q(1e-300, "s"),
    lambda: Q(1e300, "m") / 1e-300, lambda: 1e300 / Q(1e-300, "s"),
    lambda: Q(1e308, "km").to("m")], ids=list("abcdefghij"))
def test_a_result_past_the_float_range_is_refused_not_infinite(op):
    with pytest.raises(InvalidArguments, match="beyond the float range"):
        op()


@settings(max_examples=200, deadline=None)
@given(st.floats(-1e308, 1e308), st.floats(-1e308, 1e308),
       st.sampled_from(["+", "-", "*", "/"]))
@example(1e308, 1e308, "+")
def test_scalar_arithmetic_gives_a_finite_value_or_a_violation(a, b, op):
    x, y = Q(a, "m"), Q(b, "m")
    try:
        r = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y,
             "/": lambda: x / y}[op]()
    except InvalidArguments as err:
        assert "beyond the float range" in str(err)
        return
    except ZeroDivisionError:
        assert op == "/" and b == 0
        return
    assert math.isfinite(r.magnitude)


# -- coordinate systems in comparisons -------------------------------------------------------
def test_values_in_different_coordinate_systems_are_not_equal_and_do_not_compare():
    from quantity_guard.errors import CRSMismatch
    a, b = Q(1, "m", crs="EPSG:4326"), Q(1, "m", crs="EPSG:3857")
    assert a != b and not (a == b)  # before: equal
    assert a == Q(1, "m", crs="epsg:4326") and hash(a) == hash(Q(100, "cm", crs="EPSG:4326"))
    for compare in (lambda: a < b, lambda: a <= b, lambda: a > b, lambda: a >= b,
                    lambda: a.isclose(b)):
        with pytest.raises(CRSMismatch):
            compare()  # before: compared as plain lengths
    # an unstated system combines with a stated one (as in arithmetic) and so compares with it
    assert a == Q(1, "m") and a < Q(2, "m") and (a - Q(1, "m")).crs == "EPSG:4326"


def test_a_negative_number_to_a_fractional_power_is_refused_not_complex():
    with pytest.raises(InvalidArguments, match="not a real number"):
        Q(-8, "1") ** 0.5  # before: a Q holding a complex number
    assert (Q(8, "1") ** (1 / 3)).magnitude == pytest.approx(2.0)
    with pytest.raises(InvalidArguments, match="beyond the float range"):
        Q(1e10, "m") ** 64  # before: OverflowError


def test_a_quantity_or_a_string_given_with_a_unit_says_what_to_write():
    with pytest.raises(InvalidArguments) as err:
        Q(Q(1, "m"), "ft")
    assert ".to(unit)" in err.value.repair() and ".replace(unit=" in err.value.repair()
    with pytest.raises(InvalidArguments) as err:
        Q("5 m", "ft")
    assert "Q(text)" in err.value.repair()


ODD = st.one_of(
    st.integers(), st.floats(), st.decimals(), st.fractions(), st.booleans(), st.none(),
    st.complex_numbers(), st.text(max_size=12), st.binary(max_size=4),
    st.lists(st.one_of(st.integers(), st.floats(), st.booleans(), st.none(), st.text(max_size=3)),
             max_size=4),
    st.dictionaries(st.sampled_from(["value", "unit", "datum", "crs", "quality", "x"]),
                    st.one_of(st.integers(), st.floats(), st.text(max_size=8), st.none()),
                    max_size=4))


@settings(max_examples=500, deadline=None)
@given(ODD, st.sampled_from(["m", "degC", "K", "cfs", "%"]))
@example(10 ** 400, "m")
@example(Decimal("sNaN"), "m")
@example(-300, "degC")
@example([1, 10 ** 400], "m")
def test_q_and_a_tool_answer_any_value_with_a_quantity_or_a_violation(value, unit):
    """Whatever arrives, Q builds a finite quantity or raises a GuardViolation (never a
    TypeError, an OverflowError or a complex magnitude), and a tool answers with a result or a
    coded refusal."""
    try:
        q = Q(value, unit)
    except GuardViolation as err:
        assert err.repair()
    else:
        m = q.magnitude
        if m.__class__ is float:
            assert math.isfinite(m)
        else:
            assert m.dtype.kind == "f"

    @quantity_tool(params={"x": {"unit": unit}})
    def tool(x):
        return x

    result = tool.invoke({"x": value})
    if result["isError"]:
        assert _code(result) not in ("tool_failed", "guard_internal_error"), result
        assert result["content"][0]["text"]


def test_a_parameter_declared_optional_may_be_omitted_without_a_python_default():
    seen = []

    @quantity_tool(params={"x": {"unit": "m"}, "y": {"unit": "ft", "optional": True}})
    def tool(x, y):
        seen.append(y)
        return x

    assert "y" not in tool.json_schema()["inputSchema"]["required"]  # the schema lets it go
    assert tool.invoke({"x": 1})["isError"] is False  # before: "missing required argument"
    assert tool.invoke({"x": 1, "y": None})["isError"] is False
    tool(1, "1 m")
    assert seen[:2] == [None, None] and seen[2].unit.symbol == "ft"
    assert _code(tool.invoke({"y": 1})) == "invalid_arguments"  # x is still required


def test_a_bare_default_of_a_parameter_requiring_an_explicit_unit_is_in_the_declared_unit():
    seen = []

    @quantity_tool(params={"x": {"unit": "ft", "require_explicit_unit": True}})
    def tool(x=12.4):
        seen.append(x)

    tool()
    assert seen == [Q(12.4, "ft")]
    assert _code(tool.invoke({"x": 3})) == "missing_unit"  # a model still states the unit
