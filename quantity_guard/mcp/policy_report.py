"""The quantity policy's reports: the annotation file checked against the upstream's listing
(``--check``, ``--strict-annotations``, the warnings when the proxy first relays
``tools/list``), the one-line summary of what is guarded, and warn mode's summary of what
would have been refused."""
from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # annotations only: they are never evaluated at run time
    from typing import Any

from ..spec import Spec
from .policy_schema import field_paths, properties_of, schema_at, type_names

__all__ = ["CatalogueReport", "catalogue_problems", "check_catalogue", "summary", "warn_summary",
           "doc_line"]


def summary(annotations: "Any", tools: list[dict]) -> str:
    """What the annotations guard on this listing, in one line: ``guarding 3 parameters
    and 2 results on 2 of 5 tools`` (declarations the listing does not match left out)."""
    listed: "dict[Any, dict]" = {t.get("name"): t for t in tools if isinstance(t, dict)}
    params = results = on = 0
    for name, ann in annotations.items():
        tool = listed.get(name)
        if tool is None:
            continue
        props = properties_of(tool.get("inputSchema"))
        n = sum(1 for p in ann.params if p in props)
        m = 0 if ann.returns is None else 1 if isinstance(ann.returns, Spec) else sum(
            1 for k in ann.returns if not isinstance(tool.get("outputSchema"), dict)
            or schema_at(tool["outputSchema"], k) is not None)
        params, results, on = params + n, results + m, on + (1 if n or m else 0)
    return (f"guarding {params} parameter{'s' * (params != 1)} and {results} "
            f"result{'s' * (results != 1)} on {on} of {len(listed)} tool"
            f"{'s' * (len(listed) != 1)}")


def catalogue_problems(annotations: "Any", tools: list[dict]) -> "list[tuple[str, str]]":
    """(tool, problem) for each declaration the listing does not match."""
    listed: "dict[Any, dict]" = {t.get("name"): t for t in tools if isinstance(t, dict)}
    problems = []
    for name, ann in annotations.items():
        if not ann.params and ann.returns is None:
            problems.append((name, f"tools.{name}: declares no parameter and no result, so "
                             f"it guards nothing: declare params or returns, or remove it"))
        tool = listed.get(name)
        if tool is None:
            close = close_names(name, listed)
            problems.append((name, f"tools.{name}: the server has no tool {name!r}"
                             + (f" (did you mean {close}?)" if close else
                                f" (it lists {some_names(listed)})")))
            continue
        schema = tool.get("inputSchema")
        props = schema.get("properties") if isinstance(schema, dict) else None
        if not isinstance(props, dict):
            props = {}
        for pname, spec in ann.params.items():
            if pname not in props:
                close = close_names(pname, props)
                problems.append((name, f"tools.{name}.params.{pname}: {name} has no "
                                 f"parameter {pname!r} ("
                                 + (f"did you mean {close}? " if close else "")
                                 + f"it has {sorted(props)})"))
            elif isinstance(props[pname], dict):
                problem = schema_mismatch(spec, props[pname], f"{name} types {pname}") \
                    or tz_problem(spec, props[pname], pname, tool.get("description"))
                if problem:
                    problems.append((name, f"tools.{name}.params.{pname}: {problem}"))
        problems.extend((name, p) for p in result_mismatches(name, ann.returns,
                                                             tool.get("outputSchema")))
    return problems


def check_catalogue(annotations: "Any", tools: list[dict]) -> "CatalogueReport":
    """``--check``'s report: each guarded tool with its declarations, each other tool as
    untouched, the summary line, and the problems."""
    listed: "dict[Any, dict]" = {t.get("name"): t for t in tools if isinstance(t, dict)}
    problems = [p for _, p in catalogue_problems(annotations, tools)]
    lines = []
    for name, ann in annotations.items():
        tool = listed.get(name)
        if tool is None:
            continue
        declared = ", ".join(f"{p} [{shown(s)}]" for p, s in ann.params.items())
        ret = ""
        if isinstance(ann.returns, Spec):
            ret = f" -> {shown(ann.returns)}"
        elif ann.returns:
            ret = " -> {" + ", ".join(f"{k} [{shown(s)}]" for k, s in ann.returns.items()) + "}"
        lines.append(f"guarded   {name}({declared}){ret}")
    for name in sorted(set(listed) - set(annotations)):
        lines.append(f"untouched {name}")
    lines.append(summary(annotations, tools))
    return CatalogueReport(problems, lines)


def warn_summary(ledgers: "list[dict]", calls: int) -> None:
    """Warn mode refuses nothing: what it would have refused in these ledgers' manifests (of
    ``calls`` guarded calls), logged (WARNING, logger ``quantity_guard.mcp``)."""
    refused = 0
    codes: dict[str, int] = {}
    for data in ledgers:
        refused += len({v["call"] for v in data["violations"] if v.get("call") is not None})
        for v in data["violations"]:
            codes[v["code"]] = codes.get(v["code"], 0) + 1
    if not calls:
        return
    import logging
    log = logging.getLogger("quantity_guard.mcp")
    if not codes:
        log.warning("warn mode: none of the %d guarded call(s) would have been refused", calls)
        return
    found = ", ".join(f"{n}x {code}" for code, n in sorted(codes.items(),
                                                            key=lambda kv: (-kv[1], kv[0])))
    log.warning("warn mode: %d of %d guarded call(s) would have been refused (%s); nothing was "
                "refused", refused, calls, found)


class CatalogueReport:
    def __init__(self, problems: list[str], lines: list[str]) -> None:
        self.problems = problems
        self.lines = lines

    @property
    def ok(self) -> bool:
        return not self.problems

    def __str__(self) -> str:
        out = list(self.lines)
        if self.problems:
            out.append(f"{len(self.problems)} problem(s):")
            out.extend(f"  {p}" for p in self.problems)
        else:
            out.append("annotations match the server")
        return "\n".join(out)


_NUMERIC = frozenset({"number", "integer"})


def schema_kinds(schema: dict) -> "set[str] | None":
    """The JSON types a schema allows (an array's items for an array), or None when it states
    none (then anything may come)."""
    kinds = {k for k in type_names(schema) if isinstance(k, str)}
    if "array" in kinds:
        for s in [schema] + [b for key in ("anyOf", "oneOf") for b in schema.get(key, ())
                             if isinstance(b, dict)]:
            if isinstance(s.get("items"), dict):
                items = schema_kinds(s["items"])
                if items is not None:
                    kinds = (kinds - {"array"}) | items
                break
    return kinds or None


def schema_mismatch(spec: Spec, schema: dict, what: str) -> "str | None":
    """Why a declaration can never work on a value of this schema (None when it can): a unit
    on a value that is never a number, a tz on one that is never a string."""
    kinds = schema_kinds(schema)
    if kinds is None:
        return None
    shown = " or ".join(sorted(kinds))
    if spec.unit is not None and not kinds & _NUMERIC:
        instead = ("if it holds a timestamp, declare tz = \"<IANA zone>\" instead; otherwise "
                   "remove the declaration" if "string" in kinds else
                   "a " + shown + " has no unit: remove the declaration")
        return (f"declares unit {spec.unit_text!r}, but {what} as {shown}, never a number: "
                f"the number the proxy would send (or label) in {spec.unit_text} cannot be that; "
                f"{instead}")
    if spec.tz is not None and "string" not in kinds:
        return (f"declares tz {spec.tz_text!r} (a timestamp, sent as an ISO 8601 string with "
                f"its offset), but {what} as {shown}, never a string: remove tz "
                f"(a count of seconds since an epoch is not checked as a timestamp)")
    return None


def result_mismatches(name: str, returns, output) -> "list[str]":
    """Result declarations the tool's outputSchema rules out (a unit on a string result)."""
    if returns is None or not isinstance(output, dict):
        return []
    props = output.get("properties")
    if not isinstance(props, dict):
        props = {}
    pairs: "list[tuple[str, Spec, str | None]]"
    out: "list[str]" = []
    if isinstance(returns, Spec):
        held = [n for n in ("result", "value") if isinstance(props.get(n), dict)][:1]
        pairs = [(f"tools.{name}.returns", returns, n) for n in held]
        if not held and output.get("type") not in (None, "object"):
            pairs = [(f"tools.{name}.returns", returns, None)]
        if not pairs and props and output.get("type") in (None, "object"):
            return [f"tools.{name}.returns: declares one unit for the whole result, but the "
                    f"outputSchema of {name} makes it an object with the fields "
                    f"{some_names(field_paths(output), 12)}: nothing would be labelled. Declare the "
                    f"fields (returns = {{ <field> = {{ unit = ... }} }}; a nested one as a path "
                    f"such as \"items[].value\")"]
    else:
        pairs = [(f"tools.{name}.returns.{k}", s, k) for k, s in returns.items()
                 if schema_at(output, k) is not None]
        missing = [k for k in returns if schema_at(output, k) is None]
        if missing and (props or output.get("$ref")):
            known = field_paths(output)
            for k in missing:
                close = close_names(k, known)
                out.append(f"tools.{name}.returns.{k}: the outputSchema of {name} has no result "
                           f"field {k!r}" + (f" (did you mean {close}?)" if close else "")
                           + f"; its fields are {some_names(known, 12)}. A declaration of a field "
                           f"the result does not have labels nothing")
    for where, spec, key in pairs:
        schema = output if key is None else schema_at(output, key)
        what = ("its outputSchema types the result" if key is None else
                f"its outputSchema types {key!r}")
        problem = schema_mismatch(spec, schema, what) if isinstance(schema, dict) else None
        if problem:
            out.append(f"{where}: {problem}")
    return out


def shown(spec: Spec) -> str:
    """A declaration as ``--check`` lists it: the unit (or the timestamp's zone) and the
    datum, when there is one."""
    text = spec.unit_text or f"timestamp, tz {spec.tz_text}"
    return f"{text}, datum {spec.datum}" if spec.datum else text


# a parameter's stated format that is not a timestamp: (pattern, what it is)
_NOT_TIMESTAMP = (
    (r"\bHH:MM\b|\b24-hour\b|\btime of day\b|\bclock time\b",
     "a clock time (HH:MM), without a date"),
    (r"\bYYYY-MM-DD\b(?!T|\s*HH)", "a calendar date (YYYY-MM-DD), without a time"),
)


_TIMESTAMP_WORDS = (r"\bISO[ -]?8601\b|\bRFC[ -]?3339\b|\bdate[- ]?time\b|\btimestamp\b|"
                    r"\bdatetime\b|YYYY-MM-DDT|\bT\d\d:\d\d")


def tz_problem(spec: Spec, schema: dict, pname: str, tool_text: "Any") -> "str | None":
    """Why a ``tz`` on this parameter would make the tool uncallable (None when it would not):
    the guard sends a timestamp (an ISO 8601 date and time with its offset), so the parameter
    must take one. A ``format`` of ``time`` or ``date``, or words stating a clock time or a
    date alone, rule it out."""
    import re
    if spec.tz is None:
        return None
    fmt = schema.get("format")
    if fmt == "date-time":
        return None
    words = " ".join(str(x) for x in (schema.get("description"), schema.get("title"))
                     if isinstance(x, str))
    if fmt in ("time", "date"):
        stated = {"time": "a clock time (format: time)", "date": "a date (format: date)"}[fmt]
    else:
        stated = None
        own = words + " " + doc_line(tool_text, pname)
        if re.search(_TIMESTAMP_WORDS, own, flags=re.I):
            return None
        for pattern, what in _NOT_TIMESTAMP:
            if re.search(pattern, own):
                stated = what
                break
    if stated is None:
        return None
    return (f"declares tz {spec.tz_text!r}, so the guard would send a timestamp (an ISO 8601 "
            f"date and time with its offset), but the server states {pname} is {stated}: "
            f"every call would be refused or misread. Remove tz here")


def doc_line(text: "Any", pname: str) -> str:
    """The line of a tool description that documents ``pname`` (a docstring's ``Args:``)."""
    if not isinstance(text, str):
        return ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(pname) and stripped[len(pname):len(pname) + 2].lstrip()[:1] in (":", "("):
            return stripped
    return ""


def some_names(listed, at_most: int = 8) -> str:
    names = sorted(n for n in listed if isinstance(n, str))
    if not names:
        return "no tools"
    return ", ".join(repr(n) for n in names[:at_most]) + (", ..." if len(names) > at_most else "")


def close_names(name: str, listed) -> str:
    import difflib
    matches = difflib.get_close_matches(name, [n for n in listed if isinstance(n, str)], n=2)
    return " or ".join(repr(m) for m in matches)
