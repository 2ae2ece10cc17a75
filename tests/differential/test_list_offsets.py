"""ListOffsets asked of both brokers: earliest, latest, by timestamp (ties included), past every
record, the largest timestamp (-3), the earliest local offset (-4, before and after DeleteRecords),
on CreateTime and LogAppendTime topics."""

from __future__ import annotations

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.record_batch import DefaultRecord, build_batch, iter_batches
from tests.differential.test_produce_fetch import create, delete_records, fetch, list_offsets, produce
from tests.helpers import unique_topic

EARLIEST, LATEST, MAX_TIMESTAMP, EARLIEST_LOCAL = -2, -1, -3, -4


def stamped(first: int, timestamps: list[int]) -> bytes:
    return build_batch([DefaultRecord(first + i, t, b"k", b"v") for i, t in enumerate(timestamps)],
                       base_offset=first)


def test_list_offsets_by_time_with_ties_and_past_the_end(pair):
    topic = unique_topic("offsets")
    create(pair, topic)
    for version in (1, 7):
        pair.same(ApiKey.LIST_OFFSETS, version, list_offsets(topic, EARLIEST))  # an empty log
        pair.same(ApiKey.LIST_OFFSETS, version, list_offsets(topic, LATEST))
        pair.same(ApiKey.LIST_OFFSETS, version, list_offsets(topic, 100))
    pair.same(ApiKey.LIST_OFFSETS, 7, list_offsets(topic, MAX_TIMESTAMP))
    pair.same(ApiKey.LIST_OFFSETS, 8, list_offsets(topic, EARLIEST_LOCAL))
    pair.same(ApiKey.PRODUCE, 9, produce(topic, stamped(0, [100, 100, 100])))  # three records, one time
    pair.same(ApiKey.PRODUCE, 9, produce(topic, stamped(0, [200, 100, 300])))
    pair.same(ApiKey.PRODUCE, 9, produce(topic, stamped(0, [300, 250])))  # the largest timestamp again
    for timestamp in (EARLIEST, LATEST, MAX_TIMESTAMP, 0, 100, 101, 150, 250, 300, 301, 10**12):
        pair.same(ApiKey.LIST_OFFSETS, 7, list_offsets(topic, timestamp))
    for timestamp in (EARLIEST, LATEST, 100, 301):
        pair.same(ApiKey.LIST_OFFSETS, 1, list_offsets(topic, timestamp))
    # read_committed: the LSO
    pair.same(ApiKey.LIST_OFFSETS, 7, list_offsets(topic, LATEST, isolation_level=1))
    for timestamp in (EARLIEST_LOCAL, EARLIEST, MAX_TIMESTAMP, 250):
        pair.same(ApiKey.LIST_OFFSETS, 8, list_offsets(topic, timestamp))
    pair.same(ApiKey.DELETE_RECORDS, 2, delete_records(topic, 4))
    for timestamp in (EARLIEST_LOCAL, EARLIEST, 100):
        pair.same(ApiKey.LIST_OFFSETS, 8, list_offsets(topic, timestamp))


def test_list_offsets_of_what_does_not_exist(pair):
    topic = unique_topic("offsets-missing")
    create(pair, topic)
    pair.same(ApiKey.LIST_OFFSETS, 7, list_offsets(topic, LATEST, partitions=(0, 3)))
    pair.same(ApiKey.LIST_OFFSETS, 7, list_offsets(unique_topic("nowhere"), LATEST))


def test_list_offsets_on_a_log_append_time_topic(pair):
    topic = unique_topic("append-time")
    create(pair, topic, configs={"message.timestamp.type": "LogAppendTime"})
    pair.same(ApiKey.PRODUCE, 9, produce(topic, stamped(0, [100, 200])))
    pair.same(ApiKey.PRODUCE, 9, produce(topic, stamped(0, [300])))
    for timestamp in (EARLIEST, LATEST, MAX_TIMESTAMP, 0, 100, 10**15):  # the records' times are the appends'
        pair.same(ApiKey.LIST_OFFSETS, 7, list_offsets(topic, timestamp), volatile=("timestamp",))
    fetched = pair.same(ApiKey.FETCH, 11, fetch(topic, 0), volatile=("records",))
    assert all(batch.is_log_append_time for batch in iter_batches(fetched.responses[0].partitions[0].records))
