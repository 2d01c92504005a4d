"""USGS pack against recorded responses (tests/fixtures/usgs_*; origins in tests/fixtures/README.md).

Where docs/services.md cites a quirk whose recording is not in the collection (Ice rows at -999999,
an empty series, several methods, a DST change), the test derives the case from a recorded
response and says exactly what it changed.
"""
from __future__ import annotations

import copy
import json
from datetime import date, datetime, timedelta, timezone

import pytest

from quantity_guard.packs import MissingValue, PackError, replay, usgs
from recordings import Recordings

OGC = usgs.OGC_BASE
WS = usgs.WATERSERVICES_BASE
RECORDED = Recordings()
raw, load = RECORDED.raw, RECORDED.load


def ml_url(site):
    return f"{OGC}/collections/monitoring-locations/items?f=json&id=USGS-{site}"


def lc_url(site):
    return (f"{OGC}/collections/latest-continuous/items?f=json"
            f"&monitoring_location_id=USGS-{site}&limit=1000")


# The recorded latest-continuous page for 07374000 has numberReturned 10 and a next link
# (offset=10). The second page was not recorded; this is a terminal page built here, with no
# features and no next link, so that following the link can be tested offline.
EMPTY_PAGE = json.dumps({"type": "FeatureCollection", "features": [], "numberReturned": 0,
                         "links": []}).encode()
NEXT_07374000 = ("https://api.waterdata.usgs.gov/ogcapi/v0/collections/latest-continuous/items"
                 "?f=json&offset=10&monitoring_location_id=USGS-07374000")


def ogc_routes(site: str, ml: str, lc: str, extra=None):
    routes = {ml_url(site): raw(ml), lc_url(site): raw(lc)}
    routes.update(extra or {})
    return routes


ROUTES_07374000 = ogc_routes("07374000", "usgs_waterdata_ogcapi/monitoring_location_07374000.json",
                             "usgs_waterdata_ogcapi/latest_continuous_07374000.json",
                             {NEXT_07374000: EMPTY_PAGE})
ROUTES_01646500 = ogc_routes("01646500", "usgs_waterdata_ogcapi/monitoring_location_01646500.json",
                             "usgs_waterdata_ogcapi/latest_continuous_01646500.json")


# --------------------------------------------------------------------------------------------
# monitoring-locations
# --------------------------------------------------------------------------------------------

def test_monitoring_location_07374000_gage_zero_at_0_ft_navd88():
    site = usgs.parse_monitoring_location(
        load("usgs_waterdata_ogcapi/monitoring_location_07374000.json"), "u")
    assert site.site_id == "07374000" and site.name == "Mississippi River at Baton Rouge, LA"
    assert site.altitude == 0.0 and site.vertical_datum == "NAVD88"  # 0.0 is a real altitude
    assert site.altitude_accuracy == 0.01
    assert site.gage_datum == "GAGE:07374000"
    assert site.tz_code == "CST" and site.uses_dst is True
    assert site.time_zone == "America/Chicago"
    assert (site.latitude, site.longitude) == (30.4456666666667, -91.1915555555556)
    assert site.huc == "080701000104"


def test_monitoring_location_06730500_is_on_ngvd29():
    site = usgs.parse_monitoring_location(
        load("usgs_waterdata_ogcapi/monitoring_location_06730500_ngvd29.json"))
    assert (site.altitude, site.altitude_accuracy, site.vertical_datum) == (4860.0, 10.0, "NGVD29")
    assert site.time_zone == "America/Denver"


def test_monitoring_location_01646500_navd88_with_accuracy():
    site = usgs.parse_monitoring_location(
        load("usgs_waterdata_ogcapi/monitoring_location_01646500.json"))
    assert (site.altitude, site.altitude_accuracy, site.vertical_datum) == (37.04, 0.17, "NAVD88")
    assert site.altitude_method == "X"


def test_monitoring_location_as_single_feature_with_null_datum():
    site = usgs.parse_monitoring_location(
        load("usgs_waterdata_ogcapi/monitoring_location_02238500_null_datum.json"))
    assert site.site_id == "02238500"
    assert site.altitude is None and site.vertical_datum is None
    assert site.drainage_area == 879.0


def test_monitoring_location_empty_collection_is_an_error():
    with pytest.raises(PackError, match="expected one monitoring location, got 0"):
        usgs.parse_monitoring_location({"type": "FeatureCollection", "features": []}, "u")


# --------------------------------------------------------------------------------------------
# latest-continuous
# --------------------------------------------------------------------------------------------

def _by_code(readings):
    out = {}
    for r in readings:
        out.setdefault(r.parameter, []).append(r)
    return out


def test_latest_continuous_07374000_units_times_and_datums():
    url = "https://example/lc"
    readings = usgs.parse_features(
        load("usgs_waterdata_ogcapi/latest_continuous_07374000.json")["features"], url)
    by = {r.parameter: r for r in readings}
    assert len(readings) == 10
    q = by["00060"]
    assert (q.magnitude, q.unit, q.unit_code) == (243000.0, "ft3/s", "ft^3/s")
    assert q.time == datetime(2026, 8, 19, 9, 15, tzinfo=timezone.utc)
    assert q.flags == ("Provisional",) and q.qualifiers == ()
    assert q.datum is None
    assert q.source["agency"] == "USGS" and q.source["station"] == "07374000"
    assert q.source["parameter"] == "00060" and q.source["url"] == url
    assert q.source["statistic"] == "00011"
    assert by["00065"].datum == "GAGE:07374000" and by["00065"].unit == "ft"
    assert by["63160"].datum == "NAVD88"  # an elevation on a named datum, not a gage height
    assert by["00095"].magnitude == 0.0 and not by["00095"].missing  # "0" is a value
    assert by["00010"].unit == "degC"
    assert by["63680"].unit == "FNU"  # published as "_FNU"
    assert by["00480"].unit == "g/kg"  # salinity, parts per thousand


def test_null_value_with_equip_is_missing_and_keeps_its_qualifier():
    readings = usgs.parse_features(
        load("usgs_waterdata_ogcapi/latest_continuous_07374000.json")["features"], "u")
    nitrate = next(r for r in readings if r.parameter == "99133")
    assert nitrate.missing and nitrate.magnitude is None
    assert nitrate.qualifiers == ("EQUIP",) and nitrate.flags == ("Provisional", "EQUIP")
    with pytest.raises(MissingValue, match="value is null.*EQUIP"):
        nitrate.value


def test_unmapped_unit_becomes_a_refused_reading_naming_the_unit_or_raises_when_strict():
    features = copy.deepcopy(load("usgs_waterdata_ogcapi/latest_continuous_07374000.json")["features"])
    edited = next(f for f in features if f["properties"]["parameter_code"] == "00400")
    edited["properties"]["unit_of_measure"] = "furlongs"  # edited: a code the pack does not map
    ph = next(r for r in usgs.parse_features(features, "u") if r.parameter == "00400")
    assert ph.missing and ph.raw == "5.1" and ph.unit is None
    with pytest.raises(MissingValue, match="'furlongs'"):
        ph.value
    with pytest.raises(PackError, match="'furlongs'"):
        usgs.parse_features(features, "u", strict=True)


def test_ph_is_a_plain_number_marked_ph_and_iterates_like_the_rest():
    features = load("usgs_waterdata_ogcapi/latest_continuous_07374000.json")["features"]
    readings = usgs.parse_features(features, "u", strict=True)  # nothing refused
    ph = next(r for r in readings if r.parameter == "00400")
    assert not ph.missing and ph.unit == "1" and ph.unit_code == "pH Units"
    q = ph.value
    assert q.magnitude == 5.1 and q.unit.symbol == "1" and q.source["unit_qualifier"] == "pH"
    assert q.quality == "provisional"


def test_a_value_without_a_unit_is_refused():
    features = copy.deepcopy(load("usgs_waterdata_ogcapi/latest_continuous_07374000.json")["features"][-1:])
    features[0]["properties"]["unit_of_measure"] = None  # edited: unit removed
    (r,) = usgs.parse_features(features, "u")
    assert r.missing
    with pytest.raises(MissingValue, match="without a unit is refused"):
        r.value


def test_stale_and_live_series_newest_wins_and_63160_is_00065_plus_37_04():
    _site, values = usgs.reading("01646500", fetch=replay(ROUTES_01646500), register=False)
    assert values["00010"].magnitude == 28.7  # 2026 series, not the 2019 ones
    assert values["00010"].time == datetime(2026, 8, 20, 6, 50, tzinfo=timezone.utc)
    assert values["99133"].magnitude == 0.18 and values["99133"].qualifiers == ()
    assert values["00095"].magnitude == 340.0
    assert values["63160"].magnitude - values["00065"].magnitude == pytest.approx(37.04)
    assert values["00060"].unit == "ft3/s" and values["00060"].magnitude == 3010.0


def test_reading_ogc_follows_next_link_and_requests_v1():
    log = []
    site, values = usgs.reading("07374000", fetch=replay(ROUTES_07374000, log=log),
                                register=False)
    urls = [u for u, _ in log]
    assert urls[0] == ml_url("07374000") and urls[1] == lc_url("07374000")
    assert urls[2] == NEXT_07374000  # the next link is followed exactly as given
    assert "/ogcapi/v1/" in urls[0] and "/ogcapi/v1/" in urls[1]
    assert site.site_id == "07374000"
    assert sorted(values) == ["00010", "00060", "00065", "00095", "00300", "00400", "00480",
                              "63160", "63680", "99133"]
    assert values["00060"].magnitude == 243000.0


def test_reading_parameters_filter_and_helpful_key_error():
    _site, values = usgs.reading("07374000", ["00060", "00065"],
                                 fetch=replay(ROUTES_07374000), register=False)
    assert sorted(values) == ["00060", "00065"]
    with pytest.raises(KeyError, match="no current value for '00045'"):
        values["00045"]


def test_api_key_goes_only_to_the_water_data_api(monkeypatch):
    monkeypatch.setenv(usgs.API_KEY_ENV, "k123")
    log = []
    usgs.reading("07374000", fetch=replay(ROUTES_07374000, log=log), register=False)
    assert all(h.get("X-Api-Key") == "k123" for u, h in log)
    log.clear()
    routes = {"https://waterservices.usgs.gov/nwis/iv/?format=json&sites=01491000&siteStatus=all":
              raw("usgs_waterservices/iv_01491000_01645000_00060_00065.json")}
    usgs.iv("01491000", fetch=replay(routes, log=log))
    assert "X-Api-Key" not in log[0][1]


def test_429_from_the_water_data_api_suggests_a_key(monkeypatch):
    monkeypatch.delenv(usgs.API_KEY_ENV, raising=False)

    def limited(url, headers):
        raise PackError(url, "HTTP 429 Too Many Requests (rate limited)", status=429)

    with pytest.raises(PackError) as err:
        usgs.reading("07374000", fetch=limited, register=False)
    assert err.value.status == 429 and usgs.API_KEY_ENV in str(err.value)
    assert "monitoring-locations" in str(err.value)


def test_site_numbers_are_strings():
    with pytest.raises(PackError, match="leading zeros"):
        usgs.reading(7374000, fetch=replay({}))
    with pytest.raises(PackError, match="not a USGS site number"):
        usgs.reading("7374", fetch=replay({}))
    with pytest.raises(PackError, match="source must be"):
        usgs.reading("07374000", source="nwis", fetch=replay({}), register=False)


def test_non_json_answer_names_the_url():
    routes = dict(ROUTES_07374000)
    routes[lc_url("07374000")] = b"<html><body>502 Bad Gateway</body></html>"
    with pytest.raises(PackError) as err:
        usgs.reading("07374000", fetch=replay(routes), register=False)
    assert "not JSON" in str(err.value) and "latest-continuous" in err.value.url


# --------------------------------------------------------------------------------------------
# continuous, daily, pagination
# --------------------------------------------------------------------------------------------

def test_continuous_with_a_properties_subset_and_no_approval_fields():
    url = (f"{OGC}/collections/continuous/items?f=json&monitoring_location_id=USGS-01593450"
           "&parameter_code=00060&time=PT24H&limit=50000")
    readings = usgs.continuous("01593450", "00060", fetch=replay(
        {url: raw("usgs_waterdata_ogcapi/continuous_01593450_skipgeometry_properties.json")}))
    assert len(readings) == 11
    first = readings[0]
    assert first.parameter == "00060" and first.unit == "ft3/s" and first.magnitude == 1.31
    assert first.time == datetime(2026, 3, 9, 7, 5, tzinfo=timezone.utc)
    assert first.flags == () and first.quality is None  # no approval_status published
    assert [r.time for r in readings] == sorted(r.time for r in readings)


def test_daily_values_keep_a_calendar_day_and_ogc_qualifier_words():
    url = (f"{OGC}/collections/daily/items?f=json&monitoring_location_id=USGS-02344872"
           "&parameter_code=00060&statistic_id=00003&time=P7D&limit=50000")
    readings = usgs.daily("02344872", "00060", fetch=replay(
        {url: raw("usgs_waterdata_ogcapi/daily_02344872_estimated_revised.json")}))
    assert [r.day for r in readings] == sorted(r.day for r in readings)
    first = next(r for r in readings if r.day == date(2021, 5, 17))
    assert first.time is None
    assert first.magnitude == 661.0 and first.unit == "ft3/s"
    assert first.qualifiers == ("ESTIMATED", "REVISED")
    assert first.flags == ("Approved", "ESTIMATED", "REVISED")


def test_pagination_follows_cursor_links_and_refuses_loops():
    page1 = load("usgs_waterdata_ogcapi/daily_02238500_v0_page_with_links.json")
    next_url = next(l["href"] for l in page1["links"] if l["rel"] == "next")
    first = f"{OGC}/collections/daily/items?f=json&monitoring_location_id=USGS-02238500"
    features = list(usgs.ogc_items("daily", monitoring_location_id="USGS-02238500",
                                   fetch=replay({first: json.dumps(page1),
                                                 next_url: EMPTY_PAGE})))
    assert len(features) == 10
    # a next link that points back at a page already read (constructed here) is refused
    looping = copy.deepcopy(page1)
    for link in looping["links"]:
        if link["rel"] == "next":
            link["href"] = first
    with pytest.raises(PackError, match="pagination loops"):
        list(usgs.ogc_items("daily", monitoring_location_id="USGS-02238500",
                            fetch=replay({first: json.dumps(looping)})))


# --------------------------------------------------------------------------------------------
# legacy IV
# --------------------------------------------------------------------------------------------

IV_BASE = load("usgs_waterservices/iv_01491000_01645000_00060_00065.json")


def legacy_reading_01491000(iv_body):
    """``usgs.reading`` of site 01491000 from the legacy services: its recorded site RDB, and
    ``iv_body`` as the IV answer."""
    routes = {
        "https://waterservices.usgs.gov/nwis/site/?format=rdb&sites=01491000"
        "&siteOutput=expanded&siteStatus=all": raw("usgs_waterservices/site_rdb_01491000_01645000.rdb"),
        "https://waterservices.usgs.gov/nwis/iv/?format=json&sites=01491000&siteStatus=all": iv_body,
    }
    return usgs.reading("01491000", source="waterservices", fetch=replay(routes), register=False)


def with_a_second_method_block(payload, description: str, method_id: int):
    """``payload`` with a second method block appended to its first series: a copy of the first
    block under ``description`` and ``method_id``, its values +1 so the two are told apart."""
    ts = payload["value"]["timeSeries"][0]
    second = copy.deepcopy(ts["values"][0])
    second["method"] = [{"methodDescription": description, "methodID": method_id}]
    for row in second["value"]:
        row["value"] = str(float(row["value"]) + 1)
    ts["values"].append(second)
    return payload


def test_iv_baseline_two_sites_two_parameters():
    series = usgs.parse_iv(IV_BASE, "u")
    assert [(s.site_id, s.parameter, s.unit_code) for s in series] == [
        ("01491000", "00060", "ft3/s"), ("01491000", "00065", "ft"),
        ("01645000", "00060", "ft3/s"), ("01645000", "00065", "ft")]
    q = series[0].readings[1]
    assert (q.magnitude, q.unit, q.qualifiers, q.flags) == (974.0, "ft3/s", ("A",), ("A",))
    assert q.time.utcoffset() == timedelta(hours=-5)
    assert q.time == datetime(2019, 2, 14, 5, 15, tzinfo=timezone.utc)
    assert q.source["service"] == "waterservices" and q.source["statistic"] == "00000"
    assert series[1].readings[0].datum == "GAGE:01491000"
    assert series[0].statistic == "00000"


def test_iv_utc_query_answers_in_local_offset():
    (s,) = usgs.parse_iv(load("usgs_waterservices/iv_09165000_00060_mdt_utc_query.json"))
    first = s.readings[0]
    assert first.time.utcoffset() == timedelta(hours=-6)
    assert first.time == datetime(2018, 10, 1, 0, 0, tzinfo=timezone.utc)


def test_iv_hawaii_integer_no_data_value_and_zero_flow():
    payload = load("usgs_waterservices/iv_16211600_hawaii_hst_no_dst.json")
    assert payload["value"]["timeSeries"][0]["variable"]["noDataValue"] == -999999  # an int
    flow = usgs.parse_iv(payload)[0]
    assert flow.readings[0].magnitude == 0.0 and not flow.readings[0].missing
    assert flow.readings[0].time.utcoffset() == timedelta(hours=-10)
    assert flow.tz_code == "HST" and flow.uses_dst is False
    # edited here: two values replaced by the sentinel, as string and as float spelling
    edited = copy.deepcopy(payload)
    rows = edited["value"]["timeSeries"][0]["values"][0]["value"]
    rows[0]["value"], rows[1]["value"] = "-999999", "-999999.0"
    flow = usgs.parse_iv(edited)[0]
    assert flow.readings[0].missing and flow.readings[1].missing
    assert not flow.readings[2].missing


def test_iv_site_on_standard_time_all_year():
    url = "https://waterservices.usgs.gov/nwis/iv/?format=json&sites=03339000&siteStatus=all"
    (s,) = usgs.iv("03339000", fetch=replay(
        {url: raw("usgs_waterservices/iv_03339000_latest_cst_in_august.json")}))
    (r,) = s.readings
    assert r.time.utcoffset() == timedelta(hours=-6)  # CST in August
    assert r.time.astimezone(timezone.utc) == datetime(2025, 8, 24, 16, 15, tzinfo=timezone.utc)
    assert s.uses_dst is False
    assert usgs.zone_for(s.tz_code, s.uses_dst) == "America/Chicago@standard"
    assert r.flags == ("P",) and r.magnitude == 72.3


def test_iv_empty_response_is_no_series():
    assert usgs.parse_iv(load("usgs_waterservices/iv_empty_timeseries.json")) == []


def _ice_payload():
    """IV 01491000 00060 with the last three values edited into the recorded ice pattern of
    docs/services.md (01542500: value "-999999" with qualifiers ["P", "Ice"]), plus one Eqp and one
    Dis row; the series' qualifier list is left as recorded."""
    payload = copy.deepcopy(IV_BASE)
    payload["value"]["timeSeries"] = payload["value"]["timeSeries"][:1]
    rows = payload["value"]["timeSeries"][0]["values"][0]["value"]
    rows[2].update(value="-999999", qualifiers=["P", "Ice"])
    rows[3].update(value="-999999", qualifiers=["P", "Eqp"])
    rows[4].update(value="-999999", qualifiers=["Dis"])
    return payload


def test_ice_equipment_and_discontinued_rows_are_missing_with_their_qualifiers():
    (s,) = usgs.parse_iv(_ice_payload(), "https://waterservices.usgs.gov/nwis/iv/?x")
    ok, ok2, ice, eqp, dis = s.readings
    assert not ok.missing and ok.magnitude == 974.0
    assert ice.missing and ice.qualifiers == ("P", "Ice") and ice.raw == "-999999"
    assert eqp.qualifiers == ("P", "Eqp") and dis.qualifiers == ("Dis",)
    with pytest.raises(MissingValue) as err:
        ice.value
    assert "-999999" in str(err.value) and "Ice" in str(err.value)
    assert err.value.url == "https://waterservices.usgs.gov/nwis/iv/?x"


def test_empty_series_is_reported_not_invented():
    payload = copy.deepcopy(IV_BASE)
    payload["value"]["timeSeries"][1]["values"][0]["value"] = []  # edited: 00065 emptied
    _site, values = legacy_reading_01491000(json.dumps(payload))
    assert "00065" not in values and values.empty == ("00065",)
    with pytest.raises(KeyError, match="series with no values"):
        values["00065"]


def test_several_methods_are_never_merged_or_chosen_silently():
    # edited: a second method block added, as in the recorded multi-method responses
    # ("[1 Meter Below The Surface]" / "Variable Depth Profile Data")
    payload = with_a_second_method_block(copy.deepcopy(IV_BASE), "WALNUT ST PIER", 99999)
    series = [s for s in usgs.parse_iv(payload) if s.parameter == "00060" and s.site_id == "01491000"]
    assert [s.method_id for s in series] == [69512, 99999]
    assert series[1].method == "WALNUT ST PIER"
    assert series[1].readings[0].source["method"] == "WALNUT ST PIER"
    _site, values = legacy_reading_01491000(json.dumps(payload))
    assert values["00060:69512"].magnitude == 955.0
    assert values["00060:99999"].magnitude == 956.0
    with pytest.raises(KeyError, match="several methods"):
        values["00060"]


def test_dst_fall_back_repeated_wall_times_stay_distinct_instants():
    payload = copy.deepcopy(IV_BASE)
    rows = payload["value"]["timeSeries"][0]["values"][0]["value"]
    # edited: timestamps moved onto the 2019-11-03 autumn change, where 01:00-01:45 repeats
    stamps = ["2019-11-03T01:30:00.000-04:00", "2019-11-03T01:45:00.000-04:00",
              "2019-11-03T01:00:00.000-05:00", "2019-11-03T01:15:00.000-05:00",
              "2019-11-03T01:30:00.000-05:00"]
    for row, stamp in zip(rows, stamps):
        row["dateTime"] = stamp
    (s, *_rest) = usgs.parse_iv(payload)
    times = [r.time for r in s.readings]
    assert len(set(times)) == 5
    assert times == sorted(times)  # 01:00-05:00 is after 01:45-04:00
    assert times[4] - times[0] == timedelta(hours=1)
    assert [t.utcoffset() for t in times[:2]] == [timedelta(hours=-4)] * 2


def test_elevation_on_an_unnamed_datum_is_refused():
    payload = copy.deepcopy(IV_BASE)
    var = payload["value"]["timeSeries"][1]["variable"]
    # edited: 00065 relabelled as a reservoir elevation whose datum is not named
    var["variableCode"][0]["value"] = "00062"
    var["variableDescription"] = "Elevation of reservoir water surface above datum, feet"
    series = usgs.parse_iv(payload)
    r = series[1].readings[0]
    assert r.missing and "does not name" in r.why_missing
    # and named datums in the description are recognised
    var["variableDescription"] = "Stream water level elevation above NAVD 1988, in feet"
    assert usgs.parse_iv(payload)[1].readings[0].datum == "NAVD88"


def test_unmapped_legacy_unit_code_names_it():
    payload = copy.deepcopy(IV_BASE)
    payload["value"]["timeSeries"][0]["variable"]["unit"]["unitCode"] = "ft3/d"  # edited
    r = usgs.parse_iv(payload)[0].readings[0]
    with pytest.raises(MissingValue, match="'ft3/d'"):
        r.value
    with pytest.raises(PackError, match="'ft3/d'"):
        usgs.parse_iv(payload, strict=True)


def test_malformed_iv_payload_is_a_pack_error():
    with pytest.raises(PackError, match="not a WaterML-JSON"):
        usgs.parse_iv({"value": {}}, "u")
    bad = copy.deepcopy(IV_BASE)
    bad["value"]["timeSeries"][0]["values"][0]["value"][0]["value"] = "12,5"
    with pytest.raises(PackError, match="'12,5' is not a number"):
        usgs.parse_iv(bad, "u")


# --------------------------------------------------------------------------------------------
# legacy site RDB
# --------------------------------------------------------------------------------------------

def test_site_rdb_mixed_datums_blank_never_defaulted():
    text = raw("usgs_waterservices/site_rdb_new_river_basin_mixed_datums.rdb").decode()
    sites = {s.site_id: s for s in usgs.parse_site_rdb(text, "u")}
    assert len(sites) == 206
    assert sites["03161500"].vertical_datum == "NGVD29" and sites["03161500"].altitude == 2550.0
    assert sites["03177710"].vertical_datum == "NAVD88" and sites["03177710"].altitude == 2316.68
    assert sites["03186000"].vertical_datum == "COE1912"
    blank = sites["03178500"]
    assert blank.altitude is None and blank.vertical_datum is None
    assert sites["03178000"].altitude_accuracy == 10.0   # "010"
    assert sites["03185000"].altitude_accuracy == 0.1    # " .1"
    assert sites["03185400"].altitude_accuracy == 0.2    # ".20"
    assert sites["03161500"].huc == "05050001"           # leading zero kept
    counts = {}
    for s in sites.values():
        counts[s.vertical_datum] = counts.get(s.vertical_datum, 0) + 1
    assert counts == {"NGVD29": 104, "NAVD88": 50, "COE1912": 3, None: 49}


def test_site_rdb_leading_space_altitude():
    text = raw("usgs_waterservices/site_rdb_01491000_01645000.rdb").decode()
    s = usgs.parse_site_rdb(text)[0]
    assert (s.site_id, s.altitude, s.altitude_accuracy, s.vertical_datum) == (
        "01491000", 2.73, 0.1, "NAVD88")
    assert s.time_zone is None  # basic output has no tz_cd


def test_rdb_structure_errors_name_the_url():
    text = raw("usgs_waterservices/site_rdb_01491000_01645000.rdb").decode()
    truncated = text.rstrip("\n") + "\nUSGS\t01491001\tCHOPTANK\n"  # edited: a short row
    with pytest.raises(PackError, match="row 3 has 3 fields, the header 12") as err:
        usgs.parse_rdb(truncated, "https://rdb")
    assert err.value.url == "https://rdb"
    with pytest.raises(PackError, match="not a format line"):
        usgs.parse_rdb("a\tb\nUSGS\t123\n", "u")


def test_legacy_reading_uses_site_rdb_and_iv_and_fills_time_zone_from_iv():
    site, values = legacy_reading_01491000(
        raw("usgs_waterservices/iv_01491000_01645000_00060_00065.json"))
    assert site.altitude == 2.73 and site.vertical_datum == "NAVD88"
    assert site.time_zone == "America/New_York" and site.tz_code == "EST"
    assert sorted(values) == ["00060", "00065"]  # the other site's series are not mixed in
    assert values["00060"].magnitude == 955.0  # the newest of the recorded values
    assert values["00060"].time == datetime(2019, 2, 14, 6, 0, tzinfo=timezone.utc)
    assert values["00065"].datum == "GAGE:01491000" and values["00065"].magnitude == 6.43


# -- issue 18 item 2: no series is silently overwritten ------------------------------------------
def test_two_series_with_one_method_id_are_both_kept_and_numbered():
    # edited: a second method block with the SAME method id (seen in real responses, e.g. a
    # replacement sensor published under the old id), values +1 so the two are told apart
    payload = with_a_second_method_block(copy.deepcopy(IV_BASE), "REPLACEMENT SENSOR", 69512)
    _site, values = legacy_reading_01491000(json.dumps(payload))
    assert values["00060:69512#1"].magnitude == 955.0
    assert values["00060:69512#2"].magnitude == 956.0
    assert values["00060:69512#2"].source["method"] == "REPLACEMENT SENSOR"
    assert "00060:69512" not in values
    for key in ("00060:69512#1", "00060:69512#2"):
        why = values[key].source["rival_series"]
        assert "published 2 series of 00060" in why and "sharing the method id 69512" in why
        assert values[key].source["series_key"] == key
        assert values[key].value.source["rival_series"] == why   # carried onto the Q
    with pytest.raises(KeyError, match="several methods.*00060:69512#1, 00060:69512#2"):
        values["00060"]


def test_ogc_rivals_without_ids_are_both_kept_and_older_series_are_not_dropped():
    payload = load("usgs_waterdata_ogcapi/latest_continuous_01646500.json")
    features = [f for f in payload["features"] if f["properties"]["parameter_code"] == "00010"]
    readings = usgs.parse_features(features, site_id="01646500")
    values = usgs.choose_series(readings, "01646500")
    # the recorded page: five 00010 series, one current (2026), four discontinued (2019)
    assert values["00010"].time.year == 2026
    older = values.superseded["00010"]
    assert len(older) == 4 and all(r.time.year == 2019 for r in older)
    assert "4 other series of 00010" in values["00010"].source["superseded_series"]
    # edited: two simultaneous series with neither a time series id nor a method
    twins = [copy.deepcopy(features[0]) for _ in range(2)]
    for i, f in enumerate(twins):
        f["properties"]["time_series_id"] = None
        f["properties"]["value"] = str(10 + i)
    twin_values = usgs.choose_series(usgs.parse_features(twins, site_id="01646500"), "01646500")
    assert sorted(twin_values) == ["00010:unidentified#1", "00010:unidentified#2"]
    assert [twin_values[k].magnitude for k in sorted(twin_values)] == [10.0, 11.0]
