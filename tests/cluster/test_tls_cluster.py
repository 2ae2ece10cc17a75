"""Acceptance (issue 29, TLS between nodes): three real nodes whose replication and raft go over TLS.

Each node has a PLAINTEXT listener for clients, an INTERNAL listener mapped to SSL for the brokers'
replica fetchers (inter.broker.listener.name=INTERNAL) and a CONTROLLER listener mapped to SSL for
raft and the broker-to-controller channels, all with ssl.client.auth=required: every node proves
who it is with its certificate. A topic with replication factor 3 and min.insync.replicas=3 takes
acks=all writes only if both followers fetch them, which they can only do over TLS.
"""

from __future__ import annotations

import re
import urllib.request

import confluent_kafka
import pytest

from kafka.clients.admin import NewTopic
from kafka.server.kafka_config import parse_properties
from tests.cluster.kraft_cluster import KRaftCluster
from tests.cluster.test_kraft_cluster import created, topic_on
from tests.helpers import free_port, unique_topic, wait_until
from tests.security.certificates import Certificates

pytestmark = pytest.mark.timeout(300)
BROKER_PRINCIPAL = "User:CN=broker,OU=kafka,O=Example,C=US"


@pytest.fixture
def tls_cluster(tmp_path, request):
    certs = Certificates.create(tmp_path / "certs")
    cluster = KRaftCluster(tmp_path)
    for node in cluster.nodes.values():
        props = parse_properties(node.config_path.read_text())
        internal = free_port()
        props.update({
            "listeners": f"PLAINTEXT://127.0.0.1:{node.broker_port},INTERNAL://127.0.0.1:{internal},"
                         f"CONTROLLER://127.0.0.1:{node.controller_port}",
            "advertised.listeners": f"PLAINTEXT://127.0.0.1:{node.broker_port},INTERNAL://127.0.0.1:{internal}",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,INTERNAL:SSL,CONTROLLER:SSL",
            "inter.broker.listener.name": "INTERNAL", **certs.broker_ssl_configs("required")})
        node.config_path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    cluster.format_and_start()
    try:
        yield cluster
    finally:
        cluster.stop()
        report = getattr(request.node, "rep_call", None)
        if report is not None and report.failed:
            print(cluster.dump_logs())


def authentications(node, listener: str) -> tuple[float, float]:
    """(successful, failed) TLS handshakes on one listener of a node, from its /metrics."""
    url = re.findall(r"metrics=(http://\S+/metrics)", node.output())[-1]
    text = urllib.request.urlopen(url, timeout=10).read().decode()

    def total(name: str) -> float:
        return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                   if line.startswith(f"kafka_server_socket_server_metrics_{name}{{")
                   and f'listener="{listener}"' in line)
    return total("successful_authentication_total"), total("failed_authentication_total")


def test_replication_and_raft_run_over_tls(tls_cluster):
    node = tls_cluster.nodes[1]
    tls_cluster.await_leader(node)
    topic = unique_topic("tls-rf3")
    with node.admin() as admin:
        wait_until(lambda: created(admin, NewTopic(topic, 1, 3, {"min.insync.replicas": "3"})), timeout=60,
                   message="the topic created", interval=0.5)
        wait_until(lambda: (d := topic_on(admin, topic)) and sorted(d.partitions[0].isr) == [1, 2, 3],
                   timeout=60,
                   message="all three replicas in the ISR", interval=0.5)
    producer = confluent_kafka.Producer({"bootstrap.servers": tls_cluster.bootstrap, "acks": "all"})
    acknowledged: list[int] = []
    for i in range(300):
        producer.produce(topic, value=b"%d" % i,
                         on_delivery=lambda err, msg: acknowledged.append(int(msg.value())) if err is None
                         else None)
    assert producer.flush(60) == 0
    # acks=all with min.insync.replicas=3: both followers have them
    assert sorted(acknowledged) == list(range(300))

    with node.admin() as admin:
        leader = tls_cluster.nodes[topic_on(admin, topic).partitions[0].leader]
    handshake = rf"TLS handshake done.*listener=INTERNAL.*principal='?{re.escape(BROKER_PRINCIPAL)}"
    fetchers = re.findall(handshake, leader.output())
    assert len(fetchers) >= 2, "both followers' replica fetchers come over TLS, as the broker's certificate"
    successful, failed = authentications(leader, "INTERNAL")
    assert successful >= 2 and failed == 0
    for other in tls_cluster.nodes.values():  # raft and the broker-to-controller channels: TLS too
        assert authentications(other, "INTERNAL")[1] == 0
    controller_handshakes = [n for n in tls_cluster.nodes.values()
                             if re.search(r"TLS handshake done.*listener=CONTROLLER", n.output())]
    assert len(controller_handshakes) >= 2  # every voter is reached by the others over TLS
