"""quantity-guard-mcp's stderr is the quantity_guard logger: refusals at WARNING, its life cycle
at INFO, conversions at DEBUG, ``--log-level`` choosing; a warn-mode proxy says, when it
exits, what it would have refused. A real proxy process in front of the stdlib upstream."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers.driver import Peer, env, fault_argv, init_params, new_tag, proxy_argv, reap  # noqa: E402
from mcp_peers import annotation_texts  # noqa: E402

ANNOTATIONS = annotation_texts.RUNOFF
CALLS = [("read_discharge", {"site": "07374000"}),
         ("runoff", {"discharge": 1250, "area": 2}),          # a carry-over
         ("runoff", {"discharge": "1250 cfs", "area": 2}),    # converted
         ("runoff", {"discharge": "3 m", "area": 2})]         # a length for a flow


@pytest.fixture
def annotations(tmp_path):
    path = tmp_path / "water.toml"
    path.write_text(ANNOTATIONS)
    return str(path)


def run(annotations: str, *options: str) -> tuple[list[dict], list[str]]:
    """The calls made one after another; (their results, the proxy's stderr lines)."""
    tag = new_tag()
    try:
        p = Peer(proxy_argv(*fault_argv(tag), options=("--annotations", annotations, *options)))
        p.call(0, "initialize", init_params())
        p.notify("notifications/initialized")
        results = [p.call(i + 1, "tools/call", {"name": name, "arguments": arguments})["result"]
                   for i, (name, arguments) in enumerate(CALLS)]
        p.close_stdin()
        p.read_eof()
        assert p.wait() == 0, p.stderr()
        return results, p.stderr().splitlines()
    finally:
        reap(tag)


def test_by_default_refusals_and_the_life_cycle_reach_stderr(annotations):
    results, lines = run(annotations)
    assert [r.get("isError", False) for r in results] == [False, True, False, True]
    refusals = [line for line in lines if " refused " in line]
    assert refusals == [  # no payload (the values refused) unless asked
        "quantity-guard-mcp: runoff refused runoff.discharge [unconverted_carry_over]",
        "quantity-guard-mcp: runoff refused runoff.discharge [dimensionality_error]"]
    assert lines[0].startswith("quantity-guard-mcp: relaying between the client and ")
    assert lines[-1] == "quantity-guard-mcp: stopped (exit status 0)"
    assert not [line for line in lines if " converted discharge from " in line]  # DEBUG


def test_log_level_debug_adds_each_conversion_and_warning_drops_the_life_cycle(annotations):
    _, lines = run(annotations, "--log-level", "DEBUG")
    assert "quantity-guard-mcp: runoff converted discharge from cfs to m3/s" in lines
    _, lines = run(annotations, "--log-level", "WARNING")
    assert [line.split(" [")[0] for line in lines] == [
        "quantity-guard-mcp: runoff refused runoff.discharge"] * 2


def test_a_warn_mode_proxy_says_what_it_would_have_refused_when_it_exits(annotations):
    results, lines = run(annotations, "--enforcement", "warn")
    assert not any(r.get("isError", False) for r in results)  # nothing was refused
    would = [line for line in lines if "would refuse (warn)" in line]
    assert [line.split("[")[1].split("]")[0] for line in would] == [
        "unconverted_carry_over", "dimensionality_error"]
    assert lines[-1] == ("quantity-guard-mcp: warn mode: 2 of 4 guarded call(s) would have been "
                         "refused (1x dimensionality_error, 1x unconverted_carry_over); nothing "
                         "was refused")


def test_an_unknown_log_level_is_a_usage_error(annotations):
    out = subprocess.run([sys.executable, "-m", "quantity_guard.mcp", "--log-level", "LOUD",
                          "--annotations", annotations, "--", sys.executable, "-c", "pass"],
                         capture_output=True, text=True, env=env(), timeout=60)
    assert out.returncode == 2
    assert "--log-level must be one of DEBUG, INFO, WARNING, ERROR, not 'LOUD'" in out.stderr
