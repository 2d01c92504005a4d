"""The offline assertions, against the live services (``pytest -m live``; deselected by default).

Values change; units, datums, timestamp awareness, and the datum offsets published in the
station records (which the recorded responses also show) do not, or rarely.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from quantity_guard.errors import DatumMismatch
from quantity_guard.packs import ea, nwps, usgs

pytestmark = pytest.mark.live



def _recent(when: datetime, days: int = 30) -> bool:
    return when.tzinfo is not None and datetime.now(timezone.utc) - when < timedelta(days=days)


def test_usgs_ogc_07374000():
    site, values = usgs.reading("07374000")
    assert site.vertical_datum == "NAVD88" and site.altitude == 0.0
    assert site.gage_offset_registered
    q = values["00060"]
    assert q.unit == "ft3/s" and _recent(q.time)
    assert q.value.unit.symbol == "ft3/s" and q.value.quality in ("provisional", "approved")
    stage = values["00065"].value
    assert stage.datum == "GAGE:07374000"
    if "63160" in values and values["63160"].time == values["00065"].time:
        assert stage.to_datum("NAVD88").isclose(values["63160"].value, rel=1e-6)
        with pytest.raises(DatumMismatch):
            values["63160"].value - stage


def test_usgs_ogc_monitoring_locations_datums():
    assert usgs.site("06730500").vertical_datum == "NGVD29"
    site = usgs.site("02238500")
    assert site.vertical_datum is None and not site.gage_offset_registered


def test_usgs_waterservices_legacy_07374000():
    site, values = usgs.reading("07374000", source="waterservices")
    assert site.vertical_datum == "NAVD88"
    assert values["00060"].unit == "ft3/s" and values["00060"].time.tzinfo is not None
    assert values["00065"].value.datum == "GAGE:07374000"


def test_ea_e21136():
    station, levels = ea.reading("E21136")
    assert station.gauge_zero == 6.3 and station.offset_registered
    level = levels[0]
    assert level.unit_code == "mASD" and level.datum == "GAUGE:E21136"
    if not level.missing:
        q = level.value
        assert q.to_datum("ODN").magnitude == pytest.approx(q.magnitude + 6.3)
        assert _recent(level.time, days=7)


def test_nwps_brkm2():
    g = nwps.gauge("BRKM2")
    assert g.datum == "GAGE:01646500" and g.time_zone == "America/New_York"
    assert g.categories["minor"].unit == "ft"
    assert g.categories["minor"].value.datum == "GAGE:01646500"
    assert g.observed_stage.unit == "ft" and g.observed_flow.unit == "kcfs"
    assert g.flow_categories["action"].unit == "ft3/s"
