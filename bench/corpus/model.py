"""What an answer is built from: facts (figures with provenance), constants, identities, and
the plan of an answer (inputs, identities, derivation steps, the final figure).

A fact's ``kind`` is its provenance:

- ``output``: a tool output, copied (possibly rounded);
- ``conversion``: a tool output expressed in another unit with an exact unit factor;
- ``derivation``: one step (``op`` over ``args``) from other facts and constants;
- ``question``: a figure the question states;
- a wrong fact carries ``error`` (the error kind) and is never legitimate.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

ERROR_KINDS = ("carry_over", "wrong_unit", "wrong_datum", "cross_datum", "invented",
               "sign_flip", "sign_only", "wrong_arithmetic", "wrong_formula", "magnitude",
               "over_rounded")


@dataclass(frozen=True)
class Fact:
    key: str
    value: float
    unit: str | None          # unit key (units.KERNEL), None for a pure number
    kind: str                 # output | conversion | derivation | question
    name: str                 # noun phrase: "discharge"
    sym: str = ""             # symbol in formulas: "Q"
    datum: str | None = None  # NAVD88, NGVD29, ODN, ASD
    tool: str | None = None   # for outputs
    of: str | None = None     # for conversions: the fact converted
    op: str | None = None     # for derivations: add, sub, mul, div
    args: tuple = ()          # for derivations: fact keys and constant keys
    error: str | None = None  # error kind, for wrong facts
    exact: bool = False       # a short exact figure (written as is: 1250, 27.5)
    below: tuple | None = None  # (word when positive, word when negative) for signs in words

    def wrong(self, err: str, value: float | None = None, unit: str | None = "<same>",
              **changes) -> "Fact":
        """This fact made wrong: error kind ``err``, a new value and/or unit."""
        return replace(self, value=self.value if value is None else value,
                       unit=self.unit if unit == "<same>" else unit, error=err,
                       exact=changes.pop("exact", False), **changes)


# constants: key -> (value, plain renderings, latex renderings); a rendering is a list of
# parts, each either text or ("num", value, written text) so each digit group is recorded
CONSTANTS = {
    "sqrt3": (3 ** 0.5, [["√", ("num", 3, "3")], ["sqrt(", ("num", 3, "3"), ")"],
                         ["√", ("num", 3, "3")], [("num", 1.7320508, "1.732")]],
              [["\\sqrt{", ("num", 3, "3"), "}"]]),
    "pct100": (100.0, [[("num", 100, "100")], [("num", 100, "100"), " %"]],
               [[("num", 100, "100")], [("num", 100, "100"), "\\%"]]),
    "s_per_day": (86400.0, [[("grouped", 86400), " s/day"], [("grouped", 86400)],
                            [("grouped", 86400), " s/d"]],
                  [[("num", 86400, "86\\,400")], [("num", 86400, "86400"), "\\,\\mathrm{s/day}"]]),
    "mm_per_m": (1000.0, [[("grouped", 1000), " mm/m"], [("num", 1000, "1000")]],
                 [[("num", 1000, "1000")], [("num", 1000, "10^{3}")]]),
    "m2_per_km2": (1e6, [[("num", 1e6, "10⁶"), " m²/km²"], [("grouped", 1000000)],
                         [("num", 1e6, "1e6")]],
                   [[("num", 1e6, "10^{6}")]]),
    "cfs_m3s": (0.028316846592, [[("num", 0.0283168, "0.0283168")],
                                 [("num", 0.02832, "0.02832"), " m³/s per cfs"],
                                 [("num", 0.028317, "0.028317")]],
                [[("num", 0.0283168, "0.0283168")]]),
    "f86_4": (86.4, [[("num", 86.4, "86.4")]], [[("num", 86.4, "86.4")]]),
    "m3_per_ml": (1000.0, [[("grouped", 1000), " m³/Ml"], [("num", 1000, "1000")]],
                  [[("num", 1000, "1000")]]),
    "kilo": (1000.0, [[("grouped", 1000)], [("num", 1000, "10³")], [("num", 1000, "1000")]],
             [[("num", 1000, "10^{3}")], [("num", 1000, "1000")]]),
    "mega": (1e6, [[("grouped", 1000000)], [("num", 1e6, "10⁶")], [("num", 1e6, "1e6")]],
             [[("num", 1e6, "10^{6}")]]),
    "three": (3.0, [[("num", 3, "3")]], [[("num", 3, "3")]]),
    "gj_per_mwh": (3.6, [[("num", 3.6, "3.6"), " GJ/MWh"], [("num", 3.6, "3.6")]],
                   [[("num", 3.6, "3.6")]]),
    "j_per_mwh": (3.6e9, [[("num", 3.6e9, "3.6×10⁹"), " J/MWh"], [("num", 3.6e9, "3.6e9"), " J/MWh"],
                          [("num", 3.6e9, "3.6 × 10⁹")]],
                  [[("num", 3.6e9, "3.6 \\times 10^{9}")]]),
    "l_per_m3": (1000.0, [[("grouped", 1000), " L/m³"], [("num", 1000, "1000")]],
                 [[("num", 1000, "1000")]]),
}

# identities: key -> list of (value, unit text) pairs for "lhs = rhs"
IDENTITIES = {
    "cfs_m3s": [[(1, "cfs"), (0.0283168, "m³/s")], [(1, "ft³/s"), (0.028316846592, "m³/s")],
                [(1, "m³/s"), (35.3147, "cfs")]],
    "km2_m2": [[(1, "km²"), (1e6, "m²")]],
    "day_s": [[(1, "day"), (86400, "s")], [(1, "d"), (86400, "s")]],
    "m_mm": [[(1, "m"), (1000, "mm")]],
    "ml_m3": [[(1, "Ml"), (1000, "m³")], [(1, "ML"), (1000, "m³")],
              [(1, "Ml/d"), (0.011574, "m³/s")]],
    "mva_va": [[(1, "MVA"), (1e6, "VA")]],
    "kv_v": [[(1, "kV"), (1000, "V")]],
    "mw_kw": [[(1, "MW"), (1000, "kW")]],
    "mwh_kwh": [[(1, "MWh"), (1000, "kWh")]],
    "ft_m": [[(1, "ft"), (0.3048, "m")]],
    "mwh_j": [[(1, "MWh"), (3.6e9, "J")], [(1, "MWh"), (3.6, "GJ")]],
    "kwh_mj": [[(1, "kWh"), (3.6, "MJ")]],
    "m3_l": [[(1, "m³"), (1000, "L")], [(1, "Ml"), (1e6, "L")]],
}


def depth(facts: dict, key: str, _seen: frozenset = frozenset()) -> int:
    """Derivation steps from recorded outputs (or the question): 0 for an output, a unit
    conversion of one, or a question figure; 1 + the deepest operand for a derivation (a
    constant operand adds nothing). 2 means the figure needs a written intermediate: 4.06 ft =
    (32.0 - 0.44) - 27.5."""
    f = facts.get(key)
    if f is None or key in _seen:
        return 0
    if f.kind == "conversion":
        return depth(facts, f.of, _seen | {key})
    if f.kind != "derivation":
        return 0
    return 1 + max((depth(facts, a, _seen | {key}) for a in f.args), default=0)


@dataclass(frozen=True)
class Step:
    result: str            # fact key
    expr: tuple            # ("f", key) | ("c", const) | (op, a, b) | ("paren", a) | ("abs", f)
    label: str             # "Convert the discharge to m³/s"


@dataclass
class Plan:
    subject: str                          # "USGS station 01646500"
    ids: list                             # [(text, what)] identifiers with digits
    inputs: list                          # [(fact key, [conversion keys for parentheses])]
    identities: list = field(default_factory=list)
    steps: list = field(default_factory=list)        # [Step]
    alt_steps: list = field(default_factory=list)    # [[Step]] other derivation routes
    final: str | None = None
    final_alts: list = field(default_factory=list)
    final_phrases: list = field(default_factory=list)  # templates with {v}
    unavailable: list | None = None       # templates (may hold {fact:key}) when no value exists
    claims: list = field(default_factory=list)       # [(template with {v}, fact key)]
    footer: list = field(default_factory=list)       # non-quantity lines (ISO timestamps...)
    calls: list = field(default_factory=list)        # [(tool, arguments, failed)] as replayed

    def copy(self, **changes) -> "Plan":
        return replace(self, **changes)


@dataclass
class ErrorSpec:
    kind: str
    overrides: dict                       # key -> wrong Fact (added or replacing)
    plan: dict = field(default_factory=dict)   # Plan fields replaced
    must_show: tuple = ()                 # wrong fact keys that must appear
    note: str = ""
