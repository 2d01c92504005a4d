"""Sessions reach worker threads: a guarded call never loses its checks silently.

One open session is found from any thread; with several open, a thread must be bound
(``ledger.bind()``, ``ledger.bound(fn)``, ``ledger.run_in_thread`` or
``contextvars.copy_context().run``) and an unbound guarded call is refused (strict) or warned
and recorded in every open session (warn)."""
from __future__ import annotations

import asyncio
import contextvars
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from quantity_guard import quantity_tool, session
from quantity_guard.errors import GuardViolation, UnconvertedCarryOver
from quantity_guard.ledger import bind, current


@quantity_tool(returns={"unit": "cfs"})
def read_discharge(site: str):
    return 1250.0


@quantity_tool(params={"discharge": {"unit": "m**3/s"}, "area": {"unit": "km**2"}},
               returns={"unit": "mm/day"})
def runoff_depth(discharge, area):
    return discharge / area * 86.4


@quantity_tool(params={"discharge": {"unit": "m**3/s"}}, enforcement="warn", name="runoff_warn")
def runoff_warn(discharge):
    return discharge


@quantity_tool(params={"discharge": {"unit": "m**3/s"}}, enforcement="off", name="runoff_off")
def runoff_off(discharge):
    return discharge


def _in_plain_thread(fn, *args):
    """Run fn in a new threading.Thread (which starts with an empty context); return
    ("value", result) or ("error", exception)."""
    out: list = []

    def target():
        try:
            out.append(("value", fn(*args)))
        except BaseException as exc:
            out.append(("error", exc))

    t = threading.Thread(target=target)
    t.start()
    t.join()
    return out[0]


# -- one open session: found from every kind of worker thread --------------------------------
def test_thread_pool_submit_finds_the_single_open_session():
    with session() as ledger:
        read_discharge("07374000")
        with ThreadPoolExecutor(max_workers=2) as pool:
            with pytest.raises(UnconvertedCarryOver):
                pool.submit(runoff_depth, 1250, 29000).result()
            assert pool.submit(runoff_depth, "1250 cfs", 29000).result().unit.symbol == "mm/d"
    assert [c.tool for c in ledger.calls] == ["read_discharge", "runoff_depth", "runoff_depth"]
    assert ledger.violations[0]["code"] == "unconverted_carry_over"


def test_run_in_executor_finds_the_single_open_session():
    async def main():
        with session() as ledger:
            read_discharge("07374000")
            loop = asyncio.get_running_loop()
            with pytest.raises(UnconvertedCarryOver):
                await loop.run_in_executor(None, runoff_depth, 1250, 29000)
            return ledger

    ledger = asyncio.run(main())
    assert ledger.violations[0]["code"] == "unconverted_carry_over"


def test_asyncio_to_thread_copies_the_context():
    async def main():
        with session() as ledger, session() as other:   # two open: only the context decides
            read_discharge("07374000")
            with pytest.raises(UnconvertedCarryOver):
                await asyncio.to_thread(runoff_depth, 1250, 29000)
            return ledger, other

    ledger, other = asyncio.run(main())   # the inner session is the one bound
    assert [c.tool for c in other.calls] == ["read_discharge", "runoff_depth"]
    assert ledger.calls == []


def test_plain_thread_finds_the_single_open_session():
    with session() as ledger:
        read_discharge("07374000")
        kind, err = _in_plain_thread(runoff_depth, 1250, 29000)
    assert kind == "error" and isinstance(err, UnconvertedCarryOver)
    assert [c.tool for c in ledger.calls] == ["read_discharge", "runoff_depth"]


def test_asyncio_tasks_keep_their_own_sessions():
    async def one(site):
        with session() as ledger:
            read_discharge(site)
            await asyncio.sleep(0)
            runoff_depth("1250 cfs", 29000)
            await asyncio.sleep(0)
            return ledger

    async def main():
        return await asyncio.gather(one("a"), one("b"))

    a, b = asyncio.run(main())
    assert [c.arguments.get("site") for c in a.calls] == ["a", None]
    assert [c.arguments.get("site") for c in b.calls] == ["b", None]


# -- several open sessions: bound threads are exact, unbound ones are refused ----------------
def test_two_concurrent_sessions_in_two_threads_do_not_cross():
    barrier = threading.Barrier(2)
    ledgers: dict = {}
    errors: list = []

    def worker(site, value):
        try:
            with session() as ledger:
                ledgers[site] = ledger
                barrier.wait(timeout=10)           # both sessions are open from here on
                read_discharge(site)
                for _ in range(20):
                    runoff_depth(f"{value} cfs", 29000)
                # this thread's own carry-over is caught, the other thread's is not in view
                try:
                    runoff_depth(1250, 29000)
                except UnconvertedCarryOver:
                    errors.append(site)
                barrier.wait(timeout=10)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(s, v)) for s, v in (("a", 10), ("b", 20))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(errors) == ["a", "b"]
    for site in ("a", "b"):
        calls = ledgers[site].calls
        assert len(calls) == 22
        assert calls[0].arguments == {"site": site}
        assert all(c.ledger is ledgers[site] for c in calls)


def test_unbound_thread_with_two_open_sessions_is_refused_and_says_how_to_bind():
    with session() as a, session() as b:
        kind, err = _in_plain_thread(runoff_depth, "1250 cfs", 29000)
        assert kind == "error" and isinstance(err, GuardViolation)
        assert err.code == "session_unbound"
        text = err.repair()
        assert "2 sessions are open" in text
        for how in ("ledger.bind()", "ledger.run_in_thread", "contextvars.copy_context().run"):
            assert how in text
        # invoke never raises: the refusal is a coded error result
        kind, result = _in_plain_thread(runoff_depth.invoke, {"discharge": "1250 cfs",
                                                              "area": 29000})
        assert result["isError"] is True
        assert result["_meta"]["io.github.quantity-guard/violation"]["code"] == "session_unbound"
    assert a.calls == [] and b.calls == []


def test_unbound_thread_in_warn_mode_warns_and_is_recorded_in_every_open_session():
    with session() as a, session() as b:
        with pytest.warns(RuntimeWarning, match="no session is bound"):
            kind, value = _in_plain_thread(runoff_warn, 3.0)
        assert kind == "value" and value.magnitude == 3.0
    for ledger in (a, b):
        assert [v["code"] for v in ledger.violations] == ["session_unbound"]
        assert ledger.violations[0]["blocked"] is False
        report = ledger.enforcement_report()
        assert "1 call in an unbound thread ran unchecked:" in report.splitlines()[0]
        assert "1x session_unbound" in report


def test_enforcement_off_needs_no_session():
    with session(), session():
        kind, value = _in_plain_thread(runoff_off, 3.0)
    assert kind == "value" and value.magnitude == 3.0


@pytest.mark.parametrize("how", ["bind", "bound", "run_in_thread", "copy_context"])
def test_every_documented_way_of_binding_works_with_several_sessions_open(how):
    with session() as a, session() as b:
        read_discharge("07374000")   # recorded in b, the session bound here
        if how == "bind":
            def job():
                with b.bind():
                    return runoff_depth(1250, 29000)
            kind, err = _in_plain_thread(job)
        elif how == "bound":
            with ThreadPoolExecutor(1) as pool:
                try:
                    pool.submit(b.bound(runoff_depth), 1250, 29000).result()
                    kind, err = "value", None
                except GuardViolation as exc:
                    kind, err = "error", exc
        elif how == "run_in_thread":
            try:
                b.run_in_thread(runoff_depth, 1250, 29000)
                kind, err = "value", None
            except GuardViolation as exc:
                kind, err = "error", exc
        else:
            kind, err = _in_plain_thread(contextvars.copy_context().run, runoff_depth, 1250, 29000)
    assert kind == "error" and isinstance(err, UnconvertedCarryOver)
    assert [c.tool for c in b.calls] == ["read_discharge", "runoff_depth"]
    assert a.calls == []


def test_bind_none_detaches_a_thread_on_purpose():
    with session() as ledger:
        read_discharge("x")

        def job():
            with bind(None):
                assert current() is None
                return runoff_depth(1250, 29000)   # no session: no carry-over check
        kind, value = _in_plain_thread(job)
        assert kind == "value"
    assert [c.tool for c in ledger.calls] == ["read_discharge"]


def test_current_and_the_registry_after_sessions_close():
    assert current() is None
    with session() as ledger:
        assert _in_plain_thread(current) == ("value", ledger)
        with session():
            assert _in_plain_thread(current) == ("value", None)   # ambiguous: not guessed
        assert _in_plain_thread(current) == ("value", ledger)
    assert _in_plain_thread(current) == ("value", None)
    # no session anywhere: a thread's call is unchecked, as in the main thread
    assert _in_plain_thread(runoff_depth, 1250, 29000)[0] == "value"


def test_the_documented_example_prints_what_it_says():
    import re
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    text = (root / "docs" / "guide" / "sessions.md").read_text("utf-8")
    section = text[text.index("## Sessions and threads"):]
    code = re.search(r"```python\n(.*?)```", section, flags=re.S).group(1)
    shown = [line[2:] for line in code.splitlines() if line.startswith("# ")]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == shown
