"""One parser reads a written formula into a tree; two evaluators give its dimension and its
value (as written and in SI), and both refuse what does not parse."""
from __future__ import annotations

import pytest

from quantity_guard.audit.formula import formula_dims, evaluate, formula_tokens, parse_formula
from quantity_guard.reading import scan
from quantity_guard.units.dimension import DIMENSIONLESS


def _tokens(expression: str):
    """The tokens of ``expression`` as the audit reads it in an answer."""
    reading = scan(expression, True)
    at = {n.nstart: (i, n) for i, n in enumerate(reading.numbers)}
    return formula_tokens(reading.text, len(reading.text), at, 0)


def _dims(unit: str):
    return scan(f"1 {unit}", True).numbers[0].unit.dims


def test_a_sum_of_products_has_one_tree_one_value_and_one_dimension():
    tokens = _tokens("2 m \u00d7 3 m + 4 m\u00b2")
    tree = parse_formula(tokens)
    assert tree[0] == "op" and tree[1] == "+" and tree[2][0] == "op" and tree[2][1] == "\u00d7"
    assert evaluate(tokens) == (10.0, 10.0)
    assert formula_dims(tokens) == _dims("m2")


def test_the_value_is_given_as_written_and_in_si():
    m, si = evaluate(_tokens("1250 cfs / 2"))
    assert m == 625.0 and si == pytest.approx(625.0 * 0.028316846592)
    assert formula_dims(_tokens("1250 cfs / 2")) == _dims("m3/s")


def test_a_root_halves_the_dimension_and_refuses_an_odd_one():
    assert formula_dims(_tokens("\u221a16 m\u00b2 x 1")) == _dims("m")
    assert evaluate(_tokens("\u221a16 m\u00b2 x 1")) == (4.0, 4.0)
    assert formula_dims(_tokens("\u221a16 m x 1")) is None
    assert evaluate(_tokens("\u221a16 m x 1")) == (4.0, 4.0)


def test_a_sum_of_unlike_dimensions_has_no_dimension_but_a_value():
    tokens = _tokens("2 m + 3 s")
    assert formula_dims(tokens) is None
    assert evaluate(tokens) == (5.0, 5.0)


def test_an_exponent_must_be_a_whole_number_written_as_such_for_a_dimension():
    assert formula_dims(_tokens("(3 m)^2")) == _dims("m2")
    assert evaluate(_tokens("(3 m)^2")) == (9.0, 9.0)
    assert formula_dims(_tokens("(3 m)^(2)")) is None       # a bracketed exponent
    assert evaluate(_tokens("(3 m)^(2)")) == (9.0, 9.0)


@pytest.mark.parametrize("expression", ["2 \u00d7", "(2 + 3", "2 + 3)", "(2) (3)"])
def test_what_does_not_parse_has_neither(expression):
    tokens = _tokens(expression)
    with pytest.raises(ValueError):
        parse_formula(tokens)
    assert evaluate(tokens) is None and formula_dims(tokens) is None


def test_a_division_by_zero_has_no_value_but_a_dimension():
    tokens = _tokens("2 / 0")
    assert evaluate(tokens) is None
    assert formula_dims(tokens) == DIMENSIONLESS
