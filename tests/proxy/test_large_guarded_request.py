"""A guarded tools/call request of a megabyte or more (rewritten from its bytes, its decoded
text let go) is converted exactly as a small one is: the guarded argument converted, every
other byte of a compact request kept, a request written otherwise re-serialised."""
from __future__ import annotations

import json

import pytest

from quantity_guard.mcp.guard import C2S, S2C, Guard
from quantity_guard.mcp.policy import build_policy

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}}


@pytest.fixture
def guard(tmp_path):
    ann = tmp_path / "a.toml"
    ann.write_text("[tools.runoff.params]\ndischarge = 'm**3/s'\n")
    g = Guard(build_policy(str(ann)))
    g.receive(C2S, json.dumps(INIT).encode())
    g.receive(S2C, json.dumps({"jsonrpc": "2.0", "id": 0, "result": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}}).encode())
    return g


@pytest.mark.parametrize("note_size", [10, 2 << 20])
@pytest.mark.parametrize("separators", [(",", ":"), (", ", ": ")])
def test_a_guarded_request_of_any_size_is_converted_alike(guard, note_size, separators):
    note = "\u00e9" + "y" * note_size  # non-ASCII too: the bytes and the text differ in length
    request = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
               "params": {"name": "runoff", "arguments": {"discharge": "1250 cfs", "note": note}}}
    line = json.dumps(request, separators=separators, ensure_ascii=False).encode()
    out = guard.receive(C2S, line)
    assert [d for d, _ in out] == [C2S]
    sent = out[0][1]
    assert sent.endswith(b"\n") and sent.count(b"\n") == 1
    forwarded = json.loads(sent)
    assert forwarded["params"]["arguments"]["discharge"] == pytest.approx(35.39605824)
    assert forwarded["params"]["arguments"]["note"] == note
    assert forwarded["id"] == 7 and forwarded["params"]["name"] == "runoff"
    if separators == (",", ":"):  # compact: everything but the converted value kept as it came
        head = line[:line.index(b'"arguments":')]
        assert sent.startswith(head)
