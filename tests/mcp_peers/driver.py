"""Test helpers: run a peer process that speaks JSON lines over its stdin/stdout."""
from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PEERS = Path(__file__).resolve().parent
FAULT_SERVER = str(PEERS / "fault_server.py")
SDK_SERVER = str(PEERS / "sdk_server.py")
GUARDED_PROXY = str(PEERS / "guarded_proxy.py")
TIMEOUT = 30.0  # generous: the test machines are small and loaded


def env(**extra: str) -> dict:
    e = dict(os.environ)
    e["PYTHONPATH"] = str(REPO) + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
    e.update(extra)
    return e


def new_tag() -> str:
    return "qgtest-" + uuid.uuid4().hex[:12]


def proxy_argv(*upstream: str, options: tuple = (), guarded: bool = False, dashdash: bool = True) -> list:
    if guarded:
        head = [sys.executable, GUARDED_PROXY]
    else:
        head = [sys.executable, "-m", "quantity_guard.mcp"]
    return [*head, *options, *(["--"] if dashdash else []), *upstream]


def fault_argv(tag: str, *flags: str) -> list:
    return [sys.executable, FAULT_SERVER, "--tag", tag, *flags]


class Peer:
    """A child process; lines to its stdin, parsed lines from its stdout, stderr to a file."""

    def __init__(self, argv: list, **popen) -> None:
        self.errfile = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.errfile, env=popen.pop("env", env()),
                                     start_new_session=True, **popen)
        self.lines: queue.Queue = queue.Queue()
        self.seen: list = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in iter(self.proc.stdout.readline, b""):
            self.lines.put(line)
        self.lines.put(None)

    # sending
    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, obj) -> None:
        self.send_raw(json.dumps(obj).encode() + b"\n")

    def request(self, ident, method: str, params=None) -> None:
        msg = {"jsonrpc": "2.0", "id": ident, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    def notify(self, method: str, params=None) -> None:
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.close()
        except OSError:
            pass

    # receiving
    def recv_raw(self, timeout: float = TIMEOUT) -> bytes | None:
        """The next line (with its newline), or None at EOF. Fails on timeout."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no line within {timeout} s; stderr:\n{self.stderr()}") from None
        if line is None:
            self.lines.put(None)
        return line

    def recv(self, timeout: float = TIMEOUT):
        line = self.recv_raw(timeout)
        if line is None:
            raise AssertionError(f"EOF; stderr:\n{self.stderr()}")
        assert line.endswith(b"\n")
        obj = json.loads(line)
        self.seen.append(obj)
        return obj

    def response(self, ident, timeout: float = TIMEOUT):
        """Read until the response to ``ident`` (type-exact); returns (response, other messages)."""
        others = []
        deadline = time.monotonic() + timeout
        while True:
            msg = self.recv(max(0.1, deadline - time.monotonic()))
            if isinstance(msg, dict) and "method" not in msg and type(msg.get("id")) is type(ident) \
                    and msg.get("id") == ident:
                return msg, others
            others.append(msg)

    def call(self, ident, method: str, params=None, timeout: float = TIMEOUT):
        self.request(ident, method, params)
        return self.response(ident, timeout)[0]

    def read_eof(self, timeout: float = TIMEOUT) -> list:
        """All remaining lines until EOF."""
        rest = []
        deadline = time.monotonic() + timeout
        while True:
            line = self.recv_raw(max(0.1, deadline - time.monotonic()))
            if line is None:
                return rest
            rest.append(line)

    # lifecycle
    def wait(self, timeout: float = TIMEOUT) -> int:
        return self.proc.wait(timeout)

    def stderr(self) -> str:
        self.errfile.seek(0)
        return self.errfile.read().decode("utf-8", "replace")

    def stderr_shows(self, text: str, timeout: float = TIMEOUT) -> bool:
        """Whether ``text`` reaches the proxy's stderr within ``timeout`` seconds: a running
        proxy writes its diagnostics from a thread of their own, after the message they concern."""
        deadline = time.monotonic() + timeout
        while text not in self.stderr():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self.proc.wait(10)

    def __enter__(self) -> Peer:
        return self

    def __exit__(self, *exc) -> None:
        self.kill()
        self.errfile.close()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass


def live_pids(tag: str) -> list[int]:
    """Processes (not zombies) whose command line contains ``tag``."""
    found = []
    needle = tag.encode()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read()
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        state = stat[stat.rfind(b")") + 2:].split()[0:1]
        if needle in cmdline and state not in ([b"Z"], [b"X"]):
            found.append(int(name))
    return found


def wait_count(tag: str, n: int, timeout: float = TIMEOUT) -> list[int]:
    """Wait until at least ``n`` live processes carry ``tag``; returns them."""
    deadline = time.monotonic() + timeout
    while True:
        pids = live_pids(tag)
        if len(pids) >= n or time.monotonic() >= deadline:
            return pids
        time.sleep(0.01)


def wait_gone(tag: str, timeout: float) -> list[int]:
    """Wait until no live process carries ``tag``; returns those still alive at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        pids = live_pids(tag)
        if not pids or time.monotonic() >= deadline:
            return pids
        time.sleep(0.02)


def reap(tag: str) -> None:
    """Kill (by pid) any test process left carrying ``tag``."""
    for pid in live_pids(tag):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def upstream_bridge(url: str, *options: str, **extra_env: str) -> Peer:
    """The stdio proxy (``python -m quantity_guard.mcp``) in front of the Streamable HTTP
    upstream at ``url``."""
    return Peer([sys.executable, "-m", "quantity_guard.mcp", *options, "--upstream", url], env=env(**extra_env))


def init_params(version: str = "2025-11-25") -> dict:
    return {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}


MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {},
               "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}}


@contextlib.contextmanager
def listed_proxy(annotations: str, folder: Path):
    """(peer, wire log): the stdio proxy guarding the fault server with ``annotations`` (TOML
    text), initialised and past its first listing; every line the proxy forwards upstream is
    in the wire log. Stopped, and its processes reaped, on exit."""
    ann = folder / "annotations.toml"
    ann.write_text(annotations)
    wire = folder / "wire.log"
    tag = new_tag()
    p = Peer(proxy_argv(*fault_argv(tag, "--wire-log", str(wire)), options=("--annotations", str(ann))))
    try:
        assert "result" in p.call(0, "initialize", init_params())
        p.notify("notifications/initialized")
        assert p.call(1, "tools/list")["result"]["tools"]
        yield p, wire
        p.close_stdin()
        p.read_eof()
        p.wait()
    finally:
        reap(tag)
