"""Running many runs: the run list, a bounded pool, JSONL as each run finishes, ``--resume``,
and a progress bar on stderr."""
from __future__ import annotations

import sys
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from . import results
from .episode import MAX_TURNS, RunSpec, run_one
from .providers.base import FatalProviderError


class UsageError(ValueError):
    """A command line that cannot be run as given."""


def plan(suites, tasks: list[str] | None, conditions, models, replicates: int) -> list[RunSpec]:
    """Every run, ordered so that a partial result set is balanced: replicate by replicate,
    and within one, every task under every condition."""
    out = []
    for model in models:
        for r in range(replicates):
            for suite in suites:
                for task in suite.tasks:
                    if tasks and task.id not in tasks:
                        continue
                    for condition in conditions:
                        out.append(RunSpec(suite, task, condition, model, r))
    if tasks:
        known = {t.id for s in suites for t in s.tasks}
        unknown = sorted(set(tasks) - known)
        if unknown:
            raise UsageError(f"unknown task(s) {unknown}; the tasks are {sorted(known)}")
    return out


@dataclass
class Progress:
    """``[#####-----] 40/96  ok 38  excluded 2  $0.41  core/runoff baseline`` on stderr,
    redrawn in place on a terminal, every ~5% otherwise."""
    total: int
    stream: object = None
    enabled: bool = True
    done: int = 0
    ok: int = 0
    excluded: int = 0
    cost: float = 0.0
    _last_line: int = -1
    _width: int = field(default=24, repr=False)

    def __post_init__(self) -> None:
        if self.stream is None:
            self.stream = sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def update(self, record: dict) -> None:
        self.done += 1
        if record.get("status") == "ok":
            self.ok += 1
        else:
            self.excluded += 1
        cost = (record.get("usage") or {}).get("cost_usd")
        if cost:
            self.cost += cost
        if not self.enabled:
            return
        step = max(1, self.total // 20)
        if not self.tty and self.done % step and self.done != self.total:
            return
        filled = int(self._width * self.done / max(1, self.total))
        bar = "#" * filled + "-" * (self._width - filled)
        line = (f"[{bar}] {self.done}/{self.total}  ok {self.ok}  excluded {self.excluded}"
                f"  ${self.cost:.4f}  {record.get('suite')}/{record.get('task')} "
                f"{record.get('condition')}")
        if self.tty:
            self.stream.write("\r" + line[:160].ljust(self._last_line if self._last_line > 0 else 0))
            self._last_line = len(line[:160])
            if self.done == self.total:
                self.stream.write("\n")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def completed_ids(records: list[dict], *, retry_excluded: bool = False) -> set[str]:
    return {r["run_id"] for r in records
            if r.get("status") == "ok" or (r.get("status") == "excluded" and not retry_excluded)}


def execute(runs: list[RunSpec], providers: dict, out, *, resume: bool = False,
            retry_excluded: bool = False, concurrency: int = 4, max_turns: int = MAX_TURNS,
            progress: bool = True, stream=None, run=run_one) -> dict:
    """Run what is not already in ``out``; append each record as it finishes. Returns a
    summary. Without ``resume`` an ``out`` that already holds records is refused."""
    stream = stream or sys.stderr
    torn: list[int] = []
    existing = results.read(out, on_torn=lambda n, _: torn.append(n))
    if existing and not resume:
        raise UsageError(f"{out} already holds {len(existing)} records: pass --resume to "
                         f"continue it, or --out another file")
    if torn:
        stream.write(f"note: skipped {len(torn)} incomplete line(s) in {out} (an interrupted "
                     f"write); those runs will be run again\n")
    done = completed_ids(existing, retry_excluded=retry_excluded)
    todo = [r for r in runs if r.run_id not in done]
    summary = {"planned": len(runs), "skipped": len(runs) - len(todo), "ran": 0, "ok": 0,
               "excluded": 0, "cost_usd": 0.0, "out": str(out)}
    if not todo:
        return summary
    writer = results.Writer(out)
    bar = Progress(len(todo), stream=stream, enabled=progress)
    t0 = time.monotonic()
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="bench")
    pending = set()
    queue = iter(todo)
    try:
        def submit_next() -> bool:
            spec = next(queue, None)
            if spec is None:
                return False
            pending.add(pool.submit(run, spec, providers[spec.model], max_turns=max_turns))
            return True

        for _ in range(max(1, concurrency) * 2):  # bounded: never more queued than this
            if not submit_next():
                break
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                pending.discard(future)
                record = future.result()  # a FatalProviderError or a crash propagates
                writer.append(record)
                summary["ran"] += 1
                summary["ok" if record.get("status") == "ok" else "excluded"] += 1
                summary["cost_usd"] += (record.get("usage") or {}).get("cost_usd") or 0.0
                bar.update(record)
                submit_next()
    except BaseException:
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)
        for future in pending:  # runs already in flight are kept, not paid for twice
            if future.done() and not future.cancelled() and future.exception() is None:
                writer.append(future.result())
        raise
    pool.shutdown(wait=True)
    summary["elapsed_s"] = round(time.monotonic() - t0, 3)
    return summary


__all__ = ["plan", "execute", "Progress", "UsageError", "FatalProviderError", "completed_ids"]
