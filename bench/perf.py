"""Performance figures for quantity-guard: a script, not a test.

    python bench/perf.py          (or: python -m bench.perf)

Prints medians (with the budget from DESIGN.md beside each) for import time, unit parsing,
Q creation and conversion, array conversion, and, as the layers land, decorated-call
overhead, ledger-size independence, the answer audit and the MCP proxy. Timings are of this
machine at this moment: run it twice and quote the second.
"""
from __future__ import annotations

import math
import os
import statistics
import subprocess
import sys
import time
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

ROWS: list[tuple[str, float, str, str]] = []
# Child interpreters may write bytecode caches, as an installed package has them: an
# environment with PYTHONDONTWRITEBYTECODE would otherwise time the compiler, not the import.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def report(name: str, value: float, unit: str, budget: str = "") -> None:
    ROWS.append((name, value, unit, budget))
    print(f"{name:<58} {value:>10.3f} {unit:<3} {budget}", flush=True)


def per_call_us(stmt, number: int, repeat: int = 7, setup=None) -> float:
    """Median over `repeat` runs of the per-call time, in microseconds."""
    timer = timeit.Timer(stmt, setup=setup or "pass")
    return statistics.median(t / number for t in timer.repeat(repeat, number)) * 1e6


def process_ms(code: str, runs: int = 15) -> float:
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env=ENV)  # warm caches
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env=ENV)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def in_process_ms(code: str, runs: int = 15) -> float:
    """Median wall time of `code` measured inside a fresh interpreter (no start-up noise)."""
    probe = f"import time; t = time.perf_counter(); {code}; print(time.perf_counter() - t)"
    times = [float(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                                  check=True, cwd=ROOT, env=ENV).stdout) for _ in range(runs + 1)]
    return statistics.median(times[1:]) * 1e3


def bench_import() -> None:
    diffs = []
    for _ in range(41):  # alternated, so drifting load affects both alike
        diffs.append(process_ms("import quantity_guard", runs=1)
                     - process_ms("pass", runs=1))
    report("import quantity_guard (process, over bare python)", statistics.median(diffs), "ms",
           "< 25 ms")
    report("import quantity_guard (in process)", in_process_ms("import quantity_guard"), "ms")
    report("import + Q, @quantity_tool, session (in process)",
           in_process_ms("from quantity_guard import Q, quantity_tool, session"), "ms")
    report("import kernel + first conversion, table loaded (in process)",
           in_process_ms("from quantity_guard.units import convert; convert(1, 'cfs', 'm3/s')"),
           "ms")
    check = subprocess.run([sys.executable, "-c", "import sys, quantity_guard; "
                            "print('numpy' in sys.modules)"], capture_output=True, text=True,
                           cwd=ROOT, check=True).stdout.strip()
    print(f"{'numpy imported by import quantity_guard':<58} {check}")


def bench_units() -> None:
    from quantity_guard.units import convert, parse_unit
    from quantity_guard.units import parser

    def fresh():
        parser.clear_cache()
        parse_unit("ft**3/s")

    report("parse a new unit string ('ft**3/s', cache cleared)", per_call_us(fresh, 2000), "us",
           "< 20 us")
    report("parse a cached unit string", per_call_us(lambda: parse_unit("ft**3/s"), 200000), "us",
           "< 0.5 us")
    report("convert(1250, 'cfs', 'm3/s') (strings)", per_call_us(
        lambda: convert(1250.0, "cfs", "m3/s"), 100000), "us")


def bench_quantity() -> None:
    try:
        from quantity_guard import Q
    except ImportError:
        return
    report("Q(1250, 'cfs')", per_call_us(lambda: Q(1250.0, "cfs"), 100000), "us")
    q = Q(1250.0, "cfs")
    report("Q(1250, 'cfs').to('m3/s') (existing Q)", per_call_us(lambda: q.to("m3/s"), 100000),
           "us", "< 3 us")
    report("Q(1250, 'cfs').to('m3/s') (create + convert)",
           per_call_us(lambda: Q(1250.0, "cfs").to("m3/s"), 100000), "us", "< 3 us")
    a, b = Q(1.0, "m3/s"), Q(1250.0, "cfs")
    report("Q + Q with conversion (m3/s + cfs)", per_call_us(lambda: a + b, 100000), "us")


def bench_arrays() -> None:
    """1e6-element series against the bare numpy expression doing the same arithmetic, the
    variants alternated and each taken at its fastest round (see _ratio)."""
    try:
        import numpy as np
    except ImportError:
        print("numpy not installed: array figures skipped")
        return
    from quantity_guard import Q
    from quantity_guard.units import convert
    rng = np.random.default_rng(0)
    x, y = rng.random(1_000_000), rng.random(1_000_000)
    frozen, x = x, x.copy()  # the same values, read-only and writeable
    frozen.flags.writeable = False
    cfs, ft = convert(1.0, "ft**3/s", "m**3/s"), convert(1.0, "ft", "m")
    q, a, b = Q(x, "ft**3/s"), Q(x, "m"), Q(y, "ft")
    handed = x.copy()

    def ms(fn, before=None) -> float:
        """The fastest of 10 calls, after 5 untimed ones: a variant's steady state. Allocating
        8 MB arrays is cheap only once the allocator holds freed memory to reuse; how much it
        keeps depends on what ran before, so each variant first settles into its own pattern."""
        best = math.inf
        for i in range(15):
            if before is not None:
                before()
            start = time.perf_counter()
            fn()
            if i >= 5:
                best = min(best, time.perf_counter() - start)
        return best * 1e3

    def rewrite() -> None:  # Q(handed, copy=False) took it over: make it writeable again
        handed.flags.writeable = True
    t = _alternate({
        "bare": lambda: ms(lambda: frozen * cfs),
        "convert": lambda: ms(lambda: convert(x, "cfs", "m3/s")),
        "existing": lambda: ms(lambda: q.to("m**3/s")),
        "wrap_ro": lambda: ms(lambda: Q(frozen, "ft**3/s").to("m**3/s")),
        "wrap_rw": lambda: ms(lambda: Q(x, "ft**3/s").to("m**3/s")),
        "wrap_take": lambda: ms(lambda: Q(handed, "ft**3/s", copy=False).to("m**3/s"),
                                rewrite),
        "bare_add": lambda: ms(lambda: x + y * ft),
        "add": lambda: ms(lambda: a + b),
        "bare_sub": lambda: ms(lambda: x - y * ft),
        "sub": lambda: ms(lambda: a - b),
    }, 15)
    report("1e6-array bare numpy multiply", min(t["bare"]), "ms")
    report("1e6-array convert(x, 'cfs', 'm3/s') / bare multiply", _ratio(t, "convert", "bare"),
           "x", "< 1.3")
    report("1e6-array existing Q .to('m**3/s') / bare multiply", _ratio(t, "existing", "bare"),
           "x", "< 1.3")
    report("1e6-array Q(read-only x, 'ft**3/s').to(...) / bare multiply",
           _ratio(t, "wrap_ro", "bare"), "x", "< 2")
    report("1e6-array Q(writeable x, copy=False).to(...) / bare", _ratio(t, "wrap_take", "bare"),
           "x", "< 2")
    report("1e6-array Q(writeable x, ...).to(...) (x copied) / bare", _ratio(t, "wrap_rw", "bare"),
           "x", "(copy ~1x)")
    report("1e6-array bare numpy x + y * 0.3048", min(t["bare_add"]), "ms")
    report("1e6-array Q(x, 'm') + Q(y, 'ft') / bare expression", _ratio(t, "add", "bare_add"),
           "x", "< 1.5")
    report("1e6-array Q(x, 'm') - Q(y, 'ft') / bare expression", _ratio(t, "sub", "bare_sub"),
           "x", "< 1.5")


def _runoff_tools():
    from quantity_guard import quantity_tool

    @quantity_tool(params={"discharge": {"unit": "m**3/s"}, "area": {"unit": "km**2"}},
                   returns={"unit": "mm/day"})
    def runoff(discharge, area):
        return discharge / area

    def plain(discharge, area):
        return discharge / area

    return runoff, plain


def bench_tool() -> dict:
    runoff, plain = _runoff_tools()
    base = per_call_us(lambda: plain(35.4, 29000.0), 100000)
    shapes = {"bare numbers": (35.4, 29000.0), "strings": ("1250 cfs", "29000 km2"),
              "dicts": ({"value": 1250, "unit": "cfs"}, {"value": 29000, "unit": "km2"})}
    budgets = {"bare numbers": "< 10 us", "strings": "< 20 us", "dicts": "< 15 us"}
    out = {}
    for name, (d, a) in shapes.items():
        runoff(d, a)
        t = per_call_us(lambda: runoff(d, a), 10000) - base
        out[name] = t
        report(f"decorated call overhead, {name}", t, "us", budgets[name])
    return out


def _in(ledger, fn, *args):
    """Call ``fn(*args)`` with ``ledger`` as the active session (None: outside any session)."""
    from quantity_guard import ledger as ledger_module
    with ledger_module.bind(ledger):
        return fn(*args)


def _alternate(variants: dict, rounds: int) -> dict:
    """Each variant's figures, the variants timed in turn in each round, so drifting machine
    load (these are shared 2-core machines) affects all alike."""
    times: dict = {name: [] for name in variants}
    for _ in range(rounds):
        for name, measure in variants.items():
            times[name].append(measure())
    return times


def _ratio(times: dict, a: str, b: str) -> float:
    """The ratio of the fastest rounds of a and b: other processes only ever add time, so on a
    loaded machine the minimum is the steadiest estimate of a variant's own cost."""
    return min(times[a]) / min(times[b])


def bench_ledger() -> None:
    """Far-apart values: the same decorated call outside a session, in an empty session and in
    one holding 10,000 entries far (beyond the tolerance) from the value checked."""
    from quantity_guard import Ledger, quantity_tool
    runoff, _ = _runoff_tools()

    @quantity_tool(returns={"unit": "cfs"})
    def reading(i: int):
        return 1000.0 + i * 0.37

    empty = Ledger(context="area 29000 km2")
    full = Ledger(context="area 29000 km2")
    for i in range(10000):
        _in(full, reading, i)
    call = lambda: runoff(35.4, 29000.0)  # noqa: E731
    t = _alternate({name: (lambda ledger=ledger: _in(ledger, per_call_us, call, 200, 1))
                    for name, ledger in (("out", None), ("empty", empty), ("full", full))}, 31)
    med = min  # see _ratio
    report("decorated call outside a session (far-apart case)", med(t["out"]), "us")
    report("decorated call in a session, empty ledger", med(t["empty"]), "us")
    report("decorated call in a session, 10,000 far-apart entries", med(t["full"]), "us")
    report("ratio 10,000 entries / empty (budget <= 1.5x)", _ratio(t, "full", "empty"), "x",
           "<= 1.5")
    report("ratio empty session / outside (budget <= 2x)", _ratio(t, "empty", "out"), "x",
           "<= 2")
    report("ratio 10,000 far-apart entries / outside (budget <= 2x)", _ratio(t, "full", "out"),
           "x", "<= 2")


def _dense_tools():
    """A pipeline step: each call takes the previous call's output (sourced, in cfs) and returns a
    value 0.001 cfs higher, so 10,000 outputs lie between 1000 and 1010 cfs (within 1%)."""
    from quantity_guard import quantity_tool

    @quantity_tool(params={"flow": {"unit": "cfs", "sourced": True}}, returns={"unit": "cfs"})
    def step(flow):
        return flow.magnitude + 0.001

    return step


DENSE_CONTEXT = "The series starts at 1000 cfs."


def bench_ledger_dense(n: int = 10000, block: int = 250) -> None:
    """Dense values (a time series of readings): a pipeline of ``n`` calls whose values lie within
    1% of each other, run outside a session and inside one, in alternating blocks of ``block``
    calls; then a call in a session that already holds ``n`` such outputs, against the same call
    outside a session."""
    from quantity_guard import Ledger
    step = _dense_tools()
    state = {"out": [1000.0, None], "in": [1000.0, Ledger(context=DENSE_CONTEXT)]}

    def pipeline_block(name: str) -> float:
        x, ledger = state[name]

        def run():
            value = x
            start = time.perf_counter()
            for _ in range(block):
                value = step(value).magnitude
            state[name][0] = value
            return (time.perf_counter() - start) / block * 1e6
        return _in(ledger, run)

    t = _alternate({"out": lambda: pipeline_block("out"), "in": lambda: pipeline_block("in")},
                   n // block)
    med = min  # see _ratio
    assert len(state["in"][1].calls) == n
    report(f"dense pipeline of {n:,} calls, per call, outside a session", med(t["out"]), "us")
    report(f"dense pipeline of {n:,} calls, per call, in a session", med(t["in"]), "us")
    report("ratio dense pipeline in / outside a session (budget <= 2x)", _ratio(t, "in", "out"),
           "x", "<= 2")

    full = Ledger(context=DENSE_CONTEXT)
    outputs = [1000.0]
    for _ in range(n):
        outputs.append(_in(full, step, outputs[-1]).magnitude)
    held = outputs[n // 2]  # an output in the middle of the dense cluster
    call = lambda: step(held)  # noqa: E731
    t = _alternate({"out": lambda: per_call_us(call, 200, 1),
                    "full": lambda: _in(full, per_call_us, call, 200, 1)}, 31)
    report("call outside a session (dense case)", med(t["out"]), "us")
    report(f"call in a session holding {n:,} dense outputs", med(t["full"]), "us")
    report(f"ratio after {n:,} dense outputs / outside (budget <= 2x)", _ratio(t, "full", "out"),
           "x", "<= 2")


def bench_ledger_long_session() -> None:
    """A long session under the proxy's bounds (bench/ledger_scale.py): an accepted sourced
    call and a refused one, in CPU time, after 10,000 and 100,000 guarded calls."""
    from bench import ledger_scale
    for calls in (10_000, 100_000):
        ledger, route = ledger_scale.long_session(calls)
        accepted, refused = ledger_scale.per_call_us(ledger, route)
        report(f"accepted sourced call after {calls:,} calls (CPU)", accepted, "us")
        report(f"refused call after {calls:,} calls (CPU)", refused, "us")
        report(f"ratio refused / accepted after {calls:,} calls (budget <= 3x)",
               refused / accepted, "x", "<= 3")
    report("memory held after 100,000 calls (tracemalloc)", ledger_scale.held_mb(100_000), "MB")


def bench_audit() -> None:
    """A 200-word answer with 24 distinct figures (read back, converted, derived, quoted and
    invented) against a ledger of 50 outputs."""
    from quantity_guard import Q, quantity_tool, session

    @quantity_tool(returns={"unit": "cfs"})
    def reading(i: int):
        return 100.0 + i * 13.7

    sentences = []
    for i in range(6):
        a, b = 100.0 + i * 13.7, 100.0 + (i + 7) * 13.7
        sentences.append(
            f"At gauge {i + 1} the flow was {a:,.1f} cfs ({Q(a, 'cfs').to('m3/s').magnitude:.2f} "
            f"m3/s), rising to {b:.0f} cubic feet per second by noon, a change of {b - a:.1f} "
            f"cfs, against the {40 + i} ft threshold and an estimate of {321.5 + i} cfs.")
    answer = " ".join(" ".join(sentences).split()[:200])
    with session(context="Thresholds are 40 to 45 ft. What are the flows?") as ledger:
        for i in range(50):
            reading(i)
        report("audit_answer, 200 words, 50 ledger entries",
               per_call_us(lambda: ledger.audit_answer(answer), 50) / 1e3, "ms", "< 1 ms")


PIPELINE_ANNOTATIONS = """
[tools.read]
returns = { unit = "cfs" }

[tools.step]
returns = { unit = "cfs" }
params = { flow = { unit = "cfs", sourced = true } }
"""


def bench_proxy_conversation(n: int = 10000, block: int = 250) -> None:
    """The proxy's guard in process (no pipes, so only its own work) over one client's
    conversation: a reading, then ``n`` pipeline steps, each sending the previous result back
    (sourced, in cfs) and receiving a value 0.001 cfs higher, so the per-client ledger (10,000
    entries, the oldest evicted) fills with outputs within 1% of each other. Blocks of ``block``
    calls alternate with the same steps sent to a fresh guard (its ledger nearly empty); each
    side is taken at its fastest block (see _ratio), the long conversation over its last fifth."""
    import tempfile
    try:
        from quantity_guard.mcp.guard import C2S, S2C, Guard
        from quantity_guard.mcp.policy import build_policy
        from bench.perf_proxy import INIT
    except ImportError as err:
        print(f"proxy conversation skipped: {err}")
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pipeline.toml"
        path.write_text(PIPELINE_ANNOTATIONS, encoding="utf-8")
        policy = str(path)

        def new_guard(start: float):
            guard = Guard(build_policy(policy))
            guard.receive(C2S, INIT.split(b"\n")[0])
            run_call(guard, 1, "read", "{}", start)
            return guard

        def run_call(guard, i: int, name: str, arguments: str, value: float) -> float:
            request = ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s",'
                       '"arguments":%s}}' % (i, name, arguments)).encode()
            result = ('{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text",'
                      '"text":"%r"}]}}' % (i, value)).encode()
            start = time.perf_counter_ns()
            forwarded = guard.receive(C2S, request)
            guard.receive(S2C, result)
            elapsed = (time.perf_counter_ns() - start) / 1000.0
            if not any(b'"tools/call"' in line for _, line in forwarded):
                raise RuntimeError(f"the guard did not forward call {i}: {forwarded!r}")
            return elapsed

        def steps(guard, x: float, first: int) -> tuple[float, float]:
            times = []
            for i in range(first, first + block):
                times.append(run_call(guard, i, "step", '{"flow":%r}' % x, x + 0.001))
                x += 0.001
            return x, statistics.median(times)

        long_guard, x = new_guard(1000.0), 1000.0
        late, fresh = [], []
        for b in range(n // block):
            x, t = steps(long_guard, x, 2 + b * block)
            if b >= (n // block) * 4 // 5:
                late.append(t)
            fresh.append(steps(new_guard(1000.0), 1000.0, 2)[1])
        ledger = long_guard.policy.ledger
        assert len(ledger.entries) == 10000 and not ledger.violations, "the guard refused calls"
    report("proxy guard per call, fresh conversation (in process)", min(fresh), "us")
    report(f"proxy guard per call, after {n * 4 // 5:,}+ dense calls", min(late), "us")
    report(f"ratio after {n * 4 // 5:,}+ calls / fresh (budget <= 1.5x)", min(late) / min(fresh),
           "x", "<= 1.5")


def bench_proxy() -> None:
    try:
        from bench import perf_proxy
    except ImportError:
        print("bench/perf_proxy.py missing: proxy figures skipped")
        return
    figures = perf_proxy.measure(n=400, annotations=str(ROOT / "bench" / "perf_annotations.toml"))
    for key, unit, budget in (("added_passthrough_us", "us", ""),
                              ("added_guarded_us", "us", "< 100 us"),
                              ("guard_guarded_us", "us", ""),
                              ("startup_added_ms", "ms", "< 150 ms")):
        if key in figures:
            report(f"proxy {key}", figures[key], unit, budget)
    for key, top, bottom, before, target in perf_proxy.RATIOS:
        if key in figures:  # beside the figure before the one-parse core (issue 33)
            report(f"proxy {key} ({top} / {bottom})" + (f", before {before:g}x" if before else ""),
                   figures[key], "x", f"<= {target:g}x" if target else "")


SECTIONS = [bench_import, bench_units, bench_quantity, bench_arrays, bench_tool, bench_ledger,
            bench_ledger_dense, bench_ledger_long_session, bench_audit, bench_proxy_conversation,
            bench_proxy]


def main() -> None:
    print(f"quantity-guard perf, Python {sys.version.split()[0]} ({sys.platform})")
    for section in SECTIONS:
        section()


if __name__ == "__main__":
    main()
