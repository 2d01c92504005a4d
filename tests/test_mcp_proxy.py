"""The proxy over real pipes against a stdlib fault-injecting upstream (tests/mcp_peers/fault_server.py),
driven by a raw JSON-lines client."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from mcp_peers.driver import (  # noqa: E402
    MODERN_META, Peer, env, fault_argv, init_params, proxy_argv, wait_count, wait_gone)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc and process groups")


def start(tag, *flags, options=(), guarded=False, dashdash=True, wire_log=None):
    extra = ("--wire-log", str(wire_log)) if wire_log else ()
    return Peer(proxy_argv(*fault_argv(tag, *flags, *extra), options=options, guarded=guarded,
                           dashdash=dashdash))


def handshake(p, ident=0):
    r = p.call(ident, "initialize", init_params())
    assert r["result"]["serverInfo"]["name"] == "fault-server"
    p.notify("notifications/initialized")


def finish(p, tag, expect=0):
    """Close the client side; the proxy must exit (status ``expect``) and leave nothing behind."""
    p.close_stdin()
    rest = p.read_eof()
    for line in rest:
        json.loads(line)
    assert p.wait() == expect, p.stderr()
    assert wait_gone(tag, 5.0) == []
    return rest


# ------------------------------------------------------------------ transparency


def test_round_trip_is_byte_exact_both_ways(tag, tmp_path):
    log = tmp_path / "wire.log"
    with start(tag, wire_log=log) as p:
        handshake(p)
        requests = [
            b'{"jsonrpc":"2.0","id":"a","method":"tools/list"}',
            b'{ "id" : 7 , "method":"tools/call","jsonrpc":"2.0","params":{"name":"echo","arguments":{"s":"\\u00e9\\n","n":1.50E+2}}}',
        ]
        for r in requests:
            p.send_raw(r + b"\r\n")
            p.recv()
        odd = '{"result":{"content":[{"type":"text","text":"a\u2028b\u0085c\\f\\r\U0001F600 \\u00e9"}]},"jsonrpc":"2.0","id":ID}'
        p.request(8, "tools/call", {"name": "raw", "arguments": {"line": odd}})
        assert p.recv_raw() == odd.replace("ID", "8").encode("utf-8") + b"\n"
        finish(p, tag)
    received = log.read_bytes().split(b"\n")
    for r in requests:
        assert r in received


def test_optional_double_dash(tag):
    with start(tag, dashdash=False) as p:
        handshake(p)
        finish(p, tag)


def test_unknown_methods_notifications_and_server_requests_pass_both_ways(tag, tmp_path):
    log = tmp_path / "wire.log"
    with start(tag, wire_log=log) as p:
        handshake(p)
        err = p.call(1, "vendor/unknown", {"x": 1})
        assert err["error"]["code"] == -32601
        p.notify("notifications/roots/list_changed")
        p.notify("vendor/notice", {"k": [1, 2]})
        methods = ["notifications/message", "notifications/tools/list_changed",
                   "notifications/resources/updated", "notifications/tasks/status",
                   "notifications/subscriptions/acknowledged", "notifications/elicitation/complete",
                   "notifications/prompts/list_changed", "vendor/unknown"]
        p.request(2, "tools/call", {"name": "emit", "arguments": {"methods": methods, "ping_id": 1}})
        resp, others = p.response(2)
        assert [m.get("method") for m in others] == methods + ["ping"]
        assert others[-1]["id"] == 1  # the upstream's own id space, untouched
        p.send_raw(b'{"jsonrpc":"2.0","id":1,"result":{}}\n')  # the client answers the upstream's ping
        assert p.call(3, "ping")["result"] == {}
        finish(p, tag)
    wire = log.read_bytes()
    assert b'{"jsonrpc":"2.0","id":1,"result":{}}\n' in wire
    assert b'"method": "notifications/roots/list_changed"' in wire and b'"vendor/notice"' in wire


def test_modern_request_meta_reaches_the_upstream_unchanged(tag, tmp_path):
    log = tmp_path / "wire.log"
    with start(tag, wire_log=log) as p:
        meta = {**MODERN_META, "progressToken": 5, "traceparent": "00-1-2-01", "com.vendor/k": {"a": [1.5]}}
        r = p.call(1, "server/discover", {"_meta": MODERN_META})
        assert r["result"]["supportedVersions"] == ["2026-07-28"]
        r = p.call(2, "tools/call", {"name": "progress", "arguments": {"steps": 2}, "_meta": meta})
        assert r["result"]["resultType"] == "complete"
        finish(p, tag)
    sent_meta = [json.loads(x)["params"]["_meta"] for x in log.read_bytes().splitlines() if b'"id": 2' in x]
    assert sent_meta == [meta]


def test_progress_precedes_its_response_in_order(tag):
    with start(tag) as p:
        handshake(p)
        p.request(5, "tools/call", {"name": "progress", "arguments": {"steps": 5}, "_meta": {"progressToken": "t"}})
        resp, others = p.response(5)
        assert [m["params"]["progress"] for m in others] == [1, 2, 3, 4, 5]
        finish(p, tag)


# ------------------------------------------------------------------ concurrency and ids


def test_out_of_order_answers_each_reach_their_request(tag):
    with start(tag) as p:
        handshake(p)
        ids = [11, "11", "x", 12, 2**40]
        for i in ids:
            p.request(i, "tools/call", {"name": "gather", "arguments": {"n": len(ids)}})
        got = [p.recv() for _ in ids]
        assert [g["id"] for g in got] == list(reversed(ids))
        for g in got:
            assert g["result"]["content"][0]["text"] == f"gathered {json.dumps(g['id'])}"
        finish(p, tag)


def test_cancellation_reaches_a_hanging_upstream_at_once(tag):
    with start(tag, options=("--drain-timeout", "0.2")) as p:
        handshake(p)
        p.request("h-1", "tools/call", {"name": "hang", "arguments": {}})
        p.request(42, "tools/call", {"name": "hang", "arguments": {}})
        assert p.call(1, "ping")["result"] == {}  # the hanging calls block nothing
        p.notify("notifications/cancelled", {"requestId": "h-1", "reason": "timeout"})
        note = p.recv()
        assert note["method"] == "notifications/message"
        assert note["params"]["data"] == {"cancelled": "h-1", "was_hanging": True}
        rest = finish(p, tag)
        # the cancelled request is forgotten; the other one is answered with an error at shutdown
        answers = [json.loads(x) for x in rest]
        assert [a["id"] for a in answers] == [42] and answers[0]["error"]["code"] == -32603


# ------------------------------------------------------------------ upstream faults


def test_policy_prints_never_reach_the_client(tag, tmp_path):
    annotations = tmp_path / "a.toml"
    annotations.write_text("[tools.read_discharge]\nreturns = 'cfs'\n")
    with start(tag, options=("--annotations", str(annotations)), guarded=True) as p:
        handshake(p)
        r = p.call(1, "tools/call", {"name": "read_discharge", "arguments": {}})
        assert r["result"]["structuredContent"] == {"value": 1250.0, "unit": "cfs"}
        assert finish(p, tag) == []
        err = p.stderr()
        assert "a stray print() while loading" in err and "a stray print() while labelling" in err


def test_junk_on_upstream_stdout_never_reaches_the_client(tag):
    with start(tag, "--junk-banner") as p:
        handshake(p)
        r = p.call(1, "tools/call", {"name": "junk", "arguments": {}})
        assert r["result"]["content"][0]["text"] == "after junk"
        rest = finish(p, tag)
        assert rest == []
        err = p.stderr()
        assert "a banner on stdout" in err and "a stray print()" in err and "dropped" in err


def test_stderr_flood_is_drained(tag):
    with start(tag, "--stderr-flood", "3000000") as p:
        handshake(p)
        assert p.call(1, "ping")["result"] == {}
        finish(p, tag)
        assert p.stderr().count("e" * 1023) >= 2900


def test_crash_mid_call_answers_every_pending_request_then_exits_nonzero(tag):
    with start(tag) as p:
        handshake(p)
        p.request(1, "tools/call", {"name": "hang", "arguments": {}})
        p.request("two", "tools/call", {"name": "hang", "arguments": {}})
        assert p.call(3, "ping")["result"] == {}
        t0 = time.monotonic()
        p.request(4, "tools/call", {"name": "crash", "arguments": {}})
        answers = [p.recv() for _ in range(3)]
        elapsed = time.monotonic() - t0
        assert sorted(map(str, (a["id"] for a in answers))) == ["1", "4", "two"]
        for a in answers:
            assert a["error"]["code"] == -32603 and "exit code 3" in a["error"]["message"]
        assert elapsed < 3.0  # budget 1 s; generous for a loaded machine
        assert p.read_eof() == []
        assert p.wait() == 1
        assert wait_gone(tag, 5.0) == []
        assert "answered 3 pending request(s)" in p.stderr()


def test_upstream_that_exits_at_once(tag):
    with Peer(proxy_argv(sys.executable, "-c", "import sys; sys.exit(5)", tag)) as p:
        assert p.read_eof() == []
        assert p.wait() == 1
        assert "exit code 5" in p.stderr()


def test_upstream_that_cannot_start():
    with Peer(proxy_argv("/nonexistent/mcp-server")) as p:
        assert p.wait() == 4
        assert "cannot start" in p.stderr()


def test_twenty_megabyte_lines_pass_both_ways(tag):
    with start(tag) as p:
        handshake(p)
        r = p.call(1, "tools/call", {"name": "big", "arguments": {"size": 20_000_000}}, timeout=60)
        assert len(r["result"]["content"][0]["text"]) == 20_000_000
        blob = "z" * 20_000_000
        r = p.call(2, "tools/call", {"name": "echo", "arguments": {"blob": blob}}, timeout=60)
        assert json.loads(r["result"]["content"][0]["text"])["blob"] == blob
        finish(p, tag)


# ------------------------------------------------------------------ malformed client input


def test_malformed_client_input_never_crashes_the_proxy(tag, tmp_path):
    log = tmp_path / "wire.log"
    with start(tag, wire_log=log) as p:
        handshake(p)
        bad = [(b"this is not json", -32700), (b"\xff\xfe\xfa", -32700), (b'{"jsonrpc":"2.0",', -32700),
               (b"12", -32600), (b'"str"', -32600), (b"null", -32600), (b"{}", -32600), (b"[]", -32600)]
        for raw, code in bad:
            p.send_raw(raw + b"\n")
            answer = p.recv()
            assert answer["error"]["code"] == code and answer["id"] is None
        p.send_raw(b"\n\n")  # blank lines are ignored
        # a batch without guarded calls is forwarded; this upstream ignores arrays
        p.send_raw(b'[{"jsonrpc":"2.0","method":"notifications/x"}]\n')
        assert p.call(1, "ping")["result"] == {}
        finish(p, tag)
    wire = log.read_bytes()
    assert b"not json" not in wire and b"\xff" not in wire and b"[{" in wire


# ------------------------------------------------------------------ shutdown


def test_client_eof_with_a_well_behaved_upstream(tag):
    with start(tag) as p:
        handshake(p)
        t0 = time.monotonic()
        finish(p, tag)
        assert time.monotonic() - t0 < 1.5


def test_upstream_ignoring_eof_and_sigterm_is_killed_with_its_tree(tag):
    with start(tag, "--ignore-eof", "--ignore-term", "--spawn-child") as p:
        handshake(p)
        assert len(wait_count(tag, 3)) >= 3  # proxy, upstream, grandchild
        t0 = time.monotonic()
        p.close_stdin()
        assert p.read_eof() == []
        assert p.wait() == 0
        assert wait_gone(tag, 1.5) == []
        assert time.monotonic() - t0 < 2.5  # 1.5 s budget; slack for a loaded machine


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_signal_to_the_proxy_stops_the_upstream_tree(tag, sig):
    with start(tag, "--ignore-term", "--spawn-child") as p:
        handshake(p)
        assert len(wait_count(tag, 3)) >= 3
        os.kill(p.proc.pid, sig)
        assert p.wait() == 128 + sig
        assert wait_gone(tag, 3.0) == []


def test_proxy_exits_when_its_parent_dies(tag):
    # The launcher starts the proxy with a stdin pipe that we (not the launcher) hold open, waits
    # until the upstream tree is up, and exits: the proxy is orphaned without seeing EOF.
    r, w = os.pipe()
    launcher = (
        "import subprocess, sys, time\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "from mcp_peers.driver import wait_count\n"
        "p = subprocess.Popen(sys.argv[3:], stdin=%d, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,"
        " pass_fds=(%d,))\n"
        "wait_count(sys.argv[2], 3)\n"
        "print(p.pid, flush=True)\n") % (r, r)
    argv = [sys.executable, "-c", launcher, str(Path(__file__).parent), tag,
            *proxy_argv(*fault_argv(tag, "--spawn-child"))]
    try:
        out = subprocess.run(argv, env=env(), stdout=subprocess.PIPE, timeout=60, pass_fds=(r,))
        assert int(out.stdout.split()[0]) > 0
        assert wait_gone(tag, 10.0) == []
    finally:
        os.close(r)
        os.close(w)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize("upstream_flags", [(), ("--ignore-term", "--spawn-child")])
def test_signal_with_calls_in_flight_answers_each_then_exits(tag, sig, upstream_flags):
    # issue #12, defect 5: every pending request gets a JSON-RPC error, the upstream's group is
    # stopped and the proxy exits 128+signal, within 1 s of the signal
    with start(tag, *upstream_flags) as p:
        handshake(p)
        p.request(1, "tools/call", {"name": "hang", "arguments": {}})
        p.request("two", "tools/call", {"name": "hang", "arguments": {}})
        assert p.call(3, "ping") == {"jsonrpc": "2.0", "id": 3, "result": {}}  # both are upstream
        t0 = time.monotonic()
        os.kill(p.proc.pid, sig)
        answers = [json.loads(line) for line in p.read_eof(5.0)]
        assert p.wait(5.0) == 128 + sig
        elapsed = time.monotonic() - t0
        assert sorted(map(str, (a["id"] for a in answers))) == ["1", "two"]
        for a in answers:
            assert a["error"]["code"] == -32603
            assert f"received {signal.Signals(sig).name}" in a["error"]["message"]
            assert "tools/call" in a["error"]["message"]
        assert wait_gone(tag, 1.0) == []
        assert elapsed < 1.0 + 0.5, elapsed  # 1 s budget; half a second for a loaded machine


# ------------------------------------------------------------------ bounded reads (issue #18 item 9)


def test_over_limit_lines_are_answered_with_the_limit_and_the_stream_goes_on(tag):
    with start(tag, options=("--max-message-size", "1MiB")) as p:
        handshake(p)
        r = p.call(1, "tools/call", {"name": "big", "arguments": {"size": 2_000_000}}, timeout=60)
        assert r["id"] == 1 and r["error"]["code"] == -32603
        assert "maximum message size of 1,048,576 bytes" in r["error"]["message"]
        assert "--max-message-size" in r["error"]["message"]
        r = p.call(2, "tools/call", {"name": "echo", "arguments": {"blob": "z" * 2_000_000}}, timeout=60)
        assert r["id"] == 2 and r["error"]["code"] == -32600
        assert "maximum message size of 1,048,576 bytes" in r["error"]["message"]
        # both streams survive: the next lines, just under the limit both ways, pass
        blob = "y" * 1_000_000
        r = p.call(3, "tools/call", {"name": "echo", "arguments": {"blob": blob}}, timeout=60)
        assert json.loads(r["result"]["content"][0]["text"])["blob"] == blob
        assert p.call(4, "ping")["result"] == {}
        finish(p, tag)
        assert "over the proxy's maximum message size" in p.stderr()


def test_the_max_message_size_option_is_validated(tag):
    proc = subprocess.run(proxy_argv(*fault_argv(tag), options=("--max-message-size", "lots")),
                          capture_output=True, env=env(), timeout=30)
    assert proc.returncode == 2 and proc.stdout == b""
    assert b"--max-message-size must be a positive number of bytes" in proc.stderr
