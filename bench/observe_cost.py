"""What observing a guarded call costs: a script, not a test.

    python bench/observe_cost.py

The decorated-call overhead of bench/perf.py (a two-argument ``@quantity_tool`` called with
strings, minus the bare function) in four states, each in a fresh interpreter:

- ``off``: OpenTelemetry not in use (not imported; where it is not installed, ``python -I``
  gives the same state);
- ``no-op``: ``opentelemetry-api`` imported, no SDK configured (the API's no-op tracer);
- ``sdk``: the SDK with an in-memory span exporter and metric reader;
- ``debug log``: no OpenTelemetry, the ``quantity_guard`` logger at DEBUG (to a NullHandler).

The states are run in turn, ``--rounds`` times (default 5), and each one's fastest round is
printed: other processes only ever add time.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SETUP = {
    "off": "",
    "no-op": "import opentelemetry.trace, opentelemetry.metrics",
    "sdk": """
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
metrics.set_meter_provider(MeterProvider(metric_readers=[InMemoryMetricReader()]))
""",
    "debug log": """
import logging
logging.getLogger("quantity_guard").setLevel(logging.DEBUG)
""",
}

CHILD = """
import sys, timeit, json
sys.path.insert(0, {root!r})
{setup}
from quantity_guard import quantity_tool
@quantity_tool(params={{"discharge": {{"unit": "m**3/s"}}, "area": {{"unit": "km**2"}}}},
               returns={{"unit": "mm/day"}})
def runoff(discharge, area):
    return discharge / area
def plain(discharge, area):
    return discharge / area
def per_call_us(fn, n):
    return min(timeit.repeat(fn, number=n, repeat=7)) / n * 1e6
runoff("1250 cfs", "29000 km2")
if "exporter" in globals():
    exporter.clear()
base = per_call_us(lambda: plain(35.4, 29000.0), 100000)
out = {{"strings": per_call_us(lambda: runoff("1250 cfs", "29000 km2"), 2000) - base,
        "bare numbers": per_call_us(lambda: runoff(35.4, 29000.0), 2000) - base}}
if "exporter" in globals():
    exporter.clear()
print(json.dumps(out))
"""


def main() -> None:
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 5
    best: dict = {}
    for _ in range(rounds):
        for state, setup in SETUP.items():
            out = subprocess.run([sys.executable, "-c", CHILD.format(root=str(ROOT), setup=setup)],
                                 capture_output=True, text=True, check=True, cwd=ROOT)
            for shape, us in json.loads(out.stdout).items():
                key = (state, shape)
                best[key] = min(best.get(key, us), us)
    print(f"decorated call overhead, Python {sys.version.split()[0]} (fastest of {rounds} rounds)")
    for (state, shape), us in best.items():
        print(f"  {state:<10} {shape:<13} {us:8.2f} us")


if __name__ == "__main__":
    main()
