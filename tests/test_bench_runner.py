"""bench runner: JSONL as each run finishes, resume after a crash (and after a torn write),
provider failures as excluded runs, bounded concurrency, progress on stderr."""
from __future__ import annotations

import io
import json

import pytest

from bench.harness import CONDITIONS, results, suites
from bench.harness.providers import ProviderError, resolve
from bench.harness.runner import Progress, UsageError, execute, plan


class Crash(BaseException):
    """Stands in for the process dying (a kill, an OOM, a power cut)."""


class Crashing:
    """A scripted agent that dies when its ``after``-th run starts."""

    def __init__(self, persona: str, after: int) -> None:
        self.inner = resolve(f"scripted:{persona}")
        self.after = after
        self.started = 0
        self.model, self.name, self.scripted = self.inner.model, "scripted", True
        self.tool_format = self.inner.tool_format

    def session(self, run):
        self.started += 1
        if self.started == self.after:
            raise Crash()
        return self.inner.session(run)


class Flaky:
    """A scripted agent whose provider fails (HTTP 503, retries exhausted) on chosen runs,
    the first time only."""

    def __init__(self, persona: str, failing: set) -> None:
        self.inner = resolve(f"scripted:{persona}")
        self.failing = set(failing)
        self.model, self.name, self.scripted = self.inner.model, "scripted", True
        self.tool_format = self.inner.tool_format

    def session(self, run):
        if run.run_id in self.failing:
            self.failing.discard(run.run_id)
            raise ProviderError("http 503: Service Unavailable (gave up after 6 attempts)")
        return self.inner.session(run)


def runs_for(model="scripted:naive", replicates=2, names=("core",)):
    return plan([suites.load(n) for n in names], None, CONDITIONS, [model], replicates)


def ids(path):
    return [r["run_id"] for r in results.read(path)]


def test_records_are_appended_as_runs_finish(tmp_path):
    out = tmp_path / "r.jsonl"
    runs = runs_for()
    summary = execute(runs, {"scripted:naive": resolve("scripted:naive")}, out, progress=False)
    assert summary["ran"] == summary["ok"] == len(runs) == 24
    assert sorted(ids(out)) == sorted(r.run_id for r in runs)
    for line in out.read_text().splitlines():
        json.loads(line)


def test_resume_after_a_crash_mid_run(tmp_path):
    out = tmp_path / "r.jsonl"
    runs = runs_for()
    with pytest.raises(Crash):
        execute(runs, {"scripted:naive": Crashing("naive", after=10)}, out, concurrency=1,
                progress=False)
    written = ids(out)
    assert 9 <= len(written) < len(runs) and len(set(written)) == len(written)
    # the process died mid-write as well: a torn last line
    with out.open("a") as f:
        f.write('{"schema": "quantity-guard-bench/1", "run_id": "core/runoff/gua')
    err = io.StringIO()
    summary = execute(runs, {"scripted:naive": resolve("scripted:naive")}, out, resume=True,
                      concurrency=3, progress=False, stream=err)
    assert "skipped 1 incomplete line" in err.getvalue()
    assert summary["skipped"] == len(written)
    assert summary["ran"] == len(runs) - len(written)
    final = ids(out)
    assert sorted(final) == sorted(r.run_id for r in runs)  # every run exactly once
    lines = out.read_text().splitlines()
    assert sum(1 for line in lines if not _is_json(line)) == 1  # only the torn line
    # resumed outcomes are those of an uninterrupted run
    clean = tmp_path / "clean.jsonl"
    execute(runs, {"scripted:naive": resolve("scripted:naive")}, clean, progress=False)
    outcome = {r["run_id"]: r["outcome"] for r in results.read(clean)}
    assert {r["run_id"]: r["outcome"] for r in results.read(out)} == outcome


def _is_json(line):
    try:
        json.loads(line)
        return True
    except ValueError:
        return False


def test_an_existing_file_is_not_appended_to_without_resume(tmp_path):
    out = tmp_path / "r.jsonl"
    runs = runs_for(replicates=1)
    execute(runs, {"scripted:naive": resolve("scripted:naive")}, out, progress=False)
    with pytest.raises(UsageError, match="--resume"):
        execute(runs, {"scripted:naive": resolve("scripted:naive")}, out, progress=False)
    summary = execute(runs, {"scripted:naive": resolve("scripted:naive")}, out, resume=True,
                      progress=False)
    assert summary["ran"] == 0 and summary["skipped"] == len(runs)


def test_provider_failures_are_excluded_and_can_be_retried(tmp_path):
    out = tmp_path / "r.jsonl"
    runs = runs_for(replicates=1)
    failing = {runs[0].run_id, runs[5].run_id}
    provider = Flaky("naive", failing)
    summary = execute(runs, {"scripted:naive": provider}, out, progress=False)
    assert summary["excluded"] == 2 and summary["ok"] == len(runs) - 2
    excluded = [r for r in results.read(out) if r["status"] == "excluded"]
    assert {r["run_id"] for r in excluded} == failing
    assert all("outcome" not in r and "503" in r["excluded_reason"] for r in excluded)
    # a plain resume leaves them excluded; --retry-excluded runs them again
    assert execute(runs, {"scripted:naive": provider}, out, resume=True,
                   progress=False)["ran"] == 0
    summary = execute(runs, {"scripted:naive": provider}, out, resume=True, retry_excluded=True,
                      progress=False)
    assert summary["ran"] == 2 and summary["ok"] == 2
    merged = results.read_many([out])
    assert len(merged) == len(runs) and all(r["status"] == "ok" for r in merged)


def test_concurrency_does_not_change_results(tmp_path):
    runs = runs_for(model="scripted:fabricator", replicates=2, names=("core", "uk"))
    outs = {}
    for n in (1, 6):
        out = tmp_path / f"c{n}.jsonl"
        execute(runs, {"scripted:fabricator": resolve("scripted:fabricator")}, out,
                concurrency=n, progress=False)
        outs[n] = {r["run_id"]: (r["outcome"], r["answer"]["value"]) for r in results.read(out)}
    assert outs[1] == outs[6] and len(outs[1]) == len(runs)


def test_progress_bar():
    stream = io.StringIO()
    bar = Progress(3, stream=stream)
    for status in ("ok", "excluded", "ok"):
        bar.update({"status": status, "suite": "core", "task": "runoff", "condition": "guarded",
                    "usage": {"cost_usd": 0.01}})
    last = stream.getvalue().strip().splitlines()[-1]
    assert last.startswith("[########################] 3/3  ok 2  excluded 1  $0.0300")
    tty = io.StringIO()
    tty.isatty = lambda: True
    bar = Progress(2, stream=tty)
    bar.update({"status": "ok"})
    assert tty.getvalue().startswith("\r[")


def test_the_plan_is_balanced_and_checks_task_names():
    runs = runs_for(replicates=2)
    assert [r.replicate for r in runs[:12]] == [0] * 12  # a whole replicate before the next
    assert len({r.run_id for r in runs}) == len(runs)
    with pytest.raises(UsageError, match="unknown task"):
        plan([suites.load("core")], ["nope"], CONDITIONS, ["scripted:naive"], 1)


def test_read_many_keeps_the_last_record_of_a_run(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    w = results.Writer(a)
    w.append({"run_id": "x", "status": "excluded"})
    w.append({"run_id": "y", "status": "ok", "v": float("nan")})
    results.Writer(b).append({"run_id": "x", "status": "ok"})
    merged = {r["run_id"]: r for r in results.read_many([a, b])}
    assert merged["x"]["status"] == "ok" and merged["y"]["v"] is None
