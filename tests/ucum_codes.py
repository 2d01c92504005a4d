"""The UCUM codes the kernel's tables know, for the tests that read each of them back."""
from __future__ import annotations

import json
from pathlib import Path

from quantity_guard.units.table import rows

DATA = Path(__file__).resolve().parents[1] / "quantity_guard" / "data"
# the UCUM codes the default vocabulary reads otherwise than UCUM, each with its reason
OTHERWISE = json.loads((DATA / "units_ucum.json").read_text("utf-8"))["kernel_reads_otherwise"]


def every_ucum_code() -> list[str]:
    """Every atom and prefixed metric atom of the UCUM table, and every row's UCUM code."""
    from quantity_guard.units import ucum
    v = ucum.vocabulary()
    codes = list(v.atoms) + [p + a for p in v.prefixes for a in v.metric]
    codes += [r.unit.ucum for r in rows() if r.unit.ucum]
    return sorted(set(codes))
