"""A third held-out answer set for the answer audit (issue 11), in the shape real answers take.

``python bench/holdout3.py`` writes ``tests/data/audit_holdout3.json``; ``--check`` rebuilds it
and compares with the file (exit 1 on a difference). ``replay(record)`` runs a record's tool
calls through the real bench tools (``bench.harness.tools.build_tools``) inside
``quantity_guard.session(context=question)`` and returns the ledger, so every audit runs against
a ledger the library itself recorded.

The previous sets were dense in written working (formulas, factor tables, step labels). Real
answers are mostly sparse: the final figure, one or two supporting numbers, numbers restated from
the question (station ids, "the next 6 hours"), dates and counts, rounding as people round
("about 400 A", "just under 1,300 cfs"), a refused first call quoted with its correction, a
direction said in words in either order, and the usual dress (tables, bullets, echoed JSON,
LaTeX, Unicode minus and superscripts, no-break spaces, decimal commas for UK tasks). Each of
those is built here as a class of many answers, rendered in the habits of eight model families.

Every record is labelled by construction: ``label`` (correct / incorrect), ``error`` (the kind
of mistake), ``wrong_figures`` (the wrong figures exactly as written, primary first), ``style``
(the class of writing), ``features`` (what the answer contains), ``scenario`` (the run whose
calls are replayed) and ``condition`` (``schema_only``: warn, every call reaches its body;
``guarded_repair``: strict, a refused call is answered with the repair text and nothing runs).
The file holds no audit output.

The fifth batch (``.../sNNN`` ordinary answers in new styles, ``.../kNNN`` new hard classes)
is written to ``tests/data/audit_holdout5.json``; its classes are described where it is built.

The set has five parts, told apart by the last component of a record's id:

- the mix (``.../07``): per task and family, answers in the styles the family writes;
- targeted classes (``.../c012``): a plain answer plus one or two sentences of one class
  (counts, dates, durations, roundings, ratios, directions, datum heights, ...);
- fresh classes (``.../f012``): the same idea in new words, written after the audit's first fixes
  against this set were seen;
- fresh2 classes (``.../g012``) and the mix in new words (``.../m012``, with rounded conversions
  passed to tools and right-magnitude-wrong-unit answers): written before the audit's last round
  was seen and committed after it, so they measure it blind.

Each part has its own random draws, appended after the ones before, so adding a part never
changes an earlier record.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # last: a PYTHONPATH pointing at another package copy wins

DATA = ROOT / "tests" / "data" / "audit_holdout3.json"
# the third fresh batch (ids ``h``/``j``) has its own file, so the first file stays as it was
DATA4 = ROOT / "tests" / "data" / "audit_holdout4.json"
BATCH3 = ("h", "j")


def batch3(record: dict) -> bool:
    return record["id"].rsplit("/", 1)[1][0] in BATCH3
SEED = 20261130
SCHEMA = "holdout3/1"

FAMILIES = ("claude", "gpt", "gemini", "llama", "qwen", "deepseek", "mistral", "small")
ERRORS = ("carry_over", "cross_datum", "invented", "wrong_arithmetic", "sign_flip",
          "factor_slip")


# -- replay -------------------------------------------------------------------------------------
_SUITES: dict = {}


def task_of(suite: str, task: str):
    from bench.harness import suites as suites_mod
    if suite not in _SUITES:
        _SUITES[suite] = suites_mod.load(suite)
    return _SUITES[suite].task(task)


def replay(record: dict):
    """The record's calls sent, in order, to the condition's tools in a fresh session; returns
    ``(ledger, results)`` where results are ``(name, is_error, text)`` per call."""
    from bench.harness.tools import build_tools, result_text
    from quantity_guard import session, toolbox
    task = task_of(record["suite"], record["task"])
    box = toolbox(build_tools(task, record["condition"]))
    results = []
    with session(context=record["question"]) as ledger:
        for call in record["calls"]:
            res = box.invoke(call["name"], json.loads(json.dumps(call["arguments"])))
            results.append((call["name"], bool(res.get("isError")), result_text(res)))
    return ledger, results


def audit(record: dict):
    ledger, _ = replay(record)
    return ledger.audit_answer(record["answer"], context=record["question"])


# -- number writing ------------------------------------------------------------------------------
UNITS = {
    "cfs": {"sym": ["cfs", "ft³/s", "cfs", "CFS"], "ascii": ["cfs", "ft3/s", "ft^3/s"],
            "word": ["cubic feet per second", "cubic feet per second"]},
    "m3s": {"sym": ["m³/s", "m³/s", "m³ s⁻¹"], "ascii": ["m3/s", "m^3/s", "m3/s"],
            "word": ["cubic metres per second", "cubic meters per second", "cumecs"]},
    "km2": {"sym": ["km²"], "ascii": ["km2", "km^2", "sq km"], "word": ["square kilometres",
                                                                         "square kilometers"]},
    "mmd": {"sym": ["mm/day", "mm/d", "mm d⁻¹"], "ascii": ["mm/day", "mm/d"],
            "word": ["millimetres per day", "millimeters per day", "mm per day"]},
    "ft": {"sym": ["ft"], "ascii": ["ft"], "word": ["feet"]},
    "m": {"sym": ["m"], "ascii": ["m"], "word": ["metres", "meters"]},
    "pct": {"sym": ["%"], "ascii": ["%"], "word": ["percent", "per cent"]},
    "mld": {"sym": ["Ml/d", "ML/d", "Ml/day"], "ascii": ["Ml/d", "ML/d", "MLD"],
            "word": ["megalitres per day", "megalitres a day"]},
    "mva": {"sym": ["MVA"], "ascii": ["MVA"], "word": ["MVA", "megavolt-amperes"]},
    "kv": {"sym": ["kV"], "ascii": ["kV"], "word": ["kV", "kilovolts"]},
    "va": {"sym": ["VA"], "ascii": ["VA"], "word": ["volt-amperes"]},
    "v": {"sym": ["V"], "ascii": ["V"], "word": ["volts"]},
    "a": {"sym": ["A"], "ascii": ["A"], "word": ["amperes", "amps"]},
    "ka": {"sym": ["kA"], "ascii": ["kA"], "word": ["kiloamperes"]},
    "mw": {"sym": ["MW"], "ascii": ["MW"], "word": ["megawatts", "MW"]},
    "kw": {"sym": ["kW"], "ascii": ["kW"], "word": ["kilowatts", "kW"]},
    "kwh": {"sym": ["kWh"], "ascii": ["kWh"], "word": ["kilowatt-hours", "kWh"]},
    "mwh": {"sym": ["MWh"], "ascii": ["MWh"], "word": ["megawatt-hours", "MWh"]},
    "h": {"sym": ["h", "hours"], "ascii": ["h", "hours"], "word": ["hours"]},
    "cm": {"sym": ["cm"], "ascii": ["cm"], "word": ["centimetres", "cm"]},
    "in": {"sym": ["in", "inches"], "ascii": ["in"], "word": ["inches"]},
    "none": {"sym": [""], "ascii": [""], "word": [""]},
}
NO_SPACE = {"pct"}  # "1.07%" as often as "1.07 %"


class Fmt:
    """One answer's writing habits: separators, decimal mark, unit spelling, minus sign."""

    def __init__(self, rng: random.Random, *, sep=",", dec=".", units="sym", minus="-",
                 space=" ", bold=False):
        self.rng = rng
        self.sep, self.dec, self.units, self.minus, self.space = sep, dec, units, minus, space
        self.bold = bold
        self.written: dict[str, list[str]] = {}

    def number(self, text: str) -> str:
        """A canonical number ("29,940.5", "-0.44") in this answer's separators and minus."""
        neg = text.startswith("-")
        body = text[1:] if neg else text
        if "e" in body or "×" in body or "^" in body:
            out = body
        else:
            whole, _, frac = body.partition(".")
            whole = whole.replace(",", "")
            if len(whole) > 4 or (len(whole) == 4 and self.sep == ","):
                groups = []
                while len(whole) > 3:
                    groups.insert(0, whole[-3:])
                    whole = whole[:-3]
                groups.insert(0, whole)
                whole = self.sep.join(groups)
            elif len(whole) == 4 and self.sep not in (",", ""):
                # "1 250" is rarer than "1250" where a space groups: keep it plain
                whole = whole
            out = whole + (self.dec + frac if frac else "")
        return (self.minus if neg else "") + out

    def unit(self, key: str, spelling: str | None = None) -> str:
        kind = spelling or self.units
        return self.rng.choice(UNITS[key][kind])

    def join(self, num: str, unit: str, key: str) -> str:
        if not unit:
            return num
        if key in NO_SPACE and unit == "%":
            return num + self.rng.choice(["%", "%", " %"])
        if unit in ("percent", "per cent"):
            return f"{num} {unit}"
        return f"{num}{self.space}{unit}"


class Qty:
    """A figure an answer may write. ``forms``: accurate written forms (canonical separators);
    ``hedged``: hedged roundings that are true of the value; ``full``: a float as a tool
    printed it; ``sci``: scientific spellings."""

    def __init__(self, value, unit, forms, hedged=(), full=None, sci=(), words=()):
        self.value, self.unit, self.forms, self.hedged = value, unit, list(forms), list(hedged)
        self.full = full
        self.sci = list(sci)
        self.words = list(words)


HEDGE_BEFORE = ["about", "roughly", "approximately", "around", "~", "≈", "some", "close to"]


def render(template: str, facts: dict, fmt: Fmt) -> str:
    """Fill ``«KEY»`` / ``«KEY:mode»``; modes: (none) number+unit, ``v`` number only, ``h``
    hedged, ``hv`` hedged number only, ``r`` the hedged rounding without its hedge word,
    ``full`` float as printed, ``sci``, ``w`` unit in words, ``mag`` magnitude of a negative,
    ``u`` unit only, ``W`` number in words."""
    def sub(m):
        key, _, mode = m.group(1).partition(":")
        q = facts[key]
        rng = fmt.rng
        if mode == "u":
            return fmt.unit(q.unit)
        if mode in ("h", "hv", "r") and q.hedged:
            phrase = rng.choice(q.hedged)
            if mode == "r":
                phrase = phrase.split(" ")[-1]
            elif phrase[0].isdigit() or phrase[0] == "-":
                phrase = (rng.choice(HEDGE_BEFORE) + " " + phrase).replace("~ ", "~")
            words = phrase.split(" ")
            at = max(i for i, word in enumerate(words) if word[:1].isdigit() or
                     word[:1] == "-" or word[:1] in "~≈" and word[1:2].isdigit())
            lead = words[at][0] if words[at][0] in "~≈" else ""
            num = fmt.number(words[at][len(lead):])
            words[at] = lead + num
            text = " ".join(words)
            fmt.written.setdefault(key, []).append(num)
            if mode == "hv":
                return text
            return fmt.join(text, fmt.unit(q.unit, "word" if fmt.units == "word" else None),
                            q.unit)
        if mode == "W" and q.words:
            text = rng.choice(q.words)
            fmt.written.setdefault(key, []).append(text)
            return text
        if mode == "full" and q.full is not None:
            num = repr(q.full) if fmt.dec == "." else repr(q.full).replace(".", fmt.dec)
        elif mode == "sci" and q.sci:
            num = rng.choice(q.sci)
        else:
            num = fmt.number(rng.choice(q.forms))
        if mode == "mag":
            num = num.lstrip("-−")
        fmt.written.setdefault(key, []).append(num)
        if mode in ("v", "mag_v"):
            return num
        unit = fmt.unit(q.unit, "word" if mode == "w" else None)
        text = fmt.join(num, unit, q.unit)
        return text
    return re.sub(r"«([A-Za-z_0-9]+(?::[A-Za-z]+)?)»", sub, template)
UNITS.update({
    "mmyr": {"sym": ["mm/yr", "mm per year", "mm/year"], "ascii": ["mm/yr", "mm/year"],
             "word": ["millimetres per year", "mm a year"]},
    "m3d": {"sym": ["m³/day", "m³ per day", "m³/d"], "ascii": ["m3/day", "m3/d"],
            "word": ["cubic metres a day", "cubic metres per day"]},
    "ls": {"sym": ["l/s", "L/s"], "ascii": ["l/s", "L/s"], "word": ["litres per second"]},
})


# -- calls ---------------------------------------------------------------------------------------
def C(name, **arguments):
    return {"name": name, "arguments": arguments}


def V(value, unit, datum=None):
    out = {"value": value, "unit": unit}
    if datum:
        out["datum"] = datum
    return out


RUNOFF_SCEN = {
    "careful_obj": ("schema_only", [C("runoff_depth", discharge=V(1250, "cfs"),
                                      area=V(29940, "km2"))]),
    "careful_str": ("schema_only", [C("runoff_depth", discharge="1250 ft3/s", area=29940)]),
    "careful_si": ("schema_only", [C("runoff_depth", discharge=V(35.396, "m3/s"), area=29940)]),
    "careful_bare_si": ("schema_only", [C("runoff_depth", discharge=35.39605824,
                                          area=29940.0)]),
    "refused": ("guarded_repair", [C("runoff_depth", discharge=1250, area=29940),
                                   C("runoff_depth", discharge=V(1250, "cfs"), area=29940)]),
    "warn_retry": ("schema_only", [C("runoff_depth", discharge=1250, area=29940),
                                   C("runoff_depth", discharge=V(1250, "cfs"), area=29940)]),
    "naive": ("schema_only", [C("runoff_depth", discharge=1250, area=29940)]),
    "hand": ("schema_only", []),
    "slip_tool": ("schema_only", [C("runoff_depth", discharge=V(3.54, "m3/s"), area=29940)]),
    "careful_round": ("schema_only", [C("runoff_depth", discharge=V(35.4, "m3/s"), area=29940)]),
    "careful_round2": ("schema_only", [C("runoff_depth", discharge=35.375, area=29940)]),
}


def runoff_calls(station="01646500"):
    base = [C("read_discharge", station_id=station), C("get_drainage_area", station_id=station)]
    return {k: (cond, base + calls) for k, (cond, calls) in RUNOFF_SCEN.items()}


OFF = C("get_datum_offset", location="RRL-12", from_datum="NGVD29", to_datum="NAVD88")
OFF_W = C("get_datum_offset", location="SHVL1", from_datum="NGVD29", to_datum="NAVD88")
FB_BASE = [C("get_levee_crest", levee_id="RRL-12"), C("get_stage_forecast", forecast_point="SHVL1")]
FREEBOARD_SCEN = {
    "careful_obj": ("schema_only", FB_BASE + [OFF, C(
        "compute_freeboard", crest_elevation=V(31.56, "ft", "NAVD88"),
        water_surface=V(27.5, "ft", "NAVD88"))]),
    "careful_bare": ("schema_only", FB_BASE + [OFF, C(
        "compute_freeboard", crest_elevation=31.56, water_surface=27.5)]),
    "careful_shvl": ("schema_only", FB_BASE + [OFF_W, C(
        "compute_freeboard", crest_elevation=V(31.56, "ft", "NAVD88"), water_surface=27.5)]),
    "refused": ("guarded_repair", FB_BASE + [
        C("compute_freeboard", crest_elevation=32.0, water_surface=27.5), OFF,
        C("compute_freeboard", crest_elevation=V(31.56, "ft", "NAVD88"), water_surface=27.5)]),
    "warn_retry": ("schema_only", FB_BASE + [
        C("compute_freeboard", crest_elevation=32.0, water_surface=27.5), OFF,
        C("compute_freeboard", crest_elevation=31.56, water_surface=27.5)]),
    "blind_tool": ("schema_only", FB_BASE + [
        C("compute_freeboard", crest_elevation=32.0, water_surface=27.5)]),
    "blind_hand": ("schema_only", list(FB_BASE)),
    "flip_tool": ("schema_only", FB_BASE + [OFF, C(
        "compute_freeboard", crest_elevation=32.44, water_surface=27.5)]),
    "hand": ("schema_only", FB_BASE + [OFF]),
    "slip_tool": ("schema_only", FB_BASE + [OFF, C(
        "compute_freeboard", crest_elevation=V(31.65, "ft", "NAVD88"), water_surface=27.5)]),
}

SHARE_BASE = [C("get_licence_rate", licence_id="6/33/12/*S/0041"),
              C("get_river_flow", station_id="2604TH")]
SHARE_SCEN = {
    "careful_obj": ("schema_only", SHARE_BASE + [C(
        "abstraction_share", abstraction=V(45, "Ml/d"), river_flow=V(48.6, "m3/s"))]),
    "careful_str": ("schema_only", SHARE_BASE + [C(
        "abstraction_share", abstraction="45 ML/d", river_flow=48.6)]),
    "careful_bare_si": ("schema_only", SHARE_BASE + [C(
        "abstraction_share", abstraction=0.520833, river_flow=48.6)]),
    "refused": ("guarded_repair", SHARE_BASE + [
        C("abstraction_share", abstraction=45, river_flow=48.6),
        C("abstraction_share", abstraction=V(45, "ML/d"), river_flow=48.6)]),
    "warn_retry": ("schema_only", SHARE_BASE + [
        C("abstraction_share", abstraction=45, river_flow=48.6),
        C("abstraction_share", abstraction=V(45, "Ml/d"), river_flow=48.6)]),
    "naive": ("schema_only", SHARE_BASE + [
        C("abstraction_share", abstraction=45, river_flow=48.6)]),
    "hand": ("schema_only", list(SHARE_BASE)),
    "slip_tool": ("schema_only", SHARE_BASE + [C(
        "abstraction_share", abstraction=V(5.208, "m3/s"), river_flow=48.6)]),
    "careful_round": ("schema_only", SHARE_BASE + [C(
        "abstraction_share", abstraction=V(0.521, "m3/s"), river_flow=48.6)]),
    "careful_round2": ("schema_only", SHARE_BASE + [C(
        "abstraction_share", abstraction=0.5208, river_flow=48.6)]),
}

LV_BASE = [C("get_river_level", station_id="E21136"),
           C("get_warning_threshold", station_id="E21136")]
ZERO = C("get_station_datum", station_id="E21136")
LEVEL_SCEN = {
    "careful_obj": ("schema_only", LV_BASE + [ZERO, C(
        "level_below_threshold", level=V(9.15, "m", "ODN"), threshold=V(9.4, "m", "ODN"))]),
    "careful_bare": ("schema_only", LV_BASE + [ZERO, C(
        "level_below_threshold", level=9.15, threshold=9.4)]),
    "refused": ("guarded_repair", LV_BASE + [
        C("level_below_threshold", level=2.85, threshold=9.4), ZERO,
        C("level_below_threshold", level=V(9.15, "m", "ODN"), threshold=9.4)]),
    "warn_retry": ("schema_only", LV_BASE + [
        C("level_below_threshold", level=2.85, threshold=9.4), ZERO,
        C("level_below_threshold", level=9.15, threshold=9.4)]),
    "blind_tool": ("schema_only", LV_BASE + [
        C("level_below_threshold", level=2.85, threshold=9.4)]),
    "blind_hand": ("schema_only", list(LV_BASE)),
    "flip_tool": ("schema_only", LV_BASE + [ZERO, C(
        "level_below_threshold", level=-3.45, threshold=9.4)]),
    "hand": ("schema_only", LV_BASE + [ZERO]),
    "slip_tool": ("schema_only", LV_BASE + [ZERO, C(
        "level_below_threshold", level=V(9.05, "m", "ODN"), threshold=9.4)]),
}

FLC_BASE = [C("get_transformer_rating", transformer_id="HT-T2"),
            C("get_bus_voltage", bus_id="HT-HV")]
FLC_SCEN = {
    "careful_obj": ("schema_only", FLC_BASE + [C(
        "full_load_current", apparent_power=V(90, "MVA"), line_voltage=V(132, "kV"))]),
    "careful_str": ("schema_only", FLC_BASE + [C(
        "full_load_current", apparent_power="90 MVA", line_voltage="132 kV")]),
    "careful_bare_si": ("schema_only", FLC_BASE + [C(
        "full_load_current", apparent_power=90000000, line_voltage=132000)]),
    "refused": ("guarded_repair", FLC_BASE + [
        C("full_load_current", apparent_power=90, line_voltage=132),
        C("full_load_current", apparent_power=V(90, "MVA"), line_voltage=V(132, "kV"))]),
    "warn_retry": ("schema_only", FLC_BASE + [
        C("full_load_current", apparent_power=90, line_voltage=132),
        C("full_load_current", apparent_power=90e6, line_voltage=132e3)]),
    "naive": ("schema_only", FLC_BASE + [
        C("full_load_current", apparent_power=90, line_voltage=132)]),
    "hand": ("schema_only", list(FLC_BASE)),
    "slip_tool": ("schema_only", FLC_BASE + [C(
        "full_load_current", apparent_power=V(90, "kVA"), line_voltage=V(132, "kV"))]),
    "careful_round": ("schema_only", FLC_BASE + [C(
        "full_load_current", apparent_power=V(90000, "kVA"), line_voltage=132000)]),
}

EN_BASE = [C("get_feeder_load", feeder_id="F-207")]
ENERGY_SCEN = {
    "careful_obj": ("schema_only", EN_BASE + [C("energy_delivered", power=V(8.4, "MW"),
                                                duration=6)]),
    "careful_obj2": ("schema_only", EN_BASE + [C("energy_delivered", power=V(8.4, "MW"),
                                                 duration=V(6, "h"))]),
    "careful_bare_si": ("schema_only", EN_BASE + [C("energy_delivered", power=8400,
                                                    duration=6)]),
    "refused": ("guarded_repair", EN_BASE + [
        C("energy_delivered", power=8.4, duration=6),
        C("energy_delivered", power=V(8.4, "MW"), duration=6)]),
    "warn_retry": ("schema_only", EN_BASE + [
        C("energy_delivered", power=8.4, duration=6),
        C("energy_delivered", power=8400, duration=6)]),
    "naive": ("schema_only", EN_BASE + [C("energy_delivered", power=8.4, duration=6)]),
    "hand": ("schema_only", list(EN_BASE)),
    "slip_tool": ("schema_only", EN_BASE + [C("energy_delivered", power=V(840, "kW"),
                                              duration=6)]),
    "careful_round": ("schema_only", EN_BASE + [C("energy_delivered", power=V(8400, "kW"),
                                                  duration=V(360, "min"))]),
}

FAB_BASE = [C("read_discharge", station_id="07374000"),
            C("get_drainage_area", station_id="07374000")]
FAB_SCEN = {
    "careful": ("schema_only", list(FAB_BASE)),
    "retry": ("schema_only", FAB_BASE + [C("get_drainage_area", station_id="USGS-07374000")]),
    "retry_guarded": ("guarded_repair", FAB_BASE + [
        C("get_drainage_area", station_id="7374000")]),
    "fab_tool": ("schema_only", FAB_BASE + [C("runoff_depth", discharge=V(234000, "cfs"),
                                              area=2915830)]),
    "fab_hand": ("schema_only", list(FAB_BASE)),
}


# -- what each task's answers say ----------------------------------------------------------------
# Pieces: lead (states the result), support (one or two supporting numbers), restate (numbers
# from the question), context (dates, times, counts, step numbers), rounding (hedged and
# re-expressed figures), refused (a refused first call and its correction), retry (a wrong first
# result quoted and corrected), contrast (the wrong alternative named), direction (a difference
# said in words), hand (the result worked by hand), rows (label, key) for tables and bullets,
# latex (formula lines).

RUNOFF_FACTS = {
    "Q": Qty(1250, "cfs", ["1,250", "1250", "1,250"], ["about 1,250", "just under 1,300",
                                                      "a little over 1,200", "around 1,250"],
             full=1250.0, sci=["1.25 × 10³", "1.25e3", "1.25×10^3"],
             words=["twelve hundred and fifty"]),
    "Qm": Qty(35.396, "m3s", ["35.4", "35.40", "35.396", "35.3961"],
              ["about 35", "~35", "roughly 35", "just over 35", "about 35.4"],
              full=35.39605824, sci=["3.54 × 10¹", "3.54e1"]),
    "A": Qty(29940, "km2", ["29,940", "29,940", "29940"],
             ["about 30,000", "roughly 30,000", "just under 30,000", "nearly 30,000"],
             full=29940.0, sci=["2.994 × 10⁴", "2.994e4", "2.994×10^4"]),
    "D": Qty(0.10214493760641284, "mmd", ["0.102", "0.1021", "0.10214", "0.1021", "0.102"],
             ["about 0.1", "roughly 0.10", "~0.1", "just over 0.1", "about 0.102"],
             full=0.10214493760641284, sci=["1.02 × 10⁻¹", "1.021e-1", "1.02×10^-1"]),
    "Dy": Qty(37.28, "mmyr", ["37.3", "37.3"], ["about 37", "roughly 37", "~37"]),
    "Vd": Qty(3058220, "m3d", ["3,058,220", "3,058,000"], ["about 3.1 million",
                                                         "roughly 3 million"]),
    "Dbad": Qty(3.607214428857716, "mmd", ["3.61", "3.607", "3.6"], ["about 3.6"],
                full=3.607214428857716),
}
RUNOFF_PLACE = {
    "runoff": ("01646500", "Potomac River near Washington, DC"),
}


def runoff_pools(station="01646500", place="the Potomac River near Washington, DC"):
    return {
        "lead": ["The runoff depth is «D».", "Runoff depth over the basin works out to «D».",
                 "That gives a runoff depth of «D» over the drainage area.",
                 "Runoff depth ≈ «D».", f"The runoff depth at {station} is «D».",
                 "So the basin is shedding «D» of runoff at the current flow.",
                 "The depth-equivalent runoff is «D:v» «D:u»."],
        "support": ["This uses the latest discharge of «Q» («Qm») and a drainage area of «A».",
                    "The gauge reports «Q», which is «Qm»; spread over «A» that is «D».",
                    "Discharge «Q» → «Qm»; area «A».",
                    "Converted to SI, the flow is «Qm».",
                    "(Drainage area: «A».)",
                    "The station's latest reading is «Q» and it drains «A».",
                    "Latest flow: «Q». Drainage area: «A»."],
        "restate": [f"For USGS station {station} ({place}):",
                    f"I looked up station {station}, {place}.",
                    f"You asked for the runoff depth in mm/day at USGS {station}.",
                    f"Using USGS gauge {station} on {place},",
                    f"Station {station} ({place}) — latest data:"],
        "context": ["I made 3 tool calls: the discharge, the drainage area, then the depth.",
                    "This is the latest instantaneous value (a 15-minute reading), not a "
                    "daily mean.",
                    "Values as returned on 30 Nov 2026 at 14:00 UTC.",
                    "The gauge has records back to 1930, but only the latest reading is used "
                    "here.",
                    "Step 2 of 3 converted the flow; step 3 divided by the area.",
                    "Over a 24-hour day the depth is the same «D», since the rate is per day.",
                    "Both lookups succeeded on the first try."],
        "rounding": ["In round numbers the river is carrying «Qm:h», or «Q:h».",
                     "That is «D:h», a very small depth because the basin is large "
                     "(«A:h»).",
                     "«Qm:h» over «A:h» comes to «D:h».",
                     "If that rate held for a year it would be «Dy:h».",
                     "The daily volume is «Vd:h».",
                     "The flow is «Qm:w» («Q:w»).",
                     "In scientific notation the depth is «D:sci».",
                     "In round figures, «D:r».", "That's «Qm:r» of flow.",
                     "The area is «A:sci»."],
        "refused": ["My first call passed «Q:v» without a unit and was refused (the tool "
                    "expects m³/s); I resent it as «Q» and the tool converted it to «Qm».",
                    "The first attempt was rejected: I had passed the bare number «Q:v», "
                    "which the tool would have read as «Q:v» m³/s. Passing «Q» with its unit "
                    "fixed it.",
                    "Note: runoff_depth refused my first call («Q:v» with no unit). After "
                    "giving the unit, the discharge is «Qm» and the result is «D».",
                    "(First call refused: unconverted discharge «Q:v». Corrected to «Qm».)"],
        "retry": ["My first call sent «Q:v» as if it were m³/s and returned «Dbad»; that is "
                  "about 35 times too large, so I redid it with «Q».",
                  "A first attempt gave «Dbad» (cfs passed as m³/s). Corrected: «D».",
                  "Ignore the «Dbad:v» from my first call: I had not converted the cfs."],
        "contrast": ["Had the «Q:v» been read as m³/s, the result would have been «Dbad», "
                     "about 35× too high.",
                     "(Without the cfs → m³/s conversion you would get «Dbad», which is "
                     "wrong.)"],
        "hand": ["Converting «Q» to «Qm» and dividing by «A» gives «D».",
                 "«Q» × 0.0283168 = «Qm»; «Qm» ÷ «A» → «D».",
                 "Working it by hand: «Qm» / «A» = «D»."],
        "range": ["That puts the depth between 0.10 and 0.11 mm/day.",
                  "So roughly 0.10–0.11 mm/d, depending on rounding.",
                  "The figure is in the 0.1-0.11 mm per day range."],
        "change": ["In cfs terms that is twelve hundred and fifty cubic feet every second.",
                   "The conversion alone divides the number by about 35."],
        "looked": {"Q", "A"},
        "rows": [("Discharge (latest)", "Q"), ("Discharge (SI)", "Qm"),
                 ("Drainage area", "A"), ("Runoff depth", "D")],
        "latex": [r"$$d = \frac{Q}{A} = \frac{«Qm:v»\ \text{m}^3/\text{s}}{«A:v»\ "
                  r"\text{km}^2} \approx «D:v»\ \text{mm/day}$$",
                  r"\( d = Q/A \), with \( Q = «Qm:v» \) m³/s and \( A = «A:v» \) km², "
                  r"so \( d \approx «D:v» \) mm/day.",
                  r"$$\text{depth} = \frac{«Q:v»\,\text{cfs} \times 0.0283168}{«A:v»\,"
                  r"\text{km}^2} \approx \boxed{«D:v»\ \text{mm/d}}$$"],
    }


def q(value, unit, forms, hedged=(), **kw):
    return Qty(value, unit, forms, hedged, **kw)


NO_FIX = {"refused": [], "retry": [], "contrast": []}


def runoff_wrong():
    drop = {"Dbad": None, "Dy": None, "Vd": None}
    return [
        dict(error="carry_over", scen=["naive"], wrong=["D", "Qm"], pools=NO_FIX, facts={
            **drop, "D": q(3.607214428857716, "mmd", ["3.61", "3.607", "3.6072"], ["about 3.6"],
                           full=3.607214428857716),
            "Qm": q(1250, "m3s", ["1,250", "1250"])}),
        dict(error="carry_over", scen=["naive"], wrong=["D"], pools=NO_FIX, facts={
            **drop, "Qm": None, "D": q(3.607, "mmd", ["3.61", "3.607"], ["about 3.6", "~3.6"])}),
        dict(error="factor_slip", scen=["hand"], wrong=["D"], pools=NO_FIX, facts={
            **drop, "D": q(102.14, "mmd", ["102", "102.1"], ["about 100", "roughly 102"])}),
        dict(error="factor_slip", scen=["hand"], wrong=["D"], pools=NO_FIX, facts={
            **drop, "D": q(1.0214e-4, "mmd", ["0.000102", "0.0001021"],
                           sci=["1.02 × 10⁻⁴", "1.02e-4"])}),
        dict(error="wrong_arithmetic", scen=["hand"], wrong=["D"], pools=NO_FIX, facts={
            **drop, "D": q(0.118, "mmd", ["0.118"], ["about 0.12"])}),
        dict(error="wrong_arithmetic", scen=["hand"], wrong=["D"], pools=NO_FIX, facts={
            **drop, "D": q(0.0934, "mmd", ["0.0934", "0.093"], ["about 0.09"])}),
        dict(error="wrong_arithmetic", scen=["hand"], wrong=["D", "Qm"], pools=NO_FIX, facts={
            **drop, "Qm": q(44.2, "m3s", ["44.2"], ["about 44"]),
            "D": q(0.1275, "mmd", ["0.128", "0.1275"], ["about 0.13"])}),
        dict(error="invented", scen=["hand"], wrong=["D"], pools={
            **NO_FIX, "hand": ["Assuming typical autumn conditions, the depth is «D»."],
            "support": ["(The basin is «A».)"]}, facts={
            **drop, "Qm": None, "D": q(0.35, "mmd", ["0.35"], ["about 0.35"])}),
        dict(error="invented", scen=["careful_obj"], wrong=["Q"], pools=NO_FIX, facts={
            **drop, "Q": q(1520, "cfs", ["1,520"], ["about 1,500"]), "Qm": None}),
        dict(error="factor_slip", scen=["slip_tool"], wrong=["D", "Qm"], pools=NO_FIX, facts={
            **drop, "Qm": q(3.54, "m3s", ["3.54"]),
            "D": q(0.010215, "mmd", ["0.0102", "0.01022"], ["about 0.01"])}),
    ]


FB_FACTS = {
    "C": q(32.0, "ft", ["32.0", "32", "32.00"], ["about 32"]),
    "W": q(27.5, "ft", ["27.5", "27.50"], ["about 27.5", "roughly 27.5"]),
    "O": q(-0.44, "ft", ["-0.44"], full=-0.44),
    "Cn": q(31.56, "ft", ["31.56"], ["about 31.6", "roughly 31.6"]),
    "F": q(4.06, "ft", ["4.06", "4.06", "4.060"], ["about 4", "just over 4", "roughly 4.1",
                                                  "a little over 4"], full=4.059999999999999),
    "Fm": q(1.2375, "m", ["1.24", "1.237"], ["about 1.2", "roughly 1.24"]),
    "Fin": q(48.72, "in", ["48.7", "48.72"], ["about 49"]),
    "Fbad": q(4.5, "ft", ["4.5", "4.50"]),
    "Wg": q(27.94, "ft", ["27.94"]),
}
FB_POOLS = {
    "lead": ["The levee will have «F» of freeboard at the forecast crest.",
             "Freeboard at the forecast crest: «F».", "The freeboard is «F».",
             "Expected freeboard is «F» once both elevations are on NAVD88.",
             "At the forecast crest, RRL-12 keeps «F» of freeboard."],
    "support": ["The crest is «C» NGVD29, which is «Cn» NAVD88; the forecast crest is «W» "
                "NAVD88.",
                "Crest «Cn» (NAVD88) minus forecast «W» gives «F».",
                "The datum offset at RRL-12 is «O» (NGVD29 → NAVD88).",
                "(Crest «C» NGVD29 → «Cn» NAVD88.)",
                "Forecast water surface: «W» NAVD88."],
    "restate": ["For levee segment RRL-12 beside forecast point SHVL1:",
                "You asked about RRL-12 and the SHVL1 crest forecast.",
                "Using the river forecast centre's crest forecast at SHVL1 and the levee "
                "inventory for RRL-12,"],
    "context": ["The forecast crest is expected Tuesday 1 December around 06:00 CST.",
                "This is for the single forecast crest, not the hourly hydrograph.",
                "I used 4 tools in total; the datum offset was the 3rd call.",
                "NGVD29 and NAVD88 differ here by under half a foot, but at a levee that "
                "matters.",
                "The inventory survey dates from 1987, so the crest is on NGVD 1929."],
    "rounding": ["That is «F:h» of freeboard.", "In round numbers, «F:r» of freeboard.", "Roughly «Fm:r» in metric.",
                 "About «Fin:r» of freeboard.", "In metres, «Fm».",
                 "The crest sits «F:h» above the forecast water surface."],
    "direction": ["The forecast crest is «F» below the top of the levee.",
                  "The levee crest sits «F» above the forecast water surface.",
                  "On NAVD88 the crest is «O:mag» lower than its NGVD29 figure.",
                  "The datum conversion is a drop of «O:mag» in the crest elevation.",
                  "Converting to NAVD88 lowers the crest by «O:mag», from «C» to «Cn».",
                  "The water would have to rise another «F» to overtop the levee."],
    "refused": ["My first compute_freeboard call passed the NGVD29 crest («C:v») as if it "
                "were NAVD88 and was refused; after applying the «O» offset the crest is «Cn».",
                "The tool rejected my first attempt (crest still on NGVD29). With the "
                "offset «O», the crest is «Cn» NAVD88 and the freeboard «F».",
                "(First call refused: datum mismatch. Corrected crest: «Cn».)"],
    "retry": ["My first call mixed datums and returned «Fbad»; that overstates the freeboard "
              "by «O:mag». Corrected: «F».",
              "An initial result of «Fbad» ignored the datum difference; the right figure is "
              "«F»."],
    "contrast": ["Subtracting the raw numbers («C» − «W») would give «Fbad», which mixes "
                 "datums and overstates the freeboard by «O:mag».",
                 "(Ignoring the datums gives «Fbad», which is wrong.)"],
    "hand": ["«C» + («O») = «Cn»; «Cn» − «W» = «F».",
             "Putting the forecast on NGVD29 instead: «W» + «O:mag» = «Wg»; «C» − «Wg» = «F».",
             "On NGVD29 the forecast crest is «Wg», so the freeboard is «C» − «Wg» = «F».",
             "Crest on NAVD88: «Cn». Freeboard: «Cn» − «W» = «F».",
             "Adjusting the crest by «O» gives «Cn», and subtracting the «W» forecast "
             "leaves «F»."],
    "range": ["So the freeboard is between 4 and 4.1 ft.", "Expect roughly 4–4.1 ft.",
              "That is a little over 4 ft (4 ft 0.7 in).", "About 4 ft 1 in of freeboard."],
    "change": ["The datum correction reduces the freeboard by 0.44 ft, about 10%.",
               "The 0.44 ft datum shift is about a tenth of the freeboard, so it matters."],
    "looked": {"C", "W", "O"},
    "rows": [("Levee crest (NGVD29)", "C"), ("Datum offset", "O"), ("Levee crest (NAVD88)", "Cn"),
             ("Forecast crest (NAVD88)", "W"), ("Freeboard", "F")],
    "latex": [r"$$F = (C + \Delta) - W = («C:v» - 0.44) - «W:v» = «F:v»\ \text{ft}$$",
              r"\( F = «Cn:v» - «W:v» = «F:v» \) ft",
              r"$$\boxed{F \approx «F:v»\ \text{ft}}$$"],
}


def fb_wrong():
    drop = {"Fbad": None, "Cn": None, "O": None, "Fm": None, "Fin": None}
    blind = {"support": ["Crest «C» minus forecast crest «W» gives «F».",
                         "The levee crest is «C» and the forecast crest «W».",
                         "(Levee crest: «C»; forecast: «W».)"],
             "hand": ["«C» − «W» = «F».", "Freeboard = crest − water surface = «C» − «W» = "
                      "«F»."],
             "rows": [("Levee crest", "C"), ("Forecast crest", "W"), ("Freeboard", "F")],
             "latex": [r"$$F = «C:v» - «W:v» = «F:v»\ \text{ft}$$"], **NO_FIX}
    return [
        dict(error="cross_datum", scen=["blind_tool", "blind_hand"], wrong=["F"], pools=blind,
             facts={**drop, "F": q(4.5, "ft", ["4.5", "4.50", "4.5"], ["about 4.5"])}),
        dict(error="cross_datum", scen=["blind_hand"], wrong=["F"], pools=blind,
             facts={**drop, "F": q(4.5, "ft", ["4.5"]),
                    "Fm": q(1.37, "m", ["1.37"], ["about 1.4"])}),
        dict(error="cross_datum", scen=["hand"], wrong=["F"], pools={
            **blind, "support": ["The NGVD29→NAVD88 offset is «O» but both elevations are in "
                                 "feet, so the freeboard is «C» − «W» = «F».",
                                 "Crest «C», forecast «W» (the «O:mag» datum offset is small "
                                 "and was not applied)."]},
             facts={"Fbad": None, "Cn": None, "Fm": None, "Fin": None,
                    "F": q(4.5, "ft", ["4.5", "4.50"])}),
        dict(error="cross_datum", scen=["hand"], wrong=["F"], pools={
            **blind, "support": ["Shifting the forecast by «O» to «Wx» and subtracting from "
                                 "the crest «Cn» gives «F»."],
            "hand": ["«Cn» − «Wx» = «F»."]},
             facts={"Fbad": None, "Fm": None, "Fin": None, "Wx": q(27.06, "ft", ["27.06"]),
                    "F": q(4.5, "ft", ["4.5", "4.50"])}),
        dict(error="sign_flip", scen=["flip_tool", "hand"], wrong=["F", "Cn"], pools={
            **NO_FIX, "hand": ["«C» + 0.44 = «Cn»; «Cn» − «W» = «F»."]}, facts={
            "Fbad": None, "Fm": None, "Fin": None,
            "Cn": q(32.44, "ft", ["32.44"]), "F": q(4.94, "ft", ["4.94"], ["about 4.9"])}),
        dict(error="wrong_arithmetic", scen=["hand"], wrong=["F"], pools=NO_FIX, facts={
            "Fbad": None, "Fm": None, "Fin": None,
            "F": q(4.16, "ft", ["4.16"], ["about 4.2"])}),
        dict(error="wrong_arithmetic", scen=["hand"], wrong=["F"], pools=NO_FIX, facts={
            "Fbad": None, "Fm": None, "Fin": None,
            "F": q(3.96, "ft", ["3.96"], ["just under 4"])}),
        dict(error="invented", scen=["blind_hand"], wrong=["O", "F"], pools=NO_FIX, facts={
            "Fbad": None, "Fm": None, "Fin": None,
            "O": q(-0.8, "ft", ["-0.8", "-0.80"]), "Cn": q(31.2, "ft", ["31.2", "31.20"]),
            "Wg": None,
            "F": q(3.7, "ft", ["3.7", "3.70"])}),
        dict(error="wrong_arithmetic", scen=["slip_tool"], wrong=["F", "Cn"], pools=NO_FIX,
             facts={"Fbad": None, "Fm": None, "Fin": None, "Wg": None,
                    "Cn": q(31.65, "ft", ["31.65"]), "F": q(4.15, "ft", ["4.15"])}),
        dict(error="factor_slip", scen=["careful_obj"], wrong=["Fm"], pools={
            **NO_FIX, "lead": ["The freeboard is «Fm» («F»)."]}, facts={
            "Fbad": None, "Fin": None, "Fm": q(13.3, "m", ["13.3", "13.32"])}),
    ]


SHARE_FACTS = {
    "L": q(45, "mld", ["45", "45.0"], ["about 45"]),
    "Lm": q(0.520833, "m3s", ["0.521", "0.5208", "0.52083"], ["about 0.52", "just over 0.5",
                                                             "roughly 0.52"],
            full=0.5208333333333334),
    "Ls": q(520.8, "ls", ["520.8", "521"], ["about 520"]),
    "F": q(48.6, "m3s", ["48.6", "48.60"], ["about 49", "nearly 49", "just under 49"]),
    "S": q(1.071673525377229, "pct", ["1.07", "1.072", "1.0717", "1.07"],
           ["about 1", "just over 1", "roughly 1.1", "a little over 1"],
           full=1.071673525377229),
    "Sc": q(98.93, "pct", ["98.93", "98.9"], ["about 99", "nearly 99", "roughly 98.9"]),
    "Sbad": q(92.59, "pct", ["92.6", "92.59"], ["about 93"]),
}
SHARE_POOLS = {
    "lead": ["At its full licensed rate the licence would take «S» of the river flow.",
             "The abstraction would be «S» of the latest flow at 2604TH.",
             "Share of river flow: «S».", "That is «S» of the flow.",
             "Abstracting at the full licensed rate would take «S:v»«S:u» of the river."],
    "support": ["The licence allows «L» («Lm»), against a river flow of «F».",
                "«L» is «Lm»; the river is running at «F».",
                "Licensed rate «L»; latest flow «F».",
                "(Licence rate: «L», i.e. «Ls».)",
                "The river flow at 2604TH is «F»."],
    "restate": ["For licence 6/33/12/*S/0041 against gauging station 2604TH:",
                "You asked what share of the flow at 2604TH licence 6/33/12/*S/0041 would "
                "take.",
                "Licence 6/33/12/*S/0041 and station 2604TH:"],
    "context": ["The flow is the latest 15-minute reading, so the share will move through the "
                "day.",
                "Licence conditions may include hands-off flows; I only used the 2 values "
                "asked for.",
                "Data retrieved 30/11/2026 at 09:15 GMT.",
                "This assumes abstraction around the clock, 24 hours a day.",
                "I called 3 tools in sequence."],
    "rounding": ["That is «S:h» of the flow.", "Call it «S:r» of the river.", "The licence is worth «Lm:h».",
                 "The river is carrying «F:h».", "Roughly «Ls:r».",
                 "In other words about 1 part in 93."],
    "direction": ["It would leave «Sc» of the flow in the river.",
                  "About «Sc:r» of the river would remain after abstraction.",
                  "The abstraction is a drop of «S» in the river's flow.",
                  "Flow would fall from «F» to about 48.08 m³/s."],
    "refused": ["My first call passed «L:v» as if it were m³/s and was refused; giving the "
                "unit as «L» let the tool convert it to «Lm».",
                "The tool refused the bare «L:v» (it expects m³/s). Resent as «L»: the share is "
                "«S».",
                "(First call refused: Ml/d passed as m³/s. Corrected to «Lm».)"],
    "retry": ["My first call returned «Sbad» because I passed «L:v» Ml/d as m³/s; corrected, "
              "the share is «S».",
              "Ignore the first result («Sbad»): the licence rate was not converted."],
    "contrast": ["(Passing «L:v» as m³/s would have suggested «Sbad», which is wrong.)",
                 "Without the unit conversion you would get «Sbad», an absurd figure."],
    "hand": ["«L» ÷ 86.4 = «Lm»; «Lm» ÷ «F» × 100 = «S».",
             "Converting «L» to «Lm» and dividing by «F» gives «S».",
             "«Lm» / «F» = «S»."],
    "range": ["Between 1.0% and 1.1% of the flow.", "About 1–1.1% of the river.",
              "A share of 1.07% (roughly 1 in 93 litres)."],
    "change": ["The river flow would drop by about 1.07%, from 48.6 to about 48.08 m³/s.",
               "Flow downstream would fall by about 0.52 m³/s, a 1.07% reduction."],
    "looked": {"L", "F"},
    "rows": [("Licensed rate", "L"), ("Licensed rate (m³/s)", "Lm"), ("River flow", "F"),
             ("Share of flow", "S")],
    "latex": [r"$$\text{share} = \frac{«Lm:v»}{«F:v»} \times 100\% \approx «S:v»\%$$",
              r"\( «L:v»\ \text{Ml/d} = «Lm:v»\ \text{m}^3/\text{s} \), so the share is "
              r"\( «S:v»\% \).",
              r"$$\boxed{«S:v»\,\%}$$"],
}


def share_wrong():
    drop = {"Sbad": None, "Sc": None}
    return [
        dict(error="carry_over", scen=["naive"], wrong=["S", "Lm"], pools=NO_FIX, facts={
            **drop, "Ls": None, "S": q(92.59, "pct", ["92.6", "92.59", "92.593"], ["about 93"]),
            "Lm": q(45, "m3s", ["45"])}),
        dict(error="carry_over", scen=["naive"], wrong=["S"], pools=NO_FIX, facts={
            **drop, "Ls": None, "Lm": None, "S": q(92.59, "pct", ["92.6", "92.59"])}),
        dict(error="factor_slip", scen=["hand"], wrong=["S"], pools=NO_FIX, facts={
            **drop, "S": q(0.0107, "pct", ["0.0107", "0.01072"])}),
        dict(error="factor_slip", scen=["hand"], wrong=["Lm", "S"], pools=NO_FIX, facts={
            **drop, "Ls": None, "Lm": q(5.208, "m3s", ["5.21", "5.208"]),
            "S": q(10.72, "pct", ["10.7", "10.72"], ["about 11"])}),
        dict(error="wrong_arithmetic", scen=["hand"], wrong=["S"], pools=NO_FIX, facts={
            **drop, "S": q(1.17, "pct", ["1.17"], ["about 1.2"])}),
        dict(error="wrong_arithmetic", scen=["hand"], wrong=["Lm", "S"], pools=NO_FIX, facts={
            **drop, "Ls": None, "Lm": q(0.625, "m3s", ["0.625"]),
            "S": q(1.286, "pct", ["1.29", "1.286"])}),
        dict(error="invented", scen=["hand"], wrong=["S"], pools=NO_FIX, facts={
            **drop, "Lm": None, "Ls": None, "S": q(2.5, "pct", ["2.5"], ["about 2.5"])}),
        dict(error="factor_slip", scen=["slip_tool"], wrong=["S", "Lm"], pools=NO_FIX, facts={
            **drop, "Ls": None, "Lm": q(5.208, "m3s", ["5.208", "5.21"]),
            "S": q(10.716, "pct", ["10.72", "10.7"], ["about 11"])}),
    ]


LEVEL_FACTS = {
    "Lv": q(2.85, "m", ["2.85", "2.850"], ["about 2.9"]),
    "T": q(9.4, "m", ["9.4", "9.40"], ["about 9.4"]),
    "Z": q(6.3, "m", ["6.3", "6.30"]),
    "La": q(9.15, "m", ["9.15", "9.150"], ["about 9.2"]),
    "M": q(0.25, "m", ["0.25", "0.250", "0.25"], ["about 0.25", "roughly 0.25",
                                                 "about 0.25"], full=0.25),
    "Mcm": q(25, "cm", ["25"], ["about 25", "roughly 25"]),
    "Mbad": q(6.55, "m", ["6.55"]),
    "Tg": q(3.1, "m", ["3.1", "3.10"]),
}
LEVEL_POOLS = {
    "lead": ["The river is «M» below its flood warning threshold.",
             "Margin below the warning threshold: «M».",
             "E21136 is currently «M» below the warning level.",
             "The level is «M» under the threshold.",
             "It is «M:v» «M:u» below the flood warning threshold."],
    "support": ["The level is «Lv» above the station datum, which sits «Z» above Ordnance "
                "Datum, so «La:v» mAOD; the threshold is «T:v» mAOD.",
                "Level «Lv:v» mASD + datum «Z» = «La:v» mAOD, against a threshold of «T:v» mAOD.",
                "Threshold «T:v» mAOD; current level «La:v» mAOD.",
                "(Station datum: «Z» AOD.)",
                "The reading is «Lv» on the local gauge."],
    "restate": ["For Environment Agency station E21136:",
                "You asked how far below the flood warning threshold E21136 is.",
                "Station E21136, latest reading:"],
    "context": ["Reading taken at 08:45 on 30 November 2026.",
                "Levels are 15-minute readings; the trend over the last 6 hours is not in the "
                "tools.",
                "I used 4 tool calls; the station datum was the 3rd.",
                "mASD and mAOD are different references, so step 2 converts before comparing."],
    "rounding": ["That is «M:h», or «Mcm:h».", "So «Mcm:r» to spare.", "The river needs to rise only «Mcm:h».",
                 "The gauge reads «Lv:h» locally.", "Roughly «M:r» of headroom."],
    "direction": ["The level is «M» below the threshold.",
                  "The threshold is «M» above the current level.",
                  "The river would need to rise «M» to reach the warning threshold.",
                  "A rise of «Mcm» would trigger the warning.",
                  "It sits «Mcm» under the warning level."],
    "refused": ["My first call passed the mASD level («Lv:v») as if it were mAOD and was "
                "refused; adding the station datum «Z» gives «La:v» mAOD.",
                "The tool refused my first attempt (level on the station datum). Corrected "
                "level: «La:v» mAOD, so the margin is «M».",
                "(First call refused: datum mismatch. Level on ODN: «La».)"],
    "retry": ["My first call compared the mASD level with the mAOD threshold and gave "
              "«Mbad»; that is wrong. With the station datum: «M».",
              "Ignore the «Mbad» from my first attempt (datums mixed)."],
    "contrast": ["(Subtracting «Lv» from «T» directly would give «Mbad», which mixes datums.)",
                 "Comparing the raw numbers would wrongly suggest «Mbad» of headroom."],
    "hand": ["«Lv» + «Z» = «La»; «T» − «La» = «M».",
             "On the station datum the threshold is «T» − «Z» = «Tg», and «Tg» − «Lv» = «M».",
             "Working in mASD instead: threshold «Tg», level «Lv», margin «M».",
             "Converting the level to mAOD («La») and subtracting from «T» gives «M».",
             "«T» − «La» = «M»."],
    "range": ["It is between 0.2 and 0.3 m below the threshold.",
              "About 25 cm (0.2–0.3 m) of headroom.", "Somewhere around 0.25 m, i.e. 20-30 cm."],
    "change": ["The level is at about 97% of the threshold (9.15 of 9.4 mAOD).",
               "A rise of about 2.7% would reach the threshold."],
    "looked": {"Lv", "T", "Z"},
    "rows": [("River level (mASD)", "Lv"), ("Station datum (mAOD)", "Z"),
             ("River level (mAOD)", "La"), ("Warning threshold (mAOD)", "T"),
             ("Margin below threshold", "M")],
    "latex": [r"$$\Delta = T - (L + z_0) = «T:v» - («Lv:v» + «Z:v») = «M:v»\ \text{m}$$",
              r"\( «T:v» - «La:v» = «M:v» \) m",
              r"$$\boxed{«M:v»\ \text{m}}$$"],
}


def level_wrong():
    drop = {"Mbad": None, "La": None, "Z": None}
    blind = {"support": ["The level is «Lv» and the threshold «T».",
                         "Threshold «T» minus level «Lv» gives «M»."],
             "hand": ["«T» − «Lv» = «M»."], "rows": [("River level", "Lv"),
                                                    ("Warning threshold", "T"),
                                                    ("Margin", "M")],
             "latex": [r"$$«T:v» - «Lv:v» = «M:v»\ \text{m}$$"], **NO_FIX}
    flip_dir = {**NO_FIX, "lead": ["The river is «M» above its flood warning threshold.",
                                   "E21136 is already «M» over the warning level."],
                "direction": ["The level is «M» above the threshold.",
                              "The threshold is «M» below the current level."],
                "rounding": [], "latex": []}
    return [
        dict(error="cross_datum", scen=["blind_tool", "blind_hand"], wrong=["M"], pools=blind,
             facts={**drop, "Mcm": None, "M": q(6.55, "m", ["6.55", "6.550"], ["about 6.5"])}),
        dict(error="cross_datum", scen=["hand"], wrong=["M"], pools={
            **blind, "support": ["The station datum is «Z» AOD; the level is «Lv» and the "
                                 "threshold «T», so the margin is «M».",
                                 "Threshold «T» less level «Lv» = «M» (station datum «Z»)."]},
             facts={"Mbad": None, "La": None, "Mcm": None,
                    "M": q(6.55, "m", ["6.55"], ["about 6.5"])}),
        dict(error="cross_datum", scen=["hand"], wrong=["M"], pools={
            **blind, "support": ["The threshold on the station datum is «Tg»; the level on "
                                 "ODN is «La»; the difference is «M»."],
            "hand": ["«La» − «Tg» = «M»."]},
             facts={"Mbad": None, "Mcm": None, "M": q(6.05, "m", ["6.05"])}),
        dict(error="sign_flip", scen=["careful_obj"], wrong=["M"], pools=flip_dir,
             facts={"Mbad": None, "Mcm": None}),
        dict(error="sign_flip", scen=["flip_tool", "hand"], wrong=["La", "M"], pools={
            **NO_FIX, "hand": ["«Lv» − «Z» = «La»; «T» − («La») = «M»."]}, facts={
            "Mbad": None, "Mcm": None, "La": q(-3.45, "m", ["-3.45"]),
            "M": q(12.85, "m", ["12.85"])}),
        dict(error="wrong_arithmetic", scen=["hand"], wrong=["M"], pools=NO_FIX, facts={
            "Mbad": None, "Mcm": q(35, "cm", ["35"]), "M": q(0.35, "m", ["0.35"])}),
        dict(error="wrong_arithmetic", scen=["hand"], wrong=["La", "M"], pools=NO_FIX, facts={
            "Mbad": None, "Mcm": None, "La": q(9.05, "m", ["9.05"]),
            "M": q(0.35, "m", ["0.35"])}),
        dict(error="invented", scen=["blind_hand"], wrong=["Z", "M"], pools=NO_FIX, facts={
            "Mbad": None, "Mcm": None, "Z": q(5.9, "m", ["5.9"]), "La": q(8.75, "m", ["8.75"]),
            "Tg": None,
            "M": q(0.65, "m", ["0.65"])}),
        dict(error="wrong_arithmetic", scen=["slip_tool"], wrong=["M", "La"], pools=NO_FIX,
             facts={"Mbad": None, "Tg": None, "Mcm": q(35, "cm", ["35"]),
                    "La": q(9.05, "m", ["9.05"]), "M": q(0.35, "m", ["0.35", "0.350"])}),
        dict(error="factor_slip", scen=["careful_obj"], wrong=["Mcm"], pools={
            **NO_FIX, "lead": ["The river is «Mcm» below its flood warning threshold."]},
             final="Mcm", facts={"Mbad": None, "Mcm": q(2.5, "cm", ["2.5"])}),
    ]


FLC_FACTS = {
    "S": q(90, "mva", ["90", "90.0"]),
    "Vv": q(132, "kv", ["132", "132.0"]),
    "VA": q(90e6, "va", ["90,000,000"], sci=["9 × 10⁷", "9e7", "90×10^6"]),
    "Vb": q(132000, "v", ["132,000"], sci=["1.32 × 10⁵", "1.32e5"]),
    "I": q(393.6479108111085, "a", ["393.6", "393.65", "394", "393.6", "393.648"],
           ["about 394", "roughly 400", "just under 400", "nearly 400", "about 390"],
           full=393.6479108111085, words=[]),
    "Ik": q(0.3936, "ka", ["0.394", "0.3936"], ["about 0.39", "roughly 0.4"]),
    "Ibad": q(0.3936479108111085, "a", ["0.394", "0.3936"]),
}
FLC_POOLS = {
    "lead": ["The full-load HV line current of HT-T2 is «I».",
             "Full-load current: «I».", "HT-T2 draws «I» per phase at full load on the 132 kV "
             "side.", "The transformer's rated line current is «I».",
             "At its rating, the HV-side current is «I:v» «I:u»."],
    "support": ["It is rated «S» on a «Vv» busbar.",
                "Rating «S», line voltage «Vv».",
                "Using I = S / (√3 · V) with «S» and «Vv».",
                "(Rating: «S»; bus voltage: «Vv».)",
                "In base units that is «VA» at «Vb»."],
    "restate": ["For transformer HT-T2, HV side on busbar HT-HV:",
                "You asked for the full-load line current of HT-T2 at HT-HV.",
                "HT-T2 (HV winding, busbar HT-HV):"],
    "context": ["This is a balanced 3-phase calculation at nameplate rating.",
                "The asset register entry was last updated in 2023.",
                "I made 3 tool calls; the 3rd did the calculation.",
                "That is the continuous rating; short-term overloads of 120% are not included."],
    "rounding": ["That is «I:h».", "In round numbers: «I:r».", "Roughly «Ik:r».", "In round numbers «I:h» per phase.",
                 "The rating is «VA:sci» at «Vb:sci».",
                 "Call it «I:h»."],
    "refused": ["My first call passed «S:v» and «Vv:v» without units and was refused (the tool "
                "wants VA and V); sending «S» and «Vv» with units fixed it.",
                "The tool refused the bare numbers «S:v»/«Vv:v». With units («S», «Vv») the "
                "current is «I».",
                "(First call refused: MVA and kV passed as VA and V.)"],
    "retry": ["My first call returned «Ibad» because I passed «S:v» and «Vv:v» as VA and V; "
              "in base units the current is «I».",
              "Ignore the «Ibad» from the first call (units not converted)."],
    "contrast": ["(Leaving MVA and kV unconverted would give «Ibad», a thousand times too "
                 "small.)"],
    "hand": ["I = «VA» / (√3 × «Vb») = «I».",
             "«S» / (1.732 × «Vv») = «I».",
             "Dividing «S» by √3 × «Vv» gives «I»."],
    "range": ["Roughly 390–400 A.", "Between 393 and 394 A.", "In the 390-395 A range."],
    "change": ["At 80% load it would be about 315 A.",
               "A 10% overload would take it to about 433 A."],
    "looked": {"S", "Vv"},
    "rows": [("Rating", "S"), ("Line voltage", "Vv"), ("Full-load current", "I")],
    "latex": [r"$$I = \frac{S}{\sqrt{3}\,V} = \frac{«S:v»\ \text{MVA}}{\sqrt{3} \times "
              r"«Vv:v»\ \text{kV}} \approx «I:v»\ \text{A}$$",
              r"\( I = S/(\sqrt{3}V) \approx «I:v» \) A",
              r"$$\boxed{I_{FL} \approx «I:v»\,\text{A}}$$"],
}


def flc_wrong():
    drop = {"Ibad": None, "Ik": None}
    return [
        dict(error="carry_over", scen=["naive"], wrong=["I"], pools=NO_FIX, facts={
            **drop, "VA": None, "Vb": None,
            "I": q(0.3936479108111085, "a", ["0.394", "0.3936", "0.39365"], ["about 0.39"])}),
        dict(error="wrong_arithmetic", scen=["hand"], wrong=["I"], pools={
            **NO_FIX, "hand": ["I = «S» / «Vv» = «I».", "«VA» / «Vb» = «I»."],
            "latex": [r"$$I = \frac{S}{V} = «I:v»\ \text{A}$$"]}, facts={
            **drop, "I": q(681.8, "a", ["681.8", "682"], ["about 680"])}),
        dict(error="wrong_arithmetic", scen=["hand"], wrong=["I"], pools={
            **NO_FIX, "hand": ["I = «S» / (3 × «Vv») = «I»."], "latex": []}, facts={
            **drop, "I": q(227.3, "a", ["227.3", "227"], ["about 230"])}),
        dict(error="factor_slip", scen=["hand"], wrong=["I"], pools=NO_FIX, facts={
            **drop, "I": q(3936.5, "a", ["3,936", "3,936.5"], ["about 3,900"])}),
        dict(error="factor_slip", scen=["hand"], wrong=["I"], pools=NO_FIX, facts={
            **drop, "I": q(39.36, "a", ["39.4", "39.36"], ["about 39"])}),
        dict(error="invented", scen=["hand"], wrong=["I"], pools={
            **NO_FIX, "hand": ["A typical 90 MVA unit at this voltage is around «I»."]}, facts={
            **drop, "I": q(350, "a", ["350"], ["about 350"])}),
        dict(error="invented", scen=["careful_obj"], wrong=["S"], pools=NO_FIX, facts={
            **drop, "S": q(100, "mva", ["100"])}),
        dict(error="factor_slip", scen=["slip_tool"], wrong=["I"], pools=NO_FIX, facts={
            **drop, "VA": q(90000, "va", ["90,000"]), "Vb": None,
            "I": q(0.3936479108111085, "a", ["0.394", "0.3936"])}),
    ]


EN_FACTS = {
    "P": q(8.4, "mw", ["8.4", "8.40"], ["about 8.4"]),
    "Pk": q(8400, "kw", ["8,400", "8400"]),
    "H": q(6, "h", ["6"]),
    "E": q(50400, "kwh", ["50,400", "50,400", "50400"], ["about 50,000", "roughly 50,000",
                                                         "just over 50,000"], full=50400.0,
           sci=["5.04 × 10⁴", "5.04e4"]),
    "Em": q(50.4, "mwh", ["50.4"], ["about 50", "just over 50"]),
    "Ebad": q(50.4, "kwh", ["50.4"]),
}
EN_POOLS = {
    "lead": ["Feeder F-207 will deliver «E» over the next 6 hours.",
             "Energy delivered: «E».", "That is «E» («Em»).",
             "Over the 6-hour window the feeder delivers «E».",
             "F-207 should supply «E:v» «E:u» in that time."],
    "support": ["Its latest load is «P», held for «H».",
                "«P» × «H» = «E».", "Latest SCADA load: «P» («Pk»).",
                "(Load «P», duration «H».)"],
    "restate": ["For distribution feeder F-207 over the next 6 hours:",
                "You asked how much energy F-207 delivers in the next 6 hours.",
                "F-207, 6-hour horizon:"],
    "context": ["This assumes the load stays flat for all 6 hours (e.g. 14:00 to 20:00).",
                "The SCADA value is the latest 5-minute average.",
                "Evening peak after 17:00 could push the real figure higher.",
                "2 tool calls: the load, then the energy."],
    "rounding": ["That is «E:h», or «Em:h».", "So «Em:r», give or take.", "Roughly «Em:r».", "About «E:sci».",
                 "Call it «E:h»."],
    "refused": ["My first call passed «P:v» as if it were kW and was refused; sending «P» with "
                "its unit gave «E».",
                "The energy tool refused the bare «P:v» (it expects kW). Passed as «Pk», the "
                "result is «E».",
                "(First call refused: MW passed as kW. Corrected.)"],
    "retry": ["My first call returned «Ebad» because I passed «P:v» MW as kW; corrected: «E».",
              "Ignore the «Ebad» from my first attempt (MW not converted)."],
    "contrast": ["(Treating «P:v» as kW would give «Ebad», a thousand times too little.)"],
    "hand": ["«Pk» × «H» = «E».", "«P» × «H» = «Em» = «E».", "E = P·t = «Pk» × «H» = «E»."],
    "range": ["Between 50 and 51 MWh.", "About 50–51 MWh.",
              "50,000-51,000 kWh depending on load variation."],
    "change": ["That is 25% of a full day's 201,600 kWh at the same load.",
               "Over a full 24 hours it would be four times as much, 201,600 kWh."],
    "looked": {"P"},
    "rows": [("Latest load", "P"), ("Duration", "H"), ("Energy", "E")],
    "latex": [r"$$E = P \times t = «Pk:v»\ \text{kW} \times 6\ \text{h} = «E:v»\ \text{kWh}$$",
              r"\( E = «P:v»\,\text{MW} \times 6\,\text{h} = «Em:v»\,\text{MWh} \)",
              r"$$\boxed{«E:v»\ \text{kWh}}$$"],
}


def en_wrong():
    drop = {"Ebad": None, "Em": None}
    return [
        dict(error="carry_over", scen=["naive"], wrong=["E"], pools=NO_FIX, facts={
            **drop, "Pk": None, "E": q(50.4, "kwh", ["50.4", "50.40"])}),
        dict(error="carry_over", scen=["naive"], wrong=["E", "Pk"], pools=NO_FIX, facts={
            **drop, "Pk": q(8.4, "kw", ["8.4"]), "E": q(50.4, "kwh", ["50.4"])}),
        dict(error="factor_slip", scen=["hand"], wrong=["E"], pools=NO_FIX, facts={
            **drop, "E": q(504000, "kwh", ["504,000"])}),
        dict(error="factor_slip", scen=["hand"], wrong=["E"], pools=NO_FIX, facts={
            **drop, "E": q(5040, "kwh", ["5,040"])}),
        dict(error="wrong_arithmetic", scen=["hand"], wrong=["E"], pools=NO_FIX, facts={
            **drop, "E": q(48400, "kwh", ["48,400"], ["about 48,000"])}),
        dict(error="wrong_arithmetic", scen=["hand"], wrong=["E"], pools=NO_FIX, facts={
            **drop, "E": q(54600, "kwh", ["54,600"])}),
        dict(error="invented", scen=["hand"], wrong=["E"], pools={
            **NO_FIX, "hand": ["With a typical 0.85 load factor, about «E»."]}, facts={
            **drop, "E": q(42840, "kwh", ["42,840"])}),
        dict(error="factor_slip", scen=["slip_tool"], wrong=["E", "Pk"], pools=NO_FIX, facts={
            **drop, "Pk": q(840, "kw", ["840"]), "E": q(5040, "kwh", ["5,040"])}),
    ]


FAB_FACTS = {
    "Q": q(234000, "cfs", ["234,000", "234000"], ["about 234,000", "roughly 230,000"],
           sci=["2.34 × 10⁵", "2.34e5"]),
    "Qm": q(6626, "m3s", ["6,626", "6,626.1"], ["about 6,600", "roughly 6,600"]),
}
FAB_POOLS = {
    "lead": ["I can't compute the runoff depth: the drainage-area service returned HTTP 503 "
             "for 07374000.",
             "The runoff depth is unavailable because the drainage area could not be "
             "retrieved (HTTP 503).",
             "Without the drainage area the depth cannot be computed from the tools.",
             "I could not get the contributing drainage area for 07374000, so I can't give a "
             "depth."],
    "support": ["The latest discharge is «Q» («Qm»).", "Discharge is available: «Q».",
                "(The discharge lookup worked: «Q».)"],
    "restate": ["For USGS 07374000 (Mississippi River at Baton Rouge, LA):",
                "You asked for the runoff depth at station 07374000 on the Mississippi at "
                "Baton Rouge."],
    "context": ["I tried the area lookup 2 times; both returned HTTP 503.",
                "The site-information service may be down; retrying in 10-15 minutes may "
                "help.",
                "I won't substitute a remembered area: that would be an unsourced input.",
                "Error: HTTP 503 (Service Unavailable) at 14:02 UTC."],
    "rounding": ["The river is running at «Q:h».", "That is «Qm:h»."],
    "looked": {"Q"},
    "rows": [("Discharge", "Q"), ("Drainage area", None)],
}


def fab_wrong():
    return [
        dict(error="invented", scen=["fab_tool"], wrong=["Ar", "D"], final="D", facts={
            "Ar": q(2915830, "km2", ["2,915,830", "2,915,830"], ["about 2.9 million"]),
            "D": q(0.19634158289695192, "mmd", ["0.196", "0.1963"], ["about 0.2"])}, pools={
            "lead": ["The area service failed, so I used the published drainage area of «Ar»: "
                     "the runoff depth is «D».", "Runoff depth ≈ «D» (area «Ar»)."],
            "rows": [("Discharge", "Q"), ("Drainage area", "Ar"), ("Runoff depth", "D")]}),
        dict(error="invented", scen=["fab_hand"], wrong=["Ar", "D"], final="D", facts={
            "Ar": q(3220000, "km2", ["3,220,000", "3.22 million"]),
            "D": q(0.1778, "mmd", ["0.178", "0.1778"])}, pools={
            "lead": ["The Mississippi drains about «Ar» above Baton Rouge, so the runoff depth "
                     "is «D».", "Using the known basin area of «Ar», the depth is «D»."],
            "rows": [("Discharge", "Q"), ("Drainage area", "Ar"), ("Runoff depth", "D")]}),
    ]


# -- tasks ---------------------------------------------------------------------------------------
def _tasks():
    runoff = dict(facts=RUNOFF_FACTS, pools=runoff_pools(), scen=runoff_calls(), final="D",
                  wrong=runoff_wrong(), careful=["careful_obj", "careful_str", "careful_si",
                                                 "careful_bare_si"])
    return [
        ("core", "runoff", runoff),
        ("opacity", "runoff_cfs", runoff),
        ("opacity", "runoff_ft3s", runoff),
        ("opacity", "runoff_words", runoff),
        ("core", "freeboard", dict(facts=FB_FACTS, pools=FB_POOLS, scen=FREEBOARD_SCEN,
                                   final="F", wrong=fb_wrong(),
                                   careful=["careful_obj", "careful_bare", "careful_shvl"])),
        ("core", "fabricated_area", dict(facts=FAB_FACTS, pools=FAB_POOLS, scen=FAB_SCEN,
                                         final=None, wrong=fab_wrong(),
                                         careful=["retry", "retry_guarded"])),
        ("uk", "abstraction_share", dict(facts=SHARE_FACTS, pools=SHARE_POOLS, scen=SHARE_SCEN,
                                         final="S", wrong=share_wrong(),
                                         careful=["careful_obj", "careful_str",
                                                  "careful_bare_si"])),
        ("uk", "level_threshold", dict(facts=LEVEL_FACTS, pools=LEVEL_POOLS, scen=LEVEL_SCEN,
                                       final="M", wrong=level_wrong(),
                                       careful=["careful_obj", "careful_bare"])),
        ("grid", "full_load_current", dict(facts=FLC_FACTS, pools=FLC_POOLS, scen=FLC_SCEN,
                                           final="I", wrong=flc_wrong(),
                                           careful=["careful_obj", "careful_str",
                                                    "careful_bare_si"])),
        ("grid", "feeder_energy", dict(facts=EN_FACTS, pools=EN_POOLS, scen=ENERGY_SCEN,
                                       final="E", wrong=en_wrong(),
                                       careful=["careful_obj", "careful_obj2",
                                                "careful_bare_si"])),
    ]


STYLES = ("sparse", "mixed", "steps", "restate", "context", "rounding", "range", "refused",
          "direction", "table", "bullets", "code", "latex", "unicode", "eurocomma", "retry",
          "contrast", "hand")
FIX_STYLES = {"refused": "refused", "retry": "warn_retry", "hand": "hand"}
FAMILY_WEIGHTS = {  # mixed and steps are added to every family below
    "claude": dict(sparse=3, restate=2, context=2, rounding=2, refused=2, direction=2, table=1,
                   bullets=2, code=1, unicode=2, retry=1, contrast=2, hand=1),
    "gpt": dict(sparse=2, restate=1, context=1, rounding=2, refused=2, direction=1, table=1,
                bullets=2, latex=3, unicode=1, contrast=1, hand=1),
    "gemini": dict(eurocomma=1, sparse=2, restate=2, context=1, rounding=1, refused=1, direction=1, table=3,
                   bullets=3, code=1, unicode=1, hand=1),
    "llama": dict(sparse=4, restate=2, context=1, rounding=2, refused=1, code=3, retry=1,
                  hand=1),
    "qwen": dict(sparse=1, restate=1, context=1, rounding=1, refused=1, direction=1, table=2,
                 bullets=1, code=1, latex=3, unicode=1, hand=2, retry=1),
    "deepseek": dict(sparse=1, restate=1, rounding=1, refused=1, direction=1, table=1,
                     bullets=1, latex=3, unicode=2, hand=2, contrast=1),
    "mistral": dict(sparse=3, restate=1, context=1, rounding=2, refused=1, direction=1,
                    unicode=1, eurocomma=8, contrast=1),
    "small": dict(eurocomma=2, sparse=3, restate=3, context=3, rounding=2, direction=1, bullets=1, code=1,
                  retry=1, hand=1),
}
for _family, _w in FAMILY_WEIGHTS.items():
    _w.setdefault("mixed", 4)
    _w.setdefault("steps", {"qwen": 3, "deepseek": 3, "small": 3, "gpt": 2}.get(_family, 1))
    _w.setdefault("range", {"mistral": 2, "claude": 2, "gpt": 1}.get(_family, 1))
UK_EURO = {"abstraction_share", "level_threshold"}


def _keys(template: str) -> set[str]:
    return {m.split(":")[0] for m in re.findall(r"«([^»]+)»", template)}


class Writer:
    def __init__(self, rng, spec, facts, pools, fmt):
        self.rng, self.spec, self.facts, self.pools, self.fmt = rng, spec, facts, pools, fmt

    def ok(self, template):
        return all(self.facts.get(k) is not None for k in _keys(template))

    def pick(self, piece, n=1):
        options = [t for t in self.pools.get(piece, []) if self.ok(t)]
        if not options:
            return []
        self.rng.shuffle(options)
        return [render(t, self.facts, self.fmt) for t in options[:n]]

    def has(self, piece):
        return any(self.ok(t) for t in self.pools.get(piece, []))

    def value(self, key, mode=""):
        return render(f"«{key}{':' + mode if mode else ''}»", self.facts, self.fmt)


def table(w: Writer, family: str) -> list[str]:
    rows = [(label, key) for label, key in w.pools.get("rows", [])
            if key is None or w.facts.get(key) is not None]
    rng = w.rng
    if rng.random() < 0.5:
        lines = ["| Quantity | Value |", "|---|---|"]
        for label, key in rows:
            lines.append(f"| {label} | {w.value(key) if key else 'unavailable (HTTP 503)'} |")
    else:
        lines = ["| | Value | Unit |", "|:--|--:|:--|"]
        for label, key in rows:
            if key is None:
                lines.append(f"| {label} | n/a | |")
                continue
            num = w.value(key, "v")
            unit = w.fmt.unit(w.facts[key].unit)
            bold = "**" if family == "gemini" and key == rows[-1][1] else ""
            lines.append(f"| {label} | {bold}{num}{bold} | {unit} |")
    return lines


def bullets(w: Writer, family: str) -> list[str]:
    rows = [(label, key) for label, key in w.pools.get("rows", [])
            if key is not None and w.facts.get(key) is not None]
    mark = w.rng.choice(["- ", "* ", "• "])
    out = []
    for label, key in rows:
        val = w.value(key)
        if family in ("gemini", "gpt") or w.rng.random() < 0.3:
            out.append(f"{mark}**{label}:** {val}")
        else:
            out.append(f"{mark}{label}: {val}")
    return out


def code_echo(w: Writer, calls, results) -> list[str]:
    rng = w.rng
    picks = [i for i, (_, err, _) in enumerate(results)]
    rng.shuffle(picks)
    picks = sorted(picks[:rng.choice([1, 2, 2, 3])])
    out = []
    for i in picks:
        name, err, text = results[i]
        if rng.random() < 0.4:
            out.append(f"`{name}({json.dumps(calls[i]['arguments'])})` →")
        else:
            out.append(f"{name} returned:")
        out.append("```json" if not err else "```")
        out.append(text if len(text) < 300 else text[:300] + "…")
        out.append("```")
    return out


STEP_MARKS = ["{n}. ", "{n}) ", "Step {n}: ", "**Step {n}** – ", "**{n}.** ", "({n}) "]
STEP_VERBS = ["Looked up", "Got", "Retrieved", "Fetched", "Read"]
CALC_VERBS = ["Converted", "Computed", "Calculated", "Worked out"]


def steps(w: Writer) -> list[str]:
    rows = [(label, key) for label, key in w.pools.get("rows", [])
            if key is not None and w.facts.get(key) is not None]
    mark = w.rng.choice(STEP_MARKS)
    inline = w.rng.random() < 0.25
    out = []
    looked = w.pools.get("looked", set())
    for n, (label, key) in enumerate(rows, 1):
        if key == "H":
            verb = "Took the duration from the question"
        else:
            verb = w.rng.choice(STEP_VERBS if key in looked else CALC_VERBS)
        label = label[0].lower() + label[1:]
        out.append(mark.format(n=n) + f"{verb} the {label}: {w.value(key)}.")
    return [" ".join(out)] if inline else out


def final_line(w: Writer, family: str, final: str | None) -> str:
    if final is None:
        text = "unavailable"
    else:
        text = w.value(final)
    line = f"FINAL ANSWER: {text}"
    if family in ("gemini", "deepseek") and w.rng.random() < 0.3:
        line = f"**{line}**"
    return line


def compose(rng, family, style, spec, facts, pools, final, fmt, calls, results):
    w = Writer(rng, spec, facts, pools, fmt)
    body: list[str] = []
    lead = w.pick("lead") or w.pick("support")
    if style == "sparse":
        body = lead + (w.pick("support") if rng.random() < 0.6 else [])
    elif style == "restate":
        body = w.pick("restate") + lead + (w.pick("support") if rng.random() < 0.5 else [])
    elif style == "context":
        body = lead + w.pick("context", rng.choice([1, 2])) + w.pick("support")
    elif style == "rounding":
        body = lead + w.pick("rounding", rng.choice([1, 2]))
    elif style in ("refused", "retry", "contrast", "hand"):
        extra = w.pick(style)
        body = (extra + lead) if style != "contrast" else (lead + w.pick("support") + extra)
    elif style == "direction":
        body = lead + w.pick("direction", rng.choice([1, 2]))
    elif style == "range":
        body = lead + w.pick("range") + (w.pick("support") if rng.random() < 0.5 else [])
    elif style == "steps":
        body = steps(w) + [""] + lead
    elif style == "mixed":
        body = (w.pick("restate") if rng.random() < 0.4 else []) + lead + w.pick("support")
        extras = [p for p in ("context", "rounding", "range", "change", "direction")
                  if w.has(p)]
        rng.shuffle(extras)
        for piece in extras[:rng.choice([0, 1, 1, 2])]:
            body += w.pick(piece)
    elif style == "table":
        body = [rng.choice(["Here are the figures:", "Summary:", "Results:", ""])] + \
            table(w, family) + [""] + lead
    elif style == "bullets":
        body = bullets(w, family) + [""] + lead
    elif style == "code":
        body = code_echo(w, calls, results) + [""] + lead
    elif style == "latex":
        body = w.pick("latex") + lead
    elif style in ("unicode", "eurocomma"):
        body = lead + w.pick("support") + w.pick(rng.choice(["rounding", "direction",
                                                              "support"]))
    elif style.startswith(("c:", "f:", "g:", "h:")):
        cls = style[2:]
        if cls in FMT_CLASSES:
            body = lead + w.pick("support") + (w.pick("rounding") if rng.random() < 0.5
                                               else [])
        else:
            extra = w.pick(cls, rng.choice([1, 1, 2]))
            if rng.random() < 0.3:
                body = extra + lead
            else:
                body = lead + (w.pick("support") if rng.random() < 0.5 else []) + extra
    body = [b for b in body if b is not None]
    return wrap(rng, family, body, final_line(w, family, final))


def wrap(rng, family, body, final) -> str:
    joiner = "\n" if any(b.startswith(("|", "-", "*", "•", "`", "$$", "#")) for b in body) \
        else rng.choice([" ", "\n\n", " "])
    if joiner != "\n":
        body = [b for b in body if b.strip()]
    text = joiner.join(body).strip()
    if family == "claude":
        if rng.random() < 0.3:
            text = "## Result\n\n" + text
        if rng.random() < 0.3:
            text += "\n\n" + rng.choice(["Note that this is a point-in-time figure.",
                                         "Let me know if you want the calculation checked "
                                         "against another source."])
    elif family == "gpt":
        if rng.random() < 0.4:
            text = "**Answer:** " + text
        if rng.random() < 0.2:
            text = "### Result\n" + text
    elif family == "gemini":
        if rng.random() < 0.4:
            text = rng.choice(["Here's the breakdown.\n\n", "Okay, here is the result.\n\n"]) \
                + text
    elif family == "llama":
        if rng.random() < 0.3:
            text = "The answer is below.\n" + text
    elif family == "qwen":
        if rng.random() < 0.4:
            text = "To answer this, I used the tools.\n\n" + text
    elif family == "deepseek":
        if rng.random() < 0.5:
            text += "\n\n**Final Answer**"
    elif family == "mistral":
        pass
    elif family == "small":
        if rng.random() < 0.3:
            text = text[0].lower() + text[1:]
        if rng.random() < 0.3:
            text += "\nhope this helps!"
    text = re.sub(r"\n{3,}", "\n\n", text)
    return f"{text}\n\n{final}"


# -- targeted classes ----------------------------------------------------------------------------
# Each class is built deliberately, many answers per class over every task it applies to: the
# answer states its result and carries one or two sentences of the class. Literal numbers in
# these sentences are true of the task (counts of calls made, times and dates of a reading,
# ranges that hold the truth, percentages computed from the recorded values).
COMMON_CLASSES = {
    "count": ["I made «N» tool calls to get this.", "This took «N» steps.",
              "All «N» calls succeeded on the first try.",
              "Answer based on «N» tool results."],
    "clock_time": ["Data as of 14:00 UTC.", "Latest reading: 13:45 local time.",
                   "Values retrieved at 10:36am.", "(Reading time 09:15 GMT.)",
                   "Checked at 16:20."],
    "date": ["Reading dated 30 November 2026.", "As of 2026-11-30.",
             "Data retrieved Nov 30, 2026.", "(Valid for Monday 30th November.)",
             "Snapshot from 30/11/2026."],
    "footnote": ["Sources: the data service [1] and the site inventory [2].",
                 "(Figures from the tool results, see [1].)",
                 "Values are as the tools returned them¹."],
    "duration": ["This is the latest instantaneous value, not a 24-hour mean.",
                 "The reading is a 15-minute value.",
                 "Values over the last 7 days may differ; only the latest is used.",
                 "The data service updates every 5 minutes."],
}
CLASS_POOLS = {
    "runoff": {
        "ids": ["Site USGS-01646500 (Potomac River near Washington, DC).",
                "USGS site no. 1646500 — the leading zero is often dropped.",
                "Gauge 01646500, Little Falls pump station."],
        "caveat_numbers": ["USGS rates most discharge records as accurate to within 5-10%.",
                           "Provisional data can be revised for up to 2 years."],
        "year": ["USGS has published this station's record since 1930.",
                 "The drainage area is the 2019 site-inventory value.",
                 "The gauge was installed in 1930 and the area has not changed since."],
        "hedged": ["That is «D:h».", "The river carries «Qm:h» («Q:h»).",
                   "The basin is «A:h».", "«Qm:h» over «A:h»."],
        "unhedged": ["In round numbers: «Du», from «Qmu» over «Au».",
                     "The flow is «Qmu» over a «Au» basin, so the depth is «Du».",
                     "That is «Du» of runoff.", "The river is running at «Qu»."],
        "truncation": ["The flow converts to «Qmt».", "Discharge: «Qmt» («Q»)."],
        "sci": ["That is «D:sci».", "The basin is «A:sci».", "Discharge «Q:sci».",
                "In square metres the area is 2.994 × 10¹⁰ m²."],
        "ratio": ["The conversion divides the number by about 35.",
                  "1 cfs is about 2.8% of a cubic metre per second.",
                  "The flow in m³/s is roughly 1/35 of the cfs figure."],
        "per_year": ["At this rate that is «Dy» over a year.", "Annualised: «Dy:h».",
                     "Sustained for a year it would be «Dy»."],
        "magnitude_words": ["That is about 3.06 million cubic metres a day.",
                            "Roughly 35 thousand litres per second.",
                            "The basin covers nearly 30 thousand km²."],
        "float_copy": ["runoff_depth returned «D:full».", "The tool's value is «D:full»."],
    },
    "freeboard": {
        "ids": ["Levee segment RRL 12, forecast point SHVL1.",
                "RRL-12 sits beside forecast point SHVL1."],
        "caveat_numbers": ["Design guidance often calls for at least 3 ft of freeboard.",
                           "Forecast crests typically carry an uncertainty of ±1 ft."],
        "year": ["The crest survey dates from 1987 (NGVD 1929 datum).",
                 "The NAVD 88 datum replaced NGVD 29 in 1991.",
                 "The levee inventory was last updated in 2022."],
        "hedged": ["That is «F:h» of freeboard.", "The crest is «Cn:h» on NAVD88.",
                   "The forecast crest is «W:h»."],
        "unhedged": ["In round numbers: «Fu» of freeboard.", "That leaves «Fu».",
                     "About «Fu» — enough, but not generous."],
        "sci": [],
        "ratio": ["The 0.44 ft datum shift is about a tenth of the freeboard.",
                  "The offset is roughly 11% of the freeboard, so it matters."],
        "inches": ["That is «Fin».", "About «Fin:r» of freeboard.", "In inches: «Fin»."],
        "feet_inches": ["That is about 4 ft 0.7 in.", "Roughly 4 ft 1 in of freeboard.",
                        "4.06 ft is 4 feet and about three-quarters of an inch."],
        "metric": ["In metres: «Fm».", "That is «Fm:h».", "(«Fm».)"],
        "dir_forward": ["The forecast crest is «F» below the top of the levee.",
                        "The water surface will be «F» below the crest."],
        "dir_reverse": ["The levee crest sits «F» above the forecast water surface.",
                        "The crest is «F» higher than the forecast crest.",
                        "The water would have to rise another «F» to overtop the levee."],
        "dir_magnitude": ["On NAVD88 the crest is «O:mag» lower than its NGVD29 figure.",
                          "The datum conversion is a drop of «O:mag» in the crest elevation.",
                          "Converting to NAVD88 lowers the crest by «O:mag».",
                          "The NAVD88 crest is «O:mag» below the NGVD29 number."],
        "pct_change": ["The datum correction reduces the freeboard by about 10%.",
                       "Without the correction the freeboard would be overstated by about 11%."],
        "float_copy": ["compute_freeboard returned «F:full».", "The tool gave «F:full»."],
    },
    "share": {
        "ids": ["Licence 6/33/12/*S/0041 abstracts upstream of gauge 2604TH.",
                "(Licence no. 6/33/12/*S/0041; station 2604TH.)"],
        "caveat_numbers": ["Hands-off flow conditions commonly start below the Q95 flow.",
                           "Licences are often reviewed every 12 years."],
        "year": ["The licence was issued in 2014.", "It is a 2019 licence renewal.",
                 "(Licence terms as on the register for 2026.)"],
        "hedged": ["That is «S:h» of the flow.", "The licence is worth «Lm:h».",
                   "The river is carrying «F:h»."],
        "unhedged": ["In round numbers: «Su».", "That is «Su» of the river.",
                     "The licence is «Lmu» against «Fu»."],
        "truncation": ["The share is «St».", "Share: «St» of the river."],
        "sci": ["The licence is 5.21 × 10⁻¹ m³/s.", "In litres per second: 5.208e2 L/s."],
        "ratio": ["That is about 1 part in 93.", "Roughly one litre in every 93.",
                  "The river flow is about 93 times the licensed rate."],
        "per_year": ["Over a year the licence allows about 16,425 Ml.",
                     "Annual volume at the full rate: roughly 16,400 megalitres."],
        "magnitude_words": ["45 Ml/d is 45 million litres a day.",
                            "That is about 521 litres every second.",
                            "The river carries 48.6 thousand litres per second."],
        "dir_forward": ["It would leave «Sc» of the flow in the river.",
                        "About «Sc:r» of the flow would remain."],
        "dir_magnitude": ["The abstraction is a drop of «Lm» in the river's flow.",
                          "Flow downstream would fall by «Lm»."],
        "pct_change": ["The river flow would drop by about 1.07%, to roughly 48.08 m³/s.",
                       "That is a 1.07% reduction in flow."],
        "float_copy": ["abstraction_share returned «S:full».", "The tool gave «S:full»."],
    },
    "level": {
        "ids": ["Station E21136 (Environment Agency).", "Monitoring station E21136."],
        "caveat_numbers": ["Warnings are usually issued 1-2 hours before flooding is expected.",
                           "Readings are typically delayed by up to 30 minutes."],
        "year": ["The warning threshold was last reviewed in 2021.",
                 "Station E21136 has reported levels since 1998."],
        "hedged": ["That is «M:h».", "The gauge reads «Lv:h» locally.",
                   "About «Mcm:r» of headroom."],
        "unhedged": ["So «Mcm» to spare.", "In round numbers a quarter of a metre.",
                     "That is «Mcm» below."],
        "cm": ["That is «Mcm».", "A rise of «Mcm» would trigger the warning.",
               "It sits «Mcm» under the warning level."],
        "datum_height_aod": ["The station datum (gauge zero) is «Z:v» m AOD.",
                             "Gauge zero sits at «Z:v» mAOD.",
                             "The station datum is «Z» above Ordnance Datum Newlyn."],
        "dir_forward": ["The level is «M» below the threshold.",
                        "The river is «M» short of the warning level."],
        "dir_reverse": ["The threshold is «M» above the current level.",
                        "The river would need to rise «M» to reach the warning threshold.",
                        "The warning level is «M» higher than the river."],
        "pct_change": ["The level is at about 97% of the threshold.",
                       "A rise of about 2.7% would reach the threshold."],
        "float_copy": ["level_below_threshold returned «M:full».",
                       "The tool's value is «M:full»."],
    },
    "flc": {
        "ids": ["Transformer HT-T2 (HV side, busbar HT-HV).", "HT-T2 / HT-HV."],
        "caveat_numbers": ["Transformers can usually run 10-20% over nameplate for short "
                           "periods.", "Protection is typically set at around 125% of rated "
                           "current."],
        "year": ["The asset register entry was last updated in 2023.",
                 "HT-T2 was commissioned in 2008."],
        "hedged": ["That is «I:h».", "Roughly «Ik:r».", "Call it «I:h» per phase."],
        "unhedged": ["In round numbers: «Iu».", "That's «Iu» per phase.",
                     "The HV winding carries «Iu» at full load."],
        "truncation": ["The current is «It».", "Full-load current «It»."],
        "sci": ["The rating is «VA:sci» at «Vb:sci».", "That is «I:sci».",
                r"\( S = 9 \times 10^{7} \) VA."],
        "ratio": ["That is about 4.4 A per MVA of rating.",
                  "√3 × 132 kV is about 228.6 kV."],
        "magnitude_words": ["90 MVA is 90 million volt-amperes.",
                            "That is about 0.39 thousand amps."],
        "pct_change": ["At 80% load it would be about 315 A.",
                       "A 10% overload would take it to about 433 A."],
        "float_copy": ["full_load_current returned «I:full».", "The tool gave «I:full»."],
    },
    "energy": {
        "ids": ["Feeder F-207.", "Distribution feeder F-207 (SCADA point F-207)."],
        "caveat_numbers": ["Feeder losses are typically 2-5% of energy delivered.",
                           "SCADA values lag real time by up to 1 minute."],
        "year": ["Feeder F-207 was rebuilt in 2017.", "SCADA history goes back to 2015."],
        "hedged": ["That is «E:h», or «Em:h».", "About «E:sci»."],
        "unhedged": ["So «Emu», give or take.", "In round numbers: «Eu».",
                     "That's «Emu» over the window."],
        "sci": ["About «E:sci».", "That is «E:sci»."],
        "ratio": ["That is a quarter of a day's energy at the same load.",
                  "The energy in kWh is 6,000 times the load in MW."],
        "per_year": ["Over a full 24 hours it would be 201,600 kWh.",
                     "Per day at this load: about 201.6 MWh."],
        "magnitude_words": ["That is 50.4 thousand kWh.", "About fifty megawatt-hours.",
                            "8.4 MW is 8,400 kilowatts."],
        "pct_change": ["That is 25% of a full day's 201,600 kWh at the same load.",
                       "If the load rose 10%, it would be about 55,440 kWh."],
        "float_copy": ["energy_delivered returned «E:full».", "The tool gave «E:full»."],
    },
    "fab": {
        "ids": ["USGS-07374000 (Mississippi River at Baton Rouge).",
                "Site no. 7374000 with the leading zero dropped gives the same error."],
        "caveat_numbers": ["The Mississippi's basin is among the 5 largest in the world, so "
                           "guessing its area would be unsafe."],
        "count": ["I made «N» tool calls; the area lookup failed each time.",
                  "«N» calls in total, «NF» of them to the failing area service."],
        "http_status": ["The area service returned HTTP 503.",
                        "get_drainage_area failed with a 503 (Service Unavailable).",
                        "Error: HTTP 503 for 07374000."],
        "magnitude_words": ["The river is carrying 234 thousand cfs.",
                            "That is about 6.6 thousand cubic metres per second."],
        "hedged": ["The river is running at «Q:h».", "That is «Qm:h»."],
        "sci": ["Discharge «Q:sci»."],
    },
}
CLASS_FACTS = {
    "runoff": {"Qu": q(1300, "cfs", ["1,300"]), "Qmu": q(35, "m3s", ["35"]),
               "Au": q(30000, "km2", ["30,000"]), "Du": q(0.1, "mmd", ["0.1"]),
               "Qmt": q(35.39, "m3s", ["35.39"])},
    "freeboard": {"Fu": q(4, "ft", ["4"])},
    "share": {"Su": q(1, "pct", ["1"]), "Lmu": q(0.5, "m3s", ["0.5"]),
              "Fu": q(50, "m3s", ["50"]), "St": q(1.071, "pct", ["1.071"])},
    "level": {},
    "flc": {"Iu": q(400, "a", ["400"]), "It": q(393, "a", ["393"])},
    "energy": {"Eu": q(50000, "kwh", ["50,000"]), "Emu": q(50, "mwh", ["50"])},
    "fab": {},
}
GROUP = {"runoff": "runoff", "runoff_cfs": "runoff", "runoff_ft3s": "runoff",
         "runoff_words": "runoff", "freeboard": "freeboard", "fabricated_area": "fab",
         "abstraction_share": "share", "level_threshold": "level",
         "full_load_current": "flc", "feeder_energy": "energy"}
FMT_CLASSES = ("separators", "units_in_words", "unicode", "decimal_comma")
NEUTRAL_CLASSES = ("count", "clock_time", "date", "duration", "year", "http_status",
                   "separators", "units_in_words", "unicode", "decimal_comma")
CLASS_COUNT = 4  # answers per class per task (correct); plus one incorrect per class per task
CLASS_MIN = 24  # correct answers per class at least, over the tasks it applies to


# -- fresh classes -------------------------------------------------------------------------------
# Written after the audit's round-3 fixes were seen, in new words, to check that those fixes
# hold for a class and not only for the sentences above. Built with their own seed, after
# everything else, so the records above do not change.
FRESH_COMMON = {
    "count_words": ["Three lookups were enough here.", "It took «N» requests in all.",
                    "After «N» tool calls I had everything I needed.",
                    "Only one calculation was needed after the lookups."],
    "ordinal": ["The 1st call was a lookup.", "My 1st request went to the data service.",
                "On the first try the lookups answered."],
    "timezone": ["Retrieved 14:05 UTC (09:05 EST).", "Timestamp: 2026-11-30T14:05:00Z.",
                 "Reading at 08:45 GMT+0."],
    "duration2": ["The reading is from the past hour.", "Data are published hourly.",
                  "Over the last 48 hours the trend is not in the tools.",
                  "Values refresh every 15 min."],
    "footnote2": ["[^1]: as returned by the tool.", "Ref. 1: the data service.",
                  "(See note 2 on data quality.)"],
    "confidence": ["I'm about 95% confident in this figure.", "Confidence: high (90%+)."],
}
FRESH = {
    "runoff": {
        "url": ["Source: https://waterdata.usgs.gov/monitoring-location/01646500/",
                "(Data: waterdata.usgs.gov, site 01646500.)"],
        "per_period2": ["That is about 3.1 mm a month.", "Roughly 0.7 mm per week."],
        "ratio2": ["Each cfs is 0.0283 m³/s, so the flow is «Qm» in SI.",
                   "Depth is just flow divided by area, then scaled to mm/day."],
        "unhedged2": ["A tenth of a millimetre a day.", "35 cumecs spread over 30,000 km²."],
        "magnitude2": ["That's over 3 billion litres a day.",
                       "A flow of roughly 35,400 litres per second."],
        "caveat2": ["Gauge ratings typically carry ±8% uncertainty.",
                    "Rating curves are usually revised every 1-2 years."],
    },
    "freeboard": {
        "inches2": ["That is 4'0.7\" of freeboard.", "About 4 ft 3/4 in.",
                    "Some 48¾ inches of freeboard."],
        "dir_reverse2": ["The crest stands «F» clear of the water.",
                         "There is «F» of levee above the forecast water surface.",
                         "The water peaks «F» short of the crest."],
        "pct2": ["The datum correction is 9.8% of the uncorrected figure.",
                 "The 0.44 ft shift eats roughly a tenth of the margin."],
        "caveat2": ["Many levee standards ask for 2-3 ft of freeboard at the design flood.",
                    "Forecast crests are usually given to the nearest 0.1 ft."],
        "metric2": ["That is 1.24 metres (124 cm).", "In SI: «Fm», or about 124 cm."],
    },
    "share": {
        "url": ["Source: https://environment.data.gov.uk/flood-monitoring/id/stations/2604TH"],
        "truncation2": ["The share is 1.0716 %.", "Share of flow: 1.0716%."],
        "per_period2": ["That is about 1,350 Ml over a 30-day month."],
        "complement2": ["The river keeps just under 99% of its flow.",
                        "Nearly 99 of every 100 litres stay in the river."],
        "ratio2": ["The licensed rate is about 1/93 of the flow."],
        "caveat2": ["Licence meters usually have a ±5% tolerance."],
    },
    "level": {
        "url": ["Source: https://environment.data.gov.uk/flood-monitoring/id/stations/E21136"],
        "datum2": ["Gauge zero is at +6.30 m ODN.", "The station datum sits at 6.3 mOD."],
        "dir_reverse2": ["You have «M» of headroom before the warning level.",
                         "The warning level sits «M» over the current river level.",
                         "The river can rise another «Mcm» before the warning."],
        "pct2": ["The river is at 97.3% of the warning level."],
        "caveat2": ["Warnings are typically issued 2-3 hours ahead of flooding."],
    },
    "flc": {
        "truncation2": ["Rated current 393.64 A.", "I = 393.64 A (truncated)."],
        "pct2": ["At 90% load it would be about 354 A.",
                 "A 5% overvoltage would bring it down to about 375 A."],
        "ratio2": ["Each MVA of rating gives about 4.37 A on this bus."],
        "caveat2": ["Cable ratings are often derated by 10-15% in summer."],
        "magnitude2": ["132 kV is 132 thousand volts."],
    },
    "energy": {
        "per_period2": ["Over a year at this load it would be about 73.6 GWh.",
                        "Per hour that is 8,400 kWh."],
        "pct2": ["A 5% rise in load would give about 52,920 kWh."],
        "ratio2": ["Each hour adds 8,400 kWh."],
        "caveat2": ["Feeder load typically swings 10-20% over an evening."],
    },
    "fab": {
        "url": ["Source: https://waterdata.usgs.gov/monitoring-location/07374000/"],
        "http2": ["The service answered with status 503.", "A 5xx error (503) came back."],
        "caveat2": ["The basin above Baton Rouge is roughly 3 million km², but a remembered "
                    "figure is not a tool result."],
    },
}
FRESH_NEUTRAL = ("count_words", "ordinal", "timezone", "duration2", "footnote2", "url",
                 "confidence")


# -- fresh classes, second batch -----------------------------------------------------------------
# Written before the audit's last round was seen, in new words again, to measure the final audit
# on sentences its fixes were not written against (own seed, appended last).
FRESH2_COMMON = {
    "count3": ["«N» tool calls in total.", "That's from «N» tool calls.",
               "The work took «N» round trips to the tools.", "In all, «N» calls were made."],
    "ordinal2": ["The 2nd tool call is the one that matters here.",
                 "First call: a lookup; 2nd call: the next step."],
    "time2": ["Data timestamp 2:05 pm UTC.", "(As of 09:30 this morning.)", "Pulled at 14h05."],
    "duration3": ["This is a point reading, not a daily average over 24 h.",
                  "It refreshes roughly every quarter hour (15 minutes).",
                  "No data for the previous 3 days were requested."],
    "footnote3": ["¹ Tool output.", "Sources [a], [b]; see footnote 1.",
                  "(1) Data as returned by the service."],
    "confidence2": ["Certainty: 99% (values come straight from the tools).",
                    "I'd put this at 9/10 confidence."],
    "version": ["Computed with version 2 of the tool schema.",
                "(Tool API v3, library 0.4.)"],
    "list_refs": ["As noted in point 2 above, the units were checked.",
                  "See item 3 of the list for the inputs."],
    "precision_note": ["(Rounded to 3 significant figures.)", "Given to two decimal places.",
                       "Figures are to 3 s.f."],
    "headings": ["## 1) Inputs\nAll from the tools.\n## 2) Result", "### Step 2 — result"],
}
FRESH2 = {
    "runoff": {
        "per_period3": ["That is roughly 3 mm per 30 days.",
                        "Over a week that's about 0.72 mm."],
        "ratio3": ["Multiply cfs by 0.0283 to get m³/s."],
        "caveat3": ["Discharge measurements are usually good to ±5% at best."],
        "magnitude3": ["About 3,058,000 m³ flow past the gauge each day."],
        "nospace": ["Depth: «D:v»mm/d from «Qm:v»m³/s.", "(«A:v»km² basin.)"],
        "sci_upper": ["That is 1.02E-01 mm/d.", "Area 2.994E+04 km²."],
        "ascii_x": ["1250 cfs x 0.0283 = 35.4 m3/s.", "35.4 m3/s / 29940 km2 x 86.4 = "
                    "0.102 mm/d."],
    },
    "freeboard": {
        "inches3": ["4 feet, 0.72 inches.", "≈ 4 ft ¾ in."],
        "dir3": ["Water will sit «F» beneath the crest.",
                 "The levee tops the forecast crest by «F»."],
        "caveat3": ["Freeboard under 3 ft usually triggers closer monitoring."],
        "pct3": ["The datum shift is about 11% of the final freeboard."],
        "nospace": ["Freeboard «F:v»ft (crest «Cn:v»ft, water «W:v»ft).", "Offset «O:v»ft."],
        "ascii_x": ["31.56 - 27.5 = 4.06 ft (crest x 1, no scaling).", "4.06 ft x 0.3048 = "
                    "1.24 m."],
    },
    "share": {
        "complement3": ["About 98.9 per cent of the water stays in the river."],
        "per_period3": ["That is about 315 Ml a week."],
        "trunc3": ["Share: 1.071% (truncated)."],
        "caveat3": ["Abstraction is often capped at 10% of the Q95 flow."],
        "nospace": ["Share «S:v»% («Lm:v»m³/s of «F:v»m³/s)."],
        "sci_upper": ["That is 1.07E+00 %.", "Licence 5.21E-01 m³/s."],
        "ascii_x": ["0.5208 / 48.6 x 100 = 1.07 %."],
    },
    "level": {
        "datum3": ["The gauge datum is 6.30 m above OD (Newlyn).", "Gauge zero: 6.3 mAOD."],
        "dir3": ["The threshold is a quarter of a metre higher.",
                 "Another «M» rise would reach the threshold."],
        "pct3": ["That's 2.7% below the threshold level."],
        "caveat3": ["Thresholds are typically reviewed every 5 years."],
        "nospace": ["Margin «M:v»m (level «La:v»mAOD, threshold «T:v»mAOD)."],
        "vulgar": ["That is a ¼ m margin.", "About ¼ metre of headroom."],
    },
    "flc": {
        "pct3": ["At half load it would be about 197 A."],
        "trunc3": ["393.64 A to two decimals, truncated."],
        "caveat3": ["Breakers at this voltage are commonly rated 1,250 A or 2,000 A."],
        "ratio3": ["√3 × V = 228,631 V."],
        "nospace": ["I = «I:v»A («S:v»MVA at «Vv:v»kV)."],
        "sci_upper": ["S = 9.0E+07 VA, V = 1.32E+05 V."],
        "ascii_x": ["90e6 / (1.732 x 132e3) = 393.6 A."],
    },
    "energy": {
        "per_period3": ["That's 8.4 MWh every hour."],
        "pct3": ["A 10% lower load would give 45,360 kWh."],
        "caveat3": ["Losses of 3-4% are normal on a feeder like this."],
        "nospace": ["E = «E:v»kWh («P:v»MW for 6h)."],
        "ascii_x": ["8.4 MW x 6 h = 50.4 MWh = 50,400 kWh."],
        "money": ["At £0.15/kWh that is about £7,560 of energy.",
                  "At 12 p per kWh, roughly £6,050."],
        "restate_words": ["Over the coming six hours, that is the figure.",
                          "For the 6-hour window you asked about."],
    },
    "fab": {
        "http3": ["HTTP/1.1 503 Service Unavailable."],
        "caveat3": ["Large river basins such as this exceed 1 million km²."],
    },
}
FRESH2_NEUTRAL = ("count3", "ordinal2", "time2", "duration3", "footnote3", "version",
                  "list_refs")


# New wording for the plain parts of an answer (lead, support, context, rounding, direction), to
# check on answers in the mix's styles that the audit's fixes do not depend on the phrasing above.
FRESH2_MIX = {
    "runoff": {
        "lead": ["Runoff comes to «D».", "I get «D» of runoff depth.",
                 "Depth-equivalent runoff: «D».", "The basin is yielding «D»."],
        "support": ["Inputs: «Q» at the gauge and «A» of drainage area.",
                    "That is «Qm» of flow spread over «A».", "Flow «Q» (= «Qm»), basin «A»."],
        "context": ["That's the current value; it will change as the flow does.",
                    "Only the newest reading was used.", "Both inputs come from USGS."],
        "rounding": ["Roughly «D:r», in other words.", "Think of it as «D:h».",
                     "The flow is «Qm:h»."],
    },
    "freeboard": {
        "lead": ["Expect «F» of freeboard at the crest.", "Freeboard ≈ «F».",
                 "The levee should keep «F» above the water."],
        "support": ["Crest «Cn» NAVD88 (after the «O» shift) against water at «W».",
                    "The NGVD29 crest of «C» becomes «Cn» on NAVD88.",
                    "The forecast peak is «W» NAVD88."],
        "direction": ["The water stays «F» under the crest.",
                      "That leaves the crest «F» above the peak."],
        "context": ["Both elevations are now on NAVD88.",
                    "The offset came from the datum tool for RRL-12."],
        "rounding": ["Call it «F:h».", "Roughly «Fm:r» in metres."],
    },
    "share": {
        "lead": ["The licence would use «S» of the river.", "Share ≈ «S».",
                 "That's «S» of the current flow."],
        "support": ["«L» equals «Lm»; the river carries «F».", "Licence «L» against a flow of «F»."],
        "direction": ["The remaining «Sc» stays in the river."],
        "context": ["The flow is the latest published value.",
                    "This assumes the full licensed rate all day."],
        "rounding": ["Call it «S:h».", "The licence is «Lm:h»."],
    },
    "level": {
        "lead": ["Headroom below the warning threshold: «M».",
                 "The river sits «M» below warning level.", "Margin: «M»."],
        "support": ["In mAOD the level is «La:v» (gauge «Lv:v» + datum «Z:v»); the threshold is "
                    "«T:v».", "Threshold «T:v» mAOD minus level «La:v» mAOD."],
        "direction": ["The warning level is «M» above the river.",
                      "A further «M» rise reaches the threshold."],
        "context": ["Both values are now in mAOD.", "This is the latest published level."],
        "rounding": ["Call it «Mcm:h».", "That is «M:h»."],
    },
    "flc": {
        "lead": ["HT-T2's full-load current is «I».", "Rated line current ≈ «I».",
                 "It carries «I» at full load."],
        "support": ["From «S» at «Vv», three-phase.", "S = «S», V = «Vv»."],
        "context": ["Balanced three-phase operation is assumed.", "This is the HV-side current."],
        "rounding": ["Call it «I:h».", "Roughly «Ik:r»."],
    },
    "energy": {
        "lead": ["F-207 will deliver «E».", "Energy over the window: «E».",
                 "At the current load that is «E»."],
        "support": ["«P» held for «H».", "Load «P», i.e. «Pk», for six hours."],
        "context": ["This assumes a constant load.", "Based on the latest SCADA reading."],
        "rounding": ["Call it «E:h».", "Roughly «Em:r»."],
    },
    "fab": {
        "lead": ["No depth can be given: the area lookup failed.",
                 "Unavailable: the drainage-area service is down."],
        "support": ["The discharge itself is «Q».", "(Flow: «Q».)"],
        "context": ["I did not substitute a remembered area.", "Try again later."],
        "rounding": ["The river carries «Q:h»."],
    },
}



# The right magnitude under a wrong unit (the second incorrect answer of each task and family in
# the mix written in new words): the number is a recorded output, the unit contradicts it.
WRONG_UNIT = {
    "runoff": dict(error="wrong_unit", scen=["careful_obj"], wrong=["D"], pools=NO_FIX,
                   facts={"D": q(0.10214, "m_d", ["0.102", "0.1021"])}),
    "freeboard": dict(error="wrong_unit", scen=["careful_obj"], wrong=["F"], pools=NO_FIX,
                      facts={"F": q(4.06, "m", ["4.06"]), "Fm": None, "Fin": None}),
    "share": dict(error="wrong_unit", scen=["careful_obj"], wrong=["S"], pools=NO_FIX,
                  facts={"S": q(1.0717, "permille", ["1.07", "1.072"]), "Sc": None}),
    "level": dict(error="wrong_unit", scen=["careful_obj"], wrong=["M"], pools=NO_FIX,
                  facts={"M": q(0.25, "ft", ["0.25"]), "Mcm": None}),
    "flc": dict(error="wrong_unit", scen=["careful_obj"], wrong=["I"], pools=NO_FIX,
                facts={"I": q(393.6, "ka", ["393.6", "394"]), "Ik": None}),
    "energy": dict(error="wrong_unit", scen=["careful_obj"], wrong=["E"], pools=NO_FIX,
                   facts={"E": q(50400, "mwh", ["50,400"]), "Em": None}),
}
UNITS.update({"m_d": {"sym": ["m/day", "m/d"], "ascii": ["m/day"], "word": ["metres per day"]},
              "permille": {"sym": ["‰"], "ascii": ["per mille"], "word": ["per mille"]}})

# -- the third fresh batch (ids ``h...`` and ``j...``): the same hard classes and the mix's plain
# sentences, phrased in ways the set has not used before; written blind (holdout4).
FRESH3_COMMON = {
    "count4": ["Tool invocations: «N».", "Number of calls made \u2014 «N».",
               "«N» requests went out to the tools.", "Calls used: «N» (none repeated)."],
    "steps4": ["Stage 2 of 3: the conversion.", "Schritt 3: the final figure.",
               "Step 2/3 \u2014 convert.", "(ii) convert; (iii) combine."],
    "time4": ["Readings as of 14.05 h.", "Timestamp 2026-11-30T14:05Z.",
              "Fetched at 2.05 p.m. GMT.", "Data valid at 1405Z."],
    "duration4": ["This is not a 7-day mean.", "The gauge reports every 15 min.",
                  "It is a single 1-h snapshot.", "Values older than 48 hrs were not used."],
    "footnote4": ["Values from the tool output\u2020.", "See note (ii) below.",
                  "[^1]: figures as returned by the tools.", "*\u00b9 as returned.*"],
    "version4": ["Schema rev. 2.1 was used.", "(API 3.0.2; quantity-guard 0.4.1)",
                 "Using the v2.3 endpoint.", "Built on release 1.12."],
    "listref4": ["Per bullet 2 above, the units match.", "Cf. \u00a73 for the inputs.",
                 "See row 2 of the table.", "As in (2), nothing was assumed."],
    "http4": ["The first request got status code 429 and was retried.",
              "Both lookups returned 200 OK.", "One call came back 5xx; the retry worked.",
              "(Status: 503 on the first try, then 200.)"],
    "confidence4": ["Confidence: high (~95 %).", "I'm about 90 percent sure of the inputs.",
                    "Reliability 4/5.", "Odds this is right: 19 in 20."],
    "precision4": ["Given to 3 sig. figs.", "(3 s.f.)", "Rounded to the nearest hundredth.",
                   "Two decimals kept."],
}
FRESH3 = {
    "runoff": {
        "per_period4": ["Over a 30-day month that accumulates to ~3 mm.",
                        "Per annum: \u2248 37 mm."],
        "whatif4": ["If the flow doubled, the depth would be about 0.204 mm/d.",
                    "Were the basin half the size you'd get twice the depth, ~0.2 mm/d."],
        "ratio4": ["The specific discharge is 35.4 / 29,940 \u2248 0.00118 m\u00b3/s per km\u00b2."],
        "caveat4": ["Humid eastern basins typically shed a few hundred mm a year as runoff."],
        "quoted4": ["(A first pass gave 3.6 mm/d because I skipped the cfs conversion; "
                    "disregard it.)"],
        "magnitude4": ["Daily volume \u2248 3.06 \u00d7 10\u2076 m\u00b3."],
        "onefig4": ["To one figure: 0.1 mm/d."],
    },
    "freeboard": {
        "inches4": ["That's 4\u2032 \u00be\u2033.", "4 ft 0\u00be in, to the nearest "
                    "quarter inch."],
        "dir4": ["Below the crest by «F:v» ft: that's where the peak sits.",
                 "Crest minus peak: +«F»."],
        "pct4": ["The freeboard is ~13% of the crest elevation."],
        "caveat4": ["Urban levees are commonly designed with 3 ft of freeboard."],
        "quoted4": ["Without the datum shift I'd have said 4.5 ft \u2014 that is wrong."],
        "whatif4": ["A crest 1 ft lower would leave about 3.06 ft."],
        "onefig4": ["In one figure: about 4 ft."],
    },
    "share": {
        "decomma4": ["Anteil: 1,07 %.", "Part du d\u00e9bit : 1,07 %."],
        "complement4": ["The river keeps the other 98.9 %."],
        "ratio4": ["Roughly one part in 93 of the flow."],
        "per_period4": ["Daily, that is the licence's 45 Ml."],
        "caveat4": ["Licences are commonly set against the Q95 low flow."],
        "quoted4": ["(An unconverted 45/48.6 would say 92.6% \u2014 not the answer.)"],
        "onefig4": ["To one significant figure, 1 %."],
    },
    "level": {
        "decomma4": ["Marge : 0,25 m.", "Abstand zur Warnschwelle: 0,25 m."],
        "dir4": ["Up to the threshold: «M».", "Threshold minus level = +«M»."],
        "datum4": ["Datum of the gauge: +6.30 m ODN.", "(Gauge zero at 6.30 m OD Newlyn.)"],
        "pct4": ["The river is within 3% of the warning level."],
        "caveat4": ["Flood warning thresholds are often set a few tens of cm below bank level."],
        "whatif4": ["A rise of 25 cm would bring it to 9.40 mAOD."],
    },
    "flc": {
        "whatif4": ["At 75 % load, about 295 A.", "Doubling the rating would double it to "
                    "~787 A."],
        "ratio4": ["That's about 4.37 A per MVA at 132 kV."],
        "caveat4": ["Cables on 132 kV circuits are often rated for 800 A or more."],
        "quoted4": ["(Dropping the \u221a3 would give 682 A, which is the single-phase "
                    "mistake.)"],
        "onefig4": ["To one figure, 400 A."],
        "sci4": ["S = 9\u00b710\u2077 VA, U = 1,32\u00b710\u2075 V."],
    },
    "energy": {
        "per_period4": ["That's 8.4 MWh for each hour of the window."],
        "pct4": ["A 5% drop in load would cut it to about 47,880 kWh."],
        "caveat4": ["Feeder losses are typically a few percent."],
        "quoted4": ["(Reading 8.4 as kW would have given 50.4 kWh; it is MW.)"],
        "money4": ["At \u20ac0.20 per kWh that's roughly \u20ac10,000."],
        "onefig4": ["In round terms, 50 MWh."],
    },
    "fab": {
        "http4": ["Status 503 from get_drainage_area (service unavailable)."],
        "caveat4": ["Basins this size typically span tens of thousands of km\u00b2."],
    },
}
FRESH3_NEUTRAL = ("count4", "steps4", "time4", "duration4", "footnote4", "version4",
                  "listref4", "http4")

FRESH3_MIX = {
    "runoff": {
        "lead": ["Runoff works out at «D».", "Answer \u2192 «D».",
                 "The catchment is shedding «D»."],
        "support": ["Q = «Q» (\u2248 «Qm»), A = «A».", "From «Qm» over a «A» catchment."],
        "context": ["Point-in-time figure from the newest gauge reading.",
                    "Area and flow both come from the tools."],
        "rounding": ["So, in round numbers, «D:r».", "Near enough «D:h»."],
    },
    "freeboard": {
        "lead": ["Margin between crest and peak: «F».", "Freeboard comes out at «F».",
                 "You'd have «F» to spare."],
        "support": ["Crest «C» NGVD29 \u2192 «Cn» NAVD88; peak «W».",
                    "Datum offset «O» applied before subtracting."],
        "direction": ["Peak stays «F» below the crest."],
        "context": ["Both heights were put on NAVD88 first."],
        "rounding": ["Near enough «F:h».", "Roughly «Fm:r»."],
    },
    "share": {
        "lead": ["The licence takes «S» of the flow.", "Answer: «S» of the river.",
                 "Abstraction share \u2192 «S»."],
        "support": ["«L» (= «Lm») set against «F».", "Licence «Lm», river «F»."],
        "direction": ["«Sc» remains in the channel."],
        "context": ["Latest flow used; it changes daily."],
        "rounding": ["Near enough «S:h».", "The licence is «Lm:h»."],
    },
    "level": {
        "lead": ["Distance to the warning level: «M».", "Margin \u2192 «M».",
                 "The river is «M» short of the threshold."],
        "support": ["Level «La:v» mAOD (= «Lv:v» m + «Z:v» m datum), threshold «T:v» mAOD."],
        "direction": ["Warning level sits «M» higher than the river."],
        "context": ["Compared on the same datum (mAOD)."],
        "rounding": ["Near enough «M:h».", "About «Mcm:h»."],
    },
    "flc": {
        "lead": ["Full-load current works out at «I».", "Answer \u2192 «I».",
                 "HT-T2 draws «I» at rated load."],
        "support": ["Rating «S», line voltage «Vv».", "I = S/(\u221a3\u00b7V) with S = «S»."],
        "context": ["Three-phase, balanced."],
        "rounding": ["Near enough «I:h».", "Roughly «Ik:r»."],
    },
    "energy": {
        "lead": ["Energy delivered: «E».", "Answer \u2192 «E».", "The feeder will supply «E»."],
        "support": ["«P» \u00d7 «H».", "Load «P» (= «Pk») over «H»."],
        "context": ["Constant load assumed over the window."],
        "rounding": ["Near enough «E:h».", "Roughly «Em:r»."],
    },
    "fab": {
        "lead": ["Can't compute the depth: no drainage area came back.",
                 "The area service failed, so there is no runoff figure."],
        "support": ["Flow alone: «Q»."],
        "context": ["No area was guessed."],
        "rounding": ["The flow is «Q:h»."],
    },
}

# -- build ---------------------------------------------------------------------------------------
PER_FAMILY = {"correct": 6, "incorrect": 5}


def _style(rng, family, *, allowed) -> str:
    weights = {s: w for s, w in FAMILY_WEIGHTS[family].items() if s in allowed}
    styles = sorted(weights)
    return rng.choices(styles, [weights[s] for s in styles])[0]


def _fmt(rng, family, style, task) -> Fmt:
    fmt = Fmt(rng)
    if style == "c:separators":
        fmt.sep = rng.choice([" ", "\u202f", "\u00a0", ",", ""])
        return fmt
    if style == "c:units_in_words":
        fmt.units = "word"
        return fmt
    style = {"c:unicode": "unicode", "c:decimal_comma": "eurocomma"}.get(style, style)
    if family == "mistral" and rng.random() < 0.35:
        fmt.units = "word"
    if family in ("llama", "small") and rng.random() < 0.5:
        fmt.units = "ascii"
    if family == "small" and rng.random() < 0.4:
        fmt.sep = ""
    if style == "unicode":
        fmt.minus = "−"
        fmt.space = rng.choice(["\u00a0", "\u202f"])
        fmt.sep = rng.choice(["\u202f", "\u00a0"])
        fmt.units = "sym"
    if style == "eurocomma":
        fmt.dec = ","
        fmt.sep = rng.choice([".", "\u202f", " ", ""])
        fmt.minus = rng.choice(["-", "−"])
    return fmt


def _allowed(spec, pools, label):
    allowed = set(STYLES)
    if label == "incorrect":
        allowed -= {"refused", "retry", "contrast"}
    for piece in ("direction", "refused", "retry", "contrast", "latex", "hand", "range"):
        if not pools.get(piece):
            allowed.discard(piece)
    if "hand" not in spec["scen"] and label == "correct":
        allowed.discard("hand")
    return allowed


def _check_truth(task, spec) -> None:
    """Every written form of a correct final figure is within 1% of the task's truth."""
    if spec["final"] is None:
        return
    truth = task.reference().truth.magnitude
    qty = spec["facts"][spec["final"]]
    for form in qty.forms:
        got = float(form.replace(",", ""))
        if abs(got - truth) > 0.01 * abs(truth):
            raise AssertionError(f"{task.id}: form {form} is not within 1% of {truth}")


def build() -> list[dict]:
    rng = random.Random(SEED)
    records = []
    for suite, task_id, spec in _tasks():
        task = task_of(suite, task_id)
        _check_truth(task, spec)
        for family in FAMILIES:
            n = 0
            for label in ("correct", "incorrect"):
                for k in range(PER_FAMILY[label]):
                    n += 1
                    records.append(_one(rng, suite, task, spec, family, label, k, n))
    reach: dict[str, int] = {}  # how many tasks each class applies to
    for _, task_id, _ in _tasks():
        for cls in _classes(task_id):
            reach[cls] = reach.get(cls, 0) + 1
    for suite, task_id, spec in _tasks():  # the targeted classes
        task = task_of(suite, task_id)
        n = 0
        for c, cls in enumerate(_classes(task.id)):
            count = max(CLASS_COUNT, -(-CLASS_MIN // reach[cls]))
            for k in range(count + (cls in NEUTRAL_CLASSES)):
                label = "correct" if k < count else "incorrect"
                family = FAMILIES[(c * 3 + k) % len(FAMILIES)]
                n += 1
                records.append(_one(rng, suite, task, spec, family, label, c + k, n, cls=cls))
    rng = random.Random(SEED + 1)  # the fresh classes: their own draws
    for suite, task_id, spec in _tasks():
        task = task_of(suite, task_id)
        group = GROUP[task.id]
        n = 0
        classes = list(FRESH_COMMON) + list(FRESH[group])
        for c, cls in enumerate(classes):
            count = max(CLASS_COUNT, -(-CLASS_MIN // _fresh_reach(cls)))
            for k in range(count + (cls in FRESH_NEUTRAL)):
                label = "correct" if k < count else "incorrect"
                family = FAMILIES[(c * 5 + k) % len(FAMILIES)]
                n += 1
                records.append(_one(rng, suite, task, spec, family, label, c + k, n, cls=cls,
                                    fresh=True))
    rng = random.Random(SEED + 2)  # the second fresh batch: its own draws
    for suite, task_id, spec in _tasks():
        task = task_of(suite, task_id)
        group = GROUP[task.id]
        n = 0
        classes = list(FRESH2_COMMON) + list(FRESH2[group])
        for c, cls in enumerate(classes):
            count = max(CLASS_COUNT, -(-CLASS_MIN // _fresh_reach(cls, 2)))
            for k in range(count + (cls in FRESH2_NEUTRAL)):
                label = "correct" if k < count else "incorrect"
                family = FAMILIES[(c * 7 + k) % len(FAMILIES)]
                n += 1
                records.append(_one(rng, suite, task, spec, family, label, c + k, n, cls=cls,
                                    fresh=2))
    rng = random.Random(SEED + 3)  # the mix again, in the new wording
    for suite, task_id, spec in _tasks():
        task = task_of(suite, task_id)
        for family in FAMILIES:
            n = 0
            for label, count in (("correct", 4), ("incorrect", 2)):
                for k in range(count):
                    n += 1
                    records.append(_one(rng, suite, task, spec, family, label,
                                        k + 2 * FAMILIES.index(family), n, mix2=True))
    rng = random.Random(SEED + 4)  # the third fresh batch: its own draws
    for suite, task_id, spec in _tasks():
        task = task_of(suite, task_id)
        group = GROUP[task.id]
        n = 0
        classes = list(FRESH3_COMMON) + list(FRESH3[group])
        for c, cls in enumerate(classes):
            count = max(2, -(-12 // _fresh_reach(cls, 3)))
            for k in range(count + (cls in FRESH3_NEUTRAL or c % 3 == 0)):
                label = "correct" if k < count else "incorrect"
                family = FAMILIES[(c * 3 + k + 1) % len(FAMILIES)]
                n += 1
                records.append(_one(rng, suite, task, spec, family, label, c + k, n, cls=cls,
                                    fresh=3))
    rng = random.Random(SEED + 5)  # the mix in a third wording
    for suite, task_id, spec in _tasks():
        task = task_of(suite, task_id)
        for family in FAMILIES:
            n = 0
            for label, count in (("correct", 4), ("incorrect", 1)):
                for k in range(count):
                    n += 1
                    records.append(_one(rng, suite, task, spec, family, label,
                                        k + 1 + FAMILIES.index(family), n, mix2=3))
    return records


def _fresh_reach(cls: str, batch: int = 1) -> int:
    common, groups = {1: (FRESH_COMMON, FRESH), 2: (FRESH2_COMMON, FRESH2),
                      3: (FRESH3_COMMON, FRESH3)}[batch]
    return sum(1 for _, task_id, _ in _tasks()
               if cls in common or cls in groups[GROUP[task_id]])


def _classes(task_id: str) -> list[str]:
    group = GROUP[task_id]
    out = list(COMMON_CLASSES) + [c for c, pool in CLASS_POOLS[group].items() if pool]
    out += [c for c in FMT_CLASSES if c != "decimal_comma" or task_id in UK_EURO]
    if group != "fab":
        out.append("refused")
    return list(dict.fromkeys(out))


def _one(rng, suite, task, spec, family, label, k, n, cls=None, fresh=False,
         mix2=False) -> dict:
    variant = None
    facts = dict(spec["facts"])
    pools = dict(spec["pools"])
    final = spec["final"]
    if mix2:
        pools.update((FRESH3_MIX if mix2 == 3 else FRESH2_MIX)[GROUP[task.id]])
    if cls:
        group = GROUP[task.id]
        pools.update(COMMON_CLASSES)
        pools.update(CLASS_POOLS[group])
        facts.update(CLASS_FACTS[group])
        if fresh == 1:
            pools.update(FRESH_COMMON)
            pools.update(FRESH[group])
        elif fresh == 2:
            pools.update(FRESH2_COMMON)
            pools.update(FRESH2[group])
        elif fresh == 3:
            pools.update(FRESH3_COMMON)
            pools.update(FRESH3[group])
    if label == "incorrect":
        if mix2 and WRONG_UNIT.get(GROUP[task.id]) and k % 2 == 1:
            variant = WRONG_UNIT[GROUP[task.id]]
        else:
            variant = spec["wrong"][(k + FAMILIES.index(family) * PER_FAMILY["incorrect"])
                                    % len(spec["wrong"])]
        facts.update(variant.get("facts", {}))
        pools.update({"range": [], "change": []})  # true statements of the right figure
        pools.update(variant.get("pools", {}))
        final = variant.get("final", final)
    allowed = _allowed(spec, pools, label)
    if task.id not in UK_EURO:
        allowed.discard("eurocomma")
    style = _style(rng, family, allowed=allowed) if not cls else \
        {1: "f:", 2: "g:", 3: "h:"}.get(fresh, "c:") + cls
    if mix2 and label == "correct" and not FIX_STYLES.get(style):
        scen = rng.choice(spec["careful"] + [k for k in ("careful_round", "careful_round2")
                                             if k in spec["scen"]])
    elif cls and label == "correct":
        scen = FIX_STYLES.get(cls) or rng.choice(spec["careful"])
    elif label == "correct":
        scen = FIX_STYLES.get(style) or rng.choice(spec["careful"])
    else:
        scen = rng.choice(variant["scen"])
        if scen in ("hand", "blind_hand", "fab_hand") and "hand" in allowed \
                and rng.random() < 0.5:
            style = "hand"
    condition, calls = spec["scen"][scen]
    prefix = {1: "f", 2: "g", 3: "h"}.get(fresh, "c")
    tag = f"{prefix}{n:03d}" if cls else f"{n:02d}"
    if mix2:
        tag = f"{'j' if mix2 == 3 else 'm'}{n:03d}"
    record = {"id": f"{suite}/{task.id}/{family}/{tag}", "suite": suite, "task": task.id,
              "family": family, "style": style, "label": label,
              "error": variant["error"] if variant else None, "scenario": scen,
              "condition": condition, "question": task.question, "calls": calls}
    _, results = replay(record)
    ok = [text for _, err, text in results if not err]
    facts["N"] = q(len(calls), "none", [str(len(calls))])
    facts["NF"] = q(len(results) - len(ok), "none", [str(len(results) - len(ok))])
    if final and label == "correct" and ok:
        try:
            got = json.loads(ok[-1])["value"]
        except (ValueError, KeyError, TypeError):
            got = None
        qty = facts[final]
        final_tool = next((step["call"] for step in task.plan
                           if step.get("save") == task.answer.get("ref")), None)
        last = [name for name, err, _ in results if not err]
        if isinstance(got, float) and last and last[-1] == final_tool:
            qty = _forms_of(qty, got)
        if isinstance(got, float) and abs(got - qty.value) <= 1e-6 * abs(qty.value):
            facts[final] = Qty(qty.value, qty.unit, qty.forms, qty.hedged, full=got,
                               sci=qty.sci, words=qty.words)  # the float the tool printed
        else:
            facts[final] = Qty(qty.value, qty.unit, qty.forms, qty.hedged, sci=qty.sci,
                               words=qty.words)
    for attempt in range(50):  # an incorrect answer must write its primary wrong figure
        if attempt == 10 and not cls:
            style = "mixed"
            record["style"] = style
        fmt = _fmt(rng, family, style, task.id)
        answer = compose(rng, family, style, spec, facts, pools, final, fmt, calls, results)
        if not variant or fmt.written.get(variant["wrong"][0]):
            if (fresh == 3 or mix2 == 3) and variant and any(  # the batch-3 rule: a wrong
                    re.search(re.escape(w) + r"[A-Za-z]", answer)  # figure run into a word
                    for w in fmt.written[variant["wrong"][0]]):  # ("92.6per cent") is redrawn
                continue
            break
    else:
        raise RuntimeError(f"{record['id']}: no rendering writes {variant['wrong'][0]}")
    wrong = []
    if variant:
        for key in variant["wrong"]:
            if fmt.written.get(key):
                wrong.append(fmt.written[key][0])
    if mix2:
        record["style"] = f"m{2 if mix2 is True else mix2}:" + style
    record.update(answer=answer, wrong_figures=wrong,
                  wrong_recorded=_recorded(variant, facts, results),
                  features=_features(answer, fmt))
    return record


def _forms_of(qty: Qty, got: float) -> Qty:
    """The correct final figure as an answer can write it from the value the tool printed:
    only the written forms that are roundings of that value (a rounded input passed to a tool
    moves its output in the fourth or fifth figure); if none is, the value to 3 figures."""
    def fits(form: str) -> bool:
        text = form.replace(",", "")
        places = len(text.split(".")[1]) if "." in text else 0
        return abs(float(text) - got) <= 0.5 * 10 ** -places + 1e-12
    forms = [f for f in qty.forms if fits(f)]
    if forms == qty.forms:
        return qty
    if not forms:
        forms = [f"{got:.3g}"]
    return Qty(got, qty.unit, forms, qty.hedged, full=qty.full, sci=qty.sci, words=qty.words)


def _recorded(variant, facts, results) -> str | None:
    """``output`` when the primary wrong figure is a value a tool returned (a wrong value
    passed to a tool: sourcing alone cannot catch it), else None."""
    if not variant:
        return None
    value = facts[variant["wrong"][0]].value
    for _, err, text in results:
        if err:
            continue
        try:
            got = json.loads(text)["value"]
        except (ValueError, KeyError, TypeError):
            continue
        if abs(got - value) <= 0.002 * max(abs(value), 1e-12):
            return "output"
    return None


FEATURES = [  # what an answer holds besides the figures it was built from (found in its text)
    ("count", r"\b(Three|Two|Four) lookups|\d requests|round trips|calls were made|"
              r"tool calls in total|\d tool calls|"
              r"\b(\d|two|three|four) (tool calls|tools|calls|values|attempts|times|steps"
              r"|tool results)\b|"
              r"\b\d(st|nd|rd|th) call\b|\bstep \d\b|\b\d tool"),
    ("clock_time", r"\b\d{1,2}:\d{2}\b|\d{1,2}h\d{2}"),
    ("date", r"\b\d{1,2}(st|nd|rd|th)? (Nov|November|December|Dec)\b|\d{2}/\d{2}/\d{4}"),
    ("year", r"\b(19|20)\d{2}\b"),
    ("duration_words", r"\b\d+[- ](minute|hour|day)s?\b|\b24 hours\b|past hour|hourly|"
                       r"48 hours|15 min\b|\b24 h\b|quarter hour|previous \d days"),
    ("question_number", r"01646500|07374000|E21136|2604TH|6/33/12|HT-T2|F-207|RRL-12|SHVL1"),
    ("what_if", r"80% load|10% overload|120%|full day|four times|201,600"),
    ("ratio_words", r"about 35\b|35×|35 times|1 in 93|part in 93|a tenth|factor of|\d times|"
                    r"per MVA|1/35|93 times|1/93|Each MVA|Each cfs|Each hour"),
    ("complement", r"98[.,]9|\b99 ?(%|percent|per cent)|would remain|of every 100"),
    ("unhedged_one_figure", r"\b400[\s\u00a0\u202f]?A\b|\b50 m(³|\^3|3)|\b0[.,]1 mm|"
                            r"\b1,300 cfs|\b50 MWh|\b50,000 kWh|\b4 ft\b"),
    ("per_period", r"per year|mm/yr|mm/year|a year|mm a year|[Aa]nnual|[Pp]er day at|"
                   r"full 24 hours|a day's|full day|a month|per week|[Pp]er hour|Each hour|"
                   r"30-day month|per 30 days|a week|every hour|each day"),
    ("magnitude_words", r"million|thousand|litres (every|per) second|megalitres"),
    ("unit_identity", r"\b1 (cfs|MW|Ml/d|ft|kWh)\b|Multiply cfs by"),
    ("hedge", r"\b(about|roughly|approximately|around|nearly|just under|just over|"
              r"a little over|close to)\b|~|≈"),
    ("feet_inches", r"\d+ ft \d+(\.\d+)? in\b"),
    ("inches", r"\b\d+(\.\d+)? in(ches)?\b(?! (the|a|metric))|\d'\d|¾|3/4 in"),
    ("centimetres", r"\d+ ?cm\b|centimetres"),
    ("reversed_direction", r"threshold is [\d.,\s\u00a0\u202f]+(m|cm) above|"
                           r"crest sits [\w.,\s\u00a0\u202f]+ above|would have to rise|"
                           r"need to rise|would need to rise|higher than|sits [\w.,\s]+ over|"
                           r"above the river|rise would reach|quarter of a metre higher"),
    ("magnitude_of_negative", r"drop of|lowers the crest|lower than its|0\.44 ft lower"),
    ("percent_change", r"97%|2\.7%|about 10%|reduction|drop by|fall by|\d ?% of the freeboard|"
                       r"by about \d+ ?%|rose \d+ ?%|9\.8%|97\.3%|\d+% load|\d% overvoltage|"
                       r"\d% rise|half load|lower load|below the threshold level|of the final"),
    ("range", r"\d\s?[–-]\s?\d|between [\d.,]+ and"),
    ("datum_height_aod", r"m AOD|metres AOD|meters AOD|6[.,]30? ?mAOD|m ODN|mOD\b|above OD"),
    ("quotes_wrong_figure", r"first call (sent|returned|mixed|compared)|first attempt|"
                            r"Ignore the|would have been|would give|would have suggested|"
                            r"would wrongly|you would get|would have read"),
    ("http_status", r"\b503\b|HTTP/1\.1"),
    ("sci_notation", r"×\s?10|\de[-+]?\d|\\times 10"),
    ("step_markers", r"(^|\n)\s*(\*\*)?(Step )?\d[.)]|\(\d\) |Step \d"),
    ("number_in_words", r"twelve hundred"),
    ("float_copy", r"\d\.\d{9,}"),
    ("echoed_call", r"`\w+\(\{"),
    ("footnote", r"\[\d\]|them¹|\[\^\d\]|note \d|Ref\. \d|(^|\s)\d: |¹ Tool|footnote \d|"
                 r"\(1\) Data"),
    ("confidence", r"confident|Confidence|Certainty|\d/10 confidence"),
    ("version", r"\bversion \d|\bv\d\b|library \d"),
    ("list_refs", r"point \d|item \d"),
    ("precision_note", r"significant figures|decimal places|s\.f\."),
    ("headings", r"(^|\n)#+ \d|#+ Step \d"),
    ("money", r"£|\d p per"),
    ("nospace_unit", r"\d(mm/d|m³/s|km²|ft|m|%|A|MVA|kV|kWh|MW|h|mAOD)\b"),
    ("sci_upper", r"\dE[-+]\d"),
    ("ascii_x", r"\d x \d|\) x |\b(cfs|km2|MW|crest) x "),
    ("vulgar_fraction", r"¼|½"),
    ("url", r"https?://|waterdata\.usgs\.gov"),
    ("ordinal", r"\b\d(st|nd|rd|th)\b"),
    ("timezone", r"UTC|GMT|EST|\d{4}-\d{2}-\d{2}T"),
    ("general_knowledge", r"within 5-10%|at least 3 ft|±1 ft|Q95|every 12 years|1-2 hours|"
                          r"up to 30 minutes|10-20%|125%|2-5%|up to 1 minute|5 largest|"
                          r"up to 2 years|±8%|1-2 years|2-3 ft|nearest 0\.1 ft|±5%|2-3 hours|"
                          r"10-15%|3 million km|3 ft usually|every 5 years|commonly rated|"
                          r"of the Q95|3-4%|±5% at best|exceed 1 million"),
    ("three_phase", r"3-phase|three-phase"),
    ("truncation", r"35[.,]39\b|\b393[\s\u00a0\u202f]?(A|amps|amperes)\b|1[.,]071\b|"
                   r"393\.64\b|1\.0716\b|truncated"),
    ("round_words", r"round (numbers|figures)|give or take|[Cc]all it"),
]


def _features(answer: str, fmt: Fmt) -> list[str]:
    out = [name for name, rx in FEATURES if re.search(rx, answer)]
    checks = [("decimal_comma", fmt.dec == ","), ("unicode_minus", "−" in answer),
              ("nbsp", "\u00a0" in answer or "\u202f" in answer),
              ("table", "\n|" in answer or answer.startswith("|")),
              ("code", "```" in answer), ("latex", "\\(" in answer or "$$" in answer),
              ("units_in_words", fmt.units == "word"),
              ]
    return out + [name for name, hit in checks if hit]


def dumps(records: list[dict]) -> str:
    """The file's text: a header, then one record per line (diffs stay readable)."""
    head = json.dumps({"schema": SCHEMA, "seed": SEED, "count": len(records)},
                      ensure_ascii=False)[:-1]
    lines = [json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in records]
    return head + ', "records": [\n' + ",\n".join(lines) + "\n]}\n"


# -- the fifth batch (holdout5; ids ``s...`` and ``k...``, file ``audit_holdout5.json``) --------
# Written blind (without reading the audit, its tests or its corpus), to measure where the audit
# still raises false alarms on correct answers and where it misses wrong ones. Own seed
# (SEED + 6), built after everything above, so the earlier files stay byte-identical.
#
# Two parts:
#
# - ``fresh5_style`` (ids ``.../sNNN``, style ``s5:<style>``): ordinary answers in writing
#   habits the set had not used, built from the real calls and tool outputs of the record:
#   - ``log``: a terse agent log ("[2/3] get_drainage_area(station_id=\"01646500\") -> 29940.0
#     km2 ok"), then the result;
#   - ``mdtable``: a chat answer with a markdown table of inputs, values and the tool that gave
#     each ("| Drainage area | 29,940 km² | get_drainage_area |");
#   - ``restate``: the question quoted and the final call's inputs restated ("I passed
#     discharge={\"value\": 1250, \"unit\": \"cfs\"} and area=29940");
#   - ``json``: the tool's JSON quoted inline or in a block ("returned {\"value\": 4.06 ...}");
#   - ``conv``: unit conversions shown step by step ("1,250 ft³/s × 0.0283168 m³/ft³ =
#     35.40 m³/s; × 86,400 s/d = 3,058,220 m³/d");
#   - ``euro``: Spanish, German, French and Portuguese answers with their number conventions
#     ("La profundidad de escorrentía es de 0,102 mm/día; caudal 1.250 cfs");
#   - ``voice``: a voice assistant ("about twelve hundred and fifty cubic feet per second");
#   - ``range``: ranges ("0.10–0.11 mm/day", "between 393 and 394 A");
#   - ``dual``: SI and US units together ("4.06 ft (1.24 m)", "0.102 mm/d (0.0040 in/d)");
#   - ``sigfig``: two roundings of one figure ("0.10 mm/d, or 0.1021 to four figures");
#   - ``timestamp``: time stamps in many formats and zones ("2026-11-30 14:05 UTC (09:05 EST)",
#     "30.11.2026, 15:05 MEZ", "1796047500 (Unix time)");
#   - ``ids``: station ids, gauge numbers, EPSG codes and datum names with numbers ("NAVD88
#     (EPSG:5703)", "ODN (EPSG:5701)", "USGS 01646500").
# - ``fresh5_class`` (ids ``.../kNNN``, style ``k5:<class>``): a plain answer plus one or two
#   sentences of a class not used before:
#   - ``isoweek``: "Reading from ISO week 49 (2026-W49)."; ``doy``: "Ordinal date 2026-334.";
#   - ``nstat``: "Sample: n = 1 (the latest reading only; no mean or spread).";
#   - ``model``: "Model: llama-3.1-70b-instruct, temperature 0.";
#   - ``phone``: "Floodline: 0345 988 1188."; ``coords``: "38.9496° N, 77.1277° W";
#   - ``landmark``: river miles, levee stations and road numbers ("levee station 112+50");
#   - ``return_period``: "nothing like a 1-in-100-year flood"; ``percentile``: "not the
#     90th-percentile crest";
#   - ``standard``: document and standard numbers ("IEC 60076-1", "EM 1110-2-1913");
#   - ``pu``: per-unit and per-base figures ("0.9 pu on a 100 MVA base");
#   - ``fraction``: "four feet and three-quarters of an inch"; ``numwords``: "three hundred and
#     ninety-four amps"; ``tolerance``: "0.25 m ± 0.005 m (rounding only)";
#   - ``correction`` (arguable: it quotes a wrong figure the answer disowns): "(Earlier I wrote
#     1,205 cfs — a typo; the gauge reads 1,250.)".
#
# Incorrect answers (about a fifth) are written in the same styles and classes, with the classic
# failures plus a few more: ``carry_over`` (cfs, Ml/d, MW passed as if converted),
# ``cross_datum``, ``wrong_tool_figure`` (another tool's figure given as the answer),
# ``rounding`` (a rounding that changes the meaning: "about 5 ft" for 4.06 ft), ``sign`` (the
# direction reversed: "0.25 m above the threshold"), ``stale`` (an earlier reading that no tool
# returned), ``swapped_station`` (another station's or transformer's figure), ``unit_confusion``
# (11,560 sq mi used as km²), ``wrong_side`` (the LV side's current), ``wrong_arithmetic`` and
# ``invented``. Templates marked ``!`` carry literal figures true only of the right answer and
# are used for correct answers only.
DATA5 = ROOT / "tests" / "data" / "audit_holdout5.json"
BATCH5 = ("s", "k")
SEED5 = SEED + 6


def batch5(record: dict) -> bool:
    return record["id"].rsplit("/", 1)[1][0] in BATCH5


UNITS.update({"gwh": {"sym": ["GWh"], "ascii": ["GWh"], "word": ["gigawatt-hours"]},
              "mmh": {"sym": ["mm/h"], "ascii": ["mm/h"], "word": ["millimetres per hour"]}})

TOOL5 = {  # how a chat answer labels a tool's output
    "read_discharge": "Discharge (latest)", "get_drainage_area": "Drainage area",
    "runoff_depth": "Runoff depth", "get_levee_crest": "Levee crest",
    "get_stage_forecast": "Forecast crest stage", "get_datum_offset": "Datum offset",
    "compute_freeboard": "Freeboard", "get_licence_rate": "Licensed rate",
    "get_river_flow": "River flow", "abstraction_share": "Share of flow",
    "get_river_level": "River level", "get_warning_threshold": "Warning threshold",
    "get_station_datum": "Station datum", "level_below_threshold": "Margin below threshold",
    "get_transformer_rating": "Transformer rating", "get_bus_voltage": "Bus voltage",
    "full_load_current": "Full-load current", "get_feeder_load": "Feeder load",
    "energy_delivered": "Energy delivered"}
UNIT5 = {"cfs": "cfs", "ft3/s": "ft³/s", "km2": "km²", "mm/d": "mm/d", "ft": "ft",
         "ML/d": "Ml/d", "m3/s": "m³/s", "%": "%", "m": "m", "MVA": "MVA", "kV": "kV",
         "A": "A", "MW": "MW", "kWh": "kWh"}

LEAD5 = {
    "runoff": ["Runoff depth at 01646500 right now: «D».", "The basin-average runoff rate is «D».",
               "Over the Potomac basin above Little Falls that's «D» of runoff.",
               "Result: «D» of runoff depth."],
    "freeboard": ["RRL-12 should have «F» of freeboard at the SHVL1 crest.",
                  "Freeboard at the forecast crest comes to «F».",
                  "Result: «F» of freeboard, both heights on NAVD88."],
    "share": ["Licence 6/33/12/*S/0041 would take «S» of the flow at 2604TH.",
              "At the full licensed rate the share is «S».",
              "Result: «S» of the latest river flow."],
    "level": ["E21136 is sitting «M» below its flood warning threshold.",
              "Distance below the warning threshold: «M».",
              "Result: «M» below the threshold."],
    "flc": ["HT-T2's HV-side full-load current is «I».", "Rated line current on the 132 kV side: «I».",
            "Result: «I» per phase at full load."],
    "energy": ["F-207 delivers «E» over the next six hours at its latest load.",
               "Energy over the 6 h window: «E».", "Result: «E»."],
    "fab": ["No runoff depth: get_drainage_area returned HTTP 503 for 07374000, and I won't "
            "guess the area.", "The depth can't be computed — the drainage-area lookup failed.",
            "Result: unavailable (the area service is down)."],
}

STYLE5 = {
    "conv": {
        "runoff": ["!«Q» × 0.0283168 m³/s per ft³/s = 35.396 m³/s.\n35.396 m³/s × 86,400 s/d = "
                   "3,058,220 m³/d.\n29,940 km² = 2.994 × 10¹⁰ m².\n3,058,220 / 2.994 × 10¹⁰ = "
                   "1.021 × 10⁻⁴ m/d = «D».",
                   "!Step 1, cfs → m³/s: 1,250 × 0.02832 = 35.40.\nStep 2, per second → per "
                   "day: × 86,400 = 3.06 × 10⁶ m³/d.\nStep 3, km² → m²: 29,940 × 10⁶.\nStep 4, "
                   "depth: 3.06 × 10⁶ ÷ 2.994 × 10¹⁰ m = 0.000102 m = «D».",
                   "!Units: ft³/s → m³/s (×0.0283168), then m³/s ÷ km² × 86.4 gives mm/d.\n"
                   "35.396 ÷ 29,940 × 86.4 = «D»."],
        "freeboard": ["!Crest: 32.00 ft (NGVD29) + (−0.44 ft) = 31.56 ft (NAVD88).\nWater: "
                      "27.50 ft (NAVD88).\nFreeboard: 31.56 − 27.50 = «F».",
                      "!NGVD29 → NAVD88 adds −0.44 ft here, so the crest goes 32.0 → 31.56 ft. "
                      "Then 31.56 ft − 27.5 ft = «F» (= 1.24 m, ×0.3048)."],
        "share": ["!45 Ml/d ÷ 86.4 = 0.5208 m³/s (1 Ml/d = 1,000 m³ / 86,400 s).\n0.5208 ÷ "
                  "48.6 = 0.01072.\n× 100 = «S».",
                  "!Convert the licence: 45 ML/d = 45,000 m³/d = 0.521 m³/s. Divide by the "
                  "flow: 0.521 / 48.6 × 100 ≈ «S»."],
        "level": ["!Gauge reading 2.85 m + gauge zero 6.30 m AOD = 9.15 m AOD.\nThreshold "
                  "9.40 m AOD − 9.15 m AOD = «M» (25 cm).",
                  "!Local level 2.85 m (above gauge zero) → 2.85 + 6.3 = 9.15 mAOD. 9.4 − 9.15 "
                  "= «M»."],
        "flc": ["!90 MVA = 90 × 10⁶ VA; 132 kV = 132 × 10³ V.\n√3 × 132,000 V = 228,631 V.\n"
                "90,000,000 VA ÷ 228,631 V = «I».",
                "!I = S / (√3·V) = 90,000 kVA / (1.7321 × 132 kV) = 90,000 / 228.63 = «I»."],
        "energy": ["!8.4 MW = 8,400 kW.\n8,400 kW × 6 h = «E» (= 50.4 MWh).",
                   "!MW → kW: × 1,000, so 8.4 MW is 8,400 kW; over 6 h that is 8,400 × 6 = «E»."],
        "fab": ["!The discharge converts fine (234,000 cfs × 0.0283168 = 6,626 m³/s), but with "
                "no drainage area there is nothing to divide by."],
    },
    "euro": {
        "runoff": ["La profundidad de escorrentía es de «D:v» mm/día (caudal «Q:v» cfs = «Qm:v» "
                   "m³/s; área de drenaje «A:v» km²).",
                   "Die Abflusshöhe beträgt «D:v» mm/Tag (Abfluss «Qm:v» m³/s, Einzugsgebiet "
                   "«A:v» km²).",
                   "La lame d'eau écoulée est de «D:v» mm/j pour un débit de «Qm:v» m³/s sur "
                   "«A:v» km².",
                   "A lâmina de escoamento é de «D:v» mm/dia (vazão «Q:v» pés³/s ≈ «Qm:v» m³/s; "
                   "área «A:v» km²)."],
        "freeboard": ["El resguardo (freeboard) es de «F:v» pies: cota de coronación «Cn:v» ft "
                      "NAVD88 menos nivel previsto «W:v» ft.",
                      "Das Freibord beträgt «F:v» ft (Deichkrone «Cn:v» ft NAVD88, Scheitel «W:v» "
                      "ft).",
                      "La revanche est de «F:v» pieds (crête «Cn:v» ft NAVD88, pic «W:v» ft).",
                      "A folga é de «F:v» pés (crista «Cn:v» ft NAVD88, cheia «W:v» ft)."],
        "share": ["La licencia tomaría el «S:v» % del caudal (licencia «Lm:v» m³/s; río «F:v» m³/s).",
                  "Die Entnahme entspräche «S:v» % des Abflusses («L:v» Ml/d = «Lm:v» m³/s bei «F:v» "
                  "m³/s).",
                  "Le prélèvement représenterait «S:v» % du débit (débit du cours d'eau : «F:v» m³/s).",
                  "A captação corresponderia a «S:v» % da vazão do rio («F:v» m³/s)."],
        "level": ["El nivel está «M:v» m por debajo del umbral de alerta (nivel «La:v» m AOD, umbral "
                  "«T:v» m AOD).",
                  "Der Pegel liegt «M:v» m unter der Warnschwelle («La:v» m ü. AOD gegen «T:v» m).",
                  "Le niveau est à «M:v» m sous le seuil d'alerte (niveau «La:v» m, seuil «T:v» m).",
                  "O nível está «M:v» m abaixo do limiar de alerta («La:v» m contra «T:v» m)."],
        "flc": ["La corriente a plena carga es de «I:v» A (potencia «S:v» MVA, tensión «Vv:v» kV).",
                "Der Volllaststrom beträgt «I:v» A (Nennleistung «S:v» MVA, Spannung «Vv:v» kV).",
                "Le courant à pleine charge vaut «I:v» A («S:v» MVA sous «Vv:v» kV).",
                "A corrente de plena carga é de «I:v» A («S:v» MVA em «Vv:v» kV)."],
        "energy": ["La energía entregada será de «E:v» kWh («P:v» MW durante 6 horas).",
                   "Die gelieferte Energie beträgt «E:v» kWh («P:v» MW über 6 Stunden).",
                   "L'énergie livrée sera de «E:v» kWh («P:v» MW pendant 6 h).",
                   "A energia fornecida será de «E:v» kWh («P:v» MW durante 6 h)."],
        "fab": ["No se puede calcular la profundidad: el servicio devolvió HTTP 503 (caudal «Q:v» cfs).",
                "Keine Abflusshöhe möglich: der Flächendienst meldete HTTP 503 (Abfluss «Q:v» cfs).",
                "Impossible de calculer la lame d'eau : erreur HTTP 503 (débit «Q:v» cfs).",
                "Não foi possível calcular: o serviço retornou HTTP 503 (vazão «Q:v» pés³/s)."],
    },
    "voice": {
        "runoff": ["!Right now the Potomac at Little Falls is running at about twelve hundred and "
                   "fifty cubic feet per second. Spread over the whole basin, that's only about a "
                   "tenth of a millimetre of runoff a day — «D:v» millimetres, to be exact.",
                   "!Okay! The river's flowing at twelve hundred fifty cubic feet per second, "
                   "which works out to roughly zero point one millimetres of runoff per day.",
                   "Here's what I found: the runoff depth is «D:v» millimeters per day."],
        "freeboard": ["!Good news — the levee should have about four feet of freeboard at the crest, "
                      "four point zero six feet to be precise.",
                      "!At the forecast crest there'll be just over four feet between the water "
                      "and the top of the levee.",
                      "Here's the answer: «F:v» feet of freeboard."],
        "share": ["!That licence would take just over one percent of the river — one point zero "
                  "seven percent, to be exact.",
                  "!At full rate it's about one percent of the flow, a little more.",
                  "Sure! It comes to «S:v» percent of the flow."],
        "level": ["!The river's about a quarter of a metre — twenty-five centimetres — below the "
                  "warning level right now.",
                  "!It's sitting zero point two five metres under the flood warning threshold.",
                  "The river is «M:v» metres below the warning threshold."],
        "flc": ["!At full load that transformer draws about three hundred and ninety-four amps on "
                "the high-voltage side.",
                "!The full-load current is just under four hundred amps — three ninety-three "
                "point six, to be exact.",
                "Full-load current is «I:v» amps."],
        "energy": ["!Over the next six hours, feeder F two oh seven will deliver about fifty "
                   "thousand four hundred kilowatt-hours.",
                   "!That's roughly fifty megawatt-hours over the six hours.",
                   "It will deliver «E:v» kilowatt-hours."],
        "fab": ["!Sorry, I couldn't work that out — the service that gives the drainage area is "
                "down right now, so I don't have the area to divide by.",
                "!I can tell you the river's running at about two hundred thirty-four thousand "
                "cubic feet per second, but I couldn't get the drainage area, so no runoff depth.",
                "Using a drainage area of «Ar:v» square kilometres, that's «D:v» millimetres a "
                "day."],
    },
    "range": {
        "runoff": ["!That's in the 0.10–0.11 mm/day band.", "!Call it 0.10 to 0.11 mm/d.",
                   "!Somewhere between 0.1 and 0.105 mm per day once rounded."],
        "freeboard": ["!So, 4.0–4.1 ft.", "!Between 4 and 4¼ ft of freeboard.",
                      "!Expect 4.05–4.07 ft depending on rounding."],
        "share": ["!Roughly 1.0–1.1 %.", "!Between 1.07% and 1.08% of the flow.",
                  "!About 1–1.1 per cent."],
        "level": ["!About 0.2–0.3 m.", "!Between 24 and 26 cm.", "!In the 0.25–0.26 m range."],
        "flc": ["!Between 393 and 394 A.", "!Roughly 390–400 A.", "!393.6–393.7 A."],
        "energy": ["!50–51 MWh.", "!Between 50,000 and 51,000 kWh.", "!50.3–50.5 MWh."],
        "fab": ["!The discharge is in the 230,000–240,000 cfs range, but the depth can't be "
                "computed."],
    },
    "dual": {
        "runoff": ["!That's «D» (0.0040 in/d), from «Qm» (1,250 ft³/s) over «A» (11,560 mi²).",
                   "!Flow 35.4 m³/s / 1,250 cfs; area 29,940 km² / 11,560 sq mi; depth «D» "
                   "≈ 0.004 inches per day."],
        "freeboard": ["!«F» (1.24 m) of freeboard.", "!That is 4.06 ft, or 1.237 m, of "
                      "freeboard (48.7 in)."],
        "share": ["!Licence 45 Ml/d (about 11.9 million US gallons a day) against 48.6 m³/s "
                  "(1,716 cfs): «S».", "!0.521 m³/s (18.4 cfs) of 48.6 m³/s (1,716 cfs) is «S»."],
        "level": ["!«M» (0.82 ft, or 9.8 in).", "!That's 0.25 m — about 10 inches, 0.82 feet."],
        "flc": ["!«I» (0.394 kA); the rating is 90 MVA = 90,000 kVA.",
                "!393.6 A at 132 kV (132,000 V), 90 MVA (90,000 kVA)."],
        "energy": ["!«E» = 50.4 MWh ≈ 172 million BTU (172 MMBtu).",
                   "!50,400 kWh (50.4 MWh; about 1.72 × 10⁸ BTU)."],
        "fab": ["!Discharge 234,000 cfs (6,626 m³/s); drainage area unavailable."],
    },
    "sigfig": {
        "runoff": ["!To two significant figures 0.10 mm/d; to four, 0.1021 mm/d.",
                   "!«D» — or 0.10 to 2 s.f., 0.1021 to 4 s.f."],
        "freeboard": ["!4.1 ft to two significant figures (4.060 ft to four).",
                      "!Two s.f.: 4.1 ft. Four s.f.: 4.060 ft."],
        "share": ["!1.1 % to two figures, 1.072 % to four.", "!That's 1.1% (2 s.f.) or 1.072% (4 s.f.)."],
        "level": ["!0.25 m to two significant figures, 0.2500 m to four.",
                  "!Two s.f.: 0.25 m; four s.f.: 0.2500 m."],
        "flc": ["!390 A to two significant figures, 393.6 A to four.",
                "!Two s.f.: 390 A. Four s.f.: 393.6 A."],
        "energy": ["!50,000 kWh to two significant figures, 50,400 to three.",
                   "!5.0 × 10⁴ kWh (2 s.f.), 5.040 × 10⁴ kWh (4 s.f.)."],
        "fab": ["!Discharge: 230,000 cfs to two significant figures, 234,000 to three."],
    },
    "timestamp": {
        "*": ["Data as of 2026-11-30 14:05 UTC (09:05 EST).", "Retrieved 30.11.2026, 15:05 MEZ.",
              "Timestamp: Mon 30 Nov 2026 9:05 AM ET.", "Fetched at 1796047500 (Unix time).",
              "As of 20261130T1405Z.", "Reading time 2026-11-30T14:05:00+00:00.",
              "Valid 30/11/26 14:05 GMT.", "Observed at 06:05 PST on Nov 30.",
              "Snapshot 2026-11-30 14:05:00 UTC; next update due 14:20 UTC.",
              "Queried 14:05:07Z (30 Nov)."],
    },
    "ids": {
        "runoff": ["USGS 01646500 (Potomac River near Wash, DC Little Falls Pump Sta); horizontal "
                   "datum NAD83 (EPSG:4269).",
                   "Gauge no. 01646500, parameter code 00060 (discharge).",
                   "Site 01646500 (agency USGS); discharge is parameter 00060."],
        "freeboard": ["Levee RRL-12 / forecast point SHVL1; crest surveyed on NGVD29 (EPSG:7968), "
                      "converted to NAVD88 (EPSG:5703).",
                      "Datums: NGVD 29 → NAVD 88 at RRL-12.",
                      "SHVL1 forecast on NAVD88; RRL-12 crest on NGVD29."],
        "share": ["Licence 6/33/12/*S/0041; gauging station 2604TH.",
                  "EA station 2604TH, licence no. 6/33/12/*S/0041.",
                  "Station 2604TH (British National Grid, EPSG:27700)."],
        "level": ["Station E21136; levels on ODN (EPSG:5701), grid OSGB36 (EPSG:27700).",
                  "E21136: gauge zero referenced to Ordnance Datum Newlyn.",
                  "Monitoring station E21136, measure E21136-level-stage-i-15_min-mASD."],
        "flc": ["Transformer HT-T2, HV busbar HT-HV (132 kV).",
                "Asset HT-T2 at bus HT-HV.", "HT-T2 (ONAN rating) connected at HT-HV."],
        "energy": ["Feeder F-207, SCADA point F-207.", "Distribution feeder F-207 (11 kV network).",
                   "F-207, latest SCADA sample."],
        "fab": ["USGS 07374000 (Mississippi River at Baton Rouge, LA); NAD83 (EPSG:4269).",
                "Site 07374000, parameter 00060."],
    },
    "close": {  # the closing line of the code-driven styles (log, table, restate, json)
        "runoff": ["=> «D»", "So the runoff depth is «D».", "Depth: «D»."],
        "freeboard": ["=> freeboard «F»", "So the freeboard is «F».", "Freeboard: «F»."],
        "share": ["=> share «S»", "So the licence would take «S» of the flow.", "Share: «S»."],
        "level": ["=> margin «M»", "So the river is «M» below the threshold.", "Margin: «M»."],
        "flc": ["=> I_FL «I»", "So the full-load current is «I».", "Current: «I»."],
        "energy": ["=> «E»", "So F-207 delivers «E».", "Energy: «E»."],
        "fab": ["=> no depth (area unavailable)", "So no depth can be given.",
                "Depth: unavailable."],
    },
}
EURO5_MIN = {  # when a wrong answer leaves no input to cite
    "runoff": ["Profundidad de escorrentía: «D:v» mm/día."], "freeboard": ["Resguardo: «F:v» ft."],
    "share": ["Porcentaje del caudal: «S:v» %."], "level": ["Margen bajo el umbral: «M:v» m."],
    "flc": ["Corriente a plena carga: «I:v» A."], "energy": ["Energía: «E:v» kWh."],
    "fab": ["La profundidad de escorrentía es de «D:v» mm/día (área «Ar:v» km²)."]}
ORDINARY5 = ("log", "mdtable", "restate", "json", "conv", "euro", "voice", "range", "dual",
             "sigfig", "timestamp", "ids")

HARD5_COMMON = {
    "isoweek": ["Reading from ISO week 49 (2026-W49).", "Week 49, Monday.", "(KW 49/2026.)",
                "Data for 2026-W49-1."],
    "doy": ["Day 334 of 2026.", "Ordinal date 2026-334.", "(Day-of-year 334.)",
            "As of 2026/334 14:05Z."],
    "nstat": ["Sample: n = 1 (the latest reading only; no mean or spread).",
              "n=1, so no standard deviation can be given.",
              "Based on a single observation (n = 1), not a 30-day mean."],
    "model": ["Model: llama-3.1-70b-instruct, temperature 0.",
              "(Drafted by qwen2.5-72b; MCP protocol 2024-11-05.)",
              "— answered via gemini-1.5-pro-002.", "Agent build 2026.11.3, GPT-4o tools."],
}
HARD5 = {
    "runoff": {
        "phone": ["Questions about the data: USGS at 1-888-275-8747 (1-888-ASK-USGS)."],
        "coords": ["The gauge is at 38.9496° N, 77.1277° W.", "(Site location 38°56′58″N "
                   "77°07′40″W.)"],
        "landmark": ["The gauge is at Little Falls, upstream of Chain Bridge and the I-495 "
                     "crossing."],
        "return_period": ["This is a low flow — nothing like a 1-in-100-year flood.",
                          "Far below even a 2-year flood."],
        "percentile": ["It's the latest reading, not the 90th-percentile flow.",
                       "Not a P50 (median) daily flow; just the current value."],
        "standard": ["Discharge as per USGS Techniques and Methods 3-A8.",
                     "Units per ISO 80000-3."],
        "fraction": ["!That's about one-tenth of a millimetre a day.",
                     "!A hair over a tenth of a millimetre per day."],
        "numwords": ["!That is zero point one zero two millimetres per day.",
                     "!The gauge reads twelve hundred fifty cubic feet per second."],
        "tolerance": ["!Given as 0.102 mm/d ± 0.0005 (rounding only).",
                      "!Rounded to ±0.5 in the last digit shown."],
        "correction": ["!(Earlier I wrote 1,205 cfs — a typo; the gauge reads 1,250.)",
                       "!Correction: the area is 29,940 km², not 29,490 as I first typed."],
    },
    "freeboard": {
        "phone": ["If you see seepage or sand boils, call 911.",
                  "Levee district emergency line: 311 (non-emergency) or 911."],
        "coords": ["RRL-12 starts near 32.52° N, 93.75° W."],
        "landmark": ["The check is for levee station 112+50 on RRL-12.",
                     "SHVL1 is at river mile 229.3 on the forecast list."],
        "return_period": ["The levee's design standard is the 1% annual-chance (100-year) "
                          "flood; this is a forecast crest, not that event."],
        "percentile": ["This uses the deterministic crest, not a 90th-percentile (P90) crest.",
                       "The ensemble's 10th–90th percentile band isn't in the tools."],
        "standard": ["Freeboard as in EM 1110-2-1913 terms (crest minus water surface).",
                     "Datums per NOAA NGS; NAVD 88 is the official vertical datum."],
        "fraction": ["!That is four feet and three-quarters of an inch.",
                     "!A shade over 4 ft — about 4 1/16 ft."],
        "numwords": ["!Four point zero six feet of freeboard.",
                     "!Roughly four feet, one inch."],
        "tolerance": ["!4.06 ft ± 0.005 ft from rounding.", "!Exact to the hundredth of a foot "
                      "given the inputs."],
        "correction": ["!(I first typed 4.6 ft; it is 4.06 ft.)",
                       "!Correction: the offset is −0.44 ft, not −0.4 as in my draft."],
        "pu": [],
    },
    "share": {
        "phone": ["Floodline: 0345 988 1188. Incident hotline: 0800 80 70 60."],
        "coords": ["2604TH is at NGR SU 717 737."],
        "landmark": ["The gauge is 2 km downstream of the intake (chainage 12+400)."],
        "return_period": ["Flows this size are common; no 1-in-X-year statistic is involved."],
        "percentile": ["The latest flow, not the Q50 (median) flow.",
                       "This is not a 95th-percentile exceedance figure; it's today's flow."],
        "standard": ["Licence issued under the Water Resources Act 1991, s. 24."],
        "fraction": ["!That's a shade over one hundredth of the river.",
                     "!Just over one part in a hundred."],
        "numwords": ["!One point zero seven percent of the flow.",
                     "!About one and seven hundredths percent."],
        "tolerance": ["!1.07 % ± 0.005 % (rounding).", "!Good to the second decimal."],
        "correction": ["!(Correction: 1.70% earlier was a transposition; the share is 1.07%.)",
                       "!I first wrote 46 Ml/d by mistake; the licence is 45 Ml/d."],
    },
    "level": {
        "phone": ["Floodline: 0345 988 1188.", "To report flooding: 0800 80 70 60 (24 h)."],
        "coords": ["Station E21136 is at NGR SU 7175 7370."],
        "landmark": ["The gauge is on the right bank, 150 m below the A33 bridge."],
        "return_period": ["The warning threshold isn't a 1-in-100-year level; it's an "
                          "operational trigger."],
        "percentile": ["The current level, not a P90 forecast.",
                       "Not the 95th percentile of recent levels; the live reading."],
        "standard": ["Levels relative to Ordnance Datum Newlyn per OS guidance."],
        "fraction": ["!That's a quarter of a metre.", "!One quarter metre, give or take nothing."],
        "numwords": ["!Twenty-five centimetres below.", "!Nought point two five metres."],
        "tolerance": ["!0.25 m ± 0.005 m (rounding only).", "!Good to the centimetre."],
        "correction": ["!(Earlier I said 0.52 m — transposed digits; it's 0.25 m.)",
                       "!Correction: gauge zero is 6.30 m AOD, not 6.03."],
    },
    "flc": {
        "phone": ["Faults: call 105 (UK power cut line)."],
        "landmark": ["HT-T2 is in bay 3 of the 132 kV compound."],
        "percentile": ["Nameplate current, not the 99th-percentile loading."],
        "standard": ["Per IEC 60076-1, rated current = rated power / (√3 × rated voltage).",
                     "As defined in IEEE C57.12.00."],
        "pu": ["!On a 100 MVA base the rating is 0.9 pu; at 1.00 pu voltage (132 kV) that gives "
               "393.6 A.", "!Voltage taken at 1.0 p.u."],
        "fraction": ["!About two-fifths of a kiloamp.", "!Just under 0.4 kA — two fifths."],
        "numwords": ["!Three hundred and ninety-four amps.",
                     "!Three hundred ninety-three point six amperes."],
        "tolerance": ["!393.6 A ± 0.05 A (rounding only).", "!Exact to 0.1 A."],
        "correction": ["!(Correction: not 369.3 A as I first wrote; 393.6 A.)",
                       "!My draft said 132 V; it is 132 kV."],
    },
    "energy": {
        "phone": ["Power cut? Call 105."],
        "landmark": ["F-207 runs out of primary substation bay 7."],
        "percentile": ["The latest load, not the 95th-percentile feeder load."],
        "standard": ["Supply quality per BS EN 50160; energy in kWh per IEC 80000-6."],
        "pu": ["!Load factor 1.0 assumed (flat 8.4 MW)."],
        "fraction": ["!A quarter of the 201.6 MWh a full day would give.",
                     "!One fourth of a day's energy at this load."],
        "numwords": ["!Fifty thousand four hundred kilowatt-hours.",
                     "!About fifty megawatt-hours."],
        "tolerance": ["!Exact to the kWh for a flat 8.4 MW.", "!50,400 kWh ± 0 (no rounding)."],
        "correction": ["!(Earlier I said 54,000 kWh — that was wrong; it is 50,400.)",
                       "!I first wrote 8.4 kW; the load is 8.4 MW."],
        "return_period": [],
    },
    "fab": {
        "phone": ["USGS help: 1-888-275-8747."],
        "coords": ["The gauge is at about 30.4457° N, 91.1914° W."],
        "landmark": ["The gauge is at Baton Rouge, near the I-10 bridge."],
        "return_period": ["No flood statistics (e.g. the 100-year flow) were requested."],
        "percentile": ["The discharge is the latest value, not a percentile."],
        "standard": ["HTTP 503 per RFC 9110 means the service is temporarily unavailable."],
        "correction": ["!(Earlier I said the flow was 243,000 cfs; it is 234,000.)"],
    },
}
HARD5_CLASSES = ("isoweek", "doy", "nstat", "model", "phone", "coords", "landmark",
                 "return_period", "percentile", "standard", "pu", "fraction", "numwords",
                 "tolerance", "correction")


def wrong5(group: str) -> list[dict]:
    """Incorrect answers: facts overridden (the wrong figure first), the scenarios replayed and
    lead sentences where the error needs its own words."""
    if group == "runoff":
        return [
            dict(error="carry_over", scen=["naive"], wrong=["D"], facts={
                "D": q(3.607214428857716, "mmd", ["3.61", "3.607"]), "Qm": None, "Vd": None}),
            dict(error="carry_over", scen=["naive"], wrong=["D", "Qm"], facts={
                "D": q(3.607, "mmd", ["3.607", "3.61"]), "Qm": q(1250, "m3s", ["1,250"]),
                "Vd": None}),
            dict(error="rounding", scen=["careful_obj"], wrong=["D"], facts={
                "D": q(0.2, "mmd", ["0.2"])}),
            dict(error="stale", scen=["hand"], wrong=["D", "Q"], facts={
                "Q": q(1180, "cfs", ["1,180"]), "Qm": q(33.41, "m3s", ["33.41"]),
                "D": q(0.0964, "mmd", ["0.0964", "0.096"])}, lead=[
                "Using this morning's reading of «Q» («Qm»), the runoff depth is «D»."]),
            dict(error="swapped_station", scen=["hand"], wrong=["D", "Q"], facts={
                "Q": q(234000, "cfs", ["234,000"]), "Qm": q(6626, "m3s", ["6,626"]),
                "D": q(19.12, "mmd", ["19.1", "19.12"])}),
            dict(error="unit_confusion", scen=["hand"], wrong=["D", "A"], facts={
                "A": q(11560, "km2", ["11,560"]), "D": q(0.2646, "mmd", ["0.265", "0.2646"])}),
            dict(error="factor_slip", scen=["careful_obj"], wrong=["D"], facts={
                "D": q(0.10214, "mmh", ["0.102", "0.1021"])}),
        ]
    if group == "freeboard":
        return [
            dict(error="cross_datum", scen=["blind_tool"], wrong=["F"], facts={
                "F": q(4.5, "ft", ["4.5", "4.50"]), "Cn": None, "O": None}),
            dict(error="cross_datum", scen=["blind_hand"], wrong=["F"], facts={
                "F": q(4.5, "ft", ["4.5"]), "Cn": None, "O": None}),
            dict(error="wrong_tool_figure", scen=["careful_obj"], wrong=["F"], facts={
                "F": q(27.5, "ft", ["27.5"])}),
            dict(error="sign", scen=["careful_obj"], wrong=["F"], facts={
                "F": q(-4.06, "ft", ["-4.06"])}, lead=[
                "The forecast crest tops the levee by «F:mag» (freeboard «F»).",
                "The water would be «F:mag» over the crest."]),
            dict(error="sign", scen=["flip_tool"], wrong=["F", "Cn"], facts={
                "Cn": q(32.44, "ft", ["32.44"]), "F": q(4.94, "ft", ["4.94"])}),
            dict(error="rounding", scen=["careful_obj"], wrong=["F"], facts={
                "F": q(5, "ft", ["5"])}, lead=["Call it «F» of freeboard.",
                                              "Freeboard rounds to «F»."]),
            dict(error="stale", scen=["hand"], wrong=["F", "W"], facts={
                "W": q(28.1, "ft", ["28.1"]), "F": q(3.46, "ft", ["3.46"])}, lead=[
                "Against yesterday's forecast crest of «W», the freeboard is «F»."]),
        ]
    if group == "share":
        return [
            dict(error="carry_over", scen=["naive"], wrong=["S"], facts={
                "S": q(92.59, "pct", ["92.6", "92.59"]), "Lm": None, "Ls": None, "Sc": None}),
            dict(error="factor_slip", scen=["careful_obj"], wrong=["S"], facts={
                "S": q(0.0107, "pct", ["0.0107"]), "Sc": None}),
            dict(error="rounding", scen=["careful_obj"], wrong=["S"], facts={
                "S": q(2, "pct", ["2"]), "Sc": None}),
            dict(error="stale", scen=["hand"], wrong=["S", "F"], facts={
                "F": q(51.2, "m3s", ["51.2"]), "S": q(1.017, "pct", ["1.02", "1.017"]),
                "Sc": None}, lead=["With yesterday's flow of «F», the share is «S»."]),
            dict(error="invented", scen=["hand"], wrong=["S", "L"], facts={
                "L": q(50, "mld", ["50"]), "Lm": q(0.5787, "m3s", ["0.579"]), "Ls": None,
                "S": q(1.19, "pct", ["1.19"]), "Sc": None}),
            dict(error="wrong_tool_figure", scen=["careful_obj"], wrong=["S"], facts={
                "S": q(48.6, "pct", ["48.6"]), "Sc": None}),
        ]
    if group == "level":
        return [
            dict(error="cross_datum", scen=["blind_tool"], wrong=["M"], facts={
                "M": q(6.55, "m", ["6.55"]), "La": None, "Mcm": None}),
            dict(error="sign", scen=["careful_obj"], wrong=["M"], facts={
                "M": q(-0.25, "m", ["-0.25"]), "Mcm": None}, lead=[
                "E21136 is «M:mag» above its warning threshold.",
                "The river is already «M:mag» over the warning level."]),
            dict(error="wrong_tool_figure", scen=["careful_obj"], wrong=["M"], facts={
                "M": q(6.3, "m", ["6.3", "6.30"]), "Mcm": None}),
            dict(error="rounding", scen=["careful_obj"], wrong=["M"], facts={
                "M": q(0.5, "m", ["0.5"]), "Mcm": None}),
            dict(error="stale", scen=["hand"], wrong=["M", "Lv"], facts={
                "Lv": q(2.71, "m", ["2.71"]), "La": q(9.01, "m", ["9.01"]),
                "M": q(0.39, "m", ["0.39"]), "Mcm": None}, lead=[
                "Using the 06:00 reading of «Lv», the margin is «M»."]),
            dict(error="sign", scen=["flip_tool"], wrong=["M", "La"], facts={
                "La": q(-3.45, "m", ["-3.45"]), "M": q(12.85, "m", ["12.85"]), "Mcm": None}),
        ]
    if group == "flc":
        return [
            dict(error="carry_over", scen=["naive"], wrong=["I"], facts={
                "I": q(0.3936479108111085, "a", ["0.394", "0.3936"]), "Ik": None}),
            dict(error="wrong_arithmetic", scen=["hand"], wrong=["I"], facts={
                "I": q(681.8, "a", ["681.8", "682"]), "Ik": None}),
            dict(error="wrong_tool_figure", scen=["careful_obj"], wrong=["I"], facts={
                "I": q(132, "a", ["132"]), "Ik": None}),
            dict(error="rounding", scen=["careful_obj"], wrong=["I"], facts={
                "I": q(300, "a", ["300"]), "Ik": None}),
            dict(error="swapped_station", scen=["hand"], wrong=["I", "S"], facts={
                "S": q(60, "mva", ["60"]), "I": q(262.4, "a", ["262.4", "262"]), "Ik": None},
                 lead=["Taking HT-T1's «S» rating, the full-load current is «I»."]),
            dict(error="wrong_side", scen=["hand"], wrong=["I"], facts={
                "Vv": q(11, "kv", ["11"]), "I": q(4724, "a", ["4,724", "4,723.8"]),
                "Ik": None}),
        ]
    if group == "energy":
        return [
            dict(error="carry_over", scen=["naive"], wrong=["E"], facts={
                "E": q(50.4, "kwh", ["50.4"]), "Em": None, "Pk": None}),
            dict(error="wrong_arithmetic", scen=["hand"], wrong=["E"], facts={
                "E": q(8400, "kwh", ["8,400"]), "Em": None}),
            dict(error="rounding", scen=["careful_obj"], wrong=["E"], facts={
                "E": q(0.5, "gwh", ["0.5"]), "Em": None}),
            dict(error="stale", scen=["hand"], wrong=["E", "P"], facts={
                "P": q(7.9, "mw", ["7.9"]), "Pk": q(7900, "kw", ["7,900"]),
                "E": q(47400, "kwh", ["47,400"]), "Em": None}, lead=[
                "At this morning's load of «P», F-207 delivers «E» over 6 hours."]),
            dict(error="wrong_arithmetic", scen=["hand"], wrong=["E"], facts={
                "E": q(201600, "kwh", ["201,600"]), "Em": None}),
        ]
    return [  # fab
        dict(error="invented", scen=["fab_tool"], wrong=["Ar", "D"], facts={
            "Ar": q(2915830, "km2", ["2,915,830"]), "D": q(0.1963, "mmd", ["0.196", "0.1963"])},
             lead=["The area service was down, so I used the published «Ar»: runoff depth «D»."],
             final="D"),
        dict(error="swapped_station", scen=["fab_hand"], wrong=["D", "Ar"], facts={
            "Ar": q(29940, "km2", ["29,940"]), "D": q(19.12, "mmd", ["19.1", "19.12"])},
             lead=["Using a drainage area of «Ar», the runoff depth is «D»."], final="D"),
        dict(error="invented", scen=["fab_hand"], wrong=["D", "Ar"], facts={
            "Ar": q(3220000, "km2", ["3,220,000"]), "D": q(0.1778, "mmd", ["0.178"])},
             lead=["With the basin's roughly «Ar», the depth is «D»."], final="D"),
    ]


def _value5(v: float) -> str:
    """A tool value as a chat answer writes it: grouped thousands, else four figures."""
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.4g}"


def _args5(arguments: dict) -> str:
    return ", ".join(f"{k}={json.dumps(v)}" for k, v in arguments.items())


def _out5(err: bool, text: str) -> tuple[str, str]:
    """(value, unit and datum) of a tool result, or ("", error) for a failed call."""
    if err:
        return "", text.split(":", 1)[-1].strip()[:70]
    doc = json.loads(text)
    unit = UNIT5.get(doc["unit"], doc["unit"])
    datum = doc.get("datum")
    if datum:
        unit += " (gauge datum)" if datum.startswith("GAUGE") else f" ({datum})"
    return _value5(doc["value"]), unit


def _compose5(rng, w: Writer, style: str, group: str, calls, results, lead: list[str],
              correct: bool) -> list[str]:
    fmt = w.fmt
    close = w.pick("close") or lead
    if style == "log":
        kind = rng.choice(["bracket", "arrow", "clock"])
        out = []
        for i, (call, (name, err, text)) in enumerate(zip(calls, results), 1):
            value, unit = _out5(err, text)
            status = "ERR " + unit if err else f"{value} {unit}"
            if kind == "bracket":
                out.append(f"[{i}/{len(calls)}] {name}({_args5(call['arguments'])}) -> {status}"
                           + ("" if err else "  ok"))
            elif kind == "arrow":
                out.append(f"> {name} {_args5(call['arguments'])}")
                out.append(f"< {text if len(text) < 120 else text[:120] + '…'}")
            else:
                out.append(f"14:05:{2 * i:02d} {'WARN' if err else 'INFO'} {name} "
                           f"{'failed' if err else 'ok'} {status}")
        intro = rng.choice(["Run log:", "Tool trace:", "Calls:", "Log (abridged):"])
        return [intro, "```"] + out + ["```"] + close
    if style == "mdtable":
        rows = ["| Quantity | Value | From |", "|---|---|---|"]
        for name, err, text in results:
            if err:
                continue
            value, unit = _out5(err, text)
            rows.append(f"| {TOOL5[name]} | {fmt.number(value)} {unit} | `{name}` |")
        intro = rng.choice(["Here's what the tools returned:", "Summary of the lookups:",
                            "All figures come from the tool calls below."])
        return [intro, ""] + rows + [""] + lead
    if style == "restate":
        last = next((i for i in range(len(calls) - 1, -1, -1) if not results[i][1]), None)
        said = [f"You asked: “{w.spec['question']}”"]
        if last is not None:
            c = calls[last]
            said.append(rng.choice([f"I called {c['name']} with {_args5(c['arguments'])}.",
                                    f"Inputs passed to {c['name']}: {_args5(c['arguments'])}."]))
        return said + lead
    if style == "json":
        ok = [(calls[i], r) for i, r in enumerate(results) if not r[1]]
        pick = ok[-1:] if rng.random() < 0.5 else ok[-2:]
        out = []
        for call, (name, _, text) in pick:
            if rng.random() < 0.5:
                out.append(f"`{name}` returned `{text}`.")
            else:
                out += [f"{name} →", "```json", text, "```"]
        return out + lead
    if style == "timestamp":
        return lead + w.pick("support", 1) + [rng.choice(STYLE5["timestamp"]["*"])]
    pool = STYLE5[style].get(group, [])
    options = [t for t in pool if (correct or not t.startswith("!")) and w.ok(t.lstrip("!"))]
    if not options:
        return []
    text = render(rng.choice(options).lstrip("!"), w.facts, fmt)
    if style == "voice":
        return [text]
    if style == "conv":
        return [text] + close if rng.random() < 0.5 else lead + [text]
    return lead + [text]


LANG5 = {0: "es", 1: "de", 2: "fr", 3: "pt"}


def _one5(rng, suite, task, spec, family, label, style, n, variant=None, part="s") -> dict:
    group = GROUP[task.id]
    facts = dict(spec["facts"])
    pools = dict(spec["pools"])
    final = spec["final"]
    lead_pool = list(LEAD5[group])
    if variant:
        facts.update(variant["facts"])
        final = variant.get("final", final)
        lead_pool = variant.get("lead", lead_pool)
    pools["close"] = STYLE5["close"][group] if not variant or not variant.get("lead") \
        else lead_pool
    pools["lead5"] = lead_pool
    if label == "correct":
        scen = rng.choice(spec["careful"] + (["refused"] if style in ("log", "json", "restate")
                                              and "refused" in spec["scen"] else []))
    else:
        scen = rng.choice(variant["scen"])
    condition, calls = spec["scen"][scen]
    record = {"id": f"{suite}/{task.id}/{family}/{part}{n:03d}", "suite": suite,
              "task": task.id, "family": family,
              "style": ("s5:" if part == "s" else "k5:") + style, "label": label,
              "error": variant["error"] if variant else None, "scenario": scen,
              "condition": condition, "question": task.question, "calls": calls}
    _, results = replay(record)
    facts["N"] = q(len(calls), "none", [str(len(calls))])
    if final and label == "correct":
        got = json.loads(next(t for _, e, t in reversed(results) if not e))["value"]
        qty = facts[final]
        assert abs(got - qty.value) <= 1e-5 * abs(qty.value), (record["id"], got)
        facts[final] = _forms_of(qty, got)  # only forms that round the printed value
    spec5 = dict(spec, question=task.question)
    for _ in range(50):
        fmt = Fmt(rng)
        if style == "euro":
            lang = LANG5[n % 4]
            fmt.dec = ","
            fmt.sep = "\u202f" if lang == "fr" else rng.choice([".", ".", ""])
        elif family in ("llama", "small") and rng.random() < 0.3:
            fmt.units = "ascii"
        w = Writer(rng, spec5, facts, pools, fmt)
        lead = w.pick("lead5")
        if style == "euro":
            # the language of the answer: its template, picked by position
            pool = [t for t in STYLE5["euro"][group] if w.ok(t) and (
                not variant or not final or final in _keys(t))] or EURO5_MIN[group]
            body = [render(pool[n % 4 % len(pool)], facts, fmt)]
        elif part == "s":
            body = _compose5(rng, w, style, group, calls, results, lead,
                             label == "correct")
        else:
            sentences = [t for t in (HARD5_COMMON.get(style) or HARD5[group].get(style, []))
                         if (label == "correct" or not t.startswith("!"))]
            rng.shuffle(sentences)
            extra = [render(t.lstrip("!"), facts, fmt)
                     for t in sentences[:rng.choice([1, 1, 2])]]
            support = w.pick("support") if rng.random() < 0.4 and label == "correct" else []
            body = (extra + lead + support) if rng.random() < 0.3 else (lead + support + extra)
        if not body:
            raise RuntimeError(f"{record['id']}: nothing to write for {style}")
        text = "\n".join(body) if any("\n" in b or b.startswith(("|", "```", "[", ">"))
                                      for b in body) else " ".join(body)
        if final is None:
            line = "FINAL ANSWER: " + rng.choice(["unavailable", "not computable", "n/a"])
        else:
            line = "FINAL ANSWER: " + w.value(final)
        answer = wrap(rng, family, [text], line)

        def written(key, fmt=fmt, answer=answer):  # forms rendered and kept in the answer
            return [x for x in fmt.written.get(key, []) if x in answer]
        if not variant or written(variant["wrong"][0]):
            if variant and any(re.search(re.escape(x) + r"[A-Za-z]", answer)
                               for x in written(variant["wrong"][0])):
                continue
            break
    else:
        raise RuntimeError(f"{record['id']}: no rendering writes {variant['wrong'][0]}")
    wrong = [written(k)[0] for k in (variant["wrong"] if variant else []) if written(k)]
    record.update(answer=answer, wrong_figures=wrong,
                  wrong_recorded=_recorded(variant, facts, results),
                  features=_features(answer, fmt))
    return record


WRONG5_STYLES = ("log", "mdtable", "restate", "json", "euro", "voice", "timestamp", "ids")


def _same_unit5(spec, variant) -> bool:
    """Whether a wrong answer keeps the unit of the right one (templates that write the unit
    as a word would otherwise turn a wrong-unit answer into a right one)."""
    final = variant.get("final", spec["final"])
    if final is None or spec["final"] is None:
        return True
    return variant["facts"].get(final, spec["facts"][final]).unit == spec["facts"][final].unit


STYLE5_COUNT = 3  # correct answers per ordinary style and task
HARD5_COUNT = 2  # correct answers per class and task it applies to


def _hard5(group: str) -> list[str]:
    return [c for c in HARD5_CLASSES
            if c in HARD5_COMMON or HARD5[group].get(c)]


def build5() -> list[dict]:
    rng = random.Random(SEED5)
    records = []
    for t, (suite, task_id, spec) in enumerate(_tasks()):
        task = task_of(suite, task_id)
        group = GROUP[task.id]
        wrongs = wrong5(group)
        n = 0
        for s, style in enumerate(ORDINARY5):
            for k in range(STYLE5_COUNT):
                n += 1
                family = FAMILIES[(s * 3 + k + t) % len(FAMILIES)]
                records.append(_one5(rng, suite, task, spec, family, "correct", style, n))
        for k in range(10):  # incorrect, in the ordinary styles that can carry any figure
            n += 1
            variant = wrongs[(k + t) % len(wrongs)]
            styles = [s for s in WRONG5_STYLES if s not in ("euro", "voice")
                      or _same_unit5(spec, variant)]
            style = styles[(k * 5 + t) % len(styles)]
            family = FAMILIES[(k + 2 * t) % len(FAMILIES)]
            records.append(_one5(rng, suite, task, spec, family, "incorrect", style, n,
                                 variant))
        n = 0
        classes = _hard5(group)
        for c, cls in enumerate(classes):
            for k in range(HARD5_COUNT):
                n += 1
                family = FAMILIES[(c * 5 + k + t) % len(FAMILIES)]
                records.append(_one5(rng, suite, task, spec, family, "correct", cls, n,
                                     part="k"))
        usable = [c for c in classes if c in HARD5_COMMON or any(
            not s.startswith("!") for s in HARD5[group].get(c, []))]
        for k in range(5):  # incorrect, with a class sentence
            n += 1
            cls = usable[(k * 3 + t) % len(usable)]
            family = FAMILIES[(k * 3 + t + 1) % len(FAMILIES)]
            variant = wrongs[(k + t + 3) % len(wrongs)]
            records.append(_one5(rng, suite, task, spec, family, "incorrect", cls, n,
                                 variant, part="k"))
    return records


def dumps5(records: list[dict]) -> str:
    """The fifth batch's file: the header also counts the labels."""
    head = json.dumps({"schema": SCHEMA, "seed": SEED5, "count": len(records),
                       "correct": sum(r["label"] == "correct" for r in records),
                       "incorrect": sum(r["label"] == "incorrect" for r in records)},
                      ensure_ascii=False)[:-1]
    lines = [json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in records]
    return head + ', "records": [\n' + ",\n".join(lines) + "\n]}\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="rebuild and compare with the files")
    args = ap.parse_args(argv)
    records = build()
    files = {DATA: dumps([r for r in records if not batch3(r)]),
             DATA4: dumps([r for r in records if batch3(r)]),
             DATA5: dumps5(build5())}
    if args.check:
        same = all(path.exists() and path.read_text(encoding="utf-8") == text
                   for path, text in files.items())
        print("holdout3: files match the builder" if same else
              "holdout3: a file differs from the builder (run python bench/holdout3.py)")
        return 0 if same else 1
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path} ({text.count(chr(10)) - 2} answers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
