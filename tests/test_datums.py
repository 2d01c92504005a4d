"""Behaviour of the vertical-datum registry (quantity_guard.datums)."""
from __future__ import annotations

import itertools
import json
import math
import os
import shutil
import subprocess
import sys
import textwrap
import threading
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quantity_guard import datums
from quantity_guard.errors import (
    DatumConversionUnavailable,
    DatumMismatch,
    GuardViolation,
    RedefinitionError,
    UnknownDatum,
)

FT = Fraction("0.3048")


# A tiny stand-in for quantity_guard.quantity.Q, which is being written in parallel. It has
# exactly what register_station duck-types: .magnitude (float), .unit.factor (exact Fraction,
# metres per unit) and .datum. Replace it with Q once Q exists.
class _Unit:
    def __init__(self, symbol: str, factor) -> None:
        self.symbol = symbol
        self.factor = Fraction(factor)

    def __str__(self) -> str:
        return self.symbol


_UNITS = {"ft": _Unit("ft", "0.3048"), "m": _Unit("m", 1)}


class Q:
    def __init__(self, magnitude: float, unit: str, datum: str | None = None) -> None:
        self.magnitude = float(magnitude)
        self.unit = _UNITS[unit]
        self.datum = datum

    def __repr__(self) -> str:
        return f"Q({self.magnitude} {self.unit}, datum={self.datum})"


fresh_registry = datums.isolated  # run with the registry as it is now, put it back afterwards


_counter = itertools.count()


def unique(prefix: str = "T") -> str:
    return f"{prefix}{next(_counter)}X"


# ----------------------------------------------------------------------- preloaded datums

EXPECTED_EPSG = {
    "NAVD88": 5703, "NGVD29": 5702, "ODN": 5701, "NAP": 5709, "EVRF2019": 9389,
    "EVRF2007": 5621, "EVRF2000": 5730, "DHHN2016": 7837, "DHHN92": 5783, "AHD": 5711,
    "CGVD2013": 6647, "CGVD28": 5713, "NZVD2016": 7839, "LAT": 5861, "MLLW": 5866,
    "MLW": 5867, "MSL": 5714, "MHW": 5868, "MHHW": 5869, "MTL": None, "STND": None,
    "IGLD85": 5609, "COE1912": None, "EGM2008": 3855, "EGM96": 5773, "HAT": 5872,
    "PRVD02": 6641, "GUVD04": 6644, "ASVD02": 6643, "NMVD03": 6640, "VIVD09": 6642,
    "Malin Head": 5731, "Belfast": 5732, "Poolbeg": 7962, "NGF-IGN69": 5720,
    "RH2000": 5613, "NN2000": 5941, "N2000": 3900, "DVR90": 5799, "Alicante": 5782,
    "Genoa 1942": 5214, "LN02": 5728, "JGD2011": 6695, "SHD": 6916, "TWVD2001": 8904,
    "AHD (Tasmania)": 5712, "AVWS": 9458, "NZVD2009": 4440, "DHHN85": 5784, "IGLD55": 5608,
    "MLWS": 5865, "MHWS": 5870, "EVRF2019 mean-tide": 9390,
}


def test_at_least_22_national_and_tidal_datums_are_preloaded_with_their_epsg_codes():
    registered = datums.names()
    assert len(registered) >= 22
    for name, code in EXPECTED_EPSG.items():
        assert name in registered, name
        assert datums.get(name).epsg == code, name
        assert datums.is_registered(name)


def test_preloaded_kinds():
    assert datums.get("NAVD88").kind == "geodetic"
    assert datums.get("ODN").kind == "geodetic"
    for tidal in ("LAT", "MLLW", "MLW", "MSL", "MHW", "MHHW", "MTL"):
        assert datums.get(tidal).kind == "tidal"
    assert datums.get("STND").kind == "station"


def test_every_preloaded_datum_cites_a_source_and_has_a_region():
    for name in datums.names():
        d = datums.get(name)
        assert d.source and len(d.source) > 10, name
        assert d.region, name
        assert d.description, name


def test_data_file_states_which_epsg_codes_are_confirmed():
    path = Path(datums.__file__).parent / "data" / "datums.json"
    entries = json.loads(path.read_text(encoding="utf-8"))["datums"]
    for entry in entries:
        assert entry["epsg_status"] in ("confirmed", "none"), entry["name"]
        assert (entry["epsg"] is None) == (entry["epsg_status"] == "none"), entry["name"]
    codes = [e["epsg"] for e in entries if e["epsg"] is not None]
    assert len(codes) == len(set(codes))


def test_datum_is_an_immutable_value():
    d = datums.get("NAVD88")
    assert d.__slots__ == ("name", "kind", "epsg", "region", "description", "aliases", "source")
    with pytest.raises(AttributeError):
        d.epsg = 1  # type: ignore[misc]
    assert isinstance(d.aliases, tuple)
    assert str(d) == "NAVD88"
    assert d == d.replace() and hash(d) == hash(d.replace()) and d != d.replace(epsg=1)
    assert d.replace(region="x").region == "x" and d.region != "x"


# -------------------------------------------------------------------------- name lookup

@pytest.mark.parametrize("spelling", ["AOD", "OD", "Ordnance Datum Newlyn", "ODN", "odn",
                                      "ordnance datum newlyn", "A.O.D."])
def test_odn_aliases(spelling):
    assert datums.get(spelling).name == "ODN"


@pytest.mark.parametrize("spelling", ["NAVD88", "NAVD 88", "NAVD-88", "navd88", " NAVD88 ",
                                      "NAVD_88", "Navd 88", "NAVD", "NAVD 1988"])
def test_spelling_variants_of_codes(spelling):
    assert datums.get(spelling).name == "NAVD88"


def test_other_aliases():
    assert datums.get("NGVD 29").name == "NGVD29"
    assert datums.get("Sea Level Datum of 1929").name == "NGVD29"
    assert datums.get("LMSL").name == "MSL"
    assert datums.get("Mean Lower-Low Water").name == "MLLW"
    assert datums.get("Normaal Amsterdams Peil").name == "NAP"
    assert datums.get("IGLD 1985").name == "IGLD85"
    assert datums.get(datums.get("NAP")) is datums.get("NAP")


def test_station_datum_names_are_well_formed_without_registration():
    d = datums.get("GAGE:07374000")
    assert (d.name, d.kind, d.station) == ("GAGE:07374000", "station", "07374000")
    assert d.is_local
    assert not datums.is_registered("GAGE:07374000")
    assert "GAGE:07374000" not in datums.names()
    assert datums.get("gage : 07374000").name == "GAGE:07374000"
    assert datums.get("GAUGE:E21136").kind == "station"
    assert datums.get("STND:9447130").kind == "station"
    tidal = datums.get("mllw:8761724")
    assert (tidal.name, tidal.kind) == ("MLLW:8761724", "tidal")
    assert tidal.is_local and not datums.get("MLLW").is_local


def test_station_identifiers_are_not_case_folded():
    assert datums.get("GAUGE:e21136").name == "GAUGE:e21136"
    assert datums.get("GAUGE:e21136").name != datums.get("GAUGE:E21136").name
    datums.register_station("e21136", Q(6.3, "m", datum="ODN"), prefix="gauge")
    assert datums.is_registered("GAUGE:e21136") and datums.is_registered("Gauge:e21136")
    assert not datums.is_registered("GAUGE:E21136")
    with pytest.raises(DatumConversionUnavailable):
        datums.offset("GAUGE:E21136", "ODN")


def test_unknown_datum_lists_close_matches_and_how_to_register():
    with pytest.raises(UnknownDatum) as info:
        datums.get("NAVD8")
    err = info.value
    assert "'NAVD8'" in err.message
    assert "NAVD88" in err.message
    assert 'datums.register("NAVD8"' in err.suggestion
    assert err.received == "NAVD8"
    assert err.code == "unknown_datum"
    assert isinstance(err, GuardViolation) and isinstance(err, ValueError)
    assert "Send instead:" in err.repair()


def test_unknown_station_prefix_suggests_the_right_prefix():
    with pytest.raises(UnknownDatum) as info:
        datums.get("GAUG:E21136")
    assert "'GAUGE:E21136'" in info.value.suggestion
    assert "PREFIX:ID" in info.value.message


def test_a_national_datum_is_not_a_station_prefix():
    with pytest.raises(UnknownDatum):
        datums.get("NAVD88:07374000")
    with pytest.raises(UnknownDatum):
        datums.get("GAGE:")
    with pytest.raises(UnknownDatum):
        datums.get("GAGE:07374000 extra")


@pytest.mark.parametrize("name, needle", [
    ("chart datum", "LAT in the UK"), ("CD", "MLLW on US charts"), ("IGLD", "IGLD85"),
    ("AMSL", "does not say which datum"), ("mASD", "GAUGE:<EA station reference>"),
    ("GAGE", "GAGE:<USGS site number>"), ("NHN", "DHHN2016"),
    ("Ordnance Datum", "Malin Head"),
])
def test_ambiguous_names_are_refused_with_an_explanation(name, needle):
    with pytest.raises(UnknownDatum) as info:
        datums.get(name)
    assert needle in info.value.message


def test_non_string_names_are_refused():
    with pytest.raises(UnknownDatum) as info:
        datums.get(None)  # type: ignore[arg-type]
    assert "None" in info.value.message
    assert not datums.is_registered(None)  # type: ignore[arg-type]
    assert not datums.is_registered("no such datum")


# ---------------------------------------------------------------------------- register

def test_register_then_get():
    d = datums.register("Site A benchmark", kind="local", region="test", description="BM",
                        aliases=("SITE-A-BM",), source="survey 2026")
    assert datums.get("Site A benchmark") == d
    assert datums.get("site a benchmark") == d
    assert datums.get("SITE-A-BM") == d
    assert datums.is_registered("Site A benchmark")
    assert "Site A benchmark" in datums.names()


def test_register_same_meaning_is_a_no_op_and_may_add_aliases():
    d = datums.register("KD1", kind="geodetic", epsg=99999, region="R", description="x")
    assert datums.register("KD1", kind="geodetic", epsg=99999, region="R", description="x") == d
    assert datums.register("KD1", kind="geodetic", epsg=99999, region="R") == d
    d2 = datums.register("KD1", kind="geodetic", epsg=99999, region="R", aliases=("KD-ONE",))
    assert d2.aliases == ("KD-ONE",)
    assert datums.get("KD-ONE").name == "KD1"


@pytest.mark.parametrize("change", [
    {"kind": "tidal"}, {"epsg": 12345}, {"region": "elsewhere"}, {"description": "other"},
    {"source": "another"},
])
def test_register_with_a_different_meaning_is_refused(change):
    base = dict(kind="geodetic", epsg=99998, region="R", description="x", source="s")
    datums.register("KD2", **base)
    with pytest.raises(RedefinitionError) as info:
        datums.register("KD2", **{**base, **change})
    assert "KD2" in str(info.value)
    assert datums.get("KD2").kind == "geodetic"  # unchanged


def test_redefining_a_preloaded_datum_is_refused():
    with pytest.raises(RedefinitionError):
        datums.register("NAVD88", kind="local")
    assert datums.get("NAVD88").epsg == 5703


def test_register_a_name_that_is_an_alias_or_spelling_of_another_is_refused():
    with pytest.raises(RedefinitionError) as info:
        datums.register("AOD", kind="geodetic")
    assert "ODN" in str(info.value) and "alias" in str(info.value)
    with pytest.raises(RedefinitionError) as info:
        datums.register("navd 88", kind="geodetic")
    assert "NAVD88" in str(info.value)


def test_register_an_alias_naming_another_datum_is_refused():
    with pytest.raises(RedefinitionError) as info:
        datums.register("KD3", aliases=("AOD",))
    assert "ODN" in str(info.value)
    assert not datums.is_registered("KD3")


def test_register_station_pattern_takes_the_kind_of_its_prefix():
    d = datums.register("gage:01646500")
    assert (d.name, d.kind) == ("GAGE:01646500", "station")
    assert datums.is_registered("GAGE:01646500")
    assert datums.register("MLLW:9447130").kind == "tidal"
    with pytest.raises(ValueError):
        datums.register("GAGE:1", kind="tidal")
    with pytest.raises(ValueError):
        datums.register("GAGE:07 374")


def test_an_implicitly_created_station_datum_may_be_described_once():
    datums.register_station("E21136", Q(6.3, "m", datum="ODN"), prefix="GAUGE")
    d = datums.register("GAUGE:E21136", kind="station", region="River Lee",
                        description="stage datum", source="EA station record")
    assert (d.region, d.description, d.source) == ("River Lee", "stage datum",
                                                   "EA station record")
    assert datums.register("GAUGE:E21136", kind="station", region="River Lee") == d
    with pytest.raises(RedefinitionError):
        datums.register("GAUGE:E21136", kind="station", region="elsewhere")
    assert datums.offset("GAUGE:E21136", "ODN") == Fraction(6.3)


def test_register_validates_arguments():
    with pytest.raises(TypeError):
        datums.register("")
    with pytest.raises(TypeError):
        datums.register("KD4", epsg="5703")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        datums.register("KD4", aliases=(3,))  # type: ignore[arg-type]
    assert datums.register("KD5", aliases="KD5-ALIAS").aliases == ("KD5-ALIAS",)


# ---------------------------------------------------------------------- register_offset

def test_offset_sign_convention_height_on_to_is_height_on_from_plus_metres():
    datums.register_offset("GAGE:X1", "NAVD88", Fraction("0.4572"))
    assert datums.offset("GAGE:X1", "NAVD88") == Fraction("0.4572")
    assert datums.offset("NAVD88", "GAGE:X1") == Fraction("-0.4572")
    # a stage of 2 m on the gage is 2.4572 m on NAVD88
    assert 2 + datums.offset("GAGE:X1", "NAVD88") == Fraction("2.4572")
    assert datums.offset("NAVD88", "NAVD88") == 0


@pytest.mark.parametrize("given, exact", [
    (Fraction(381, 833), Fraction(381, 833)), (2, Fraction(2)), ("0.4572", Fraction("0.4572")),
    (" -1.25 ", Fraction("-1.25")), ("3/7", Fraction(3, 7)), (0.1, Fraction(0.1)),
    (1.5, Fraction(3, 2)),
])
def test_offsets_are_exact_fractions(given, exact):
    stored = datums.register_offset("GAGE:X2", "NAVD88", given)
    assert stored == exact and isinstance(stored, Fraction)
    assert datums.offset("GAGE:X2", "NAVD88") == exact
    assert isinstance(datums.offset("GAGE:X2", "NAVD88"), Fraction)


def test_float_offsets_are_taken_exactly_not_as_their_decimal():
    datums.register_offset("GAGE:X3", "NAVD88", 0.1)
    assert datums.offset("GAGE:X3", "NAVD88") != Fraction("0.1")
    assert datums.offset("GAGE:X3", "NAVD88") == Fraction(0.1)


@pytest.mark.parametrize("bad, exc", [(True, TypeError), (float("nan"), ValueError),
                                      (float("inf"), ValueError), ("1,5", ValueError),
                                      (None, TypeError), ([1], TypeError)])
def test_offset_values_that_are_not_numbers_are_refused(bad, exc):
    with pytest.raises(exc):
        datums.register_offset("GAGE:X4", "NAVD88", bad)
    with pytest.raises(DatumConversionUnavailable):
        datums.offset("GAGE:X4", "NAVD88")


def test_reregistering_a_pair_with_the_same_offset_is_a_no_op_either_way_round():
    datums.register_offset("GAGE:X5", "NAVD88", "1.5")
    datums.register_offset("GAGE:X5", "NAVD88", Fraction(3, 2))
    datums.register_offset("NAVD88", "GAGE:X5", "-1.5")
    datums.register_offset("gage:X5", "navd 88", "1.5")
    assert [o for o in datums.registered_offsets() if o[0] == "GAGE:X5"] == [
        ("GAGE:X5", "NAVD88", Fraction(3, 2), None)]


def test_reregistering_a_pair_with_a_different_offset_is_refused():
    datums.register_offset("GAGE:X6", "NAVD88", "1.5", source="first")
    with pytest.raises(RedefinitionError) as info:
        datums.register_offset("GAGE:X6", "NAVD88", "1.6")
    text = str(info.value)
    assert "GAGE:X6" in text and "NAVD88" in text and "+1.5 m" in text and "+1.6 m" in text
    with pytest.raises(RedefinitionError):
        datums.register_offset("NAVD88", "GAGE:X6", "1.5")  # wrong sign for the reverse
    assert datums.offset("GAGE:X6", "NAVD88") == Fraction("1.5")


def _three_datums_with(*offsets):
    """The names of three fresh datums, with ``offsets`` (from's index, to's index, the offset)
    registered between them."""
    names = [datums.register(unique()).name for _ in range(3)]
    for i, j, value in offsets:
        datums.register_offset(names[i], names[j], value)
    return names


def test_an_offset_contradicting_a_chain_is_refused():
    a, b, c = _three_datums_with((0, 1, 1), (1, 2, 2))
    with pytest.raises(RedefinitionError) as info:
        datums.register_offset(a, c, 4)
    assert "through" in str(info.value) and b in str(info.value)
    assert datums.offset(a, c) == 3
    datums.register_offset(a, c, 3)                       # consistent: kept as a direct pair
    assert datums.path(a, c) == [a, c]
    with pytest.raises(RedefinitionError):
        datums.register_offset(c, a, 3)


def test_float_noise_contradiction_message_recommends_exact_values():
    a, b, c = _three_datums_with((0, 1, 3.134), (0, 2, 2.419))
    with pytest.raises(RedefinitionError) as info:
        datums.register_offset(c, b, 0.715)
    assert "string or Fraction" in str(info.value)


def test_offset_from_a_datum_to_itself():
    assert datums.register_offset("ODN", "AOD", 0) == 0
    with pytest.raises(RedefinitionError):
        datums.register_offset("ODN", "AOD", "0.1")


def test_register_offset_between_unknown_datums_is_refused():
    with pytest.raises(UnknownDatum):
        datums.register_offset("Nowhere datum", "NAVD88", 1)
    with pytest.raises(UnknownDatum):
        datums.register_offset("NAVD88", "NAVD8", 1)


def test_register_offset_registers_station_pattern_datums():
    datums.register_offset("NAVD88", "MLLW:8761724", "-0.1079", source="VDatum")
    assert datums.is_registered("MLLW:8761724")
    assert datums.get("MLLW:8761724").kind == "tidal"
    assert ("NAVD88", "MLLW:8761724", Fraction("-0.1079"), "VDatum") in \
        datums.registered_offsets()


# ----------------------------------------------------------------------- chains & refusal

def test_chain_gauge_to_navd88_to_a_tidal_datum_at_the_station():
    gauge = datums.register_station("07374000", Q(1.5, "ft", datum="NAVD88"))
    # Grand Isle: NAVD88 0 ft = MLLW 0.354 ft (NOAA VDatum, recorded fixture)
    datums.register_offset("NAVD88", "MLLW:8761724", Fraction("0.354") * FT)
    assert datums.path(gauge, "MLLW:8761724") == ["GAGE:07374000", "NAVD88", "MLLW:8761724"]
    total = datums.offset(gauge, "MLLW:8761724")
    assert total == Fraction("1.5") * FT + Fraction("0.354") * FT == Fraction("0.5650992")
    assert datums.offset("MLLW:8761724", gauge) == -total


def test_no_chain_means_conversion_unavailable_naming_both_and_what_to_register():
    with pytest.raises(DatumConversionUnavailable) as info:
        datums.offset("NAVD88", "NGVD29")
    err = info.value
    assert "'NAVD88'" in err.message and "'NGVD29'" in err.message
    assert "never assumed" in err.message
    assert 'datums.register_offset("NAVD88", "NGVD29", <metres>)' in err.suggestion
    assert "VDatum" in err.suggestion
    assert (err.received, err.expected) == ("NAVD88", "NGVD29")
    assert err.code == "datum_conversion_unavailable"
    assert err.repair().startswith(err.message) and "Send instead:" in err.repair()


def test_unavailable_for_a_gauge_suggests_register_station():
    with pytest.raises(DatumConversionUnavailable) as info:
        datums.offset("GAUGE:E21136", "ODN")
    assert 'datums.register_station("E21136"' in info.value.suggestion
    assert 'prefix="GAUGE"' in info.value.suggestion
    assert 'datum="ODN"' in info.value.suggestion


def test_unavailable_notices_the_same_station_under_the_other_prefix():
    datums.register_station("07374000", Q(0.0, "ft", datum="NAVD88"))
    with pytest.raises(DatumConversionUnavailable) as info:
        datums.offset("GAUGE:07374000", "NAVD88")
    assert "'GAGE:07374000'" in info.value.message


def test_a_station_never_links_two_national_datums():
    # A CO-OPS station that publishes both NAVD88 and NGVD29 on its STND (values made up).
    datums.register_offset("NAVD88", "STND:TEST1", "3.134")
    datums.register_offset("NGVD29", "STND:TEST1", "2.9")
    with pytest.raises(DatumConversionUnavailable) as info:
        datums.offset("NAVD88", "NGVD29")
    assert "STND:TEST1" in info.value.message and "one location" in info.value.message
    # Another gauge on NAVD88 elsewhere cannot reach NGVD29 through that station either...
    datums.register_station("GAUGEY", Q(10, "ft", datum="NAVD88"))
    with pytest.raises(DatumConversionUnavailable):
        datums.offset("GAGE:GAUGEY", "NGVD29")
    # ...but values at the station itself convert, and the gauge can reach the station datum.
    assert datums.offset("STND:TEST1", "NGVD29") == Fraction("-2.9")
    assert datums.offset("NAVD88", "STND:TEST1") == Fraction("3.134")
    assert datums.path("GAGE:GAUGEY", "STND:TEST1") == ["GAGE:GAUGEY", "NAVD88", "STND:TEST1"]
    assert datums.offset("GAGE:GAUGEY", "STND:TEST1") == 10 * FT + Fraction("3.134")


def test_an_explicit_national_offset_is_followed():
    datums.register_offset("NGVD29", "NAVD88", "0.9336", source="VDatum at one site")
    datums.register_station("G1", Q(100, "ft", datum="NGVD29"))
    assert datums.path("GAGE:G1", "NAVD88") == ["GAGE:G1", "NGVD29", "NAVD88"]
    assert datums.offset("GAGE:G1", "NAVD88") == 100 * FT + Fraction("0.9336")


def test_the_shortest_chain_is_used():
    a, b, c, d = (datums.register(unique()).name for _ in range(4))
    datums.register_offset(a, b, 1)
    datums.register_offset(b, c, 1)
    datums.register_offset(c, d, 1)
    assert datums.path(a, d) == [a, b, c, d]
    datums.register_offset(a, d, 3)
    assert datums.path(a, d) == [a, d]
    assert datums.path(d, a) == [d, a]


def test_path_list_is_a_copy():
    datums.register_offset("GAGE:P1", "NAVD88", 1)
    p = datums.path("GAGE:P1", "NAVD88")
    p.append("junk")
    assert datums.path("GAGE:P1", "NAVD88") == ["GAGE:P1", "NAVD88"]


def test_offset_of_unknown_datum_is_unknown_datum():
    with pytest.raises(UnknownDatum):
        datums.offset("NAVD88", "NAVD8")


# ---------------------------------------------------------------------- register_station

def test_register_station_exact_feet_to_metres():
    name = datums.register_station("07374000", Q(1.5, "ft", datum="NAVD88"), source="USGS")
    assert name == "GAGE:07374000"
    assert datums.offset(name, "NAVD88") == Fraction("0.4572")
    d = datums.get(name)
    assert d.kind == "station" and datums.is_registered(name)
    assert ("GAGE:07374000", "NAVD88", Fraction("0.4572"), "USGS") in datums.registered_offsets()


def test_register_station_again_same_elevation_is_a_no_op():
    first = datums.register_station("07374000", Q(1.5, "ft", datum="NAVD88"))
    n = len(datums.registered_offsets())
    assert datums.register_station("07374000", Q(1.5, "ft", datum="NAVD 88")) == first
    assert len(datums.registered_offsets()) == n


def test_register_station_with_a_different_elevation_or_datum_is_refused():
    datums.register_station("01646500", Q(37.04, "ft", datum="NAVD88"))
    with pytest.raises(RedefinitionError) as info:
        datums.register_station("01646500", Q(37.2, "ft", datum="NAVD88"))  # NWPS's figure
    assert "GAGE:01646500" in str(info.value) and "NAVD88" in str(info.value)
    with pytest.raises(RedefinitionError):
        datums.register_station("01646500", Q(37.04, "ft", datum="NGVD29"))
    assert datums.offset("GAGE:01646500", "NAVD88") == Fraction(37.04) * FT


def test_ngvd29_gauge_is_registered_against_ngvd29_never_navd88():
    # USGS 06730500: gage datum 4860.0 ft NGVD29 (monitoring-location record)
    name = datums.register_station("06730500", Q(4860.0, "ft", datum="NGVD29"))
    assert datums.offset(name, "NGVD29") == 4860 * FT
    assert datums.path(name, "NGVD29") == [name, "NGVD29"]
    with pytest.raises(DatumConversionUnavailable) as info:
        datums.offset(name, "NAVD88")
    assert "GAGE:06730500" in info.value.message and "NAVD88" in info.value.message


def test_register_station_refuses_an_elevation_without_a_datum():
    for datum in (None, "", "  "):
        with pytest.raises(DatumConversionUnavailable) as info:
            datums.register_station("07374000", Q(1.5, "ft", datum=datum))
        err = info.value
        assert "no vertical datum" in err.message and "1.5 ft" in err.message
        assert "would assume" in err.message
        assert 'datums.register_station("07374000", Q(1.5, "ft", datum=' in err.suggestion
        assert err.received == "1.5 ft"
    assert not datums.is_registered("GAGE:07374000")
    with pytest.raises(DatumConversionUnavailable):
        datums.offset("GAGE:07374000", "NAVD88")


def test_register_station_refuses_unknown_datums_and_bad_arguments():
    with pytest.raises(UnknownDatum):
        datums.register_station("07374000", Q(1.5, "ft", datum="NAVD8"))
    with pytest.raises(TypeError):
        datums.register_station(7374000, Q(1.5, "ft", datum="NAVD88"))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        datums.register_station("07 374", Q(1.5, "ft", datum="NAVD88"))
    with pytest.raises(TypeError):
        datums.register_station("07374000", 1.5)
    with pytest.raises(UnknownDatum):
        datums.register_station("07374000", Q(1.5, "ft", datum="NAVD88"), prefix="NAVD88")
    with pytest.raises(RedefinitionError):
        datums.register_station("X9", Q(1.5, "ft", datum="GAGE:X9"))
    nan = Q(1.5, "ft", datum="NAVD88")
    nan.magnitude = float("nan")
    with pytest.raises(ValueError):
        datums.register_station("X10", nan)


def test_ea_station_on_odn_with_gauge_prefix():
    # EA E21136: datumOffset 6.3 m (mAOD of the gauge zero); level 0.117 mASD -> 6.417 mAOD
    name = datums.register_station("E21136", Q(6.3, "m", datum="AOD"), prefix="GAUGE")
    assert name == "GAUGE:E21136"
    assert datums.offset(name, "ODN") == Fraction(6.3)
    assert math.isclose(0.117 + float(datums.offset(name, "ODN")), 6.417, rel_tol=1e-12)
    assert datums.get("GAUGE:E21136").kind == "station"
    # negative offsets are fine (E1662: -0.59)
    assert datums.offset(datums.register_station("E1662", Q(-0.59, "m", datum="ODN"),
                                                 prefix="GAUGE"), "ODN") == Fraction(-0.59)


def test_usgs_01646500_stage_plus_gage_datum_equals_navd88_elevation():
    name = datums.register_station("01646500", Q(37.04, "ft", datum="NAVD88"))
    stage_m = 3.03 * float(FT)
    elevation_ft = (stage_m + float(datums.offset(name, "NAVD88"))) / float(FT)
    assert math.isclose(elevation_ft, 40.07, rel_tol=1e-12)


def test_coops_station_datums_chain_exactly():
    # Seattle 9447130, heights above STND in metres (CO-OPS mdapi, recorded fixture)
    table = {"MHHW": "5.882", "MHW": "5.618", "MTL": "4.451", "MSL": "4.443",
             "MLW": "3.284", "MLLW": "2.419"}
    for tidal, value in table.items():
        datums.register_offset(f"{tidal}:9447130", "STND:9447130", value)
    datums.register_offset("NAVD88", "STND:9447130", "3.134")
    assert datums.offset("MLLW:9447130", "NAVD88") == Fraction("-0.715")
    # MSL lies 1.309 m above NAVD88's zero, so a height on MSL is 1.309 m less
    assert datums.offset("NAVD88", "MSL:9447130") == Fraction("-1.309")
    assert datums.path("MLLW:9447130", "MHHW:9447130") == [
        "MLLW:9447130", "STND:9447130", "MHHW:9447130"]
    assert datums.offset("MLLW:9447130", "MHHW:9447130") == Fraction("-3.463")


def test_register_station_with_a_tidal_prefix():
    name = datums.register_station("9447130", Q(-0.715, "m", datum="NAVD88"), prefix="MLLW")
    assert name == "MLLW:9447130" and datums.get(name).kind == "tidal"
    assert datums.offset(name, "NAVD88") == Fraction(-0.715)


def test_register_station_consistent_with_an_existing_chain_is_accepted():
    datums.register_offset("GAGE:C1", "NAVD88", "0.4572")
    assert datums.register_station("C1", Q(1.5, "ft", datum="NAVD88")) == "GAGE:C1"
    with pytest.raises(RedefinitionError):
        datums.register_station("C1", Q(1.6, "ft", datum="NAVD88"))


# --------------------------------------------------------------------------- check_same

def test_check_same_passes_none_and_equal_datums():
    assert datums.check_same(None, "NAVD88") is None
    assert datums.check_same("NAVD88", None) is None
    assert datums.check_same(None, None) is None
    assert datums.check_same("ODN", "AOD") is None
    assert datums.check_same("navd 88", "NAVD88") is None
    assert datums.check_same("GAGE:1", "gage:1") is None


def test_check_same_refuses_different_datums():
    with pytest.raises(DatumMismatch) as info:
        datums.check_same("GAGE:07374000", "NAVD88", field="freeboard.stage")
    err = info.value
    assert err.field == "freeboard.stage"
    assert "GAGE:07374000" in err.message and "NAVD88" in err.message
    assert (err.received, err.expected) == ("GAGE:07374000", "NAVD88")
    assert '.to_datum("NAVD88")' in err.suggestion
    assert 'datums.register_station("07374000"' in err.suggestion
    assert str(err).startswith("freeboard.stage: ")
    assert err.code == "datum_mismatch"


def test_check_same_suggestion_names_a_registered_offset():
    datums.register_station("07374000", Q(1.5, "ft", datum="NAVD88"))
    with pytest.raises(DatumMismatch) as info:
        datums.check_same("GAGE:07374000", "NAVD88")
    assert "+0.4572 m" in info.value.suggestion
    with pytest.raises(DatumMismatch) as info:
        datums.check_same("NAVD88", "NGVD29")
    assert 'datums.register_offset("NAVD88", "NGVD29", <metres>)' in info.value.suggestion


def test_check_same_refuses_unknown_datums():
    with pytest.raises(UnknownDatum) as info:
        datums.check_same("NAVD8", "NAVD88", field="p")
    assert info.value.field == "p"


# -------------------------------------------------------------------- threads & loading

def test_concurrent_registration():
    errors: list[BaseException] = []
    barrier = threading.Barrier(8)

    def work(i: int) -> None:
        try:
            barrier.wait()
            for j in range(25):
                datums.register_station("SAME1", Q(1.5, "ft", datum="NAVD88"))
                datums.register_station(f"T{i}-{j}", Q(j, "m", datum="ODN"), prefix="GAUGE")
                datums.offset("GAGE:SAME1", "NAVD88")
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for i in range(8):
        for j in range(25):
            assert datums.offset(f"GAUGE:T{i}-{j}", "ODN") == j
    assert datums.offset("GAGE:SAME1", "NAVD88") == Fraction("0.4572")


def test_copied_package_loads_lazily_under_isolated_mode(tmp_path):
    src = Path(datums.__file__).parent
    shutil.copytree(src, tmp_path / "quantity_guard",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})  # -I ignores PYTHONPATH and the cwd
        import quantity_guard.datums as d
        assert d._STATE is None, "data read at import"
        assert "json" not in sys.modules and "difflib" not in sys.modules
        assert "quantity_guard.quantity" not in sys.modules
        assert d.get("AOD").epsg == 5701
        assert d.offset("NAVD88", "NAVD88") == 0
        print(len(d.names()))
    """)
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60,
                         env={"PATH": os.environ.get("PATH", "")})
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) >= 22


# ---------------------------------------------------------------------------- properties

exact_offsets = st.one_of(
    st.fractions(min_value=-10_000, max_value=10_000, max_denominator=10**9),
    st.integers(min_value=-10_000, max_value=10_000),
    st.floats(min_value=-10_000, max_value=10_000, allow_nan=False, allow_infinity=False),
    st.decimals(min_value=-10_000, max_value=10_000, places=6, allow_nan=False,
                allow_infinity=False).map(str),
)


@settings(max_examples=60, deadline=None)
@given(value=exact_offsets)
def test_offset_is_antisymmetric(value):
    with fresh_registry():
        a, b = datums.register(unique()).name, datums.register(unique()).name
        datums.register_offset(a, b, value)
        assert datums.offset(a, b) == Fraction(value)
        assert datums.offset(a, b) == -datums.offset(b, a)


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(exact_offsets, min_size=1, max_size=8),
       shape=st.tuples(st.integers(0, 3), st.integers(0, 3)), data=st.data())
def test_chain_offsets_add_up_exactly(steps, shape, data):
    """A chain local* geodetic* local* is always followed, and sums exactly."""
    n = len(steps) + 1
    lead = min(shape[0], n)
    trail = min(shape[1], n - lead)
    kinds = ["local"] * lead + ["geodetic"] * (n - lead - trail) + ["station"] * trail
    with fresh_registry():
        nodes = [datums.register(unique("C"), kind=k).name for k in kinds]
        for (a, b), value in zip(itertools.pairwise(nodes), steps):
            datums.register_offset(a, b, value)
        exact = [Fraction(v) for v in steps]
        i = data.draw(st.integers(0, n - 1))
        j = data.draw(st.integers(0, n - 1))
        lo, hi = min(i, j), max(i, j)
        expected = sum(exact[lo:hi], Fraction(0))
        assert datums.offset(nodes[lo], nodes[hi]) == expected
        assert datums.offset(nodes[hi], nodes[lo]) == -expected
        assert datums.path(nodes[lo], nodes[hi]) == nodes[lo:hi + 1]


@settings(max_examples=30, deadline=None)
@given(a=exact_offsets, b=exact_offsets)
def test_a_local_datum_between_two_global_ones_is_never_a_bridge(a, b):
    with fresh_registry():
        g1 = datums.register(unique("G"), kind="geodetic").name
        g2 = datums.register(unique("G"), kind="geodetic").name
        loc = datums.register(unique("L"), kind="station").name
        datums.register_offset(g1, loc, a)
        datums.register_offset(loc, g2, b)
        with pytest.raises(DatumConversionUnavailable):
            datums.offset(g1, g2)
        assert datums.offset(g1, loc) + datums.offset(loc, g2) == Fraction(a) + Fraction(b)


def test_isolated_forgets_registrations_on_exit_even_after_an_exception_and_nests():
    from quantity_guard import Q
    with datums.isolated():
        datums.register_station("91000001", Q(3.0, "m", datum="NAVD88"))
        assert datums.is_registered("GAGE:91000001")
        with pytest.raises(RuntimeError):
            with datums.isolated():
                datums.register_station("91000002", Q(4.0, "m", datum="NAVD88"))
                assert datums.is_registered("GAGE:91000002")
                raise RuntimeError("boom")
        assert datums.is_registered("GAGE:91000001")
        assert not datums.is_registered("GAGE:91000002")
    assert not datums.is_registered("GAGE:91000001")
