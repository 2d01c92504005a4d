"""JSON Schema for the proxy's quantity policy: a guarded tool's listing rewritten to advertise
its units (:func:`advertise_tool`: the parameters' schemas widened to the forms the guard
accepts, an output schema labelled, the unit in words), and the schema reading the policy and
its reports share (types, branches, local ``$ref``s, a result field's sub-schema)."""
from __future__ import annotations

import copy

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # annotations only: they are never evaluated at run time
    from typing import Any

from ..spec import Spec

__all__ = ["Listed", "advertise_tool", "branches_of", "schema_at", "field_paths", "properties_of",
           "type_names", "UNITS_META"]


class Listed:
    """What a guarded tool's listing declared: its required parameters, the annotated ones it
    types ``integer``, and whether it has an output schema."""

    __slots__ = ("required", "integers", "output_schema", "properties")

    def __init__(self) -> None:
        self.required: frozenset = frozenset()
        self.properties: frozenset = frozenset()
        self.integers: set[str] = set()
        self.output_schema = False


def type_names(schema: dict) -> list:
    """The type names a parameter schema allows (``type``, a type list, anyOf/oneOf branches)."""
    kinds: list = []
    for s in [schema] + [b for key in ("anyOf", "oneOf") for b in schema.get(key, ())
                         if isinstance(b, dict)]:
        t = s.get("type")
        kinds.extend(t if isinstance(t, list) else [t])
    return kinds


def takes_integer(schema: dict) -> bool:
    """Whether the upstream wants whole numbers here (for an array: as its items)."""
    kinds = type_names(schema)
    if "array" in kinds:
        for s in [schema] + [b for key in ("anyOf", "oneOf") for b in schema.get(key, ())
                             if isinstance(b, dict)]:
            if isinstance(s.get("items"), dict):
                return takes_integer(s["items"])
        return False
    return "integer" in kinds and "number" not in kinds


def takes_null(schema: dict) -> bool:
    return "null" in type_names(schema)


def label_output_schema(output: dict, key: str | None, spec: Spec) -> None:
    """Add the declaration's x-* keys to the property of the upstream's output schema that holds
    the labelled value (``result`` for an SDK-wrapped primitive, ``value``, or ``key``)."""
    x = {k: v for k, v in spec.json_schema().items() if k.startswith("x-")}
    props = output.get("properties")
    if not isinstance(props, dict):
        props = {}
    if key is not None:
        target = schema_at(output, key)
        if target is not None:
            target.update(x)
            target["description"] = join_text(target.get("description"), spec.in_words())
        return
    for n in [n for n in ("result", "value") if n in props][:1]:
        target = props.get(n)
        if isinstance(target, dict):
            target.update(x)
            target["description"] = join_text(target.get("description"), spec.in_words())
            return


def takes_array(schema: dict) -> bool:
    kinds = [schema.get("type")] + [s.get("type") for s in schema.get("anyOf", ())
                                    if isinstance(s, dict)]
    return any(k == "array" or (isinstance(k, list) and "array" in k) for k in kinds)


def join_text(a: str | None, b: str) -> str:
    if not a or not a.strip():
        return b
    a = a.rstrip()
    return f"{a} {b}" if a[-1] in ".!?:;" else f"{a}. {b}"


def merge_param(original: dict, spec: Spec, integer: bool = False) -> dict:
    """The upstream's schema for one parameter, widened to the shapes the guard accepts, with
    the declaration's x-* keys and the unit stated in words. A range the upstream declared
    stays on the bare-number form (a bare number is in the declared unit) and is stated in
    words for the other forms. Where the upstream takes an ``integer``, the bare-number form
    is ``integer`` too; where it takes ``null``, so does the merged schema. ``default``,
    ``title`` and every other key are kept."""
    ours = copy.deepcopy(spec.json_schema())
    merged = {k: v for k, v in original.items() if k not in ("type", "anyOf", "oneOf", "format",
                                                            "description", *RANGES)}
    ranges = {k: original[k] for k in RANGES if isinstance(original.get(k), (int, float))
              and not isinstance(original.get(k), bool)}
    range_words = ""
    unit = spec.unit
    if unit is not None:  # not a timestamp (a Spec has a unit or a tz, never both)
        for branch in ours.get("anyOf", ()):
            if branch.get("type") == "number":
                branch.update(ranges)
                if integer:
                    branch["type"] = "integer"
        if ranges:
            words = {"minimum": "at least", "maximum": "at most", "exclusiveMinimum": "above",
                     "exclusiveMaximum": "below"}
            range_words = " The value must be " + " and ".join(
                f"{words[k]} {v} {unit.symbol}" for k, v in ranges.items()) + "."
        if integer:
            range_words += f" The tool takes a whole number{of_unit(unit_suffix(unit.symbol))}."
        if takes_null(original) and "anyOf" in ours:
            ours["anyOf"].append({"type": "null"})
    merged.update({k: v for k, v in ours.items() if k != "description"})
    merged["description"] = join_text(original.get("description"), ours["description"] + range_words)
    return merged


HEADER_KEY = "x-mcp-header"


_HEADER_TYPES = ("string", "integer", "boolean")


def header_mapped(original: dict, merged: dict) -> dict:
    """A parameter the upstream mirrors into an ``Mcp-Param-*`` HTTP header (``x-mcp-header``,
    2026-07-28): its schema must keep a single primitive ``type`` (string, integer or boolean),
    or a client must drop the whole tool from its listing. The widened forms (``anyOf``) are
    taken back out; the upstream's own type, format and range stay, with the x-* keys and the
    unit in words added. A value in another unit is still accepted and converted (the proxy
    recomputes the header from the converted body)."""
    kind = original.get("type")
    if merged.get("type") == kind and "anyOf" not in merged and "oneOf" not in merged:
        return merged
    if kind not in _HEADER_TYPES:  # not valid upstream either: left as the upstream declared it
        return merged
    out = dict(original)
    out.update({k: v for k, v in merged.items() if k.startswith("x-") and k != HEADER_KEY})
    header = original[HEADER_KEY]
    out["description"] = join_text(merged.get("description"),
                               f"This parameter is also sent as the HTTP header Mcp-Param-"
                               f"{header}, so its schema stays a plain {kind}.")
    return out


def unit_suffix(symbol: str) -> str:
    return "" if symbol in ("1", "") else " " + symbol


def of_unit(unit: str) -> str:
    return f" of{unit}" if unit else ""


def properties_of(schema) -> dict:
    props = schema.get("properties") if isinstance(schema, dict) else None
    return props if isinstance(props, dict) else {}


def resolve_ref(schema: "Any", root: dict) -> "Any":
    for _ in range(32):
        if not isinstance(schema, dict) or not isinstance(schema.get("$ref"), str):
            return schema
        ref = schema["$ref"]
        if not ref.startswith("#/"):
            return schema
        node: "Any" = root
        for part in ref[2:].split("/"):
            node = node.get(part.replace("~1", "/").replace("~0", "~")) \
                if isinstance(node, dict) else None
        schema = node
    return schema


def branches_of(schema: "Any", root: dict) -> list:
    """A schema and its anyOf/oneOf/allOf branches, references followed."""
    schema = resolve_ref(schema, root)
    if not isinstance(schema, dict):
        return []
    out = [schema]
    for key in ("anyOf", "oneOf", "allOf"):
        for b in schema.get(key, ()) if isinstance(schema.get(key), list) else ():
            out.extend(branches_of(b, root))
    return out


def schema_at(output: dict, key: str) -> "dict | None":
    """The sub-schema of an output schema at a result field or path (``stations[].distance_km``),
    following properties, array items, anyOf/oneOf/allOf branches and local ``$ref``s; None
    when the schema has no such field."""
    from ..annotations import path_segments
    nodes: list = [output]
    for name, arrays in path_segments(key):
        found = []
        for node in nodes:
            for b in branches_of(node, output):
                props = b.get("properties")
                if isinstance(props, dict) and isinstance(props.get(name), dict):
                    found.append(props[name])
        for _ in range(arrays):
            found = [b.get("items") for node in found for b in branches_of(node, output)
                     if isinstance(b.get("items"), dict)]
        nodes = found
        if not nodes:
            return None
    for node in nodes:
        resolved = resolve_ref(node, output)
        if isinstance(resolved, dict):
            return resolved
    return None


def field_paths(output: dict, at_most: int = 200) -> "list[str]":
    """The field paths an output schema names (``stations[].distance_km``), for suggestions."""
    out: "list[str]" = []

    def walk(schema: "Any", prefix: str, depth: int) -> None:
        if depth > 8 or len(out) >= at_most:
            return
        for b in branches_of(schema, output):
            items = b.get("items")
            if isinstance(items, dict) and prefix:
                walk(items, prefix + "[]", depth + 1)
            props = b.get("properties")
            if isinstance(props, dict):
                for name, sub in props.items():
                    path = f"{prefix}.{name}" if prefix else name
                    if path not in out:
                        out.append(path)
                    walk(sub, path, depth + 1)

    walk(output, "", 0)
    return out


RANGES = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


UNITS_META = "io.github.quantity-guard/units"


def advertise_tool(tool: dict, ann: "Any", array_params: "set[tuple[str, str]]") -> Listed:
    """Rewrite a guarded tool of the upstream's listing in place as the proxy advertises it
    (``ann``: its annotations); each parameter the upstream takes as a list is added to
    ``array_params``. Returns what the listing declared."""
    name = tool.get("name")
    schema = tool.get("inputSchema")
    units: dict = {}
    listed = Listed()
    if isinstance(schema, dict) and isinstance(schema.get("properties"), dict):
        props = schema["properties"]
        required = schema.get("required")
        listed.required = frozenset(r for r in required if isinstance(r, str)) \
            if isinstance(required, list) else frozenset()
        listed.properties = frozenset(p for p in props if isinstance(p, str))
        for pname, spec in ann.params.items():
            if pname in props and isinstance(props[pname], dict):
                if takes_array(props[pname]) and isinstance(name, str):
                    array_params.add((name, pname))
                integer = takes_integer(props[pname])
                if integer:
                    listed.integers.add(pname)
                merged = merge_param(props[pname], spec, integer=integer)
                if HEADER_KEY in props[pname]:
                    merged = header_mapped(props[pname], merged)
                props[pname] = merged
                units[pname] = spec.unit_text or f"timestamp in {spec.tz_text}"
    output = tool.get("outputSchema")
    listed.output_schema = isinstance(output, dict)
    if ann.returns is not None:
        if isinstance(ann.returns, Spec):
            words = ann.returns.words()
            units["return"] = ann.returns.unit_text
            if isinstance(output, dict):
                label_output_schema(output, None, ann.returns)
        else:
            words = "; ".join(f"{k} in {s.words()}" for k, s in ann.returns.items())
            units.update({f"return.{k}": s.unit_text for k, s in ann.returns.items()})
            if isinstance(output, dict):
                for k, s in ann.returns.items():
                    label_output_schema(output, k, s)
        tool["description"] = join_text(tool.get("description"), f"Returns {words}.")
    if units:  # for clients that drop x-* keys from schemas (SDK 2.x keeps Tool._meta)
        meta = tool.get("_meta")
        if not isinstance(meta, dict):
            meta = {}
        tool["_meta"] = {**meta, UNITS_META: units}
    if ann.description:
        tool["description"] = join_text(tool.get("description"), ann.description)
    return listed
