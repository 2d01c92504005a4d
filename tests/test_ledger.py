"""The session ledger: carry-over, sourced inputs, manifest, enforcement report, contexts."""
from __future__ import annotations

import asyncio
import contextvars
import json
import threading

import pytest

from quantity_guard import Q, quantity_tool, register_station, session
from quantity_guard.errors import UnconvertedCarryOver, UnsourcedInput
from quantity_guard.ledger import Ledger, current

from messages import refusal, render

#: the refusal of 1250 (read_discharge's cfs) sent bare to runoff_depth's m3/s discharge
CARRY_OVER = dict(field="runoff_depth.discharge", value="1250", unit="m3/s",
                  source="read_discharge.return", source_unit="cfs")



@quantity_tool(returns={"unit": "cfs"})
def read_discharge(site: str):
    return 1250.0


@quantity_tool(returns={"unit": "cumec"})
def read_flow_cumec(site: str):
    return 35.4


@quantity_tool(returns={"unit": "km2"})
def read_area(site: str):
    return 29000.0


@quantity_tool(params={"discharge": {"unit": "m**3/s"}, "area": {"unit": "km**2", "sourced": True}},
               returns={"unit": "mm/day"})
def runoff_depth(discharge, area):
    return discharge / area


@quantity_tool(params={"flow": "cfs"}, returns={"unit": "cfs"})
def double_cfs(flow):
    return flow * 2


@quantity_tool(returns={"unit": "ft", "datum": "GAGE:07374000"})
def read_stage(site: str):
    return 12.4


@quantity_tool(params={"stage": {"unit": "ft", "datum": "NAVD88"},
                       "crest": {"unit": "ft", "datum": "NAVD88"}}, returns={"unit": "ft"})
def freeboard(stage, crest):
    return crest - stage


def test_spec_carry_over_message_exactly():
    with session():
        read_discharge("07374000")
        with pytest.raises(UnconvertedCarryOver) as err:
            runoff_depth(discharge=1250, area=29000.0)
    assert str(err.value) == render("carry_over", **CARRY_OVER)
    refusal(err.value, "carry_over_repair", field="runoff_depth.discharge", value="1250",
            source_unit="cfs", converted="35.39605824", unit="m3/s")


def test_carry_over_catches_a_wrongly_asserted_unit_and_rounding():
    with session():
        read_discharge("x")
        read_area("x")
        with pytest.raises(UnconvertedCarryOver) as err:
            runoff_depth({"value": 1250, "unit": "m**3/s"}, 29000)
        assert "received 1250 m3/s, but read_discharge.return returned 1250 cfs" in str(err.value)
        with pytest.raises(UnconvertedCarryOver):
            runoff_depth("1250.0 m3/s", 29000)
        # converted properly: passes
        assert runoff_depth({"value": 1250, "unit": "cfs"}, 29000).magnitude > 0
        assert runoff_depth(35.39605824, 29000).magnitude > 0
        assert runoff_depth(35.396, 29000).magnitude > 0


def test_rounded_carry_over_is_caught():
    @quantity_tool(returns={"unit": "cfs"})
    def odd_flow():
        return 35.39605824

    with session():
        odd_flow()
        read_area("x")
        with pytest.raises(UnconvertedCarryOver):
            runoff_depth(35.396, 29000)   # 35.396 cfs passed as if it were m3/s


def test_no_false_alarm_for_the_same_unit_aliases_or_the_question():
    with session():
        read_discharge("x")
        assert double_cfs(1250).magnitude == 2500.0          # same unit on both sides
        read_flow_cumec("x")
        read_area("x")
        assert runoff_depth(35.4, 29000).magnitude > 0          # cumec is m3/s
    with session(context="A gauge reads 1250 m3/s. What is the runoff over 29000 km2?"):
        read_discharge("x")
        assert runoff_depth(1250, 29000).magnitude > 0          # stated in the question in m3/s
    with session(context="A gauge reads 1250 cfs. What is the runoff over 29000 km2?"):
        read_discharge("x")
        with pytest.raises(UnconvertedCarryOver):
            runoff_depth(1250, 29000)                           # the question said cfs


def test_dropped_datum_is_caught():
    register_station("07374000", Q(1.5, "ft", datum="NAVD88"))
    with session():
        read_stage("07374000")
        with pytest.raises(UnconvertedCarryOver) as err:
            freeboard(stage=12.4, crest=31.0)
        assert str(err.value) == render(
            "datum_carry_over", field="freeboard.stage", value="12.4", unit="ft",
            datum="NAVD88", source="read_stage.return", source_datum="GAGE:07374000")
        # the offset is registered, so the repair gives the converted value to send
        assert '{"value": 13.9, "unit": "ft", "datum": "NAVD88"}' in err.value.repair()
        ok = freeboard(stage=Q(12.4, "ft", datum="GAGE:07374000").to_datum("NAVD88"), crest=31.0)
        assert repr(ok) == "Q(17.1 ft)"


def test_sourced_inputs():
    with session(context="How deep is the runoff at site 07374000?") as ledger:
        read_discharge("x")
        with pytest.raises(UnsourcedInput) as err:
            runoff_depth("1250 cfs", 2915830.0)
        assert str(err.value) == ("runoff_depth.area: received 2.91583e+06 km2, which no tool "
                                  "returned and the question did not supply")
        read_area("x")
        assert runoff_depth("1250 cfs", 29000).magnitude > 0              # a tool output
        assert runoff_depth("1250 cfs", "11196.96 mi2").magnitude > 0      # converted
    assert [v["code"] for v in ledger.violations] == ["unsourced_input"]
    with session(context="The basin drains 29,000 km2."):
        assert runoff_depth("1250 cfs", 29000).magnitude > 0              # from the question


def test_sourced_accepts_a_one_step_sum_or_difference_only():
    @quantity_tool(returns={"unit": "km2"})
    def sub_area(n: int):
        return [1000.0, 250.0, 40.0][n]

    with session():
        for n in range(3):
            sub_area(n)
        assert runoff_depth(1, 1250).magnitude > 0    # 1000 + 250
        assert runoff_depth(1, 750).magnitude > 0     # 1000 - 250
        assert runoff_depth(1, 960).magnitude > 0     # 1000 - 40
        with pytest.raises(UnsourcedInput):
            runoff_depth(1, 1290)                      # 1000 + 250 + 40: two steps
        with pytest.raises(UnsourcedInput):
            runoff_depth(1, 250000)                    # 1000 * 250: a product


def test_manifest_round_trips_and_is_json():
    with session(context="q") as ledger:
        read_discharge("x")
        read_area("x")
        runoff_depth("1250 cfs", 29000)
        with pytest.raises(UnconvertedCarryOver):
            runoff_depth(1250, 29000)
    data = json.loads(json.dumps(ledger.manifest()))
    assert [c["tool"] for c in data["calls"]] == ["read_discharge", "read_area", "runoff_depth",
                                                 "runoff_depth"]
    call = data["calls"][2]
    assert call["arguments"] == {"discharge": "1250 cfs", "area": 29000}
    assert call["inputs"][0]["quantity"] == {"value": 35.39605824, "unit": "m3/s"}
    assert call["inputs"][0]["raw"] == "1250 cfs" and call["inputs"][0]["received_as"] == "string"
    assert call["outputs"][0]["quantity"]["unit"] == "mm/d"
    assert data["calls"][3]["violations"][0]["code"] == "unconverted_carry_over"
    again = Ledger.from_manifest(data)
    assert again.manifest()["calls"] == data["calls"]
    assert again.audit_answer("1250 cfs over 29000 km2").ok


def test_enforcement_report_format():
    @quantity_tool(params={"discharge": {"unit": "m**3/s"}}, enforcement="warn", name="runoff")
    def runoff(discharge):
        return discharge

    with session() as ledger:
        runoff("12.4 ft")
        runoff("3 m")
        runoff(1.0)
    flow = dict(field="runoff.discharge", unit="m**3/s", dims="[length]^3 [time]^-1",
                received_dims="[length]")
    assert ledger.enforcement_report() == (
        "2 of 3 tool calls would have been blocked:\n"
        "  2x dimensionality_error\n"
        f"      {render('wrong_dimension', received='12.4 ft', **flow)}\n"
        f"      {render('wrong_dimension', received='3 m', **flow)}")


def test_warn_mode_records_carry_over_without_blocking():
    @quantity_tool(params={"discharge": {"unit": "m**3/s"}}, enforcement="warn")
    def runoff(discharge):
        return discharge

    with session() as ledger:
        read_discharge("x")
        assert runoff(1250).magnitude == 1250.0
    assert ledger.violations[0]["code"] == "unconverted_carry_over"
    assert ledger.violations[0]["blocked"] is False


def test_session_follows_asyncio_tasks_and_threads():
    async def main():
        with session() as ledger:
            await asyncio.gather(*(asyncio.to_thread(lambda: None) for _ in range(2)))
            await asyncio.create_task(_read())
            return ledger

    async def _read():
        read_discharge("x")

    ledger = asyncio.run(main())
    assert [c.tool for c in ledger.calls] == ["read_discharge"]
    with session() as ledger:
        ledger.run_in_thread(read_discharge, "x")
        ctx = contextvars.copy_context()
        t = threading.Thread(target=ctx.run, args=(read_discharge, "y"))
        t.start()
        t.join()
        plain = threading.Thread(target=read_discharge, args=("z",))  # the only open session
        plain.start()
        plain.join()
    assert [c.arguments["site"] for c in ledger.calls] == ["x", "y", "z"]
    assert current() is None


def test_max_entries_bounds_the_history_and_max_values_the_values_kept_past_it():
    with session(max_entries=3) as ledger:
        read_discharge("x")
        for _ in range(3):
            read_area("x")
        assert len(ledger.entries) == 3 and ledger.entries[0].q == Q(29000.0, "km2")
        with pytest.raises(UnconvertedCarryOver):  # the cfs reading left the history, kept
            runoff_depth(1250, 29000)
    with session(max_entries=3, max_values=1) as ledger:
        read_discharge("x")
        for _ in range(5):  # the area leaves the history after the cfs reading: 1 value kept
            read_area("x")
        assert ledger.values_evicted == 1
        assert runoff_depth(1250, 29000).magnitude > 0   # the cfs reading was forgotten


def test_look_ups_do_not_grow_with_the_ledger():
    """Structural, not timed (bench/perf.py times it): a carry-over look-up examines only the
    outputs in the held value's magnitude buckets, however many others the ledger holds."""
    @quantity_tool(returns={"unit": "cfs"})
    def noise(i: int):
        return 1000.0 + i * 0.37

    with session() as ledger:
        for i in range(10000):
            noise(i)
        read_discharge("x")
        near = ledger._outputs_near(35.39605824, 35.39605824 * 0.005)
        assert len(near) == 0
        near = ledger._outputs_near(1250.0, 1250.0 * 0.005)
        # only the buckets around 1250 (each 16 wide there) are read, never the 10,000 others
        assert near and all(abs(e.magnitude - 1250.0) < 40 for e in near) and len(near) < 250
        assert len(ledger.entries) == 10001


def test_a_call_record_is_found_by_its_index_after_older_records_were_dropped():
    from quantity_guard.ledger import Ledger
    ledger = Ledger(max_calls=2)
    for i in range(5):
        ledger.begin_call(read_discharge, {"site": str(i)}).finish(True)
    assert ledger.call_count == 5 and len(ledger.calls) == 2
    assert ledger.call_record(4).arguments == {"site": "4"}
    assert ledger.call_record(3).arguments == {"site": "3"}
    assert ledger.call_record(1) is None and ledger.call_record(5) is None
