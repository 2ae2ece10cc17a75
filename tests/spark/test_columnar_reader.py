"""The executor's columnar reader against a real broker, without Spark: KafkaBatchPartitionReader's
Arrow batches must hold exactly the rows the record-at-a-time consumer returns, converted by
``to_row``, for every kind of batch a fetch brings back: headers, null keys and values,
compression, LogAppendTime, gaps left by compaction, transaction markers, and aborted
transactions under read_committed."""

from __future__ import annotations

import pytest
from confluent_kafka import Producer
from confluent_kafka import TopicPartition as ConfluentTopicPartition
from confluent_kafka.admin import AdminClient as ConfluentAdmin

from kafka.clients.admin import AdminClient, NewTopic
from kafka.clients.consumer import KafkaConsumer
from kafka.spark.kafka_batch_partition_reader import KafkaBatchPartitionReader
from kafka.spark.kafka_data_consumer import DataLossError
from kafka.spark.kafka_offset_range import KafkaBatchInputPartition, KafkaOffsetRange
from kafka.spark.kafka_record_to_row_converter import to_row
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import unique_topic, wait_until
from tests.spark.kafka_io import produce

BASE_MS = 1_700_000_000_000


def create(bootstrap: str, prefix: str, configs: dict | None = None) -> str:
    topic = unique_topic(prefix)
    with AdminClient({"bootstrap.servers": bootstrap}) as admin:
        assert admin.create_topics([NewTopic(topic, 1, 1, configs or {})]) == {topic: None}
    return topic


def end_offset(bootstrap: str, topic: str) -> int:
    tp = TopicPartition(topic, 0)
    with KafkaConsumer({"bootstrap.servers": bootstrap}) as consumer:
        return consumer.end_offsets([tp])[tp]


def arrow_rows(bootstrap: str, topic: str, start: int, end: int, headers: bool = True,
               **params) -> list[tuple]:
    """What the Spark task would hand Spark, as tuples in to_row's form."""
    partition = KafkaBatchInputPartition(KafkaOffsetRange(TopicPartition(topic, 0), start, end),
                                         {"bootstrap.servers": bootstrap, **params}, poll_timeout_ms=10_000,
                                         include_headers=headers)
    rows = []
    for batch in KafkaBatchPartitionReader(partition):
        for r in batch.to_pylist():
            row = (r["key"], r["value"], r["topic"], r["partition"], r["offset"], r["timestamp"],
                   r["timestampType"])
            rows.append(row + ([(h["key"], h["value"]) for h in r["headers"]],) if headers else row)
    return rows


def record_rows(bootstrap: str, topic: str, start: int, end: int, headers: bool = True,
                **params) -> list[tuple]:
    """The same range through KafkaConsumer.poll, a ConsumerRecord at a time."""
    tp = TopicPartition(topic, 0)
    rows = []
    with KafkaConsumer({"bootstrap.servers": bootstrap, **params}) as consumer:
        consumer.assign([tp])
        consumer.seek(tp, start)
        wait_until(lambda: rows.extend(to_row(r, headers) for r in consumer.poll(200) if r.offset < end)
                   or consumer.position(tp) >= end, message=f"{topic} read to {end}")
    return rows


def test_every_field_matches_the_record_decoder_across_compression_and_headers(spark_broker):
    bootstrap = spark_broker.bootstrap
    topic = create(bootstrap, "columns")
    records = []
    for i in range(600):
        headers = [("trace", f"t{i}".encode()), ("empty", None), ("", b"")][: i % 4]
        records.append({"partition": 0, "key": None if i % 5 == 0 else f"key-{i}".encode(),
                        "value": None if i % 7 == 0 else b"v" * (i % 300), "timestamp": BASE_MS + i,
                        "headers": headers or None})
    for i, compression in enumerate(("none", "gzip", "lz4", "zstd")):
        produce_with(bootstrap, topic, records[150 * i : 150 * (i + 1)], compression)
    end = end_offset(bootstrap, topic)
    assert end == 600

    expected = record_rows(bootstrap, topic, 0, end)
    assert arrow_rows(bootstrap, topic, 0, end) == expected
    assert [r[4] for r in expected] == list(range(600))
    # A range that starts and ends inside batches keeps exactly its own offsets.
    assert arrow_rows(bootstrap, topic, 37, 411) == expected[37:411]
    assert arrow_rows(bootstrap, topic, 37, 411, headers=False) == [r[:7] for r in expected[37:411]]


def produce_with(bootstrap: str, topic: str, records: list[dict], compression: str) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "compression.type": compression})
    for r in records:
        producer.produce(topic, r["value"], r["key"], partition=0, timestamp=r["timestamp"],
                         headers=r["headers"])
    assert producer.flush(30) == 0


def test_log_append_time_is_the_brokers_timestamp(spark_broker):
    bootstrap = spark_broker.bootstrap
    topic = create(bootstrap, "lat", {"message.timestamp.type": "LogAppendTime"})
    produce(bootstrap, topic, [{"partition": 0, "value": b"x", "timestamp": BASE_MS} for _ in range(20)])
    rows = arrow_rows(bootstrap, topic, 0, 20)
    assert rows == record_rows(bootstrap, topic, 0, 20)
    assert {r[6] for r in rows} == {1} and all(r[5].timestamp() * 1000 > BASE_MS for r in rows)


def test_transaction_markers_and_aborted_transactions(spark_broker):
    bootstrap = spark_broker.bootstrap
    topic = create(bootstrap, "txn")
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": unique_topic("tx"),
                         "linger.ms": 5})
    producer.init_transactions(30)
    for outcome, values in (("commit", [b"c1", b"c2", b"c3"]), ("abort", [b"a1", b"a2"]),
                            ("commit", [b"c4"])):
        producer.begin_transaction()
        for v in values:
            producer.produce(topic, v, partition=0)
        producer.flush(30)
        producer.commit_transaction(30) if outcome == "commit" else producer.abort_transaction(30)
    end = end_offset(bootstrap, topic)
    assert end == 9  # 3 + marker, 2 + marker, 1 + marker: the range ends on a marker

    committed = arrow_rows(bootstrap, topic, 0, end, **{"isolation.level": "read_committed"})
    assert [r[1] for r in committed] == [b"c1", b"c2", b"c3", b"c4"]
    assert [r[4] for r in committed] == [0, 1, 2, 7]  # markers at 3, 6, 8 and the aborted 4, 5 skipped
    assert committed == record_rows(bootstrap, topic, 0, end, **{"isolation.level": "read_committed"})

    uncommitted = arrow_rows(bootstrap, topic, 0, end)
    assert [r[1] for r in uncommitted] == [b"c1", b"c2", b"c3", b"a1", b"a2", b"c4"]  # never a marker
    assert uncommitted == record_rows(bootstrap, topic, 0, end)
    # A range that is nothing but a marker is read (as nothing) without waiting for a record.
    assert arrow_rows(bootstrap, topic, 8, 9) == []


def test_gaps_left_by_compaction(spark_broker):
    bootstrap = spark_broker.bootstrap
    topic = create(bootstrap, "compact", {"cleanup.policy": "compact", "min.cleanable.dirty.ratio": "0.01",
                                         "segment.bytes": "16384"})
    produce(bootstrap, topic, [{"partition": 0, "key": b"k%d" % (i % 10), "value": b"v%04d" % i}
                               for i in range(1000)])
    spark_broker.server.log_manager.get_log(topic, 0).roll()  # everything written so far is cleanable
    spark_broker.server.log_cleaner.wakeup()
    wait_until(lambda: len(record_rows(bootstrap, topic, 0, 1000, headers=False)) <= 20, 30,
               "the cleaner to keep about one record per key")

    rows = arrow_rows(bootstrap, topic, 0, 1000, headers=False)
    assert rows == record_rows(bootstrap, topic, 0, 1000, headers=False)
    latest = {r[0]: r[1] for r in rows}
    assert latest == {b"k%d" % k: b"v%04d" % (990 + k) for k in range(10)}
    assert arrow_rows(bootstrap, topic, 3, 995, headers=False) == [r for r in rows if 3 <= r[4] < 995]


def test_records_gone_before_the_read_are_data_loss(spark_broker):
    bootstrap = spark_broker.bootstrap
    topic = create(bootstrap, "lost")
    produce(bootstrap, topic, [{"partition": 0, "value": b"v%d" % i} for i in range(30)])
    admin = ConfluentAdmin({"bootstrap.servers": bootstrap})
    tp = ConfluentTopicPartition(topic, 0, 10)
    admin.delete_records([tp])[tp].result(15)

    with pytest.raises(DataLossError, match="earliest offset still there is 10.*failOnDataLoss"):
        arrow_rows(bootstrap, topic, 0, 30)
    partition = KafkaBatchInputPartition(KafkaOffsetRange(TopicPartition(topic, 0), 0, 30),
                                         {"bootstrap.servers": bootstrap}, 10_000, fail_on_data_loss=False)
    offsets = [o for b in KafkaBatchPartitionReader(partition) for o in b.column("offset").to_pylist()]
    assert offsets == list(range(10, 30))
