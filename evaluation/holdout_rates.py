"""Audit the held-out answer set (``evaluation/answers/audit_holdout.json``, built once: see
evaluation/README.md) with whichever ``quantity_guard`` is first on the path, and print:

- false alarms: correct answers whose ``audit.ok`` is False;
- detection: incorrect answers whose ``audit.ok`` is False;
- detection on the wrong figure itself: a finding for the wrong figure (same number as written)
  is ``unsourced`` or ``unit_mislabelled``;
- exceptions raised by ``audit_answer``;

overall, per model family, per task and per error kind, then every false alarm with the numbers
it flagged. Measure another worktree's audit with
``PYTHONPATH=/work/wt/<branch> python evaluation/holdout_rates.py`` (the data path is taken relative
to this file, not to the package).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import traceback
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.append(str(HERE.parent))  # last: a PYTHONPATH pointing at another package wins

from evaluation.answer_sets import HOLDOUT as DATA, holdout_ledger  # noqa: E402

BAD = ("unsourced", "unit_mislabelled", "tainted")
_NUM = re.compile(r"[-−]?\d+(?:\.\d+)?")


def _plain(text: str) -> str:
    t = text.replace("{,}", "").replace(r"\,", " ").replace("\u2009", "").replace("\u202f", "")
    t = re.sub(r"\\text\{([^}]*)\}", r"\1", t).replace("^3", "³").replace(r"\%", "%")
    return re.sub(r"(?<=\d)[, ](?=\d{3}\b)", "", t)


def number_of(text: str):
    """The first number written in ``text`` (grouping, LaTeX and the Unicode minus removed)."""
    m = _NUM.search(_plain(text))
    return float(m.group().replace("−", "-")) if m else None


def run(path: Path, show: int, suites=None):
    """Audit every answer of ``path`` (only those of ``suites`` when given) and print the rates."""
    import quantity_guard
    doc = json.loads(path.read_text(encoding="utf-8"))
    rows = []
    for rec in doc["answers"]:
        if suites and rec["suite"] not in suites:
            continue
        ledger, question, _ = holdout_ledger(rec)
        row = {"rec": rec, "exc": None, "ok": None, "flags": [], "on_figure": False}
        try:
            audit = ledger.audit_answer(rec["answer"], context=question)
            row["ok"] = bool(audit.ok)
            row["flags"] = [(f.number.text, f.status) for f in audit.findings if f.status in BAD]
            wanted = {number_of(w) for w in rec["wrong_figures"]} - {None}
            wanted |= {-w for w in wanted}
            row["on_figure"] = any(number_of(t) in wanted for t, _ in row["flags"])
            row["figure_status"] = sorted({f.status for f in audit.findings
                                           if number_of(f.number.text) in wanted})
        except Exception as err:  # noqa: BLE001 - counted and shown
            row["exc"] = f"{type(err).__name__}: {err}"
            row["tb"] = traceback.format_exc(limit=3)
        rows.append(row)
    print(f"quantity_guard from {Path(quantity_guard.__file__).parent} "
          f"(version {quantity_guard.__version__})")
    print(f"data {path} ({len(rows)} answers"
          + (f", suites {', '.join(suites)})" if suites else ")") + "\n")

    def table(key, title):
        groups = defaultdict(list)
        for r in rows:
            groups[key(r["rec"])].append(r)
        print(f"{title:<28} {'false alarms':>16} {'detection':>16} {'on the figure':>16} {'exc':>4}")
        for name in sorted(groups, key=str):
            _line(str(name), groups[name])
        print()

    def _line(name, rs):
        good = [r for r in rs if r["rec"]["label"] == "correct" and not r["exc"]]
        bad = [r for r in rs if r["rec"]["label"] == "incorrect" and not r["exc"]]
        fa = sum(1 for r in good if not r["ok"])
        det = sum(1 for r in bad if not r["ok"])
        fig = sum(1 for r in bad if r["on_figure"])
        exc = sum(1 for r in rs if r["exc"])
        pct = lambda a, b: f"{a}/{b} {100 * a / b:5.1f}%" if b else "-"  # noqa: E731
        print(f"{name:<28} {pct(fa, len(good)):>16} {pct(det, len(bad)):>16} "
              f"{pct(fig, len(bad)):>16} {exc:>4}")

    print(f"{'':<28} {'false alarms':>16} {'detection':>16} {'on the figure':>16} {'exc':>4}")
    _line("OVERALL", rows)
    print()
    table(lambda r: r["family"], "family")
    table(lambda r: f"{r['suite']}/{r['task']}", "task")
    table(lambda r: r["error"] or "(correct)", "error kind")
    table(lambda r: f"{r['error']}, {r.get('wrong_recorded') or 'not recorded'}" if r["error"]
          else "(correct)", "error, wrong figure is a...")

    excs = [r for r in rows if r["exc"]]
    if excs:
        print(f"EXCEPTIONS ({len(excs)}):")
        for r in excs[:show]:
            print(f"  {r['rec']['id']}: {r['exc']}")
        print()
    fas = [r for r in rows if r["rec"]["label"] == "correct" and r["ok"] is False]
    print(f"FALSE ALARMS ({len(fas)}): id [scenario] -> flagged numbers")
    for r in fas[:show]:
        print(f"  {r['rec']['id']} [{r['rec']['scenario']}] -> {r['flags']}")
    missed = [r for r in rows if r["rec"]["label"] == "incorrect" and r["ok"]]
    print(f"\nMISSED ({len(missed)}): id [error] wrong figures (recorded by a tool as ...) "
          f"-> the audit's statuses for that number")
    for r in missed[:show]:
        rec = r["rec"]
        print(f"  {rec['id']} [{rec['error']}] {rec['wrong_figures']} "
              f"({rec.get('wrong_recorded') or 'not recorded'}) -> {r.get('figure_status')}")
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the answer set (default: %(default)s)")
    ap.add_argument("--show", type=int, default=1000, help="list at most this many per section")
    ap.add_argument("--suite", action="append", default=None,
                    help="only this suite's answers (repeatable), e.g. --suite grid --suite opacity")
    args = ap.parse_args(argv)
    run(args.data, args.show, args.suite)
    return 0


if __name__ == "__main__":
    sys.exit(main())
