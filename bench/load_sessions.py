"""Many concurrent HTTP clients on one ``quantity-guard-mcp --listen``: does any lose its session
or its ledger? Loopback only, bounded in clients and time, stops by itself.

    python bench/load_sessions.py [--clients 200] [--seconds 30] [--json]

Starts ``quantity-guard-mcp --listen 127.0.0.1:0 --annotations demo/water.toml --manifest DIR/m.json
--max-sessions N -- python demo/usgs_server.py`` (N = clients + 16), then runs ``--clients``
clients at once, each on its own kept-alive connection: ``initialize`` (a 2025-11-25 session:
its own upstream process and ledger), ``notifications/initialized``, ``read_drainage_area`` once,
then ``runoff_depth`` over and over until ``--seconds`` have passed, then ``DELETE``.
``runoff_depth`` takes its ``area`` as ``sourced``: the proxy accepts it only if this session's
ledger holds the drainage area a tool returned, so a call that comes back refused means the
session's ledger was lost or mixed up; a 404 means the session was lost.

Reported: calls answered, calls per second, median and 99th percentile round trip (ms), and the
counts that must be zero: sessions refused at start (503), sessions lost (404), ledger failures
(refused runoff_depth), other errors; and whether every session's manifest exists with exactly
the guarded calls its client made.
"""
from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "load", "version": "1"}}
AREA = {"name": "read_drainage_area", "arguments": {"site": "07374000"}}
RUNOFF = {"name": "runoff_depth", "arguments": {"discharge": "1250 cfs", "area": {"value": 29000, "unit": "km**2"}}}


class Conn:
    """One kept-alive HTTP/1.1 connection with JSON (Content-Length) answers."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, body: bytes = b"", headers: dict | None = None) -> tuple[int, dict, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.reader is not None
        h = {"Host": "127.0.0.1", "Content-Type": "application/json", "Accept": "application/json",
             "Content-Length": str(len(body)), **(headers or {})}
        self.writer.write((f"{method} /mcp HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in h.items())
                           + "\r\n").encode() + body)
        head = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), 60)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        fields = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)}
        data = await self.reader.readexactly(int(fields.get("content-length", "0")))
        if fields.get("connection", "").lower() == "close":
            self.writer.close()
            self.writer = None
        return status, fields, data

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def client(port: int, stop_at: float, stats: dict) -> None:
    conn = Conn(port)
    try:
        status, fields, data = await conn.request("POST", json.dumps(
            {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT}).encode())
        if status == 503:
            stats["refused"] += 1
            return
        if status != 200 or "result" not in json.loads(data):
            stats["errors"] += 1
            return
        sid = {"Mcp-Session-Id": fields["mcp-session-id"]}
        await conn.request("POST", b'{"jsonrpc":"2.0","method":"notifications/initialized"}', sid)
        made = 0
        ident = 1
        for params in itertools.chain([AREA], itertools.repeat(RUNOFF)):
            if time.monotonic() >= stop_at and ident > 1:
                break
            ident += 1
            t0 = time.perf_counter()
            status, _, data = await conn.request("POST", json.dumps(
                {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": params}).encode(), sid)
            stats["rtt"].append(time.perf_counter() - t0)
            if status == 404:
                stats["lost"] += 1
                return
            msg = json.loads(data) if data else {}
            result = msg.get("result")
            if status != 200 or not isinstance(result, dict):
                stats["errors"] += 1
                continue
            made += params is RUNOFF or params is AREA
            if result.get("isError"):
                stats["ledger_failures"] += 1
                stats.setdefault("example", result["content"][0]["text"][:300])
            else:
                stats["calls"] += 1
        stats["made"][sid["Mcp-Session-Id"]] = made
        status, _, _ = await conn.request("DELETE", b"", sid)
        if status != 204:
            stats["errors"] += 1
    except (ConnectionError, asyncio.IncompleteReadError, asyncio.TimeoutError, OSError) as exc:
        stats["errors"] += 1
        stats.setdefault("example", repr(exc))
    finally:
        conn.close()


async def load(port: int, clients: int, seconds: float) -> dict:
    stats: dict = {"calls": 0, "refused": 0, "lost": 0, "ledger_failures": 0, "errors": 0, "rtt": [], "made": {}}
    start = time.monotonic()
    await asyncio.gather(*(client(port, start + seconds, stats) for _ in range(clients)))
    stats["elapsed"] = time.monotonic() - start
    return stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not 1 <= args.clients <= 1000 or not 0 < args.seconds <= 600:
        ap.error("--clients must be 1..1000 and --seconds 0..600 (this is a bounded loopback load)")
    folder = tempfile.mkdtemp(prefix="qg-load-")
    manifest = os.path.join(folder, "m.json")
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(
        [sys.executable, "-m", "quantity_guard.mcp", "--listen", "127.0.0.1:0", "--annotations",
         str(REPO / "demo" / "water.toml"), "--manifest", manifest, "--max-sessions", str(args.clients + 16),
         "--", sys.executable, str(REPO / "demo" / "usgs_server.py")],
        stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stderr.readline()
        if "serving MCP" not in line:
            raise SystemExit(f"the proxy did not start: {line}")
        port = int(line.strip().rsplit(":", 1)[1].split("/")[0])
        stats = asyncio.run(load(port, args.clients, args.seconds))
    finally:
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    manifests = [json.loads(Path(folder, f).read_text()) for f in os.listdir(folder) if f.startswith("m-")]
    counts = sorted(m["call_count"] for m in manifests)
    made = sorted(stats["made"].values())
    rtt = sorted(stats.pop("rtt"))
    out = {
        "clients": args.clients, "seconds": round(stats["elapsed"], 1), "calls": stats["calls"],
        "calls_per_s": round(stats["calls"] / stats["elapsed"], 1),
        "rtt_median_ms": round(statistics.median(rtt) * 1000, 2) if rtt else None,
        "rtt_p99_ms": round(rtt[int(len(rtt) * 0.99) - 1] * 1000, 2) if rtt else None,
        "sessions_refused": stats["refused"], "sessions_lost": stats["lost"],
        "ledger_failures": stats["ledger_failures"], "other_errors": stats["errors"],
        "manifests": len(manifests), "manifests_match_calls": counts == made and len(manifests) == len(made),
    }
    if "example" in stats:
        out["example_failure"] = stats["example"]
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:22} {v}")
    ok = not (out["sessions_refused"] or out["sessions_lost"] or out["ledger_failures"] or out["other_errors"]) \
        and out["manifests_match_calls"] and len(made) == args.clients
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
