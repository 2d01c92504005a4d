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
from .identity import ANON, VERIFIED, IdentityKey

__all__ = ["Conversations", "Sessions", "REPLAY_ID", "replayed_initialize", "kept_initialize",
           "may_continue", "MAX_ENTRIES", "MAX_CALLS"]

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
        self._per: dict[str, int] = {}  # conversations kept per principal

    def ledger(self, key: str) -> Ledger:
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
            return found
        ledger = Ledger(max_entries=self.max_entries, max_calls=self.max_calls)
        if self.store is not None:
            self.store.conversation(key).attach(ledger)
        self._kept[key] = ledger
        # one principal (the key's last part, identity.conversation_of) holds at most a quarter
        # of the table: it cannot push another principal's conversations out
        # (a 2025 session's is bounded with the sessions themselves: not counted)
        who = key.rpartition(":")[2] if not key.startswith("s:") else None
        if who is not None:
            count = self._per.get(who, 0) + 1
            self._per[who] = count
            if count > max(1, self.max_kept // 4):
                for old in self._kept:
                    if not old.startswith("s:") and old.rpartition(":")[2] == who:
                        self._drop(old)
                        break
        while len(self._kept) > self.max_kept:
            self._drop(next(iter(self._kept)))
        return ledger

    def _drop(self, key: str) -> None:
        del self._kept[key]
        if key.startswith("s:"):
            return
        who = key.rpartition(":")[2]
        left = self._per.get(who, 1) - 1
        if left > 0:
            self._per[who] = left
        else:
            self._per.pop(who, None)

    def transient(self) -> Ledger:
        """A ledger of one request's own (not kept, not shared): for a request that proves no
        principal (identity.py, kind ``request``)."""
        return Ledger(max_entries=self.max_entries, max_calls=self.max_calls)

    def __len__(self) -> int:
        return len(self._kept)


class Sessions:
    """2025 sessions in the store: which principal opened each, and its ``initialize`` (the
    parts a replay needs, bounded), so that any replica can serve it; a ``DELETE`` leaves a
    tombstone, so that a session the store lost (a restart, a failover) is written back by the
    replicas holding it rather than ended. Without a store, every method is a no-op."""

    def __init__(self, store: Any, key: IdentityKey) -> None:
        self.store = store
        self.key = key

    def opened(self, sid: str, initialize: bytes, principal: str, version: str | None) -> None:
        """Record a session whose ``initialize`` the upstream accepted; raises
        ``StoreUnavailable``."""
        if self.store is None:
            return
        self.store.put("s", sid, {"who": principal, "version": version if isinstance(version, str) else None,
                                  "initialize": kept_initialize(initialize)})

    def find(self, sid: str, principal: str) -> "dict | None":
        """The record of session ``sid`` if this principal may continue it, or None (unknown,
        ended, or not to be trusted); raises ``StoreUnavailable``. The principal that opened it
        may, and so may another credential when both carry one (a refreshed token: the session
        id, which only its client was given, is the proof); an anonymous request never
        continues a session opened with a credential, nor the reverse."""
        if self.store is None:
            return None
        found = self.store.get("s", sid)
        if not isinstance(found, dict) or not isinstance(found.get("initialize"), str) \
                or not isinstance(found.get("who"), str):
            return None
        if not may_continue(found["who"], principal):
            return None
        return found

    def alive(self, sids: list[str]) -> "tuple[set[str], set[str]] | None":
        """Which of ``sids`` are still recorded (their TTL renewed: a replica holding a session
        keeps it alive in the store) and which were ended (a tombstone); the others the store
        lost. None when the store cannot be asked."""
        if self.store is None or not sids:
            return set(sids), set()
        store = self.store
        try:
            pipe = store.pipeline()
            for sid in sids:
                pipe.pexpire(store.key("s", sid), store._ttl_ms)
            for sid in sids:
                pipe.exists(store.key("e", sid))
            found = pipe.execute()
        except store._errors as exc:
            store.errored(exc)
            return None
        kept, tombs = found[:len(sids)], found[len(sids):]
        return ({sid for sid, n in zip(sids, kept) if n},
                {sid for sid, n, t in zip(sids, kept, tombs) if not n and t})

    def ended(self, sid: str) -> None:
        if self.store is None:
            return
        store = self.store
        try:
            pipe = store.pipeline()
            pipe.delete(store.key("s", sid))
            pipe.set(store.key("e", sid), "1", px=store._ttl_ms)
            pipe.execute()
        except store._errors as exc:
            store.errored(exc)


def may_continue(opener: str, principal: str) -> bool:
    """Whether a request of ``principal`` continues a session opened by ``opener``: a
    verified subject (identity.VERIFIED) continues only its own sessions, and is the only one
    to continue them."""
    if opener.startswith(VERIFIED) or principal.startswith(VERIFIED):
        return opener == principal
    return opener == principal or (opener != ANON and principal != ANON)


_KEPT_CAPABILITIES = 4096  # bytes of a client's capabilities kept for a replay
_KEPT_TEXT = 256


def kept_initialize(line: bytes) -> str:
    """What a replica needs to replay a client's ``initialize``: its protocol version, its
    capabilities (at most 8 KiB of JSON, else none) and its ``clientInfo`` name, version and
    title (256 characters each); nothing else of the request is kept."""
    try:
        obj = json.loads(line)
    except ValueError:
        obj = None
    params = obj.get("params") if type(obj) is dict else None
    params = params if type(params) is dict else {}
    kept: dict = {}
    version = params.get("protocolVersion")
    if isinstance(version, str):
        kept["protocolVersion"] = version[:64]
    capabilities = params.get("capabilities")
    if type(capabilities) is dict:
        text = json.dumps(capabilities, separators=(",", ":"))
        kept["capabilities"] = capabilities if len(text) <= _KEPT_CAPABILITIES else {}
    info = params.get("clientInfo")
    if type(info) is dict:
        kept["clientInfo"] = {k: str(info[k])[:_KEPT_TEXT] for k in ("name", "version", "title")
                              if k in info}
    return json.dumps({"jsonrpc": "2.0", "id": REPLAY_ID, "method": "initialize", "params": kept},
                      separators=(",", ":"), ensure_ascii=False)


def replayed_initialize(record: dict) -> tuple[bytes, bytes]:
    """The client's ``initialize`` of a session (its id replaced by ``REPLAY_ID``) and the
    ``notifications/initialized`` that follows it, as lines for this replica's upstream."""
    obj = json.loads(record["initialize"])
    if type(obj) is not dict or obj.get("method") != "initialize" or type(obj.get("params")) is not dict:
        raise ValueError("the stored session has no initialize request")
    obj["id"] = REPLAY_ID
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    return rpc.encode(obj), rpc.encode(note)


def unavailable_error(ident: Any, exc: StoreUnavailable) -> bytes:
    """A JSON-RPC error (``-32603``) naming the store fault, for a request that is not a tool
    call (an ``initialize``, a request of a session this replica must look up)."""
    return rpc.error_line(ident, rpc.INTERNAL_ERROR, f"{exc.code}: {exc.repair()}")
