"""The era moves by the rows of state.ERA_STEPS, and the policy starts a new client session
exactly where a row says so: every row is driven through a Guard."""
from __future__ import annotations

import json

import pytest

from quantity_guard.mcp.guard import C2S, Guard, PassThroughPolicy
from quantity_guard.mcp.state import (ERA_STEPS, INITIALIZE, LEGACY, MODERN, MODERN_REQUEST,
                                      OTHER_REQUEST, request_kind)

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}


class Resets(PassThroughPolicy):
    def __init__(self) -> None:
        self.resets = 0

    def reset(self) -> None:
        self.resets += 1


def request(kind: str, ident: int) -> bytes:
    if kind == INITIALIZE:
        msg = {"jsonrpc": "2.0", "id": ident, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    elif kind == MODERN_REQUEST:
        msg = {"jsonrpc": "2.0", "id": ident, "method": "tools/list", "params": {"_meta": META}}
    else:
        msg = {"jsonrpc": "2.0", "id": ident, "method": "ping"}
    return json.dumps(msg).encode()


def guard_in(era: str | None) -> tuple[Guard, Resets]:
    policy = Resets()
    guard = Guard(policy)
    if era == LEGACY:
        guard.receive(C2S, request(INITIALIZE, 1))
    elif era == MODERN:
        guard.receive(C2S, request(MODERN_REQUEST, 1))
    assert guard.era == era
    policy.resets = 0
    return guard, policy


def test_every_era_and_request_has_a_row():
    assert set(ERA_STEPS) == {(era, kind) for era in (None, LEGACY, MODERN)
                              for kind in (INITIALIZE, MODERN_REQUEST, OTHER_REQUEST)}


@pytest.mark.parametrize("row", sorted(ERA_STEPS, key=str), ids=str)
def test_a_request_moves_the_era_as_its_row_says(row):
    era, kind = row
    after, resets = ERA_STEPS[row]
    guard, policy = guard_in(era)
    guard.receive(C2S, request(kind, 2))
    assert guard.era == after
    assert policy.resets == (1 if resets else 0)


@pytest.mark.parametrize("method, modern, kind", [
    ("initialize", False, INITIALIZE), ("initialize", True, INITIALIZE),
    ("tools/call", True, MODERN_REQUEST), ("tools/call", False, OTHER_REQUEST),
    (None, False, OTHER_REQUEST)])
def test_what_a_request_is_for_the_era(method, modern, kind):
    assert request_kind(method, modern) == kind
