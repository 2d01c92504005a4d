"""bench command line and replay: ``python -m bench`` run, report, --replay, suites, errors."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.harness import results
from bench.harness.cli import main
from bench.harness.providers import HTTPClient
from bench.harness.replay import regrade
from messages import says

ROOT = Path(__file__).resolve().parent.parent


def cli(*argv, environ=None, http=None):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err, environ=environ, http=http)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def naive_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "naive.jsonl"
    code, out, err = cli("--suite", "core", "--model", "scripted:naive", "--replicates", "2",
                         "--out", str(path), "--quiet")
    assert code == 0, err
    return path, out, err


def test_run_prints_outcomes_and_labels_scripted_agents(naive_file):
    path, out, err = naive_file
    assert out.splitlines()[0] == "model: scripted:naive [scripted]"
    rows = {line.split()[0]: line for line in out.splitlines()[2:]}
    assert rows["core/runoff"].split() == ["core/runoff", "silent_error", "2/2", "silent_error",
                                           "2/2", "blocked", "2/2", "correct", "2/2"]
    assert "is a scripted agent" in err and "not results" in err
    assert f"results in {path}" in err
    assert len(results.read(path)) == 24


def test_an_existing_output_needs_resume(naive_file):
    path, _, _ = naive_file
    code, _, err = cli("--suite", "core", "--model", "scripted:naive", "--replicates", "2",
                       "--out", str(path), "--quiet")
    assert code == 2 and "--resume" in err
    code, _, err = cli("--suite", "core", "--model", "scripted:naive", "--replicates", "2",
                       "--out", str(path), "--quiet", "--resume")
    assert code == 0 and "0 runs this time" in err and "24 already recorded" in err


def test_report_markdown_csv_and_out(naive_file, tmp_path):
    path, _, _ = naive_file
    code, out, _ = cli("report", str(path))
    assert code == 0
    assert out.startswith("# quantity-guard bench report (scripted agents only: not results)")
    assert "| scripted:naive [scripted] | 2/2 (34–100%) | 2/2 (34–100%) | 0/2 (0–66%) |" in out
    code, out, _ = cli("report", str(path), "--format", "csv")
    assert code == 0 and out.startswith("table,model,scripted,")
    target = tmp_path / "report.md"
    assert cli("report", str(path), "--out", str(target))[0] == 0
    assert target.read_text().startswith("# quantity-guard bench report")


def test_replay_of_an_unchanged_library_changes_nothing(naive_file, tmp_path):
    path, _, _ = naive_file
    out_path = tmp_path / "replayed.jsonl"
    code, out, _ = cli("--replay", str(path), "--out", str(out_path))
    assert code == 0
    assert out.strip() == f"re-graded 24 records from {path} into {out_path}: 0 changed"
    replayed = results.read(out_path)
    assert all(r["replay"]["divergences"] == [] for r in replayed)
    assert [r["outcome"] for r in replayed] == [r["outcome"] for r in results.read(path)]


def _record(path, task, condition):
    return next(r for r in results.read(path) if r["task"] == task
                and r["condition"] == condition)


def test_replay_grades_recorded_behaviour_under_the_current_guard(naive_file):
    path, _, _ = naive_file
    # a transcript recorded without enforcement, re-graded as if the guard had been on
    old = _record(path, "runoff", "baseline")
    new = regrade({**old, "condition": "guarded"})
    assert (old["outcome"], new["outcome"]) == ("silent_error", "blocked")
    # the recording went on to an answer; the replay stops where the guard now refuses
    assert new["replay"]["truncated"] is True
    assert new["replay"]["recorded_outcome"] == "silent_error"
    assert new["transcript"]["final_text"] == old["transcript"]["final_text"]
    divs = new["replay"]["divergences"]  # labelled results now, and the refusal
    assert [d["tool"] for d in divs] == ["read_discharge", "get_drainage_area", "runoff_depth"]
    assert divs[0]["recorded"] == "1250.0" and json.loads(divs[0]["now"])["unit"] == "cfs"
    says(divs[-1]["now"], "carry_over", field="runoff_depth.discharge", value="1250",
         unit="m3/s", source="read_discharge.return", source_unit="cfs")
    assert new["transcript"]["calls"][-1]["ended_run"] is True


def test_replay_marks_a_refusal_that_no_longer_happens_as_incomplete(naive_file):
    path, _, _ = naive_file
    old = _record(path, "runoff", "guarded")
    calls = [dict(c) for c in old["transcript"]["calls"]]
    calls[-1]["arguments"] = {"discharge": "1250 cfs", "area": 29940}  # now acceptable
    new = regrade({**old, "transcript": {**old["transcript"], "calls": calls}})
    assert new["replay"]["incomplete"] is True
    assert new["end_reason"] == "incomplete" and new["outcome"] == "no_answer"


def test_replay_regrades_the_recorded_answer(naive_file):
    path, _, _ = naive_file
    old = _record(path, "runoff", "baseline")
    text = "About 0.102 mm/day.\n\nFINAL ANSWER: 0.102 mm/day"
    new = regrade({**old, "transcript": {**old["transcript"], "final_text": text}})
    assert new["outcome"] == "correct"  # the tool still saw 1250 m3/s: the answer decides
    assert new["hazards"][0]["fired"] is True
    # 0.102 was never returned by a tool, but it is the ratio of two that were (1250 cfs over
    # 29,940 km2, in mm/day): the audit follows one step of product or ratio (issue 11)
    assert new["audit"]["counts"] == {"derived": 2}


def test_replay_passes_excluded_records_through():
    record = {"run_id": "x", "status": "excluded", "excluded_reason": "http 402"}
    assert regrade(record) is record


def test_suites_command():
    code, out, _ = cli("suites")
    assert code == 0
    assert "  freeboard: truth 4.06 ft; silent 4.5 (unconverted); hazards datum " \
           "compute_freeboard.crest_elevation [NGVD29->NAVD88]" in out
    assert "fabricated_area: truth unavailable" in out


@pytest.mark.parametrize(("argv", "message"), [
    (("--suite", "nope", "--model", "scripted:naive"), "no suite 'nope'"),
    (("--model", "scripted:naive", "--condition", "unguarded"), "unknown condition"),
    (("--suite", "core",), "--model is required"),
    (("--model", "scripted:naive", "--replicates", "0"), "at least 1"),
    (("--model", "scripted:naive", "--task", "nope"), "unknown task"),
    (("report", "missing.jsonl"), "no such file"),
])
def test_usage_errors_exit_2(argv, message, tmp_path):
    code, _, err = cli(*argv, "--out", str(tmp_path / "x.jsonl")) if argv[0] != "report" \
        else cli(*argv)
    assert code == 2 and message in err


def test_a_missing_key_stops_before_any_run(tmp_path):
    out = tmp_path / "x.jsonl"
    code, _, err = cli("--model", "anthropic/claude-opus-5", "--out", str(out), environ={})
    assert code == 3 and "ANTHROPIC_API_KEY" in err and not out.exists()


def test_a_rejected_key_stops_the_benchmark(tmp_path):
    body = json.dumps({"error": {"message": "Invalid API key", "type": "authentication_error"}})

    def transport(url, headers, data, timeout):
        return 401, {}, body.encode()
    code, _, err = cli("--model", "qwen/qwen3-235b-a22b", "--out", str(tmp_path / "x.jsonl"),
                       "--quiet", environ={"OPENROUTER_API_KEY": "bad"},
                       http=HTTPClient(transport=transport, sleep=lambda s: None))
    assert code == 3 and "http 401" in err and "--resume" in err


def test_default_output_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, _ = cli("--suite", "grid", "--model", "scripted:careful", "--replicates", "1",
                     "--condition", "baseline,guarded", "--quiet")
    assert code == 0
    assert len(results.read(tmp_path / "results" / "grid__scripted_careful.jsonl")) == 4


def test_python_dash_m_bench():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "bench", "--help"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert "--replicates" in proc.stdout and "scripted:naive" in proc.stdout


def test_replay_of_a_task_that_no_longer_exists(naive_file):
    path, _, _ = naive_file
    old = _record(path, "runoff", "baseline")
    new = regrade({**old, "task": "renamed_since"})
    assert new["outcome"] == old["outcome"] and "cannot re-grade" in new["replay"]["error"]
