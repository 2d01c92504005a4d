"""Precision and recall of ``quantity-guard-mcp annotate`` on published MCP servers' tool lists.

    python -m bench.annotate_rates [-v] [--data FOLDER | FOLDER]

FOLDER holds ``servers/*.json`` (a ``tools_list`` each, as in ``tests/annotations/published_tools``)
and ``labels.jsonl`` (what the servers' own words state per field: ``unit``, ``datum``, ``tz``).
Default: ``tests/annotations/published_tools``; ``--data tests/annotations/gathered_tools`` scores
the second development set.

- units: *precision* is the share of drafted units, on labelled fields, whose dimension and factor
  are the label's (a unit drafted where the label says ``unstated``, ``ambiguous``, ``1``,
  ``param:...`` or ``field:...`` counts as wrong); *recall* the share of labels stating a unit
  that the draft declares with the right dimension and factor. Drafted units on fields nobody
  labelled are counted apart (they cannot be judged).
- datums and time zones the same way, over labels naming one.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "tests" / "annotations" / "published_tools"

_NOT_A_UNIT = ("unstated", "ambiguous", "1", None)


def _key(text):
    from quantity_guard.units import parse_unit
    try:
        u = parse_unit(text)
    except Exception:
        return None
    return (u.dims, u.factor, u.offset)


def _states_unit(label: dict) -> bool:
    unit = label.get("unit")
    return unit not in _NOT_A_UNIT and not str(unit).startswith(("param:", "field:")) \
        and label.get("kind") != "unit-choice"


def _field(label: dict) -> str:
    field = label["field"]
    if field.startswith("params."):
        field = field.split("=", 1)[0]
        while field.endswith("[]"):
            field = field[:-2]
    return field


def score(folder: Path) -> dict:
    from quantity_guard.mcp.draft import draft, tools_of
    labels = [json.loads(line) for line in (folder / "labels.jsonl").read_text("utf-8").splitlines()
              if line.strip()]
    by_server: dict = {}
    for row in labels:
        by_server.setdefault(row["server"], []).append(row)
    t = {k: 0 for k in ("units_drafted", "units_right", "units_stated", "units_found",
                        "units_unlabelled", "wrong_on_unstated", "datums_drafted", "datums_right",
                        "datums_stated", "datums_found", "tz_drafted", "tz_right", "tz_stated",
                        "tz_found", "servers", "tools")}
    wrong: list = []
    missed: list = []
    for path in sorted((folder / "servers").glob("*.json")):
        doc = json.loads(path.read_text("utf-8"))
        server = doc.get("server", path.stem)
        tools = tools_of(doc)
        t["servers"] += 1
        t["tools"] += len(tools)
        drafted = {}
        for tool in draft(tools):
            for f in tool.fields:
                if f.declared:
                    drafted[(tool.name, f.field)] = f
        rows = by_server.get(server, [])
        labelled = {(r["tool"], _field(r)) for r in rows}
        for (tool, field), f in drafted.items():
            if f.unit is not None and (tool, field) not in labelled:
                t["units_unlabelled"] += 1
        for r in rows:
            f = drafted.get((r["tool"], _field(r)))
            if r["field"] == "returns" or r.get("kind") == "unit-choice":
                f = f if r["field"] == "returns" else None
            if _states_unit(r):
                t["units_stated"] += 1
                if f is not None and f.unit is not None and _key(f.unit) == _key(r["unit"]):
                    t["units_found"] += 1
                else:
                    missed.append((server, r["tool"], r["field"], r["unit"],
                                   f.unit if f is not None else None))
            if f is not None and f.unit is not None and r.get("kind") != "unit-choice":
                t["units_drafted"] += 1
                if _states_unit(r) and _key(f.unit) == _key(r["unit"]):
                    t["units_right"] += 1
                else:
                    if not _states_unit(r):
                        t["wrong_on_unstated"] += 1
                    wrong.append((server, r["tool"], r["field"], r["unit"], f.unit))
            datum = r.get("datum")
            named = isinstance(datum, str) and datum not in ("unstated", "ambiguous") \
                and not datum.startswith("param:")
            if named:
                t["datums_stated"] += 1
                t["datums_found"] += int(f is not None and f.datum == datum)
            if f is not None and f.datum is not None:
                t["datums_drafted"] += 1
                t["datums_right"] += int(f.datum == datum)
            tz = r.get("tz")
            zone = isinstance(tz, str) and (tz == "UTC" or "/" in tz)
            if zone and r["field"].startswith("params."):
                t["tz_stated"] += 1
                t["tz_found"] += int(f is not None and f.tz == tz)
            if f is not None and f.tz is not None:
                t["tz_drafted"] += 1
                t["tz_right"] += int(f.tz == tz)
    t["wrong"] = wrong
    t["missed"] = missed
    return t


def _rate(a: int, b: int) -> str:
    return f"{a}/{b} = {100 * a / b:.1f}%" if b else f"{a}/0 (none)"


def main(argv: "list[str] | None" = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    verbose = "-v" in args
    args = [a for a in args if a != "-v"]
    folder = DEFAULT
    if "--data" in args:
        i = args.index("--data")
        if i + 1 >= len(args):
            print("--data needs a folder (servers/*.json and labels.jsonl)", file=sys.stderr)
            return 2
        folder = Path(args[i + 1])
        del args[i:i + 2]
    elif args:
        folder = Path(args[0])
    t = score(folder)
    print(f"annotate on {folder.name}: {t['servers']} servers, {t['tools']} tools")
    print(f"units   precision {_rate(t['units_right'], t['units_drafted'])}   "
          f"recall {_rate(t['units_found'], t['units_stated'])}")
    print(f"        drafted where the words state no unit or an ambiguous one: "
          f"{t['wrong_on_unstated']}; drafted on unlabelled fields (not judged): "
          f"{t['units_unlabelled']}")
    print(f"datums  precision {_rate(t['datums_right'], t['datums_drafted'])}   "
          f"recall {_rate(t['datums_found'], t['datums_stated'])}")
    print(f"tz      precision {_rate(t['tz_right'], t['tz_drafted'])}   "
          f"recall {_rate(t['tz_found'], t['tz_stated'])} (parameters)")
    if verbose:
        for w in t["wrong"]:
            print("WRONG ", *w)
        for m in t["missed"]:
            print("MISSED", *m)
    return 0


if __name__ == "__main__":
    sys.exit(main())
