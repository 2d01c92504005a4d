"""Which conversation a request belongs to: the one place the proxy decides it.

Carry-over detection needs a conversation's history, so every guarded request is mapped to a
conversation key, the first that applies in this order:

1. ``session``: the 2025 session (``Mcp-Session-Id``), minted by the proxy on ``initialize``;
2. ``header``: the value of the ``--session-header`` a client sends (a conversation id);
3. ``trace``: the W3C trace id of the ``traceparent`` the client passes in ``params._meta``
   (the MCP trace-context proposal, SEP-414, and OpenTelemetry hosts put it there; an agent
   run's span makes every call of the run one trace);
4. ``client``: the client's credential, a keyed hash (HMAC-SHA256) of its ``Authorization``
   header, with its ``clientInfo`` (name and version from
   ``_meta["io.modelcontextprotocol/clientInfo"]``, or the 2025 ``initialize``).

A client that sends no ``Authorization`` is keyed as anonymous with its ``clientInfo``: a stock
SDK client with no configuration keeps one ledger across its calls whatever connection or
replica each reaches; anonymous clients of one name and version share it (send a session header
or a trace context to tell them apart).

Every key also carries the credential's hash (or ``anon``), so two different credentials never
share a ledger, even when they send the same session header value or trace id. The credential
itself is never kept: only its HMAC under a secret (``IdentityKey``), which replicas of one
gateway share through the store, so they compute the same keys.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import Any, Mapping, NamedTuple

__all__ = ["Conversation", "conversation_of", "credential_hash", "trace_id", "client_info",
           "IdentityKey", "ORDER"]

ORDER = ("session", "header", "trace", "client")
"""The kinds of conversation key, in the order they are tried."""

_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
_TRACEPARENT = re.compile(r"^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$")


class Conversation(NamedTuple):
    kind: str  # one of ORDER
    key: str   # the conversation key (hashes and short names only: never a credential)


class IdentityKey:
    """The secret the credential hashes are keyed with: random per process, or the gateway's
    (``shared``: read from, or on first use written to, the store)."""

    def __init__(self, secret: bytes | None = None) -> None:
        self.secret = secret if secret is not None else secrets.token_bytes(32)

    @classmethod
    def shared(cls, store: Any) -> "IdentityKey":
        """The key every replica on ``store`` (a ``store.RedisStore``) uses; raises
        ``StoreUnavailable`` when the store cannot be reached."""
        from ..errors import StoreUnavailable
        name = f"{store.prefix}identity-key"
        fresh = secrets.token_hex(32)
        try:
            store.client.set(name, fresh, nx=True, px=store._ttl_ms)
            value = store.client.get(name)
        except store._errors as exc:
            raise StoreUnavailable(f"the shared store could not be reached to read the gateway's "
                                   f"identity key ({type(exc).__name__}: {exc})",
                                   suggestion="start the proxy once the store is reachable") from None
        text = value.decode() if isinstance(value, bytes) else str(value)
        return cls(bytes.fromhex(text))

    def credential(self, authorization: str | None) -> str:
        return credential_hash(authorization, self.secret)

    def keep(self, store: Any) -> None:
        """Renew the shared key's TTL in ``store`` (each replica does, while it runs), writing
        it back if the store lost it; a store that cannot be reached is left for the next try."""
        name = f"{store.prefix}identity-key"
        try:
            pipe = store.client.pipeline(transaction=False)
            pipe.set(name, self.secret.hex(), nx=True, px=store._ttl_ms)
            pipe.pexpire(name, store._ttl_ms)
            pipe.execute()
        except store._errors:
            pass


def credential_hash(authorization: str | None, secret: bytes) -> str:
    """``anon`` without a credential, else 24 hex digits of HMAC-SHA256(secret, the header)."""
    if not authorization:
        return "anon"
    return hmac.new(secret, authorization.strip().encode("utf-8", "surrogatepass"),
                    hashlib.sha256).hexdigest()[:24]


def trace_id(meta: Any) -> str | None:
    """The trace id of a valid W3C ``traceparent`` in ``meta`` (a request's ``_meta``), else
    None (absent, malformed, version ``ff``, or the all-zero id)."""
    if not isinstance(meta, Mapping):
        return None
    value = meta.get("traceparent")
    if not isinstance(value, str):
        return None
    m = _TRACEPARENT.match(value.strip().lower())
    if m is None or m.group(1) == "ff" or m.group(2) == "0" * 32 or m.group(3) == "0" * 16:
        return None
    if m.group(1) == "00" and m.group(5):
        return None  # version 00 has exactly four fields
    return m.group(2)


def client_info(meta: Any, initialize: Any = None) -> str:
    """``name/version`` of the client (2026-07-28 ``_meta`` clientInfo, else the 2025
    ``initialize`` params' ``clientInfo``), at most 64 characters each; ``?`` when absent."""
    info = meta.get(_CLIENT_INFO) if isinstance(meta, Mapping) else None
    if not isinstance(info, Mapping) and isinstance(initialize, Mapping):
        info = initialize.get("clientInfo")
    if not isinstance(info, Mapping):
        return "?"
    name, version = info.get("name"), info.get("version")
    return (f"{str(name)[:64] if name is not None else '?'}/"
            f"{str(version)[:64] if version is not None else '?'}")


def _short(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def conversation_of(*, session_id: str | None = None, header: str | None = None,
                    meta: Any = None, authorization: str | None = None,
                    initialize: Any = None, key: IdentityKey) -> Conversation:
    """The conversation a request belongs to (the order is the module docstring's)."""
    who = key.credential(authorization)
    if session_id:
        return Conversation("session", f"s:{_short(session_id)}:{who}")
    if header:
        return Conversation("header", f"h:{_short(header)}:{who}")
    trace = trace_id(meta)
    if trace is not None:
        return Conversation("trace", f"t:{trace}:{who}")
    return Conversation("client", f"c:{_short(client_info(meta, initialize))}:{who}")
