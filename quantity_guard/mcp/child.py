"""What every shell does with the processes and descriptors around the guard, written once:
the upstream child (spawned in its own session and process group, with pipes; stopped by
:data:`STOP_STEPS`; its exit told by :func:`exit_reason`) and :class:`ThreadWriter`, the
queue in front of a descriptor that a thread of its own writes.

``stdio.Proxy`` and ``--check`` run the child from threads (:func:`spawn`,
:func:`stop_process_group`); a listener's session runs it on the event loop
(:func:`spawn_async`, :func:`stop_async`). Both stop it the same way: its stdin closed, a
moment to exit on its own, then each row of :data:`STOP_STEPS` sent to its process group
until it has gone.
"""
from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # asyncio is imported on use: a stdio proxy never loads it
    import asyncio

__all__ = ["STOP_STEPS", "LoopChild", "ThreadWriter", "exit_reason", "spawn", "spawn_async", "stop_async",
           "stop_process_group"]

TERM_GRACE = 0.4  # seconds a process group has after SIGTERM before SIGKILL
KILL_GRACE = 0.5  # ... and after SIGKILL, before the shell stops waiting for it
EOF_GRACE = 0.5  # seconds a child has to exit on its own once its stdin is closed

STOP_STEPS: tuple[tuple[signal.Signals, str], ...] = (
    (signal.SIGTERM, "term_grace"),
    (signal.SIGKILL, "kill_grace"),
)
"""How a child's process group is stopped: each signal, then a wait of the named grace."""


def spawn(command: Sequence[str], *, env: dict | None = None, cwd: str | None = None,
          shared_stderr: bool = False) -> subprocess.Popen:
    """Start ``command`` with pipes on its stdin, stdout and stderr (with ``shared_stderr``,
    the shell's own stderr), unbuffered, in a session of its own (so its whole process group
    can be stopped). Raises ``OSError``."""
    return subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=None if shared_stderr else subprocess.PIPE, bufsize=0,
                            start_new_session=True, env=env, cwd=cwd)


class _Output:
    """A child's stdout handed to ``on_output`` in the loop turn that reads it; ``b""`` when
    it ends (or fails). An asyncio read-pipe protocol (its four methods)."""

    def __init__(self, on_output: Callable[[bytes], None]) -> None:
        self._on_output = on_output

    def connection_made(self, transport: object) -> None:
        pass

    def eof_received(self) -> None:
        pass

    def data_received(self, data: bytes) -> None:
        self._on_output(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self._on_output(b"")


class LoopChild:
    """A child of :func:`spawn` run on an event loop (:func:`spawn_async`): its stdin a
    non-blocking write transport, its stdout read straight into ``on_output`` (no reader task
    and no subprocess transport between: a message costs no loop turn beyond its read)."""

    def __init__(self, proc: subprocess.Popen, stdin: asyncio.WriteTransport,
                 stdout: asyncio.ReadTransport) -> None:
        self.proc, self.pid = proc, proc.pid
        self._stdin, self._stdout = stdin, stdout

    @property
    def returncode(self) -> int | None:
        return self.proc.poll()

    def write(self, data: bytes) -> None:
        """Queue ``data`` for the child's stdin (dropped once it is closed or broken)."""
        if not self._stdin.is_closing():
            self._stdin.write(data)

    async def exited(self, timeout: float) -> bool:
        """Whether the child has exited within ``timeout`` seconds (it is reaped if so)."""
        import asyncio
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None:
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.01)
        return True


async def spawn_async(command: Sequence[str], on_output: Callable[[bytes], None]) -> LoopChild:
    """:func:`spawn` for the running event loop: what the child writes on its stdout goes to
    ``on_output`` as it comes (``b""`` when it ends); its stderr is the shell's own. Raises
    ``OSError``."""
    import asyncio
    loop = asyncio.get_running_loop()
    proc = spawn(command, shared_stderr=True)  # fork and exec, as asyncio's own does
    stdin, _ = await loop.connect_write_pipe(asyncio.Protocol, proc.stdin)
    stdout, _ = await loop.connect_read_pipe(lambda: _Output(on_output), proc.stdout)  # type: ignore[type-var]  # duck-typed: see _Output
    return LoopChild(proc, stdin, stdout)


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


def _signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to process group ``pgid``; False when there is none to send it to."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def stop_process_group(proc: subprocess.Popen, exited: threading.Event | None = None, *,
                       term_grace: float = TERM_GRACE, kill_grace: float = KILL_GRACE) -> None:
    """Stop the process group led by ``proc`` by :data:`STOP_STEPS`, from a thread.

    Returns when the leader has exited (``exited`` set, when given) and the group is empty,
    or the last grace has passed.
    """
    pgid = proc.pid
    graces = {"term_grace": term_grace, "kill_grace": kill_grace}

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
    for sig, grace in STOP_STEPS:
        _signal_group(pgid, sig)
        if settled(time.monotonic() + graces[grace]):
            return


async def stop_async(child: LoopChild, *, eof_grace: float = EOF_GRACE,
                     term_grace: float = TERM_GRACE, kill_grace: float = KILL_GRACE) -> None:
    """Stop a child of :func:`spawn_async`: its stdin closed, ``eof_grace`` seconds to exit,
    then :data:`STOP_STEPS` to its process group until the leader has exited; then its stdout
    is closed (a grandchild may still hold the pipe)."""
    child._stdin.close()
    graces = {"eof": eof_grace, "term_grace": term_grace, "kill_grace": kill_grace}
    for sig, grace in ((None, "eof"), *STOP_STEPS):
        if sig is not None and not _signal_group(child.pid, sig):
            break
        if await child.exited(graces[grace]):
            break
    child._stdout.close()


def exit_reason(what: str, returncode: int | None) -> str:
    """``what`` happened to the child, with how it ended when it has: ``(exit code N)`` or
    ``(killed by SIGNAME)``."""
    if returncode is None:
        return what
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"{what} (killed by {name})"
    return f"{what} (exit code {returncode})"


class ThreadWriter:
    """Bytes for descriptor ``fd``, written in order by a thread of their own, so that whoever
    puts them never waits on a slow reader.

    ``lossy`` (diagnostics): beyond ``limit`` queued bytes the oldest are dropped and the next
    write begins with ``dropped(count)``; a failed write is skipped. Otherwise (a client's
    messages): beyond ``limit`` bytes not yet written :meth:`put` waits for the reader, and a
    failed write ends the writer (:attr:`dead`), discarding what it held.
    """

    def __init__(self, fd: int, *, limit: int, name: str, lossy: bool = False,
                 dropped: Callable[[int], bytes] | None = None) -> None:
        self.fd = fd
        self.limit = limit
        self.lossy = lossy
        self.dead = False
        self._dropped_line = dropped
        self._queue: deque[bytes] = deque()
        self._queued = 0  # bytes in the queue
        self._unwritten = 0  # ... and in the write under way
        self._dropped = 0
        self._closed = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def put(self, data: bytes) -> None:
        with self._cond:
            if not self.lossy:
                while self._unwritten > self.limit and not self.dead:
                    self._cond.wait(0.5)
            if self.dead or self._closed and self.lossy:
                return
            self._queue.append(data)
            self._queued += len(data)
            self._unwritten += len(data)
            while self.lossy and self._queued > self.limit and len(self._queue) > 1:
                old = len(self._queue.popleft())
                self._queued -= old
                self._unwritten -= old
                self._dropped += old
            self._cond.notify_all()

    def _take(self) -> tuple[bytes, int] | None:
        """What to write next, and how many of its bytes were put."""
        with self._cond:
            while not self._queue and not self._closed:
                self._cond.wait()
            if not self._queue:
                return None
            batch = b"".join(self._queue)
            self._queue.clear()
            self._queued = 0
            dropped, self._dropped = self._dropped, 0
        if dropped and self._dropped_line is not None:
            return self._dropped_line(dropped) + batch, len(batch)
        return batch, len(batch)

    def _run(self) -> None:
        while True:
            taken = self._take()
            if taken is None:
                return
            batch, counted = taken
            view = memoryview(batch)
            failed = False
            try:
                while view:
                    view = view[os.write(self.fd, view):]
            except OSError:
                failed = not self.lossy
            with self._cond:
                if failed:
                    self.dead = True
                    self._queue.clear()
                    self._queued = 0
                self._unwritten = 0 if failed else max(0, self._unwritten - counted)
                self._cond.notify_all()

    def close(self, timeout: float) -> None:
        """Write what is queued (at most ``timeout`` seconds), then end the thread."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout)
