"""A held-out labelled answer set for the answer audit (issue #11), written independently of
``bench/corpus/`` and of the audit's code.

Every record is one final answer to one task of the four bench suites, with the tool calls a
model made (replayed through the suite's real guarded tools inside
``quantity_guard.session(context=question)``, so the ledger is a real one), the model family whose
writing habits it imitates, and a label fixed by construction:

- ``correct``: every figure is a recorded output, a correct unit conversion of one, a correct
  one-step sum/difference/product/ratio of recorded outputs (or with a constant such as √3, 100 %
  or an exact unit factor), a number from the question, or not a quantity at all (dates, station
  ids, step numbers, URLs); rounding is sensible.
- ``incorrect``: at least one figure is wrong, of the recorded ``error`` kind: ``carry_over``
  (a magnitude carried into another unit unconverted), ``wrong_unit``, ``cross_datum``,
  ``invented``, ``sign_flip``, ``wrong_arithmetic`` or ``factor_slip``. ``wrong_figures`` holds
  the wrong figure(s) exactly as written in the answer (the first is the primary one).

Usage::

    python bench/holdout.py            # rebuild tests/data/audit_holdout.json (deterministic)
    python bench/holdout.py --check    # rebuild in memory and compare with the file

``replay(record)`` rebuilds a record's ledger; ``bench/holdout_rates.py`` audits the set.
"""
from __future__ import annotations

import json
import math
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # last: a PYTHONPATH (another worktree's package) comes first
    sys.path.append(str(ROOT))

DATA = ROOT / "tests" / "data" / "audit_holdout.json"
SEED = 20261130
CONDITION = "schema_only"  # labelled results, warn mode: every call reaches its body
FAMILIES = ("claude", "gpt", "llama", "qwen", "gemini", "mistral", "small")
ERROR_KINDS = ("carry_over", "wrong_unit", "cross_datum", "invented", "sign_flip",
               "wrong_arithmetic", "factor_slip")
TASKS = (("core", "runoff"), ("core", "freeboard"), ("core", "fabricated_area"),
         ("uk", "abstraction_share"), ("uk", "level_threshold"),
         ("grid", "full_load_current"), ("grid", "feeder_energy"),
         ("opacity", "runoff_cfs"), ("opacity", "runoff_ft3s"), ("opacity", "runoff_words"))
CFS = 0.028316846592  # m3/s per ft3/s, exact


# -- replay ---------------------------------------------------------------------------------
def replay(record: dict):
    """(ledger, question, results): the record's calls dispatched through the task's guarded
    bench tools inside a session whose context is the question."""
    from bench.harness import suites
    from bench.harness.tools import build_tools
    from quantity_guard import session, toolbox
    task = suites.load(record["suite"]).task(record["task"])
    box = toolbox(build_tools(task, record.get("condition", CONDITION)))
    results = []
    with session(context=task.question) as ledger:
        for name, args in record["calls"]:
            res = box.invoke(name, args)
            text = "\n".join(c.get("text", "") for c in res.get("content", []))
            results.append({"name": name, "is_error": bool(res.get("isError")), "text": text})
    return ledger, task.question, results


def _outputs(results) -> dict:
    """tool name -> the last numeric value it returned (errors are skipped)."""
    out = {}
    for r in results:
        if r["is_error"]:
            continue
        try:
            data = json.loads(r["text"])
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("value"), (int, float)):
            out[r["name"]] = float(data["value"])
    return out


# -- reading a written figure back -----------------------------------------------------------
_NUM = re.compile(r"[-−]?\d+(?:\.\d+)?")
_UNIT_NAMES = {
    "m3/s": ("m³/s", "m3/s", "m^3/s", "cubic metres per second", "cubic meters per second"),
    "mm/d": ("mm/day", "mm/d"), "A": ("A",), "kWh": ("kWh",), "ft": ("ft", "ft NAVD88"),
    "m": ("m", "metres"), "%": ("%",), "ML/d": ("Ml/d", "ML/d"), "kW": ("kW",),
}


def _plain(text: str) -> str:
    t = text.replace("{,}", "").replace(r"\,", " ").replace("\u2009", "").replace("\u202f", "")
    t = re.sub(r"\\text\{([^}]*)\}", r"\1", t).replace("^3", "³").replace(r"\%", "%")
    return re.sub(r"(?<=\d)[, ](?=\d{3}\b)", "", t)


def number_of(text: str):
    """The first number written in ``text`` (grouping, LaTeX and the Unicode minus removed)."""
    m = _NUM.search(_plain(text))
    return float(m.group().replace("−", "-")) if m else None


def recorded_as(ledger, text: str):
    """``"output"`` or ``"input"`` when the figure ``text`` (number and unit as written) is a
    value the ledger recorded in that unit, within the written precision; else None. A wrong
    figure that a tool recorded (a wrong value fed to a tool) cannot be caught by sourcing."""
    plain = _plain(text)
    m = _NUM.search(plain)
    if not m:
        return None
    x = float(m.group().replace("−", "-"))
    written_unit = plain[m.end():].strip()
    unit = next((k for k, names in _UNIT_NAMES.items() if written_unit in names), None)
    if unit is None:
        return None
    frac = m.group().partition(".")[2]
    tol = 0.5 * 10 ** -len(frac)
    found = None
    for call in ledger.manifest()["calls"]:
        for role in ("outputs", "inputs"):
            for e in call[role]:
                q = e["quantity"]
                if q["unit"] == unit and abs(q["value"] - x) <= tol * 1.0001:
                    if role == "outputs":
                        return "output"
                    found = "input"
    return found


# -- writing numbers and units ----------------------------------------------------------------
UNITS = {
    "cfs": ("cfs", "cfs", "cfs", r"\text{cfs}", "cubic feet per second"),
    "ft3s": ("ft³/s", "ft3/s", "ft^3/s", r"\text{ft}^3/\text{s}", "cubic feet per second"),
    "m3s": ("m³/s", "m3/s", "m^3/s", r"\text{m}^3/\text{s}", "cubic metres per second"),
    "m3d": ("m³/day", "m3/day", "m^3/day", r"\text{m}^3/\text{day}", "cubic metres per day"),
    "km2": ("km²", "km2", "km^2", r"\text{km}^2", "square kilometres"),
    "m2": ("m²", "m2", "m^2", r"\text{m}^2", "square metres"),
    "mi2": ("mi²", "sq mi", "mi^2", r"\text{mi}^2", "square miles"),
    "mmd": ("mm/day", "mm/day", "mm/d", r"\text{mm/day}", "millimetres per day"),
    "md": ("m/day", "m/day", "m/d", r"\text{m/day}", "metres per day"),
    "ms": ("m/s", "m/s", "m/s", r"\text{m/s}", "metres per second"),
    "ind": ("in/day", "in/day", "in/d", r"\text{in/day}", "inches per day"),
    "ft": ("ft", "ft", "ft", r"\text{ft}", "feet"),
    "m": ("m", "m", "m", r"\text{m}", "metres"),
    "cm": ("cm", "cm", "cm", r"\text{cm}", "centimetres"),
    "mm": ("mm", "mm", "mm", r"\text{mm}", "millimetres"),
    "in": ("in", "in", "in", r"\text{in}", "inches"),
    "mld": ("Ml/d", "Ml/d", "ML/d", r"\text{Ml/d}", "megalitres per day"),
    "ls": ("L/s", "L/s", "l/s", r"\text{L/s}", "litres per second"),
    "pct": ("%", "%", "%", r"\%", "percent"),
    "MVA": ("MVA", "MVA", "MVA", r"\text{MVA}", "MVA"),
    "VA": ("VA", "VA", "VA", r"\text{VA}", "volt-amperes"),
    "kVA": ("kVA", "kVA", "kVA", r"\text{kVA}", "kVA"),
    "kV": ("kV", "kV", "kV", r"\text{kV}", "kilovolts"),
    "V": ("V", "V", "V", r"\text{V}", "volts"),
    "A": ("A", "A", "A", r"\text{A}", "amperes"),
    "kA": ("kA", "kA", "kA", r"\text{kA}", "kiloamperes"),
    "MW": ("MW", "MW", "MW", r"\text{MW}", "megawatts"),
    "kW": ("kW", "kW", "kW", r"\text{kW}", "kilowatts"),
    "MWh": ("MWh", "MWh", "MWh", r"\text{MWh}", "megawatt-hours"),
    "kWh": ("kWh", "kWh", "kWh", r"\text{kWh}", "kilowatt-hours"),
    "GJ": ("GJ", "GJ", "GJ", r"\text{GJ}", "gigajoules"),
    "h": ("h", "h", "hours", r"\text{h}", "hours"),
}
_UMODE = {"uni": 0, "ascii": 1, "caret": 2, "tex": 3, "words": 4}
SUP = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


class Style:
    """How one answer writes numbers and units; remembers the wrong figures it wrote."""

    def __init__(self, rng: random.Random, *, tex=False, units="uni", group=",",
                 minus="-", times="×", sci="unicode") -> None:
        self.rng, self.tex, self.units, self.group = rng, tex, units, group
        self.minus, self.times, self.sci_style = minus, times, sci
        self.wrong: list[str] = []

    # numbers
    def n(self, x: float, sig: int | None = None, dec: int | None = None) -> str:
        if dec is None:
            sig = sig or 4
            if x == 0:
                dec = sig - 1
            else:
                dec = max(0, sig - 1 - math.floor(math.log10(abs(x))))
        s = f"{abs(x):.{dec}f}"
        whole, _, frac = s.partition(".")
        if self.group and len(whole) > 4 or (self.group == "," and len(whole) == 4):
            g = self.group
            if self.tex and g == ",":
                g = "{,}"
            elif self.tex and g in ("\u2009", "\u202f", " "):
                g = r"\,"
            parts = []
            while len(whole) > 3:
                parts.insert(0, whole[-3:])
                whole = whole[:-3]
            whole = g.join([whole] + parts) if g else whole + "".join(parts)
        s = whole + ("." + frac if frac else "")
        if x < 0:
            s = ("-" if self.tex else self.minus) + s
        return s

    def sci(self, x: float, sig: int = 3) -> str:
        e = math.floor(math.log10(abs(x)))
        m = x / 10 ** e
        ms = f"{m:.{sig - 1}f}".rstrip("0").rstrip(".") if sig > 1 else f"{m:.0f}"
        if self.tex:
            return f"{ms} \\times 10^{{{e}}}"
        if self.sci_style == "e":
            return f"{ms}e{e}"
        if self.sci_style == "E":
            return f"{ms}E{'+' if e >= 0 else '-'}{abs(e):02d}"
        if self.sci_style == "caret":
            return f"{ms} x 10^{e}"
        return f"{ms} × 10{str(e).translate(SUP)}"

    def u(self, key: str) -> str:
        return UNITS[key][3 if self.tex else _UMODE[self.units]]

    def q(self, x: float, unit: str, sig=None, dec=None, *, wrong=False, sci=False) -> str:
        num = self.sci(x, sig or 3) if sci else self.n(x, sig, dec)
        un = self.u(unit)
        if self.tex:
            s = f"{num}\\,{un}" if unit != "pct" else f"{num}{un}"
        else:
            s = f"{num}{'' if unit == 'pct' else ' '}{un}"
        if wrong:
            self.wrong.append(s)
        return s

    def d(self, name: str) -> str:
        """A datum name after a height."""
        return f"\\ \\text{{{name}}}" if self.tex else f" {name}"

    def w(self, text: str) -> str:
        """Mark a literal piece of text as a wrong figure."""
        self.wrong.append(text)
        return text

    @property
    def x(self) -> str:
        return r"\times" if self.tex else self.times

    @property
    def div(self) -> str:
        return r"\div" if self.tex else self.rng.choice(["/", "÷"])

    @property
    def sqrt3(self) -> str:
        return r"\sqrt{3}" if self.tex else self.rng.choice(["√3", "√3", "sqrt(3)"])

    @property
    def approx(self) -> str:
        return r"\approx" if self.tex else "≈"

    @property
    def arrow(self) -> str:
        return r"\Rightarrow" if self.tex else "→"

    def minus_op(self) -> str:
        return "-" if self.tex else self.minus


# -- the tasks: what a model calls and what it writes ---------------------------------------
class Work:
    """The content of one answer, before a family's style lays it out."""

    def __init__(self, subject, steps, final, final_line=None, caveats=(), echoes=(),
                 table=None, unavailable=False):
        self.subject = subject          # a phrase naming what was asked
        self.steps = list(steps)        # (description, expression or "")
        self.final = final              # the result as written, "3.61 mm/day"
        self.final_line = final_line or final
        self.caveats = list(caveats)
        self.echoes = list(echoes)      # JSON as the tools returned it
        self.table = table or [(d, e.split(" = ")[-1].split(" ≈ ")[-1].split(r" \approx ")[-1])
                               for d, e in steps if e]
        self.unavailable = unavailable


def _echo(value, unit, datum=None) -> str:
    d = {"value": value, "unit": unit}
    if datum:
        d["datum"] = datum
    return json.dumps(d)


# runoff (core/runoff and the three opacity tasks) ------------------------------------------
RUNOFF_ERRORS = ("carry_over", "wrong_unit", "factor_slip", "wrong_arithmetic", "invented",
                 "carry_over_manual")


def plan_runoff(scn, rng, station="01646500", area_ok=True):
    calls = [["read_discharge", {"station_id": station}],
             ["get_drainage_area", {"station_id": station}]]
    pick = {}
    if scn in ("ok_tool", "ok_check", "wrong_unit", "invented", "ok_short"):
        how = rng.choice(["value", "value", "string", "full", "cfs"] if scn != "ok_check"
                         else ["string", "full", "cfs"])
        if how == "value":
            pick["Qm"] = round(1250 * CFS, rng.choice([2, 3]))
            arg = {"value": pick["Qm"], "unit": "m3/s"}
        elif how == "full":
            pick["Qm"] = 1250 * CFS
            arg = {"value": pick["Qm"], "unit": "m^3/s"}
        elif how == "string":
            pick["Qm"] = 1250 * CFS
            arg = "1250 cfs"
        else:
            pick["Qm"] = 1250 * CFS
            arg = {"value": 1250, "unit": "ft3/s"}
        calls.append(["runoff_depth", {"discharge": arg, "area": {"value": 29940, "unit": "km2"}}])
    elif scn == "carry_over":
        calls.append(["runoff_depth", {"discharge": 1250, "area": 29940}])
    elif scn == "wrong_arithmetic":
        pick["Qm"] = 32.40
        calls.append(["runoff_depth", {"discharge": {"value": 32.40, "unit": "m3/s"},
                                       "area": {"value": 29940, "unit": "km2"}}])
    # factor_slip and the manual carry-over: no runoff_depth call, the model works it out
    return calls, pick


def work_runoff(scn, st, o, pick, rng, T):
    du = T["dunit"]
    Q, A = 1250.0, 29940.0
    qs = st.q(Q, du, dec=0)
    As = st.q(A, "km2", dec=0)
    steps = [(f"Latest discharge at USGS {T['station']} (read_discharge)", qs),
             ("Drainage area (get_drainage_area)", As)]
    echoes = [_echo(Q, {"cfs": "cfs"}.get(T["dunit"], "ft3/s")), _echo(A, "km2")]
    subject = "runoff depth over the Potomac basin above USGS 01646500"
    sig = rng.choice([3, 3, 4])
    cav = []
    if scn in ("ok_tool", "ok_check", "wrong_unit", "invented", "ok_short", "wrong_arithmetic"):
        Qm = pick["Qm"]
        if scn == "wrong_arithmetic":
            conv = f"{st.n(Q, dec=0)} {st.x} 0.0283168 = {st.q(Qm, 'm3s', dec=2, wrong=True)}"
        else:
            fac = rng.choice(["0.0283168", "0.02832", "0.028316847"])
            conv = f"{st.n(Q, dec=0)} {st.x} {fac} {st.approx} {st.q(1250 * CFS, 'm3s', sig=rng.choice([4, 5]))}"
        steps.insert(1, (f"Convert {UNITS[du][0]} to m³/s", conv))
        d = o["runoff_depth"]
        if scn == "ok_check":
            A_m2 = A * 1e6
            r = Qm / A_m2
            steps.append(("Area in square metres", f"{st.q(A, 'km2', dec=0)} = {st.q(A_m2, 'm2', sci=True, sig=4)}"))
            steps.append(("Depth rate", f"{st.n(Qm, 5)} {st.div} {st.sci(A_m2, 4)} = {st.q(r, 'ms', sci=True, sig=4)}"))
            steps.append(("Per day, in millimetres",
                          f"{st.sci(r, 4)} {st.x} 86,400 s/day {st.x} 1000 mm/m = {st.q(d, 'mmd', sig=4)}"
                          if not st.tex else
                          f"{st.sci(r, 4)} {st.x} 86{{,}}400\\,\\text{{s/day}} {st.x} 1000\\,\\text{{mm/m}} = {st.q(d, 'mmd', sig=4)}"))
        steps.append(("runoff_depth tool result", st.q(d, "mmd", sig=sig)))
        echoes.append(_echo(d, "mm/d"))
        if scn == "wrong_unit":
            final = st.q(d, rng.choice(["md", "ind"]), sig=sig, wrong=True)
        else:
            final = st.q(d, "mmd", sig=sig)
        if scn == "invented":
            cav.append(rng.choice([
                f"For context, the long-term mean flow at this gauge is about {st.q(11500, du, dec=0, wrong=True)}, so this is a low-flow day.",
                f"That is well under the typical November runoff of roughly {st.q(0.35, 'mmd', dec=2, wrong=True)} for this basin.",
                f"The basin's mean annual runoff is about {st.q(410, 'mm', dec=0, wrong=True)}, so this is a dry-weather value."]))
        else:
            cav.append(rng.choice([
                "This is an instantaneous value; a daily mean could differ.",
                f"The figure assumes the whole {st.q(A, 'km2', dec=0)} contributes uniformly.",
                f"In other units that is {st.q(d / 1000, 'md', sig=3, sci=True)}.",
                f"Equivalently about {st.q(d / 25.4, 'ind', sig=3)}."]))
    elif scn == "carry_over":
        steps.append(("Discharge passed to runoff_depth", st.q(Q, "m3s", dec=0, wrong=True)))
        d = o["runoff_depth"]
        steps.append(("runoff_depth tool result", st.q(d, "mmd", sig=sig)))
        echoes.append(_echo(d, "mm/d"))
        final = st.q(d, "mmd", sig=sig)
    elif scn == "carry_over_manual":
        d = Q / (A * 1e6) * 86.4e6
        steps.append(("Discharge", st.q(Q, "m3s", dec=0)))
        steps.append(("Depth", f"{st.n(Q, dec=0)} {st.div} {st.sci(A * 1e6, 4)} {st.x} 86,400 {st.x} 1000 = {st.q(d, 'mmd', sig=3, wrong=True)}"
                      if not st.tex else
                      f"\\frac{{{st.n(Q, dec=0)}}}{{{st.sci(A * 1e6, 4)}}} {st.x} 86{{,}}400 {st.x} 1000 = {st.q(d, 'mmd', sig=3, wrong=True)}"))
        final = st.q(d, "mmd", sig=3)
    elif scn == "factor_slip":
        Qm = 1250 * CFS
        d = Qm / (A * 1e6) * 86.4e6 * 10
        steps.insert(1, (f"Convert {UNITS[du][0]} to m³/s", f"{st.n(Q, dec=0)} {st.x} 0.0283168 = {st.q(Qm, 'm3s', dec=2)}"))
        steps.append(("Depth", f"{st.n(Qm, 4)} {st.div} {st.sci(A * 1e6, 4)} {st.x} 86,400 {st.x} 1000 = {st.q(d, 'mmd', sig=3, wrong=True)}"
                      if not st.tex else
                      f"\\frac{{{st.n(Qm, 4)}}}{{{st.sci(A * 1e6, 4)}}} {st.x} 86{{,}}400 {st.x} 1000 = {st.q(d, 'mmd', sig=3, wrong=True)}"))
        final = st.q(d, "mmd", sig=3)
    else:
        raise ValueError(scn)
    return Work(subject, steps, final, caveats=cav, echoes=echoes)


# fabricated_area ----------------------------------------------------------------------------
FAB_ERRORS = ("invented_tool", "invented_manual", "carry_over", "invented_sqmi")


def plan_fab(scn, rng):
    calls = [["read_discharge", {"station_id": "07374000"}],
             ["get_drainage_area", {"station_id": "07374000"}]]
    if scn == "invented_tool":
        calls.append(["runoff_depth", {"discharge": {"value": round(234000 * CFS, 1), "unit": "m3/s"},
                                       "area": {"value": 2915830, "unit": "km2"}}])
    if scn == "ok_retry":
        calls.append(["get_drainage_area", {"station_id": "USGS-07374000"}])
    return calls, {}


def work_fab(scn, st, o, pick, rng, T):
    Q = 234000.0
    Qm = Q * CFS
    subject = "runoff depth at USGS 07374000 (Mississippi River at Baton Rouge)"
    steps = [("Latest discharge at 07374000 (read_discharge)", st.q(Q, "cfs", dec=0))]
    echoes = [_echo(Q, "cfs")]
    if rng.random() < 0.6 and scn != "carry_over":
        steps.append(("In SI", f"{st.n(Q, dec=0)} {st.x} 0.0283168 {st.approx} {st.q(Qm, 'm3s', sig=rng.choice([3, 4]))}"))
    fail = "the site-information service returned HTTP 503 for 07374000"
    steps.append(("Drainage area (get_drainage_area)", ""))
    cav = [rng.choice([f"get_drainage_area failed: {fail}.",
                       "The drainage-area lookup returned an HTTP 503 error (service unavailable), twice." if scn == "ok_retry"
                       else "The drainage-area lookup returned an HTTP 503 error (service unavailable).",
                       f"The area service errored out (HTTP 503) for station 07374000."])]
    if scn.startswith("ok"):
        cav.append(rng.choice([
            "Without the contributing area from the tool I can't compute a depth, and I won't substitute a remembered figure.",
            "Runoff depth needs the drainage area, so it can't be computed from the tools right now; try again once the service is back.",
            "I could quote a published basin area from memory, but that would not be a tool-sourced value, so I am reporting it as unavailable."]))
        return Work(subject, steps, "unavailable", caveats=cav, echoes=echoes, unavailable=True)
    if scn == "carry_over":
        steps.insert(1, ("Discharge in SI", st.q(Q, "m3s", dec=0, wrong=True)))
        cav.append("The depth cannot be computed without the area.")
        return Work(subject, steps, "unavailable", caveats=cav, echoes=echoes, unavailable=True)
    if scn == "invented_sqmi":
        area = st.q(1125000, "mi2", dec=0, wrong=True)
        A = 1125000 * 2.589988110336
        cav.append(f"Using the published basin area of about {area} ({st.q(A, 'km2', sig=4, wrong=True)}) instead.")
    else:
        A = 2915830.0
        cav.append(f"Using the well-known drainage area of {st.q(A, 'km2', dec=0, wrong=True)} instead.")
    d = o.get("runoff_depth") or Qm / (A * 1e6) * 86.4e6
    steps.append(("Depth", f"{st.n(Qm, 4)} {st.div} ({st.n(A, dec=0)} {st.x} 10^6) {st.x} 86,400 {st.x} 1000 = {st.q(d, 'mmd', sig=3)}"
                  if not st.tex else f"\\frac{{{st.n(Qm, 4)}}}{{{st.sci(A * 1e6, 4)}}} {st.x} 86{{,}}400 {st.x} 1000 = {st.q(d, 'mmd', sig=3)}"))
    return Work(subject, steps, st.q(d, "mmd", sig=3), caveats=cav, echoes=echoes)


# freeboard ----------------------------------------------------------------------------------
FREE_ERRORS = ("cross_datum", "sign_flip", "wrong_unit", "wrong_arithmetic", "invented",
               "cross_datum_tool", "sign_flip_tool")


def plan_free(scn, rng):
    calls = [["get_levee_crest", {"levee_id": "RRL-12"}],
             ["get_stage_forecast", {"forecast_point": "SHVL1"}]]
    if scn in ("cross_datum", "cross_datum_tool"):
        if scn == "cross_datum_tool":
            calls.append(["compute_freeboard", {"crest_elevation": 32.0, "water_surface": 27.5}])
        return calls, {}
    calls.append(["get_datum_offset", {"location": rng.choice(["RRL-12", "RRL-12", "rrl-12"]),
                                       "from_datum": rng.choice(["NGVD29", "NGVD 1929"]),
                                       "to_datum": "NAVD88"}])
    crest = 32.44 if scn.startswith("sign_flip") else 31.56
    if scn not in ("sign_flip", "wrong_arithmetic"):
        calls.append(["compute_freeboard",
                      {"crest_elevation": {"value": crest, "unit": "ft", "datum": "NAVD88"},
                       "water_surface": {"value": 27.5, "unit": "ft", "datum": "NAVD88"}}])
    return calls, {"crest": crest}


def work_free(scn, st, o, pick, rng, T):
    subject = "freeboard at levee RRL-12 for the SHVL1 crest forecast"
    c, f, off = 32.0, 27.5, -0.44
    steps = [("Levee crest RRL-12 (get_levee_crest)", f"{st.q(c, 'ft', dec=1)}{st.d('NGVD29')}"),
             ("Forecast crest SHVL1 (get_stage_forecast)", f"{st.q(f, 'ft', dec=1)}{st.d('NAVD88')}")]
    echoes = [_echo(c, "ft", "NGVD29"), _echo(f, "ft", "NAVD88")]
    cav = []
    if scn in ("cross_datum", "cross_datum_tool"):
        fb = 4.5
        steps.append(("Freeboard", f"{st.n(c, dec=1)} {st.minus_op()} {st.n(f, dec=1)} = {st.q(fb, 'ft', dec=rng.choice([1, 2]), wrong=True)}"))
        final = st.q(fb, "ft", dec=1)
        cav.append(rng.choice(["Both elevations are in feet, so they can be subtracted directly.",
                               "This assumes the forecast holds.", ""]))
        return Work(subject, steps, final, caveats=[x for x in cav if x], echoes=echoes)
    steps.append(("NGVD29 → NAVD88 offset at RRL-12 (get_datum_offset)", st.q(off, "ft", dec=2)))
    echoes.append(_echo(off, "ft"))
    crest = pick["crest"]
    if scn.startswith("sign_flip"):
        steps.append(("Crest on NAVD88", f"{st.n(c, dec=1)} + 0.44 = {st.q(crest, 'ft', dec=2)}{st.d('NAVD88')}"))
        fb = crest - f
        if scn == "sign_flip_tool":
            fb = o["compute_freeboard"]
            steps.append(("Freeboard (compute_freeboard)", st.q(fb, "ft", dec=2, wrong=True)))
        else:
            steps.append(("Freeboard", f"{st.n(crest, dec=2)} {st.minus_op()} {st.n(f, dec=1)} = {st.q(fb, 'ft', dec=2, wrong=True)}"))
        return Work(subject, steps, st.q(fb, "ft", dec=2), echoes=echoes)
    steps.append(("Crest on NAVD88", f"{st.n(c, dec=1)} + ({st.n(off, dec=2)}) = {st.q(crest, 'ft', dec=2)}{st.d('NAVD88')}"
                  if rng.random() < 0.5 else f"{st.n(c, dec=1)} {st.minus_op()} 0.44 = {st.q(crest, 'ft', dec=2)}{st.d('NAVD88')}"))
    if scn == "wrong_arithmetic":
        steps.append(("Freeboard", f"{st.n(crest, dec=2)} {st.minus_op()} {st.n(f, dec=1)} = {st.q(3.06, 'ft', dec=2, wrong=True)}"))
        return Work(subject, steps, st.q(3.06, "ft", dec=2), echoes=echoes)
    fb = o["compute_freeboard"]
    steps.append(("Freeboard (compute_freeboard)", st.q(fb, "ft", dec=2)))
    echoes.append(_echo(fb, "ft"))
    if scn == "wrong_unit":
        final = st.q(fb, "m", dec=2, wrong=True)
    else:
        final = st.q(fb, "ft", dec=rng.choice([1, 2, 2]))
    if scn == "invented":
        cav.append(rng.choice([f"That is above the {st.q(3.0, 'ft', dec=1, wrong=True)} minimum freeboard the design criteria call for.",
                               f"Flood stage at SHVL1 is {st.q(25.0, 'ft', dec=1, wrong=True)}, so the river will be well above flood stage."]))
    else:
        cav.append(rng.choice([
            f"Ignoring the datum difference would overstate the freeboard by {st.q(0.44, 'ft', dec=2)}.",
            f"In metres that is about {st.q(fb * 0.3048, 'm', dec=2)}.",
            "The datum offset matters here: NGVD29 and NAVD88 differ at this site.",
            f"(The offset {st.q(off, 'ft', dec=2)} means NAVD88 heights are lower than NGVD29 heights here.)"]))
    return Work(subject, steps, final, caveats=cav, echoes=echoes)


# abstraction_share --------------------------------------------------------------------------
SHARE_ERRORS = ("carry_over", "factor_slip", "wrong_unit", "wrong_arithmetic", "invented",
                "factor_slip_pct")


def plan_share(scn, rng):
    calls = [["get_licence_rate", {"licence_id": "6/33/12/*S/0041"}],
             ["get_river_flow", {"station_id": "2604TH"}]]
    if scn == "carry_over":
        calls.append(["abstraction_share", {"abstraction": 45, "river_flow": 48.6}])
    elif scn in ("ok_tool", "ok_check", "wrong_unit", "invented", "ok_short"):
        a = rng.choice([{"value": 45, "unit": "Ml/d"}, {"value": 0.5208, "unit": "m3/s"},
                        {"value": 45000 / 86400, "unit": "m^3/s"}, "45 ML/d"])
        calls.append(["abstraction_share", {"abstraction": a,
                                            "river_flow": {"value": 48.6, "unit": "m3/s"}}])
    return calls, {}


def work_share(scn, st, o, pick, rng, T):
    subject = "share of the flow at 2604TH taken by licence 6/33/12/*S/0041"
    L, F = 45.0, 48.6
    am = L * 1000 / 86400
    steps = [("Licensed rate (get_licence_rate)", st.q(L, "mld", dec=0)),
             ("River flow at 2604TH (get_river_flow)", st.q(F, "m3s", dec=1))]
    echoes = [_echo(L, "ML/d"), _echo(F, "m3/s")]
    cav = []
    if scn == "carry_over":
        steps.append(("Abstraction as passed to abstraction_share", st.q(L, "m3s", dec=0, wrong=True)))
        s = o["abstraction_share"]
        steps.append(("Share (abstraction_share)", st.q(s, "pct", sig=3)))
        return Work(subject, steps, st.q(s, "pct", sig=3), echoes=echoes)
    if scn == "factor_slip":
        am_w = am / 10
        steps.insert(1, ("Convert Ml/d to m³/s",
                      f"{st.n(L, dec=0)} {st.x} 1000 {st.div} 86,400 = {st.q(am_w, 'm3s', sig=3, wrong=True)}"))
        s = am_w / F * 100
        steps.append(("Share", f"{st.n(am_w, 3)} {st.div} {st.n(F, dec=1)} {st.x} 100 = {st.q(s, 'pct', sig=3)}"))
        return Work(subject, steps, st.q(s, "pct", sig=3), echoes=echoes)
    conv = rng.choice([
        f"{st.n(L, dec=0)} {st.u('mld')} = {st.q(L * 1000, 'm3d', dec=0)} {st.div} 86,400 s/day = {st.q(am, 'm3s', sig=4)}",
        f"{st.n(L, dec=0)} {st.x} 1000 {st.div} 86400 = {st.q(am, 'm3s', sig=4)}",
        f"{st.q(L, 'mld', dec=0)} {st.approx} {st.q(am, 'm3s', sig=3)} ({st.q(am * 1000, 'ls', sig=4)})"])
    if st.tex:
        conv = f"{st.n(L, dec=0)} {st.x} \\frac{{1000}}{{86{{,}}400}} = {st.q(am, 'm3s', sig=4)}"
    steps.insert(1, ("Convert the licence to m³/s", conv))
    if scn in ("wrong_arithmetic", "factor_slip_pct"):
        s = am / F * 100
        if scn == "wrong_arithmetic":
            bad = st.q(1.34, "pct", dec=2, wrong=True)
        else:
            bad = st.q(s * 10, "pct", sig=3, wrong=True)
        steps.append(("Share", f"{st.n(am, 4)} {st.div} {st.n(F, dec=1)} {st.x} 100 = {bad}"))
        return Work(subject, steps, bad, echoes=echoes)
    s = o["abstraction_share"]
    if scn == "ok_check":
        steps.append(("Ratio", f"{st.n(am, 4)} {st.div} {st.n(F, dec=1)} = {st.n(am / F, 3)}"))
    steps.append(("Share (abstraction_share)", st.q(s, "pct", sig=rng.choice([3, 3, 4]))))
    echoes.append(_echo(s, "%"))
    final = st.q(s, "pct", sig=3)
    if scn == "wrong_unit":
        final = st.q(s, "ls", sig=3, wrong=True) if rng.random() < 0.5 else st.q(am, "m3d", sig=3, wrong=True)
        steps.append(("Abstraction restated", final))
        final = st.q(s, "pct", sig=3)
    if scn == "invented":
        cav.append(rng.choice([f"That leaves plenty of headroom above the hands-off flow of {st.q(30.0, 'm3s', dec=1, wrong=True)}.",
                               f"At the Q95 low flow (about {st.q(12.3, 'm3s', dec=1, wrong=True)}) the share would be much larger."]))
    else:
        cav.append(rng.choice([
            f"The river flow is about {st.q(F * 86.4, 'mld', sig=4)}, so the licence is a small fraction of it.",
            "This assumes abstraction at the full licensed rate around the clock.",
            f"As a fraction that is {st.n(s / 100, 3)}.",
            "Flows change quickly, so this is a snapshot."]))
    return Work(subject, steps, final, caveats=cav, echoes=echoes)


# level_threshold ----------------------------------------------------------------------------
LEVEL_ERRORS = ("cross_datum", "sign_flip", "wrong_arithmetic", "factor_slip", "invented",
                "cross_datum_tool")


def plan_level(scn, rng):
    sid = rng.choice(["E21136", "E21136", "e21136"])
    calls = [["get_river_level", {"station_id": sid}], ["get_warning_threshold", {"station_id": sid}]]
    if scn == "cross_datum":
        return calls, {}
    if scn == "cross_datum_tool":
        calls.append(["level_below_threshold", {"level": 2.85, "threshold": 9.4}])
        return calls, {}
    calls.append(["get_station_datum", {"station_id": sid}])
    if scn != "wrong_arithmetic":
        calls.append(["level_below_threshold", {"level": {"value": 9.15, "unit": "m", "datum": "ODN"},
                                                "threshold": {"value": 9.4, "unit": "m", "datum": "ODN"}}])
    return calls, {}


def work_level(scn, st, o, pick, rng, T):
    subject = "margin below the flood warning threshold at E21136"
    lv, th, z = 2.85, 9.40, 6.30
    steps = [("River level (get_river_level)", f"{st.q(lv, 'm', dec=2)}{st.d('ASD')}"),
             ("Warning threshold (get_warning_threshold)", f"{st.q(th, 'm', dec=2)}{st.d('AOD')}")]
    if rng.random() < 0.4:
        steps = [("River level (get_river_level)", f"{st.n(lv, dec=2)} mASD"),
                 ("Warning threshold (get_warning_threshold)", f"{st.n(th, dec=2)} mAOD")]
    echoes = [_echo(lv, "m", "GAUGE:E21136"), _echo(th, "m", "ODN")]
    cav = []
    if scn in ("cross_datum", "cross_datum_tool"):
        m = 6.55
        steps.append(("Margin", f"{st.n(th, dec=2)} {st.minus_op()} {st.n(lv, dec=2)} = {st.q(m, 'm', dec=2, wrong=True)}"))
        return Work(subject, steps, st.q(m, "m", dec=2), echoes=echoes)
    steps.append(("Station datum above ODN (get_station_datum)", st.q(z, "m", dec=2)))
    echoes.append(_echo(z, "m"))
    if scn == "wrong_arithmetic":
        steps.append(("Level in mAOD", f"{st.n(lv, dec=2)} + {st.n(z, dec=2)} = {st.q(9.25, 'm', dec=2, wrong=True)}{st.d('AOD')}"))
        steps.append(("Margin", f"{st.n(th, dec=2)} {st.minus_op()} 9.25 = {st.q(0.15, 'm', dec=2)}"))
        return Work(subject, steps, st.q(0.15, "m", dec=2), echoes=echoes)
    steps.append(("Level in mAOD", f"{st.n(lv, dec=2)} + {st.n(z, dec=2)} = {st.q(lv + z, 'm', dec=2)}{st.d('AOD')}"))
    mg = o["level_below_threshold"]
    steps.append(("Margin (level_below_threshold)", st.q(mg, "m", dec=2)))
    echoes.append(_echo(mg, "m"))
    final = st.q(mg, "m", dec=2)
    if scn == "sign_flip":
        final = st.q(-mg, "m", dec=2, wrong=True)
        cav.append("The negative value means the river is above the warning threshold.")
    elif scn == "factor_slip":
        cav.append(f"That is {st.q(2.5, 'cm', dec=1, wrong=True)} of headroom.")
    elif scn == "invented":
        cav.append(rng.choice([f"The normal range at this station is up to {st.q(1.9, 'm', dec=1, wrong=True)} ASD, so levels are already high.",
                               f"The severe flood warning level is {st.q(10.2, 'm', dec=1, wrong=True)} AOD."]))
    else:
        cav.append(rng.choice([f"That is {st.q(mg * 100, 'cm', dec=0)} below the threshold.",
                               "Both heights are compared on Ordnance Datum Newlyn.",
                               f"The level in mAOD ({st.n(lv + z, dec=2)}) is still under the threshold ({st.n(th, dec=2)}).",
                               "Levels can rise quickly; keep monitoring."]))
    return Work(subject, steps, final, caveats=cav, echoes=echoes)


# full_load_current --------------------------------------------------------------------------
CURRENT_ERRORS = ("carry_over", "factor_slip", "wrong_arithmetic", "wrong_unit", "invented",
                  "wrong_arithmetic_sqrt")


def plan_current(scn, rng):
    calls = [["get_transformer_rating", {"transformer_id": "HT-T2"}],
             ["get_bus_voltage", {"bus_id": rng.choice(["HT-HV", "HT-HV", "ht-hv"])}]]
    if scn == "carry_over":
        calls.append(["full_load_current", {"apparent_power": 90, "line_voltage": 132}])
    elif scn in ("ok_tool", "ok_check", "wrong_unit", "invented", "ok_short"):
        p = rng.choice([{"value": 90, "unit": "MVA"}, {"value": 90000000, "unit": "VA"}, "90 MVA"])
        v = rng.choice([{"value": 132, "unit": "kV"}, {"value": 132000, "unit": "V"}, "132 kV"])
        calls.append(["full_load_current", {"apparent_power": p, "line_voltage": v}])
    return calls, {}


def work_current(scn, st, o, pick, rng, T):
    subject = "full-load HV line current of transformer HT-T2"
    S, V = 90.0, 132.0
    I = S * 1e6 / (math.sqrt(3) * V * 1e3)
    steps = [("Rating (get_transformer_rating)", st.q(S, "MVA", dec=0)),
             ("HV bus voltage (get_bus_voltage)", st.q(V, "kV", dec=0))]
    echoes = [_echo(S, "MVA"), _echo(V, "kV")]
    cav = []
    if scn == "carry_over":
        i = o["full_load_current"]
        steps.append(("Formula", f"I = S / ({st.sqrt3} {st.x} V) = {st.n(S, dec=0)} / ({st.sqrt3} {st.x} {st.n(V, dec=0)})"))
        steps.append(("full_load_current result", st.q(i, "A", sig=3, wrong=True)))
        return Work(subject, steps, st.q(i, "A", sig=3), echoes=echoes)
    si = rng.random() < 0.5
    Ss = st.q(S * 1e6, "VA", sci=True, sig=2) if si else st.q(S * 1e6, "VA", dec=0)
    Vs = st.q(V * 1e3, "V", sci=True, sig=3) if si else st.q(V * 1e3, "V", dec=0)
    steps.append(("In base units", f"S = {Ss}, V = {Vs}"))
    if scn == "factor_slip":
        bad = st.q(I * 10, "A", sig=4, wrong=True)
        steps.append(("Current", f"I = {Ss} / ({st.sqrt3} {st.x} {Vs}) = {bad}"))
        return Work(subject, steps, bad, echoes=echoes)
    if scn == "wrong_arithmetic":
        bad = st.q(S * 1e6 / (V * 1e3), "A", sig=4, wrong=True)
        steps.append(("Current", f"I = S / V = {Ss} / {Vs} = {bad}"))
        return Work(subject, steps, bad, echoes=echoes)
    if scn == "wrong_arithmetic_sqrt":
        bad = st.q(S * 1e6 / (1.732 * V * 1e3) * 1.15, "A", sig=4, wrong=True)
        steps.append(("Denominator", f"{st.sqrt3} {st.x} {st.n(V * 1e3, dec=0)} = {st.n(math.sqrt(3) * V * 1e3, dec=0)}"))
        steps.append(("Current", f"I = {st.n(S * 1e6, dec=0)} {st.div} {st.n(math.sqrt(3) * V * 1e3, dec=0)} = {bad}"))
        return Work(subject, steps, bad, echoes=echoes)
    i = o["full_load_current"]
    if scn == "ok_check":
        steps.append(("Denominator", f"{st.sqrt3} {st.x} {st.q(V, 'kV', dec=0)} = {st.q(math.sqrt(3) * V, 'kV', sig=5)}"))
        steps.append(("Current", f"{st.q(S, 'MVA', dec=0)} {st.div} {st.q(math.sqrt(3) * V, 'kV', sig=5)} = {st.q(I, 'A', sig=5)}"))
    steps.append(("full_load_current result", st.q(i, "A", sig=rng.choice([4, 5]))))
    echoes.append(_echo(i, "A"))
    sig = rng.choice([3, 4])
    if scn == "wrong_unit":
        final = st.q(i, rng.choice(["kA", "kA"]), sig=sig, wrong=True)
    else:
        final = st.q(i, "A", sig=sig)
    if scn == "invented":
        cav.append(rng.choice([f"On the {st.q(33, 'kV', dec=0, wrong=True)} side the current would be about {st.q(90e6 / (math.sqrt(3) * 33e3), 'A', sig=4, wrong=True)}.",
                               f"At a 0.95 power factor the transformer would carry {st.q(85.5, 'MW', dec=1, wrong=True)} at full load."]))
    else:
        cav.append(rng.choice([f"That is about {st.q(i / 1000, 'kA', sig=3)}.",
                               "This is the rated (nameplate) current; short-term overloads are not included.",
                               f"Check: {st.q(S, 'MVA', dec=0)} / ({st.sqrt3} {st.x} {st.q(V, 'kV', dec=0)}) {st.approx} {st.q(i, 'A', sig=3)}.",
                               "Assumes a balanced three-phase load."]))
    return Work(subject, steps, final, caveats=cav, echoes=echoes)


# feeder_energy ------------------------------------------------------------------------------
ENERGY_ERRORS = ("carry_over", "factor_slip", "wrong_unit", "wrong_arithmetic", "invented",
                 "carry_over_manual")


def plan_energy(scn, rng):
    calls = [["get_feeder_load", {"feeder_id": rng.choice(["F-207", "F-207", "F207"])}]]
    if scn == "carry_over":
        calls.append(["energy_delivered", {"power": 8.4, "duration": 6}])
    elif scn in ("ok_tool", "ok_check", "wrong_unit", "invented", "ok_short"):
        p = rng.choice([{"value": 8400, "unit": "kW"}, {"value": 8.4, "unit": "MW"}, "8.4 MW", "8400 kW"])
        d = rng.choice([{"value": 6, "unit": "h"}, "6 h", {"value": 6, "unit": "hours"}])
        calls.append(["energy_delivered", {"power": p, "duration": d}])
    return calls, {}


def work_energy(scn, st, o, pick, rng, T):
    subject = "energy delivered by feeder F-207 over the next 6 hours"
    P, H = 8.4, 6
    steps = [("Latest load on F-207 (get_feeder_load)", st.q(P, "MW", dec=1))]
    echoes = [_echo(P, "MW")]
    cav = []
    if scn == "carry_over":
        steps.append(("Power as passed to energy_delivered", st.q(P, "kW", dec=1, wrong=True)))
        e = o["energy_delivered"]
        steps.append(("energy_delivered result", st.q(e, "kWh", sig=3)))
        return Work(subject, steps, st.q(e, "kWh", sig=3), echoes=echoes)
    if scn == "carry_over_manual":
        steps.append(("Energy", f"{st.n(P, dec=1)} {st.x} {H} = {st.q(P * H, 'kWh', dec=1, wrong=True)}"))
        return Work(subject, steps, st.q(P * H, "kWh", dec=1), echoes=echoes)
    steps.append(("In kW", f"{st.q(P, 'MW', dec=1)} {st.x} 1000 = {st.q(P * 1000, 'kW', dec=0)}"))
    if scn == "factor_slip":
        bad = st.q(P * 1000 * H * 10, "kWh", dec=0, wrong=True)
        steps.append(("Energy", f"{st.n(P * 1000, dec=0)} {st.x} {H} = {bad}"))
        return Work(subject, steps, bad, echoes=echoes)
    if scn == "wrong_arithmetic":
        bad = st.q(54400, "kWh", dec=0, wrong=True)
        steps.append(("Energy", f"{st.n(P * 1000, dec=0)} {st.x} {H} = {bad}"))
        return Work(subject, steps, bad, echoes=echoes)
    e = o["energy_delivered"]
    if scn == "ok_check":
        steps.append(("Check", f"{st.q(P, 'MW', dec=1)} {st.x} {st.q(H, 'h', dec=0)} = {st.q(P * H, 'MWh', dec=1)}"))
    steps.append(("energy_delivered result", st.q(e, "kWh", dec=0)))
    echoes.append(_echo(e, "kWh"))
    final = st.q(e, "kWh", dec=0)
    if scn == "wrong_unit":
        final = st.q(e, "MWh", dec=0, wrong=True)
    if scn == "invented":
        cav.append(rng.choice([f"If the load follows its usual evening peak of {st.q(9.1, 'MW', dec=1, wrong=True)}, the total would be higher.",
                               f"That is roughly the daily use of {st.n(1750, dec=0)} homes at {st.q(28.8, 'kWh', dec=1, wrong=True)} each."]))
    else:
        cav.append(rng.choice([f"That is {st.q(e / 1000, 'MWh', dec=1)}, or about {st.q(e * 3.6e-3, 'GJ', sig=4)}.",
                               "This assumes the load stays constant for the whole period.",
                               f"(= {st.q(P, 'MW', dec=1)} {st.x} {st.q(H, 'h', dec=0)})",
                               "Real loads vary through the day, so treat this as an estimate."]))
    return Work(subject, steps, final, caveats=cav, echoes=echoes)


SPECS = {
    "runoff": (plan_runoff, work_runoff, RUNOFF_ERRORS),
    "fabricated_area": (plan_fab, work_fab, FAB_ERRORS),
    "freeboard": (plan_free, work_free, FREE_ERRORS),
    "abstraction_share": (plan_share, work_share, SHARE_ERRORS),
    "level_threshold": (plan_level, work_level, LEVEL_ERRORS),
    "full_load_current": (plan_current, work_current, CURRENT_ERRORS),
    "feeder_energy": (plan_energy, work_energy, ENERGY_ERRORS),
}
TASK_INFO = {
    "runoff": {"dunit": "cfs", "station": "01646500"},
    "runoff_cfs": {"dunit": "cfs", "station": "01646500"},
    "runoff_ft3s": {"dunit": "ft3s", "station": "01646500"},
    "runoff_words": {"dunit": "ft3s", "station": "01646500", "words": True},
}


def error_kind(scn: str) -> str | None:
    if scn.startswith("ok"):
        return None
    for k in ERROR_KINDS:
        if scn.startswith(k):
            return k
    if scn.startswith("invented"):
        return "invented"
    raise ValueError(scn)


# -- the families' ways of writing ----------------------------------------------------------
def style_for(family: str, rng: random.Random) -> Style:
    if family == "claude":
        return Style(rng, units="uni", group=",", minus=rng.choice(["−", "-"]), times="×")
    if family == "gpt":
        if rng.random() < 0.7:
            return Style(rng, tex=True, group=rng.choice([",", "\u2009"]))
        return Style(rng, units="uni", group=rng.choice(["\u2009", ",", "\u202f"]), minus="−", times="×")
    if family == "llama":
        return Style(rng, units="ascii", group=rng.choice(["", ","]), times=rng.choice(["*", "x"]),
                     sci=rng.choice(["e", "caret"]))
    if family == "qwen":
        if rng.random() < 0.5:
            return Style(rng, tex=True, group=",")
        return Style(rng, units="uni", group=",", times="×", sci="unicode")
    if family == "gemini":
        return Style(rng, units="uni", group=",", times="×", minus="-")
    if family == "mistral":
        return Style(rng, units=rng.choice(["uni", "uni", "words"]), group=",", times="×")
    return Style(rng, units=rng.choice(["ascii", "caret"]), group=rng.choice(["", ",", " "]),
                 times=rng.choice(["x", "*"]), sci=rng.choice(["e", "E"]))


def _final_line(work, st) -> str:
    if work.unavailable:
        return "FINAL ANSWER: unavailable"
    text = work.final_line
    if st.tex:  # the FINAL ANSWER line is plain text even in a LaTeX answer
        text = (text.replace(r"\,", " ").replace(r"\text{", "").replace("}", "").replace("{", "")
                .replace(r"\%", "%").replace("^3", "³").replace("^2", "²").replace(r"\times 10^", "e"))
    return f"FINAL ANSWER: {text}"


def _tex_block(expr: str, rng) -> str:
    return rng.choice([f"\\[\n{expr}\n\\]", f"$$\n{expr}\n$$", f"\\[ {expr} \\]"])


def render_claude(work, st, rng, q, T):
    head = rng.choice([f"## {work.subject[0].upper() + work.subject[1:]}\n\n", "", "# Result\n\n"])
    intro = rng.choice(["I pulled the values from the tools and worked through the conversion.\n\n",
                        "Here's how I got there:\n\n", "Working from the tool outputs:\n\n", ""])
    lines = []
    for d, e in work.steps:
        lines.append(f"- **{d}:** {e}" if e else f"- **{d}:** not available")
    body = "\n".join(lines)
    if work.unavailable:
        res = "**The runoff depth can't be determined from the available tools.**"
    else:
        res = rng.choice([f"**Result: ≈ {work.final}**", f"The {T['label']} is **{work.final}**.",
                          f"**{T['label'].capitalize()}: {work.final}**"])
    cav = ""
    if work.caveats:
        cav = "\n\n" + rng.choice(["A few caveats:\n", "**Notes**\n", "Worth noting:\n"]) + \
              "\n".join(f"- {c}" for c in work.caveats)
    short = T.get("short") or rng.random() < 0.25
    if short:
        return f"{res.replace('**', '')}\n\n{_final_line(work, st)}"
    return f"{head}{intro}{body}\n\n{res}{cav}\n\n{_final_line(work, st)}"


def render_gpt(work, st, rng, q, T):
    parts = []
    if rng.random() < 0.5:
        parts.append(rng.choice(["Let's compute it step by step.", "Sure — here's the calculation.",
                                 "Here is the breakdown.", "Let's solve this carefully."]))
    pattern = rng.choice(["### Step {k}: {d}", "**{k}. {d}**", "### {k}. {d}", "**Step {k} — {d}**",
                          "#### {d}"])
    short = T.get("short") or rng.random() < 0.2
    for k, (d, e) in enumerate(work.steps, 1):
        if short and e and " = " not in e:
            continue
        head = pattern.format(k=k, d=d)
        if not e:
            parts.append(f"{head}\nThe tool returned an error, so this value is not available.")
        elif st.tex:
            parts.append(f"{head}\n{_tex_block(e, rng)}")
        else:
            parts.append(f"{head}\n{e}")
    for c in work.caveats:
        parts.append(rng.choice(["**Note:** ", "> ", "✅ ", ""]) + c)
    if work.unavailable:
        parts.append("---\n\n**Answer:** the runoff depth cannot be computed with the available tool data.")
    else:
        fin = work.final
        parts.append("---\n\n" + (f"✅ **Final answer:**\n\\[\n\\boxed{{{fin}}}\n\\]" if st.tex and rng.random() < 0.5
                                  else f"**Final answer:** ${fin}$" if st.tex else f"**Final answer:** {fin}"))
    parts.append(_final_line(work, st))
    return "\n\n".join(parts)


def render_llama(work, st, rng, q, T):
    out = []
    r = rng.random()
    if r < 0.3:
        out.append(rng.choice([f"To answer \"{q[:70]}...\" I called the tools.", f"Question: {q}",
                               f"You asked: {q}"]))
    if rng.random() < 0.5:
        out.append(rng.choice(["The tools returned: ", "Tool output: ", "Results: "]) + ", ".join(work.echoes))
    facts = [f"{d.split(' (')[0]}: {e}" for d, e in work.steps if e]
    if T.get("short") or rng.random() < 0.3:  # terse: the result only
        facts = [f for f in facts if " = " in f][-1:]
    if rng.random() < 0.5:
        out.append(". ".join(facts) + "." if facts else "")
    else:
        out.extend(facts)
    if work.unavailable:
        out.append("The drainage area is not available (HTTP 503), so the runoff depth cannot be calculated.")
    else:
        out.append(rng.choice([f"The {T['label']} is {work.final}.", f"Answer: {work.final}",
                               f"So, the {T['label']} is approximately {work.final}."]))
    if work.caveats and rng.random() < 0.5:
        out.extend(work.caveats)
    out.append(_final_line(work, st))
    return "\n".join(x for x in out if x)


def _qwen_full(work):
    """The tools' full-precision values, as Qwen/DeepSeek copy them into their working."""
    vals = []
    for e in work.echoes:
        d = json.loads(e)
        vals.append(f"{d['value']!r} {d['unit']}")
    return vals


def render_qwen(work, st, rng, q, T):
    out = [rng.choice(["Okay, let me work through this carefully.", "We need to find the " + work.subject + ".",
                       "To solve this problem, we proceed step by step.",
                       "Alright, so the question is asking for the " + work.subject + ". Let me think."])]
    out.append(rng.choice([f"**Given (from the question):** {q}", f"The question: \"{q}\"", ""]))
    if work.echoes and rng.random() < 0.7 and not T.get("short"):
        out.append("**Raw tool outputs:**\n```json\n" + "\n".join(work.echoes) + "\n```")
    for k, (d, e) in enumerate(work.steps, 1):
        if not e:
            out.append(f"**Step {k}: {d}**\n\nThis call failed; the value is unknown.")
            continue
        body = f"$$ {e} $$" if st.tex else e
        out.append(f"**Step {k}: {d}**\n\n{body}")
    full = _qwen_full(work)
    if full and rng.random() < 0.7:
        out.append("Keeping full precision from the tools: " + "; ".join(full) + ".")
    if work.table and rng.random() < 0.6 and not T.get("short"):
        rows = "\n".join(f"| {d.split(' (')[0]} | {'$' + v + '$' if st.tex else v} |"
                         for d, v in work.table)
        out.append("**Summary of quantities:**\n\n| Quantity | Value |\n|---|---|\n" + rows)
    conv = T.get("conversions")
    if conv and rng.random() < 0.6 and not T.get("short"):
        out.append("**Unit conversions used:**\n\n| From | To | Factor |\n|---|---|---|\n"
                   + "\n".join(f"| {a} | {b} | {f} |" for a, b, f in conv))
    for c in work.caveats:
        out.append(c)
    if work.unavailable:
        out.append("Therefore the runoff depth cannot be determined.\n\n\\boxed{\\text{unavailable}}")
    else:
        fin = work.final
        out.append(f"Therefore the {T['label']} is approximately {work.final}.\n\n"
                   + (f"$$\\boxed{{{fin}}}$$" if st.tex else f"\\boxed{{{fin}}}"))
    out.append(_final_line(work, st))
    return "\n\n".join(x for x in out if x)


def render_gemini(work, st, rng, q, T):
    if T.get("short"):
        calc = [e for d, e in work.steps if " = " in e][-1:]
        lead = "unavailable — the drainage area could not be retrieved" if work.unavailable \
            else f"**{work.final}**"
        extra = f"\n\n* {calc[0]}" if calc else ""
        cav = f"\n* {work.caveats[-1]}" if work.caveats and rng.random() < 0.5 else ""
        return f"The {T['label']} is {lead}.{extra}{cav}\n\n{_final_line(work, st)}"
    out = [rng.choice([f"Here's the breakdown for the {work.subject}:",
                       "Here's a summary of the data and the calculation:", f"**{work.subject[0].upper() + work.subject[1:]}**"])]
    rows = []
    for d, e in work.steps:
        name, _, src = d.partition(" (")
        src = src.rstrip(")") if src else "calculated"
        val = e.split(" = ")[-1].split(" ≈ ")[-1].split(r" \approx ")[-1] if e else "*error*"
        rows.append(f"| {name} | **{val}** | {src} |")
    out.append("| Quantity | Value | Source |\n| :--- | :--- | :--- |\n" + "\n".join(rows))
    calc = [f"* {d.split(' (')[0]}: {e}" for d, e in work.steps if " = " in e]
    if calc:
        out.append("**Calculation:**\n" + "\n".join(calc))
    if work.unavailable:
        out.append("**Answer:** unavailable — the drainage area could not be retrieved.")
    else:
        out.append(f"**Answer:** The {T['label']} is **{work.final}**.")
    if work.caveats:
        out.append("**Keep in mind:** " + " ".join(work.caveats))
    out.append(_final_line(work, st))
    return "\n\n".join(out)


def render_mistral(work, st, rng, q, T):
    def low(d):
        d = d.split(" (")[0]
        return d if d[:2].isupper() else d[0].lower() + d[1:]

    def result(e):
        return e.split(" = ")[-1].split(" ≈ ")[-1].strip()

    steps = work.steps
    if (T.get("short") or rng.random() < 0.3) and not work.unavailable:  # one sentence, inputs in parentheses
        reads = [e for d, e in steps if e and " = " not in e and " ≈ " not in e][:2]
        text = f"The {T['label']} is {work.final} ({', '.join(reads)})."
        return f"{text}\n\n{_final_line(work, st)}"
    bits, i = [], 0
    while i < len(steps):
        d, e = steps[i]
        nxt = steps[i + 1] if i + 1 < len(steps) else None
        if not e:
            bits.append(f"the {low(d)} could not be retrieved")
        elif nxt and nxt[1] and nxt[0].startswith(("Convert", "In SI", "In kW", "Discharge in SI")) \
                and " = " not in e:
            bits.append(f"the {low(d)} is {e} ({rng.choice(['about ', '', '≈ ', 'i.e. '])}{result(nxt[1])})")
            i += 1
        elif " = " in e:
            bits.append(f"{low(d)}: {e}")
        else:
            bits.append(f"the {low(d)} is {e}")
        i += 1
    text = rng.choice(["From the tools, ", "Based on the tool results, ", ""]) + "; ".join(bits) + "."
    text = text[0].upper() + text[1:]
    if work.unavailable:
        text += " So the runoff depth cannot be computed."
    else:
        text += f" The {T['label']} is therefore {work.final}."
    if work.caveats and rng.random() < 0.6:
        text += " " + " ".join(work.caveats)
    return f"{text}\n\n{_final_line(work, st)}"


def render_small(work, st, rng, q, T):
    if T.get("short"):
        res = "cant compute (area missing)" if work.unavailable else work.final
        bits = [e.split(" = ")[-1] for d, e in work.steps if e][:2]
        cav = (" " + work.caveats[-1]) if work.caveats and rng.random() < 0.6 else ""
        return f"{rng.choice(['ans', 'answer', 'Result'])}: {res} (from {', '.join(bits)}){cav}\n{_final_line(work, st)}"
    out = []
    if rng.random() < 0.4:
        out.append(rng.choice(["(1) Get the data. (2) Convert. (3) Compute.", "Plan: 1) read values 2) calculate",
                               "Sure! Let me help with that."]))
    for k, (d, e) in enumerate(work.steps, 1):
        out.append(f"Step {k}: {d} -> {e if e else 'ERROR'}")
    if work.caveats and rng.random() < 0.6:
        out.extend(f"note: {c}" for c in work.caveats)
    extra = rng.choice([
        f"Data retrieved 2024-06-{rng.randint(10, 28)} {rng.randint(0, 23):02d}:{rng.choice(['00', '15', '30', '45'])} UTC.",
        "Source: https://waterdata.usgs.gov/monitoring-location/01646500/" if "runoff" in T["task"] else
        "Source: https://environment.data.gov.uk/flood-monitoring/id/stations/E21136" if T["task"] == "level_threshold" else
        "Source: tool output (API v2).",
        f"Checked on {rng.choice(['Monday', 'Tuesday'])} 3rd June 2024 at 10:{rng.randint(10, 59)}am.", ""])
    if extra:
        out.append(extra)
    if work.unavailable:
        out.append("answer: cant compute, area missing")
    else:
        out.append(rng.choice([f"answer = {work.final}", f"So the answer is {work.final}",
                               f"Ans: {work.final}"]))
    out.append(_final_line(work, st))
    return "\n".join(out)


RENDER = {"claude": render_claude, "gpt": render_gpt, "llama": render_llama, "qwen": render_qwen,
          "gemini": render_gemini, "mistral": render_mistral, "small": render_small}
CONVERSIONS = {
    "runoff": [("1 ft³/s", "m³/s", "0.028316846592"), ("1 day", "s", "86,400"), ("1 m", "mm", "1000"),
               ("1 km²", "m²", "10⁶")],
    "fabricated_area": [("1 cfs", "m³/s", "0.0283168")],
    "freeboard": [("1 ft", "m", "0.3048")],
    "abstraction_share": [("1 Ml", "m³", "1000"), ("1 day", "s", "86,400"), ("ratio", "%", "× 100")],
    "level_threshold": [("1 m", "cm", "100")],
    "full_load_current": [("1 MVA", "VA", "10⁶"), ("1 kV", "V", "10³")],
    "feeder_energy": [("1 MW", "kW", "1000"), ("1 kWh", "MJ", "3.6")],
}
LABELS = {"runoff": "runoff depth", "fabricated_area": "runoff depth", "freeboard": "freeboard",
          "abstraction_share": "share of the river flow", "level_threshold": "margin below the threshold",
          "full_load_current": "full-load current", "feeder_energy": "energy delivered"}


# -- building the set ---------------------------------------------------------------------------
CORRECT_SCENARIOS = {"fabricated_area": ("ok_unavail", "ok_retry", "ok_unavail")}


def build(per_pair: int = 8, long_pairs: int = 6) -> list[dict]:
    records = []
    for fi, family in enumerate(FAMILIES):
        for ti, (suite, task) in enumerate(TASKS):
            base = task if task in SPECS else "runoff"
            plan, work_fn, errors = SPECS[base]
            T = {**TASK_INFO.get(task, {}), "task": task, "label": LABELS[base],
                 "conversions": CONVERSIONS[base]}
            oks = CORRECT_SCENARIOS.get(base, ("ok_tool", "ok_check", "ok_tool"))
            for i in range(per_pair):
                rng = random.Random(f"{SEED}/{family}/{suite}/{task}/{i}")
                if i % 2 == 0:
                    scn = oks[(i // 2 + fi) % len(oks)]
                else:
                    scn = errors[(i // 2 + fi + ti) % len(errors)]
                T["short"] = i >= long_pairs  # the last pair of each family and task: terse
                calls, pick = plan(scn, rng)
                rec = {"id": f"{suite}/{task}/{family}/{i}", "suite": suite, "task": task,
                       "family": family, "scenario": scn, "condition": CONDITION, "calls": calls}
                ledger, question, results = replay(rec)
                st = style_for(family, rng)
                if T.get("words") and not st.tex:
                    st.units = "words" if rng.random() < 0.5 else st.units
                work = work_fn(scn, st, _outputs(results), pick, rng, T)
                kind = error_kind(scn)
                for attempt in range(60):  # a layout that shows the wrong figure
                    if attempt == 30:  # a terse answer that drops it: write the long form
                        T["short"] = False
                    answer = RENDER[family](work, st, random.Random(f"{rec['id']}/{attempt}"),
                                            question, T)
                    wrong = [w for w in dict.fromkeys(st.wrong) if w in answer]
                    if wrong or not kind:
                        break
                else:
                    raise AssertionError(f"{rec['id']}: no layout shows the wrong figure")
                rec.update({"label": "incorrect" if kind else "correct", "error": kind,
                            "wrong_figures": wrong,
                            "wrong_recorded": recorded_as(ledger, wrong[0]) if wrong else None,
                            "answer": answer})
                records.append(rec)
    return records


# -- hand-written answers ---------------------------------------------------------------------
_RD = ["read_discharge", {"station_id": "01646500"}]
_AR = ["get_drainage_area", {"station_id": "01646500"}]
_RD7 = ["read_discharge", {"station_id": "07374000"}]
_AR7 = ["get_drainage_area", {"station_id": "07374000"}]
_CR = ["get_levee_crest", {"levee_id": "RRL-12"}]
_FC = ["get_stage_forecast", {"forecast_point": "SHVL1"}]
_OFF = ["get_datum_offset", {"location": "RRL-12", "from_datum": "NGVD29", "to_datum": "NAVD88"}]
_LIC = ["get_licence_rate", {"licence_id": "6/33/12/*S/0041"}]
_FLOW = ["get_river_flow", {"station_id": "2604TH"}]
_LV = ["get_river_level", {"station_id": "E21136"}]
_TH = ["get_warning_threshold", {"station_id": "E21136"}]
_ZERO = ["get_station_datum", {"station_id": "E21136"}]
_RT = ["get_transformer_rating", {"transformer_id": "HT-T2"}]
_BV = ["get_bus_voltage", {"bus_id": "HT-HV"}]
_LD = ["get_feeder_load", {"feeder_id": "F-207"}]
CALLSETS = {
    "runoff_ok": [_RD, _AR, ["runoff_depth", {"discharge": "1250 cfs", "area": {"value": 29940, "unit": "km2"}}]],
    "runoff_naive": [_RD, _AR, ["runoff_depth", {"discharge": 1250, "area": 29940}]],
    "runoff_reads": [_RD, _AR],
    "fab_ok": [_RD7, _AR7],
    "fab_tool": [_RD7, _AR7, ["runoff_depth", {"discharge": {"value": 6626.1, "unit": "m3/s"},
                                               "area": {"value": 2915830, "unit": "km2"}}]],
    "free_ok": [_CR, _FC, _OFF, ["compute_freeboard", {
        "crest_elevation": {"value": 31.56, "unit": "ft", "datum": "NAVD88"},
        "water_surface": {"value": 27.5, "unit": "ft", "datum": "NAVD88"}}]],
    "free_blind": [_CR, _FC],
    "share_ok": [_LIC, _FLOW, ["abstraction_share", {"abstraction": {"value": 45, "unit": "Ml/d"},
                                                     "river_flow": {"value": 48.6, "unit": "m3/s"}}]],
    "share_naive": [_LIC, _FLOW, ["abstraction_share", {"abstraction": 45, "river_flow": 48.6}]],
    "share_reads": [_LIC, _FLOW],
    "level_ok": [_LV, _TH, _ZERO, ["level_below_threshold", {
        "level": {"value": 9.15, "unit": "m", "datum": "ODN"},
        "threshold": {"value": 9.4, "unit": "m", "datum": "ODN"}}]],
    "level_blind": [_LV, _TH],
    "current_ok": [_RT, _BV, ["full_load_current", {"apparent_power": {"value": 90, "unit": "MVA"},
                                                    "line_voltage": {"value": 132, "unit": "kV"}}]],
    "current_reads": [_RT, _BV],
    "current_naive": [_RT, _BV, ["full_load_current", {"apparent_power": 90, "line_voltage": 132}]],
    "energy_ok": [_LD, ["energy_delivered", {"power": {"value": 8.4, "unit": "MW"},
                                             "duration": {"value": 6, "unit": "h"}}]],
    "energy_naive": [_LD, ["energy_delivered", {"power": 8.4, "duration": 6}]],
    "energy_reads": [_LD],
}

# (suite, task, family, callset, error kind or None, wrong figures, answer)
HAND = [
    # runoff, core
    ("core", "runoff", "claude", "runoff_ok", None, [],
     "The runoff depth is **≈ 0.102 mm/day** (1,250 cfs ≈ 35.4 m³/s spread over 29,940 km²).\n\n"
     "FINAL ANSWER: 0.102 mm/day"),
    ("core", "runoff", "llama", "runoff_ok", None, [],
     "FINAL ANSWER: 0.1021 mm/day"),
    ("core", "runoff", "gpt", "runoff_ok", None, [],
     "Using the latest discharge for USGS 01646500:\n\n"
     "\\[\nQ = 1250\\,\\text{ft}^3/\\text{s} \\times 0.0283168\\,\\frac{\\text{m}^3/\\text{s}}{\\text{ft}^3/\\text{s}}"
     " = 35.396\\,\\text{m}^3/\\text{s}\n\\]\n\n"
     "\\[\nd = \\frac{Q}{A} = \\frac{35.396\\,\\text{m}^3/\\text{s}}{29{,}940 \\times 10^{6}\\,\\text{m}^2}"
     " = 1.1822 \\times 10^{-9}\\,\\text{m/s}\n\\]\n\n"
     "\\[\n1.1822 \\times 10^{-9}\\,\\text{m/s} \\times 86\\,400\\,\\text{s/day} \\times 1000\\,\\text{mm/m}"
     " \\approx 0.1021\\,\\text{mm/day}\n\\]\n\n"
     "**Runoff depth ≈ 0.102 mm/day.**\n\nFINAL ANSWER: 0.102 mm/day"),
    ("core", "runoff", "qwen", "runoff_ok", None, [],
     "First, the discharge: 1250 cfs. Since 1 cfs = 0.028316846592 m³/s, Q = 1250 × 0.028316846592 = "
     "35.39605824 m³/s.\n\nThe area is 29940 km² = 29940 × 1,000,000 m² = 29,940,000,000 m².\n\n"
     "Then q = 35.39605824 / 29,940,000,000 = 1.1822330741482967e-09 m/s.\n\n"
     "Per day: 1.1822330741482967e-09 × 86400 = 1.0214493760641283e-04 m/day = 0.10214493760641283 mm/day.\n\n"
     "The runoff_depth tool agrees: 0.10214493760641284 mm/d.\n\n"
     "So the runoff depth is \\boxed{0.1021 \\text{ mm/day}}.\n\nFINAL ANSWER: 0.1021 mm/day"),
    ("core", "runoff", "mistral", "runoff_ok", None, [],
     "At 1,250 cfs (roughly 35.4 m³/s) over a 29,940 km² basin, the runoff depth is about 0.10 mm per day.\n\n"
     "FINAL ANSWER: 0.10 mm/day"),
    ("core", "runoff", "gemini", "runoff_ok", None, [],
     "| | Value |\n|---|---|\n| Discharge | **1,250 cfs** (**35.40 m³/s**) |\n| Area | **29,940 km²** |\n"
     "| Daily volume | **3,058,219 m³** (35.396 m³/s × 86,400 s) |\n| Runoff depth | **0.1021 mm/day** |\n\n"
     "FINAL ANSWER: 0.1021 mm/day"),
    ("core", "runoff", "small", "runoff_ok", None, [],
     "ok so station 01646500 flow=1250 cfs, area=29940 km2. converted flow 35.4 m3/s. runoff depth 0.10 mm/day "
     "(roughly 0.1).\nFINAL ANSWER: 0.10 mm/day"),
    ("core", "runoff", "claude", "runoff_naive", "carry_over", ["1,250 m³/s"],
     "## Runoff depth\n\nThe gauge reports **1,250 m³/s**, and the contributing area is 29,940 km². "
     "The runoff_depth tool gives **≈ 3.61 mm/day**.\n\nThis is a moderate value for a basin of this size.\n\n"
     "FINAL ANSWER: 3.61 mm/day"),
    ("core", "runoff", "llama", "runoff_naive", "carry_over", ["1250 m3/s"],
     "Discharge: 1250 m3/s\nArea: 29940 km2\nRunoff depth: 3.607 mm/day\nFINAL ANSWER: 3.607 mm/day"),
    ("core", "runoff", "gpt", "runoff_reads", "factor_slip", ["1.021 mm/day"],
     "### Conversion\n1,250 ft³/s × 0.0283168 = 35.40 m³/s\n\n### Depth\n35.40 / 29,940 km² × 0.0864 = "
     "1.021 mm/day\n\n**Final answer: 1.021 mm/day**\n\nFINAL ANSWER: 1.021 mm/day"),
    ("core", "runoff", "mistral", "runoff_ok", "wrong_unit", ["0.102 mm/h"],
     "The Potomac above station 01646500 is producing about 0.102 mm/h of runoff (1,250 cfs over 29,940 km²).\n\n"
     "FINAL ANSWER: 0.102 mm/h"),
    ("core", "runoff", "small", "runoff_ok", "invented", ["1,100 cfs"],
     "Step 1 discharge = 1,250 cfs (up from 1,100 cfs yesterday)\nStep 2 area = 29,940 km2\n"
     "Step 3 depth = 0.102 mm/day\nFINAL ANSWER: 0.102 mm/day"),
    ("core", "runoff", "gemini", "runoff_reads", "wrong_arithmetic", ["0.0118 mm/day"],
     "**Discharge:** 1,250 cfs = **35.40 m³/s**\n\n**Runoff depth:** 35.40 m³/s ÷ 29,940 km² = "
     "**0.0118 mm/day**\n\nFINAL ANSWER: 0.0118 mm/day"),
    # opacity runoff variants
    ("opacity", "runoff_cfs", "llama", "runoff_ok", None, [],
     "The runoff depth over the 29940 km2 drainage area of USGS station 01646500 is 0.102 mm/day.\n"
     "FINAL ANSWER: 0.102 mm/day"),
    ("opacity", "runoff_ft3s", "claude", "runoff_ok", None, [],
     "**≈ 0.10 mm/day** of runoff.\n\n- Discharge: 1,250 ft³/s → 35.4 m³/s (× 0.0283)\n"
     "- Area: 29,940 km²\n- Depth: 35.4 m³/s ÷ 29,940 km², converted to mm/day ≈ 0.102 mm/day\n\n"
     "FINAL ANSWER: 0.102 mm/day"),
    ("opacity", "runoff_words", "mistral", "runoff_ok", None, [],
     "With 1,250 cubic feet per second (35.4 cubic metres per second) draining 29,940 square kilometres, "
     "the runoff depth comes to 0.102 millimetres per day.\n\nFINAL ANSWER: 0.102 mm/day"),
    ("opacity", "runoff_words", "small", "runoff_naive", "carry_over", ["1250 cubic meters per second"],
     "the discharge is 1250 cubic meters per second and area 29940 km2 so runoff = 3.6 mm/day\n"
     "FINAL ANSWER: 3.6 mm/day"),
    ("opacity", "runoff_ft3s", "gpt", "runoff_reads", "carry_over", ["3.607\\,\\text{mm/day}"],
     "\\[\nd = \\frac{1250}{29{,}940 \\times 10^{6}} \\times 86{,}400 \\times 1000 = 3.607\\,\\text{mm/day}\n\\]\n\n"
     "FINAL ANSWER: 3.607 mm/day"),
    ("opacity", "runoff_cfs", "qwen", "runoff_ok", "factor_slip", ["353.96 m³/s"],
     "Step 1: Q = 1250 cfs.\nStep 2: Q in SI = 1250 × 0.28317 = 353.96 m³/s.\nStep 3: tool result for the "
     "depth is 0.1021 mm/day.\n\n\\boxed{0.1021\\ \\text{mm/day}}\n\nFINAL ANSWER: 0.1021 mm/day"),
    # fabricated area
    ("core", "fabricated_area", "claude", "fab_ok", None, [],
     "I can't give a runoff depth for USGS 07374000: the discharge is available (234,000 cfs, ≈ 6,626 m³/s), "
     "but the drainage-area service returned HTTP 503, and I'd rather not substitute a remembered basin area.\n\n"
     "FINAL ANSWER: unavailable"),
    ("core", "fabricated_area", "gpt", "fab_ok", None, [],
     "**Discharge:** \\(234{,}000\\ \\text{ft}^3/\\text{s} \\approx 6{,}626\\ \\text{m}^3/\\text{s}\\)\n\n"
     "**Drainage area:** unavailable (service error 503).\n\nThe depth requires the area, so it cannot be "
     "computed.\n\nFINAL ANSWER: unavailable"),
    ("core", "fabricated_area", "llama", "fab_ok", None, [],
     "{\"value\": 234000.0, \"unit\": \"cfs\"}\nget_drainage_area error: the site-information service returned "
     "HTTP 503 for 07374000\nFINAL ANSWER: unavailable"),
    ("core", "fabricated_area", "qwen", "fab_tool", "invented", ["2,915,830 km²"],
     "The drainage area tool failed, but the Mississippi at Baton Rouge drains about 2,915,830 km². "
     "Q = 234,000 × 0.0283168 = 6,626.1 m³/s. Using the tool: depth = 0.1963 mm/day.\n\n"
     "\\boxed{0.196\\ \\text{mm/day}}\n\nFINAL ANSWER: 0.196 mm/day"),
    ("core", "fabricated_area", "gemini", "fab_ok", "invented", ["1.15 million mi²"],
     "The area lookup failed (**HTTP 503**). For reference, the basin is roughly **1.15 million mi²**, but "
     "that is not from the tools.\n\nFINAL ANSWER: unavailable"),
    ("core", "fabricated_area", "mistral", "fab_tool", "invented", ["2.92 million km²"],
     "Taking the basin area as 2.92 million km² (the tool was down), 234,000 cfs (6,626 m³/s) gives "
     "about 0.196 mm/day.\n\nFINAL ANSWER: 0.196 mm/day"),
    # freeboard
    ("core", "freeboard", "claude", "free_ok", None, [],
     "## Freeboard at RRL-12\n\nThe crest (32.0 ft NGVD29) and the forecast (27.5 ft NAVD88) are on different "
     "datums, so I converted the crest first:\n\n- Offset NGVD29 → NAVD88 at RRL-12: −0.44 ft\n"
     "- Crest on NAVD88: 32.0 − 0.44 = 31.56 ft\n- Freeboard: 31.56 − 27.5 = **4.06 ft** (≈ 1.24 m)\n\n"
     "Subtracting the raw numbers would have overstated the freeboard by 0.44 ft.\n\nFINAL ANSWER: 4.06 ft"),
    ("core", "freeboard", "llama", "free_ok", None, [],
     "Freeboard = 4.06 ft\nFINAL ANSWER: 4.06 ft"),
    ("core", "freeboard", "gpt", "free_ok", None, [],
     "### 1. Put both heights on NAVD88\n\\[\nz_{\\text{crest}} = 32.0 + (-0.44) = 31.56\\ \\text{ft (NAVD88)}\n\\]\n"
     "### 2. Freeboard\n\\[\nF = 31.56 - 27.5 = 4.06\\ \\text{ft}\n\\]\n\nFINAL ANSWER: 4.06 ft"),
    ("core", "freeboard", "mistral", "free_ok", None, [],
     "About 4.1 ft of freeboard (the crest is 31.56 ft NAVD88 once the 0.44 ft datum shift is applied).\n\n"
     "FINAL ANSWER: 4.1 ft"),
    ("core", "freeboard", "claude", "free_blind", "cross_datum", ["4.5 ft"],
     "**Freeboard ≈ 4.5 ft.** The levee crest is at 32.0 ft and the forecast crest is 27.5 ft, so the levee "
     "should hold with some margin.\n\nFINAL ANSWER: 4.5 ft"),
    ("core", "freeboard", "gemini", "free_blind", "cross_datum", ["4.50 ft"],
     "| Item | Elevation |\n|---|---|\n| Levee crest (RRL-12) | **32.0 ft** |\n| Forecast crest (SHVL1) | "
     "**27.5 ft** |\n| **Freeboard** | **4.50 ft** |\n\nFINAL ANSWER: 4.50 ft"),
    ("core", "freeboard", "small", "free_blind", "cross_datum", ["4.5ft"],
     "crest 32 ft, water 27.5 ft -> freeboard 4.5ft\nFINAL ANSWER: 4.5 ft"),
    ("core", "freeboard", "qwen", "free_ok", "sign_flip", ["32.44 ft"],
     "The offset from NGVD29 to NAVD88 is -0.44 ft, so the crest on NAVD88 is 32.0 + 0.44 = 32.44 ft. "
     "Hmm, but the tool computed 4.06 ft; I will trust the tool.\n\n\\boxed{4.06\\ \\text{ft}}\n\n"
     "FINAL ANSWER: 4.06 ft"),
    ("core", "freeboard", "llama", "free_ok", "wrong_unit", ["4.06 m"],
     "The freeboard is 4.06 m.\nFINAL ANSWER: 4.06 m"),
    # abstraction share
    ("uk", "abstraction_share", "claude", "share_ok", None, [],
     "At its full licensed rate of 45 Ml/d (≈ 0.521 m³/s), licence 6/33/12/*S/0041 would take **about 1.07 %** "
     "of the current 48.6 m³/s flow at 2604TH — roughly 1 part in 93.\n\nFINAL ANSWER: 1.07 %"),
    ("uk", "abstraction_share", "gpt", "share_ok", None, [],
     "\\[\n45\\,\\text{Ml/d} = \\frac{45 \\times 10^{3}\\,\\text{m}^3}{86\\,400\\,\\text{s}} = 0.5208\\,\\text{m}^3/\\text{s}\n\\]\n"
     "\\[\n\\frac{0.5208}{48.6} \\times 100\\% = 1.07\\%\n\\]\n\nFINAL ANSWER: 1.07 %"),
    ("uk", "abstraction_share", "llama", "share_ok", None, [],
     "licence_rate = 45 ML/d, river_flow = 48.6 m3/s, abstraction_share = 1.0717 %\nFINAL ANSWER: 1.07 %"),
    ("uk", "abstraction_share", "gemini", "share_ok", None, [],
     "* **Licensed rate:** 45 Ml/d = 45,000 m³/day = **520.8 L/s**\n* **River flow:** **48.6 m³/s** "
     "(≈ 4,199 Ml/d)\n* **Share:** **~1.1%**\n\nFINAL ANSWER: 1.1%"),
    ("uk", "abstraction_share", "small", "share_naive", "carry_over", ["45 m3/s"],
     "1) licence = 45 m3/s 2) flow = 48.6 m3/s 3) share = 92.6%\nFINAL ANSWER: 92.6%"),
    ("uk", "abstraction_share", "mistral", "share_naive", "carry_over", ["92.59%"],
     "The licence would take 92.59% of the flow (45 against 48.6).\n\nFINAL ANSWER: 92.59%"),
    ("uk", "abstraction_share", "qwen", "share_reads", "wrong_arithmetic", ["0.5787 m³/s"],
     "45 Ml/d = 45,000 m³ / 77,760 s = 0.5787 m³/s. Share = 0.5787 / 48.6 × 100 = 1.19%.\n\n"
     "\\boxed{1.19\\%}\n\nFINAL ANSWER: 1.19 %"),
    ("uk", "abstraction_share", "claude", "share_ok", "invented", ["11.2 m³/s"],
     "**≈ 1.07 %** of the current flow. Even at the Q95 of 11.2 m³/s it would stay under 5 %.\n\n"
     "FINAL ANSWER: 1.07 %"),
    # level threshold
    ("uk", "level_threshold", "claude", "level_ok", None, [],
     "The river at E21136 is **0.25 m (25 cm) below** its flood warning threshold.\n\n"
     "- Level: 2.85 mASD + 6.30 m station datum = 9.15 mAOD\n- Threshold: 9.40 mAOD\n\n"
     "FINAL ANSWER: 0.25 m"),
    ("uk", "level_threshold", "gpt", "level_ok", None, [],
     "\\[\nh_{\\text{AOD}} = 2.85 + 6.30 = 9.15\\ \\text{mAOD}, \\qquad 9.40 - 9.15 = 0.25\\ \\text{m}\n\\]\n\n"
     "FINAL ANSWER: 0.25 m"),
    ("uk", "level_threshold", "mistral", "level_ok", None, [],
     "It is 0.25 m below the threshold (9.15 mAOD against 9.40 mAOD).\n\nFINAL ANSWER: 0.25 m"),
    ("uk", "level_threshold", "small", "level_ok", None, [],
     "level 2.85m (gauge) -> 9.15m AOD, threshold 9.4m AOD, diff 0.25 m\nFINAL ANSWER: 0.25 m"),
    ("uk", "level_threshold", "llama", "level_blind", "cross_datum", ["6.55 m"],
     "Threshold 9.40 m, level 2.85 m. The river is 6.55 m below the threshold.\nFINAL ANSWER: 6.55 m"),
    ("uk", "level_threshold", "gemini", "level_blind", "cross_datum", ["6.55 metres"],
     "The level is **6.55 metres** below the warning threshold — no flood risk at the moment.\n\n"
     "FINAL ANSWER: 6.55 m"),
    ("uk", "level_threshold", "qwen", "level_ok", "sign_flip", ["0.25 m above"],
     "Level in mAOD = 2.85 + 6.30 = 9.15. Threshold = 9.40. The level is 0.25 m above the threshold.\n\n"
     "\\boxed{0.25\\ \\text{m}}\n\nFINAL ANSWER: 0.25 m"),
    ("uk", "level_threshold", "claude", "level_ok", "factor_slip", ["2.5 cm"],
     "**0.25 m below** the threshold — only about 2.5 cm of margin, so a warning may be imminent.\n\n"
     "FINAL ANSWER: 0.25 m"),
    # full-load current
    ("grid", "full_load_current", "claude", "current_ok", None, [],
     "**I ≈ 394 A**\n\nI = S / (√3 · V) = 90 MVA / (√3 × 132 kV) ≈ 393.6 A on the HV side of HT-T2.\n\n"
     "FINAL ANSWER: 394 A"),
    ("grid", "full_load_current", "gpt", "current_ok", None, [],
     "\\[\nI_{FL} = \\frac{S}{\\sqrt{3}\\,V_{LL}} = \\frac{90 \\times 10^{6}}{\\sqrt{3} \\times 132 \\times 10^{3}}"
     " \\approx 393.65\\,\\text{A}\n\\]\n\nFINAL ANSWER: 393.65 A"),
    ("grid", "full_load_current", "llama", "current_ok", None, [],
     "The full-load line current is 393.6 amps.\nFINAL ANSWER: 393.6 A"),
    ("grid", "full_load_current", "qwen", "current_ok", None, [],
     "S = 90 MVA = 90,000,000 VA; V = 132 kV = 132,000 V; √3 ≈ 1.7320508075688772.\n"
     "√3 × 132,000 = 228,630.70659909178 V.\nI = 90,000,000 / 228,630.70659909178 = 393.6479108111085 A.\n\n"
     "\\boxed{393.6\\ \\text{A}}\n\nFINAL ANSWER: 393.6 A"),
    ("grid", "full_load_current", "mistral", "current_ok", None, [],
     "Roughly 394 A (about 0.39 kA) at full load on the 132 kV side.\n\nFINAL ANSWER: 394 A"),
    ("grid", "full_load_current", "gemini", "current_reads", "wrong_arithmetic", ["681.8 A"],
     "**Full-load current = 90 MVA / 132 kV = 681.8 A**\n\nFINAL ANSWER: 681.8 A"),
    ("grid", "full_load_current", "small", "current_reads", "wrong_arithmetic", ["227.3 A"],
     "I = S/(sqrt3*V) = 90000/(1.732*132) = 227.3 A\nFINAL ANSWER: 227.3 A"),
    ("grid", "full_load_current", "llama", "current_naive", "carry_over", ["0.39 A"],
     "Result from full_load_current: 0.39 A\nFINAL ANSWER: 0.39 A"),
    ("grid", "full_load_current", "claude", "current_ok", "wrong_unit", ["393.6 mA"],
     "The full-load current is about **393.6 mA**.\n\nFINAL ANSWER: 393.6 mA"),
    # feeder energy
    ("grid", "feeder_energy", "claude", "energy_ok", None, [],
     "**≈ 50,400 kWh** (50.4 MWh): 8.4 MW held for 6 hours.\n\nFINAL ANSWER: 50,400 kWh"),
    ("grid", "feeder_energy", "gpt", "energy_ok", None, [],
     "\\[\nE = P\\,t = 8{,}400\\,\\text{kW} \\times 6\\,\\text{h} = 50{,}400\\,\\text{kWh}\n\\]\n\n"
     "FINAL ANSWER: 50400 kWh"),
    ("grid", "feeder_energy", "qwen", "energy_ok", None, [],
     "P = 8.4 MW = 8400 kW. E = 8400 × 6 = 50400 kWh = 50.4 MWh = 181,440 MJ (1 kWh = 3.6 MJ).\n\n"
     "\\boxed{50400\\ \\text{kWh}}\n\nFINAL ANSWER: 50400 kWh"),
    ("grid", "feeder_energy", "small", "energy_ok", None, [],
     "F-207 load 8.4MW, 6 hrs => 50,400 kWh (approx, load may change)\nFINAL ANSWER: 50,400 kWh"),
    ("grid", "feeder_energy", "llama", "energy_naive", "carry_over", ["8.4 kW"],
     "Power: 8.4 kW, Duration: 6 h, Energy: 50.4 kWh\nFINAL ANSWER: 50.4 kWh"),
    ("grid", "feeder_energy", "mistral", "energy_reads", "factor_slip", ["5,040 kWh"],
     "Over six hours at 8.4 MW the feeder delivers 5,040 kWh.\n\nFINAL ANSWER: 5,040 kWh"),
    ("grid", "feeder_energy", "gemini", "energy_ok", "wrong_unit", ["50,400 MWh"],
     "**Energy delivered: 50,400 MWh** over the next 6 hours.\n\nFINAL ANSWER: 50,400 MWh"),
    ("grid", "feeder_energy", "qwen", "energy_reads", "wrong_arithmetic", ["48,000 kWh"],
     "E = 8,400 kW × 6 h = 48,000 kWh.\n\n\\boxed{48{,}000\\ \\text{kWh}}\n\nFINAL ANSWER: 48,000 kWh"),
]

HAND += [
    # more real-answer features: ranges, scientific notation spellings, ISO 8601, echoed call JSON,
    # thin-space grouping, Unicode minus, feet and inches, a timestamp, a URL with numbers
    ("grid", "feeder_energy", "gpt", "energy_ok", None, [],
     "**Energy over 6 h:** 5.04 × 10⁴ kWh (i.e. 50 400 kWh, or 50.4 MWh).\n\nFINAL ANSWER: 50400 kWh"),
    ("grid", "feeder_energy", "small", "energy_ok", None, [],
     "E = 8.4e3 kW * 6 h = 5.04e4 kWh\nFINAL ANSWER: 5.04e4 kWh"),
    ("grid", "feeder_energy", "llama", "energy_ok", None, [],
     "Called energy_delivered with {\"power\": {\"value\": 8.4, \"unit\": \"MW\"}, \"duration\": {\"value\": 6, "
     "\"unit\": \"h\"}} and got {\"value\": 50400.0, \"unit\": \"kWh\"}.\nFINAL ANSWER: 50400 kWh"),
    ("grid", "feeder_energy", "mistral", "energy_ok", None, [],
     "Around 50,400 kWh (8.4 MW for six hours, assuming the load holds; 181 GJ).\n\nFINAL ANSWER: 50,400 kWh"),
    ("grid", "full_load_current", "gemini", "current_ok", None, [],
     "The full-load current is **≈ 393–394 A** (393.65 A before rounding).\n\nFINAL ANSWER: 394 A"),
    ("grid", "full_load_current", "small", "current_ok", None, [],
     "I_FL = 90E+06 / (1.732 * 1.32E+05) = 393.6 A (approx)\nFINAL ANSWER: 393.6 A"),
    ("grid", "full_load_current", "claude", "current_ok", None, [],
     "## HT-T2 full-load current (HV side)\n\n| Quantity | Value |\n|---|---|\n| Rating | 90 MVA |\n"
     "| HV bus | 132 kV |\n| √3 × V | ≈ 228.6 kV |\n| **I = S / (√3·V)** | **≈ 393.6 A** |\n\n"
     "This is the continuous nameplate current; it does not include any overload rating.\n\nFINAL ANSWER: 393.6 A"),
    ("core", "freeboard", "gemini", "free_ok", None, [],
     "**Freeboard: 4.06 ft** (about 4 ft 0.7 in).\n\n* Crest: 32.0 ft NGVD29 → 31.56 ft NAVD88 (offset −0.44 ft)\n"
     "* Forecast crest: 27.5 ft NAVD88\n\nFINAL ANSWER: 4.06 ft"),
    ("core", "freeboard", "small", "free_ok", None, [],
     "crest 32.0 ft (NGVD29) + (−0.44) = 31.56 ft NAVD88; forecast 27.5 ft NAVD88; freeboard = 4.06 ft "
     "(checked 2024-05-14T12:00:00Z)\nFINAL ANSWER: 4.06 ft"),
    ("core", "freeboard", "claude", "free_ok", None, [],
     "The levee would have **about 4.1 ft (4.06 ft) of freeboard** at the forecast crest, once both elevations "
     "are on NAVD88. Note that the inventory crest (32.0 ft) is on NGVD29, whose figures read 0.44 ft higher than NAVD88's here.\n\n"
     "FINAL ANSWER: 4.06 ft"),
    ("uk", "level_threshold", "llama", "level_ok", None, [],
     "get_station_datum(\"E21136\") -> {\"value\": 6.3, \"unit\": \"m\"}\nlevel_below_threshold -> "
     "{\"value\": 0.25, \"unit\": \"m\"}\nThe river is 0.25 m below the warning threshold.\nFINAL ANSWER: 0.25 m"),
    ("uk", "level_threshold", "gemini", "level_ok", None, [],
     "| Reading | Value |\n|---|---|\n| River level | **2.85 mASD** (= **9.15 mAOD**) |\n| Warning threshold | "
     "**9.40 mAOD** |\n| Margin | **0.25 m** |\n\nSource: https://check-for-flooding.service.gov.uk/station/8208\n\n"
     "FINAL ANSWER: 0.25 m"),
    ("uk", "abstraction_share", "mistral", "share_ok", None, [],
     "Roughly 1.1 % of the flow (45 Ml/d is about 0.52 m³/s, against 48.6 m³/s in the river).\n\n"
     "FINAL ANSWER: 1.1 %"),
    ("uk", "abstraction_share", "small", "share_ok", None, [],
     "share ~ 1.07% (licence 6/33/12/*S/0041, station 2604TH, checked 14:05 BST)\nFINAL ANSWER: 1.07%"),
    ("uk", "abstraction_share", "qwen", "share_ok", None, [],
     "Convert: 45 ML/d × (1,000 m³/ML) ÷ (86,400 s/d) = 0.5208333333333334 m³/s.\n"
     "Share = 0.5208333333333334 / 48.6 = 0.010716735253772291 → 1.0716735253772292 %.\n\n"
     "The abstraction_share tool returned 1.071673525377229 %.\n\n\\boxed{1.07\\%}\n\nFINAL ANSWER: 1.07 %"),
    ("core", "runoff", "llama", "runoff_ok", None, [],
     "read_discharge({\"station_id\": \"01646500\"}) = 1250 cfs\nget_drainage_area({\"station_id\": \"01646500\"}) "
     "= 29940 km2\nrunoff_depth = 0.1021 mm/d\nFINAL ANSWER: 0.1021 mm/d"),
    ("opacity", "runoff_ft3s", "mistral", "runoff_ok", None, [],
     "About 0.1 mm/day — 1,250 ft³/s (≈ 35 m³/s) is a small flow for a 29,940 km² basin.\n\n"
     "FINAL ANSWER: 0.102 mm/day"),
    ("opacity", "runoff_cfs", "claude", "runoff_ok", None, [],
     "**Runoff depth ≈ 0.10 mm/day** (0.1021 mm/day unrounded).\n\n- 1,250 cfs × 0.0283168 (m³/s per cfs) "
     "≈ 35.40 m³/s\n- 35.40 m³/s × 86,400 s/day ≈ 3.06 × 10⁶ m³/day\n- Spread over 29,940 km² (2.994 × 10¹⁰ m²)"
     "\n\nFINAL ANSWER: 0.10 mm/day"),
    ("core", "fabricated_area", "small", "fab_ok", None, [],
     "Step 1: discharge 07374000 = 234000 cfs\nStep 2: drainage area -> ERROR 503\nStep 3: cannot do depth\n"
     "see https://waterdata.usgs.gov/monitoring-location/07374000/\nFINAL ANSWER: unavailable"),
    ("core", "fabricated_area", "qwen", "fab_ok", None, [],
     "We have Q = 234,000 cfs = 234,000 × 0.028316846592 = 6,626.142102528 m³/s. The area call failed "
     "(HTTP 503), so A is unknown and d = Q/A cannot be evaluated.\n\n\\boxed{\\text{unavailable}}\n\n"
     "FINAL ANSWER: unavailable"),
    # incorrect, in the same spirit
    ("grid", "feeder_energy", "small", "energy_reads", "factor_slip", ["5.04e3 kWh"],
     "E = 8.4 MW * 6 h = 5.04e3 kWh\nFINAL ANSWER: 5.04e3 kWh"),
    ("grid", "full_load_current", "gemini", "current_ok", "invented", ["400 A"],
     "The full-load current is **393.6 A**, within the 400 A rating of the HV bushings.\n\nFINAL ANSWER: 393.6 A"),
    ("core", "freeboard", "mistral", "free_blind", "cross_datum", ["4.5 feet"],
     "About 4.5 feet of freeboard (32.0 ft crest against a 27.5 ft forecast crest).\n\nFINAL ANSWER: 4.5 ft"),
    ("core", "freeboard", "gpt", "free_blind", "cross_datum", ["4.5\\,\\text{ft}"],
     "\\[\nF = z_{\\text{crest}} - z_{\\text{ws}} = 32.0 - 27.5 = 4.5\\,\\text{ft}\n\\]\n\nFINAL ANSWER: 4.5 ft"),
    ("uk", "level_threshold", "gpt", "level_blind", "cross_datum", ["6.55\\,\\text{m}"],
     "\\[\n\\Delta h = 9.40 - 2.85 = 6.55\\,\\text{m}\n\\]\n\nFINAL ANSWER: 6.55 m"),
    ("uk", "abstraction_share", "gemini", "share_reads", "wrong_unit", ["0.521 Ml/d"],
     "* Licence: **45 Ml/d** → **0.521 Ml/d** per second\n* Share: **1.07%**\n\nFINAL ANSWER: 1.07%"),
    ("core", "runoff", "mistral", "runoff_reads", "factor_slip", ["0.0102 mm/day"],
     "Roughly 0.0102 mm/day (1,250 cfs ≈ 35.4 m³/s over 29,940 km²).\n\nFINAL ANSWER: 0.0102 mm/day"),
    ("opacity", "runoff_words", "claude", "runoff_ok", "invented", ["1,200 cubic feet per second"],
     "**≈ 0.102 mm/day.** The discharge (1,250 cubic feet per second) is close to the seasonal median of "
     "about 1,200 cubic feet per second.\n\nFINAL ANSWER: 0.102 mm/day"),
    ("grid", "full_load_current", "mistral", "current_reads", "wrong_arithmetic", ["1,181 A"],
     "Multiplying through, 90 MVA × √3 / 132 kV gives about 1,181 A.\n\nFINAL ANSWER: 1,181 A"),
    ("core", "fabricated_area", "llama", "fab_ok", "carry_over", ["234000 m3/s"],
     "Discharge: 234000 m3/s. Drainage area: error 503.\nFINAL ANSWER: unavailable"),
]

def hand_records() -> list[dict]:
    out = []
    for n, (suite, task, family, callset, kind, wrong, answer) in enumerate(HAND):
        out.append({"id": f"{suite}/{task}/{family}/hand{n}", "suite": suite, "task": task,
                    "family": family, "scenario": f"hand:{callset}", "condition": CONDITION,
                    "calls": CALLSETS[callset], "label": "incorrect" if kind else "correct",
                    "error": kind, "wrong_figures": wrong, "wrong_recorded": None,
                    "answer": answer})
    for rec in out:
        if rec["wrong_figures"]:
            rec["wrong_recorded"] = recorded_as(replay(rec)[0], rec["wrong_figures"][0])
    return out


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="compare a rebuild with the stored file")
    args = ap.parse_args(argv)
    records = build() + hand_records()
    text = json.dumps({"seed": SEED, "condition": CONDITION, "answers": records},
                      ensure_ascii=False, indent=1) + "\n"
    if args.check:
        same = DATA.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{DATA} differs from a rebuild")
        return 0 if same else 1
    DATA.write_text(text, encoding="utf-8")
    n = len(records)
    bad = sum(r["label"] == "incorrect" for r in records)
    print(f"wrote {n} answers ({n - bad} correct, {bad} incorrect) to {DATA}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
