"""Which conversation a request belongs to: session, header, trace context, credential."""
from __future__ import annotations

from quantity_guard.mcp.identity import IdentityKey, conversation_of, trace_id

KEY = IdentityKey(b"k" * 32)
TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
INFO = {"io.modelcontextprotocol/clientInfo": {"name": "mcp", "version": "2.3.0"}}


def test_the_order_session_header_trace_client():
    meta = {**INFO, "traceparent": TP}
    full = dict(session_id="sid-1", header="conv-9", meta=meta, authorization="Bearer a", key=KEY)
    assert conversation_of(**full).kind == "session"
    assert conversation_of(**{**full, "session_id": None}).kind == "header"
    assert conversation_of(**{**full, "session_id": None, "header": None}).kind == "trace"
    assert conversation_of(**{**full, "session_id": None, "header": None, "meta": INFO}).kind == "client"


def test_one_trace_is_one_conversation_whatever_the_span():
    a = conversation_of(meta={"traceparent": TP}, key=KEY)
    b = conversation_of(meta={"traceparent": TP[:36] + "1111111111111111-01"}, key=KEY)
    assert a == b and a.key.startswith("t:4bf92f3577b34da6a3ce929d0e0e4736")


def test_invalid_trace_contexts_fall_through():
    for bad in ("", "00-" + "0" * 32 + "-00f067aa0ba902b7-01", "ff-" + TP[3:],
                "00-4bf92f3577b34da6a3ce929d0e0e4736-" + "0" * 16 + "-01", TP + "-extra",
                "00-4BF92F35-00f067aa0ba902b7-01", 42):
        assert trace_id({"traceparent": bad}) is None
    assert trace_id(None) is None


def test_two_credentials_never_share_a_ledger():
    for shared in (dict(session_id="s"), dict(header="same"), dict(meta={"traceparent": TP}),
                   dict(meta=INFO)):
        a = conversation_of(authorization="Bearer alice", key=KEY, **shared)
        b = conversation_of(authorization="Bearer bob", key=KEY, **shared)
        anon = conversation_of(key=KEY, **shared)
        assert len({a.key, b.key, anon.key}) == 3


def test_the_credential_is_never_in_the_key():
    c = conversation_of(authorization="Bearer s3cr3t-token", meta=INFO, key=KEY)
    assert "s3cr3t" not in c.key and "Bearer" not in c.key
    # keyed: another gateway secret gives another hash
    assert conversation_of(authorization="Bearer s3cr3t-token", meta=INFO,
                           key=IdentityKey(b"x" * 32)).key != c.key


def test_a_stock_client_keeps_one_key_across_calls():
    assert conversation_of(meta=INFO, key=KEY) == conversation_of(meta=dict(INFO), key=KEY)
    other = {"io.modelcontextprotocol/clientInfo": {"name": "other-agent", "version": "1"}}
    assert conversation_of(meta=other, key=KEY) != conversation_of(meta=INFO, key=KEY)
