"""ListOffsets' tiered storage specs asked of both brokers (KIP-405, KIP-1005, KIP-1023, KIP-1075): the
earliest local offset (-4, v8+), the latest tiered offset (-5, v9+) and the earliest offset pending upload
(-6, v11+), each asked at the first version that may and at the one before (UNSUPPORTED_VERSION), any
other negative timestamp (UNSUPPORTED_VERSION at every version), TimeoutMs (v10+), and a partition asked
twice in one request (INVALID_REQUEST). On a topic without remote storage: -4 is the log start offset,
-5 and -6 are -1 with leader epoch -1."""

from __future__ import annotations

from kafka.protocol.api_keys import ApiKey
from tests.differential.test_produce_fetch import create, delete_records, list_offsets, produce, records
from tests.helpers import unique_topic

EARLIEST_LOCAL, LATEST_TIERED, EARLIEST_PENDING_UPLOAD = -4, -5, -6


def test_the_tiered_specs_on_a_topic_without_remote_storage(pair):
    topic = unique_topic("tiered-specs")
    create(pair, topic)
    for spec, first_version in ((EARLIEST_LOCAL, 8), (LATEST_TIERED, 9), (EARLIEST_PENDING_UPLOAD, 11)):
        pair.same(ApiKey.LIST_OFFSETS, first_version - 1, list_offsets(topic, spec))  # UNSUPPORTED_VERSION
        pair.same(ApiKey.LIST_OFFSETS, first_version, list_offsets(topic, spec))  # an empty log
    pair.same(ApiKey.PRODUCE, 9, produce(topic, records(5, timestamp=100)))
    pair.same(ApiKey.DELETE_RECORDS, 2, delete_records(topic, 2))
    for version in (9, 10, 11):
        for spec in (EARLIEST_LOCAL, LATEST_TIERED, EARLIEST_PENDING_UPLOAD, -1, -2, -3, 100):
            pair.same(ApiKey.LIST_OFFSETS, version, list_offsets(topic, spec))
        pair.same(ApiKey.LIST_OFFSETS, version, list_offsets(topic, LATEST_TIERED, isolation_level=1))


def test_negative_timestamps_no_version_knows(pair):
    topic = unique_topic("tiered-unknown-specs")
    create(pair, topic)
    for version in (1, 6, 7, 11):
        for spec in (-7, -100, -3):
            pair.same(ApiKey.LIST_OFFSETS, version, list_offsets(topic, spec))


def test_a_timeout_and_a_partition_asked_twice(pair):
    topic = unique_topic("tiered-timeout")
    create(pair, topic, partitions=2)
    pair.same(ApiKey.PRODUCE, 9, produce(topic, records(3, timestamp=100)))
    pair.same(ApiKey.LIST_OFFSETS, 10, {**list_offsets(topic, 100), "timeout_ms": 1000})
    pair.same(ApiKey.LIST_OFFSETS, 11, list_offsets(topic, 100, partitions=(0, 1, 0)))
    pair.same(ApiKey.LIST_OFFSETS, 7, list_offsets(topic, -1, partitions=(1, 1)))
