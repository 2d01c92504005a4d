"""Every shape a lenient upstream could run as a tool call is guarded or refused: a
``tools/call`` sent as a notification (no id), inside a batch, with an array (or missing)
``name``, with positional ``params``, or spelled ``Tools/Call``. Nothing of them reaches the
upstream (the real proxy over stdio, in front of the stdlib fault server with a wire log); a
request gets a JSON-RPC error with its id, a notification is dropped, and a well-formed guarded
call is still converted."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers.driver import listed_proxy  # noqa: E402

ANNOTATIONS = "[tools.runoff.params]\ndischarge = 'm**3/s'\narea = 'km**2'\n"
ARGS = {"discharge": "1250 ft", "area": 2}  # a length for a flow: refused if it were checked


@pytest.fixture
def guarded(tmp_path):
    with listed_proxy(ANNOTATIONS, tmp_path) as (p, wire):
        yield p, wire


def _wire(wire: Path) -> str:
    return wire.read_text() if wire.exists() else ""


REQUESTS = {
    "array name": ({"name": ["runoff"], "arguments": ARGS}, "tools/call", -32602),
    "object name": ({"name": {"0": "runoff"}, "arguments": ARGS}, "tools/call", -32602),
    "missing name": ({"arguments": ARGS}, "tools/call", -32602),
    "positional params": (["runoff", ARGS], "tools/call", -32602),
    "no params": (None, "tools/call", -32602),
    "Tools/Call": ({"name": "runoff", "arguments": ARGS}, "Tools/Call", -32601),
    "TOOLS/CALL": ({"name": "runoff", "arguments": ARGS}, "TOOLS/CALL", -32601),
    "spaced method": ({"name": "runoff", "arguments": ARGS}, "tools/call ", -32601),
    "tools-call": ({"name": "runoff", "arguments": ARGS}, "tools-call", None),  # not a fold: unknown method
}


@pytest.mark.parametrize("case", sorted(REQUESTS))
def test_a_request_in_an_unchecked_shape_is_refused_with_its_id(guarded, case):
    p, wire = guarded
    params, method, code = REQUESTS[case]
    before = _wire(wire)
    message = {"jsonrpc": "2.0", "id": 7, "method": method}
    if params is not None:
        message["params"] = params
    p.send(message)
    r = p.response(7)[0]
    if code is None:  # a method no reader folds to tools/call goes to the upstream, which refuses it
        assert r["error"]["code"] == -32601
        return
    assert r["error"]["code"] == code
    assert p.call(8, "ping")["result"] == {}
    assert "1250 ft" not in _wire(wire)[len(before):]


@pytest.mark.parametrize("method", ["tools/call", "Tools/Call"])
def test_a_tool_call_notification_goes_nowhere(guarded, method):
    p, wire = guarded
    before = _wire(wire)
    p.send({"jsonrpc": "2.0", "method": method, "params": {"name": "runoff", "arguments": ARGS}})
    assert p.call(9, "ping")["result"] == {}  # nothing answered the notification; the proxy goes on
    assert "1250 ft" not in _wire(wire)[len(before):]


BATCHES = {
    "notification": {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "runoff", "arguments": ARGS}},
    "array name": {"jsonrpc": "2.0", "id": 31, "method": "tools/call", "params": {"name": ["runoff"], "arguments": ARGS}},
    "positional": {"jsonrpc": "2.0", "id": 31, "method": "tools/call", "params": ["runoff", ARGS]},
    "casing": {"jsonrpc": "2.0", "id": 31, "method": "Tools/Call", "params": {"name": "runoff", "arguments": ARGS}},
    "guarded": {"jsonrpc": "2.0", "id": 31, "method": "tools/call", "params": {"name": "runoff", "arguments": ARGS}},
}


@pytest.mark.parametrize("case", sorted(BATCHES))
def test_a_batch_with_an_unchecked_tool_call_is_refused_whole(guarded, case):
    p, wire = guarded
    before = _wire(wire)
    p.send([{"jsonrpc": "2.0", "id": 30, "method": "ping"}, BATCHES[case]])
    answers = p.recv()
    assert isinstance(answers, list) and 30 in [a.get("id") for a in answers]
    assert all(a["error"]["code"] == -32600 for a in answers)
    assert p.call(32, "ping")["result"] == {}
    assert "1250 ft" not in _wire(wire)[len(before):] and '"id":30' not in _wire(wire)[len(before):]


def test_a_well_formed_guarded_call_is_still_converted(guarded):
    p, _ = guarded
    r = p.call(50, "tools/call", {"name": "runoff", "arguments": {"discharge": "1250 cfs", "area": 2}})
    received = json.loads(r["result"]["content"][0]["text"])["received"]
    assert received["discharge"] == pytest.approx(35.39605824)
    r = p.call(51, "tools/call", {"name": "runoff", "arguments": ARGS})
    assert r["result"]["isError"] is True
