"""A full disk under ``--log`` never takes guarded calls down: each call is still checked and
answered, the failure is reported once on stderr, the log holds whole records only, and the
proxy exits 6 (also when a manifest cannot be written and it was stopped by a signal). The disk
is made full for the proxy alone with a file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored), which
cuts a write short the way ENOSPC does."""
from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers.driver import env, fault_argv, init_params, new_tag, proxy_argv, reap  # noqa: E402

ANNOTATIONS = "[tools.runoff.params]\ndischarge = 'm**3/s'\narea = 'km**2'\n"
LIMIT = 3000  # bytes any file of the proxy may reach


def _full_disk() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def _lines(*messages) -> bytes:
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


def test_guarded_calls_go_on_when_the_log_cannot_be_written(tmp_path):
    ann = tmp_path / "water.toml"
    ann.write_text(ANNOTATIONS)
    log = tmp_path / "calls.jsonl"
    tag = new_tag()
    calls = [{"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call", "params": {
        "name": "runoff", "arguments": {"discharge": "1250 cfs" if i % 2 else "5 m", "area": 2,
                                        "note": "n" * 40}}} for i in range(40)]
    data = _lines({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init_params()},
                  {"jsonrpc": "2.0", "method": "notifications/initialized"},
                  {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, *calls)
    try:
        done = subprocess.run(proxy_argv(*fault_argv(tag), options=("--annotations", str(ann), "--log", str(log))),
                              input=data, capture_output=True, timeout=120, env=env(),
                              preexec_fn=_full_disk)
    finally:
        reap(tag)
    answers = {m["id"]: m for m in map(json.loads, done.stdout.splitlines()) if "id" in m}
    for call in calls:
        result = answers[call["id"]]["result"]
        meta = (result.get("_meta") or {}).get("io.github.quantity-guard/violation") or {}
        if call["params"]["arguments"]["discharge"] == "5 m":
            assert result["isError"] and meta["code"] == "dimensionality_error"
        else:
            assert not result.get("isError"), result
            assert json.loads(result["content"][0]["text"])["received"]["discharge"] == pytest.approx(35.39605824)
    stderr = done.stderr.decode()
    assert stderr.count("could not be written") == 1, stderr
    assert log.stat().st_size <= LIMIT
    records = log.read_bytes().splitlines()
    assert records and all(json.loads(r)["tool"] == "runoff" for r in records)  # none torn
    assert done.returncode == 6


def test_a_manifest_lost_at_a_signal_exits_6(tmp_path):
    ann = tmp_path / "water.toml"
    ann.write_text(ANNOTATIONS)
    tag = new_tag()
    proc = subprocess.Popen([sys.executable, "-m", "quantity_guard.mcp", "--listen", "0", "--annotations", str(ann),
                             "--manifest", str(tmp_path / "m.json"), "--", *fault_argv(tag)],
                            stderr=subprocess.PIPE, text=True, env=env(), preexec_fn=_full_disk)
    try:
        line = proc.stderr.readline()
        assert "serving MCP" in line, line
        port = int(line.strip().rsplit(":", 1)[1].split("/")[0])
        import http.client
        sid = None
        for i, (method, params) in enumerate([("initialize", init_params()), ("tools/list", {})] + [
                ("tools/call", {"name": "runoff", "arguments": {"discharge": "1250 cfs", "area": 2, "note": "x" * 200}})] * 12):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            conn.request("POST", "/mcp", body=json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}),
                         headers={"Content-Type": "application/json", "Accept": "application/json",
                                  **({"Mcp-Session-Id": sid} if sid else {})})
            resp = conn.getresponse()
            resp.read()
            assert resp.status == 200
            sid = sid or resp.getheader("Mcp-Session-Id")
            conn.close()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 6
        assert "could not be written" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reap(tag)
