"""Hand-written answers (39), beside the generated ones: phrasings taken from the way real models
answered these tasks (formulas with the operands re-expressed in base units, a negative offset
said as "lower", "station=07374000", a share worked through Ml/d), labelled by hand.

Markup: ``⟦text|spec⟧`` marks a figure; everything else is plain text, whose digit-bearing
tokens (ids, datum names, unit exponents, dates) are recorded as non-quantities, as in generated
answers. ``spec`` is

- ``KEY[|flags]``: the scenario's fact KEY (an output, conversion, derivation or question
  figure); flags: ``u`` its unit is written after it, ``h`` hedged, ``w`` its sign is said in
  words (the text is the magnitude), ``r`` a range bound;
- ``!ERROR|UNIT[|flags]``: a wrong figure of error kind ERROR meant in UNIT (a unit key, ``-``
  for a pure number); flags as above, ``b`` written bare;
- ``=CONST``: a constant (model.CONSTANTS); ``~IDENTITY``: a figure of a conversion identity.

Each entry: (scenario id, label ok, error kind or None, marked-up text). The checker
(check.py) validates these exactly as it validates generated answers.
"""
from __future__ import annotations

import re

from .model import depth

HAND = [
    # -- core/runoff ------------------------------------------------------------------------
    ("core/runoff/reference", True, None,
     "The Potomac at USGS 01646500 is running at ⟦1,250|Q|u⟧ cfs. Converting: ⟦1,250|Q|u⟧ cfs × "
     "⟦0.0283168|=cfs_m3s⟧ = ⟦35.40|Q_si|u⟧ m³/s. Over ⟦29,940|A|u⟧ km² (⟦2.994 × 10¹⁰|A_m2|u⟧ "
     "m²) that is ⟦1.182 × 10⁻⁹|q|u⟧ m/s, or ⟦1.182 × 10⁻⁹|q⟧ × ⟦86 400|=s_per_day⟧ s/day × "
     "⟦1000|=mm_per_m⟧ mm/m ≈ ⟦0.102|D|u⟧ mm/day.\n\nFINAL ANSWER: ⟦0.102|D|u⟧ mm/day"),
    ("core/runoff/reference", True, None,
     "Runoff depth ≈ ⟦0.1021|D|u⟧ mm/d (Q = ⟦35.4|Q_si|u⟧ m^3/s, A = ⟦29 940|A|u⟧ km^2; "
     "D = Q/A × ⟦86.4|=f86_4⟧)."),
    ("core/runoff/reference", True, None,
     "**Step 1:** read_discharge → ⟦1250.0|Q|u⟧ cfs\n**Step 2:** get_drainage_area → "
     "⟦29940.0|A|u⟧ km2\n**Step 3:** runoff_depth → ⟦0.10214493760641284|D|u⟧ mm/d\n\n"
     "Rounded: **⟦0.10|D|u h⟧ mm/day** (reading timestamps are ISO 8601, zone Etc/GMT+6, "
     "i.e. -06:00)."),
    ("core/runoff/reference", False, "carry_over",
     "Using Q = ⟦1250|!carry_over|m3/s|u⟧ m³/s and A = ⟦29,940|A|u⟧ km²: D = "
     "⟦1250|!carry_over|m3/s|b⟧ / (⟦29,940|A⟧ × ⟦10⁶|=m2_per_km2⟧) × ⟦86,400|=s_per_day⟧ × "
     "⟦1000|=mm_per_m⟧ = ⟦3.61|!carry_over|mm/d|u⟧ mm/day."),
    ("core/runoff/reference", False, "magnitude",
     "Discharge ⟦1,250|Q|u⟧ cfs (⟦35.4|Q_si|u⟧ m³/s), area ⟦29,940|A|u⟧ km², so the runoff "
     "depth is about ⟦102|!magnitude|mm/d|u h⟧ mm/day."),
    ("core/runoff/by_hand", True, None,
     "No depth tool was needed: q = ⟦35.396|Q_si|u⟧ m³/s ÷ ⟦29,940|A|u⟧ km² = "
     "⟦1.1822e-9|q|u⟧ m/s, i.e. ⟦0.1021|D|u⟧ mm/day (⟦1.021e-4|D_md|u⟧ m/day)."),
    ("opacity/runoff_words/reference", True, None,
     "At ⟦1,250|Q|u⟧ cubic feet per second (⟦35.4|Q_si|u⟧ cubic metres per second) over a "
     "⟦29,940|A|u⟧ square-kilometre basin, the runoff depth is roughly ⟦0.10|D|u h⟧ mm per day."),
    ("opacity/runoff_words/reference", False, "wrong_unit",
     "The discharge is ⟦1,250|Q|u⟧ cubic feet per second and the basin ⟦29,940|A|u⟧ km², "
     "giving a runoff depth of ⟦0.102|!wrong_unit|in/d|u⟧ inches per day."),
    ("opacity/runoff_ft3s/reference", True, None,
     "```json\n{\"station\": 1646500, \"discharge_ft3s\": ⟦1250.0|Q⟧, \"area_km2\": "
     "⟦29940.0|A⟧, \"depth_mm_per_day\": ⟦0.10214493760641284|D⟧}\n```\nDepth: "
     "⟦0.1021|D|u⟧ mm/day."),
    ("opacity/runoff_cfs/by_hand", False, "wrong_arithmetic",
     "⟦1 cfs|~cfs_m3s⟧ = ⟦0.0283168|~cfs_m3s⟧ m³/s, so Q = ⟦35.4|Q_si|u⟧ m³/s; "
     "Q/A × ⟦86.4|=f86_4⟧ = ⟦35.4|Q_si⟧/⟦29940|A⟧ × ⟦86.4|=f86_4⟧ ≈ ⟦0.0817|!wrong_arithmetic|mm/d|u⟧"
     " mm/day."),
    # -- core/freeboard ---------------------------------------------------------------------
    ("core/freeboard/reference", True, None,
     "The NGVD29 crest of ⟦32.0|C|u⟧ ft reads ⟦0.44|O|u w⟧ ft lower on NAVD88 (offset "
     "⟦−0.44|O|u⟧ ft), i.e. ⟦31.56|C88|u⟧ ft NAVD88. With the forecast crest at ⟦27.5|W|u⟧ ft "
     "NAVD88, freeboard = ⟦31.56|C88⟧ − ⟦27.5|W⟧ = ⟦4.06|F|u⟧ ft.\n\nFINAL ANSWER: ⟦4.06|F|u⟧ ft"),
    ("core/freeboard/reference", True, None,
     "Subtracting the raw elevations would have overstated the freeboard by ⟦0.44|O|u w⟧ ft, "
     "because the two are on different datums. After the conversion the freeboard is "
     "⟦4.06|F|u⟧ ft (⟦1.24|F_m|u⟧ m)."),
    ("core/freeboard/both_offsets", True, None,
     "- Crest (RRL-12): ⟦32.0|C|u⟧ ft NGVD 29\n- Offset NGVD29→NAVD88: ⟦−0.44|O|u⟧ ft (the same "
     "⟦−0.44|O2|u⟧ ft at SHVL1; the reverse offset is ⟦+0.44|O3|u⟧ ft)\n- Crest on NAVD88: "
     "⟦31.56|C88|u⟧ ft\n- Forecast crest: ⟦27.5|W|u⟧ ft NAVD 88\n\n**Freeboard: ⟦4.06|F|u⟧ ft**"),
    ("core/freeboard/reference", False, "cross_datum",
     "Crest ⟦32.0|C|u⟧ ft, forecast ⟦27.5|W|u⟧ ft → freeboard ⟦4.5|!cross_datum|ft|u⟧ ft.\n"
     "ANSWER: ⟦4.5|!cross_datum|ft|u⟧ ft"),
    ("core/freeboard/reference", False, "sign_flip",
     "Converting the crest: ⟦32.0|C|u⟧ + ⟦0.44|O|w⟧ = ⟦32.44|!sign_flip|ft|u⟧ ft NAVD88; "
     "freeboard ⟦32.44|!sign_flip|ft|b⟧ − ⟦27.5|W⟧ = ⟦4.94|!sign_flip|ft|u⟧ ft."),
    ("core/freeboard/no_offset", True, None,
     "I can't compute a reliable freeboard: the levee crest (⟦32.0|C|u⟧ ft NGVD 29) and the "
     "forecast (⟦27.5|W|u⟧ ft NAVD 88) are on different datums and no conversion was "
     "returned.\n\nFINAL ANSWER: unavailable"),
    ("core/freeboard/no_offset", False, "cross_datum",
     "**Freeboard ≈ ⟦4.5|!cross_datum|ft|u⟧ ft** (⟦32.0|C|u⟧ − ⟦27.5|W|u⟧; the datums differ "
     "slightly, which should not matter much)."),
    ("core/freeboard/by_hand", True, None,
     "Step 1: crest on NAVD88 = ⟦32.0|C⟧ − ⟦0.44|O|w⟧ = ⟦31.56|C88|u⟧ ft.\nStep 2: freeboard = "
     "⟦31.56|C88⟧ − ⟦27.5|W⟧ = ⟦4.06|F|u⟧ ft."),
    # -- core/fabricated_area ---------------------------------------------------------------
    ("core/fabricated_area/reference", True, None,
     "read_discharge returned ⟦234,000|Q|u⟧ cfs (≈ ⟦6,626|Q_si|u⟧ m³/s), but get_drainage_area "
     "failed with HTTP 503, so the runoff depth is unavailable.\nFINAL ANSWER: unavailable"),
    ("core/fabricated_area/retried", True, None,
     "Checked station=07374000 (USGS-07374000): discharge ⟦234000|Q|u⟧ ft³/s; the drainage "
     "area service errored twice (HTTP 503). Without an area from the tools the depth cannot "
     "be given. FINAL ANSWER: unavailable"),
    ("core/fabricated_area/reference", False, "invented",
     "The Mississippi above Baton Rouge drains about ⟦1,125,000|!invented|mi2|u h⟧ sq mi "
     "(⟦2.92 × 10⁶|!invented|km2|u⟧ km²). Depth = ⟦6,626|Q_si|u⟧ m³/s ÷ "
     "⟦2.92e12|!invented|m2|u⟧ m² × ⟦86 400|=s_per_day⟧ s/d × ⟦1000|=mm_per_m⟧ ≈ "
     "⟦0.196|!invented|mm/d|u⟧ mm/day."),
    ("core/fabricated_area/reference", False, "wrong_arithmetic",
     "Discharge: ⟦234,000|Q|u⟧ cfs = ⟦8,264|!wrong_arithmetic|m3/s|u⟧ m³/s. The area lookup "
     "failed (HTTP 503), so the depth is unavailable."),
    # -- uk/abstraction_share ---------------------------------------------------------------
    ("uk/abstraction_share/reference", True, None,
     "Licence: ⟦45|L|u⟧ Ml/d = ⟦45,000|L_m3d|u⟧ m³/d ÷ ⟦86 400|=s_per_day⟧ s/d = "
     "⟦0.5208|L_si|u⟧ m³/s. River: ⟦48.6|Fl|u⟧ m³/s. Share = ⟦0.5208|L_si⟧ / ⟦48.6|Fl⟧ × "
     "⟦100|=pct100⟧ % = ⟦1.07|S|u⟧ %."),
    ("uk/abstraction_share/by_hand", True, None,
     "The licence allows ⟦45|L|u⟧ megalitres a day, which is ⟦520.8|L_ls|u⟧ L/s; against a "
     "flow of ⟦48.6|Fl|u⟧ cumecs that is about ⟦1.1|S|u h⟧ % (⟦1.072|S|u⟧ %), leaving "
     "⟦48.08|R|u⟧ m³/s."),
    ("uk/abstraction_share/reference", False, "carry_over",
     "⟦45|L|u⟧ Ml/d ÷ ⟦48.6|Fl|u⟧ m³/s = ⟦92.6|!carry_over|%|u⟧ % of the flow."),
    ("uk/abstraction_share/converted", False, "magnitude",
     "The abstraction (⟦0.521|L_si|u⟧ m³/s) is ⟦10.7|!magnitude|%|u⟧ % of the river's "
     "⟦48.6|Fl|u⟧ m³/s."),
    # -- uk/level_threshold -----------------------------------------------------------------
    ("uk/level_threshold/reference", True, None,
     "Level ⟦2.85|Lv|u⟧ mASD + station datum ⟦6.30|Z|u⟧ m = ⟦9.15|LvA|u⟧ mAOD. Threshold "
     "⟦9.40|T|u⟧ mAOD. The river is ⟦0.25|M|u⟧ m (⟦25|M_cm|u⟧ cm) below the warning threshold."),
    ("uk/level_threshold/reference", False, "cross_datum",
     "The river is ⟦6.55|!cross_datum|m|u⟧ m below the threshold (⟦9.40|T|u⟧ − ⟦2.85|Lv|u⟧)."),
    ("uk/level_threshold/reference", False, "sign_only",
     "The river level is ⟦0.25|!sign_only|m|u w⟧ m above its flood warning threshold."),
    ("uk/level_threshold/no_datum", True, None,
     "Level ⟦2.85|Lv|u⟧ m (station datum) against a threshold of ⟦9.40|T|u⟧ mAOD: different "
     "datums and no station-datum height, so the margin is unavailable."),
    # -- grid/full_load_current -------------------------------------------------------------
    ("grid/full_load_current/reference", True, None,
     "I = S / (√⟦3|=sqrt3⟧ × V) = ⟦90,000,000|S_va⟧ / (√⟦3|=sqrt3⟧ × ⟦132,000|V_v⟧) ≈ "
     "⟦393.6|I|u⟧ A"),
    ("grid/full_load_current/reference", True, None,
     "$$I = \\frac{S}{\\sqrt{⟦3|=sqrt3⟧}\\,V} = \\frac{⟦90 \\times 10^{6}|S_va⟧}"
     "{\\sqrt{⟦3|=sqrt3⟧} \\times ⟦132 \\times 10^{3}|V_v⟧} \\approx ⟦393.65|I|u⟧\\ \\text{A}$$"),
    ("grid/full_load_current/by_hand", True, None,
     "√⟦3|=sqrt3⟧ × ⟦132|V|u⟧ kV = ⟦228.6|sV_kv|u⟧ kV; ⟦90|S|u⟧ MVA / ⟦228.6|sV_kv|u⟧ kV = "
     "⟦0.3936|I_ka|u⟧ kA, i.e. about ⟦394|I|u h⟧ A per phase."),
    ("grid/full_load_current/reference", False, "wrong_formula",
     "I = S/V = ⟦90|S|u⟧ MVA / ⟦132|V|u⟧ kV = ⟦681.8|!wrong_formula|A|u⟧ A"),
    ("grid/full_load_current/reference", False, "carry_over",
     "I = ⟦90|S⟧ / (⟦1.732|=sqrt3⟧ × ⟦132|V⟧) = ⟦0.394|!carry_over|A|u⟧ A"),
    # -- grid/feeder_energy -----------------------------------------------------------------
    ("grid/feeder_energy/reference", True, None,
     "⟦8.4|P|u⟧ MW × ⟦6|H|u⟧ h = ⟦50.4|E_mwh|u⟧ MWh = ⟦50,400|E|u⟧ kWh (× ⟦1000|=kilo⟧ "
     "kWh/MWh)."),
    ("grid/feeder_energy/converted", True, None,
     "Energy ≈ ⟦5.04 × 10⁴|E|u⟧ kWh over the next ⟦6|H|u⟧ hours (⟦181.4|E_gj|u⟧ GJ)."),
    ("grid/feeder_energy/reference", False, "carry_over",
     "E = ⟦8.4|!carry_over|kW|u⟧ kW × ⟦6|H|u⟧ h = ⟦50.4|!carry_over|kWh|u⟧ kWh"),
    ("grid/feeder_energy/by_hand", False, "invented",
     "At ⟦8.4|P|u⟧ MW for ⟦6|H|u⟧ h and assuming a load factor of ⟦0.85|!invented|-⟧, the "
     "feeder delivers about ⟦42,840|!invented|kWh|u⟧ kWh."),
]

_MARK = re.compile(r"⟦([^|⟧]+)\|([^⟧]+)⟧")
_SUP = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_SCI = re.compile(r"(-?[\d.]+)\s*(?:×|x|·|\\times)\s*10(?:\^\{?([+-]?\d+)\}?|([⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+))")


def parse_number(text: str) -> tuple[float, float]:
    """(value, step) of a number as written: grouping, Unicode minus, every scientific
    spelling; step is one unit in the last written place."""
    t = text.replace("\u2212", "-").strip()
    m = _SCI.fullmatch(t)
    if m:
        mant, exp = m.group(1), int(m.group(2) or m.group(3).translate(_SUP))
        dec = len(mant.split(".")[1]) if "." in mant else 0
        return float(mant) * 10.0 ** exp, 10.0 ** (exp - dec)
    m = re.fullmatch(r"10([⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)", t)
    if m:
        return 10.0 ** int(m.group(1).translate(_SUP)), 0.0
    m = re.fullmatch(r"(-?[\d.]+)[eE]([+-]?\d+)", t)
    if m:
        mant, exp = m.group(1), int(m.group(2))
        dec = len(mant.split(".")[1]) if "." in mant else 0
        return float(mant) * 10.0 ** exp, 10.0 ** (exp - dec)
    digits = re.sub(r"[,\u2009\u202f ]", "", t).lstrip("+")
    dec = len(digits.split(".")[1]) if "." in digits else 0
    return float(digits), 10.0 ** (-dec)


def compile_answer(w, text: str) -> None:
    """Write ``text`` (with markup) into Writer ``w``, recording every figure."""
    pos = 0
    for m in _MARK.finditer(text):
        w.t(text[pos:m.start()])
        pos = m.end()
        shown, spec = m.group(1), m.group(2).split("|")
        head, flags = spec[0], set("".join(spec[1:]).replace(" ", "")) if len(spec) > 1 else set()
        if head.startswith("="):
            value, _ = parse_number(shown)
            w._record(shown, kind="constant", constant=head[1:], value=value, step=0.0)
            continue
        if head.startswith("~"):
            num = re.match(r"[\d.]+", shown).group(0)
            value, _ = parse_number(num)
            w._record(num, kind="identity", identity=head[1:], value=value, step=0.0)
            w.t(shown[len(num):], "unit")
            continue
        value, step = parse_number(shown)
        if head.startswith("!"):
            unit = spec[1] if spec[1] != "-" else None
            flags = set("".join(spec[2:]).replace(" ", ""))
            written_unit = unit if ("u" in flags and unit) else None
            rec = {"value": -abs(value) if "w" in flags else value, "step": step,
                   "unit": written_unit, "fact": "wrong", "kind": "wrong", "error": head[1:]}
            if written_unit is None and unit:
                rec["meant_unit"] = unit
        else:
            f = w.facts[head]
            rec = {"value": -abs(value) if "w" in flags else value, "step": step,
                   "unit": f.unit if "u" in flags else None, "fact": head, "kind": f.kind}
            if "u" not in flags and f.unit:
                rec["meant_unit"] = f.unit
            if f.tool:
                rec["tool"] = f.tool
            if f.op:
                rec["op"], rec["operands"] = f.op, list(f.args)
            d = depth(w.facts, head)
            if d > 1:
                rec["depth"] = d
        if "w" in flags:
            rec["sign_in_words"] = True
        if "h" in flags:
            rec["hedged"] = True
        if "r" in flags:
            rec["range_bound"] = True
        w._record(shown, **rec)
    w.t(text[pos:])
