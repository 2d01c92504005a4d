"""The wording of quantity-guard's refusals as the tests expect it: one row a sentence.

A test asserts a refusal's ``code`` and ``field`` (the behaviour); where the wording itself is
under test (the repair text a model reads), it names one row of ``ROWS`` instead of typing the
sentence out, so changing a sentence changes one place. The rows are written here by hand, on
purpose never derived from the library's own templates: a test comparing the library with
itself could not fail.

Each row is a code and a template whose ``{name}`` fields the test fills in (JSON braces such
as ``{"value": ...}`` are left as they are)::

    from messages import refusal, render, says

    refusal(err.value, "carry_over", field="runoff_depth.discharge", value="1250",
            unit="m3/s", source="read_discharge.return", source_unit="cfs")
    says(err.value.repair(), "carry_over_repair", value="1250", source_unit="cfs",
         converted="35.39605824", unit="m3/s")
    assert text.startswith(render("wrong_dimension", field=..., ...))

``refusal`` takes a ``GuardViolation``, a tool result (``isError`` with the
``_meta["io.github.quantity-guard/violation"]`` naming code and field; a dict or the MCP SDK's
``CallToolResult``) or a proxy ``Decision``; it checks the code and field, then the row's
wording in the text the model reads, and returns that text. Every row must be named by some test
(``tests/test_messages.py`` checks it): delete a row nobody uses.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

VIOLATION_META = "io.github.quantity-guard/violation"


@dataclass(frozen=True)
class Row:
    code: str
    template: str

    @property
    def fields(self) -> set[str]:
        return set(_FIELD.findall(self.template))


_FIELD = re.compile(r"\{(\w+)\}")

ROWS: dict[str, Row] = {
    # a magnitude carried over from an earlier tool's output, in another unit, unconverted
    "carry_over": Row(
        "unconverted_carry_over",
        "{field}: received the bare number {value}, which this tool reads as {value} {unit}, "
        "but {source} returned {value} {source_unit} and no conversion was applied"),
    "carry_over_repair": Row(
        "unconverted_carry_over",
        'Send instead: {"value": {value}, "unit": "{source_unit}"} (the guard converts it), '
        "or the converted value {converted} {unit}"),
    # the same, for an elevation on another vertical datum
    "datum_carry_over": Row(
        "unconverted_carry_over",
        "{field}: received the bare number {value}, which this tool reads as {value} {unit} on "
        "{datum}, but {source} returned {value} {unit} on {source_datum} and no datum "
        "conversion was applied"),
    # a quantity of another kind (a length where a flow is declared)
    "wrong_dimension": Row(
        "dimensionality_error",
        "{field}: expected a quantity in {unit} ({dims}), received {received} "
        "({received_dims})"),
    # an elevation labelled with another datum than the declared one
    "other_datum": Row(
        "datum_mismatch",
        "{field}: expected an elevation on {datum}, received {value} {unit} on {other}; values "
        "on another datum are refused, never silently shifted"),
    # a sourced value no tool returned, through the proxy (which never sees the question)
    "unsourced_by_proxy": Row(
        "unsourced_input",
        "{field}: received {value} {unit}, which no tool returned in this session (nor a sum or "
        "difference of two outputs); this parameter is declared sourced, and the proxy does "
        "not see the question, so a number stated there cannot be verified and is refused "
        "here"),
    "unsourced_repair": Row(
        "unsourced_input",
        "Send instead: the value as a tool of this session returned it (call the tool that "
        "provides it, then pass its result, converted or not)"),
    # a unit the parser does not know, and the close spellings it offers
    "unknown_unit": Row(
        "unit_parse_error",
        "unknown unit '{unit}' at position {position} in '{text}'"),
    "did_you_mean": Row(
        "unit_parse_error",
        " (did you mean {alternatives}?)"),
    # a spelling with two meanings, and the unambiguous ones to write instead
    "ambiguous_unit": Row(
        "unit_parse_error",
        "'{unit}' is ambiguous: "),
    "write_instead": Row(
        "unit_parse_error",
        "; write {alternatives} instead"),
    # a temperature below absolute zero where a temperature (not a difference) is declared
    "below_absolute_zero": Row(
        "below_absolute_zero",
        "{field}: received {received}, below absolute zero ({zero})"),
    "below_absolute_zero_repair": Row(
        "below_absolute_zero",
        "Send instead: a temperature of at least {zero} (absolute zero)"),
}


def render(name: str, /, **fields: Any) -> str:
    """Row ``name``'s wording with its fields filled in; every field must be given, no other."""
    row = ROWS[name]
    given = set(fields)
    if given != row.fields:
        raise TypeError(f"row {name!r} takes {sorted(row.fields)}, given {sorted(given)}")
    return _FIELD.sub(lambda m: str(fields[m.group(1)]), row.template)


def says(text: str, name: str, /, **fields: Any) -> str:
    """Assert that ``text`` holds row ``name``'s wording; return ``text``."""
    expected = render(name, **fields)
    assert expected in text, f"expected the {name!r} wording\n  {expected}\nin\n  {text}"
    return text


def _facts(refused: Any) -> tuple[str | None, str | None, str]:
    """(code, field, text the model reads) of a violation, a tool result or a proxy decision."""
    if hasattr(refused, "repair") and hasattr(refused, "code"):  # a GuardViolation
        return refused.code, refused.field, refused.repair()
    if hasattr(refused, "payload") and hasattr(refused, "action"):  # the proxy's Decision
        assert refused.action == "refuse", refused
        refused = refused.payload
    if isinstance(refused, dict):
        assert refused.get("isError") is True, refused
        meta = (refused.get("_meta") or {}).get(VIOLATION_META) or {}
        text = "".join(c.get("text", "") for c in refused["content"])
        return meta.get("code"), meta.get("field"), text
    # the MCP SDK's CallToolResult
    assert refused.is_error, refused
    meta = (refused.meta or {}).get(VIOLATION_META) or {}
    text = "".join(getattr(c, "text", "") for c in refused.content)
    return meta.get("code"), meta.get("field"), text


def refusal(refused: Any, name: str, /, **fields: Any) -> str:
    """Assert that ``refused`` is row ``name``'s refusal: its code, its field (``field=``) and
    its wording; return the text the model reads."""
    code, field, text = _facts(refused)
    row = ROWS[name]
    assert code == row.code, f"code {code!r}, expected {row.code!r} (row {name!r})"
    if "field" in fields:
        assert field == fields["field"], f"field {field!r}, expected {fields['field']!r}"
    if "field" not in row.fields:
        fields.pop("field", None)
    return says(text, name, **fields)
