"""The answer audit measured on the third held-out set (``evaluation/answers/audit_holdout3.json``
and the files after it; built once: see evaluation/README.md).

``python evaluation/holdout3_rates.py`` replays every record's tool calls through the bench tools
in a fresh session, audits the answer with ``ledger.audit_answer(answer, context=question)`` and
prints:

- false alarms: correct answers whose audit is not ok; detection: incorrect answers whose audit
  is not ok; detection on the wrong figure itself (a finding not ok whose text holds a wrong
  figure); exceptions (``audit_answer`` must never raise);
- the same per family, style, task, error kind and feature;
- every false alarm with the flagged text and its status (``--quiet`` to leave the list out),
  and every miss with what the audit said about the wrong figure.

``--file PATH`` (repeatable) measures the named files only, ``--all`` every file (with a line
per file); the default is the first two files, as before the fifth batch was added.
``--suite NAME`` / ``--family NAME`` / ``--style NAME`` select records. The first line says which
``quantity_guard`` was measured (a ``PYTHONPATH`` pointing at another worktree wins).
"""
from __future__ import annotations

import argparse
import sys
import traceback
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))

from evaluation.answer_sets import HOLDOUT3, PARTS, audit_holdout3, part, records  # noqa: E402,F401

BAD = ("unsourced", "unit_mislabelled", "tainted")


def load(path=None) -> list[dict]:
    return records(Path(path) if path else HOLDOUT3[0])


def load_all() -> list[dict]:
    """Both files: the first set and the third fresh batch (``h``/``j``), kept in its own file.
    (The fifth batch, ``audit_holdout5.json``, is not included: it is measured with ``--file``
    or ``--all``, so the pinned test of the first two files reads what it always read.)"""
    return load() + load(HOLDOUT3[1])


def files() -> list[Path]:
    """Every file of the set, oldest first."""
    return list(HOLDOUT3)


def judge(record: dict) -> dict:
    try:
        result = audit_holdout3(record)
    except Exception:  # noqa: BLE001 - counted and printed: the audit must never raise
        return {"error": traceback.format_exc(limit=3), "ok": None, "flagged": [],
                "on_figure": False, "statuses": [], "where": {}}
    flagged = [(f.number.text, f.status) for f in result.findings if f.status in BAD]
    where = {f.number.text: getattr(f.number, "start", None) for f in result.findings
             if f.status in BAD}
    statuses = [(f.number.text, f.status) for f in result.findings]
    on_figure = any(any(w in text for w in record["wrong_figures"])
                    for text, _ in flagged) if record["wrong_figures"] else False
    return {"error": None, "ok": bool(result.ok), "flagged": flagged, "on_figure": on_figure,
            "statuses": statuses, "where": where}


def pct(a, b):
    return f"{a}/{b} {100.0 * a / b:5.1f}%" if b else f"{a}/{b}    -"


def table(title, keyfn, rows):
    groups = defaultdict(list)
    for rec, res in rows:
        for key in keyfn(rec):
            groups[key].append((rec, res))
    print(f"\n{title:<22} {'false alarms':>16} {'detection':>16} {'on figure':>16}")
    for key in sorted(groups, key=str):
        items = groups[key]
        cor = [r for rec, r in items if rec["label"] == "correct"]
        inc = [r for rec, r in items if rec["label"] == "incorrect"]
        print(f"{str(key):<22} {pct(sum(not r['ok'] for r in cor), len(cor)):>16} "
              f"{pct(sum(not r['ok'] for r in inc), len(inc)):>16} "
              f"{pct(sum(r['on_figure'] for r in inc), len(inc)):>16}")


def sentence(answer: str, text: str, at: int | None = None) -> str:
    """The sentence (or line) of ``answer`` that holds ``text`` (at ``at`` when the finding
    says where it was read)."""
    import re
    if at is None or answer[at:at + len(text)] != text:
        m = re.search(r"(?<![\w.,^⁰¹²³⁴⁵⁶⁷⁸⁹⁻])" + re.escape(text) + r"(?!\d|[.,]\d)",
                      answer)
        if m is None:
            return text
        at = m.start()
    starts = [answer.rfind(sep, 0, at) for sep in (". ", "\n", "; ")]
    start = max(starts) + 1
    ends = [e for e in (answer.find(sep, at + len(text)) for sep in (". ", "\n")) if e >= 0]
    end = min(ends) + 1 if ends else len(answer)
    return answer[start:end].strip()


FMT_FEATURES = ("decimal_comma", "nbsp", "units_in_words")
FEATURES = [  # what a sentence holds besides the figures (the classes the set was built with)
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



def flag_classes(rec: dict, text: str, at: int | None = None) -> list[str]:
    """The features of the sentence that holds a flagged number (plus the answer's writing
    habits: decimal commas, no-break spaces, units in words)."""
    import re
    snippet = sentence(rec["answer"], text, at)
    out = [name for name, rx in FEATURES if re.search(rx, snippet)]
    out += [f for f in FMT_FEATURES if f in rec["features"]]
    return out or ["(none)"]


def examples(fa, n: int) -> None:
    by_feature = defaultdict(list)
    for rec, res in fa:
        classes = set()
        for text, _ in res["flagged"]:
            classes.update(flag_classes(rec, text, res["where"].get(text)))
        for feat in classes:
            by_feature[feat].append((rec, res))
    print("\n== false alarms per class of the flagged sentence, with examples")
    for feat in sorted(by_feature, key=lambda f: -len(by_feature[f])):
        items = by_feature[feat]
        print(f"\n{feat}: {len(items)}")
        seen = set()
        for rec, res in items:
            hits = [(t, s) for t, s in res["flagged"]
                    if feat in flag_classes(rec, t, res["where"].get(t))]
            text, status = hits[0]
            snippet = sentence(rec["answer"], text, res["where"].get(text))
            if snippet in seen:
                continue
            seen.add(snippet)
            print(f"  {rec['id']}: {text!r} {status} in: {snippet!r}")
            if len(seen) >= n:
                break


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", help="another set in the same format")
    ap.add_argument("--file", action="append", metavar="PATH",
                    help="measure this file only (repeat for several); default: the first two "
                         "files (audit_holdout3.json and audit_holdout4.json)")
    ap.add_argument("--all", action="store_true",
                    help="every file, audit_holdout5.json included, with a line per file")
    ap.add_argument("--suite", action="append")
    ap.add_argument("--family", action="append")
    ap.add_argument("--style", action="append")
    ap.add_argument("--quiet", action="store_true", help="no per-answer listing")
    ap.add_argument("--examples", type=int, default=0, metavar="N",
                    help="per feature, N false alarms with the sentence holding the flag")
    args = ap.parse_args(argv)
    import quantity_guard
    from bench import harness
    print(f"quantity_guard from {Path(quantity_guard.__file__).parent}; "
          f"bench tools from {Path(harness.__file__).parent}")
    if args.all:
        paths = files()
    elif args.file:
        paths = [Path(p) for p in args.file]
    else:
        paths = []
    if paths:
        by_file = [(path, load(path)) for path in paths]
        records = [rec for _, recs in by_file for rec in recs]
    else:
        by_file = []
        records = load(args.data) if args.data else load_all()
    for name in ("suite", "family", "style"):
        wanted = getattr(args, name)
        if wanted:
            records = [r for r in records if r[name] in wanted]
    rows = [(rec, judge(rec)) for rec in records]
    errors = [(rec, res) for rec, res in rows if res["error"]]
    ok_rows = [(rec, res) for rec, res in rows if not res["error"]]
    cor = [(rec, res) for rec, res in ok_rows if rec["label"] == "correct"]
    inc = [(rec, res) for rec, res in ok_rows if rec["label"] == "incorrect"]
    fa = [(rec, res) for rec, res in cor if not res["ok"]]
    missed = [(rec, res) for rec, res in inc if res["ok"]]
    print(f"{len(records)} answers: {len(cor)} correct, {len(inc)} incorrect, "
          f"{len(errors)} exceptions")
    print(f"false alarms (correct answers not ok): {pct(len(fa), len(cor))}")
    print(f"detection (incorrect answers not ok):  {pct(len(inc) - len(missed), len(inc))}")
    print(f"detection on the wrong figure itself:  "
          f"{pct(sum(r['on_figure'] for _, r in inc), len(inc))}")
    if len(by_file) > 1:
        origin = {id(rec): path.name for path, recs in by_file for rec in recs}
        table("file", lambda r: [origin[id(r)]], ok_rows)
    table("part", lambda r: [part(r)], ok_rows)
    table("family", lambda r: [r["family"]], ok_rows)
    table("style", lambda r: [r["style"]], ok_rows)
    table("task", lambda r: [f"{r['suite']}/{r['task']}"], ok_rows)
    table("error", lambda r: [r["error"] or "-"], ok_rows)
    table("scenario", lambda r: [r["scenario"]], ok_rows)
    table("wrong_recorded", lambda r: [r.get("wrong_recorded") or "-"],
          [(rec, res) for rec, res in ok_rows if rec["label"] == "incorrect"])
    table("feature", lambda r: r["features"] or ["(none)"], ok_rows)
    if args.examples:
        examples(fa, args.examples)
    for rec, res in errors:
        print(f"\nEXCEPTION {rec['id']}\n{res['error']}")
    if not args.quiet:
        print(f"\n== false alarms ({len(fa)})")
        for rec, res in fa:
            flags = "; ".join(f"{t!r} {s}" for t, s in res["flagged"])
            print(f"{rec['id']} [{rec['style']}/{rec['scenario']}]: {flags}")
        print(f"\n== misses ({len(missed)})")
        for rec, res in missed:
            said = "; ".join(f"{t!r} {s}" for t, s in res["statuses"]
                             if any(w in t for w in rec["wrong_figures"]))
            print(f"{rec['id']} [{rec['error']}/{rec['style']}/{rec['scenario']}] wrong "
                  f"{rec['wrong_figures']}: {said or 'no finding holds the wrong figure'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
