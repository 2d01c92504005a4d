"""The publishers' unit vocabularies (data/units_publishers.json) against the recorded
responses: every unit code published for every parameter in the fixtures is read to a kernel
unit of the right kind, or refused with a reason; qualifiers are kept; unmapped codes are
refused naming the code."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from json_nodes import nodes
from quantity_guard.packs import PackError, _fetch, usgs
from quantity_guard.units import AXES, parse_unit

FIXTURES = Path(__file__).parent / "fixtures"
TABLE = _fetch.unit_table()

# the kind of quantity each USGS parameter code measures (docs/services.md, "Legacy WaterServices"; the
# USGS parameter-code list): the dimension its published unit must have
USGS_KINDS = {
    "00010": {"temperature": 1}, "00060": {"length": 3, "time": -1}, "00065": {"length": 1},
    "63160": {"length": 1}, "00095": {"length": -3, "mass": -1, "time": 3, "current": 2},
    "00300": {"length": -3, "mass": 1}, "99133": {"length": -3, "mass": 1},
    "00480": {}, "63680": {"turbidity_fnu": 1}, "00036": {"angle": 1},
    "00035": {"length": 1, "time": -1}, "00618": {"length": -3, "mass": 1},
    "00400": {},  # pH: an index, a plain number (its source says unit_qualifier "pH")
}
USGS_REFUSED: set = set()


def _dims(unit) -> dict:
    return {a: e for a, e in zip(AXES, unit.dims) if e}


def _usgs_pairs():
    pairs = set()
    for path in sorted((FIXTURES / "usgs_waterdata_ogcapi").glob("*.json")):
        body = json.loads(path.read_text("utf-8"))
        for feature in body.get("features", []):
            p = feature.get("properties", {})
            if "unit_of_measure" in p and p.get("parameter_code"):
                pairs.add((str(p["parameter_code"]), p["unit_of_measure"]))
    for path in sorted((FIXTURES / "usgs_waterservices").glob("*.json")):
        for ts in json.loads(path.read_text("utf-8"))["value"]["timeSeries"]:
            pairs.add((ts["variable"]["variableCode"][0]["value"],
                       ts["variable"]["unit"]["unitCode"]))
    constructed = json.loads((Path(__file__).parent / "data" /
                              "usgs_iv_units_wind_conductance_nitrate.json").read_text("utf-8"))
    for ts in constructed["value"]["timeSeries"]:
        pairs.add((ts["variable"]["variableCode"][0]["value"], ts["variable"]["unit"]["unitCode"]))
    return sorted(pairs)


USGS_PAIRS = _usgs_pairs()


def test_the_fixtures_cover_the_usgs_vocabulary():
    codes = {u for _, u in USGS_PAIRS}
    assert {"ft3/s", "ft^3/s", "ft", "degC", "uS/cm", "mg/l", "_FNU", "pH Units", "ppt", "Deg",
            "uS/cm @25C", "mg/l as N", "mph"} <= codes
    assert {p for p, _ in USGS_PAIRS} <= set(USGS_KINDS) | USGS_REFUSED


@pytest.mark.parametrize("parameter,code", USGS_PAIRS)
def test_every_usgs_unit_code_in_the_fixtures_reads_to_its_parameters_kind(parameter, code):
    if parameter in USGS_REFUSED:
        with pytest.raises(PackError) as err:
            _fetch.publisher_unit("usgs", code)
        assert "refused" in str(err.value) and "pH" in str(err.value)
        return
    entry = _fetch.publisher_unit("usgs", code)
    unit = parse_unit(entry["unit"] if isinstance(entry, dict) else entry)
    assert _dims(unit) == USGS_KINDS[parameter], (parameter, code, unit)


def _ea_units():
    names = set()
    for path in sorted((FIXTURES / "ea_flood_monitoring").glob("*.json")):
        text = path.read_text("utf-8")
        for item in nodes(json.loads(text)):
            if isinstance(item, dict) and isinstance(item.get("unitName"), str):
                names.add(item["unitName"])
    return sorted(names)


EA_UNITS = _ea_units()
EA_KINDS = {"m": {"length": 1}, "mAOD": {"length": 1}, "mASD": {"length": 1}, "mm": {"length": 1},
            "m3/s": {"length": 3, "time": -1}}


def test_every_ea_measure_unit_in_the_fixtures_is_mapped_or_refused():
    assert {"m", "mAOD", "mASD", "m3/s", "mm", "---", "V"} <= set(EA_UNITS)
    for name in EA_UNITS:
        if name in TABLE["ea"]["refuse"]:
            with pytest.raises(PackError) as err:
                _fetch.publisher_unit("ea", name)
            assert repr(name) in str(err.value)
            continue
        entry = _fetch.publisher_unit("ea", name)
        assert _dims(parse_unit(entry["unit"])) == EA_KINDS[name]
    assert _fetch.publisher_unit("ea", "mAOD")["datum"] == "ODN"
    assert _fetch.publisher_unit("ea", "mASD")["datum"] == "station"


def test_nwps_units_in_the_fixture_are_mapped():
    body = json.loads((FIXTURES / "noaa" / "nwps_gauge_BRKM2_01646500.json").read_text("utf-8"))
    seen = {v for item in nodes(body) if isinstance(item, dict)
            for k, v in item.items() if k.lower().endswith("units") and isinstance(v, str)}
    assert seen and seen <= set(TABLE["nwps"]["units"])
    assert parse_unit(_fetch.publisher_unit("nwps", "kcfs")).factor == \
        1000 * parse_unit("ft3/s").factor


def test_every_mapped_code_is_a_kernel_unit_and_qualifiers_are_data():
    for publisher in ("usgs", "ea", "nwps"):
        for code, entry in TABLE[publisher]["units"].items():
            unit = entry["unit"] if isinstance(entry, dict) else entry
            parse_unit(unit)  # raises if a mapping names something the kernel cannot read
            if isinstance(entry, dict) and "qualifier" in entry:
                assert entry["qualifier"] and entry["qualifier"] not in unit
    assert TABLE["usgs"]["units"]["uS/cm @25C"] == {"unit": "uS/cm", "qualifier": "at 25 degC"}
    assert TABLE["usgs"]["units"]["mg/l as N"] == {"unit": "mg/L", "qualifier": "as N"}


def test_unmapped_codes_are_refused_naming_the_code():
    for code in ("furlongs/fortnight", "mg/l as Q", "deg"):
        with pytest.raises(PackError) as err:
            _fetch.publisher_unit("usgs", code, what="USGS 01646500 99999")
        assert repr(code) in str(err.value) and "does not map" in str(err.value)


def test_qualifiers_travel_with_the_value():
    payload = json.loads((Path(__file__).parent / "data" /
                          "usgs_iv_units_wind_conductance_nitrate.json").read_text("utf-8"))
    series = {s.parameter: s for s in usgs.parse_iv(payload, strict=True)}
    conductance = series["00095"].readings[0].value
    assert conductance.unit == parse_unit("uS/cm") and conductance.magnitude == 412.0
    assert conductance.source["unit_qualifier"] == "at 25 degC"
    nitrate = series["00618"].readings[0].value
    assert nitrate.unit == parse_unit("mg/L") and nitrate.source["unit_qualifier"] == "as N"
    assert "unit_qualifier" not in series["00035"].readings[0].value.source
