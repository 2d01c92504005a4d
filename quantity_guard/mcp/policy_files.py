"""The quantity policy's files: the ``--log`` JSON lines (rotated, 0600, shared by the
policies of one process) and the ``--manifest`` written atomically."""
from __future__ import annotations

import json
import threading
from datetime import datetime, timezone

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # annotations only: they are never evaluated at run time
    from typing import Any

__all__ = ["LogFile", "write_atomically", "log_record", "LOG_MAX_BYTES", "LOG_BACKUPS"]


def utc_now() -> str:
    """The time of a log record: ISO 8601 in UTC, to the millisecond ('2026-12-07T18:32:47.123Z')."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


LOG_MAX_BYTES = 64 << 20
"""``--log-max-bytes``' default: the log is rotated before it would pass 64 MiB."""


LOG_BACKUPS = 4
"""``--log-backups``' default: rotated logs kept (``FILE.1`` newest ... ``FILE.4``)."""


class LogFile:
    """``--log FILE``: JSON lines appended, the file readable by its owner only (0600; an
    existing file is made so too). Before a record would take it past ``max_bytes`` (0: never)
    it is rotated: ``FILE.1`` becomes ``FILE.2`` and so on up to ``FILE.<backups>`` (the oldest
    beyond that is deleted), ``FILE`` becomes ``FILE.1`` and a new ``FILE`` is begun, so the log
    takes at most ``(backups + 1) * max_bytes`` bytes (a record larger than ``max_bytes`` is
    written whole, alone in its file). A record is never split between two files.

    One object per file and process, shared by the policies that log to it (``--listen``: one
    per session) through :meth:`acquire` and :meth:`close`, so that they rotate it together.
    Several processes must not share one log file (their rotations would race)."""

    _open: "dict[str, LogFile]" = {}
    _registry = threading.Lock()

    def __init__(self, path: str, max_bytes: int, backups: int) -> None:
        self.path, self.max_bytes, self.backups = path, max_bytes, backups
        self.users = 0
        self.lock = threading.Lock()
        self.fd = self._open_file()
        import os
        self.size = os.fstat(self.fd).st_size

    @classmethod
    def acquire(cls, path: str, max_bytes: int = LOG_MAX_BYTES, backups: int = LOG_BACKUPS) -> "LogFile":
        import os
        key = os.path.abspath(path)
        with cls._registry:
            log = cls._open.get(key)
            if log is None:
                log = cls._open[key] = cls(key, max_bytes, backups)
            log.users += 1
            return log

    def _open_file(self) -> int:
        import os
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.fchmod(fd, 0o600)
        except OSError:
            pass
        return fd

    failed: "set[str]" = set()  # the logs a record could not be written to (exit status 6)

    def write(self, text: str) -> None:
        """Append one record whole. When it cannot be written (a full disk) what was written of
        it is cut off again, the failure is reported once on stderr and the record is dropped:
        the call it records goes on (the proxy then exits 6)."""
        import os
        data = text.encode("utf-8")
        with self.lock:
            try:
                if self.max_bytes and self.size and self.size + len(data) > self.max_bytes:
                    self._rotate()
                view = memoryview(data)
                while view:
                    view = view[os.write(self.fd, view):]
                self.size += len(data)
            except OSError as exc:
                try:  # nothing torn is left: the file ends after the last whole record
                    os.ftruncate(self.fd, self.size)
                except OSError:
                    pass
                if self.path not in LogFile.failed:
                    LogFile.failed.add(self.path)
                    import sys
                    sys.stderr.write(f"quantity-guard-mcp: the --log file {self.path!r} could not be "
                                     f"written ({exc.strerror or exc}); guarded calls go on, their "
                                     "records are dropped until it can be (reported once; the "
                                     "proxy will exit 6)\n")
                    sys.stderr.flush()

    def _rotate(self) -> None:
        import os
        os.close(self.fd)
        try:
            if self.backups == 0:
                os.unlink(self.path)
            else:
                for n in range(self.backups, 0, -1):
                    older = f"{self.path}.{n - 1}" if n > 1 else self.path
                    if os.path.exists(older):
                        os.replace(older, f"{self.path}.{n}")
        finally:
            self.fd = self._open_file()
            self.size = os.fstat(self.fd).st_size

    def close(self) -> None:
        import os
        with LogFile._registry:
            self.users -= 1
            if self.users > 0:
                return
            if LogFile._open.get(self.path) is self:
                del LogFile._open[self.path]
        os.close(self.fd)


def write_atomically(path: str, text: str) -> None:
    """Write ``path`` whole or not at all: a private (0600) temporary file beside it, flushed
    and fsynced, then renamed over it. A failure (a full disk) raises ``OSError`` and leaves the
    previous file as it was."""
    import os
    import tempfile
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dirfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dirfd)
        finally:
            os.close(dirfd)
    except OSError:
        pass


def guarded_only(arguments, guarded) -> dict:
    """The guarded parameters of ``arguments`` (what a log may hold), not the rest."""
    if not isinstance(arguments, dict):
        return {}
    return {k: v for k, v in arguments.items() if k in guarded}


def log_record(kind: str, tool: str, arguments: "Any", guarded: "Any", **extra: "Any") -> str:
    """One ``--log`` line: the time, the event, the tool and its guarded arguments (the other
    arguments by name only), and ``extra`` (a ``violation`` as its dict)."""
    shown = guarded_only(arguments, guarded)
    record = {"time": utc_now(), "event": kind, "tool": tool, "arguments": shown}
    if isinstance(extra.get("forwarded"), dict):
        extra["forwarded"] = guarded_only(extra["forwarded"], guarded)
    if isinstance(arguments, dict) and len(shown) != len(arguments):
        record["other_arguments"] = sorted(k for k in arguments if k not in guarded)
    violation = extra.pop("violation", None)
    if violation is not None:
        record["violation"] = violation.as_dict()
    record.update(extra)
    return json.dumps(record, default=str) + "\n"
