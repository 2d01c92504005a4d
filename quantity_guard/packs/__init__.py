"""Retrieval packs: typed readings from public hydrological services.

``usgs`` (the USGS Water Data OGC API, with the legacy WaterServices as a fallback), ``ea``
(Environment Agency flood-monitoring) and ``nwps`` (NOAA National Water Prediction Service).
Import the one you need::

    from quantity_guard.packs import usgs, ea, nwps

Nothing here is imported by ``import quantity_guard``; the packs pull in only the standard
library and the package's own ``quantity``, ``datums`` and ``quality`` modules, and they do so
when first used. Every pack function takes ``fetch=`` (see :func:`replay` for recorded
responses, :func:`recorded` for the ones shipped with the package); every failure is a :class:`PackError` naming the URL and what was wrong.
"""
from __future__ import annotations

from ._fetch import MissingValue, PackError, Reading, fetch, make_fetch, recorded, replay

__all__ = ["PackError", "MissingValue", "Reading", "fetch", "make_fetch", "recorded", "replay",
           "usgs", "ea", "nwps"]


def __getattr__(name: str):
    if name in ("usgs", "ea", "nwps"):
        from importlib import import_module
        module = import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
