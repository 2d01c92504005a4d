"""The proxy's peak memory while it relays one large message, as a multiple of its size.

    python bench/proxy_memory.py peak [--result-mib 20] [--request-mib 16] [--json]

(``bench/proxy_memory.py`` without ``peak`` measures RSS growth over a long life instead.)
The proxy runs in this process, traced by ``tracemalloc``, with its real upstream in a child
process (tests/mcp_peers/fault_server.py over stdio, tests/mcp_peers/http_fault_server.py over
HTTP), so the upstream's own copies are not counted. The client is a raw socket or pipe that
reads and discards, so its copies are not counted either. Each scenario:

* ``stdio result``: a ``tools/call`` whose result line is ``--result-mib`` MiB, upstream to
  client through the stdio proxy;
* ``stdio request``: a ``tools/call`` of ``--request-mib`` MiB (a long string argument), client
  to upstream through the stdio proxy, for a guarded tool (its arguments are read);
* ``http result`` / ``http request``: the same through ``--listen`` (the client's POST, an SSE
  response) in front of the same stdio upstream;
* ``http upstream result``: ``--listen --upstream URL``, the result arriving as an HTTP JSON
  body from the remote upstream.

The figure printed is (peak traced bytes while relaying - traced bytes before) / message size.
"""
from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PEERS = ROOT / "tests" / "mcp_peers"
FAULT_SERVER = str(PEERS / "fault_server.py")
ANNOTATIONS = """
[tools.read_discharge.params]
discharge = "m**3/s"
"""
MIB = 1 << 20


def _init(version: str = "2025-11-25") -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                       "params": {"protocolVersion": version, "capabilities": {},
                                  "clientInfo": {"name": "bench", "version": "0"}}}).encode()


def call_line(name: str, arguments: dict) -> bytes:
    """A tools/call request in compact JSON, as the SDK clients write it."""
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments}},
                      separators=(",", ":")).encode()


def _policy_factory(tmp: str):
    from quantity_guard.mcp.policy import build_policy
    path = os.path.join(tmp, "bench.toml")
    with open(path, "w") as fh:
        fh.write(ANNOTATIONS)
    return lambda: build_policy(path)


class _Trace:
    """tracemalloc around one relay: ``ratio(size)`` once done."""

    def __enter__(self) -> "_Trace":
        tracemalloc.start()
        tracemalloc.reset_peak()
        self.base = tracemalloc.get_traced_memory()[0]
        return self

    def __exit__(self, *exc) -> None:
        self.peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()

    def ratio(self, size: int) -> float:
        return (self.peak - self.base) / size


# ----------------------------------------------------------------- stdio

def stdio_peak(body: bytes, size: int, tmp: str) -> float:
    from quantity_guard.mcp.guard import Guard
    from quantity_guard.mcp.stdio import Proxy
    c2p_r, c2p_w = os.pipe()
    p2c_r, p2c_w = os.pipe()
    proxy = Proxy([sys.executable, FAULT_SERVER], Guard(_policy_factory(tmp)()), client_in=c2p_r,
                  client_out=p2c_w, err_fd=os.open(os.devnull, os.O_WRONLY),
                  handle_signals=False, watch_parent=False)
    lines = [_init(), b'{"jsonrpc":"2.0","method":"notifications/initialized"}']
    done = threading.Event()

    def read() -> None:  # discard the proxy's output, count its lines: two answers
        seen = 0
        while seen < 2:
            data = os.read(p2c_r, 1 << 16)
            if not data:
                break
            seen += data.count(b"\n")
        done.set()

    with _Trace() as trace:
        runner = threading.Thread(target=proxy.run, daemon=True)
        runner.start()
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        view = memoryview(b"\n".join(lines) + b"\n")
        os.write(c2p_w, view)
        time.sleep(0.3)  # the initialize answered before the big call
        view = memoryview(body)
        while view:
            n = os.write(c2p_w, view[:1 << 16])
            view = view[n:]
        os.write(c2p_w, b"\n")
        assert done.wait(120), "no answer"
        os.close(c2p_w)
        runner.join(30)
    os.close(p2c_r)
    return trace.ratio(size)


# ----------------------------------------------------------------- HTTP

class _Served:
    def __init__(self, tmp: str, **where) -> None:
        from quantity_guard.mcp.http.listen import Listener
        self.ready = threading.Event()

        async def main():
            self.loop = asyncio.get_running_loop()
            self.listener = Listener("127.0.0.1", 0, _policy_factory(tmp), **where)
            _, self.port = await self.listener.start()
            self.ready.set()
            await self.listener.serve()

        self.thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
        self.thread.start()
        assert self.ready.wait(30)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.listener.stop)
        self.thread.join(30)


def _http_exchange(port: int, body: bytes, sid: str | None) -> tuple[str | None, int]:
    """POST ``body``; read the response, discarding it; return (session id, bytes read)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=120)
    head = [b"POST /mcp HTTP/1.1", f"Host: 127.0.0.1:{port}".encode(),
            b"Accept: application/json, text/event-stream", b"Content-Type: application/json",
            f"Content-Length: {len(body)}".encode()]
    if sid:
        head.append(f"Mcp-Session-Id: {sid}".encode())
    sock.sendall(b"\r\n".join(head) + b"\r\n\r\n")
    view = memoryview(body)
    while view:
        n = sock.send(view[:1 << 16])
        view = view[n:]
    got = b""
    while b"\r\n\r\n" not in got:
        got += sock.recv(65536)
    head_bytes, _, rest = got.partition(b"\r\n\r\n")
    new_sid = None
    for line in head_bytes.split(b"\r\n"):
        if line.lower().startswith(b"mcp-session-id:"):
            new_sid = line.split(b":", 1)[1].strip().decode()
    total = len(rest)
    tail = rest[-16:]
    chunked = b"chunked" in head_bytes.lower()
    length = None
    for line in head_bytes.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    while True:
        if chunked and tail.endswith(b"0\r\n\r\n"):
            break
        if length is not None and total >= length:
            break
        if not chunked and length is None and int(head_bytes.split(b" ")[1]) in (202, 204):
            break
        data = sock.recv(1 << 16)
        if not data:
            break
        total += len(data)
        tail = (tail + data)[-16:]
    sock.close()
    return new_sid, total


def http_peak(body: bytes, size: int, tmp: str, answer: int = 0, **where) -> float:
    served = _Served(tmp, **where)
    try:
        sid, _ = _http_exchange(served.port, _init(), None)
        _http_exchange(served.port, b'{"jsonrpc":"2.0","method":"notifications/initialized"}', sid)
        with _Trace() as trace:
            _, got = _http_exchange(served.port, body, sid)
        assert got > answer, got
    finally:
        served.stop()
    return trace.ratio(size)


def _remote_upstream() -> tuple[subprocess.Popen, str]:
    code = ("import sys, time; sys.path.insert(0, sys.argv[1]); import http_fault_server as h; "
            "_, _, url = h.start(); print(url, flush=True); time.sleep(3600)")
    proc = subprocess.Popen([sys.executable, "-c", code, str(PEERS)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def measure(result_mib: int, request_mib: int) -> dict:
    result_size, request_size = result_mib * MIB, request_mib * MIB
    big_result = call_line("big", {"size": result_size})
    big_request = call_line("read_discharge", {"discharge": "10 m**3/s", "note": "y" * (request_size - 100)})
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        out["stdio result"] = stdio_peak(big_result, result_size, tmp)
        out["stdio request"] = stdio_peak(big_request, len(big_request), tmp)
        command = [sys.executable, FAULT_SERVER]
        out["http result"] = http_peak(big_result, result_size, tmp, result_size, command=command)
        out["http request"] = http_peak(big_request, len(big_request), tmp, 50, command=command,
                                    max_body=request_size + MIB)
        proc, url = _remote_upstream()
        try:
            out["http upstream result"] = http_peak(big_result, result_size, tmp, result_size, upstream=url)
        finally:
            proc.kill()
            proc.wait()
    return out


def main(argv: list[str]) -> int:
    def opt(name: str, default: int) -> int:
        return int(argv[argv.index(name) + 1]) if name in argv else default

    result = measure(opt("--result-mib", 20), opt("--request-mib", 16))
    if "--json" in argv:
        print(json.dumps(result, indent=1))
    else:
        for name, ratio in result.items():
            print(f"{name:22s} peak {ratio:.2f}x the message")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
