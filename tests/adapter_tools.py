"""The tools whose schemas and dispatch the provider-adapter tests check (tests/test_adapters.py,
tests/integrations/test_integrations_gemini.py); tests/snapshots/schemas_*.json are of BOX."""
from __future__ import annotations

from quantity_guard import quantity_tool, toolbox


@quantity_tool(returns={"unit": "cfs"})
def read_discharge(site: str):
    """Latest discharge at a USGS site."""
    return 1250.0


@quantity_tool(params={"discharge": {"unit": "m**3/s"}, "area": {"unit": "km**2"}},
               returns={"unit": "mm/day"})
def runoff_depth(discharge, area, label: str = ""):
    """Depth-equivalent runoff over the contributing area."""
    return discharge / area


BOX = toolbox([read_discharge, runoff_depth])
