"""--check refuses declarations that can never work against the server's listing: a unit on a
value that is never a number (a string or boolean parameter or result), a tz on a parameter
that is never a string, and a tz on a result (which would be refused on every call). Each
problem says what to write instead."""
from __future__ import annotations

import pytest

from quantity_guard.annotations import AnnotationError, loads
from quantity_guard.mcp.policy import QuantityPolicy


def tool(name: str, props: dict, output: dict | None = None) -> dict:
    t = {"name": name, "inputSchema": {"type": "object", "properties": props}}
    if output is not None:
        t["outputSchema"] = output
    return t


def problems(annotations: str, tools: list[dict]) -> list[str]:
    return QuantityPolicy(loads(annotations)).check_catalogue(tools).problems


@pytest.mark.parametrize("schema,instead", [
    ({"type": "string"}, "if it holds a timestamp, declare tz"),
    ({"type": "boolean"}, "a boolean has no unit: remove the declaration"),
    ({"type": "array", "items": {"type": "string"}}, "declare tz"),
    ({"anyOf": [{"type": "string"}, {"type": "null"}]}, "declare tz"),
])
def test_a_unit_on_a_parameter_that_is_never_a_number_is_refused(schema, instead):
    (problem,) = problems('[tools.t.params]\nsite = "m"\n', [tool("t", {"site": schema})])
    assert problem.startswith("tools.t.params.site: declares unit 'm', but t types site as ")
    assert "never a number" in problem and instead in problem


@pytest.mark.parametrize("schema", [
    {"type": "number"}, {"type": "integer"}, {"type": ["number", "null"]}, {},
    {"anyOf": [{"type": "number"}, {"type": "string"}]},
    {"type": "array", "items": {"type": "number"}},
])
def test_a_unit_on_a_parameter_that_can_be_a_number_passes(schema):
    assert problems('[tools.t.params]\nq = "m"\n', [tool("t", {"q": schema})]) == []


def test_a_tz_on_a_numeric_parameter_is_refused_and_on_a_string_one_passes():
    ann = '[tools.t.params]\nat = { tz = "UTC" }\n'
    (problem,) = problems(ann, [tool("t", {"at": {"type": "integer"}})])
    assert "tools.t.params.at: declares tz 'UTC'" in problem and "never a string" in problem
    assert "remove tz" in problem
    assert problems(ann, [tool("t", {"at": {"type": "string", "format": "date-time"}})]) == []


@pytest.mark.parametrize("output,where", [
    ({"type": "object", "properties": {"result": {"type": "string"}}}, "tools.t.returns: "),
    ({"type": "object", "properties": {"result": {"type": "boolean"}}}, "tools.t.returns: "),
])
def test_a_unit_on_a_string_or_boolean_result_is_refused(output, where):
    (problem,) = problems('[tools.t]\nreturns = "cfs"\n', [tool("t", {}, output)])
    assert problem.startswith(where) and "its outputSchema types 'result' as" in problem
    assert "never a number" in problem


def test_a_unit_on_a_string_field_of_a_result_is_refused_and_a_number_field_passes():
    output = {"type": "object", "properties": {"flow": {"type": "number"},
                                               "site": {"type": "string"}}}
    ann = '[tools.t]\nreturns = { flow = "cfs", site = "m" }\n'
    (problem,) = problems(ann, [tool("t", {}, output)])
    assert problem.startswith("tools.t.returns.site: declares unit 'm'")


@pytest.mark.parametrize("text,line", [
    ('[tools.t]\nreturns = { tz = "UTC" }\n', 2),
    ('[tools.t]\n\nreturns = { at = { tz = "UTC" }, flow = "cfs" }\n', 3),
])
def test_a_tz_on_a_result_is_refused_when_the_file_is_read(text, line):
    with pytest.raises(AnnotationError) as err:
        loads(text)
    (problem,) = err.value.problems
    assert problem.startswith(f"line {line}: tools.t.returns")
    assert "tz 'UTC' declares a timestamp" in problem and "Remove tz here" in problem
