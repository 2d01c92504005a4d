"""The answer audit's own error rates: a script, not a test.

    python evaluation/audit_rates.py          (or: python -m evaluation.audit_rates)
    python evaluation/audit_rates.py --by-style --by-task --by-error --examples 2

Prints
- the hand-written labelled corpus (evaluation/answers/audit_corpus.json): scenarios, answers,
  correct and wrong;
- the generated corpus (evaluation/answers/audit_corpus_generated.json, built once: see
  evaluation/README.md): every task of every bench suite, replayed through the real bench
  tools, answers in many styles labelled by construction. Per style, per modifier, per task, per error kind and
  overall: false alarms (correct answers with ``audit.ok`` False), detection (incorrect
  answers with ``audit.ok`` False), and exceptions raised by ``audit_answer`` (counted
  separately, never in a rate's denominator);
- the false-alarm rate: correct answers the audit flags (``audit.ok`` False);
- the detection rate: wrong answers the audit flags;
- the random-acceptance rate: on ledgers of 3 and of 6 random outputs, the fraction of random
  numbers the audit accepts as ``sourced`` or ``derived``. It bounds how much an accepted number
  means: a number accepted by chance this often is weak evidence of provenance.

Random-acceptance model (fixed seed, deterministic): each output has a magnitude drawn
log-uniformly over [0.1, 1000) (four decades), rounded to 4 significant figures as a tool would
report it, in a unit drawn uniformly from COMMON_UNITS (so outputs share dimensions, as in a
real ledger: several flows, several levels). Each probe is drawn log-uniformly over the same
range and written to 3 significant figures ("0.123", "12.3", "123"), once bare and once with a
unit drawn from COMMON_UNITS. No question (context) is given, so nothing can be ``quoted``.

``figures()`` returns everything printed, for tests/test_audit_corpus.py.
"""
from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from evaluation.answer_sets import CORPUS, GENERATED  # noqa: E402
RANDOM_SIZES = (1, 3, 6, 10, 20)
ACCEPTED = ("sourced", "derived", "factor", "operand")  # every status audit.ok accepts but quoted
COMMON_UNITS = ("cfs", "m3/s", "ML/d", "ft", "m", "km2")
RANGE = (0.1, 1000.0)
SEED = 20260820


# -- the labelled corpus -------------------------------------------------------------------------
def load_corpus(path: Path = CORPUS) -> dict:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def register_stations(scenario: dict) -> None:
    """Register the station datums a scenario names (the caller saves and restores the state)."""
    from quantity_guard import Q, register_station
    for st in scenario.get("stations", ()):
        elev = st["elevation"]
        register_station(st["id"], Q(elev["value"], elev["unit"], datum=elev["datum"]),
                         prefix=st.get("prefix", "GAGE"))


def make_tool(name: str, value: float, unit: str, datum: str | None = None):
    """A tiny guarded tool that returns one recorded output."""
    from quantity_guard import quantity_tool
    returns = {"unit": unit} if datum is None else {"unit": unit, "datum": datum}

    def tool():
        return value

    return quantity_tool(tool, returns=returns, name=name)


def build_ledger(scenario: dict):
    """Run the scenario's tools inside ``session(context=question)``; return the ledger."""
    from quantity_guard import session
    tools = [make_tool(o["tool"], o["value"], o["unit"], o.get("datum"))
             for o in scenario["outputs"]]
    with session(context=scenario["question"]) as ledger:
        for tool in tools:
            tool()
    return ledger


def iter_answers(corpus: dict):
    for sc in corpus["scenarios"]:
        for ans in sc["answers"]:
            yield sc, ans


def run_corpus(corpus: dict | None = None) -> list[dict]:
    """Audit every answer; one row per answer: id, label, audit.ok, findings."""
    from quantity_guard import datums
    corpus = corpus or load_corpus()
    rows = []
    with datums.isolated():
        for sc in corpus["scenarios"]:
            register_stations(sc)
            ledger = build_ledger(sc)
            for ans in sc["answers"]:
                audit = ledger.audit_answer(ans["text"], context=sc["question"])
                rows.append({"id": ans["id"], "scenario": sc["id"], "label_ok": ans["ok"],
                             "audit_ok": audit.ok, "audit": audit})
    return rows


def corpus_rates(rows: list[dict]) -> dict:
    correct = [r for r in rows if r["label_ok"]]
    wrong = [r for r in rows if not r["label_ok"]]
    false_alarms = [r["id"] for r in correct if not r["audit_ok"]]
    detected = [r["id"] for r in wrong if not r["audit_ok"]]
    missed = [r["id"] for r in wrong if r["audit_ok"]]
    return {"answers": len(rows), "correct": len(correct), "wrong": len(wrong),
            "false_alarms": false_alarms, "missed": missed,
            "false_alarm_rate": len(false_alarms) / len(correct) if correct else 0.0,
            "detection_rate": len(detected) / len(wrong) if wrong else 1.0}


# -- random acceptance ---------------------------------------------------------------------------
def _log_uniform(rng: random.Random) -> float:
    lo, hi = math.log10(RANGE[0]), math.log10(RANGE[1])
    return 10.0 ** rng.uniform(lo, hi)


def _round_sig(x: float, sig: int) -> float:
    return round(x, sig - 1 - math.floor(math.log10(abs(x))))


def _write_sig(x: float, sig: int = 3) -> str:
    """``x`` to ``sig`` significant figures, positional: 0.123, 1.23, 12.3, 123."""
    r = _round_sig(x, sig)   # rounding first, so 9.996 carries to 10.0, not "10.00"
    return f"{r:.{max(0, sig - 1 - math.floor(math.log10(abs(r))))}f}"


def random_acceptance(n_outputs: int, *, ledgers: int = 300, probes: int = 20,
                      seed: int = SEED, preamble: str = "", sig: int = 3) -> dict:
    """The fraction of random ``sig``-significant-figure numbers accepted as sourced or
    derived. ``preamble`` is written before each probe (e.g. "With √3 and π: ", so that the
    constants an answer writes join the products and ratios). With ``sig=1`` the probes are
    one-figure numbers stated flat ("The value is 400."), which the audit reads as roundings
    (half the last place, at most 10%)."""
    from quantity_guard import quantity_tool, session
    tools = {u: quantity_tool(lambda value: value, returns={"unit": u}, name=f"read_{u}")
             for u in COMMON_UNITS}
    rng = random.Random(seed * 100 + n_outputs)
    counts = {"bare": [0, 0], "unit": [0, 0]}
    for _ in range(ledgers):
        with session() as ledger:
            for _ in range(n_outputs):
                tools[rng.choice(COMMON_UNITS)](_round_sig(_log_uniform(rng), 4))
        for _ in range(probes):
            text = _write_sig(_log_uniform(rng), sig)
            unit = rng.choice(COMMON_UNITS)
            for kind, answer in (("bare", f"{preamble}The value is {text}."),
                                 ("unit", f"{preamble}The value is {text} {unit}.")):
                findings = ledger.audit_answer(answer).findings
                counts[kind][1] += 1
                if findings and findings[0].status in ACCEPTED:
                    counts[kind][0] += 1
    accepted = counts["bare"][0] + counts["unit"][0]
    total = counts["bare"][1] + counts["unit"][1]
    return {"outputs": n_outputs, "probes": total, "rate": accepted / total,
            "bare": counts["bare"][0] / counts["bare"][1],
            "with_unit": counts["unit"][0] / counts["unit"][1]}


def random_percent_acceptance(n_outputs: int, *, ledgers: int = 300, probes: int = 20,
                              seed: int = SEED) -> dict:
    """The fraction of random percentages ("The share is 37.4% of the reference level.", 2 or 3
    significant figures,
    log-uniform over 0.1..100) accepted against a ledger of ``n_outputs`` lengths, about half
    of them elevations on a datum: shares of elevations, complements and ratios included."""
    from quantity_guard import quantity_tool, session
    plain = quantity_tool(lambda value: value, returns={"unit": "ft"}, name="read_length")
    elevation = quantity_tool(lambda value: value, returns={"unit": "ft", "datum": "NAVD88"},
                              name="read_elevation")
    rng = random.Random(seed * 1000 + n_outputs)
    accepted = total = 0
    for _ in range(ledgers):
        with session() as ledger:
            for k in range(n_outputs):
                (elevation if k % 2 else plain)(_round_sig(_log_uniform(rng), 4))
        for _ in range(probes):
            x = 10 ** rng.uniform(-1.0, 2.0)
            text = _write_sig(x, rng.choice((2, 3)))
            findings = ledger.audit_answer(f"The share is {text}% of the reference "
                                           f"level.").findings
            total += 1
            if findings and findings[0].status in ACCEPTED:
                accepted += 1
    return {"outputs": n_outputs, "probes": total, "rate": accepted / total}


# -- the generated corpus ------------------------------------------------------------------------
def load_generated(path: Path = GENERATED) -> dict:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def run_generated(corpus: dict | None = None) -> list[dict]:
    """Audit every generated answer against its scenario's replayed ledger. One row per
    answer; ``audit_ok`` is None when ``audit_answer`` raised (``exception`` says what)."""
    from evaluation.answer_sets import scenario_ledger
    corpus = corpus or load_generated()
    rows = []
    for sc in corpus["scenarios"]:
        ledger = scenario_ledger(sc)
        for ans in sc["answers"]:
            row = {"id": ans["id"], "scenario": sc["id"], "suite": sc["suite"],
                   "task": f"{sc['suite']}/{sc['task']}", "variant": sc["variant"],
                   "style": ans["style"], "modifiers": ans["modifiers"],
                   "label_ok": ans["ok"], "error": ans["error"],
                   # every wrong figure is also a one-step sum/difference/product/ratio of
                   # recorded outputs (datum-blind): arithmetic alone cannot tell it apart
                   "aliased": bool(not ans["ok"] and all(
                       f.get("aliases") for f in ans["figures"] if f.get("error"))),
                   "audit_ok": None,
                   "exception": None, "findings": []}
            try:
                audit = ledger.audit_answer(ans["text"], context=sc["question"])
            except Exception as err:  # noqa: BLE001 - an audit crash is a finding, counted
                row["exception"] = f"{type(err).__name__}: {err}"
            else:
                row["audit_ok"] = bool(audit.ok)
                row["findings"] = [(f.number.text, f.status) for f in audit.findings]
                flagged = [(f.number.start, f.number.end, f.status) for f in audit.findings
                           if f.status in FLAGGED]
                row["flagged_classes"] = sorted({figure_class(fig) for fig in ans["figures"]
                                                 if _overlaps(fig, flagged)})
                row["figure_classes"] = sorted({figure_class(fig) for fig in ans["figures"]})
                row["pinpointed"] = any(_overlaps(fig, flagged) for fig in ans["figures"]
                                        if fig.get("error"))
                row["unattributed"] = [ans["text"][a:b] for a, b, _ in flagged
                                       if not any(fig["start"] < b and a < fig["end"]
                                                  for fig in ans["figures"])]
            rows.append(row)
    return rows


FLAGGED = ("unsourced", "unit_mislabelled")


def _overlaps(fig: dict, flagged: list) -> bool:
    return any(fig["start"] < b and a < fig["end"] for a, b, _ in flagged)


def figure_class(fig: dict) -> str:
    """What a written figure is, in the words of the failure classes: 'output copy (full
    precision)', 'derivation div (bare)', 'constant sqrt3', 'non-quantity unit', ..."""
    kind = fig["kind"]
    if kind == "wrong":
        return f"wrong: {fig['error']}"
    if kind == "non_quantity":
        return f"non-quantity {fig.get('what', '')}".strip()
    if kind == "constant":
        return f"constant {fig.get('constant')}"
    if kind == "identity":
        return "identity (1 x = k y)"
    name = {"output": "output copy", "conversion": "unit conversion of an output",
            "derivation": f"derivation {fig.get('op', '')}",
            "question": "question quote"}.get(kind, kind)
    quals = []
    if fig.get("range_bound"):
        quals.append("range bound")
    if fig.get("step", 1) == 0:
        quals.append("full precision")
    if fig.get("hedged"):
        quals.append("hedged")
    if fig.get("sign_in_words"):
        quals.append("sign in words")
    if fig.get("unit") is None and fig.get("meant_unit"):
        quals.append("bare")
    if fig.get("unit_elsewhere"):
        quals.append("unit in another cell")
    if fig.get("depth", 0) > 1:
        quals.append("two steps")
    return name + (f" ({', '.join(quals)})" if quals else "")


def figure_rates(rows: list[dict]) -> dict:
    """Per figure class, over correct answers: in how many answers a figure of that class was
    flagged, of the answers that have one (the false-alarm causes)."""
    have: dict = {}
    hit: dict = {}
    for r in rows:
        if not r["label_ok"] or r["exception"] is not None:
            continue
        for c in r.get("figure_classes", ()):
            have[c] = have.get(c, 0) + 1
        for c in r.get("flagged_classes", ()):
            hit[c] = hit.get(c, 0) + 1
    return {c: (hit.get(c, 0), n) for c, n in sorted(have.items(),
                                                     key=lambda kv: -hit.get(kv[0], 0))}


def _tally(rows: list[dict]) -> dict:
    correct = [r for r in rows if r["label_ok"]]
    wrong = [r for r in rows if not r["label_ok"]]
    c_ran = [r for r in correct if r["exception"] is None]
    w_ran = [r for r in wrong if r["exception"] is None]
    fa = [r for r in c_ran if not r["audit_ok"]]
    det = [r for r in w_ran if not r["audit_ok"]]
    return {"correct": len(correct), "incorrect": len(wrong),
            "false_alarms": len(fa), "detected": len(det),
            "pinpointed": sum(bool(r.get("pinpointed")) for r in w_ran),
            "exceptions": sum(r["exception"] is not None for r in rows),
            "false_alarm_rate": len(fa) / len(c_ran) if c_ran else None,
            "detection_rate": len(det) / len(w_ran) if w_ran else None}


def generated_rates(rows: list[dict]) -> dict:
    """Overall and per style, modifier, task, variant and error kind."""
    out = {"overall": _tally(rows), "style": {}, "modifier": {}, "task": {}, "variant": {},
           "error": {}}
    groups: dict = {k: {} for k in ("style", "modifier", "task", "variant", "error")}
    for r in rows:
        groups["style"].setdefault(r["style"], []).append(r)
        for m in r["modifiers"]:
            groups["modifier"].setdefault(m, []).append(r)
        groups["task"].setdefault(r["task"], []).append(r)
        groups["variant"].setdefault(f"{r['task']}/{r['variant']}", []).append(r)
        if r["error"]:
            groups["error"].setdefault(r["error"], []).append(r)
    for k, g in groups.items():
        out[k] = {name: _tally(rs) for name, rs in sorted(g.items())}
    out["exceptions"] = [(r["id"], r["exception"]) for r in rows if r["exception"]]
    out["figures"] = figure_rates(rows)
    out["one_step"] = _tally([r for r in rows if "two_step" not in r["modifiers"]])
    return out


def _pct(n: int, d: int) -> str:
    return f"{n}/{d} = {n / d:5.1%}" if d else f"{n}/0 =   n/a"


def _line(name: str, t: dict, width: int = 34) -> str:
    c_ran = t["correct"] - 0
    fa = _pct(t["false_alarms"], t["correct"] - t.get("_c_exc", 0))
    det = _pct(t["detected"], t["incorrect"] - t.get("_w_exc", 0))
    exc = f"  exceptions {t['exceptions']}" if t["exceptions"] else ""
    del c_ran
    return f"  {name:<{width}} false alarms {fa:>16}   detection {det:>16}{exc}"


def figures(*, generated: bool = True, sizes=RANDOM_SIZES, generated_path: Path = GENERATED) -> dict:
    rows = run_corpus()
    out = corpus_rates(rows)
    out["scenarios"] = len({r["scenario"] for r in rows})
    out["random"] = {n: random_acceptance(n, ledgers=300 if n <= 6 else 100)
                     for n in sorted(set(sizes) | {3, 6})}
    out["random_sig1"] = {n: random_acceptance(n, sig=1) for n in (3, 6)}
    out["random_pct"] = {n: random_percent_acceptance(n) for n in (3, 6)}
    if generated and Path(generated_path).exists():
        rows = run_generated(load_generated(Path(generated_path)))
        out["generated"] = generated_rates(rows)
        out["generated_rows"] = rows
    return out


def main(argv=None) -> None:
    import argparse
    import time
    ap = argparse.ArgumentParser(prog="python evaluation/audit_rates.py")
    ap.add_argument("--by-style", action="store_true", help="rates per style and modifier")
    ap.add_argument("--by-task", action="store_true", help="rates per task and ledger variant")
    ap.add_argument("--by-error", action="store_true", help="detection per error kind")
    ap.add_argument("--all", action="store_true", help="every breakdown")
    ap.add_argument("--by-figure", action="store_true",
                    help="false-alarm causes: flagged figures per class in correct answers")
    ap.add_argument("--corpus", metavar="PATH", default=str(GENERATED.relative_to(ROOT)),
                    help="the generated corpus to measure (default %(default)s)")
    ap.add_argument("--json", metavar="PATH",
                    help="also write every rate (not the per-answer rows) as JSON")
    ap.add_argument("--examples", type=int, default=0,
                    help="print N misjudged answers per style (false alarms and misses)")
    args = ap.parse_args(argv)
    if args.all:
        args.by_style = args.by_task = args.by_error = args.by_figure = True
    start = time.perf_counter()
    path = Path(args.corpus)
    f = figures(generated_path=path if path.is_absolute() else ROOT / path)
    print(f"hand-written corpus: {f['scenarios']} scenarios, {f['answers']} answers "
          f"({f['correct']} correct, {f['wrong']} wrong)")
    print(f"  false-alarm rate: {len(f['false_alarms'])}/{f['correct']} = "
          f"{f['false_alarm_rate']:.1%}" + (f"  {f['false_alarms']}" if f["false_alarms"] else ""))
    print(f"  detection rate:   {f['wrong'] - len(f['missed'])}/{f['wrong']} = "
          f"{f['detection_rate']:.1%}" + (f"  missed {f['missed']}" if f["missed"] else ""))
    g = f.get("generated")
    if g:
        o = g["overall"]
        print(f"generated corpus ({args.corpus}): {o['correct'] + o['incorrect']} "
              f"answers ({o['correct']} correct, {o['incorrect']} incorrect), "
              f"{len(g['task'])} tasks, {len(g['style'])} styles")
        print(_line("overall", o, 10))
        print(f"  {'':<10} (detection pinpointed on the wrong figure itself: "
              f"{_pct(o['pinpointed'], o['incorrect'] - 0)})")
        one = g.get("one_step")
        if one:
            print(_line("one-step", one, 10) + "   (answers without a two-step derivation)")
        if o["exceptions"]:
            print(f"  audit_answer raised on {o['exceptions']} answers, e.g. {g['exceptions'][0]}")
        sections = [("style", args.by_style), ("modifier", args.by_style),
                    ("task", args.by_task), ("variant", args.by_task)]
        for key, on in sections:
            if on:
                print(f" per {key}:")
                for name, t in g[key].items():
                    print(_line(name, t))
        if args.by_error:
            print(" detection per error kind (aliased: every wrong figure is also a one-step "
                  "combination of recorded outputs):")
            rows_by_error: dict = {}
            for r in f["generated_rows"]:
                if r["error"] and r["exception"] is None:
                    rows_by_error.setdefault(r["error"], []).append(r)
            for name, t in g["error"].items():
                al = [r for r in rows_by_error.get(name, []) if r["aliased"]]
                al_det = sum(not r["audit_ok"] for r in al)
                print(f"  {name:<20} detection {_pct(t['detected'], t['incorrect']):>16}"
                      f"   on the wrong figure {_pct(t['pinpointed'], t['incorrect']):>16}"
                      + (f"   aliased {al_det}/{len(al)} detected" if al else ""))
        if args.by_figure:
            print(" false-alarm causes (correct answers in which a figure of this class was "
                  "flagged / correct answers with one):")
            for name, (n_hit, n) in g["figures"].items():
                print(f"  {name:<52} {_pct(n_hit, n):>16}")
            un: dict = {}
            for r in f["generated_rows"]:
                for t in r.get("unattributed", ()):
                    un[t] = un.get(t, 0) + 1
            if un:
                print(f"  flagged numbers no recorded figure explains: {sorted(un.items())[:10]}")
        if args.examples:
            _examples(f["generated_rows"], args.examples, path if path.is_absolute()
                      else ROOT / path)
    print(f"random acceptance (sourced or derived; log-uniform over {RANGE[0]:g}..{RANGE[1]:g}, "
          f"3 significant figures; units {', '.join(COMMON_UNITS)}):")
    for n, r in f["random"].items():
        print(f"  {n:>2}-output ledger: {r['rate']:.2%} of {r['probes']} probes "
              f"(bare {r['bare']:.2%}, with a unit {r['with_unit']:.2%})")
    print("random acceptance of one-figure numbers stated flat (\"The value is 400.\"; read as "
          "roundings: half the last place, at most 10%):")
    for n, r in f["random_sig1"].items():
        print(f"  {n:>2}-output ledger: {r['rate']:.2%} of {r['probes']} probes "
              f"(bare {r['bare']:.2%}, with a unit {r['with_unit']:.2%})")
    print("random acceptance of percentages (\"The share is 37.4% of the reference level.\"; 2 or 3 "
          "significant figures "
          "over 0.1..100%; ledgers of lengths, half of them elevations):")
    for n, r in f["random_pct"].items():
        print(f"  {n:>2}-output ledger: {r['rate']:.2%} of {r['probes']} probes")
    if args.json:
        out = {k: v for k, v in f.items() if k != "generated_rows"}
        if "generated" in out:
            out["generated"] = {**out["generated"],
                                "figures": {k: list(v) for k, v in out["generated"]["figures"].items()}}
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=1, default=str)
    print(f"({time.perf_counter() - start:.1f} s)")


def _examples(rows: list[dict], n: int, path: Path = GENERATED) -> None:
    corpus = load_generated(path)
    text = {a["id"]: a["text"] for sc in corpus["scenarios"] for a in sc["answers"]}
    seen: dict = {}
    for r in rows:
        if r["exception"] is None and r["audit_ok"] == r["label_ok"]:
            continue
        kind = "exception" if r["exception"] else "false alarm" if r["label_ok"] else "missed"
        key = (r["style"], kind)
        if seen.get(key, 0) >= n:
            continue
        seen[key] = seen.get(key, 0) + 1
        print(f"\n--- {kind}: {r['id']} ({r['style']}; error {r['error']})")
        print("    " + text[r["id"]].replace("\n", "\n    "))
        print(f"    findings: {r['findings'] or r['exception']}")


if __name__ == "__main__":
    main()
