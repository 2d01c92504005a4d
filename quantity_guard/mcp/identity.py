"""Which conversation a request belongs to: the one place the proxy decides it.

A conversation belongs to one **principal**: what the client authenticated with, that is every
credential header the deployment checks or forwards (``Authorization`` unless the proxy's own
``--client-token-env`` consumes it, and each ``--forward-header``), hashed together under a
secret (HMAC-SHA256, :func:`principal_of`). A value the client chooses alone (a session header,
a trace id, its ``clientInfo``) only tells one principal's conversations apart; it never joins
another principal's. Every guarded request is mapped to a conversation key, the first that
applies in this order:

1. ``session``: the 2025 session (``Mcp-Session-Id``), minted by the proxy on ``initialize``,
   with the principal that opened it (so a refreshed credential of the session keeps its ledger);
2. ``header``: the value of the ``--session-header`` a client sends (a conversation id);
3. ``trace``: the W3C trace id of the ``traceparent`` the client passes in ``params._meta``
   (the MCP trace-context proposal, SEP-414, and OpenTelemetry hosts put it there; an agent
   run's span makes every call of the run one trace);
4. ``client``: the principal with the client's ``clientInfo`` (name and version from
   ``_meta["io.modelcontextprotocol/clientInfo"]``, or the 2025 ``initialize``);
5. ``request``: when the principal is not proven (``proven=False``: a deployment that checks or
   forwards credentials, and a request that carries none of them beyond the proxy's shared
   token), kinds 2 to 4 give way to a conversation of the request alone (no history): holders
   of one shared token never share a ledger, whatever connection (a load balancer pools them)
   or value they send.

With a key set to verify bearer JWTs (``--jwks-file``, ``--jwks-url``: ``jwt_identity.py``) the
credential is the verified token's issuer and subject, not the token: a refreshed token of one
subject is the same principal, and it alone continues that principal's 2025 sessions
(:func:`verified_principal`). A token that does not verify proves nothing (the proxy refuses it).

A client that sends no credential to a deployment that checks none (a loopback proxy without
``--client-token-env`` or ``--forward-header``) is the machine's one local principal,
``anon``: a stock SDK client with no configuration keeps one ledger across its calls.

The credentials themselves are never kept: only their HMAC under a secret (``IdentityKey``),
which replicas of one gateway derive from the store key they share (``--store-key-env``), so
they compute the same keys.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import Any, Iterable, Mapping, NamedTuple

__all__ = ["Conversation", "conversation_of", "credential_hash", "principal_of", "trace_id",
           "client_info", "IdentityKey", "ORDER", "ANON", "VERIFIED", "verified_principal"]

ORDER = ("session", "header", "trace", "client", "request")
ANON = "anon"
"""The principal of a request that carries no credential."""
"""The kinds of conversation key, in the order they are tried."""
VERIFIED = "v"
"""The first character of a principal proven by a verified token (others are hex or ``anon``)."""

_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
_TRACEPARENT = re.compile(r"^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$")


class Conversation(NamedTuple):
    kind: str  # one of ORDER
    key: str   # the conversation key (hashes and short names only: never a credential)


class IdentityKey:
    """The secret the credential hashes are keyed with: random per process, or the gateway's
    (``derived`` from the store key the replicas share)."""

    def __init__(self, secret: bytes | None = None) -> None:
        self.secret = secret if secret is not None else secrets.token_bytes(32)

    @classmethod
    def derived(cls, store_key: bytes) -> "IdentityKey":
        """The key every replica of a gateway uses: derived from the store key they share
        (nothing of it is written to the store)."""
        return cls(hmac.new(store_key, b"quantity-guard identity key v1", hashlib.sha256).digest())

    def credential(self, authorization: str | None) -> str:
        return credential_hash(authorization, self.secret)

    def principal(self, credentials: "Iterable[tuple[str, str]]") -> str:
        return principal_of(credentials, self.secret)


def credential_hash(authorization: str | None, secret: bytes) -> str:
    """``anon`` without a credential, else 24 hex digits of HMAC-SHA256(secret, the header)."""
    if not authorization:
        return "anon"
    return hmac.new(secret, authorization.strip().encode("utf-8", "surrogatepass"),
                    hashlib.sha256).hexdigest()[:24]


def principal_of(credentials: "Iterable[tuple[str, str]]", secret: bytes) -> str:
    """``anon`` without a credential, else 24 hex digits of HMAC-SHA256(secret, every
    credential header as ``name NUL value`` lines, sorted). A lone ``Authorization`` gives the
    same hash as :func:`credential_hash`."""
    items = sorted({(name.lower(), value.strip()) for name, value in credentials
                    if isinstance(value, str) and value.strip()})
    if not items:
        return ANON
    if len(items) == 1 and items[0][0] == "authorization":
        return credential_hash(items[0][1], secret)
    text = "\n".join(f"{name}\0{value}" for name, value in items)
    return hmac.new(secret, text.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:24]


def verified_principal(key: IdentityKey, subject: str,
                       others: Iterable[tuple[str, str]] = ()) -> tuple[str, bool]:
    """The principal of a verified token's ``subject`` (its issuer and subject; "" when it did
    not verify) with the other credential headers ``others``, and whether it is proven."""
    if not subject:
        return ANON, False
    return VERIFIED + key.principal([("verified", subject), *others]), True


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
                    initialize: Any = None, key: IdentityKey, principal: str | None = None,
                    proven: bool = True) -> Conversation:
    """The conversation a request belongs to (the order is the module docstring's).
    ``principal`` (from :func:`principal_of`) overrides ``authorization``; for a 2025 session
    it is the principal that opened the session. ``proven=False`` gives everything but a
    session the request's own conversation (kind ``request``, key ``""``: keep nothing)."""
    who = principal if principal is not None else key.credential(authorization)
    if session_id:
        return Conversation("session", f"s:{_short(session_id)}:{who}")
    if not proven:
        return Conversation("request", "")
    if header:
        return Conversation("header", f"h:{_short(header)}:{who}")
    trace = trace_id(meta)
    if trace is not None:
        return Conversation("trace", f"t:{trace}:{who}")
    return Conversation("client", f"c:{_short(client_info(meta, initialize))}:{who}")
