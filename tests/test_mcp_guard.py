"""quantity_guard.mcp.guard driven with plain data (sans-IO), with a fake policy that converts
runoff.discharge from cfs, refuses a bad runoff.area, and labels read_discharge results."""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from mcp_peers.fake_policy import CFS, FakePolicy  # noqa: E402

from quantity_guard.mcp import jsonrpc as rpc  # noqa: E402
from quantity_guard.mcp.guard import (  # noqa: E402
    C2S, LOG, S2C, Decision, Guard, PassThroughPolicy, Policy, tool_error)

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}


def line(obj) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def sent(out, direction):
    return [data for d, data in out if d == direction]


def one(out, direction) -> bytes:
    msgs = sent(out, direction)
    assert len(msgs) == 1, out
    others = [d for d, _ in out if d not in (direction, LOG)]
    assert not others, out
    return msgs[0]


@pytest.fixture
def policy():
    return FakePolicy()


@pytest.fixture
def guard(policy):
    return Guard(policy)


def test_policy_protocol_and_pass_through_default():
    assert isinstance(FakePolicy(), Policy) and isinstance(PassThroughPolicy(), Policy)
    assert Guard().policy.__class__ is PassThroughPolicy
    assert Decision.forward({"a": 1}) == ("forward", {"a": 1})
    assert tool_error("x") == {"content": [{"type": "text", "text": "x"}], "isError": True}
    with pytest.raises(ValueError):
        Guard().receive("sideways", b"{}")


# ------------------------------------------------------------------ transparency

ODD_BUT_VALID = [
    b'{ "method" : "initialize", "id":0, "jsonrpc":"2.0", "params":{"protocolVersion":"2025-06-18"} }',
    '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"a\u2028b\u0085c\\u000c\\r\U0001F600"}}'.encode(),
    b'{"jsonrpc":"2.0","id":"x","method":"resources/read","params":{"uri":"file:///\\u00e9","n":1.50,"big":123456789012345678901234567890}}',
    b'{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{"messages":[]}}',
    b'{"jsonrpc":"2.0","id":7,"result":{"model":"m","role":"assistant","content":{"type":"text","text":"t"}}}',
    b'{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"nope"}}',
    b'{"jsonrpc":"2.0","method":"some/unknown-notification"}',
    b'{"jsonrpc":"2.0","id":null,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":99,"result":{}}',
    b'{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}',
]


@pytest.mark.parametrize("raw", ODD_BUT_VALID)
@pytest.mark.parametrize("direction", [C2S, S2C])
def test_untouched_messages_are_forwarded_byte_for_byte(raw, direction):
    for term in (b"\n", b"\r\n", b""):
        guard = Guard(FakePolicy())  # a fresh one each time: an id in flight is not reused
        out = guard.receive(direction, raw + term)
        assert one(out, direction) == raw + b"\n"


def test_tools_call_of_unguarded_tool_and_its_result_pass_byte_for_byte(guard, policy):
    req = b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"x":1.50}}}'
    assert one(guard.receive(C2S, req), C2S) == req + b"\n"
    res = b'{"result":{"content":[{"type":"text","text":"1250"}]},"jsonrpc":"2.0","id":5}'
    assert one(guard.receive(S2C, res), S2C) == res + b"\n"
    assert policy.calls == []


# ------------------------------------------------------------------ tools/list

LISTING = ('{"jsonrpc":"2.0","id":2,"result":{"tools":['
           '{"name":"echo","description":"Echo \\u00e9","inputSchema":{"type":"object"}},'
           '{"name":"runoff","title":"Runoff","description":"Runoff.","inputSchema":{"type":"object",'
           '"properties":{"discharge":{"type":"number","minimum":0},"area":{"type":"number"}}},'
           '"annotations":{"readOnlyHint":true},"icons":[{"src":"data:,x"}],"execution":{"taskSupport":"optional"},'
           '"x-vendor":{"n":1.50},"_meta":{"com.example/owner":"hydro"}},'
           '{"name":"read_discharge","inputSchema":{"type":"object"}}'
           '],"nextCursor":"abc==","ttlMs":60000,"cacheScope":"public","resultType":"complete",'
           '"_meta":{"com.example/page":1.0}}}')


def test_tools_list_rewrites_guarded_tools_only_and_keeps_the_page(guard):
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"xyz"}}')
    out = one(guard.receive(S2C, LISTING.encode()), S2C)
    text = out.decode()
    # unguarded tool and the page envelope: same bytes
    assert '{"name":"echo","description":"Echo \\u00e9","inputSchema":{"type":"object"}}' in text
    assert text.endswith('],"nextCursor":"abc==","ttlMs":60000,"cacheScope":"public","resultType":"complete",'
                         '"_meta":{"com.example/page":1.0}}}\n')
    tools = json.loads(out)["result"]["tools"]
    before = json.loads(LISTING)["result"]["tools"]
    assert [t["name"] for t in tools] == ["echo", "runoff", "read_discharge"]
    runoff = tools[1]
    assert runoff["inputSchema"]["type"] == "object"
    assert runoff["inputSchema"]["properties"]["discharge"]["x-unit"] == "m**3/s"
    assert runoff["inputSchema"]["properties"]["discharge"]["minimum"] == 0
    for key in ("title", "annotations", "icons", "execution", "x-vendor"):
        assert runoff[key] == before[1][key]
    assert runoff["_meta"]["com.example/owner"] == "hydro"
    assert runoff["_meta"]["io.quantity-guard/units"]["discharge"] == "m**3/s"
    assert tools[2]["outputSchema"]["required"] == ["value", "unit"]
    assert set(guard.catalogue) == {"echo", "runoff", "read_discharge"}
    assert guard.catalogue["runoff"] == before[1]  # the catalogue holds what the upstream listed


LIST = b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
CALL_READ = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_discharge","arguments":{}}}'


@pytest.mark.parametrize("request_, answer", [
    pytest.param(LIST, b'{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}',
                 id="tools-list-without-guarded-tools"),
    pytest.param(LIST, b'{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid cursor"}}',
                 id="tools-list-error"),
    pytest.param(LIST, b'{"jsonrpc":"2.0","id":2,"result":{"resultType":"weird","tools":[{"name":"runoff"}]}}',
                 id="tools-list-result-not-complete"),
    pytest.param(CALL_READ, b'{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool"}}',
                 id="upstream-error-stays-an-error"),
])
def test_answers_the_guard_does_not_rewrite_pass_untouched(guard, request_, answer):
    guard.receive(C2S, request_)
    assert one(guard.receive(S2C, answer), S2C) == answer + b"\n"
    assert guard.pending_count() == 0


def test_list_changed_invalidates_the_catalogue(guard):
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    guard.receive(S2C, LISTING.replace('"id":2', '"id":1').encode())
    assert "runoff" in guard.catalogue
    note = b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}'
    assert one(guard.receive(S2C, note), S2C) == note + b"\n"
    assert guard.catalogue_stale
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":4,"method":"tools/list"}')
    out = one(guard.receive(S2C, b'{"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"runoff",'
                                  b'"inputSchema":{"type":"object","properties":{"discharge":{"type":"number"},'
                                  b'"area":{"type":"number"}}}}]}}'), S2C)
    assert not guard.catalogue_stale and set(guard.catalogue) == {"runoff"}
    assert json.loads(out)["result"]["tools"][0]["inputSchema"]["properties"]["area"]["x-unit"] == "km**2"


def test_later_pages_add_to_the_catalogue(guard):
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    guard.receive(S2C, b'{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}],"nextCursor":"2"}}')
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"2"}}')
    guard.receive(S2C, b'{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"b"}]}}')
    assert set(guard.catalogue) == {"a", "b"}


# ------------------------------------------------------------------ tools/call

CALL = ('{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"runoff",'
        '"arguments":{"discharge":{"value":1250,"unit":"cfs"},"area":29000},'
        '"_meta":{"progressToken":"p-1","traceparent":"00-abc-01","com.vendor/x":[1.50,"\\u00e9"],'
        '"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"task":{"ttl":1000},'
        '"inputResponses":{"k":{"action":"accept"}},"requestState":"opaque=="}}')


def test_guarded_call_is_forwarded_with_converted_arguments_only(guard):
    out = one(guard.receive(C2S, CALL.replace("ID", "3").encode()), C2S)
    expected_args = json.dumps({"discharge": 1250 * CFS, "area": 29000}, separators=(",", ":"))
    assert out.decode() == CALL.replace("ID", "3").replace(
        '{"discharge":{"value":1250,"unit":"cfs"},"area":29000}', expected_args) + "\n"
    entry = guard.pending[("i", 3)][0]
    assert entry.tool == "runoff" and entry.guarded and entry.arguments["discharge"] == pytest.approx(35.396, 1e-4)


def test_conversion_is_deterministic_across_mrtr_retries(guard):
    a = one(guard.receive(C2S, CALL.replace("ID", "3").encode()), C2S)
    b = one(guard.receive(C2S, CALL.replace("ID", '"retry-4"').encode()), C2S)
    args = lambda raw: raw.decode().split('"arguments":', 1)[1].split(',"_meta"', 1)[0]  # noqa: E731
    assert args(a) == args(b)


def test_missing_arguments_are_inserted(guard):
    raw = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_discharge"}}'
    out = one(guard.receive(C2S, raw), C2S)
    assert json.loads(out)["params"] == {"arguments": {}, "name": "read_discharge"}


@pytest.mark.parametrize("ident", [7, "7", "a b"])
@pytest.mark.parametrize("modern", [False, True])
def test_refusal_is_answered_with_the_same_id_and_nothing_goes_upstream(guard, ident, modern):
    params = {"name": "runoff", "arguments": {"discharge": 3, "area": -1}}
    if modern:
        params["_meta"] = dict(META)
    out = guard.receive(C2S, line({"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": params}))
    answer = json.loads(one(out, S2C))
    assert answer["id"] == ident and type(answer["id"]) is type(ident)
    result = answer["result"]
    assert result["isError"] is True and "runoff.area" in result["content"][0]["text"]
    assert ("resultType" in result) == modern and result.get("resultType", "complete") == "complete"
    assert guard.pending_count() == 0 and guard.stats["refused"] == 1


def test_non_object_arguments_to_a_guarded_tool_are_refused(guard):
    out = guard.receive(C2S, b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"runoff","arguments":[1]}}')
    assert json.loads(one(out, S2C))["result"]["isError"] is True


def test_labelled_result_for_a_plain_complete_result(guard):
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"read_discharge","arguments":{"site":"1"}}}')
    res = b'{"jsonrpc":"2.0","id":"r","result":{"content":[{"type":"text","text":"1250"}],"_meta":{"k":1}}}'
    out = json.loads(one(guard.receive(S2C, res), S2C))
    assert out["id"] == "r"
    assert out["result"]["structuredContent"] == {"value": 1250.0, "unit": "cfs"}
    assert json.loads(out["result"]["content"][0]["text"]) == {"value": 1250.0, "unit": "cfs"}
    assert out["result"]["_meta"] == {"k": 1}
    assert guard.pending_count() == 0


@pytest.mark.parametrize("result", [
    {"content": [{"type": "text", "text": "1250"}], "isError": True},
    {"resultType": "input_required", "inputRequests": {"k": {"method": "elicitation/create"}}, "requestState": "s"},
    {"resultType": "task", "taskId": "t1"},
    {"resultType": "something-new", "content": []},
    {"task": {"taskId": "t1", "status": "working"}},
    {"structuredContent": {"a": 1}},
])
def test_results_that_are_not_plain_and_complete_pass_untouched(guard, result):
    guard.receive(C2S, CALL_READ)
    res = line({"jsonrpc": "2.0", "id": 1, "result": result})
    assert one(guard.receive(S2C, res), S2C) == res


def test_guarded_tool_is_checked_even_if_never_listed_and_unknown_tools_forwarded(guard, policy):
    assert guard.catalogue == {}
    out = guard.receive(C2S, b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"runoff","arguments":{"discharge":"x","area":1}}}')
    assert json.loads(one(out, S2C))["result"]["isError"]
    raw = b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}'
    assert one(guard.receive(C2S, raw), C2S) == raw + b"\n"


def test_duplicate_params_members_are_refused_with_the_id(guard):
    raw = (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"runoff",'
           b'"arguments":{"discharge":1,"area":1},"arguments":{"discharge":{"value":1,"unit":"cfs"},"area":1}}}')
    out = guard.receive(C2S, raw)
    assert sent(out, C2S) == []
    err = json.loads(one(out, S2C))
    assert err["id"] == 1 and err["error"]["code"] == -32600
    assert "'params.arguments' occurs twice" in err["error"]["message"]


def test_duplicate_keys_inside_guarded_arguments_are_resolved_by_reserialising(guard):
    raw = (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"runoff",'
           b'"arguments":{"discharge":1,"area":1,"discharge":{"value":1,"unit":"cfs"}}}}')
    out = one(guard.receive(C2S, raw), C2S)
    assert out.count(b'"discharge"') == 1
    assert json.loads(out)["params"]["arguments"]["discharge"] == pytest.approx(CFS)


# ------------------------------------------------------------------ pending table, ids, closing

def test_ids_keep_their_type_in_the_pending_table(guard):
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_discharge","arguments":{}}}')
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":"1","method":"tools/call","params":{"name":"echo","arguments":{}}}')
    assert set(guard.pending) == {("i", 1), ("s", "1")}
    res = b'{"jsonrpc":"2.0","id":"1","result":{"content":[{"type":"text","text":"1250"}]}}'
    assert one(guard.receive(S2C, res), S2C) == res + b"\n"  # "1" is the unguarded echo: not labelled
    assert set(guard.pending) == {("i", 1)}


def test_cancellation_is_forwarded_and_forgets_the_request(guard):
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo"}}')
    cancel = b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":"t"}}'
    assert one(guard.receive(C2S, cancel), C2S) == cancel + b"\n"
    assert guard.pending_count() == 0


@pytest.mark.parametrize("ident, shown", [(100, "the id 100 is"), ("a-7", 'the id "a-7" is'),
                                           (-1.5, "the id -1.5 is")])
def test_the_duplicate_id_refusal_names_the_id_as_sent(guard, ident, shown):
    ping = json.dumps({"jsonrpc": "2.0", "id": ident, "method": "ping"}).encode()
    guard.receive(C2S, ping)
    refused = json.loads(one(guard.receive(C2S, ping), S2C))
    assert shown in refused["error"]["message"]


def test_a_duplicate_in_flight_id_is_refused(guard):
    # issue #12, defect 7: pairing answers first-in-first-out could label the wrong answer
    ping = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    assert one(guard.receive(C2S, ping), C2S) == ping + b"\n"
    refused = json.loads(one(guard.receive(C2S, ping), S2C))
    assert refused["id"] == 1 and refused["error"]["code"] == rpc.INVALID_REQUEST
    assert "already used by a request that has not been answered" in refused["error"]["message"]
    assert guard.pending_count() == 1
    # "1" is another id than 1; a batch reusing an id in flight is refused whole
    assert sent(guard.receive(C2S, b'{"jsonrpc":"2.0","id":"1","method":"ping"}'), C2S)
    out = guard.receive(C2S, b'[{"jsonrpc":"2.0","id":2,"method":"ping"},' + ping + b']')
    assert sent(out, C2S) == [] and [e["id"] for e in json.loads(one(out, S2C))] == [2, 1]
    out = guard.receive(C2S, b'[{"jsonrpc":"2.0","id":3,"method":"ping"},'
                             b'{"jsonrpc":"2.0","id":3,"method":"ping"}]')
    assert sent(out, C2S) == []
    # once answered (or cancelled), the id may be used again
    guard.receive(S2C, b'{"jsonrpc":"2.0","id":1,"result":{}}')
    assert one(guard.receive(C2S, ping), C2S) == ping + b"\n"
    guard.receive(C2S, b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}')
    assert one(guard.receive(C2S, ping), C2S) == ping + b"\n"


def test_upstream_closed_answers_every_pending_request_then_refuses(guard):
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"runoff","arguments":{"discharge":1,"area":1}}}')
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":"b","method":"resources/list"}')
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":null,"method":"ping"}')  # untrackable
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":3,"method":"ping"}')
    guard.receive(S2C, b'{"jsonrpc":"2.0","id":3,"result":{}}')
    out = guard.upstream_closed("the upstream MCP server exited (exit code 3)")
    answers = [json.loads(d) for d in sent(out, S2C)]
    assert [a["id"] for a in answers] == [1, "b"]
    assert all(a["error"]["code"] == rpc.INTERNAL_ERROR and "exit code 3" in a["error"]["message"] for a in answers)
    assert guard.pending_count() == 0 and guard.closed
    late = guard.receive(C2S, b'{"jsonrpc":"2.0","id":4,"method":"tools/list"}')
    assert json.loads(one(late, S2C))["error"]["code"] == rpc.INTERNAL_ERROR
    assert guard.receive(C2S, b'{"jsonrpc":"2.0","method":"notifications/initialized"}') == []
    assert sent(guard.receive(S2C, b'{"jsonrpc":"2.0","id":1,"result":{}}'), S2C) == []
    assert guard.upstream_closed() == []


# ------------------------------------------------------------------ eras and sessions

def test_eras_and_policy_resets(guard, policy):
    assert guard.era is None
    guard.receive(C2S, line({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": META}}))
    assert guard.era == "modern" and policy.resets == 1
    guard.receive(S2C, b'{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}')
    guard.receive(C2S, line({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}))
    assert guard.era == "legacy" and policy.resets == 2
    guard.receive(S2C, b'{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}')
    assert guard.protocol_version == "2025-06-18"
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":3,"method":"tools/list"}')
    assert policy.resets == 2
    for i in (4, 5):
        guard.receive(C2S, line({"jsonrpc": "2.0", "id": i, "method": "tools/list", "params": {"_meta": META}}))
    assert guard.era == "modern" and policy.resets == 3
    guard.receive(C2S, line({"jsonrpc": "2.0", "id": 6, "method": "initialize", "params": {}}))
    assert policy.resets == 4


def test_initialize_and_discover_are_never_rewritten(guard):
    init = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2099-01-01","capabilities":{"x":{}}}}'
    assert one(guard.receive(C2S, init), C2S) == init + b"\n"
    res = b'{"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{"listChanged":true}}},"id":1,"jsonrpc":"2.0"}'
    assert one(guard.receive(S2C, res), S2C) == res + b"\n"


# ------------------------------------------------------------------ odd input

@pytest.mark.parametrize("raw,code,ident", [
    (b"not json", rpc.PARSE_ERROR, None),
    (b'{"jsonrpc":"2.0","id":1,"method":"ping"', rpc.PARSE_ERROR, None),
    (b'\xff\xfe{"jsonrpc":"2.0"}', rpc.PARSE_ERROR, None),
    (b'{"jsonrpc":"2.0","id":1,"method":"x\xc3"}', rpc.PARSE_ERROR, None),
    (b"[" * 100_000, rpc.PARSE_ERROR, None),
    (b"42", rpc.INVALID_REQUEST, None),
    (b'"hello"', rpc.INVALID_REQUEST, None),
    (b"null", rpc.INVALID_REQUEST, None),
    (b"{}", rpc.INVALID_REQUEST, None),
    (b'{"id":5}', rpc.INVALID_REQUEST, 5),
    (b'{"id":"5","method":7}', rpc.INVALID_REQUEST, "5"),
    (b"[]", rpc.INVALID_REQUEST, None),
])
def test_malformed_client_input_is_answered_and_never_forwarded(guard, raw, code, ident):
    out = guard.receive(C2S, raw + b"\n")
    answer = json.loads(one(out, S2C))
    assert answer["error"]["code"] == code and answer["id"] == ident and answer["jsonrpc"] == "2.0"


def test_blank_lines_are_ignored(guard):
    assert guard.receive(C2S, b"\n") == [] and guard.receive(C2S, b"  \r\n") == []
    assert guard.receive(S2C, b"\n") == []


def test_batches_pass_unless_they_call_a_guarded_tool(guard):
    batch = b'[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]'
    assert one(guard.receive(C2S, batch), C2S) == batch + b"\n"
    assert guard.pending_count() == 2
    # the upstream answers as a batch; the tools/list element is rewritten, the rest kept
    reply = ('[{"jsonrpc":"2.0","id":1,"result":{}},' + LISTING + "]").replace('"id":2,"result":{"tools"', '"id":2,"result":{"tools"')
    out = one(guard.receive(S2C, reply.encode()), S2C).decode()
    assert out.startswith('[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo"')
    assert json.loads(out)[1]["result"]["tools"][1]["inputSchema"]["properties"]["discharge"]["x-unit"] == "m**3/s"
    assert guard.pending_count() == 0
    guarded = b'[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"runoff","arguments":{}}},{"jsonrpc":"2.0","method":"notifications/x"}]'
    answer = json.loads(one(guard.receive(C2S, guarded), S2C))
    assert [a["id"] for a in answer] == [3, "c"] and all(a["error"]["code"] == rpc.INVALID_REQUEST for a in answer)
    assert guard.pending_count() == 0


@pytest.mark.parametrize("raw", [
    b"Server v1.0 listening", b"\xff\xfe\xfd", b"42", b'{"hello":"world"}', b"[]", b"[1,2]",
    b'{"jsonrpc":"2.0","id":1,"method":', b"null",
])
def test_upstream_junk_is_dropped_and_logged(guard, raw):
    out = guard.receive(S2C, raw + b"\n")
    assert sent(out, S2C) == [] and sent(out, C2S) == [] and len(sent(out, LOG)) == 1


def test_random_input_never_raises():
    rng = random.Random(1234)
    pieces = [b"{", b"}", b"[", b"]", b'"', b":", b",", b"\\", b"\xff", b"\xc3", b"null", b"1", b'"id"',
              b'"method"', b'"tools/call"', b'"params"', b'"name"', b'"runoff"', b'"arguments"', b'"result"',
              b'"tools"', b" ", b"\r", b"NaN", b"-0", b"1e999", b'"jsonrpc":"2.0"']
    g = Guard(FakePolicy())
    for i in range(3000):
        raw = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        for direction in (C2S, S2C):
            out = g.receive(direction, raw)
            assert all(d in (C2S, S2C, LOG) and isinstance(b, bytes) for d, b in out)
            for d, b in out:
                if d != LOG:
                    assert b.endswith(b"\n") and b"\n" not in b[:-1]
        if i % 500 == 0:
            g.upstream_closed()
            g = Guard(FakePolicy())


def test_structured_random_messages_never_raise():
    rng = random.Random(99)
    values = [None, 1, -1, 1.5, "x", "runoff", "read_discharge", [], {}, [1], {"a": 1}, True,
              {"discharge": {"value": 1, "unit": "cfs"}, "area": 2}, float("inf")]
    methods = ["tools/call", "tools/list", "initialize", "server/discover", "notifications/cancelled", None, 5]
    g = Guard(FakePolicy())
    for _ in range(3000):
        msg = {}
        for key in ("jsonrpc", "id", "method", "params", "result", "error"):
            if rng.random() < 0.5:
                msg[key] = rng.choice(methods) if key == "method" else rng.choice(values)
        if rng.random() < 0.5:
            msg["params"] = {"name": rng.choice(values), "arguments": rng.choice(values),
                             "requestId": rng.choice(values), "cursor": rng.choice(values)}
        if rng.random() < 0.3:
            msg["result"] = {"tools": [{"name": rng.choice(values), "inputSchema": rng.choice(values)}],
                             "content": rng.choice(values), "isError": rng.choice(values)}
        raw = json.dumps(msg).encode()  # may contain Infinity: Python reads it back
        for direction in (C2S, S2C):
            g.receive(direction, raw)


# ------------------------------------------------------------------ a failing policy

class Exploding(FakePolicy):
    def __init__(self, where):
        super().__init__()
        self.where = where

    def guards(self, name):
        if self.where == "guards":
            raise RuntimeError("boom")
        return super().guards(name)

    def check_call(self, name, arguments):
        if self.where == "check":
            raise RuntimeError("boom")
        if self.where == "nan":
            return ("forward", {"discharge": float("nan")})
        if self.where == "nonsense":
            return ("maybe", 3)
        return super().check_call(name, arguments)

    def advertise(self, tool):
        if self.where == "advertise":
            raise RuntimeError("boom")
        return super().advertise(tool)

    def label_result(self, name, arguments, result):
        if self.where == "label":
            raise RuntimeError("boom")
        return super().label_result(name, arguments, result)

    def reset(self):
        if self.where == "reset":
            raise RuntimeError("boom")


GOOD_CALL = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"runoff","arguments":{"discharge":1,"area":1}}}'


def test_a_failing_guards_counts_as_guarded():
    policy = Exploding("guards")
    g = Guard(policy)
    out = g.receive(C2S, GOOD_CALL.replace(b"runoff", b"echo"))
    assert sent(out, LOG) and policy.calls == [("check", "echo", '{"area": 1, "discharge": 1}')]


@pytest.mark.parametrize("where", ["check", "nan", "nonsense"])
def test_policy_failures_in_checking_fail_closed(where):
    g = Guard(Exploding(where))
    out = g.receive(C2S, GOOD_CALL)
    assert sent(out, C2S) == [] and sent(out, LOG)
    assert json.loads(one(out, S2C))["result"]["isError"] is True


@pytest.mark.parametrize("where", ["advertise", "label", "reset"])
def test_policy_failures_elsewhere_leave_messages_as_sent(where):
    g = Guard(Exploding(where))
    out = g.receive(C2S, b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}')
    assert sent(out, C2S) and bool(sent(out, LOG)) == (where == "reset")
    g.receive(C2S, b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}')
    page = b'{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"read_discharge","inputSchema":{"type":"object"}}]}}'
    out = g.receive(S2C, page)
    assert (one(out, S2C) == page + b"\n") == (where == "advertise")
    g.receive(C2S, b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_discharge","arguments":{}}}')
    res = b'{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"1"}]}}'
    out = g.receive(S2C, res)
    assert (one(out, S2C) == res + b"\n") == (where == "label")
    assert "error" not in json.loads(one(out, S2C))  # a result never becomes an error


def test_a_64_mib_response_passes(guard):
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}')
    big = b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"' + b"y" * (64 << 20) + b'"}]}}'
    out = guard.receive(S2C, big + b"\n")
    assert one(out, S2C) == big + b"\n" and guard.pending_count() == 0


# ------------------------------------------------------------------ beyond Python's JSON limits

HUGE = "9" * 5000                    # more digits than int() reads (3.11+)
DEEP = "[" * 100_000 + "]" * 100_000  # deeper than json.loads goes on 3.10-3.13 (3.13 reads 3,000)
DEEP_ENOUGH = "[" * 20_000 + "]" * 20_000  # 3.13 reads 5,000; none reads 20,000


@pytest.mark.parametrize("value", [HUGE, DEEP, '{"a":' + DEEP + ',"b":-' + HUGE + '.5e3}'])
def test_messages_beyond_python_json_limits_pass_as_bytes(guard, value):
    # issue #12, defect 4: valid JSON the proxy need not rewrite is located, not parsed
    req = ('{"jsonrpc":"2.0","id":7,"method":"echo/x","params":{"v":' + value + '}}').encode()
    assert one(guard.receive(C2S, req), C2S) == req + b"\n"
    assert guard.pending_count() == 1
    res = ('{"jsonrpc":"2.0","id":7,"result":{"v":' + value + '}}').encode()
    assert one(guard.receive(S2C, res), S2C) == res + b"\n"
    assert guard.pending_count() == 0
    # an unguarded tools/call too, and its answer
    call = ('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":'
            '{"v":' + value + '}}}').encode()
    assert one(guard.receive(C2S, call), C2S) == call + b"\n"
    res = ('{"jsonrpc":"2.0","id":8,"result":{"content":[],"v":' + value + '}}').encode()
    assert one(guard.receive(S2C, res), S2C) == res + b"\n"
    # a guarded call whose arguments cannot be parsed is answered with its id, not forwarded
    call = ('{"jsonrpc":"2.0","id":"g","method":"tools/call","params":{"name":"runoff",'
            '"arguments":{"discharge":' + value + ',"area":1}}}').encode()
    out = guard.receive(C2S, call)
    assert sent(out, C2S) == []
    err = json.loads(one(out, S2C))["error"]
    assert json.loads(one(out, S2C))["id"] == "g" and err["code"] == rpc.PARSE_ERROR
    assert "cannot be parsed" in err["message"] and "runoff" in err["message"]
    assert guard.pending_count() == 0


def test_a_guarded_result_beyond_python_limits_passes_unlabelled(guard, policy):
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_discharge","arguments":{}}}')
    res = ('{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"1"}],"x":' + DEEP + '}}').encode()
    assert one(guard.receive(S2C, res), S2C) == res + b"\n"
    assert guard.pending_count() == 0


def test_truly_invalid_json_is_still_a_parse_error(guard):
    for bad in (b'{"jsonrpc":"2.0","id":1,"method":"x","params":[1,]}', b'{"id":1,' + b"[" * 100_000):
        out = guard.receive(C2S, bad)
        assert json.loads(one(out, S2C))["error"]["code"] == rpc.PARSE_ERROR


def test_span_scanner_agrees_with_the_json_module():
    from hypothesis import example, given, settings
    from hypothesis import strategies as st

    values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3),
        max_leaves=12)

    @settings(max_examples=300, deadline=None)
    @given(values, st.sampled_from([(",", ":"), (", ", ": "), (" ,\t", " :\n")]))
    def check(value, seps):
        text = json.dumps(value, separators=seps)
        assert rpc.skip_value(" " + text + " ", 0) == len(text) + 1

    @settings(max_examples=300, deadline=None)
    @given(st.text(alphabet='[]{}",:01-.eE tfnrul\\', max_size=12))
    @example('[1,]')
    @example('{"a":1,}')
    @example('01')
    def invalid(text):
        try:
            json.loads(text)
            ok = True
        except ValueError:
            ok = False
        try:
            end = rpc.skip_value(text, 0)
            mine = not text[end:].strip(" \t\n\r")
        except rpc.ParseError:
            mine = False
        assert mine == ok, text

    check()
    invalid()


# ------------------------------------------------------------------ the listing cache (#13 item 5)

class CountingPolicy(FakePolicy):
    def __init__(self):
        super().__init__()
        self.advertised = 0

    def advertise(self, tool):
        self.advertised += 1
        return super().advertise(tool)


@pytest.fixture(params=["parsed", "found by its text"])
def listing_path(request, monkeypatch):
    """The cache tests run twice: with every listing parsed, and with any listing (however
    short) first looked up by its text, as long ones are."""
    import quantity_guard.mcp.guard as guard_module
    monkeypatch.setattr(guard_module, "_LIST_FAST_MIN", 1 << 30 if request.param == "parsed" else 0)
    return request.param


@pytest.mark.parametrize("form", ["id first", "id last", "id elsewhere"])
def test_a_repeated_listing_is_rewritten_once_and_answered_alike(form, listing_path):
    policy = CountingPolicy()
    guard = Guard(policy)
    body = LISTING[len('{"jsonrpc":"2.0","id":2,'):-1]  # '"result":{...}'

    def answer(ident):
        idtext = json.dumps(ident)
        if form == "id first":
            return '{"jsonrpc":"2.0","id":' + idtext + "," + body + "}"
        if form == "id last":
            return "{" + body + ',"jsonrpc":"2.0","id":' + idtext + "}"
        return '{"jsonrpc":"2.0",' + body + ',"id":' + idtext + "}"

    outs = []
    for ident in (2, "two", 3, 2):
        guard.receive(C2S, line({"jsonrpc": "2.0", "id": ident, "method": "tools/list"}))
        outs.append(json.loads(one(guard.receive(S2C, answer(ident).encode()), S2C)))
    assert [o["id"] for o in outs] == [2, "two", 3, 2]
    assert all(o["result"] == outs[0]["result"] for o in outs)
    assert outs[0]["result"]["tools"][1]["inputSchema"]["properties"]["discharge"]["x-unit"] == "m**3/s"
    assert policy.advertised == (2 if form != "id elsewhere" else 8)  # two guarded tools
    assert set(guard.catalogue) == {"echo", "runoff", "read_discharge"}
    # another listing is rewritten afresh, and the catalogue follows it
    other = answer(9).replace('"name":"echo"', '"name":"echo2"')
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":9,"method":"tools/list"}')
    got = json.loads(one(guard.receive(S2C, other.encode()), S2C))
    assert got["result"]["tools"][0]["name"] == "echo2" and "echo2" in guard.catalogue
    assert "echo" not in guard.catalogue
    # a listing that needs no change is remembered as such and passes byte for byte
    plain = '{"jsonrpc":"2.0","id":10,"result":{"tools":[{"name":"echo","inputSchema":{}}]}}'
    for ident in (10, 11):
        guard.receive(C2S, b'{"jsonrpc":"2.0","id":%d,"method":"tools/list"}' % ident)
        raw = plain.replace('"id":10', '"id":%d' % ident).encode()
        assert one(guard.receive(S2C, raw), S2C) == raw + b"\n"


def test_a_remembered_listing_is_answered_without_parsing_it(monkeypatch, listing_path):
    import quantity_guard.mcp.guard as guard_module
    guard = Guard(CountingPolicy())
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}')
    first = one(guard.receive(S2C, LISTING.encode()), S2C)
    decoded = []
    real = guard_module.rpc.decode
    monkeypatch.setattr(guard_module.rpc, "decode", lambda raw: decoded.append(raw) or real(raw))
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":"s1","method":"tools/list"}')
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":7,"method":"ping"}')  # another request pending
    again = one(guard.receive(S2C, LISTING.replace('"id":2', '"id":"s1"').encode()), S2C)
    assert again == first.replace(b'"id":2', b'"id":"s1"')
    listings_parsed = [raw for raw in decoded if b'"tools"' in raw]
    assert len(listings_parsed) == (0 if listing_path == "found by its text" else 1)
    assert set(guard.catalogue) == {"echo", "runoff", "read_discharge"}
    # an answer with the pending ping's id is not taken for a listing, even with the same text
    out = json.loads(one(guard.receive(S2C, LISTING.replace('"id":2', '"id":7').encode()), S2C))
    assert out["id"] == 7 and "x-unit" not in json.dumps(out)  # forwarded as sent
    assert guard.stats["rewritten"] == 2


def test_a_remembered_listing_is_forgotten_when_a_tool_is_advertised_anew(listing_path):
    # the policy keeps what it last advertised (e.g. which parameters are integers): a listing
    # A, then B changing a guarded tool, then A again must call advertise again for A
    policy = CountingPolicy()
    guard = Guard(policy)
    b = LISTING.replace('"minimum":0', '"minimum":1')
    for i, text in enumerate([LISTING, LISTING, b, LISTING]):
        guard.receive(C2S, b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}')
        out = json.loads(one(guard.receive(S2C, text.encode()), S2C))
        assert out["result"]["tools"][1]["inputSchema"]["properties"]["discharge"]["minimum"] == \
            (1 if text is b else 0)
    assert policy.advertised == 2 * 3  # A, B, A: two guarded tools each


def test_an_unparseable_listing_passes_as_sent_and_says_so(guard):
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":4,"method":"tools/list"}')
    res = ('{"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"runoff","inputSchema":{}}],"x":'
           + DEEP + '}}').encode()
    out = guard.receive(S2C, res)
    assert one(out, S2C) == res + b"\n"
    assert any(d == LOG and b"beyond Python's JSON limits" in b for d, b in out)


def test_shallow_decoding_agrees_with_decoding_on_what_classifies_a_message():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from quantity_guard.mcp.guard import is_modern

    scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=6)
    values = st.recursive(scalars, lambda c: st.lists(c, max_size=2)
                          | st.dictionaries(st.text(max_size=4), c, max_size=2), max_leaves=6)
    message = st.fixed_dictionaries({}, optional={
        "jsonrpc": st.just("2.0"), "id": scalars, "method": st.sampled_from(["tools/call", "x"]) | scalars,
        "params": st.fixed_dictionaries({}, optional={"name": scalars, "_meta": values,
                                                      "arguments": values}) | values,
        "result": values, "error": values})

    @settings(max_examples=300, deadline=None)
    @given(message)
    def check(msg):
        text = json.dumps(msg)
        # a member Python's parser cannot read, which plays no part in classifying the message
        # (20,000 deep is beyond json.loads on 3.10-3.13 and a fifth of DEEP's reading time)
        deep = text[:-1] + (", " if msg else "") + '"zz": ' + DEEP_ENOUGH + "}"
        with pytest.raises(rpc.ParseError):
            rpc.decode(deep)
        full, shallow = rpc.classify(rpc.loads(text)), rpc.classify(rpc.decode_shallow(deep)[1])
        assert (full.kind, full.key, full.method) == (shallow.kind, shallow.key, shallow.method)
        assert is_modern(full.params) == is_modern(shallow.params)

    check()


# ------------------------------------------------------------------ every refusal carries a code

VIOLATION = "io.github.quantity-guard/violation"


def test_non_object_arguments_carry_the_invalid_arguments_code(guard):
    out = guard.receive(C2S, b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"runoff","arguments":[1]}}')
    result = json.loads(one(out, S2C))["result"]
    assert result["_meta"][VIOLATION] == {"code": "invalid_arguments", "field": "runoff"}
    assert "not an array" in result["content"][0]["text"]


class _RefusesWithNaN(FakePolicy):
    def check_call(self, name, arguments):
        return ("refuse", {"content": [{"type": "text", "text": "no"}], "isError": True,
                           "bad": float("nan")})


@pytest.mark.parametrize("where", ["check", "nan", "nonsense", "unencodable_refusal"])
def test_policy_failures_carry_the_guard_internal_error_code(where):
    g = Guard(_RefusesWithNaN() if where == "unencodable_refusal" else Exploding(where))
    out = g.receive(C2S, GOOD_CALL)
    assert sent(out, C2S) == []
    result = json.loads(one(out, S2C))["result"]
    assert result["isError"] is True
    assert result["_meta"][VIOLATION]["code"] == "guard_internal_error"
    assert result["_meta"][VIOLATION]["field"] in ("runoff", None)


# ------------------------------------------------------------------ over-limit lines (issue #18 item 9)

def _over(raw: bytes, limit: int = 64) -> rpc.Oversized:
    [line_] = rpc.LineBuffer(limit).feed(raw + b"\n")
    assert isinstance(line_, rpc.Oversized)
    return line_


def test_an_over_limit_client_request_is_answered_with_its_id_and_not_forwarded(guard):
    big = b'{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"name":"echo","arguments":{"b":"' + b"x" * 200 + b'"}}}'
    out = guard.receive(C2S, _over(big))
    answer = json.loads(one(out, S2C))
    assert answer["id"] == "q" and answer["error"]["code"] == rpc.INVALID_REQUEST
    assert f"a message of {len(big)} bytes, over the proxy's maximum message size of 64 bytes" \
        in answer["error"]["message"]
    assert any(b"dropped" in data for d, data in out if d == LOG)
    assert guard.pending_count() == 0
    # an over-limit notification is only logged; a line with no id at all gets id null
    assert sent(guard.receive(C2S, _over(b'{"jsonrpc":"2.0","method":"notifications/x","params":{"d":"' + b"x" * 99 + b'"}}')), S2C) == []
    assert json.loads(one(guard.receive(C2S, _over(b"x" * 100)), S2C))["id"] is None


def test_an_over_limit_answer_fails_its_pending_request_only(guard):
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{}}')
    guard.receive(C2S, b'{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{}}')
    # the id written last, as the TypeScript SDK writes it
    out = guard.receive(S2C, _over(b'{"result":{"contents":"' + b"x" * 200 + b'"},"jsonrpc":"2.0","id":2}'))
    answer = json.loads(one(out, S2C))
    assert answer["id"] == 2 and answer["error"]["code"] == rpc.INTERNAL_ERROR
    assert "answered this resources/read request with a message of" in answer["error"]["message"]
    assert guard.pending_count() == 1
    ok = b'{"jsonrpc":"2.0","id":1,"result":{}}'
    assert one(guard.receive(S2C, ok), S2C) == ok + b"\n"
    # an unmatched over-limit answer is dropped; an over-limit server request answered upstream
    assert sent(guard.receive(S2C, _over(b'{"jsonrpc":"2.0","id":9,"result":"' + b"x" * 99 + b'"}')), S2C) == []
    out = guard.receive(S2C, _over(b'{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":"' + b"x" * 99 + b'"}'))
    assert json.loads(one(out, C2S))["id"] == 5


def test_an_over_limit_answer_from_the_client_fails_the_upstream_request(guard):
    out = guard.receive(C2S, _over(b'{"jsonrpc":"2.0","id":"s1","result":{"content":"' + b"x" * 200 + b'"}}'))
    answer = json.loads(one(out, C2S))  # to the upstream, whose request it answered
    assert answer["id"] == "s1" and answer["error"]["code"] == rpc.INTERNAL_ERROR
    assert "over the proxy's maximum message size of 64 bytes" in answer["error"]["message"]


def test_a_rewritten_call_or_result_keeps_every_byte_outside_the_replaced_value():
    """However a peer spaces and orders its members, the guard replaces only the value it
    converts (a call's ``arguments``, a labelled ``result``): the bytes before and after it are
    the peer's own, and the value is written as compact JSON."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    def obj_text(members: dict, order, seps) -> str:
        return "{" + seps[0].join(json.dumps(k) + seps[1] + members[k] for k in order if k in members) + "}"

    @settings(max_examples=150, deadline=None)
    @given(ident=st.integers(-2**53, 2**53) | st.text(max_size=6),
           seps=st.sampled_from([(",", ":"), (", ", ": "), (" ,\t", " : ")]),
           order=st.permutations(["jsonrpc", "id", "method", "params"]),
           porder=st.permutations(["name", "arguments", "_meta"]), meta=st.booleans(),
           value=st.integers(-10**6, 10**6) | st.floats(-1e6, 1e6), area=st.integers(0, 10**6),
           rorder=st.permutations(["jsonrpc", "id", "result"]))
    def check(ident, seps, order, porder, meta, value, area, rorder):
        guard = Guard(FakePolicy())
        hole = "\x00"
        args = json.dumps({"discharge": {"value": value, "unit": "cfs"}, "area": area}, separators=seps)
        params = {"name": '"runoff"', "arguments": hole}
        if meta:
            params["_meta"] = json.dumps({"progressToken": ident}, separators=seps)
        top = {"jsonrpc": '"2.0"', "id": json.dumps(ident), "method": '"tools/call"',
               "params": obj_text(params, porder, seps)}
        before, after = obj_text(top, order, seps).split(hole)
        out = one(guard.receive(C2S, (before + args + after).encode()), C2S).decode()
        forwarded = json.loads(out)["params"]["arguments"]
        assert forwarded == {"discharge": pytest.approx(value * CFS), "area": area}
        assert out == before + rpc.dumps(forwarded) + after + "\n"
        # a labelled answer
        rid = json.dumps(ident) + "r"  # not the id in flight above
        guard.receive(C2S, line({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                                 "params": {"name": "read_discharge", "arguments": {}}}))
        result = json.dumps({"content": [{"type": "text", "text": "1250"}]}, separators=seps)
        answer = {"jsonrpc": '"2.0"', "id": json.dumps(rid), "result": hole}
        before, after = obj_text(answer, rorder, seps).split(hole)
        out = one(guard.receive(S2C, (before + result + after).encode()), S2C).decode()
        labelled = json.loads(out)["result"]
        assert labelled["structuredContent"] == {"value": 1250.0, "unit": "cfs"}
        assert out == before + rpc.dumps(labelled) + after + "\n"

    check()
