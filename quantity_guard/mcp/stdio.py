"""The stdio shell around :class:`~quantity_guard.mcp.guard.Guard`: pipes, threads, the upstream
child process and signals. Everything here is I/O; every protocol decision is the guard's.

Threads
    ``client->upstream`` reads the client's stdin, ``upstream->client`` reads the upstream's
    stdout, ``upstream-stderr`` drains the upstream's stderr, ``stderr-writer`` writes all
    diagnostics, ``upstream-wait`` reaps the child. The two pumps are independent, so a client
    that stops reading never stops a cancellation on its way upstream. Each output has its own
    writer lock; the guard has one lock, never held while writing.

Lines
    are split on ``0x0A`` only and may be of any length (tested with 64 MiB).

stderr
    Upstream stderr is drained continuously and copied to ours, line by line. Diagnostics are
    queued to a writer thread, so neither pump nor the upstream ever waits for our stderr; if it
    stalls, at most 4 MiB is queued and older output is dropped (counted).

Shutdown
    * Client EOF: the upstream's stdin is closed; if it has not exited after ``eof_grace``
      seconds its process group gets SIGTERM, then SIGKILL after ``term_grace``. Output it
      writes meanwhile is still forwarded; requests it never answered get errors. Exit 0.
    * The upstream exits or closes its stdout first: its remaining output is forwarded, every
      pending client request is answered with a JSON-RPC error, the rest of its process group is
      stopped, our stdout is closed, exit 1.
    * SIGTERM, SIGHUP or SIGINT to the proxy, or its parent dying: every request still in
      flight is answered with a JSON-RPC error at once, the upstream's process group is stopped
      (SIGTERM, then SIGKILL after ``term_grace``) and the proxy exits 128 + signal number, within
      a second.
    The upstream runs in its own session and process group, so the whole tree it spawns is
    stopped and none is left behind. (Only a SIGKILL of the proxy itself cannot be handled; the
    upstream then sees EOF on its stdin.)
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from typing import Any, Callable, Sequence

from .guard import C2S, LOG, S2C, Guard
from .fdio import read_chunks
from .jsonrpc import LineBuffer

__all__ = ["Proxy", "run_proxy", "protect_stdio", "restore_stdio", "EXIT_OK", "EXIT_UPSTREAM_GONE",
           "EXIT_START_FAILED", "stop_process_group"]

EXIT_OK = 0
EXIT_UPSTREAM_GONE = 1
EXIT_START_FAILED = 4

_CHUNK = 1 << 16  # a pipe holds 64 KiB; larger reads only cost an mmap per call
_STDERR_QUEUE_LIMIT = 4 << 20
_PREFIX = b"quantity-guard-mcp: "


def _write_all(fd: int, data: bytes) -> None:
    n = os.write(fd, data)
    if n == len(data):
        return
    view = memoryview(data)[n:]
    while view:
        view = view[os.write(fd, view):]


def protect_stdio() -> tuple[int, int]:
    """Move the wire to private descriptors: returns ``(wire_in, wire_out)``.

    Afterwards fd 0 reads ``/dev/null`` and fd 1 writes to stderr, so a stray ``print()`` from any
    imported code (a policy, a plugin) can never corrupt the JSON-RPC stream.
    """
    wire_in = os.dup(0)
    wire_out = os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    try:
        sys.stdout.flush()
    except Exception:
        pass
    return wire_in, wire_out


def restore_stdio(wire: tuple[int, int]) -> None:
    """Undo :func:`protect_stdio`: fds 0 and 1 back to the wire (where still open), which is
    closed."""
    for fd, target in ((wire[0], 0), (wire[1], 1)):
        try:
            os.dup2(fd, target)
        except OSError:
            pass
        try:
            os.close(fd)
        except OSError:
            pass


def _group_alive(pgid: int) -> bool:
    """Whether any non-zombie process is left in process group ``pgid``."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    if not os.path.isdir("/proc/self"):
        return True
    # Zombies count for kill(0) but need no killing (and may never be reaped in a container
    # whose PID 1 does not reap): look for a live member.
    try:
        names = os.listdir("/proc")
    except OSError:
        return True
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        tail = stat[stat.rfind(b")") + 2:].split()
        if len(tail) > 2 and tail[2] == str(pgid).encode() and tail[0] not in (b"Z", b"X"):
            return True
    return False


def stop_process_group(proc: subprocess.Popen, exited: threading.Event | None = None, *,
                       term_grace: float = 0.4, kill_grace: float = 0.5) -> None:
    """SIGTERM the process group led by ``proc``, SIGKILL it if anything survives ``term_grace``.

    Returns when the leader has exited and the group is empty (or ``kill_grace`` after SIGKILL).
    """
    pgid = proc.pid

    def settled(deadline: float) -> bool:
        while True:
            leader_done = exited.is_set() if exited is not None else proc.poll() is not None
            if leader_done and not _group_alive(pgid):
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)

    if settled(time.monotonic()):
        return
    try:
        os.killpg(pgid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass
    if settled(time.monotonic() + term_grace):
        return
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    settled(time.monotonic() + kill_grace)


class _StderrWriter:
    """A bounded queue of diagnostics in front of our stderr, written by one thread."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._queue: deque[bytes] = deque()
        self._size = 0
        self._dropped = 0
        self._cond = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="stderr-writer", daemon=True)
        self._thread.start()

    def put(self, data: bytes) -> None:
        with self._cond:
            if self._closed:
                return
            self._queue.append(data)
            self._size += len(data)
            while self._size > _STDERR_QUEUE_LIMIT and len(self._queue) > 1:
                old = self._queue.popleft()
                self._size -= len(old)
                self._dropped += len(old)
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if not self._queue and self._closed:
                    return
                chunks = list(self._queue)
                self._queue.clear()
                self._size = 0
                dropped, self._dropped = self._dropped, 0
            if dropped:
                chunks.insert(0, _PREFIX + f"stderr stalled: {dropped} bytes dropped\n".encode())
            try:
                _write_all(self._fd, b"".join(chunks))
            except OSError:
                pass

    def close(self, timeout: float = 0.3) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()
        self._thread.join(timeout)


class Proxy:
    """One proxied session: an upstream child process and the pumps around it.

    ``Proxy(command, guard).run()`` returns the exit status. ``client_in``/``client_out`` are
    file descriptors of the client's side (default 0 and 1), ``err_fd`` the diagnostics output.
    """

    def __init__(self, command: Sequence[str], guard: Guard | None = None, *,
                 client_in: int = 0, client_out: int = 1, err_fd: int = 2,
                 eof_grace: float = 0.5, term_grace: float = 0.4,
                 env: dict | None = None, cwd: str | None = None,
                 handle_signals: bool = True, watch_parent: bool = True) -> None:
        if not command:
            raise ValueError("no upstream command")
        self.command = list(command)
        self.guard = guard if guard is not None else Guard()
        self.client_in = client_in
        self.client_out = client_out
        self.eof_grace = eof_grace
        self.term_grace = term_grace
        self.env = env
        self.cwd = cwd
        self.handle_signals = handle_signals
        self.watch_parent = watch_parent
        self.proc: subprocess.Popen | None = None
        self._stderr = _StderrWriter(err_fd)
        self._guard_lock = threading.Lock()
        self._client_lock = threading.Lock()
        self._upstream_lock = threading.Lock()
        self._wake = threading.Event()
        self._exited = threading.Event()
        self._upstream_eof = threading.Event()
        self._client_eof = threading.Event()
        self._client_gone = threading.Event()
        self._signal: int | None = None
        self._upstream_write_failed = False
        self._threads: list[threading.Thread] = []
        self._parent = os.getppid()  # recorded before the upstream starts
        self._upstream_in = -1

    # ---------------------------------------------------------------- diagnostics

    def log(self, text: str | bytes) -> None:
        data = text if isinstance(text, bytes) else text.encode("utf-8", "replace")
        self._stderr.put(_PREFIX + data.rstrip(b"\n") + b"\n")

    # ---------------------------------------------------------------- writers

    def _write_client(self, data: bytes) -> None:
        if self._client_gone.is_set():
            return
        with self._client_lock:
            try:
                _write_all(self.client_out, data)
            except OSError:
                if not self._client_gone.is_set():
                    self._client_gone.set()
                    self._wake.set()

    def _write_upstream(self, data: bytes) -> None:
        with self._upstream_lock:
            try:
                if self._upstream_in < 0:
                    raise OSError("closed")
                _write_all(self._upstream_in, data)
            except OSError:
                if not self._upstream_write_failed:
                    self._upstream_write_failed = True
                    self.log("the upstream is not reading its stdin any more")

    def _close_upstream_stdin(self) -> None:
        proc = self.proc
        with self._upstream_lock:
            self._upstream_in = -1
            if proc is not None and proc.stdin is not None:
                try:
                    proc.stdin.close()
                except OSError:
                    pass

    def _dispatch(self, outputs: list[tuple[str, bytes]]) -> None:
        for direction, data in outputs:
            if direction == S2C:
                self._write_client(data)
            elif direction == C2S:
                self._write_upstream(data)
            elif direction == LOG:
                self.log(data)

    def _feed(self, direction: str, line: bytes) -> None:
        with self._guard_lock:
            outputs = self.guard.receive(direction, line)
        self._dispatch(outputs)

    # ---------------------------------------------------------------- threads

    def _pump(self, fd: int, direction: str) -> None:
        """Read lines from ``fd`` until EOF and feed each to the guard (one reader per side)."""
        buf = LineBuffer()
        lock, receive, dispatch = self._guard_lock, self.guard.receive, self._dispatch
        for chunk in read_chunks(fd, _CHUNK):
            lines = buf.feed(chunk)
            if lines:
                with lock:
                    outputs = [out for line in lines for out in receive(direction, line)]
                dispatch(outputs)
        tail = buf.flush()
        if tail:
            self._feed(direction, tail)

    def _pump_client(self) -> None:
        try:
            self._pump(self.client_in, C2S)
        finally:
            self._close_upstream_stdin()
            self._client_eof.set()
            self._wake.set()

    def _pump_upstream(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        try:
            self._pump(self.proc.stdout.fileno(), S2C)
        finally:
            self._upstream_eof.set()
            self._wake.set()

    def _drain_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        fd = self.proc.stderr.fileno()
        pending = b""
        for chunk in read_chunks(fd, _CHUNK):
            pending += chunk
            cut = pending.rfind(b"\n") + 1
            if cut:
                self._stderr.put(pending[:cut])
                pending = pending[cut:]
            elif len(pending) > 65536:
                self._stderr.put(pending)
                pending = b""
        if pending:
            self._stderr.put(pending + b"\n")

    def _wait_upstream(self) -> None:
        assert self.proc is not None
        self.proc.wait()
        self._exited.set()
        self._wake.set()

    def _start_thread(self, target: Callable[[], None], name: str) -> None:
        t = threading.Thread(target=target, name=name, daemon=True)
        t.start()
        self._threads.append(t)

    # ---------------------------------------------------------------- signals

    def _on_signal(self, signum: int, frame: object) -> None:
        if self._signal is None:
            self._signal = signum
        self._wake.set()

    def request_stop(self, signum: int = signal.SIGTERM) -> None:
        """Ask a running proxy to stop its upstream and exit (thread-safe)."""
        self._on_signal(signum, None)

    # ---------------------------------------------------------------- lifecycle

    def start(self) -> None:
        """Spawn the upstream and start the pumps. Raises ``OSError`` if it cannot start."""
        self.proc = subprocess.Popen(
            self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            bufsize=0, start_new_session=True, env=self.env, cwd=self.cwd)
        assert self.proc.stdin is not None
        self._upstream_in = self.proc.stdin.fileno()
        self._start_thread(self._wait_upstream, "upstream-wait")
        self._start_thread(self._drain_stderr, "upstream-stderr")
        self._start_thread(self._pump_upstream, "upstream->client")
        self._start_thread(self._pump_client, "client->upstream")

    def run(self) -> int:
        """Start (unless started), serve until one side goes away, stop; returns the exit status."""
        previous: dict[signal.Signals, Any] = {}  # signal -> the handler it had
        if self.handle_signals and threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
                try:
                    previous[sig] = signal.signal(sig, self._on_signal)
                except (OSError, ValueError):
                    pass
        try:
            if self.proc is None:
                try:
                    self.start()
                except OSError as exc:
                    self.log(f"cannot start the upstream {self.command[0]!r}: {exc.strerror or exc}")
                    return EXIT_START_FAILED
            return self._serve()
        finally:
            for sig, handler in previous.items():
                try:
                    signal.signal(sig, handler)
                except (OSError, ValueError, TypeError):
                    pass
            self._stderr.close()

    def _serve(self) -> int:
        assert self.proc is not None
        parent = self._parent
        while True:
            self._wake.wait(0.25)
            self._wake.clear()
            if self._signal is not None:
                name = signal.Signals(self._signal).name
                self.log(f"received {name}; answering pending requests and stopping the upstream")
                self._answer_pending(f"quantity-guard-mcp received {name} and stopped the "
                                     "upstream MCP server")
                self._stop_upstream(close_stdin=True)
                return 128 + self._signal
            if self.watch_parent and os.getppid() != parent:
                self.log("the client process went away; stopping the upstream")
                self._answer_pending("the client process went away; quantity-guard-mcp stopped "
                                     "the upstream MCP server")
                self._stop_upstream(close_stdin=True)
                return 128 + signal.SIGHUP
            if self._client_eof.is_set() or self._client_gone.is_set():
                return self._after_client_eof()
            if self._exited.is_set() or self._upstream_eof.is_set():
                return self._after_upstream_gone()

    def _answer_pending(self, reason: str) -> None:
        """Answer every request still in flight with a JSON-RPC error (the guard closes, so
        anything the upstream still writes is dropped); done before the upstream is stopped, so
        the client hears at once."""
        with self._guard_lock:
            outputs = self.guard.upstream_closed(reason)
        if outputs:
            self.log(f"answered {len(outputs)} pending request(s) with an error")
        self._dispatch(outputs)

    def _stop_upstream(self, close_stdin: bool) -> None:
        proc = self.proc
        assert proc is not None
        if close_stdin:
            self._close_upstream_stdin()
        stop_process_group(proc, self._exited, term_grace=self.term_grace)

    def _finish_output(self, timeout: float) -> None:
        """Let the upstream reader forward what is left (bounded: a grandchild may hold the pipe)."""
        self._upstream_eof.wait(timeout)

    def _after_client_eof(self) -> int:
        # The client pump closed the upstream's stdin. Give the upstream a moment to exit on its
        # own, then stop its process group, still forwarding anything it writes meanwhile.
        self._exited.wait(self.eof_grace)
        self._stop_upstream(close_stdin=False)
        self._finish_output(0.3)
        with self._guard_lock:
            outputs = self.guard.upstream_closed(self._exit_reason("the upstream MCP server stopped"))
        self._dispatch(outputs)
        return EXIT_OK

    def _after_upstream_gone(self) -> int:
        proc = self.proc
        assert proc is not None
        if not self._upstream_eof.is_set():
            # It exited but something in its group still holds its stdout: give the output a
            # moment, then stop the group so the pipe closes.
            self._finish_output(0.2)
        if not self._exited.is_set():
            # It closed its stdout but lives on: it cannot answer any more.
            self._exited.wait(0.2)
        self._stop_upstream(close_stdin=True)
        self._finish_output(0.3)
        reason = self._exit_reason("the upstream MCP server exited")
        with self._guard_lock:
            outputs = self.guard.upstream_closed(reason)
        self.log(f"{reason}; answered {len(outputs)} pending request(s) with an error")
        self._dispatch(outputs)
        with self._client_lock:
            # Close our end of the client's pipe (the client sees EOF) but keep the descriptor
            # number valid, so that no later open() can take it over.
            try:
                null = os.open(os.devnull, os.O_WRONLY)
                try:
                    os.dup2(null, self.client_out)
                finally:
                    os.close(null)
            except OSError:
                pass
            self._client_gone.set()
        return EXIT_UPSTREAM_GONE

    def _exit_reason(self, what: str) -> str:
        proc = self.proc
        code = proc.returncode if proc is not None else None
        if code is None:
            return what
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"{what} (killed by {name})"
        return f"{what} (exit code {code})"


def run_proxy(command: Sequence[str], guard: Guard | None = None, **options) -> int:
    """Run a proxy between this process's stdin/stdout and ``command``; returns the exit status.

    ``options`` are :class:`Proxy` keyword arguments.
    """
    return Proxy(command, guard, **options).run()
