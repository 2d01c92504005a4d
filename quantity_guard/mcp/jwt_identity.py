"""Bearer JWTs verified against a JSON Web Key Set (``--jwks-file``, ``--jwks-url``): who a
verified client is, so that a refreshed token keeps its conversation.

A 2026-07-28 request has no session: its conversation is found by its principal
(``identity.py``), and a refreshed OAuth access token is a new ``Authorization`` value, so a
digest of the credential would start an empty ledger. A token's claims cannot be trusted
unverified either (anyone can write ``"sub": "alice"``). With a key set, the proxy verifies each
bearer token and the principal is its issuer and subject (``iss``, ``sub``): every token of one
subject, refreshed or not, continues one conversation, on every replica. A request whose token
does not verify is refused with ``401`` and the reason; it is never served under a digest of
its credential instead.

The checks (RFC 7519 JWT, RFC 7517 JWK, RFC 8725 JWT best current practices, RFC 9068 access
token claims, RFC 6750 section 3 for the challenge):

* the algorithm is one of :data:`ALGORITHMS` (public-key algorithms only) and in the allow-list;
  ``none`` and the shared-secret ``HS*`` are refused (:data:`REFUSED_ALGORITHMS`), so a token
  signed with the published public key as an HMAC secret never verifies;
* the key is the set's key of the token's ``kid`` (or the set's one key fit for the algorithm
  when the token names none), of the algorithm's key type and curve, and, when the key states an
  ``alg``, that one; a key for encryption (``use`` other than ``sig``) is never used;
* ``exp``, ``iss``, ``sub`` and ``aud`` are required; ``iss`` must be the configured issuer and
  ``aud`` hold the configured audience; ``exp``, ``nbf`` and ``iat`` are checked with
  :data:`LEEWAY` seconds of leeway for clock skew.

Signatures are checked with PyJWT and cryptography, the ``jwt`` extra, imported on use
(:func:`require_pyjwt`). Keys are read at start (a set that does not load is a configuration
error) and read again every ``refresh`` seconds; a token naming a key the set lacks asks for an
early read, at most once every :data:`MIN_REFRESH` seconds (a key rotation), and is refused
until the key is there. A read that fails keeps the keys held.
"""
from __future__ import annotations

import hashlib
import json
import ssl
import threading
import time
import urllib.request
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit

from .identity import VERIFIED

__all__ = ["ALGORITHMS", "EXTRA", "LEEWAY", "MIN_REFRESH", "REFUSED_ALGORITHMS", "JWTVerifier",
           "Refused", "check_algorithms", "require_pyjwt"]

EXTRA = "pip install 'quantity-guard[jwt]'"

ALGORITHMS: dict[str, tuple[str, str | None]] = {
    # algorithm: (the key type it verifies with, its curve)   (RFC 7518 section 3.1, RFC 8037)
    "RS256": ("RSA", None), "RS384": ("RSA", None), "RS512": ("RSA", None),
    "PS256": ("RSA", None), "PS384": ("RSA", None), "PS512": ("RSA", None),
    "ES256": ("EC", "P-256"), "ES384": ("EC", "P-384"), "ES512": ("EC", "P-521"),
    "EdDSA": ("OKP", "Ed25519"),
}
"""The algorithms a token may be signed with: the public-key ones, each with its key type."""

REFUSED_ALGORITHMS: dict[str, str] = {
    "none": "an unsigned token proves nothing",
    "HS256": "a shared-secret algorithm: a key set publishes public keys, and a public key used "
             "as an HMAC secret is known to everyone",
    "HS384": "a shared-secret algorithm (see HS256)",
    "HS512": "a shared-secret algorithm (see HS256)",
}
"""Algorithms never accepted, with the reason (RFC 8725 sections 2.1 and 3.1)."""

LEEWAY = 30
"""Seconds of clock skew allowed on ``exp``, ``nbf`` and ``iat``."""
MIN_REFRESH = 30
"""The shortest time between two reads of the key set asked for by unknown key ids."""
FETCH_TIMEOUT = 5.0
MAX_KEY_SET = 1 << 20  # bytes of one key set read
MAX_KEYS = 64
MAX_TOKEN = 16 << 10  # characters of one token
KEPT_TOKENS = 4096  # verified tokens remembered (by digest) until they expire


class Refused(Exception):
    """A bearer token that does not verify; ``str()`` says why and what to send instead."""


def require_pyjwt() -> Any:
    """The ``jwt`` module (PyJWT with cryptography), or ImportError naming the extra."""
    try:
        import jwt
        from jwt.algorithms import has_crypto
    except ImportError:
        raise ImportError(f"verifying bearer tokens against a key set (--jwks-file, --jwks-url) "
                          f"needs PyJWT and cryptography, the jwt extra: {EXTRA}") from None
    if not has_crypto:
        raise ImportError(f"verifying bearer tokens against a key set needs the cryptography "
                          f"package beside PyJWT, the jwt extra: {EXTRA}")
    return jwt


def check_algorithms(names: Iterable[str]) -> list[str]:
    """The allow-list given (``--jwt-algorithms``), checked; ValueError naming what to give."""
    chosen = [n.strip() for n in names if n.strip()]
    for name in chosen:
        if name in REFUSED_ALGORITHMS or name.lower() == "none":
            raise ValueError(f"{name} is never accepted: "
                             f"{REFUSED_ALGORITHMS.get(name, REFUSED_ALGORITHMS['none'])}")
        if name not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {name!r}: give some of {', '.join(ALGORITHMS)}")
    if not chosen:
        raise ValueError(f"give at least one algorithm of {', '.join(ALGORITHMS)}")
    return chosen


class _Source:
    """Where keys come from: a file (read again when it changed) or an https URL."""

    def __init__(self, where: str, url: bool) -> None:
        self.where, self.url = where, url
        if url and urlsplit(where).scheme.lower() != "https":
            raise ValueError(f"--jwks-url {where}: the key set must be fetched over https "
                             "(a key set read in clear could be replaced on the way)")

    def read(self) -> bytes:
        if not self.url:
            with open(self.where, "rb") as f:
                data = f.read(MAX_KEY_SET + 1)
        else:
            request = urllib.request.Request(self.where, headers={"Accept": "application/json"})
            with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT,
                                        context=ssl.create_default_context()) as resp:
                data = resp.read(MAX_KEY_SET + 1)
        if len(data) > MAX_KEY_SET:
            raise ValueError(f"the key set is over {MAX_KEY_SET} bytes")
        return data


def parse_key_set(data: bytes, where: str) -> dict[str, dict]:
    """The signing keys of a JWKS document, by ``kid`` (a key without one gets its position);
    ValueError for a document that is not a key set or holds private key material."""
    try:
        doc = json.loads(data)
    except ValueError:
        raise ValueError(f"{where}: not JSON; give a JWK Set ({{\"keys\": [...]}}, RFC 7517)") from None
    keys = doc.get("keys") if isinstance(doc, dict) else None
    if not isinstance(keys, list):
        raise ValueError(f"{where}: no \"keys\" array; give a JWK Set (RFC 7517 section 5)")  # noqa: TRY004
    if len(keys) > MAX_KEYS:
        raise ValueError(f"{where}: {len(keys)} keys, more than the {MAX_KEYS} accepted")
    found: dict[str, dict] = {}
    for n, jwk in enumerate(keys):
        if not isinstance(jwk, dict) or jwk.get("kty") not in {kty for kty, _ in ALGORITHMS.values()}:
            continue
        if "d" in jwk:
            raise ValueError(f"{where}: key {jwk.get('kid', n)!r} holds private key material "
                             "(\"d\"); publish the public keys only")
        if jwk.get("use", "sig") != "sig":
            continue
        kid = jwk.get("kid")
        found[kid if isinstance(kid, str) else f"#{n}"] = jwk
    return found


class JWTVerifier:
    """Verifies bearer JWTs against the key sets of ``files`` and ``urls`` for one ``issuer``
    and ``audience``; :meth:`subject` gives a verified token's principal."""

    def __init__(self, *, issuer: str, audience: str, files: Sequence[str] = (),
                 urls: Sequence[str] = (), algorithms: Sequence[str] | None = None,
                 leeway: float = LEEWAY, refresh: float = 300.0,
                 log: Callable[[str], None] | None = None, clock: Callable[[], float] = time.time) -> None:
        self.jwt = require_pyjwt()
        if not files and not urls:
            raise ValueError("give a key set: --jwks-file FILE or --jwks-url URL")
        if not issuer or not audience:
            raise ValueError("a verified token needs the issuer and the audience it must name "
                             "(--jwt-issuer, --jwt-audience)")
        self.issuer, self.audience = issuer, audience
        self.algorithms = check_algorithms(algorithms if algorithms is not None else ALGORITHMS)
        self.leeway, self.refresh = leeway, max(refresh, MIN_REFRESH)
        self.log = log or (lambda text: None)
        self.clock = clock
        self.sources = [_Source(f, False) for f in files] + [_Source(u, True) for u in urls]
        self.keys: dict[str, dict] = {}
        self.generation = 0
        self.read_at = 0.0
        self._prepared: dict[tuple[int, str, str], Any] = {}
        self._kept: OrderedDict[bytes, tuple[str, float, int]] = OrderedDict()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._failing = False
        self._thread: threading.Thread | None = None
        self.load(strict=True)

    # ---------------------------------------------------------------------------- the key set
    def load(self, *, strict: bool = False) -> None:
        """Read every source; ``strict`` (at start) raises ValueError when one fails, later a
        failure is logged once and the keys held are kept."""
        keys: dict[str, dict] = {}
        try:
            for source in self.sources:
                try:
                    keys.update(parse_key_set(source.read(), source.where))
                except (OSError, ValueError) as exc:
                    raise ValueError(f"{source.where}: {getattr(exc, 'reason', None) or exc}") from None
            if not any(self._fits(jwk, alg) for jwk in keys.values() for alg in self.algorithms):
                raise ValueError(f"no key of the key set verifies {', '.join(self.algorithms)}")
        except ValueError as exc:
            if strict:
                raise
            if not self._failing:
                self.log(f"the JWT key set could not be read again ({exc}); the keys held are "
                         "kept, retrying")
            self._failing = True
            return
        finally:
            self.read_at = self.clock()
        if self._failing:
            self.log("the JWT key set was read again")
        self._failing = False
        if keys != self.keys:
            self.keys = keys
            self._prepared = {}
            self.generation += 1  # tokens verified with the old set are verified again

    def start(self) -> None:
        """Read the key set again every ``refresh`` seconds, and early when asked (a thread)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._refresher, name="jwks refresh", daemon=True)
            self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()

    def _refresher(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.refresh)
            self._wake.clear()
            if not self._stop.is_set():
                self.load()

    # ----------------------------------------------------------------------------- verifying
    def subject(self, authorization: Sequence[str]) -> str:
        """The principal of a request whose ``Authorization`` headers are ``authorization``:
        the token's issuer and subject as JSON; raises :class:`Refused`."""
        if len(authorization) != 1:
            raise Refused("send one Authorization header: Bearer <token>, an access token "
                          f"issued by {self.issuer} for {self.audience}" if not authorization else
                          "send exactly one Authorization header")
        scheme, _, token = authorization[0].strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise Refused("send Authorization: Bearer <token>, an access token issued by "
                          f"{self.issuer} for {self.audience}")
        if len(token) > MAX_TOKEN:
            raise Refused(f"the token is over {MAX_TOKEN} characters")
        digest = hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()
        kept = self._kept.get(digest)
        now = self.clock()
        if kept is not None and kept[2] == self.generation and now <= kept[1] + self.leeway:
            self._kept.move_to_end(digest)
            return kept[0]
        who, expires = self._verify(token, now)
        self._kept[digest] = (who, expires, self.generation)
        if len(self._kept) > KEPT_TOKENS:
            self._kept.popitem(last=False)
        return who

    def _verify(self, token: str, now: float) -> tuple[str, float]:
        jwt = self.jwt
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise Refused("the bearer token is not a JWT (header.payload.signature)") from None
        alg = header.get("alg")
        if not isinstance(alg, str) or alg not in self.algorithms:
            why = REFUSED_ALGORITHMS.get(alg) if isinstance(alg, str) else None
            raise Refused(f"the token's algorithm {alg!r} is not accepted"
                          + (f" ({why})" if why else "")
                          + f"; send a token signed with one of {', '.join(self.algorithms)}")
        jwk, kid = self._key_for(header, alg)
        key = self._prepared.get((self.generation, kid, alg))
        if key is None:
            try:
                key = jwt.PyJWK(jwk, algorithm=alg)
            except jwt.PyJWTError as exc:
                raise Refused(f"the key {kid!r} cannot verify {alg}: {exc}") from None
            self._prepared[(self.generation, kid, alg)] = key
        try:
            claims = jwt.decode(token, key=key, algorithms=[alg], audience=self.audience,
                                issuer=self.issuer, leeway=self.leeway,
                                options={"require": ["exp", "iss", "sub", "aud"]})
        except jwt.ExpiredSignatureError:
            raise Refused(f"the token has expired (exp, {self.leeway:g} s of leeway); send a "
                          "fresh one") from None
        except jwt.ImmatureSignatureError:
            raise Refused(f"the token is not valid yet (nbf or iat in the future beyond "
                          f"{self.leeway:g} s)") from None
        except jwt.InvalidAudienceError:
            raise Refused(f"the token is not for this resource: its aud must hold "
                          f"{self.audience!r}") from None
        except jwt.InvalidIssuerError:
            raise Refused(f"the token's issuer is not {self.issuer!r}") from None
        except jwt.MissingRequiredClaimError as exc:
            raise Refused(f"the token has no {exc.claim!r} claim; exp, iss, sub and aud are "
                          "required") from None
        except jwt.InvalidSignatureError:
            raise Refused(f"the token's signature does not verify with the key {kid!r}") from None
        except jwt.PyJWTError as exc:
            raise Refused(f"the token does not verify: {exc}") from None
        sub = claims.get("sub")
        if not isinstance(sub, str) or not sub:
            raise Refused("the token's sub must be a non-empty string")
        expires = claims["exp"]
        return VERIFIED + json.dumps([claims["iss"], sub]), float(expires)

    def _key_for(self, header: dict, alg: str) -> tuple[dict, str]:
        kid = header.get("kid")
        if kid is None:
            fit = [(name, jwk) for name, jwk in self.keys.items() if self._fits(jwk, alg)]
            if len(fit) != 1:
                raise Refused(f"the token names no key (kid) and the key set holds {len(fit)} "
                              f"keys for {alg}; send a token with the kid of its key")
            return fit[0][1], fit[0][0]
        jwk = self.keys.get(kid) if isinstance(kid, str) else None
        if jwk is None:
            self._ask_refresh()
            shown = kid[:64] if isinstance(kid, str) else kid
            raise Refused(f"the key {shown!r} is not in the key set (read "
                          f"{self.clock() - self.read_at:.0f} s ago; read again at most every "
                          f"{MIN_REFRESH} s): retry shortly, or send a token signed with a "
                          "published key")
        if not self._fits(jwk, alg):
            raise Refused(f"the key {kid!r} is not a key for {alg}")
        return jwk, kid

    def _fits(self, jwk: dict, alg: str) -> bool:
        kty, crv = ALGORITHMS[alg]
        return jwk.get("kty") == kty and (crv is None or jwk.get("crv") == crv) \
            and jwk.get("alg", alg) == alg

    def _ask_refresh(self) -> None:
        if self.clock() - self.read_at >= MIN_REFRESH:
            self.read_at = self.clock()  # one early read per MIN_REFRESH, however many ask
            self._wake.set()

    def refusal(self, authorization: Sequence[str]) -> tuple[str, str] | None:
        """None for a request whose token verifies, else why not and the ``WWW-Authenticate``
        value to send with the 401 (RFC 6750 section 3: no error code when no credential was
        sent)."""
        try:
            self.subject(authorization)
        except Refused as exc:
            if not authorization:
                return str(exc), 'Bearer realm="quantity-guard-mcp"'
            text = "".join(c for c in str(exc) if c.isprintable() and c.isascii() and c not in '"\\')
            return str(exc), ('Bearer realm="quantity-guard-mcp", error="invalid_token", '
                              f'error_description="{text[:200]}"')
        return None

    def principal(self, authorization: Sequence[str]) -> str:
        """:meth:`subject`, or "" when the token does not verify."""
        try:
            return self.subject(authorization)
        except Refused:
            return ""
