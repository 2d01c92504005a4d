"""The stdio shell around :class:`~quantity_guard.mcp.guard.Guard`: pipes, threads, the upstream
child process and signals. Everything here is I/O; every protocol decision is the guard's.

Threads
    ``relay`` moves every message: one ``poll`` loop over the client's stdin, the upstream's
    stdout and the write ends with bytes waiting, reading whatever is ready (several lines
    at once are fed to the guard in one go) and writing without blocking, so no thread is
    woken per message. ``upstream-stderr`` drains the upstream's stderr, ``stderr-writer``
    writes all diagnostics, ``upstream-wait`` reaps the child; the thread that called
    :meth:`Proxy.run` handles signals and shutdown.

Flow control
    Output that a peer does not read at once is queued, never dropped: while more than
    ``_OUT_HIGH`` bytes wait for the client, the upstream's stdout is not read (the upstream
    blocks writing, as it would on a direct pipe); while more than ``_OUT_HIGH`` bytes wait for
    the upstream, the client's stdin is not read. A client that stops reading still has its
    requests and cancellations forwarded, until ``_CLIENT_HOLD`` bytes of answers wait for it.
    Writes to the upstream, and to a client on a pipe or socket, never block (the proxy sets
    ``O_NONBLOCK`` on its own end of the client's stdout pipe, and restores it at exit); a
    client on a terminal or file is written with blocking writes.

Lines
    are split on ``0x0A`` only and may be of any length (tested with 64 MiB).

stderr
    Upstream stderr is drained continuously and copied to ours, line by line. Diagnostics are
    queued to a writer thread, so neither pump nor the upstream ever waits for our stderr; if it
    stalls, at most 4 MiB is queued and older output is dropped (counted).

Shutdown
    * Client EOF: the requests still pending are left to the upstream for up to
      ``drain_timeout`` seconds (``--drain-timeout``; its stdin stays open meanwhile, since
      servers such as the official SDK's abandon the requests in flight when their input
      ends), then the upstream's stdin is closed; if it has not exited after ``eof_grace``
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

import logging
import os
import select
import signal
import stat
import subprocess
import sys
import threading
import time
from collections import deque
from typing import Any, Callable, Sequence

from . import logs
from .child import ThreadWriter, exit_reason, spawn, stop_process_group
from .guard import C2S, S2C, Guard
from .fdio import read_chunks
from .jsonrpc import LineBuffer
from .shell import (EXIT_OK, EXIT_START_FAILED, EXIT_UPSTREAM_GONE, STOP_SIGNALS, route,
                    signal_status)

__all__ = ["Proxy", "run_proxy", "protect_stdio", "restore_stdio", "EXIT_OK", "EXIT_UPSTREAM_GONE",
           "EXIT_START_FAILED", "stop_process_group"]

_CHUNK = 1 << 16  # a pipe holds 64 KiB; larger reads only cost an mmap per call
_OUT_HIGH = 1 << 20  # bytes queued for a peer beyond which the other side is not read
_CLIENT_HOLD = 16 << 20  # bytes queued for a client that is not reading: stop reading it too
_STDERR_QUEUE_LIMIT = 4 << 20
_PREFIX = b"quantity-guard-mcp: "


def _dropped_notice(count: int) -> bytes:
    return _PREFIX + f"stderr stalled: {count} bytes dropped\n".encode()


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


class _Outbox:
    """Bytes waiting for one peer, written as it reads (in order, never dropped while it
    reads). ``fd`` is non-blocking for a pipe or socket; a blocking one is written whole."""

    __slots__ = ("fd", "chunks", "size", "failed")

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.chunks: deque[bytes | memoryview] = deque()
        self.size = 0
        self.failed = False  # the peer stopped reading for good: what is queued is discarded

    def put(self, data: bytes) -> None:
        if not self.failed:
            self.chunks.append(data)
            self.size += len(data)

    def flush(self) -> bool:
        """Write what the peer takes now; True when nothing is left. ``OSError`` (other than
        would-block) empties the box, marks it failed and is raised."""
        chunks = self.chunks
        while chunks:
            if len(chunks) > 1 and self.size <= _CHUNK:
                data: bytes | memoryview = b"".join(chunks)  # lines ready together: one write
                chunks.clear()
                chunks.append(data)
            else:
                data = chunks[0]
            try:
                n = os.write(self.fd, data)
            except (BlockingIOError, InterruptedError):
                return False
            except OSError:
                self.failed = True
                chunks.clear()
                self.size = 0
                raise
            self.size -= n
            if n == len(data):
                chunks.popleft()
            else:
                chunks[0] = memoryview(data)[n:]
        return True


def _nonblocking(fd: int) -> int | None:
    """Make ``fd`` non-blocking when it is a pipe or a socket (whose file description the
    proxy alone uses); returns the flags to restore, or None when left as it was (a terminal
    or a file, written with blocking writes)."""
    try:
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
            return None
        import fcntl
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        if not flags & os.O_NONBLOCK:
            fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)
        return flags
    except (OSError, ImportError, ValueError):
        return None


def _restore_flags(fd: int, flags: int | None) -> None:
    if flags is None:
        return
    try:
        import fcntl
        fcntl.fcntl(fd, fcntl.F_SETFL, flags)
    except (OSError, ValueError):
        pass


def _register(poller: Any, registered: dict[int, int],
              wanted: tuple[tuple[int, int], ...]) -> dict[int, int]:
    """Make ``poller`` wait for ``wanted`` ((fd, events) pairs; no events or a negative fd:
    skipped; the events of an fd named twice are merged), changing only what differs from
    ``registered``; returns what is registered now."""
    want: dict[int, int] = {}
    for fd, events in wanted:
        if events and fd >= 0:
            want[fd] = want.get(fd, 0) | events
    for fd in registered.keys() - want.keys():
        poller.unregister(fd)
    for fd, events in want.items():
        if registered.get(fd) != events:
            poller.register(fd, events)  # registers or modifies
    return want


class Proxy:
    """One proxied session: an upstream child process and the pumps around it.

    ``Proxy(command, guard).run()`` returns the exit status. ``client_in``/``client_out`` are
    file descriptors of the client's side (default 0 and 1), ``err_fd`` the diagnostics output.
    """

    def __init__(self, command: Sequence[str], guard: Guard | None = None, *,
                 client_in: int = 0, client_out: int = 1, err_fd: int = 2,
                 eof_grace: float = 0.5, term_grace: float = 0.4, drain_timeout: float = 30.0,
                 upstream_timeout: float | None = None,
                 env: dict | None = None, cwd: str | None = None,
                 handle_signals: bool = True, watch_parent: bool = True) -> None:
        if not command:
            raise ValueError("no upstream command")
        self.command = list(command)
        self.guard = guard if guard is not None else Guard()
        self.guard.carry_values = False  # its lines are written as bytes: nothing reads them
        self.client_in = client_in
        self.client_out = client_out
        self.eof_grace = eof_grace
        self.term_grace = term_grace
        self.drain_timeout = drain_timeout
        self.upstream_timeout = upstream_timeout  # per request, without an answer or progress
        self.env = env
        self.cwd = cwd
        self.handle_signals = handle_signals
        self.watch_parent = watch_parent
        self.proc: subprocess.Popen | None = None
        self._stderr = ThreadWriter(err_fd, limit=_STDERR_QUEUE_LIMIT, name="stderr-writer",
                                    lossy=True, dropped=_dropped_notice)
        # One lock for the guard and the two outboxes: the relay thread holds it while it
        # feeds a batch of lines and writes; the shutdown path takes it for its own answers.
        self._lock = threading.Lock()
        self._to_client = _Outbox(client_out)
        self._to_upstream = _Outbox(-1)
        self._client_flags: int | None = None
        self._close_upstream = False  # asked for: close the upstream's stdin once drained
        self._poke_r, self._poke_w = -1, -1  # wakes the relay's poll from another thread
        self._stopped = False
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

    def log(self, text: str | bytes, level: int = logging.WARNING) -> None:
        """A diagnostic: a record of the ``quantity_guard.mcp`` logger where the command line
        configured logging (``--log-level``; the lines still go through this proxy's stderr
        writer), else a line written to it directly."""
        if logs.log(text, level):
            return
        data = text if isinstance(text, bytes) else text.encode("utf-8", "replace")
        self._stderr.put(_PREFIX + data.rstrip(b"\n") + b"\n")

    # ---------------------------------------------------------------- writers

    def _poke(self) -> None:
        """Wake the relay's poll (from another thread) to write or close something."""
        try:
            os.write(self._poke_w, b"x")
        except OSError:
            pass

    def _route(self, outputs: list[tuple[str, bytes]]) -> None:
        route(outputs, self)  # queued (the caller holds ``_lock``)

    def to_client(self, data: bytes) -> None:
        self._to_client.put(data)

    def to_upstream(self, data: bytes) -> None:
        if self._to_upstream.fd < 0 and not self._to_upstream.failed:
            self._upstream_gone_for_writes()
        self._to_upstream.put(data)

    def _upstream_gone_for_writes(self) -> None:
        box = self._to_upstream
        box.failed = True
        box.chunks.clear()
        box.size = 0
        self.log("the upstream is not reading its stdin any more")

    def _flush(self) -> None:
        """Write what each peer takes now (the caller holds ``_lock``)."""
        box = self._to_client
        if box.chunks:
            try:
                box.flush()
            except OSError:
                if not self._client_gone.is_set():
                    self._client_gone.set()
                    self._wake.set()
        box = self._to_upstream
        if box.chunks and box.fd >= 0:
            try:
                box.flush()
            except OSError:
                box.failed = False  # logged once, then discarded like any later output
                self._upstream_gone_for_writes()
        if self._close_upstream and box.fd >= 0 and not box.chunks:
            self._do_close_upstream_stdin()

    def _close_upstream_stdin(self) -> None:
        """Close the upstream's stdin now, dropping what it has not read."""
        with self._lock:
            box = self._to_upstream
            box.chunks.clear()
            box.size = 0
            self._close_upstream = True
            self._do_close_upstream_stdin()
        self._poke()

    def _do_close_upstream_stdin(self) -> None:
        # the caller holds _lock; the relay re-reads the descriptors it polls at each turn
        proc = self.proc
        self._to_upstream.fd = -1
        self._upstream_in = -1
        if proc is not None and proc.stdin is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass

    def _restore_client_flags(self) -> None:
        # the caller holds _lock (no write is under way)
        _restore_flags(self.client_out, self._client_flags)
        self._client_flags = None

    def _flush_client(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) until what is queued for the client is written."""
        deadline = time.monotonic() + timeout
        while self._to_client.chunks and not self._client_gone.is_set() and \
                time.monotonic() < deadline and not self._stopped:
            time.sleep(0.002)

    # ---------------------------------------------------------------- the relay

    def _relay(self) -> None:
        """The one loop that moves messages both ways (see the module docstring)."""
        try:
            self._relay_loop()
        except BaseException as exc:  # a bug here must stop the proxy, not hang it
            self.log(f"internal error in the relay: {exc!r}; stopping")
            self._client_eof.set()
            self._upstream_eof.set()
            self._wake.set()
            raise

    def _relay_loop(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        cin, up_out = self.client_in, self.proc.stdout.fileno()
        poke = self._poke_r
        to_client, to_up = self._to_client, self._to_upstream
        receive, lock, route, flush = self.guard.receive, self._lock, self._route, self._flush
        to_upstream = self.to_upstream
        settle, settle_due = self.guard.settle, self.guard.settle_due
        bufs = {cin: (LineBuffer(), C2S), up_out: (LineBuffer(), S2C)}
        client_open = upstream_open = True
        poller = select.poll()
        poller.register(poke, select.POLLIN)
        IN, OUT = select.POLLIN, select.POLLOUT
        registered: dict[int, int] = {}
        steady = (True, True, False, -1)  # both sides open and read, nothing waiting to be written
        state: tuple | None = None
        while not self._stopped:
            # what to wait for: re-registered only when it changes (not per message)
            if to_client.chunks or to_up.chunks or not (client_open and upstream_open):
                now = (client_open and to_up.size < _OUT_HIGH and to_client.size < _CLIENT_HOLD,
                       upstream_open and to_client.size < _OUT_HIGH,
                       bool(to_client.chunks), to_up.fd if to_up.chunks else -1)
            else:
                now = steady
            if now != state:
                state = now
                registered = _register(poller, registered, (
                    (cin, IN if now[0] else 0), (up_out, IN if now[1] else 0),
                    (to_client.fd, OUT if now[2] else 0), (now[3], OUT)))
            try:
                ready = poller.poll()
            except InterruptedError:  # pragma: no cover - retried by Python (PEP 475)
                continue
            with lock:
                for fd, events in ready:
                    side = bufs.get(fd)
                    if side is None or not (events & ~OUT):  # the poke, or writable only
                        if fd == poke:
                            try:
                                os.read(poke, 4096)
                            except OSError:
                                pass
                        continue  # (written below)
                    buf, direction = side
                    if not (client_open if fd == cin else upstream_open):
                        continue
                    try:
                        chunk = os.read(fd, _CHUNK)
                    except (BlockingIOError, InterruptedError):
                        continue
                    except OSError:
                        chunk = b""
                    if chunk:
                        for line in buf.feed(chunk):
                            for side_, data in receive(direction, line):  # route(), inlined
                                if side_ == S2C:
                                    to_client.put(data)
                                elif side_ == C2S:
                                    to_upstream(data)
                                else:
                                    self.log(data)
                        continue
                    tail = buf.flush()  # end of file
                    if tail:
                        route(receive(direction, tail))
                    if direction == C2S:
                        client_open = False
                        self._client_eof.set()  # the upstream's stdin is closed once drained
                    else:
                        upstream_open = False
                        self._upstream_eof.set()
                    self._wake.set()
                if to_client.chunks or to_up.chunks or self._close_upstream:
                    flush()
                # the policy's bookkeeping, now that the answers are written (see Guard.settle)
                if settle_due():
                    route(settle())

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
        self.proc = spawn(self.command, env=self.env, cwd=self.cwd)
        assert self.proc.stdin is not None
        self.log(f"relaying between the client and {self.command[0]!r} (pid {self.proc.pid})",
                 logging.INFO)
        self._upstream_in = self.proc.stdin.fileno()
        self._to_upstream.fd = self._upstream_in
        os.set_blocking(self._upstream_in, False)  # our own pipe: nobody else holds this end
        self._client_flags = _nonblocking(self.client_out)
        self._poke_r, self._poke_w = os.pipe()
        os.set_blocking(self._poke_r, False)
        os.set_blocking(self._poke_w, False)
        self._start_thread(self._wait_upstream, "upstream-wait")
        self._start_thread(self._drain_stderr, "upstream-stderr")
        self._start_thread(self._relay, "relay")

    def run(self) -> int:
        """Start (unless started), serve until one side goes away, stop; returns the exit status."""
        previous: dict[signal.Signals, Any] = {}  # signal -> the handler it had
        if self.handle_signals and threading.current_thread() is threading.main_thread():
            for sig in STOP_SIGNALS:
                try:
                    previous[sig] = signal.signal(sig, self._on_signal)
                except (OSError, ValueError):
                    pass
        logs.route(self._stderr.put)
        try:
            if self.proc is None:
                try:
                    self.start()
                except OSError as exc:
                    self.log(f"cannot start the upstream {self.command[0]!r}: {exc.strerror or exc}",
                             logging.ERROR)
                    return EXIT_START_FAILED
            code = self._serve()
            self.log(f"stopped (exit status {code})", logging.INFO)
            return code
        finally:
            if self.proc is not None:
                self._flush_client(1.0)
                self._stopped = True
                self._poke()
                with self._lock:
                    self._restore_client_flags()
            for sig, handler in previous.items():
                try:
                    signal.signal(sig, handler)
                except (OSError, ValueError, TypeError):
                    pass
            logs.route(None)
            self._stderr.close(0.3)

    def _expire(self) -> None:
        """Answer (and cancel upstream) the requests past ``upstream_timeout``."""
        if self.upstream_timeout is None:
            return
        with self._lock:
            outputs = self.guard.expire(self.upstream_timeout)
            if outputs:
                self._route(outputs)
                self._flush()
        if outputs:
            self._poke()

    def _serve(self) -> int:
        assert self.proc is not None
        parent = self._parent
        while True:
            self._wake.wait(0.25)
            self._wake.clear()
            self._expire()
            if self._signal is not None:
                name = signal.Signals(self._signal).name
                self.log(f"received {name}; answering pending requests and stopping the upstream",
                         logging.INFO)
                self._answer_pending(f"quantity-guard-mcp received {name} and stopped the "
                                     "upstream MCP server")
                self._stop_upstream(close_stdin=True)
                return signal_status(self._signal)
            if self.watch_parent and os.getppid() != parent:
                self.log("the client process went away; stopping the upstream", logging.INFO)
                self._answer_pending("the client process went away; quantity-guard-mcp stopped "
                                     "the upstream MCP server")
                self._stop_upstream(close_stdin=True)
                return signal_status(signal.SIGHUP)
            if self._client_eof.is_set() or self._client_gone.is_set():
                return self._after_client_eof()
            if self._exited.is_set() or self._upstream_eof.is_set():
                return self._after_upstream_gone()

    def _answer_pending(self, reason: str) -> None:
        """Answer every request still in flight with a JSON-RPC error (the guard closes, so
        anything the upstream still writes is dropped); done before the upstream is stopped, so
        the client hears at once."""
        count = self._close_guard(reason)
        if count:
            self.log(f"answered {count} pending request(s) with an error")

    def _close_guard(self, reason: str) -> int:
        """``guard.upstream_closed``: its answers are queued and written; returns how many."""
        with self._lock:
            outputs = self.guard.upstream_closed(reason)
            self._route(outputs)
            self._flush()
            left = bool(self._to_client.chunks)
        if left:
            self._poke()
        return len(outputs)

    def _stop_upstream(self, close_stdin: bool) -> None:
        proc = self.proc
        assert proc is not None
        if close_stdin:
            self._close_upstream_stdin()
        stop_process_group(proc, self._exited, term_grace=self.term_grace)

    def _finish_output(self, timeout: float) -> None:
        """Let the upstream reader forward what is left (bounded: a grandchild may hold the pipe)."""
        self._upstream_eof.wait(timeout)

    def _drain(self) -> bool:
        """After the client's EOF: wait (at most ``drain_timeout`` seconds) until the upstream
        has answered every pending request, it exits, the client's stdout goes or a signal
        comes. True when nothing is pending any more."""
        deadline = time.monotonic() + self.drain_timeout
        while True:
            with self._lock:
                left = self.guard.awaited_count()
            if not left:
                return True
            if self._exited.is_set() or self._upstream_eof.is_set() or self._client_gone.is_set() \
                    or self._signal is not None or time.monotonic() >= deadline:
                return False
            self._wake.wait(min(0.05, max(0.0, deadline - time.monotonic())))
            self._wake.clear()
            self._expire()

    def _after_client_eof(self) -> int:
        # Leave the pending requests to the upstream (bounded), then close its stdin once what
        # the client sent is written; give it a moment to exit on its own, then stop its
        # process group, still forwarding anything it writes meanwhile.
        drained = self._drain()
        if not drained and self._signal is not None:
            name = signal.Signals(self._signal).name
            self._answer_pending(f"quantity-guard-mcp received {name} and stopped the upstream MCP server")
            self._stop_upstream(close_stdin=True)
            return signal_status(self._signal)
        if not drained and not (self._exited.is_set() or self._upstream_eof.is_set()
                                or self._client_gone.is_set()):
            with self._lock:
                left = self.guard.awaited_count()
            self.log(f"the client's input ended; {left} request(s) still unanswered after "
                     f"{self.drain_timeout:g} s (--drain-timeout); stopping the upstream")
        with self._lock:
            self._close_upstream = True
        self._poke()
        self._exited.wait(self.eof_grace)
        self._stop_upstream(close_stdin=False)
        self._finish_output(0.3)
        reason = "the upstream MCP server stopped"
        if not drained:
            reason = (f"the client's input ended and the upstream MCP server did not answer "
                      f"within {self.drain_timeout:g} s (--drain-timeout); it was stopped")
        self._close_guard(self._exit_reason(reason))
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
        count = self._close_guard(reason)
        self.log(f"{reason}; answered {count} pending request(s) with an error")
        self._flush_client(1.0)
        with self._lock:
            # Close our end of the client's pipe (the client sees EOF) but keep the descriptor
            # number valid, so that no later open() can take it over.
            box = self._to_client
            box.failed = True
            box.chunks.clear()
            box.size = 0
            self._restore_client_flags()
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
        return exit_reason(what, self.proc.returncode if self.proc is not None else None)


def run_proxy(command: Sequence[str], guard: Guard | None = None, **options) -> int:
    """Run a proxy between this process's stdin/stdout and ``command``; returns the exit status.

    ``options`` are :class:`Proxy` keyword arguments.
    """
    return Proxy(command, guard, **options).run()
