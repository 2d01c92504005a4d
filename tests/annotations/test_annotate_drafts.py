"""``quantity-guard-mcp annotate``: each drafting rule (quantity_guard.mcp.draft.RULES) on both
sides, and every draft of the published servers loads as it is and passes --check."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from quantity_guard.annotations import loads
from quantity_guard.mcp.draft import RULES, draft, draft_toml, read_name, read_text
from quantity_guard.mcp.policy import QuantityPolicy

from conftest import GATHERED, PUBLISHED, make_tool, published_tools

ROOT = Path(__file__).resolve().parents[2]


def unit_of(text: str):
    found = read_text(text)
    return found[0].unit if len(found) == 1 else [r.unit for r in found] or None


def field(description: str = "", name: str = "x", schema: "dict | None" = None, props=None,
          where: str = "params", output_props=None):
    """The draft of one field with these words."""
    sub = dict(schema or {"type": "number"})
    if description:
        sub["description"] = description
    if where == "params":
        t = make_tool("t", {name: sub, **(props or {})})
    else:
        t = make_tool("t", props or {}, {"type": "object", "properties": {name: sub, **(output_props or {})}})
    (tool,) = draft([t])
    return next(f for f in tool.fields if f.path == name)


# -- where a unit is stated ----------------------------------------------------------------------
@pytest.mark.parametrize("text,unit", [
    ("Discharge in cubic feet per second", "ft3/s"),
    ("Wind speed in knots.", "kn"),
    ("Pressure measured in hPa", "hPa"),
    ("Search radius in metres around the point", "m"),
    ("Center latitude in decimal degrees", "deg"),
    ("Array of distances (in meters) each point can snap to", "m"),
    ("Daily calorie target (kcal). Null to clear.", "kcal"),
    ("Flow rate in US GPM", "gpm"),
    ("The max vehicle weight, in metric tons (1000 kg).", "t"),
    ("Units: m/s", "m/s"),
    ("Air temperature in degrees F", "degF"),
])
def test_a_stated_unit_is_read(text, unit):
    assert unit_of(text) == unit


@pytest.mark.parametrize("text", [
    "Maximum number of stations to return.",
    "Observed water height in the requested units relative to the datum.",
    "Target body weight in `unit`.",
    "Predicted height (feet or meters).",
    "Returns value(s) for the site",
    "Time to convert in a specific timezone",
    "Brightness 0-255 (turn_on)",
])
def test_words_that_state_no_unit_give_none(text):
    assert unit_of(text) is None


@pytest.mark.parametrize("name,unit", [
    ("flow_cfs", "cfs"), ("elevationFt", "ft"), ("speed_cm_s", "cm/s"), ("flow_rate_m3_hr", "m3/h"),
    ("frequencyKhz", "kHz"), ("water_ml", "mL"), ("distance_meters", "m"), ("width_m", "m"),
])
def test_a_property_name_ending_in_a_unit_is_read(name, unit):
    assert read_name(name).unit == unit


@pytest.mark.parametrize("name", [
    "limit", "flow", "temp_min", "count_per_day", "conductivity_ms_cm", "inlet_temperature_c",
    "total_count", "cfs",
])
def test_a_property_name_without_a_clear_unit_is_not_read(name):
    r = read_name(name)
    assert r is None or r.unit is None


def test_a_name_several_units_spell_in_other_cases_is_ambiguous():
    r = read_name("frequencyMhz")
    assert r.unit is None and set(r.choices) == {"MHz", "mHz"} and r.rule == "name-ambiguous-case"


@pytest.mark.parametrize("text,unit", [
    ("Number of days to look back", "d"),
    ("How many minutes to wait between polls", "min"),
    ("hours: Hours of history to retrieve (e.g. 2.0 for last 2 hours).", "h"),
])
def test_a_count_of_a_time_unit_is_a_duration_in_it(text, unit):
    f = field(text)
    assert f.unit == unit and "count-of-time-units" in f.rules


@pytest.mark.parametrize("text", [
    "Number of revolutions of the transfer orbit",
    "Number of points to return",
    "Maximum number of results (default: 100)",
    "Number of forecast days (1-16)",
    "Lots of rain expected",
])
def test_a_count_of_anything_but_a_time_unit_states_no_unit(text):
    assert unit_of(text) is None


def test_statute_names_the_mile_and_nothing_else():
    f = field("Search radius in statute miles from the station")
    assert f.unit == "mi" and "statute-mile" in f.rules
    assert unit_of("Distance in statute meters") is None
    assert unit_of("Length in statute") is None


# -- when to say nothing -------------------------------------------------------------------------
@pytest.mark.parametrize("text,rule", [
    ("Volume in gallons", "kernel-ambiguous"),
    ("Cargo weight in tons", "kernel-ambiguous"),
    ("Water temperature in degrees", "degree-on-temperature"),
    ("Length in meters, or in feet for US stations", "several-units"),
])
def test_ambiguous_words_give_a_comment_with_choices_and_no_declaration(text, rule):
    f = field(text, name="temperature" if "temperature" in text else "x")
    assert f.unit is None and not f.declared and rule in f.rules
    assert f.notes


def test_a_qualified_unit_settles_the_kernels_ambiguity():
    assert field("Tank volume in US gallons").unit == "gal_US"
    assert field("Tank volume in imperial gallons").unit == "gal_imp"


def test_degrees_on_a_direction_is_an_angle():
    assert field("Wind direction in degrees true (0-360)").unit == "deg"


def test_a_unit_chosen_per_call_is_not_declared():
    units = {"type": "string", "enum": ["english", "metric"]}
    f = field("Current speed in the requested units.", name="speed", where="returns",
              props={"units": units})
    assert not f.declared and "chosen-per-call" in f.rules
    f = field("Weight in `unit`.", name="weight", props={"unit": {"type": "string"}})
    assert not f.declared and "chosen-per-call" in f.rules


def test_a_unit_carried_by_a_sibling_result_field_is_not_declared():
    f = field("Latest value", name="value", where="returns",
              output_props={"unitCode": {"type": "string"}})
    assert not f.declared and "carried-by-sibling" in f.rules


# -- datums and zones ----------------------------------------------------------------------------
def test_one_named_datum_is_declared_on_a_length():
    f = field("Water level in feet above MLLW", name="level")
    assert (f.unit, f.datum) == ("ft", "MLLW") and "datum-named" in f.rules
    f = field("water surface elevation, feet above NAVD88", name="stage")
    assert (f.unit, f.datum) == ("ft", "NAVD88") and "unit-above-datum" in f.rules


@pytest.mark.parametrize("words,unit,datum", [
    ("River level in metres above Ordnance Datum (mAOD)", "m", "ODN"),   # glued to the unit
    ("Stage (mODN)", "m", "ODN"),
    ("Tide height in metres above Mean Low Water Springs", "m", "MLWS"),  # not MLW too
    ("Crest level in metres above Ordnance Datum Malin Head", "m", "Malin Head"),
    ("Level in mASD", "m", None),   # a staff gauge's datum: the station is not named
    ("Grid frequency in MHz", "MHz", None),   # capitals that name no datum
])
def test_a_datum_glued_to_its_unit_or_inside_a_longer_name_is_read_once(words, unit, datum):
    f = field(words, name="level")
    assert (f.unit, f.datum) == (unit, datum), f.rules


def test_several_datums_or_a_station_datum_give_no_datum():
    f = field("Altitude in feet above sea level (NAVD 88 or NGVD 29).", name="altitude")
    assert (f.unit, f.datum) == ("ft", None) and "datum-several" in f.rules
    f = field("Stage in feet above the gauge datum", name="stage")
    assert (f.unit, f.datum) == ("ft", None) and "datum-station" in f.rules


def test_a_datum_word_on_a_non_length_is_ignored_and_od_alone_is_no_datum():
    assert field("Flow in cfs at the MLLW gauge", name="q").datum is None
    assert field("Pipe OD in inches", name="od").datum is None


@pytest.mark.parametrize("description,tz,rule", [
    ("ISO 8601 timestamp in UTC", "UTC", "tz-timestamp"),
    ("Start time (ISO 8601) in America/Chicago", "America/Chicago", "tz-timestamp"),
    ("RFC3339, e.g. 2026-05-01T00:00:00Z", None, "tz-offset-only"),
    ("Time to convert in 24-hour format (HH:MM)", None, "tz-not-a-timestamp"),
    ("Start date in YYYY-MM-DD format", None, "tz-not-a-timestamp"),
])
def test_time_zones_only_on_timestamps_whose_words_name_the_zone(description, tz, rule):
    f = field(description, name="at", schema={"type": "string"})
    assert f.tz == tz and rule in f.rules


def test_a_prose_result_with_one_unit_in_its_first_sentence_is_declared():
    t = make_tool("read", {"site": {"type": "string"}}, None,
                  "Latest discharge at a USGS site, in cubic feet per second.")
    (d,) = draft([t])
    (f,) = [f for f in d.fields if f.where == "returns"]
    assert f.unit == "ft3/s" and "result-in-description" in f.rules
    t = make_tool("wx", {}, None, "Hourly weather: temperature (°C), wind (km/h).")
    (d,) = draft([t])
    assert not [f for f in d.fields if f.declared] and d.notes


def test_every_rule_is_named_and_described():
    assert all(r.code == code and r.what for code, r in RULES.items())
    assert len(RULES) >= 20


# -- the drafts load and pass --check --------------------------------------------------------------
@pytest.mark.parametrize("path", PUBLISHED + GATHERED,
                         ids=[f"{p.parent.parent.name}/{p.stem}" for p in PUBLISHED + GATHERED])
def test_the_draft_of_a_published_server_loads_and_passes_check(path):
    tools = published_tools(path)
    text = draft_toml(draft(tools), path.name)
    annotations = loads(text, path=f"{path.stem}.toml")
    report = QuantityPolicy(annotations).check_catalogue(tools)
    assert report.ok, report.problems


def test_the_published_drafts_declare_most_stated_units_and_few_wrong_ones():
    sys.path.insert(0, str(ROOT))
    from bench.annotate_rates import score
    t = score(Path(__file__).resolve().parent / "published_tools")
    assert t["units_right"] >= 0.97 * t["units_drafted"]
    assert t["units_found"] >= 0.8 * t["units_stated"]


def test_annotate_prints_toml_that_check_accepts(tmp_path):
    out = subprocess.run([sys.executable, "-m", "quantity_guard.mcp.cli", "annotate", "--",
                          sys.executable, "demo/usgs_server.py"], capture_output=True, text=True,
                         cwd=ROOT, timeout=60)
    assert out.returncode == 0, out.stderr
    draft_file = tmp_path / "draft.toml"
    draft_file.write_text(out.stdout)
    annotations = loads(out.stdout)
    assert annotations["freeboard"].params["stage"].datum == "NAVD88"
    check = subprocess.run([sys.executable, "-m", "quantity_guard.mcp.cli", "--check",
                            "--annotations", str(draft_file), "--", sys.executable,
                            "demo/usgs_server.py"], capture_output=True, text=True, cwd=ROOT,
                           timeout=60)
    assert check.returncode == 0, check.stdout + check.stderr


def test_annotate_reads_a_saved_tools_list(tmp_path):
    saved = tmp_path / "tools.json"
    saved.write_text(json.dumps({"tools": [make_tool("t", {"flow_cfs": {"type": "number"}})]}))
    out = subprocess.run([sys.executable, "-m", "quantity_guard.mcp.cli", "annotate",
                          "--tools-json", str(saved)], capture_output=True, text=True, cwd=ROOT,
                         timeout=60)
    assert out.returncode == 0 and 'flow_cfs = { unit = "cfs" }' in out.stdout
    bad = subprocess.run([sys.executable, "-m", "quantity_guard.mcp.cli", "annotate"],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert bad.returncode == 2


def test_the_five_minute_page_commands_run_as_written(tmp_path):
    """docs/guide/five-minutes.md: its annotate and --check commands, run in a copy of demo/,
    write the draft the repository holds (demo/usgs_draft.toml) and pass."""
    import re
    import shutil
    page = (ROOT / "docs" / "guide" / "five-minutes.md").read_text("utf-8")
    commands = [c.strip() for block in re.findall(r"```bash\n(.*?)```", page, flags=re.S)
                for c in block.replace("\\\n", " ").splitlines() if c.strip()]
    assert [c.split()[1] for c in commands] == ["annotate", "--check"]
    shutil.copytree(ROOT / "demo", tmp_path / "demo")
    (tmp_path / "demo" / "usgs_draft.toml").unlink()
    for command in commands:
        argv, _, target = command.partition(" > ")
        words = argv.split()
        words = [sys.executable, "-m", "quantity_guard.mcp.cli"] + [
            sys.executable if w == "python" else w for w in words[1:]]
        out = subprocess.run(words, capture_output=True, text=True, cwd=tmp_path, timeout=60,
                             env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
        assert out.returncode == 0, command + "\n" + out.stderr
        if target:
            (tmp_path / target).write_text(out.stdout)
    assert (tmp_path / "demo" / "usgs_draft.toml").read_text() == \
        (ROOT / "demo" / "usgs_draft.toml").read_text()
    shown = re.search(r"```toml\n(.*?)```", page, flags=re.S).group(1)
    draft_text = (ROOT / "demo" / "usgs_draft.toml").read_text()
    for line in shown.splitlines():
        if line.strip() and not line.startswith("[") and "GAGE:<station id>\" once" not in line:
            assert line in draft_text, line
