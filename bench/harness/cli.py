"""The command line.

    python -m bench --suite core --model anthropic/claude-opus-5 --replicates 8
    python -m bench --suite core,uk --model qwen/qwen3-235b-a22b --condition baseline
    python -m bench --suite core --model llama3.3 --base-url http://localhost:11434/v1
    python -m bench --suite core --model scripted:naive --replicates 1     (offline)
    python -m bench report results/*.jsonl [--format markdown|csv]
    python -m bench --replay results/core__scripted_naive.jsonl
    python -m bench suites                                                  (what there is)
"""
from __future__ import annotations

import argparse
import os
import sys
from collections import Counter, defaultdict

from . import CONDITIONS, report as report_mod, results
from . import suites as suites_mod
from .episode import MAX_TURNS
from .providers import PERSONAS, FatalProviderError, HTTPClient, Pricing, is_scripted, resolve
from .runner import UsageError, execute, plan

COMMANDS = ("run", "report", "replay", "suites")


def _split(values, default=None) -> list[str]:
    out: list[str] = []
    for v in values or []:
        out += [x.strip() for x in v.split(",") if x.strip()]
    return out or list(default or [])


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-." else "_" for c in text)


def run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bench",
        description="Evaluate language models at the tool boundary under four conditions "
                    "(baseline, schema_only, guarded, guarded_repair). Other commands: "
                    "'report FILES', 'suites', or --replay FILE.",
        epilog=f"Scripted agents (offline, not results): "
               f"{', '.join('scripted:' + p for p in PERSONAS)}.")
    p.add_argument("--suite", action="append", metavar="NAME",
                   help=f"suite(s), comma-separated or repeated (default core; "
                        f"available: {', '.join(suites_mod.available())}, or 'all')")
    p.add_argument("--model", action="append", metavar="MODEL",
                   help="model(s): provider/model (OpenRouter, or the Anthropic API for "
                        "anthropic/...), a model served at --base-url, or scripted:<persona>")
    p.add_argument("--condition", action="append", metavar="NAME",
                   help=f"condition(s) (default all: {', '.join(CONDITIONS)})")
    p.add_argument("--task", action="append", metavar="ID", help="only these task ids")
    p.add_argument("--replicates", type=int, default=8, help="runs per cell (default 8)")
    p.add_argument("--concurrency", type=int, default=4, help="runs in flight (default 4)")
    p.add_argument("--out", metavar="PATH", help="JSONL to append to (default "
                                                  "results/<suites>__<model>.jsonl)")
    p.add_argument("--resume", action="store_true",
                   help="continue --out, skipping runs it already records")
    p.add_argument("--retry-excluded", action="store_true",
                   help="with --resume, run again the runs excluded for provider failures")
    p.add_argument("--base-url", metavar="URL",
                   help="an OpenAI-compatible server (vLLM, llama.cpp, Ollama, OpenRouter, ...)")
    p.add_argument("--api-key-env", metavar="VAR",
                   help="environment variable holding the key (default by provider: "
                        "OPENAI_API_KEY with --base-url, ANTHROPIC_API_KEY, OPENROUTER_API_KEY)")
    p.add_argument("--max-turns", type=int, default=MAX_TURNS, help="assistant turns per run")
    p.add_argument("--max-tokens", type=int, default=None, help="max output tokens per turn")
    p.add_argument("--temperature", type=float, default=None,
                   help="sampling temperature (default: the provider's)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per request")
    p.add_argument("--retries", type=int, default=6,
                   help="attempts per request on 429/5xx/network errors (default 6)")
    p.add_argument("--price-in", type=float, default=None,
                   help="USD per million input tokens, when the provider reports no cost")
    p.add_argument("--price-out", type=float, default=None,
                   help="USD per million output tokens, when the provider reports no cost")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--replay", metavar="FILE",
                   help="re-grade the transcripts in FILE under the current library")
    return p


def report_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench report",
                                description="The bench report's tables from result files.")
    p.add_argument("files", nargs="+", help="JSONL result files")
    p.add_argument("--format", choices=("markdown", "csv"), default="markdown")
    p.add_argument("--out", metavar="PATH", help="write here instead of stdout")
    return p


def replay_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench replay",
                                description="Re-grade recorded transcripts under the current "
                                            "library.")
    p.add_argument("file")
    p.add_argument("--out", metavar="PATH", help="default: FILE with .replay.jsonl")
    p.add_argument("--quiet", action="store_true")
    return p


def main(argv=None, *, stdout=None, stderr=None, http: HTTPClient | None = None,
         environ=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    command = argv[0] if argv and argv[0] in COMMANDS else "run"
    if argv and argv[0] in COMMANDS:
        argv = argv[1:]
    try:
        if command == "report":
            return cmd_report(report_parser().parse_args(argv), stdout, stderr)
        if command == "suites":
            return cmd_suites(stdout)
        if command == "replay":
            args = replay_parser().parse_args(argv)
            return cmd_replay(args.file, args.out, stdout, stderr, quiet=args.quiet)
        args = run_parser().parse_args(argv)
        if args.replay:
            return cmd_replay(args.replay, args.out, stdout, stderr, quiet=args.quiet)
        return cmd_run(args, stdout, stderr, http=http, environ=environ)
    except (UsageError, suites_mod.SuiteError) as err:
        stderr.write(f"error: {err}\n")
        return 2
    except FatalProviderError as err:
        stderr.write(f"error: {err.reason}\nstopped; runs already finished are in the output "
                     f"file (continue with --resume)\n")
        return 3
    except KeyboardInterrupt:
        stderr.write("\ninterrupted; finished runs are in the output file (continue with "
                     "--resume)\n")
        return 130


def cmd_run(args, stdout, stderr, *, http=None, environ=None) -> int:
    models = _split(args.model)
    if not models:
        raise UsageError("--model is required (e.g. --model scripted:naive for an offline run)")
    names = _split(args.suite, ["core"])
    if "all" in names:
        names = suites_mod.available()
    suites = [suites_mod.load(n) for n in names]
    conditions = _split(args.condition, CONDITIONS)
    unknown = [c for c in conditions if c not in CONDITIONS]
    if unknown:
        raise UsageError(f"unknown condition(s) {unknown}; the conditions are {list(CONDITIONS)}")
    if args.replicates < 1:
        raise UsageError("--replicates must be at least 1")
    runs = plan(suites, _split(args.task) or None, conditions, models, args.replicates)
    client = http or HTTPClient(max_attempts=max(1, args.retries), timeout=args.timeout)
    pricing = Pricing(args.price_in, args.price_out)
    providers = {m: resolve(m, base_url=args.base_url, api_key_env=args.api_key_env,
                            http=client, max_tokens=args.max_tokens,
                            temperature=args.temperature, pricing=pricing, environ=environ)
                 for m in models}
    out = args.out or os.path.join(
        "results", f"{'+'.join(names)}__{_slug(models[0]) if len(models) == 1 else 'models'}.jsonl")
    scripted = [m for m in models if is_scripted(m)]
    if scripted:
        one = len(scripted) == 1
        stderr.write(f"note: {', '.join(scripted)} {'is a scripted agent' if one else 'are scripted agents'}"
                     f" (deterministic emulation{'' if one else 's'} that exercise{'s' if one else ''}"
                     f" the harness); {'its' if one else 'their'} records are marked scripted and "
                     f"are not results\n")
    summary = execute(runs, providers, out, resume=args.resume,
                      retry_excluded=args.retry_excluded, concurrency=args.concurrency,
                      max_turns=args.max_turns, progress=not args.quiet, stream=stderr)
    records = [r for r in results.read(out) if r["run_id"] in {s.run_id for s in runs}]
    stdout.write(outcome_summary(records))
    cost = f", ${summary['cost_usd']:.4f}" if summary["cost_usd"] else ""
    stderr.write(f"{summary['ran']} runs this time ({summary['ok']} usable, "
                 f"{summary['excluded']} excluded{cost}), {summary['skipped']} already "
                 f"recorded; results in {out}\nreport: python -m bench report {out}\n")
    return 0


def outcome_summary(records: list[dict]) -> str:
    """Outcome counts per task and condition, for the end of a run."""
    cells: dict = defaultdict(Counter)
    models = sorted({r["model"] + (" [scripted]" if r.get("scripted") else "")
                     for r in records})
    conds = [c for c in CONDITIONS if any(r["condition"] == c for r in records)]
    tasks = sorted({(r["suite"], r["task"]) for r in records}, key=_task_order)
    for r in records:
        key = r["outcome"] if r.get("status") == "ok" else "excluded"
        cells[(r["suite"], r["task"], r["condition"])][key] += 1
    width = max([len(f"{s}/{t}") for s, t in tasks] + [4])
    lines = [f"model: {', '.join(models)}",
             (f"{'task':<{width}}  " + "  ".join(f"{c:<18}" for c in conds)).rstrip()]
    for s, t in tasks:
        row = []
        for c in conds:
            counter = cells[(s, t, c)]
            n = sum(counter.values())
            text = ", ".join(f"{k} {v}/{n}" for k, v in counter.most_common())
            row.append(f"{text:<18}")
        lines.append(f"{s + '/' + t:<{width}}  " + "  ".join(row).rstrip())
    return "\n".join(lines) + "\n"


def _task_order(key):
    suite, task = key
    try:
        ids = [t.id for t in suites_mod.load(suite).tasks]
        return (suite, ids.index(task), task)
    except (suites_mod.SuiteError, ValueError):
        return (suite, 1 << 30, task)


def cmd_report(args, stdout, stderr) -> int:
    missing = [f for f in args.files if not os.path.exists(f)]
    if missing:
        raise UsageError(f"no such file(s): {missing}")
    torn: list = []
    records = results.read_many(args.files, on_torn=lambda n, _: torn.append(n))
    if torn:
        stderr.write(f"note: skipped {len(torn)} incomplete line(s)\n")
    if not records:
        raise UsageError("no records in the given files")
    text = report_mod.render(records, args.format)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        stdout.write(text)
    return 0


def cmd_replay(path: str, out: str | None, stdout, stderr, *, quiet: bool = False) -> int:
    from .replay import regrade
    if not os.path.exists(path):
        raise UsageError(f"no such file: {path}")
    records = results.read(path)
    if not records:
        raise UsageError(f"no records in {path}")
    out = out or (path[:-6] if path.endswith(".jsonl") else path) + ".replay.jsonl"
    if os.path.abspath(out) == os.path.abspath(path):
        raise UsageError("--out must differ from the file being replayed")
    if os.path.exists(out):
        os.remove(out)
    writer = results.Writer(out)
    changed = []
    for record in records:
        new = regrade(record)
        writer.append(new)
        info = new.get("replay")
        if info and info.get("error"):
            stderr.write(f"  {new['run_id']}: {info['error']}\n")
        elif info and (info["recorded_outcome"] != new["outcome"] or info["divergences"]):
            changed.append((new["run_id"], info["recorded_outcome"], new["outcome"],
                            len(info["divergences"])))
    stdout.write(f"re-graded {len(records)} records from {path} into {out}: "
                 f"{len(changed)} changed\n")
    if not quiet:
        for run, before, after, n in changed:
            stdout.write(f"  {run}: {before} -> {after}"
                         + (f" ({n} tool result(s) differ)" if n else "") + "\n")
    return 0


def cmd_suites(stdout) -> int:
    for name in suites_mod.available():
        suite = suites_mod.load(name)
        stdout.write(f"{name} ({suite.digest}): {suite.description}\n")
        for task in suite.tasks:
            ref = task.reference()
            truth = "unavailable" if ref.truth is None else f"{ref.truth.magnitude:.6g} " \
                                                             f"{task.answer_unit}"
            silent = ", ".join(f"{s['value']:.6g} ({s['mode']})" for s in ref.silent)
            hazards = ", ".join(f"{h['kind']} {h['tool']}.{h['param']}"
                                + (f" [{h['pair']}]" if h.get("pair") else "")
                                for h in task.hazards)
            stdout.write(f"  {task.id}: truth {truth}; silent {silent or '-'}; "
                         f"hazards {hazards}\n")
    return 0
