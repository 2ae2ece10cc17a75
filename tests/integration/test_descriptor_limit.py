"""Acceptance (issue 27, item 1): more partitions than `ulimit -n` allows cost the broker only the
partitions it cannot host.

The broker runs under a limit of 512 descriptors and is asked for 1,000 partitions in one
CreateTopics (a scaled-down 7,000 under 4,096). A partition at rest holds one descriptor, so it
hosts what three quarters of the limit allows, less the partitions kept for the internal topics;
the rest answer KAFKA_STORAGE_ERROR, and the broker says so in one line. A new client is still
served, the partitions it hosts still take and serve records, and it starts again under the same
limit.

Issue 38: that reserve is what lets the first consumer group (and the first transaction) start
after such a CreateTopics: __consumer_offsets and __transaction_state are created afterwards, and
still find their descriptors.
"""

from __future__ import annotations

import os

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch
from tests.helpers import BrokerProcess, wait_until
from tests.wire import WireClient

LIMIT = 512
PARTITIONS = 1000
# offsets.topic.num.partitions + transaction.state.log.num.partitions, Kafka's defaults
RESERVED = 50 + 50
USER_PARTITIONS = LIMIT - LIMIT // 4 - RESERVED  # 284 logs for user topics


def produce_error(port: int, topic: str, partition: int) -> Errors:
    client = WireClient(port)
    try:
        response = client.request(ApiKey.PRODUCE, 9, {
            "transactional_id": None, "acks": 1, "timeout_ms": 5000,
            "topic_data": [{"name": topic, "partition_data": [
                {"index": partition, "records": bytes(build_batch([(None, b"wire")]))}]}]})
        return Errors.for_code(response.responses[0].partition_responses[0].error_code)
    finally:
        client.close()


def produce_and_read_back(bootstrap: str, topic: str, partition: int, value: bytes) -> list[bytes]:
    """A new client: produce one record, then read the partition from the start."""
    producer = Producer({"bootstrap.servers": bootstrap, "message.timeout.ms": 20000})
    errors = []
    producer.produce(topic, value, partition=partition, on_delivery=lambda err, _: errors.append(err))
    assert producer.flush(30) == 0 and errors == [None], errors
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "fd-test", "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, partition, 0)])
    values: list[bytes] = []

    def read_to_value() -> bool:
        message = consumer.poll(0.5)
        if message is not None and not message.error():
            values.append(message.value())
        return value in values
    try:
        wait_until(read_to_value, timeout=30, message=f"{value!r} read back from {topic}-{partition}")
    finally:
        consumer.close()
    return values


def descriptors(broker: BrokerProcess) -> int:
    return len(os.listdir(f"/proc/{broker.process.pid}/fd"))


def test_more_partitions_than_the_descriptor_limit_leave_the_broker_serving(tmp_path):
    broker = BrokerProcess(tmp_path / "data", open_files_limit=LIMIT)
    try:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        admin.create_topics([NewTopic("other", 1, 1)])["other"].result(30)
        assert produce_and_read_back(broker.bootstrap, "other", 0, b"before") == [b"before"]

        admin.create_topics([NewTopic("wide", PARTITIONS, 1)])["wide"].result(60)
        # The broker hosts the first partitions it can and reports the rest offline.
        wait_until(lambda: produce_error(broker.port, "wide", PARTITIONS - 1) == Errors.KAFKA_STORAGE_ERROR,
                   timeout=60, message="the last partition of wide answers KAFKA_STORAGE_ERROR")
        assert descriptors(broker) <= LIMIT * 7 // 8, "a quarter of the limit stays free, give or take a few"
        assert produce_error(broker.port, "wide", 0) == Errors.NONE
        assert produce_and_read_back(broker.bootstrap, "other", 0, b"after") == [b"before", b"after"]
        output = broker.output()
        assert output.count("cannot host partitions") == 1, "one line for the lot, not one per partition"
        assert len(output) < 1_000_000, f"{len(output)} bytes of log"
    finally:
        assert broker.stop() == 0

    restarted = BrokerProcess(tmp_path / "data", port=broker.port, open_files_limit=LIMIT)
    try:
        assert produce_and_read_back(restarted.bootstrap, "other", 0, b"again") == [b"before", b"after",
                                                                                    b"again"]
        assert produce_error(restarted.port, "wide", 0) == Errors.NONE
        assert descriptors(restarted) <= LIMIT * 7 // 8
    finally:
        assert restarted.stop() == 0


def commit_in_a_new_group(bootstrap: str, topic: str) -> int:
    """A consumer group subscribes to `topic`, reads its record and commits: the committed offset."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "after-the-flood",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe([topic])
    try:
        wait_until(lambda: (m := consumer.poll(0.2)) is not None and not m.error(), timeout=30,
                   message=f"the group to form and read {topic}")
        consumer.commit(asynchronous=False)
        return consumer.committed([TopicPartition(topic, 0)], timeout=10)[0].offset
    finally:
        consumer.close()


def commit_a_transaction(bootstrap: str, topic: str) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": "after-the-flood"})
    producer.init_transactions(30)
    producer.begin_transaction()
    producer.produce(topic, b"in a transaction", partition=0)
    producer.commit_transaction(30)


def test_a_client_filling_the_descriptor_budget_leaves_the_coordinators_their_partitions(tmp_path):
    broker = BrokerProcess(tmp_path / "data", open_files_limit=LIMIT,
                           overrides={"group.initial.rebalance.delay.ms": "0"})
    try:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        admin.create_topics([NewTopic("other", 1, 1)])["other"].result(30)
        admin.create_topics([NewTopic("wide", PARTITIONS, 1)])["wide"].result(60)
        # User partitions stop where the reserve begins: other-0 and wide-0..282 take the 284 logs.
        wait_until(lambda: produce_error(broker.port, "wide", PARTITIONS - 1) == Errors.KAFKA_STORAGE_ERROR,
                   timeout=60, message="the last partition of wide answers KAFKA_STORAGE_ERROR")
        assert produce_error(broker.port, "wide", USER_PARTITIONS - 2) == Errors.NONE
        assert produce_error(broker.port, "wide", USER_PARTITIONS - 1) == Errors.KAFKA_STORAGE_ERROR

        producer = Producer({"bootstrap.servers": broker.bootstrap})
        producer.produce("other", b"first", partition=0)
        assert producer.flush(30) == 0
        assert commit_in_a_new_group(broker.bootstrap, "other") == 1  # __consumer_offsets: 50 logs
        commit_a_transaction(broker.bootstrap, "other")  # __transaction_state: 50 more
        assert descriptors(broker) <= LIMIT * 7 // 8
        output = broker.output()
        assert output.count("refusing user partitions: the rest of the open-file budget is kept") == 1
        assert "kept for the partitions of __consumer_offsets, __transaction_state" in output
    finally:
        assert broker.stop() == 0
