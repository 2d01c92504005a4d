"""``quantity-guard-mcp annotate``: an annotation file drafted from a server's own words.

The drafter reads a ``tools/list`` result (tool and property descriptions, titles, property names,
output schemas) and writes TOML that ``--annotations`` loads as it is. It declares a unit, a datum
or a time zone only where the server's words state one, with the quoted words as a comment; where
nothing is stated, or the words are ambiguous, it writes a comment and no declaration. A wrong unit
in a draft is worse than none: every rule below prefers saying nothing.

Units are recognised with the kernel's own names and spellings (``quantity_guard.units``: every
symbol, alias, long name, prefix and refusal of the unit table), datums with the datum registry's
names and aliases (``data/datums.json``), zones with the IANA database. The reading is a table of
named rules (:data:`RULES`), each with tests on both sides (``tests/annotations/``):

- where a unit may be stated in words (the *slots*): after ``in`` and its kin (``measured in``,
  ``units of``), alone in parentheses (``stage (ft)``), after ``unit:``, and as the last word(s) of
  a property name (``flow_cfs``, ``elevationFt``);
- what the words in a slot mean: the longest run of words the kernel reads as one unit (with a
  datum: ``feet above MLLW``), a qualifier that settles one of the kernel's own ambiguities
  (``US gallons``, ``metric tons``), a degree with its scale letter (``degrees F``);
- when to say nothing: the kernel refuses the word as ambiguous (``gallons``, ``tons``), a degree
  on a temperature, several different units in one field's words, a unit chosen per call by
  another parameter or carried by a sibling field.
"""
from __future__ import annotations

import json
import re
import textwrap
from typing import Any, Callable

from .draft_words import (RULES, STATION_DATUM, TEMPERATURE, Reading, datums_in, kernel,
                          quote, read_name, read_text, read_tz, read_unit_words)

__all__ = ["draft", "draft_toml", "FieldDraft", "ToolDraft", "RULES", "read_unit_words",
           "read_name", "read_text", "tools_of"]


# -- the fields of a tool ------------------------------------------------------------------------
class FieldDraft:
    """One numeric (or timestamp) parameter or result field and what its words state."""

    __slots__ = ("where", "path", "kind", "unit", "datum", "tz", "evidence", "rules", "notes",
                 "declarable")

    def __init__(self, where: str, path: str, kind: str, declarable: bool = True) -> None:
        self.where, self.path, self.kind = where, path, kind
        self.unit: "str | None" = None
        self.datum: "str | None" = None
        self.tz: "str | None" = None
        self.evidence: "list[str]" = []
        self.rules: "list[str]" = []
        self.notes: "list[str]" = []
        self.declarable = declarable

    @property
    def field(self) -> str:
        return f"{self.where}.{self.path}" if self.path else self.where

    @property
    def declared(self) -> bool:
        return self.declarable and (self.unit is not None or self.tz is not None)

    def declaration(self) -> str:
        parts = []
        if self.unit is not None:
            parts.append(f"unit = {_toml_str(self.unit)}")
            if self.datum is not None:
                parts.append(f"datum = {_toml_str(self.datum)}")
        elif self.tz is not None:
            parts.append(f"tz = {_toml_str(self.tz)}")
        return "{ " + ", ".join(parts) + " }"


class ToolDraft:
    __slots__ = ("name", "fields", "notes")

    def __init__(self, name: str) -> None:
        self.name = name
        self.fields: "list[FieldDraft]" = []
        self.notes: "list[str]" = []


def _types(schema: dict, root: dict) -> "set[str]":
    from .policy_schema import branches_of as _branches_of
    kinds: "set[str]" = set()
    for b in _branches_of(schema, root):
        t = b.get("type")
        if isinstance(t, list):
            kinds.update(x for x in t if isinstance(x, str))
        elif isinstance(t, str):
            kinds.add(t)
        if "enum" in b and not t:
            kinds.update(type(v).__name__ for v in b["enum"])
    return kinds


def _walk(schema: dict, root: dict, prefix: str, depth: int = 0):
    """``(path, schema, parent properties)`` for every property under ``schema``, arrays
    stepped into with ``[]``."""
    from .policy_schema import branches_of as _branches_of
    if depth > 10:
        return
    for b in _branches_of(schema, root):
        items = b.get("items")
        if isinstance(items, dict) and prefix:
            sub = [x for x in _branches_of(items, root)]
            if any(isinstance(x.get("properties"), dict) or isinstance(x.get("items"), dict)
                   for x in sub):
                yield from _walk(items, root, prefix + "[]", depth + 1)
        props = b.get("properties")
        if isinstance(props, dict):
            for name, sub in props.items():
                if not isinstance(sub, dict):
                    continue
                path = f"{prefix}.{name}" if prefix else name
                yield path, sub, props
                yield from _walk(sub, root, path, depth + 1)


def _leaf_kind(schema: dict, root: dict) -> "tuple[str, int]":
    """``("number" | "string" | "other", array depth)`` of a property schema."""
    from .policy_schema import branches_of as _branches_of
    depth = 0
    node = schema
    for _ in range(4):
        kinds = _types(node, root)
        if "array" in kinds:
            items = [b.get("items") for b in _branches_of(node, root) if isinstance(b.get("items"), dict)]
            if not items:
                return "other", depth
            node = items[0]
            depth += 1
            continue
        if kinds & {"number", "integer"}:
            return "number", depth
        if kinds == {"string"} or kinds == {"string", "null"}:
            return "string", depth
        return "other", depth
    return "other", depth


def tools_of(doc: Any) -> "list[dict]":
    """The tools of a saved ``tools/list`` result: ``{"tools": [...]}``, a JSON-RPC answer
    holding one, a published-tools record (``tools_list``), or a bare list."""
    if isinstance(doc, dict):
        for key in ("result", "tools_list"):
            if isinstance(doc.get(key), dict):
                return tools_of(doc[key])
        if isinstance(doc.get("tools"), list):
            return [t for t in doc["tools"] if isinstance(t, dict)]
    if isinstance(doc, list):
        return [t for t in doc if isinstance(t, dict)]
    raise ValueError("not a tools/list result: expected {\"tools\": [...]}")


def draft(tools: "list[dict]") -> "list[ToolDraft]":
    return [_draft_tool(t) for t in tools if isinstance(t.get("name"), str)]


def _unit_param_names(tool: dict) -> "list[str]":
    props = (tool.get("inputSchema") or {}).get("properties") or {}
    return [p for p in props if isinstance(p, str) and "unit" in p.lower()]


def _datum_param(tool: dict) -> bool:
    props = (tool.get("inputSchema") or {}).get("properties") or {}
    return any(isinstance(p, str) and "datum" in p.lower() for p in props)


def _draft_tool(tool: dict) -> ToolDraft:
    out = ToolDraft(tool["name"])
    text = tool.get("description")
    description: str = text if isinstance(text, str) else ""
    per_call = _unit_param_names(tool)
    given = tool.get("inputSchema")
    schema: dict = given if isinstance(given, dict) else {}
    listed = schema.get("properties")
    props: dict = listed if isinstance(listed, dict) else {}
    for pname, sub in props.items():
        if not isinstance(sub, dict) or not isinstance(pname, str):
            continue
        kind, depth = _leaf_kind(sub, schema)
        own = _own_words(sub) + " " + _doc_line(description, pname)
        if kind == "other":
            nested = [p for p, s, _ in _walk(sub, schema, pname)
                      if _leaf_kind(s, schema)[0] == "number"]
            if nested:
                f = FieldDraft("params", pname, "nested", declarable=False)
                f.notes.append(f"an object; its numbers ({', '.join(nested[:4])}) are inside it, "
                               f"and the guard declares top-level parameters only")
                out.fields.append(f)
            continue
        f = FieldDraft("params", pname, kind)
        if kind == "number":
            _read_unit(f, own, pname, {}, per_call, _datum_param(tool))
        else:
            _read_timestamp(f, own, sub)
            if f.tz is None and not f.notes:
                continue
        out.fields.append(f)
    _draft_results(tool, out, description, per_call)
    return out


def _own_words(schema: dict) -> str:
    return " ".join(str(schema[k]) for k in ("title", "description") if isinstance(schema.get(k), str))


def _doc_line(text: str, name: str) -> str:
    from .policy_report import doc_line as line
    return line(text, name)


def _read_unit(f: FieldDraft, words: str, name: str, siblings: dict, per_call: "list[str]",
               datum_param: bool) -> None:
    leaf = name.rsplit(".", 1)[-1].rstrip("[]")
    carried = [s for s in siblings if isinstance(s, str) and s != leaf
               and re.fullmatch(r"(?i)(standard_?)?units?(_?code|_?of_?measure)?", s)]
    if carried:
        f.rules.append("carried-by-sibling")
        f.notes.append(f"the unit is carried beside it, in {carried[0]!r}: no declaration")
        return
    chosen = [p for p in per_call if re.search(r"(?<![\w])" + re.escape(p) + r"(?![\w])", words)]
    if chosen or re.search(r"\brequested units?\b|\bselected units?\b", words, re.I):
        f.rules.append("chosen-per-call")
        f.notes.append("the unit is chosen per call" + (f" by {chosen[0]!r}" if chosen else "")
                       + ": no declaration")
        return
    readings = read_text(words)
    if not readings:
        named = read_name(leaf)
        if named is not None:
            readings = [named]
    if not readings:
        f.notes.append("no unit stated" + (f" ({_short(words)!r})" if words.strip() else
                                           " (no description)"))
        _note_height(f, words, leaf)
        return
    ambiguous = [r for r in readings if r.unit is None]
    units = {r.key for r in readings if r.unit is not None}
    if ambiguous:
        r = ambiguous[0]
        f.rules.append(r.rule)
        f.notes.append(f"ambiguous: {_short(r.evidence)!r}; choose one of "
                       f"{', '.join(r.choices) or 'the units it may mean'}")
        return
    if len(units) > 1:
        f.rules.append("several-units")
        f.notes.append("the words name several units (" + ", ".join(
            dict.fromkeys(r.unit for r in readings if r.unit)) + f"): {_short(words)!r}")
        return
    r = readings[0]
    _, try_parse_unit, _ = kernel()
    unit = try_parse_unit(r.unit) if r.unit else None
    if unit is not None and unit.symbol == "deg" and TEMPERATURE.search(words + " " + leaf):
        f.rules.append("degree-on-temperature")
        f.notes.append(f"ambiguous: {_short(r.evidence)!r} on a temperature; choose degC or degF")
        return
    f.unit = r.unit
    f.rules.append(r.rule)
    f.evidence.append(r.evidence)
    datum = next((x.datum for x in readings if x.datum), None)
    length = unit is not None and unit.dims == try_parse_unit("m").dims
    if length:
        _read_datum(f, words, datum, datum_param)


def _note_height(f: FieldDraft, words: str, name: str) -> None:
    return None


def _read_datum(f: FieldDraft, words: str, datum: "str | None", datum_param: bool) -> None:
    named = datums_in(words)
    if datum is not None and all(d != datum for d, _ in named):
        named.insert(0, (datum, datum))
    if len(named) > 1:
        f.rules.append("datum-several")
        f.notes.append(f"several datums named ({', '.join(d for d, _ in named)}): no datum; "
                       f"declare the one the values are on, once you know it")
        return
    if named:
        f.datum = named[0][0]
        f.rules.append("datum-named")
        return
    if datum_param and re.search(r"\bdatum\b", words, re.I):
        f.rules.append("datum-chosen-per-call")
        f.notes.append("the datum is chosen per call: no datum")
        return
    if STATION_DATUM.search(words):
        f.rules.append("datum-station")
        f.notes.append("on the station's own datum: declare datum = \"GAGE:<station id>\" once "
                       "you know the station")


def _read_timestamp(f: FieldDraft, words: str, schema: dict) -> None:
    tz, rule, evidence = read_tz(words, schema)
    if rule:
        f.rules.append(rule)
    if tz is not None:
        f.tz = tz
        f.evidence.append(evidence)
    elif rule == "tz-offset-only":
        f.notes.append(f"a timestamp with an offset, no zone named ({_short(evidence)!r}): "
                       f"declare tz = \"<IANA zone>\" only if every caller uses one zone")
    elif rule == "tz-not-a-timestamp" and words.strip():
        f.notes.append(f"not a timestamp ({_short(words)!r}): no tz")


def _draft_results(tool: dict, out: ToolDraft, description: str, per_call: "list[str]") -> None:
    given = tool.get("outputSchema")
    output: dict = given if isinstance(given, dict) else {}
    listed = output.get("properties")
    props: dict = listed if isinstance(listed, dict) else {}
    wrapped = set(props) == {"result"}
    if not isinstance(listed, dict) or wrapped:
        if wrapped and _leaf_kind(props["result"], output)[0] == "number":
            f = FieldDraft("returns", "", "number")
            _read_unit(f, _own_words(props["result"]) + " " + description, "result", {}, per_call,
                       _datum_param(tool))
            out.fields.append(f)
            return
        readings = read_text(description)
        first = re.split(r"(?<=[.!?])\s|\n\s*\n", description.strip(), maxsplit=1)[0]
        units = {r.key for r in readings}
        if not wrapped and len(units) == 1 and None not in units and read_text(first) \
                and not _is_param_words(readings[0], tool):
            r = readings[0]
            f = FieldDraft("returns", "", "number")
            f.unit = r.unit
            f.rules.append("result-in-description")
            f.evidence.append(quote(description, first[:40]))
            f.notes.append("declared for a bare-number result: a result that arrives as prose or "
                           "JSON is passed on unlabelled, with a warning once")
            _, try_parse_unit, _ = kernel()
            unit = try_parse_unit(r.unit)
            if unit is not None and unit.dims == try_parse_unit("m").dims:
                _read_datum(f, description, r.datum, _datum_param(tool))
            out.fields.append(f)
            return
        named = list(dict.fromkeys(f"{r.unit or 'ambiguous'} ({_short(r.evidence, 60)!r})"
                                   for r in readings))
        if named:
            out.notes.append("the result is prose or untyped JSON (no output schema to label "
                             "fields of); its words name: " + "; ".join(named[:6]))
        return
    for path, sub, siblings in _walk(output, output, ""):
        kind, _ = _leaf_kind(sub, output)
        if kind == "number":
            f = FieldDraft("returns", path, kind)
            _read_unit(f, _own_words(sub), path, siblings, per_call, _datum_param(tool))
            out.fields.append(f)
        elif kind == "string":
            words = _own_words(sub)
            tz, rule, evidence = read_tz(words, sub)
            if tz is not None:
                f = FieldDraft("returns", path, "string", declarable=False)
                f.tz = tz
                f.rules.append(rule)
                f.notes.append(f"a timestamp in {tz} ({_short(evidence)!r}); results are labelled "
                               f"with units only, so it is not declared")
                out.fields.append(f)


def _is_param_words(reading: Reading, tool: dict) -> bool:
    """Whether the unit a tool description states is a parameter's (its name is in the same
    sentence): ``radius in km`` describes the input, not the result."""
    props = (tool.get("inputSchema") or {}).get("properties") or {}
    return any(isinstance(p, str) and re.search(r"\b" + re.escape(p) + r"\s+(?:\w+\s+){0,2}"
                                                r"(?:in|\()", reading.evidence) for p in props)


def _short(text: str, at_most: int = 100) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= at_most else text[:at_most - 3] + "..."


# -- TOML ----------------------------------------------------------------------------------------
_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml_key(key: str) -> str:
    return key if _BARE.match(key) else _toml_str(key)


def _toml_str(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _comment(text: str) -> str:
    """A TOML comment, wrapped at 88 columns (its continuation lines indented)."""
    return "\n".join(textwrap.wrap(" ".join(str(text).split()), 88, initial_indent="# ",
                                   subsequent_indent="#   ", break_long_words=False,
                                   break_on_hyphens=False))


def draft_toml(drafts: "list[ToolDraft]", source: str = "") -> str:
    """The draft as TOML: active declarations with their evidence, comments for the rest."""
    declared = sum(1 for t in drafts for f in t.fields if f.declared)
    lines = [
        _comment("Drafted by quantity-guard-mcp annotate" + (f" from {source}" if source else "")
                 + f": {declared} declaration(s) on {len(drafts)} tool(s)."),
        "# Each declaration quotes the server's own words; where the words state no unit, or an",
        "# ambiguous one, there is a comment and no declaration. Review every line, then run",
        "# quantity-guard-mcp --check --annotations FILE -- COMMAND.",
    ]
    for t in drafts:
        params = [f for f in t.fields if f.where == "params"]
        results = [f for f in t.fields if f.where == "returns"]
        active_params = [f for f in params if f.declared]
        active_results = [f for f in results if f.declared]
        tool_key = _toml_key(t.name)
        lines.append("")
        if not active_params and not active_results:
            lines.append(f"# tools.{tool_key}: nothing to declare")
            for f in t.fields:
                lines.extend(_field_comments(f, inactive=True))
            for note in t.notes:
                lines.append(_comment(note))
            continue
        single = [f for f in active_results if f.path == ""]
        if single or (t.notes and not active_params):
            lines.append(f"[tools.{tool_key}]")
            for note in t.notes:
                lines.append(_comment(note))
            for f in single:
                lines.extend(_field_comments(f))
                lines.append(f"returns = {f.declaration()}")
        elif t.notes:
            lines.append(f"# tools.{tool_key}:")
            lines.extend(_comment(n) for n in t.notes)
        if params:
            if active_params:
                lines.append(f"[tools.{tool_key}.params]")
            for f in params:
                lines.extend(_field_comments(f, inactive=not f.declared))
                if f.declared:
                    lines.append(f"{_toml_key(f.path)} = {f.declaration()}")
        fields = [f for f in results if f.path]
        if fields:
            if any(f.declared for f in fields):
                lines.append(f"[tools.{tool_key}.returns]")
            for f in fields:
                lines.extend(_field_comments(f, inactive=not f.declared))
                if f.declared:
                    lines.append(f"{_toml_key(f.path)} = {f.declaration()}")
    return "\n".join(lines) + "\n"


def _field_comments(f: FieldDraft, inactive: bool = False) -> "list[str]":
    out = []
    label = f"{f.where}.{f.path}" if f.path else f.where
    for ev in f.evidence:
        out.append(_comment(f"{label}: \"{ev}\" [{', '.join(f.rules)}]"))
    for note in f.notes:
        out.append(_comment(f"{label}: {note}"))
    if inactive and not f.notes and not f.evidence:
        out.append(_comment(f"{label}: nothing stated"))
    return out


def summary(drafts: "list[ToolDraft]") -> str:
    fields = [f for t in drafts for f in t.fields]
    units = sum(1 for f in fields if f.declared and f.unit)
    datums = sum(1 for f in fields if f.declared and f.datum)
    zones = sum(1 for f in fields if f.declared and f.tz)
    return (f"drafted {units} unit(s), {datums} datum(s) and {zones} time zone(s) for "
            f"{len(fields)} field(s) on {len(drafts)} tool(s)")


Reader = Callable[[str], "Reading | None"]
