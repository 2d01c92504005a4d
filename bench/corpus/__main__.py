"""python -m bench.corpus [--out PATH] [--seed N] [--check]"""
from __future__ import annotations

import argparse
import sys
from collections import Counter

from . import OUT, SEED, dumps, generate


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.corpus",
                                 description="Generate the labelled answer corpus.")
    ap.add_argument("--out", default=str(OUT), help=f"output JSON (default {OUT})")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--check", action="store_true",
                    help="do not write; exit 1 if the file differs from a fresh generation")
    args = ap.parse_args(argv)
    corpus = generate(args.seed)
    text = dumps(corpus)
    answers = [a for sc in corpus["scenarios"] for a in sc["answers"]]
    labels = Counter(a["label"] for a in answers)
    if args.check:
        with open(args.out, encoding="utf-8") as fh:
            same = fh.read() == text
        print(f"{args.out}: {'up to date' if same else 'DIFFERS from a fresh generation'}")
        return 0 if same else 1
    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write(text)
    print(f"wrote {args.out}: {len(corpus['scenarios'])} scenarios, {len(answers)} answers "
          f"({labels['correct']} correct, {labels['incorrect']} incorrect)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
