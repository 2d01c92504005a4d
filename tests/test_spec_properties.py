"""Property tests of the boundary: whatever JSON a model sends, a declared parameter either
accepts it (as a Q in the declared unit) or refuses it with a GuardViolation; nothing else."""
from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from quantity_guard import Q
from quantity_guard.errors import GuardViolation
from quantity_guard.spec import Spec

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=True) |
    st.text(max_size=30) | st.sampled_from(["1250 cfs", "12.4 ft NAVD88", "1,250 cfs", "cfs",
                                            "3 m3/s", "1e400 m", "NaN m3/s", "-0 cfs"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["value", "unit", "datum", "quality", "crs", "x"]), children, max_size=4),
    max_leaves=8)
SPECS = [Spec("m**3/s"), Spec("ft", datum="NAVD88"), Spec("cfs", require_explicit_unit=True),
         Spec("m3/s", quality="provisional"), Spec(tz="America/Chicago")]


@settings(max_examples=800, deadline=None)
@given(JSON, st.sampled_from(SPECS), st.booleans())
def test_any_json_is_accepted_in_the_declared_unit_or_refused_with_a_violation(raw, spec, text):
    if text:
        raw = json.dumps(raw)
    try:
        accepted = spec.accept(raw, "tool.param")
    except GuardViolation as err:
        assert err.field == "tool.param" and err.repair()
        return
    if spec.tz is not None:
        assert accepted.value.tzinfo is not None
        return
    assert accepted.value.__class__ is Q
    assert accepted.value.unit == spec.unit
    if spec.datum:
        assert accepted.value.datum == spec.datum
    lenient = spec.lenient(raw, "tool.param")  # never raises either
    assert lenient.value is not None
