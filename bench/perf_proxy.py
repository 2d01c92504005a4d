"""Proxy overhead: tools/call round trips direct vs through quantity-guard-mcp, and start-up.

    python bench/perf_proxy.py [--n 1000] [--startup-runs 15] [--policy MODULE:FACTORY]
                               [--annotations FILE] [--baseline DIR] [--json]

Everything runs over real pipes against a stdlib upstream (``quantity_guard.mcp.server`` with two
trivial tools), driven by a raw JSON-RPC client, so the figures are the proxy's own cost: two
extra pipe hops, the proxy's wake-ups and the guard's parsing. Reported medians:

* ``call_direct_us`` / ``call_passthrough_us``: one tools/call round trip, direct and through the
  proxy without annotations; ``added_passthrough_us`` is the difference.
* ``added_relay_us``: what a process that only copies bytes between the pipes adds (one
  ``poll`` loop, no parsing): the floor under both figures above on this machine, two pipe hops
  and two wake-ups.
* ``cpu_relay_us`` / ``cpu_passthrough_us`` / ``cpu_guarded_us``: CPU time (the scheduler's
  count for every thread, from /proc, Linux only) the relay, the pass-through proxy and the
  guarding proxy spend per call, their syscalls included: machine load changes it less than
  latency.
* ``call_guarded_us`` / ``added_guarded_us``: a guarded call (``runoff`` with a discharge in
  cfs) through a guarding proxy, against ``call_direct_converted_us``, the same call sent
  directly with the discharge already in m**3/s (so the upstream does the same work). By default the
  guard runs a small demo policy defined here (it converts a ``{"value", "unit": "cfs"}`` argument
  and labels the result), which exercises every rewrite path of the guard; pass ``--policy
  module:factory`` (a callable returning a policy) or ``--annotations FILE`` (the real policy
  through the command line, once ``quantity_guard.mcp.policy`` exists) to time another.
* ``list_direct_us`` / ``list_guarded_us`` / ``added_list_us``: a ``tools/list`` round trip (12
  tools, about 5 KB, one of them guarded) direct and through the guarding proxy (which rewrites the guarded tool once and then
  remembers the rewrite for the same upstream answer).
* ``added_guarded_baseline_us`` / ``added_list_baseline_us`` / ``added_passthrough_baseline_us``
  (and ``cpu_guarded_baseline_us`` / ``cpu_passthrough_baseline_us``): with ``--baseline DIR``
  (another checkout of this project) and ``--annotations``, the same figures for that
  checkout's proxy, timed in the same interleaved run.
* ``guard_passthrough_us`` / ``guard_guarded_us``: the guard alone, in process, for one request
  plus its response (no pipes): the CPU part of the added latency. ``guard_settle_us``: the
  bookkeeping the guarded path puts off until the answer is written (recording the labelled
  result in the ledger), which the relay does while it waits for the next message.
* ``cpu_http_guarded_us``: the CPU time per guarded call of the same guarding proxy serving
  Streamable HTTP (``--listen``, one kept-alive connection, JSON responses) instead of stdio,
  with the same upstream over its pipes, timed in the same interleaved run.
* ``ratio_passthrough`` / ``ratio_guarded``: what the proxy adds per call (pass-through,
  guarded) over what the bare relay adds; ``ratio_cpu_passthrough`` / ``ratio_cpu_guarded``:
  the same with CPU time per call; ``ratio_http_stdio_cpu``: a guarded call's CPU over HTTP
  over that over stdio. Printed beside the figures before the one-parse core (issue 33:
  3.4x, 7x, 2.3x) and its targets (2.5x, 4x, 1.5x).
* ``startup_direct_ms`` / ``startup_proxied_ms``: from spawning the process to the answer to the
  first tools/list (initialize and tools/list are written at once); ``startup_added_ms`` is the
  difference, the proxy's own start-up. Bytecode is cached (in a temporary directory, even
  under PYTHONDONTWRITEBYTECODE), as it is for an installed package.

The variants run side by side, their calls interleaved, and the "added" figures are medians of
per-call differences, so a machine whose load drifts (these are shared 2-core machines) affects
direct and proxied calls alike.

Budgets (DESIGN.md): under 100 us added per guarded call; start-up under 150 ms.
"""
from __future__ import annotations

import json
import os
import statistics
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

CFS = 0.028316846592

UPSTREAM_CODE = """
from quantity_guard.mcp.server import serve
class Tools:
    def list_tools(self):
        num = {"type": "number"}
        filler = [{"name": f"tool_{i}", "description": "A tool of a realistic listing. " * 4,
                   "inputSchema": {"type": "object", "properties": {
                       f"p{j}": {"type": "string", "title": f"P{j}", "description": "a parameter"}
                       for j in range(6)}, "required": ["p0"]}} for i in range(10)]
        return [{"name": "add", "inputSchema": {"type": "object", "properties": {"a": num, "b": num}}},
                {"name": "runoff", "inputSchema": {"type": "object", "properties": {"discharge": num, "area": num}}}] + filler
    def call_tool(self, name, args):
        if name == "add":
            return {"content": [{"type": "text", "text": repr(args["a"] + args["b"])}]}
        return {"content": [{"type": "text", "text": repr(args["discharge"] / args["area"] * 86.4)}]}
serve(Tools())
"""


class DemoPolicy:
    """Guards ``runoff``: converts a cfs discharge to m**3/s, advertises units, labels results."""

    def guards(self, tool_name: str) -> bool:
        return tool_name == "runoff"

    def advertise(self, tool: dict) -> dict:
        tool["inputSchema"]["properties"]["discharge"]["x-unit"] = "m**3/s"
        tool["outputSchema"] = {"type": "object", "properties": {"value": {"type": "number"},
                                                                 "unit": {"type": "string"}}}
        return tool

    def check_call(self, tool_name: str, arguments: dict):
        q = arguments.get("discharge")
        if isinstance(q, dict):
            if q.get("unit") != "cfs" or not isinstance(q.get("value"), (int, float)):
                return ("refuse", {"content": [{"type": "text", "text": "discharge: send cfs"}],
                                   "isError": True})
            arguments = {**arguments, "discharge": q["value"] * CFS}
        return ("forward", arguments)

    def label_result(self, tool_name: str, arguments: dict, result: dict) -> dict:
        value = float(result["content"][0]["text"])
        label = {"value": value, "unit": "mm/d"}
        return {**result, "content": [{"type": "text", "text": json.dumps(label)}], "structuredContent": label}

    def reset(self) -> None:
        pass


_PYCACHE = tempfile.mkdtemp(prefix="qg-perf-pycache-")
# Every process runs in an empty directory: ``python -m`` puts the working directory first on
# sys.path, so run from a checkout it would import that checkout's package whatever PYTHONPATH
# says (and a --baseline run would time the current code twice).
_CWD = os.path.join(_PYCACHE, "cwd")
os.makedirs(_CWD, exist_ok=True)


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    # Time an installed package, whose bytecode is cached, even where the environment sets
    # PYTHONDONTWRITEBYTECODE: cache it in a private temporary directory.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = _PYCACHE
    return env


def _upstream() -> list[str]:
    return [sys.executable, "-c", UPSTREAM_CODE]


def _proxy(upstream: list[str], policy: str | None = None, annotations: str | None = None) -> list[str]:
    if policy is not None:
        return [sys.executable, str(Path(__file__).resolve()), "--serve-proxy", policy, "--", *upstream]
    options = ["--annotations", annotations] if annotations else []
    return [sys.executable, "-m", "quantity_guard.mcp", *options, "--", *upstream]


class _Raw:
    """A raw JSON-RPC client over a child's pipes."""

    def __init__(self, argv: list[str]) -> None:
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=_env(), bufsize=0, cwd=_CWD)
        self.out = self.proc.stdout
        self.fd = self.proc.stdin.fileno()
        self.reader = os.fdopen(os.dup(self.out.fileno()), "rb")

    def send(self, data: bytes) -> None:
        os.write(self.fd, data)

    def recv(self) -> dict:
        line = self.reader.readline()
        if not line:
            raise RuntimeError("the server closed its output")
        return json.loads(line)

    def call(self, data: bytes) -> dict:
        self.send(data)
        return self.recv()

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.reader.close()
        self.out.close()


class _Http:
    """The interface of :class:`_Raw` over Streamable HTTP: the listener runs in a child (see
    ``--serve-listen``), which prints its port; requests go as POSTs on one kept-alive
    connection with JSON answers, in the 2025-11-25 session opened by the first initialize."""

    def __init__(self, argv: list[str]) -> None:
        import http.client

        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=_env(), cwd=_CWD)
        port = int(self.proc.stdout.readline())
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.session: str | None = None
        self.answers: list[dict] = []

    def send(self, data: bytes) -> None:
        for line in data.splitlines():
            headers = {"Content-Type": "application/json", "Accept": "application/json"}
            if self.session is not None:
                headers["Mcp-Session-Id"] = self.session
            self.conn.request("POST", "/mcp", body=line, headers=headers)
            resp = self.conn.getresponse()
            body = resp.read()
            if self.session is None:
                self.session = resp.getheader("Mcp-Session-Id")
            if resp.status == 200:
                self.answers.append(json.loads(body))

    def recv(self) -> dict:
        return self.answers.pop(0)

    def call(self, data: bytes) -> dict:
        self.send(data)
        return self.recv()

    def close(self) -> None:
        self.conn.close()
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()


INIT = (b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
        b'"capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}\n'
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
LIST = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'


def _call_line(i: int, tool: str) -> bytes:
    if tool == "list":
        return b'{"jsonrpc":"2.0","id":%d,"method":"tools/list"}\n' % i
    if tool == "guarded":  # a quantity in cfs: the guard converts it to m**3/s
        params = '{"name":"runoff","arguments":{"discharge":{"value":1250,"unit":"cfs"},"area":2.5}}'
    elif tool == "converted":  # what the upstream receives after conversion
        params = '{"name":"runoff","arguments":{"discharge":35.39605824,"area":2.5}}'
    else:
        params = '{"name":"add","arguments":{"a":1250,"b":2.5}}'
    return ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}\n' % (i, params)).encode()


def _cpu_seconds(pid: int) -> float | None:
    """CPU time a process has spent so far, all its threads (Linux /proc), or None elsewhere:
    the scheduler's nanosecond count (``schedstat``) where the kernel keeps it, else user plus
    system time in clock ticks (10 ms each: over 1,100 calls, a step of 9 us per call)."""
    try:
        total = 0
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        if total:
            return total / 1e9
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def _paired(pairs: list[tuple[list[str], str]], n: int, warmup: int, block: int = 50,
            cpu: list | None = None) -> list[list[float]]:
    """Round-trip times (us) for each (argv, tool). The variants take turns in blocks of
    ``block`` calls, so that drifting machine load affects each alike while each block runs with
    its own processes warm (as a client's burst of calls would). ``cpu``, if given, receives
    each variant's CPU time per call (us) of the process the client talks to (machine load
    does not inflate it as it does latency; None where /proc is missing)."""
    clients = [_Http(argv) if "--serve-listen" in argv else _Raw(argv) for argv, _ in pairs]
    try:
        for c in clients:
            c.send(INIT)
            c.recv()
            c.call(LIST)
        start = [_cpu_seconds(c.proc.pid) for c in clients]
        samples: list[list[float]] = [[] for _ in pairs]
        done = 0
        while done < n + warmup:
            todo = min(block, n + warmup - done)
            for k, (c, (_, tool)) in enumerate(zip(clients, pairs)):
                for i in range(done, done + todo):
                    line = _call_line(i + 2, tool)
                    t = time.perf_counter_ns()
                    answer = c.call(line)
                    dt = time.perf_counter_ns() - t
                    if "result" not in answer or answer["result"].get("isError"):
                        raise RuntimeError(f"call failed: {answer}")
                    if i >= warmup:
                        samples[k].append(dt / 1000.0)
            done += todo
        if cpu is not None:
            for c, t0 in zip(clients, start):
                t1 = _cpu_seconds(c.proc.pid)
                cpu.append(None if t0 is None or t1 is None else (t1 - t0) / (n + warmup) * 1e6)
        return samples
    finally:
        for c in clients:
            c.close()


def _startup(argv: list[str]) -> float:
    t0 = time.perf_counter()
    client = _Raw(argv)
    try:
        client.send(INIT + LIST)
        while True:
            if client.recv().get("id") == 1:
                return (time.perf_counter() - t0) * 1000.0
    finally:
        client.close()


def _guard_alone(policy: Any, tool: str, n: int) -> tuple[float, float]:
    """Medians (us) of the guard's work on the answer's path for one request and its result,
    and of the bookkeeping it puts off until the answer is written (``Guard.settle``, which the
    relay runs while it waits for the next message)."""
    from quantity_guard.mcp.guard import C2S, S2C, Guard

    guard = Guard(policy)
    guard.receive(C2S, INIT.split(b"\n")[0])
    result = b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"1209.6"}]}}'
    settle = getattr(guard, "settle", None)  # (a --baseline checkout may not have it)
    samples, later = [], []
    for i in range(n):
        req = _call_line(i + 10, tool)
        res = result % (i + 10)
        t = time.perf_counter_ns()
        guard.receive(C2S, req)
        guard.receive(S2C, res)
        t1 = time.perf_counter_ns()
        if settle is not None:
            settle()
        later.append((time.perf_counter_ns() - t1) / 1000.0)
        samples.append((t1 - t) / 1000.0)
    return statistics.median(samples[n // 10:]), statistics.median(later[n // 10:])


def _load_factory(spec: str) -> Callable[[], Any]:
    if spec == "demo":
        return DemoPolicy
    if spec.startswith("annotations="):  # the command line's policy, from an annotation file
        from quantity_guard.mcp.policy import build_policy

        return lambda: build_policy(spec.partition("=")[2])
    import importlib

    module, _, attr = spec.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def measure(n: int = 1000, *, policy_factory: str | None = "demo", annotations: str | None = None,
            warmup: int = 100, startup_runs: int = 15, baseline: str | None = None) -> dict:
    """Run the benchmark; returns the medians described in the module docstring.

    ``policy_factory`` is ``"demo"`` (the policy above), ``"module:attr"`` naming a callable that
    returns a policy, or ``None`` to skip the guarded figures; ``annotations`` times the real
    command-line policy instead.
    """
    upstream = _upstream()
    if annotations is not None:
        annotations = str(Path(annotations).resolve())
    if baseline is not None:
        baseline = str(Path(baseline).resolve())
    med = statistics.median
    out: dict[str, Any] = {"n": n, "python": sys.version.split()[0]}
    relay = [sys.executable, str(Path(__file__).resolve()), "--serve-relay", "--", *upstream]
    pairs = [(upstream, "add"), (_proxy(upstream), "add"), (relay, "add")]
    guarded = policy_factory is not None or annotations is not None
    if guarded:
        argv = _proxy(upstream, annotations=annotations) if annotations else _proxy(upstream, policy=policy_factory)
        spec = f"annotations={annotations}" if annotations else policy_factory
        listen = [sys.executable, str(Path(__file__).resolve()), "--serve-listen", spec, "--", *upstream]
        pairs += [(upstream, "converted"), (argv, "guarded"), (upstream, "list"), (argv, "list"),
                  (listen, "guarded")]
        if baseline is not None and annotations:
            # the same proxy from another checkout, timed in the same interleaved run
            old = ["env", f"PYTHONPATH={baseline}", *_proxy(upstream, annotations=annotations)]
            pairs += [(old, "guarded"), (old, "list"),
                      (["env", f"PYTHONPATH={baseline}", *_proxy(upstream)], "add")]
    cpu: list = []
    samples = _paired(pairs, n, warmup, cpu=cpu)
    if cpu[2] is not None:  # the relay, the pass-through proxy, the guarding proxy
        out["cpu_relay_us"], out["cpu_passthrough_us"] = cpu[2], cpu[1]
        if guarded:
            out["cpu_guarded_us"], out["cpu_http_guarded_us"] = cpu[4], cpu[7]
    out["call_direct_us"] = med(samples[0])
    out["call_passthrough_us"] = med(samples[1])
    out["added_passthrough_us"] = med([b - a for a, b in zip(samples[0], samples[1])])
    out["added_relay_us"] = med([b - a for a, b in zip(samples[0], samples.pop(2))])
    out["guard_passthrough_us"] = _guard_alone(None, "add", max(n, 2000))[0]
    if guarded:
        out["policy"] = annotations or policy_factory
        out["call_direct_converted_us"] = med(samples[2])
        out["call_guarded_us"] = med(samples[3])
        out["added_guarded_us"] = med([b - a for a, b in zip(samples[2], samples[3])])
        out["list_direct_us"] = med(samples[4])
        out["list_guarded_us"] = med(samples[5])
        out["added_list_us"] = med([b - a for a, b in zip(samples[4], samples[5])])
        if len(samples) > 7:
            out["baseline"] = baseline
            out["added_guarded_baseline_us"] = med([b - a for a, b in zip(samples[2], samples[7])])
            out["added_list_baseline_us"] = med([b - a for a, b in zip(samples[4], samples[8])])
            out["added_passthrough_baseline_us"] = med([b - a for a, b in zip(samples[0], samples[9])])
            if cpu[8] is not None:
                out["cpu_guarded_baseline_us"] = cpu[8]
                out["cpu_passthrough_baseline_us"] = cpu[10]
        if annotations:
            from quantity_guard.mcp.policy import build_policy
            policy = build_policy(annotations)
        else:
            policy = _load_factory(policy_factory)()  # type: ignore[arg-type]
        out["guard_guarded_us"], out["guard_settle_us"] = _guard_alone(policy, "guarded", max(n, 2000))
    out.update(ratios(out))
    # interleave the start-up runs so that machine load affects both alike (after one run each
    # to fill the bytecode cache)
    _startup(upstream), _startup(_proxy(upstream))
    starts_direct, starts_proxied = [], []
    for _ in range(startup_runs):
        starts_direct.append(_startup(upstream))
        starts_proxied.append(_startup(_proxy(upstream)))
    out["startup_direct_ms"] = med(starts_direct)
    out["startup_proxied_ms"] = med(starts_proxied)
    out["startup_added_ms"] = out["startup_proxied_ms"] - out["startup_direct_ms"]
    return out


RATIOS = (
    # key, numerator, denominator, before the one-parse core (issue 33), target
    ("ratio_passthrough", "added_passthrough_us", "added_relay_us", 3.4, 2.5),
    ("ratio_guarded", "added_guarded_us", "added_relay_us", 7.0, 4.0),
    ("ratio_cpu_passthrough", "cpu_passthrough_us", "cpu_relay_us", None, None),
    ("ratio_cpu_guarded", "cpu_guarded_us", "cpu_relay_us", None, None),
    ("ratio_http_stdio_cpu", "cpu_http_guarded_us", "cpu_guarded_us", 2.3, 1.5),
)
"""The ratios reported, each with the figure before the one-parse core and its target."""


def ratios(figures: dict) -> dict:
    """The :data:`RATIOS` that ``figures`` hold both sides of."""
    out = {}
    for key, top, bottom, _, _ in RATIOS:
        if figures.get(top) is not None and figures.get(bottom):
            out[key] = figures[top] / figures[bottom]
    return out


def ratio_lines(figures: dict) -> list[str]:
    """One line a ratio: its value, the figure before, the target."""
    lines = []
    for key, top, bottom, before, target in RATIOS:
        if key in figures:
            was = f"before {before:g}x" if before is not None else ""
            aim = f"target <= {target:g}x" if target is not None else ""
            lines.append(f"  {key:<24} {figures[key]:5.2f}x  ({top} / {bottom})"
                         + (f"  [{was}, {aim}]" if was else ""))
    return lines


def _serve_listen(argv: list[str]) -> int:
    """``--serve-listen SPEC -- command...``: the guarding proxy over Streamable HTTP on a free
    loopback port (printed on stdout), its policy from a factory, the upstream a child."""
    from quantity_guard.mcp.http.listen import run_listener

    spec = argv[0]
    command = argv[2:] if len(argv) > 1 and argv[1] == "--" else argv[1:]

    def ready(host: str, port: int) -> None:
        sys.stdout.write(f"{port}\n")
        sys.stdout.flush()

    return run_listener(("127.0.0.1", 0), _load_factory(spec), log=lambda text: None,
                        ready=ready, command=command)


def _serve_relay(command: list[str]) -> int:
    """``--serve-relay -- command...``: the least a proxy process can do, the floor under the
    proxy's figures: bytes copied both ways by one ``poll`` loop, no lines, no JSON, no guard."""
    import select

    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert child.stdin is not None and child.stdout is not None
    routes = {0: child.stdin.fileno(), child.stdout.fileno(): 1}
    poller = select.poll()
    for fd in routes:
        poller.register(fd, select.POLLIN)
    while True:
        for fd, _ in poller.poll():
            data = os.read(fd, 1 << 16)
            if not data:
                child.stdin.close()
                return child.wait()
            os.write(routes[fd], data)


def _serve_proxy(argv: list[str]) -> int:
    """``--serve-proxy SPEC -- command...``: a proxy whose policy comes from a factory."""
    from quantity_guard.mcp.guard import Guard
    from quantity_guard.mcp.stdio import protect_stdio, run_proxy

    spec = argv[0]
    command = argv[2:] if len(argv) > 1 and argv[1] == "--" else argv[1:]
    policy = _load_factory(spec)()
    wire_in, wire_out = protect_stdio()
    return run_proxy(command, Guard(policy), client_in=wire_in, client_out=wire_out)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--serve-proxy"]:
        return _serve_proxy(args[1:])
    if args[:1] == ["--serve-listen"]:
        return _serve_listen(args[1:])
    if args[:2] == ["--serve-relay", "--"]:
        return _serve_relay(args[2:])
    n, runs, policy, annotations, as_json = 1000, 15, "demo", None, False
    baseline = None
    while args:
        a = args.pop(0)
        if a == "--n":
            n = int(args.pop(0))
        elif a == "--startup-runs":
            runs = int(args.pop(0))
        elif a == "--policy":
            policy = args.pop(0)
        elif a == "--annotations":
            annotations = args.pop(0)
        elif a == "--baseline":
            baseline = args.pop(0)
        elif a == "--json":
            as_json = True
        else:
            sys.stderr.write(__doc__ or "")
            return 2
    try:
        result = measure(n, policy_factory=policy, annotations=annotations, startup_runs=runs,
                         baseline=baseline)
    finally:
        shutil.rmtree(_PYCACHE, ignore_errors=True)
    if as_json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"quantity-guard-mcp overhead (medians, Python {result['python']}, n={n})")
    rows = [("tools/call direct", "call_direct_us", "us"),
            ("tools/call through pass-through proxy", "call_passthrough_us", "us"),
            ("  added per call (pass-through)", "added_passthrough_us", "us"),
            ("  added by a bare byte relay (the floor)", "added_relay_us", "us"),
            ("CPU per call, bare relay", "cpu_relay_us", "us"),
            ("CPU per call, pass-through proxy", "cpu_passthrough_us", "us"),
            ("CPU per call, guarding proxy, guarded call", "cpu_guarded_us", "us"),
            ("CPU per call, guarding proxy over HTTP", "cpu_http_guarded_us", "us"),
            ("tools/call direct, runoff (converted args)", "call_direct_converted_us", "us"),
            ("tools/call through guarding proxy, runoff cfs", "call_guarded_us", "us"),
            ("  added per call (guarded)      [budget 100]", "added_guarded_us", "us"),
            ("tools/list direct", "list_direct_us", "us"),
            ("tools/list through guarding proxy", "list_guarded_us", "us"),
            ("  added per list (guarded)", "added_list_us", "us"),
            ("  added per call, guarded, baseline checkout", "added_guarded_baseline_us", "us"),
            ("  added per list, guarded, baseline checkout", "added_list_baseline_us", "us"),
            ("  added per call, pass-through, baseline", "added_passthrough_baseline_us", "us"),
            ("  CPU per call, pass-through, baseline", "cpu_passthrough_baseline_us", "us"),
            ("  CPU per call, guarded, baseline", "cpu_guarded_baseline_us", "us"),
            ("guard alone, request+result, pass-through", "guard_passthrough_us", "us"),
            ("guard+policy alone, request+result, guarded", "guard_guarded_us", "us"),
            ("  and put off until the answer is written", "guard_settle_us", "us"),
            ("start-up to first tools/list, direct", "startup_direct_ms", "ms"),
            ("start-up to first tools/list, proxied", "startup_proxied_ms", "ms"),
            ("  added start-up                [budget 150]", "startup_added_ms", "ms")]
    for label, key, unit in rows:
        if key in result:
            print(f"  {label:<46} {result[key]:9.1f} {unit}")
    if "policy" in result:
        print(f"  (guarded policy: {result['policy']})")
    print("ratios (one interleaved run):")
    for line in ratio_lines(result):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
