"""The answer audit measured on the third held-out set (``tests/data/audit_holdout3.json``).

``python bench/holdout3_rates.py`` replays every record's tool calls through the bench tools in a
fresh session, audits the answer with ``ledger.audit_answer(answer, context=question)`` and
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
import json
import sys
import traceback
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))

def _load_builder():
    """``bench/holdout3.py`` beside this script, loaded by path: a ``PYTHONPATH`` pointing at
    another worktree (to measure its ``quantity_guard``) must not hide it."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("holdout3", HERE / "holdout3.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["holdout3"] = module
    spec.loader.exec_module(module)
    return module


holdout3 = _load_builder()

BAD = ("unsourced", "unit_mislabelled", "tainted")
PARTS = {"c": "targeted", "f": "fresh", "g": "fresh2", "m": "fresh2_mix", "h": "fresh3",
         "j": "fresh3_mix", "s": "fresh5_style", "k": "fresh5_class"}


def part(record: dict) -> str:
    """Which part of the set built a record, from its id (``.../01`` mix, ``.../c001``
    targeted classes, ``f`` and ``g`` the fresh batches, ``m`` the mix in new wording)."""
    return PARTS.get(record["id"].rsplit("/", 1)[1][0], "mix")


def load(path=None) -> list[dict]:
    doc = json.loads(Path(path or holdout3.DATA).read_text(encoding="utf-8"))
    return doc["records"]


def load_all() -> list[dict]:
    """Both files: the first set and the third fresh batch (``h``/``j``), kept in its own file.
    (The fifth batch, ``audit_holdout5.json``, is not included: it is measured with ``--file``
    or ``--all``, so the pinned test of the first two files reads what it always read.)"""
    return load() + (load(holdout3.DATA4) if holdout3.DATA4.exists() else [])


def files() -> list[Path]:
    """Every file of the set, oldest first."""
    return [p for p in (holdout3.DATA, holdout3.DATA4, holdout3.DATA5) if p.exists()]


def judge(record: dict) -> dict:
    try:
        result = holdout3.audit(record)
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


def flag_classes(rec: dict, text: str, at: int | None = None) -> list[str]:
    """The features of the sentence that holds a flagged number (plus the answer's writing
    habits: decimal commas, no-break spaces, units in words)."""
    import re
    snippet = sentence(rec["answer"], text, at)
    out = [name for name, rx in holdout3.FEATURES if re.search(rx, snippet)]
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
