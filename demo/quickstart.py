"""The kernel in a few lines, offline: python demo/quickstart.py"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from quantity_guard.errors import GuardViolation  # noqa: E402
from quantity_guard.units import convert, parse_unit  # noqa: E402

print("1250 cfs in m3/s       ", convert(1250, "cfs", "m3/s"))
print("10 degC in degF        ", convert(10, "degC", "degF"))
print("5 Ml/d in m3/s         ", convert(5, "Ml/d", "m3/s"))
print("ft3/s spelled out      ", parse_unit("ft³/s").long_name)
for bad in ("gal", "ft NAVD88", "degC/s", "Mcf/dayz"):
    try:
        parse_unit(bad)
    except GuardViolation as err:
        print(f"refused {bad!r:<12}", err.repair())
