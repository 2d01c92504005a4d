"""The 2026-07-28 request metadata headers (quantity_guard/mcp/http/headers.py) and --listen
address parsing, checked against the examples of the specification text."""
from __future__ import annotations

import base64

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from quantity_guard.mcp.http.headers import encode_value, modern_headers, param_headers
from quantity_guard.mcp.http.listen import parse_listen
from quantity_guard.mcp.http.wire import HeaderError, check_header

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


@pytest.mark.parametrize("value, header", [  # streamable-http.mdx, "Value Encoding" examples
    ("us-west1", "us-west1"),
    ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
    (" padded ", "=?base64?IHBhZGRlZCA=?="),
    ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
    ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
])
def test_value_encoding_examples(value, header):
    assert encode_value(value) == header


@given(st.text())
@example("\r\nX-Injected: 1")
@example("0\n")  # a trailing newline once passed as plain text (a regex "$" matches before it)
def test_any_value_becomes_a_safe_header_that_decodes_back(value):
    out = encode_value(value)
    check_header("Mcp-Param-X", out)  # never raises: no CR, LF, NUL or non-Latin-1
    if out.startswith("=?base64?") and out.endswith("?="):
        assert base64.b64decode(out[9:-2]).decode("utf-8", "surrogatepass") == value
    else:
        assert out == value


@pytest.mark.parametrize("name", ["X-Region\n", "X-Region\r\n", "X-Region\nX-Injected"])
def test_a_header_name_with_a_line_break_is_refused(name):
    with pytest.raises(HeaderError):
        check_header(name, "eu")
    tool = {"name": "t", "inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": name.split("-", 1)[1]}}}}
    assert param_headers(tool, {"region": "eu"}) == []  # not a token: no header is derived


def test_standard_and_param_headers_follow_the_body():
    tool = {"name": "execute_sql", "inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "opts": {"type": "object", "properties": {"limit": {"type": "integer", "x-mcp-header": "Limit"},
                                                  "dry": {"type": "boolean", "x-mcp-header": "Dry"}}},
        "query": {"type": "string"}}}}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "execute_sql", "_meta": META,
                       "arguments": {"region": "us-west1", "opts": {"limit": 120.0, "dry": False}, "query": "x"}}}
    assert modern_headers(body, {"execute_sql": tool}) == [
        ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "execute_sql"),
        ("Mcp-Param-Region", "us-west1"), ("Mcp-Param-Limit", "120"), ("Mcp-Param-Dry", "false")]
    # absent and null values give no header
    assert param_headers(tool, {"region": None, "opts": {}}) == []
    # resources/read names the uri; a notification has no method headers
    read = {"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "file:///a b", "_meta": META}}
    assert ("Mcp-Name", encode_value("file:///a b")) in modern_headers(read)
    assert modern_headers({"jsonrpc": "2.0", "method": "notifications/x", "params": {"_meta": META}}) == [
        ("MCP-Protocol-Version", "2026-07-28")]


def test_duplicate_annotations_make_a_tool_give_no_param_headers():
    tool = {"inputSchema": {"type": "object", "properties": {
        "a": {"type": "string", "x-mcp-header": "X"}, "b": {"type": "string", "x-mcp-header": "x"}}}}
    assert param_headers(tool, {"a": "1", "b": "2"}) == []


@pytest.mark.parametrize("text, address", [
    ("8765", ("127.0.0.1", 8765)), ("0.0.0.0:80", ("0.0.0.0", 80)), ("[::1]:9000", ("::1", 9000)),
    ("localhost:1", ("localhost", 1)),
])
def test_listen_addresses(text, address):
    assert parse_listen(text) == address


@pytest.mark.parametrize("text", ["", "x", ":80", "host:", "host:99999", "[::1]9000"])
def test_bad_listen_addresses(text):
    with pytest.raises(ValueError):
        parse_listen(text)


def test_header_mismatch_names_what_disagrees():
    from quantity_guard.mcp.http.headers import decode_value, header_mismatch
    from quantity_guard.mcp.http.wire import Headers
    tool = {"name": "q", "inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"}}}}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "q", "arguments": {"region": "eu wést"}, "_meta": META}}
    good = [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "q"),
            ("Mcp-Param-Region", encode_value("eu wést"))]
    assert decode_value(good[3][1]) == "eu wést" and decode_value("=?base64?%%%?=") is None
    assert header_mismatch(body, Headers(good), {"q": tool}) is None
    assert header_mismatch(body, Headers(good + [("Mcp-Param-Other", "x")]), {"q": tool}) is None
    assert "Mcp-Param-Region" in header_mismatch(body, Headers(good[:3] + [("Mcp-Param-Region", "eu")]), {"q": tool})
    assert "appears 2 times" in header_mismatch(body, Headers(good + [("mcp-name", "q")]), {"q": tool})
    assert "missing" in header_mismatch(body, Headers(good[1:]), {"q": tool})
    # a notification, or a request without the 2026 _meta, is not checked here
    assert header_mismatch({"jsonrpc": "2.0", "method": "notifications/x", "params": {"_meta": META}}, Headers(), None) is None
    assert header_mismatch({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, Headers(), None) is None
