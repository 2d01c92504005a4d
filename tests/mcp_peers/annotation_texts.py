"""Annotation files the suite's proxies share, as TOML text (no imports: the ContextForge and
LiteLLM suites read them from environments of their own)."""

# the fault server's read_discharge (bare cfs) and runoff (a discharge in m3/s and an area)
RUNOFF = """\
[tools.read_discharge]
returns = { unit = "cfs" }

[tools.runoff.params]
discharge = "m**3/s"
area = "km**2"
"""
