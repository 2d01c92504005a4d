"""Annotation files: declarations for tools of a server you did not write.

TOML (the standard library's ``tomllib``; ``tomli`` on Python 3.10) or JSON, in this shape::

    [tools.read_discharge]
    returns = { unit = "cfs" }

    [tools.runoff_depth.params]
    discharge = { unit = "m**3/s" }
    area = "km**2"                    # a bare unit string is {unit = "km**2"}

Per tool: ``params`` (name -> declaration), ``returns`` (one declaration, or a table of them by
result field), ``description`` (added to the tool's description). Every problem (an unknown
unit, key, datum or quality, a wrong type) is reported with the file, the line where the format
allows, the tool and the parameter, all at once, before any server is started.
"""
from __future__ import annotations

import json
import re

from .errors import GuardViolation
from .spec import SPEC_KEYS, Spec, closest_name, did_you_mean, field_type_problem, returns_of

__all__ = ["load", "loads", "Annotations", "ToolAnnotation", "AnnotationError", "path_segments",
           "path_problem"]

_TOOL_KEYS = frozenset({"params", "returns", "description"})


class AnnotationError(ValueError):
    """One or more problems in an annotation file; ``problems`` lists them one per line."""

    def __init__(self, path: str, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        super().__init__(f"{path}: {len(problems)} problem(s) in the annotations:\n  "
                         + "\n  ".join(problems))


class ToolAnnotation:
    __slots__ = ("name", "params", "returns", "description")

    def __init__(self, name: str, params: dict, returns, description: str | None) -> None:
        self.name = name
        self.params: dict[str, Spec] = params
        self.returns = returns
        self.description = description


class Annotations(dict):
    """tool name -> ToolAnnotation, with the path it came from."""

    path: str = "<annotations>"


def load(path: str) -> Annotations:
    with open(path, "rb") as fh:
        data = fh.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise AnnotationError(path, [f"not UTF-8 text ({err})"]) from None
    kind = "json" if path.lower().endswith(".json") else "toml"
    return loads(text, kind=kind, path=path)


def loads(text: str, *, kind: str = "toml", path: str = "<annotations>") -> Annotations:
    if kind == "json":
        try:
            doc = json.loads(text)
        except ValueError as err:
            line = getattr(err, "lineno", None)
            raise AnnotationError(path, [f"line {line}: invalid JSON: {getattr(err, 'msg', err)}"
                                         if line else f"invalid JSON: {err}"]) from None
    else:
        loader = _toml()
        try:
            doc = loader.loads(text)
        except loader.TOMLDecodeError as err:
            raise AnnotationError(path, [f"invalid TOML: {err}"]) from None
    return _build(doc, text, path)


def _toml():
    try:
        import tomllib
        return tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli
        except ImportError:
            raise AnnotationError("<annotations>", [
                "reading TOML on Python 3.10 needs tomli (pip install tomli), or write the "
                "annotations as JSON"]) from None
        return tomli


def _build(doc, text: str, path: str) -> Annotations:
    problems: list[str] = []
    out = Annotations()
    out.path = path
    lines = text.splitlines()

    def where(tool: str, *keys: str) -> str:
        line = _find_line(lines, tool, keys)
        place = f"line {line}: " if line else ""
        return f"{place}tools.{tool}" + "".join(f".{k}" for k in keys)

    def mistyped(decl, tool: str, *keys: str) -> bool:
        """Report each declaration field of the wrong type (``sourced = "no"``) at its own
        line; True when there was one (the declaration is then not built)."""
        if not isinstance(decl, dict):
            return False
        bad = False
        for key, value in decl.items():
            problem = field_type_problem(key, value) if isinstance(key, str) else None
            if problem is not None:
                problems.append(f"{where(tool, *keys, key)}: {problem}")
                bad = True
        return bad

    if not isinstance(doc, dict) or set(doc) - {"tools"}:
        extra = sorted(set(doc) - {"tools"}) if isinstance(doc, dict) else []
        problems.append("the file must have one top-level table 'tools'"
                        + (f"; unknown keys {extra}{did_you_mean(extra, {'tools'})}"
                           if extra else ""))
        raise AnnotationError(path, problems)
    tools = doc.get("tools", {})
    if not isinstance(tools, dict):
        raise AnnotationError(path, ["'tools' must be a table of tool names"])
    for name, body in tools.items():
        if not isinstance(body, dict):
            problems.append(f"{where(name)}: must be a table, not {type(body).__name__}")
            continue
        unknown = set(body) - _TOOL_KEYS
        if unknown:
            problems.append(f"{where(name, sorted(unknown, key=str)[0])}: unknown key(s) "
                            f"{sorted(unknown, key=str)}{_tool_key_hint(unknown)}; a tool has "
                            f"{sorted(_TOOL_KEYS)}")
        params: dict[str, Spec] = {}
        raw_params = body.get("params", {})
        if not isinstance(raw_params, dict):
            problems.append(f"{where(name, 'params')}: must be a table of parameter names")
            raw_params = {}
        for pname, decl in raw_params.items():
            if mistyped(decl, name, pname):
                continue
            try:
                params[pname] = Spec.of(decl, f"{name}.{pname}")
            except GuardViolation as err:
                problems.append(f"{where(name, pname)}: {err.message}{getattr(err, 'hint', '')}")
        returns = None
        if "returns" in body:
            decl = body["returns"]
            if isinstance(decl, dict) and not set(decl) & SPEC_KEYS:
                bad = [mistyped(d, name, "returns", k) for k, d in decl.items()]
            else:
                bad = [mistyped(decl, name, "returns")]
            if any(bad):
                out[name] = ToolAnnotation(name, params, None, None)
                continue
            if isinstance(decl, dict) and not set(decl) & SPEC_KEYS:
                for key in decl:
                    problem = path_problem(key)
                    if problem:
                        problems.append(f"{where(name, 'returns', key)}: {problem}")
            try:
                returns = returns_of(body["returns"], f"{name}.return")
            except GuardViolation as err:
                problems.append(f"{where(name, 'returns')}: {err.message}{getattr(err, 'hint', '')}")
            for key, spec in (returns.items() if isinstance(returns, dict) else
                              [(None, returns)] if returns is not None else []):
                if spec.tz is not None:
                    keys = ("returns",) if key is None else ("returns", key)
                    problems.append(
                        f"{where(name, *keys)}: tz {spec.tz_text!r} declares a timestamp, but "
                        f"results are labelled with units only: a timestamp result would "
                        f"be refused on every call. Remove tz here (the timestamp passes as the "
                        f"server sends it); declare tz on a parameter that takes a timestamp")
        description = body.get("description")
        if description is not None and not isinstance(description, str):
            problems.append(f"{where(name, 'description')}: must be a string")
            description = None
        out[name] = ToolAnnotation(name, params, returns, description)
    if problems:
        raise AnnotationError(path, problems)
    return out


# what people write for a tool's keys, in other tools' words
_TOOL_KEY_WORDS = {"result": "returns", "results": "returns", "return": "returns",
                   "output": "returns", "outputs": "returns", "param": "params",
                   "parameters": "params", "args": "params", "arguments": "params",
                   "inputs": "params", "input": "params"}


def _tool_key_hint(unknown) -> str:
    """`` (did you mean 'returns'?)`` for unknown tool keys: other tools' words for them
    (``result``, ``arguments``), else the closest of a tool's keys."""
    hits = []
    for key in sorted(unknown, key=str):
        if not isinstance(key, str):
            continue
        hit = _TOOL_KEY_WORDS.get(key.strip().lower()) or closest_name(key, _TOOL_KEYS)
        if hit is not None and hit != key:
            hits.append((hit, key))
    if not hits:
        return ""
    if len(unknown) == 1:
        return f" (did you mean {hits[0][0]!r}?)"
    return " (did you mean " + ", ".join(f"{h!r} for {k!r}" for h, k in hits) + "?)"


def path_segments(key: str) -> "list[tuple[str, int]]":
    """A result field's path as ``(name, arrays)`` steps: ``"stations[].distance_km"`` ->
    ``[("stations", 1), ("distance_km", 0)]`` (``[]`` steps into every item of an array)."""
    out = []
    for part in key.split("."):
        name = part.rstrip("[]")
        out.append((name, (len(part) - len(name)) // 2))
    return out


def path_problem(key) -> "str | None":
    """Why ``key`` cannot name a result field (None when it can): a name, or a path of names
    joined by ``.`` with ``[]`` after a name whose value is an array."""
    if not isinstance(key, str) or not key.strip():
        return "a result field must be named"
    for part in key.split("."):
        name = part.rstrip("[]")
        tail = part[len(name):]
        if not name or "[" in name or "]" in name or tail != "[]" * (len(tail) // 2):
            return (f"{key!r} is not a result field or path: write a field name, or a path "
                    f"such as \"stations[].distance_km\" (names joined by '.', '[]' after an "
                    f"array)")
    return None


def _find_line(lines: list[str], tool: str, keys: "tuple[str, ...]" = ()) -> int | None:
    """Best-effort line number of a tool's section and, within it, of each key in turn (a
    parameter, then a field of its declaration), for messages: the line of the deepest key
    found. Keys may be written ``key = ...``, inline (``{ key = ... }``), quoted, as a table
    header (``[tools.a.params.key]``) or as JSON (``"key":``)."""
    tool_re = re.escape(tool)
    header = re.compile(r'^\s*\[\s*tools\.("?)' + tool_re + r'\1\s*(\.|\])')
    json_tool = re.compile(r'^\s*"' + tool_re + r'"\s*:')
    start = None
    for i, line in enumerate(lines):
        if header.match(line) or json_tool.match(line):
            start = i
            break
    if start is None:
        return None
    found = start
    for key in keys:
        k = re.escape(key)
        keypat = re.compile(r'(^|[{,])\s*"?' + k + r'"?\s*[=:]|^\s*\[[^\]]*\."?' + k
                            + r'"?\s*\]')
        for j in range(found, len(lines)):
            text = lines[j]
            if j > start and re.match(r"^\s*\[\s*tools\.", text) and not header.match(text):
                break
            if keypat.search(text):
                found = j
                break
    return found + 1
