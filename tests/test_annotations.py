"""Annotation files: TOML and JSON, every problem reported with file, line, tool and parameter."""
from __future__ import annotations

import json
import sys

import pytest

from quantity_guard.annotations import AnnotationError, load, loads
from quantity_guard.spec import Spec

GOOD = """
[tools.read_discharge]
returns = { unit = "cfs" }

[tools.runoff_depth]
description = "Guarded."

[tools.runoff_depth.params]
discharge = { unit = "m**3/s" }
area = "km**2"

[tools.levels]
returns = { stage = { unit = "ft", datum = "NAVD88" }, flow = "cfs" }
"""


def test_toml_shape_of_the_spec():
    ann = loads(GOOD)
    assert set(ann) == {"read_discharge", "runoff_depth", "levels"}
    assert ann["read_discharge"].returns.unit.symbol == "cfs"
    p = ann["runoff_depth"].params
    assert p["discharge"].unit_text == "m**3/s" and p["area"].unit.symbol == "km2"
    assert p["area"].field == "runoff_depth.area"
    assert ann["runoff_depth"].description == "Guarded."
    levels = ann["levels"].returns
    assert isinstance(levels["stage"], Spec) and levels["stage"].datum == "NAVD88"


def test_json_equivalent(tmp_path):
    doc = {"tools": {"runoff_depth": {"params": {"discharge": {"unit": "m**3/s"}},
                                      "returns": "mm/day"}}}
    path = tmp_path / "water.json"
    path.write_text(json.dumps(doc, indent=1))
    ann = load(str(path))
    assert ann["runoff_depth"].returns.unit.symbol == "mm/d"


def test_every_problem_is_reported_with_line_tool_and_parameter(tmp_path):
    text = """[tools.a.params]
x = { unit = "cfz" }
y = { unit = "ft", datum = "NAVD88X" }
z = { unit = "m3/s", quality = "superb" }
w = { unit = "m3/s", colour = "red" }
v = 12

[tools.b]
returns = { unit = "gal" }
extra = 1
"""
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(AnnotationError) as err:
        load(str(path))
    problems = err.value.problems
    assert len(problems) == 7, problems
    joined = "\n".join(problems)
    assert str(path) in str(err.value)
    for needle in ("line 2: tools.a.x: ", "unknown unit 'cfz'", "line 3: tools.a.y",
                   "NAVD88X", "line 4: tools.a.z", "superb", "line 5: tools.a.w", "colour",
                   "line 6: tools.a.v", "line 9: tools.b.returns", "ambiguous",
                   "line 10: tools.b.extra"):
        assert needle in joined, needle


@pytest.mark.parametrize("text,needle", [
    ("[tools.a\n", "invalid TOML"), ("tools = 3\n", "'tools' must be a table"),
    ("[other]\nx = 1\n", "one top-level table 'tools'"), ("[tools]\na = 1\n", "must be a table"),
])
def test_malformed_files(text, needle):
    with pytest.raises(AnnotationError) as err:
        loads(text)
    assert needle in str(err.value)


def test_invalid_json_has_a_line():
    with pytest.raises(AnnotationError) as err:
        loads('{"tools": {\n "a": }\n}', kind="json")
    assert "line 2" in str(err.value)


def test_the_demo_annotations_load():
    from pathlib import Path
    ann = load(str(Path(__file__).resolve().parent.parent / "demo" / "water.toml"))
    assert ann["runoff_depth"].params["area"].sourced is True


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="the tomli path is Python 3.10's")
def test_python_310_reads_toml_with_tomli():
    import tomli  # noqa: F401  (installed by the package's own dependency marker)
    assert loads(GOOD)["read_discharge"].returns.unit.symbol == "cfs"
