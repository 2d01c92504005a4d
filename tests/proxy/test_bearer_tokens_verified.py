"""--listen with a key set (--jwks-file, --jwks-url): the options go together or are refused with
what to add; a token that does not verify gets 401 with the reason, on the request's head,
before its body is read; the JWT check authenticates an exposed proxy; and verification is the
jwt extra's, imported on use: without it the proxy says which extra to install, and nothing
else imports it."""
from __future__ import annotations

import http.client
import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from jwt_keys import AUDIENCE, ISSUER, Issuer  # noqa: E402
from mcp_peers.driver import FAULT_SERVER, env, new_tag, reap  # noqa: E402

KEYS = ("--jwt-issuer", ISSUER, "--jwt-audience", AUDIENCE)
INIT = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}).encode()


@pytest.fixture(scope="module")
def issuer():
    return Issuer()


@pytest.fixture
def key_file(tmp_path, issuer):
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps(issuer.jwks()))
    return str(path)


def _cli(*argv, prelude: str = "", **extra_env):
    code = (f"import sys; {prelude}\nfrom quantity_guard.mcp.cli import main\n"
            "sys.exit(main(sys.argv[1:]))")
    return subprocess.run([sys.executable, "-c", code, *argv, "--", sys.executable, "-c", "pass"],
                          capture_output=True, text=True, env=env(**extra_env), timeout=30,
                          stdin=subprocess.DEVNULL, check=False)


@pytest.mark.parametrize("argv,says", [
    (["--listen", "0", "--jwt-issuer", ISSUER], "add --jwks-file FILE or --jwks-url URL"),
    (["--listen", "0", "--jwks-file", "k.json"], "needs --jwt-issuer ISS and --jwt-audience AUD"),
    (["--listen", "0", "--jwks-file", "k.json", "--jwt-issuer", ISSUER],
     "needs --jwt-issuer ISS and --jwt-audience AUD"),
    (["--jwks-file", "k.json", *KEYS], "it needs --listen"),
    (["--listen", "0", "--jwks-url", "http://idp.example/jwks", *KEYS], "give an https URL"),
    (["--listen", "0", "--jwks-file", "k.json", *KEYS, "--client-token-env", "QG_TOKEN"],
     "give one of them"),
    (["--listen", "0", "--jwks-file", "k.json", *KEYS, "--jwt-algorithms", "RS256,none"],
     "none is never accepted"),
    (["--listen", "0", "--jwks-file", "k.json", *KEYS, "--jwt-algorithms", "HS256"],
     "shared-secret"),
    (["--listen", "0", "--jwks-file", "k.json", *KEYS, "--jwks-refresh", "0"], "--jwks-refresh"),
    (["--listen", "0", "--jwks-file", "k.json", *KEYS, "--jwks-refresh", "29"], "at least 30"),
])
def test_the_key_set_options_go_together(argv, says):
    done = _cli(*argv, QG_TOKEN="0123456789abcdef0123")
    assert done.returncode == 2 and says in done.stderr, done.stderr
    assert "serving MCP" not in done.stderr


def test_a_key_set_that_cannot_be_read_stops_the_start(tmp_path):
    done = _cli("--listen", "0", "--jwks-file", str(tmp_path / "absent.json"), *KEYS)
    assert done.returncode == 3 and "absent.json" in done.stderr and "No such file" in done.stderr


def test_without_the_jwt_extra_the_proxy_names_it(key_file):
    done = _cli("--listen", "0", "--jwks-file", key_file, *KEYS, prelude="sys.modules['jwt'] = None")
    assert done.returncode == 3, done.stderr
    assert "pip install 'quantity-guard[jwt]'" in done.stderr and "Traceback" not in done.stderr


def test_nothing_imports_pyjwt_unless_a_key_set_is_given():
    code = ("import sys, quantity_guard.mcp.cli, quantity_guard.mcp.http.listen, "
            "quantity_guard.mcp.gateway, quantity_guard.mcp.identity; print('jwt' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env(),
                          timeout=30, check=False)
    assert done.stdout.strip() == "False", done.stderr


@pytest.fixture
def listening(key_file):
    tag = new_tag()
    proc = subprocess.Popen([sys.executable, "-m", "quantity_guard.mcp", "--listen", "0",
                             "--jwks-file", key_file, *KEYS, "--",
                             sys.executable, FAULT_SERVER, "--tag", tag],
                            stderr=subprocess.PIPE, text=True, env=env())
    line = proc.stderr.readline()
    assert "serving MCP" in line, line
    yield int(line.strip().rsplit(":", 1)[1].split("/")[0])
    proc.terminate()
    proc.wait(10)
    reap(tag)


def _answer(port: int, headers: dict, body: bytes = INIT,
            declared: int | None = None) -> tuple[int, dict, bytes]:
    """POST the head; the body only when ``declared`` is not given (a head announcing
    ``declared`` bytes and no byte of them sent: the answer must come from the head alone)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest("POST", "/mcp", skip_accept_encoding=True)
        for name, value in {"Content-Type": "application/json", "Accept": "application/json",
                            "Content-Length": str(len(body) if declared is None else declared),
                            **headers}.items():
            conn.putheader(name, value)
        conn.endheaders(body if declared is None else None)
        resp = conn.getresponse()  # a timeout here fails the test: the proxy waited for the body
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def test_a_token_that_verifies_is_served_and_no_other(listening, issuer):
    status, _, body = _answer(listening, {"Authorization": f"Bearer {issuer.token()}"})
    assert status == 200, body[:200]
    for token, says in ((Issuer().token(), "signature does not verify"),
                        (issuer.unsigned(), "'none' is not accepted"),
                        (issuer.hmac_with_public_key(), "'HS256' is not accepted")):
        status, head, body = _answer(listening, {"Authorization": f"Bearer {token}"},
                                     declared=16 << 20)  # 16 MiB announced, none sent
        assert status == 401 and says in json.loads(body)["error"]["message"], body[:400]
        assert 'error="invalid_token"' in head["www-authenticate"]
    status, head, _ = _answer(listening, {})
    assert status == 401 and head["www-authenticate"] == 'Bearer realm="quantity-guard-mcp"'


def test_a_key_set_authenticates_an_exposed_proxy(key_file):
    proc = subprocess.Popen([sys.executable, "-m", "quantity_guard.mcp", "--listen", "0.0.0.0:0",
                             "--allow-remote", "--allow-host", "mcp.example", "--jwks-file",
                             key_file, *KEYS, "--", sys.executable, "-c", "import time; time.sleep(30)"],
                            stderr=subprocess.PIPE, text=True, env=env())
    try:
        first, second = proc.stderr.readline(), proc.stderr.readline()
        assert "serving MCP" in first, first
        assert "clients must send a bearer JWT the key set verifies" in second, second
    finally:
        proc.terminate()
        proc.wait(10)


def test_only_the_oauth_discovery_documents_are_asked_for_without_a_token(listening):
    """A client fetches them before it has a token (RFC 9728); everything else needs one."""
    def get(path: str) -> int:
        conn = http.client.HTTPConnection("127.0.0.1", listening, timeout=10)
        try:
            conn.request("GET", path)
            return conn.getresponse().status
        finally:
            conn.close()
    # (a COMMAND upstream has no documents to relay: past the token check, the path is unknown)
    assert get("/.well-known/oauth-protected-resource") == 404
    assert get("/mcp") == 401
    assert get("/elsewhere") == 401
