"""Bearer JWTs verified against a key set (quantity_guard.mcp.jwt_identity): a token's principal
is its issuer and subject, whatever its jti, iat and exp; every forgery is refused with the
reason; the algorithm allow-list admits no ``none`` and no shared-secret algorithm; the key set
is read from a file or over https only, again on a bounded schedule, and a key rotation is
picked up. Keys generated here (tests/jwt_keys.py)."""
from __future__ import annotations

import json
import time

import pytest
from jwt_keys import AUDIENCE, ISSUER, Issuer, KeySetServer, forged

from quantity_guard.mcp.jwt_identity import (
    ALGORITHMS,
    MIN_REFRESH,
    JWTVerifier,
    Refused,
    check_algorithms,
)


@pytest.fixture(scope="module")
def issuer():
    found = Issuer()
    found.add("ec-1")
    return found


def key_set(path, issuer: Issuer, **changed) -> str:
    jwks = issuer.jwks()
    for jwk in jwks["keys"]:
        jwk.update(changed)
    path.write_text(json.dumps(jwks))
    return str(path)


@pytest.fixture
def verifier(tmp_path, issuer):
    return JWTVerifier(issuer=ISSUER, audience=AUDIENCE, files=[key_set(tmp_path / "k.json", issuer)])


def subject(verifier: JWTVerifier, token: str) -> str:
    return verifier.subject([f"Bearer {token}"])


def test_a_refreshed_token_of_one_subject_is_one_principal(verifier, issuer):
    first = subject(verifier, issuer.token("alice"))
    refreshed = subject(verifier, issuer.token("alice", kid="ec-1", iat=int(time.time()) - 5,
                                               exp=int(time.time()) + 900))
    assert first == refreshed == 'v["https://issuer.example", "alice"]'
    assert subject(verifier, issuer.token("bob")) != first


FORGED = list(forged(Issuer()).keys())


@pytest.mark.parametrize("kind", FORGED)
def test_a_forged_token_is_refused_with_the_reason(verifier, issuer, kind):
    token, says = forged(issuer)[kind]
    with pytest.raises(Refused) as refused:
        subject(verifier, token)
    assert says in str(refused.value)
    assert verifier.principal([f"Bearer {token}"]) == ""


@pytest.mark.parametrize("authorization,says", [
    ([], "send one Authorization header"),
    (["Basic YWxpY2U6cHc="], "send Authorization: Bearer"),
    (["Bearer not-a-jwt"], "not a JWT"),
    (["Bearer a.b.c", "Bearer a.b.c"], "exactly one"),
])
def test_a_request_without_one_bearer_jwt_is_refused(verifier, authorization, says):
    with pytest.raises(Refused, match=says):
        verifier.subject(authorization)


def test_the_leeway_is_30_seconds_either_side(verifier, issuer):
    now = int(time.time())
    assert subject(verifier, issuer.token(exp=now - 20))  # expired 20 s ago: within the leeway
    assert subject(verifier, issuer.token(nbf=now + 20))
    for late in (issuer.token(exp=now - 40), issuer.token(nbf=now + 40)):
        with pytest.raises(Refused):
            subject(verifier, late)


def test_a_verified_token_is_not_kept_past_its_expiry(tmp_path, issuer):
    verifier = JWTVerifier(issuer=ISSUER, audience=AUDIENCE, leeway=0,
                           files=[key_set(tmp_path / "k.json", issuer)])
    token = issuer.token(exp=int(time.time()) + 2)
    assert subject(verifier, token)
    time.sleep(3.1)
    with pytest.raises(Refused, match="expired"):
        subject(verifier, token)


def test_a_key_of_another_type_or_algorithm_is_never_used(tmp_path, issuer):
    import jwt
    # an EC signature under the RSA key's kid
    confused = jwt.encode(issuer.claims("alice"), issuer.private["ec-1"], algorithm="ES256",
                          headers={"kid": "rsa-1"})
    verifier = JWTVerifier(issuer=ISSUER, audience=AUDIENCE,
                           files=[key_set(tmp_path / "k.json", issuer)])
    with pytest.raises(Refused, match="not a key for ES256"):
        subject(verifier, confused)
    # a key that states its algorithm verifies that one only
    pinned = JWTVerifier(issuer=ISSUER, audience=AUDIENCE,
                         files=[key_set(tmp_path / "p.json", issuer, alg="PS256")])
    with pytest.raises(Refused, match="not a key for RS256"):
        subject(pinned, issuer.token())


def test_an_encryption_key_is_never_used_to_verify(tmp_path, issuer):
    jwks = issuer.jwks()
    jwks["keys"][0]["use"] = "enc"  # rsa-1
    (tmp_path / "k.json").write_text(json.dumps(jwks))
    verifier = JWTVerifier(issuer=ISSUER, audience=AUDIENCE, files=[str(tmp_path / "k.json")])
    with pytest.raises(Refused, match="not in the key set"):
        subject(verifier, issuer.token(kid="rsa-1"))
    assert subject(verifier, issuer.token(kid="ec-1"))


def test_a_token_without_kid_needs_the_one_key_for_its_algorithm(tmp_path, issuer):
    import jwt
    token = jwt.encode(issuer.claims("alice"), issuer.private["rsa-1"], algorithm="RS256")
    one = JWTVerifier(issuer=ISSUER, audience=AUDIENCE,
                      files=[key_set(tmp_path / "k.json", issuer)])  # one RSA key, one EC key
    assert subject(one, token)
    two = Issuer()
    two.add("rsa-2")
    several = JWTVerifier(issuer=two.issuer, audience=AUDIENCE,
                          files=[key_set(tmp_path / "two.json", two)])
    no_kid = jwt.encode(two.claims("alice"), two.private["rsa-1"], algorithm="RS256")
    with pytest.raises(Refused, match="names no key"):
        subject(several, no_kid)


@pytest.mark.parametrize("names,says", [
    (["none"], "never accepted"),
    (["HS256"], "shared-secret"),
    (["RS256", "HS512"], "shared-secret"),
    (["RS1"], "unknown algorithm"),
    ([""], "at least one"),
])
def test_the_allow_list_admits_no_unsigned_or_shared_secret_algorithm(names, says):
    with pytest.raises(ValueError, match=says):
        check_algorithms(names)


def test_the_allow_list_is_enforced(tmp_path, issuer):
    verifier = JWTVerifier(issuer=ISSUER, audience=AUDIENCE, algorithms=["ES256"],
                           files=[key_set(tmp_path / "k.json", issuer)])
    assert subject(verifier, issuer.token(kid="ec-1"))
    with pytest.raises(Refused, match="'RS256' is not accepted"):
        subject(verifier, issuer.token(kid="rsa-1"))


@pytest.mark.parametrize("content,says", [
    ("not json", "not JSON"),
    ('{"keys": {}}', "no \"keys\" array"),
    ('{"keys": []}', "no key of the key set verifies"),
    ('{"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}', "no key of the key set verifies"),
])
def test_a_key_set_that_does_not_load_is_refused_at_start(tmp_path, content, says):
    (tmp_path / "k.json").write_text(content)
    with pytest.raises(ValueError, match=says):
        JWTVerifier(issuer=ISSUER, audience=AUDIENCE, files=[str(tmp_path / "k.json")])


def test_a_key_set_holding_a_private_key_is_refused(tmp_path, issuer):
    import jwt
    private = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(issuer.private["rsa-1"]))
    (tmp_path / "k.json").write_text(json.dumps({"keys": [{**private, "kid": "rsa-1"}]}))
    with pytest.raises(ValueError, match="private key material"):
        JWTVerifier(issuer=ISSUER, audience=AUDIENCE, files=[str(tmp_path / "k.json")])


def test_a_missing_file_and_a_clear_url_are_refused(tmp_path):
    with pytest.raises(ValueError, match="No such file"):
        JWTVerifier(issuer=ISSUER, audience=AUDIENCE, files=[str(tmp_path / "absent.json")])
    with pytest.raises(ValueError, match="over https"):
        JWTVerifier(issuer=ISSUER, audience=AUDIENCE, urls=["http://127.0.0.1:1/jwks.json"])


def test_the_key_set_is_fetched_over_verified_https(tmp_path, issuer, monkeypatch):
    server = KeySetServer(issuer, tmp_path)
    try:
        with pytest.raises(ValueError, match="CERTIFICATE_VERIFY_FAILED"):
            JWTVerifier(issuer=ISSUER, audience=AUDIENCE, urls=[server.url])
        monkeypatch.setenv("SSL_CERT_FILE", server.cafile)
        verifier = JWTVerifier(issuer=ISSUER, audience=AUDIENCE, urls=[server.url])
        assert subject(verifier, issuer.token(kid="ec-1"))
    finally:
        server.close()


def test_a_rotated_key_is_picked_up_at_most_once_every_30_seconds(tmp_path):
    rotating = Issuer()
    path = tmp_path / "k.json"
    now = [1000.0]
    verifier = JWTVerifier(issuer=ISSUER, audience=AUDIENCE, files=[key_set(path, rotating)],
                           clock=lambda: now[0])
    verifier.start()
    try:
        rotating.add("rsa-2")  # published after the proxy read the set
        key_set(path, rotating)
        token = rotating.token(kid="rsa-2")
        with pytest.raises(Refused, match="not in the key set"):
            subject(verifier, token)
        time.sleep(1.0)  # the set was read moments ago: no early read yet
        with pytest.raises(Refused, match="not in the key set"):
            subject(verifier, token)
        now[0] += MIN_REFRESH
        with pytest.raises(Refused):  # this one asks for the early read
            subject(verifier, token)
        deadline = time.monotonic() + 10
        while verifier.principal([f"Bearer {token}"]) == "":
            assert time.monotonic() < deadline, "the rotated key was not picked up"
            time.sleep(0.05)
    finally:
        verifier.close()


def test_a_key_set_that_fails_to_read_again_keeps_the_keys_held(tmp_path, issuer):
    said: list[str] = []
    path = key_set(tmp_path / "k.json", issuer)
    verifier = JWTVerifier(issuer=ISSUER, audience=AUDIENCE, files=[path], log=said.append)
    (tmp_path / "k.json").write_text("{")
    verifier.load()
    verifier.load()
    assert subject(verifier, issuer.token())
    assert len(said) == 1 and "the keys held are kept" in said[0]
    key_set(tmp_path / "k.json", issuer)
    verifier.load()
    assert said[1:] == ["the JWT key set was read again"]


@pytest.fixture(scope="module")
def keys_by_type() -> dict:
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
    return {("RSA", None): rsa.generate_private_key(public_exponent=65537, key_size=2048),
            ("EC", "P-256"): ec.generate_private_key(ec.SECP256R1()),
            ("EC", "P-384"): ec.generate_private_key(ec.SECP384R1()),
            ("EC", "P-521"): ec.generate_private_key(ec.SECP521R1()),
            ("OKP", "Ed25519"): ed25519.Ed25519PrivateKey.generate()}


@pytest.mark.parametrize("alg", list(ALGORITHMS))
def test_each_accepted_algorithm_verifies_with_its_own_key_type_only(tmp_path, issuer,
                                                                     keys_by_type, alg):
    import jwt
    own = keys_by_type[ALGORITHMS[alg]]
    jwk = json.loads(jwt.get_algorithm_by_name(alg).to_jwk(own.public_key()))
    (tmp_path / "k.json").write_text(json.dumps({"keys": [{**jwk, "kid": "k"}]}))
    verifier = JWTVerifier(issuer=ISSUER, audience=AUDIENCE, files=[str(tmp_path / "k.json")])
    claims = issuer.claims("alice")
    assert subject(verifier, jwt.encode(claims, own, algorithm=alg, headers={"kid": "k"}))
    for kind, other in keys_by_type.items():  # a key of another type, under the same kid
        if kind == ALGORITHMS[alg]:
            continue
        other_alg = next(a for a, k in ALGORITHMS.items() if k == kind)
        forged_token = jwt.encode(claims, other, algorithm=other_alg, headers={"kid": "k"})
        with pytest.raises(Refused, match=f"not a key for {other_alg}"):
            subject(verifier, forged_token)
