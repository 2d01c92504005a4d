"""Messages that different JSON readers, or lenient servers, would route differently never pass
the guard: duplicate members at the top level or in ``params`` are refused with the request's
id, and calls of a tool name or a parameter name that only folds to a guarded one (case,
spaces, invisible characters) are refused, nothing of them reaching the upstream."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mcp_peers.driver import listed_proxy  # noqa: E402

ANNOTATIONS = "[tools.runoff.params]\ndischarge = 'm**3/s'\narea = 'km**2'\n"


@pytest.fixture
def guarded(tmp_path):
    with listed_proxy(ANNOTATIONS, tmp_path) as (p, wire):
        yield p, wire


def _forwarded(wire: Path) -> str:
    return wire.read_text() if wire.exists() else ""


CALL = '"method":"tools/call","params":{"name":"runoff","arguments":{"discharge":"1250 ft","area":2}}'
DUPLICATES = {
    "two params": '{"jsonrpc":"2.0","id":ID,' + CALL + ','
                  '"params":{"name":"runoff","arguments":{"discharge":"35 m3/s","area":2}}}',
    "two methods": '{"jsonrpc":"2.0","id":ID,' + CALL + ',"method":"tools/list"}',
    "two names": '{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"runoff",'
                 '"arguments":{"discharge":"1250 ft","area":2},"name":"echo"}}',
    "escaped name": '{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"runoff",'
                    '"arguments":{"discharge":"1250 ft","area":2},"n\\u0061me":"echo"}}',
    "spaced": '{ "jsonrpc" : "2.0" , "id" : ID , "method" : "tools/call" , "params" : { "name" : '
              '"echo" , "arguments" : {} } , "params" : { "name" : "echo" } }',
}


@pytest.mark.parametrize("case", sorted(DUPLICATES))
def test_duplicate_members_on_the_routing_path_are_refused_with_the_id(guarded, case):
    p, wire = guarded
    before = _forwarded(wire)
    p.send_raw(DUPLICATES[case].replace("ID", "7").encode() + b"\n")
    r = p.response(7)[0]
    assert r["error"]["code"] == -32600
    assert "occurs twice" in r["error"]["message"] and "Send each member once" in r["error"]["message"]
    assert p.call(8, "ping")["result"] == {}  # the proxy goes on; the refused line went nowhere
    assert '"id":7' not in _forwarded(wire)[len(before):].replace(" ", "")


def test_a_duplicate_member_in_a_notification_or_a_batch_goes_nowhere(guarded):
    p, wire = guarded
    before = _forwarded(wire)
    p.send_raw(b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,'
               b'"requestId":2}}\n')
    p.send_raw(b'[{"jsonrpc":"2.0","id":20,"method":"ping"},{"jsonrpc":"2.0","id":21,'
               b'"method":"ping","method":"tools/list"}]\n')
    batch = p.recv()
    assert sorted(e["id"] for e in batch) == [20, 21]
    assert all("twice" in e["error"]["message"] for e in batch)
    assert p.call(22, "ping")["result"] == {}
    sent = _forwarded(wire)[len(before):]
    assert "requestId" not in sent and '"id":20' not in sent


@pytest.mark.parametrize("name", ["Runoff", "RUNOFF", "runoff ", " runoff", "run\u200boff", "ｒｕｎｏｆｆ"])
def test_a_tool_name_that_folds_to_a_guarded_one_is_refused(guarded, name):
    p, wire = guarded
    before = _forwarded(wire)
    r = p.call(30, "tools/call", {"name": name, "arguments": {"discharge": "1250 ft", "area": 2}})
    result = r["result"]
    assert result["isError"] is True
    assert "'runoff'" in result["content"][0]["text"]
    assert '"id":30' not in _forwarded(wire)[len(before):]


@pytest.mark.parametrize("key", ["DISCHARGE", "Discharge", "discharge ", "dis\u200bcharge"])
def test_a_parameter_that_folds_to_a_guarded_one_is_refused(guarded, key):
    p, wire = guarded
    before = _forwarded(wire)
    r = p.call(40, "tools/call", {"name": "runoff", "arguments": {"discharge": 1.0, key: "1250 ft", "area": 2}})
    result = r["result"]
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert repr(key) in text and "'discharge'" in text
    assert '"id":40' not in _forwarded(wire)[len(before):]


def test_exact_names_still_pass_converted(guarded):
    p, wire = guarded
    r = p.call(50, "tools/call", {"name": "runoff", "arguments": {"discharge": "1250 cfs", "area": 2}})
    received = json.loads(r["result"]["content"][0]["text"])["received"]
    assert received["discharge"] == pytest.approx(35.39605824)
    r = p.call(51, "tools/call", {"name": "echo", "arguments": {"Discharge": 1}})
    assert json.loads(r["result"]["content"][0]["text"]) == {"Discharge": 1}
