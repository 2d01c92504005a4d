"""``python -m bench report results/*.jsonl``: the bench report's tables, from our own records,
with Wilson 95% intervals and usable/excluded counts.

Tables:

- **Unit carry-over** (per suite with carry-over hazards): runs in which the source's magnitude
  reached the tool unconverted, over runs in which the model sent a value to that parameter at
  all (reached the computing tool), per model and condition; and how many runs sent such a
  value under enforcement, where the guard refused it.
- **Vertical datum** (per datum task): silent errors over usable runs, per model and condition.
- **Fabricated inputs** (per fabrication task): runs in which the model sent a value that no
  tool had returned, over usable runs; and, under ``guarded_repair``, how many of those runs
  then reported the value unavailable.
- **Unit pairs**: baseline carry-over per published unit, across every suite.
- **Outcomes**: every outcome per model, suite and condition, success with its interval, the
  runs whose final answer the audit flagged, tool calls per run, tokens and cost.
- **Excluded runs**: provider failures by reason. They are never outcomes; every table says how
  many runs in its scope were usable and how many excluded.

Records from scripted agents are labelled ``[scripted]``: they exercise the harness and are
not results.
"""
from __future__ import annotations

import csv
import io
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from . import CONDITIONS, OUTCOMES

Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for k successes in n trials (0..1); (0, 1) when n is 0."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Cell:
    k: int
    n: int

    @property
    def rate(self) -> float | None:
        return self.k / self.n if self.n else None

    def interval(self) -> tuple[float, float]:
        return wilson(self.k, self.n)

    def text(self) -> str:
        if not self.n:
            return "–"
        lo, hi = self.interval()
        return f"{self.k}/{self.n} ({lo * 100:.0f}–{hi * 100:.0f}%)"


@dataclass
class Table:
    key: str
    title: str
    dims: list[str]
    columns: list[str]
    rows: list = field(default_factory=list)  # [(dims tuple, {column: Cell | number | str})]
    note: str = ""


def _label(model: str, scripted: bool) -> str:
    return f"{model} [scripted]" if scripted else model


def _ordered(conditions) -> list[str]:
    present = set(conditions)
    return [c for c in CONDITIONS if c in present] + sorted(present - set(CONDITIONS))


RUNS_COL = "usable / excluded"


class _Runs:
    """The records of one report, split once, and the helpers every table uses."""

    def __init__(self, records: list[dict]) -> None:
        self.records = records
        self.usable = [r for r in records if r.get("status") == "ok"]
        self.excluded = [r for r in records if r.get("status") != "ok"]
        self.scripted = {r["model"] for r in records if r.get("scripted")}
        self.models = sorted({r["model"] for r in records})
        self.label = {m: _label(m, m in self.scripted) for m in self.models}

    def runs_in(self, m, scope) -> str | None:
        """``usable / excluded`` runs of model ``m`` within a table's scope, or None if none."""
        u = sum(1 for r in self.usable if r["model"] == m and scope(r))
        e = sum(1 for r in self.excluded if r["model"] == m and scope(r))
        return f"{u} / {e}" if u or e else None

    def tasks_with(self, kind: str) -> list[tuple[str, str]]:
        """(suite, task) pairs of usable runs that carry a hazard of this kind."""
        return sorted({(r["suite"], r["task"]) for r in self.usable
                       if any(h["kind"] == kind for h in r["hazards"])})

    def of_task(self, suite: str, task: str) -> list[dict]:
        return [r for r in self.usable if r["suite"] == suite and r["task"] == task]


def _in_task(suite: str, task: str):
    return lambda r: (r["suite"], r["task"]) == (suite, task)


def _carry_over_tables(runs: _Runs) -> list[Table]:
    """Unit carry-over, one table per suite with carry-over hazards."""
    tables = []
    by_suite = defaultdict(list)
    for r in runs.usable:
        by_suite[r["suite"]].append(r)
    refused = "sent and refused under enforcement"

    def has(r, flag):
        return any(h["kind"] == "carry_over" and h[flag] for h in r["hazards"])
    for suite in sorted(by_suite):
        rs = [r for r in by_suite[suite] if any(h["kind"] == "carry_over" for h in r["hazards"])]
        if not rs:
            continue
        conds = _ordered({r["condition"] for r in rs})
        enforced_present = any(c in ("guarded", "guarded_repair") for c in conds)
        scope_tasks = {r["task"] for r in rs}

        def in_scope(r, suite=suite, scope_tasks=scope_tasks):
            return r["suite"] == suite and r["task"] in scope_tasks
        t = Table(f"carry_over:{suite}", f"Unit carry-over ({suite})", ["model"],
                  conds + ([refused] if enforced_present else []) + [RUNS_COL],
                  note="Runs in which a value published in one unit reached a parameter "
                       "declared in another without conversion, over runs that sent a value to "
                       "that parameter (reached the computing tool). Counted on what reached the "
                       "tool, not on the final answer. 'sent and refused under enforcement' "
                       "counts the runs under guarded and guarded_repair that sent an "
                       "unconverted value, which the guard refused.")
        for m in runs.models:
            mine = [r for r in rs if r["model"] == m]
            counted = runs.runs_in(m, in_scope)
            if counted is None:
                continue
            row = {RUNS_COL: counted}
            for c in conds:
                attempted = [r for r in mine if r["condition"] == c and has(r, "attempted")]
                row[c] = Cell(sum(1 for r in attempted if has(r, "reached")), len(attempted))
            if enforced_present:
                enforced = [r for r in mine if r["condition"] in ("guarded", "guarded_repair")
                            and has(r, "attempted")]
                row[refused] = Cell(sum(1 for r in enforced if has(r, "fired")), len(enforced))
            t.rows.append(((runs.label[m],), row))
        tables.append(t)
    return tables


def _datum_tables(runs: _Runs) -> list[Table]:
    """Vertical datum: silent errors, one table per datum task."""
    tables = []
    for (suite, task) in runs.tasks_with("datum"):
        rs = runs.of_task(suite, task)
        conds = _ordered({r["condition"] for r in rs})
        t = Table(f"datum:{suite}/{task}", f"Vertical datum ({suite}/{task})", ["model"],
                  conds + [RUNS_COL],
                  note="Silent errors over usable runs: the answer matched the value obtained "
                       "by ignoring the datum, or a value on the wrong datum reached the tool "
                       "and the answer was not the truth.")
        for m in runs.models:
            row = {c: Cell(sum(1 for r in rs if r["model"] == m and r["condition"] == c
                               and r["outcome"] == "silent_error"),
                           sum(1 for r in rs if r["model"] == m and r["condition"] == c))
                   for c in conds}
            row[RUNS_COL] = runs.runs_in(m, _in_task(suite, task))
            if row[RUNS_COL] is not None:
                t.rows.append(((runs.label[m],), row))
        tables.append(t)
    return tables


def _fabricated_tables(runs: _Runs) -> list[Table]:
    """Fabricated inputs, one table per fabrication task."""
    tables = []
    repaired_col = "then reported unavailable (guarded_repair)"

    def fired(r):
        return any(h["kind"] == "fabricated" and h["fired"] for h in r["hazards"])
    for (suite, task) in runs.tasks_with("fabricated"):
        rs = runs.of_task(suite, task)
        conds = _ordered({r["condition"] for r in rs})
        t = Table(f"fabricated:{suite}/{task}", f"Fabricated inputs ({suite}/{task})", ["model"],
                  conds + ["all conditions", repaired_col, RUNS_COL],
                  note="Runs in which the model sent a value no tool had returned, over usable "
                       "runs; and of the guarded_repair runs in which it did, how many then "
                       "reported the value unavailable.")
        for m in runs.models:
            mine = [r for r in rs if r["model"] == m]
            counted = runs.runs_in(m, _in_task(suite, task))
            if counted is None:
                continue
            row = {c: Cell(sum(1 for r in mine if r["condition"] == c and fired(r)),
                           sum(1 for r in mine if r["condition"] == c)) for c in conds}
            row["all conditions"] = Cell(sum(1 for r in mine if fired(r)), len(mine))
            repaired = [r for r in mine if r["condition"] == "guarded_repair" and fired(r)]
            row[repaired_col] = Cell(sum(1 for r in repaired if r["outcome"] == "unavailable"),
                                     len(repaired))
            row[RUNS_COL] = counted
            t.rows.append(((runs.label[m],), row))
        tables.append(t)
    return tables


def _unit_pairs_tables(runs: _Runs) -> list[Table]:
    """Which published units were carried over unconverted at baseline (one table or none)."""
    pairs = sorted({h["pair"] for r in runs.usable for h in r["hazards"]
                    if h["kind"] == "carry_over" and h.get("pair")})
    if not pairs:
        return []
    pair_tasks = {(r["suite"], r["task"]) for r in runs.usable
                  if any(h["kind"] == "carry_over" for h in r["hazards"])}
    t = Table("unit_pairs", "Which unit pairs (baseline)", ["model"], pairs + [RUNS_COL],
              note="Baseline runs that passed the published magnitude unconverted, over "
                   "runs that sent a value to the parameter, per published unit.")
    base = [r for r in runs.usable if r["condition"] == "baseline"]
    for m in runs.models:
        row = {}
        for pair in pairs:
            hs = [h for r in base if r["model"] == m for h in r["hazards"]
                  if h["kind"] == "carry_over" and h.get("pair") == pair and h["attempted"]]
            row[pair] = Cell(sum(1 for h in hs if h["fired"]), len(hs))
        row[RUNS_COL] = runs.runs_in(m, lambda r: r["condition"] == "baseline"
                                     and (r["suite"], r["task"]) in pair_tasks)
        if row[RUNS_COL] is not None:
            t.rows.append(((runs.label[m],), row))
    return [t]


def _outcome_row(rs: list[dict]) -> dict:
    """One row of the outcomes table: the records of one model, suite and condition."""
    ok = [r for r in rs if r.get("status") == "ok"]
    counts = Counter(r["outcome"] for r in ok)
    row: dict = {"runs": len(ok)}
    for o in OUTCOMES:
        row[o] = counts.get(o, 0)
    row["success"] = Cell(sum(1 for r in ok if r.get("success")), len(ok))
    row["audit flagged"] = Cell(sum(1 for r in ok if r.get("audit") and not r["audit"]["ok"]),
                                sum(1 for r in ok if r.get("audit")))
    row["tool calls/run"] = round(sum(r.get("tool_calls", 0) for r in ok) / len(ok), 2) \
        if ok else None
    row["excluded"] = len(rs) - len(ok)
    usage = [r.get("usage") or {} for r in rs]
    row["tokens in"] = sum(u.get("input_tokens", 0) for u in usage)
    row["tokens out"] = sum(u.get("output_tokens", 0) for u in usage)
    costs = [u.get("cost_usd") for u in usage if u.get("cost_usd") is not None]
    row["cost USD"] = round(sum(costs), 4) if costs else None
    return row


def _outcomes_tables(runs: _Runs) -> list[Table]:
    """Every outcome per model, suite and condition (always one table)."""
    t = Table("outcomes", "Outcomes", ["model", "suite", "condition"],
              ["runs", *OUTCOMES, "success", "audit flagged", "tool calls/run",
               "excluded", "tokens in", "tokens out", "cost USD"],
              note="success is 'correct', or 'unavailable' where the value cannot be obtained. "
                   "'audit flagged' counts final answers with an unsourced or mislabelled "
                   "number. Excluded runs (provider failures) are not outcomes.")
    groups = defaultdict(list)
    for r in runs.records:
        groups[(r["model"], r["suite"], r["condition"])].append(r)
    for (m, suite, c) in sorted(groups, key=lambda k: (
            k[0], k[1], CONDITIONS.index(k[2]) if k[2] in CONDITIONS else len(CONDITIONS))):
        t.rows.append(((runs.label[m], suite, c), _outcome_row(groups[(m, suite, c)])))
    return [t]


def _excluded_tables(runs: _Runs) -> list[Table]:
    """Provider failures by reason (one table, or none when nothing was excluded)."""
    if not runs.excluded:
        return []
    t = Table("excluded", "Excluded runs (provider failures, not outcomes)",
              ["model", "reason"], ["runs"])
    reasons = Counter((r["model"], _reason(r.get("excluded_reason"))) for r in runs.excluded)
    for (m, reason), n in sorted(reasons.items()):
        t.rows.append(((runs.label[m], reason), {"runs": n}))
    return [t]


TABLES = (_carry_over_tables, _datum_tables, _fabricated_tables, _unit_pairs_tables,
          _outcomes_tables, _excluded_tables)  # in the order the report prints them


def build(records: list[dict]) -> dict:
    runs = _Runs(records)
    tables = [t for make in TABLES for t in make(runs)]
    return {"records": len(records), "usable": len(runs.usable), "excluded": len(runs.excluded),
            "models": runs.models, "scripted": sorted(runs.scripted), "tables": tables,
            "suites": sorted({(r["suite"], r.get("suite_digest")) for r in records}),
            "library_versions": sorted({r.get("library_version") or "?" for r in records})}


def _reason(reason) -> str:
    text = str(reason or "unknown")
    return text if len(text) <= 90 else text[:87] + "..."


def _cell_text(value) -> str:
    if isinstance(value, Cell):
        return value.text()
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def markdown(report: dict) -> str:
    title = "# quantity-guard bench report"
    if report["scripted"] and len(report["scripted"]) == len(report["models"]):
        title += " (scripted agents only: not results)"
    lines = [title, "",
             f"{report['records']} runs: {report['usable']} usable, {report['excluded']} "
             f"excluded. Library {', '.join(report['library_versions'])}; suites "
             f"{', '.join(f'{s} ({d})' for s, d in report['suites'])}.", ""]
    if report["scripted"]:
        lines += [f"**Scripted agents ({', '.join(report['scripted'])}) exercise the harness "
                  f"deterministically. Their rows are not results.**", ""]
    lines.append("Intervals are Wilson 95%.")
    last_note = None
    for t in report["tables"]:
        lines += ["", f"## {t.title}", ""]
        if t.note and t.note != last_note:  # said once for a run of tables of one kind
            lines += [t.note, ""]
        last_note = t.note
        if not t.rows:
            lines.append("(no runs)")
            continue
        header = t.dims + t.columns
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        for dims, row in t.rows:
            cells = list(dims) + [_cell_text(row.get(c)) for c in t.columns]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


CSV_FIELDS = ["table", "model", "scripted", "suite", "task", "condition", "reason", "column",
              "k", "n", "rate", "ci_low", "ci_high", "value"]


def csv_text(report: dict) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_FIELDS, lineterminator="\n")
    w.writeheader()
    scripted = set(report["scripted"])
    for t in report["tables"]:
        kind, _, where = t.key.partition(":")
        suite, _, task = where.partition("/")
        for dims, row in t.rows:
            base = {"table": kind, "suite": suite or None, "task": task or None}
            for name, value in zip(t.dims, dims):
                if name == "model":
                    model = value.removesuffix(" [scripted]")
                    base["model"] = model
                    base["scripted"] = str(model in scripted).lower()
                else:
                    base[name] = value
            for col in t.columns:
                value = row.get(col)
                out = {**base, "column": col}
                if isinstance(value, Cell):
                    lo, hi = value.interval()
                    out.update(k=value.k, n=value.n,
                               rate="" if value.rate is None else f"{value.rate:.4f}",
                               ci_low=f"{lo:.4f}" if value.n else "",
                               ci_high=f"{hi:.4f}" if value.n else "")
                else:
                    out["value"] = "" if value is None else value
                w.writerow(out)
    return buf.getvalue()


def render(records: list[dict], fmt: str = "markdown") -> str:
    report = build(records)
    if fmt == "markdown":
        return markdown(report)
    if fmt == "csv":
        return csv_text(report)
    raise ValueError(f"unknown format {fmt!r}: use markdown or csv")
