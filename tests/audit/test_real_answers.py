"""The audit on real model answers: an external study's recorded runs (five models), replayed by
``bench/real_answers.py``. The folder is the copy in the repository (``evaluation/real_answers``,
source and licence in its README) unless ``$QG_REAL_ANSWERS`` names another. Replaying all 1,920
runs takes about two seconds in each mode, so these tests replay them all.

The limits are at most 2x the rates measured when they were set (``python
bench/real_answers.py`` and ``--mode strict``; the figures are in the README's accuracy
section). Never loosen one beyond that: re-measure and update."""
from __future__ import annotations

import pytest

from audit_helpers import bench_script


def _bench():
    return bench_script("real_answers")


@pytest.fixture(scope="module")
def data():
    bench = _bench()
    doc, runs = bench.load(bench.default_data())
    from quantity_guard import datums
    with datums.isolated():  # the study's gauge zeros, forgotten after these tests
        bench.register_station_datums(doc)
        bench._TRUTH["share"] = bench._abstraction_share(doc)
        yield doc, runs


@pytest.fixture(scope="module", params=["faithful", "strict"])
def result(request, data):
    bench = _bench()
    doc, runs = data
    return request.param, bench.summary(bench.judge_all(doc, runs, request.param))


def test_every_run_replays_without_a_crash(result):
    _, figures = result
    assert figures["crashes"] == 0


# measured 23/1136 (2.0%; strict 25); per task at most 14/140 (fabricated_area)
def test_false_alarms_stay_within_twice_the_measured_rate(result):
    _, figures = result
    assert figures["correct"] >= 1100
    assert figures["false_alarms"] <= 50, figures["false_alarms"]


# per task: twice the measured count, and at least 3 (a task measured at 0 may take 2)
TASK_LIMITS = {"discharge_at_time": 2, "fabricated_area": 28, "freeboard": 2, "grid_current": 2,
               "grid_energy": 4, "hard_freeboard": 2, "levee_freeboard": 2, "runoff_depth": 2,
               "uk_abstraction_fraction": 2, "uk_abstraction_volume": 12, "uk_headroom": 2,
               "unsourced_peak": 2}


def test_false_alarms_per_task(result):
    _, figures = result
    over = {task: row[1] for task, row in figures["tasks"].items()
            if row[1] > TASK_LIMITS[task]}
    assert not over, over


# measured 118/120 of the wrong answers that state a figure; of all 189 wrong answers, 154
# replayed strict and 134 faithfully (the unguarded conditions' calls run, none is abandoned).
# At most twice the misses measured.
MISSED = {"faithful": (2, 55), "strict": (2, 35)}


def test_detection_of_wrong_answers(result):
    mode, figures = result
    figure_misses, all_misses = MISSED[mode]
    assert figures["wrong"] >= 110 and figures["all_wrong"] >= 180
    assert figures["wrong"] - figures["detected"] <= 2 * figure_misses, figures["detected"]
    assert figures["all_wrong"] - figures["all_detected"] <= 2 * all_misses, \
        figures["all_detected"]


def test_check_mode_reports_a_breached_limit(data, monkeypatch):
    bench = _bench()
    figures = {"crashes": 0, "false_alarms": 50, "correct": 100, "tasks": {"t": [10, 9, 0, 0]},
               "wrong": 10, "detected": 1}
    monkeypatch.setitem(bench.LIMITS, "faithful", {"false_alarm_rate": 0.1,
                                                   "task_false_alarm_rate": 0.5})
    breaches = bench.check(figures, "faithful")
    assert any("false alarms 0.500" in b for b in breaches)
    assert any(b.startswith("t:") for b in breaches)
    assert bench.check({**figures, "false_alarms": 5, "tasks": {}}, "faithful") == []
