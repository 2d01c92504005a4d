"""Proxy overhead over Streamable HTTP (loopback): guarded tools/call round trips through
``quantity-guard-mcp --listen ... --upstream URL`` against the same call sent straight to the
upstream, and the proxy's start-up.

    python bench/perf_proxy_http.py [--n 500] [--startup-runs 10] [--json]

The upstream is a minimal Streamable HTTP server run in a thread of this process (JSON responses,
kept-alive connections, built on ``quantity_guard.mcp.http.wire``), so it costs the same in both
paths. The client is ``http.client`` on one persistent connection per path. Reported medians:

* ``call_direct_us``: ``tools/call runoff`` with the discharge already in m**3/s, straight to the
  upstream.
* ``call_guarded_us``: the same call with the discharge as ``"1250 cfs"`` through a guarding
  proxy (the real policy, ``--annotations`` with ``runoff.discharge = 'm**3/s'``), which converts
  it and forwards it over its own kept-alive connection; ``added_guarded_us`` is the median of
  per-call differences (the calls are interleaved, so load drift hits both alike).
* ``call_passthrough_us`` / ``added_passthrough_us``: an unguarded tool (``add``) through the same
  proxy.
* ``startup_ms``: spawning ``quantity-guard-mcp --upstream URL`` (stdio to the client) until the
  answer to ``initialize`` arrives; ``python_ms``: spawning ``python -c pass`` and waiting for it,
  for scale.

Budget (docs/guide/proxy.md, "Remote servers and HTTP clients"): under 300 us added per guarded call over a direct HTTP call.
"""
from __future__ import annotations

import asyncio
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from quantity_guard.mcp.http.wire import END, Head, Reader, response_head  # noqa: E402

TOOLS = {"tools": [
    {"name": "add", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}},
    {"name": "runoff", "inputSchema": {"type": "object", "properties": {"discharge": {"type": "number"},
                                                                          "area": {"type": "number"}}}},
]}


def _answer(msg: dict) -> bytes | None:
    method, ident = msg.get("method"), msg.get("id")
    if ident is None:
        return None
    if method == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "bench-http", "version": "1"}}
    elif method == "tools/list":
        result = TOOLS
    elif method == "tools/call":
        a = msg["params"]["arguments"]
        if msg["params"]["name"] == "add":
            text = repr(a["a"] + a["b"])
        else:
            text = repr(a["discharge"] / a["area"] * 86.4)
        result = {"content": [{"type": "text", "text": text}]}
    else:
        return json.dumps({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "no"}}).encode()
    return json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}).encode()


async def _serve_conn(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    parser = Reader()
    body: list[bytes] = []
    head: Head | None = None
    while True:
        data = await reader.read(65536)
        if not data:
            writer.close()
            return
        for ev in parser.feed(data):
            if isinstance(ev, Head):
                head, body = ev, []
            elif ev is END:
                assert head is not None
                if head.method != "POST":
                    writer.write(response_head(405, [("Content-Length", "0")]))
                    continue
                out = _answer(json.loads(b"".join(body)))
                if out is None:
                    writer.write(response_head(202, [("Content-Length", "0")]))
                else:
                    writer.write(response_head(200, [("Content-Type", "application/json"),
                                                     ("Content-Length", str(len(out)))]) + out)
            else:
                body.append(ev)


def start_upstream() -> int:
    ready = threading.Event()
    port: list[int] = []

    def run() -> None:
        async def main() -> None:
            server = await asyncio.start_server(_serve_conn, "127.0.0.1", 0)
            port.append(server.sockets[0].getsockname()[1])
            ready.set()
            await asyncio.Event().wait()

        asyncio.run(main())

    threading.Thread(target=run, daemon=True).start()
    ready.wait(10)
    return port[0]


class HTTPPeer:
    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.session: str | None = None
        self.n = 0

    def post(self, method: str, params: dict | None = None, notify: bool = False) -> dict | None:
        msg: dict = {"jsonrpc": "2.0", "method": method}
        if not notify:
            self.n += 1
            msg["id"] = self.n
        if params is not None:
            msg["params"] = params
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
            headers["MCP-Protocol-Version"] = "2025-11-25"
        self.conn.request("POST", "/mcp", body=json.dumps(msg).encode(), headers=headers)
        resp = self.conn.getresponse()
        data = resp.read()
        if method == "initialize":
            self.session = resp.getheader("Mcp-Session-Id")
        if notify:
            return None
        if resp.getheader("Content-Type", "").startswith("text/event-stream"):
            lines = [ln for ln in data.split(b"\n") if ln.startswith(b"data: ") and len(ln) > 6]
            return json.loads(lines[-1][6:])
        return json.loads(data)

    def handshake(self) -> None:
        self.post("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "bench", "version": "1"}})
        self.post("notifications/initialized", notify=True)
        self.post("tools/list")


def main(argv: list[str]) -> dict:
    n = int(argv[argv.index("--n") + 1]) if "--n" in argv else 500
    runs = int(argv[argv.index("--startup-runs") + 1]) if "--startup-runs" in argv else 10
    port = start_upstream()
    url = f"http://127.0.0.1:{port}/mcp"
    tmp = tempfile.mkdtemp()
    ann = os.path.join(tmp, "runoff.toml")
    with open(ann, "w") as f:
        f.write("[tools.runoff.params]\ndischarge = 'm**3/s'\n")
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONPYCACHEPREFIX=os.path.join(tmp, "pyc"))
    proxy = subprocess.Popen([sys.executable, "-m", "quantity_guard.mcp", "--annotations", ann,
                              "--listen", "0", "--upstream", url], stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proxy.stderr.readline()
        pport = int(line.strip().rsplit(":", 1)[1].split("/")[0])
        direct, through = HTTPPeer(port), HTTPPeer(pport)
        direct.handshake()
        through.handshake()
        check = through.post("tools/call", {"name": "runoff", "arguments": {"discharge": "1250 cfs", "area": 2}})
        assert "result" in check and not check["result"].get("isError"), check
        d_conv, g, d_add, p_add = [], [], [], []
        clock = time.perf_counter_ns
        for _ in range(50):  # warm-up: caches, the proxy's upstream connection, the ledger
            direct.post("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
            through.post("tools/call", {"name": "runoff", "arguments": {"discharge": "1250 cfs", "area": 2}})
        for _ in range(n):
            t0 = clock()
            direct.post("tools/call", {"name": "runoff", "arguments": {"discharge": 35.396, "area": 2}})
            t1 = clock()
            through.post("tools/call", {"name": "runoff", "arguments": {"discharge": "1250 cfs", "area": 2}})
            t2 = clock()
            direct.post("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
            t3 = clock()
            through.post("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
            t4 = clock()
            d_conv.append(t1 - t0)
            g.append(t2 - t1)
            d_add.append(t3 - t2)
            p_add.append(t4 - t3)
    finally:
        proxy.terminate()
        proxy.wait(10)
    us = lambda xs: round(statistics.median(xs) / 1000, 1)  # noqa: E731
    report = {
        "n": n,
        "call_direct_us": us(d_conv),
        "call_guarded_us": us(g),
        "added_guarded_us": us([b - a for a, b in zip(d_conv, g)]),
        "call_direct_add_us": us(d_add),
        "call_passthrough_us": us(p_add),
        "added_passthrough_us": us([b - a for a, b in zip(d_add, p_add)]),
    }
    # start-up: spawn the stdio->HTTP proxy and wait for the initialize answer
    init = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                       "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                  "clientInfo": {"name": "bench", "version": "1"}}}).encode() + b"\n"
    starts, bare = [], []
    for i in range(runs + 1):
        t0 = time.perf_counter()
        p = subprocess.Popen([sys.executable, "-m", "quantity_guard.mcp", "--upstream", url],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        p.stdin.write(init)
        p.stdin.flush()
        p.stdout.readline()
        t1 = time.perf_counter()
        p.stdin.close()
        p.wait(10)
        t2 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], env=env)
        t3 = time.perf_counter()
        if i:  # the first run warms the bytecode cache
            starts.append(t1 - t0)
            bare.append(t3 - t2)
    report["startup_ms"] = round(statistics.median(starts) * 1000, 1)
    report["python_ms"] = round(statistics.median(bare) * 1000, 1)
    return report


if __name__ == "__main__":
    result = main(sys.argv[1:])
    if "--json" in sys.argv:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k:24} {v}")
