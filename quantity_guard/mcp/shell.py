"""What every shell around the guard shares: where the guard's outputs go, the signals that
stop a shell and the exit statuses it ends with.

A shell (``stdio.Proxy``: pipes both sides; ``http.upstream.StdioBridge``: a client on pipes,
a remote upstream; ``http.listen.Listener``: HTTP clients, an upstream per session) is a
:class:`Transport` of the guard's outputs: :func:`route` hands each output to its side, in
order. Every shell stops on one of :data:`STOP_SIGNALS` and exits with :func:`signal_status`
of it, or with one of the ``EXIT_*`` statuses (``docs/cli.md``, "Exit statuses"). The upstream
child (spawned, read, stopped) and the threaded write queue are :mod:`.child`'s, the same for
every shell.
"""
from __future__ import annotations

import signal
from typing import Protocol

from .state import C2S, LOG, S2C

__all__ = ["Transport", "route", "STOP_SIGNALS", "signal_status", "EXIT_OK",
           "EXIT_UPSTREAM_GONE", "EXIT_START_FAILED", "EXIT_RECORD_LOST"]

EXIT_OK = 0
EXIT_UPSTREAM_GONE = 1  # the upstream exited or closed its output first
EXIT_START_FAILED = 4  # the upstream could not be started, or the port could not be bound
EXIT_RECORD_LOST = 6  # a manifest or a log record could not be written

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
"""The signals on which a shell answers what is pending, ends its upstream and exits."""


def signal_status(signum: int) -> int:
    """The exit status of a shell stopped by signal ``signum``: 128 + its number, as a shell
    reports a process killed by it."""
    return 128 + signum


class Transport(Protocol):
    """The two sides of a shell, as the guard's outputs reach them."""

    def to_client(self, data: bytes) -> None: ...

    def to_upstream(self, data: bytes) -> None: ...

    def log(self, text: str | bytes) -> None: ...


def route(outputs: list[tuple[str, bytes]], transport: Transport) -> None:
    """Hand each of the guard's outputs to its side of ``transport``, in order: ``S2C`` to the
    client, ``C2S`` to the upstream, ``LOG`` to the shell's log."""
    for direction, data in outputs:
        if direction == S2C:
            transport.to_client(data)
        elif direction == C2S:
            transport.to_upstream(data)
        elif direction == LOG:
            transport.log(data)
