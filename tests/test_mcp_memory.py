"""The guarding proxy's memory stays bounded over many calls and many client sessions (issue #12,
defect 6): a smaller run of bench/proxy_memory.py. Before the fix the same runs grew by about
8 MiB (12,000 calls) and 4 MiB (200 sessions) over their second half."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench import proxy_memory  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


@pytest.fixture
def annotations(tmp_path):
    path = tmp_path / "bench.toml"
    path.write_text(proxy_memory.ANNOTATIONS)
    return str(path)


def test_many_guarded_calls_in_one_session(annotations, tmp_path):
    manifest = tmp_path / "manifest.json"
    # 12,000 calls: the ledger's 10,000 quantities fill by about call 5,300; after that the
    # proxy keeps no more
    result = proxy_memory.scenario_calls(12_000, annotations, str(manifest))
    assert result["growth_kib"] < 2560, result
    data = json.loads(manifest.read_text())
    assert data["call_count"] == 12_000 and data["session_count"] == 1
    assert data["calls_kept"] == 1_000 == len(data["sessions"][0]["calls"])
    assert data["sessions"][0]["call_count"] == 12_000
    assert data["sessions"][0]["calls"][-1]["index"] == 11_999


def test_many_client_sessions(annotations, tmp_path):
    manifest = tmp_path / "manifest.json"
    result = proxy_memory.scenario_sessions(200, 20, annotations, str(manifest))
    assert result["growth_kib"] < 1536, result
    data = json.loads(manifest.read_text())
    assert data["session_count"] == 200 and data["call_count"] == 4_000
    assert data["sessions_kept"] == 9 == len(data["sessions"])  # 8 past ones and the last
    assert all(s["call_count"] == 20 for s in data["sessions"])
