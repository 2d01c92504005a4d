"""The guarding proxy's memory over a long life: RSS growth over the second half of a run.

    python bench/proxy_memory.py [--calls 20000] [--sessions 500] [--per-session 20] [--json]
    python bench/proxy_memory.py peak [--result-mib 20] [--request-mib 16] [--json]

(``peak``: the peak while relaying one large message, see bench/proxy_peak_memory.py.)

Runs ``quantity-guard-mcp --annotations ...`` as a real process in front of the stdlib fault
server (tests/mcp_peers/fault_server.py) and drives it with a raw JSON-lines client over pipes,
50 requests in flight at a time. Two scenarios, each in a fresh proxy:

* ``calls``: one client session of ``--calls`` guarded calls (``runoff`` with a discharge in cfs,
  converted to m**3/s, a different value each time, and every tenth call ``read_discharge``,
  whose result is labelled and recorded);
* ``sessions``: ``--sessions`` client sessions (an ``initialize`` each), ``--per-session``
  guarded calls in each.

The proxy's VmRSS (from /proc) is read when the run is half done and at the end; ``growth``
is the difference, in KiB. What the proxy keeps is bounded (docs/guide/proxy.md says what): the last
10,000 recorded quantities and 1,000 call records of the current session, and the ledgers of
the last 8 past sessions. Once those are full, more calls and more sessions cost no memory, so
the second half of a run long enough to fill them grows only by allocator noise.

Stated bound (both scenarios at the default sizes): RSS growth over the second half under
4 MiB. Measured side by side on the 2-core machine: +0.4 MiB (calls) and +0.7 MiB (sessions);
before issue #12 the same runs grew by +14.2 MiB and +10.0 MiB.
A test (tests/test_mcp_memory.py) runs a smaller version and asserts a bound scaled to it.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
FAULT_SERVER = ROOT / "tests" / "mcp_peers" / "fault_server.py"
ANNOTATIONS = """
[tools.read_discharge]
returns = "cfs"
[tools.runoff.params]
discharge = "m**3/s"
area = "km**2"
"""
WINDOW = 50


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


class Proxy:
    def __init__(self, annotations: str, manifest: str | None = None) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH")
                                         else "")
        argv = [sys.executable, "-m", "quantity_guard.mcp", "--annotations", annotations]
        if manifest:
            argv += ["--manifest", manifest]
        self.proc = subprocess.Popen([*argv, "--", sys.executable, str(FAULT_SERVER)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)
        self.next_id = 0

    def exchange(self, messages: list[dict]) -> list[dict]:
        """Send the messages (at most WINDOW requests), return the answers to the requests."""
        expected = sum(1 for m in messages if "id" in m)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        self.proc.stdin.flush()
        return [json.loads(self.proc.stdout.readline()) for _ in range(expected)]

    def request(self, method: str, params: dict | None = None) -> dict:
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        return msg

    def initialize(self) -> None:
        self.exchange([self.request("initialize", {"protocolVersion": "2025-11-25",
                                                   "capabilities": {},
                                                   "clientInfo": {"name": "bench", "version": "0"}})])
        self.exchange([{"jsonrpc": "2.0", "method": "notifications/initialized"},
                       self.request("tools/list")])

    def calls(self, n: int, start: int) -> None:
        done = 0
        while done < n:
            batch = []
            for i in range(start + done, start + min(n, done + WINDOW)):
                if i % 10 == 9:
                    batch.append(self.request("tools/call", {"name": "read_discharge",
                                                             "arguments": {"site": str(i)}}))
                else:
                    batch.append(self.request("tools/call", {"name": "runoff", "arguments": {
                        "discharge": f"{1000 + i * 0.37:.2f} cfs", "area": 100 + i % 997}}))
            for answer in self.exchange(batch):
                if "error" in answer or answer["result"].get("isError"):
                    raise RuntimeError(f"a call failed: {answer}")
            done += len(batch)

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(30)


def scenario_calls(calls: int, annotations: str, manifest: str | None = None) -> dict:
    p = Proxy(annotations, manifest)
    try:
        p.initialize()
        half = calls // 2
        p.calls(half, 0)
        middle = rss_kib(p.proc.pid)
        p.calls(calls - half, half)
        end = rss_kib(p.proc.pid)
    finally:
        p.close()
    return {"calls": calls, "rss_half_kib": middle, "rss_end_kib": end, "growth_kib": end - middle}


def scenario_sessions(sessions: int, per_session: int, annotations: str,
                      manifest: str | None = None) -> dict:
    p = Proxy(annotations, manifest)
    try:
        middle = 0
        for s in range(sessions):
            p.initialize()
            p.calls(per_session, s * per_session)
            if s == sessions // 2 - 1:
                middle = rss_kib(p.proc.pid)
        end = rss_kib(p.proc.pid)
    finally:
        p.close()
    return {"sessions": sessions, "per_session": per_session, "rss_half_kib": middle,
            "rss_end_kib": end, "growth_kib": end - middle}


def main(argv: list[str]) -> int:
    if argv[:1] == ["peak"]:  # the peak while relaying one large message: proxy_peak_memory.py
        from bench import proxy_peak_memory
        return proxy_peak_memory.main(argv[1:])

    def opt(name: str, default: int) -> int:
        return int(argv[argv.index(name) + 1]) if name in argv else default

    calls, sessions, per = opt("--calls", 20_000), opt("--sessions", 500), opt("--per-session", 20)
    with tempfile.TemporaryDirectory() as tmp:
        ann = os.path.join(tmp, "bench.toml")
        with open(ann, "w") as fh:
            fh.write(ANNOTATIONS)
        result = {"calls": scenario_calls(calls, ann),
                  "sessions": scenario_sessions(sessions, per, ann),
                  "bound_kib": 4096}
    if "--json" in argv:
        print(json.dumps(result, indent=1))
    else:
        c, s = result["calls"], result["sessions"]
        print(f"{c['calls']} guarded calls, one session: RSS {c['rss_half_kib'] / 1024:.1f} MiB "
              f"at half, {c['rss_end_kib'] / 1024:.1f} MiB at the end: "
              f"+{c['growth_kib'] / 1024:.2f} MiB over the second half")
        print(f"{s['sessions']} sessions of {s['per_session']} guarded calls: RSS "
              f"{s['rss_half_kib'] / 1024:.1f} MiB at half, {s['rss_end_kib'] / 1024:.1f} MiB at "
              f"the end: +{s['growth_kib'] / 1024:.2f} MiB over the second half")
        print("bound: under 4 MiB each")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
