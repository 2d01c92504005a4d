"""quantity-guard-mcp --upstream URL against a fault-injecting HTTP upstream
(tests/mcp_peers/http_fault_server.py): session ids, version and auth headers, resumption,
DELETE at exit, and every failure answered with a JSON-RPC error carrying the request's id."""
from __future__ import annotations

import json
import os
import socket
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from mcp_peers import http_fault_server  # noqa: E402
from mcp_peers.driver import upstream_bridge as proxy  # noqa: E402

INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}


@pytest.fixture
def upstream():
    with http_fault_server.serving() as served:
        yield served


def init(p):
    r = p.call(0, "initialize", INIT)
    assert r["result"]["serverInfo"]["name"] == "fault-http"
    p.notify("notifications/initialized")


def call(p, ident, name):
    return p.call(ident, "tools/call", {"name": name, "arguments": {}})


def finish(p):
    p.close_stdin()
    rest = p.read_eof()
    assert p.wait() == 0, p.stderr()
    return rest


@contextmanager
def session(url, *options, **extra_env):
    """The proxy in front of ``url``, initialized; after the block, it ends cleanly at the end
    of its input (``finish``)."""
    with proxy(url, *options, **extra_env) as p:
        init(p)
        yield p
        finish(p)


def test_session_id_version_and_static_headers_are_sent_and_the_session_deleted(upstream):
    recorder, url = upstream
    with proxy(url, "--header-env", "Authorization=QG_TEST_TOKEN", QG_TEST_TOKEN="Bearer s3cret") as p:
        init(p)
        r = call(p, 1, "ok")
        seen = json.loads(r["result"]["content"][0]["text"])
        assert seen["mcp-session-id"] == "sess-1"
        assert seen["mcp-protocol-version"] == "2025-11-25"
        assert seen["accept"] == "application/json, text/event-stream"
        assert seen["authorization"] == "Bearer s3cret"
        finish(p)
        assert "s3cret" not in p.stderr()
    first = recorder.of("POST")[0][1]
    assert "mcp-session-id" not in first and "mcp-protocol-version" not in first
    deletes = recorder.of("DELETE")
    assert len(deletes) == 1 and deletes[0][1]["mcp-session-id"] == "sess-1"
    # the optional GET stream was asked for once, and 405 was taken as "none offered"
    gets = recorder.of("GET")
    assert len(gets) == 1 and gets[0][1]["accept"] == "text/event-stream"


def test_sse_events_are_relayed_in_order_with_keepalives_and_priming_events_skipped(upstream):
    _, url = upstream
    with session(url) as p:
        p.request(1, "tools/call", {"name": "sse", "arguments": {}})
        first = p.recv()
        assert first["method"] == "notifications/progress"
        assert p.recv()["result"]["content"][0]["text"] == "streamed"


@pytest.mark.parametrize("tool, expect", [
    ("html502", "HTTP 502 Bad Gateway"),
    ("notjson", "not JSON"),
    ("reset", "ended before the response arrived"),
    ("expire", "has ended (HTTP 404)"),
    ("auth", "HTTP 401"),
])
def test_failures_answer_the_request_with_its_id(upstream, tool, expect):
    _, url = upstream
    with session(url) as p:
        r = call(p, "call-7", tool)
        while "method" in r:  # a notification relayed before the failure
            r = p.recv()
        assert r["id"] == "call-7"
        assert r["error"]["code"] == -32603 and expect in r["error"]["message"], r
        if tool == "auth":
            assert r["error"]["data"]["wwwAuthenticate"].startswith("Bearer resource_metadata=")
        if tool == "expire":
            assert r["error"]["data"]["sessionExpired"] is True
        # the proxy keeps serving
        assert call(p, 8, "plain")["result"]["content"][0]["text"] == "plain"


def test_a_json_rpc_error_body_on_an_error_status_is_relayed(upstream):
    _, url = upstream
    with session(url) as p:
        r = call(p, 3, "headermm")
        assert r == {"jsonrpc": "2.0", "id": 3, "error": {"code": -32020, "message": "Header mismatch"}}


def test_a_stream_closed_after_its_priming_event_is_resumed_with_last_event_id(upstream):
    recorder, url = upstream
    with session(url) as p:
        r = call(p, 5, "resume")
        assert r["id"] == 5 and r["result"]["content"][0]["text"] == "resumed"
    resumes = [h for _, h, _ in recorder.of("GET") if "last-event-id" in h]
    assert resumes and resumes[0]["last-event-id"] == "r1" and resumes[0]["mcp-session-id"] == "sess-1"


def test_concurrent_requests_are_not_serialised(upstream):
    _, url = upstream
    with session(url) as p:
        t0 = time.monotonic()
        for i in range(10):
            p.request(100 + i, "tools/call", {"name": "slow", "arguments": {}})
        got = sorted(p.recv()["id"] for _ in range(10))
        assert got == list(range(100, 110))
        assert time.monotonic() - t0 < 6.0  # ten 1 s calls, not one after another


def test_unreachable_upstream_answers_each_request():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    with proxy(f"http://127.0.0.1:{port}/mcp") as p:
        r = p.call(0, "initialize", INIT)
        assert r["id"] == 0 and "refused the connection" in r["error"]["message"]
        finish(p)


def test_unresolvable_host_is_a_dns_error():
    with proxy("http://no-such-host.invalid/mcp") as p:
        r = p.call("x", "initialize", INIT)
        assert r["id"] == "x" and "cannot resolve the host" in r["error"]["message"]
        finish(p)


@pytest.mark.parametrize("argv, message", [
    (["--upstream", "ftp://x/mcp"], "must start with http"),
    (["--upstream", "http://user:pw@x/mcp"], "credentials in the URL"),
    (["--upstream", "http://x/mcp", "--", "cmd"], "not both"),
    (["--header-env", "Authorization=QG_UNSET_VAR", "--upstream", "http://x/mcp"], "is not set"),
    (["--header-env", "Authorization", "--upstream", "http://x/mcp"], "NAME=ENVVAR"),
    (["--forward-header", "Authorization", "--upstream", "http://x/mcp"], "needs both --listen"),
    (["--cafile", "/nonexistent.pem", "--upstream", "https://x/mcp"], "no such file"),
    (["--listen", "0", "--forward-header", "Connection", "--upstream", "http://x/mcp"], "hop-by-hop"),
    (["--listen", "0", "--forward-header", "Mcp-Session-Id", "--upstream", "http://x/mcp"], "hop-by-hop"),
    (["--listen", "nope", "--upstream", "http://x/mcp"], "port must be a number"),
])
def test_usage_errors(argv, message, capsys):
    from quantity_guard.mcp import cli
    os.environ.pop("QG_UNSET_VAR", None)
    assert cli.main(argv) == cli.EXIT_USAGE
    assert message in capsys.readouterr().err


def test_a_header_env_value_with_a_line_break_is_refused_without_showing_it(capsys, monkeypatch):
    from quantity_guard.mcp import cli
    monkeypatch.setenv("QG_EVIL", "Bearer x\r\nX-Injected: 1")
    assert cli.main(["--header-env", "Authorization=QG_EVIL", "--upstream", "http://x/mcp"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert "control character" in err and "Injected" not in err


# ------------------------------------------------------------------ TLS


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    """A self-signed certificate for localhost/127.0.0.1, made with the openssl command."""
    import shutil
    import subprocess
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command")
    d = tmp_path_factory.mktemp("tls")
    key, cert = d / "key.pem", d / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
                    "-out", str(cert), "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, capture_output=True)
    return cert, key


@pytest.fixture
def tls_upstream(certificate):
    import ssl
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(*certificate)
    with http_fault_server.serving(ctx, host="localhost") as served:
        yield served


def test_tls_upstream_with_cafile(tls_upstream, certificate):
    _, url = tls_upstream
    with session(url, "--cafile", str(certificate[0])) as p:
        assert call(p, 1, "plain")["result"]["content"][0]["text"] == "plain"


def test_tls_verification_is_on_by_default(tls_upstream):
    _, url = tls_upstream
    with proxy(url) as p:
        r = p.call(0, "initialize", INIT)
        assert r["id"] == 0 and "TLS certificate" in r["error"]["message"] and "--cafile" in r["error"]["message"]
        finish(p)


def test_malformed_sse_is_dropped_and_the_request_still_answered(upstream):
    _, url = upstream
    with proxy(url) as p:
        init(p)
        r = call(p, 9, "badsse")
        assert r["id"] == 9 and "ended before the response arrived" in r["error"]["message"]
        finish(p)
        assert "not JSON-RPC" in p.stderr()


def test_a_10_mib_result_is_relayed_whole(upstream):
    _, url = upstream
    with session(url) as p:
        r = p.call(10, "tools/call", {"name": "big", "arguments": {"size": 10 << 20}})
        assert len(r["result"]["content"][0]["text"]) == 10 << 20


# ------------------------------------------------------------------ --listen in front of this upstream


def _listen(url, *options):
    from test_mcp_http_listen import Listening
    return Listening(*options, "--upstream", url)


JSON = "application/json"  # the listener answers plain JSON, not an event stream


def _call(ident, name):
    return json.dumps({"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                       "params": {"name": name, "arguments": {}}}).encode()


@pytest.mark.parametrize("forward", [False, True])
def test_authorization_reaches_the_upstream_only_when_forwarded(upstream, forward):
    recorder, url = upstream
    p = _listen(url, *(("--forward-header", "Authorization") if forward else ()))
    try:
        body = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT}).encode()
        status, headers, _ = p.raw("POST", body, {"Authorization": "Bearer client-token"}, accept=JSON)
        assert status == 200
        sid = headers["mcp-session-id"]
        assert sid != "sess-1"  # the client sees the proxy's session id, not the upstream's
        status, _, data = p.raw("POST", _call(1, "ok"), {"Mcp-Session-Id": sid, "Authorization": "Bearer client-token"},
                               accept=JSON)
        seen = json.loads(json.loads(data)["result"]["content"][0]["text"])
        assert seen["mcp-session-id"] == "sess-1"
        assert seen.get("authorization") == ("Bearer client-token" if forward else None)
    finally:
        p.stop()


def test_401_and_protected_resource_metadata_pass_through_the_listener(upstream):
    _, url = upstream
    p = _listen(url)
    try:
        body = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT}).encode()
        sid = p.raw("POST", body, accept=JSON)[1]["mcp-session-id"]
        status, headers, _ = p.raw("POST", _call(2, "auth"), {"Mcp-Session-Id": sid}, accept=JSON)
        assert status == 401
        assert headers["www-authenticate"].startswith("Bearer resource_metadata=")
        status, _, data = p.raw("GET", path="/.well-known/oauth-protected-resource/mcp", accept=JSON)
        assert status == 200 and json.loads(data)["authorization_servers"] == ["http://auth.example"]
    finally:
        p.stop()


def test_idle_and_slow_connections_are_closed():
    """The listener in process with short timeouts: an idle connection is closed; a request
    head that never finishes gets 408."""
    import asyncio
    from quantity_guard.mcp.http.listen import Listener

    async def scenario():
        listener = Listener("127.0.0.1", 0, lambda: None, command=[sys.executable, "-c", "pass"],
                            idle_timeout=0.3, read_timeout=0.3)
        host, port = await listener.start()
        try:
            r, w = await asyncio.open_connection(host, port)
            assert await asyncio.wait_for(r.read(), 5) == b""  # closed by the proxy, nothing sent
            r, w = await asyncio.open_connection(host, port)
            w.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            data = await asyncio.wait_for(r.read(), 5)
            assert data.startswith(b"HTTP/1.1 408 ")
        finally:
            listener.stop()
            await listener.serve()

    asyncio.run(scenario())


def test_sequential_calls_reuse_one_kept_alive_connection(upstream):
    recorder, url = upstream
    with session(url) as p:
        for i in range(10):
            assert call(p, 20 + i, "plain")["id"] == 20 + i
    seen = list(zip(recorder.requests, recorder.peers))
    calls = [i for i, ((method, _, body), _) in enumerate(seen)
             if method == "POST" and b'"tools/call"' in body]
    assert len(calls) == 10 and all(peer is not None for _, peer in seen)
    # kept alive: after the first, no call opened a connection of its own; each went over one that
    # had carried an earlier request (the handshake's, or the optional GET stream's once refused)
    for i in calls[1:]:
        assert seen[i][1] in {peer for _, peer in seen[:i]}, f"call {i} opened a new connection"


def test_a_2025_03_26_batch_is_posted_whole_and_its_answers_relayed(upstream):
    recorder, url = upstream
    with session(url) as p:
        batch = [{"jsonrpc": "2.0", "id": 40, "method": "tools/call", "params": {"name": "a", "arguments": {}}},
                 {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}},
                 {"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {"name": "b", "arguments": {}}}]
        p.send_raw(json.dumps(batch).encode() + b"\n")
        answer = json.loads(p.recv_raw())
        assert [(m["id"], m["result"]["content"][0]["text"]) for m in answer] == [(40, "a"), (41, "b")]
    assert [json.loads(body) for _, _, body in recorder.of("POST")][-2:] == [
        {"jsonrpc": "2.0", "method": "notifications/initialized"}, batch]


def test_messages_reach_the_server_in_the_clients_order_when_a_notification_is_slow(upstream):
    # Each POST has its own task; a request must still not overtake the notifications/initialized
    # before it (a server that is still handling that notification refuses the request).
    recorder, url = upstream
    recorder.notification_delay = 0.3
    with session(url) as p:
        answer = call(p, 1, "ok")
        assert "result" in answer, answer
        # a notification after a request does not wait for the request's answer
        p.send_raw(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                               "params": {"name": "slow", "arguments": {}}}).encode() + b"\n")
        p.notify("notifications/progress", {"progressToken": 9, "progress": 1})
        time.sleep(0.6)  # the slow call answers after 1 s; the notification is already there
        methods = [json.loads(body).get("method") for _, _, body in recorder.of("POST")]
        assert sorted(methods[3:]) == ["notifications/progress", "tools/call"], methods
        assert json.loads(p.recv_raw())["id"] == 2
    methods = [json.loads(body).get("method") for _, _, body in recorder.of("POST")]
    assert methods[:3] == ["initialize", "notifications/initialized", "tools/call"] and len(methods) == 5
