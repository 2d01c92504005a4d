"""Conformance counts of the unit kernel against the specifications' own suites, read from
tests/units/conformance (sources in its README): a script, not a test (the tests are
tests/units/test_conformance_*.py).

    python bench/conformance.py        (UDUNITS-2 and CF read with vocabulary="cf")
    python bench/conformance.py kernel (the same, read with the default vocabulary)
"""
from __future__ import annotations

import collections
import json
import sys
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "units"))

import quantity_guard  # noqa: E402
from quantity_guard.errors import UnitParseError  # noqa: E402
from quantity_guard.units import AXES, convert, parse_unit  # noqa: E402
from udunits_oracle import Value, database  # noqa: E402

SUITES = ROOT / "tests" / "units" / "conformance"
# the kernel's dimension axes as SI base exponents (length, mass, time, current, temperature,
# substance, luminosity); its "kind" axes project onto the SI ones they are measured in
SI = {"length": 0, "mass": 1, "time": 2, "current": 3, "temperature": 4, "substance": 5,
      "luminosity": 6}
PROJECTED = {"apparent_power": (2, 1, -3, 0, 0, 0, 0), "reactive_power": (2, 1, -3, 0, 0, 0, 0),
             "standard_volume": (3, 0, 0, 0, 0, 0, 0)}


def read(text: str, vocabulary: str):
    """``text`` read in ``vocabulary`` ("kernel": the default one)."""
    return parse_unit(text) if vocabulary == "kernel" else parse_unit(text, vocabulary=vocabulary)


def ucum(root: ET.Element) -> None:
    ok = n = arbitrary = 0
    for case in root.find("validation").findall("case"):
        n += 1
        valid = case.get("valid") == "true"
        try:
            parse_unit(case.get("unit"), vocabulary="ucum")
            read_it = True
        except UnitParseError as err:
            read_it = False
            arbitrary += valid and "arbitrary" in err.message
        ok += read_it == valid
    print(f"UCUM validation {ok}/{n} (+{arbitrary} arbitrary refused saying so)")
    ok = n = 0
    for case in root.find("conversion").findall("case"):
        n += 1
        outcome = case.get("outcome")
        digits = len(outcome.split(".")[1]) if "." in outcome else 0
        try:
            got = convert(float(case.get("value")),
                          parse_unit(case.get("srcUnit"), vocabulary="ucum"),
                          parse_unit(case.get("dstUnit"), vocabulary="ucum"))
        except Exception:
            continue
        ok += abs(got - float(outcome)) <= max(0.5 * 10 ** -digits, 1e-14 * abs(float(outcome)))
    print(f"UCUM conversion {ok}/{n}")


def si_dims(unit) -> tuple:
    dims = [0] * 7
    for axis, exponent in zip(AXES, unit.dims):
        if axis in SI:
            dims[SI[axis]] += exponent
        elif axis in PROJECTED:
            for k, x in enumerate(PROJECTED[axis]):
                dims[k] += x * exponent
    return tuple(dims)


def verdict(spelling: str, value: Value, vocabulary: str) -> str:
    """"read" (with the database's value), "wrong" (another value) or "refused"."""
    try:
        unit = read(spelling, vocabulary)
    except UnitParseError:
        return "refused"
    if value.level:
        return "read"  # a level: any reading counts as read here (the tests say more)
    if si_dims(unit) != value.dims:
        return "wrong"
    factor = Fraction(value.factor)
    off = abs(float(unit.factor - factor) / float(factor))
    if unit.factor != factor and off > value.tol + 1e-15:
        return "wrong"
    offset = unit.offset or 0
    if offset != value.offset and abs(float(offset - value.offset)) > 1e-9:
        return "wrong"
    return "read"


def udunits(vocabulary: str) -> None:
    db = database()
    declared = json.loads((ROOT / "quantity_guard" / "data" / "units_udunits.json").read_text(
        "utf-8"))["kernel_conventions"]
    metre = db.units["m"].dims
    prefixes = sum(verdict(p + ("m" if len(p) <= 2 else "meter"), Value(db.prefixes[p], metre),
                           vocabulary) == "read" for p in db.prefixes)
    for label, spellings in (("db spellings", db.spellings()),
                             ("with generated plurals", db.spellings(True))):
        counts: collections.Counter = collections.Counter()
        wrong = []
        for spelling in spellings:
            found = verdict(spelling, db.units[spelling], vocabulary)
            counts[found] += 1
            if found == "wrong":
                wrong.append(spelling)
        conventions = [w for w in wrong if w in declared]
        wrong = [w for w in wrong if w not in declared]
        print(f"UDUNITS-2 {label}: read {counts['read']}/{len(spellings)} ({len(conventions)} of "
              f"them by a declared convention of the default vocabulary: {conventions}), refused "
              f"{counts['refused']}, wrong factors {len(wrong)} {wrong[:12]}; prefixes "
              f"{prefixes}/{len(db.prefixes)}")


def cf_canonical_units(vocabulary: str) -> None:
    table = json.loads((SUITES / "cf_standard_name_units_v83.json").read_text("utf-8"))
    ok = names = 0
    failed = []
    for text, count in table["units"].items():
        try:
            read(text, vocabulary)
        except UnitParseError:
            failed.append(text)
            continue
        ok += 1
        names += count
    print(f"CF canonical units {ok}/{len(table['units'])} ({names}/{table['entries']} names) "
          f"not read: {failed}")


def main() -> None:
    vocabulary = sys.argv[1] if len(sys.argv) > 1 else "cf"
    print("tree:", quantity_guard.__file__, "cf vocabulary:", vocabulary)
    ucum(ET.parse(SUITES / "UcumFunctionalTests.xml").getroot())
    udunits(vocabulary)
    cf_canonical_units(vocabulary)


if __name__ == "__main__":
    main()
