"""Acceptance: what the leader checks and stamps in produced batches (LogValidator), as librdkafka's
own integration tests expect of Kafka: keyless records refused by compacted topics (KIP-467
record_errors), LogAppendTime stamped by the broker, and the timestamp bounds."""

from __future__ import annotations

import time

import zstandard
from confluent_kafka import TIMESTAMP_LOG_APPEND_TIME, Consumer, KafkaError, Producer, TopicPartition

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.compression import CompressionType, compress
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import (
    DefaultRecord,
    build_batch,
    encode_records,
    seal_batch,
    set_base_offset,
)
from kafka.protocol.types import VarInt, VarLong
from kafka.utils.topic_partition import TopicPartition as LogPartition
from tests.helpers import unique_topic, wait_until
from tests.integration.test_confluent_kafka import create_topic
from tests.wire import WireClient


def produce_all(bootstrap: str, topic: str, messages: list[dict]) -> list:
    """Each message in a batch of its own (flush between): [(error, message)] in order."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0, "retries": 0})
    reports = []
    for m in messages:
        producer.produce(topic, on_delivery=lambda err, msg: reports.append((err, msg)), **m)
        producer.flush(30)
    return reports


def read(bootstrap: str, topic: str, count: int) -> list:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused", "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, 0, 0)])
    got = []
    try:
        def enough():
            m = consumer.poll(0.2)
            if m is not None and m.error() is None:
                got.append(m)
            return len(got) >= count
        wait_until(enough, timeout=30, message=f"{count} records")
    finally:
        consumer.close()
    return got


def test_a_compacted_topic_refuses_keyless_records_with_record_errors(broker):
    topic = unique_topic("compact")
    create_topic(broker.bootstrap, topic, 1, {"cleanup.policy": "compact"})
    reports = produce_all(broker.bootstrap, topic, [{"key": b"k1", "value": b"a"}, {"value": b"keyless"},
                                                    {"key": b"k2", "value": b"b"}])
    assert [r[0].code() if r[0] else None for r in reports] == [None, KafkaError.INVALID_RECORD, None]
    assert [m.value() for m in read(broker.bootstrap, topic, 2)] == [b"a", b"b"]

    client = WireClient(broker.port)  # the ProduceResponse itself: which records, and why
    mixed = build_batch([DefaultRecord(0, 0, b"k", b"v"), DefaultRecord(1, 0, None, b"v"),
                         DefaultRecord(2, 0, None, b"v")])
    response = client.request(ApiKey.PRODUCE, 9, {"acks": -1, "timeout_ms": 5000, "topic_data": [
        {"name": topic, "partition_data": [{"index": 0, "records": mixed}]}]})
    partition = response.responses[0].partition_responses[0]
    assert partition.error_code == Errors.INVALID_RECORD
    assert [e.batch_index for e in partition.record_errors] == [1, 2]
    assert "Compacted topic cannot accept message without key" in partition.error_message
    offsets = client.request(ApiKey.LIST_OFFSETS, 7, {"replica_id": -1, "isolation_level": 0, "topics": [
        {"name": topic, "partitions": [{"partition_index": 0, "timestamp": -1}]}]})
    assert offsets.topics[0].partitions[0].offset == 2  # the whole batch was refused, keyed record too
    client.close()


def test_log_append_time_topics_get_the_brokers_timestamp(broker):
    topic = unique_topic("lat")
    create_topic(broker.bootstrap, topic, 1, {"message.timestamp.type": "LogAppendTime"})
    before = int(time.time() * 1000)
    reports = produce_all(broker.bootstrap, topic, [{"value": b"old", "timestamp": 1000}])
    after = int(time.time() * 1000)
    assert reports[0][0] is None
    (record,) = read(broker.bootstrap, topic, 1)
    kind, timestamp = record.timestamp()
    assert kind == TIMESTAMP_LOG_APPEND_TIME
    assert before - 1000 <= timestamp <= after + 1000  # the broker's clock, not the producer's 1000


def test_timestamps_outside_the_topics_bounds_are_invalid_timestamp(broker):
    topic = unique_topic("bounds")
    create_topic(broker.bootstrap, topic, 1, {"message.timestamp.before.max.ms": "3600000",
                                              "message.timestamp.after.max.ms": "3600000"})
    now = int(time.time() * 1000)
    reports = produce_all(broker.bootstrap, topic,
                          [{"value": b"two days old", "timestamp": now - 2 * 86400_000},
                                                    {"value": b"now", "timestamp": now},
                                                    {"value": b"next week",
                                                     "timestamp": now + 7 * 86400_000}])
    assert [r[0].code() if r[0] else None for r in reports] == [KafkaError.INVALID_TIMESTAMP, None,
                                                               KafkaError.INVALID_TIMESTAMP]
    default = unique_topic("default-bounds")  # Kafka 4: an hour ahead at most, no bound behind
    create_topic(broker.bootstrap, default, 1)
    reports = produce_all(broker.bootstrap, default,
                          [{"value": b"last year", "timestamp": now - 365 * 86400_000},
                           {"value": b"tomorrow", "timestamp": now + 86400_000}])
    assert [r[0].code() if r[0] else None for r in reports] == [None, KafkaError.INVALID_TIMESTAMP]


# ------------------------------------------------------------------ every record read (issue 27)


def raw_batch(payload: bytes, count: int, attributes: int = 0, timestamp: int = 0) -> bytes:
    """A batch whose header says `count` records and codec `attributes`, over any records section."""
    return seal_batch(base_offset=0, attributes=attributes, last_offset_delta=count - 1,
                      base_timestamp=timestamp,
                      max_timestamp=timestamp, producer_id=-1, producer_epoch=-1, base_sequence=-1,
                      records_count=count, payload=payload)


def records_section(count: int, offsets: list[int] | None = None, timestamp: int = 0) -> bytes:
    offsets = offsets if offsets is not None else list(range(count))
    return encode_records([DefaultRecord(o, timestamp, None, b"value %d" % o) for o in offsets], 0, timestamp)


def zstd_bomb(value_bytes: int, timestamp: int) -> bytes:
    """One record whose value is `value_bytes` zeros, zstd-compressed as a stream: about 30 KB a GB."""
    value_length, body = bytearray(), bytearray(b"\x00")  # attributes
    VarLong.write(body, 0)  # timestamp delta
    VarInt.write(body, 0)  # offset delta
    VarInt.write(body, -1)  # null key
    VarInt.write(value_length, value_bytes)
    head = bytearray()
    VarInt.write(head, len(body) + len(value_length) + value_bytes + 1)
    compressor = zstandard.ZstdCompressor().compressobj()
    out = [compressor.compress(bytes(head + body + value_length))]
    zeros = bytes(1 << 20)
    for _ in range(value_bytes >> 20):
        out.append(compressor.compress(zeros))
    out.append(compressor.compress(b"\x00"))  # no headers
    out.append(compressor.flush())
    return raw_batch(b"".join(out), 1, int(CompressionType.ZSTD), timestamp)


def produce_raw(client: WireClient, topic: str, batch: bytes):
    response = client.request(ApiKey.PRODUCE, 9, {"acks": -1, "timeout_ms": 5000, "topic_data": [
        {"name": topic, "partition_data": [{"index": 0, "records": batch}]}]})
    return response.responses[0].partition_responses[0]


def test_every_record_of_a_batch_is_checked_and_a_poisoned_batch_is_refused_whole(broker):
    topic = unique_topic("poison")
    create_topic(broker.bootstrap, topic, 1)
    client = WireClient(broker.port)
    now = int(time.time() * 1000)
    assert produce_raw(client, topic,
                       build_batch([(None, b"before")], timestamp=now)).error_code == Errors.NONE
    for codec in (5, 7):  # attributes naming a codec that does not exist
        answer = produce_raw(client, topic, raw_batch(records_section(1), 1, codec))
        assert answer.error_code == Errors.UNSUPPORTED_COMPRESSION_TYPE, codec
    for codec in (CompressionType.GZIP, CompressionType.SNAPPY, CompressionType.LZ4, CompressionType.ZSTD):
        answer = produce_raw(client, topic, raw_batch(b"this is not compressed data" * 4, 1, int(codec)))
        assert answer.error_code == Errors.CORRUPT_MESSAGE, codec
    truncated = compress(CompressionType.ZSTD, records_section(3))[:-4]
    assert produce_raw(client, topic, raw_batch(truncated, 3, int(CompressionType.ZSTD))).error_code in (
        Errors.CORRUPT_MESSAGE, Errors.INVALID_RECORD)
    # A record whose offset delta is not its position: refused, and the response says which one.
    answer = produce_raw(client, topic, raw_batch(records_section(3, [0, 8, 2]), 3))
    assert answer.error_code == Errors.INVALID_RECORD
    assert [e.batch_index for e in answer.record_errors] == [1]
    assert "offset delta" in answer.error_message
    answer = produce_raw(client, topic, raw_batch(records_section(2) + b"\x00\x01\x02", 2))
    assert answer.error_code == Errors.INVALID_RECORD  # bytes after the last record
    # A compressed batch whose header claims one record more than it holds.
    lying = raw_batch(compress(CompressionType.LZ4, records_section(3)), 4, int(CompressionType.LZ4))
    assert produce_raw(client, topic, lying).error_code == Errors.INVALID_RECORD
    # 30 KB that inflate to a gigabyte: refused by the record's length, before its value is read.
    bomb = zstd_bomb(1 << 30, now)
    assert len(bomb) < 64 * 1024
    answer = produce_raw(client, topic, bomb)
    assert answer.error_code == Errors.MESSAGE_TOO_LARGE  # Kafka's RECORD_TOO_LARGE
    assert answer.error_message is None  # as Kafka: RECORD_TOO_LARGE carries no message, the broker logs why
    assert produce_raw(client, topic,
                       build_batch([(None, b"after")], timestamp=now)).error_code == Errors.NONE
    client.close()
    # Nothing of the refused batches was appended: a real consumer reads on, offsets 0 and 1.
    got = read(broker.bootstrap, topic, 2)
    assert [(m.offset(), m.value()) for m in got] == [(0, b"before"), (1, b"after")]


def test_compressed_batches_from_librdkafka_are_accepted_and_read_back(broker):
    topic = unique_topic("codecs")
    create_topic(broker.bootstrap, topic, 1)
    for codec in ("gzip", "snappy", "lz4", "zstd"):
        producer = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 50,
                             "compression.codec": codec})
        for i in range(200):
            producer.produce(topic, key=b"k%d" % i, value=b"%s %d " % (codec.encode(), i) * 20,
                             headers=[("h", b"v")])
        assert producer.flush(30) == 0
    assert len(read(broker.bootstrap, topic, 800)) == 800


def test_a_timestamp_lookup_skips_batches_written_before_records_were_checked(broker):
    """Batches that reached the disk unchecked (an older broker) cost a lookup neither an
    UNKNOWN_SERVER_ERROR nor the gigabyte a bomb inflates to."""
    topic = unique_topic("on-disk")
    create_topic(broker.bootstrap, topic, 1)
    tp = LogPartition(topic, 0)
    wait_until(lambda: broker.server.replica_manager.get_partition(tp) is not None, message="the partition")
    log = broker.server.replica_manager.get_partition(tp).log
    now = int(time.time() * 1000)
    poisoned = [raw_batch(records_section(1, timestamp=now), 1, 5, now),
                raw_batch(b"not zstd at all, not at all", 1, int(CompressionType.ZSTD), now),
                zstd_bomb(1 << 28, now + 1)]
    good = build_batch([(None, b"good")], timestamp=now + 2)
    for offset, batch in enumerate([*poisoned, good]):  # as a follower appends: nothing is checked
        batch = bytearray(batch)
        set_base_offset(batch, 0, offset)
        log.append_as_follower(batch)
    log.update_high_watermark(log.log_end_offset)
    client = WireClient(broker.port)

    def lookup(timestamp: int):
        response = client.request(ApiKey.LIST_OFFSETS, 7, {"replica_id": -1, "isolation_level": 0, "topics": [
            {"name": topic, "partitions": [{"partition_index": 0, "timestamp": timestamp}]}]})
        return response.topics[0].partitions[0]

    first = lookup(now)  # the two unreadable batches are skipped; the bomb's one record answers
    assert (first.error_code, first.offset, first.timestamp) == (Errors.NONE, 2, now + 1)
    newest = lookup(-3)  # MAX_TIMESTAMP
    assert (newest.error_code, newest.offset) == (Errors.NONE, 3)
    assert lookup(now + 2).offset == 3
    client.close()
