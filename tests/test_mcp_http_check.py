"""--check --upstream URL: initialize and tools/list over Streamable HTTP against the SDK's HTTP
server (tests/mcp_peers/http_server.py), then the same report as --check with a COMMAND."""
from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")
pytest.importorskip("uvicorn")

sys.path.insert(0, str(Path(__file__).parent))
from mcp_peers.driver import SDK_SERVER, env  # noqa: E402
from test_mcp_http_upstream import HTTPServer  # noqa: E402

from quantity_guard.mcp import cli  # noqa: E402


@pytest.fixture(scope="module")
def server():
    s = HTTPServer()
    yield s
    s.stop()


def check(*argv):
    return subprocess.run([sys.executable, "-m", "quantity_guard.mcp", "--check", *argv],
                          capture_output=True, text=True, env=env(), timeout=60, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("text,code", [
    ("[tools.runoff.params]\ndischarge = 'm**3/s'\n", cli.EXIT_OK),
    ("[tools.runof.params]\ndischarge = 'm**3/s'\n[tools.runoff.params]\nflow = 'm**3/s'\n", cli.EXIT_CHECK),
])
def test_check_over_http_gives_the_same_report_as_over_stdio(server, tmp_path, text, code):
    annotations = tmp_path / "water.toml"
    annotations.write_text(text)
    over_http = check("--annotations", str(annotations), "--upstream", server.url)
    over_stdio = check("--annotations", str(annotations), "--", sys.executable, SDK_SERVER)
    assert over_http.returncode == over_stdio.returncode == code, over_http.stderr
    assert over_http.stdout == over_stdio.stdout and over_http.stdout.strip()
    assert "tool(s) (legacy era)" in over_http.stderr


def test_check_over_http_reports_an_unreachable_server(tmp_path):
    annotations = tmp_path / "water.toml"
    annotations.write_text("[tools.runoff.params]\ndischarge = 'm**3/s'\n")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = check("--annotations", str(annotations), "--upstream", f"http://127.0.0.1:{port}/mcp")
    assert r.returncode == cli.EXIT_UPSTREAM
    assert f"could not list the tools of http://127.0.0.1:{port}/mcp" in r.stderr


def test_check_does_not_go_with_listen(server, tmp_path):
    annotations = tmp_path / "water.toml"
    annotations.write_text("[tools.runoff.params]\ndischarge = 'm**3/s'\n")
    r = check("--annotations", str(annotations), "--upstream", server.url, "--listen", "0")
    assert r.returncode == cli.EXIT_USAGE and "does not go with --listen" in r.stderr
