"""The shell core's upstream child and writer, shared by the stdio proxy, the stdio-to-HTTP
bridge and the listener's sessions: a child is stopped by its stdin closing, then SIGTERM,
then SIGKILL; a writer keeps a client's bytes in order and bounds a stalled stderr."""
from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import time

from quantity_guard.mcp.child import (
    STOP_STEPS,
    ThreadWriter,
    exit_reason,
    spawn,
    spawn_async,
    stop_async,
    stop_process_group,
)

_EXIT_ON_EOF = "import sys; sys.stdin.read()"
_IGNORE_TERM = ("import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                "print('ready', flush=True); sys.stdin.read(); time.sleep(60)")


def test_the_stop_steps_are_sigterm_then_sigkill():
    assert [sig for sig, _ in STOP_STEPS] == [signal.SIGTERM, signal.SIGKILL]


def test_a_child_that_exits_on_eof_is_not_signalled():
    async def run() -> int | None:
        proc = await spawn_async([sys.executable, "-c", _EXIT_ON_EOF], lambda data: None)
        started = time.monotonic()
        await stop_async(proc, eof_grace=5.0)
        assert time.monotonic() - started < 2.0
        return proc.returncode

    assert asyncio.run(run()) == 0


def test_a_child_that_ignores_sigterm_is_killed_and_its_output_ends():
    async def run() -> tuple[int | None, list[bytes]]:
        got: list[bytes] = []
        ready = asyncio.Event()

        def on_output(data: bytes) -> None:
            got.append(data)
            ready.set()

        proc = await spawn_async([sys.executable, "-c", _IGNORE_TERM], on_output)
        await asyncio.wait_for(ready.wait(), 10)
        await stop_async(proc, eof_grace=0.1, term_grace=0.2, kill_grace=2.0)
        await asyncio.sleep(0)  # its stdout's end is told in the next loop turn
        return proc.returncode, got

    code, got = asyncio.run(run())
    assert code == -signal.SIGKILL
    assert b"".join(got) == b"ready\n" and got[-1] == b""


def test_a_threaded_child_that_ignores_sigterm_is_killed():
    proc = spawn([sys.executable, "-c", _IGNORE_TERM])
    try:
        assert proc.stdout.readline() == b"ready\n"
        proc.stdin.close()
        stop_process_group(proc, term_grace=0.2, kill_grace=2.0)
        assert proc.wait(2.0) == -signal.SIGKILL
    finally:
        proc.stdout.close()
        proc.stderr.close()


def test_exit_reasons_name_the_code_or_the_signal():
    assert exit_reason("it exited", None) == "it exited"
    assert exit_reason("it exited", 3) == "it exited (exit code 3)"
    assert exit_reason("it exited", -signal.SIGTERM) == "it exited (killed by SIGTERM)"
    assert exit_reason("it exited", -200) == "it exited (killed by signal 200)"


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def test_a_writer_keeps_every_message_in_order():
    r, w = os.pipe()
    writer = ThreadWriter(w, limit=1 << 10, name="test-writer")
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(_read_all(r)))
    reader.start()
    lines = [b'{"n":%d}\n' % i for i in range(2000)]  # far beyond the limit: put waits
    for line in lines:
        writer.put(line)
    writer.close(5.0)
    os.close(w)
    reader.join(5.0)
    os.close(r)
    assert got == [b"".join(lines)]
    assert not writer.dead


def test_a_writer_whose_reader_is_gone_is_dead_and_put_returns():
    r, w = os.pipe()
    os.close(r)
    writer = ThreadWriter(w, limit=16, name="test-writer")
    writer.put(b"x" * 64)
    deadline = time.monotonic() + 5.0
    while not writer.dead and time.monotonic() < deadline:
        time.sleep(0.01)
    assert writer.dead
    writer.put(b"y" * 64)  # returns at once: nothing waits on a dead writer
    writer.close(1.0)
    os.close(w)


def test_a_lossy_writer_drops_the_oldest_and_says_how_much():
    r, w = os.pipe()
    os.set_blocking(w, True)
    fill = b"f" * 65536  # the pipe is full: the writer thread blocks on its first write
    os.write(w, fill)
    writer = ThreadWriter(w, limit=100, name="test-writer", lossy=True,
                          dropped=lambda n: b"dropped %d\n" % n)
    writer.put(b"first\n")
    time.sleep(0.2)  # taken by the thread, which now waits on the full pipe
    for i in range(30):
        writer.put(b"line %02d\n" % i)  # 8 bytes each: the queue keeps the last 12
    assert _read_exactly(r, len(fill)) == fill
    writer.close(5.0)
    os.close(w)
    rest = _read_all(r)
    os.close(r)
    kept = b"".join(b"line %02d\n" % i for i in range(18, 30))
    assert rest == b"first\n" + b"dropped 144\n" + kept


def _read_exactly(fd: int, size: int) -> bytes:
    data = b""
    while len(data) < size:
        data += os.read(fd, size - len(data))
    return data


def test_a_loop_child_echoes_what_it_is_written_and_drops_writes_once_stopped():
    echo = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line.upper()); sys.stdout.flush()"

    async def run() -> tuple[bytes, int | None]:
        got: list[bytes] = []
        two = asyncio.Event()

        def on_output(data: bytes) -> None:
            got.append(data)
            if b"".join(got).count(b"\n") == 2:
                two.set()

        child = await spawn_async([sys.executable, "-c", echo], on_output)
        child.write(b"one\n")
        child.write(b"two\n")
        await asyncio.wait_for(two.wait(), 10)
        await stop_async(child, eof_grace=5.0)
        child.write(b"three\n")  # its stdin is closed: dropped, no error
        await asyncio.sleep(0)
        return b"".join(got), child.returncode

    out, code = asyncio.run(run())
    assert out == b"ONE\nTWO\n" and code == 0
