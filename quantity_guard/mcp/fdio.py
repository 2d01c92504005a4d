"""Reading a pipe or a socket's file descriptor to its end, the one loop the stdio proxy and the
stdio server share (it imports only the standard library, so either can use it)."""
from __future__ import annotations

import os
from typing import Iterator

__all__ = ["read_chunks"]


def read_chunks(fd: int, size: int = 1 << 16) -> Iterator[bytes]:
    """The bytes read from ``fd``, one ``os.read`` at a time, until end of file. A read
    interrupted by a signal is retried; any other read error (the other side gone, the
    descriptor closed under us) ends the stream as end of file does."""
    while True:
        try:
            chunk = os.read(fd, size)
        except InterruptedError:
            continue
        except OSError:
            return
        if not chunk:
            return
        yield chunk
