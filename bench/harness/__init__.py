"""The quantity-guard evaluation harness: suites as data, four conditions over identical tool
bodies, providers over urllib, scripted agents for offline runs, grading, JSONL and reports.

Entry point: ``python -m bench`` (see ``bench.harness.cli``).
"""
from __future__ import annotations

BENCH_VERSION = "1"
RECORD_SCHEMA = "quantity-guard-bench/1"

CONDITIONS = ("baseline", "schema_only", "guarded", "guarded_repair")
OUTCOMES = ("correct", "wrong", "silent_error", "blocked", "unavailable", "no_answer")
