"""--listen against clients that hold connections: one deadline for a whole request however
slowly it trickles in, a cap on connections (total and per peer) answered with 503, and one
quiet log line, not a traceback per attempt, when accepting fails at the open-file limit."""
from __future__ import annotations

import asyncio
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers.driver import env  # noqa: E402

from quantity_guard.mcp.http.listen import Listener  # noqa: E402

IDLE_COMMAND = [sys.executable, "-c", "pass"]


def _run(scenario, **options):
    async def main():
        listener = Listener("127.0.0.1", 0, lambda: None, command=IDLE_COMMAND, **options)
        host, port = await listener.start()
        try:
            return await scenario(port)
        finally:
            listener.stop()
            await listener.serve()
    return asyncio.run(main())


def test_a_request_dribbled_a_byte_at_a_time_is_cut_at_the_read_deadline():
    request = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * 200 + b"\r\n\r\n"

    async def scenario(port):
        r, w = await asyncio.open_connection("127.0.0.1", port)
        sent = 0
        got = b""
        for byte in request:  # one byte per 50 ms: 11 s for the whole head
            try:
                w.write(bytes([byte]))
                await w.drain()
            except (ConnectionError, OSError):
                break
            sent += 1
            try:
                got += await asyncio.wait_for(r.read(4096), 0.05)
            except asyncio.TimeoutError:
                continue
            if got == b"" or got.endswith(b"\r\n\r\n"):
                break
        w.close()
        return sent, got

    sent, got = _run(scenario, read_timeout=0.5)
    assert got.startswith(b"HTTP/1.1 408 ")
    assert sent < len(request)  # cut while the head was still trickling in


def _status(data: bytes) -> int:
    return int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else 0


async def _get(port, hold=None):
    r, w = await asyncio.open_connection("127.0.0.1", port)
    w.write(b"GET /other HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    data = await asyncio.wait_for(r.read(), 10)
    w.close()
    return data


def test_connections_beyond_the_cap_get_503_and_the_cap_frees_up():
    async def scenario(port):
        held = [await asyncio.open_connection("127.0.0.1", port) for _ in range(3)]
        await asyncio.sleep(0.05)
        refused = await _get(port)
        held[0][1].close()
        await asyncio.sleep(0.1)
        served = await _get(port)
        for _, w in held[1:]:
            w.close()
        return refused, served

    refused, served = _run(scenario, max_connections=3)
    assert _status(refused) == 503 and b"--max-connections" in refused
    assert _status(served) == 404  # served again (not the MCP path)


def test_connections_beyond_the_per_peer_cap_get_503():
    async def scenario(port):
        held = [await asyncio.open_connection("127.0.0.1", port) for _ in range(2)]
        await asyncio.sleep(0.05)
        refused = await _get(port)
        for _, w in held:
            w.close()
        return refused

    refused = _run(scenario, max_connections=10, max_connections_per_peer=2)
    assert _status(refused) == 503 and b"--max-connections-per-peer" in refused


def test_accept_failures_at_the_open_file_limit_are_logged_once_not_per_attempt(tmp_path):
    def low_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (48, 48))

    err = open(tmp_path / "stderr", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "quantity_guard.mcp", "--listen", "0",
                             "--max-connections", "1000", "--", *IDLE_COMMAND],
                            stderr=err, env=env(), preexec_fn=low_limit)
    socks = []
    try:
        deadline = time.monotonic() + 30
        text = ""
        while "serving MCP" not in text and time.monotonic() < deadline:
            time.sleep(0.05)
            text = (tmp_path / "stderr").read_text()
        port = int(text.split("http://127.0.0.1:", 1)[1].split("/", 1)[0])
        for _ in range(80):
            s = socket.create_connection(("127.0.0.1", port))
            socks.append(s)
        deadline = time.monotonic() + 30
        while "cannot accept connections" not in text and time.monotonic() < deadline:
            time.sleep(0.1)
            text = (tmp_path / "stderr").read_text()
        time.sleep(2.5)  # asyncio retries the accept each second
        text = (tmp_path / "stderr").read_text()
    finally:
        for s in socks:
            s.close()
        proc.terminate()
        proc.wait(10)
        err.close()
    assert text.count("cannot accept connections") == 1
    assert "Traceback" not in text and "Too many open files" in text
