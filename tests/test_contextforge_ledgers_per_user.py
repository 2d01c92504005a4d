"""The ContextForge plug-in's ledgers belong to the user the gateway authenticated: a session id
(chosen by the caller) never joins another user's ledger, unauthenticated calls keep nothing,
and one user cannot push another's ledgers out. Drives the plug-in's ledger table with the
gateway's context shape (``global_context.user``, ``tenant_id``); the full plug-in against a
real ContextForge is tests/test_contextforge_plugin.py."""
from __future__ import annotations

from types import SimpleNamespace

from quantity_guard.annotations import loads
from quantity_guard.integrations.contextforge import Ledgers, user_of


def _table(max_sessions: int = 16) -> Ledgers:
    return Ledgers(loads("[tools.runoff.params]\ndischarge = 'm**3/s'\n"), "strict", max_sessions)


def _context(user, tenant=None):
    return SimpleNamespace(global_context=SimpleNamespace(user=user, tenant_id=tenant))


def test_one_session_id_two_users_two_ledgers():
    table = _table()
    alice, bob = user_of(_context("alice@example.com")), user_of(_context({"email": "bob@example.com"}))
    assert alice and bob and alice != bob and "alice" not in alice
    assert table.policy("sid-1", alice) is table.policy("sid-1", alice)
    assert table.policy("sid-1", alice) is not table.policy("sid-1", bob)
    assert table.policy(None, alice) is not table.policy(None, bob)
    assert user_of(_context("alice@example.com", "t1")) != user_of(_context("alice@example.com", "t2"))


def test_an_unauthenticated_call_keeps_nothing():
    table = _table()
    assert user_of(_context(None)) is None and user_of(SimpleNamespace()) is None
    assert table.policy("sid-1", None) is not table.policy("sid-1", None)
    assert table.policy(None, None) is not table.policy(None, None)


def test_one_user_cannot_push_another_out():
    table = _table(max_sessions=16)
    alice, mallory = user_of(_context("alice")), user_of(_context("mallory"))
    kept = table.policy("a", alice)
    for i in range(1000):
        table.policy(f"m{i}", mallory)
    assert table.policy("a", alice) is kept
