"""Two checkouts of quantity-guard timed side by side: a script, not a test.

    python -I bench/side_by_side.py OLD_TREE NEW_TREE [--rounds N]

For each tree, in fresh interpreters (``-I``: no site-packages, so no ``opentelemetry`` and no
editable install; each tree is put first on ``sys.path``): bench/perf.py's decorated-call
overhead (a two-argument ``@quantity_tool`` minus the bare function, for bare numbers, strings
and dicts) and the in-process time of ``from quantity_guard import Q, quantity_tool, session``.
The trees are run in turn each round so drifting machine load affects both alike; the fastest
round (other processes only ever add time) and the median are printed.
"""
from __future__ import annotations

import json
import statistics
import subprocess
import sys

CALLS = r'''
import sys, timeit, json
sys.path.insert(0, sys.argv[1])
from quantity_guard import quantity_tool
@quantity_tool(params={"discharge": {"unit": "m**3/s"}, "area": {"unit": "km**2"}},
               returns={"unit": "mm/day"})
def runoff(discharge, area):
    return discharge / area
def plain(discharge, area):
    return discharge / area
def per_call_us(fn, n):
    return min(timeit.repeat(fn, number=n, repeat=7)) / n * 1e6
base = per_call_us(lambda: plain(35.4, 29000.0), 100000)
out = {}
for name, (d, a) in {"bare numbers": (35.4, 29000.0), "strings": ("1250 cfs", "29000 km2"),
                     "dicts": ({"value": 1250, "unit": "cfs"}, {"value": 29000, "unit": "km2"})}.items():
    runoff(d, a)
    out[name] = per_call_us(lambda: runoff(d, a), 10000) - base
print(json.dumps(out))
'''
IMPORT = ("import sys, time; sys.path.insert(0, sys.argv[1]); t = time.perf_counter(); "
          "from quantity_guard import Q, quantity_tool, session; "
          "print((time.perf_counter() - t) * 1e3)")


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 8
    trees = [a for a in args if not a.isdigit()][:2]
    calls: dict = {t: {} for t in trees}
    imports: dict = {t: [] for t in trees}
    for _ in range(rounds):
        for tree in trees:
            out = subprocess.run([sys.executable, "-I", "-c", CALLS, tree], capture_output=True,
                                 text=True, check=True)
            for shape, us in json.loads(out.stdout).items():
                calls[tree].setdefault(shape, []).append(us)
            for _ in range(3):
                imports[tree].append(float(subprocess.run(
                    [sys.executable, "-I", "-c", IMPORT, tree], capture_output=True, text=True,
                    check=True).stdout))
    print(f"Python {sys.version.split()[0]}, {rounds} rounds: fastest (median)")
    for tree in trees:
        shapes = "  ".join(f"{shape} {min(v):.2f} us ({statistics.median(v):.2f})"
                           for shape, v in calls[tree].items())
        print(f"{tree}\n  decorated call overhead: {shapes}\n  from quantity_guard import Q, "
              f"quantity_tool, session: {min(imports[tree]):.1f} ms "
              f"({statistics.median(imports[tree]):.1f})")


if __name__ == "__main__":
    main()
