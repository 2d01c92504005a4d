"""The stdio proxy's relay (one poll loop both ways) over real pipes: lines that arrive together,
lines split across writes, and flow control when the client stops reading. Nothing may be lost,
reordered or changed."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from mcp_peers.driver import (  # noqa: E402
    TIMEOUT, Peer, env, fault_argv, init_params, proxy_argv, wait_gone)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc and process groups")


def _init_line(ident=0) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": ident, "method": "initialize",
                       "params": init_params()}).encode() + b"\n"


def test_lines_written_together_or_split_pass_in_order_byte_for_byte(tag, tmp_path):
    log = tmp_path / "wire.log"
    with Peer(proxy_argv(*fault_argv(tag, "--wire-log", str(log)))) as p:
        p.send_raw(_init_line())
        assert p.recv()["id"] == 0
        # 400 requests in one write (the relay reads them in one or a few chunks and must feed
        # every line, in order), with odd spacing that must reach the upstream unchanged
        lines = [(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}' if i % 2 else
                  b'{ "id" : %d , "method" : "ping" , "jsonrpc" : "2.0" }') % i
                 for i in range(1, 401)]
        p.send_raw(b"\n".join(lines) + b"\n")
        assert [p.recv()["id"] for _ in lines] == list(range(1, 401))
        # one line in three writes, the last ending in \r\n, and a line whose tail arrives with
        # the next whole line
        p.send_raw(b'{"jsonrpc":"2.0",')
        time.sleep(0.05)
        p.send_raw(b'"id":"split","meth')
        time.sleep(0.05)
        p.send_raw(b'od":"ping"}\r\n{"jsonrpc":"2.0","id":"tail-')
        time.sleep(0.05)
        p.send_raw(b'first","method":"ping"}\n{"jsonrpc":"2.0","id":"whole","method":"ping"}\n')
        assert [p.recv()["id"] for _ in range(3)] == ["split", "tail-first", "whole"]
        p.close_stdin()
        assert p.read_eof() == []
        assert p.wait() == 0, p.stderr()
    received = log.read_bytes().split(b"\n")
    sent = [line for line in received if b'"ping"' in line]
    assert sent == lines + [b'{"jsonrpc":"2.0","id":"split","method":"ping"}',
                            b'{"jsonrpc":"2.0","id":"tail-first","method":"ping"}',
                            b'{"jsonrpc":"2.0","id":"whole","method":"ping"}']
    assert wait_gone(tag, 5.0) == []


def test_a_client_that_stops_reading_loses_nothing_and_its_cancellation_still_goes_up(tag, tmp_path):
    """8 MB of answers wait for a client that is not reading (more than the pipes and the
    proxy's queue hold: the proxy stops reading the upstream, which blocks writing); its
    requests and a cancellation still reach the upstream; once it reads, every answer arrives,
    whole and in order."""
    log = tmp_path / "wire.log"
    proc = subprocess.Popen(proxy_argv(*fault_argv(tag, "--wire-log", str(log))),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env(), start_new_session=True)
    # a lost answer must fail the test, not hang it: the watchdog kills the proxy (EOF)
    watchdog = threading.Timer(2 * TIMEOUT, lambda: os.killpg(proc.pid, signal.SIGKILL))
    watchdog.start()
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(_init_line())
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 0
        size = 4_000_000
        calls = [{"jsonrpc": "2.0", "id": i, "method": "tools/call",
                  "params": {"name": "big", "arguments": {"size": size}}} for i in (1, 2)]
        calls.append({"jsonrpc": "2.0", "id": "h", "method": "tools/call",
                      "params": {"name": "hang", "arguments": {}}})
        for msg in calls:
            proc.stdin.write(json.dumps(msg).encode() + b"\n")
        proc.stdin.flush()
        # not reading: the cancellation must still reach the upstream
        cancel = b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"h"}}'
        proc.stdin.write(cancel + b"\n")
        proc.stdin.flush()
        deadline = time.monotonic() + TIMEOUT
        while not (log.exists() and cancel in log.read_bytes()):
            assert time.monotonic() < deadline, "the cancellation did not reach the upstream"
            time.sleep(0.02)
        proc.stdin.write(b'{"jsonrpc":"2.0","id":3,"method":"ping"}\n')
        proc.stdin.flush()
        answers = [json.loads(proc.stdout.readline()) for _ in range(4)]
        bigs = sorted((a for a in answers if a.get("id") in (1, 2)), key=lambda a: a["id"])
        assert [len(a["result"]["content"][0]["text"]) for a in bigs] == [size, size]
        rest = [a for a in answers if a.get("id") not in (1, 2)]
        assert {"id": 3, "result": {}, "jsonrpc": "2.0"} in rest
        [note] = [a for a in rest if a.get("method") == "notifications/message"]
        assert note["params"]["data"] == {"cancelled": "h", "was_hanging": True}
        proc.stdin.close()
        assert proc.stdout.read() == b""  # the cancelled request is forgotten: nothing more
        assert proc.wait(TIMEOUT) == 0
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        for f in (proc.stdin, proc.stdout):
            try:
                f.close()  # type: ignore[union-attr]
            except OSError:
                pass
    assert wait_gone(tag, 5.0) == []
