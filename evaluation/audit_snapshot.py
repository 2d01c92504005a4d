"""Every finding the answer audit makes on every labelled answer set in the repository.

``python evaluation/audit_snapshot.py`` audits each answer of

- ``evaluation/answers/audit_corpus.json`` and ``audit_corpus_generated.json`` (ledgers built
  as ``evaluation/audit_rates.py`` builds them),
- ``evaluation/answers/audit_holdout.json`` and ``audit_holdout3.json`` ... ``audit_holdout6.json``
  (replayed by ``evaluation/answer_sets.py``),

and writes, per answer, whether the audit is ok, every finding (start, end, text, value, unit,
status, code, note) and every skipped digit (text, reason, code) to
``tests/snapshots/audit_findings.json.gz``. ``--check`` compares instead of writing and prints
the first differences (exit status 1 when there are any).

The snapshot pins the audit's behaviour while its code is reorganised: a refactoring must
reproduce it exactly; a change of behaviour rewrites it, and the diff shows what changed.
"""
from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))
SNAPSHOT = ROOT / "tests" / "snapshots" / "audit_findings.json.gz"


def _load(name: str):
    """A script beside this one, loaded by path (a ``PYTHONPATH`` pointing at another worktree
    must not hide it)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def describe(audit) -> dict:
    """One audit as plain data: ok, findings and skipped digits."""
    findings = []
    for f in audit.findings:
        n = f.number
        findings.append([n.start, n.end, n.text, n.value,
                         n.unit.symbol if n.unit is not None else None, f.status, _code(f),
                         f.note])
    out = {"ok": audit.ok, "findings": findings,
           "skipped": [[t, str(r), _code(r)] for t, r in audit.skipped]}
    if audit.abandoned:
        out["abandoned"] = [[a.tool, a.call, a.violation["code"]] for a in audit.abandoned]
    return out


def _code(x):
    code = getattr(x, "code", None)
    return None if code is None else code.name


def _guarded(run) -> dict:
    try:
        return describe(run())
    except Exception as err:  # noqa: BLE001 - an audit that raises is part of its behaviour
        return {"error": f"{type(err).__name__}: {err}"}


def _corpus(out: dict) -> None:
    from quantity_guard import datums
    rates = _load("audit_rates")
    for sc in rates.load_corpus()["scenarios"]:
        with datums.isolated():
            rates.register_stations(sc)
            ledger = rates.build_ledger(sc)
            for ans in sc["answers"]:
                out[f"corpus/{ans['id']}"] = _guarded(
                    lambda: ledger.audit_answer(ans["text"], context=sc["question"]))


def _generated(out: dict) -> None:
    from evaluation.answer_sets import scenario_ledger
    from quantity_guard import datums
    rates = _load("audit_rates")
    for sc in rates.load_generated()["scenarios"]:
        with datums.isolated():
            ledger = scenario_ledger(sc)
            for ans in sc["answers"]:
                out[f"generated/{ans['id']}"] = _guarded(
                    lambda: ledger.audit_answer(ans["text"], context=sc["question"]))


def _holdout(out: dict) -> None:
    from evaluation.answer_sets import HOLDOUT, holdout_ledger, read
    from quantity_guard import datums
    for rec in read(HOLDOUT)["answers"]:
        with datums.isolated():
            ledger, question, _ = holdout_ledger(rec)
            out[f"holdout/{rec['id']}"] = _guarded(
                lambda: ledger.audit_answer(rec["answer"], context=question))


def _holdout3(out: dict) -> None:
    from evaluation.answer_sets import HOLDOUT3, audit_holdout3, records
    from quantity_guard import datums
    for path in HOLDOUT3:
        for rec in records(path):
            with datums.isolated():
                out[f"{path.stem}/{rec['id']}"] = _guarded(lambda: audit_holdout3(rec))


def snapshot() -> dict:
    """{answer id: its audit as plain data}, every set, in a fixed order."""
    out: dict = {}
    for part in (_corpus, _generated, _holdout, _holdout3):
        part(out)
    return out


def _encode(data: dict) -> bytes:
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, indent=0)
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)


def read(path: Path = SNAPSHOT) -> dict:
    return json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))


def differences(old: dict, new: dict, most: int = 20) -> list[str]:
    """The first ``most`` answers whose audit differs, each with what differs."""
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if a is None or b is None:
            out.append(f"{key}: {'new' if a is None else 'gone'}")
        else:
            for field in ("ok", "error", "findings", "skipped", "abandoned"):
                if a.get(field) != b.get(field):
                    xa, xb = a.get(field), b.get(field)
                    if isinstance(xa, list) and isinstance(xb, list):
                        gone = [x for x in xa if x not in xb]
                        added = [x for x in xb if x not in xa]
                        out.append(f"{key} {field}: -{gone[:3]} +{added[:3]}")
                    else:
                        out.append(f"{key} {field}: {xa!r} -> {xb!r}")
        if len(out) >= most:
            break
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the stored snapshot instead of writing it")
    parser.add_argument("--path", type=Path, default=SNAPSHOT)
    args = parser.parse_args(argv)
    new = snapshot()
    if args.check:
        diff = differences(read(args.path), new)
        for line in diff:
            print(line)
        print(f"{len(new)} answers, {'differences' if diff else 'identical'}")
        return 1 if diff else 0
    args.path.parent.mkdir(parents=True, exist_ok=True)
    args.path.write_bytes(_encode(new))
    print(f"{len(new)} answers written to {args.path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
