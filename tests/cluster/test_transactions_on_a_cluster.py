"""Transactions across three KRaft nodes as real processes (KIP-98): the transaction coordinator of
an id is the leader of its `__transaction_state` partition (three replicas, min ISR 2, Kafka's
defaults), and its COMMIT and ABORT markers go over the network to the leaders of the partitions in
the transaction, spread over all three brokers; read_committed consumers see the committed records only.
"""

from __future__ import annotations

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.cluster.kraft_cluster import started_cluster
from tests.helpers import wait_until

pytestmark = pytest.mark.timeout(300)

TRANSACTION_STATE = {"transaction.state.log.replication.factor": "3", "transaction.state.log.min.isr": "2",
                     "transaction.state.log.num.partitions": "6"}


def metadata(admin: AdminClient, *topic: str):
    """The cluster's metadata, or None while no node answers yet (a busy machine starts them slowly)."""
    try:
        return admin.list_topics(*topic, timeout=5)
    except KafkaException:
        return None


def test_a_transaction_over_partitions_led_by_three_brokers(tmp_path, request):
    with started_cluster(tmp_path, request, extra=TRANSACTION_STATE) as cluster:
        bootstrap = cluster.bootstrap
        admin = AdminClient({"bootstrap.servers": bootstrap})
        wait_until(lambda: (m := metadata(admin)) and len(m.brokers) == 3, 90, "three brokers", interval=0.2)
        admin.create_topics([NewTopic("orders", 3, 3)])["orders"].result(30)
        wait_until(lambda: (m := metadata(admin, "orders"))
                   and {p.leader for p in m.topics["orders"].partitions.values()}
                   == {1, 2, 3}, 30, "a leader on each broker")

        producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": "cluster-tx",
                             "linger.ms": 1})
        producer.init_transactions(60)
        for outcome in ("commit", "abort", "commit"):
            producer.begin_transaction()
            for partition in range(3):
                producer.produce("orders", value=f"{outcome}-{partition}".encode(), partition=partition)
            producer.flush(30)
            getattr(producer, f"{outcome}_transaction")(60)

        consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "cluster-reader",
                             "isolation.level": "read_committed", "enable.auto.commit": False})
        consumer.assign([TopicPartition("orders", p, OFFSET_BEGINNING) for p in range(3)])
        values: list[bytes] = []

        def six_committed() -> bool:
            values.extend(m.value() for m in consumer.consume(100, timeout=0.2) if m.error() is None)
            return len(values) >= 6

        try:
            wait_until(six_committed, 60, "the two committed transactions on all three partitions")
        finally:
            consumer.close()
        assert sorted(values) == sorted(f"commit-{p}".encode() for p in range(3) for _ in range(2))
