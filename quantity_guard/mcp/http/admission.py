"""Who the listener lets in: connections per peer, the Host, Origin and bearer token of a
request, whose principal it proves, and how many sessions each client may open."""
from __future__ import annotations

import functools
import hashlib
import hmac
import ipaddress
from typing import Any, Sequence
from urllib.parse import urlsplit

from .. import jsonrpc as rpc
from ..identity import ANON, IdentityKey, verified_principal
from .replay import Writer
from .wire import Head

__all__ = ["Admission", "is_loopback_host", "error_body"]



def error_body(message: str) -> bytes:
    """A JSON-RPC error response without an id, for HTTP-level refusals."""
    return rpc.error_line(None, rpc.INVALID_REQUEST, message)[:-1]


@functools.lru_cache(maxsize=256)
def is_loopback_host(host: str) -> bool:
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _host_of(value: str) -> str:
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class Admission:
    """The listener's rules of entry, and its counts of connections and sessions per client."""

    def __init__(self, host: str, *, identity: IdentityKey, forward_headers: Sequence[str] = (),
                 allow_origins: Sequence[str] = (), allow_hosts: Sequence[str] = (),
                 client_token: str | None = None, client_tokens: Sequence[str] = (),
                 max_sessions: int = 64, max_sessions_per_client: int | None = None,
                 max_connections: int = 512, max_connections_per_peer: int | None = None,
                 jwt: Any = None) -> None:
        self.identity = identity
        self.forward_headers = [h.lower() for h in forward_headers]
        self.allow_origins = {o.rstrip("/").lower() for o in allow_origins}
        self.bound_loopback = is_loopback_host(host)
        self.max_sessions = max_sessions
        self.max_sessions_per_client = max_sessions_per_client
        self.max_connections = max_connections
        # per peer address: the whole budget on loopback (every local client is 127.0.0.1),
        # an eighth of it for an exposed bind
        self.max_connections_per_peer = max_connections_per_peer or (
            max_connections if self.bound_loopback else max(1, max_connections // 8))
        self.connections = 0
        self.per_peer: dict[str, int] = {}
        self.per_client: dict[str, int] = {}  # sessions (of every kind) per client key
        # what clients must send as Authorization: Bearer (any one of them)
        self.client_tokens = [t.encode("utf-8", "replace") for t in
                              ([client_token] if client_token is not None else []) + list(client_tokens)]
        self.client_token = client_token if client_token is not None else (
            client_tokens[0] if client_tokens else None)
        # a deployment that checks or forwards credentials: a request without any of them
        # proves no principal, so it keeps no history (identity.py, kind "request")
        # --jwks-file/--jwks-url: every request's bearer JWT verified (mcp/jwt_identity.py)
        self.jwt = jwt
        self.credentialed = (self.client_token is not None or bool(self.forward_headers)
                             or jwt is not None)
        # Authorization is the proxy's own (its token, or a JWT whose subject is the principal)
        self.consumes_authorization = self.client_token is not None or jwt is not None
        # the headers whose values name a request's principal (see principal)
        names = [] if self.consumes_authorization else ["authorization"]
        self.credential_names = names + [h for h in self.forward_headers if h not in names and
                                         not (self.consumes_authorization and h == "authorization")]
        self.allow_hosts = {h.strip("[]").lower() for h in allow_hosts}
        if not self.bound_loopback and host not in ("0.0.0.0", "::", ""):
            self.allow_hosts.add(host.strip("[]").lower())

    # ------------------------------------------------------------ connections

    def connection_refusal(self, peer: str) -> str | None:
        """Why a new connection from ``peer`` is refused, or None (then :meth:`enter`)."""
        if self.connections >= self.max_connections:
            return f"{self.max_connections} connections are open (--max-connections)"
        if self.per_peer.get(peer, 0) >= self.max_connections_per_peer:
            return (f"{self.max_connections_per_peer} connections from {peer} are open "
                    "(--max-connections-per-peer)")
        return None

    def enter(self, peer: str) -> None:
        self.connections += 1
        self.per_peer[peer] = self.per_peer.get(peer, 0) + 1

    def leave(self, peer: str) -> None:
        self.connections -= 1
        left = self.per_peer.get(peer, 1) - 1
        if left > 0:
            self.per_peer[peer] = left
        else:
            self.per_peer.pop(peer, None)

    # ------------------------------------------------------------ sessions

    def client_key(self, head: Head, writer: Writer) -> tuple[str, bool]:
        """Whose session a request would open: its credential (``Authorization`` or a
        forwarded header; hashed) if it carries one, else its peer address. Returns the key and
        whether it tells clients apart (a credential, or a peer that is not loopback)."""
        if self.jwt is not None:  # the verified subject (a refreshed token is the same client)
            return "principal:" + self.principal(head)[0], True
        own = () if self.client_token is not None else ("authorization",)  # a shared token tells no one apart
        for name in (*own, *(h for h in self.forward_headers if self.client_token is None or h != "authorization")):
            value = head.headers.get(name)
            if value:
                return "credential:" + hashlib.sha256(value.encode("latin-1", "replace")).hexdigest()[:32], True
        peername = writer.get_extra_info("peername")
        peer = str(peername[0]) if isinstance(peername, tuple) and peername else "?"
        return "peer:" + peer, not is_loopback_host(peer)

    def refusal(self, key: str, distinct: bool, used: int) -> str | None:
        """Why a new session for ``key`` is refused when ``used`` sessions are open (the table
        is full, or this client has its share), or ``None``. Live sessions are never ended to
        make room."""
        if used >= self.max_sessions:
            return (f"Service Unavailable: all {self.max_sessions} sessions are in use "
                    "(--max-sessions); end one (DELETE) or try again later")
        share = self.max_sessions_per_client or (
            max(1, self.max_sessions // 4) if distinct else self.max_sessions)
        if self.per_client.get(key, 0) >= share:
            return (f"Service Unavailable: this client already has {share} sessions "
                    "(--max-sessions-per-client); end one (DELETE) or try again later")
        return None

    def hold(self, session: Any, key: str) -> None:
        session.client_key = key
        self.per_client[key] = self.per_client.get(key, 0) + 1

    def release(self, session: Any) -> None:
        key, session.client_key = session.client_key, None
        if key is not None:
            left = self.per_client.get(key, 1) - 1
            if left > 0:
                self.per_client[key] = left
            else:
                self.per_client.pop(key, None)

    # ------------------------------------------------------------ requests

    def origin_ok(self, head: Head) -> bool:
        origins = head.headers.get_all("origin")
        if not origins:
            return True
        if len(origins) != 1:
            return False  # every Origin would have to be checked; one is all a browser sends
        origin = origins[0].strip().rstrip("/").lower()
        if origin in self.allow_origins:
            return True
        try:
            parts = urlsplit(origin)
            return parts.scheme in ("http", "https") and is_loopback_host(parts.hostname or "")
        except ValueError:
            return False

    def host_ok(self, head: Head) -> bool:
        hosts = head.headers.get_all("host")
        if len(hosts) != 1:
            return False
        name = _host_of(hosts[0].strip()).strip("[]").lower()
        if is_loopback_host(name):
            return True
        return not self.bound_loopback and name in self.allow_hosts

    def token_ok(self, head: Head) -> bool:
        if not self.client_tokens:
            return True
        values = head.headers.get_all("authorization")
        if len(values) != 1:
            return False
        scheme, _, token = values[0].strip().partition(" ")
        sent = token.strip().encode("utf-8", "replace")
        ok = False
        for expected in self.client_tokens:  # every one compared: the time says nothing
            ok |= hmac.compare_digest(sent, expected)
        return scheme.lower() == "bearer" and ok

    def principal(self, head: Head) -> tuple[str, bool]:
        """Who sent a request (identity.principal_of over every credential header the
        deployment checks or forwards: Authorization unless the proxy's token or JWT check
        consumes it, each --forward-header; with a JWT check, the verified issuer and subject)
        and whether that proves a principal (identity.py)."""
        credentials = [(name, value) for name in self.credential_names
                       for value in head.headers.get_all(name)]
        if not credentials and self.jwt is None:
            return ANON, not self.credentialed  # (identity.principal_of of no credential)
        if self.jwt is not None:
            return verified_principal(self.identity, self.jwt.principal(
                head.headers.get_all("authorization")), credentials)
        who = self.identity.principal(credentials)
        return who, who != ANON or not self.credentialed

    def early(self, head: Head) -> tuple[int, bytes, list[tuple[str, str]]] | None:
        """The answer to a request refused on its head alone (Host, token), sent before its
        body is read; None to read on."""
        if not self.host_ok(head):
            hosts = head.headers.get_all("host")
            return 421 if len(hosts) == 1 else 400, error_body(
                f"the request has {len(hosts)} Host headers; send exactly one" if len(hosts) != 1 else
                f"the Host {hosts[0]!r} is not one this proxy serves (loopback names"
                + (", and each --allow-host" if not self.bound_loopback else "; it is bound to loopback")
                + ")"), []
        if not self.token_ok(head):
            return 401, error_body(
                "Unauthorized: send Authorization: Bearer <token>, the token given to the proxy "
                "with --client-token-env"), [("WWW-Authenticate", 'Bearer realm="quantity-guard-mcp"')]
        if self.jwt is not None and not (head.method == "GET" and
                                         (head.target or "").startswith("/.well-known/")):
            refused = self.jwt.refusal(head.headers.get_all("authorization"))
            if refused is not None:
                return 401, error_body(f"Unauthorized: {refused[0]}"), [("WWW-Authenticate", refused[1])]
        return None
