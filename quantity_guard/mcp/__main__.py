"""``python -m quantity_guard.mcp`` is ``quantity-guard-mcp``."""
from __future__ import annotations

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
