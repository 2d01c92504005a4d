"""``quantity-guard-mcp -- SERVER < requests.jsonl``: when the client's input ends, the requests
still pending are answered by the upstream (its stdin stays open until then, at most
--drain-timeout seconds), and only what it never answers gets an error naming the limit."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers.driver import SDK_SERVER, env, fault_argv, new_tag, reap  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "pipe", "version": "1"}}


def _lines(*messages) -> bytes:
    return b"".join(json.dumps({"jsonrpc": "2.0", **m}).encode() + b"\n" for m in messages)


def _piped(stdin: bytes, *argv: str, timeout: float = 60) -> tuple[int, dict, str]:
    done = subprocess.run([sys.executable, "-m", "quantity_guard.mcp", *argv], input=stdin,
                          capture_output=True, env=env(), timeout=timeout)
    answers = {}
    for line in done.stdout.splitlines():
        msg = json.loads(line)
        answers[msg.get("id")] = msg
    return done.returncode, answers, done.stderr.decode()


def test_piped_requests_to_the_sdk_server_are_all_answered():
    pytest.importorskip("mcp")
    stdin = _lines({"id": 0, "method": "initialize", "params": INIT},
                   {"method": "notifications/initialized"},
                   {"id": 1, "method": "tools/call", "params": {"name": "sleep", "arguments": {"seconds": 1.5}}},
                   {"id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"x": 1}}})
    code, answers, err = _piped(stdin, "--", sys.executable, SDK_SERVER)
    assert code == 0, err
    assert answers[0]["result"]["serverInfo"]["name"] == "sdk-upstream"
    assert answers[1]["result"]["content"][0]["text"] == "slept"
    assert json.loads(answers[2]["result"]["content"][0]["text"]) == {"x": 1}


def test_the_demo_server_answers_a_piped_guarded_session():
    stdin = _lines({"id": 0, "method": "initialize", "params": INIT},
                   {"method": "notifications/initialized"},
                   {"id": 1, "method": "tools/list"},
                   {"id": 2, "method": "tools/call", "params": {"name": "read_discharge",
                                                                "arguments": {"site": "07374000"}}})
    code, answers, err = _piped(stdin, "--annotations", str(REPO / "demo" / "water.toml"), "--",
                                sys.executable, str(REPO / "demo" / "usgs_server.py"))
    assert code == 0, err
    assert sorted(answers) == [0, 1, 2]
    assert json.loads(answers[2]["result"]["content"][0]["text"]) == {"value": 1250.0, "unit": "cfs"}


def test_a_request_the_upstream_never_answers_gets_an_error_naming_the_drain_timeout():
    tag = new_tag()
    try:
        stdin = _lines({"id": 0, "method": "initialize", "params": INIT},
                       {"id": 1, "method": "tools/call", "params": {"name": "hang", "arguments": {}}})
        code, answers, err = _piped(stdin, "--drain-timeout", "0.5", "--", *fault_argv(tag))
        assert code == 0, err
        assert "result" in answers[0]
        message = answers[1]["error"]["message"]
        assert "--drain-timeout" in message and "0.5 s" in message
        assert "still unanswered after 0.5 s" in err
    finally:
        reap(tag)


@pytest.mark.parametrize("value", ["-1", "soon", "nan", "inf"])
def test_a_bad_drain_timeout_is_a_usage_error(value):
    code, _, err = _piped(b"", "--drain-timeout", value, "--", sys.executable, "-c", "pass")
    assert code == 2 and "--drain-timeout must be a number of seconds" in err
