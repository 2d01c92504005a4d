"""USGS: the Water Data OGC API v1, with the legacy WaterServices as a fallback.

    site, values = usgs.reading("07374000")
    values["00060"].value          # Q(243000 ft3/s (provisional))
    values["00065"].value          # Q(8.09 ft (GAGE:07374000, provisional))

Primary source: ``https://api.waterdata.usgs.gov/ogcapi/v1`` (``monitoring-locations`` for the
site record, ``latest-continuous`` for the newest value of every time series, pages followed
through ``links[rel=next]``). ``source="waterservices"`` reads the legacy Instantaneous Values
JSON and site RDB instead; those services are scheduled for retirement in the first quarter of
2027 (docs/services.md, "USGS: Which service").

What the pack keeps that a plain reader loses:

* gage height (00065) is on the gage's own datum ``GAGE:<site>``; reading the site record
  registers that datum, with its offset to the published vertical datum when the site has an
  altitude *and* a datum. A blank datum is never defaulted: the gage datum is then registered
  with no offset, so converting it is refused rather than guessed;
* 62614, 62615 and 63160 are elevations on a named datum (NGVD29 / NAVD88), not gage heights;
* a no-data value (``-999999`` as float, integer or string; ``null`` in the OGC API) never
  becomes a number, and the qualifiers that came with it (``Ice``, ``Eqp``, ``EQUIP`` ...) are
  kept;
* timestamps keep the offset the service applied (legacy) or are UTC (OGC); a site on local
  standard time all year maps to a fixed-offset zone, never to a DST zone;
* several methods (sensors) for one parameter are never merged or silently chosen between;
  two series that share a method id (it happens) are both kept, numbered, with the reason in
  their source; the OGC API's older latest values of a parameter's other series are kept in
  ``values.superseded``.

An api.data.gov key in ``API_USGS_PAT`` is sent as ``X-Api-Key`` to api.waterdata.usgs.gov
only (and dropped by the default fetch on a redirect to another host).
"""
from __future__ import annotations

import os
import re
import urllib.parse
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Iterator, Mapping

from . import _fetch
from ..errors import TimezoneError, UnknownDatum
from ._fetch import PackError, Reading, get_json, get_text, parse_number, parse_time, with_query

__all__ = [
    "OGC_BASE", "WATERSERVICES_BASE", "API_KEY_ENV",
    "Site", "Series", "Values",
    "reading", "site", "latest", "continuous", "daily", "iv", "ogc_items",
    "parse_monitoring_location", "parse_features", "parse_iv", "parse_site_rdb", "parse_rdb",
    "register_site",
]

OGC_BASE = "https://api.waterdata.usgs.gov/ogcapi/v1"
WATERSERVICES_BASE = "https://waterservices.usgs.gov/nwis"
API_KEY_ENV = "API_USGS_PAT"
AGENCY = "USGS"
PUBLISHER = "usgs"

#: Parameters that are elevations on a named vertical datum, not heights above the gage.
NAMED_DATUM_PARAMETERS = {"62614": "NGVD29", "62615": "NAVD88", "63160": "NAVD88"}
#: Parameters published as a height above the gage's own datum (gage zero).
GAGE_PARAMETERS = frozenset({"00065"})

_DESCRIPTION_DATUMS = (
    (re.compile(r"\bNAVD\s*(?:19)?88\b|\bNorth American Vertical Datum of 1988\b", re.I), "NAVD88"),
    (re.compile(r"\bNGVD\s*(?:19)?29\b|\bNational Geodetic Vertical Datum of 1929\b", re.I), "NGVD29"),
)


def zone_for(code: str | None, uses_dst: bool | None) -> str | None:
    """The zone spelling for an NWIS tz code (``"America/Chicago@standard"`` for a site on
    standard time all year), via the timezones module's explicit table; None when unknown."""
    if not code:
        return None
    from .. import timezones
    try:
        return timezones.usgs_zone(code, True if uses_dst is None else uses_dst)
    except TimezoneError:  # an unknown code is reported as None
        return None


def _yes_no(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().upper() in ("Y", "N"):
        return value.strip().upper() == "Y"
    return None


def _site_number(site_id: Any) -> str:
    if not isinstance(site_id, str):
        raise PackError(None, f"site number {site_id!r} must be a string: USGS site numbers "
                              "keep their leading zeros ('01646500', not 1646500)")
    text = site_id.strip()
    if text.upper().startswith("USGS-"):
        text = text[5:]
    if not re.fullmatch(r"\d{8,15}", text):
        raise PackError(None, f"{site_id!r} is not a USGS site number (8 to 15 digits)")
    return text


def _headers(url: str) -> dict[str, str]:
    headers = {"Accept": "application/geo+json, application/json;q=0.9, */*;q=0.1"}
    key = os.environ.get(API_KEY_ENV, "").strip()
    if key and urllib.parse.urlsplit(url).hostname == "api.waterdata.usgs.gov":
        headers["X-Api-Key"] = key
    return headers


def _get_json(fetch: _fetch.Fetch | None, url: str) -> Any:
    try:
        return get_json(fetch or _fetch.fetch, url, _headers(url))
    except PackError as exc:
        if (exc.status == 429 and "api.waterdata.usgs.gov" in url
                and not os.environ.get(API_KEY_ENV)):
            raise PackError(url, exc.reason + f"; set {API_KEY_ENV} to an api.data.gov key "
                            "(https://api.waterdata.usgs.gov/signup/) for a higher limit",
                            status=429, retry_after=exc.retry_after) from exc
        raise


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Site:
    """A USGS monitoring location as its record publishes it.

    ``altitude`` is the elevation of the gage datum (stream sites) or land surface (wells), in
    feet, on ``vertical_datum`` with ``altitude_accuracy``. ``gage_datum`` is the name 00065
    readings carry; ``gage_offset_registered`` says whether converting it to ``vertical_datum``
    is possible, and ``datum_note`` why not when it is not.
    """

    site_id: str
    name: str | None = None
    agency: str = AGENCY
    site_type: str | None = None
    latitude: float | None = None
    longitude: float | None = None
    horizontal_datum: str | None = None
    altitude: float | None = None
    altitude_accuracy: float | None = None
    altitude_method: str | None = None
    vertical_datum: str | None = None
    tz_code: str | None = None
    uses_dst: bool | None = None
    time_zone: str | None = None
    drainage_area: float | None = None
    huc: str | None = None
    source: dict = field(default_factory=dict, compare=False)
    gage_offset_registered: bool = False
    datum_note: str | None = None

    @property
    def gage_datum(self) -> str:
        return f"GAGE:{self.site_id}"

    @property
    def gage_elevation(self) -> Any:
        """The gage datum's elevation as a ``Q`` on the published datum, or None."""
        if self.altitude is None or not self.vertical_datum:
            return None
        return _fetch.to_q(self.altitude, "ft", self.vertical_datum, None, dict(self.source))


@dataclass(frozen=True)
class Series:
    """One legacy IV time series block: a site, a parameter, a statistic and one method."""

    site_id: str
    parameter: str
    statistic: str | None
    unit_code: str | None
    method: str | None
    method_id: Any
    readings: tuple[Reading, ...]
    description: str | None = None
    site_name: str | None = None
    tz_code: str | None = None
    uses_dst: bool | None = None


class Values(dict):
    """Readings keyed by parameter code; a missing key says what the site does publish.

    When one parameter has several methods (sensors) with values, each is keyed
    ``"<code>:<method id>"`` and the bare code is absent, so no sensor is chosen silently.
    Series that share a method id are numbered: ``"<code>:<method id>#1"``, ``"...#2"``; each
    reading's ``source["rival_series"]`` says why there are several. ``empty`` lists parameters
    whose series exist but hold no value; ``superseded`` (OGC API) maps a parameter to the older
    latest values of its other series, which the newest value replaced.
    """

    def __init__(self, site_id: str, items: Mapping[str, Reading] | None = None, *,
                 empty: tuple[str, ...] = (),
                 superseded: Mapping[str, tuple[Reading, ...]] | None = None) -> None:
        super().__init__(items or {})
        self.site_id = site_id
        self.empty = tuple(empty)
        self.superseded = dict(superseded or {})

    def quantities(self) -> dict[str, Any]:
        """``{key: Q}`` for every reading with a value (a pH is a plain number whose source
        says ``unit_qualifier: "pH"``); the readings without one are in :meth:`missing`."""
        return {k: r.value for k, r in self.items() if not r.missing}

    def missing(self) -> dict[str, str]:
        """``{key: why}`` for the readings with no value (a null, a no-data sentinel, a unit
        the pack refuses), the publisher's qualifiers included."""
        return {k: r._missing_text() for k, r in self.items() if r.missing}

    def __missing__(self, key: Any):
        have = ", ".join(sorted(self)) or "nothing"
        text = f"site {self.site_id} published no current value for {key!r} (it has: {have})"
        if key in self.empty:
            text = f"site {self.site_id} has a {key!r} series with no values"
        prefixed = sorted(k for k in self if isinstance(key, str) and k.startswith(f"{key}:"))
        if prefixed:
            text = (f"{key!r} has several methods at site {self.site_id}; "
                    f"choose one of {', '.join(prefixed)}")
        raise KeyError(text)


# --------------------------------------------------------------------------------------------
# Datums
# --------------------------------------------------------------------------------------------

def _reading_datum(parameter: str, site_id: str | None,
                   description: str | None = None) -> tuple[str | None, str | None]:
    """(datum name, refusal reason) for a length-valued parameter."""
    if parameter in GAGE_PARAMETERS:
        return f"GAGE:{site_id}", None
    if parameter in NAMED_DATUM_PARAMETERS:
        return NAMED_DATUM_PARAMETERS[parameter], None
    if description:
        for pattern, name in _DESCRIPTION_DATUMS:
            if pattern.search(description):
                return name, None
        if re.search(r"\belevation\b.*\babove\b", description, re.I):
            return None, (f"an elevation whose vertical datum the service does not name "
                          f"({description!r})")
    return None, None


def register_site(site: Site) -> Site:
    """Register the offset of ``GAGE:<site>`` when the record publishes altitude *and* datum.

    The offset goes to the datum the altitude is on: an NGVD29 gage is related to NGVD29, never
    to NAVD88. A tidal code (``LMSL``) is taken as that tidal surface *at this site*
    (``MSL:<site>``), never the generic one. With no altitude, no datum, or a datum code the
    registry does not know, nothing is registered: ``GAGE:<site>`` still names the gage datum,
    and converting it is refused. Returns the site with ``gage_offset_registered`` and
    ``datum_note`` filled in.
    """
    from .. import datums
    import dataclasses

    note = None
    target = None
    if site.altitude is None and not site.vertical_datum:
        note = "the site record publishes no altitude and no vertical datum"
    elif site.altitude is None:
        note = f"the site record names {site.vertical_datum} but publishes no altitude"
    elif not site.vertical_datum:
        note = "the site record publishes an altitude but no vertical datum (never defaulted)"
    else:
        try:
            known = datums.get(site.vertical_datum)
        except UnknownDatum:
            note = (f"the vertical datum code {site.vertical_datum!r} is not a registered "
                    "datum; no offset is registered")
        else:
            if known.kind == "geodetic":
                target = known.name
            elif known.kind == "tidal":
                target = f"{known.name}:{site.site_id}"
            else:
                note = (f"the vertical datum {site.vertical_datum!r} is local to the site; "
                        "no offset to a named datum is registered")
    if target is None or site.altitude is None:  # (a target implies an altitude)
        return dataclasses.replace(site, gage_offset_registered=False, datum_note=note)
    elevation = _fetch.to_q(site.altitude, "ft", target, None, dict(site.source))
    note = _fetch.register_gauge_zero(site.site_id, elevation, prefix="GAGE",
                                      publisher=f"the {AGENCY} site record",
                                      source=site.source.get("url"))
    return dataclasses.replace(site, gage_offset_registered=note is None, datum_note=note)


# --------------------------------------------------------------------------------------------
# OGC API
# --------------------------------------------------------------------------------------------

def ogc_items(collection: str, *, fetch: _fetch.Fetch | None = None, base: str = OGC_BASE,
              **params: Any) -> Iterator[dict]:
    """Every feature of an OGC API collection query, following ``links[rel=next]``."""
    url = with_query(f"{base}/collections/{collection}/items", f="json", **params)
    for _page, feature in _pages(url, fetch):
        yield feature


def _pages(url: str, fetch: _fetch.Fetch | None, max_pages: int = 200
           ) -> Iterator[tuple[str, dict]]:
    """(page URL, feature) for every feature, following ``links[rel=next]``.

    A single Feature (``/items/{id}``) is yielded as it is. A next link that repeats a page
    already read, or more than ``max_pages`` pages, is an error rather than a loop.
    """
    seen: set[str] = set()
    next_url: str | None = url
    while next_url:
        if next_url in seen:
            raise PackError(next_url, "pagination loops: the next link repeats a page already read")
        seen.add(next_url)
        if len(seen) > max_pages:
            raise PackError(next_url, f"more than {max_pages} pages; narrow the query")
        payload = _get_json(fetch, next_url)
        if isinstance(payload, dict) and payload.get("type") == "Feature":
            yield next_url, payload
            return
        if not isinstance(payload, dict) or not isinstance(payload.get("features"), list):
            raise PackError(next_url, "expected a GeoJSON FeatureCollection with a 'features' list")
        page_url, next_url = next_url, None
        for feature in payload["features"]:
            yield page_url, feature
        for link in payload.get("links") or ():
            if isinstance(link, dict) and link.get("rel") == "next" and link.get("href"):
                next_url = link["href"]
                break


def parse_monitoring_location(payload: Any, url: str | None = None) -> Site:
    """A :class:`Site` from a ``monitoring-locations`` Feature or one-feature collection."""
    feature = payload
    if isinstance(payload, dict) and payload.get("type") == "FeatureCollection":
        features = payload.get("features") or []
        if len(features) != 1:
            raise PackError(url, f"expected one monitoring location, got {len(features)}")
        feature = features[0]
    if not isinstance(feature, dict) or not isinstance(feature.get("properties"), dict):
        raise PackError(url, "not a monitoring-locations feature (no 'properties')")
    p = feature["properties"]
    ident = p.get("id") or feature.get("id") or ""
    number = p.get("monitoring_location_number") or str(ident).split("-", 1)[-1]
    number = _site_number(str(number))
    lon = lat = None
    geometry = feature.get("geometry")
    if isinstance(geometry, dict) and isinstance(geometry.get("coordinates"), list):
        lon, lat = (float(c) for c in geometry["coordinates"][:2])
    uses_dst = _yes_no(p.get("uses_daylight_savings"))
    tz_code = p.get("time_zone_abbreviation") or None
    return Site(
        site_id=number,
        name=p.get("monitoring_location_name"),
        agency=p.get("agency_code") or AGENCY,
        site_type=p.get("site_type_code"),
        latitude=lat, longitude=lon,
        horizontal_datum=p.get("original_horizontal_datum"),
        altitude=_optional_number(p.get("altitude"), url, "altitude"),
        altitude_accuracy=_optional_number(p.get("altitude_accuracy"), url, "altitude_accuracy"),
        altitude_method=p.get("altitude_method_code"),
        vertical_datum=_datum_code(p.get("vertical_datum")),
        tz_code=tz_code, uses_dst=uses_dst, time_zone=zone_for(tz_code, uses_dst),
        drainage_area=_optional_number(p.get("drainage_area"), url, "drainage_area"),
        huc=p.get("hydrologic_unit_code"),
        source={"agency": AGENCY, "station": number, "url": url, "service": "ogcapi"},
    )


def _datum_code(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    value = value.strip()
    # field-measurements publish the *string* "None" for no datum (docs/services.md, OGC API)
    return value if value and value.lower() not in ("none", "null") else None


def _optional_number(value: Any, url: str | None, what: str) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return parse_number(value, url=url, what=what)


def parse_features(features: list, url: str | None = None, *,
                   site_id: str | None = None, strict: bool = False) -> list[Reading]:
    """Readings from OGC ``continuous`` / ``latest-continuous`` / ``daily`` features.

    A value the pack refuses (an unmapped unit code, an elevation on an unnamed datum) comes
    back as a missing reading whose ``value`` raises with the reason; ``strict=True`` raises
    :class:`PackError` at once instead.
    """
    out = []
    for feature in features:
        if not isinstance(feature, dict) or not isinstance(feature.get("properties"), dict):
            raise PackError(url, "a feature has no 'properties'")
        p = feature["properties"]
        location = str(p.get("monitoring_location_id") or "")
        number = _site_number(location) if location else site_id
        if site_id is not None and number != site_id:
            continue
        code = p.get("parameter_code")
        if code is None:
            raise PackError(url, f"feature {feature.get('id')!r} has no parameter_code "
                                 "(was it requested with a properties= subset?)")
        code = str(code)
        what = f"USGS {number} {code}"
        unit, unit_refusal = _unit(p.get("unit_of_measure"), url, what, strict)
        raw_time = p.get("time")
        day = None
        if isinstance(raw_time, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", raw_time.strip()):
            # daily values: a local calendar day, never given a midnight or a zone
            day, time = date.fromisoformat(raw_time.strip()), None
        else:
            time = parse_time(raw_time, url=url, what=f"{what} time")
        qualifiers = tuple(str(q) for q in (p.get("qualifier") or ()))
        approval = p.get("approval_status")
        flags = ((approval,) if approval else ()) + qualifiers
        datum, refusal = _reading_datum(code, number)
        refusal = unit_refusal or refusal
        raw = p.get("value")
        magnitude = None
        why = None
        if raw is None:
            why = "value is null"
        elif refusal is not None:
            why = _refuse(refusal, url, strict)
        else:
            magnitude = parse_number(raw, url=url, what=f"{what} value")
        source = {"agency": AGENCY, "station": number, "parameter": code, "url": url,
                  "service": "ogcapi", "time_series_id": p.get("time_series_id"),
                  "statistic": p.get("statistic_id"), **_unit_qualifier(p.get("unit_of_measure"))}
        if approval:
            source["approval_status"] = approval
        out.append(Reading(parameter=code, magnitude=magnitude, unit=unit, time=time,
                           datum=datum, qualifiers=qualifiers, flags=flags,
                           publisher=PUBLISHER if flags else None, source=source,
                           unit_code=p.get("unit_of_measure"), why_missing=why, day=day,
                           raw=raw))
    return out


def _unit(code: Any, url: str | None, what: str, strict: bool) -> tuple[str | None, str | None]:
    """(kernel unit, None) or (None, why refused); raises instead when ``strict``."""
    try:
        entry = _fetch.publisher_unit(PUBLISHER, code, url=url, what=what)
    except PackError as exc:
        if strict:
            raise
        return None, exc.reason
    return (entry["unit"] if isinstance(entry, dict) else entry), None


def _unit_qualifier(code: Any) -> dict:
    """``{"unit_qualifier": "as N"}`` for a unit code that says more than its unit
    (``mg/l as N``, ``uS/cm @25C``), for the value's source; ``{}`` otherwise."""
    entry = _fetch.unit_table()[PUBLISHER]["units"].get(code) if isinstance(code, str) else None
    if isinstance(entry, dict) and entry.get("qualifier"):
        return {"unit_qualifier": entry["qualifier"]}
    return {}


def _refuse(reason: str, url: str | None, strict: bool) -> str:
    if strict:
        raise PackError(url, reason)
    return reason


def site(site_id: str, *, source: str = "ogcapi", fetch: _fetch.Fetch | None = None,
         register: bool = True) -> Site:
    """The site record; registers its gage datum (and offset, when published) by default."""
    number = _site_number(site_id)
    if source == "ogcapi":
        url = with_query(f"{OGC_BASE}/collections/monitoring-locations/items", f="json",
                         id=f"USGS-{number}")
        record = parse_monitoring_location(_get_json(fetch, url), url)
    elif source == "waterservices":
        url = with_query(f"{WATERSERVICES_BASE}/site/", format="rdb", sites=number,
                         siteOutput="expanded", siteStatus="all")
        sites = [s for s in parse_site_rdb(get_text(fetch or _fetch.fetch, url, {}), url)
                 if s.site_id == number]
        if not sites:
            raise PackError(url, f"the site service returned no row for {number}")
        record = sites[0]
    else:
        raise PackError(None, f"source must be 'ogcapi' or 'waterservices', not {source!r}")
    return register_site(record) if register else record


def latest(site_id: str, *, fetch: _fetch.Fetch | None = None,
           strict: bool = False) -> list[Reading]:
    """Every series' newest value at a site (``latest-continuous``), stale series included."""
    number = _site_number(site_id)
    url = with_query(f"{OGC_BASE}/collections/latest-continuous/items", f="json",
                     monitoring_location_id=f"USGS-{number}", limit=1000)
    out: list[Reading] = []
    for page_url, feature in _pages(url, fetch):
        out.extend(parse_features([feature], page_url, site_id=number, strict=strict))
    return out


def continuous(site_id: str, parameter: str, *, time: str = "PT24H",
               fetch: _fetch.Fetch | None = None, strict: bool = False) -> list[Reading]:
    """Instantaneous values of one parameter over ``time`` (an interval or ISO duration)."""
    number = _site_number(site_id)
    url = with_query(f"{OGC_BASE}/collections/continuous/items", f="json",
                     monitoring_location_id=f"USGS-{number}", parameter_code=parameter,
                     time=time, limit=50000)
    out: list[Reading] = []
    for page_url, feature in _pages(url, fetch):
        props = feature.get("properties") if isinstance(feature, dict) else None
        if isinstance(props, dict) and "parameter_code" not in props:
            props = {**props, "parameter_code": parameter}
            feature = {**feature, "properties": props}
        out.extend(parse_features([feature], page_url, site_id=number, strict=strict))
    out.sort(key=_time_of)
    return out


def daily(site_id: str, parameter: str, *, statistic: str = "00003", time: str = "P7D",
          fetch: _fetch.Fetch | None = None, strict: bool = False) -> list[Reading]:
    """Daily values (``statistic`` 00003 = mean) of one parameter, each with its ``day``."""
    number = _site_number(site_id)
    url = with_query(f"{OGC_BASE}/collections/daily/items", f="json",
                     monitoring_location_id=f"USGS-{number}", parameter_code=parameter,
                     statistic_id=statistic, time=time, limit=50000)
    out: list[Reading] = []
    for page_url, feature in _pages(url, fetch):
        out.extend(parse_features([feature], page_url, site_id=number, strict=strict))
    out.sort(key=_day_of)
    return out


def _time_of(r: Reading) -> datetime:
    """The time of an instantaneous value, the key these functions order by (each has one;
    the value is returned as it is, so ordering behaves exactly as on ``r.time``)."""
    return r.time  # type: ignore[return-value]  # see the docstring


def _day_of(r: Reading) -> date:
    """The day of a daily value (each has one)."""
    return r.day  # type: ignore[return-value]  # see the docstring


def choose_series(readings: list[Reading], site_id: str) -> Values:
    """Newest value per parameter; simultaneous rival series keep distinct keys. The older
    latest values of a parameter's other series (often discontinued sensors) are kept in
    ``Values.superseded`` and the chosen reading's source says so: nothing is dropped."""
    by_code: dict[str, list[Reading]] = {}
    for r in readings:
        by_code.setdefault(r.parameter, []).append(r)
    chosen: dict[str, Reading] = {}
    superseded: dict[str, tuple[Reading, ...]] = {}
    for code, group in by_code.items():
        newest = max(_time_of(r) for r in group)
        top = [r for r in group if r.time == newest]
        older = tuple(r for r in group if r.time != newest)
        if older:
            superseded[code] = older
            note = (f"{len(older)} other series of {code} at site {site_id} have older latest "
                    f"values (newest of them {max(_time_of(r) for r in older).isoformat()}); they "
                    f"are kept in values.superseded[{code!r}]")
            top = [_noted(r, superseded_series=note) for r in top]
        if len(top) == 1:
            chosen[code] = top[0]
        else:
            chosen.update(_rival_keys(code, site_id, "ogcapi", [
                (str(r.source.get("time_series_id") or r.method or "unidentified"), r)
                for r in top],
                "time series id"))
    return Values(site_id, chosen, superseded=superseded)


def _noted(r: Reading, **notes: Any) -> Reading:
    import dataclasses
    return dataclasses.replace(r, source={**r.source, **notes})


def _rival_keys(code: str, site_id: str, service: str, rivals: list[tuple[str, Reading]],
                label_name: str) -> dict[str, Reading]:
    """Several series of one parameter with values, all kept: keyed ``"<code>:<label>"``,
    and ``"<code>:<label>#<n>"`` (in the order published) where series share a label. Each
    reading's source says why there are several (``rival_series``) and its key."""
    counts: dict[str, int] = {}
    for label, _r in rivals:
        counts[label] = counts.get(label, 0) + 1
    seen: dict[str, int] = {}
    keyed = []
    for label, r in rivals:
        key = f"{code}:{label}"
        if counts[label] > 1:
            seen[label] = seen.get(label, 0) + 1
            key = f"{key}#{seen[label]}"
        keyed.append((key, r))
    keys = ", ".join(k for k, _ in keyed)
    why = (f"USGS ({service}) published {len(keyed)} series of {code} with values at site "
           f"{site_id} ({keys}); every one is kept and none is chosen")
    shared = sorted(label for label, n in counts.items() if n > 1)
    if shared:
        why += (f"; series sharing the {label_name} {', '.join(shared)} are numbered #1, #2, "
                f"... in the order published (their statistic and method descriptions are in "
                f"each source)")
    return {key: _noted(r, series_key=key, rival_series=why) for key, r in keyed}


# --------------------------------------------------------------------------------------------
# Legacy WaterServices
# --------------------------------------------------------------------------------------------

def parse_rdb(text: str, url: str | None = None) -> list[dict[str, str]]:
    """Rows of a USGS RDB (tab-separated) document, as dicts of stripped strings.

    Comment lines (``#``) are skipped, the first other line is the header and the next the
    format line (``5s 15s 50s ...``), which is checked and skipped.
    """
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    if not lines:
        raise PackError(url, "RDB document has no header line")
    header = lines[0].split("\t")
    if len(lines) < 2:
        return []
    formats = lines[1].split("\t")
    if len(formats) != len(header) or not all(re.fullmatch(r"\d*[sndf]", f.strip())
                                              for f in formats):
        raise PackError(url, f"RDB format line is not a format line: {lines[1][:80]!r}")
    rows = []
    for number, line in enumerate(lines[2:], start=1):
        cells = line.split("\t")
        if len(cells) != len(header):
            raise PackError(url, f"RDB row {number} has {len(cells)} fields, the header "
                                 f"{len(header)}")
        rows.append({h: c.strip() for h, c in zip(header, cells)})
    return rows


def parse_site_rdb(text: str, url: str | None = None) -> list[Site]:
    """Sites from the legacy site service RDB (basic or ``siteOutput=expanded``)."""
    out = []
    for row in parse_rdb(text, url):
        number = _site_number(row.get("site_no", ""))
        uses_dst = _yes_no(row.get("local_time_fg"))
        tz_code = row.get("tz_cd") or None
        out.append(Site(
            site_id=number,
            name=row.get("station_nm") or None,
            agency=row.get("agency_cd") or AGENCY,
            site_type=row.get("site_tp_cd") or None,
            latitude=_optional_number(row.get("dec_lat_va"), url, "dec_lat_va"),
            longitude=_optional_number(row.get("dec_long_va"), url, "dec_long_va"),
            horizontal_datum=row.get("dec_coord_datum_cd") or None,
            altitude=_optional_number(row.get("alt_va"), url, f"{number} alt_va"),
            altitude_accuracy=_optional_number(row.get("alt_acy_va"), url, f"{number} alt_acy_va"),
            altitude_method=row.get("alt_meth_cd") or None,
            vertical_datum=_datum_code(row.get("alt_datum_cd")),
            tz_code=tz_code, uses_dst=uses_dst, time_zone=zone_for(tz_code, uses_dst),
            drainage_area=_optional_number(row.get("drain_area_va"), url, "drain_area_va"),
            huc=row.get("huc_cd") or None,
            source={"agency": AGENCY, "station": number, "url": url, "service": "waterservices"},
        ))
    return out


def _legacy_missing(raw: Any, no_data: float | None) -> bool:
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return True
    if no_data is None:
        return False
    try:
        return float(raw) == no_data
    except (TypeError, ValueError):
        return False


def parse_iv(payload: Any, url: str | None = None, *, strict: bool = False) -> list[Series]:
    """Series from a legacy IV WaterML-JSON response, one per method block.

    Values equal to ``noDataValue`` (compared as numbers: ``-999999``, ``-999999.0`` and the
    string ``"-999999"`` are the same) are missing, with their qualifiers kept. Refusals work
    as in :func:`parse_features`.
    """
    try:
        time_series = payload["value"]["timeSeries"]
    except (TypeError, KeyError):
        raise PackError(url, "not a WaterML-JSON response (no value.timeSeries)") from None
    if not isinstance(time_series, list):
        raise PackError(url, "value.timeSeries is not a list")
    out = []
    for ts in time_series:
        try:
            info, variable, blocks = ts["sourceInfo"], ts["variable"], ts["values"]
            number = _site_number(info["siteCode"][0]["value"])
            code = str(variable["variableCode"][0]["value"])
        except (TypeError, KeyError, IndexError) as exc:
            raise PackError(url, f"a time series lacks {exc}") from None
        options = (variable.get("options") or {}).get("option") or [{}]
        statistic = options[0].get("optionCode")
        unit_code = (variable.get("unit") or {}).get("unitCode")
        what = f"USGS {number} {code}"
        unit, unit_refusal = _unit(unit_code, url, what, strict)
        no_data_raw = variable.get("noDataValue")
        no_data = None if no_data_raw is None else parse_number(no_data_raw, url=url,
                                                                  what=f"{what} noDataValue")
        description = variable.get("variableDescription")
        datum, refusal = _reading_datum(code, number, description)
        refusal = unit_refusal or refusal
        tzinfo = info.get("timeZoneInfo") or {}
        tz_code = (tzinfo.get("defaultTimeZone") or {}).get("zoneAbbreviation")
        uses_dst = tzinfo.get("siteUsesDaylightSavingsTime")
        for block in blocks:
            method_info = (block.get("method") or [{}])[0]
            method = method_info.get("methodDescription") or None
            readings = []
            for row in block.get("value") or ():
                qualifiers = tuple(str(q) for q in (row.get("qualifiers") or ()))
                time = parse_time(row.get("dateTime"), url=url, what=f"{what} dateTime")
                raw = row.get("value")
                magnitude = None
                why = None
                if _legacy_missing(raw, no_data):
                    why = f"no-data value {raw!r} (noDataValue {no_data_raw!r})"
                elif refusal is not None:
                    why = _refuse(refusal, url, strict)
                else:
                    magnitude = parse_number(raw, url=url, what=f"{what} value")
                source = {"agency": AGENCY, "station": number, "parameter": code, "url": url,
                          "service": "waterservices", "statistic": statistic,
                          **_unit_qualifier(unit_code)}
                if method_info.get("methodID") is not None:
                    source["method_id"] = method_info.get("methodID")
                if method:
                    source["method"] = method
                readings.append(Reading(
                    parameter=code, magnitude=magnitude, unit=unit, time=time, datum=datum,
                    qualifiers=qualifiers, flags=qualifiers,
                    publisher=PUBLISHER if qualifiers else None, source=source,
                    unit_code=unit_code, method=method, why_missing=why, raw=raw))
            out.append(Series(site_id=number, parameter=code, statistic=statistic,
                              unit_code=unit_code, method=method,
                              method_id=method_info.get("methodID"), readings=tuple(readings),
                              description=description, site_name=info.get("siteName"),
                              tz_code=tz_code, uses_dst=uses_dst))
    return out


def iv(sites: str | list[str], parameters: str | list[str] | None = None, *,
       period: str | None = None, start: str | None = None, end: str | None = None,
       fetch: _fetch.Fetch | None = None, strict: bool = False) -> list[Series]:
    """Legacy Instantaneous Values; with no period or start, the latest value per series."""
    numbers = [_site_number(s) for s in ([sites] if isinstance(sites, str) else sites)]
    params = [parameters] if isinstance(parameters, str) else parameters
    url = with_query(f"{WATERSERVICES_BASE}/iv/", format="json", sites=",".join(numbers),
                     parameterCd=",".join(params) if params else None, period=period,
                     startDT=start, endDT=end, siteStatus="all")
    return parse_iv(_get_json(fetch, url), url, strict=strict)


# --------------------------------------------------------------------------------------------
# The entry point
# --------------------------------------------------------------------------------------------

def reading(site_id: str, parameters: str | list[str] | None = None, *,
            source: str = "ogcapi", fetch: _fetch.Fetch | None = None,
            register: bool = True, strict: bool = False) -> tuple[Site, Values]:
    """The site record and the newest value of each parameter, keyed by parameter code.

    ``source="ogcapi"`` (default) reads the Water Data OGC API v1; ``"waterservices"`` the
    legacy IV JSON and site RDB. The site's gage datum is registered (``register=True``) so
    that ``values["00065"].value`` can be converted to the site's vertical datum when, and
    only when, the record publishes the offset.
    """
    number = _site_number(site_id)
    wanted = None if parameters is None else (
        {parameters} if isinstance(parameters, str) else set(parameters))
    record = site(number, source=source, fetch=fetch, register=register)
    if source == "ogcapi":
        readings = latest(number, fetch=fetch, strict=strict)
        if wanted is not None:
            readings = [r for r in readings if r.parameter in wanted]
        values = choose_series(readings, number)
        return record, values
    series = [s for s in iv(number, sorted(wanted) if wanted else None, fetch=fetch,
                            strict=strict)
              if s.site_id == number]
    if record.time_zone is None and series:
        import dataclasses
        record = dataclasses.replace(record, tz_code=series[0].tz_code,
                                     uses_dst=series[0].uses_dst,
                                     time_zone=zone_for(series[0].tz_code, series[0].uses_dst))
    chosen: dict[str, Reading] = {}
    empty = []
    by_code: dict[str, list[Series]] = {}
    for s in series:
        by_code.setdefault(s.parameter, []).append(s)
    for code, group in by_code.items():
        live = [s for s in group if s.readings]
        if not live:
            empty.append(code)
        elif len(live) == 1:
            chosen[code] = max(live[0].readings, key=_time_of)
        else:
            chosen.update(_rival_keys(code, number, "waterservices", [
                (str(s.method_id), max(s.readings, key=_time_of)) for s in live],
                "method id"))
    return record, Values(number, chosen, empty=tuple(empty))
