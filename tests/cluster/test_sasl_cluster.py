"""Acceptance (issue 29, SASL between nodes): three real nodes whose replication and raft go over SASL_SSL.

Each node has a PLAINTEXT listener (for the test's admin calls), INTERNAL mapped to SASL_SSL with
SCRAM-SHA-512 for the brokers' replica fetchers and for clients, and CONTROLLER mapped to SASL_SSL
with PLAIN for raft and the broker-to-controller channels (SCRAM cannot serve the listener that
carries the metadata log its credentials live in). The SCRAM user the brokers log in as is created
by `kafka-storage format --add-scram`, so it exists before any broker can be reached. A producer over
SASL_SSL writes numbered records with acks=all to a topic of replication factor 3; its leader is
killed with SIGKILL; nothing acknowledged is lost, and the restarted node rejoins the ISR, which it
can only do by fetching over SASL_SSL.
"""

from __future__ import annotations

import re

import confluent_kafka
import pytest

from kafka.clients.admin import NewTopic
from kafka.server.kafka_config import parse_properties
from tests.cluster.kraft_cluster import KRaftCluster, run_tool
from tests.cluster.test_kraft_cluster import created
from tests.cluster.test_replication import FAST_FAILURE_DETECTION, NumberedProducer, describe
from tests.cluster.test_tls_cluster import authentications
from tests.helpers import free_port, unique_topic, wait_until
from tests.security.certificates import Certificates
from tests.security.sasl_helpers import PLAIN_JAAS

pytestmark = pytest.mark.timeout(400)
SCRAM_ADMIN = ('org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" '
               'password="admin-secret";')


def sasl_client(bootstrap: str, ca_file: str) -> dict:
    return {"bootstrap.servers": bootstrap, "security.protocol": "SASL_SSL",
            "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.username": "admin", "sasl.password": "admin-secret", "ssl.ca.location": ca_file}


@pytest.fixture
def sasl_cluster(tmp_path, request):
    certs = Certificates.create(tmp_path / "certs")
    cluster = KRaftCluster(tmp_path, extra=FAST_FAILURE_DETECTION)
    for node in cluster.nodes.values():
        props = parse_properties(node.config_path.read_text())
        node.internal_port = free_port()
        props.update({
            "listeners": f"PLAINTEXT://127.0.0.1:{node.broker_port},INTERNAL://127.0.0.1:{node.internal_port},"
                         f"CONTROLLER://127.0.0.1:{node.controller_port}",
            "advertised.listeners": f"PLAINTEXT://127.0.0.1:{node.broker_port},"
                                    f"INTERNAL://127.0.0.1:{node.internal_port}",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,INTERNAL:SASL_SSL,CONTROLLER:SASL_SSL",
            "inter.broker.listener.name": "INTERNAL",
            "listener.name.internal.sasl.enabled.mechanisms": "SCRAM-SHA-512",
            "listener.name.controller.sasl.enabled.mechanisms": "PLAIN",
            "sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-512",
            "sasl.mechanism.controller.protocol": "PLAIN",
            "listener.name.internal.scram-sha-512.sasl.jaas.config": SCRAM_ADMIN,
            "listener.name.controller.plain.sasl.jaas.config": PLAIN_JAAS,
            **certs.broker_ssl_configs()})
        node.config_path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        formatted = run_tool("kafka.tools.storage_tool", "format", "-t", cluster.cluster_id, "-c",
                             str(node.config_path), "--add-scram",
                             "SCRAM-SHA-512=[name=admin,password=admin-secret]")
        assert formatted.returncode == 0, formatted.stderr
    for node in cluster.nodes.values():
        node.start()
    cluster.certs = certs
    try:
        yield cluster
    finally:
        cluster.stop()
        report = getattr(request.node, "rep_call", None)
        if report is not None and report.failed:
            print(cluster.dump_logs())


def internal_bootstrap(cluster: KRaftCluster) -> str:
    return ",".join(f"127.0.0.1:{n.internal_port}" for n in cluster.nodes.values() if n.running)


def test_replication_over_sasl_ssl_survives_a_killed_leader(sasl_cluster):
    cluster = sasl_cluster
    cluster.await_leader(cluster.nodes[1])
    topic = unique_topic("sasl-rf3")
    with cluster.nodes[1].admin() as admin:
        wait_until(lambda: created(admin, NewTopic(topic, 1, 3, {"min.insync.replicas": "2"})), timeout=60,
                   message="the topic created", interval=0.5)
    wait_until(lambda: (p := describe(cluster, topic)) is not None and len(p.isr) == 3, timeout=60,
               message="all three replicas in the ISR (their fetchers logged in with SCRAM)", interval=0.5)

    # its PLAINTEXT producer, replaced by a SASL_SSL one:
    producer = NumberedProducer(cluster.bootstrap, topic)
    producer.producer = confluent_kafka.Producer({
        **sasl_client(internal_bootstrap(cluster), cluster.certs.ca_file), "acks": "all", "linger.ms": 5,
        "message.timeout.ms": 120000, "retry.backoff.ms": 200, "topic.metadata.refresh.interval.ms": 1000})
    producer.start()
    try:
        wait_until(lambda: len(producer.acknowledged) >= 500, timeout=60,
                   message="acknowledged records flowing")
        leader = describe(cluster, topic).leader
        cluster.nodes[leader].kill()  # SIGKILL: no controlled shutdown
        killed_at = len(producer.acknowledged)
        wait_until(lambda: (p := describe(cluster, topic, exclude=leader)) is not None
                   and p.leader not in (-1, leader) and leader not in p.isr, timeout=60,
                   message=f"a new leader without broker {leader}")
        wait_until(lambda: len(producer.acknowledged) >= killed_at + 500, timeout=60,
                   message="acknowledgements from the new leader")
        cluster.nodes[leader].start()
        wait_until(lambda: (p := describe(cluster, topic)) is not None and len(p.isr) == 3, timeout=90,
                   message=f"broker {leader} back in the ISR, fetching over SASL_SSL")
    finally:
        producer.stop()
    assert not producer.errors, producer.errors[:5]

    acknowledged = set(producer.acknowledged)
    consumer = confluent_kafka.Consumer({**sasl_client(internal_bootstrap(cluster), cluster.certs.ca_file),
                                         "group.id": unique_topic("check"), "auto.offset.reset": "earliest",
                                         "enable.auto.commit": False})
    consumer.subscribe([topic])
    seen: set[int] = set()
    try:
        def read_all() -> bool:
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                seen.add(int(message.value()))
            return acknowledged <= seen
        wait_until(read_all, timeout=90, message="every acknowledged record read back over SASL_SSL",
                   interval=0)
    finally:
        consumer.close()
    assert len(acknowledged) >= 1000

    for node in cluster.nodes.values():
        output = node.output()
        assert re.search(r"SASL authentication "
                         r"done.*listener=INTERNAL.*mechanism=SCRAM-SHA-512.*principal=User:admin",
                         output) or not node.running
        assert authentications(node, "INTERNAL")[1] == 0, "no failed login between the nodes"
    assert any(re.search(r"SASL authentication "
                         r"done.*listener=CONTROLLER.*mechanism=PLAIN.*principal=User:admin",
                         n.output()) for n in cluster.nodes.values())
