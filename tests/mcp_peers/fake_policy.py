"""A stand-in for quantity_guard.mcp.policy, for tests of the protocol layer.

It guards two tools:
  runoff(discharge, area)  discharge is declared in m**3/s: a bare number is taken as m**3/s,
                           {"value": v, "unit": "cfs"} or "v cfs" is converted; area must be a
                           non-negative number (km**2), anything else is refused.
  read_discharge(site)     its bare numeric result is labelled {"value": x, "unit": "cfs"} in
                           the text and in structuredContent, under an advertised outputSchema.
"""
from __future__ import annotations

import json

CFS = 0.028316846592  # m**3/s per ft**3/s
PRINTS = False
GUARDED = ("runoff", "read_discharge")
LABEL_SCHEMA = {"type": "object",
                "properties": {"value": {"type": "number"}, "unit": {"type": "string"}},
                "required": ["value", "unit"]}


def _text_error(text: str) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": True}


class FakePolicy:
    def __init__(self, enforcement: str = "strict", log_path=None, manifest_path=None) -> None:
        self.enforcement = enforcement
        self.log_path = log_path
        self.manifest_path = manifest_path
        self.resets = 0
        self.calls: list[tuple] = []
        self.closed = False

    def guards(self, tool_name: str) -> bool:
        return tool_name in GUARDED

    def advertise(self, tool: dict) -> dict:
        if tool["name"] == "runoff":
            props = tool["inputSchema"]["properties"]
            props["discharge"]["x-unit"] = "m**3/s"
            props["discharge"]["description"] = "discharge in m**3/s"
            props["area"]["x-unit"] = "km**2"
            tool["description"] = tool.get("description", "") + " [units: discharge m**3/s, area km**2]"
            tool.setdefault("_meta", {})["io.quantity-guard/units"] = {"discharge": "m**3/s", "area": "km**2"}
        elif tool["name"] == "read_discharge":
            tool["outputSchema"] = LABEL_SCHEMA
            tool.setdefault("_meta", {})["io.quantity-guard/units"] = {"return": "cfs"}
        return tool

    def _discharge(self, value):
        if isinstance(value, bool):
            return None
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, dict) and isinstance(value.get("value"), (int, float)):
            unit = value.get("unit")
            if unit == "cfs":
                return value["value"] * CFS
            if unit == "m**3/s":
                return float(value["value"])
        if isinstance(value, str):
            parts = value.split()
            if len(parts) == 2 and parts[1] == "cfs":
                try:
                    return float(parts[0]) * CFS
                except ValueError:
                    return None
        return None

    def check_call(self, tool_name: str, arguments: dict):
        self.calls.append(("check", tool_name, json.dumps(arguments, sort_keys=True)))
        if tool_name != "runoff":
            return ("forward", arguments)
        out = dict(arguments)
        if "discharge" in arguments:
            q = self._discharge(arguments["discharge"])
            if q is None:
                return ("refuse", _text_error(
                    f"runoff.discharge: expected a quantity in m**3/s, received {arguments['discharge']!r}; "
                    "send a number in m**3/s or {\"value\": v, \"unit\": \"cfs\"}"))
            out["discharge"] = q
        area = arguments.get("area")
        if not isinstance(area, (int, float)) or isinstance(area, bool) or area < 0:
            if self.enforcement == "warn":
                return ("forward", arguments)
            return ("refuse", _text_error(
                f"runoff.area: expected a non-negative number in km**2, received {area!r}"))
        return ("forward", out)

    def label_result(self, tool_name: str, arguments: dict, result: dict) -> dict:
        self.calls.append(("label", tool_name))
        if PRINTS:
            print("fake_policy: a stray print() while labelling")  # must never reach the wire
        if tool_name != "read_discharge":
            return result
        new = dict(result)
        content = []
        value = None
        for block in result.get("content", []):
            if block.get("type") == "text":
                try:
                    value = float(block["text"])
                except ValueError:
                    content.append(block)
                    continue
                content.append({"type": "text", "text": json.dumps({"value": value, "unit": "cfs"})})
            else:
                content.append(block)
        new["content"] = content
        if value is not None:
            new["structuredContent"] = {"value": value, "unit": "cfs"}
        return new

    def reset(self) -> None:
        self.resets += 1

    # command-line extras
    def check_catalogue(self, tools: list) -> "Report":
        names = {t.get("name") for t in tools}
        return Report([f"unknown tool {n!r} in the annotations" for n in GUARDED if n not in names],
                      len(tools))

    def close(self) -> None:
        self.closed = True
        if self.manifest_path:
            with open(self.manifest_path, "w") as f:
                json.dump({"closed": True, "calls": len(self.calls), "resets": self.resets,
                           "enforcement": self.enforcement, "log_path": self.log_path}, f)


class Report:
    def __init__(self, problems: list, n: int) -> None:
        self.problems = problems
        self.ok = not problems
        self.n = n

    def __str__(self) -> str:
        head = f"checked {self.n} tools: " + ("ok" if self.ok else f"{len(self.problems)} problem(s)")
        return "\n".join([head, *self.problems])


def build_policy(annotations_path, *, enforcement="strict", log_path=None, manifest_path=None):
    global PRINTS
    PRINTS = True  # only inside a proxy process, where stdout is not the wire
    print("fake_policy: a stray print() while loading")  # must never reach the wire
    with open(annotations_path) as f:
        text = f.read()
    if "INVALID" in text:
        raise ValueError(f"{annotations_path}:1: unknown unit 'furlongs' for runoff.discharge")
    return FakePolicy(enforcement, log_path, manifest_path)
