"""The idempotent producer against a real one-node broker: what lands in the log (seed 004, KIP-98).

Each partition's log is read back as ``kafka-dump-log`` reads it (``batches_in_file``). Every
batch must carry the producer id and epoch from InitProducerId, and sequences that start at 0 and
follow on without a gap, one batch after the other. Whether the broker writes a retried batch
twice is the broker's side, tested there.
"""

from __future__ import annotations

import pytest

from kafka.clients.admin import AdminClient, NewTopic
from kafka.clients.errors import KafkaError
from kafka.clients.producer import KafkaProducer
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import RecordBatch
from kafka.tools.dump_log_segments import batches_in_file
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import unique_topic

PARTITIONS = 3


def _create(bootstrap: str, topic: str, partitions: int = PARTITIONS) -> None:
    with AdminClient({"bootstrap.servers": bootstrap}) as admin:
        assert admin.create_topics([NewTopic(topic, partitions, 1)]) == {topic: None}


def _log_batches(broker, topic: str, partition: int) -> list[RecordBatch]:
    directory = broker.data_dir / f"{topic}-{partition}"
    return [batch for path in sorted(directory.glob("*.log")) for _, batch in batches_in_file(str(path))]


def _require_init_producer_id(broker) -> None:
    """Fail loudly, not skip, on a broker that does not answer InitProducerId yet."""
    if ApiKey.INIT_PRODUCER_ID not in broker.server.apis.handlers:
        pytest.fail("this broker does not advertise InitProducerId (key 22) in ApiVersions: the broker side "
                    "of KIP-98 (kafka/server/kafka_apis.py) is needed before an idempotent "
                    "producer can write",
                    pytrace=False)


def test_every_batch_in_the_log_carries_the_producer_id_and_consecutive_sequences(broker):
    _require_init_producer_id(broker)
    topic = unique_topic("idempotent")
    _create(broker.bootstrap, topic)
    # Small batches and keys over all partitions: many batches per partition, several in flight.
    with KafkaProducer({"bootstrap.servers": broker.bootstrap, "batch.size": 1024,
                        "linger.ms": 1}) as producer:
        futures = [producer.send(topic, f"value-{i}".encode() * 4, key=f"key-{i % 97}".encode())
                   for i in range(6000)]
        producer.flush(60)
        assert producer.transaction_manager is not None  # idempotent by default
        producer_id, epoch = producer.transaction_manager.producer_id_and_epoch
    assert producer_id >= 0 and epoch == 0
    sent_per_partition = [0] * PARTITIONS
    for future in futures:
        sent_per_partition[future.get(10).partition] += 1
    for partition in range(PARTITIONS):
        batches = _log_batches(broker, topic, partition)
        assert len(batches) > 5, "too few batches to say anything about their sequences"
        next_sequence = next_offset = 0
        for batch in batches:
            assert (batch.producer_id, batch.producer_epoch) == (producer_id, epoch)
            assert batch.base_sequence == next_sequence, f"partition {partition}: a gap or a duplicate"
            assert batch.base_offset == next_offset
            next_sequence += batch.records_count
            next_offset = batch.next_offset
        assert next_sequence == sent_per_partition[partition]


def test_a_gap_in_the_sequences_is_closed_by_an_epoch_bump_that_the_broker_accepts(broker):
    """KIP-360 with a real leader: records the producer saw acknowledged are not in the log (as
    after an unclean leader election; here the test moves the producer's sequences on by five).
    The leader answers OUT_OF_ORDER_SEQUENCE_NUMBER to the next batch, the producer bumps its epoch
    locally and sends the batch again from sequence 0, and the leader accepts the new epoch."""
    _require_init_producer_id(broker)
    topic = unique_topic("idempotent-gap")
    _create(broker.bootstrap, topic, 1)
    tp = TopicPartition(topic, 0)
    with KafkaProducer({"bootstrap.servers": broker.bootstrap, "linger.ms": 0}) as producer:
        assert producer.send(topic, b"before").get(10).offset == 0
        tm = producer.transaction_manager
        producer_id, _ = tm.producer_id_and_epoch
        # Nothing is queued or in flight, so the Sender thread is not touching the bookkeeping.
        entry = tm.topic_partition_bookkeeper.get_partition(tp)
        entry.next_sequence += 5
        entry.last_acked_sequence = entry.next_sequence - 1
        after = [producer.send(topic, f"after-{i}".encode()) for i in range(3)]
        producer.flush(30)
        assert [f.get(10).offset for f in after] == [1, 2, 3]
        assert tm.producer_id_and_epoch == (producer_id, 1)
    stamps = [(b.producer_epoch, b.base_sequence, b.records_count) for b in _log_batches(broker, topic, 0)]
    assert stamps[0] == (0, 0, 1)
    assert [s[0] for s in stamps[1:]] == [1] * (len(stamps) - 1)  # the rest in the new epoch ...
    assert stamps[1][1] == 0  # ... starting again at sequence 0
    assert sum(s[2] for s in stamps) == 4  # nothing written twice


def test_a_broker_without_init_producer_id_fails_the_first_send_and_says_what_to_do(broker):
    # A broker from before the broker side of KIP-98: its ApiVersions does not list InitProducerId.
    broker.server.apis.handlers.pop(ApiKey.INIT_PRODUCER_ID, None)
    topic = unique_topic("no-idempotence")
    _create(broker.bootstrap, topic, 1)
    with KafkaProducer({"bootstrap.servers": broker.bootstrap}) as producer:
        # The producer asks for its id in the background as soon as it starts: the first send fails
        # its future if it wins that race, or throws (as Java's send() does) if the answer came first.
        try:
            error = producer.send(topic, b"v").exception(10)
        except KafkaError as thrown:
            error = thrown
        assert isinstance(error, KafkaError) and error.error == Errors.UNSUPPORTED_VERSION
        assert "does not support INIT_PRODUCER_ID" in str(error) and "enable.idempotence=false" in str(error)
        with pytest.raises(KafkaError, match="UNSUPPORTED_VERSION"):
            producer.send(topic, b"again")  # as the Java client: send() throws once the producer failed
    # What the message says, or acks=1 (which quietly turns idempotence off), works with this broker.
    for config in ({"enable.idempotence": False}, {"acks": 1}):
        with KafkaProducer({"bootstrap.servers": broker.bootstrap, **config}) as producer:
            assert producer.transaction_manager is None
            producer.send(topic, b"v").get(10)
    assert {b.producer_id for b in _log_batches(broker, topic, 0)} == {-1}
