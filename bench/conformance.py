"""Conformance counts of the unit kernel against the specifications' own suites, read from
tests/units/conformance (sources in its README): a script, not a test (the tests are
tests/units/test_conformance_*.py).

    python bench/conformance.py        (UDUNITS-2 and CF read with vocabulary="cf")
    python bench/conformance.py kernel (the same, read with the default vocabulary)
"""
import sys, math, json, re
from pathlib import Path
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "units"))
import xml.etree.ElementTree as ET
from fractions import Fraction
import quantity_guard
from quantity_guard.units import parse_unit, convert, AXES
from quantity_guard.errors import UnitParseError
C = str(ROOT / "tests" / "units" / "conformance") + "/"
cfv = sys.argv[1] if len(sys.argv) > 1 else "cf"
print("tree:", quantity_guard.__file__, "cf vocabulary:", cfv)
r = ET.parse(C + "UcumFunctionalTests.xml").getroot()
ok = n = 0
arb = 0
for c in r.find("validation").findall("case"):
    n += 1
    try:
        parse_unit(c.get("unit"), vocabulary="ucum"); got = True
    except UnitParseError as e:
        got = False
        if c.get("valid") == "true" and "arbitrary" in e.message: arb += 1
    ok += got == (c.get("valid") == "true")
print(f"UCUM validation {ok}/{n} (+{arb} arbitrary refused saying so)")
ok = n = 0
for c in r.find("conversion").findall("case"):
    n += 1
    try:
        x = convert(float(c.get("value")), parse_unit(c.get("srcUnit"), vocabulary="ucum"), parse_unit(c.get("dstUnit"), vocabulary="ucum"))
        out = c.get("outcome"); last = -len(out.split(".")[1]) if "." in out else 0
        ok += abs(x - float(out)) <= max(0.5 * 10 ** last, 1e-14 * abs(float(out)))
    except Exception as e:
        pass
print(f"UCUM conversion {ok}/{n}")
from udunits_oracle import database
db = database()
SI = {"length": 0, "mass": 1, "time": 2, "current": 3, "temperature": 4, "substance": 5, "luminosity": 6}
PROJ = {"apparent_power": (2, 1, -3, 0, 0, 0, 0), "reactive_power": (2, 1, -3, 0, 0, 0, 0), "standard_volume": (3,0,0,0,0,0,0)}
def si(u):
    d = [0] * 7
    for a, e in zip(AXES, u.dims):
        if a in SI: d[SI[a]] += e
        elif a in PROJ:
            for k, x in enumerate(PROJ[a]): d[k] += x * e
    return tuple(d)
def check(sp, v, vocab):
    try:
        u = parse_unit(sp) if vocab == "kernel" else parse_unit(sp, vocabulary=vocab)
    except UnitParseError:
        return "refused"
    if v.level:
        return "read"  # a level: any reading counts as read here (the tests say more)
    if si(u) != v.dims: return "wrong"
    f = Fraction(v.factor)
    if u.factor == f: pass
    elif abs(float(u.factor - f) / float(f)) > v.tol + 1e-15: return "wrong"
    if (u.offset or 0) != v.offset and abs(float((u.offset or 0) - v.offset)) > 1e-9: return "wrong"
    return "read"
import collections
for label, sps in (("db spellings", db.spellings()), ("with generated plurals", db.spellings(True))):
    res = collections.Counter(); wrong = []
    for sp in sps:
        k = check(sp, db.units[sp], cfv); res[k] += 1
        if k == "wrong": wrong.append(sp)
    pre = 0
    for p in db.prefixes:
        from udunits_oracle import Value
        k = check(p + ("m" if len(p) <= 2 else "meter"), Value(db.prefixes[p], db.units["m"].dims), cfv); pre += k == "read"
    declared = json.load(open(ROOT / "quantity_guard" / "data" / "units_udunits.json"))["kernel_conventions"]
    conv = [w for w in wrong if w in declared]
    wrong = [w for w in wrong if w not in declared]
    print(f"UDUNITS-2 {label}: read {res['read']}/{len(sps)} ({len(conv)} of them by a declared "
          f"convention of the default vocabulary: {conv}), refused {res['refused']}, "
          f"wrong factors {len(wrong)} {wrong[:12]}; prefixes {pre}/{len(db.prefixes)}")
cf = json.load(open(C + "cf_standard_name_units_v83.json"))
ok = 0; names = 0; fails = []
for t, k in cf["units"].items():
    try:
        parse_unit(t) if cfv == "kernel" else parse_unit(t, vocabulary=cfv); ok += 1; names += k
    except UnitParseError: fails.append(t)
print(f"CF canonical units {ok}/{len(cf['units'])} ({names}/{cf['entries']} names) not read: {fails}")
