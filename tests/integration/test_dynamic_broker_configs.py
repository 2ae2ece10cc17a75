"""Dynamic broker configs on a running broker (KIP-226, docs/dynamic_configs.md), with real clients over
loopback: `kafka-configs --entity-default --alter log.retention.ms` deletes old segments without a restart;
num.io.threads and num.network.threads resized up and down while a producer runs, no request lost; a
rotated TLS keystore served to new connections while an open one goes on; a keystore that does not load
refused, naming the file, and the old one kept (one that names another subject too, as Kafka refuses it)."""

from __future__ import annotations

import socket
import ssl
import subprocess
import sys
import threading
import time

import pytest
from cryptography import x509

from kafka.clients.admin import BROKER_RESOURCE, DELETE, SET, AdminClient, NewTopic
from kafka.clients.errors import KafkaError
from kafka.clients.producer import KafkaProducer
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.server.kafka_request_handler import KafkaRequestHandler
from kafka.tools.certificate_authority import chain_and_key_pem, issue, loopback_names, name
from tests.helpers import REPO, free_port, unique_topic, wait_until
from tests.metrics.scrape import scrape
from tests.security.certificates import Certificates
from tests.wire import WireClient

pytestmark = pytest.mark.broker
HOUR_MS = 3_600_000


def kafka_configs(*args: str) -> str:
    """Our kafka-configs as a user runs it (its own process: the tool sets up logging for itself); its
    standard output."""
    done = subprocess.run([sys.executable, "-m", "kafka.tools.config_command", *args], capture_output=True,
                          text=True, timeout=60, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_log_retention_ms_set_for_the_cluster_deletes_old_segments_without_a_restart(start_broker):
    broker = start_broker(overrides={"log.retention.check.interval.ms": "100"})
    topic = unique_topic("retained")
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        admin.create_topics([NewTopic(topic, 1, 1, {"segment.bytes": "200"})])
    # an hour old by their timestamps: kept under the default seven days
    with KafkaProducer({"bootstrap.servers": broker.bootstrap, "linger.ms": 0}) as producer:
        old = int(time.time() * 1000) - HOUR_MS
        for i in range(20):
            producer.send(topic, f"record-{i}".encode(), timestamp_ms=old).get(15)
    log = broker.server.log_manager.get_log(topic, 0)
    assert log.log_start_offset == 0 and len(log.segments) > 2

    assert kafka_configs("--bootstrap-server", broker.bootstrap, "--alter", "--entity-type", "brokers",
                         "--entity-default", "--add-config", "log.retention.ms=60000") == \
        "Completed updating default config for brokers in the cluster.\n"
    wait_until(lambda: log.log_start_offset > 0, timeout=15, message="the old segments to be deleted")
    assert log.config.retention_ms == 60000

    assert kafka_configs("--bootstrap-server", broker.bootstrap, "--describe", "--entity-type", "brokers",
                         "--entity-default") == (
        "Default configs for brokers in the cluster are:\n"
        "  log.retention.ms=60000 sensitive=false "
        "synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=60000}\n"
        # the first controller's, written at bootstrap with eligible leader replicas on (as Kafka 4.4's)
        "  min.insync.replicas=1 sensitive=false "
        "synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:min.insync.replicas=1}\n")


def test_a_topics_own_retention_wins_over_the_dynamic_default(start_broker):
    broker = start_broker()
    own, plain = unique_topic("own"), unique_topic("plain")
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        admin.create_topics([NewTopic(own, 1, 1, {"retention.ms": "5000"}), NewTopic(plain, 1, 1)])
        admin.incremental_alter_configs(BROKER_RESOURCE, "", [("log.retention.ms", SET, "90000")])
        logs = broker.server.log_manager
        assert logs.get_log(plain, 0).config.retention_ms == 90000
        assert logs.get_log(own, 0).config.retention_ms == 5000
        admin.incremental_alter_configs(BROKER_RESOURCE, "", [("log.retention.ms", DELETE, None)])
        assert logs.get_log(plain, 0).config.retention_ms == 7 * 24 * HOUR_MS


def test_io_and_network_threads_resized_while_a_producer_runs_lose_no_request(start_broker):
    """Up, down and up again under an idempotent producer: every record acknowledged, each stored once. A
    network thread let go closes its connections, as Kafka's does; the producer retries what was in flight
    there, and idempotence keeps the retries from being stored twice."""
    broker = start_broker(overrides={"num.io.threads": "4", "num.network.threads": "2"})
    topic = unique_topic("resized")
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        admin.create_topics([NewTopic(topic, 2, 1)])
    sent, stop = [], threading.Event()

    def produce() -> None:
        with KafkaProducer({"bootstrap.servers": broker.bootstrap, "acks": "all", "linger.ms": 1,
                            "enable.idempotence": True}) as producer:
            while not stop.is_set():
                sent.append(producer.send(topic, f"v{len(sent)}".encode()))
                time.sleep(0.002)
            producer.flush(30)

    thread = threading.Thread(target=produce)
    thread.start()
    pool, sockets = broker.server.request_handler_pool, broker.server.socket_server
    try:
        with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
            for io_threads, network_threads in ((8, 4), (4, 2), (2, 1), (4, 2)):
                count = len(sent)
                ops = [("num.io.threads", SET, str(io_threads)),
                       ("num.network.threads", SET, str(network_threads))]
                admin.incremental_alter_configs(BROKER_RESOURCE, "1", ops)
                assert len(pool.handlers) == io_threads
                assert len(sockets.acceptors["PLAINTEXT"].processors) == network_threads
                metrics = scrape(broker)  # the dashboard's "Threads in each pool"
                assert metrics.value("kafka_server_kafkarequesthandlerpool_requesthandlerpoolsize") == \
                    io_threads
                assert metrics.value("kafka_network_socketserver_networkprocessorcount",
                                     listener="PLAINTEXT") == network_threads
                assert 0 < metrics.value("kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent")
                wait_until(lambda c=count: len(sent) > c + 50, message="the producer to go on")
    finally:
        stop.set()
        thread.join(60)
    assert [f.exception(30) for f in sent] == [None] * len(sent)
    logs = broker.server.log_manager
    assert sum(logs.get_log(topic, p).log_end_offset for p in range(2)) == len(sent)
    channel = broker.server.request_channel
    wait_until(lambda: sum(isinstance(t, KafkaRequestHandler) and t.request_channel is channel
                           for t in threading.enumerate()) == 4, message="the retired handlers to stop")


def test_connection_quotas_change_for_the_next_connections(start_broker):
    """max.connections.per.ip.overrides set for the cluster: a second connection from 127.0.0.2 is closed at
    once, the first stays; deleted again, the next one is taken."""
    broker = start_broker()

    def api_versions(client: WireClient) -> int:
        return client.request(ApiKey.API_VERSIONS, 3, {"client_software_name": "t",
                                                       "client_software_version": "1"}).error_code

    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        admin.incremental_alter_configs(BROKER_RESOURCE, "", [("max.connections.per.ip.overrides", SET,
                                                               "127.0.0.2:1")])
        first = WireClient(broker.port, source_address="127.0.0.2")
        assert api_versions(first) == Errors.NONE
        second = WireClient(broker.port, source_address="127.0.0.2")
        with pytest.raises(ConnectionError):
            api_versions(second)
        second.close()
        admin.incremental_alter_configs(BROKER_RESOURCE, "", [("max.connections.per.ip.overrides", DELETE,
                                                               None)])
        third = WireClient(broker.port, source_address="127.0.0.2")
        assert api_versions(third) == api_versions(first) == Errors.NONE
        for client in (first, third):
            client.close()


def _peer_certificate(port: int, ca_file: str) -> x509.Certificate:
    context = ssl.create_default_context(cafile=ca_file)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw, \
            context.wrap_socket(raw, server_hostname="localhost") as tls:
        return x509.load_der_x509_certificate(tls.getpeercert(binary_form=True))


@pytest.fixture
def tls_broker(start_broker, tmp_path):
    certs = Certificates.create(tmp_path / "certs")
    ssl_port = free_port()
    broker = start_broker(overrides={
        "listeners": f"PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:{ssl_port}",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,CONTROLLER:PLAINTEXT",
        **certs.broker_ssl_configs(prefix="listener.name.ssl.")})
    broker.ssl_port, broker.certs = ssl_port, certs
    return broker


def test_a_rotated_keystore_is_served_to_new_connections_and_open_ones_go_on(tls_broker, tmp_path):
    certs = tls_broker.certs
    before = _peer_certificate(tls_broker.ssl_port, certs.ca_file)
    assert before == certs.broker.certificate
    context = ssl.create_default_context(cafile=certs.ca_file)
    open_one = WireClient(tls_broker.ssl_port)
    open_one.sock = context.wrap_socket(open_one.sock, server_hostname="localhost")
    open_one.request(ApiKey.API_VERSIONS, 3, {"client_software_name": "t", "client_software_version": "1"})

    renewed = issue(name("broker", "kafka"), certs.ca, sans=loopback_names())  # same name, new key
    keystore = tmp_path / "broker-renewed.pem"
    keystore.write_bytes(chain_and_key_pem(renewed))
    with AdminClient({"bootstrap.servers": tls_broker.bootstrap}) as admin:
        admin.incremental_alter_configs(BROKER_RESOURCE, "1", [
            ("listener.name.ssl.ssl.keystore.location", SET, str(keystore))])

    assert _peer_certificate(tls_broker.ssl_port, certs.ca_file) == renewed.certificate
    answer = open_one.request(ApiKey.API_VERSIONS, 3, {"client_software_name": "t",
                                                        "client_software_version": "1"})
    assert answer.error_code == Errors.NONE  # the connection opened before keeps its session
    open_one.close()


def test_a_keystore_that_does_not_load_is_refused_naming_the_file_and_the_old_one_stays(tls_broker, tmp_path):
    certs = tls_broker.certs
    broken = tmp_path / "broken.pem"
    broken.write_text("not a certificate\n")
    with AdminClient({"bootstrap.servers": tls_broker.bootstrap}) as admin:
        for bad in (broken, tmp_path / "missing.pem"):
            with pytest.raises(KafkaError) as refused:
                admin.incremental_alter_configs(BROKER_RESOURCE, "1", [
                    ("listener.name.ssl.ssl.keystore.location", SET, str(bad))])
            assert refused.value.error == Errors.INVALID_REQUEST
            assert f"Failed to load SSL keystore {bad} of type PEM" in str(refused.value)
        other = tmp_path / "other-name.pem"  # loads, but names another broker: Kafka refuses it too
        impostor = issue(name("impostor", "kafka"), certs.ca, sans=loopback_names())
        other.write_bytes(chain_and_key_pem(impostor))
        with pytest.raises(KafkaError) as refused:
            admin.incremental_alter_configs(BROKER_RESOURCE, "1", [
                ("listener.name.ssl.ssl.keystore.location", SET, str(other))])
        assert "Keystore DistinguishedName does not match:  existing={alias=kafka, DN=CN=broker," \
               "OU=kafka,O=Example,C=US}, new={alias=kafka, DN=CN=impostor,OU=kafka,O=Example,C=US}" \
               in str(refused.value)
        assert "listener.name.ssl.ssl.keystore.location" not in admin.describe_configs(BROKER_RESOURCE, "1")
    assert _peer_certificate(tls_broker.ssl_port, certs.ca_file) == certs.broker.certificate
