"""Acceptance: exactly-once read-process-write with a KIP-848 consumer (``group.protocol=consumer``),
confluent-kafka (librdkafka 2.x) on one broker.

The producer sends the consumer's offsets with each transaction (TxnOffsetCommit v3, carrying the
member id and the member epoch that ConsumerGroupHeartbeat returned, in its generation id field).
The coordinator must check them against the consumer group, not the classic groups: answered
UNKNOWN_MEMBER_ID, librdkafka aborts every transaction and the loop rewinds for ever. Every fifth
batch is aborted on purpose and replayed from the group's committed offsets, as an application that
failed mid-batch would. Then a read_committed reader of the output must see each input exactly once,
and the group's committed offsets must be the input's end.
"""

from __future__ import annotations

from collections import Counter

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer, TopicPartition

from tests.helpers import unique_topic, wait_until
from tests.integration.test_confluent_kafka import create_topic
from tests.integration.test_transactions import READ_COMMITTED, last_stable_offset, transactional_producer

PARTITIONS, INPUTS = 3, 3000
GROUPS = {"group.initial.rebalance.delay.ms": "0", "offsets.topic.num.partitions": "1",
          "transaction.state.log.num.partitions": "1", "group.consumer.heartbeat.interval.ms": "500",
          "group.consumer.min.heartbeat.interval.ms": "500"}


def fill(bootstrap: str, topic: str) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for n in range(INPUTS):
        producer.produce(topic, value=b"%d" % n, partition=n % PARTITIONS)
    assert producer.flush(30) == 0


def read_committed_to_the_end(bootstrap: str, port: int, topic: str) -> Counter[bytes]:
    """Every committed value of the topic, counted: read once the last transaction's markers are in
    (the last stable offset at the log end), up to each partition's end (librdkafka's EOF is the LSO)."""
    reader = Consumer({"bootstrap.servers": bootstrap, "group.id": unique_topic("reader"),
                       "enable.auto.commit": False,
                       "isolation.level": READ_COMMITTED, "enable.partition.eof": True})
    partitions = [TopicPartition(topic, p) for p in range(PARTITIONS)]
    for tp in partitions:
        wait_until(lambda tp=tp: last_stable_offset(port, topic,
                                                    tp.partition) == reader.get_watermark_offsets(
            tp, 10, cached=False)[1], 30, f"{topic}-{tp.partition}'s last transaction to be settled")
    reader.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(PARTITIONS)])
    values: Counter[bytes] = Counter()
    at_end: set[int] = set()

    def all_read() -> bool:
        for m in reader.consume(num_messages=1000, timeout=0.2):
            if m.error() is None:
                values[m.value()] += 1
            elif m.error().code() == KafkaError._PARTITION_EOF:
                at_end.add(m.partition())
        return len(at_end) == PARTITIONS

    try:
        wait_until(all_read, 30, f"{topic} read to its end")
    finally:
        reader.close()
    return values


def rewind_to_committed(consumer: Consumer) -> None:
    """What an application does after an abort: back to what the group committed (the start if nothing)."""
    for tp in consumer.committed(consumer.assignment(), 10):
        consumer.seek(TopicPartition(tp.topic, tp.partition, tp.offset if tp.offset >= 0
                                     else OFFSET_BEGINNING))


def test_a_consumer_group_member_commits_its_offsets_in_its_transactions(start_broker):
    broker = start_broker(overrides=GROUPS)
    source, sink, group = unique_topic("eos-in"), unique_topic("eos-out"), unique_topic("eos-848")
    create_topic(broker.bootstrap, source, PARTITIONS)
    create_topic(broker.bootstrap, sink, PARTITIONS)
    fill(broker.bootstrap, source)

    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group,
                         "group.protocol": "consumer",
                         "enable.auto.commit": False, "auto.offset.reset": "earliest",
                         "isolation.level": READ_COMMITTED})
    consumer.subscribe([source])
    producer = transactional_producer(broker.bootstrap, unique_topic("eos-id"))
    outcomes: Counter[str] = Counter()
    processed = 0

    def process_a_batch() -> bool:
        nonlocal processed
        messages = [m for m in consumer.consume(num_messages=200, timeout=0.5) if m.error() is None]
        if not messages:
            return processed >= INPUTS
        producer.begin_transaction()
        for m in messages:
            producer.produce(sink, value=b"out-" + m.value(), partition=m.partition())
        try:
            producer.send_offsets_to_transaction(consumer.position(consumer.assignment()),
                                                 consumer.consumer_group_metadata(), 30)
            if sum(outcomes.values()) % 5 == 4:  # the application "fails" this one: its output and offsets go
                raise RuntimeError("abort on purpose")
            producer.commit_transaction(30)
        except (KafkaException, RuntimeError) as e:
            if isinstance(e, KafkaException) and not e.args[0].txn_requires_abort():
                raise
            outcomes["aborted on purpose" if isinstance(e, RuntimeError) else e.args[0].name()] += 1
            producer.abort_transaction(30)
            rewind_to_committed(consumer)
            return False
        outcomes["committed"] += 1
        processed += len(messages)
        return processed >= INPUTS

    try:
        try:
            wait_until(process_a_batch, 60, f"{INPUTS} records processed in committed transactions",
                       interval=0)
        except AssertionError as e:
            raise AssertionError(f"{e}: {processed} processed, transactions {dict(outcomes)}") from None
        committed = {tp.partition: tp.offset for tp in
                     consumer.committed([TopicPartition(source, p) for p in range(PARTITIONS)], 10)}
    finally:
        consumer.close()

    assert set(outcomes) == {"committed",
                             "aborted on purpose"}, f"no transaction failed on its own: {outcomes}"
    assert processed == INPUTS
    assert committed == {p: INPUTS // PARTITIONS
                         for p in range(PARTITIONS)}, "the group's offsets: the input's end"
    output = read_committed_to_the_end(broker.bootstrap, broker.port, sink)
    assert output == Counter(b"out-%d" % n
                             for n in range(INPUTS)), "each input exactly once in the committed output"
