"""bench suites: data that loads, ground truth computed with the library, and conditions that
differ only in units metadata."""
from __future__ import annotations

import copy
import json

import pytest

from bench.harness import CONDITIONS, suites
from bench.harness.tools import bare_result, build_tools, plain_schema

ALL = suites.available()


def test_the_four_suites_exist():
    assert set(ALL) >= {"core", "uk", "grid", "opacity"}


@pytest.mark.parametrize(("suite", "task", "truth", "silent"), [
    ("core", "runoff", 0.10214, 3.6072),          # 1250 cfs over 29940 km2; 35.3x when carried
    ("core", "freeboard", 4.06, 4.5),             # the SPEC's 4.06 ft against 4.5 ft
    ("core", "fabricated_area", None, 0.19634),   # unavailable; the memorised area gives this
    ("uk", "abstraction_share", 1.0717, 92.593),  # 45 Ml/d against 48.6 m3/s
    ("uk", "level_threshold", 0.25, 6.55),        # 2.85 mASD + 6.30 against 9.40 mAOD
    ("grid", "full_load_current", 393.65, 0.39365),
    ("grid", "feeder_energy", 50400.0, 50.4),
    ("opacity", "runoff_cfs", 0.10214, 3.6072),
    ("opacity", "runoff_ft3s", 0.10214, 3.6072),
    ("opacity", "runoff_words", 0.10214, 3.6072),
])
def test_ground_truth_and_the_silent_answer(suite, task, truth, silent):
    ref = suites.load(suite).task(task).reference()
    if truth is None:
        assert ref.truth is None and ref.failed_step == "area"
    else:
        assert ref.truth.magnitude == pytest.approx(truth, rel=1e-4)
    assert [s["value"] for s in ref.silent] == [pytest.approx(silent, rel=1e-4)]


def test_cfs_carry_over_is_35_times_too_large():
    ref = suites.load("core").task("runoff").reference()
    assert ref.silent[0]["value"] / ref.truth.magnitude == pytest.approx(35.3147, rel=1e-4)


@pytest.mark.parametrize("name", ALL)
def test_every_task_declares_a_hazard_and_every_tool_a_description(name):
    for task in suites.load(name).tasks:
        assert task.hazards, task.id
        for tool in task.tools:
            assert tool.description


@pytest.mark.parametrize("name", ALL)
def test_baseline_differs_from_the_other_conditions_only_in_units_metadata(name):
    for task in suites.load(name).tasks:
        schemas = {c: [t.json_schema() for t in build_tools(task, c)] for c in CONDITIONS}
        assert schemas["schema_only"] == schemas["guarded"] == schemas["guarded_repair"]
        for plain, rich in zip(schemas["baseline"], schemas["guarded"]):
            assert plain["name"] == rich["name"]
            # the suite's prose is the description everywhere; the guarded schema adds the
            # unit in words after it
            assert rich["description"].startswith(plain["description"])
            p_in, r_in = plain["inputSchema"], rich["inputSchema"]
            assert p_in["required"] == r_in["required"]
            assert list(p_in["properties"]) == list(r_in["properties"])
            decl = task.tool(plain["name"])
            for p in decl.params:
                a, b = p_in["properties"][p.name], r_in["properties"][p.name]
                if p.kind == "quantity":
                    assert a == {"type": "number", "description": p.description}
                    assert "x-unit" in b and b["description"].startswith(p.description)
                else:  # identifiers are typed and described the same way in every condition
                    assert a == b
            assert "outputSchema" not in plain and "x-unit" not in json.dumps(plain)


def test_baseline_results_are_bare_numbers_and_guarded_results_are_labelled():
    task = suites.load("core").task("runoff")
    plain = {t.name: t for t in build_tools(task, "baseline")}
    rich = {t.name: t for t in build_tools(task, "guarded")}
    assert plain["read_discharge"].invoke({"station_id": "01646500"})["content"][0]["text"] \
        == "1250.0"
    assert json.loads(rich["read_discharge"].invoke({"station_id": "01646500"})
                      ["content"][0]["text"]) == {"value": 1250.0, "unit": "cfs"}
    assert bare_result({"content": [], "isError": False,
                        "structuredContent": {"a": {"value": 1, "unit": "m"}}}
                       )["structuredContent"] == {"a": 1}


def test_the_same_body_runs_in_every_condition():
    task = suites.load("core").task("runoff")
    out = {}
    for c in CONDITIONS:
        probe: list = []
        tools = {t.name: t for t in build_tools(task, c, probe)}
        tools["runoff_depth"].invoke({"discharge": "1250 cfs", "area": 29940})
        out[c] = probe
    assert all(p == out["baseline"] for p in out.values())
    assert out["baseline"][0]["args"]["discharge"]["value"] == pytest.approx(35.396, rel=1e-4)


def test_a_failing_service_is_a_tool_error_not_a_violation():
    task = suites.load("core").task("fabricated_area")
    tool = {t.name: t for t in build_tools(task, "guarded")}["get_drainage_area"]
    result = tool.invoke({"station_id": "07374000"})
    # issue 18 item 3: every error result carries a code; a failing body's is tool_failed,
    # which is not a guard violation and never ends a guarded run
    assert result["isError"]
    assert result["_meta"]["io.github.quantity-guard/violation"]["code"] == "tool_failed"
    from bench.harness.episode import ends_run
    from bench.harness.tools import violation_of
    assert not ends_run("guarded", violation_of(result))
    assert result["content"][0]["text"].startswith("get_drainage_area failed: ServiceError:")


def test_identifiers_are_matched_as_people_write_them():
    task = suites.load("core").task("runoff")
    tool = {t.name: t for t in build_tools(task, "baseline")}["read_discharge"]
    for station in ("USGS-01646500", "usgs 01646500", 1646500):  # a JSON number loses the 0
        assert tool.invoke({"station_id": station})["content"][0]["text"] == "1250.0"
    task = suites.load("core").task("freeboard")
    tool = {t.name: t for t in build_tools(task, "baseline")}["get_datum_offset"]
    for frm, to, want in (("NGVD 1929", "NAVD 88", "-0.44"), ("navd-88", "ngvd29", "0.44")):
        result = tool.invoke({"location": "rrl 12", "from_datum": frm, "to_datum": to})
        assert result["content"][0]["text"] == want
    assert tool.invoke({"location": "RRL-12", "from_datum": "NGVD29", "to_datum": "ODN"})[
        "content"][0]["text"] == ("get_datum_offset failed: ServiceError: no published offset "
                                  "from NGVD29 to ODN at RRL-12")


def _core_doc():
    with open(suites.SUITES_DIR / "core.json") as f:
        return json.load(f)


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["tasks"][0]["plan"][2]["args"].update(discharge={"ref": "nope"}), "before a step"),
    (lambda d: d["tasks"][0].update(tools=["read_discharge", "missing_tool"]), "unknown tools"),
    (lambda d: d["tools"]["runoff_depth"]["params"]["discharge"].update(unit="furlongs/fortnight"),
     "runoff_depth"),
    (lambda d: d["tasks"][0]["hazards"][0].update(param="station_id"), "not a declared quantity"),
    (lambda d: d["tasks"][1]["plan"][3]["args"]["crest_elevation"].pop("shift"),
     "refused by the guard"),
])
def test_broken_suites_are_refused_with_a_reason(edit, message):
    doc = _core_doc()
    edit(doc)
    with pytest.raises(suites.SuiteError, match=message):
        for task in suites.parse(copy.deepcopy(doc)).tasks:
            task.reference()


def test_plain_schema_shape():
    decl = suites.load("core").task("runoff").tool("runoff_depth")
    assert plain_schema(decl)["inputSchema"]["properties"]["discharge"] == {
        "type": "number", "description": "Discharge in m3/s."}


@pytest.mark.parametrize("arguments", [
    {"discharge": 1250, "area": 29940}, {"discharge": "1250 cfs", "area": "29940 km2"},
    {"discharge": {"value": 1250, "unit": "m**3/s"}, "area": 2915830.0},
    {"discharge": "12.4 ft", "area": 29940}, {"discharge": True, "area": 1},
    {"discharge": 1250}, "{not json",
])
def test_warn_mode_shows_the_model_exactly_what_off_would(arguments):
    """The unguarded conditions run in warn mode to record what the guard would have refused;
    the model and the body must not be able to tell it from enforcement off."""
    from quantity_guard import session
    task = suites.load("core").task("runoff")
    seen = {}
    for mode in ("off", "warn"):
        probe: list = []
        tools = {t.name: t for t in build_tools(task, "baseline", probe, enforcement=mode)}
        with session(context=task.question):
            tools["read_discharge"].invoke({"station_id": "01646500"})
            result = tools["runoff_depth"].invoke(arguments)
        seen[mode] = (result, probe)
    assert seen["warn"] == seen["off"]
