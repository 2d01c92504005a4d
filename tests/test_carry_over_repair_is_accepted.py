"""A carry-over refusal offers only what the parameter accepts: the output as labelled (with its
datum and quality) when it converts, sent back as offered, goes through; an output of another
kind (a volume for a flow, a temperature for a difference) is never offered as the repair."""
from __future__ import annotations

import json
import re

import pytest

from quantity_guard import Q, UnconvertedCarryOver, quantity_tool, session


def _offered(err: UnconvertedCarryOver) -> dict | None:
    found = re.match(r"(\{.*?\})", err.suggestion or "")
    return json.loads(found.group(1)) if found else None


def _read_and_use(returns, value, param):
    """Two tools: ``read`` answers ``value`` labelled ``returns``; ``use`` takes ``x``, declared
    ``param``."""
    @quantity_tool(returns=returns)
    def read():
        return value

    @quantity_tool(params={"x": param}, returns="m")
    def use(x) -> float:
        return 1.0

    return read, use


def _refusal(read, use, sent) -> UnconvertedCarryOver:
    """The refusal of ``use(x=sent)`` after ``read()`` in one session."""
    with session():
        read()
        with pytest.raises(UnconvertedCarryOver) as err:
            use(x=sent)
    return err.value


@pytest.mark.parametrize("returns,param,sent", [
    ({"unit": "cfs"}, {"unit": "m**3/s"}, 1250),
    ({"unit": "cfs", "quality": "approved"}, {"unit": "m**3/s", "quality": "provisional"},
     {"value": 1250, "unit": "m3/s", "quality": "approved"}),
    ({"unit": "ft", "datum": "NAVD88"}, {"unit": "m", "datum": "NAVD88"}, 1250),
])
def test_the_offered_repair_is_accepted_when_sent_back(returns, param, sent):
    read, use = _read_and_use({"unit": returns["unit"]},
                              Q(1250.0, returns["unit"], datum=returns.get("datum"),
                                quality=returns.get("quality")), param)
    with session():
        read()
        with pytest.raises(UnconvertedCarryOver) as err:
            use(x=sent)
        offered = _offered(err.value)
        assert offered is not None and offered["value"] == 1250, err.value.suggestion
        for key in ("quality", "datum"):
            if key in returns:
                assert offered[key] == returns[key]
        assert use(x=offered).magnitude == 1.0  # the repair goes through


@pytest.mark.parametrize("returns,param,kind", [
    ("m**3", "m**3/s", "[length]^3 [time]^-1"),       # a volume for a flow
    ("degF", "delta_degC", "temperature"),              # a temperature for a difference
])
def test_an_output_of_another_kind_is_never_offered(returns, param, kind):
    err = _refusal(*_read_and_use(returns, 50.0, param), sent=50)
    text = err.repair()
    assert _offered(err) is None and "(the guard converts it)" not in text, text
    assert "reused as it is" in text and "cannot be passed here in any unit" in text
    assert "Send instead: a value in" in text


def test_an_output_lacking_what_the_parameter_requires_is_offered_only_with_it():
    read, use = _read_and_use("cfs", 1250.0, {"unit": "m**3/s", "quality": "provisional"})  # no quality stated
    err = _refusal(read, use, {"value": 1250, "unit": "m3/s", "quality": "approved"})
    text = err.repair()
    assert _offered(err) is None and "(the guard converts it)" not in text, text
    assert "would be refused here too" in text and "no stated quality" in text
    assert "only with what this parameter also requires" in text and "never assumed" in text
