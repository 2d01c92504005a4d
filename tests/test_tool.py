"""The tool boundary: declarations, coercion of every input shape, errors, modes, async."""
from __future__ import annotations

import asyncio
import json

import pytest

from messages import render
from quantity_guard import Q, quantity_tool, session
from quantity_guard.errors import (CRSMismatch, DatumMismatch, DimensionalityError,
                                   InvalidArguments, MissingUnit, QualityViolation,
                                   TimezoneError, UnitParseError, UnknownDatum)
from quantity_guard.spec import Spec


@quantity_tool(params={"discharge": {"unit": "m**3/s"}, "area": {"unit": "km**2"}},
               returns={"unit": "mm/day"})
def runoff_depth(discharge, area):
    """Depth-equivalent runoff over the contributing area."""
    return discharge / area


EXPECTED = 35.39605824 / 29000 * 86.4


@pytest.mark.parametrize("discharge", [
    "1250 cfs", "1,250 cfs", "1250cfs", " 1250 ft3/s ", {"value": 1250, "unit": "cfs"},
    '{"value": 1250, "unit": "cfs"}', Q(1250, "cfs"), {"value": "1250", "unit": "ft**3/s"},
    35.39605824, "35.39605824", {"value": 35.39605824}, Q(35.39605824, "cumec"),
])
def test_every_input_shape_normalises_before_the_body(discharge):
    out = runoff_depth(discharge, 29000)
    assert out.unit.symbol == "mm/d"
    assert out.magnitude == pytest.approx(EXPECTED, rel=1e-12)


def test_the_body_receives_q_in_the_declared_unit():
    seen = {}

    @quantity_tool(params={"q": "m3/s"})
    def probe(q):
        seen["q"] = q
        return 0

    probe("1250 cfs")
    assert seen["q"].__class__ is Q and seen["q"].unit.symbol == "m3/s"
    assert seen["q"].magnitude == 35.39605824


@pytest.mark.parametrize("bad,error,words", [
    ("12.4 ft", DimensionalityError, [render(
        "wrong_dimension", field="runoff_depth.discharge", unit="m**3/s",
        dims="[length]^3 [time]^-1", received="12.4 ft", received_dims="[length]")]),
    (True, InvalidArguments, ["True", "not a quantity"]),
    (None, InvalidArguments, ["None"]),
    ({"value": 1250, "unit": "cfs", "note": "x"}, InvalidArguments, ["unknown keys ['note']"]),
    ({"unit": "cfs"}, InvalidArguments, ["no 'value'"]),
    ({"value": True, "unit": "cfs"}, InvalidArguments, ["not a number"]),
    ('{"value": 1250, "unit": ', InvalidArguments, ["not valid JSON"]),
    ("[1, 2]", InvalidArguments, ["not a number with a unit"]),
    ("lots", InvalidArguments, ["not a number with a unit"]),
    ("1250 gal/min", UnitParseError, [render("ambiguous_unit", unit="gal"),
                                      "Send instead: 'gal_US' or 'gal_imp'"]),
    ("1250 cfz", UnitParseError, [render("unknown_unit", unit="cfz", position=0, text="cfz")]),
    (float("nan"), InvalidArguments, ["not a finite number"]),
    ({"value": 1250, "unit": "cfs", "datum": "NAVD88"}, InvalidArguments, ["only to a length"]),
    ({"value": 1250, "unit": ["cfs"]}, InvalidArguments, ["a unit must be a string"]),
    ({"value": 1250, "unit": 3}, InvalidArguments, ["a unit must be a string"]),
    ({"value": [1, {"a": 1}], "unit": "cfs"}, InvalidArguments, ["series must hold numbers"]),
])
def test_wrong_inputs_are_refused_with_repair_text(bad, error, words):
    with pytest.raises(error) as err:
        runoff_depth(bad, 29000)
    assert err.value.field == "runoff_depth.discharge"
    text = err.value.repair()
    for w in words:
        assert w in text
    result = runoff_depth.invoke({"discharge": bad, "area": 29000})
    assert result["isError"] is True and result["content"][0]["text"] == text
    assert result["_meta"]["io.github.quantity-guard/violation"] == {
        "code": error.code, "field": "runoff_depth.discharge"}


def test_require_explicit_unit_refuses_bare_numbers():
    @quantity_tool(params={"flow": {"unit": "cfs", "require_explicit_unit": True}})
    def f(flow):
        return flow

    for bare in (1250, 1250.0, "1250", {"value": 1250}):
        with pytest.raises(MissingUnit) as err:
            f(bare)
        assert '{"value": 1250, "unit": "cfs"}' in err.value.repair()
    assert f("1250 cfs").magnitude == 1250.0


def test_datum_declarations():
    @quantity_tool(params={"stage": {"unit": "ft", "datum": "NAVD88"}})
    def f(stage):
        return stage

    assert f(12.4).datum == "NAVD88"
    assert f("12.4 ft NAVD88").datum == "NAVD88"
    assert f("3.78 m NAVD88").unit.symbol == "ft"
    with pytest.raises(DatumMismatch) as err:
        f("12.4 ft NGVD29")
    assert "never silently shifted" in str(err.value)
    assert "apply the offset between NGVD29 and NAVD88 at this location" in err.value.repair()
    assert '{"value": <number>, "unit": "ft", "datum": "NAVD88"}' in err.value.repair()
    with pytest.raises(UnknownDatum):
        f("12.4 ft NAVD88X")


def test_quality_floor_and_crs():
    @quantity_tool(params={"q": {"unit": "cfs", "quality": "approved"},
                           "x": {"unit": "m", "crs": "EPSG:4326"}})
    def f(q, x):
        return q

    assert f({"value": 1, "unit": "cfs", "quality": "A"}, 1).quality == "approved"
    with pytest.raises(QualityViolation) as err:
        f({"value": 1, "unit": "cfs", "quality": "P"}, 1)
    assert "provisional" in str(err.value)
    with pytest.raises(QualityViolation):
        f(1, 1)  # unknown quality never passes a floor
    with pytest.raises(CRSMismatch):
        f({"value": 1, "unit": "cfs", "quality": "A"}, {"value": 1, "unit": "m", "crs": "EPSG:27700"})


def test_timestamp_declarations():
    @quantity_tool(params={"when": {"tz": "America/Chicago"}})
    def f(when):
        return when.isoformat()

    assert f("2025-07-15T15:00:00Z") == "2025-07-15T10:00:00-05:00"
    with pytest.raises(TimezoneError) as err:
        f("2025-07-15T10:00:00")
    assert "naive" in str(err.value).lower() or "offset" in str(err.value).lower()
    with pytest.raises(TimezoneError):
        f("2025-07-15T10:00:00-06:00")  # CST in July: wrong for America/Chicago


@pytest.mark.parametrize("decl,error", [
    ({"discharge": {"unit": "m**3/sx"}}, UnitParseError),
    ({"discharge": {"unit": "gal"}}, UnitParseError),
    ({"discharge": {"unit": "m", "datum": "NOPE88"}}, UnknownDatum),
    ({"discharge": {"unit": "m3/s", "quality": "great"}}, QualityViolation),
    ({"discharge": {"unit": "m3/s", "units": "x"}}, InvalidArguments),
    ({"discharge": {"unit": "m3/s", "datum": "NAVD88"}}, InvalidArguments),
    ({"discharge": {}}, InvalidArguments),
    ({"nope": "m"}, InvalidArguments),
    ({"discharge": {"tz": "Mars/Olympus"}}, TimezoneError),
])
def test_declarations_fail_at_decoration_naming_tool_and_parameter(decl, error):
    with pytest.raises(error) as err:
        @quantity_tool(params=decl)
        def tool_x(discharge):
            return discharge
    assert "tool_x" in str(err.value) or err.value.field and "tool_x" in err.value.field


def test_results_are_converted_and_labelled():
    @quantity_tool(returns={"unit": "cfs"})
    def bare():
        return 1250

    @quantity_tool(returns={"unit": "cfs"})
    def metric():
        return Q(35.39605824, "m3/s")

    @quantity_tool(returns={"flow": {"unit": "cfs"}, "stage": {"unit": "ft", "datum": "NAVD88"}})
    def both():
        return {"flow": 1, "stage": Q(1, "m"), "site": "x"}

    assert repr(bare()) == "Q(1250 cfs)"
    assert metric().magnitude == pytest.approx(1250.0, rel=1e-12)
    out = both()
    assert out["stage"].datum == "NAVD88" and out["stage"].unit.symbol == "ft" and out["site"] == "x"
    r = bare.invoke({})
    assert r == {"content": [{"type": "text", "text": '{"value": 1250.0, "unit": "cfs"}'}],
                 "isError": False, "structuredContent": {"value": 1250.0, "unit": "cfs"}}


def test_invoke_never_raises():
    @quantity_tool(params={"x": "m"})
    def boom(x):
        raise RuntimeError("secret internals")

    r = boom.invoke({"x": 1})
    assert r["isError"] and "RuntimeError: secret internals" in r["content"][0]["text"]
    assert "Traceback" not in r["content"][0]["text"]
    assert boom.invoke("not json")["isError"]
    assert boom.invoke("[1]")["isError"]
    assert boom.invoke({"y": 1})["isError"]
    assert boom.invoke({})["isError"]


def test_warn_mode_proceeds_on_the_raw_value_and_records():
    @quantity_tool(params={"discharge": {"unit": "m**3/s"}}, enforcement="warn", name="runoff")
    def runoff(discharge):
        return discharge

    with session() as ledger:
        got = runoff("12.4 ft")
        runoff(3.0)
        runoff("2 cfs")
    assert got.unit.symbol == "ft" and got.magnitude == 12.4
    report = ledger.enforcement_report()
    assert report.startswith("1 of 3 tool calls would have been blocked:")
    assert "1x dimensionality_error" in report
    assert render("wrong_dimension", field="runoff.discharge", unit="m**3/s",
                  dims="[length]^3 [time]^-1", received="12.4 ft",
                  received_dims="[length]") in report
    with pytest.warns(UserWarning):
        runoff("12.4 ft")  # outside a session the violation is not lost


def test_off_mode_only_coerces():
    @quantity_tool(params={"d": "m3/s"}, enforcement="off")
    def f(d):
        return d

    assert f("12.4 ft").unit.symbol == "ft"
    assert f(3).unit.symbol == "m3/s"


def test_async_tools():
    @quantity_tool(params={"d": "m3/s"}, returns={"unit": "m3/s"})
    async def f(d):
        await asyncio.sleep(0)
        return d * 2

    assert asyncio.run(f("1250 cfs")).magnitude == 2 * 35.39605824
    r = asyncio.run(f.ainvoke({"d": "12 ft"}))
    assert r["isError"]
    assert f.invoke({"d": 1})["structuredContent"] == {"value": 2.0, "unit": "m3/s"}

    async def in_loop():
        return f.invoke({"d": 1})
    assert "ainvoke" in asyncio.run(in_loop())["content"][0]["text"]


def test_json_schema_states_the_unit_in_words_and_extensions():
    s = runoff_depth.json_schema()
    d = s["inputSchema"]["properties"]["discharge"]
    assert d["x-unit"] == "m**3/s"
    assert d["description"].startswith("In cubic metres per second (m3/s).")
    assert s["inputSchema"]["required"] == ["discharge", "area"]
    assert s["outputSchema"]["required"] == ["value", "unit"]
    assert json.loads(json.dumps(s)) == s

    @quantity_tool(params={"stage": {"unit": "ft", "datum": "NAVD88", "crs": "epsg:4269",
                                     "quality": "approved"}, "when": {"tz": "UTC"}})
    def g(stage, when, note: str = ""):
        return 0
    props = g.json_schema()["inputSchema"]["properties"]
    assert (props["stage"]["x-datum"], props["stage"]["x-crs"], props["stage"]["x-quality"]) == \
        ("NAVD88", "EPSG:4269", "approved")
    labelled = props["stage"]["anyOf"][2]   # the value's own frame may be stated beside it
    assert set(labelled["properties"]) == {"value", "unit", "datum", "quality", "crs"}
    assert labelled["required"] == ["value", "unit"]
    assert props["when"] == {"type": "string", "format": "date-time", "x-tz": "UTC",
                             "description": "In a timestamp with a UTC offset, in UTC."}
    assert props["note"] == {"type": "string"}
    assert "cubic feet per second (cfs)" in Spec("cfs").describe()


def test_series_are_declared_identically():
    np = pytest.importorskip("numpy")
    out = runoff_depth([35.39605824, 70.79211648], 29000)
    assert out.is_series and out.magnitude[1] == pytest.approx(2 * EXPECTED)
    out = runoff_depth(["1250 cfs", {"value": 2500, "unit": "cfs"}], 29000)
    assert out.magnitude[0] == pytest.approx(EXPECTED)
    assert runoff_depth(np.array([35.39605824]), 29000).magnitude[0] == pytest.approx(EXPECTED)


def test_signatures_of_every_shape_bind_as_python_would():
    @quantity_tool(params={"q": "m3/s", "k": "km2"})
    def kwonly(q, *, k, label="x"):
        """Doc.

            Indented detail.
        """
        return (q, k, label)

    q, k, label = kwonly("1250 cfs", k=2)
    assert q.magnitude == 35.39605824 and k.unit.symbol == "km2" and label == "x"
    assert kwonly.description == "Doc.\n\nIndented detail."
    with pytest.raises(InvalidArguments):
        kwonly("1 m3/s", 2)  # k is keyword-only
    with pytest.raises(InvalidArguments):
        kwonly("1 m3/s", k=1, q=2)  # multiple values
    assert kwonly.json_schema()["inputSchema"]["required"] == ["q", "k"]

    @quantity_tool(params={"q": "m3/s"})
    def varargs(q, *rest, **extra):
        return (q, rest, extra)

    q, rest, extra = varargs("1 m3/s", 1, 2, z=3)
    assert rest == (1, 2) and extra == {"z": 3}

    class Gauge:
        @quantity_tool(params={"q": "m3/s"})
        def read(self, q):
            return q

    assert Gauge().read("1250 cfs").magnitude == 35.39605824

    class Callable:
        def __call__(self, q):
            return q

    tool = quantity_tool(Callable(), params={"q": "m3/s"}, name="callable")
    assert tool("1 cumec").unit.symbol == "m3/s"


# -- issue 18 item 7: errors are raised and caught once, never signalled in-band ---------------
def test_a_tool_whose_parameters_are_named_content_and_isError_runs():
    @quantity_tool(params={"level": "m"})
    def note(content: str, isError: bool, level):
        return f"{content}|{isError}|{level}"

    args = {"content": [{"type": "text", "text": "x"}], "isError": True, "level": 2}
    for result in (note.invoke(args), note.invoke(json.dumps(args)),
                   asyncio.run(note.ainvoke(args))):
        assert result["isError"] is False
        assert result["content"][0]["text"] == "[{'type': 'text', 'text': 'x'}]|True|2 m"


def test_malformed_arguments_are_an_invalid_arguments_violation():
    @quantity_tool(params={"x": "m"})
    def f(x):
        return x

    for bad, words in (("not json", "not valid JSON"), ("[1]", "must be a JSON object"),
                       (7, "must be a JSON object")):
        for r in (f.invoke(bad), asyncio.run(f.ainvoke(bad))):
            assert r["isError"] and words in r["content"][0]["text"]
            assert r["_meta"]["io.github.quantity-guard/violation"] == {
                "code": "invalid_arguments", "field": "f"}
            assert "Send instead: a JSON object of parameter names to values" in \
                r["content"][0]["text"]


# -- issue 18 item 3: every error result carries a violation code ---------------------------
def _code(result):
    assert result["isError"] is True
    return result["_meta"]["io.github.quantity-guard/violation"]["code"]


def test_every_invoke_error_path_has_a_code():
    @quantity_tool(params={"x": "m"})
    def boom(x):
        raise RuntimeError("secret internals")

    @quantity_tool(params={"x": "m"})
    async def aboom(x):
        raise RuntimeError("async internals")

    assert _code(boom.invoke({"x": 1})) == "tool_failed"
    assert boom.invoke({"x": 1})["_meta"]["io.github.quantity-guard/violation"]["field"] == "boom"
    assert _code(asyncio.run(aboom.ainvoke({"x": 1}))) == "tool_failed"
    assert _code(aboom.invoke({"x": 1})) == "tool_failed"   # run with asyncio.run
    assert _code(boom.invoke({"y": 1})) == "invalid_arguments"
    assert _code(boom.invoke({})) == "invalid_arguments"
    assert _code(boom.invoke({"x": "12 s"})) == "dimensionality_error"

    async def in_loop():
        return aboom.invoke({"x": 1})
    assert _code(asyncio.run(in_loop())) == "async_tool_in_event_loop"


# -- issue 18 item 5: warn mode records a bad return value and proceeds --------------------
def test_warn_mode_records_a_bad_return_value_and_proceeds():
    @quantity_tool(returns={"unit": "m"}, enforcement="warn")
    def weigh():
        return "12 kg"

    @quantity_tool(returns={"depth": {"unit": "m"}, "flow": {"unit": "m3/s"}},
                   enforcement="warn")
    def both():
        return {"depth": "3 s", "flow": "10 cfs", "site": "x"}

    @quantity_tool(returns={"depth": {"unit": "m"}}, enforcement="warn")
    def not_a_dict():
        return 5

    with session() as ledger:
        r = weigh.invoke({})
        direct = weigh()
        out = both()
        assert not_a_dict() == 5
    assert r["isError"] is False and r["structuredContent"] == {"value": 12.0, "unit": "kg"}
    assert repr(direct) == "Q(12 kg)"
    assert repr(out["depth"]) == "Q(3 s)" and out["flow"].unit.symbol == "m3/s"
    assert out["site"] == "x"
    report = ledger.enforcement_report()
    assert report.startswith("4 of 4 tool calls would have been blocked:")
    assert "3x dimensionality_error" in report and "1x invalid_arguments" in report
    assert "weigh.return: the tool returned 12 kg" in report or \
        "weigh.return: expected a quantity in m" in report
    assert [c.ok for c in ledger.calls] == [True] * 4
    assert all(v["blocked"] is False for v in ledger.violations)
    with pytest.warns(UserWarning, match="weigh.return"):
        assert repr(weigh()) == "Q(12 kg)"   # outside a session the violation is not lost

    strict = quantity_tool(returns={"unit": "m"})(lambda: "12 kg")
    assert _code(strict.invoke({})) == "dimensionality_error"
    off = quantity_tool(returns={"unit": "m"}, enforcement="off")(lambda: "12 kg")
    assert repr(off()) == "Q(12 kg)"   # off never refuses: coercion only


# -- issue 18 item 6: echoed descriptive metadata is accepted; meaning-changing keys are not ----
@quantity_tool(params={"stage": {"unit": "ft", "datum": "NAVD88", "quality": "provisional"}},
               returns={"unit": "ft"})
def freeboard(stage):
    return 20 - stage.magnitude


def test_echoed_descriptive_keys_are_accepted_and_recorded():
    echoed = {"value": 18.4, "unit": "ft", "datum": "NAVD88", "quality": "provisional",
              "source": "hec-ras:LR-12"}
    with session() as ledger:
        r = freeboard.invoke({"stage": echoed})
        assert r["isError"] is False and r["structuredContent"]["value"] == pytest.approx(1.6)
        more = {"value": 5.5, "unit": "m", "quality": "A", "time": "2024-05-01T12:00:00-05:00",
                "timestamp": "x", "datetime": "y", "date": "2024-05-01", "station": "07374000",
                "site": "Baton Rouge", "location": "LA", "method": "stage-discharge",
                "qualifiers": ["P"], "description": "stage", "name": "Mississippi",
                "label": "river", "parameter": "00065"}
        out = freeboard.invoke({"stage": more})
        assert out["isError"] is False
    entry = ledger.calls[0].inputs[0]
    assert entry.q.source == "hec-ras:LR-12"
    assert entry.as_dict()["raw"] == echoed   # everything the model echoed is kept
    assert ledger.manifest()["calls"][1]["arguments"]["stage"]["station"] == "07374000"
    assert ledger.calls[1].inputs[0].q.to("m").magnitude == pytest.approx(5.5)


@pytest.mark.parametrize("key", ["scale", "factor", "offset", "multiplier", "units", "note",
                                 "value_ft"])
def test_keys_that_could_change_the_meaning_are_refused_listing_the_accepted_ones(key):
    r = freeboard.invoke({"stage": {"value": 18.4, "unit": "ft", "source": "x", key: 2}})
    assert r["isError"] is True
    text = r["content"][0]["text"]
    assert f"unknown keys ['{key}']" in text          # the descriptive 'source' is not blamed
    assert "value, unit, datum, quality and crs" in text
    assert "source, station, time, timestamp" in text
    if key in ("scale", "factor", "offset", "multiplier"):
        assert "would change the value's meaning" in text


def test_echoed_keys_pass_the_proxy_too():
    from quantity_guard.annotations import loads
    from quantity_guard.mcp.policy import QuantityPolicy
    policy = QuantityPolicy(loads('[tools.freeboard.params]\n'
                                  'stage = { unit = "ft", datum = "NAVD88" }\n'))
    policy.advertise({"name": "freeboard", "inputSchema": {
        "type": "object", "properties": {"stage": {"type": "number"}}}})
    echoed = {"value": 18.4, "unit": "ft", "datum": "NAVD88", "source": "hec-ras:LR-12",
              "time": "2024-05-01T12:00:00Z"}
    decision = policy.check_call("freeboard", {"stage": echoed})
    assert decision == ("forward", {"stage": 18.4})
    action, result = policy.check_call("freeboard", {"stage": {**echoed, "scale": 0.3048}})
    assert action == "refuse" and result["isError"] is True
    assert "would change the value's meaning" in result["content"][0]["text"]


def test_a_quantity_returned_for_a_timestamp_declaration_is_refused_naming_the_declaration():
    """A result declared as a timestamp (``tz``) has no unit to convert a Q into: the tool is
    refused with a violation that says so (it used to fail with an AttributeError on None)."""
    @quantity_tool(returns={"tz": "UTC"})
    def observed_at():
        return Q(3.0, "m")

    with pytest.raises(InvalidArguments) as caught:
        observed_at()
    assert caught.value.field == "observed_at.return"
    assert "is a timestamp (tz UTC), not a quantity" in str(caught.value)
    # a bare number is still refused as before: a number with no unit
    with pytest.raises(MissingUnit):
        Spec(tz="UTC").convert_result(3.0)
