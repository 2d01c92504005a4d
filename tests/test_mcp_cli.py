"""quantity-guard-mcp's command line: parsing, exit codes, policy loading, --check."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from mcp_peers import fake_policy  # noqa: E402
from mcp_peers.driver import (  # noqa: E402
    GUARDED_PROXY, Peer, env, fault_argv, init_params, new_tag, proxy_argv, reap, wait_gone)

from quantity_guard import __version__  # noqa: E402
from quantity_guard.mcp import cli  # noqa: E402


@pytest.mark.parametrize("argv,command", [
    (["--", "python", "-m", "srv"], ["python", "-m", "srv"]),
    (["python", "-m", "srv"], ["python", "-m", "srv"]),
    (["--annotations", "a.toml", "python", "srv.py", "--log", "x"], ["python", "srv.py", "--log", "x"]),
    (["--annotations=a.toml", "--enforcement=warn", "--", "--weird-cmd"], ["--weird-cmd"]),
    (["--annotations", "a.toml", "--", "python", "--", "x"], ["python", "--", "x"]),
])
def test_parse_command(argv, command):
    assert cli.parse_args(argv).command == command


def test_parse_options():
    o = cli.parse_args(["--annotations", "w.toml", "--enforcement", "warn", "--log", "l.jsonl",
                        "--manifest=m.json", "--check", "srv"])
    assert (o.annotations, o.enforcement, o.log, o.manifest, o.check) == ("w.toml", "warn", "l.jsonl", "m.json", True)


@pytest.mark.parametrize("argv", [
    [], ["--"], ["--annotations"], ["--annotations", "a", "--enforcement", "lax", "srv"], ["--bogus", "srv"],
    ["--log", "x", "srv"], ["--manifest", "x", "srv"], ["--check", "srv"], ["--enforcement", "warn", "srv"],
    ["--annotations="],
])
def test_usage_errors(argv, capsys):
    assert cli.main(argv) == cli.EXIT_USAGE
    err = capsys.readouterr()
    assert err.out == "" and "error" in err.err


def test_help_and_version(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "exit status" in out and "--annotations" in out
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out == f"quantity-guard-mcp {__version__}\n"


def test_missing_policy_module_is_a_clear_configuration_error(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "quantity_guard.mcp.policy", None)  # as if it did not exist
    marker = tmp_path / "started"
    assert cli.main(["--annotations", "w.toml", "--", sys.executable, "-c",
                     f"open({str(marker)!r}, 'w')"]) == cli.EXIT_CONFIG
    assert "quantity_guard.mcp.policy" in capsys.readouterr().err
    assert not marker.exists()


def test_bad_annotations_are_reported_before_the_upstream_starts(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "quantity_guard.mcp.policy", fake_policy)
    bad = tmp_path / "bad.toml"
    bad.write_text("INVALID\n")
    marker = tmp_path / "started"
    assert cli.main(["--annotations", str(bad), sys.executable, "-c", f"open({str(marker)!r}, 'w')"]) == cli.EXIT_CONFIG
    err = capsys.readouterr().err
    assert "bad.toml:1: unknown unit" in err
    assert not marker.exists()


def run_check(*args, timeout=60):
    return subprocess.run([sys.executable, GUARDED_PROXY, *args], env=env(), capture_output=True,
                          timeout=timeout, text=True)


@pytest.fixture
def annotations(tmp_path):
    f = tmp_path / "water.toml"
    f.write_text("[tools.runoff.params]\ndischarge = 'm**3/s'\n")
    return str(f)


@pytest.mark.parametrize("flags,era", [((), "modern"), (("--legacy-only", "--page-size", "2"), "legacy")])
def test_check_lists_every_page_of_a_live_server(annotations, flags, era):
    tag = new_tag()
    try:
        r = run_check("--annotations", annotations, "--check", "--", *fault_argv(tag, *flags))
        assert r.returncode == 0, r.stderr
        assert r.stdout == "checked 11 tools: ok\n"
        assert f"11 tool(s) ({era} era)" in r.stderr
        assert wait_gone(tag, 5.0) == []
    finally:
        reap(tag)


def test_check_reports_problems(annotations):
    toolbox = [sys.executable, "-m", "quantity_guard.mcp.server", "mcp_peers.toolbox:toolbox"]
    r = subprocess.run([sys.executable, GUARDED_PROXY, "--annotations", annotations, "--check", *toolbox],
                       env=env(PYTHONPATH=str(Path(__file__).parent) + ":" + env()["PYTHONPATH"]),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == cli.EXIT_CHECK, r.stderr
    assert "unknown tool 'runoff'" in r.stdout and "unknown tool 'read_discharge'" in r.stdout


def test_check_with_a_server_that_cannot_start_or_dies(annotations):
    assert run_check("--annotations", annotations, "--check", "/nonexistent/server").returncode == cli.EXIT_START
    r = run_check("--annotations", annotations, "--check", sys.executable, "-c", "pass")
    assert r.returncode == cli.EXIT_UPSTREAM and "could not list" in r.stderr


def test_enforcement_and_log_reach_the_policy(tmp_path, annotations):
    """--enforcement warn is handed to the policy (the fake one then forwards a bad area)."""
    tag = new_tag()
    log = tmp_path / "guard.jsonl"
    manifest = tmp_path / "manifest.json"
    argv = proxy_argv(*fault_argv(tag), guarded=True,
                      options=("--annotations", annotations, "--enforcement", "warn", "--log", str(log),
                               "--manifest", str(manifest)))
    try:
        with Peer(argv) as p:
            p.call(0, "initialize", init_params())
            r = p.call(1, "tools/call", {"name": "runoff", "arguments": {"discharge": 1, "area": -1}})
            assert json.loads(r["result"]["content"][0]["text"]) == {"received": {"discharge": 1, "area": -1}}
            p.close_stdin()
            assert p.wait() == 0
        m = json.loads(manifest.read_text())
        assert m["enforcement"] == "warn" and m["log_path"] == str(log) and m["resets"] == 1
    finally:
        reap(tag)


def test_the_mcp_package_needs_nothing_outside_the_standard_library():
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})\n"
        "import quantity_guard.mcp\n"
        "assert 'quantity_guard.mcp.guard' not in sys.modules  # import-light\n"
        "import quantity_guard.mcp.cli, quantity_guard.mcp.guard, quantity_guard.mcp.stdio\n"
        "import quantity_guard.mcp.server, quantity_guard.mcp.jsonrpc, quantity_guard.mcp.__main__\n"
        "names = {m.split('.')[0] for m in sys.modules}\n"
        "extra = sorted(n for n in names - set(sys.stdlib_module_names) - set(sys.builtin_module_names)\n"
        "               if n not in ('quantity_guard', '__main__'))\n"
        "assert not extra, extra\n")
    r = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_the_proxy_runs_isolated_without_site_packages(tmp_path):
    tag = new_tag()
    launcher = (f"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r}); "
                "from quantity_guard.mcp.cli import main; sys.exit(main())")
    argv = [sys.executable, "-I", "-S", "-c", launcher, "--", *fault_argv(tag)]
    try:
        with Peer(argv) as p:
            assert p.call(0, "initialize", init_params())["result"]["serverInfo"]["name"] == "fault-server"
            assert p.call(1, "tools/call", {"name": "echo", "arguments": {"x": 1}})["result"]
            p.close_stdin()
            assert p.read_eof() == [] and p.wait() == 0
            assert wait_gone(tag, 5.0) == []
    finally:
        reap(tag)


@pytest.mark.parametrize("text, size", [("65536", 65536), ("64MiB", 64 << 20), ("1 GiB", 1 << 30),
                                        ("512K", 512 << 10), ("2m", 2 << 20)])
def test_max_message_size_forms(text, size):
    from quantity_guard.mcp.cli import parse_args
    assert parse_args(["--max-message-size", text, "server"]).max_message_size == size
    assert parse_args([f"--max-message-size={text}", "server"]).max_message_size == size


@pytest.mark.parametrize("text", ["0", "-1", "lots", "5TB", "1.5M", "MiB"])
def test_max_message_size_refuses_what_is_not_a_size(text):
    from quantity_guard.mcp.cli import UsageError, parse_args
    with pytest.raises(UsageError, match="positive number of bytes"):
        parse_args(["--max-message-size", text, "server"])
