"""Start-up checks of SASL listeners (fast, no broker): each bad or missing key is named."""

from __future__ import annotations

import pytest

from kafka.protocol.metadata_records import MetadataRecordType
from kafka.server.bootstrap_directory import read_bootstrap_records
from kafka.server.kafka_config import ConfigError, KafkaConfig
from kafka.tools import storage_tool
from tests.security.sasl_helpers import PLAIN_JAAS, SCRAM_JAAS

SASL = {"listeners": "PLAINTEXT://:9092,SASL_PLAINTEXT://:9093"}


def test_a_sasl_listener_gets_its_mechanisms_and_jaas_contexts():
    c = KafkaConfig({**SASL, "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-512",
                     "listener.name.sasl_plaintext.plain.sasl.jaas.config": PLAIN_JAAS,
                     "sasl.jaas.config": SCRAM_JAAS})
    sasl = c.sasl_config("SASL_PLAINTEXT")
    assert sasl.enabled_mechanisms == ("PLAIN", "SCRAM-SHA-512")
    assert sasl.jaas_contexts["PLAIN"].options["user_alice"] == "alice-secret"
    assert sasl.jaas_contexts["SCRAM-SHA-512"].config_key == "sasl.jaas.config"
    assert c.non_default_values()["listener.name.sasl_plaintext.plain.sasl.jaas.config"] == "[hidden]"


@pytest.mark.parametrize("props, key", [
    ({}, "sasl.enabled.mechanisms"),  # Kafka's default, GSSAPI, is not built
    ({"sasl.enabled.mechanisms": ""}, "sasl.enabled.mechanisms"),
    ({"listener.name.sasl_plaintext.sasl.enabled.mechanisms": "OAUTHBEARER"},
     "listener.name.sasl_plaintext.sasl.enabled.mechanisms"),
    ({"sasl.enabled.mechanisms": "PLAIN"}, "listener.name.sasl_plaintext.plain.sasl.jaas.config"),
    ({"sasl.enabled.mechanisms": "PLAIN", "sasl.jaas.config": "Module required user=;"}, "sasl.jaas.config"),
    ({"sasl.enabled.mechanisms": "SCRAM-SHA-256",
      "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config":
      "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"x\""},
     "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config"),
    ({"sasl.enabled.mechanisms": "PLAIN", "sasl.jaas.config": PLAIN_JAAS,
      "inter.broker.listener.name": "SASL_PLAINTEXT"}, "sasl.mechanism.inter.broker.protocol"),
    ({"sasl.enabled.mechanisms": "PLAIN", "sasl.mechanism.inter.broker.protocol": "PLAIN",
      "sasl.jaas.config": 'org.apache.kafka.common.security.plain.PlainLoginModule required user_a="b";',
      # no username/password to log in with
      "inter.broker.listener.name": "SASL_PLAINTEXT"}, "sasl.jaas.config"),
])
def test_bad_sasl_configs_name_the_key(props, key):
    with pytest.raises(ConfigError, match=f"'{key}'"):
        KafkaConfig({**SASL, **props})


def test_scram_on_the_controller_listener_is_refused_with_the_reason():
    with pytest.raises(ConfigError,
                       match="'sasl.mechanism.controller.protocol' is SCRAM-SHA-512: SCRAM credentials "
                       "live in the metadata log"):
        KafkaConfig({"listeners": "PLAINTEXT://:9092,CONTROLLER://:9093",
                     "controller.listener.names": "CONTROLLER",
                     "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:SASL_PLAINTEXT",
                     "sasl.enabled.mechanisms": "SCRAM-SHA-512",
                     "sasl.mechanism.controller.protocol": "SCRAM-SHA-512",
                     "sasl.jaas.config": SCRAM_JAAS})


def test_the_brokers_own_clients_get_the_mechanism_and_jaas_of_their_listener():
    c = KafkaConfig({"listeners": "PLAINTEXT://:9092,INTERNAL://:9093",
                     "inter.broker.listener.name": "INTERNAL",
                     "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,INTERNAL:SASL_PLAINTEXT,"
                                                       "CONTROLLER:PLAINTEXT",
                     "listener.name.internal.sasl.enabled.mechanisms": "SCRAM-SHA-512",
                     "sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-512",
                     "listener.name.internal.scram-sha-512.sasl.jaas.config": SCRAM_JAAS})
    assert c.client_configs("INTERNAL") == {"security.protocol": "SASL_PLAINTEXT",
                                            "sasl.mechanism": "SCRAM-SHA-512",
                                            "sasl.jaas.config": SCRAM_JAAS}


def test_kafka_storage_add_scram_writes_keys_not_passwords(tmp_path, capsys):
    config = tmp_path / "server.properties"
    config.write_text(f"node.id=1\nlog.dirs={tmp_path / 'data'}\n")
    cluster_id = "MkU3OEVBNTcwNTJENDM2Qg"
    assert storage_tool.main(["format", "-t", cluster_id, "-c", str(config), "--add-scram",
                              "SCRAM-SHA-512=[name=alice,password=alice-secret],SCRAM-SHA-256=[name=bob,password=b,"
                              "iterations=8192]"]) == 0
    records = read_bootstrap_records(str(tmp_path / "data"))
    assert [(r.type, r.data.name, r.data.mechanism, r.data.iterations) for r in records] == [
        (MetadataRecordType.USER_SCRAM_CREDENTIAL_RECORD, "alice", 2, 4096),
        (MetadataRecordType.USER_SCRAM_CREDENTIAL_RECORD, "bob", 1, 8192)]
    assert b"alice-secret" not in (tmp_path / "data" / "bootstrap.checkpoint").read_bytes()
    for bad, message in (("SCRAM-SHA-1=[name=a,password=b]", "unknown SCRAM mechanism"),
                         ("SCRAM-SHA-512=[name=a]", "needs name=... and password=..."),
                         ("SCRAM-SHA-512=[name=a,password=b,iterations=10]", "outside 4096..16384"),
                         ("alice", "expected MECHANISM=[key=value,...]")):
        assert storage_tool.main(["format", "-t", cluster_id, "-c", str(config), "-g", "--add-scram",
                                  bad]) == 1
        assert message in capsys.readouterr().err
