"""Produce, Fetch and DeleteRecords, asked of both brokers: the same bytes in, the same answers out.

Besides the happy path, the batches a broker must refuse whole (a bad CRC, an unknown magic, a
record count that lies, offsets that go backwards inside the batch, a control batch from a
client, one larger than max.message.bytes) and the fetches that ask for what is not there."""

from __future__ import annotations

import struct

import crc32c

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.compression import CompressionType
from kafka.protocol.record_batch import (
    ATTRIBUTES_OFFSET,
    CONTROL_MASK,
    CRC_OFFSET,
    MAGIC_OFFSET,
    DefaultRecord,
    build_batch,
)
from tests.helpers import unique_topic, wait_until

RECORDS_COUNT_OFFSET = 57  # the last int32 of the 61-byte header


def create(pair, topic: str, partitions: int = 1, configs: dict | None = None) -> None:
    """Create the topic on both and wait until each leads its partitions: Kafka answers CreateTopics once
    the controller has committed the topic, before its broker has made the partitions (our broker answers
    after), and a produce in between is NOT_LEADER_OR_FOLLOWER there."""
    pair.same(ApiKey.CREATE_TOPICS, 7, {"topics": [{
        "name": topic, "num_partitions": partitions, "replication_factor": 1, "assignments": [],
        "configs": [{"name": k, "value": v} for k, v in (configs or {}).items()]}],
        "timeout_ms": 30000, "validate_only": False})
    for side in pair.sides:
        wait_until(lambda side=side: all(p.error_code == 0 for p in side.request(
            ApiKey.LIST_OFFSETS, 7, list_offsets(topic, -1, range(partitions))).topics[0].partitions),
            message=f"{side.name} to lead {topic}")


def list_offsets(topic: str, timestamp: int, partitions=(0,), isolation_level: int = 0) -> dict:
    return {"replica_id": -1, "isolation_level": isolation_level, "topics": [{"name": topic, "partitions": [
        {"partition_index": p, "current_leader_epoch": -1, "timestamp": timestamp} for p in partitions]}]}


def records(n: int, timestamp: int = 0, key: bytes | None = b"k", first: int = 0) -> list[DefaultRecord]:
    return [DefaultRecord(first + i, timestamp, key, b"v%d" % i) for i in range(n)]


def produce(topic: str, batch, acks: int = -1) -> dict:
    batch = batch if isinstance(batch, bytes) else build_batch(batch)
    return {"transactional_id": None, "acks": acks, "timeout_ms": 30000, "topic_data": [
        {"name": topic, "partition_data": [{"index": 0, "records": batch}]}]}


def fetch(topic: str, offset: int, max_bytes: int = 1 << 20, partition_max_bytes: int = 1 << 20) -> dict:
    return {"replica_id": -1, "max_wait_ms": 0, "min_bytes": 0, "max_bytes": max_bytes, "isolation_level": 0,
            "session_id": 0, "session_epoch": -1, "topics": [
                {"topic": topic,
                 "partitions": [{"partition": 0, "current_leader_epoch": -1, "fetch_offset": offset,
                                                 "log_start_offset": -1,
                                                 "partition_max_bytes": partition_max_bytes}]}],
            "forgotten_topics_data": [], "rack_id": ""}


def delete_records(topic: str, offset: int) -> dict:
    return {"topics": [{"name": topic, "partitions": [{"partition_index": 0, "offset": offset}]}],
            "timeout_ms": 30000}


def _patched(batch: bytes, offset: int, fmt: str, value: int, fix_crc: bool = True) -> bytes:
    buf = bytearray(batch)
    struct.pack_into(fmt, buf, offset, value)
    if fix_crc:
        struct.pack_into(">I", buf, CRC_OFFSET, crc32c.crc32c(memoryview(buf)[ATTRIBUTES_OFFSET:]))
    return bytes(buf)


def test_produce_to_an_unknown_topic(pair):
    pair.same(ApiKey.PRODUCE, 9, produce(unique_topic("nowhere"), records(1)))


def test_produce_with_each_acks(pair):
    topic = unique_topic("acks")
    create(pair, topic)
    pair.same(ApiKey.PRODUCE, 9, produce(topic, records(2), acks=1))
    pair.same(ApiKey.PRODUCE, 9, produce(topic, records(2), acks=-1))
    for side in pair.sides:  # acks=0: no answer at all; the next request's answer shows the append
        side.client.send_frame(_produce_frame(side, produce(topic, records(2), acks=0)))
    pair.same(ApiKey.FETCH, 11, fetch(topic, 0))


def _produce_frame(side, body: dict) -> bytes:
    from kafka.protocol.api_keys import APIS
    from kafka.protocol.header import encode_request
    side.client.correlation_id += 1
    return encode_request(APIS[ApiKey.PRODUCE], 9, side.client.correlation_id, "wire-test", body)


def test_invalid_batches_are_refused_whole(pair):
    topic = unique_topic("invalid")
    create(pair, topic)
    good = build_batch(records(3))
    refused = dict(
        bad_crc=_patched(good, CRC_OFFSET, ">I", 12345, fix_crc=False),
        unknown_magic=_patched(good, MAGIC_OFFSET, ">b", 3, fix_crc=False),
        old_magic=_patched(good, MAGIC_OFFSET, ">b", 1, fix_crc=False),
        more_records_than_offsets=_patched(good, RECORDS_COUNT_OFFSET, ">i", 5),
        fewer_records_than_offsets=_patched(good, RECORDS_COUNT_OFFSET, ">i", 2),
        control_batch=_patched(good, ATTRIBUTES_OFFSET, ">h", CONTROL_MASK),
        two_batches=good + good,
        no_batch=b"",
        truncated=good[:-3],
        offsets_with_a_gap=build_batch([DefaultRecord(0, 0, b"k", b"a"), DefaultRecord(5, 0, b"k", b"b")]),
    )
    for case, batch in refused.items():
        assert pair.same(ApiKey.PRODUCE, 9,
                         produce(topic, batch)).responses[0].partition_responses[0].error_code, case
    pair.same(ApiKey.LIST_OFFSETS, 7, list_offsets(topic, -1))  # nothing was appended


def test_batches_kafka_mishandles(pair):
    """Two intended differences (oracle.INTENDED_DIFFERENCES), scoped by the topics' names."""
    misnumbered, codec = unique_topic("misnumbered"), unique_topic("unknown-codec")
    create(pair, misnumbered)
    create(pair, codec)
    backwards = [DefaultRecord(2, 0, b"k", b"a"), DefaultRecord(1, 0, b"k", b"b")]
    pair.same(ApiKey.PRODUCE, 9, produce(misnumbered, build_batch(backwards)))
    pair.same(ApiKey.PRODUCE, 9,
              produce(misnumbered, build_batch(backwards, compression=CompressionType.GZIP)))
    pair.same(ApiKey.PRODUCE, 9,
              produce(codec, _patched(build_batch(records(1)), ATTRIBUTES_OFFSET, ">h", 7)))


def test_a_batch_over_max_message_bytes(pair):
    topic = unique_topic("oversized")
    create(pair, topic, configs={"max.message.bytes": "200"})
    pair.same(ApiKey.PRODUCE, 9, produce(topic, [DefaultRecord(0, 0, b"k", b"x" * 300)]))


def test_fetch_out_of_range_at_the_high_watermark_and_after_delete_records(pair):
    topic = unique_topic("fetch")
    create(pair, topic)
    pair.same(ApiKey.PRODUCE, 9, produce(topic, records(3)))
    pair.same(ApiKey.PRODUCE, 9, produce(topic, records(3)))
    pair.same(ApiKey.FETCH, 11, fetch(topic, 10))  # above the log end
    pair.same(ApiKey.FETCH, 11, fetch(topic, 6))   # at the high watermark: nothing, no error
    pair.same(ApiKey.FETCH, 11, fetch(topic, 1))   # inside the first batch: the whole batch
    # the first batch anyway
    pair.same(ApiKey.FETCH, 11, fetch(topic, 0, max_bytes=10, partition_max_bytes=10))
    pair.same(ApiKey.DELETE_RECORDS, 2, delete_records(topic, 4))
    pair.same(ApiKey.FETCH, 11, fetch(topic, 1))   # below the log start


def test_fetch_of_an_unknown_topic(pair):
    pair.same(ApiKey.FETCH, 11, fetch(unique_topic("nowhere"), 0))


def test_delete_records_past_at_and_to_the_high_watermark(pair):
    topic = unique_topic("delete")
    create(pair, topic)
    pair.same(ApiKey.PRODUCE, 9, produce(topic, records(3)))
    pair.same(ApiKey.DELETE_RECORDS, 2, delete_records(topic, 4))   # past: OFFSET_OUT_OF_RANGE
    pair.same(ApiKey.DELETE_RECORDS, 2, delete_records(topic, 3))   # at it
    pair.same(ApiKey.PRODUCE, 9, produce(topic, records(2)))
    pair.same(ApiKey.DELETE_RECORDS, 2, delete_records(topic, -1))  # -1: to the high watermark
    pair.same(ApiKey.DELETE_RECORDS, 2, delete_records(unique_topic("nowhere"), 0))


def test_keyless_records_on_a_compacted_topic(pair):
    topic = unique_topic("compacted")
    create(pair, topic, configs={"cleanup.policy": "compact"})
    pair.same(ApiKey.PRODUCE, 9, produce(topic, records(3, key=None)))


def test_partitions_that_do_not_exist_and_acks_that_do_not_exist(pair):
    topic = unique_topic("edges")
    create(pair, topic)
    body = produce(topic, records(1))
    body["topic_data"][0]["partition_data"][0]["index"] = 5
    pair.same(ApiKey.PRODUCE, 9, body)
    pair.same(ApiKey.PRODUCE, 9, produce(topic, records(1), acks=2))
    pair.same(ApiKey.PRODUCE, 3, produce(topic, records(2)))
    unknown_partition = fetch(topic, 0)
    unknown_partition["topics"][0]["partitions"][0]["partition"] = 5
    pair.same(ApiKey.FETCH, 11, unknown_partition)
    read_committed = fetch(topic, 0)
    read_committed["isolation_level"] = 1
    pair.same(ApiKey.FETCH, 11, read_committed)
    pair.same(ApiKey.FETCH, 4, fetch(topic, 0))
    pair.same(ApiKey.FETCH, 12, fetch(topic, 1))
    deleted = delete_records(topic, 0)
    deleted["topics"][0]["partitions"][0]["partition_index"] = 5
    pair.same(ApiKey.DELETE_RECORDS, 2, deleted)
