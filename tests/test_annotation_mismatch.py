"""Annotation mistakes are never silent: a mistyped field is refused at its line, and a tool or
parameter the server does not list is warned about when the proxy first relays tools/list (on
stderr and in --log), or refused before start-up with --strict-annotations."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from quantity_guard.annotations import AnnotationError, loads
from quantity_guard.mcp import cli

ROOT = Path(__file__).resolve().parent.parent
SERVER = [sys.executable, str(ROOT / "demo" / "usgs_server.py")]

MISSPELT = """
[tools.read_dischrge]
returns = { unit = "cfs" }

[tools.runoff_depth.params]
dischage = { unit = "m**3/s" }
area = { unit = "km**2" }
"""


@pytest.mark.parametrize("text,line,needle", [
    ('[tools.a.params]\nx = { unit = "m", sourced = "no" }\n', 2,
     "tools.a.x.sourced: sourced must be a boolean, received the string 'no'; write "
     "sourced = true or sourced = false"),
    ('[tools.a.params.x]\nunit = "m"\n\noptional = 1\n', 4,
     "tools.a.x.optional: optional must be a boolean, received int 1"),
    ('[tools.a.params]\nx = { unit = "m", require_explicit_unit = "false" }\n', 2,
     "require_explicit_unit must be a boolean, received the string 'false'"),
    ('[tools.a]\nreturns = { unit = 5 }\n', 2,
     'tools.a.returns.unit: unit must be a unit string such as "m**3/s", received int 5'),
    ('[tools.a]\nreturns = { flow = { unit = "cfs", datum = 3 } }\n', 2,
     "tools.a.returns.flow.datum: datum must be a string, received int 3"),
])
def test_a_field_of_the_wrong_type_is_refused_at_its_line(text, line, needle):
    with pytest.raises(AnnotationError) as err:
        loads(text)
    (problem,) = err.value.problems
    assert problem.startswith(f"line {line}: ") and needle in problem, problem


def test_a_flag_given_as_a_string_is_refused_in_json_too():
    doc = {"tools": {"a": {"params": {"x": {"unit": "m", "sourced": "yes"}}}}}
    with pytest.raises(AnnotationError, match="sourced must be a boolean, received the string 'yes'"):
        loads(json.dumps(doc, indent=1), kind="json")


def test_a_flag_given_as_a_string_is_refused_by_spec():
    from quantity_guard import InvalidArguments, Spec
    with pytest.raises(InvalidArguments, match="sourced must be a boolean"):
        Spec("m", sourced="no")


def _list_tools(argv: list[str], tmp_path: Path) -> tuple[list[dict], str, int]:
    proc = subprocess.Popen([sys.executable, "-m", "quantity_guard.mcp.cli", *argv, "--", *SERVER],
                            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    assert proc.stdin is not None and proc.stdout is not None
    tools: list[dict] = []
    for msg in messages:
        proc.stdin.write(json.dumps(msg) + "\n")
        proc.stdin.flush()
        if "id" in msg:
            line = proc.stdout.readline()
            if not line:
                break
            reply = json.loads(line)
            if msg["id"] == 2:
                tools = reply["result"]["tools"]
    out, err = proc.communicate(timeout=30)
    return tools, err, proc.returncode


def test_a_misspelt_tool_or_parameter_is_warned_about_on_stderr_and_in_the_log(tmp_path):
    ann = tmp_path / "water.toml"
    ann.write_text(MISSPELT)
    log = tmp_path / "log.jsonl"
    tools, err, code = _list_tools(["--annotations", str(ann), "--log", str(log)], tmp_path)
    assert code == 0 and {t["name"] for t in tools} >= {"read_discharge", "runoff_depth"}
    assert "tools.read_dischrge: the server has no tool 'read_dischrge' (did you mean " \
           "'read_discharge'" in err
    assert "tools.runoff_depth.params.dischage: runoff_depth has no parameter 'dischage' " \
           "(did you mean 'discharge'?" in err
    assert err.count("warning:") == 2 and "guards nothing" in err
    events = [json.loads(line) for line in log.read_text().splitlines()]
    warned = [e for e in events if e["event"] == "annotation_warning"]
    assert {e["tool"] for e in warned} == {"read_dischrge", "runoff_depth"}
    assert any("did you mean 'discharge'" in e["warning"] for e in warned)


def test_annotations_that_match_the_listing_warn_about_nothing(tmp_path):
    tools, err, code = _list_tools(["--annotations", str(ROOT / "demo" / "water.toml")], tmp_path)
    assert code == 0 and tools and "warning" not in err


def test_strict_annotations_refuses_to_start_naming_each_mismatch(tmp_path):
    ann = tmp_path / "water.toml"
    ann.write_text(MISSPELT)
    out = subprocess.run([sys.executable, "-m", "quantity_guard.mcp.cli", "--strict-annotations",
                          "--annotations", str(ann), "--", *SERVER], cwd=ROOT, input="",
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == cli.EXIT_CONFIG and out.stdout == ""
    assert "2 declaration(s) match nothing the server lists" in out.stderr
    assert "did you mean 'read_discharge'" in out.stderr
    assert "did you mean 'discharge'?" in out.stderr


def test_strict_annotations_starts_when_every_declaration_matches(tmp_path):
    tools, err, code = _list_tools(["--strict-annotations", "--annotations",
                                    str(ROOT / "demo" / "water.toml")], tmp_path)
    assert code == 0 and {t["name"] for t in tools} >= {"runoff_depth"}, err


def test_strict_annotations_needs_annotations(capsys):
    assert cli.main(["--strict-annotations", "--", "srv"]) == cli.EXIT_USAGE
    assert "--strict-annotations needs --annotations" in capsys.readouterr().err
