"""Results as JSONL: one record per run, appended as each run finishes.

A process killed mid-write can leave a torn last line. Reading skips it (and says so), and the
next append starts on a fresh line, so ``--resume`` re-runs exactly the runs without a record.
"""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path


def read(path, *, on_torn=None) -> list[dict]:
    """Every complete record in ``path`` (a missing file has none). Lines that are not JSON
    objects (a torn final write) are skipped; ``on_torn(lineno, text)`` hears about each."""
    p = Path(path)
    if not p.exists():
        return []
    out = []
    with p.open("r", encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                record = json.loads(line)
            except ValueError:
                if on_torn is not None:
                    on_torn(lineno, line)
                continue
            if isinstance(record, dict) and "run_id" in record:
                out.append(record)
            elif on_torn is not None:
                on_torn(lineno, line)
    return out


def read_many(paths, *, on_torn=None) -> list[dict]:
    """Records from several files; a run recorded more than once counts once (the last
    record wins, so a resumed or re-graded run replaces its earlier record)."""
    by_id: dict[str, dict] = {}
    for path in paths:
        for record in read(path, on_torn=on_torn):
            by_id.pop(record["run_id"], None)
            by_id[record["run_id"]] = record
    return list(by_id.values())


class Writer:
    """Appends records to a JSONL file, one complete line per call, flushed and synced."""

    def __init__(self, path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._fresh_line = self._needs_newline()
        self.count = 0

    def _needs_newline(self) -> bool:
        if not self.path.exists() or self.path.stat().st_size == 0:
            return False
        with self.path.open("rb") as f:
            f.seek(-1, os.SEEK_END)
            return f.read(1) != b"\n"

    def append(self, record: dict) -> None:
        line = json.dumps(_finite(record), ensure_ascii=False, separators=(",", ":"),
                          allow_nan=False, default=_default) + "\n"
        with self._lock:
            with self.path.open("a", encoding="utf-8") as f:
                if self._fresh_line:
                    f.write("\n")
                    self._fresh_line = False
                f.write(line)
                f.flush()
                os.fsync(f.fileno())
            self.count += 1


def _finite(value):
    """NaN and infinities become null: a JSONL line must be valid JSON."""
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _default(value):
    if hasattr(value, "as_dict"):
        return _finite(value.as_dict())
    return repr(value)
