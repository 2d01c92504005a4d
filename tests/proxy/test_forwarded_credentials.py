"""--listen --upstream URL --forward-header Authorization: the client's credentials go on every
upstream request of its session, the ones the proxy sends on its own included (the
notifications and answers it posts, the GET stream, DELETE), and the upstream's refusal of a
notification or of DELETE reaches the client instead of a 202/204."""
from __future__ import annotations

import json
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers import http_fault_server  # noqa: E402

INIT = {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "raw", "version": "1"}}
TOKEN = "Bearer client-token"


@pytest.fixture
def upstream():
    with http_fault_server.serving() as (recorder, url):
        recorder.required_auth = TOKEN
        yield recorder, url


def _listen(url, *options):
    pytest.importorskip("mcp")
    from test_mcp_http_listen import Listening
    return Listening(*options, "--upstream", url)


def _raw(port, method, body=b"", headers=None):
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    h = {"Content-Type": "application/json", "Accept": "application/json"}
    h.update(headers or {})
    conn.request(method, "/mcp", body=body, headers=h)
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data


def _msg(**fields) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **fields}).encode()


def _wait_for(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


@contextmanager
def _forwarding_session(url):
    """A --listen proxy in front of ``url`` forwarding Authorization, and a session initialized
    through it with the client's token: (the proxy, the session id)."""
    p = _listen(url, "--forward-header", "Authorization")
    try:
        status, headers, _ = _raw(p.port, "POST", _msg(id=0, method="initialize", params=INIT),
                                  {"Authorization": TOKEN})
        assert status == 200
        yield p, headers["mcp-session-id"]
    finally:
        p.stop()


def test_every_upstream_request_of_the_session_carries_the_forwarded_credentials(upstream):
    recorder, url = upstream
    with _forwarding_session(url) as (p, session_id):
        sid = {"Mcp-Session-Id": session_id, "Authorization": TOKEN}
        status, _, _ = _raw(p.port, "POST", _msg(method="notifications/initialized"), sid)
        assert status == 202
        # the proxy opens the upstream GET stream on its own after notifications/initialized
        assert _wait_for(lambda: recorder.of("GET"))
        status, _, data = _raw(p.port, "POST", _msg(id=1, method="tools/call",
                                                    params={"name": "ok", "arguments": {}}), sid)
        assert status == 200 and "result" in json.loads(data)
        # the client's answer to a request of the server (elicitation, sampling, roots)
        status, _, _ = _raw(p.port, "POST", _msg(id="srv-1", result={"action": "decline"}), sid)
        assert status == 202
        status, _, _ = _raw(p.port, "POST", _msg(method="notifications/cancelled",
                                                 params={"requestId": 99}), sid)
        assert status == 202
        status, _, _ = _raw(p.port, "DELETE", b"", sid)
        assert status == 204
        methods = [m for m, _, _ in recorder.requests]
        assert methods.count("POST") == 5 and "GET" in methods and "DELETE" in methods
        missing = [(m, b[:60]) for m, h, b in recorder.requests if h.get("authorization") != TOKEN]
        assert missing == []


def test_the_upstreams_refusal_of_a_notification_and_of_delete_reaches_the_client(upstream):
    _, url = upstream
    with _forwarding_session(url) as (p, session_id):
        sid = {"Mcp-Session-Id": session_id, "Authorization": "Bearer revoked"}
        status, headers, _ = _raw(p.port, "POST", _msg(method="notifications/initialized"), sid)
        assert status == 401
        assert headers["www-authenticate"] == 'Bearer error="invalid_token"'
        status, headers, _ = _raw(p.port, "POST", _msg(id="srv-1", result={}), sid)
        assert status == 401
        status, headers, _ = _raw(p.port, "DELETE", b"", sid)
        assert status == 401 and "www-authenticate" in headers
