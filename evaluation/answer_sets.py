"""The self-written answer sets the audit is measured on (``evaluation/answers``), read and
replayed.

The sets are data, built once (``evaluation/README.md`` says by which commit's generators and how
to rebuild them); nothing here writes an answer. A record's tool calls are sent, in order, to its
task's bench tools (``bench.harness.tools.build_tools``) inside a fresh session whose context is
the question, so each answer is audited against a ledger the library itself recorded.

- ``audit_corpus.json``: hand-written scenarios whose outputs are built by tiny guarded tools
  (``evaluation/audit_rates.py`` reads it);
- ``audit_corpus_generated.json``: scenarios with the calls of a run, replayed by
  ``scenario_ledger`` (``guarded`` tools, arguments sent as JSON text);
- ``audit_holdout.json``: answers with ``[name, arguments]`` calls (``holdout_ledger``);
- ``audit_holdout3.json`` ... ``audit_holdout6.json``: records with ``{"name", "arguments"}``
  calls and their own question (``holdout3_ledger``; ``PARTS`` names the part of the set that
  built a record, from the first letter of the last component of its id).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # last: a PYTHONPATH pointing at another package copy wins

ANSWERS = ROOT / "evaluation" / "answers"
CORPUS = ANSWERS / "audit_corpus.json"
GENERATED = ANSWERS / "audit_corpus_generated.json"
HOLDOUT = ANSWERS / "audit_holdout.json"
# the third set: its first file, the third fresh batch, the fifth and the sixth blind batches
HOLDOUT3 = tuple(ANSWERS / f"audit_holdout{n}.json" for n in (3, 4, 5, 6))
HOLDOUT_CONDITION = "schema_only"  # audit_holdout.json: warn mode, every call reaches its body

PARTS = {"c": "targeted", "f": "fresh", "g": "fresh2", "m": "fresh2_mix", "h": "fresh3",
         "j": "fresh3_mix", "s": "fresh5_style", "k": "fresh5_class",
         "p": "fresh6_style", "x": "fresh6_class"}

_SUITES: dict = {}


def read(path: Path) -> dict:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def records(path: Path) -> list[dict]:
    """The records of a file of the third set (``audit_holdout3.json`` and later)."""
    return read(path)["records"]


def part(record: dict) -> str:
    """Which part of the third set built a record (``.../01``: the mix)."""
    return PARTS.get(record["id"].rsplit("/", 1)[1][0], "mix")


def task_of(suite: str, task_id: str):
    from bench.harness import suites as suites_mod
    if suite not in _SUITES:
        _SUITES[suite] = suites_mod.load(suite)
    return _SUITES[suite].task(task_id)


def replay(suite: str, task_id: str, condition: str, calls, question: str | None = None,
           as_text: bool = False):
    """``(ledger, results)``: ``calls`` (``(name, arguments)`` each) sent in order to the task's
    tools under ``condition`` in a session whose context is ``question`` (default the task's);
    results are ``(name, is_error, text)`` per call. ``as_text`` sends the arguments as JSON
    text, as a model's client does; else as a copy of the recorded object."""
    from bench.harness.tools import build_tools, result_text
    from quantity_guard import session, toolbox
    task = task_of(suite, task_id)
    box = toolbox(build_tools(task, condition))
    results = []
    with session(context=task.question if question is None else question) as ledger:
        for name, arguments in calls:
            sent = json.dumps(arguments) if as_text else json.loads(json.dumps(arguments))
            res = box.invoke(name, sent)
            results.append((name, bool(res.get("isError")), result_text(res)))
    return ledger, results


def scenario_ledger(scenario: dict):
    """The ledger of a scenario of the generated corpus."""
    ledger, _ = replay(scenario["suite"], scenario["task"], "guarded", scenario["calls"],
                       as_text=True)
    return ledger


def holdout_ledger(record: dict):
    """``(ledger, question, results)`` of an answer of ``audit_holdout.json``."""
    question = task_of(record["suite"], record["task"]).question
    ledger, results = replay(record["suite"], record["task"],
                             record.get("condition", HOLDOUT_CONDITION), record["calls"],
                             question)
    return ledger, question, results


def holdout3_ledger(record: dict):
    """``(ledger, results)`` of a record of the third set."""
    calls = [(call["name"], call["arguments"]) for call in record["calls"]]
    return replay(record["suite"], record["task"], record["condition"], calls,
                  record["question"])


def audit_holdout3(record: dict):
    ledger, _ = holdout3_ledger(record)
    return ledger.audit_answer(record["answer"], context=record["question"])
