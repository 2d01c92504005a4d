"""Performance figures for quantity-guard: a script, not a test.

    python bench/perf.py          (or: python -m bench.perf)

Prints medians (with the budget from DESIGN.md beside each) for import time, unit parsing,
Q creation and conversion, array conversion, and, as the layers land, decorated-call
overhead, ledger-size independence, the answer audit and the MCP proxy. Timings are of this
machine at this moment: run it twice and quote the second.
"""
from __future__ import annotations

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
    bare = process_ms("pass")
    full = process_ms("import quantity_guard")
    report("import quantity_guard (process, over bare python)", full - bare, "ms", "< 25 ms")
    report("import quantity_guard (in process)", in_process_ms("import quantity_guard"), "ms")
    kernel = process_ms("from quantity_guard.units import convert; convert(1, 'cfs', 'm3/s')")
    report("import kernel + first conversion (over bare python)", kernel - bare, "ms")
    check = subprocess.run([sys.executable, "-c", "import sys, quantity_guard; "
                            "print('numpy' in sys.modules)"], capture_output=True, text=True,
                           cwd=ROOT, check=True).stdout.strip()
    print(f"{'numpy imported by import quantity_guard':<58} {check}")


def bench_units() -> None:
    from quantity_guard.units import convert, parse_unit
    from quantity_guard.units import parser

    def fresh():
        parser._CACHE.clear()
        parse_unit("ft**3/s")

    report("parse a new unit string ('ft**3/s', cache cleared)", per_call_us(fresh, 2000), "us",
           "< 30 us")
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
    try:
        import numpy as np
    except ImportError:
        print("numpy not installed: array figures skipped")
        return
    from quantity_guard.units import convert
    x = np.random.default_rng(0).random(1_000_000)
    factor = 0.028316846592
    bare = per_call_us(lambda: x * factor, 20)
    ours = per_call_us(lambda: convert(x, "cfs", "m3/s"), 20)
    report("1e6-array convert cfs->m3/s", ours / 1e3, "ms")
    report("1e6-array bare numpy multiply", bare / 1e3, "ms")
    report("ratio (budget < 1.3x)", ours / bare, "x", "< 1.3")


SECTIONS = [bench_import, bench_units, bench_quantity, bench_arrays]


def main() -> None:
    print(f"quantity-guard perf, Python {sys.version.split()[0]} ({sys.platform})")
    for section in SECTIONS:
        section()


if __name__ == "__main__":
    main()
