"""Produce and Fetch, asked of both brokers: the same bytes in, the same answers out."""

from __future__ import annotations

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.record_batch import DefaultRecord, build_batch
from tests.helpers import unique_topic


def create(pair, topic: str, partitions: int = 1, configs: dict | None = None) -> None:
    pair.same(ApiKey.CREATE_TOPICS, 7, {"topics": [{
        "name": topic, "num_partitions": partitions, "replication_factor": 1, "assignments": [],
        "configs": [{"name": k, "value": v} for k, v in (configs or {}).items()]}],
        "timeout_ms": 30000, "validate_only": False})


def produce(topic: str, records, acks: int = -1) -> dict:
    return {"transactional_id": None, "acks": acks, "timeout_ms": 30000, "topic_data": [
        {"name": topic, "partition_data": [{"index": 0, "records": build_batch(records)}]}]}


def test_produce_to_an_unknown_topic(pair):
    pair.same(ApiKey.PRODUCE, 9, produce(unique_topic("nowhere"), [DefaultRecord(0, 0, b"k", b"v")]))


def test_produce_then_fetch_out_of_range_and_at_the_high_watermark(pair):
    topic = unique_topic("fetch")
    create(pair, topic)
    pair.same(ApiKey.PRODUCE, 9, produce(topic, [DefaultRecord(i, 0, b"k", b"v%d" % i) for i in range(3)]))

    def fetch(offset: int):
        return lambda side: {"replica_id": -1, "max_wait_ms": 0, "min_bytes": 0, "max_bytes": 1 << 20,
                             "isolation_level": 0, "session_id": 0, "session_epoch": -1, "topics": [
                                 {"topic": topic, "partitions": [{"partition": 0, "current_leader_epoch": -1,
                                                                  "fetch_offset": offset, "log_start_offset": -1,
                                                                  "partition_max_bytes": 1 << 20}]}],
                             "forgotten_topics_data": [], "rack_id": ""}
    pair.same(ApiKey.FETCH, 11, fetch(10))  # out of range
    pair.same(ApiKey.FETCH, 11, fetch(3))   # at the high watermark: nothing, no error
