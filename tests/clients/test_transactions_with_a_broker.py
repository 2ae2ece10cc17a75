"""Our own transactional producer and read_committed consumer against a real one-node broker (KIP-98).

The same three things the acceptance test asks of librdkafka (tests/integration/test_transactions.py):
a committed transaction is read, an aborted one is not (but a read_uncommitted consumer sees it, and
neither sees the markers), and consume-transform-produce commits the group's offsets together with
its output.
"""

from __future__ import annotations

from kafka.clients.admin import AdminClient, NewTopic
from kafka.clients.consumer import KafkaConsumer
from kafka.clients.producer import KafkaProducer
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import unique_topic, wait_until


def _create(bootstrap: str, *topics: str) -> None:
    with AdminClient({"bootstrap.servers": bootstrap}) as admin:
        assert admin.create_topics([NewTopic(t, 1, 1) for t in topics]) == {t: None for t in topics}


def _read(bootstrap: str, topic: str, isolation: str, expected: int) -> list[bytes]:
    tp = TopicPartition(topic, 0)
    with KafkaConsumer({"bootstrap.servers": bootstrap, "isolation.level": isolation}) as consumer:
        consumer.assign([tp])
        consumer.seek_to_beginning([tp])
        values: list[bytes] = []

        def enough() -> bool:
            values.extend(r.value for r in consumer.poll(200))
            return len(values) >= expected

        wait_until(enough, 30, f"{expected} records as {isolation}")
    return values


def test_our_producer_commits_and_aborts_and_our_consumer_reads_committed(broker):
    topic = unique_topic("our-txn")
    _create(broker.bootstrap, topic)
    with KafkaProducer({"bootstrap.servers": broker.bootstrap,
                        "transactional.id": unique_topic("our-id")}) as producer:
        producer.init_transactions()
        producer.begin_transaction()
        producer.send(topic, b"committed-1")
        producer.send(topic, b"committed-2")
        producer.commit_transaction()
        producer.begin_transaction()
        producer.send(topic, b"aborted")
        producer.flush()
        producer.abort_transaction()
        producer.begin_transaction()
        producer.send(topic, b"committed-3")
        producer.commit_transaction()

    assert _read(broker.bootstrap, topic, "read_committed", 3) == [b"committed-1", b"committed-2",
                                                                   b"committed-3"]
    assert _read(broker.bootstrap, topic, "read_uncommitted", 4) == [
        b"committed-1", b"committed-2", b"aborted", b"committed-3"]


def test_our_consume_transform_produce_commits_offsets_with_the_output(broker):
    source, sink, group = unique_topic("our-in"), unique_topic("our-out"), unique_topic("our-group")
    _create(broker.bootstrap, source, sink)
    with KafkaProducer({"bootstrap.servers": broker.bootstrap}) as plain:
        for n in range(50):
            plain.send(source, b"%d" % n)
        plain.flush()

    tp = TopicPartition(source, 0)
    consumer = KafkaConsumer({"bootstrap.servers": broker.bootstrap, "group.id": group,
                              "enable.auto.commit": False,
                              "auto.offset.reset": "earliest", "isolation.level": "read_committed"})
    producer = KafkaProducer({"bootstrap.servers": broker.bootstrap,
                              "transactional.id": unique_topic("our-ctp")})
    producer.init_transactions()
    consumer.subscribe([source])
    done = 0

    def transform_a_batch() -> bool:
        nonlocal done
        records = list(consumer.poll(200))
        if records:
            producer.begin_transaction()
            for record in records:
                producer.send(sink, b"x" + record.value)
            producer.send_offsets_to_transaction({tp: consumer.position(tp)}, consumer.group_metadata())
            producer.commit_transaction()
            done += len(records)
        return done >= 50

    try:
        wait_until(transform_a_batch, 60, "50 records transformed in transactions", interval=0)
        committed = consumer.committed([tp])[tp]
    finally:
        producer.close()
        consumer.close()
    assert committed is not None and committed.offset == 50, "the offsets committed with the output"
    assert _read(broker.bootstrap, sink, "read_committed", 50) == [b"x%d" % n for n in range(50)]
