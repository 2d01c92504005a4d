"""The proxy's diagnostics as ``logging`` records, and their way to stderr.

``quantity-guard-mcp`` logs under ``quantity_guard`` (its own lines under
``quantity_guard.mcp``): refusals at WARNING, its life cycle at INFO, conversions at DEBUG.
``configure(level)`` (the ``--log-level`` option) gives that logger one handler writing
``quantity-guard-mcp: <message>`` lines; while the stdio proxy runs they go through its
non-blocking stderr writer (``route``), so neither the relay nor the upstream ever waits for
this process's stderr. Until ``configure`` is called (the proxy used as a library), ``log``
writes to stderr directly, as the proxy always did.
"""
from __future__ import annotations

import logging
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["LEVELS", "configure", "route", "log", "LOGGER", "log_file_failed"]

PREFIX = "quantity-guard-mcp: "
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
LOGGER = logging.getLogger("quantity_guard.mcp")


class _Handler(logging.Handler):
    """One line per record, ``quantity-guard-mcp: <message>``, to the sink or to stderr."""

    def __init__(self) -> None:
        super().__init__()
        self.sink: "Callable[[bytes], None] | None" = None

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
            if record.exc_info:
                text += "\n" + logging.Formatter().formatException(record.exc_info)
            data = (PREFIX + text.rstrip("\n") + "\n").encode("utf-8", "replace")
            sink = self.sink
            if sink is not None:
                sink(data)
            else:
                _write(data)
        except Exception:  # a diagnostic must never take the proxy down
            self.handleError(record)


_handler: "_Handler | None" = None


def _write(data: bytes) -> None:
    try:
        sys.stderr.write(data.decode("utf-8", "replace"))
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def configure(level: str = "INFO") -> None:
    """Records of ``quantity_guard`` at ``level`` and above to this process's stderr (once)."""
    global _handler
    package = logging.getLogger("quantity_guard")
    if _handler is None:
        _handler = _Handler()
        package.addHandler(_handler)
        package.propagate = False  # the proxy's own stderr lines, not the root logger's
    package.setLevel(level.upper())
    from .. import observe
    observe.refresh()  # conversions at DEBUG are looked for again at the next guarded call


def route(sink: "Callable[[bytes], None] | None") -> None:
    """Send the lines to ``sink`` (a stderr writer) instead of stderr; None: back to stderr."""
    if _handler is not None:
        _handler.sink = sink


def log(text: "str | bytes", level: int = logging.WARNING) -> bool:
    """``text`` as a record of ``quantity_guard.mcp``; False (nothing done) when logging was
    not configured, for the caller to write the line itself."""
    if _handler is None:
        return False
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    LOGGER.log(level, text.rstrip("\n"))
    return True


def log_file_failed() -> bool:
    """Whether a ``--log`` record could not be written (reported when it happened; the proxy
    then exits 6). Only the policy module, if it was loaded, can have written one."""
    module = sys.modules.get(__name__.rpartition(".")[0] + ".policy")
    return bool(getattr(getattr(module, "LogFile", None), "failed", None))
