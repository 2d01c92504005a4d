"""``python -m bench``: the quantity-guard evaluation (see bench/harness/cli.py)."""
from __future__ import annotations

import sys

from bench.harness.cli import main

if __name__ == "__main__":
    sys.exit(main())
