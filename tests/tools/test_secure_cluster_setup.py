"""make cluster-secure's first-use step (kafka/tools/secure_cluster_setup.py) on copies of
config/cluster-secure/, without starting a node: the certificates chain to the CA and name the loopback
host, every node config loads (its keystore and truststore read), the nodes are formatted with the SCRAM
users and never a password, the client property files are Kafka's keys, and a second run keeps everything
it made."""

from __future__ import annotations

import shutil
import ssl

import pytest
from cryptography import x509

from kafka.protocol.metadata_records import MetadataRecordType
from kafka.server.bootstrap_directory import read_bootstrap_records
from kafka.server.kafka_config import KafkaConfig
from kafka.tools import secure_cluster_setup
from kafka.tools.command_line_utils import load_props
from tests.helpers import REPO

pytestmark = pytest.mark.fast
CONFIGS = [f"config/cluster-secure/node-{n}.properties" for n in (1, 2, 3)]


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    shutil.copytree(REPO / "config" / "cluster-secure", tmp_path / "config" / "cluster-secure")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "data" / "cluster-secure"


def test_it_makes_what_the_nodes_and_clients_need(scratch, capsys):
    assert secure_cluster_setup.main(CONFIGS) == 0
    ca = x509.load_pem_x509_certificate((scratch / "ca.pem").read_bytes())
    for n in (1, 2, 3):
        node = x509.load_pem_x509_certificate((scratch / f"node-{n}.pem").read_bytes())
        assert node.issuer == ca.subject and node.subject.rfc4514_string().startswith(f"CN=node-{n},")
        sans = node.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        assert "localhost" in sans.get_values_for_type(x509.DNSName)
        ssl.create_default_context().load_cert_chain(scratch / f"node-{n}.pem")  # the key matches
        config = KafkaConfig.from_file(CONFIGS[n - 1])  # keystores and truststore read, as at start-up
        users = {r.data.name for r in read_bootstrap_records(config.metadata_log_dir)
                 if r.type == MetadataRecordType.USER_SCRAM_CREDENTIAL_RECORD}
        assert users == {"admin", "alice", "bob", "carol"}
        assert b"alice-secret" not in b"".join(p.read_bytes() for p in (scratch / f"node-{n}").iterdir())
    alice = load_props(str(scratch / "alice.properties"))
    assert alice["security.protocol"] == "SASL_SSL" and alice["sasl.mechanism"] == "SCRAM-SHA-512"
    assert 'username="alice" password="alice-secret";' in alice["sasl.jaas.config"]
    assert alice["ssl.truststore.location"] == str(scratch / "ca.pem")
    mtls = load_props(str(scratch / "alice-mtls.properties"))
    assert (mtls["security.protocol"], mtls["ssl.keystore.type"]) == ("SSL", "PEM")
    client = x509.load_pem_x509_certificate((scratch / "alice.pem").read_bytes())
    assert client.subject.rfc4514_string() == "CN=alice,OU=clients,O=Kafka Teaching,C=US"
    assert load_props(str(scratch / "bob-librdkafka.properties"))["sasl.username"] == "bob"
    assert "--add-scram 'SCRAM-SHA-512=[name=carol,password=carol-secret]'" in capsys.readouterr().out


def test_a_second_run_keeps_everything_and_a_lost_ca_key_remakes_the_certificates(scratch, capsys):
    assert secure_cluster_setup.main(CONFIGS) == 0
    made = {p.name: p.read_bytes() for p in scratch.iterdir() if p.is_file()}
    capsys.readouterr()
    assert secure_cluster_setup.main(CONFIGS) == 0
    assert {p.name: p.read_bytes() for p in scratch.iterdir() if p.is_file()} == made
    assert capsys.readouterr().out == ""
    (scratch / "ca-key.pem").unlink()
    assert secure_cluster_setup.main(CONFIGS) == 0
    assert (scratch / "ca.pem").read_bytes() != made["ca.pem"]
    assert (scratch / "node-1.pem").read_bytes() != made["node-1.pem"]
    assert (scratch / "alice.properties").read_bytes() == made["alice.properties"]
