"""bench report: the report tables (docs/benchmarks.md, "Evaluating models") from a fixed JSONL
(tests/data/bench/results_fixture.jsonl, hand-made records of two example models, one scripted
agent and one excluded run)."""
from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from bench.harness import report, results

FIXTURE = Path(__file__).parent / "data" / "bench" / "results_fixture.jsonl"


@pytest.fixture(scope="module")
def records():
    return results.read_many([FIXTURE])


@pytest.fixture(scope="module")
def md(records):
    return report.render(records, "markdown")


def table(md: str, title: str) -> dict:
    """{first cell: [cells]} of the markdown table under ``## title``."""
    lines = md.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0].splitlines()
    rows = [line for line in lines if line.startswith("|")]
    header = [c.strip() for c in rows[0].strip("|").split("|")]
    out = {"header": header}
    for line in rows[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if header[:3] == ["model", "suite", "condition"]:
            out[" / ".join(cells[:3])] = cells[3:]
        else:
            out[cells[0]] = cells[1:]
    return out


@pytest.mark.parametrize(("k", "n", "lo", "hi"), [
    (8, 8, 0.6756, 1.0), (0, 8, 0.0, 0.3244), (3, 8, 0.1368, 0.6943), (1, 1, 0.2065, 1.0),
    (17, 17, 0.8157, 1.0), (0, 0, 0.0, 1.0)])
def test_wilson(k, n, lo, hi):
    a, b = report.wilson(k, n)
    assert (a, b) == (pytest.approx(lo, abs=1e-4), pytest.approx(hi, abs=1e-4))


def test_header_counts_and_scripted_label(md):
    assert "90 runs: 89 usable, 1 excluded." in md
    assert "Scripted agents (scripted:naive) exercise the harness" in md
    assert "Their rows are not results" in md
    assert "(scripted agents only" not in md  # real models are present too


def test_carry_over_table(md):
    t = table(md, "Unit carry-over (core)")
    assert t["header"] == ["model", "baseline", "schema_only", "guarded", "guarded_repair",
                           "sent and refused under enforcement", "usable / excluded"]
    assert t["example/model-a"] == ["8/8 (68–100%)", "5/8 (31–86%)", "0/12 (0–24%)",
                                    "0/11 (0–26%)", "16/23 (49–84%)", "48 / 0"]
    assert t["example/model-b"][-1] == "8 / 1"  # the run lost to HTTP 402 is counted apart
    # model-b answered twice without calling the tool: those runs are not in the denominator
    assert t["example/model-b"][0] == "6/6 (61–100%)"
    assert t["scripted:naive [scripted]"][0] == "1/1 (21–100%)"
    uk = table(md, "Unit carry-over (uk)")
    # no enforced runs, no refusal column
    assert uk["header"] == ["model", "baseline", "usable / excluded"]


def test_datum_table(md):
    t = table(md, "Vertical datum (core/freeboard)")
    assert t["header"] == ["model", "baseline", "guarded", "usable / excluded"]
    assert t["example/model-a"] == ["3/8 (14–69%)", "0/8 (0–32%)", "16 / 0"]
    assert "example/model-b" not in t


def test_fabricated_inputs_table(md):
    t = table(md, "Fabricated inputs (core/fabricated_area)")
    assert t["example/model-a"] == ["4/8 (22–78%)", "3/8 (14–69%)", "7/16 (23–67%)",
                                    "3/3 (44–100%)", "16 / 0"]


def test_unit_pairs_table(md):
    t = table(md, "Which unit pairs (baseline)")
    assert t["header"] == ["model", "Ml/d->m3/s", "cfs->m3/s", "usable / excluded"]
    assert t["example/model-a"] == ["0/8 (0–32%)", "8/8 (68–100%)", "16 / 0"]
    assert t["example/model-b"] == ["7/8 (53–98%)", "6/6 (61–100%)", "16 / 1"]


def test_outcomes_table(md):
    t = table(md, "Outcomes")
    assert t["header"][3:10] == ["runs", "correct", "wrong", "silent_error", "blocked",
                                 "unavailable", "no_answer"]
    a = t["example/model-a / core / guarded"]
    assert a[:7] == ["24", "5", "0", "0", "15", "4", "0"]
    assert a[7] == "9/24 (21–57%)"  # correct, or unavailable where that is the truth
    b = t["example/model-b / core / baseline"]
    assert b[:7] == ["8", "0", "2", "6", "0", "0", "0"]
    assert b[8] == "2/8 (7–59%)"      # audit flagged the two answers given without tools
    assert b[9] == "2.25"             # tool calls per run
    assert b[10] == "1"               # excluded
    assert b[13] == "–"               # no cost reported
    assert t["example/model-a / core / baseline"][13] == "0.016"


def test_excluded_runs_are_listed_with_their_reason_and_never_as_outcomes(md):
    t = table(md, "Excluded runs (provider failures, not outcomes)")
    assert t["example/model-b"] == [
        "http 402: Insufficient credits. Add more using https://openrouter.ai/settings/credits",
        "1"]


def test_csv(records):
    rows = list(csv.DictReader(io.StringIO(report.render(records, "csv"))))
    assert list(rows[0]) == report.CSV_FIELDS
    cell = next(r for r in rows if r["table"] == "carry_over" and r["suite"] == "core"
                and r["model"] == "example/model-a" and r["column"] == "baseline")
    assert (cell["k"], cell["n"], cell["rate"], cell["ci_low"], cell["ci_high"]) == (
        "8", "8", "1.0000", "0.6756", "1.0000")
    datum = next(r for r in rows if r["table"] == "datum" and r["column"] == "baseline")
    assert (datum["suite"], datum["task"], datum["k"], datum["n"]) == ("core", "freeboard",
                                                                        "3", "8")
    assert {r["scripted"] for r in rows if r["model"] == "scripted:naive"} == {"true"}
    outcome = next(r for r in rows if r["table"] == "outcomes" and r["model"] ==
                   "example/model-b" and r["condition"] == "baseline" and r["suite"] == "core"
                   and r["column"] == "silent_error")
    assert outcome["value"] == "6"


def test_a_scripted_only_report_says_so_in_its_title(records):
    text = report.render([r for r in records if r.get("scripted")])
    assert text.startswith("# quantity-guard bench report (scripted agents only: not results)")


def test_unknown_format(records):
    with pytest.raises(ValueError):
        report.render(records, "html")
