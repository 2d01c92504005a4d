"""The files the proxy writes are bounded: --log is rotated before a record would take it past
--log-max-bytes, keeping --log-backups older files (each 0600, every record whole, none split),
and with --listen the per-session manifests are kept to the newest --max-manifests, the older
deleted as sessions end, never the manifest path of a session still open."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers.driver import FAULT_SERVER, Peer, env, fault_argv, init_params, new_tag, proxy_argv, reap  # noqa: E402

ANNOTATIONS = "[tools.runoff.params]\ndischarge = 'm**3/s'\narea = 'km**2'\n"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _run_calls(tmp_path: Path, calls: int, *options: str) -> Path:
    ann = tmp_path / "water.toml"
    ann.write_text(ANNOTATIONS)
    log = tmp_path / "calls.jsonl"
    tag = new_tag()
    with Peer(proxy_argv(*fault_argv(tag), options=("--annotations", str(ann), "--log", str(log),
                                                    *options))) as p:
        p.call(0, "initialize", init_params())
        for i in range(1, calls + 1):
            r = p.call(i, "tools/call", {"name": "runoff",
                                          "arguments": {"discharge": f"{i} cfs", "area": 2}})
            assert "error" not in r and not r["result"].get("isError"), r
        p.close_stdin()
        p.read_eof()
        assert p.wait() == 0
    reap(tag)
    return log


def test_the_log_is_rotated_and_keeps_its_backups(tmp_path):
    log = _run_calls(tmp_path, 60, "--log-max-bytes", "2KiB", "--log-backups", "2")
    files = sorted(f.name for f in tmp_path.iterdir() if f.name.startswith("calls.jsonl"))
    assert files == ["calls.jsonl", "calls.jsonl.1", "calls.jsonl.2"]
    records = []
    for name in ("calls.jsonl.2", "calls.jsonl.1", "calls.jsonl"):  # oldest first
        path = tmp_path / name
        assert _mode(path) == 0o600 and 0 < path.stat().st_size <= 2048, name
        text = path.read_text()
        assert text.endswith("\n")
        records += [json.loads(line) for line in text.splitlines()]  # every record whole
    discharges = [r["arguments"]["discharge"] for r in records if r["event"] == "call"]
    # the newest records are kept, in order, without a gap; the oldest were dropped
    assert discharges[-1] == "60 cfs" and discharges[0] != "1 cfs"
    first = int(discharges[0].split()[0])
    assert discharges == [f"{i} cfs" for i in range(first, 61)]


def test_no_backups_keeps_only_the_current_file(tmp_path):
    _run_calls(tmp_path, 30, "--log-max-bytes", "1KiB", "--log-backups", "0")
    files = sorted(f.name for f in tmp_path.iterdir() if f.name.startswith("calls.jsonl"))
    assert files == ["calls.jsonl"]
    assert (tmp_path / "calls.jsonl").stat().st_size <= 1024


def test_a_log_under_the_limit_is_appended_as_before(tmp_path):
    log = tmp_path / "calls.jsonl"
    log.write_text('{"earlier": true}\n')
    os.chmod(log, 0o644)
    _run_calls(tmp_path, 3)
    lines = log.read_text().splitlines()
    assert json.loads(lines[0]) == {"earlier": True} and len(lines) > 3
    assert _mode(log) == 0o600 and not (tmp_path / "calls.jsonl.1").exists()


@pytest.mark.parametrize("options,message", [
    (["--log-max-bytes", "1KiB"], "--log-max-bytes bounds the --log file, which is not given"),
    (["--log", "x.jsonl", "--log-max-bytes", "-5"], "--log-max-bytes must be a positive number"),
    (["--log", "x.jsonl", "--log-backups", "many"], "--log-backups must be a whole number"),
    (["--max-manifests", "3"], "--max-manifests bounds the per-session manifests"),
    (["--listen", "0", "--manifest", "m.json", "--max-manifests", "-1"],
     "--max-manifests must be a whole number"),
])
def test_bad_bounds_are_usage_errors(tmp_path, options, message):
    ann = tmp_path / "water.toml"
    ann.write_text(ANNOTATIONS)
    proc = subprocess.run([sys.executable, "-m", "quantity_guard.mcp", "--annotations", str(ann),
                           *options, "--", sys.executable, "-c", "pass"], cwd=tmp_path,
                          capture_output=True, text=True, env=env(), timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr


def _wait_for(path: Path, since: float = 0.0) -> None:
    deadline = time.monotonic() + 20
    while not (path.exists() and path.stat().st_mtime_ns > since):
        assert time.monotonic() < deadline, f"{path} was not written"
        time.sleep(0.05)


def test_listener_manifests_are_kept_to_the_newest_and_an_open_sessions_is_never_deleted(tmp_path):
    from test_mcp_http_listen import Listening
    from test_mcp_http_listen_faults import INIT, post
    ann = tmp_path / "water.toml"
    ann.write_text(ANNOTATIONS)
    stale = tmp_path / "m-2.json"  # left by an earlier run: the oldest file of all
    stale.write_text('{"earlier run": true}\n')
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    tag = new_tag()
    p = Listening("--annotations", str(ann), "--manifest", str(tmp_path / "m.json"),
                  "--max-manifests", "2", "--", sys.executable, FAULT_SERVER, "--tag", tag)

    def open_session() -> str:
        resp, _ = post(p.port, json.dumps(INIT).encode())
        sid = resp.getheader("Mcp-Session-Id")
        post(p.port, b'{"jsonrpc":"2.0","method":"notifications/initialized"}', {"Mcp-Session-Id": sid})
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "runoff", "arguments": {"discharge": "1 cfs", "area": 2}}}
        post(p.port, json.dumps(body).encode(), {"Mcp-Session-Id": sid})
        return sid

    def end(sid: str, number: int) -> None:
        before = (tmp_path / f"m-{number}.json").stat().st_mtime_ns \
            if (tmp_path / f"m-{number}.json").exists() else 0
        status, _, _ = p.raw("DELETE", headers={"Mcp-Session-Id": sid})
        assert status in (200, 204)
        _wait_for(tmp_path / f"m-{number}.json", before)

    def names() -> list[str]:
        return sorted(f.name for f in tmp_path.iterdir() if f.name.startswith("m-"))

    try:
        end(open_session(), 1)
        second = open_session()  # session 2 stays open: m-2.json is its path
        end(open_session(), 3)
        assert names() == ["m-1.json", "m-2.json", "m-3.json"]  # two closed ones: none beyond 2
        end(open_session(), 4)
        time.sleep(0.2)
        # m-1, the oldest of the closed sessions' files, went; m-2, older still, is the open
        # session's path and stays
        assert names() == ["m-2.json", "m-3.json", "m-4.json"]
        assert json.loads(stale.read_text()) == {"earlier run": True}
        end(second, 2)
        time.sleep(0.2)
        assert names() == ["m-2.json", "m-4.json"]
        assert json.loads(stale.read_text())["format"] == "quantity-guard-proxy-manifest"
    finally:
        p.stop()
        reap(tag)
