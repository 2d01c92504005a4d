"""NOAA NWPS pack against the recorded BRKM2 gauge (tests/fixtures/noaa; US public domain)."""
from __future__ import annotations

import copy
import json
import pathlib
from datetime import datetime, timezone

import pytest

from quantity_guard.packs import MissingValue, PackError, nwps, replay

FIXTURE = pathlib.Path(__file__).parent / "fixtures" / "noaa" / "nwps_gauge_BRKM2_01646500.json"
RAW = FIXTURE.read_bytes()
URL = f"{nwps.BASE}/gauges/BRKM2"



def brkm2(**kw):
    return nwps.gauge("BRKM2", fetch=replay({URL: RAW}), **kw)


def test_identity_time_zone_and_gauge_datum():
    g = brkm2()
    assert (g.lid, g.usgs_id, g.state) == ("BRKM2", "01646500", "MD")
    assert g.datum == "GAGE:01646500"  # the datum the USGS pack puts 00065 on
    assert g.posix_time_zone == "EST5EDT" and g.time_zone == "America/New_York"
    assert g.in_service is True
    assert g.source == {"agency": "NOAA NWPS", "station": "BRKM2", "url": URL,
                        "usgs_id": "01646500"}


def test_flood_categories_on_the_gauge_datum_with_undefined_flows():
    g = brkm2()
    stages = {k: (r.magnitude, r.unit, r.datum) for k, r in g.categories.items()}
    assert stages == {"action": (5.0, "ft", "GAGE:01646500"),
                      "minor": (10.0, "ft", "GAGE:01646500"),
                      "moderate": (12.0, "ft", "GAGE:01646500"),
                      "major": (14.0, "ft", "GAGE:01646500")}
    assert g.flow_categories["action"].magnitude == 22000.0
    assert g.flow_categories["action"].unit == "ft3/s"  # flood flows are published in cfs
    for name in ("minor", "moderate", "major"):
        r = g.flow_categories[name]
        assert r.missing and r.raw == -9999
        with pytest.raises(MissingValue, match="-9999"):
            r.value


def test_observed_and_forecast_stage_ft_and_flow_kcfs():
    g = brkm2()
    s = g.observed_stage
    assert (s.magnitude, s.unit, s.datum) == (3.02, "ft", "GAGE:01646500")
    assert s.time == datetime(2026, 8, 19, 11, 45, tzinfo=timezone.utc)
    assert s.source["kind"] == "observed"
    f = g.observed_flow
    assert (f.magnitude, f.unit, f.unit_code, f.datum) == (2.95, "kcfs", "kcfs", None)
    assert (g.forecast_stage.magnitude, g.forecast_flow.magnitude) == (3.1, 3.4)
    assert g.forecast_stage.source["kind"] == "forecast"
    assert g.forecast_stage.time == datetime(2026, 8, 20, 0, 0, tzinfo=timezone.utc)
    assert g.observed_category == "no_flooding" == g.forecast_category


def test_crests_on_a_superseded_datum_keep_flow_but_not_stage():
    g = brkm2()
    stage, flow = g.crests_historic[0]
    assert stage.missing and "superseded" in stage.why_missing and stage.raw == 28.1
    assert flow.magnitude == 484000.0 and flow.unit == "ft3/s"
    assert stage.time == datetime(1936, 3, 19, 16, 45, tzinfo=timezone.utc)
    recent_stage, _ = g.crests_recent[0]
    assert recent_stage.magnitude == 11.73 and recent_stage.datum == "GAGE:01646500"
    assert recent_stage.source["preliminary"] == "P"
    olddatum = [s for s, _ in g.crests_historic if s.source["olddatum"]]
    assert olddatum and all(s.missing for s in olddatum)


def test_datum_elevations_are_reported_and_registered_as_every_pack_does():
    g = brkm2(register=False)
    navd = g.datum_elevations["NAVD88"]
    assert (navd.magnitude, navd.unit, navd.datum) == (37.2, "ft", "NAVD88")
    assert "assumed" in navd.source["note"]
    assert not g.offset_registered
    registered = brkm2()
    assert registered.offset_registered and registered.datum_note is None
    assert registered.observed_stage.value.to_datum("NAVD88").magnitude == \
        pytest.approx(3.02 + 37.2)


def test_sentinels_and_units_in_status_never_become_numbers():
    payload = json.loads(RAW)
    edited = copy.deepcopy(payload)
    # edited: the documented missing-value sentinel, and an unknown unit, in the status block
    edited["status"]["observed"]["primary"] = -999
    edited["status"]["forecast"]["secondaryUnit"] = "kcms"
    g = nwps.gauge("BRKM2", fetch=replay({URL: json.dumps(edited)}))
    assert g.observed_stage.missing and g.observed_stage.unit == "ft"
    with pytest.raises(MissingValue, match="sentinel"):
        g.observed_stage.value
    assert g.forecast_flow.missing
    with pytest.raises(MissingValue, match="'kcms'"):
        g.forecast_flow.value


def test_flood_stage_helper_names_categories():
    g = brkm2()
    with pytest.raises(KeyError, match="action, minor, moderate, major"):
        g.flood_stage("record")


def test_errors_name_the_url():
    with pytest.raises(PackError, match="no 'lid'") as err:
        nwps.gauge("BRKM2", fetch=replay({URL: b'{"error": "not found"}'}))
    assert err.value.url == URL
    with pytest.raises(PackError, match="not an NWPS gauge identifier"):
        nwps.gauge("BRKM2/stageflow", fetch=replay({}))


def test_a_datum_listed_twice_keeps_both_values():
    """Issue 18 item 2: the reader kept the last of two elevations for one datum name."""
    payload = json.loads(RAW)
    navd = payload["datums"]["vertical"]["value"][0]
    # edited: a second NAVD88 entry with another value (as a revised survey would publish)
    payload["datums"]["vertical"]["value"].append({**navd, "value": 37.5})
    g = nwps.parse_gauge(payload, "u")
    assert "NAVD88" not in g.datum_elevations
    assert g.datum_elevations["NAVD88#1"].magnitude == 37.2
    assert g.datum_elevations["NAVD88#2"].magnitude == 37.5
    why = g.datum_elevations["NAVD88#2"].source["rival_series"]
    assert "lists NAVD88 2 times with different values (37.2, 37.5)" in why
    # the same value twice is one entry, and the record says it was listed twice
    payload["datums"]["vertical"]["value"][1]["value"] = 37.2
    g = nwps.parse_gauge(payload, "u")
    assert list(g.datum_elevations) == ["NAVD88"]
    assert "2 times with the same value" in g.datum_elevations["NAVD88"].source["rival_series"]
