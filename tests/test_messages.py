"""The table of expected messages (tests/messages.py): every row is named by some test, every row
belongs to a code the library raises, and a row renders only with exactly its fields."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import quantity_guard.errors as errors
from messages import ROWS, refusal, render, says

TESTS = Path(__file__).resolve().parent
HELPERS = {"render", "says", "refusal", "refused_as"}


def _named_rows() -> set[str]:
    """Row names passed to the table's helpers anywhere in tests/ but the table and this file."""
    named: set[str] = set()
    for path in TESTS.rglob("*.py"):
        if path.name in ("messages.py", "test_messages.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in HELPERS:
                named.update(a.value for a in node.args
                             if isinstance(a, ast.Constant) and isinstance(a.value, str))
    return named


def test_every_row_is_used_by_some_test_file():
    unused = sorted(set(ROWS) - _named_rows())
    assert not unused, f"rows no test names (delete them, or test them): {unused}"


def test_every_row_belongs_to_a_code_the_library_raises():
    codes = {cls.code for cls in vars(errors).values()
             if isinstance(cls, type) and issubclass(cls, errors.GuardViolation)}
    assert {name: row.code for name, row in ROWS.items() if row.code not in codes} == {}


def test_a_row_renders_with_exactly_its_fields_and_leaves_json_braces_alone():
    assert render("carry_over_repair", value="1250", source_unit="cfs", converted="35.4",
                  unit="m3/s") == ('Send instead: {"value": 1250, "unit": "cfs"} (the guard '
                                   'converts it), or the converted value 35.4 m3/s')
    with pytest.raises(TypeError, match="takes"):
        render("ambiguous_unit")
    with pytest.raises(TypeError, match="takes"):
        render("ambiguous_unit", unit="gal", extra="x")


def test_the_helpers_fail_on_another_code_another_field_or_other_wording():
    err = errors.UnitParseError("'gal' is ambiguous: a US gallon and an imperial gallon differ",
                                field="pump.rate", suggestions=("gal_US", "gal_imp"))
    assert refusal(err, "ambiguous_unit", field="pump.rate", unit="gal") == err.repair()
    with pytest.raises(AssertionError, match="field"):
        refusal(err, "ambiguous_unit", field="pump.flow", unit="gal")
    with pytest.raises(AssertionError, match="code"):
        refusal(err, "wrong_dimension", field="pump.rate", unit="m", dims="", received="",
                received_dims="")
    with pytest.raises(AssertionError, match="'ambiguous_unit' wording"):
        says(err.repair(), "ambiguous_unit", unit="ton")
    result = errors.tool_error(err.repair(), err)
    assert refusal(result, "ambiguous_unit", field="pump.rate", unit="gal") == err.repair()
