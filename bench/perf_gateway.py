"""The proxy as a gateway: nginx (round robin, no stickiness) in front of three replicas of
``quantity-guard-mcp --listen ... --store redis://...`` sharing one ``redis-server``, driven by
concurrent official SDK 2.3 clients in both eras, beside one replica without a store.

    python bench/perf_gateway.py [--clients 50] [--seconds 30] [--replicas 3] [--json]

Everything runs on loopback in a temporary directory and is stopped at the end: redis-server and
nginx (the system packages: ``apt-get install -y redis-server nginx``), the replicas, each in front
of its own children of ``tests/mcp_peers/fault_server.py`` (a dual-era stdlib MCP server: cheap
to start, so the figures are the gateway's) with ``read_discharge`` declared to return cfs and
``runoff.discharge`` declared in m**3/s.

Each client is ``mcp.Client`` (``mode="auto"``, which ends in 2026-07-28 against this upstream,
or ``mode="legacy"``, a 2025 session) with its own ``Authorization`` (one conversation per
client). A client holds one conversation until the time is up, repeating: ``read_discharge`` (1250 cfs),
``runoff`` with ``"1250 cfs"`` (must arrive converted, 35.396... m3/s), ``runoff`` with ``"5 m"``
(must be refused: a length for a flow) and ``runoff`` with a bare ``1250`` (must be refused as
carry-over, with the repair text naming ``read_discharge``); through the load balancer each of
these calls may reach another replica. An error is an exception or an answer other than the one
expected. Printed per setup and era: conversations, calls, calls/s, p50 and p99 latency of one
call, errors.

    python bench/perf_gateway.py --memory 20000

measures instead the Redis memory of one conversation over 20,000 guarded calls through one
replica with a store (at the record bound and at the end) and the records kept.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STORE_KEY = "bench-" + "0123456789abcdef" * 4  # the key the replicas of a stack share
UPSTREAM = REPO / "tests" / "mcp_peers" / "fault_server.py"
ANNOTATIONS = ("[tools.read_discharge]\nreturns = 'cfs'\n"
               "[tools.runoff.params]\ndischarge = 'm**3/s'\n")
NGINX = """
worker_processes 1;
daemon off;
{user}
pid {dir}/nginx.pid;
error_log {dir}/nginx-error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    upstream replicas {{
{servers}
        keepalive 128;
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://replicas;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_buffering off;
            proxy_request_buffering off;
            proxy_read_timeout 120s;
        }}
    }}
}}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


class Stack:
    """The processes of one run, stopped in reverse order."""

    def __init__(self, directory: str) -> None:
        self.dir = directory
        self.procs: list[subprocess.Popen] = []
        self.replicas: dict[int, subprocess.Popen] = {}  # port -> process
        self.logs: dict[int, list[str]] = {}  # port -> its stderr lines

    def redis(self) -> str:
        port = free_port()
        self.procs.append(subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", self.dir,
             "--save", "", "--appendonly", "no", "--logfile", "redis.log"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_port(port)
        return f"redis://127.0.0.1:{port}/0"

    def replica(self, annotations: str, *extra: str, upstream: str | None = None,
                env: dict | None = None) -> int:
        """A replica in front of its own children of UPSTREAM, or of the ``upstream`` URL (the
        replicas of one stack share the store key ``STORE_KEY`` unless ``env`` gives another)."""
        env = {**os.environ, "PYTHONPATH": str(REPO), "QUANTITY_GUARD_STORE_KEY": STORE_KEY,
               **(env or {})}
        target = ["--upstream", upstream] if upstream else ["--", sys.executable, str(UPSTREAM)]
        proc = subprocess.Popen(
            [sys.executable, "-m", "quantity_guard.mcp", "--listen", "127.0.0.1:0",
             "--annotations", annotations, "--max-sessions", "512", *extra, *target],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
        self.procs.append(proc)
        assert proc.stderr is not None
        line = proc.stderr.readline()
        if "serving MCP" not in line:
            raise RuntimeError(f"the replica did not start: {line}")
        port = int(line.strip().rsplit(":", 1)[1].split("/")[0])
        self.replicas[port] = proc
        self.logs[port] = []
        threading_drain(proc, self.logs[port])  # (warnings must not block it)
        return port

    def kill(self, port: int) -> None:
        """Kill a replica at once (SIGKILL): it writes nothing more anywhere."""
        proc = self.replicas.pop(port)
        proc.kill()
        proc.wait()

    def nginx(self, ports: list[int]) -> int:
        port = free_port()
        for d in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            os.makedirs(os.path.join(self.dir, d), exist_ok=True)
        conf = os.path.join(self.dir, "nginx.conf")
        with open(conf, "w") as f:
            f.write(NGINX.format(dir=self.dir, port=port,
                                 user="user root;" if os.geteuid() == 0 else "",
                                 servers="\n".join(f"        server 127.0.0.1:{p};" for p in ports)))
        self.procs.append(subprocess.Popen(["nginx", "-c", conf, "-p", self.dir],
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_port(port)
        return port

    def stop(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
        for proc in reversed(self.procs):
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def threading_drain(proc: subprocess.Popen, into: list[str]) -> None:
    import threading

    def drain() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            if len(into) < 1000:
                into.append(line)
    threading.Thread(target=drain, daemon=True).start()


def _text(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def conversation(url: str, mode: str, token: str, latencies: list[float],
                       deadline: float) -> tuple[int, list[str]]:
    """One client's conversation, repeated until ``deadline``; returns (calls made, errors)."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    errors: list[str] = []
    calls = 0
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            async def timed(name: str, arguments: dict):
                nonlocal calls
                t = time.perf_counter()
                result = await client.call_tool(name, arguments)
                latencies.append(time.perf_counter() - t)
                calls += 1
                return result

            while time.monotonic() < deadline:
                got = await timed("read_discharge", {"site": "07374000"})
                if got.is_error or "1250" not in _text(got):
                    errors.append(f"read_discharge: {_text(got)[:120]}")
                got = await timed("runoff", {"discharge": "1250 cfs", "area": 29000})
                if got.is_error or "35.39" not in _text(got):
                    errors.append(f"converted: {_text(got)[:120]}")
                got = await timed("runoff", {"discharge": "5 m", "area": 29000})
                if not got.is_error:
                    errors.append(f"wrong dimension passed: {_text(got)[:120]}")
                got = await timed("runoff", {"discharge": 1250, "area": 29000})
                if not got.is_error or "read_discharge" not in _text(got):
                    errors.append(f"carry-over passed: {_text(got)[:120]}")
    return calls, errors


async def drive(url: str, mode: str, clients: int, seconds: float) -> dict:
    latencies: list[float] = []
    errors: list[str] = []
    conversations = 0
    calls = 0
    deadline = time.monotonic() + seconds

    async def client(i: int) -> None:
        nonlocal conversations, calls
        n = 0
        while time.monotonic() < deadline:  # a failed conversation is an error; a new one starts
            n += 1
            conversations += 1
            try:
                made, errs = await conversation(url, mode, f"bench-{mode}-{i}-{n}", latencies, deadline)
                calls += made
                errors.extend(errs)
            except Exception as exc:
                while getattr(exc, "exceptions", None):
                    exc = exc.exceptions[0]  # the task group's first failure
                errors.append(f"{type(exc).__name__}: {exc}"[:200])

    started = time.monotonic()
    await asyncio.gather(*(client(i) for i in range(clients)))
    elapsed = time.monotonic() - started
    ordered = sorted(latencies)
    return {"era": "2026-07-28" if mode == "auto" else "2025 (legacy)", "clients": clients,
            "seconds": round(elapsed, 1), "conversations": conversations, "calls": calls,
            "calls_per_s": round(calls / elapsed, 1),
            "p50_ms": round(statistics.median(ordered) * 1000, 2) if ordered else None,
            "p99_ms": round(ordered[int(0.99 * (len(ordered) - 1))] * 1000, 2) if ordered else None,
            "errors": len(errors), "first_errors": errors[:3]}


def memory(calls: int) -> dict:
    """One conversation of ``calls`` guarded calls (raw HTTP, one kept-alive connection) through
    one replica with a store: the Redis memory of the conversation's key at the record bound
    (1,000 calls) and at the end, and the records kept."""
    import http.client

    import redis
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"}}
    with tempfile.TemporaryDirectory() as d:
        annotations = os.path.join(d, "water.toml")
        Path(annotations).write_text(ANNOTATIONS)
        stack = Stack(d)
        try:
            store = stack.redis()
            port = stack.replica(annotations, "--store", store)
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            client = redis.Redis.from_url(store)
            at_bound = None
            for i in range(calls):
                name, arguments = (("read_discharge", {"site": "07374000"}) if i % 2 == 0 else
                                   ("runoff", {"discharge": f"{i % 500 + 1} cfs", "area": 29000}))
                body = json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                   "params": {"name": name, "arguments": arguments, "_meta": meta}})
                conn.request("POST", "/mcp", body=body, headers={
                    "Content-Type": "application/json", "Accept": "application/json",
                    "Authorization": "Bearer bench-memory", "MCP-Protocol-Version": "2026-07-28",
                    "Mcp-Method": "tools/call", "Mcp-Name": name})
                answer = json.loads(conn.getresponse().read())
                if "result" not in answer or answer["result"].get("isError"):
                    raise RuntimeError(f"call {i} failed: {answer}")
                if i + 1 == 1_000:
                    (key,) = client.keys("qg:c:*")
                    at_bound = client.memory_usage(key, samples=0)
            (key,) = client.keys("qg:c:*")
            return {"calls": calls, "records_kept": client.xlen(key),
                    "bytes_at_1000_calls": at_bound,
                    "bytes_at_end": client.memory_usage(key, samples=0),
                    "ttl_s": round(client.pttl(key) / 1000)}
        finally:
            stack.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=50, help="concurrent clients (at most 200)")
    ap.add_argument("--seconds", type=float, default=30.0, help="per setup and era (at most 120)")
    ap.add_argument("--replicas", type=int, default=3, help="behind the load balancer (at most 8)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--memory", type=int, metavar="CALLS", default=0,
                    help="instead: the Redis memory of one conversation over CALLS calls (at most 50,000)")
    args = ap.parse_args()
    if args.memory:
        print(json.dumps(memory(max(1_000, min(args.memory, 50_000)))))
        return 0
    clients = max(1, min(args.clients, 200))
    seconds = max(1.0, min(args.seconds, 120.0))
    replicas = max(1, min(args.replicas, 8))
    for tool in ("redis-server", "nginx"):
        if shutil.which(tool) is None:
            print(f"{tool} is not installed (apt-get install -y redis-server nginx)", file=sys.stderr)
            return 2
    rows = []
    with tempfile.TemporaryDirectory() as d:
        annotations = os.path.join(d, "water.toml")
        Path(annotations).write_text(ANNOTATIONS)
        stack = Stack(d)
        try:
            store = stack.redis()
            ports = [stack.replica(annotations, "--store", store) for _ in range(replicas)]
            lb = stack.nginx(ports)
            single = stack.replica(annotations)
            for setup, port in ((f"nginx -> {replicas} replicas, one redis", lb),
                                ("one replica, no store", single)):
                for mode in ("auto", "legacy"):
                    row = asyncio.run(drive(f"http://127.0.0.1:{port}/mcp", mode, clients, seconds))
                    rows.append({"setup": setup, **row})
                    if not args.json:
                        print(f"{setup:34} {row['era']:14} {row['conversations']:6} conv "
                              f"{row['calls']:7} calls {row['calls_per_s']:8} calls/s "
                              f"p50 {row['p50_ms']} ms p99 {row['p99_ms']} ms "
                              f"errors {row['errors']}", flush=True)
                        for e in row["first_errors"]:
                            print(f"    {e}", flush=True)
        finally:
            stack.stop()
    if args.json:
        print(json.dumps(rows, indent=2))
    return 1 if any(r["errors"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
