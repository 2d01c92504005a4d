"""Unit and datum spellings as models write them, and the kernel names used to convert.

Each unit key maps to the kernel's spelling (for exact conversions with quantity_guard.units)
and to the spellings real answers use, in prose and in LaTeX. The generator picks one spelling
per unit per answer (as a writer keeps to one), seeded.
"""
from __future__ import annotations

KERNEL = {
    "cfs": "cfs", "ft3/s": "ft**3/s", "m3/s": "m**3/s", "km2": "km**2", "m2": "m**2",
    "mi2": "mi**2", "mm/d": "mm/day", "m/d": "m/day", "m/s": "m/s", "cm/d": "cm/day",
    "in/d": "in/day", "ft": "ft", "m": "m", "cm": "cm", "ML/d": "ML/d", "m3/d": "m**3/day",
    "%": "%", "MVA": "MVA", "VA": "VA", "kVA": "kVA", "kV": "kV", "V": "V", "A": "A",
    "kA": "kA", "MW": "MW", "kW": "kW", "kWh": "kWh", "MWh": "MWh", "GJ": "GJ", "J": "J", "h": "h",
    "L/s": "L/s",
}

PLAIN = {
    "cfs": ["cfs", "cfs", "ft³/s", "ft^3/s", "cubic feet per second", "CFS"],
    "ft3/s": ["ft³/s", "ft3/s", "ft^3/s", "cubic feet per second", "cfs"],
    "m3/s": ["m³/s", "m³/s", "m^3/s", "m3/s", "cubic metres per second", "m³ s⁻¹", "cumecs"],
    "km2": ["km²", "km²", "km^2", "km2", "square kilometres", "sq km"],
    "m2": ["m²", "m^2", "m2"],
    "mi2": ["sq mi", "mi²", "square miles", "mi^2"],
    "mm/d": ["mm/day", "mm/d", "mm/day", "mm d⁻¹", "millimetres per day", "mm per day"],
    "m/d": ["m/day", "m/d"],
    "m/s": ["m/s", "m s⁻¹", "m/s"],
    "cm/d": ["cm/day", "cm/d"],
    "in/d": ["in/day", "inches per day"],
    "ft": ["ft", "ft", "feet"],
    "m": ["m", "m", "metres"],
    "cm": ["cm", "centimetres"],
    "ML/d": ["Ml/d", "ML/d", "megalitres per day", "ML/day", "Ml/day"],
    "m3/d": ["m³/day", "m³/d", "m^3/d", "cubic metres per day"],
    "%": ["%", "%", "%", " percent", " per cent"],
    "MVA": ["MVA"], "VA": ["VA"], "kVA": ["kVA"], "kV": ["kV"], "V": ["V", "volts"],
    "A": ["A", "A", "amperes", "amps"], "kA": ["kA"], "MW": ["MW", "megawatts"],
    "kW": ["kW", "kilowatts"], "kWh": ["kWh", "kWh", "kilowatt-hours", "kW·h"],
    "MWh": ["MWh", "megawatt-hours"], "GJ": ["GJ", "gigajoules"], "J": ["J", "joules"],
    "h": ["h", "hours", "hr"],
    "L/s": ["L/s", "l/s", "litres per second"],
}

LATEX = {
    "cfs": [r"\text{cfs}", r"\mathrm{ft^3/s}"], "ft3/s": [r"\mathrm{ft^3/s}", r"\text{ft}^3/\text{s}"],
    "m3/s": [r"\mathrm{m^3/s}", r"\,\mathrm{m^{3}\,s^{-1}}", r"\text{m}^3/\text{s}"],
    "km2": [r"\mathrm{km^2}", r"\text{km}^2"], "m2": [r"\mathrm{m^2}", r"\text{m}^2"],
    "mi2": [r"\text{mi}^2"], "mm/d": [r"\mathrm{mm/day}", r"\text{mm/d}", r"\,\mathrm{mm\,d^{-1}}"],
    "m/d": [r"\mathrm{m/day}"], "m/s": [r"\mathrm{m/s}", r"\,\mathrm{m\,s^{-1}}"],
    "cm/d": [r"\mathrm{cm/day}"], "in/d": [r"\text{in/day}"],
    "ft": [r"\text{ft}", r"\,\mathrm{ft}"], "m": [r"\text{m}", r"\,\mathrm{m}"], "cm": [r"\text{cm}"],
    "ML/d": [r"\text{Ml/d}", r"\mathrm{ML/d}"], "m3/d": [r"\mathrm{m^3/day}"],
    "%": [r"\%"], "MVA": [r"\text{MVA}"], "VA": [r"\text{VA}"], "kVA": [r"\text{kVA}"],
    "kV": [r"\text{kV}"], "V": [r"\text{V}"], "A": [r"\text{A}", r"\,\mathrm{A}"],
    "kA": [r"\text{kA}"], "MW": [r"\text{MW}"], "kW": [r"\text{kW}"],
    "kWh": [r"\text{kWh}", r"\,\mathrm{kW\,h}"], "MWh": [r"\text{MWh}"], "GJ": [r"\text{GJ}"], "J": [r"\text{J}"],
    "h": [r"\text{h}"], "L/s": [r"\text{L/s}"],
}

# datum suffixes: (unit key, datum key) -> spellings of "value + unit + datum" tails
DATUM_TAILS = {
    ("ft", "NAVD88"): [" ft NAVD88", " ft (NAVD 88)", " ft NAVD 88", " feet above NAVD88",
                       " ft (NAVD88)"],
    ("ft", "NGVD29"): [" ft NGVD29", " ft (NGVD 29)", " ft NGVD 29", " feet above NGVD29",
                       " ft (NGVD29)"],
    ("m", "NAVD88"): [" m NAVD88", " m (NAVD 88)"],
    ("m", "NGVD29"): [" m NGVD29", " m (NGVD 29)"],
    ("m", "ODN"): [" mAOD", " m AOD", " mAOD", " m above Ordnance Datum Newlyn", " m (ODN)"],
    ("m", "ASD"): [" mASD", " m ASD", " mASD", " m above the station datum", " m (gauge datum)"],
    ("ft", "ODN"): [" ft AOD"], ("ft", "ASD"): [" ft above the station datum"],
}
DATUM_NAMES = {"NAVD88": ["NAVD88", "NAVD 88"], "NGVD29": ["NGVD29", "NGVD 29"],
               "ODN": ["Ordnance Datum Newlyn", "ODN", "AOD"],
               "ASD": ["the station datum", "gauge zero"]}


def kernel(key: str) -> str:
    return KERNEL[key]


def si_factor(key: str | None) -> float:
    if key is None:
        return 1.0
    from quantity_guard.units import parse_unit
    return float(parse_unit(KERNEL[key]).scale)


def dims(key: str | None):
    if key is None:
        return None
    from quantity_guard.units import parse_unit
    return tuple(parse_unit(KERNEL[key]).dims)


def convert(value: float, src: str, dst: str) -> float:
    from quantity_guard import Q
    return Q(value, KERNEL[src]).to(KERNEL[dst]).magnitude
