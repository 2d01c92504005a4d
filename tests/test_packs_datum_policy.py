"""One policy for gauge datums across the packs: each registers the gauge zero its record
publishes (register=True by default), and two records that disagree about a gauge's zero never
fail a read: the zero registered first stands, the later record says so, naming both figures.
Non-unit series (pH) are values like the rest, and the recorded example runs from any
directory."""
from __future__ import annotations

import copy
import json
import pathlib
import subprocess
import sys
import textwrap

import pytest

from quantity_guard import datums
from quantity_guard.packs import PackError, ea, nwps, recorded, replay, usgs

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
OGC = usgs.OGC_BASE
USGS_01646500 = {
    f"{OGC}/collections/monitoring-locations/items?f=json&id=USGS-01646500":
        (FIXTURES / "usgs_waterdata_ogcapi" / "monitoring_location_01646500.json").read_bytes(),
    f"{OGC}/collections/latest-continuous/items?f=json&monitoring_location_id=USGS-01646500"
    "&limit=1000":
        (FIXTURES / "usgs_waterdata_ogcapi" / "latest_continuous_01646500.json").read_bytes(),
}
NWPS_BRKM2 = {f"{nwps.BASE}/gauges/BRKM2":
              (FIXTURES / "noaa" / "nwps_gauge_BRKM2_01646500.json").read_bytes()}
EA_2604TH = json.loads((FIXTURES / "ea_flood_monitoring" /
                        "station_2604TH_flow_and_level.json").read_text("utf-8"))["items"]



def test_every_pack_registers_its_gauge_zero_by_default():
    with datums.isolated():  # (each on a registry of its own: they disagree)
        assert nwps.gauge("BRKM2", fetch=replay(NWPS_BRKM2)).offset_registered
    assert usgs.site("01646500", fetch=replay(USGS_01646500)).gage_offset_registered
    assert ea.register_station(ea.parse_station(EA_2604TH, "u")).offset_registered


def test_reading_nwps_then_usgs_never_fails_the_usgs_read():
    g = nwps.gauge("BRKM2", fetch=replay(NWPS_BRKM2))
    assert g.offset_registered
    site, values = usgs.reading("01646500", fetch=replay(USGS_01646500))
    assert not site.gage_offset_registered
    note = site.datum_note
    assert "puts the zero of GAGE:01646500 at 37.04 ft on NAVD88" in note
    assert "already registered at 37.2 ft on NAVD88" in note and "api.water.noaa.gov" in note
    assert "datums.isolated()" in note  # what to do to use this record's own figure
    stage = values["00065"].value  # every value is read; the registered zero converts it
    assert stage.to_datum("NAVD88").magnitude == pytest.approx(stage.magnitude + 37.2)


def test_reading_usgs_then_nwps_keeps_the_usgs_zero_and_says_so():
    usgs.site("01646500", fetch=replay(USGS_01646500))
    g = nwps.gauge("BRKM2", fetch=replay(NWPS_BRKM2))
    assert not g.offset_registered and "already registered at 37.04 ft" in g.datum_note
    assert g.observed_stage.value.to_datum("NAVD88").magnitude == pytest.approx(3.02 + 37.04)


def test_the_same_zero_from_a_second_read_is_no_disagreement():
    usgs.site("01646500", fetch=replay(USGS_01646500))
    again = usgs.site("01646500", fetch=replay(USGS_01646500))
    assert again.gage_offset_registered and again.datum_note is None


def test_two_ea_records_disagreeing_about_a_station_zero_never_fail_the_read():
    first = ea.register_station(ea.parse_station(EA_2604TH, "u"))
    assert first.offset_registered
    item = copy.deepcopy(EA_2604TH)
    item["stageScale"]["datum"] = 19.5  # edited: a re-levelled record
    second = ea.register_station(ea.parse_station(item, "u"))
    assert not second.offset_registered
    assert "already registered at 19 m on ODN" in second.datum_note
    assert "19.5 m on ODN" in second.datum_note


def test_ph_and_every_other_value_iterate_as_quantities():
    site, values = usgs.reading("07374000", fetch=recorded())
    quantities = values.quantities()
    assert "00400" in quantities and quantities["00400"].source["unit_qualifier"] == "pH"
    assert all(q.unit is not None for q in quantities.values())
    assert set(quantities) | set(values.missing()) == set(values)
    assert "EQUIP" in values.missing()["99133"]


def test_the_recorded_example_runs_from_any_directory(tmp_path):
    code = textwrap.dedent("""
        from quantity_guard.packs import recorded, usgs
        site, values = usgs.reading("07374000", fetch=recorded())
        print(repr(values["00060"].value))
        print(repr(values["00065"].value.to_datum("NAVD88")))
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, timeout=60, env={"PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["Q(243000 ft3/s (provisional))",
                                       "Q(8.09 ft (NAVD88, provisional))"]


def test_recorded_answers_only_what_was_recorded():
    with pytest.raises(PackError, match="no recorded response"):
        usgs.site("01646500", fetch=recorded())
