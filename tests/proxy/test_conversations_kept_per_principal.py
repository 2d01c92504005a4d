"""The ledgers a replica keeps in memory are bounded per principal: one principal opening
conversation after conversation (a new trace id, a new session header value each time) pushes
out only its own, never another principal's or a live 2025 session's."""
from __future__ import annotations

from quantity_guard.mcp.gateway import Conversations


def test_one_principal_cannot_push_another_out():
    table = Conversations(max_kept=16)
    alice = table.ledger("c:info:alice")
    session = table.ledger("s:sid:mallory")
    for i in range(1000):
        table.ledger(f"t:{i:032x}:mallory")
    assert table.ledger("c:info:alice") is alice
    assert table.ledger("s:sid:mallory") is session
    assert len(table) <= 16
