"""A shared store for session ledgers: several processes, one conversation's history.

    store = open_store("redis://127.0.0.1:6379/0")
    with session(store=store, conversation="run-42") as ledger:   # in every worker
        ...

Each guarded call is kept as one compact record in a Redis stream per conversation
(``<prefix>c:<sha256 of the conversation key>``): its tool, its recorded inputs (field, quantity,
how it arrived, the argument as sent when it is a number or a short text), its outputs, its
violations (code, field, blocked, the message), and the call's scalar arguments. Nothing else of
a call's payload is kept, and never a credential: conversation keys arrive hashed
(``quantity_guard.mcp.identity``) and are hashed again into the key name.

A process keeps a local :class:`~quantity_guard.ledger.Ledger` per conversation and syncs it
incrementally: before a call is checked, the records added since the last stream id it read are
replayed into it (its own records are skipped: they are already there); when the call finishes,
its record is appended (``XADD``) before the call's answer is released, so a process killed after
answering loses nothing it recorded. The ledger's checks are the library's, unchanged.

Bounds: a stream keeps the last ``max_calls`` records (exact ``MAXLEN``), each record at most
``MAX_RECORD_BYTES`` (a record over it keeps its quantities and drops the argument texts first);
every key expires after ``ttl`` seconds without a read or a write (``PEXPIRE`` on each).

Faults: an unreachable store raises :class:`~quantity_guard.errors.StoreUnavailable` (code
``store_unavailable``) from the call (fail closed), or, with ``on_unavailable="proceed"``, warns
(``RuntimeWarning``, or the ``warn`` callback) and goes on with the local ledger alone. Each
command is retried once on a fresh connection, so a store that comes back is used again without
a restart. ``redis`` (the ``store`` extra: ``pip install ".[store]"`` in a checkout) is imported
when a store is opened, never before.
"""
from __future__ import annotations

import hashlib
import json
import threading

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # annotations only (a ledger and its call records are ``Any`` here: this
    # module is below the ledger, which imports it when a session is opened with a store)
    from collections.abc import Callable
    from typing import Any

from .errors import StoreUnavailable
from .quantity import Q

__all__ = ["open_store", "RedisStore", "StoredConversation", "DEFAULT_TTL", "DEFAULT_PREFIX",
           "MAX_RECORD_BYTES", "StoreUnavailable"]

DEFAULT_TTL = 3600.0
"""Seconds a conversation's keys live after their last read or write (``--store-ttl``)."""
DEFAULT_PREFIX = "qg:"
"""Every key this module writes starts with it (``--store-prefix``)."""
DEFAULT_MAX_CALLS = 1_000
"""Call records kept per conversation: the proxy's in-memory bound (``policy.MAX_CALLS``)."""
MAX_RECORD_BYTES = 4_096
"""A record's largest size; over it, argument texts are dropped, then violation messages."""
_TEXT_KEPT = 64  # a string argument longer than this is not kept
_MESSAGE_KEPT = 240  # characters of a violation's message kept
_SCHEMES = ("redis://", "rediss://", "unix://")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def open_store(url: str, *, ttl: float = DEFAULT_TTL, prefix: str = DEFAULT_PREFIX,
               max_calls: int = DEFAULT_MAX_CALLS, on_unavailable: str = "refuse",
               timeout: float = 1.0, warn: "Callable[[str], None] | None" = None) -> "RedisStore":
    """A :class:`RedisStore` for ``redis://HOST:PORT/DB``, ``rediss://...`` or
    ``unix:///path/redis.sock?db=N``. Nothing is sent until the first call needs it."""
    return RedisStore(url, ttl=ttl, prefix=prefix, max_calls=max_calls,
                      on_unavailable=on_unavailable, timeout=timeout, warn=warn)


class RedisStore:
    """Conversations' call records in Redis (see the module docstring)."""

    def __init__(self, url: str, *, ttl: float = DEFAULT_TTL, prefix: str = DEFAULT_PREFIX,
                 max_calls: int = DEFAULT_MAX_CALLS, on_unavailable: str = "refuse",
                 timeout: float = 1.0, warn: "Callable[[str], None] | None" = None) -> None:
        if not isinstance(url, str) or not url.startswith(_SCHEMES):
            raise ValueError(f"store {url!r}: expected redis://HOST:PORT/DB, rediss://HOST:PORT/DB "
                             f"or unix:///PATH?db=N")
        if not ttl > 0:
            raise ValueError(f"store ttl must be a positive number of seconds, not {ttl!r}")
        if on_unavailable not in ("refuse", "proceed"):
            raise ValueError(f"on_unavailable must be 'refuse' or 'proceed', not {on_unavailable!r}")
        if not isinstance(max_calls, int) or max_calls < 1:
            raise ValueError(f"max_calls must be a positive integer, not {max_calls!r}")
        try:
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry
        except ImportError:
            raise ImportError("a store needs the redis client library: "
                              "install the store extra (pip install \".[store]\" in a checkout of "
                              "quantity-guard) or the redis package") from None
        self.url = url
        self.ttl = float(ttl)
        self.prefix = prefix
        self.max_calls = max_calls
        self.on_unavailable = on_unavailable
        self.warn = warn
        self._errors: tuple = (redis.RedisError, OSError)
        self.client = redis.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 1), retry_on_timeout=False, health_check_interval=0)
        self._ttl_ms = max(1, int(self.ttl * 1000))
        self._write_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"RedisStore({_redacted(self.url)!r}, ttl={self.ttl:g}, prefix={self.prefix!r})"

    # -- keys ---------------------------------------------------------------------------------
    def key(self, kind: str, name: str) -> str:
        """The Redis key of ``name`` (a conversation, a session id): hashed, under the prefix."""
        return f"{self.prefix}{kind}:{_digest(name)}"

    def conversation(self, name: str) -> "StoredConversation":
        """The stored side of conversation ``name``; attach it to a ledger with ``attach``."""
        return StoredConversation(self, name)

    # -- faults -------------------------------------------------------------------------------
    def failed(self, exc: BaseException, doing: str) -> None:
        """Raise ``StoreUnavailable`` (refuse) or warn and go on (proceed)."""
        text = (f"the shared store {_redacted(self.url)} could not be reached while {doing} "
                f"({type(exc).__name__}: {exc})")
        if self.on_unavailable == "proceed":
            message = f"quantity-guard: {text}; proceeding without the shared history (unchecked)"
            if self.warn is not None:
                self.warn(message)
            else:
                import warnings
                warnings.warn(message, RuntimeWarning, stacklevel=4)
            return
        raise StoreUnavailable(
            f"{text}, so this call cannot be checked against the conversation's history",
            suggestion="retry the call once the store is reachable again (nothing was sent "
                       "to the tool)" if doing.startswith("reading") else
                       "retry the call once the store is reachable again")

    def ping(self) -> bool:
        try:
            return bool(self.client.ping())
        except self._errors:
            return False

    # -- small values (2025 sessions) ---------------------------------------------------------
    def put(self, kind: str, name: str, value: dict) -> None:
        """Keep ``value`` (JSON) under ``kind:name`` for ``ttl``; raises ``StoreUnavailable``."""
        try:
            self.client.set(self.key(kind, name), json.dumps(value, separators=(",", ":")),
                            px=self._ttl_ms)
        except self._errors as exc:
            raise StoreUnavailable(f"the shared store {_redacted(self.url)} could not be "
                                   f"reached ({type(exc).__name__}: {exc})",
                                   suggestion="retry once the store is reachable again") from None

    def get(self, kind: str, name: str) -> "dict | None":
        """The value kept under ``kind:name`` (its TTL renewed), or None."""
        try:
            key = self.key(kind, name)
            pipe = self.client.pipeline(transaction=False)
            pipe.get(key)
            pipe.pexpire(key, self._ttl_ms)
            raw, _ = pipe.execute()
        except self._errors as exc:
            raise StoreUnavailable(f"the shared store {_redacted(self.url)} could not be "
                                   f"reached ({type(exc).__name__}: {exc})",
                                   suggestion="retry once the store is reachable again") from None
        return None if raw is None else json.loads(raw)

    def delete(self, kind: str, name: str) -> None:
        try:
            self.client.delete(self.key(kind, name))
        except self._errors:
            pass


class StoredConversation:
    """One conversation's records in the store, synced into one local ledger."""

    def __init__(self, store: RedisStore, name: str) -> None:
        self.store = store
        self.name = name
        self.key = store.key("c", name)
        self.last_id = "0-0"  # the newest record replayed or written here
        self._mine: set[str] = set()  # ids written here and not yet passed by a sync
        self._lock = threading.RLock()
        self._replaying = False  # a record is being replayed (its begin_call must not sync)

    def attach(self, ledger: "Any") -> "Any":
        """Make ``ledger`` sync from and record into this conversation."""
        ledger.store = self
        return ledger

    # -- the ledger's hooks -------------------------------------------------------------------
    def sync(self, ledger: "Any") -> None:
        """Replay into ``ledger`` the records other processes added since the last sync."""
        store = self.store
        with self._lock:  # (re-entered by this thread only, from a replayed begin_call)
            if self._replaying:
                return
            try:
                pipe = store.client.pipeline(transaction=False)
                pipe.xrange(self.key, f"({self.last_id}", "+")
                pipe.pexpire(self.key, store._ttl_ms)
                records, _ = pipe.execute()
            except store._errors as exc:
                store.failed(exc, "reading the conversation's history")
                return
            mine = self._mine
            for rid, fields in records:
                rid = rid.decode() if isinstance(rid, bytes) else rid
                if rid in mine:
                    mine.discard(rid)
                else:
                    raw = fields.get(b"r") if b"r" in fields else fields.get("r")
                    try:
                        data = json.loads(raw)
                    except (TypeError, ValueError):
                        continue  # not a record of this module: skipped, never fatal
                    self._replaying = True
                    try:
                        _replay(ledger, data)
                    finally:
                        self._replaying = False
                self.last_id = rid
            if records and mine:  # ids trimmed away unseen (a burst over max_calls)
                newest = _id_key(self.last_id)
                self._mine = {r for r in mine if _id_key(r) > newest}

    def record(self, call: "Any") -> None:
        """Append ``call``'s record (called when the call finishes, before its answer goes)."""
        store = self.store
        data = encode(call)
        with self._lock:
            try:
                pipe = store.client.pipeline(transaction=False)
                pipe.xadd(self.key, {"r": data}, maxlen=store.max_calls, approximate=False)
                pipe.pexpire(self.key, store._ttl_ms)
                rid, _ = pipe.execute()
            except store._errors as exc:
                store.failed(exc, "recording the call")
                return
            rid = rid.decode() if isinstance(rid, bytes) else rid
            self._mine.add(rid)

    def memory(self) -> int:
        """Bytes Redis uses for this conversation's records (``MEMORY USAGE``, all samples)."""
        return int(self.store.client.memory_usage(self.key, samples=0) or 0)

    def length(self) -> int:
        return int(self.store.client.xlen(self.key))


def _id_key(rid: str) -> tuple[int, int]:
    ms, _, seq = rid.partition("-")
    return int(ms), int(seq or 0)


def _redacted(url: str) -> str:
    """``url`` without a password (``redis://:secret@host`` -> ``redis://***@host``)."""
    scheme, sep, rest = url.partition("://")
    if "@" in rest.split("/", 1)[0]:
        rest = "***@" + rest.split("@", 1)[1]
    return f"{scheme}{sep}{rest}"


# -- records --------------------------------------------------------------------------------
def _scalar(value: Any) -> Any:
    """``value`` if the ledger may need it and it is small (a number, a bool, a short text, a
    ``{"value", "unit"}`` of those), else None (not kept)."""
    if value is None or isinstance(value, (bool, int, float)):
        return value if not isinstance(value, float) or value == value else None
    if isinstance(value, str):
        return value if len(value) <= _TEXT_KEPT else None
    if isinstance(value, dict) and "value" in value and len(value) <= 6:
        kept = {k: _scalar(v) for k, v in value.items() if isinstance(k, str) and len(k) <= 16}
        return kept if all(v is not None or value[k] is None for k, v in kept.items()) else None
    return None


def _q(q: Q) -> "dict | None":
    if q.magnitude.__class__ is not float:
        return None
    return q.as_dict()


def encode(call: "Any") -> str:
    """A call as one compact JSON record (see the module docstring for what is kept)."""
    inputs = []
    for e in call.inputs:
        d = _q(e.q)
        if d is not None:
            inputs.append([e.field, d, e.how, _scalar(e.raw)])
    outputs = []
    for e in call.outputs:
        d = _q(e.q)
        if d is not None:
            outputs.append([e.field, d])
    violations = [{"code": v.get("code"), "field": v.get("field"),
                   "blocked": bool(v.get("blocked")),
                   "message": str(v.get("message", ""))[:_MESSAGE_KEPT]}
                  for v in call.violations]
    arguments = {}
    for k, v in call.arguments.items():
        if isinstance(k, str) and len(k) <= 64:
            kept = _scalar(v)
            if kept is not None:
                arguments[k] = kept
    record: dict = {"t": call.tool, "e": call.enforcement, "ok": call.ok, "i": inputs,
                    "o": outputs, "v": violations, "a": arguments}
    text = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
    if len(text) > MAX_RECORD_BYTES:
        record["a"] = {}
        for item in inputs:
            item[3] = None if isinstance(item[3], str) else item[3]
        text = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
    if len(text) > MAX_RECORD_BYTES:
        for v in violations:
            v["message"] = ""
        record["i"], record["o"] = inputs[:32], outputs[:32]
        text = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
    return text


class _Ref:
    __slots__ = ("name", "enforcement")

    def __init__(self, name: str, enforcement: str) -> None:
        self.name, self.enforcement = name, enforcement


def _replay(ledger: "Any", data: dict) -> None:
    """Add a record written by another process to ``ledger``, as if the call had run here."""
    tool = str(data.get("t"))
    call = ledger.begin_call(_Ref(tool, str(data.get("e", "strict"))), data.get("a") or {})
    for field, qd, how, raw in data.get("i", ()):
        try:
            q = Q.from_dict(qd)
        except Exception:
            continue  # a unit this process does not know: that entry is not replayed
        call.inputs.append(ledger._add(call.index, tool, "input", field, q, how, raw))
    for field, qd in data.get("o", ()):
        try:
            q = Q.from_dict(qd)
        except Exception:
            continue
        call.outputs.append(ledger._add(call.index, tool, "output", field, q))
    for v in data.get("v", ()):
        item = {"code": v.get("code"), "field": v.get("field"), "message": v.get("message", ""),
                "repair": v.get("message", ""), "blocked": bool(v.get("blocked"))}
        call.violations.append(item)
        ledger.violations.append({"call": call.index, "tool": tool, **item})
        ledger.violation_count += 1
        if ledger.max_calls is not None and len(ledger.violations) > ledger.max_calls:
            del ledger.violations[0]
    ok = data.get("ok")
    call.ok = True if ok is None else bool(ok)  # (an answer still on its way: not awaited here)
    call.finished = call.started
