"""Timestamps at a tool boundary whose declaration has ``tz``.

Zone spellings accepted by :func:`parse_zone`:

* IANA names: ``"America/Chicago"``, ``"Europe/London"``, ``"Pacific/Honolulu"``.
* UTC: ``"UTC"``, ``"Z"``, ``"GMT"``, ``"Etc/UTC"`` (and the other IANA names for it).
* Fixed offsets: ``"UTC-06:00"``, ``"UTC+5:30"``, ``"+05:30"``, ``"-0600"``, and the IANA
  ``"Etc/GMT+6"`` (POSIX sign: that one is UTC-06:00). ``"GMT+6"`` is refused as ambiguous.
* **Local standard time all year**: ``"America/Chicago@standard"`` (or
  ``parse_zone("America/Chicago", standard_time=True)``) is the zone's standard offset every
  day of the year, for sources that never switch to daylight saving time, such as USGS sites
  with ``siteUsesDaylightSavingsTime=false`` (Illinois 03339000 reports -06:00, CST, in August).

What :func:`check_timestamp` enforces:

* a timestamp must carry a UTC offset; a naive one is refused, with an example in the zone;
* an instant in UTC (``Z`` / ``+00:00``) is unambiguous and accepted for every zone;
* for a regional zone, a numeric offset must be one the zone uses *at that instant*
  (``2025-07-15T10:00:00-06:00`` is refused for America/Chicago, which is on -05:00 in July);
  both offsets of the repeated autumn hour are valid, and a wall time in the skipped spring hour
  is refused;
* a ``@standard`` zone accepts only its standard offset (and UTC), all year;
* the offset check applies to offsets that were *asserted*: every string, a ``datetime`` with a
  ``datetime.timezone`` offset, or one already in the declared zone (so a nonexistent wall time
  is caught). A ``datetime`` in another named zone (``ZoneInfo("America/Chicago")`` sent to a
  tool declared ``Europe/London``) had its offset computed by the tz database; it is converted;
* a fixed offset (``UTC-06:00``, ``Etc/GMT+6``) accepts any instant and converts it.

Accepted values are returned converted into the declared zone. USGS ``tz_cd`` abbreviations are
not zones (``CST`` is also China Standard Time elsewhere); :func:`usgs_tz_code` maps them to
fixed offsets from an explicit table, and :func:`usgs_zone` to a zone spelling.
"""
from __future__ import annotations

from datetime import date, datetime, timedelta, timezone, tzinfo

from .errors import TimezoneError

__all__ = [
    "STANDARD_SUFFIX",
    "StandardTime",
    "parse_zone",
    "zone_name",
    "check_timestamp",
    "parse_timestamp",
    "usgs_tz_code",
    "usgs_zone",
    "USGS_TZ_CODES",
]

STANDARD_SUFFIX = "@standard"

# USGS NWIS tz_cd abbreviations -> (offset in minutes, IANA zone they are used for).
# Source: the USGS site RDB tz_cd column, gwlevels lev_tz_cd and the OGC API's
# time_zone_abbreviation, as seen in the recorded responses (docs/services.md, "Timezones").
# These are NWIS codes, not IANA zones; never give them to zoneinfo.
USGS_TZ_CODES: dict[str, tuple[int, str]] = {
    "UTC": (0, "UTC"),
    "GMT": (0, "UTC"),
    "EST": (-5 * 60, "America/New_York"),
    "EDT": (-4 * 60, "America/New_York"),
    "CST": (-6 * 60, "America/Chicago"),
    "CDT": (-5 * 60, "America/Chicago"),
    "MST": (-7 * 60, "America/Denver"),  # America/Phoenix where local_time_fg=N
    "MDT": (-6 * 60, "America/Denver"),
    "PST": (-8 * 60, "America/Los_Angeles"),
    "PDT": (-7 * 60, "America/Los_Angeles"),
    "AKST": (-9 * 60, "America/Anchorage"),
    "AKDT": (-8 * 60, "America/Anchorage"),
    "HST": (-10 * 60, "Pacific/Honolulu"),  # no DST (recorded 16211600)
    "HDT": (-9 * 60, "America/Adak"),  # Hawaii-Aleutian daylight time (Aleutian Islands)
    "AST": (-4 * 60, "America/Puerto_Rico"),  # Puerto Rico and US Virgin Islands, no DST
}
# Not listed, on purpose: codes for Guam and American Samoa. No recorded USGS response shows
# which abbreviation NWIS uses there, and "GST" is Gulf Standard Time (+04:00) in other lists,
# so a guessed entry could shift a record by 14 hours without a word. An unlisted code is
# refused, naming the listed ones; the numeric offset each instantaneous value carries is
# always the better source.

_DAYLIGHT_CODES = frozenset({"EDT", "CDT", "MDT", "PDT", "AKDT", "HDT"})

_UTC_NAMES = frozenset(n.lower() for n in (
    "UTC", "Z", "GMT", "UCT", "Zulu", "Universal", "Greenwich", "GMT0", "GMT+0", "GMT-0",
    "Etc/UTC", "Etc/UCT", "Etc/GMT", "Etc/GMT0", "Etc/GMT+0", "Etc/GMT-0", "Etc/Zulu",
    "Etc/Universal", "Etc/Greenwich"))

_OFFSET_SPEC = r"(?:UTC)?\s*([+\-\u2212])(\d{1,2})(?::?(\d{2}))?"
_GMT_SIGNED = r"GMT\s*[+\-\u2212]"


class StandardTime(tzinfo):
    """A regional zone held on its standard offset all year (``"America/Chicago@standard"``).

    ``zone`` is the IANA ``ZoneInfo``; ``offset`` its current standard offset; ``key`` the
    spelling. It behaves as a fixed offset, and :func:`check_timestamp` refuses the zone's
    daylight offset for it.

    "Standard" is what the tz database marks as not daylight saving in the current year (January
    and July are probed, so southern-hemisphere zones work). For a zone without DST it is simply
    the zone's offset. Europe/Dublin comes out as +01:00, because tzdata models Irish winter time
    as a negative daylight saving; declare ``"UTC+00:00"`` there if GMT all year is meant.
    """

    def __init__(self, zone: tzinfo, offset: timedelta, abbreviation: str | None) -> None:
        self.zone = zone
        self.offset = offset
        self.abbreviation = abbreviation
        self.key = f"{getattr(zone, 'key', str(zone))}{STANDARD_SUFFIX}"

    def utcoffset(self, dt: datetime | None) -> timedelta:
        return self.offset

    def dst(self, dt: datetime | None) -> timedelta:
        return timedelta(0)

    def tzname(self, dt: datetime | None) -> str:
        return self.abbreviation or format_offset(self.offset)

    def fromutc(self, dt: datetime) -> datetime:
        if dt.tzinfo is not self:
            raise ValueError("fromutc: dt.tzinfo is not self")
        return dt + self.offset

    def __reduce__(self):
        return (parse_zone, (self.key,))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StandardTime) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"StandardTime({self.key!r}, {format_offset(self.offset)})"

    def __str__(self) -> str:
        return self.key


# -- zones -------------------------------------------------------------------------------------

def format_offset(off: timedelta | None) -> str:
    """``-05:00``; seconds only when there are some (historical local mean time); ``""`` for a
    naive time, which has no offset to show."""
    if off is None:
        return ""
    total = int(off.total_seconds())
    sign = "-" if total < 0 else "+"
    m, sec = divmod(abs(total), 60)
    h, m = divmod(m, 60)
    return f"{sign}{h:02d}:{m:02d}" + (f":{sec:02d}" if sec else "")


def _zone_error(spec: str, why: str, suggestion: str) -> TimezoneError:
    return TimezoneError(why, received=spec, suggestion=suggestion,
                         expected="an IANA zone, a fixed offset such as 'UTC-06:00', or "
                                  "'<IANA zone>@standard'")


def _close_zones(spec: str) -> list[str]:
    import difflib
    import zoneinfo
    try:
        names = sorted(zoneinfo.available_timezones())
    except Exception:  # pragma: no cover - no tz database at all
        return []
    low = spec.lower()
    by_lower = {n.lower(): n for n in names}
    out = [by_lower[low]] if low in by_lower else []
    # compare against whole names, then city parts, so "Chicago" finds America/Chicago
    for c in difflib.get_close_matches(low, list(by_lower), n=3, cutoff=0.7):
        out.append(by_lower[c])
    city = {n.rsplit("/", 1)[-1].lower(): n for n in names if "/" in n}
    for c in difflib.get_close_matches(low.rsplit("/", 1)[-1].replace(" ", "_"), list(city),
                                       n=3, cutoff=0.75):
        out.append(city[c])
    return list(dict.fromkeys(out))[:5]


def _standard_offset(zone: tzinfo) -> tuple[timedelta, str | None]:
    """The zone's current standard (non-daylight) offset and its abbreviation."""
    year = datetime.now(timezone.utc).year
    candidates = []
    for month in (1, 7):
        probe = datetime(year, month, 15, 12, tzinfo=timezone.utc).astimezone(zone)
        off, dst = probe.utcoffset() or timedelta(0), probe.dst()
        candidates.append((dst, off, probe.tzname()))
    standard = [(off, name) for dst, off, name in candidates if not dst]
    if standard:
        return standard[-1]
    off, name = min((off, name) for _, off, name in candidates)
    return off, name


def _fixed_offset_spec(spec: str) -> timezone | None:
    import re  # deferred: importing re costs ~7 ms under python -S
    m = re.fullmatch(_OFFSET_SPEC, spec, re.IGNORECASE)
    if not m:
        return None
    sign, hh, mm = m.group(1), int(m.group(2)), int(m.group(3) or 0)
    if hh > 23 or mm > 59:
        raise _zone_error(spec, f"{spec!r} is not a valid UTC offset: hours must be 0-23 and "
                                f"minutes 0-59.", "a fixed offset such as 'UTC-06:00'")
    off = timedelta(hours=hh, minutes=mm)
    if sign != "+":
        off = -off
    return timezone.utc if not off else timezone(off)


_ZONES: dict[tuple[str, bool], tzinfo] = {}  # parse cache (functools costs ~3 ms at import)


def _parse_zone_cached(spec: str, standard_time: bool) -> tzinfo:
    zone = _ZONES.get((spec, standard_time))
    if zone is None:
        if len(_ZONES) >= 512:
            _ZONES.clear()
        zone = _ZONES[(spec, standard_time)] = _parse_zone_uncached(spec, standard_time)
    return zone


def _parse_zone_uncached(spec: str, standard_time: bool) -> tzinfo:
    import re  # deferred: importing re costs ~7 ms under python -S
    text = spec.strip()
    if text.lower().endswith(STANDARD_SUFFIX):
        return _parse_zone_cached(text[: -len(STANDARD_SUFFIX)], True)
    if not text:
        raise _zone_error(spec, "received an empty timezone.", "an IANA zone such as "
                          "'America/Chicago', or 'UTC'")
    if text.lower() in _UTC_NAMES:
        return timezone.utc
    if re.match(_GMT_SIGNED, text, re.IGNORECASE):
        raise _zone_error(
            spec, f"{spec!r} is ambiguous: people write GMT+6 for UTC+06:00, but the IANA zone "
                  f"Etc/GMT+6 is UTC-06:00 (POSIX sign).",
            "an ISO offset such as 'UTC+06:00' or 'UTC-06:00', or an IANA zone name")
    fixed = _fixed_offset_spec(text)
    if fixed is not None:
        return fixed
    if text.upper() in USGS_TZ_CODES:
        minutes, iana = USGS_TZ_CODES[text.upper()]
        o = format_offset(timedelta(minutes=minutes))
        raise _zone_error(
            spec, f"{spec!r} is a timezone abbreviation, not a zone: it names the fixed offset "
                  f"{o} in USGS records, and other things elsewhere.",
            f"{iana!r} if the source follows daylight saving time, "
            f"'{iana}{STANDARD_SUFFIX}' if it keeps standard time all year, or 'UTC{o}'")
    import zoneinfo
    try:
        zone = zoneinfo.ZoneInfo(text)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        close = _close_zones(text)
        if not close and not zoneinfo.TZPATH:  # pragma: no cover - platform without tz data
            why = (f"unknown timezone {spec!r}: no IANA timezone database is available here "
                   f"(install the 'tzdata' package).")
        else:
            why = f"unknown timezone {spec!r}."
            if close:
                why += " Close matches: " + ", ".join(repr(c) for c in close) + "."
        first = repr(close[0]) if close else "an IANA zone such as 'America/Chicago'"
        raise _zone_error(spec, why, f"{first}, a fixed offset such as 'UTC-06:00', or "
                                     f"'<zone>{STANDARD_SUFFIX}' for a source on standard time "
                                     f"all year") from None
    if not standard_time or _is_fixed(zone):
        return zone
    off, abbreviation = _standard_offset(zone)
    return StandardTime(zone, off, abbreviation)


def _is_fixed(zone: tzinfo) -> bool:
    key = getattr(zone, "key", None)
    return key is None or key.startswith("Etc/") or key.lower() in _UTC_NAMES


def _is_regional(zone: tzinfo) -> bool:
    """A real regional zone (its offset follows the calendar), as opposed to UTC or a fixed
    offset. Every ``ZoneInfo`` outside ``Etc/`` counts, including DST-free ones (Honolulu)."""
    return getattr(zone, "key", None) is not None and not _is_fixed(zone) \
        and not isinstance(zone, StandardTime)


def parse_zone(spec: str | tzinfo, *, standard_time: bool = False) -> tzinfo:
    """Read a declared zone; see the module docstring for the spellings.

    Returns ``datetime.timezone.utc``, a ``datetime.timezone`` for fixed offsets, a
    ``zoneinfo.ZoneInfo`` for IANA names, or a :class:`StandardTime` for
    ``"<zone>@standard"`` / ``standard_time=True``. A ``tzinfo`` passes through (made
    ``StandardTime`` if asked). Results are cached. Unknown zones raise TimezoneError with
    close matches.
    """
    if isinstance(spec, tzinfo):
        if standard_time and _is_regional(spec):
            off, abbreviation = _standard_offset(spec)
            return StandardTime(spec, off, abbreviation)
        return spec
    if not isinstance(spec, str):
        raise _zone_error(repr(spec), f"expected a timezone name, received {spec!r} "
                                      f"({type(spec).__name__}).",
                          "an IANA zone such as 'America/Chicago', or 'UTC'")
    return _parse_zone_cached(spec, bool(standard_time))


def zone_name(tz: str | tzinfo) -> str:
    """The canonical spelling of a zone: ``"America/Chicago"``, ``"America/Chicago@standard"``,
    ``"UTC"``, ``"UTC-06:00"``."""
    zone = parse_zone(tz)
    if isinstance(zone, StandardTime):
        return zone.key
    key = getattr(zone, "key", None)
    if key:
        return key
    if zone is timezone.utc:
        return "UTC"
    off = zone.utcoffset(None)
    return "UTC" if not off else f"UTC{format_offset(off)}"


# -- timestamps --------------------------------------------------------------------------------

_TS = (
    r"(?P<date>(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2}))"
    r"(?:(?P<sep>[Tt ])(?P<h>\d{2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:[.,](?P<frac>\d+))?)?)?"
    r"(?P<tz>[Zz]|[+\-\u2212]\d{2}(?::\d{2}(?::\d{2})?|\d{2})?)?")
_DATE_ONLY = r"\d{4}-\d{2}-\d{2}"
_OFFSETS: dict[int, timezone] = {}  # offset in seconds -> timezone, filled as offsets are seen
_EXAMPLE = "2026-08-20T14:15:00-05:00"


def _ts_error(value: object, why: str, zone: tzinfo, field: str | None,
              example: str | None = None) -> TimezoneError:
    name = zone_name(zone)
    return TimezoneError(
        why, field=field, received=value, expected=f"an ISO 8601 timestamp with a UTC offset, "
                                                  f"read in {name}",
        suggestion=f"an ISO 8601 timestamp with its offset, e.g. {example or _example_in(zone)!r}")


def _example_in(zone: tzinfo) -> str:
    naive = datetime(2026, 8, 20, 14, 15)
    return _with_offset(naive, zone)


def _with_offset(naive: datetime, zone: tzinfo) -> str:
    off = naive.replace(tzinfo=zone).utcoffset()
    text = naive.isoformat()
    return text + ("Z" if zone is timezone.utc else format_offset(off))


def parse_timestamp(text: str, tz: str | tzinfo = "UTC", *, field: str | None = None) -> datetime:
    """Read an ISO 8601 / RFC 3339 timestamp: ``YYYY-MM-DD[T ]HH:MM[:SS[.fff]]`` then ``Z`` or
    ``±HH[:MM]`` (``-00:00`` reads as UTC). Without an offset the result is naive (no zone is
    applied). Malformed text raises TimezoneError saying why; ``tz`` only shapes its example."""
    return _parse_ts(text, parse_zone(tz), field)


_TS_COMPILED = None


def _parse_ts(raw: str, zone: tzinfo, field: str | None) -> datetime:
    global _TS_COMPILED
    if _TS_COMPILED is None:
        import re  # deferred: importing re costs ~7 ms under python -S
        _TS_COMPILED = re.compile(_TS)
    text = raw.strip()
    m = _TS_COMPILED.fullmatch(text)
    if m is None:
        why = _why_malformed(text)
        raise _ts_error(raw, f"received {raw!r}, which is not an ISO 8601 timestamp: {why}.",
                        zone, field)
    _, y, mo, d, _, h, mi, s, frac, tzs = m.groups()
    if h is None:
        example = None
        if _valid_date(m):
            example = _with_offset(datetime(int(y), int(mo), int(d)), zone)
        raise _ts_error(
            raw, f"received {raw!r}, a calendar date with no time of day, which names no instant.",
            zone, field, example)
    if h == "24":
        raise _ts_error(raw, f"received {raw!r}: hour 24 is not accepted; write midnight as "
                             f"00:00 of the next day.", zone, field)
    if s == "60":
        raise _ts_error(raw, f"received {raw!r}: leap second 60 cannot be represented; use :59.",
                        zone, field)
    if tzs is None:
        fixed = None
    elif tzs == "Z" or tzs == "z":
        fixed = timezone.utc
    else:
        digits = tzs[1:].replace(":", "")
        hh, mm, ss = int(digits[:2]), int(digits[2:4] or 0), int(digits[4:] or 0)
        if hh > 23 or mm > 59 or ss > 59:
            raise _ts_error(raw, f"received {raw!r}, whose offset {tzs!r} is out of range (hours "
                                 f"0-23, minutes 0-59).", zone, field)
        seconds = (hh * 3600 + mm * 60 + ss) * (1 if tzs[0] == "+" else -1)
        fixed = _OFFSETS.get(seconds)
        if fixed is None:
            fixed = timezone(timedelta(seconds=seconds)) if seconds else timezone.utc
            _OFFSETS[seconds] = fixed
    try:
        return datetime(int(y), int(mo), int(d), int(h), int(mi), int(s) if s else 0,
                        int(frac[:6].ljust(6, "0")) if frac else 0, fixed)
    except ValueError as exc:
        raise _ts_error(raw, f"received {raw!r}, which is not a valid timestamp: {exc}.",
                        zone, field) from None


def _valid_date(m) -> bool:  # m: a re.Match
    try:
        date(int(m["y"]), int(m["mo"]), int(m["d"]))
        return True
    except ValueError:
        return False


def _why_malformed(text: str) -> str:
    import re  # deferred: importing re costs ~7 ms under python -S
    if not text:
        return "it is empty"
    if not re.match(_DATE_ONLY, text):
        return "it must start with a date written YYYY-MM-DD"
    rest = text[10:]
    if rest[:1] not in ("T", "t", " "):
        return f"the date must be followed by 'T' and a time HH:MM[:SS[.fff]], not {rest[:8]!r}"
    t = re.match(r"\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?", rest[1:])
    if t is None:
        return f"the time must be written HH:MM[:SS[.fff]], not {rest[1:9]!r}"
    tail = rest[1 + t.end():]
    word = tail.strip()
    if word.upper() in USGS_TZ_CODES:
        off = format_offset(timedelta(minutes=USGS_TZ_CODES[word.upper()][0]))
        return (f"the zone {word!r} is an abbreviation; write the offset as a number, e.g. "
                f"{off} for {word.upper()}")
    return (f"the text after the time, {tail!r}, is not an offset; write 'Z' or a numeric "
            f"offset such as -05:00")


def _instant(dt: datetime) -> str:
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _wall(dt: datetime) -> str:
    return dt.strftime("%H:%M")


def _naive_error(raw: object, naive: datetime, zone: tzinfo, field: str | None) -> TimezoneError:
    name = zone_name(zone)
    shown = raw if isinstance(raw, str) else naive.isoformat()
    text = naive.isoformat()
    utc_form = f"{text}Z"
    if zone is timezone.utc:
        suggestion = f"{utc_form!r} if it is UTC"
    elif _is_regional(zone):
        first = naive.replace(tzinfo=zone, fold=0)
        second = naive.replace(tzinfo=zone, fold=1)
        exists = [d for d in (first, second)
                  if d.astimezone(timezone.utc).astimezone(zone).replace(tzinfo=None) == naive]
        offs = list(dict.fromkeys(d.utcoffset() for d in exists))
        if not offs:
            suggestion = (f"{utc_form!r} if it is UTC; as local time it does not exist in {name} "
                          f"(the clocks skipped that hour), so it cannot be local time there")
        elif len(offs) == 2:
            suggestion = (f"{text + format_offset(offs[0])!r} or {text + format_offset(offs[1])!r}"
                          f" if it is local time in {name} (that hour happens twice there: first "
                          f"on {first.tzname()}, then on {second.tzname()}), or {utc_form!r} if "
                          f"it is UTC")
        else:
            suggestion = (f"{text + format_offset(offs[0])!r} if it is local time in {name}, or "
                          f"{utc_form!r} if it is UTC")
    else:
        local = _with_offset(naive, zone)
        suggestion = f"{local!r} if it is local time in {name}, or {utc_form!r} if it is UTC"
    return TimezoneError(
        f"received the naive timestamp {shown!r}, which has no UTC offset, so the instant it "
        f"names is unknown; expected a timestamp with an offset, read in {name}.",
        field=field, received=shown, expected=f"a timestamp with a UTC offset, in {name}",
        suggestion=f"the same time with its offset: {suggestion}")


def _offset_error(raw: object, value: datetime, zone: tzinfo, field: str | None) -> TimezoneError:
    name = zone_name(zone)
    shown = raw if isinstance(raw, str) else value.isoformat()
    got = format_offset(value.utcoffset())
    at = value.astimezone(zone)
    if isinstance(zone, StandardTime):
        want = format_offset(zone.offset)
        base = zone.zone
        daylight = value.astimezone(base)
        note = ""
        if daylight.utcoffset() == value.utcoffset() and daylight.dst():
            note = f" ({got} is daylight saving time, {daylight.tzname()}, which it excludes)"
        message = (f"received {shown!r} with offset {got}, but {name} keeps standard time "
                   f"{want} ({zone.tzname(None)}) all year{note}; that instant is "
                   f"{_instant(value)}.")
        suggestion = (f"the same instant on standard time, {at.isoformat()!r}; or, if the source "
                      f"follows daylight saving time, declare tz={zone_name(base)!r}")
        return TimezoneError(message, field=field, received=got, expected=want,
                             suggestion=suggestion)
    want = format_offset(at.utcoffset())
    message = (f"received {shown!r} with offset {got}, but {name} is on {want} ({at.tzname()}) "
               f"at that instant ({_instant(value)}), not {got}.")
    wall = value.replace(tzinfo=None)
    as_local = wall.replace(tzinfo=zone, fold=0)
    as_local1 = wall.replace(tzinfo=zone, fold=1)
    exists = any(d.astimezone(timezone.utc).astimezone(zone).replace(tzinfo=None) == wall
                 for d in (as_local, as_local1))
    if not exists:
        message += (f" {_wall(value)} on {wall.date().isoformat()} does not exist in {name}: the "
                    f"clocks skipped that hour.")
    fixes = [f"the same instant with the offset {name} uses then, {at.isoformat()!r}"]
    standard, _ = _standard_offset(zone)
    if value.utcoffset() == standard:
        fixes.append(f"or, if the source keeps local standard time all year (as USGS sites with "
                     f"siteUsesDaylightSavingsTime=false do), declare "
                     f"tz='{name}{STANDARD_SUFFIX}'")
    elif exists:
        local = as_local if as_local.utcoffset() == as_local1.utcoffset() else None
        if local is not None:
            fixes.append(f"or, if {_wall(value)} is the local clock time in {name}, "
                         f"{local.isoformat()!r}")
    return TimezoneError(message, field=field, received=got, expected=want,
                         suggestion="; ".join(fixes))


def check_timestamp(value: datetime | str, tz: str | tzinfo, *,
                    field: str | None = None) -> datetime:
    """Refuse a naive or wrongly-offset timestamp; return it converted into ``tz``.

    ``value`` is an aware ``datetime`` or an ISO 8601 string (``Z``, ``+00:00``, fractional
    seconds, ``2018-09-30T18:00:00.000-06:00``). See the module docstring for the rules.
    """
    zone = parse_zone(tz)
    raw = value
    if isinstance(value, str):
        value = _parse_ts(value, zone, field)
    elif not isinstance(value, datetime):
        kind = "calendar date with no time of day, which names no instant" \
            if isinstance(value, date) else f"{type(value).__name__}, not a timestamp"
        raise _ts_error(raw, f"received {raw!r}, a {kind}.", zone, field)
    off = value.utcoffset()
    if off is None:
        raise _naive_error(raw, value, zone, field)
    try:
        if value.tzinfo is zone:  # astimezone() would return it untouched, unchecked
            local = value.astimezone(timezone.utc).astimezone(zone)
        else:
            local = value.astimezone(zone)
    except OverflowError:
        raise _ts_error(raw, f"received {raw!r}, which cannot be expressed in {zone_name(zone)}: "
                             f"it lies at the edge of the representable years.",
                        zone, field) from None
    if off and _asserted(value.tzinfo, zone):  # a UTC instant is unambiguous for every zone
        if isinstance(zone, StandardTime):
            if off != zone.offset:
                raise _offset_error(raw, value, zone, field)
        elif local.utcoffset() != off and _is_regional(zone):
            raise _offset_error(raw, value, zone, field)
    return local


def _asserted(tz: tzinfo | None, zone: tzinfo) -> bool:
    """Whether the value's offset was asserted (a number, or a time in the declared zone itself)
    rather than derived by the rules of some other named zone, which are trusted."""
    if isinstance(tz, timezone) or tz is zone:
        return True
    key = getattr(tz, "key", None)
    return key is not None and key == getattr(zone, "key", None)


# -- USGS ---------------------------------------------------------------------------------------

def _usgs_entry(code: object) -> tuple[str, tuple[int, str]]:
    if isinstance(code, str) and code.strip().upper() in USGS_TZ_CODES:
        key = code.strip().upper()
        return key, USGS_TZ_CODES[key]
    import difflib
    known = ", ".join(USGS_TZ_CODES)
    close = difflib.get_close_matches(str(code).strip().upper(), list(USGS_TZ_CODES), n=3)
    hint = f" Close matches: {', '.join(close)}." if close else ""
    raise TimezoneError(f"unknown USGS tz_cd {code!r}; known codes: {known}.{hint}",
                        received=code, expected=tuple(USGS_TZ_CODES),
                        suggestion=f"one of {known}, or the numeric offset on the value itself")


def usgs_tz_code(code: str) -> timezone:
    """The fixed offset a USGS ``tz_cd`` stands for, as a ``datetime.timezone`` named by the code:
    ``usgs_tz_code("CST")`` is UTC-06:00. Case-insensitive; unknown codes raise TimezoneError."""
    key, (minutes, _) = _usgs_entry(code)
    return timezone.utc if not minutes else timezone(timedelta(minutes=minutes), key)


def usgs_zone(code: str, uses_dst: bool | str = True) -> str:
    """A zone spelling for a USGS site from its ``tz_cd`` and DST flag (``local_time_fg`` /
    ``uses_daylight_savings``, ``"Y"``/``"N"`` or a bool): ``("CST", "Y")`` -> ``"America/Chicago"``,
    ``("CST", "N")`` -> ``"America/Chicago@standard"``, ``("MST", "N")`` -> ``"America/Phoenix"``.
    """
    key, (minutes, iana) = _usgs_entry(code)
    if isinstance(uses_dst, str):
        flag = uses_dst.strip().upper()
        if flag not in ("Y", "N", "TRUE", "FALSE"):
            raise TimezoneError(f"expected a DST flag 'Y' or 'N', received {uses_dst!r}.",
                                received=uses_dst, expected=("Y", "N"), suggestion="'Y' or 'N'")
        uses_dst = flag in ("Y", "TRUE")
    if uses_dst or iana == "UTC":
        return iana
    if key in _DAYLIGHT_CODES:
        raise TimezoneError(
            f"USGS tz_cd {key!r} is a daylight-saving code, but the site is marked as not using "
            f"daylight saving time.", received=(code, uses_dst),
            suggestion="the site's standard-time code with uses_dst=False, or uses_dst=True")
    if key == "MST":
        return "America/Phoenix"
    if iana in ("Pacific/Honolulu", "America/Puerto_Rico"):
        return iana
    return f"{iana}{STANDARD_SUFFIX}"
