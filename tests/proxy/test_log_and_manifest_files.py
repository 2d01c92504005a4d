"""--log and --manifest files: private (0600), holding the guarded parameters, their conversions
and violations but not the other arguments; the manifest written whole or not at all (a failed
write leaves the previous file and exits 6); with --listen, no file for a session that made no
guarded call, and no session id in the diagnostics."""
from __future__ import annotations

import json
import os
import resource
import stat
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers.driver import FAULT_SERVER, Peer, env, fault_argv, init_params, new_tag, proxy_argv, reap  # noqa: E402

ANNOTATIONS = "[tools.runoff.params]\ndischarge = 'm**3/s'\narea = 'km**2'\n"
SECRETS = {"api_key": "sk-live-0123456789", "password": "hunter2-hunter2"}


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_log_and_manifest_are_private_and_hold_no_other_arguments(tmp_path):
    ann = tmp_path / "water.toml"
    ann.write_text(ANNOTATIONS)
    log, manifest = tmp_path / "calls.jsonl", tmp_path / "manifest.json"
    tag = new_tag()
    os.umask(0o022)
    with Peer(proxy_argv(*fault_argv(tag), options=("--annotations", str(ann), "--log", str(log),
                                                    "--manifest", str(manifest)))) as p:
        p.call(0, "initialize", init_params())
        r = p.call(1, "tools/call", {"name": "runoff", "arguments": {"discharge": "1250 cfs", "area": 2, **SECRETS}})
        assert json.loads(r["result"]["content"][0]["text"])["received"]["api_key"] == SECRETS["api_key"]
        r = p.call(2, "tools/call", {"name": "runoff", "arguments": {"discharge": "lots", "area": 2, **SECRETS}})
        assert r["result"]["isError"] is True
        p.close_stdin()
        p.read_eof()
        assert p.wait() == 0
    reap(tag)
    assert _mode(log) == 0o600 and _mode(manifest) == 0o600
    for path in (log, manifest):
        text = path.read_text()
        assert all(secret not in text for secret in SECRETS.values()), path
    records = [json.loads(line) for line in log.read_text().splitlines()]
    call = next(r for r in records if r["event"] == "call")
    when = datetime.fromisoformat(call["time"].replace("Z", "+00:00"))  # 3.10 reads no 'Z'
    assert call["time"].endswith("Z") and when.utcoffset() == timedelta(0)
    assert abs(datetime.now(timezone.utc) - when) < timedelta(minutes=5)
    assert call["arguments"] == {"discharge": "1250 cfs", "area": 2}
    assert call["forwarded"]["discharge"] == pytest.approx(35.39605824)
    assert call["other_arguments"] == ["api_key", "password"]
    assert any(r["event"] == "violation" and r["violation"]["field"] == "runoff.discharge" for r in records)
    calls = json.loads(manifest.read_text())["sessions"][0]["calls"]
    assert all(set(c["arguments"]) <= {"discharge", "area"} for c in calls)


def test_a_manifest_that_cannot_be_written_leaves_the_previous_one_and_exits_6(tmp_path):
    ann = tmp_path / "water.toml"
    ann.write_text(ANNOTATIONS)
    folder = tmp_path / "out"
    folder.mkdir()
    manifest = folder / "manifest.json"
    manifest.write_text('{"previous": true}\n')
    tag = new_tag()

    def small_files():  # a disk that fills up: writes past 600 bytes fail (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (600, 600))

    p = Peer(proxy_argv(*fault_argv(tag), options=("--annotations", str(ann), "--manifest", str(manifest))),
             preexec_fn=small_files)
    try:
        p.call(0, "initialize", init_params())
        for i in range(1, 6):
            p.call(i, "tools/call", {"name": "runoff", "arguments": {"discharge": f"{i} cfs", "area": 2}})
        p.close_stdin()
        p.read_eof()
        assert p.wait() == 6
        assert "could not be written" in p.stderr()
    finally:
        p.kill()
        reap(tag)
    assert manifest.read_text() == '{"previous": true}\n'
    assert sorted(f.name for f in folder.iterdir()) == ["manifest.json"]  # no temporary file left


def test_listener_sessions_without_guarded_calls_write_no_manifest_and_ids_stay_private(tmp_path):
    pytest.importorskip("mcp")
    from test_mcp_http_listen import Listening
    from test_mcp_http_listen_faults import INIT, post
    ann = tmp_path / "water.toml"
    ann.write_text(ANNOTATIONS)
    tag = new_tag()
    p = Listening("--annotations", str(ann), "--manifest", str(tmp_path / "m.json"), "--",
                  sys.executable, FAULT_SERVER, "--tag", tag)
    sids = []
    try:
        for guarded in (True, False):
            resp, _ = post(p.port, json.dumps(INIT).encode())
            sid = resp.getheader("Mcp-Session-Id")
            sids.append(sid)
            name = "runoff" if guarded else "echo"
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": name, "arguments": {"discharge": "1 cfs", "area": 2}}}
            post(p.port, json.dumps(body).encode(), {"Mcp-Session-Id": sid})
        crash = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "crash", "arguments": {}}}
        post(p.port, json.dumps(crash).encode(), {"Mcp-Session-Id": sids[1]})
    finally:
        p.stop()
        reap(tag)
    err = p.proc.stderr.read()
    assert "exited" in err
    assert not any(sid in err for sid in sids)
    files = sorted(f.name for f in tmp_path.iterdir() if f.name.startswith("m-"))
    assert len(files) == 1 and _mode(tmp_path / files[0]) == 0o600
