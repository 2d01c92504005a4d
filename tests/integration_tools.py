"""The demo tools and the scripted model's behaviour shared by tests/test_integrations_*.py.

Every framework test drives the same agent turn loop through its framework's own model
machinery; ``Script`` decides each turn from what the model was shown:

1. call ``read_discharge(site="07374000")``            -> 1250 cfs
2. reuse the magnitude bare: ``runoff_depth(1250, 29000)`` -> refused, UnconvertedCarryOver
3. having read the repair text, send ``"1250 cfs"``       -> 0.10546 mm/d
4. answer in prose, which the session's audit then checks.
"""
from __future__ import annotations

import contextlib
import json
import threading

from messages import render
from quantity_guard import quantity_tool

SITE = "07374000"
#: turn 2's refusal: the fields of the ``carry_over`` and ``carry_over_repair`` rows
CARRY_OVER = dict(field="runoff_depth.discharge", value="1250", unit="m3/s",
                  source="read_discharge.return", source_unit="cfs")
CARRY_OVER_REPAIR = dict(value="1250", source_unit="cfs", converted="35.39605824", unit="m3/s")
#: "12.4 ft" sent for runoff_depth's discharge: the fields of the ``wrong_dimension`` row
WRONG_DIMENSION = dict(field="runoff_depth.discharge", unit="m**3/s",
                       dims="[length]^3 [time]^-1", received="12.4 ft", received_dims="[length]")
QUESTION = f"What is the runoff depth at USGS site {SITE} over its 29000 km2 drainage area?"
ANSWER = ("The river carries 1250 cfs, which over 29000 km2 is a runoff depth of "
          "0.1055 mm/d.")


def demo_tools(asynchronous: bool = False):
    """Fresh demo tools and the list of (tool, arguments as the body received them, thread)."""
    received: list = []

    def record(name, **arguments):
        received.append((name, arguments, threading.current_thread().name))

    if asynchronous:
        @quantity_tool(returns={"unit": "cfs"})
        async def read_discharge(site: str):
            """Latest discharge at a USGS site."""
            record("read_discharge", site=site)
            return 1250.0

        @quantity_tool(params={"discharge": {"unit": "m**3/s"}, "area": {"unit": "km**2"}},
                       returns={"unit": "mm/day"})
        async def runoff_depth(discharge, area):
            """Depth-equivalent runoff over the contributing area."""
            record("runoff_depth", discharge=discharge, area=area)
            return discharge / area
    else:
        @quantity_tool(returns={"unit": "cfs"})
        def read_discharge(site: str):
            """Latest discharge at a USGS site."""
            record("read_discharge", site=site)
            return 1250.0

        @quantity_tool(params={"discharge": {"unit": "m**3/s"}, "area": {"unit": "km**2"}},
                       returns={"unit": "mm/day"})
        def runoff_depth(discharge, area):
            """Depth-equivalent runoff over the contributing area."""
            record("runoff_depth", discharge=discharge, area=area)
            return discharge / area

    return read_discharge, runoff_depth, received


class Script:
    """The model's side of the conversation: ``next(shown)`` takes the text of the last tool
    result the framework showed the model (None on the first turn) and returns
    ``("call", name, arguments)`` or ``("answer", text)``. ``shown`` keeps every turn's input."""

    def __init__(self) -> None:
        self.shown: list = []
        self.turn = 0

    def next(self, shown):
        self.shown.append(shown)
        self.turn += 1
        if self.turn == 1:
            return ("call", "read_discharge", {"site": SITE})
        if self.turn == 2:
            # the model sees the labelled result and, like every model in the study, reuses
            # the magnitude without converting it
            assert json.loads(shown) == {"value": 1250.0, "unit": "cfs"}, shown
            return ("call", "runoff_depth", {"discharge": 1250, "area": 29000})
        if self.turn == 3:
            if render("carry_over", **CARRY_OVER) not in (shown or "") or \
                    render("carry_over_repair", **CARRY_OVER_REPAIR) not in shown:
                raise AssertionError(f"the model was not shown the repair text: {shown!r}")
            return ("call", "runoff_depth", {"discharge": "1250 cfs", "area": 29000})
        if self.turn == 4:
            result = json.loads(shown)
            assert result["unit"] == "mm/d" and abs(result["value"] - 0.10546) < 1e-4, shown
            return ("answer", ANSWER)
        raise AssertionError(f"the model was asked for a turn {self.turn}")


def check_bodies(received) -> None:
    """The bodies ran twice for the two tools: the refused call never reached runoff_depth,
    and "1250 cfs" reached it converted."""
    names = [name for name, _, _ in received]
    assert names == ["read_discharge", "runoff_depth"], received
    discharge = received[1][1]["discharge"]
    assert discharge.unit.symbol == "m3/s", discharge
    assert abs(discharge.magnitude - 35.396) < 1e-3


def check_audit(ledger) -> None:
    audit = ledger.audit_answer(ANSWER, context=QUESTION).as_dict()
    assert audit["ok"], audit
    assert [(f["text"], f["status"]) for f in audit["findings"]] == [
        ("1250 cfs", "sourced"), ("29000 km2", "quoted"), ("0.1055 mm/d", "sourced")], audit
    codes = [v["code"] for c in ledger.manifest()["calls"] for v in c.get("violations", ())]
    assert codes == ["unconverted_carry_over"], codes


@contextlib.contextmanager
def run_session(other_open: bool):
    """``session(context=QUESTION)`` for the run; with ``other_open``, another session is open
    in the process too, so a worker thread the framework did not hand the run's context to
    would be refused (SessionUnbound) instead of finding the only open session."""
    from quantity_guard import session
    with contextlib.ExitStack() as stack:
        other = stack.enter_context(session()) if other_open else None
        ledger = stack.enter_context(session(context=QUESTION))
        yield ledger
        if other is not None:
            assert other.calls == [], "the run's calls went to the wrong session"
