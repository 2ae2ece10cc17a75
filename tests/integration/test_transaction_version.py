"""transaction.version (KIP-890 part 2) on a real broker: a cluster starts at 2, as Kafka 4.4 formats it, and
`kafka-storage format --feature transaction.version=0` starts one at 0. librdkafka (confluent-kafka) and our
own producer speak the first protocol at either level: their transactions commit, read_committed sees them,
and their producer epoch stays where InitProducerId put it (DescribeTransactions). The Java client's epoch
bump at level 2 is tests/jvm/test_java_client.py's; the wire-level comparison with Kafka 4.4 is
tests/differential/test_transactions.py's."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kafka.clients.producer.kafka_producer import KafkaProducer
from kafka.protocol.api_keys import ApiKey
from tests.helpers import REPO, BrokerProcess, unique_topic
from tests.integration.test_confluent_kafka import create_topic
from tests.integration.test_transactions import READ_COMMITTED, read_all, transactional_producer
from tests.wire import WireClient


@pytest.fixture(scope="module")
def level_0_broker(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tv0")
    data, config = tmp / "data", tmp / "server.properties"
    config.write_text(f"node.id=1\nlog.dirs={data}\n")
    formatted = subprocess.run([sys.executable, "-m", "kafka.tools.storage_tool", "format", "-t",
                                "bbbbbbbbbbbbbbbbbbbbbb", "-c", str(config),
                                "--feature", "transaction.version=0"],
                               capture_output=True, text=True, cwd=REPO, timeout=60)
    assert formatted.returncode == 0, formatted.stderr
    broker = BrokerProcess(data)
    try:
        yield broker
    finally:
        broker.stop()


def finalized_transaction_version(port: int) -> int | None:
    client = WireClient(port)
    try:
        versions = client.request(ApiKey.API_VERSIONS, 3, {"client_software_name": "test",
                                                           "client_software_version": "1"})
    finally:
        client.close()
    return {f.name: f.max_version_level for f in versions.finalized_features}.get("transaction.version")


def described_epoch(port: int, transactional_id: str) -> tuple[str, int]:
    """DescribeTransactions (kafka-transactions describe), asked of the coordinator: the state and epoch."""
    client = WireClient(port)
    try:
        state = client.request(ApiKey.DESCRIBE_TRANSACTIONS, 0,
                               {"transactional_ids": [transactional_id]}).transaction_states[0]
    finally:
        client.close()
    return state.transaction_state, state.producer_epoch


@pytest.mark.parametrize("level", [2, 0])
def test_librdkafka_transactions_at_level_2_and_0(broker, level_0_broker, level):
    server = broker if level == 2 else level_0_broker
    assert finalized_transaction_version(server.port) == (2 if level == 2 else None)  # level 0: no record
    topic, txn = unique_topic(f"tv{level}-rdkafka"), unique_topic("txn")
    create_topic(server.bootstrap, topic, 1)
    producer = transactional_producer(server.bootstrap, txn)
    epochs = []
    for i in range(3):
        producer.begin_transaction()
        producer.produce(topic, f"v{i}".encode())
        if i == 1:
            producer.flush(10)
            producer.abort_transaction(30)
        else:
            producer.commit_transaction(30)
        epochs.append(described_epoch(server.port, txn)[1])
    assert read_all(server.bootstrap, topic, READ_COMMITTED, 2) == [b"v0", b"v2"]
    assert epochs == [epochs[0]] * 3, "the first protocol: EndTxn keeps the epoch"


@pytest.mark.parametrize("level", [2, 0])
def test_our_producer_transactions_at_level_2_and_0(broker, level_0_broker, level):
    server = broker if level == 2 else level_0_broker
    topic, txn = unique_topic(f"tv{level}-ours"), unique_topic("txn")
    create_topic(server.bootstrap, topic, 1)
    producer = KafkaProducer({"bootstrap.servers": server.bootstrap, "transactional.id": txn})
    try:
        producer.init_transactions()
        for i in range(2):
            producer.begin_transaction()
            producer.send(topic, value=f"o{i}".encode())
            producer.commit_transaction()
        state, epoch = described_epoch(server.port, txn)  # the markers may still be on their way
        assert state in ("PrepareCommit", "CompleteCommit") and epoch == 0, (state, epoch)
    finally:
        producer.close()
    assert read_all(server.bootstrap, topic, READ_COMMITTED, 2) == [b"o0", b"o1"]
