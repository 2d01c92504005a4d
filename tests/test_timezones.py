"""Timestamps at the boundary: zones, naive refusal, offsets checked against the zone, DST edges."""
from __future__ import annotations

import pickle
import shutil
import subprocess
import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, strategies as st

from quantity_guard import timezones
from quantity_guard.errors import TimezoneError
from quantity_guard.timezones import (
    USGS_TZ_CODES,
    StandardTime,
    check_timestamp,
    parse_timestamp,
    parse_zone,
    usgs_tz_code,
    usgs_zone,
    zone_name,
)

CHICAGO = "America/Chicago"
UTC = timezone.utc


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


def same_instant(a: datetime, b: datetime) -> bool:
    # compare in UTC: an interzone == is always False for a fold=1 time (PEP 495)
    return a.astimezone(UTC) == b.astimezone(UTC)


def refused(value, tz, **kw) -> TimezoneError:
    with pytest.raises(TimezoneError) as exc:
        check_timestamp(value, tz, **kw)
    return exc.value


# -- parse_zone --------------------------------------------------------------------------------

@pytest.mark.parametrize("spec", ["America/Chicago", "Europe/London", "Pacific/Honolulu",
                                  "America/Phoenix", "Australia/Sydney"])
def test_iana_names(spec):
    zone = parse_zone(spec)
    assert isinstance(zone, ZoneInfo) and zone.key == spec
    assert zone_name(zone) == spec == zone_name(spec)


@pytest.mark.parametrize("spec", ["UTC", "utc", "Z", "GMT", "Etc/UTC", "Etc/GMT", "Zulu",
                                  "UTC+00:00", "+00:00"])
def test_utc_spellings(spec):
    assert parse_zone(spec) is UTC
    assert zone_name(spec) == "UTC"


@pytest.mark.parametrize("spec, minutes", [
    ("UTC-06:00", -360), ("UTC+05:30", 330), ("+05:30", 330), ("-0600", -360),
    ("UTC-6", -360), ("UTC+5:45", 345), ("\u221206:00", -360),
])
def test_fixed_offsets(spec, minutes):
    zone = parse_zone(spec)
    assert zone.utcoffset(None) == timedelta(minutes=minutes)
    assert zone_name(spec) == "UTC" + timezones.format_offset(timedelta(minutes=minutes))


def test_etc_gmt_uses_the_posix_sign():
    zone = parse_zone("Etc/GMT+6")
    assert datetime(2025, 7, 15, tzinfo=zone).utcoffset() == timedelta(hours=-6)


def test_signed_gmt_is_refused_as_ambiguous():
    with pytest.raises(TimezoneError) as exc:
        parse_zone("GMT+6")
    assert "ambiguous" in str(exc.value)
    assert "Etc/GMT+6 is UTC-06:00" in str(exc.value)
    assert "'UTC+06:00' or 'UTC-06:00'" in exc.value.suggestion


def test_out_of_range_offset_is_refused():
    with pytest.raises(TimezoneError) as exc:
        parse_zone("UTC+25:00")
    assert "hours must be 0-23" in str(exc.value)


@pytest.mark.parametrize("spec, offset, abbreviation", [
    ("America/Chicago@standard", -6, "CST"),
    ("America/New_York@standard", -5, "EST"),
    ("America/Denver@standard", -7, "MST"),
    ("Pacific/Honolulu@standard", -10, "HST"),
    ("America/Phoenix@standard", -7, "MST"),
    ("Australia/Sydney@standard", 10, "AEST"),  # southern hemisphere: standard time is July
])
def test_standard_time_spelling(spec, offset, abbreviation):
    zone = parse_zone(spec)
    assert isinstance(zone, StandardTime)
    assert zone.offset == timedelta(hours=offset)
    assert zone.tzname(None) == abbreviation
    assert zone_name(zone) == spec == str(zone)
    for month in (1, 7):  # the same offset all year
        assert datetime(2025, month, 15, tzinfo=zone).utcoffset() == timedelta(hours=offset)


def test_standard_time_argument_is_the_same_zone():
    assert parse_zone(CHICAGO, standard_time=True) == parse_zone("America/Chicago@standard")
    assert parse_zone(ZoneInfo(CHICAGO), standard_time=True) == parse_zone("America/Chicago@standard")
    assert parse_zone("UTC@standard") is UTC


def test_zones_are_cached():
    assert parse_zone("America/Chicago@standard") is parse_zone("America/Chicago@standard")
    assert parse_zone("UTC-06:00") is parse_zone("UTC-06:00")


def test_standard_time_pickles():
    zone = parse_zone("America/Chicago@standard")
    assert pickle.loads(pickle.dumps(zone)) == zone


def test_tzinfo_passes_through():
    zone = ZoneInfo(CHICAGO)
    assert parse_zone(zone) is zone
    assert parse_zone(UTC) is UTC


@pytest.mark.parametrize("spec, close", [
    ("America/Chicgo", "America/Chicago"),
    ("Chicago", "America/Chicago"),
    ("america/chicago", "America/Chicago"),
    ("Europe/Londn", "Europe/London"),
])
def test_unknown_zone_suggests_close_matches(spec, close):
    with pytest.raises(TimezoneError) as exc:
        parse_zone(spec)
    err = exc.value
    assert f"unknown timezone {spec!r}" in str(err)
    assert f"Close matches: {close!r}" in str(err)
    assert err.suggestion.startswith(repr(close))
    assert err.received == spec


def test_unknown_zone_without_close_match():
    with pytest.raises(TimezoneError) as exc:
        parse_zone("Foo/Bar")
    assert "unknown timezone 'Foo/Bar'." == str(exc.value)
    assert "'UTC-06:00'" in exc.value.suggestion and "@standard" in exc.value.suggestion


@pytest.mark.parametrize("code", ["CST", "cst", "EST", "HST", "MST", "PDT"])
def test_abbreviations_are_not_zones(code):
    with pytest.raises(TimezoneError) as exc:
        parse_zone(code)
    off, iana = USGS_TZ_CODES[code.upper()]
    assert "is a timezone abbreviation, not a zone" in str(exc.value)
    assert f"{iana!r} if the source follows daylight saving time" in exc.value.suggestion
    assert f"'{iana}@standard' if it keeps standard time all year" in exc.value.suggestion


@pytest.mark.parametrize("bad", [None, 5, ""])
def test_non_zones_are_refused(bad):
    with pytest.raises(TimezoneError):
        parse_zone(bad)


# -- check_timestamp: accepted forms -----------------------------------------------------------

@pytest.mark.parametrize("text, instant", [
    ("2025-07-15T15:00:00Z", utc(2025, 7, 15, 15)),
    ("2025-07-15T15:00:00z", utc(2025, 7, 15, 15)),
    ("2025-07-15T15:00:00+00:00", utc(2025, 7, 15, 15)),
    ("2025-07-15T15:00:00-00:00", utc(2025, 7, 15, 15)),
    ("2025-07-15 15:00Z", utc(2025, 7, 15, 15)),
    ("2025-07-15T15:00:00.5Z", utc(2025, 7, 15, 15, 0, 0, 500000)),
    ("2025-07-15T15:00:00,25Z", utc(2025, 7, 15, 15, 0, 0, 250000)),
    ("2025-07-15T15:00:00.1234567Z", utc(2025, 7, 15, 15, 0, 0, 123456)),
    ("2018-09-30T18:00:00.000-06:00", utc(2018, 10, 1, 0)),
    ("2019-02-14T00:15:00.000-05:00", utc(2019, 2, 14, 5, 15)),
    ("2025-07-15T20:30:00+0530", utc(2025, 7, 15, 15)),
    ("2025-07-15T10:00:00-05", utc(2025, 7, 15, 15)),
    ("  2025-07-15T15:00:00Z  ", utc(2025, 7, 15, 15)),
])
def test_iso_strings_are_read(text, instant):
    result = check_timestamp(text, "UTC")
    assert result == instant and result.tzinfo is UTC


def test_returned_in_the_declared_zone():
    result = check_timestamp("2026-08-20T19:15:00Z", CHICAGO)
    assert result.tzinfo == ZoneInfo(CHICAGO)
    assert result.isoformat() == "2026-08-20T14:15:00-05:00"
    fixed = check_timestamp("2026-08-20T19:15:00Z", "UTC-06:00")
    assert fixed.isoformat() == "2026-08-20T13:15:00-06:00"


def test_aware_datetimes_are_accepted():
    value = datetime(2025, 7, 15, 10, tzinfo=ZoneInfo(CHICAGO))
    assert check_timestamp(value, CHICAGO) == value
    # another named zone computed its own offset: trusted and converted
    assert check_timestamp(value, "Europe/London").isoformat() == "2025-07-15T16:00:00+01:00"
    standard = datetime(2025, 8, 24, 10, 15, tzinfo=parse_zone("America/Chicago@standard"))
    assert check_timestamp(standard, CHICAGO).isoformat() == "2025-08-24T11:15:00-05:00"


def test_asserted_offsets_on_datetimes_are_checked():
    # a fixed numeric offset is asserted, like a string's
    fixed = datetime(2025, 7, 15, 10, tzinfo=timezone(timedelta(hours=-6)))
    assert "America/Chicago is on -05:00 (CDT)" in str(refused(fixed, CHICAGO))
    # and so is a wall time in the declared zone itself that the zone skips
    skipped = datetime(2025, 3, 9, 2, 30, tzinfo=ZoneInfo(CHICAGO))
    assert "does not exist in America/Chicago" in str(refused(skipped, CHICAGO))


def test_a_string_offset_foreign_to_the_zone_is_refused():
    err = refused("2025-07-15T10:00:00-05:00", "Europe/London")
    assert "Europe/London is on +01:00 (BST)" in str(err)
    assert "'2025-07-15T16:00:00+01:00'" in err.suggestion


@pytest.mark.parametrize("tz", [CHICAGO, "America/Chicago@standard", "Pacific/Honolulu",
                                "America/Phoenix", "Europe/London", "UTC-06:00", "Etc/GMT+6"])
def test_utc_instants_are_accepted_for_every_zone(tz):
    result = check_timestamp("2025-07-15T15:00:00Z", tz)
    assert result == utc(2025, 7, 15, 15)
    assert check_timestamp(utc(2025, 7, 15, 15), tz) == utc(2025, 7, 15, 15)


# -- naive timestamps ----------------------------------------------------------------------------

def test_naive_string_is_refused_with_an_example_in_the_zone():
    err = refused("2026-08-20T14:15:00", CHICAGO, field="gauge.observed_at")
    assert err.field == "gauge.observed_at"
    assert str(err) == (
        "gauge.observed_at: received the naive timestamp '2026-08-20T14:15:00', which has no "
        "UTC offset, so the instant it names is unknown; expected a timestamp with an offset, "
        "read in America/Chicago.")
    assert err.received == "2026-08-20T14:15:00"
    assert "'2026-08-20T14:15:00-05:00' if it is local time in America/Chicago" in err.suggestion
    assert "'2026-08-20T14:15:00Z' if it is UTC" in err.suggestion
    assert "Send instead: the same time with its offset" in err.repair()
    assert err.code == "timezone_error"


def test_naive_datetime_is_refused():
    err = refused(datetime(2026, 1, 20, 14, 15), CHICAGO)
    assert "naive timestamp '2026-01-20T14:15:00'" in str(err)
    assert "'2026-01-20T14:15:00-06:00'" in err.suggestion  # January: CST


@pytest.mark.parametrize("tz, example", [
    ("Pacific/Honolulu", "'2026-08-20T14:15:00-10:00'"),
    ("America/Chicago@standard", "'2026-08-20T14:15:00-06:00'"),
    ("America/Phoenix", "'2026-08-20T14:15:00-07:00'"),
    ("UTC-06:00", "'2026-08-20T14:15:00-06:00'"),
    ("UTC", "'2026-08-20T14:15:00Z'"),
])
def test_naive_example_uses_the_zone_offset(tz, example):
    assert example in refused("2026-08-20T14:15:00", tz).suggestion


# -- malformed strings ---------------------------------------------------------------------------

@pytest.mark.parametrize("text, why", [
    ("", "it is empty"),
    ("garbage", "it must start with a date written YYYY-MM-DD"),
    ("15/07/2025 10:00", "it must start with a date written YYYY-MM-DD"),
    ("2025-07-15X10:00Z", "the date must be followed by 'T' and a time"),
    ("2025-07-15T10h00", "the time must be written HH:MM[:SS[.fff]]"),
    ("2025-07-15T10:00:00 CDT", "the zone 'CDT' is an abbreviation; write the offset as a "
                                "number, e.g. -05:00 for CDT"),
    ("2025-07-15T10:00:00 America/Chicago", "is not an offset; write 'Z' or a numeric offset"),
    ("2025-02-30T10:00:00Z", "day is out of range for month"),
    ("2025-13-01T10:00:00Z", "month must be in 1..12"),
    ("2025-07-15T25:00:00Z", "hour must be in 0..23"),
    ("2025-07-15T24:00:00Z", "hour 24 is not accepted"),
    ("2016-12-31T23:59:60Z", "leap second 60 cannot be represented"),
    ("2025-07-15T10:00:00+24:00", "out of range"),
    ("2025-07-15", "a calendar date with no time of day, which names no instant"),
])
def test_malformed_strings_say_why(text, why):
    err = refused(text, CHICAGO)
    assert why in str(err)
    assert repr(text) in str(err)
    assert "an ISO 8601 timestamp with its offset, e.g." in err.suggestion


def test_date_only_example_uses_that_date():
    assert "'2025-07-15T00:00:00-05:00'" in refused("2025-07-15", CHICAGO).suggestion


@pytest.mark.parametrize("value", [1752591600, 1752591600.0, date(2025, 7, 15), None, b"x"])
def test_non_timestamps_are_refused(value):
    err = refused(value, CHICAGO)
    assert repr(value) in str(err)


def test_parse_timestamp_keeps_naive_values_naive():
    assert parse_timestamp("2017-04-23T00:00:00.000") == datetime(2017, 4, 23)
    assert parse_timestamp("2025-07-15T10:00:00-05:00").utcoffset() == timedelta(hours=-5)


# -- offsets checked against the zone ------------------------------------------------------------

def test_wrong_offset_for_the_instant_is_refused():
    err = refused("2025-07-15T10:00:00-06:00", CHICAGO, field="f")
    assert str(err) == (
        "f: received '2025-07-15T10:00:00-06:00' with offset -06:00, but America/Chicago is on "
        "-05:00 (CDT) at that instant (2025-07-15T16:00:00Z), not -06:00.")
    assert err.received == "-06:00" and err.expected == "-05:00"
    assert err.suggestion == (
        "the same instant with the offset America/Chicago uses then, "
        "'2025-07-15T11:00:00-05:00'; or, if the source keeps local standard time all year (as "
        "USGS sites with siteUsesDaylightSavingsTime=false do), declare "
        "tz='America/Chicago@standard'")


def test_a_foreign_offset_suggests_the_local_clock_reading():
    err = refused("2025-07-15T10:00:00+02:00", CHICAGO)
    assert "America/Chicago is on -05:00 (CDT)" in str(err)
    assert "'2025-07-15T03:00:00-05:00'" in err.suggestion  # same instant
    assert "if 10:00 is the local clock time in America/Chicago, '2025-07-15T10:00:00-05:00'" \
        in err.suggestion
    assert "@standard" not in err.suggestion


def test_right_offsets_are_accepted():
    assert check_timestamp("2025-07-15T10:00:00-05:00", CHICAGO) == utc(2025, 7, 15, 15)
    assert check_timestamp("2025-01-15T10:00:00-06:00", CHICAGO) == utc(2025, 1, 15, 16)
    assert check_timestamp("2025-07-15T10:00:00+01:00", "Europe/London") == utc(2025, 7, 15, 9)


def test_winter_offset_in_summer_is_refused_in_london():
    err = refused("2025-01-15T10:00:00+01:00", "Europe/London")
    assert "Europe/London is on +00:00 (GMT)" in str(err)


def test_fixed_offset_zones_accept_any_instant():
    assert check_timestamp("2025-07-15T10:00:00-05:00", "UTC-06:00").isoformat() == \
        "2025-07-15T09:00:00-06:00"
    assert check_timestamp("2025-07-15T10:00:00+02:00", "Etc/GMT+6") == utc(2025, 7, 15, 8)


# -- DST transitions, America/Chicago ------------------------------------------------------------

def test_spring_forward_2025_03_09():
    # the last CST minute and the first CDT minute
    assert check_timestamp("2025-03-09T01:59:59-06:00", CHICAGO) == utc(2025, 3, 9, 7, 59, 59)
    assert check_timestamp("2025-03-09T03:00:00-05:00", CHICAGO) == utc(2025, 3, 9, 8)
    # 02:30 does not exist that night, with either offset
    err = refused("2025-03-09T02:30:00-06:00", CHICAGO)
    assert "America/Chicago is on -05:00 (CDT) at that instant (2025-03-09T08:30:00Z)" in str(err)
    assert "02:30 on 2025-03-09 does not exist in America/Chicago" in str(err)
    assert "'2025-03-09T03:30:00-05:00'" in err.suggestion
    err = refused("2025-03-09T02:30:00-05:00", CHICAGO)
    assert "is on -06:00 (CST) at that instant" in str(err)
    assert "does not exist" in str(err)
    assert "'2025-03-09T01:30:00-06:00'" in err.suggestion
    # CDT offset before the change is wrong too
    assert "is on -06:00 (CST)" in str(refused("2025-03-09T01:30:00-05:00", CHICAGO))


def test_naive_time_in_the_skipped_hour():
    err = refused("2025-03-09T02:30:00", CHICAGO)
    assert "does not exist in America/Chicago (the clocks skipped that hour)" in err.suggestion
    assert "'2025-03-09T02:30:00Z' if it is UTC" in err.suggestion


def test_fall_back_2025_11_02_both_offsets_of_the_repeated_hour_are_valid():
    first = check_timestamp("2025-11-02T01:30:00-05:00", CHICAGO)
    second = check_timestamp("2025-11-02T01:30:00-06:00", CHICAGO)
    assert same_instant(first, utc(2025, 11, 2, 6, 30))
    assert same_instant(second, utc(2025, 11, 2, 7, 30))
    assert (first.fold, second.fold) == (0, 1)
    assert first.utcoffset() == timedelta(hours=-5) and second.utcoffset() == timedelta(hours=-6)
    # outside the repeated hour only one offset is right
    assert "is on -05:00 (CDT)" in str(refused("2025-11-02T00:30:00-06:00", CHICAGO))
    assert "is on -06:00 (CST)" in str(refused("2025-11-02T02:30:00-05:00", CHICAGO))


def test_naive_time_in_the_repeated_hour_lists_both_offsets():
    err = refused("2025-11-02T01:30:00", CHICAGO)
    assert ("'2025-11-02T01:30:00-05:00' or '2025-11-02T01:30:00-06:00' if it is local time in "
            "America/Chicago (that hour happens twice there: first on CDT, then on CST)") \
        in err.suggestion


def test_repeated_hour_from_zoneinfo_datetimes():
    zone = ZoneInfo(CHICAGO)
    for fold in (0, 1):
        value = datetime(2025, 11, 2, 1, 30, fold=fold, tzinfo=zone)
        assert same_instant(check_timestamp(value, CHICAGO), value)


# -- local standard time all year ------------------------------------------------------------------

def test_illinois_site_on_cst_in_august():
    # USGS 03339000, recorded: "2025-08-24T10:15:00.000-06:00", siteUsesDaylightSavingsTime=false
    value = "2025-08-24T10:15:00.000-06:00"
    result = check_timestamp(value, "America/Chicago@standard")
    assert result == utc(2025, 8, 24, 16, 15)
    assert result.isoformat() == "2025-08-24T10:15:00-06:00"
    err = refused(value, CHICAGO)
    assert "America/Chicago is on -05:00 (CDT)" in str(err)
    assert "declare tz='America/Chicago@standard'" in err.suggestion
    assert "'2025-08-24T11:15:00-05:00'" in err.suggestion


def test_standard_time_refuses_the_daylight_offset():
    err = refused("2025-08-24T11:15:00-05:00", "America/Chicago@standard", field="t")
    assert str(err) == (
        "t: received '2025-08-24T11:15:00-05:00' with offset -05:00, but "
        "America/Chicago@standard keeps standard time -06:00 (CST) all year (-05:00 is daylight "
        "saving time, CDT, which it excludes); that instant is 2025-08-24T16:15:00Z.")
    assert err.received == "-05:00" and err.expected == "-06:00"
    assert err.suggestion == ("the same instant on standard time, '2025-08-24T10:15:00-06:00'; "
                              "or, if the source follows daylight saving time, declare "
                              "tz='America/Chicago'")


def test_standard_time_accepts_the_standard_offset_all_year():
    for month in (1, 3, 7, 11, 12):
        text = f"2025-{month:02d}-15T10:00:00-06:00"
        assert check_timestamp(text, "America/Chicago@standard") == utc(2025, month, 15, 16)
    # including inside the hours that DST skips or repeats
    assert check_timestamp("2025-03-09T02:30:00-06:00", "America/Chicago@standard") == \
        utc(2025, 3, 9, 8, 30)
    # a foreign offset is refused too
    assert "keeps standard time -06:00" in str(refused("2025-01-15T10:00:00+01:00",
                                                       "America/Chicago@standard"))


# -- Hawaii and Arizona ----------------------------------------------------------------------------

def test_hawaii_keeps_hst_all_year():
    # USGS 16211600: HST -10:00, siteUsesDaylightSavingsTime=false
    assert check_timestamp("2024-06-03T01:00:00-10:00", "Pacific/Honolulu") == \
        utc(2024, 6, 3, 11)
    assert check_timestamp("2024-12-03T01:00:00-10:00", "Pacific/Honolulu") == \
        utc(2024, 12, 3, 11)
    err = refused("2024-06-03T01:00:00-09:00", "Pacific/Honolulu")
    assert "Pacific/Honolulu is on -10:00 (HST)" in str(err)
    assert "@standard" not in err.suggestion  # -09:00 is not Hawaii's standard offset


def test_arizona_keeps_mst_while_denver_observes_mdt():
    assert check_timestamp("2025-07-15T10:00:00-07:00", "America/Phoenix") == utc(2025, 7, 15, 17)
    assert "America/Phoenix is on -07:00 (MST)" in str(
        refused("2025-07-15T10:00:00-06:00", "America/Phoenix"))
    err = refused("2025-07-15T10:00:00-07:00", "America/Denver")
    assert "America/Denver is on -06:00 (MDT)" in str(err)
    assert "tz='America/Denver@standard'" in err.suggestion
    assert check_timestamp("2025-07-15T10:00:00-07:00", "America/Denver@standard") == \
        utc(2025, 7, 15, 17)


# -- USGS tz_cd ------------------------------------------------------------------------------------

@pytest.mark.parametrize("code, hours", [
    ("EST", -5), ("EDT", -4), ("CST", -6), ("CDT", -5), ("MST", -7), ("MDT", -6), ("PST", -8),
    ("PDT", -7), ("AKST", -9), ("AKDT", -8), ("HST", -10), ("AST", -4), ("UTC", 0), ("GMT", 0),
    ("cst", -6), (" EDT ", -4),
])
def test_usgs_tz_codes(code, hours):
    zone = usgs_tz_code(code)
    assert zone.utcoffset(None) == timedelta(hours=hours)
    # usable directly on an RDB row's wall-clock time
    assert datetime(2020, 2, 14, 12, tzinfo=zone) == utc(2020, 2, 14, 12 - hours)


def test_usgs_tz_code_is_named_by_the_code():
    assert usgs_tz_code("CST").tzname(None) == "CST"


def test_unknown_usgs_tz_code():
    with pytest.raises(TimezoneError) as exc:
        usgs_tz_code("CSTX")
    assert "unknown USGS tz_cd 'CSTX'" in str(exc.value)
    assert "Close matches: CST" in str(exc.value)
    assert "EST, EDT, CST" in str(exc.value)


@pytest.mark.parametrize("code", ["GST", "SST", "ChST"])
def test_codes_with_no_recorded_usgs_meaning_are_refused_not_guessed(code):
    # "GST" is Guam (+10) in some lists and Gulf Standard Time (+04) in others: a guess could
    # shift a record by 14 hours, so it is refused and the offset on each value is asked for.
    with pytest.raises(TimezoneError) as exc:
        usgs_tz_code(code)
    assert "numeric offset on the value itself" in exc.value.repair()
    with pytest.raises(TimezoneError):
        usgs_zone(code, "N")


@pytest.mark.parametrize("code, dst, expected", [
    ("CST", "Y", "America/Chicago"), ("CST", "N", "America/Chicago@standard"),
    ("CDT", True, "America/Chicago"), ("EST", False, "America/New_York@standard"),
    ("MST", "N", "America/Phoenix"), ("MST", "Y", "America/Denver"),
    ("HST", "N", "Pacific/Honolulu"), ("AST", "N", "America/Puerto_Rico"),
    ("UTC", "N", "UTC"),
])
def test_usgs_zone(code, dst, expected):
    assert usgs_zone(code, dst) == expected
    parse_zone(expected)  # every result is a spelling parse_zone accepts


def test_usgs_zone_refuses_contradictions():
    with pytest.raises(TimezoneError):
        usgs_zone("CDT", "N")
    with pytest.raises(TimezoneError):
        usgs_zone("CST", "maybe")


# -- properties ------------------------------------------------------------------------------------

_aware = st.datetimes(min_value=datetime(2, 1, 1), max_value=datetime(9998, 12, 31),
                      timezones=st.timezones(), allow_imaginary=False)
_zones = st.sampled_from([CHICAGO, "Europe/London", "Pacific/Honolulu", "America/Phoenix",
                          "Australia/Lord_Howe", "Asia/Kathmandu", "America/St_Johns"])


@given(_aware)
def test_any_aware_datetime_round_trips_in_utc(value):
    assert same_instant(check_timestamp(value, "UTC"), value)


@given(_aware, _zones)
def test_any_instant_in_the_declared_zone_round_trips(value, tz):
    local = value.astimezone(ZoneInfo(tz))
    result = check_timestamp(local, tz)
    assert same_instant(result, value)
    assert result.utcoffset() == local.utcoffset()


@given(_aware, _zones)
def test_any_utc_instant_is_accepted_for_any_zone(value, tz):
    result = check_timestamp(value.astimezone(UTC), tz)
    assert same_instant(result, value)


@given(_aware, _zones)
def test_iso_text_round_trips(value, tz):
    local = value.astimezone(ZoneInfo(tz))
    assert same_instant(check_timestamp(local.isoformat(), tz), value)
    assert same_instant(check_timestamp(value.isoformat(), "UTC"), value)


# -- vendoring -------------------------------------------------------------------------------------

def test_works_when_the_folder_is_copied_and_run_isolated(tmp_path):
    package = Path(timezones.__file__).resolve().parent
    shutil.copytree(package, tmp_path / "quantity_guard",
                    ignore=shutil.ignore_patterns("__pycache__"))
    code = ("import sys; sys.path.insert(0, '.')\n"
            "import quantity_guard.timezones as t\n"
            "assert 're' not in sys.modules and 'functools' not in sys.modules\n"
            "print(t.check_timestamp('2025-08-24T10:15:00.000-06:00', "
            "'America/Chicago@standard').isoformat())")
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "2025-08-24T10:15:00-06:00"
