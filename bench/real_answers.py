"""The answer audit on real model answers: an external study's recorded runs, replayed.

The folder (``--data``; default ``$QG_REAL_ANSWERS``, else ``evaluation/real_answers``, the copy in
this repository: its README gives the source and licence) holds ``tasks.json`` (the study's tasks as data: prompt, tools with their
declarations and bodies, conditions, gauge zeros, an hourly record) and ``runs.jsonl`` (one run a
line: task, condition, model, the grade, every tool call the model made with its arguments
exactly as sent, and the final answer). Nobody on this project wrote them.

Each run is replayed as the study ran it: the task's tools are rebuilt with this package
(``GuardedTool`` over the declared params and returns), a session is opened with the prompt as
context, every recorded call is sent in order, and the final answer is audited with
``ledger.audit_answer(answer, context=prompt)``.

- ``--mode faithful`` (default): ``guarded`` and ``guarded_repair`` runs use strict tools (the
  study's guard refused what this one refuses); ``baseline`` and ``schema_only`` runs use tools
  that read each physical argument at face value in the declared unit, as the study's did (the
  leading number of a string, the ``value`` of an object; anything else fails the call), so the
  ledger holds the values the model really saw come back. Their calls run in ``warn`` mode:
  what the guard would have refused is recorded, never enforced.
- ``--mode strict``: every run through strict tools, the guard as deployed. Detection is
  reported in this mode (``python bench/real_answers.py --mode strict``).

Printed: false alarms (answers graded ``correct`` whose audit is not ok) and detection (answers
graded ``wrong`` that state a figure, whose audit is not ok) per task, model and condition, and
detection over all wrong answers (an answer stating no figure is caught only when it gave up on
a refused call the session could have repeated: ``Audit.abandoned``); every flagged number of a
false alarm with its excerpt, status and note (``--quiet`` leaves them out; ``--misses`` lists
the wrong answers the audit passed); crashes (``audit_answer`` or a replay raising; none
allowed). ``--check`` compares the figures with ``LIMITS`` below and exits 1 on a breach.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import traceback
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from quantity_guard import Q, datums, session  # noqa: E402
from quantity_guard.tool import GuardedTool  # noqa: E402

DATA = ROOT / "evaluation" / "real_answers"  # the study's runs, copied (README.md there)
GUARDED = frozenset({"guarded", "guarded_repair"})
GRADED = ("correct", "wrong")


def default_data() -> Path:
    env = os.environ.get("QG_REAL_ANSWERS")
    return Path(env) if env else DATA


def load(data: Path) -> tuple[dict, list[dict]]:
    doc = json.loads((data / "tasks.json").read_text(encoding="utf-8"))
    with open(data / "runs.jsonl", encoding="utf-8") as fh:
        runs = [json.loads(line) for line in fh if line.strip()]
    return doc, runs


def register_station_datums(doc: dict) -> None:
    """The gauge zeros of the study (``GAGE:BENCH`` 1.5 ft above NAVD88, ...), once."""
    for row in doc["station_datums"]:
        prefix, ident = row["datum"].split(":", 1)
        datums.register_station(ident, Q(row["zero_elevation"], row["unit"], datum=row["is_on"]),
                                prefix=prefix)


# -- face-value reading: the study's unguarded tools --------------------------------------
_LEADING = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")
_CLOCK = re.compile(r"\d{4}-\d{2}-\d{2}[T ](\d{1,2}):\d{2}")


class FaceValueError(ValueError):
    """An argument the study's unguarded tool could not read as a number."""


def face_value(raw, name: str) -> float:
    """What the study's unguarded tools read: a number as it is, the leading number of a
    string, the ``value`` of an object; anything else fails the call."""
    if isinstance(raw, dict) and "value" in raw:
        raw = raw["value"]
    if isinstance(raw, bool):
        raise FaceValueError(f"{name}: expected a number, received {raw!r}")
    if isinstance(raw, (int, float)):
        return float(raw)
    if isinstance(raw, str):
        m = _LEADING.match(raw)
        if m:
            return float(m.group(1))
    raise FaceValueError(f"{name}: expected a number, received {raw!r}")


def clock_hour(raw, name: str) -> int:
    """The clock hour of a timestamp exactly as written (the unguarded tools never shift it)."""
    if isinstance(raw, str):
        m = _CLOCK.search(raw)
        if m:
            return int(m.group(1))
    raise FaceValueError(f"{name}: expected a timestamp, received {raw!r}")


# -- tool bodies -----------------------------------------------------------------------------
def _message(template: str, kwargs: dict) -> str:
    """The study's message literal (``f'...{station}'``) filled with the call's arguments."""
    text = template[1:] if template[:1] == "f" else template
    text = text.strip("'\"")
    return text.format(**{k: kwargs.get(k, "") for k in re.findall(r"{(\w+)}", text)})


def _evaluate(formula: str, kwargs: dict):
    """A plain formula of the task (``flood_stage - stage``, ``(discharge / area).to('mm/day')``)
    on the tool's quantities; no builtins."""
    return eval(compile(formula, "<formula>", "eval"), {"__builtins__": {}}, dict(kwargs))  # noqa: S307


def make_body(task_doc: dict, tool: dict, doc: dict, face: bool):
    """The tool's body, as the study computed it."""
    body, name = tool["body"], tool["name"]
    kind = body["kind"]

    if kind == "reader":
        def run(**kwargs):
            return Q(body["value"], body["unit"], datum=body.get("datum"),
                     quality=body.get("quality"))
    elif kind == "raises":
        exc = {"ValueError": ValueError, "RuntimeError": RuntimeError}.get(body["exception"],
                                                                           RuntimeError)

        def run(**kwargs):
            raise exc(_message(body["message"], kwargs))
    elif name == "read_discharge_at":
        record = {int(h): v for h, v in doc["hourly_discharge_cfs"].items()}

        def run(**kwargs):
            at = kwargs["observed_at"]
            hour = at.hour if isinstance(at, datetime) else clock_hour(at, "observed_at")
            if hour not in record:
                raise ValueError(f"no observation at hour {hour}; available hours are "
                                 f"{sorted(record)} local standard time")
            return Q(record[hour], "cfs", quality="P")
    elif name == "line_current":
        def run(**kwargs):  # VA is its own kind here: the study formed amperes from magnitudes
            s, v = kwargs["apparent_power"], kwargs["voltage"]
            return Q(s.m_as("VA") / (v.m_as("V") * 3 ** 0.5), "A")
    elif name == "to_navd88":
        def run(**kwargs):
            return kwargs["stage"].to_datum("NAVD88")
    else:
        formula = body["formula"]

        def run(**kwargs):
            return _evaluate(formula, kwargs)
    return run


def _signature(names):
    import inspect
    return inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                              for n in names])


class FaceValueTool:
    """The study's unguarded tool: each physical argument read at face value in its declared
    unit, then passed as a bare number to a ``warn`` tool (the ledger records what the guard
    would have refused; nothing is enforced)."""

    def __init__(self, inner: GuardedTool, physical: set[str], clocks: set[str]) -> None:
        self.inner, self.physical, self.clocks = inner, physical, clocks
        self.name = inner.name

    def invoke(self, arguments) -> dict:
        if not isinstance(arguments, dict):
            return self.inner.invoke(arguments)
        args = dict(arguments)
        try:
            for key in self.physical & args.keys():
                args[key] = face_value(args[key], key)
        except FaceValueError as err:
            return {"content": [{"type": "text", "text": str(err)}], "isError": True}
        return self.inner.invoke(args)


def build_tools(task: dict, doc: dict, *, face: bool) -> dict:
    """The task's tools, strict, or (``face``) as the study's unguarded conditions ran them."""
    tools = {}
    for tool in task["tools"]:
        params = {k: {kk: vv for kk, vv in v.items() if kk != "description"}
                  for k, v in tool["params"].items()}
        clocks = {k for k, v in params.items() if "tz" in v}
        if face:  # the unguarded tool reads the clock as written: no zone declared
            params = {k: v for k, v in params.items() if k not in clocks}
        fn = make_body(task, tool, doc, face)
        fn.__name__ = fn.__qualname__ = tool["name"]
        fn.__signature__ = _signature(tool["args"])  # type: ignore[attr-defined]
        returns = {k: v for k, v in tool["returns"].items() if k != "description"} or None
        inner = GuardedTool(fn, params=params or None, returns=returns, name=tool["name"],
                            enforcement="warn" if face else "strict")
        physical = {k for k, v in params.items() if "unit" in v}
        tools[tool["name"]] = FaceValueTool(inner, physical, clocks) if face else inner
    return tools


# -- replay ------------------------------------------------------------------------------------
def replay(run: dict, doc: dict, mode: str = "faithful") -> dict:
    """One run replayed: ``{"audit", "calls", "error"}``; ``audit`` is None without an answer."""
    task = doc["tasks"][run["task"]]
    face = mode == "faithful" and run["condition"] not in GUARDED
    out: dict = {"audit": None, "calls": [], "error": None}
    try:
        tools = build_tools(task, doc, face=face)
        with session(context=task["prompt"]) as ledger:
            for call in run["calls_log"]:
                tool = tools.get(call["tool"])
                if tool is None:
                    out["calls"].append((call["tool"], "unknown tool"))
                    continue
                result = tool.invoke(call["args"])
                text = "".join(c.get("text", "") for c in result.get("content", []))
                out["calls"].append((call["tool"], ("ERROR " if result.get("isError") else "")
                                     + text))
            if "answer_text" in run:
                out["audit"] = ledger.audit_answer(run["answer_text"], context=task["prompt"])
    except Exception:  # noqa: BLE001 - a crash is a finding of its own, reported
        out["error"] = traceback.format_exc()
    return out


def judge_all(doc: dict, runs: list[dict], mode: str) -> list[tuple[dict, dict]]:
    return [(run, replay(run, doc, mode)) for run in map(regrade, runs)
            if run["outcome"] in GRADED and "answer_text" in run]


# -- the study's grading quirks, read by hand ------------------------------------------------
_PERCENT = re.compile(r"([-+]?\d+(?:\.\d+)?)\s*(?:%|percent\b)")


def _abstraction_share(doc: dict) -> float:
    """The true share on ``uk_abstraction_fraction``, from the task's readers, in percent."""
    tools = {t["name"]: t["body"] for t in doc["tasks"]["uk_abstraction_fraction"]["tools"]}
    rate, flow = tools["read_abstraction_licence"], tools["read_gauged_flow"]
    return (Q(rate["value"], rate["unit"]) / Q(flow["value"], flow["unit"])).m_as("percent")


def regrade(run: dict, doc: dict | None = None) -> dict:
    """The grade, with the study's one known quirk undone: on ``uk_abstraction_fraction`` its
    grader could not read ``%`` ("could not read a quantity from '20.03 %'") and graded the
    right share ``wrong``. Such an answer within 0.1% of the true share is ``correct``."""
    if run["task"] != "uk_abstraction_fraction" or run["outcome"] != "wrong" or \
            not run.get("detail", "").startswith("could not read a quantity"):
        return run
    m = _PERCENT.search(run.get("stated") or "")
    truth = _TRUTH.get("share")
    if m and truth is not None and abs(float(m.group(1)) - truth) <= 0.001 * truth:
        return {**run, "outcome": "correct", "regraded": "the grader could not read %"}
    return run


_TRUTH: dict = {}


# -- figures -----------------------------------------------------------------------------------
BAD = ("unsourced", "unit_mislabelled", "tainted")


def flagged(audit) -> list:
    return [f for f in audit.findings if f.status in BAD]


def tally(judged, key) -> dict:
    """{group: [correct, false alarms, wrong, detected]}"""
    rows: dict = defaultdict(lambda: [0, 0, 0, 0])
    for run, res in judged:
        row = rows[key(run)]
        bad = res["error"] is not None or res["audit"] is None or not res["audit"].ok
        if run["outcome"] == "correct":
            row[0] += 1
            row[1] += bad
        elif states_a_number(run):
            row[2] += 1
            row[3] += bad
    return dict(rows)


def states_a_number(run: dict) -> bool:
    """A wrong answer that states a figure (not "unavailable", not a missing ANSWER line):
    the only wrong answers an audit of figures can catch."""
    return any(ch.isdigit() for ch in run.get("stated") or "")


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.1f}%)" if b else "-"


def print_table(title: str, rows: dict) -> None:
    print(f"\n{title:<34} {'false alarms':>20} {'detection':>20}")
    for k in sorted(rows):
        c, fa, w, d = rows[k]
        print(f"  {k:<32} {_pct(fa, c):>20} {_pct(d, w):>20}")


def excerpt(text: str, start: int, end: int, width: int = 60) -> str:
    a, b = max(0, start - width), min(len(text), end + width)
    return ("..." if a else "") + text[a:b].replace("\n", " ") + ("..." if b < len(text) else "")


def describe(run: dict, res: dict) -> list[str]:
    head = f"{run['task']} / {run['condition']} / {run['model']} #{run['replicate']}"
    if res["error"]:
        return [head, "  CRASH " + res["error"].strip().splitlines()[-1]]
    lines = [head]
    text = run["answer_text"]
    for f in flagged(res["audit"]):
        n = f.number
        lines.append(f"  {f.status:<16} {n.text!r}: {excerpt(text, n.start, n.end)}")
        lines.append(f"  {'':<16} note: {f.note}")
    for gap in res["audit"].abandoned:
        lines.append(f"  {'abandoned':<16} {gap.tool} (call {gap.call}, {gap.violation['code']})")
        lines.append(f"  {'':<16} note: {gap.note}")
    return lines


def summary(judged) -> dict:
    total = tally(judged, lambda r: "all")["all"]
    wrong = [(run, res) for run, res in judged if run["outcome"] == "wrong"]
    return {"correct": total[0], "false_alarms": total[1], "wrong": total[2],
            "detected": total[3], "crashes": sum(res["error"] is not None for _, res in judged),
            "all_wrong": len(wrong),
            "all_detected": sum(res["error"] is not None or not res["audit"].ok
                                for _, res in wrong),
            "tasks": tally(judged, lambda r: r["task"])}


# The figures this checkout must keep (``--check``): at most about 2x the measured rates, per
# mode. Measured with ``python bench/real_answers.py`` and ``--mode strict``; see the README.
LIMITS = {
    "faithful": {"false_alarm_rate": 0.055, "task_false_alarm_rate": 0.2},
    "strict": {"false_alarm_rate": 0.055, "task_false_alarm_rate": 0.2, "detection_at_least": 0.96,
               "all_detection_at_least": 0.63},
}


def check(result: dict, mode: str) -> list[str]:
    lim, out = LIMITS[mode], []
    if result["crashes"]:
        out.append(f"{result['crashes']} replays crashed")
    if "false_alarm_rate" in lim:
        rate = result["false_alarms"] / result["correct"]
        if rate > lim["false_alarm_rate"]:
            out.append(f"false alarms {rate:.3f} > {lim['false_alarm_rate']}")
        for task, (c, fa, _, _) in result["tasks"].items():
            if c and fa / c > lim["task_false_alarm_rate"]:
                out.append(f"{task}: false alarms {fa}/{c} > {lim['task_false_alarm_rate']}")
    if "detection_at_least" in lim and result["wrong"]:
        rate = result["detected"] / result["wrong"]
        if rate < lim["detection_at_least"]:
            out.append(f"detection {rate:.3f} < {lim['detection_at_least']}")
    if "all_detection_at_least" in lim and result["all_wrong"]:
        rate = result["all_detected"] / result["all_wrong"]
        if rate < lim["all_detection_at_least"]:
            out.append(f"detection of all wrong answers {rate:.3f} < "
                       f"{lim['all_detection_at_least']}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=None, help="the real_answers folder")
    ap.add_argument("--mode", choices=("faithful", "strict"), default="faithful")
    ap.add_argument("--task", action="append", help="only these tasks (repeatable)")
    ap.add_argument("--quiet", action="store_true", help="leave out the flagged numbers")
    ap.add_argument("--misses", action="store_true", help="list the wrong answers passed")
    ap.add_argument("--check", action="store_true", help="exit 1 when a LIMITS row is breached")
    args = ap.parse_args(argv)
    data = args.data or default_data()
    if not (data / "runs.jsonl").exists():
        print(f"no runs.jsonl in {data}: pass --data or set QG_REAL_ANSWERS", file=sys.stderr)
        return 2
    doc, runs = load(data)
    if args.task:
        runs = [r for r in runs if r["task"] in args.task]
    register_station_datums(doc)
    _TRUTH["share"] = _abstraction_share(doc)
    judged = judge_all(doc, runs, args.mode)
    import quantity_guard
    print(f"quantity_guard from {Path(quantity_guard.__file__).parent}; data {data}; "
          f"mode {args.mode}")
    result = summary(judged)
    print(f"graded answers {len(judged)}: false alarms "
          f"{_pct(result['false_alarms'], result['correct'])}, detection "
          f"{_pct(result['detected'], result['wrong'])} of the wrong answers stating a figure "
          f"({_pct(result['all_detected'], result['all_wrong'])} of all wrong answers), "
          f"crashes {result['crashes']}")
    print_table("per task", result["tasks"])
    print_table("per model", tally(judged, lambda r: r["model"]))
    print_table("per condition", tally(judged, lambda r: r["condition"]))
    if not args.quiet:
        print("\nfalse alarms (correct answers flagged):")
        for run, res in judged:
            if run["outcome"] == "correct" and (res["error"] or not res["audit"].ok):
                print("\n".join(describe(run, res)))
    if args.misses:
        print("\nmisses (wrong answers the audit passed):")
        for run, res in judged:
            if run["outcome"] == "wrong" and states_a_number(run) and res["audit"] is not None \
                    and res["audit"].ok:
                print(f"{run['task']} / {run['condition']} / {run['model']} "
                      f"#{run['replicate']}: stated {run['stated']!r}: {run['detail']}")
                print("  " + excerpt(run["answer_text"], 0, 0, 200))
    if args.check:
        breaches = check(result, args.mode)
        for b in breaches:
            print("LIMIT " + b)
        return 1 if breaches else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
