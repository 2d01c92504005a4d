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

Distrust: with a ``key`` (bytes the processes share, from the environment:
``QUANTITY_GUARD_STORE_KEY`` unless given; the proxy requires one, ``--store-key-env``) every
record and value carries an HMAC-SHA256 over its key name and content, and key names are HMACs
of the names under that key, so a process reads only what a holder of the key wrote for that
conversation, and two deployments on one database never share a key. A record that is too large,
not this module's JSON shape, or whose MAC does not verify is skipped (counted in
``skipped``, reported once through ``warn``), never fatal and never replayed.

Faults: an unreachable store raises :class:`~quantity_guard.errors.StoreUnavailable` (code
``store_unavailable``) from the call (fail closed), or, with ``on_unavailable="proceed"``, warns
(``RuntimeWarning``, or the ``warn`` callback) and goes on with the local ledger alone. Each
command is retried once on a fresh connection, so a store that comes back is used again without
a restart. A store that does not answer within ``timeout`` is marked down: until a background
probe (a ``PING`` every quarter second) gets an answer, store commands fail at once rather than
each waiting out the timeout, so a hung store costs at most one timeout, not one per call.
A conversation whose stream the store lost (a restart without persistence, a failover, an
eviction) while this process still holds its records gets them written back.
``redis`` (the ``store``: ``pip install ".[store]"`` in a checkout) is imported
when a store is opened, never before.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import threading
import time
import weakref

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # annotations only (a ledger and its call records are ``Any`` here: this
    # module is below the ledger, which imports it when a session is opened with a store)
    from collections.abc import Callable
    from typing import Any

from .errors import StoreUnavailable
from .quantity import Q

__all__ = ["open_store", "RedisStore", "StoredConversation", "DEFAULT_TTL", "DEFAULT_PREFIX",
           "MAX_RECORD_BYTES", "MAX_VALUE_BYTES", "KEY_ENV", "StoreUnavailable"]

DEFAULT_TTL = 3600.0
"""Seconds a conversation's keys live after their last read or write (``--store-ttl``)."""
DEFAULT_PREFIX = "qg:"
"""Every key this module writes starts with it (``--store-prefix``)."""
DEFAULT_MAX_CALLS = 1_000
"""Call records kept per conversation: the proxy's in-memory bound (``policy.MAX_CALLS``)."""
MAX_RECORD_BYTES = 4_096
"""A record's largest size; over it, argument texts are dropped, then violation messages."""
MAX_VALUE_BYTES = 16_384
"""A small value's largest size (a 2025 session's record); a larger one is not read."""
KEY_ENV = "QUANTITY_GUARD_STORE_KEY"
"""The environment variable a store's key is read from when none is given."""
_PROBE_EVERY = 0.25  # seconds between two pings of a store marked down
LOST_GRACE = 12.0
"""Seconds after the store was found empty during which a conversation this process holds
nothing of is refused (the processes holding it are writing it back: each looks at least every
5 s) rather than checked against an empty history."""
_TEXT_KEPT = 64  # a string argument longer than this is not kept
_MESSAGE_KEPT = 240  # characters of a violation's message kept
_SCHEMES = ("redis://", "rediss://", "unix://")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def open_store(url: str, *, ttl: float = DEFAULT_TTL, prefix: str = DEFAULT_PREFIX,
               max_calls: int = DEFAULT_MAX_CALLS, on_unavailable: str = "refuse",
               timeout: float = 1.0, warn: "Callable[[str], None] | None" = None,
               key: "bytes | str | None" = None, password: "str | None" = None) -> "RedisStore":
    """A :class:`RedisStore` for ``redis://HOST:PORT/DB``, ``rediss://...`` or
    ``unix:///path/redis.sock?db=N``. Nothing is sent until the first call needs it. ``key``
    (else the environment's ``QUANTITY_GUARD_STORE_KEY``) authenticates what is written;
    ``password`` is the store's, kept out of the URL (and the process list)."""
    if key is None:
        key = os.environ.get(KEY_ENV) or None
    return RedisStore(url, ttl=ttl, prefix=prefix, max_calls=max_calls,
                      on_unavailable=on_unavailable, timeout=timeout, warn=warn, key=key,
                      password=password)


class RedisStore:
    """Conversations' call records in Redis (see the module docstring)."""

    def __init__(self, url: str, *, ttl: float = DEFAULT_TTL, prefix: str = DEFAULT_PREFIX,
                 max_calls: int = DEFAULT_MAX_CALLS, on_unavailable: str = "refuse",
                 timeout: float = 1.0, warn: "Callable[[str], None] | None" = None,
                 key: "bytes | str | None" = None, password: "str | None" = None) -> None:
        if not isinstance(url, str) or not url.startswith(_SCHEMES):
            raise ValueError(f"store {url!r}: expected redis://HOST:PORT/DB, rediss://HOST:PORT/DB "
                             f"or unix:///PATH?db=N")
        if not ttl > 0:
            raise ValueError(f"store ttl must be a positive number of seconds, not {ttl!r}")
        if on_unavailable not in ("refuse", "proceed"):
            raise ValueError(f"on_unavailable must be 'refuse' or 'proceed', not {on_unavailable!r}")
        if not isinstance(max_calls, int) or max_calls < 1:
            raise ValueError(f"max_calls must be a positive integer, not {max_calls!r}")
        _check_tls(url)
        if isinstance(key, str):
            key = key.encode("utf-8")
        if key is not None and len(key) < 16:
            raise ValueError("the store key must be at least 16 bytes (32 random bytes in hex: "
                             "openssl rand -hex 32)")
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
        extra = {"password": password} if password else {}
        self.client = redis.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 1), retry_on_timeout=False, health_check_interval=0, **extra)
        self._timeouts: tuple = (redis.TimeoutError, TimeoutError)
        self._response = redis.ResponseError
        self._ttl_ms = max(1, int(self.ttl * 1000))
        self._write_lock = threading.Lock()
        self.authenticated = key is not None
        # names and MACs under keys derived from the shared one (none: plain digests, no MACs)
        self._names = hmac.new(key, b"quantity-guard store names v1", hashlib.sha256).digest() \
            if key is not None else None
        self._macs = hmac.new(key, b"quantity-guard store records v1", hashlib.sha256).digest() \
            if key is not None else None
        self.skipped = 0  # records or values read and not trusted (too large, malformed, bad MAC)
        self._skip_reported = False
        self.down = False  # marked down by a timeout, until the probe gets an answer
        self._probe: threading.Thread | None = None
        # the store's epoch: a value written once; found missing or changed, the store lost
        # what it held, and what this process holds is written back (see saw_epoch)
        self._epoch: str | None = None
        self.lost_until = 0.0  # time.time() until which an empty history is not trusted
        self.lost = 0  # times this process found the store emptied
        self._held: "weakref.WeakSet[StoredConversation]" = weakref.WeakSet()
        self.on_lost: "list[Callable[[], None]]" = []  # called when the store was found emptied

    def __repr__(self) -> str:
        return f"RedisStore({_redacted(self.url)!r}, ttl={self.ttl:g}, prefix={self.prefix!r})"

    # -- keys ---------------------------------------------------------------------------------
    def key(self, kind: str, name: str) -> str:
        """The Redis key of ``name`` (a conversation, a session id): hashed (keyed by the store
        key, when there is one), under the prefix."""
        if self._names is None:
            return f"{self.prefix}{kind}:{_digest(name)}"
        mac = hmac.new(self._names, f"{kind}\0{name}".encode("utf-8", "surrogatepass"), hashlib.sha256)
        return f"{self.prefix}{kind}:{mac.hexdigest()[:32]}"

    def mac(self, where: str, data: str) -> str:
        """The MAC of ``data`` kept under the Redis key ``where`` ("" without a store key)."""
        if self._macs is None:
            return ""
        return hmac.new(self._macs, f"{where}\0{data}".encode("utf-8", "surrogatepass"),
                        hashlib.sha256).hexdigest()[:32]

    def trusted(self, where: str, data: "Any", mac: "Any", limit: int) -> "str | None":
        """``data`` (bytes or text read from the store under ``where``) as text if it is at
        most ``limit`` bytes and its ``mac`` verifies, else None (counted and reported once)."""
        if isinstance(data, bytes):
            if len(data) > limit:
                return self.untrusted(f"a value of {len(data)} bytes (at most {limit} are read)")
            try:
                data = data.decode("utf-8")
            except UnicodeDecodeError:
                return self.untrusted("a value that is not UTF-8")
        if not isinstance(data, str) or len(data) > limit:
            return self.untrusted("a value of the wrong type or size")
        if self._macs is not None:
            if isinstance(mac, bytes):
                mac = mac.decode("ascii", "replace")
            if not isinstance(mac, str) or not hmac.compare_digest(mac, self.mac(where, data)):
                return self.untrusted("a value whose MAC does not verify (not written by a "
                                      "holder of the store key, or altered)")
        return data

    def wrong_type(self, exc: BaseException, key: str) -> bool:
        """Whether ``exc`` says ``key`` holds another type than this module wrote there (a
        store writer's doing): reported once, the key deleted so that it is written anew."""
        if not isinstance(exc, self._response) or "WRONGTYPE" not in str(exc):
            return False
        self.untrusted("a key of another type than a replica writes there")
        try:
            self.client.delete(key)
        except self._errors:
            pass
        return True

    def untrusted(self, what: str) -> "Any":
        self.skipped += 1
        if not self._skip_reported:
            self._skip_reported = True
            message = (f"quantity-guard: the shared store {_redacted(self.url)} holds {what}; it "
                       f"was skipped (reported once; the store's skipped count says how many)")
            if self.warn is not None:
                self.warn(message)
            else:
                import warnings
                warnings.warn(message, RuntimeWarning, stacklevel=3)
        return None  # (for the callers' ``return self.untrusted(...)``)

    # -- the store emptied ---------------------------------------------------------------------
    @property
    def epoch_key(self) -> str:
        return self.key("epoch", "")

    def check_epoch(self) -> None:
        """Read the store's epoch (raises the client's errors): see ``saw_epoch``."""
        self.check()
        self.saw_epoch(self.client.get(self.epoch_key))

    def saw_epoch(self, value: "Any") -> None:
        """The epoch read from the store (None: missing). The first one seen is remembered;
        missing, a new one is written; another than the one remembered means the store lost
        what it held (a restart without persistence, a failover, an eviction): what this
        process holds is written back, and for ``LOST_GRACE`` seconds an empty history is
        refused rather than trusted."""
        if value is None:
            self.client.set(self.epoch_key, f"{time.time():.3f}:{secrets.token_hex(8)}", nx=True)
            value = self.client.get(self.epoch_key)
        text = value.decode("ascii", "replace") if isinstance(value, bytes) else str(value)
        if self._epoch is None or text == self._epoch:
            self._epoch = text
            return
        self._epoch = text
        try:
            since = min(float(text.split(":", 1)[0]), time.time())
        except ValueError:
            since = time.time()
        self.lost_until = since + LOST_GRACE
        self.lost += 1
        if self.warn is not None:
            self.warn(f"quantity-guard: the shared store {_redacted(self.url)} lost what it held "
                      "(restarted empty, failed over or evicted); writing back what this replica "
                      "holds")
        for conversation in list(self._held):
            conversation.write_back()
        for callback in list(self.on_lost):
            callback()

    # -- the store marked down ----------------------------------------------------------------
    def check(self) -> None:
        """Raise the store's error at once while it is marked down (no command is sent)."""
        if self.down:
            raise _Down("the store did not answer within its timeout; it is marked down until "
                        "it answers a ping")

    def errored(self, exc: BaseException) -> None:
        """Note a command's failure: a timeout marks the store down and starts the probe."""
        if isinstance(exc, self._timeouts) and not isinstance(exc, _Down):
            with self._write_lock:
                self.down = True
                if self._probe is None or not self._probe.is_alive():
                    self._probe = threading.Thread(target=self._probing, daemon=True,
                                                   name="quantity-guard store probe")
                    self._probe.start()

    def _probing(self) -> None:
        while self.down:
            time.sleep(_PROBE_EVERY)
            try:
                if self.client.ping():
                    self.down = False
            except self._errors:
                pass

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

    def pipeline(self) -> "Any":
        """A pipeline, or ``_Down`` at once while the store is marked down."""
        self.check()
        return self.client.pipeline(transaction=False)

    # -- small values (2025 sessions) ---------------------------------------------------------
    def put(self, kind: str, name: str, value: dict) -> None:
        """Keep ``value`` (JSON, at most ``MAX_VALUE_BYTES``) under ``kind:name`` for ``ttl``,
        with its MAC; raises ``StoreUnavailable`` (and ``ValueError`` for a value too large)."""
        key = self.key(kind, name)
        data = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        if len(data.encode("utf-8", "surrogatepass")) > MAX_VALUE_BYTES:
            raise ValueError(f"a value of {len(data)} characters is larger than the store keeps "
                             f"({MAX_VALUE_BYTES} bytes)")
        try:
            self.check()
            self.client.set(key, self.mac(key, data) + "." + data, px=self._ttl_ms)
        except self._errors as exc:
            self.errored(exc)
            raise StoreUnavailable(f"the shared store {_redacted(self.url)} could not be "
                                   f"reached ({type(exc).__name__}: {exc})",
                                   suggestion="retry once the store is reachable again") from None

    def get(self, kind: str, name: str) -> "dict | None":
        """The value kept under ``kind:name`` (its TTL renewed), or None (absent, or not to be
        trusted: too large, malformed, a MAC that does not verify)."""
        try:
            key = self.key(kind, name)
            pipe = self.pipeline()
            pipe.getrange(key, 0, MAX_VALUE_BYTES + 64)  # never more than a value can be
            pipe.pexpire(key, self._ttl_ms)
            raw, _ = pipe.execute()
        except self._errors as exc:
            if self.wrong_type(exc, key):
                return None
            self.errored(exc)
            raise StoreUnavailable(f"the shared store {_redacted(self.url)} could not be "
                                   f"reached ({type(exc).__name__}: {exc})",
                                   suggestion="retry once the store is reachable again") from None
        if not raw:
            return None
        mac, dot, data = raw.partition(b".")
        text = self.trusted(key, data, mac, MAX_VALUE_BYTES) if dot else self.untrusted("a malformed value")
        if text is None:
            return None
        try:
            value = json.loads(text)
        except ValueError:
            return self.untrusted("a value that is not JSON")
        return value if isinstance(value, dict) else self.untrusted("a value that is not an object")

    def exists(self, kind: str, names: "list[str]") -> "list[bool] | None":
        """Whether each of ``names`` is kept under ``kind``; None when the store cannot be asked."""
        try:
            pipe = self.pipeline()
            for name in names:
                pipe.exists(self.key(kind, name))
            return [bool(n) for n in pipe.execute()]
        except self._errors as exc:
            self.errored(exc)
            return None

    def delete(self, kind: str, name: str) -> None:
        try:
            self.check()
            self.client.delete(self.key(kind, name))
        except self._errors as exc:
            self.errored(exc)


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
        self._ledger: "weakref.ref | None" = None
        self._writes = 0  # write-backs so far

    def attach(self, ledger: "Any") -> "Any":
        """Make ``ledger`` sync from and record into this conversation."""
        ledger.store = self
        self._ledger = weakref.ref(ledger)
        self.store._held.add(self)
        return ledger

    def write_back(self) -> None:
        """Write back what the attached ledger holds (the store was found emptied)."""
        ledger = self._ledger() if self._ledger is not None else None
        if ledger is not None and self.last_id != "0-0":
            with self._lock:
                try:
                    self._write_back(ledger)
                except StoreUnavailable:
                    pass

    # -- the ledger's hooks -------------------------------------------------------------------
    def sync(self, ledger: "Any") -> None:
        """Replay into ``ledger`` the records other processes added since the last sync; write
        back what this process holds when the store lost the conversation's stream."""
        store = self.store
        with self._lock:  # (re-entered by this thread only, from a replayed begin_call)
            if self._replaying:
                return
            try:
                pipe = store.pipeline()
                pipe.xrange(self.key, f"({self.last_id}", "+", count=_READ_COUNT)
                pipe.pexpire(self.key, store._ttl_ms)
                pipe.get(store.epoch_key)
                records, present, epoch = pipe.execute()
                writes = self._writes
                store.saw_epoch(epoch)  # (found emptied: this conversation is written back too)
                if self._writes != writes:
                    return
            except store._errors as exc:
                if store.wrong_type(exc, self.key):  # replaced by a store writer: written anew
                    if self.last_id != "0-0":
                        self._write_back(ledger)
                    return
                store.errored(exc)
                store.failed(exc, "reading the conversation's history")
                return
            if not present and self.last_id != "0-0":
                self._write_back(ledger)  # the store lost the stream: what is held here goes back
                return
            if not present and time.time() < store.lost_until:
                store.failed(RuntimeError(
                    "it was found emptied moments ago and the replicas holding this "
                    "conversation may not have written it back yet"), "reading the conversation's "
                    "history")
                return
            mine = self._mine
            for rid, fields in records:
                rid = rid.decode() if isinstance(rid, bytes) else rid
                if rid in mine:
                    mine.discard(rid)
                else:
                    data = self._read(fields)
                    if data is not None:
                        self._replaying = True
                        try:
                            _replay(ledger, data)
                        finally:
                            self._replaying = False
                self.last_id = rid
            if records and mine:  # ids trimmed away unseen (a burst over max_calls)
                newest = _id_key(self.last_id)
                self._mine = {r for r in mine if _id_key(r) > newest}
            if len(records) >= _READ_COUNT:  # more than one read's worth was added meanwhile
                self.sync(ledger)

    def _read(self, fields: "Any") -> "dict | None":
        """A stream entry's record if it is to be trusted (size, MAC, shape), else None."""
        if not isinstance(fields, dict):
            return self.store.untrusted("a stream entry that is not a record")
        raw = fields.get(b"r") if b"r" in fields else fields.get("r")
        mac = fields.get(b"m") if b"m" in fields else fields.get("m")
        text = self.store.trusted(self.key, raw, mac, _RECORD_READ)
        if text is None:
            return None
        try:
            data = json.loads(text)
        except ValueError:
            return self.store.untrusted("a record that is not JSON")
        if not _valid(data):
            return self.store.untrusted("a record that is not this module's shape")
        return data

    def _write_back(self, ledger: "Any") -> None:
        """Append the calls ``ledger`` holds (the last ``max_calls``) to a stream the store
        lost, as this process's own records."""
        store = self.store
        calls = [c for c in ledger.calls if getattr(c, "finished", None)][-store.max_calls:]
        self._writes += 1
        self._mine = set()
        self.last_id = "0-0"
        if not calls:
            return
        try:
            pipe = store.pipeline()
            for call in calls:
                data = encode(call)
                pipe.xadd(self.key, {"r": data, "m": store.mac(self.key, data)},
                          maxlen=store.max_calls, approximate=False)
            pipe.pexpire(self.key, store._ttl_ms)
            ids = pipe.execute()[:-1]
        except store._errors as exc:
            store.errored(exc)
            store.failed(exc, "writing back the conversation's history")
            return
        ids = [rid.decode() if isinstance(rid, bytes) else rid for rid in ids]
        self._mine = set(ids)
        self.last_id = "0-1"  # written: a stream gone from now on was lost again

    def record(self, call: "Any", retried: bool = False) -> None:
        """Append ``call``'s record (called when the call finishes, before its answer goes)."""
        store = self.store
        data = encode(call)
        with self._lock:
            try:
                pipe = store.pipeline()
                pipe.xadd(self.key, {"r": data, "m": store.mac(self.key, data)},
                          maxlen=store.max_calls, approximate=False)
                pipe.pexpire(self.key, store._ttl_ms)
                rid, _ = pipe.execute()
            except store._errors as exc:
                if not retried and store.wrong_type(exc, self.key):
                    return self.record(call, retried=True)
                store.errored(exc)
                store.failed(exc, "recording the call")
                return
            rid = rid.decode() if isinstance(rid, bytes) else rid
            self._mine.add(rid)
            if self.last_id == "0-0":
                self.last_id = "0-1"  # written: a stream gone from now on was lost by the store

    def memory(self) -> int:
        """Bytes Redis uses for this conversation's records (``MEMORY USAGE``, all samples)."""
        return int(self.store.client.memory_usage(self.key, samples=0) or 0)

    def length(self) -> int:
        return int(self.store.client.xlen(self.key))


class _Down(OSError):
    """A command not sent: the store is marked down (``RedisStore.check``)."""


_READ_COUNT = 256  # records read per XRANGE
_RECORD_READ = 2 * MAX_RECORD_BYTES  # a record read larger than this is not trusted


def _valid(data: "Any") -> bool:
    """Whether ``data`` has the shape :func:`encode` writes (types only; values are checked
    when replayed)."""
    if type(data) is not dict or not isinstance(data.get("t"), str) or len(data["t"]) > 256:
        return False
    if not isinstance(data.get("e", "strict"), str) or not isinstance(data.get("a", {}), dict):
        return False
    for name, width in (("i", 4), ("o", 2)):
        items = data.get(name, [])
        if type(items) is not list:
            return False
        for item in items:
            if type(item) is not list or len(item) != width or type(item[1]) is not dict:
                return False
            if item[0] is not None and not isinstance(item[0], str):
                return False
            if width == 4 and (item[2] is not None and not isinstance(item[2], str)
                               or not isinstance(item[3], _RAW)):
                return False
    violations = data.get("v", [])
    return type(violations) is list and all(
        type(v) is dict and isinstance(v.get("message", ""), str) for v in violations) and \
        all(isinstance(k, str) and isinstance(v, _RAW) for k, v in data.get("a", {}).items())


_RAW = (type(None), bool, int, float, str, dict)


def _id_key(rid: str) -> tuple[int, int]:
    ms, _, seq = rid.partition("-")
    return int(ms), int(seq or 0)


def _check_tls(url: str) -> None:
    """Refuse a URL whose query turns TLS verification off (``ssl_cert_reqs=none``,
    ``ssl_check_hostname=false``): ``rediss://`` always verifies the server."""
    from urllib.parse import parse_qsl, urlsplit
    for name, value in parse_qsl(urlsplit(url).query, keep_blank_values=True):
        name, value = name.lower(), value.strip().lower()
        if name == "ssl_cert_reqs" and value not in ("required", "cert_required"):
            raise ValueError(f"store {_redacted(url)}: ssl_cert_reqs={value} turns off the "
                             "verification of the store's certificate; it is always verified "
                             "(give the CA with ssl_ca_certs=PATH)")
        if name == "ssl_check_hostname" and value in ("false", "0", "no", "off", "n", "f"):
            raise ValueError(f"store {_redacted(url)}: ssl_check_hostname={value} turns off the "
                             "check of the store's host name; it is always checked")


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
