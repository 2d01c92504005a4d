"""The ledger's indexed checks against a plain scan of every recorded output.

The carry-over and sourced checks look outputs up in an index: per footing (unit and datum) a run
of outputs sorted by magnitude, each magnitude bucket counting the footings it holds, and the
footings of each dimension. These
tests build random ledgers whose values cluster densely (several units of one dimension, several
datums, values within a fraction of a percent of each other and of their conversions) and compare
every answer with a reference that scans all outputs in order, as the checks did before the index.
"""
from __future__ import annotations

import json

import pytest
from hypothesis import example, given, settings, strategies as st

from quantity_guard import Q, quantity_tool
from quantity_guard.audit import is_close, relative_cap, written_tolerance
from quantity_guard.errors import GuardViolation, UnconvertedCarryOver, UnsourcedInput
from quantity_guard.ledger import Ledger, SortedRun, magnitude_bucket, held_tolerance

# -- the units, datums and specs the random ledgers draw from ----------------------------------
LENGTH = ["m", "ft", "cm", "km"]
FLOW = ["m**3/s", "cumec", "cfs", "L/s"]          # cumec is m**3/s: the same unit
TEMPERATURE = ["K", "delta_degC"]                  # the same scale, different units
UNITS = LENGTH + FLOW + TEMPERATURE
DATUMS = [None, "NAVD88", "NGVD29"]
BASES = [1000.0, 35.39605824, 12.4, 1.0, 2.0, 0.5, -12.4, -1.0, 1024.0, 3.0e-7, 7.5e9]
SPECS = [{"unit": "m"}, {"unit": "ft"}, {"unit": "ft", "datum": "NAVD88"},
         {"unit": "m", "datum": "NGVD29"}, {"unit": "m**3/s"}, {"unit": "cfs"}, {"unit": "K"},
         {"unit": "delta_degC"}]


def _tool(spec: dict):
    @quantity_tool(params={"x": {**spec, "sourced": True}}, name="check")
    def check(x):
        return x

    return check


TOOLS = [_tool(s) for s in SPECS]
SCALE = {u: Q(1.0, u).unit.scale for u in UNITS}


@st.composite
def values(draw):
    """A magnitude near one of BASES: itself, a relative step within 0.7%, or a conversion of
    it between two units of a dimension (so outputs and held values can be the same amount)."""
    # mostly one base per example (shared by its outputs and the held value): a dense cluster
    b = draw(st.one_of(st.shared(st.sampled_from(BASES), key="base"), st.sampled_from(BASES)))
    kind = draw(st.sampled_from(["same", "step", "converted", "rounded"]))
    if kind == "same":
        return b
    if kind == "step":
        return b * (1.0 + draw(st.sampled_from([-7e-3, -5e-3, -4.9e-3, -1e-3, -1e-6, -1e-9,
                                                1e-9, 1e-6, 1e-3, 4.9e-3, 5e-3, 7e-3])))
    if kind == "converted":
        a, c = draw(st.sampled_from(UNITS)), draw(st.sampled_from(UNITS))
        return b * SCALE[a] / SCALE[c]
    return float(round(b, draw(st.integers(0, 4))))


@st.composite
def outputs(draw):
    group = draw(st.shared(st.sampled_from([LENGTH, FLOW, TEMPERATURE]), key="group"))
    unit = draw(st.one_of(st.sampled_from(group), st.sampled_from(group), st.sampled_from(UNITS)))
    datum = draw(st.sampled_from(DATUMS)) if unit in LENGTH else None
    return draw(values()), unit, datum, draw(st.integers(0, 3))


@st.composite
def held(draw):
    """(tool, raw argument) as a model might send it: a bare number, a string with a unit, or a
    dict with a unit (received in another unit and converted by the boundary)."""
    group = draw(st.shared(st.sampled_from([LENGTH, FLOW, TEMPERATURE]), key="group"))
    i = draw(st.sampled_from([i for i, s in enumerate(SPECS) if s["unit"] in group]))
    v = draw(values())
    shape = draw(st.sampled_from(["bare", "bare", "string", "dict"]))
    if shape == "bare":
        return TOOLS[i], v
    spec_unit = SPECS[i]["unit"]
    group = next(g for g in (LENGTH, FLOW, TEMPERATURE) if spec_unit in g)
    unit = draw(st.sampled_from(group))
    if shape == "string":
        return TOOLS[i], f"{v!r} {unit}"
    return TOOLS[i], {"value": v, "unit": unit}


CONTEXTS = [None, "The flow was 1000 m3/s.", "A stage of 12.4 ft and 35.4 cumec.",
            "Readings: 1000, 1024 and 2.", "It was 1 K."]


def _ledger(outs, context=None, max_entries=None) -> Ledger:
    ledger = Ledger(context=context, max_entries=max_entries)
    for value, unit, datum, call in outs:
        ledger._add(call, "source", "output", None, Q(value, unit, datum=datum))
    return ledger


def _accepted(tool, raw):
    spec = tool.params["x"]
    try:
        return spec, spec.accept(raw, "x")
    except GuardViolation:
        return spec, None


# -- the references: a scan of every output, in the order recorded ----------------------------
def reference_carry_over(ledger: Ledger, call, accepted):
    """None, or the output the check must name: the nearest candidate (oldest among equals)."""
    held = accepted.value
    m = held.magnitude
    if m == 0.0:
        return None
    tol = relative_cap(m, reference_held_tolerance(accepted))
    held_si = m * held.unit.scale + held.unit.shift
    candidates = []
    for e in indexed_outputs(ledger):
        if e.call == call.index or not is_close(e.magnitude, m, tol):
            continue
        same_unit = e.unit == held.unit
        datum_differs = held.datum is not None and e.datum is not None and e.datum != held.datum
        if same_unit and not datum_differs:
            continue
        if not same_unit and e.unit.dims == held.unit.dims and e.datum == held.datum and \
                is_close(e.si, held_si, 1e-9 * abs(e.si)):
            continue
        if ledger._in_question(held, tol):
            return None
        candidates.append(e)
    return min(candidates, key=lambda e: (abs(e.magnitude - m), e.index), default=None)


def reference_held_tolerance(accepted) -> float:
    tol = written_tolerance(accepted.raw)
    received, held = accepted.received, accepted.value
    if received is not None and received.unit is not held.unit:
        tol *= received.unit.scale / held.unit.scale
    return tol


def reference_output_matches(ledger: Ledger, call: int, dims, datum, si, tol) -> bool:
    return any(e.call != call and e.unit.dims == dims and is_close(e.si, si, tol)
               and (datum is None or e.datum in (None, datum)) for e in indexed_outputs(ledger))


def _sourced_tolerance(accepted):
    held = accepted.value
    u = held.unit
    si = held.magnitude * u.scale + u.shift
    return si, relative_cap(si, reference_held_tolerance(accepted) * u.scale) or 1e-12


def _assert_checks_match(ledger: Ledger, tool, raw) -> None:
    spec, accepted = _accepted(tool, raw)
    if accepted is None:
        return
    held = accepted.value
    call = ledger.begin_call(tool, {"x": raw})
    assert held_tolerance(accepted) == reference_held_tolerance(accepted)

    expected = reference_carry_over(ledger, call, accepted)
    if expected is None:
        ledger._check_carry_over(call, spec, accepted)
    else:
        with pytest.raises(UnconvertedCarryOver) as err:
            ledger._check_carry_over(call, spec, accepted)
        wanted = ledger._carry_over(call, spec, accepted, expected, expected.unit == held.unit)
        assert str(err.value) == str(wanted)
        assert err.value.repair() == wanted.repair()

    si, tol = _sourced_tolerance(accepted)
    direct = reference_output_matches(ledger, call.index, held.unit.dims, held.datum, si, tol)
    assert ledger._output_matches(call.index, held.unit.dims, held.datum, si, tol) == direct
    written = reference_held_tolerance(accepted)
    m = held.magnitude
    stated = any(is_close(n.value, m, relative_cap(m, n.tolerance)) if n.unit is None else
                 n.unit.dims == held.unit.dims and is_close(
                     n.value * n.unit.scale + n.unit.shift, si,
                     relative_cap(si, n.tolerance * n.unit.scale))
                 for n in ledger.context_numbers())
    sourced = direct or stated or bool(ledger.find_derivation((m,), held.unit,
                                                              relative_cap(m, written)))
    if sourced:
        ledger._check_sourced(call, spec, accepted)
    else:
        with pytest.raises(UnsourcedInput):
            ledger._check_sourced(call, spec, accepted)

    m, mtol = held.magnitude, relative_cap(held.magnitude, 0.01 * abs(held.magnitude))
    assert ledger._outputs_near(m, mtol) == [
        e for e in indexed_outputs(ledger) if is_close(e.magnitude, m, mtol)]
    assert ledger._outputs_near_si(held.unit.dims, si, tol) == [
        e for e in indexed_outputs(ledger) if e.unit.dims == held.unit.dims
        and is_close(e.si, si, tol)]


def indexed_outputs(ledger: Ledger) -> list:
    """What the checks read: the outputs in the history and the values kept after they left
    it, oldest first."""
    history = ledger.output_entries()
    inside = {id(e) for e in history}
    return sorted([*history, *(e for e in ledger._kept.values() if id(e) not in inside)],
                  key=lambda e: e.index)


def kept_model(added: list, history: list) -> dict:
    """The values kept once they left the history (no more than ``max_values`` of them): per
    value (unit, datum, magnitude), the first output of it to leave."""
    inside = {id(e) for e in history}
    kept: dict = {}
    for e in added:
        if id(e) not in inside:
            kept.setdefault((e.unit, e.datum, e.magnitude), e)
    return kept


def _assert_index_consistent(ledger: Ledger, added: list | None = None) -> None:
    """The index holds exactly the outputs still in the history and the values kept after
    they left it (``added``: every output recorded, by default those of the calls), each
    once."""
    history = ledger.output_entries()
    if added is None:
        added = sorted((o for c in ledger.calls for o in c.outputs), key=lambda e: e.index)
    assert {k: id(v) for k, v in ledger._kept.items()} == {
        k: id(v) for k, v in kept_model(added, history).items()}
    outs = indexed_outputs(ledger)
    by_footing: dict = {}
    counts: dict = {}
    for e in outs:
        by_footing.setdefault((e.unit, e.datum), []).append(e)
        bucket = counts.setdefault(magnitude_bucket(e.magnitude), {})
        bucket[(e.unit, e.datum)] = bucket.get((e.unit, e.datum), 0) + 1
    assert ledger._footings == counts
    assert ledger._near == {k: dict.fromkeys(v) for k, v in counts.items()}  # what checks read
    assert set(ledger._by_footing) == set(by_footing)
    for footing, run in ledger._by_footing.items():
        _assert_run(run, by_footing[footing], lambda e: e.magnitude)
    by_dims: dict = {}
    for footing, run in ledger._by_footing.items():
        by_dims.setdefault(footing[0].dims, {})[footing] = run
    assert ledger._by_dims == by_dims
    for dims, recent in ledger._recent.items():  # the pair search's window, evicted in step
        assert list(recent) == [e for e in history if e.unit.dims == dims][-recent.maxlen:]


def _assert_run(run: SortedRun, entries: list, key) -> None:
    flat_keys = [k for chunk in run.keys for k in chunk]
    flat_items = [e for chunk in run.items for e in chunk]
    assert all(run.keys) and [c[-1] for c in run.keys] == run.maxes
    assert flat_keys == sorted(flat_keys) == [key(e) for e in flat_items]
    assert sorted(flat_items, key=lambda e: e.index) == entries


# -- the properties --------------------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(st.lists(outputs(), max_size=40), held(), st.sampled_from(CONTEXTS))
@example(outs=[(1250.0, "cfs", None, 1)], probe=(TOOLS[4], 1250.0), context=None)
@example(outs=[(35.39605824, "m**3/s", None, 1)], probe=(TOOLS[5], 35.396), context=None)
@example(outs=[(12.4, "ft", "NGVD29", 1), (12.4, "ft", None, 2)], probe=(TOOLS[2], 12.4),
         context=None)
@example(outs=[(5.0, "K", None, 1)], probe=(TOOLS[7], 5.0), context=None)  # the same amount
@example(outs=[(1000.0, "cfs", None, 0)], probe=(TOOLS[4], 1000.0), context=None)  # same call
@example(outs=[(1000.0, "cfs", None, 1)], probe=(TOOLS[4], 1000.0),
         context="The flow was 1000 m3/s.")  # stated in the question
@example(outs=[(-1.0, "ft", None, 1), (-0.997, "ft", None, 1), (-1.004, "ft", None, 1)],
         probe=(TOOLS[0], -1.0), context=None)  # negative values across a power of two
@example(outs=[(1000.0, "cfs", None, 1), (1004.0, "cfs", None, 2), (1001.0, "L/s", None, 3)],
         probe=(TOOLS[4], 1002.0), context=None)  # the nearest of several is named
def test_indexed_checks_match_a_full_scan(outs, probe, context):
    ledger = _ledger(outs, context)
    _assert_index_consistent(ledger)
    _assert_checks_match(ledger, *probe)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(outputs(), st.tuples(values(), st.sampled_from(UNITS))), max_size=60),
       st.integers(1, 12), held())
@example(ops=[(1.0, "m", None, 1), (1.0, "m", None, 1), (1.0, "ft", None, 1)], max_entries=1,
         probe=(TOOLS[1], 1.0))  # equal keys: the evicted entry, not its twin, leaves the run
def test_eviction_keeps_the_index_consistent(ops, max_entries, probe):
    """Outputs and inputs interleaved under ``max_entries``: after every addition the index
    holds exactly the outputs still in the history and the values kept after they left it,
    and the checks agree with a full scan of those."""
    ledger, added = Ledger(max_entries=max_entries), []
    for op in ops:
        if len(op) == 4:
            value, unit, datum, call = op
            added.append(ledger._add(call, "source", "output", None, Q(value, unit, datum=datum)))
        else:
            value, unit = op
            ledger._add(9, "sink", "input", "x", Q(value, unit))
        assert len(ledger.entries) <= max_entries
        _assert_index_consistent(ledger, added)
    _assert_checks_match(ledger, *probe)


def test_run_splits_chunks_and_keeps_key_order():
    run, items = SortedRun(), []
    keys = [float((i * 7919) % 2003) for i in range(3000)] + [5.0] * 700 + \
        [float(i) for i in range(3000, 4000)]
    for i, k in enumerate(keys):
        e = Q(k, "m")  # any object stands for an entry
        items.append((k, e))
        run.add(k, e)
    assert len(run) == len(keys) and len(run.maxes) > 1
    assert max(len(c) for c in run.keys) <= 512
    flat = [k for c in run.keys for k in c]
    assert flat == sorted(keys)
    fives = [e for k, e in items if k == 5.0]
    assert len(fives) == keys.count(5.0) > 700
    assert {id(e) for e in run.scan(5.0, 5.0)} == {id(e) for e in fives}
    assert [k for k, _ in sorted(items, key=lambda p: p[0]) if 4.5 <= k <= 1000.0] == \
        [k for c in run.keys for k in c if 4.5 <= k <= 1000.0] and \
        len(list(run.scan(4.5, 1000.0))) == sum(4.5 <= k <= 1000.0 for k in keys)
    for k, e in items[::2]:
        assert run.remove(k, e)
    assert not run.remove(keys[0], items[0][1])   # already removed
    assert not run.remove(-1.0, object())
    assert sorted(k for c in run.keys for k in c) == sorted(k for k, _ in items[1::2])
    for k, e in items[1::2]:
        assert run.remove(k, e)
    assert run.maxes == [] and run.keys == [] and len(run) == 0


# -- behaviour at scale: what the index is for ------------------------------------------------
@quantity_tool(params={"flow": {"unit": "cfs", "sourced": True}}, returns={"unit": "cfs"})
def step(flow):
    return flow.magnitude + 0.001


@quantity_tool(params={"flow": {"unit": "m**3/s"}}, returns={"unit": "m**3/s"})
def in_cumecs(flow):
    return flow


def test_a_dense_same_unit_neighbourhood_is_never_read(monkeypatch):
    """Structural, not timed: 5,000 outputs within 1% of each other in one unit; a carry-over
    check of a value in that unit reads none of them, one in another unit reads only the few
    within its tolerance, and the sourced check finds the match."""
    from quantity_guard import session
    with session(context="The series starts at 1000 cfs.") as ledger:
        x = 1000.0
        for _ in range(5000):
            x = step(x).magnitude
        read = []
        original = SortedRun.scan

        def counting(self, lo, hi):
            for e in original(self, lo, hi):
                read.append(e)
                yield e

        monkeypatch.setattr(SortedRun, "scan", counting)
        assert step(x).magnitude == pytest.approx(x + 0.001)  # sourced, same unit
        assert read == []
        with pytest.raises(UnconvertedCarryOver) as err:
            in_cumecs(1002.5)  # 1002.5 cfs read as m3/s: a carry-over
        assert "returned 1002.5 cfs" in str(err.value)  # the nearest output
        # 1002.5 is written to 0.05: only the outputs within that are read, not the 5,000
        assert read and all(abs(e.magnitude - 1002.5) <= 0.0501 for e in read) and len(read) < 110
        with pytest.raises(UnsourcedInput):
            step(990.0)  # below every output: no tool returned it


@quantity_tool(returns={"unit": "cfs"})
def read_cfs(value: float):
    return value


def test_an_output_that_left_the_history_is_still_checked_until_max_values_forgets_it():
    from quantity_guard import session
    with session(max_entries=4) as ledger:
        read_cfs(1250.0)
        for i in range(4):
            read_cfs(10.0 + i)
        assert 1250.0 not in [e.magnitude for e in ledger.entries]  # out of the history
        with pytest.raises(UnconvertedCarryOver):
            in_cumecs(1250.0)  # still checked: the value is kept
        _assert_index_consistent(ledger)
    with session(max_entries=4, max_values=2) as ledger:
        read_cfs(1250.0)
        for i in range(6):  # 10 and 11 cfs leave the history after 1250: it is forgotten
            read_cfs(10.0 + i)
        assert ledger.values_evicted == 1 and [k[2] for k in ledger._kept] == [10.0, 11.0]
        assert in_cumecs(1250.0).magnitude == 1250.0


@pytest.mark.parametrize("value", [1.79e308, -1.79e308, 5e-324, -5e-324, 2.0 ** -1022])
def test_extreme_magnitudes_are_looked_up(value):
    """A carry-over at the ends of the float range: the tolerance window runs past the largest
    float (or into subnormals) and the look-up still finds the output."""
    @quantity_tool(returns={"unit": "m"})
    def extreme():
        return value

    @quantity_tool(params={"x": "ft"})
    def use(x):
        return x

    from quantity_guard import session
    with session():
        extreme()
        with pytest.raises(UnconvertedCarryOver):
            use(value)


def test_threads_recording_and_checking_at_once_keep_the_index_consistent():
    """Four threads run dense pipelines into one session while the others check: every call
    is sourced from its own thread's previous output, and the index ends consistent."""
    import contextvars
    import sys
    import threading
    from quantity_guard import session

    def pipeline(start: float, out: list) -> None:
        x = start
        for _ in range(300):
            x = step(x).magnitude
        out.append(x)

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        with session(context="Four series start at 1000, 1000.5, 1001 and 1001.5 cfs.") as ledger:
            results: list = []
            threads = [threading.Thread(target=contextvars.copy_context().run,
                                        args=(pipeline, 1000.0 + k * 0.5, results))
                       for k in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    finally:
        sys.setswitchinterval(switch)
    assert len(results) == 4 and not ledger.violations and len(ledger.calls) == 1200
    _assert_index_consistent(ledger)


# -- the boundary's own path: recording and both checks' common outcomes under one lock --------
def _outcome(fn):
    try:
        fn()
    except GuardViolation as err:
        return type(err).__name__, str(err), err.repair()
    return None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(outputs(), held()), max_size=40), st.sampled_from(CONTEXTS))
@example(ops=[(1000.0, "cfs", None, 1), (TOOLS[5], 1000.0), (1000.0, "m**3/s", None, 2),
              (TOOLS[5], 1000.0)], context=None)  # a footing new to the buckets already probed
@example(ops=[(1000.0, "cfs", None, 1), (TOOLS[5], 1000.0), (1001.0, "L/s", None, 2),
              (TOOLS[5], 1001.0), (TOOLS[5], 1003.0)], context=None)  # within the buckets read
@example(ops=[(12.4, "ft", None, 1), (TOOLS[2], 12.4), (12.4, "ft", "NGVD29", 2),
              (TOOLS[2], 12.4)], context=None)  # the same unit on another datum
@example(ops=[(1024.0, "m", None, 1), (TOOLS[0], 1023.0), (1029.0, "ft", None, 2),
              (TOOLS[0], 1025.0)], context=None)  # across a power of two
def test_check_input_agrees_with_the_full_checks(ops, context):
    """``CallRecord.check_input`` (what a guarded call runs: it records the input and probes the
    checks' common outcomes under one lock, remembering buckets found free of other footings)
    raises exactly what the full carry-over and sourced checks raise, while outputs of every
    footing keep arriving between the inputs (some through ``finish_with``, as a call's result)."""
    ledger = Ledger(context=context)
    for op in ops:
        if len(op) == 4:
            value, unit, datum, call = op
            if call == 0 or call >= ledger.call_count:
                # a new call's result (an output is never filed under a call still to come, or
                # under the call whose input is being checked: that cannot happen in a session)
                ledger.begin_call(TOOLS[0], {}).finish_with(Q(value, unit, datum=datum))
            else:  # another output of an earlier call
                ledger._add(call, "source", "output", None, Q(value, unit, datum=datum))
            continue
        tool, raw = op
        spec, accepted = _accepted(tool, raw)
        if accepted is None:
            continue
        call = ledger.begin_call(tool, {"x": raw})
        expected = _outcome(lambda: (ledger._check_carry_over(call, spec, accepted),
                                     ledger._check_sourced(call, spec, accepted)))
        assert _outcome(lambda: call.check_input("x", spec, accepted)) == expected
        assert call.inputs[-1].q is accepted.value and ledger.entries[-1] is call.inputs[-1]
    _assert_index_consistent(ledger)


@pytest.mark.parametrize("base", [1e-310, 3e-308, 1e-300, 1.5e300, 1e308, 1.7e308])
def test_check_input_at_the_ends_of_the_float_range(base):
    """Outputs and inputs near the smallest and largest floats (where bucket bounds are not
    exact or overflow) go through check_input as through the full checks."""
    ledger = Ledger()
    for i, (value, unit) in enumerate([(base, "m"), (base * 1.001, "m"), (base * 1.002, "ft"),
                                       (base * 0.999, "m")]):
        ledger.begin_call(TOOLS[0], {}).finish_with(Q(value, unit))
        _assert_index_consistent(ledger)
        for raw in (base, base * 1.001, base * 1.002, base * 1.003):
            spec, accepted = _accepted(TOOLS[0], raw)
            if accepted is None:
                continue
            call = ledger.begin_call(TOOLS[0], {"x": raw})
            expected = _outcome(lambda: (ledger._check_carry_over(call, spec, accepted),
                                         ledger._check_sourced(call, spec, accepted)))
            assert _outcome(lambda: call.check_input("x", spec, accepted)) == expected, (i, raw)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(outputs(), st.tuples(values(), st.sampled_from(UNITS))), max_size=60),
       st.integers(1, 12))
@example(ops=[(1.0, "m", None, 1), (1.001, "m", None, 1), (1.002, "m", None, 1)], max_entries=1)
def test_results_recorded_by_finish_with_keep_the_index_consistent(ops, max_entries):
    """A guarded call's result is indexed by ``finish_with`` (which reuses the previous output's
    footing and bucket): under ``max_entries`` eviction the index still holds exactly the
    outputs in the history and the values kept after they left it."""
    ledger = Ledger(max_entries=max_entries)
    for op in ops:
        if len(op) == 4:
            value, unit, datum, _ = op
            call = ledger.begin_call(TOOLS[0], {})
            call.finish_with(Q(value, unit, datum=datum))
            assert call.outputs == [ledger.entries[-1]] and call.ok is True
        else:
            value, unit = op
            ledger._add(9, "sink", "input", "x", Q(value, unit))
        _assert_index_consistent(ledger)


# -- a call's first input is held as facts in its record until something reads it ------------
def _flow_tool(name: str, params: list[str]):
    @quantity_tool(params={p: {"unit": "cfs"} for p in params}, returns={"unit": "cfs"},
                   name=name, enforcement="warn")
    def tool(**kwargs):
        return 1.0

    return tool


FLOW_TOOLS = [_flow_tool(f"t{n}", [f"p{i}" for i in range(n)]) for n in range(4)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["none", "entries", "inputs", "both"]),
                          st.booleans()), min_size=1, max_size=12),
       st.one_of(st.none(), st.integers(1, 8)))
@example(calls=[(2, "inputs", True), (1, "entries", False), (3, "none", True)], max_entries=None)
@example(calls=[(2, "none", False), (2, "none", False), (1, "entries", True)], max_entries=3)
def test_held_inputs_read_as_the_entries_recorded(calls, max_entries):
    """Calls of 0-3 parameters (a first input held as facts in the call record, later ones as
    entries), some with an argument the boundary refuses (warn mode: recorded as received),
    read back at random points through ``ledger.entries`` or ``call.inputs``: the ledger holds
    exactly what a plain model of the recording holds, in order, each input one object wherever
    it is read, and the manifest reads back the same."""
    from quantity_guard.tool import guard_arguments
    ledger = Ledger(max_entries=max_entries)
    model = []  # (role, call index, field, magnitude) in the order recorded
    for n, read, refused in calls:
        tool = FLOW_TOOLS[n]
        params = list(tool.params)
        arguments = {p: 1000.0 + len(model) + i for i, p in enumerate(params)}
        if refused and params:
            arguments[params[0]] = "12 m"  # refused (a length): recorded through record_input
        call = ledger.begin_call(tool, arguments)
        coerced = dict(arguments)
        guard_arguments(tool.params, coerced, enforcement="warn", call=call)
        model += [("input", call.index, p, coerced[p].magnitude) for p in params
                  if isinstance(coerced[p], Q)]
        out = Q(2000.0 + len(model), "cfs")
        call.finish_with(out)
        model.append(("output", call.index, None, out.magnitude))
        kept = model[-max_entries:] if max_entries else model
        if read in ("inputs", "both"):
            assert [(e.role, e.call, e.field, e.magnitude) for e in call.inputs] == \
                [m for m in model if m[0] == "input" and m[1] == call.index]
        if read in ("entries", "both"):
            assert [(e.role, e.call, e.field, e.magnitude) for e in ledger.entries] == kept
    kept = model[-max_entries:] if max_entries else model
    entries = list(ledger.entries)
    assert [(e.role, e.call, e.field, e.magnitude) for e in entries] == kept
    assert [e.index for e in entries] == list(range(len(model) - len(kept), len(model)))
    by_id = {id(e): e for e in entries}
    for call in ledger.calls:  # each input is one object, read from the call or the ledger
        for e in call.inputs:
            assert e.role == "input" and e.call == call.index and e.tool == call.tool
            assert e.q.magnitude == e.magnitude and e.how is not None
            if e.index >= len(model) - len(kept):
                assert by_id.get(id(e)) is e
    _assert_index_consistent(ledger)
    manifest = json.loads(json.dumps(ledger.manifest()))
    assert Ledger.from_manifest(manifest).manifest()["calls"] == manifest["calls"]


def test_calls_read_from_other_threads_while_they_record():
    """Readers of ``call.inputs`` / ``call.outputs`` / ``ledger.entries`` in other threads while
    calls record (a first input held as facts is made an Entry under the ledger's lock, once):
    every input and output ends up in its call once, and as the same object in the ledger."""
    import threading
    from quantity_guard import session

    @quantity_tool(params={"a": "cfs", "b": "cfs"}, returns={"unit": "cfs"})
    def add(a, b):
        return a.magnitude + b.magnitude

    errors: list = []
    with session() as ledger:
        def work(k):
            try:
                with ledger.bind():
                    for i in range(400):
                        add(1000.0 + k * 10000 + i, 5.0 + k)
            except Exception as err:  # reported below
                errors.append(err)

        def read():
            try:
                for i in range(4000):
                    if ledger.calls:  # the newest calls: most are still recording
                        call = ledger.calls[-1 - i % 3]
                        call.inputs, call.outputs
                    if i % 50 == 0:
                        len(ledger.entries)
            except Exception as err:
                errors.append(err)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(3)] + \
            [threading.Thread(target=read) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors, errors[:3]
    entries = {id(e): e for e in ledger.entries}
    assert len(entries) == 3 * 400 * 3
    for call in ledger.calls:
        assert [e.field for e in call.inputs] == ["a", "b"] and len(call.outputs) == 1
        for e in call.inputs + call.outputs:
            assert e.call == call.index and entries[id(e)] is e
    _assert_index_consistent(ledger)
