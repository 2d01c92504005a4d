"""What ``--listen`` needs to be one replica of a gateway: the ledgers of the conversations it
serves (by conversation key, ``identity.conversation_of``), shared through ``--store`` when one
is given, and the 2025 sessions other replicas opened (docs/gateway.md).

Nothing here reads the network but the store; ``listen`` calls in at three points: which
ledger a request's policy uses (``Conversations.ledger``), where a 2025 session is recorded when
the upstream accepted its ``initialize`` (``Sessions.opened``), and how a session id this replica
never saw is served (``Sessions.find``, then ``replayed_initialize``).
"""
from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any

from ..errors import StoreUnavailable
from ..ledger import Ledger
from . import jsonrpc as rpc
from .identity import IdentityKey, credential_hash

__all__ = ["Conversations", "Sessions", "REPLAY_ID", "replayed_initialize", "MAX_ENTRIES",
           "MAX_CALLS"]

MAX_ENTRIES = 10_000
"""Recorded quantities kept per conversation (the oldest evicted first)."""
MAX_CALLS = 1_000
"""Call records kept per conversation (the proxy's manifest counts them all)."""

REPLAY_ID = "quantity-guard:initialize"
"""The id of an ``initialize`` a replica replays to its own upstream (its answer is not sent)."""


class Conversations:
    """The ledgers of the conversations a replica serves, the least recently used dropped
    beyond ``max_kept`` (with a store, a dropped ledger is read back from it when needed)."""

    def __init__(self, *, store: Any = None, max_kept: int = 256,
                 max_entries: int | None = MAX_ENTRIES, max_calls: int | None = MAX_CALLS) -> None:
        self.store = store
        self.max_kept = max_kept
        self.max_entries = max_entries
        self.max_calls = max_calls
        self._kept: OrderedDict[str, Ledger] = OrderedDict()

    def ledger(self, key: str) -> Ledger:
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
            return found
        ledger = Ledger(max_entries=self.max_entries, max_calls=self.max_calls)
        if self.store is not None:
            self.store.conversation(key).attach(ledger)
        self._kept[key] = ledger
        while len(self._kept) > self.max_kept:
            self._kept.popitem(last=False)
        return ledger

    def __len__(self) -> int:
        return len(self._kept)


class Sessions:
    """2025 sessions in the store: which credential opened each, and its ``initialize``, so
    that any replica can serve it. Without a store, every method is a no-op."""

    def __init__(self, store: Any, key: IdentityKey) -> None:
        self.store = store
        self.key = key

    def opened(self, sid: str, initialize: bytes, authorization: str | None,
               version: str | None) -> None:
        """Record a session whose ``initialize`` the upstream accepted; raises
        ``StoreUnavailable``."""
        if self.store is None:
            return
        self.store.put("s", sid, {"who": self.key.credential(authorization), "version": version,
                                  "initialize": initialize.decode("utf-8", "replace")})

    def find(self, sid: str, authorization: str | None) -> "dict | None":
        """The record of session ``sid`` opened by this credential, or None (unknown, ended, or
        opened by another credential); raises ``StoreUnavailable``."""
        if self.store is None:
            return None
        found = self.store.get("s", sid)
        if not isinstance(found, dict) or not isinstance(found.get("initialize"), str):
            return None
        if found.get("who") != credential_hash(authorization, self.key.secret):
            return None
        return found

    def alive(self, sids: list[str]) -> "set[str] | None":
        """Which of ``sids`` are still recorded, their TTL renewed (a replica holding a session
        keeps it alive in the store); None when the store cannot be asked."""
        if self.store is None or not sids:
            return set(sids)
        try:
            pipe = self.store.client.pipeline(transaction=False)
            for sid in sids:
                pipe.pexpire(self.store.key("s", sid), self.store._ttl_ms)
            found = pipe.execute()
        except self.store._errors:
            return None
        return {sid for sid, n in zip(sids, found) if n}

    def ended(self, sid: str) -> None:
        if self.store is not None:
            self.store.delete("s", sid)


def replayed_initialize(record: dict) -> tuple[bytes, bytes]:
    """The client's ``initialize`` of a session (its id replaced by ``REPLAY_ID``) and the
    ``notifications/initialized`` that follows it, as lines for this replica's upstream."""
    obj = json.loads(record["initialize"])
    if type(obj) is not dict or obj.get("method") != "initialize":
        raise ValueError("the stored session has no initialize request")
    obj["id"] = REPLAY_ID
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    return rpc.encode(obj), rpc.encode(note)


def unavailable_error(ident: Any, exc: StoreUnavailable) -> bytes:
    """A JSON-RPC error (``-32603``) naming the store fault, for a request that is not a tool
    call (an ``initialize``, a request of a session this replica must look up)."""
    return rpc.error_line(ident, rpc.INTERNAL_ERROR, f"{exc.code}: {exc.repair()}")
