"""Environment Agency flood-monitoring API (England): stations and their latest readings.

    station, levels = ea.reading("E21136")
    levels[0].value                    # Q(... m (GAUGE:E21136))
    levels[0].value.to_datum("ODN")    # the station's published datum offset applied

The vocabulary (docs/services.md, "UK Environment Agency flood-monitoring API"):

* ``mASD`` is metres above the station's own gauge zero: the datum ``GAUGE:<station>``.
  Reading the station registers that datum's offset to Ordnance Datum Newlyn from
  ``datumOffset``, or ``stageScale.datum`` when ``datumOffset`` is absent (both are the
  gauge zero in mAOD, and can be negative). A "Downstream Stage" measure is on the downstream
  gauge, ``GAUGE:<station>-downstream``, related to ODN only by ``downstageScale.datum``;
* ``mAOD`` is already on ODN;
* ``m`` states no datum: it is carried on ``UNSTATED:<station>``, a datum with no offsets, so
  it can be neither converted nor compared with anything else;
* flow is ``m3/s`` and rainfall ``mm``; ``---`` (unknown) and ``V`` (sensor volts) are refused
  by name, as is a level measure published in a unit that is not a length.

The API publishes no quality flag (raw telemetry), so readings carry no grade; their age is the
only staleness signal. ``measures`` may be one object instead of a list, ``latestReading`` a
URL string instead of a reading, and ``value`` an array: none of these becomes a wrong number.
Readings are UTC. Data: Open Government Licence v3; "this uses Environment Agency flood and
river level data from the real-time data API (Beta)".
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Mapping

from . import _fetch
from ._fetch import PackError, Reading, get_json, parse_number, parse_time, with_query

__all__ = ["BASE", "Station", "Measure", "reading", "station", "stations", "readings",
           "parse_station", "parse_stations", "parse_readings", "register_station",
           "ATTRIBUTION"]

BASE = "https://environment.data.gov.uk/flood-monitoring"
AGENCY = "Environment Agency"
PUBLISHER = "ea"
ATTRIBUTION = ("this uses Environment Agency flood and river level data from the real-time "
               "data API (Beta)")

#: The kind of unit each parameter must be published in; anything else is refused.
_EXPECTED = {"level": {"m"}, "flow": {"m3/s"}, "rainfall": {"mm"}}
_ORDER = {"level": 0, "flow": 1}


@dataclass(frozen=True)
class Measure:
    """One measure of a station, with the datum and kernel unit the pack read it as.

    ``refused`` says why no value of this measure is returned (``None`` when it is usable).
    """

    id: str
    notation: str | None
    parameter: str | None
    qualifier: str | None
    unit_name: str | None
    value_type: str | None
    period: int | None
    label: str | None
    unit: str | None
    datum: str | None
    refused: str | None = None
    latest: Any = field(default=None, compare=False)  # the raw latestReading


@dataclass(frozen=True)
class Station:
    """A flood-monitoring station as its record publishes it.

    ``datum_offset`` and ``stage_datum`` (``stageScale.datum``) are the gauge zero in mAOD;
    ``gauge_datum`` is the datum mASD readings carry and ``offset_registered`` whether it can
    be converted to ODN (``datum_note`` says why not, or notes a disagreement).
    """

    station_id: str
    label: str | None = None
    river: str | None = None
    catchment: str | None = None
    town: str | None = None
    latitude: float | None = None
    longitude: float | None = None
    easting: float | None = None
    northing: float | None = None
    status: str | None = None
    date_opened: str | None = None
    datum_offset: float | None = None
    stage_datum: float | None = None
    downstage_datum: float | None = None
    measures: tuple[Measure, ...] = ()
    stage_scale: Mapping[str, Any] = field(default_factory=dict, compare=False)
    source: dict = field(default_factory=dict, compare=False)
    offset_registered: bool = False
    datum_note: str | None = None

    @property
    def gauge_datum(self) -> str:
        return f"GAUGE:{self.station_id}"

    @property
    def downstream_datum(self) -> str:
        return f"GAUGE:{self.station_id}-downstream"

    @property
    def unstated_datum(self) -> str:
        return f"UNSTATED:{self.station_id}"

    @property
    def gauge_zero(self) -> float | None:
        """The gauge zero in mAOD: ``datumOffset``, else ``stageScale.datum``."""
        return self.datum_offset if self.datum_offset is not None else self.stage_datum

    @property
    def refused(self) -> tuple[tuple[str, str], ...]:
        """(measure id, reason) for every measure whose values the pack will not return."""
        return tuple((m.id, m.refused) for m in self.measures if m.refused)

    def stage_scale_value(self, name: str) -> Reading:
        """A stage-scale figure (``typicalRangeHigh``, ``maxOnRecord`` ...) as a Reading.

        The figures are in the frame of the station's stage measure (mASD for stage,
        mAOD for groundwater); when the station's stage measures disagree on that frame, or it
        has none, the figure is returned as missing rather than placed on a guessed datum.
        """
        scale = self.stage_scale
        if name not in scale:
            have = ", ".join(sorted(scale)) or "none"
            raise KeyError(f"station {self.station_id} publishes no stageScale.{name} "
                           f"(it has: {have})")
        entry = scale[name]
        when = None
        value = entry
        if isinstance(entry, dict):
            value = entry.get("value")
            if entry.get("dateTime"):
                # stageScale record times are written without a zone; the API's readings are
                # UTC, and these are taken as UTC too (an inference, docs/services.md)
                when = parse_time(entry["dateTime"], url=self.source.get("url"),
                                  default_tz=timezone.utc, what=f"stageScale.{name}")
        frames = {(m.unit, m.datum) for m in self.measures
                  if m.parameter == "level" and not m.refused
                  and (m.qualifier or "") in ("Stage", "Groundwater")}
        source = {"agency": AGENCY, "station": self.station_id, "parameter": f"stageScale.{name}",
                  "url": self.source.get("url")}
        if len(frames) != 1:
            why = ("the station's stage measures are on several datums" if frames else
                   "the station has no usable stage measure to say which datum it is on")
            return Reading(parameter=f"stageScale.{name}", magnitude=None, unit=None, time=when,
                           source=source, why_missing=why, raw=value)
        ((unit, datum),) = frames
        try:
            magnitude = parse_number(value, url=self.source.get("url"), what=f"stageScale.{name}")
        except PackError as exc:
            return Reading(parameter=f"stageScale.{name}", magnitude=None, unit=None, time=when,
                           source=source, why_missing=exc.reason, raw=value)
        return Reading(parameter=f"stageScale.{name}", magnitude=magnitude, unit=unit, time=when,
                       datum=datum, source=source, unit_code="mASD" if datum == self.gauge_datum
                       else None, raw=value)


# --------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------

def _first(value: Any) -> Any:
    """Third-party models declare some station fields as possibly lists; take a lone item."""
    if isinstance(value, list):
        return value[0] if len(value) == 1 else None
    return value


def _number_or_none(value: Any, url: str | None, what: str) -> float | None:
    value = _first(value)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return parse_number(value, url=url, what=what)


def _measure(item: Any, station_id: str, url: str | None) -> Measure:
    if isinstance(item, str):
        return Measure(id=item, notation=None, parameter=None, qualifier=None, unit_name=None,
                       value_type=None, period=None, label=None, unit=None, datum=None,
                       refused="the measure is a link, not a record (list view)")
    if not isinstance(item, dict):
        raise PackError(url, f"station {station_id}: a measure is {type(item).__name__}, "
                             "expected an object")
    mid = str(item.get("@id") or item.get("notation") or "?")
    parameter = item.get("parameter")
    qualifier = item.get("qualifier")
    unit_name = item.get("unitName")
    unit = datum = refused = None
    what = f"measure {item.get('notation') or mid}"
    try:
        entry = _fetch.publisher_unit(PUBLISHER, unit_name, url=url, what=what)
    except PackError as exc:
        refused = exc.reason
    else:
        unit = entry["unit"]
        expected = _EXPECTED.get(parameter or "")
        if expected is not None and unit not in expected:
            refused = (f"{what} is a {parameter} measure published in {unit_name!r}, which is "
                       f"not a unit of {parameter}")
            unit = None
        role = entry.get("datum")
        if role == "station":
            datum = (f"GAUGE:{station_id}-downstream" if qualifier == "Downstream Stage"
                     else f"GAUGE:{station_id}")
        elif role == "unstated":
            datum = f"UNSTATED:{station_id}"
        elif role is not None:
            datum = role
    period = item.get("period")
    return Measure(id=mid, notation=item.get("notation"), parameter=parameter,
                   qualifier=qualifier, unit_name=unit_name, value_type=item.get("valueType"),
                   period=int(period) if isinstance(period, (int, float)) else None,
                   label=item.get("label"), unit=unit, datum=datum, refused=refused,
                   latest=item.get("latestReading"))


def parse_station(item: Any, url: str | None = None) -> Station:
    """A :class:`Station` from a station object (``items`` of ``/id/stations/{id}``)."""
    if not isinstance(item, dict):
        raise PackError(url, f"expected a station object, got {type(item).__name__}")
    ref = _first(item.get("stationReference")) or _first(item.get("notation"))
    if not isinstance(ref, str) or not ref.strip():
        raise PackError(url, "station record has no stationReference")
    ref = ref.strip()
    measures = item.get("measures")
    if measures is None:
        measures = []
    elif not isinstance(measures, list):
        measures = [measures]  # one measure is published as an object, not a list
    stage_scale = item.get("stageScale")
    stage_scale = stage_scale if isinstance(stage_scale, dict) else {}
    downstage = item.get("downstageScale")
    downstage = downstage if isinstance(downstage, dict) else {}
    scale = {k: v for k, v in stage_scale.items()
             if k in ("typicalRangeHigh", "typicalRangeLow", "maxOnRecord", "minOnRecord",
                      "highestRecent", "scaleMax")}
    return Station(
        station_id=ref,
        label=_first(item.get("label")),
        river=item.get("riverName"),
        catchment=item.get("catchmentName"),
        town=item.get("town"),
        latitude=_number_or_none(item.get("lat"), url, "lat"),
        longitude=_number_or_none(item.get("long"), url, "long"),
        easting=_number_or_none(item.get("easting"), url, "easting"),
        northing=_number_or_none(item.get("northing"), url, "northing"),
        status=_first(item.get("status")),
        date_opened=item.get("dateOpened"),
        datum_offset=_number_or_none(item.get("datumOffset"), url, "datumOffset"),
        stage_datum=_number_or_none(stage_scale.get("datum"), url, "stageScale.datum"),
        downstage_datum=_number_or_none(downstage.get("datum"), url, "downstageScale.datum"),
        measures=tuple(_measure(m, ref, url) for m in measures),
        stage_scale=scale,
        source={"agency": AGENCY, "station": ref, "url": url},
    )


def parse_stations(payload: Any, url: str | None = None) -> list[Station]:
    """Stations from a list response (``/id/stations?...``), or one from a single response."""
    items = _items(payload, url)
    if isinstance(items, dict):
        return [parse_station(items, url)]
    if not isinstance(items, list):
        raise PackError(url, "'items' is neither a list nor an object")
    return [parse_station(item, url) for item in items]


def _items(payload: Any, url: str | None) -> Any:
    if not isinstance(payload, dict) or "items" not in payload:
        raise PackError(url, "not a flood-monitoring API response (no 'items')")
    return payload["items"]


def reading_from(measure: Measure, station: Station, raw: Any, url: str | None) -> Reading:
    """A Reading from a measure and one reading object (``latestReading`` or a readings item)."""
    source = {"agency": AGENCY, "station": station.station_id, "parameter": measure.parameter,
              "measure": measure.id, "url": url}
    if measure.qualifier:
        source["qualifier"] = measure.qualifier
    if measure.value_type:
        source["value_type"] = measure.value_type
    base: dict[str, Any] = dict(parameter=measure.parameter or "?", unit=measure.unit, datum=measure.datum,
                source=source, unit_code=measure.unit_name, method=measure.qualifier or None)
    if measure.refused:
        return Reading(magnitude=None, time=None, why_missing=measure.refused,
                       raw=raw.get("value") if isinstance(raw, dict) else None, **base)
    if raw is None:
        return Reading(magnitude=None, time=None, why_missing="the measure has no latest reading",
                       **base)
    if isinstance(raw, str):
        return Reading(magnitude=None, time=None, raw=raw,
                       why_missing="latestReading is a link, not a reading (list view)", **base)
    if not isinstance(raw, dict):
        raise PackError(url, f"measure {measure.id}: reading is {type(raw).__name__}")
    when = parse_time(raw.get("dateTime"), url=url, what=f"measure {measure.id} dateTime")
    value = raw.get("value")
    if value is None:
        return Reading(magnitude=None, time=when, why_missing="the reading has no value", **base)
    if isinstance(value, list):
        # seen in production: two numbers for one timestamp; neither is chosen
        return Reading(magnitude=None, time=when, raw=value,
                       why_missing=f"the reading has several values {value!r}", **base)
    try:
        magnitude = parse_number(value, url=url, what=f"measure {measure.id} value")
    except PackError as exc:
        return Reading(magnitude=None, time=when, raw=value, why_missing=exc.reason, **base)
    return Reading(magnitude=magnitude, time=when, raw=value, **base)


def latest_readings(station: Station, url: str | None = None) -> list[Reading]:
    """The inline ``latestReading`` of every measure: levels first (stage before others),
    then flow, then the rest; refused measures last."""
    out = [reading_from(m, station, m.latest, url) for m in station.measures]

    def order(r: Reading) -> tuple:
        m = r.source.get("measure")
        measure = next(x for x in station.measures if x.id == m)
        return (measure.refused is not None, _ORDER.get(measure.parameter or "", 2),
                measure.qualifier != "Stage")

    return sorted(out, key=order)


def parse_readings(payload: Any, station: Station, url: str | None = None) -> list[Reading]:
    """Readings from a ``/readings`` response, using ``station``'s measures for unit and datum.

    A reading of a measure the station record does not list is an error (its unit is unknown).
    """
    items = _items(payload, url)
    if not isinstance(items, list):
        raise PackError(url, "'items' of a readings response is not a list")
    by_id: dict[str, Measure] = {}
    conflicting: dict[str, str] = {}  # a measure listed twice with different definitions
    for m in station.measures:
        first = by_id.setdefault(m.id, m)
        if first is not m and _definition(first) != _definition(m):
            conflicting[m.id] = (f"station {station.station_id} lists measure {m.id} twice, "
                                 f"as {_definition(first)} and as {_definition(m)}; which one "
                                 f"a reading of it is in cannot be told")
    out = []
    for item in items:
        mid: Any = item.get("measure") if isinstance(item, dict) else None
        if isinstance(mid, dict):
            mid = mid.get("@id")
        measure = by_id.get(mid)
        if measure is None:
            raise PackError(url, f"a reading refers to measure {mid!r}, which station "
                                 f"{station.station_id} does not list; its unit is unknown")
        if mid in conflicting:
            measure = dataclasses.replace(measure, refused=conflicting[mid])
        out.append(reading_from(measure, station, item, url))
    return out


def _definition(m: Measure) -> tuple:
    return (m.parameter, m.qualifier, m.unit_name, m.value_type, m.period, m.datum)


# --------------------------------------------------------------------------------------------
# Datums
# --------------------------------------------------------------------------------------------

def register_station(station: Station) -> Station:
    """Register ``GAUGE:<id>`` against ODN from the published gauge zero, and the unstated and
    downstream datums the station's measures use. Returns the station with
    ``offset_registered`` / ``datum_note`` filled in."""
    from .. import datums

    notes = []
    registered = False
    zero = station.gauge_zero
    if station.datum_offset is not None and station.stage_datum is not None and \
            station.datum_offset != station.stage_datum:
        notes.append(f"datumOffset {station.datum_offset} and stageScale.datum "
                     f"{station.stage_datum} disagree; datumOffset is used")
    uses = {m.datum for m in station.measures if m.datum}
    if zero is not None:
        elevation = _fetch.to_q(zero, "m", "ODN", None, dict(station.source))
        note = _fetch.register_gauge_zero(station.station_id, elevation, prefix="GAUGE",
                                          publisher="the Environment Agency station record",
                                          source=station.source.get("url"))
        registered = note is None
        if note:
            notes.append(note)
    elif station.gauge_datum in uses:
        notes.append("the station publishes no datumOffset or stageScale.datum; its mASD "
                     "readings cannot be converted to ODN")
    if station.downstream_datum in uses:
        if station.downstage_datum is not None:
            elevation = _fetch.to_q(station.downstage_datum, "m", "ODN", None,
                                    dict(station.source))
            note = _fetch.register_gauge_zero(
                f"{station.station_id}-downstream", elevation, prefix="GAUGE",
                publisher="the Environment Agency station record",
                source=station.source.get("url"))
            if note:
                notes.append(note)
        else:
            notes.append("the downstream gauge publishes no downstageScale.datum")
    if station.unstated_datum in uses and not datums.is_registered(station.unstated_datum):
        datums.register(station.unstated_datum, kind="local",
                        description=(f"Environment Agency station {station.station_id}: levels "
                                     "published in 'm' with no stated datum"),
                        source=station.source.get("url"))
    return dataclasses.replace(station, offset_registered=registered,
                               datum_note="; ".join(notes) or None)


# --------------------------------------------------------------------------------------------
# Fetching
# --------------------------------------------------------------------------------------------

def _get(fetch: _fetch.Fetch | None, url: str) -> Any:
    return get_json(fetch or _fetch.fetch, url, {"Accept": "application/json"})


def _check_station_id(station_id: Any) -> str:
    if not isinstance(station_id, str) or not station_id.strip():
        raise PackError(None, f"station reference {station_id!r} must be a non-empty string")
    ref = station_id.strip()
    if any(c in ref for c in "/?#&% "):
        raise PackError(None, f"{station_id!r} is not a station reference")
    return ref


def station(station_id: str, *, fetch: _fetch.Fetch | None = None,
            register: bool = True) -> Station:
    """The station record (``/id/stations/{id}``); registers its datums by default."""
    ref = _check_station_id(station_id)
    url = f"{BASE}/id/stations/{ref}"
    record = _single_station(_get(fetch, url), url, ref)
    return register_station(record) if register else record


def _single_station(payload: Any, url: str, ref: str) -> Station:
    items = _items(payload, url)
    if isinstance(items, list):
        if len(items) != 1:
            raise PackError(url, f"expected one station {ref}, got {len(items)}")
        items = items[0]
    return parse_station(items, url)


def reading(station_id: str, *, fetch: _fetch.Fetch | None = None, register: bool = True,
            strict: bool = False) -> tuple[Station, list[Reading]]:
    """The station and the latest reading of each of its measures (levels first).

    Measures the pack refuses (``---``, ``V``, a level in ``m3/s``) come last, as readings
    whose ``value`` raises with the reason; ``strict=True`` raises :class:`PackError` instead.
    """
    record = station(station_id, fetch=fetch, register=register)
    if strict and record.refused:
        mid, why = record.refused[0]
        raise PackError(record.source.get("url"), why)
    return record, latest_readings(record, record.source.get("url"))


def readings(station_id: str, *, since: datetime | str | None = None, limit: int = 500,
             fetch: _fetch.Fetch | None = None, register: bool = True
             ) -> tuple[Station, list[Reading]]:
    """Recent readings of every measure of a station, newest first (``_sorted``)."""
    record = station(station_id, fetch=fetch, register=register)
    if isinstance(since, datetime):
        if since.tzinfo is None:
            raise PackError(None, "since must be timezone-aware")
        since = since.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    url = with_query(f"{BASE}/id/stations/{record.station_id}/readings", _sorted="",
                     _limit=int(limit), since=since)
    return record, parse_readings(_get(fetch, url), record, url)


def stations(*, fetch: _fetch.Fetch | None = None, **filters: Any) -> list[Station]:
    """Stations matching the API's filters (``parameter="level"``, ``riverName=...``);
    nothing is registered."""
    url = with_query(f"{BASE}/id/stations", **filters)
    return parse_stations(_get(fetch, url), url)
