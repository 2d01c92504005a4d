"""Every refusal ends its sentence before "Send instead:", and a repair joins two sentences with one
stop."""
from __future__ import annotations

import pytest
from hypothesis import example, given, strategies as st

from quantity_guard import Q


def _refusals():
    """Real refusals from the public API, each with its repair text."""
    from quantity_guard import quantity_tool
    from quantity_guard.errors import GuardViolation

    @quantity_tool(params={"discharge": {"unit": "m**3/s"}, "stage": {"unit": "ft",
                                                                      "datum": "NAVD88"},
                           "t": {"unit": "degC"}}, returns={"unit": "m**3/s"})
    def tool(discharge, stage, t):
        return discharge

    texts = []
    for args in ({"discharge": "12.4 ft", "stage": 1, "t": 1},
                 {"discharge": 1, "stage": {"value": 1, "unit": "ft", "datum": "NGVD29"}, "t": 1},
                 {"discharge": True, "stage": 1, "t": 1},
                 {"discharge": {"value": 1, "unit": "cfs", "scale": 2}, "stage": 1, "t": 1},
                 {"discharge": 1, "stage": 1, "t": "10 delta_degC"},
                 {"discharge": "1250 mgd", "stage": 1, "t": 1}):
        result = tool.invoke(args)
        assert result["isError"], args
        texts.append(result["content"][0]["text"])
    for bad in (lambda: Q(1250), lambda: Q(1, "cfs") + Q(1, "ft"),
                lambda: Q("12 parsecs/fortnight"),
                lambda: Q(10, "degC") * 2, lambda: Q(1, "ft", datum="NAVD88").to_datum("NGVD29")):
        with pytest.raises(GuardViolation) as err:
            bad()
        if err.value.suggestion:
            texts.append(err.value.repair())
    return texts


def test_every_refusal_ends_its_sentence_before_send_instead():
    texts = _refusals()
    assert len(texts) >= 9
    for text in texts:
        assert "Send instead:" in text, text
        before = text[:text.index(" Send instead:")]
        assert before[-1] in ".!?:;", text
        assert not before.endswith(".."), text


@given(st.text(min_size=1, max_size=40).filter(str.strip), st.text(min_size=1, max_size=20))
@example("no conversion was applied", "35.4 m3/s")
@example("a sentence that ends.", "x")
@example("spaces after it.  ", "x")
def test_repair_joins_two_sentences_with_one_stop(message, suggestion):
    from quantity_guard.errors import DimensionalityError
    err = DimensionalityError(message, suggestion=suggestion)
    text = err.repair()
    head, _, tail = text.partition(" Send instead: ")
    assert tail == suggestion
    assert head.startswith(message.rstrip()) and len(head) <= len(message.rstrip()) + 1
    assert head[-1:] in (".", "!", "?", ":", ";")
    assert err.at("f.x").repair() == "f.x: " + text
    assert DimensionalityError(message).repair() == message  # no suggestion: the message alone
