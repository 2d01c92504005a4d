"""NOAA National Water Prediction Service: a gauge's flood categories, stage and flow.

    g = nwps.gauge("BRKM2")
    g.categories["minor"].value        # Q(10 ft (GAGE:01646500)), the minor flood stage
    g.observed_stage.value             # Q(3.02 ft (GAGE:01646500))
    g.categories["minor"].value - g.observed_stage.value    # freeboard, same datum

``https://api.water.noaa.gov/nwps/v1/gauges/{id}`` (the NWS location id, or the USGS site
number). What the record says (docs/services.md, "NOAA National Water Prediction Service"):

* stages are on the gauge's own datum, and the NWPS stage is the USGS 00065 stage, so a gauge
  with a USGS id carries ``GAGE:<usgs id>``, the datum the USGS pack gives 00065 (a gauge with
  no USGS id carries ``GAGE:<lid>``); flood thresholds and crests are on it too;
* units are as published: ``status`` flow in **kcfs**, flood-threshold flow in **cfs**; both
  carry their unit, so comparing them converts rather than misleads;
* ``-9999`` (and ``-999``) means undefined or missing, never a number;
* a crest with ``olddatum: true`` is on a superseded gage datum: its stage is refused, its flow
  kept;
* ``datums.vertical`` gives the gauge zero on named datums (BRKM2: NAVD88 37.2, where USGS
  publishes 37.04 +- 0.17 ft), read in the gauge's stage unit (the record gives it none of its
  own). As in every pack, reading the gauge registers it as the gauge datum's offset
  (``register=True``); where the USGS record registered another figure first, the read
  succeeds, the registered zero stands and ``datum_note`` says so;
* ``timeZone`` is a POSIX string (``EST5EDT``), mapped to an IANA zone; times are UTC.

NWPS publishes no quality flag; forecasts are marked ``kind: "forecast"`` in their source.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, NamedTuple

from . import _fetch
from ..errors import UnknownDatum
from ._fetch import PackError, Reading, get_json, parse_number, parse_time

__all__ = ["BASE", "Gauge", "gauge", "parse_gauge", "register_gauge", "CATEGORIES"]

BASE = "https://api.water.noaa.gov/nwps/v1"
AGENCY = "NOAA NWPS"
PUBLISHER = "nwps"
CATEGORIES = ("action", "minor", "moderate", "major")
SENTINELS = frozenset({-9999.0, -999.0})
_STAGE_UNITS = frozenset({"ft", "m"})
_FLOW_UNITS = frozenset({"cfs", "kcfs", "cms"})

# POSIX TZ strings in NWPS gauge records -> IANA zones (docs/services.md, NWPS: the
# single-zone forms are the ones seen for gauges on standard time all year).
POSIX_ZONES = {
    "EST5EDT": "America/New_York", "CST6CDT": "America/Chicago",
    "MST7MDT": "America/Denver", "PST8PDT": "America/Los_Angeles",
    "MST": "America/Phoenix", "HST": "Pacific/Honolulu",
}


@dataclass(frozen=True)
class Gauge:
    """An NWPS gauge: thresholds, latest observed and forecast stage and flow, crests.

    ``categories`` and ``flow_categories`` map action/minor/moderate/major to Readings (an
    undefined threshold is a missing Reading). ``datum`` is the gauge datum stages are on.
    """

    lid: str
    usgs_id: str | None
    name: str | None
    datum: str
    state: str | None = None
    county: str | None = None
    latitude: float | None = None
    longitude: float | None = None
    posix_time_zone: str | None = None
    time_zone: str | None = None
    categories: Mapping[str, Reading] = field(default_factory=dict)
    flow_categories: Mapping[str, Reading] = field(default_factory=dict)
    observed_stage: Reading | None = None
    observed_flow: Reading | None = None
    forecast_stage: Reading | None = None
    forecast_flow: Reading | None = None
    observed_category: str | None = None
    forecast_category: str | None = None
    datum_elevations: Mapping[str, Reading] = field(default_factory=dict)
    crests_historic: tuple[tuple[Reading, Reading], ...] = ()
    crests_recent: tuple[tuple[Reading, Reading], ...] = ()
    in_service: bool | None = None
    source: dict = field(default_factory=dict, compare=False)
    offset_registered: bool = False
    datum_note: str | None = None

    def flood_stage(self, category: str) -> Any:
        """The stage threshold of a flood category as a ``Q`` (raises if undefined)."""
        if category not in self.categories:
            raise KeyError(f"{category!r} is not a flood category; use one of "
                           f"{', '.join(CATEGORIES)}")
        return self.categories[category].value


def _unit(code: Any, url: str | None, what: str) -> str:
    return _fetch.publisher_unit(PUBLISHER, code, url=url, what=what)


def _value(raw: Any, *, parameter: str, unit_code: Any, datum: str | None, time: Any,
           source: dict, url: str | None, kind_check: frozenset | None = None) -> Reading:
    """A Reading for one published number, with the NWPS sentinels treated as missing."""
    what = f"{source.get('station')} {parameter}"
    when = parse_time(time, url=url, what=f"{what} time") if time else None
    base = dict(parameter=parameter, datum=datum, source=dict(source, parameter=parameter),
                unit_code=unit_code, time=when, raw=raw)
    try:
        unit = _unit(unit_code, url, what)
        if kind_check is not None and unit_code not in kind_check:
            raise PackError(url, f"{what} is published in {unit_code!r}, which is not a unit "
                                 f"of {parameter.split('.')[0]}")
    except PackError as exc:
        return Reading(magnitude=None, unit=None, why_missing=exc.reason, **base)
    if raw is None:
        return Reading(magnitude=None, unit=unit, why_missing="no value published", **base)
    try:
        number = parse_number(raw, url=url, what=what)
    except PackError as exc:
        return Reading(magnitude=None, unit=unit, why_missing=exc.reason, **base)
    if number in SENTINELS:
        return Reading(magnitude=None, unit=unit,
                       why_missing=f"{raw!r} is the NWPS sentinel for an undefined value", **base)
    return Reading(magnitude=number, unit=unit, **base)


def _status(block: Any, *, datum: str, source: dict, url: str | None, kind: str
            ) -> tuple[Reading | None, Reading | None, str | None]:
    """(stage, flow, flood category) of ``status.observed`` / ``status.forecast``."""
    if not isinstance(block, dict):
        return None, None, None
    src = dict(source, kind=kind)
    stage = flow = None
    for value_key, unit_key in (("primary", "primaryUnit"), ("secondary", "secondaryUnit")):
        unit_code = block.get(unit_key)
        if unit_code in _STAGE_UNITS and stage is None:
            stage = _value(block.get(value_key), parameter=f"{kind}.stage", unit_code=unit_code,
                           datum=datum, time=block.get("validTime"), source=src, url=url)
        elif unit_code in _FLOW_UNITS and flow is None:
            flow = _value(block.get(value_key), parameter=f"{kind}.flow", unit_code=unit_code,
                          datum=None, time=block.get("validTime"), source=src, url=url)
        elif block.get(value_key) is not None:
            refused = _value(block.get(value_key), parameter=f"{kind}.{value_key}",
                             unit_code=unit_code, datum=None, time=block.get("validTime"),
                             source=src, url=url, kind_check=_STAGE_UNITS | _FLOW_UNITS)
            if value_key == "primary":
                stage = refused
            else:
                flow = refused
    return stage, flow, block.get("floodCategory")


def _object(value: Any) -> dict[str, Any]:
    """A JSON object of the payload, or {} for anything else (absent, null, another type)."""
    return value if isinstance(value, dict) else {}


def parse_gauge(payload: Any, url: str | None = None) -> Gauge:
    """A :class:`Gauge` from a ``/gauges/{id}`` response."""
    lid, usgs_id, datum, source = _identity(payload, url)
    flood = _object(payload.get("flood"))
    units = _Units(flood.get("stageUnits"), flood.get("flowUnits"))
    categories, flow_categories = _flood_categories(flood, units, datum, source, url)
    status = _object(payload.get("status"))
    obs_stage, obs_flow, obs_cat = _status(status.get("observed"), datum=datum, source=source,
                                           url=url, kind="observed")
    fc_stage, fc_flow, fc_cat = _status(status.get("forecast"), datum=datum, source=source,
                                        url=url, kind="forecast")
    crests = _crests(flood, units, datum, source, url)
    elevations = _distinct_elevations(_listed_datums(payload, units, source, url), lid)
    posix = payload.get("timeZone")
    in_service = payload.get("inService")
    return Gauge(
        lid=lid, usgs_id=usgs_id, name=payload.get("name"), datum=datum,
        state=(payload.get("state") or {}).get("abbreviation")
        if isinstance(payload.get("state"), dict) else payload.get("state"),
        county=payload.get("county"),
        latitude=_optional(payload.get("latitude"), url, "latitude"),
        longitude=_optional(payload.get("longitude"), url, "longitude"),
        posix_time_zone=posix, time_zone=POSIX_ZONES.get(posix) if posix else None,
        categories=categories, flow_categories=flow_categories,
        observed_stage=obs_stage, observed_flow=obs_flow, observed_category=obs_cat,
        forecast_stage=fc_stage, forecast_flow=fc_flow, forecast_category=fc_cat,
        datum_elevations=elevations,
        crests_historic=tuple(crests["historic"]), crests_recent=tuple(crests["recent"]),
        in_service=in_service.get("enabled") if isinstance(in_service, dict) else None,
        source=source,
    )


class _Units(NamedTuple):
    """The unit codes the record gives once for all its stages and all its flows."""
    stage: Any
    flow: Any


def _identity(payload: Any, url: str | None) -> tuple[str, str | None, str, dict[str, Any]]:
    """(NWS location id, USGS site number or None, the gauge datum's name, the source every
    reading of the gauge carries); refuses a payload that is not a gauge record."""
    if not isinstance(payload, dict) or not payload.get("lid"):
        raise PackError(url, "not an NWPS gauge record (no 'lid')")
    lid = str(payload["lid"]).strip()
    usgs_id = payload.get("usgsId") or None
    usgs_id = str(usgs_id).strip() if usgs_id else None
    source: dict[str, Any] = {"agency": AGENCY, "station": lid, "url": url}
    if usgs_id:
        source["usgs_id"] = usgs_id
    return lid, usgs_id, f"GAGE:{usgs_id or lid}", source


def _flood_categories(flood: dict[str, Any], units: _Units, datum: str, source: dict[str, Any],
                      url: str | None) -> tuple[dict[str, Reading], dict[str, Reading]]:
    """The stage and the flow of each flood category (action, minor, moderate, major)."""
    categories: dict[str, Reading] = {}
    flow_categories: dict[str, Reading] = {}
    cats = _object(flood.get("categories"))
    for name in CATEGORIES:
        entry = _object(cats.get(name))
        categories[name] = _value(entry.get("stage"), parameter=f"flood.{name}.stage",
                                  unit_code=units.stage, datum=datum, time=None, source=source,
                                  url=url, kind_check=_STAGE_UNITS)
        flow_categories[name] = _value(entry.get("flow"), parameter=f"flood.{name}.flow",
                                       unit_code=units.flow, datum=None, time=None,
                                       source=source, url=url, kind_check=_FLOW_UNITS)
    return categories, flow_categories


def _crests(flood: dict[str, Any], units: _Units, datum: str, source: dict[str, Any],
            url: str | None) -> dict[str, list]:
    """The historic and recent crests, (stage, flow) each; a stage on a superseded gage datum
    (``olddatum``) is kept as missing, with the reason."""
    crests: dict[str, list] = {"historic": [], "recent": []}
    raw_crests = _object(flood.get("crests"))
    for which in crests:
        for c in raw_crests.get(which) or ():
            if not isinstance(c, dict):
                continue
            src = dict(source, preliminary=c.get("preliminary"), olddatum=c.get("olddatum"))
            stage = _value(c.get("stage"), parameter=f"crest.{which}.stage",
                           unit_code=units.stage, datum=datum, time=c.get("occurredTime"),
                           source=src, url=url, kind_check=_STAGE_UNITS)
            if c.get("olddatum") is True and not stage.missing:
                stage = Reading(parameter=stage.parameter, magnitude=None, unit=stage.unit,
                                time=stage.time, source=stage.source, unit_code=stage.unit_code,
                                raw=stage.raw,
                                why_missing="the crest is on a superseded gage datum (olddatum)")
            flow = _value(c.get("flow"), parameter=f"crest.{which}.flow", unit_code=units.flow,
                          datum=None, time=c.get("occurredTime"), source=src, url=url,
                          kind_check=_FLOW_UNITS)
            crests[which].append((stage, flow))
    return crests


def _listed_datums(payload: dict[str, Any], units: _Units, source: dict[str, Any],
                   url: str | None) -> dict[str, list[Reading]]:
    """The gauge zero's elevation on each vertical datum the record lists, in the order
    published (a datum listed twice keeps both)."""
    listed: dict[str, list[Reading]] = {}
    vertical = ((payload.get("datums") or {}).get("vertical") or {}).get("value") or ()
    for d in vertical:
        if not isinstance(d, dict) or not d.get("abbrev"):
            continue
        src = dict(source, note="the record gives no unit for datum values; the gauge's "
                                "stage unit is assumed")
        listed.setdefault(str(d["abbrev"]), []).append(_value(
            d.get("value"), parameter=f"datum.{d['abbrev']}", unit_code=units.stage,
            datum=str(d["abbrev"]), time=None, source=src, url=url, kind_check=_STAGE_UNITS))
    return listed


def _distinct_elevations(listed: dict[str, list[Reading]], lid: str) -> dict[str, Reading]:
    """One entry per datum; a datum listed twice with one value is one entry (the source says
    so), listed with different values every one is kept as ``"<datum>#1"``, ``"<datum>#2"``
    (in the order published, the bare name absent), each source saying why: never overwritten."""
    out: dict[str, Reading] = {}
    for name, group in listed.items():
        if len(group) == 1:
            out[name] = group[0]
            continue
        shown = [(r.magnitude, r.unit, r.why_missing) for r in group]
        if len(set(shown)) == 1:
            out[name] = _note(group[0], rival_series=f"gauge {lid} lists {name} {len(group)} "
                                                     f"times with the same value")
            continue
        values = ", ".join("missing" if r.magnitude is None else f"{r.magnitude:g}"
                           for r in group)
        why = (f"gauge {lid} lists {name} {len(group)} times with different values "
               f"({values}); every one is kept, numbered in the order published, and none is "
               f"chosen")
        for i, r in enumerate(group, 1):
            out[f"{name}#{i}"] = _note(r, rival_series=why, series_key=f"{name}#{i}")
    return out


def _note(r: Reading, **notes: Any) -> Reading:
    import dataclasses
    return dataclasses.replace(r, source={**r.source, **notes})


def _optional(value: Any, url: str | None, what: str) -> float | None:
    return None if value is None else parse_number(value, url=url, what=what)


def gauge(identifier: str, *, fetch: _fetch.Fetch | None = None, register: bool = True,
          register_offset: bool | None = None) -> Gauge:
    """The gauge record for an NWS location id (``"BRKM2"``) or a USGS site number.

    As every pack does with the record it reads (``register=True``, the default), the gauge
    zero's published NAVD88 / NGVD29 elevation is registered as the offset of the gauge datum.
    Where another record already registered a different zero (the USGS site record: 37.04 ft
    where NWPS says 37.2 ft), the read still succeeds: the registered zero stands and
    ``offset_registered`` is False, with ``datum_note`` naming both figures.
    ``register_offset`` is the former name of ``register``.
    """
    if not isinstance(identifier, str) or not identifier.strip() or any(
            c in identifier for c in "/?#&% "):
        raise PackError(None, f"{identifier!r} is not an NWPS gauge identifier")
    url = f"{BASE}/gauges/{identifier.strip()}"
    result = parse_gauge(get_json(fetch or _fetch.fetch, url, {"Accept": "application/json"}),
                         url)
    if register if register_offset is None else register_offset:
        return register_gauge(result)
    return result


def register_gauge(g: Gauge) -> Gauge:
    """Register the gauge datum's offset from the first published elevation of its zero on a
    geodetic datum (NAVD88, NGVD29); returns the gauge with ``offset_registered`` and
    ``datum_note`` filled in (the shared policy: ``_fetch.register_gauge_zero``)."""
    import dataclasses
    from .. import datums
    for name, reading in g.datum_elevations.items():
        if reading.missing:
            continue
        try:
            known = datums.get(name)
        except UnknownDatum:  # a datum the registry does not know ("NAVD88#1": listed twice)
            continue
        if known.kind != "geodetic":
            continue
        note = _fetch.register_gauge_zero(g.datum.split(":", 1)[1], reading.value,
                                          prefix="GAGE", publisher=f"the {AGENCY} gauge record",
                                          source=g.source.get("url"))
        return dataclasses.replace(g, offset_registered=note is None, datum_note=note)
    return dataclasses.replace(g, offset_registered=False, datum_note=(
        "the gauge record lists no elevation of its zero on a geodetic datum (or lists one "
        "datum twice with different values); no offset is registered"))
