"""@quantity_tool functions served by quantity_guard.mcp.server, for the SDK tests:
``python -m quantity_guard.mcp.server mcp_peers.water_tools:box`` (tests/ on PYTHONPATH)."""
from __future__ import annotations

from quantity_guard import quantity_tool, toolbox


@quantity_tool(returns={"unit": "cfs"})
def read_discharge(site: str):
    """Latest discharge at a USGS site."""
    return 1250.0


@quantity_tool(returns={"unit": "ft", "datum": "NAVD88"})
def read_crest(site: str):
    """Levee crest elevation."""
    return 31.0


@quantity_tool(params={"discharge": {"unit": "m**3/s"}, "area": {"unit": "km**2"}},
               returns={"unit": "mm/day"})
def runoff_depth(discharge, area):
    """Depth-equivalent runoff over the contributing area."""
    return discharge / area


box = toolbox([read_discharge, read_crest, runoff_depth])
