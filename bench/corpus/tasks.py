"""Every task of every bench suite: the tool calls a model makes (replayed through the real
guarded bench tools inside ``session(context=question)``), the figures a correct answer may
contain, and the errors an incorrect answer makes.

Each task has ledger *variants*: the reference path, the reference path with extra look-ups a
model also makes, a path where the model did the arithmetic itself (no compute tool), and, for
the datum tasks, a path where the datum step was never taken (then the only correct answer is
that the value cannot be determined from the tools).

Facts are built from the outputs the replayed ledger recorded, not typed in, so the corpus
follows the suites.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass

from . import units as U
from .model import ErrorSpec, Fact, Plan, Step

FOOTERS = [
    "Data retrieved 2026-11-30T14:05:00Z (ISO 8601, UTC).",
    "Readings as of 2026-11-30 08:05 CST (UTC-06:00, Etc/GMT+6).",
    "Timestamp: 2026-11-30T08:05:00-06:00 (ISO 8601).",
    "Values are provisional; retrieved at 14:05 UTC on 30 Nov 2026.",
    "Source timestamps follow ISO 8601 (e.g. 2026-11-30T14:00:00+00:00).",
]


@dataclass
class Replay:
    suite: str
    task: str
    variant: str
    question: str
    calls: list          # [(tool, arguments dict)]
    outputs: dict        # tool -> [quantity dicts in call order]
    errors: list         # tools whose call returned an error
    entries: list        # [{"tool", "value", "unit", "datum"}] every output entry in order


def replay(suite: str, task_id: str, variant: str, calls: list) -> Replay:
    """Send ``calls`` to the task's guarded tools as a real run does (``box.invoke`` with JSON
    arguments), inside ``session(context=question)``."""
    from quantity_guard import session, toolbox
    from bench.harness import suites
    from bench.harness.tools import build_tools
    task = suites.load(suite).task(task_id)
    box = toolbox(build_tools(task, "guarded"))
    outputs: dict = {}
    errors = []
    with session(context=task.question) as ledger:
        for name, args in calls:
            result = box.invoke(name, json.dumps(args))
            if result.get("isError"):
                errors.append(name)
    entries = []
    for e in ledger.output_entries():
        q = e.as_dict()["quantity"]
        outputs.setdefault(e.tool, []).append(q)
        entries.append({"tool": e.tool, **q})
    return Replay(suite, task_id, variant, task.question, calls, outputs, errors, entries)


def build_ledger(suite: str, task_id: str, calls: list):
    """The ledger a run making ``calls`` leaves (for the audit)."""
    from quantity_guard import session, toolbox
    from bench.harness import suites
    from bench.harness.tools import build_tools
    task = suites.load(suite).task(task_id)
    box = toolbox(build_tools(task, "guarded"))
    with session(context=task.question) as ledger:
        for name, args in calls:
            box.invoke(name, json.dumps(args))
    return ledger


_UNIT_KEYS = {"cfs": "cfs", "ft3/s": "ft3/s", "km2": "km2", "mm/d": "mm/d", "ft": "ft",
              "ML/d": "ML/d", "m3/s": "m3/s", "%": "%", "m": "m", "MVA": "MVA", "kV": "kV",
              "A": "A", "MW": "MW", "kWh": "kWh"}
_DATUMS = {"NGVD29": "NGVD29", "NAVD88": "NAVD88", "ODN": "ODN", "GAUGE:E21136": "ASD"}


def _out(rp: Replay, key: str, tool: str, name: str, sym: str = "", i: int = 0,
         exact: bool = True, below=None) -> Fact:
    q = rp.outputs[tool][i]
    return Fact(key, float(q["value"]), _UNIT_KEYS[q["unit"]], "output", name, sym,
                datum=_DATUMS.get(q.get("datum")) if q.get("datum") else None, tool=tool,
                exact=exact, below=below)


def _conv(src: Fact, key: str, unit: str, name: str | None = None, sym: str = "",
          datum: str | None = "<same>") -> Fact:
    return Fact(key, U.convert(src.value, src.unit, unit), unit, "conversion",
                name or src.name, sym or src.sym,
                datum=src.datum if datum == "<same>" else datum, of=src.key)


def _der(key: str, value: float, unit: str | None, name: str, op: str, args: tuple,
         sym: str = "", datum: str | None = None, below=None) -> Fact:
    return Fact(key, value, unit, "derivation", name, sym, datum=datum, op=op, args=args,
                below=below)


def _has(rp: Replay, tool: str) -> bool:
    return tool in rp.outputs


def _facts(*facts) -> dict:
    return {f.key: f for f in facts}


# -- runoff (core/runoff and the three opacity tasks) -------------------------------------
RUNOFF_VARIANTS = {
    "reference": [("read_discharge", {"station_id": "01646500"}),
                  ("get_drainage_area", {"station_id": "01646500"}),
                  ("runoff_depth", {"discharge": {"value": 1250, "unit": "cfs"},
                                    "area": {"value": 29940, "unit": "km**2"}})],
    "converted": [("read_discharge", {"station_id": "01646500"}),
                  ("read_discharge", {"station_id": "USGS-01646500"}),
                  ("get_drainage_area", {"station_id": "01646500"}),
                  ("runoff_depth", {"discharge": {"value": 35.396, "unit": "m**3/s"},
                                    "area": {"value": 29940, "unit": "km**2"}})],
    "by_hand": [("read_discharge", {"station_id": "01646500"}),
                ("get_drainage_area", {"station_id": "01646500"})],
}


def runoff(rp: Replay):
    Q = _out(rp, "Q", "read_discharge", "discharge", "Q")
    A = _out(rp, "A", "get_drainage_area", "drainage area", "A")
    Q_si = _conv(Q, "Q_si", "m3/s")
    A_m2 = _conv(A, "A_m2", "m2")
    A_mi2 = _conv(A, "A_mi2", "mi2")
    q = _der("q", Q_si.value / A_m2.value, "m/s", "depth rate", "div", ("Q_si", "A_m2"), "q")
    if _has(rp, "runoff_depth"):
        D = _out(rp, "D", "runoff_depth", "runoff depth", "D", exact=False)
    else:
        D = _der("D", U.convert(q.value, "m/s", "mm/d"), "mm/d", "runoff depth", "div",
                 ("Q_si", "A"), "D")
    D_md = _conv(D, "D_md", "m/d")
    facts = _facts(Q, A, Q_si, A_m2, A_mi2, q, D, D_md)
    station = "01646500"
    steps = [Step("Q_si", ("mul", ("f", "Q"), ("c", "cfs_m3s")), "Convert the discharge to m³/s"),
             Step("A_m2", ("mul", ("f", "A"), ("c", "m2_per_km2")), "Express the area in m²"),
             Step("q", ("div", ("f", "Q_si"), ("f", "A_m2")), "Divide discharge by area"),
             Step("D", ("mul", ("mul", ("f", "q"), ("c", "s_per_day")), ("c", "mm_per_m")),
                  "Convert m/s to mm/day")]
    alt = [Step("Q_si", ("mul", ("f", "Q"), ("c", "cfs_m3s")), "Convert the discharge"),
           Step("D", ("mul", ("div", ("f", "Q_si"), ("f", "A")), ("c", "f86_4")),
                "Runoff depth (86.4 converts m³/s per km² to mm/day)")]
    plan = Plan(subject=f"USGS station {station}",
                ids=[(station, "station id"), (f"USGS-{station}", "station id"),
                     ("01646500", "station id")],
                inputs=[("Q", ["Q_si"]), ("A", ["A_mi2"])],
                identities=["cfs_m3s", "km2_m2", "day_s", "m_mm"],
                steps=steps, alt_steps=[alt], final="D", final_alts=["D_md"],
                final_phrases=["a runoff depth of {v}", "{v}", "a depth-equivalent runoff of {v}",
                               "about {v} of runoff"],
                footer=FOOTERS)
    truth = D.value
    wrong_q = Q.wrong("carry_over", Q.value, "m3/s", key="Q_si", kind="conversion", of="Q")
    q_w = q.wrong("carry_over", Q.value / A_m2.value)
    D_w = D.wrong("carry_over", U.convert(q_w.value, "m/s", "mm/d"), kind="derivation",
                  op="div", args=("Q_si", "A"))
    Dmd_w = D_md.wrong("carry_over", U.convert(q_w.value, "m/s", "m/d"))
    no_conv = [s for s in steps if s.result != "Q_si"]
    errors = [
        ErrorSpec("carry_over", {"Q_si": wrong_q, "q": q_w, "D": D_w, "D_md": Dmd_w},
                  {"inputs": [("Q_si", []), ("A", [])], "steps": no_conv, "alt_steps": [],
                   "identities": ["km2_m2", "day_s"]}, ("D",),
                  "the cfs magnitude carried over as m³/s"),
        ErrorSpec("carry_over", {"q": q_w, "D": D_w, "D_md": Dmd_w},
                  {"inputs": [("Q", []), ("A", [])], "steps": [], "alt_steps": [],
                   "identities": []}, ("D",), "the depth computed from the cfs magnitude"),
        ErrorSpec("wrong_unit", {"D": D.wrong("wrong_unit", unit="m/d")}, {}, ("D",),
                  "mm/day written as m/day"),
        ErrorSpec("wrong_unit", {"A": A.wrong("wrong_unit", unit="mi2", exact=True)},
                  {"inputs": [("Q", ["Q_si"]), ("A", [])]}, ("A",), "km² written as sq mi"),
        ErrorSpec("wrong_unit", {"Q_si": Q_si.wrong("wrong_unit", unit="ft3/s")},
                  {"inputs": [("Q", []), ("Q_si", []), ("A", [])]}, ("Q_si",),
                  "the converted discharge labelled ft³/s"),
        ErrorSpec("invented", {"X": Fact("X", 11500, "cfs", "output", "long-term mean flow",
                                         error="invented", exact=True)},
                  {"claims": [("For comparison, the long-term mean flow at this gauge is about "
                               "{v}.", "X")]}, ("X",), "a long-term mean flow no tool returned"),
        ErrorSpec("invented", {"X": Fact("X", 0.38, "mm/d", "output", "typical runoff",
                                         error="invented", exact=True)},
                  {"claims": [("That is well below the basin's typical late-autumn runoff of "
                               "roughly {v}.", "X")]}, ("X",), "a climatological figure"),
        ErrorSpec("invented", {"X": Fact("X", 28600, "km2", "output", "drainage area",
                                         error="invented", exact=True)},
                  {"claims": [("(The published drainage area for this site is sometimes "
                               "given as {v}.)", "X")]}, ("X",), "a remembered area"),
        ErrorSpec("over_rounded", {"Q": Q.wrong("over_rounded", 1000.0, exact=True)},
                  {"inputs": [("Q", []), ("A", [])]}, ("Q",), "1250 cfs written as about 1000"),
    ]
    for r in (0.55, 1.4, 1.85):
        errors.append(ErrorSpec("wrong_arithmetic",
                                {"D": D.wrong("wrong_arithmetic", truth * r, kind="derivation",
                                              op="div", args=("Q_si", "A"))},
                                {"inputs": [("Q", ["Q_si"]), ("A", [])]}, ("D",),
                                f"the final step off by a factor {r}"))
    for r in (1000.0, 10.0, 0.1, 0.001):
        errors.append(ErrorSpec("magnitude",
                                {"D": D.wrong("magnitude", truth * r, kind="derivation",
                                              op="div", args=("Q_si", "A"))},
                                {"inputs": [("Q", ["Q_si"]), ("A", [])]}, ("D",),
                                f"a factor-of-{r:g} slip"))
    return facts, plan, errors


# -- levee freeboard -----------------------------------------------------------------------
_CREST = ("get_levee_crest", {"levee_id": "RRL-12"})
_FCST = ("get_stage_forecast", {"forecast_point": "SHVL1"})
_OFF = ("get_datum_offset", {"location": "RRL-12", "from_datum": "NGVD29", "to_datum": "NAVD88"})
_FB = ("compute_freeboard", {"crest_elevation": {"value": 31.56, "unit": "ft", "datum": "NAVD88"},
                             "water_surface": {"value": 27.5, "unit": "ft", "datum": "NAVD88"}})
FREEBOARD_VARIANTS = {
    "reference": [_CREST, _FCST, _OFF, _FB],
    "both_offsets": [_CREST, _FCST, _OFF,
                     ("get_datum_offset", {"location": "SHVL1", "from_datum": "NGVD29",
                                           "to_datum": "NAVD88"}),
                     ("get_datum_offset", {"location": "RRL-12", "from_datum": "NAVD88",
                                           "to_datum": "NGVD29"}), _FB],
    "by_hand": [_CREST, _FCST, _OFF],
    "no_offset": [_CREST, _FCST],
}


def freeboard(rp: Replay):
    C = _out(rp, "C", "get_levee_crest", "levee crest elevation", "Z_crest")
    W = _out(rp, "W", "get_stage_forecast", "forecast crest water surface", "Z_ws")
    facts = _facts(C, W, _conv(W, "W_m", "m"), _conv(C, "C_m", "m"))
    station = [("RRL-12", "levee id"), ("SHVL1", "forecast point")]
    if not _has(rp, "get_datum_offset"):
        plan = Plan(subject="levee segment RRL-12", ids=station,
                    inputs=[("C", ["C_m"]), ("W", ["W_m"])],
                    unavailable=[
                        "The crest ({C}) is on NGVD29 and the forecast ({W}) is on NAVD88; "
                        "without the NGVD29-to-NAVD88 offset at RRL-12 the two cannot be "
                        "subtracted, so the freeboard cannot be determined from these tools.",
                        "The levee crest elevation ({C}) and the forecast crest ({W}) are on "
                        "different vertical datums, and no offset was available, so I cannot "
                        "give a reliable freeboard.",
                    ], footer=FOOTERS)
        cross = _der("F", C.value - W.value, "ft", "freeboard", "sub", ("C", "W"), "F")
        errors = [
            ErrorSpec("cross_datum", {"F": cross.wrong("cross_datum")},
                      {"final": "F", "unavailable": None,
                       "steps": [Step("F", ("sub", ("f", "C"), ("f", "W")), "Freeboard")],
                       "final_phrases": ["a freeboard of {v}", "{v}"]}, ("F",),
                      "NGVD29 crest minus NAVD88 forecast"),
            ErrorSpec("invented",
                      {"O": Fact("O", -0.5, "ft", "output", "datum offset", "dZ",
                                 error="invented", exact=True, below=("higher", "lower")),
                       "C88": _der("C88", C.value - 0.5, "ft", "crest elevation on NAVD88",
                                   "add", ("C", "O"), "Z_NAVD", "NAVD88").wrong("invented"),
                       "F": _der("F", C.value - 0.5 - W.value, "ft", "freeboard", "sub",
                                 ("C88", "W"), "F").wrong("invented")},
                      {"final": "F", "unavailable": None,
                       "inputs": [("C", []), ("W", []), ("O", [])],
                       "steps": [Step("C88", ("add", ("f", "C"), ("f", "O")),
                                      "Move the crest to NAVD88"),
                                 Step("F", ("sub", ("f", "C88"), ("f", "W")), "Freeboard")],
                       "final_phrases": ["a freeboard of {v}", "{v}"]}, ("O",),
                      "an offset assumed, not fetched"),
        ]
        return facts, plan, errors
    O = _out(rp, "O", "get_datum_offset", "NGVD29→NAVD88 offset at RRL-12", "dZ",
             below=("higher", "lower"))
    facts.update(_facts(O))
    C88 = _der("C88", C.value + O.value, "ft", "crest elevation on NAVD88", "add", ("C", "O"),
               "Z_NAVD", "NAVD88")
    if _has(rp, "compute_freeboard"):
        F = _out(rp, "F", "compute_freeboard", "freeboard", "F", exact=False)
    else:
        F = _der("F", C88.value - W.value, "ft", "freeboard", "sub", ("C88", "W"), "F")
    facts.update(_facts(C88, F, _conv(F, "F_m", "m"), _conv(F, "F_in", "cm", "freeboard")))
    if len(rp.outputs["get_datum_offset"]) > 1:
        facts["O2"] = _out(rp, "O2", "get_datum_offset", "NGVD29→NAVD88 offset at SHVL1",
                           "dZ", i=1, below=("higher", "lower"))
        facts["O3"] = _out(rp, "O3", "get_datum_offset", "NAVD88→NGVD29 offset at RRL-12",
                           "dZ", i=2, below=("higher", "lower"))
    steps = [Step("C88", ("add", ("f", "C"), ("f", "O")), "Put the crest on NAVD88"),
             Step("F", ("sub", ("f", "C88"), ("f", "W")), "Freeboard = crest − water surface")]
    plan = Plan(subject="levee segment RRL-12", ids=station,
                inputs=[("C", ["C_m"]), ("W", ["W_m"]), ("O", [])],
                identities=["ft_m"], steps=steps, final="F", final_alts=["F_m"],
                final_phrases=["a freeboard of {v}", "{v} of freeboard", "{v}",
                               "{v} below the levee crest"],
                claims=([("(The offset at SHVL1 is the same, {v}.)", "O2")]
                        if "O2" in facts else []),
                footer=FOOTERS)
    truth = F.value
    cross = _der("F", C.value - W.value, "ft", "freeboard", "sub", ("C", "W"), "F")
    errors = [
        ErrorSpec("cross_datum", {"F": cross.wrong("cross_datum")},
                  {"inputs": [("C", []), ("W", [])], "identities": [],
                   "steps": [Step("F", ("sub", ("f", "C"), ("f", "W")), "Freeboard")]},
                  ("F",), "NGVD29 crest minus NAVD88 forecast"),
        ErrorSpec("cross_datum", {"F": cross.wrong("cross_datum")},
                  {"steps": [Step("F", ("sub", ("f", "C"), ("f", "W")), "Freeboard")]},
                  ("F",), "the offset fetched but not applied"),
        ErrorSpec("sign_flip",
                  {"C88": C88.wrong("sign_flip", C.value - O.value, op="sub"),
                   "F": F.wrong("sign_flip", C.value - O.value - W.value, kind="derivation",
                                op="sub", args=("C88", "W"))},
                  {"steps": [Step("C88", ("sub", ("f", "C"), ("f", "O")), "Put the crest on "
                                  "NAVD88"),
                             Step("F", ("sub", ("f", "C88"), ("f", "W")), "Freeboard")]},
                  ("F",), "the offset applied in the wrong direction"),
        ErrorSpec("sign_only", {"F": F.wrong("sign_only", -truth, kind="derivation",
                                             op="sub", args=("W", "C88"))},
                  {"final_phrases": ["{v}", "a freeboard of {v}"]}, ("F",),
                  "freeboard written negative (water above crest)"),
        ErrorSpec("wrong_unit", {"F": F.wrong("wrong_unit", unit="m")}, {"final_alts": []},
                  ("F",), "feet written as metres"),
        ErrorSpec("wrong_datum", {"C": C.wrong("wrong_datum", datum="NAVD88", exact=True)},
                  {}, ("C",), "the NGVD29 crest labelled NAVD88"),
        ErrorSpec("invented", {"X": Fact("X", 29.0, "ft", "output", "flood stage",
                                         datum="NAVD88", error="invented", exact=True)},
                  {"claims": [("The NWS flood stage at SHVL1 is {v}, so the forecast is "
                               "below flood stage.", "X")]}, ("X",), "a flood stage no tool "
                                                                     "returned"),
        ErrorSpec("invented", {"X": Fact("X", 3.0, "ft", "output", "minimum freeboard",
                                         error="invented", exact=True)},
                  {"claims": [("That exceeds a {v} minimum freeboard criterion.", "X")]},
                  ("X",), "a design criterion from memory"),
        ErrorSpec("over_rounded", {"F": F.wrong("over_rounded", 5.0, exact=True)},
                  {"final_alts": []}, ("F",), "4.06 ft written as about 5 ft"),
    ]
    for d in (-1.0, 0.5, 1.5):
        errors.append(ErrorSpec("wrong_arithmetic",
                                {"F": F.wrong("wrong_arithmetic", round(truth + d, 2),
                                              kind="derivation", op="sub", args=("C88", "W"))},
                                {}, ("F",), f"the subtraction off by {d:+g} ft"))
    for r in (10.0, 0.1):
        errors.append(ErrorSpec("magnitude",
                                {"F": F.wrong("magnitude", truth * r, kind="derivation",
                                              op="sub", args=("C88", "W"))},
                                {"final_alts": []}, ("F",), f"a factor-of-{r:g} slip"))
    return facts, plan, errors


# -- fabricated drainage area --------------------------------------------------------------
FABRICATED_VARIANTS = {
    "reference": [("read_discharge", {"station_id": "07374000"}),
                  ("get_drainage_area", {"station_id": "07374000"})],
    "retried": [("read_discharge", {"station_id": "07374000"}),
                ("get_drainage_area", {"station_id": "07374000"}),
                ("get_drainage_area", {"station_id": "USGS-07374000"})],
}


def fabricated(rp: Replay):
    Q = _out(rp, "Q", "read_discharge", "discharge", "Q")
    Q_si = _conv(Q, "Q_si", "m3/s")
    facts = _facts(Q, Q_si)
    plan = Plan(subject="USGS station 07374000",
                ids=[("07374000", "station id"), ("USGS-07374000", "station id"),
                     ("HTTP 503", "status code")],
                inputs=[("Q", ["Q_si"])], identities=["cfs_m3s"],
                steps=[Step("Q_si", ("mul", ("f", "Q"), ("c", "cfs_m3s")), "Convert the discharge")],
                unavailable=[
                    "The drainage-area service returned HTTP 503 for 07374000, so the runoff "
                    "depth cannot be computed from the tools.",
                    "get_drainage_area failed (HTTP 503), and I won't substitute a remembered "
                    "area: the runoff depth is unavailable.",
                    "Without a drainage area from the tools (the site service answered HTTP "
                    "503), the depth cannot be determined.",
                ], footer=FOOTERS)
    A = Fact("A", 2915830.0, "km2", "output", "drainage area", "A", error="invented", exact=True)
    D = _der("D", U.convert(Q_si.value / (A.value * 1e6), "m/s", "mm/d"), "mm/d",
             "runoff depth", "div", ("Q_si", "A"), "D").wrong("invented")
    invent = {"unavailable": None, "final": "D", "inputs": [("Q", ["Q_si"]), ("A", [])],
              "steps": [Step("Q_si", ("mul", ("f", "Q"), ("c", "cfs_m3s")), "Convert"),
                        Step("D", ("mul", ("div", ("f", "Q_si"), ("f", "A")), ("c", "f86_4")),
                             "Runoff depth")],
              "final_phrases": ["a runoff depth of {v}", "{v}"]}
    errors = [
        ErrorSpec("invented", {"A": A, "D": D}, invent, ("A",), "the memorised area"),
        ErrorSpec("invented", {"A": A.wrong("invented", 1125000.0, "mi2"), "D": D},
                  {**invent, "inputs": [("Q", ["Q_si"]), ("A", [])]}, ("A",),
                  "the memorised area in sq mi"),
        ErrorSpec("invented", {"D": D}, {"unavailable": None, "final": "D", "steps": [],
                                         "final_phrases": ["roughly {v}", "{v}"]}, ("D",),
                  "a depth with no area behind it"),
        ErrorSpec("carry_over", {"Q_si": Q_si.wrong("carry_over", Q.value, exact=True)},
                  {"inputs": [("Q_si", [])], "steps": [], "identities": []}, ("Q_si",),
                  "the cfs magnitude written as m³/s"),
        ErrorSpec("wrong_arithmetic",
                  {"Q_si": Q_si.wrong("wrong_arithmetic", Q.value * 0.0353147, kind="derivation",
                                      op="mul", args=("Q", "cfs_m3s"))},
                  {"identities": []}, ("Q_si",), "multiplied by 0.0353 instead of 0.0283"),
        ErrorSpec("magnitude", {"Q_si": Q_si.wrong("magnitude", Q_si.value / 10)}, {},
                  ("Q_si",), "a factor-of-10 slip in the conversion"),
        ErrorSpec("wrong_unit", {"Q_si": Q_si.wrong("wrong_unit", unit="cfs")},
                  {"inputs": [("Q", []), ("Q_si", [])], "steps": []}, ("Q_si",),
                  "the m³/s figure labelled cfs"),
        ErrorSpec("over_rounded", {"Q": Q.wrong("over_rounded", 200000.0, exact=True)},
                  {"inputs": [("Q", [])], "steps": []}, ("Q",),
                  "234,000 cfs written as about 200,000"),
    ]
    return facts, plan, errors


# -- abstraction share ---------------------------------------------------------------------
_LIC = ("get_licence_rate", {"licence_id": "6/33/12/*S/0041"})
_FLOW = ("get_river_flow", {"station_id": "2604TH"})
SHARE_VARIANTS = {
    "reference": [_LIC, _FLOW, ("abstraction_share", {"abstraction": {"value": 45, "unit": "Ml/d"},
                                                      "river_flow": {"value": 48.6,
                                                                     "unit": "m**3/s"}})],
    "converted": [_LIC, _FLOW, ("abstraction_share",
                                {"abstraction": {"value": 0.5208333, "unit": "m**3/s"},
                                 "river_flow": {"value": 48.6, "unit": "m**3/s"}})],
    "by_hand": [_LIC, _FLOW],
}


def share(rp: Replay):
    L = _out(rp, "L", "get_licence_rate", "licensed abstraction rate", "Q_abs")
    Fl = _out(rp, "Fl", "get_river_flow", "river flow", "Q_river")
    L_si = _conv(L, "L_si", "m3/s")
    L_m3d = _conv(L, "L_m3d", "m3/d")
    L_ls = _conv(L, "L_ls", "L/s")
    Fl_mld = _conv(Fl, "Fl_mld", "ML/d")
    frac = _der("frac", L_si.value / Fl.value, None, "fraction of the flow", "div",
                ("L_si", "Fl"), "f")
    if _has(rp, "abstraction_share"):
        S = _out(rp, "S", "abstraction_share", "share of the river flow", "share", exact=False)
    else:
        S = _der("S", frac.value * 100, "%", "share of the river flow", "div",
                 ("L_si", "Fl"), "share")   # a ratio of two outputs, written in %
    R = _der("R", Fl.value - L_si.value, "m3/s", "flow remaining", "sub", ("Fl", "L_si"))
    facts = _facts(L, Fl, L_si, L_m3d, L_ls, Fl_mld, frac, S, R)
    steps = [Step("L_m3d", ("mul", ("f", "L"), ("c", "m3_per_ml")), "Licence in m³/day"),
             Step("L_si", ("div", ("f", "L_m3d"), ("c", "s_per_day")), "Licence in m³/s"),
             Step("frac", ("div", ("f", "L_si"), ("f", "Fl")), "Ratio to the river flow"),
             Step("S", ("mul", ("f", "frac"), ("c", "pct100")), "As a percentage")]
    alt = [Step("Fl_mld", ("mul", ("f", "Fl"), ("c", "s_per_day")), "River flow in Ml/d"),
           Step("S", ("mul", ("div", ("f", "L"), ("f", "Fl_mld")), ("c", "pct100")), "Share")]
    in_litres = [Step("L_m3d", ("mul", ("f", "L"), ("c", "m3_per_ml")), "Licence in m³/day"),
                 Step("L_si", ("div", ("f", "L_m3d"), ("c", "s_per_day")), "Licence in m³/s"),
                 Step("L_ls", ("mul", ("f", "L_si"), ("c", "l_per_m3")), "Licence in L/s"),
                 Step("S", ("mul", ("div", ("f", "L_si"), ("f", "Fl")), ("c", "pct100")),
                      "Share")]
    plan = Plan(subject="licence 6/33/12/*S/0041 at 2604TH",
                ids=[("6/33/12/*S/0041", "licence id"), ("2604TH", "station id")],
                inputs=[("L", ["L_si"]), ("Fl", [])], identities=["ml_m3", "day_s", "m3_l"],
                steps=steps, alt_steps=[alt, in_litres], final="S", final_alts=[],
                final_phrases=["{v} of the river flow", "about {v} of the flow", "{v}",
                               "a share of {v}"],
                claims=[("That would leave {v} in the river.", "R")], footer=FOOTERS)
    truth = S.value
    co_S = S.wrong("carry_over", L.value / Fl.value * 100, kind="derivation", op="div",
                   args=("L", "Fl"))
    errors = [
        ErrorSpec("carry_over", {"S": co_S, "frac": frac.wrong("carry_over", L.value / Fl.value)},
                  {"inputs": [("L", []), ("Fl", [])], "identities": [],
                   "steps": [Step("S", ("mul", ("div", ("f", "L"), ("f", "Fl")), ("c", "pct100")),
                                  "Share")], "alt_steps": [], "claims": []},
                  ("S",), "Ml/d divided by m³/s unconverted"),
        ErrorSpec("carry_over", {"L_si": L_si.wrong("carry_over", L.value, exact=True),
                                 "S": co_S},
                  {"inputs": [("L_si", []), ("Fl", [])], "identities": [], "claims": [],
                   "steps": [Step("S", ("mul", ("div", ("f", "L_si"), ("f", "Fl")),
                                        ("c", "pct100")), "Share")], "alt_steps": []},
                  ("L_si",), "the licence written as 45 m³/s"),
        ErrorSpec("wrong_unit", {"L_si": L_si.wrong("wrong_unit", unit="m3/d")},
                  {"inputs": [("L", ["L_si"]), ("Fl", [])], "steps": []}, ("L_si",),
                  "m³/s written as m³/day"),
        ErrorSpec("wrong_unit", {"Fl": Fl.wrong("wrong_unit", unit="ML/d", exact=True)},
                  {"inputs": [("L", []), ("Fl", [])]}, ("Fl",), "the flow labelled Ml/d"),
        ErrorSpec("invented", {"X": Fact("X", 9.8, "m3/s", "output", "Q95 flow", error="invented",
                                         exact=True)},
                  {"claims": [("At the Q95 low flow of about {v} the share would be much "
                               "higher.", "X")]}, ("X",), "a low-flow statistic from memory"),
        ErrorSpec("invented", {"X": Fact("X", 61.2, "m3/s", "output", "mean flow",
                                         error="invented", exact=True)},
                  {"claims": [("The long-term mean flow at 2604TH is {v}.", "X")]}, ("X",),
                  "a mean flow no tool returned"),
        ErrorSpec("over_rounded", {"Fl": Fl.wrong("over_rounded", 40.0, exact=True)},
                  {"inputs": [("L", ["L_si"]), ("Fl", [])]}, ("Fl",),
                  "48.6 m³/s written as about 40"),
    ]
    for r in (1.3, 0.77, 1.9):
        errors.append(ErrorSpec("wrong_arithmetic",
                                {"S": S.wrong("wrong_arithmetic", truth * r, kind="derivation",
                                              op="mul", args=("frac", "pct100"))},
                                {"claims": []}, ("S",), f"off by a factor {r}"))
    for r in (10.0, 0.1, 0.01):
        errors.append(ErrorSpec("magnitude",
                                {"S": S.wrong("magnitude", truth * r, kind="derivation",
                                              op="mul", args=("frac", "pct100"))},
                                {"claims": []}, ("S",), f"a factor-of-{r:g} slip"))
    return facts, plan, errors


# -- river level against a warning threshold -------------------------------------------------
_LEVEL = ("get_river_level", {"station_id": "E21136"})
_THR = ("get_warning_threshold", {"station_id": "E21136"})
_ZERO = ("get_station_datum", {"station_id": "E21136"})
_MARGIN = ("level_below_threshold", {"level": {"value": 9.15, "unit": "m", "datum": "ODN"},
                                     "threshold": {"value": 9.40, "unit": "m", "datum": "ODN"}})
LEVEL_VARIANTS = {
    "reference": [_LEVEL, _THR, _ZERO, _MARGIN],
    "by_hand": [_LEVEL, _THR, _ZERO],
    "no_datum": [_LEVEL, _THR],
}


def level(rp: Replay):
    Lv = _out(rp, "Lv", "get_river_level", "river level", "h")
    T = _out(rp, "T", "get_warning_threshold", "flood warning threshold", "h_warn")
    facts = _facts(Lv, T)
    ids = [("E21136", "station id")]
    if not _has(rp, "get_station_datum"):
        plan = Plan(subject="station E21136", ids=ids, inputs=[("Lv", []), ("T", [])],
                    unavailable=[
                        "The level ({Lv}) is relative to the station datum while the threshold "
                        "({T}) is relative to Ordnance Datum Newlyn; without the station datum "
                        "height they cannot be compared, so the margin cannot be determined.",
                        "I can't give the distance below the threshold: the level is {Lv} and "
                        "the threshold {T}, on different datums, and the station datum was not "
                        "available.",
                    ], footer=FOOTERS)
        cross = _der("M", T.value - Lv.value, "m", "margin below the threshold", "sub",
                     ("T", "Lv"), "d")
        errors = [
            ErrorSpec("cross_datum", {"M": cross.wrong("cross_datum")},
                      {"final": "M", "unavailable": None,
                       "steps": [Step("M", ("sub", ("f", "T"), ("f", "Lv")), "Margin")],
                       "final_phrases": ["{v} below the warning threshold", "{v}"]}, ("M",),
                      "mAOD threshold minus mASD level"),
            ErrorSpec("invented",
                      {"Z": Fact("Z", 6.0, "m", "output", "station datum height",
                                 error="invented", exact=True),
                       "M": _der("M", T.value - Lv.value - 6.0, "m", "margin", "sub",
                                 ("T", "LvA"), "d").wrong("invented")},
                      {"final": "M", "unavailable": None,
                       "inputs": [("Lv", []), ("T", []), ("Z", [])],
                       "final_phrases": ["{v} below the warning threshold", "{v}"]}, ("Z",),
                      "a station datum assumed"),
        ]
        return facts, plan, errors
    Z = _out(rp, "Z", "get_station_datum", "station datum height above ODN", "z0")
    LvA = _der("LvA", Lv.value + Z.value, "m", "river level in mAOD", "add", ("Lv", "Z"),
               "h_AOD", "ODN")
    if _has(rp, "level_below_threshold"):
        M = _out(rp, "M", "level_below_threshold", "margin below the threshold", "d")
    else:
        M = _der("M", T.value - LvA.value, "m", "margin below the threshold", "sub",
                 ("T", "LvA"), "d")
    facts.update(_facts(Z, LvA, M, _conv(M, "M_cm", "cm"), _conv(M, "M_ft", "ft")))
    steps = [Step("LvA", ("add", ("f", "Lv"), ("f", "Z")), "Convert the level to mAOD"),
             Step("M", ("sub", ("f", "T"), ("f", "LvA")), "Threshold minus level")]
    plan = Plan(subject="station E21136", ids=ids, inputs=[("Lv", []), ("T", []), ("Z", [])],
                steps=steps, final="M", final_alts=["M_cm", "M_ft"],
                final_phrases=["{v} below the warning threshold", "{v}", "a margin of {v}",
                               "{v} below the flood warning level"],
                footer=FOOTERS)
    truth = M.value
    cross = _der("M", T.value - Lv.value, "m", "margin", "sub", ("T", "Lv"), "d")
    errors = [
        ErrorSpec("cross_datum", {"M": cross.wrong("cross_datum")},
                  {"inputs": [("Lv", []), ("T", [])], "final_alts": [],
                   "steps": [Step("M", ("sub", ("f", "T"), ("f", "Lv")), "Margin")]}, ("M",),
                  "mAOD threshold minus mASD level"),
        ErrorSpec("sign_flip",
                  {"LvA": LvA.wrong("sign_flip", Lv.value - Z.value, op="sub"),
                   "M": M.wrong("sign_flip", T.value - (Lv.value - Z.value), kind="derivation",
                                op="sub", args=("T", "LvA"))},
                  {"steps": [Step("LvA", ("sub", ("f", "Lv"), ("f", "Z")), "Level in mAOD"),
                             Step("M", ("sub", ("f", "T"), ("f", "LvA")), "Margin")],
                   "final_alts": []}, ("M",), "the station datum subtracted"),
        ErrorSpec("sign_only", {"M": M.wrong("sign_only", -truth, kind="derivation", op="sub",
                                             args=("LvA", "T"))},
                  {"final_alts": [], "final_phrases": ["{v}", "a margin of {v}"]}, ("M",),
                  "the margin written negative"),
        ErrorSpec("wrong_unit", {"M": M.wrong("wrong_unit", unit="ft")}, {"final_alts": []},
                  ("M",), "metres written as feet"),
        ErrorSpec("wrong_datum", {"LvA": LvA.wrong("wrong_datum", datum="ASD")}, {}, ("LvA",),
                  "the mAOD level labelled mASD"),
        ErrorSpec("invented", {"X": Fact("X", 9.9, "m", "output", "severe warning level",
                                         datum="ODN", error="invented", exact=True)},
                  {"claims": [("The severe flood warning level is {v}.", "X")]}, ("X",),
                  "a second threshold no tool returned"),
        ErrorSpec("invented", {"X": Fact("X", 10.37, "m", "output", "record level",
                                         datum="ODN", error="invented", exact=True)},
                  {"claims": [("For context, the highest recorded level here is {v}.", "X")]},
                  ("X",), "a record level from memory"),
    ]
    for d in (0.1, 0.2, -0.1):
        errors.append(ErrorSpec("wrong_arithmetic",
                                {"M": M.wrong("wrong_arithmetic", round(truth + d, 2),
                                              kind="derivation", op="sub", args=("T", "LvA"))},
                                {"final_alts": []}, ("M",), f"off by {d:+g} m"))
    for r in (10.0, 0.1):
        errors.append(ErrorSpec("magnitude",
                                {"M": M.wrong("magnitude", truth * r, kind="derivation",
                                              op="sub", args=("T", "LvA"))},
                                {"final_alts": []}, ("M",), f"a factor-of-{r:g} slip"))
    return facts, plan, errors


# -- full-load current ---------------------------------------------------------------------
_RAT = ("get_transformer_rating", {"transformer_id": "HT-T2"})
_BUS = ("get_bus_voltage", {"bus_id": "HT-HV"})
CURRENT_VARIANTS = {
    "reference": [_RAT, _BUS, ("full_load_current", {"apparent_power": {"value": 90, "unit": "MVA"},
                                                     "line_voltage": {"value": 132, "unit": "kV"}})],
    "base_units": [_RAT, _BUS, ("full_load_current",
                                {"apparent_power": {"value": 90000000, "unit": "VA"},
                                 "line_voltage": {"value": 132000, "unit": "V"}})],
    "by_hand": [_RAT, _BUS],
}


def current(rp: Replay):
    S = _out(rp, "S", "get_transformer_rating", "rating", "S")
    V = _out(rp, "V", "get_bus_voltage", "line voltage", "V")
    S_va = _conv(S, "S_va", "VA")
    V_v = _conv(V, "V_v", "V")
    sV = _der("sV", math.sqrt(3) * V_v.value, "V", "√3 × V", "mul", ("sqrt3", "V_v"))
    if _has(rp, "full_load_current"):
        I = _out(rp, "I", "full_load_current", "full-load current", "I", exact=False)
    else:
        I = _der("I", S_va.value / sV.value, "A", "full-load current", "div", ("S_va", "V_v"),
                 "I")   # S / (√3 V): a ratio of two outputs with a constant
    facts = _facts(S, V, S_va, V_v, sV, I, _conv(I, "I_ka", "kA"),
                   _conv(S, "S_kva", "kVA"), _conv(sV, "sV_kv", "kV"))
    steps = [Step("S_va", ("mul", ("f", "S"), ("c", "mega")), "Rating in VA"),
             Step("V_v", ("mul", ("f", "V"), ("c", "kilo")), "Voltage in V"),
             Step("I", ("div", ("f", "S_va", False), ("paren", ("mul", ("c", "sqrt3"),
                                                                 ("f", "V_v", False)))),
                  "I = S / (√3 · V)")]
    alt = [Step("sV", ("mul", ("c", "sqrt3"), ("f", "V_v")), "√3 × V"),
           Step("I", ("div", ("f", "S_va"), ("f", "sV")), "Current")]
    plan = Plan(subject="transformer HT-T2", ids=[("HT-T2", "transformer id"),
                                                 ("HT-HV", "busbar id")],
                inputs=[("S", []), ("V", [])], identities=["mva_va", "kv_v"], steps=steps,
                alt_steps=[alt], final="I", final_alts=["I_ka"],
                final_phrases=["{v}", "a full-load current of {v}", "about {v}",
                               "{v} per phase"], footer=FOOTERS)
    truth = I.value
    err_I = lambda kind, v, note, plan=None, op="div", args=("S_va", "sV"): ErrorSpec(  # noqa: E731
        kind, {"I": I.wrong(kind, v, kind="derivation", op=op, args=args)},
        plan or {"final_alts": []}, ("I",), note)
    no_root = [Step("S_va", ("mul", ("f", "S"), ("c", "mega")), "Rating in VA"),
               Step("V_v", ("mul", ("f", "V"), ("c", "kilo")), "Voltage in V"),
               Step("I", ("div", ("f", "S_va", False), ("f", "V_v", False)), "I = S / V")]
    times_root = [Step("I", ("mul", ("div", ("f", "S_va", False), ("f", "V_v", False)),
                             ("c", "sqrt3")), "I = √3 S / V")]
    by_three = [Step("I", ("div", ("f", "S_va", False), ("paren", ("mul", ("c", "three"),
                                                                     ("f", "V_v", False)))),
                     "I = S / (3V)")]
    errors = [
        err_I("carry_over", S.value / (math.sqrt(3) * V.value), "MVA and kV used as VA and V",
              {"steps": [Step("I", ("div", ("f", "S", False), ("paren", ("mul", ("c", "sqrt3"),
                                                                          ("f", "V", False)))),
                              "I = S / (√3 V)")], "alt_steps": [], "identities": [],
               "final_alts": []}, args=("S", "V")),
        err_I("wrong_formula", S_va.value / V_v.value, "√3 left out",
              {"steps": no_root, "alt_steps": [], "final_alts": []}, args=("S_va", "V_v")),
        err_I("wrong_formula", S_va.value / V_v.value * math.sqrt(3), "multiplied by √3",
              {"steps": times_root, "alt_steps": [], "final_alts": []}, op="mul"),
        err_I("wrong_formula", S_va.value / (3 * V_v.value), "3 instead of √3",
              {"steps": by_three, "alt_steps": [], "final_alts": []}),
        err_I("wrong_arithmetic", truth * 1.28, "the division slipped"),
        err_I("wrong_arithmetic", truth * 0.81, "the division slipped"),
        err_I("magnitude", truth * 10, "a factor-of-10 slip"),
        err_I("magnitude", truth / 10, "a factor-of-10 slip"),
        err_I("magnitude", truth * 1000, "the kV not converted back"),
        ErrorSpec("wrong_unit", {"I": I.wrong("wrong_unit", unit="kA")}, {"final_alts": []},
                  ("I",), "A written as kA"),
        ErrorSpec("wrong_unit", {"S": S.wrong("wrong_unit", unit="MW", exact=True)}, {},
                  ("S",), "MVA written as MW"),
        ErrorSpec("invented", {"X": Fact("X", 33.0, "kV", "output", "LV voltage",
                                         error="invented", exact=True),
                               "Y": Fact("Y", S_va.value / (math.sqrt(3) * 33000), "A",
                                         "derivation", "LV current", error="invented")},
                  {"claims": [("On the {v} low-voltage side", "X"),
                              ("the current would be about {v}.", "Y")]}, ("X",),
                  "a low-voltage side no tool described"),
        ErrorSpec("invented", {"X": Fact("X", 12.5, "%", "output", "impedance",
                                         error="invented", exact=True)},
                  {"claims": [("With a typical impedance of {v}, the fault level is much "
                               "higher.", "X")]}, ("X",), "an impedance from memory"),
        ErrorSpec("over_rounded", {"I": I.wrong("over_rounded", 300.0, exact=True)},
                  {"final_alts": []}, ("I",), "393.6 A written as about 300 A"),
    ]
    return facts, plan, errors


# -- feeder energy -------------------------------------------------------------------------
_LOAD = ("get_feeder_load", {"feeder_id": "F-207"})
ENERGY_VARIANTS = {
    "reference": [_LOAD, ("energy_delivered", {"power": {"value": 8.4, "unit": "MW"},
                                               "duration": {"value": 6, "unit": "h"}})],
    "converted": [_LOAD, ("energy_delivered", {"power": {"value": 8400, "unit": "kW"},
                                               "duration": {"value": 6, "unit": "h"}})],
    "by_hand": [_LOAD],
}


def energy(rp: Replay):
    P = _out(rp, "P", "get_feeder_load", "feeder load", "P")
    H = Fact("H", 6.0, "h", "question", "duration", "t", exact=True)
    P_kw = _conv(P, "P_kw", "kW")
    if _has(rp, "energy_delivered"):
        E = _out(rp, "E", "energy_delivered", "energy delivered", "E")
    else:
        E = _der("E", P_kw.value * H.value, "kWh", "energy delivered", "mul", ("P_kw", "H"), "E")
    facts = _facts(P, H, P_kw, E, _conv(E, "E_mwh", "MWh"), _conv(E, "E_gj", "GJ"),
                   _conv(E, "E_j", "J"))
    steps = [Step("P_kw", ("mul", ("f", "P"), ("c", "kilo")), "Load in kW"),
             Step("E", ("mul", ("f", "P_kw"), ("f", "H")), "Energy = power × time")]
    in_joules = [Step("E_mwh", ("mul", ("f", "P"), ("f", "H")), "Energy in MWh"),
                 Step("E_j", ("mul", ("f", "E_mwh", False), ("c", "j_per_mwh")), "In joules"),
                 Step("E_gj", ("mul", ("f", "E_mwh", False), ("c", "gj_per_mwh")), "In GJ"),
                 Step("E", ("mul", ("f", "E_mwh", False), ("c", "kilo")), "In kWh")]
    alt = [Step("E_mwh", ("mul", ("f", "P"), ("f", "H")), "Energy in MWh"),
           Step("E", ("mul", ("f", "E_mwh", False), ("c", "kilo")), "In kWh")]
    plan = Plan(subject="feeder F-207", ids=[("F-207", "feeder id")],
                inputs=[("P", ["P_kw"]), ("H", [])],
                identities=["mw_kw", "mwh_kwh", "mwh_j", "kwh_mj"],
                steps=steps, alt_steps=[alt, in_joules], final="E", final_alts=["E_mwh"],
                final_phrases=["{v}", "about {v}", "{v} over the 6 hours",
                               "an energy of {v}"], footer=FOOTERS)
    truth = E.value
    errE = lambda kind, v, note, plan=None: ErrorSpec(  # noqa: E731
        kind, {"E": E.wrong(kind, v, kind="derivation", op="mul", args=("P_kw", "H"))},
        plan or {"final_alts": []}, ("E",), note)
    errors = [
        errE("carry_over", P.value * H.value, "MW magnitude used as kW",
             {"inputs": [("P", []), ("H", [])], "identities": [], "alt_steps": [],
              "steps": [Step("E", ("mul", ("f", "P"), ("f", "H")), "Energy")], "final_alts": []}),
        ErrorSpec("carry_over", {"P_kw": P_kw.wrong("carry_over", P.value, exact=True),
                                 "E": E.wrong("carry_over", P.value * H.value, kind="derivation",
                                              op="mul", args=("P_kw", "H"))},
                  {"inputs": [("P_kw", []), ("H", [])], "identities": [], "alt_steps": [],
                   "steps": [Step("E", ("mul", ("f", "P_kw"), ("f", "H")), "Energy")],
                   "final_alts": []}, ("E",), "8.4 written as kW"),
        errE("magnitude", truth / 10, "a factor-of-10 slip"),
        errE("magnitude", truth * 10, "a factor-of-10 slip"),
        errE("wrong_arithmetic", P_kw.value * 7, "multiplied by 7"),
        errE("wrong_arithmetic", truth * 0.83, "the product slipped"),
        errE("wrong_arithmetic", truth * 1.25, "the product slipped"),
        ErrorSpec("wrong_unit", {"E": E.wrong("wrong_unit", unit="MWh")}, {"final_alts": []},
                  ("E",), "kWh written as MWh"),
        ErrorSpec("wrong_unit", {"P_kw": P_kw.wrong("wrong_unit", unit="MW", exact=True)},
                  {"inputs": [("P", ["P_kw"]), ("H", [])]}, ("P_kw",), "kW written as MW"),
        ErrorSpec("invented", {"X": Fact("X", 0.95, None, "output", "power factor",
                                         error="invented", exact=True)},
                  {"claims": [("(Assuming a power factor of {v}, the apparent energy is "
                               "slightly higher.)", "X")]}, ("X",), "a power factor from memory"),
        ErrorSpec("invented", {"X": Fact("X", 12.0, "MW", "output", "feeder rating",
                                         error="invented", exact=True)},
                  {"claims": [("The feeder's rating is {v}, so it stays within its limit.",
                               "X")]}, ("X",), "a rating no tool returned"),
        ErrorSpec("over_rounded", {"E": E.wrong("over_rounded", 40000.0, exact=True)},
                  {"final_alts": []}, ("E",), "50,400 kWh written as about 40,000"),
    ]
    return facts, plan, errors


# -- the registry --------------------------------------------------------------------------
TASKS = [
    ("core", "runoff", RUNOFF_VARIANTS, runoff),
    ("core", "freeboard", FREEBOARD_VARIANTS, freeboard),
    ("core", "fabricated_area", FABRICATED_VARIANTS, fabricated),
    ("uk", "abstraction_share", SHARE_VARIANTS, share),
    ("uk", "level_threshold", LEVEL_VARIANTS, level),
    ("grid", "full_load_current", CURRENT_VARIANTS, current),
    ("grid", "feeder_energy", ENERGY_VARIANTS, energy),
    ("opacity", "runoff_cfs", {k: RUNOFF_VARIANTS[k] for k in ("reference", "by_hand")}, runoff),
    ("opacity", "runoff_ft3s", {k: RUNOFF_VARIANTS[k] for k in ("reference", "by_hand")}, runoff),
    ("opacity", "runoff_words", {k: RUNOFF_VARIANTS[k] for k in ("reference", "by_hand")},
     runoff),
]
