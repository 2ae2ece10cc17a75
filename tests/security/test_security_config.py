"""KafkaConfig's security keys and SslFactory: each bad value stops start-up naming its key."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest

from kafka.security.security_protocol import SecurityProtocol
from kafka.security.ssl_factory import SslConfigError, SslFactory
from kafka.server.config_helper import BROKER, ConfigHelper
from kafka.server.kafka_config import ConfigError, KafkaConfig
from tests.security.certificates import PASSWORD, Certificates


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> Certificates:
    return Certificates.create(tmp_path_factory.mktemp("certs"))


def config(**props: str) -> KafkaConfig:
    return KafkaConfig({k.replace("_", "."): v for k, v in props.items()})


def test_security_protocols_have_kafkas_ids():
    assert [(p.name, int(p)) for p in SecurityProtocol] == [("PLAINTEXT", 0), ("SSL", 1),
                                                            ("SASL_PLAINTEXT", 2),
                                                             ("SASL_SSL", 3)]


def test_each_listener_gets_its_protocol_from_the_map(certs):
    c = KafkaConfig({"listeners": "PLAINTEXT://:9092,INTERNAL://:9093,SSL://:9094",
                     "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,INTERNAL:SSL,"
                                                       "CONTROLLER:PLAINTEXT",
                     **certs.broker_ssl_configs()})
    protocols = {e.listener_name: e.security_protocol for e in c.listeners}
    assert protocols == {"PLAINTEXT": SecurityProtocol.PLAINTEXT, "INTERNAL": SecurityProtocol.SSL,
                         "SSL": SecurityProtocol.SSL, "CONTROLLER": SecurityProtocol.PLAINTEXT}
    assert [e.security_protocol for e in c.advertised_listeners] == [SecurityProtocol.PLAINTEXT,
                                                                     SecurityProtocol.SSL,
                                                                     SecurityProtocol.SSL]


@pytest.mark.parametrize("props, key", [
    ({"listener.security.protocol.map": "PLAINTEXT:TLS"}, "listener.security.protocol.map"),
    ({"listeners": "OTHER://:9092", "listener.security.protocol.map": "CONTROLLER:PLAINTEXT"},
     "listener.security.protocol.map"),
    # a SASL listener with Kafka's default mechanism, GSSAPI, which is not built
    ({"listeners": "SASL_SSL://:9092"}, "sasl.enabled.mechanisms"),
    ({"listeners": "PLAINTEXT://:9092,EXTERNAL://:9093",
      "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,EXTERNAL:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT"},
     "sasl.enabled.mechanisms"),
    ({"listeners": "PLAINTEXT://:9092,SSL://:9093"}, "ssl.keystore.location"),  # no keystore
    ({"listeners": "SSL://:9093", "ssl.keystore.type": "PEM", "ssl.keystore.location": "/nonexistent.pem"},
     "ssl.keystore.location"),
    ({"ssl.client.auth": "always"}, "ssl.client.auth"),
    ({"inter.broker.listener.name": "PLAINTEXT", "security.inter.broker.protocol": "PLAINTEXT"},
     "inter.broker.listener.name"),
    ({"inter.broker.listener.name": "INTERNAL"}, "inter.broker.listener.name"),
    ({"listener.name.plaintext.ssl.unknown": "x"}, "listener.name.plaintext.ssl.unknown"),
])
def test_bad_security_configs_name_the_key(props, key):
    with pytest.raises(ConfigError, match=f"'{key}'") as error:
        KafkaConfig(props)
    if "SASL" in str(props):
        assert "GSSAPI" in str(error.value) and "SCRAM-SHA-512" in str(error.value)


def test_listener_prefixed_ssl_keys_override_the_global_ones(certs, tmp_path):
    c = KafkaConfig({"listeners": "PLAINTEXT://:9092,INTERNAL://:9093",
                     "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,INTERNAL:SSL,"
                                                       "CONTROLLER:PLAINTEXT",
                     **certs.broker_ssl_configs(), "listener.name.internal.ssl.client.auth": "required",
                     "ssl.keystore.password": "secret"})
    assert c.ssl_configs("INTERNAL")["ssl.client.auth"] == "required"
    assert c.ssl_configs("PLAINTEXT")["ssl.client.auth"] == "none"
    assert c.client_configs("INTERNAL")["security.protocol"] == "SSL"
    assert c.client_configs("PLAINTEXT") == {"security.protocol": "PLAINTEXT"}
    shown = c.non_default_values()
    assert shown["ssl.keystore.password"] == "[hidden]"
    assert shown["listener.name.internal.ssl.client.auth"] == "required"


def test_inter_broker_listener_defaults_to_the_protocols_name(certs):
    c = KafkaConfig({"listeners": "PLAINTEXT://:9092,SSL://:9093", "security.inter.broker.protocol": "SSL",
                     **certs.broker_ssl_configs()})
    assert c.inter_broker_listener_name == "SSL"
    assert KafkaConfig({}).inter_broker_listener_name == "PLAINTEXT"


def test_keystores_pem_encrypted_pkcs12_and_inline(certs):
    trust = {"ssl.truststore.type": "PEM", "ssl.truststore.location": certs.ca_file}
    SslFactory({"ssl.keystore.type": "PEM", "ssl.keystore.location": certs.broker_keystore, **trust}, True)
    SslFactory({"ssl.keystore.type": "PEM", "ssl.keystore.location": certs.broker_keystore_encrypted,
                "ssl.key.password": PASSWORD, **trust}, True)
    SslFactory({"ssl.keystore.type": "PKCS12", "ssl.keystore.location": certs.broker_pkcs12,
                "ssl.keystore.password": PASSWORD}, True)
    # Kafka's default type JKS: a PKCS12 file is read as PKCS12, as Java's keystore.type.compat does
    SslFactory({"ssl.keystore.location": certs.broker_pkcs12, "ssl.keystore.password": PASSWORD}, True)
    pem = Path(certs.broker_keystore).read_text()
    chain, key = pem[:pem.index("-----BEGIN PRIVATE KEY")], pem[pem.index("-----BEGIN PRIVATE KEY"):]
    factory = SslFactory({"ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": chain,
                          "ssl.keystore.key": key, "ssl.truststore.type": "PEM",
                          "ssl.truststore.certificates": Path(certs.ca_file).read_text(),
                          "ssl.client.auth": "required"}, True)
    assert factory.context.verify_mode == ssl.CERT_REQUIRED


@pytest.mark.parametrize("configs, key", [
    ({"ssl.keystore.type": "PEM", "ssl.keystore.location": "@ENCRYPTED"}, "ssl.key.password"),
    ({"ssl.keystore.type": "PKCS12", "ssl.keystore.location": "@P12", "ssl.keystore.password": "wrong"},
     "ssl.keystore.password"),
    ({"ssl.keystore.location": "@JKS"}, "ssl.keystore.type"),
    ({"ssl.keystore.type": "PKCS12", "ssl.keystore.certificate.chain": "x", "ssl.keystore.key": "y"},
     "ssl.keystore.certificate.chain"),
    ({"ssl.keystore.type": "PEM", "ssl.keystore.location": "@PEM", "ssl.enabled.protocols": "SSLv3"},
     "ssl.enabled.protocols"),
    ({"ssl.keystore.type": "PEM", "ssl.keystore.location": "@PEM", "ssl.protocol": "SSL"}, "ssl.protocol"),
    ({"ssl.keystore.type": "PEM", "ssl.keystore.location": "@PEM", "ssl.cipher.suites": "NOPE"},
     "ssl.cipher.suites"),
    ({"ssl.keystore.type": "PEM", "ssl.keystore.location": "@PEM", "ssl.truststore.type": "PEM",
      "ssl.truststore.certificates": "not a certificate"}, "ssl.truststore.certificates"),
])
def test_bad_keystores_name_the_key(certs, tmp_path, configs, key):
    jks = tmp_path / "store.jks"
    jks.write_bytes(b"\xfe\xed\xfe\xed" + b"\x00" * 60)
    files = {"@ENCRYPTED": certs.broker_keystore_encrypted, "@P12": certs.broker_pkcs12, "@JKS": str(jks),
             "@PEM": certs.broker_keystore}
    configs = {k: files.get(v, v) for k, v in configs.items()}
    with pytest.raises(SslConfigError, match=key.replace(".", r"\.")):
        SslFactory(configs, server_mode=True)


def test_client_context_checks_the_host_name_by_default(certs):
    trust = {"ssl.truststore.type": "PEM", "ssl.truststore.location": certs.ca_file}
    assert SslFactory(trust, server_mode=False).context.check_hostname
    assert not SslFactory({**trust, "ssl.endpoint.identification.algorithm": ""},
                          False).context.check_hostname


def test_describe_configs_never_returns_a_password(certs):
    c = KafkaConfig({**certs.broker_ssl_configs(), "ssl.keystore.password": "secret",
                     "ssl.key.password": "k"})
    described = {d.name: d for d in ConfigHelper(None, c).describe_configs(BROKER, "1", None)}
    for key in ("ssl.keystore.password", "ssl.key.password"):
        entry = described[key].to_response(4, include_synonyms=True)
        assert entry["value"] is None and entry["is_sensitive"]
        assert all(s["value"] is None for s in entry["synonyms"])
    assert described["ssl.client.auth"].value == "none"
