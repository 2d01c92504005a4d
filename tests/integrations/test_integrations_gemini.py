"""toolbox(...).schemas("gemini"): function declarations Gemini accepts, units kept in words.

Gemini's ``FunctionDeclaration.parameters`` is a ``Schema`` object, which Google documents as a
select subset of an OpenAPI 3.0 schema: a single ``type`` per node, ``anyOf``, ``properties``,
``required``, ``items``, ``description``, ``format``, ``nullable``, ``enum``, numeric and length
ranges, ``propertyOrdering``, ``title``, ``default``, ``example``. Keys outside it
(``additionalProperties``, ``$ref``, ``oneOf``, ``const``, vendor ``x-*`` keys) are refused, and an
OBJECT must have properties. These tests check our declarations against that subset.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from adapter_tools import BOX, read_discharge, runoff_depth
from quantity_guard import quantity_tool, toolbox
from quantity_guard.adapters import GEMINI_KEYWORDS

SNAPSHOTS = Path(__file__).parents[1] / "snapshots"
ALLOWED = {"type", "format", "title", "description", "nullable", "enum", "items", "minItems",
           "maxItems", "properties", "required", "minProperties", "maxProperties", "minLength",
           "maxLength", "pattern", "minimum", "maximum", "anyOf", "propertyOrdering", "default",
           "example"}
TYPES = {"string", "number", "integer", "boolean", "array", "object"}


@quantity_tool(params={"stage": {"unit": "ft", "datum": "NAVD88", "optional": True},
                       "when": {"tz": "America/Chicago"},
                       "flow": {"unit": "cfs", "require_explicit_unit": True,
                                "quality": "approved"}})
def mixed(when, anything, stage=None, flow=None, count: int = 1, tags: list = ()):
    return 0.0


@quantity_tool
def no_parameters():
    return 1.0




def check_gemini_schema(node, path="parameters"):
    """Every rule of Gemini's Schema subset that our schemas could break."""
    assert isinstance(node, dict), path
    unknown = set(node) - ALLOWED
    assert not unknown, f"{path}: keys Gemini refuses: {unknown}"
    if "type" in node:
        assert node["type"] in TYPES, f"{path}: type must be one name, not {node['type']!r}"
    else:
        assert node.get("anyOf"), f"{path}: neither a type nor anyOf"
    if node.get("type") == "object":
        assert node.get("properties"), f"{path}: an OBJECT needs properties"
        assert set(node.get("required", ())) <= set(node["properties"]), path
    if node.get("type") == "array":
        check_gemini_schema(node["items"], f"{path}.items")
    for key, sub in node.get("properties", {}).items():
        check_gemini_schema(sub, f"{path}.{key}")
    for i, sub in enumerate(node.get("anyOf", ())):
        check_gemini_schema(sub, f"{path}.anyOf[{i}]")
    if "format" in node:
        assert (node.get("type"), node["format"]) in {("string", "date-time"), ("string", "enum"),
                                                      ("number", "float"), ("number", "double"),
                                                      ("integer", "int32"), ("integer", "int64")}


def test_gemini_snapshot():
    """The exact declarations Gemini is shown; regenerate with QG_UPDATE_SNAPSHOTS=1."""
    got = json.dumps(BOX.schemas("gemini"), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    path = SNAPSHOTS / "schemas_gemini.json"
    if os.environ.get("QG_UPDATE_SNAPSHOTS"):
        path.write_text(got, "utf-8")
    assert got == path.read_text("utf-8")


def test_the_keyword_list_is_googles_subset():
    assert GEMINI_KEYWORDS == ALLOWED


def test_declarations_keep_to_the_subset_and_state_units_in_words():
    decls = toolbox([read_discharge, runoff_depth, mixed, no_parameters]).schemas("gemini")
    assert [sorted(d) for d in decls] == [["description", "name", "parameters"]] * 3 + [
        ["description", "name"]]  # no parameters at all rather than an empty OBJECT
    for d in decls[:3]:
        check_gemini_schema(d["parameters"])
        assert "x-" not in json.dumps(d)
    assert decls[0]["description"].endswith("Returns cubic feet per second (cfs).")
    props = decls[1]["parameters"]["properties"]
    assert "cubic metres per second (m3/s)" in props["discharge"]["description"]
    assert "square kilometres (km2)" in props["area"]["description"]
    assert decls[1]["parameters"]["required"] == ["discharge", "area"]
    m = decls[2]["parameters"]["properties"]
    assert "above NAVD88" in m["stage"]["description"]
    assert m["when"] == {"type": "string", "format": "date-time",
                         "description": "In a timestamp with a UTC offset, in America/Chicago."}
    assert "State the unit" in m["flow"]["description"]
    assert [b.get("type") for b in m["flow"]["anyOf"]] == ["string", "object"]
    assert m["anything"] == {"anyOf": [{"type": "string"}, {"type": "number"},
                                       {"type": "boolean"}]}
    assert m["tags"]["type"] == "array" and "anyOf" in m["tags"]["items"]
    assert decls[2]["parameters"]["required"] == ["when", "anything"]


def test_what_the_schema_invites_is_what_the_tool_accepts():
    """Each branch of a unit parameter's anyOf, sent as Gemini would, reaches the body converted."""
    box = toolbox([runoff_depth])
    for discharge in (35.396, "1250 cfs", {"value": 1250, "unit": "cfs"}):
        result = box.invoke("runoff_depth", {"discharge": discharge, "area": 29000})
        assert result["isError"] is False, result
        assert result["structuredContent"]["value"] == pytest.approx(0.10546, rel=1e-3)


def test_type_lists_become_anyof_and_nullable():
    from quantity_guard.adapters import gemini_schema
    assert gemini_schema({"type": ["string", "null"], "description": "d"}) == {
        "type": "string", "nullable": True, "description": "d"}
    assert gemini_schema({"type": ["string", "number", "null"]}) == {
        "nullable": True, "anyOf": [{"type": "string"}, {"type": "number"}]}
    assert gemini_schema({"type": "object", "properties": {"a": {"const": 1, "type": "integer"}},
                    "additionalProperties": False, "$defs": {}}) == {
        "type": "object", "properties": {"a": {"type": "integer"}}}


UNITS = ["m**3/s", "cfs", "km**2", "ft", "mm/day", "Ml/d", "degC", "kPa"]


@st.composite
def tools(draw):
    n = draw(st.integers(1, 4))
    names = [f"p{i}" for i in range(n)]
    params = {}
    for name in names:
        kind = draw(st.sampled_from(["unit", "datum", "tz", "explicit", "plain"]))
        if kind == "unit":
            params[name] = {"unit": draw(st.sampled_from(UNITS)),
                            "optional": draw(st.booleans())}
        elif kind == "datum":
            params[name] = {"unit": "ft", "datum": draw(st.sampled_from(["NAVD88", "NGVD29"]))}
        elif kind == "tz":
            params[name] = {"tz": "UTC"}
        elif kind == "explicit":
            params[name] = {"unit": draw(st.sampled_from(UNITS)), "require_explicit_unit": True}
    src = f"def t({', '.join(names)}):\n    return 0.0\n"
    scope: dict = {}
    exec(src, scope)  # a function with exactly these parameter names
    returns = draw(st.sampled_from([None, {"unit": "cfs"}, {"flow": {"unit": "cfs"}}]))
    return quantity_tool(scope["t"], params=params, returns=returns)


def google_genai_types():
    try:
        from google.genai import types
    except ImportError:
        return None
    return types


def test_googles_own_sdk_types_accept_the_declarations():
    """google-genai's pydantic types forbid unknown keys and take one type per node: a real
    peer for the checks above (skipped where google-genai is not installed)."""
    types = google_genai_types()
    if types is None:
        pytest.skip("google-genai is not installed: pip install -e '.[integrations]' "
                    "(Python 3.11+)")
    decls = toolbox([read_discharge, runoff_depth, mixed, no_parameters]).schemas("gemini")
    parsed = [types.FunctionDeclaration.model_validate(d) for d in decls]
    discharge = parsed[1].parameters.properties["discharge"]
    assert [s.type for s in discharge.any_of] == [types.Type.NUMBER, types.Type.STRING,
                                                  types.Type.OBJECT]
    assert parsed[3].parameters is None
    # and the peer does refuse what the flavour removes
    mcp = runoff_depth.json_schema()["inputSchema"]
    with pytest.raises(Exception, match="x-unit"):
        types.Schema.model_validate(mcp)
    with pytest.raises(Exception):
        types.Schema.model_validate({"type": ["string", "null"]})


@settings(max_examples=60, deadline=None)
@given(tools())
def test_any_declared_tool_gives_a_gemini_safe_declaration(tool):
    (decl,) = toolbox([tool]).schemas("gemini")
    check_gemini_schema(decl["parameters"])
    types = google_genai_types()
    if types is not None:
        types.FunctionDeclaration.model_validate(decl)
    mcp = tool.json_schema()
    for pname, spec in tool.params.items():
        described = decl["parameters"]["properties"][pname]["description"]
        assert spec.words() in described  # the unit survives the loss of x-unit
        assert mcp["inputSchema"]["properties"][pname]["x-" + ("tz" if spec.tz else "unit")]
