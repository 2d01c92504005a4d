"""What the audit tests (tests/audit/) share: the statuses that make an
answer fail, the figures an audit flags, the ledger of the runoff task, and the bench scripts
they measure with."""
from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

from quantity_guard import Q, quantity_tool, register_station, session
from quantity_guard.audit import extract_numbers

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


RUNOFF = (("read_discharge", 1250.0, "cfs"), ("get_drainage_area", 29940.0, "km2"),
          ("runoff_depth", 0.10214476953907817, "mm/d"))


def flow_ledger(*more):
    """A session that read 1250 cfs, an area of 29,940 km2 and a runoff depth of 0.102 mm/d
    (then ``more`` outputs, as ``ledger_of`` takes them)."""
    return ledger_of(*RUNOFF, *more)


def status_of(audit, literal):
    """The status of the finding whose text starts with ``literal``."""
    hits = [f for f in audit.findings if f.number.text.startswith(literal)]
    assert hits, f"{literal!r} not read: {[f.number.text for f in audit.findings]}"
    return hits[0].status


def bad(audit):
    """(text, status) of every finding that makes the audit fail."""
    return [(f.number.text, f.status) for f in audit.findings if f.status in audit.BAD]


# -- ledgers and readings several audit test files share ------------------------------------
FLOW = (("read_discharge", 1250.0, "cfs"),)


VERTCON = (("vertcon_offset", -0.44, "ft"), ("pool_margin", -2.9, "ft"),
           ("read_stage", 12.4, "ft"))


GRID = (("read_apparent_power", 42.0, "MVA"), ("read_bus_voltage", 138.0, "kV"))


discharge_of = quantity_tool(lambda: 1250.0, returns={"unit": "cfs"}, name="read_discharge")


get_area = quantity_tool(lambda: 29940.0, returns={"unit": "km2"}, name="get_drainage_area")


def statuses(audit):
    return [(f.number.text, f.status) for f in audit.findings]


def nums(text):
    return [(n.value, n.unit.symbol if n.unit else None) for n in extract_numbers(text)]


def depth_of_quantities_tool(enforcement):
    return quantity_tool(
        lambda discharge, area: discharge.to("m3/s").magnitude / area.to("m2").magnitude
        * 86400 * 1000,
        params={"discharge": {"unit": "m3/s", "sourced": True},
                "area": {"unit": "km2", "sourced": True}},
        returns={"unit": "mm/d"}, name="runoff_depth", enforcement=enforcement)


def carry_over_ledger():
    """The transformer call got 90 and 132 bare after 90 MVA and 132 kV were read: the
    boundary (warn mode) recorded an unconverted carry-over, and the call ran anyway."""
    rating = quantity_tool(lambda: 90.0, returns={"unit": "MVA"}, name="get_transformer_rating")
    volts = quantity_tool(lambda: 132.0, returns={"unit": "kV"}, name="get_bus_voltage")
    current = quantity_tool(lambda s, v: s.to("VA").magnitude / (3 ** 0.5 * v.to("V").magnitude),
                            params={"s": {"unit": "VA"}, "v": {"unit": "V"}},
                            returns={"unit": "A"}, name="full_load_current", enforcement="warn")
    with session() as ledger:
        rating()
        volts()
        current(s=90, v=132)
    return ledger


def retried_ledger(enforcement="warn"):
    """read 1250 cfs and 29,940 km2; runoff_depth first called with a bare 1250 (an
    unconverted carry-over: in warn mode it runs and returns 3.607 mm/d), then again with
    35.396 m3/s (0.1021 mm/d)."""
    with session() as ledger, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        discharge_of()
        get_area()
        try:
            depth_of_quantities_tool(enforcement)(discharge=1250, area=29940)
        except Exception:  # noqa: BLE001 - strict mode refuses it: the point of the test
            pass
        depth_of_quantities_tool(enforcement)(discharge="35.396 m3/s", area=29940)
    assert ledger.violations
    return ledger


def levee_ledger():
    """A river at 21.3 ft and a levee crest at 25.0 ft, both NAVD88; the crest was read on
    NGVD29 (25.6 ft) and carried over by a recorded offset of -0.6 ft."""
    with session() as ledger:
        quantity_tool(lambda: 25.6, returns={"unit": "ft", "datum": "NGVD29"},
                      name="read_crest")()
        quantity_tool(lambda from_datum, to_datum: -0.6, returns={"unit": "ft"},
                      name="datum_offset")(from_datum="NGVD29", to_datum="NAVD88")
        quantity_tool(lambda: 21.3, returns={"unit": "ft", "datum": "NAVD88"},
                      name="read_river")()
        quantity_tool(lambda: 3.7, returns={"unit": "ft"}, name="freeboard")()
    return ledger


def directed_ledger(value, name="level_below_threshold"):
    return ledger_of((name, value, "m"))


def energy_ledger():
    with session(context="Feeder F-9 runs at its present load for 6 hours: how much energy "
                         "does it deliver?") as ledger:
        quantity_tool(lambda feeder_id: 8.4, returns={"unit": "MW"},
                      name="get_feeder_load")(feeder_id="F-9")
        quantity_tool(lambda power, duration: power * duration,
                      params={"power": {"unit": "kW"}, "duration": {"unit": "h"}},
                      returns={"unit": "kWh"}, name="energy_delivered")(
            power={"value": 8400, "unit": "kW"}, duration={"value": 6, "unit": "h"})
    return ledger


def current_ledger():
    return ledger_of(("full_load_current", 393.6479, "A"),
                     context="A 90 MVA transformer on a 132 kV bus: what is its full-load "
                             "current?")


def session_with_nothing():
    return ledger_of(("noop", 1.0, "m"))


def share_ledger():
    return ledger_of(("get_licence_rate", 45.0, "ML/d"), ("get_river_flow", 48.6, "m3/s"),
                     ("abstraction_share", 1.0717, "%"))


def station_ledger(called_as="E21136"):
    """Station E21136 registered (gauge zero 6.3 m ODN); a session that read the river at 2.85 m
    on its gauge datum, the warning threshold at 9.4 m ODN and the station datum, 6.3 m, each
    call naming the station as ``called_as``."""
    register_station("E21136", Q(6.3, "m", datum="ODN"), prefix="GAUGE")
    with session() as ledger:
        quantity_tool(lambda station_id: 2.85, returns={"unit": "m", "datum": "GAUGE:E21136"},
                      name="get_river_level")(station_id=called_as)
        quantity_tool(lambda station_id: 9.4, returns={"unit": "m", "datum": "ODN"},
                      name="get_warning_threshold")(station_id=called_as)
        quantity_tool(lambda station_id: 6.3, returns={"unit": "m"},
                      name="get_station_datum")(station_id=called_as)
    return ledger


# -- what the audit tests assert about one answer ----------------------------------------------
def audited(ledger, answer, ok=True, context=None):
    """``ledger``'s audit of ``answer``, asserted to pass (``ok``) or to fail (``ok=False``);
    when it does not, the answer, each finding's status and the skipped digits are shown."""
    audit = ledger.audit_answer(answer, context)
    assert audit.ok is ok, (answer, statuses(audit), audit.skipped)
    return audit


def audited_with(ledger, answer, code):
    """``ledger``'s audit of ``answer``, asserted to pass with a finding of reason ``code``."""
    audit = audited(ledger, answer)
    assert any(f.code is code for f in audit.findings), (answer, audit.findings)
    return audit


def flags(ledger, answer, literal):
    """``ledger``'s audit of ``answer``, asserted to fail with a flagged figure written
    ``literal...`` (a figure beside a non-measurement is still read)."""
    audit = audited(ledger, answer, ok=False)
    assert any(t.startswith(literal) for t, _ in flagged(audit)), (answer, flagged(audit))
    return audit
