"""Environment Agency pack against recorded responses (tests/fixtures/ea_flood_monitoring).

There is no recorded single-station response for E21136 (the station in docs/guide/values.md, "Vertical datums"). Its record is
in the recorded 2022 `_view=full` list, with `datumOffset` 6.3 and no reading; the tests use it
for the datum, and the recorded single-station responses 4115, 2604TH and 690142 for readings.
Environment Agency data: Open Government Licence v3 ("this uses Environment Agency flood and
river level data from the real-time data API (Beta)").
"""
from __future__ import annotations

import copy
import json
from datetime import datetime, timezone

import pytest

from quantity_guard.packs import MissingValue, PackError, ea, replay
from recordings import Recordings

EA = Recordings("ea_flood_monitoring")
raw, load = EA.raw, EA.load


def station_url(ref):
    return f"{ea.BASE}/id/stations/{ref}"


LEVEL_LIST = load("stations_level_stage_view_full_subset_2022.json")


def list_item(ref):
    return next(i for i in LEVEL_LIST["items"] if i["stationReference"] == ref)


# --------------------------------------------------------------------------------------------
# station records
# --------------------------------------------------------------------------------------------

def test_e21136_record_datum_offset_and_stage_measure():
    st = ea.parse_station(list_item("E21136"), "u")
    assert st.station_id == "E21136" and st.label == "Hemingford"
    assert st.datum_offset == 6.3 and st.stage_datum is None and st.gauge_zero == 6.3
    (m,) = st.measures
    assert (m.unit_name, m.unit, m.datum, m.refused) == ("mASD", "m", "GAUGE:E21136", None)
    assert st.gauge_datum == "GAUGE:E21136"
    high = st.stage_scale_value("typicalRangeHigh")
    assert (high.magnitude, high.unit, high.datum) == (0.32, "m", "GAUGE:E21136")
    record = st.stage_scale_value("maxOnRecord")
    assert record.magnitude == 1.212
    assert record.time == datetime(2012, 12, 24, 12, 45, tzinfo=timezone.utc)
    with pytest.raises(KeyError, match="no stageScale.datum"):
        st.stage_scale_value("datum")


def test_measures_as_a_single_object_and_stage_scale_datum_without_datum_offset():
    payload = load("station_4115_single_measure_as_object.json")
    assert isinstance(payload["items"]["measures"], dict)
    st = ea.parse_station(payload["items"], "u")
    assert len(st.measures) == 1
    assert st.datum_offset is None and st.stage_datum == 67.389 and st.gauge_zero == 67.389


def test_reading_4115_single_measure_station():
    url = station_url("4115")
    st, levels = ea.reading("4115", fetch=replay({url: raw("station_4115_single_measure_as_object.json")}),
                            register=False)
    (level,) = levels
    assert (level.magnitude, level.unit, level.datum) == (0.308, "m", "GAUGE:4115")
    assert level.time == datetime(2020, 3, 22, 18, 0, tzinfo=timezone.utc)
    assert level.unit_code == "mASD" and level.flags == () and level.quality is None
    assert level.source == {"agency": "Environment Agency", "station": "4115",
                            "parameter": "level",
                            "measure": "http://environment.data.gov.uk/flood-monitoring/id/"
                                       "measures/4115-level-stage-i-15_min-mASD",
                            "url": url, "qualifier": "Stage", "value_type": "instantaneous"}


def test_reading_2604TH_level_first_then_flow_in_m3_s():
    url = station_url("2604TH")
    st, readings = ea.reading("2604TH", fetch=replay({url: raw("station_2604TH_flow_and_level.json")}),
                              register=False)
    level, flow = readings
    assert level.parameter == "level" and (level.magnitude, level.datum) == (2.187, "GAUGE:2604TH")
    assert flow.parameter == "flow" and (flow.magnitude, flow.unit, flow.datum) == (4.743, "m3/s", None)
    assert flow.time == datetime(2026, 8, 23, 20, 30, tzinfo=timezone.utc)
    assert st.datum_offset is None and st.stage_datum == 19.0


def test_unit_m_is_on_an_unstated_datum():
    payload = load("station_690142_unit_m_2015.json")
    st = ea.parse_station(payload["items"], "u")
    (m,) = st.measures
    assert (m.unit_name, m.unit, m.datum) == ("m", "m", "UNSTATED:690142")
    # stageScale.datum is published, but it is not known that 'm' readings are above it
    assert st.stage_datum == 164.27


def test_mAOD_is_on_odn():
    thames = load("stations_river_thames_limit10.json")
    st = next(s for s in ea.parse_stations(thames, "u") if s.station_id == "3400TH")
    level = next(m for m in st.measures if m.parameter == "level")
    assert (level.unit_name, level.datum) == ("mAOD", "ODN")
    flows = [m for m in st.measures if m.parameter == "flow"]
    assert {m.unit for m in flows} == {"m3/s"} and len(flows) == 3


def test_unknown_unit_names_and_volts_are_refused_by_name():
    by_ref = {s.station_id: s for s in ea.parse_stations(LEVEL_LIST, "u")}
    dashes = by_ref["1501TH"]
    refused = dict(dashes.refused)
    assert len(refused) == 1 and "'---'" in next(iter(refused.values()))
    volts = by_ref["1961TH"]
    assert any("'V'" in why for _, why in volts.refused)
    # a level measure published in m3/s is not a level
    (mid, why), = by_ref["2170"].refused
    assert mid.endswith("2170-level-stage-i-15_min-m3_s") and "'m3/s'" in why
    # the usable measures of those stations are still there
    assert [m.unit_name for m in dashes.measures if not m.refused] == ["mASD"]


def test_refused_measure_readings_come_last_and_raise_with_the_unit_name():
    item = copy.deepcopy(list_item("1961TH"))
    # edited: each measure given a latestReading, since list views carry none
    for i, m in enumerate(item["measures"]):
        m["latestReading"] = {"dateTime": "2022-02-01T10:00:00Z", "value": 1.5 + i}
    payload = {"meta": LEVEL_LIST["meta"], "items": item}
    url = station_url("1961TH")
    st, readings = ea.reading("1961TH", fetch=replay({url: json.dumps(payload)}), register=False)
    assert [r.unit_code for r in readings] == ["mASD", "V"]
    assert not readings[0].missing
    with pytest.raises(MissingValue, match="'V'"):
        readings[1].value
    with pytest.raises(PackError, match="'V'"):
        ea.reading("1961TH", fetch=replay({url: json.dumps(payload)}), register=False,
                   strict=True)


def test_negative_and_integer_datum_offsets():
    by_ref = {s.station_id: s for s in ea.parse_stations(LEVEL_LIST, "u")}
    assert by_ref["E1662"].datum_offset == -0.59
    assert by_ref["E24807"].datum_offset == -0.7
    assert by_ref["52119"].datum_offset == 10.0


def test_downstream_stage_measures_keep_their_own_frame():
    stations = ea.parse_stations(load("stations_coastal_view_full_2022.json"), "u")
    frames = {(m.unit_name, m.datum and m.datum.split(":")[0]) for s in stations
              for m in s.measures if m.qualifier == "Downstream Stage"}
    assert frames == {("mAOD", "ODN"), ("m", "UNSTATED"), ("---", None)}
    # No recorded Downstream Stage measure is in mASD. Edited here: 4615TH's stage measure
    # relabelled "Downstream Stage"; an mASD downstream level is on the downstream gauge.
    item = copy.deepcopy(list_item("4615TH"))
    item["measures"][0]["qualifier"] = "Downstream Stage"
    st = ea.parse_station(item, "u")
    assert st.measures[0].datum == "GAUGE:4615TH-downstream"
    assert st.downstage_datum is None  # its downstageScale publishes no datum


def test_every_recorded_station_list_parses_without_a_wrong_unit():
    for name in ("stations_level_stage_view_full_subset_2022.json",
                 "stations_coastal_view_full_2022.json", "stations_river_thames_limit10.json"):
        for st in ea.parse_stations(load(name), name):
            for m in st.measures:
                if m.refused:
                    assert m.unit is None
                    assert repr(m.unit_name) in m.refused or "link" in m.refused
                else:
                    assert m.unit in ("m", "m3/s", "mm")
                    if m.parameter == "level":
                        assert m.datum is not None


def test_list_view_latest_reading_as_url_and_missing_latest_reading():
    payload = load("measures_rainfall_latest_trimmed.json")
    items = payload["items"]
    without = [i for i in items if "latestReading" not in i]
    assert len(without) == 10
    st = ea.parse_station({"stationReference": "X", "measures": items}, "u")
    readings = ea.latest_readings(st, "u")
    missing = [r for r in readings if r.missing]
    assert len(missing) == 10
    reasons = sorted(r.why_missing for r in missing)
    assert reasons.count("the measure has no latest reading") == 9
    assert "'---'" in reasons[0]  # one of them is also in an unknown unit, and comes last
    assert readings[-1].unit_code == "---"
    good = [r for r in readings if not r.missing]
    assert {r.unit for r in good} == {"mm"} and len(good) == 25
    linked = ea.reading_from(st.measures[0], st, "http://environment.data.gov.uk/x", "u")
    assert linked.missing and "link" in linked.why_missing


def test_array_value_is_not_turned_into_one_number():
    item = copy.deepcopy(load("station_4115_single_measure_as_object.json")["items"])
    item["measures"]["latestReading"]["value"] = [3.5, 3.6]  # edited: the production quirk
    st = ea.parse_station(item, "u")
    (r,) = ea.latest_readings(st, "u")
    assert r.missing and r.raw == [3.5, 3.6]
    with pytest.raises(MissingValue, match="several values"):
        r.value


def test_readings_page_utc_and_unknown_measure():
    payload = load("readings_690140_sorted_limit50_2015.json")
    measure_id = payload["items"][0]["measure"]
    # the station record of 690140 was not recorded; a record listing its one measure, as the
    # notation and the API v0.5 record of neighbour 690142 show it (unitName "m"), is built here
    st = ea.parse_station({"stationReference": "690140", "measures": {
        "@id": measure_id, "parameter": "level", "qualifier": "Stage", "unitName": "m"}}, "u")
    readings = ea.parse_readings(payload, st, "u")
    assert len(readings) == 50
    assert readings[0].time == datetime(2015, 12, 10, 16, 0, tzinfo=timezone.utc)
    assert readings[0].magnitude == 0.754 and readings[0].datum == "UNSTATED:690140"
    other = ea.parse_station({"stationReference": "690140", "measures": []}, "u")
    with pytest.raises(PackError, match="does not list; its unit is unknown"):
        ea.parse_readings(payload, other, "u")


def test_station_errors_name_the_url():
    with pytest.raises(PackError, match="no 'items'") as err:
        ea.reading("E21136", fetch=replay({station_url("E21136"): b"{}"}), register=False)
    assert err.value.url == station_url("E21136")
    with pytest.raises(PackError, match="not a station reference"):
        ea.reading("E21136/readings", fetch=replay({}))
    with pytest.raises(PackError, match="no recorded response"):
        ea.reading("E21136", fetch=replay({}), register=False)


def test_a_measure_listed_twice_with_different_units_is_not_silently_resolved():
    """Issue 18 item 2: the reader kept the last definition of a repeated measure id."""
    payload = load("readings_690140_sorted_limit50_2015.json")
    measure_id = payload["items"][0]["measure"]
    # built here: the station record of 690140 (see above) listing its measure twice, once in
    # m and once in mm, as a publishing error would
    st = ea.parse_station({"stationReference": "690140", "measures": [
        {"@id": measure_id, "parameter": "level", "qualifier": "Stage", "unitName": "m"},
        {"@id": measure_id, "parameter": "level", "qualifier": "Stage", "unitName": "mm"}]}, "u")
    readings = ea.parse_readings(payload, st, "u")
    assert len(readings) == 50                      # every published reading is kept ...
    assert readings[0].raw == 0.754
    with pytest.raises(MissingValue, match="lists measure .* twice"):
        readings[0].value                           # ... but none is given a guessed unit
    same = ea.parse_station({"stationReference": "690140", "measures": [
        {"@id": measure_id, "parameter": "level", "qualifier": "Stage", "unitName": "m"}] * 2},
        "u")
    assert ea.parse_readings(payload, same, "u")[0].magnitude == 0.754  # a plain repeat
