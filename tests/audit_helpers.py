"""What the audit tests (tests/audit/) share: the statuses that make an
answer fail, the figures an audit flags, the ledger of the runoff task, and the bench scripts
they measure with."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from quantity_guard import quantity_tool, session

ROOT = Path(__file__).resolve().parents[1]


def bench_script(name: str):
    """``bench/<name>.py``, loaded once by path (as ``_bench_<name>``)."""
    alias = f"_bench_{name}"
    if alias not in sys.modules:
        spec = importlib.util.spec_from_file_location(alias, ROOT / "bench" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[alias] = module
        spec.loader.exec_module(module)
    return sys.modules[alias]

BAD = ("unsourced", "unit_mislabelled", "tainted", "reversed")


def flagged(audit):
    """(text, status) of every flagged figure."""
    return [(f.number.text, f.status) for f in audit.findings if f.status in BAD]


def flow_ledger():
    """A session that read 1250 cfs, an area of 29,940 km2 and a runoff depth of 0.102 mm/d."""
    with session() as ledger:
        quantity_tool(lambda: 1250.0, returns={"unit": "cfs"}, name="read_discharge")()
        quantity_tool(lambda: 29940.0, returns={"unit": "km2"}, name="get_drainage_area")()
        quantity_tool(lambda: 0.10214476953907817, returns={"unit": "mm/d"},
                      name="runoff_depth")()
    return ledger


def ledger_of(*outputs, context=None):
    """A ledger holding ``outputs``: (tool name, value, unit[, datum]) each."""
    tools = []
    for name, value, unit, *datum in outputs:
        returns = {"unit": unit, "datum": datum[0]} if datum else {"unit": unit}
        tools.append(quantity_tool(lambda v=value: v, returns=returns, name=name))
    with session(context=context) as ledger:
        for tool in tools:
            tool()
    return ledger


def status_of(audit, literal):
    """The status of the finding whose text starts with ``literal``."""
    hits = [f for f in audit.findings if f.number.text.startswith(literal)]
    assert hits, f"{literal!r} not read: {[f.number.text for f in audit.findings]}"
    return hits[0].status


def bad(audit):
    """(text, status) of every finding that makes the audit fail."""
    return [(f.number.text, f.status) for f in audit.findings if f.status in audit.BAD]
