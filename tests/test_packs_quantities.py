"""The packs' readings as ``Q``: units, datums registered from station records, quality grades.

These are the behaviours docs/guide/packs.md promises, checked on recorded responses
(tests/fixtures; origins in tests/fixtures/README.md). The datum registry is restored after
every test, so a station registered by one test is not visible to the next.
"""
from __future__ import annotations

import copy
import json

import pytest

from quantity_guard.errors import DatumConversionUnavailable, DatumMismatch
from quantity_guard.packs import MissingValue, ea, nwps, replay, usgs
from quantity_guard.quantity import Q
from recordings import Recordings

OGC = usgs.OGC_BASE
raw = Recordings().raw


def ml(site, name):
    return {f"{OGC}/collections/monitoring-locations/items?f=json&id=USGS-{site}": raw(name)}


def lc(site, name):
    return {f"{OGC}/collections/latest-continuous/items?f=json&monitoring_location_id=USGS-{site}"
            "&limit=1000": raw(name)}


# latest-continuous 07374000 was recorded with a next link (offset=10) whose page was not
# recorded; this terminal page (no features, no next link) is built here.
NEXT = {"https://api.waterdata.usgs.gov/ogcapi/v0/collections/latest-continuous/items"
        "?f=json&offset=10&monitoring_location_id=USGS-07374000":
        b'{"type": "FeatureCollection", "features": [], "links": []}'}
ROUTES_07374000 = {**ml("07374000", "usgs_waterdata_ogcapi/monitoring_location_07374000.json"),
                   **lc("07374000", "usgs_waterdata_ogcapi/latest_continuous_07374000.json"),
                   **NEXT}
ROUTES_01646500 = {**ml("01646500", "usgs_waterdata_ogcapi/monitoring_location_01646500.json"),
                   **lc("01646500", "usgs_waterdata_ogcapi/latest_continuous_01646500.json")}


# --------------------------------------------------------------------------------------------
# USGS
# --------------------------------------------------------------------------------------------

def test_spec_example_discharge_and_stage_on_the_gage_datum():
    site, values = usgs.reading("07374000", fetch=replay(ROUTES_07374000))
    assert repr(values["00060"].value) == "Q(243000 ft3/s (provisional))"
    assert repr(values["00065"].value) == "Q(8.09 ft (GAGE:07374000, provisional))"
    assert values["00060"].value.to("m3/s").magnitude == pytest.approx(243000 * 0.028316846592)
    assert values["00060"].value.source["parameter"] == "00060"
    assert site.gage_offset_registered and site.datum_note is None


def test_gage_height_converts_to_navd88_only_through_the_registered_offset():
    _site, values = usgs.reading("07374000", fetch=replay(ROUTES_07374000))
    stage, elevation = values["00065"].value, values["63160"].value
    assert elevation.datum == "NAVD88"
    with pytest.raises(DatumMismatch):
        elevation - stage  # a stage and an absolute elevation are never differenced
    assert stage.to_datum("NAVD88") == elevation  # gage zero at 0.0 ft NAVD88


def test_63160_equals_00065_plus_the_published_altitude():
    _site, values = usgs.reading("01646500", fetch=replay(ROUTES_01646500))
    converted = values["00065"].value.to_datum("NAVD88")
    assert converted.isclose(values["63160"].value, rel=1e-12)  # 3.03 + 37.04 = 40.07
    freeboardish = values["63160"].value - converted
    assert freeboardish.datum is None and abs(freeboardish.magnitude) < 1e-9


def test_an_ngvd29_gage_is_registered_against_ngvd29_never_navd88():
    site = usgs.site("06730500", fetch=replay(
        ml("06730500", "usgs_waterdata_ogcapi/monitoring_location_06730500_ngvd29.json")))
    assert site.gage_offset_registered
    stage = Q(2.5, "ft", datum=site.gage_datum)
    assert stage.to_datum("NGVD29").magnitude == pytest.approx(4862.5)
    with pytest.raises(DatumConversionUnavailable):
        stage.to_datum("NAVD88")


def test_a_site_with_no_datum_registers_no_offset():
    fetch = replay(ml("02238500", "usgs_waterdata_ogcapi/monitoring_location_02238500_null_datum.json"))
    site = usgs.site("02238500", fetch=fetch)
    assert not site.gage_offset_registered
    assert "no altitude and no vertical datum" in site.datum_note
    with pytest.raises(DatumConversionUnavailable):
        Q(4.2, "ft", datum="GAGE:02238500").to_datum("NAVD88")


def test_legacy_mixed_datums_blank_is_never_defaulted_and_coe1912_is_kept():
    text = raw("usgs_waterservices/site_rdb_new_river_basin_mixed_datums.rdb").decode()
    sites = {s.site_id: usgs.register_site(s) for s in usgs.parse_site_rdb(text, "u")}
    coe = sites["03186000"]  # NEW RIVER @ FAYETTE, 838.44 ft COE1912
    assert coe.gage_offset_registered
    assert Q(1.0, "ft", datum=coe.gage_datum).to_datum("COE1912").magnitude == pytest.approx(839.44)
    with pytest.raises(DatumConversionUnavailable):
        Q(1.0, "ft", datum=coe.gage_datum).to_datum("NAVD88")
    blank = sites["03178500"]
    assert not blank.gage_offset_registered and "no altitude" in blank.datum_note
    with pytest.raises(DatumConversionUnavailable):
        Q(1.0, "ft", datum=blank.gage_datum).to_datum("NGVD29")


def test_legacy_reading_quality_and_gage_datum():
    routes = {
        "https://waterservices.usgs.gov/nwis/site/?format=rdb&sites=01491000"
        "&siteOutput=expanded&siteStatus=all": raw("usgs_waterservices/site_rdb_01491000_01645000.rdb"),
        "https://waterservices.usgs.gov/nwis/iv/?format=json&sites=01491000&siteStatus=all":
            raw("usgs_waterservices/iv_01491000_01645000_00060_00065.json"),
    }
    _site, values = usgs.reading("01491000", source="waterservices", fetch=replay(routes))
    assert repr(values["00060"].value) == "Q(955 ft3/s (approved))"
    assert values["00065"].value.to_datum("NAVD88").magnitude == pytest.approx(6.43 + 2.73)


def test_quality_and_conditions_from_usgs_vocabularies():
    _site, values = usgs.reading("07374000", fetch=replay(ROUTES_07374000))
    nitrate = values["99133"]
    assert nitrate.quality == "provisional" and nitrate.conditions == ("EQUIP",)
    with pytest.raises(MissingValue):
        nitrate.value
    url = (f"{OGC}/collections/daily/items?f=json&monitoring_location_id=USGS-02344872"
           "&parameter_code=00060&statistic_id=00003&time=P7D&limit=50000")
    daily = usgs.daily("02344872", "00060", fetch=replay(
        {url: raw("usgs_waterdata_ogcapi/daily_02344872_estimated_revised.json")}))
    estimated = [r for r in daily if "ESTIMATED" in r.qualifiers]
    assert estimated and all(r.quality == "estimated" for r in estimated)
    assert estimated[0].value.quality == "estimated"


def test_legacy_ice_rows_grade_and_condition():
    payload = json.loads(raw("usgs_waterservices/iv_01491000_01645000_00060_00065.json"))
    rows = payload["value"]["timeSeries"][0]["values"][0]["value"]
    rows[4].update(value="-999999", qualifiers=["P", "Ice"])  # edited: the recorded ice pattern
    (s, *_rest) = usgs.parse_iv(payload)
    ice = s.readings[4]
    assert ice.quality == "provisional" and ice.conditions == ("Ice",)
    assert ice.missing
    assert s.readings[0].value.quality == "approved"


# --------------------------------------------------------------------------------------------
# Environment Agency
# --------------------------------------------------------------------------------------------

LEVEL_LIST = json.loads(raw("ea_flood_monitoring/stations_level_stage_view_full_subset_2022.json"))


def _station_response(ref):
    """/id/stations/<ref> built from the recorded 2022 list item for <ref> (list views carry
    no latestReading): the single-station envelope around an unchanged item."""
    item = next(i for i in LEVEL_LIST["items"] if i["stationReference"] == ref)
    return json.dumps({"@context": LEVEL_LIST["@context"], "meta": LEVEL_LIST["meta"],
                       "items": item})


def test_e21136_mASD_on_the_station_datum_converts_to_odn_by_its_offset():
    url = f"{ea.BASE}/id/stations/E21136"
    station, levels = ea.reading("E21136", fetch=replay({url: _station_response("E21136")}))
    assert station.offset_registered
    assert levels[0].missing  # the recorded record carries no reading
    level = Q(0.117, "m", datum=station.gauge_datum)  # the SPEC example value
    assert level.to_datum("ODN").isclose(Q(6.417, "m", datum="ODN"))
    high = station.stage_scale_value("typicalRangeHigh").value
    assert repr(high) == "Q(0.32 m (GAUGE:E21136))"
    assert high.to_datum("ODN").magnitude == pytest.approx(6.62)


def test_4115_reading_then_odn_and_a_mixed_datum_difference_is_refused():
    url = f"{ea.BASE}/id/stations/4115"
    _station, levels = ea.reading("4115", fetch=replay(
        {url: raw("ea_flood_monitoring/station_4115_single_measure_as_object.json")}))
    level = levels[0].value
    assert repr(level) == "Q(0.308 m (GAUGE:4115))" and level.quality is None
    assert level.to_datum("ODN").magnitude == pytest.approx(67.697)  # stageScale.datum 67.389
    threshold = Q(68.5, "m", datum="ODN")
    with pytest.raises(DatumMismatch):
        threshold - level
    assert (threshold - level.to_datum("ODN")).magnitude == pytest.approx(0.803)


def test_negative_datum_offset():
    url = f"{ea.BASE}/id/stations/E1662"
    station = ea.station("E1662", fetch=replay({url: _station_response("E1662")}))
    assert Q(1.0, "m", datum=station.gauge_datum).to_datum("ODN").magnitude == pytest.approx(0.41)


def test_unit_m_is_on_a_datum_that_converts_to_nothing():
    url = f"{ea.BASE}/id/stations/690142"
    station, (level,) = ea.reading("690142", fetch=replay(
        {url: raw("ea_flood_monitoring/station_690142_unit_m_2015.json")}))
    q = level.value
    assert repr(q) == "Q(0.233 m (UNSTATED:690142))"
    with pytest.raises(DatumConversionUnavailable):
        q.to_datum("ODN")
    with pytest.raises(DatumMismatch):
        Q(165.0, "m", datum="ODN") - q


def test_2604TH_flow_in_m3_s_and_level_from_stage_scale_datum():
    url = f"{ea.BASE}/id/stations/2604TH"
    _station, (level, flow) = ea.reading("2604TH", fetch=replay(
        {url: raw("ea_flood_monitoring/station_2604TH_flow_and_level.json")}))
    assert repr(flow.value) == "Q(4.743 m3/s)"
    assert flow.value.to("ft3/s").magnitude == pytest.approx(4.743 / 0.028316846592)
    assert level.value.to_datum("ODN").magnitude == pytest.approx(21.187)


def test_downstream_gauge_without_a_published_datum_is_not_converted():
    item = copy.deepcopy(next(i for i in LEVEL_LIST["items"] if i["stationReference"] == "4615TH"))
    item["measures"][0]["qualifier"] = "Downstream Stage"  # edited, see test_packs_ea
    station = ea.register_station(ea.parse_station(item, "u"))
    assert "downstageScale.datum" in station.datum_note
    with pytest.raises(DatumConversionUnavailable):
        Q(1.0, "m", datum=station.measures[0].datum).to_datum("ODN")


# --------------------------------------------------------------------------------------------
# NWPS, and NWPS with USGS
# --------------------------------------------------------------------------------------------

NWPS_URL = f"{nwps.BASE}/gauges/BRKM2"
NWPS_ROUTES = {NWPS_URL: raw("noaa/nwps_gauge_BRKM2_01646500.json")}


def test_freeboard_to_a_flood_category_is_a_difference_on_one_datum():
    g = nwps.gauge("BRKM2", fetch=replay(NWPS_ROUTES))
    minor, stage = g.categories["minor"].value, g.observed_stage.value
    assert repr(minor) == "Q(10 ft (GAGE:01646500))"
    freeboard = minor - stage
    assert freeboard.datum is None and freeboard.magnitude == pytest.approx(6.98)
    assert g.flood_stage("action") == Q(5, "ft", datum="GAGE:01646500")


def test_flood_flow_in_cfs_and_status_flow_in_kcfs_compare_after_conversion():
    g = nwps.gauge("BRKM2", fetch=replay(NWPS_ROUTES))
    action, flow = g.flow_categories["action"].value, g.observed_flow.value
    assert repr(flow) == "Q(2.95 kcfs)"
    assert flow < action  # 2950 cfs below 22000 cfs, not 2.95 against 22000 by accident
    assert flow.to("ft3/s").magnitude == pytest.approx(2950)


def test_nwps_stage_meets_the_usgs_gage_datum_and_its_offset():
    usgs.site("01646500", fetch=replay(ROUTES_01646500))
    g = nwps.gauge("BRKM2", fetch=replay(NWPS_ROUTES))
    assert g.observed_stage.value.to_datum("NAVD88").magnitude == pytest.approx(3.02 + 37.04)
    # NWPS says 37.2: not registered over the USGS figure (nor averaged), and the read succeeds
    assert not g.offset_registered
    assert "37.2 ft on NAVD88" in g.datum_note and "already registered at 37.04 ft" in \
        g.datum_note and "api.waterdata.usgs.gov" in g.datum_note


def test_nwps_offset_registered_unless_told_not_to():
    g = nwps.gauge("BRKM2", fetch=replay(NWPS_ROUTES), register=False)
    with pytest.raises(DatumConversionUnavailable):
        g.observed_stage.value.to_datum("NAVD88")
    assert nwps.gauge("BRKM2", fetch=replay(NWPS_ROUTES)).offset_registered
    assert g.observed_stage.value.to_datum("NAVD88").magnitude == pytest.approx(3.02 + 37.2)
    # the former name of the flag still works
    assert not nwps.gauge("BRKM2", fetch=replay(NWPS_ROUTES), register_offset=False) \
        .offset_registered


# --------------------------------------------------------------------------------------------
# The publisher unit table against the kernel
# --------------------------------------------------------------------------------------------

def test_every_mapped_publisher_unit_is_a_kernel_unit():
    from quantity_guard.packs import _fetch
    from quantity_guard.units import parse_unit
    table = _fetch.unit_table()
    for publisher in ("usgs", "ea", "nwps"):
        for code, entry in table[publisher]["units"].items():
            spelling = entry if isinstance(entry, str) else entry["unit"]
            parse_unit(spelling)  # raises UnitParseError naming it if the kernel refuses it


def test_every_recorded_usgs_value_with_a_mapped_unit_becomes_a_q():
    for name in ("latest_continuous_07374000.json", "latest_continuous_01646500.json"):
        features = json.loads(raw(f"usgs_waterdata_ogcapi/{name}"))["features"]
        for r in usgs.parse_features(features, name):
            if r.missing:
                assert r.why_missing
                continue
            q = r.value
            assert q.magnitude == r.magnitude and q.quality in ("approved", "provisional")
            assert q.datum == r.datum and q.source["parameter"] == r.parameter
