"""An OAuth issuer for the tests: key pairs generated here (RSA and EC P-256), their JSON Web
Key Set, access tokens signed with them (PyJWT), and the forged tokens a verifier must refuse
(built by hand where PyJWT refuses to sign them: ``alg: none``, HS256 keyed with the public key)."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import uuid

import pytest

jwt = pytest.importorskip("jwt")
pytest.importorskip("cryptography")

from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec, rsa  # noqa: E402

ISSUER = "https://issuer.example"
AUDIENCE = "https://mcp.example/mcp"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Issuer:
    """Signing keys by ``kid`` (``rsa-1``, and ``ec-1``, ``rsa-2`` on demand), the public JWKS."""

    def __init__(self, issuer: str = ISSUER, audience: str = AUDIENCE) -> None:
        self.issuer, self.audience = issuer, audience
        self.private: dict[str, object] = {}
        self.published: list[str] = []
        self.add("rsa-1")

    def add(self, kid: str, publish: bool = True):
        key = ec.generate_private_key(ec.SECP256R1()) if kid.startswith("ec") else \
            rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.private[kid] = key
        if publish:
            self.published.append(kid)
        return key

    def jwk(self, kid: str) -> dict:
        algorithm = jwt.algorithms.ECAlgorithm if kid.startswith("ec") else jwt.algorithms.RSAAlgorithm
        out = json.loads(algorithm.to_jwk(self.private[kid].public_key()))
        out.update(kid=kid, use="sig")
        return out

    def jwks(self) -> dict:
        return {"keys": [self.jwk(kid) for kid in self.published]}

    def public_pem(self, kid: str = "rsa-1") -> bytes:
        return self.private[kid].public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)

    def claims(self, sub: str, **changed) -> dict:
        now = int(time.time())
        out = {"iss": self.issuer, "aud": self.audience, "sub": sub, "iat": now, "nbf": now,
               "exp": now + 300, "jti": uuid.uuid4().hex}
        out.update(changed)
        return {k: v for k, v in out.items() if v is not None}

    def token(self, sub: str = "alice", kid: str = "rsa-1", **changed) -> str:
        alg = "ES256" if kid.startswith("ec") else "RS256"
        return jwt.encode(self.claims(sub, **changed), self.private[kid], algorithm=alg,
                          headers={"kid": kid})

    def unsigned(self, sub: str = "alice") -> str:
        """``alg: none``: no signature at all."""
        head = b64(json.dumps({"alg": "none", "typ": "JWT", "kid": "rsa-1"}).encode())
        return f"{head}.{b64(json.dumps(self.claims(sub)).encode())}."

    def hmac_with_public_key(self, sub: str = "alice", secret: bytes | None = None) -> str:
        """HS256 keyed with the published public key (PEM): the key-confusion forgery."""
        head = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": "rsa-1"}).encode())
        signing = f"{head}.{b64(json.dumps(self.claims(sub)).encode())}"
        mac = hmac.new(secret or self.public_pem(), signing.encode(), hashlib.sha256).digest()
        return f"{signing}.{b64(mac)}"


def forged(issuer: Issuer) -> dict[str, tuple[str, str]]:
    """Tokens that must be refused, each with a word the refusal must say."""
    stranger = Issuer()  # its own keys, never published here
    if "rsa-unpublished" not in issuer.private:
        issuer.add("rsa-unpublished", publish=False)
    return {
        "signed with another key": (stranger.token(), "signature"),
        "alg none": (issuer.unsigned(), "'none'"),
        "HS256 keyed with the public key": (issuer.hmac_with_public_key(), "'HS256'"),
        "expired": (issuer.token(exp=int(time.time()) - 120, iat=int(time.time()) - 420,
                                 nbf=int(time.time()) - 420), "expired"),
        "not valid yet": (issuer.token(nbf=int(time.time()) + 120), "not valid yet"),
        "another audience": (issuer.token(aud="https://other.example/mcp"), "aud"),
        "another issuer": (issuer.token(iss="https://evil.example"), "issuer"),
        "no sub": (issuer.token(sub=None), "'sub'"),
        "no exp": (issuer.token(exp=None), "'exp'"),
        "an unpublished key": (issuer.token(kid="rsa-unpublished"), "not in the key set"),
        "a payload changed after signing": (tamper(issuer.token(), sub="bob"), "signature"),
    }


def tamper(token: str, **changed) -> str:
    head, payload, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims.update(changed)
    return f"{head}.{b64(json.dumps(claims).encode())}.{signature}"


class KeySetServer:
    """The issuer's JWKS over https on 127.0.0.1 (a thread), with a certificate made here:
    ``cafile`` trusts it (give it as ``SSL_CERT_FILE``); ``fetches`` counts the reads."""

    def __init__(self, issuer: Issuer, directory) -> None:
        import datetime
        import http.server
        import ipaddress
        import ssl
        import threading

        from cryptography import x509
        from cryptography.hazmat.primitives import hashes
        from cryptography.x509.oid import NameOID
        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
        now = datetime.datetime.now(datetime.timezone.utc)
        cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(minutes=5))
                .not_valid_after(now + datetime.timedelta(hours=1))
                .add_extension(x509.SubjectAlternativeName(
                    [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
                .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                .sign(key, hashes.SHA256()))
        self.cafile = str(directory / "jwks-ca.pem")
        keyfile = directory / "jwks-key.pem"
        with open(self.cafile, "wb") as f:
            f.write(cert.public_bytes(serialization.Encoding.PEM))
        keyfile.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                              serialization.PrivateFormat.PKCS8,
                                              serialization.NoEncryption()))
        self.fetches = 0
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (the stdlib's name)
                server.fetches += 1
                body = json.dumps(issuer.jwks()).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.cafile, str(keyfile))
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self.httpd.server_address[1]}/.well-known/jwks.json"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
