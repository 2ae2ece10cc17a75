"""ScramFormatter, ScramSaslServer and ScramSaslClient against RFC 7677's SCRAM-SHA-256 test vector,
PlainSaslServer and the JAAS parser: fast, no broker."""

import base64

import pytest

from kafka.security.credential_cache import CredentialCache
from kafka.security.jaas_context import JaasConfigError, JaasContext
from kafka.security.plain_sasl_server import PlainSaslServer
from kafka.security.sasl_authentication_exception import SaslAuthenticationException
from kafka.security.scram_formatter import ScramFormatter
from kafka.security.scram_mechanism import ScramMechanism
from kafka.security.scram_sasl_client import ScramSaslClient
from kafka.security.scram_sasl_server import ScramSaslServer

# RFC 7677 section 3
SALT = base64.b64decode("W22ZaJ0SNY7soEsUEjb6gQ==")
CLIENT_NONCE = "rOprNGfwEbeRWgbNEkqO"
SERVER_NONCE = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
CLIENT_FIRST = b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
SERVER_FIRST = b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
CLIENT_FINAL = (b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                b"p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
SERVER_FINAL = b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
SHA256 = ScramMechanism.SCRAM_SHA_256


def rfc_cache() -> CredentialCache:
    cache = CredentialCache()
    cache.update("SCRAM-SHA-256", "user", ScramFormatter(SHA256).generate_credential("pencil", 4096, SALT))
    return cache


def test_server_answers_the_rfc_7677_vector():
    server = ScramSaslServer(SHA256, rfc_cache(), server_nonce=SERVER_NONCE)
    assert server.evaluate_response(CLIENT_FIRST) == SERVER_FIRST
    assert server.evaluate_response(CLIENT_FINAL) == SERVER_FINAL
    assert server.is_complete and server.authorization_id == "user"


def test_client_sends_the_rfc_7677_vector():
    client = ScramSaslClient(SHA256, "user", "pencil", nonce=CLIENT_NONCE)
    assert client.evaluate_challenge(b"") == CLIENT_FIRST
    assert client.evaluate_challenge(SERVER_FIRST) == CLIENT_FINAL
    assert client.evaluate_challenge(SERVER_FINAL) is None and client.is_complete


@pytest.mark.parametrize("mechanism", list(ScramMechanism))
def test_client_and_server_agree_and_a_wrong_password_fails(mechanism):
    cache = CredentialCache()
    cache.update(mechanism.mechanism_name, "alice",
                 ScramFormatter(mechanism).generate_credential("secret", 8192))
    for password, ok in (("secret", True), ("wrong", False)):
        client, server = ScramSaslClient(mechanism, "alice", password), ScramSaslServer(mechanism, cache)
        challenge = server.evaluate_response(client.evaluate_challenge(b""))
        final = client.evaluate_challenge(challenge)
        if ok:
            assert client.evaluate_challenge(server.evaluate_response(final)) is None
        else:
            with pytest.raises(SaslAuthenticationException, match="Invalid client credentials"):
                server.evaluate_response(final)


@pytest.mark.parametrize("final, message", [
    (CLIENT_FINAL.replace(b"k0,p=", b"k1,p="), "Invalid client nonce"),
    (CLIENT_FINAL[:-8] + b"AAAAAAA=", "Invalid client credentials"),
    (b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=AAAA", "Invalid client credentials"),
    (CLIENT_FINAL.replace(b"c=biws", b"c=eSws"), "Invalid channel binding"),
    (CLIENT_FINAL[:30], "invalid SCRAM client-final message"),
    (b"\xff\xfe", "not UTF-8"),
])
def test_a_bad_client_final_fails_cleanly(final, message):
    server = ScramSaslServer(SHA256, rfc_cache(), server_nonce=SERVER_NONCE)
    server.evaluate_response(CLIENT_FIRST)
    with pytest.raises(SaslAuthenticationException, match=message):
        server.evaluate_response(final)
    with pytest.raises(SaslAuthenticationException):  # the exchange is over
        server.evaluate_response(CLIENT_FINAL)


@pytest.mark.parametrize("first, message", [
    (b"n,,n=nobody,r=abc", "Invalid user credentials"),
    (b"garbage", "invalid SCRAM client-first message"),
    (b"", "invalid SCRAM client-first message"),
    (b"p=tls-unique,,n=user,r=abc", "channel binding is not supported"),
    (b"n,,n=user,r=abc,tokenauth=true", "delegation tokens"),
])
def test_a_bad_client_first_fails_cleanly(first, message):
    with pytest.raises(SaslAuthenticationException, match=message):
        ScramSaslServer(SHA256, rfc_cache()).evaluate_response(first)


def test_old_librdkafkas_repeated_client_nonce_is_accepted_and_no_other_prefix():
    cache = CredentialCache()
    cache.update("SCRAM-SHA-256", "user", ScramFormatter(SHA256).generate_credential("pencil", 4096))
    for prefix, ok in ((CLIENT_NONCE, True), ("x" + CLIENT_NONCE, False), ("abc", False)):
        server = ScramSaslServer(SHA256, cache, server_nonce=SERVER_NONCE)
        server_first = server.evaluate_response(CLIENT_FIRST).decode()
        salt = base64.b64decode(server_first.split(",s=")[1].split(",")[0])
        formatter = ScramFormatter(SHA256)
        without_proof = f"c=biws,r={prefix}{CLIENT_NONCE}{SERVER_NONCE}"
        message = f"n=user,r={CLIENT_NONCE},{server_first},{without_proof}".encode()
        proof = formatter.client_proof(formatter.salted_password("pencil", salt, 4096), message)
        final = f"{without_proof},p={base64.b64encode(proof).decode()}".encode()
        if ok:
            assert server.evaluate_response(final).startswith(b"v=")
        else:
            with pytest.raises(SaslAuthenticationException, match="Invalid client nonce"):
                server.evaluate_response(final)


def test_user_names_are_escaped():
    cache = CredentialCache()
    cache.update("SCRAM-SHA-256", "a,b=c", ScramFormatter(SHA256).generate_credential("pw", 4096))
    client, server = ScramSaslClient(SHA256, "a,b=c", "pw"), ScramSaslServer(SHA256, cache)
    first = client.evaluate_challenge(b"")
    assert b"n=a=2Cb=3Dc," in first
    client.evaluate_challenge(server.evaluate_response(first))
    assert server.authorization_id is None or server.authorization_id == "a,b=c"


@pytest.mark.parametrize("token, message", [
    (b"\x00alice\x00alice-secret", None),
    (b"alice\x00alice\x00alice-secret", None),
    (b"\x00alice\x00wrong", "Invalid username or password"),
    (b"\x00mallory\x00x", "Invalid username or password"),
    (b"\x00\x00x", "username not specified"),
    (b"\x00alice\x00", "password not specified"),
    (b"bob\x00alice\x00alice-secret", "authorization id"),
    (b"garbage", "expected 3 tokens"),
])
def test_plain(token, message):
    server = PlainSaslServer({"username": "admin", "password": "a", "user_alice": "alice-secret"})
    if message is None:
        assert server.evaluate_response(token) == b"" and server.authorization_id == "alice"
    else:
        with pytest.raises(SaslAuthenticationException, match=message):
            server.evaluate_response(token)


def test_jaas_config_parses_kafka_syntax_and_names_the_key_when_it_cannot():
    context = JaasContext.load("sasl.jaas.config", 'org.apache.kafka.common.security.scram.ScramLoginModule '
                                                   'required username="alice" password="a \\"q\\" b";')
    assert context.credentials() == ("alice", 'a "q" b')
    for bad in ("", "Module required username=\"x\"", "Module maybe;", "Module required user;"):
        with pytest.raises(JaasConfigError, match="'listener.name.x.plain.sasl.jaas.config'"):
            JaasContext.load("listener.name.x.plain.sasl.jaas.config", bad)
