"""Lab 03, the commit log on disk (docs/labs/03-commit-log.md): `TimeIndex.lookup` in
kafka/log/time_index.py, the binary search over a segment's sparse `.timeindex`, then a real broker
that finds records by time in a log of several segments, before and after a restart.

Seed 002, "Kafka Physical Storage": "each segment is made up of several files": the .log with the
records, and beside it sparse indexes. The .index maps an offset to a byte position; the .timeindex
(KIP-33) maps a time to an offset, which the .index then turns into a position.
"""

from __future__ import annotations

import math
import time
from array import array

import pytest

from kafka.log.time_index import TimeIndex
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch
from tests.integration.test_long_poll import create
from tests.wire import WireClient


@pytest.fixture
def index(tmp_path):
    """A segment based at offset 100 whose time index says:
    by time 1000 offset 110, 2000 -> 120, 3000 -> 130."""
    idx = TimeIndex(str(tmp_path / "00000000000000000100.timeindex"), base_offset=100)
    for n in (1, 2, 3):
        idx.maybe_append(1000 * n, 100 + 10 * n)
    yield idx
    idx.close()


def pair(entry) -> tuple[int, int]:
    return tuple(entry)


def test_an_empty_time_index_says_search_from_the_start(tmp_path):
    """an empty time index answers (-1, base offset): search the segment from its first batch"""
    idx = TimeIndex(str(tmp_path / "00000000000000000100.timeindex"), base_offset=100)
    assert pair(idx.lookup(5000)) == (-1, 100)
    idx.close()


def test_a_timestamp_with_an_entry_finds_that_entry(index):
    """a timestamp that has an entry answers exactly that entry"""
    assert [pair(index.lookup(t)) for t in (1000, 2000, 3000)] == [(1000, 110), (2000, 120), (3000, 130)]


def test_a_timestamp_between_entries_finds_the_entry_below(index):
    """a timestamp between two entries answers the entry below it: every record before its offset is older"""
    assert pair(index.lookup(2500)) == (2000, 120), "2500 is after entry 2000 and before 3000: start at 120"
    assert pair(index.lookup(1001)) == (1000, 110)


def test_a_timestamp_before_the_first_entry_starts_at_the_segment_start(index):
    """a timestamp before the first entry answers (-1, base offset): the whole segment may hold it"""
    assert pair(index.lookup(999)) == (-1, 100)
    assert pair(index.lookup(-5)) == (-1, 100)


def test_a_timestamp_after_the_last_entry_finds_the_last_entry(index):
    """a timestamp after the last entry answers the last entry"""
    assert pair(index.lookup(10**12)) == (3000, 130)


def test_offsets_are_stored_relative_and_returned_absolute(tmp_path):
    """the file stores offsets relative to the base offset; lookup returns them absolute"""
    base = 5_000_000_000  # beyond 32 bits: only the relative offset fits the entry's 4 bytes
    idx = TimeIndex(str(tmp_path / f"{base:020d}.timeindex"), base_offset=base)
    idx.maybe_append(1_700_000_000_000, base + 49)
    assert pair(idx.lookup(1_700_000_000_001)) == (1_700_000_000_000, base + 49)
    idx.close()


class CountingColumn:
    """An index column that counts how many of its entries a lookup reads."""

    def __init__(self, values: array) -> None:
        self.values, self.reads = values, 0

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, i):
        self.reads += len(self.values[i]) if isinstance(i, slice) else 1
        return self.values[i]

    def __iter__(self):
        self.reads += len(self.values)
        return iter(self.values)


def test_lookup_is_a_binary_search(tmp_path):
    """lookup is a binary search: in 100,000 entries it reads a few dozen of them, not thousands"""
    n = 100_000
    idx = TimeIndex(str(tmp_path / "00000000000000000000.timeindex"), base_offset=0)
    real = idx._keys, idx._values
    keys = CountingColumn(array("q", range(0, 10 * n, 10)))  # timestamp 10 k -> offset 100 k
    idx._keys, idx._values = keys, array("i", range(0, 100 * n, 100))
    for target in (5, 123_455, 999_990, 10 * n + 7):
        slot = min(target // 10, n - 1)
        assert pair(idx.lookup(target)) == (slot * 10, slot * 100), f"lookup({target})"
    limit = 4 * (2 * math.ceil(math.log2(n)) + 2)
    assert keys.reads <= limit, f"4 lookups read {keys.reads} entries; a binary search reads at most {limit}"
    idx._keys, idx._values = real
    idx.close()


# ------------------------------------------------------------------------------ a real broker

# ~25 batches a segment, an entry every ~4
LOG = {"log.segment.bytes": "4096", "log.index.interval.bytes": "400"}
START = int(time.time() * 1000) - 3_600_000  # an hour ago: record i is stamped START + 1000 i


def produce_stamped(client: WireClient, topic: str, count: int) -> None:
    for i in range(count):  # one-record batches, one second apart
        batch = build_batch([(None, b"record %03d " % i + b"x" * 80)], timestamp=START + 1000 * i)
        response = client.request(ApiKey.PRODUCE, 9, {"acks": -1, "timeout_ms": 5000, "topic_data": [
            {"name": topic, "partition_data": [{"index": 0, "records": batch}]}]})
        error = response.responses[0].partition_responses[0].error_code
        assert error == Errors.NONE, f"producing record {i} was answered {Errors.for_code(error).name}"


def offset_for_time(client: WireClient, topic: str, timestamp: int) -> int:
    """ListOffsets v7 by timestamp: the first offset whose record is at least that recent (-1: none)."""
    response = client.request(ApiKey.LIST_OFFSETS, 7, {"replica_id": -1, "isolation_level": 0, "topics": [
        {"name": topic, "partitions": [{"partition_index": 0, "timestamp": timestamp}]}]})
    partition = response.topics[0].partitions[0]
    assert partition.error_code == Errors.NONE, \
        f"ListOffsets for time {timestamp} was answered {Errors.for_code(partition.error_code).name}"
    return partition.offset


def wrong_answers(client: WireClient, topic: str, count: int) -> dict[str, int]:
    """Ask for every record's exact time and for half a second after it; return what came back wrong."""
    wrong = {}
    for i in range(count):
        for label, timestamp, expected in ((f"at {i}", START + 1000 * i, i),
                                           (f"after {i}", START + 1000 * i + 500, i + 1 if i + 1 < count
                                            else -1)):
            if (found := offset_for_time(client, topic, timestamp)) != expected:
                wrong[label] = found
    return wrong


def test_a_broker_finds_records_by_time_across_segments(start_broker, tmp_path):
    """a real broker with small segments answers ListOffsets by timestamp
    with the first record at least that recent"""
    broker = start_broker(tmp_path / "data", LOG)
    client = WireClient(broker.port)
    create(client, "lab03")
    produce_stamped(client, "lab03", 80)
    segments = sorted((tmp_path / "data" / "lab03-0").glob("*.timeindex"))
    assert len(segments) >= 3, f"the log should have rolled into several segments, has {len(segments)}"
    assert offset_for_time(client, "lab03", START - 1) == 0, "a time before every record finds offset 0"
    wrong = wrong_answers(client, "lab03", 80)
    assert not wrong, f"record's time -> offset found, for the wrong ones: {wrong}"
    client.close()


def test_a_restarted_broker_reads_the_time_index_from_disk(start_broker, tmp_path):
    """after a restart, the broker loads each .timeindex from disk and still finds records by time"""
    broker = start_broker(tmp_path / "data", LOG)
    client = WireClient(broker.port)
    create(client, "lab03")
    produce_stamped(client, "lab03", 60)
    client.close()
    broker.stop()
    broker = start_broker(tmp_path / "data", LOG)
    client = WireClient(broker.port)
    wrong = wrong_answers(client, "lab03", 60)
    assert not wrong, f"after the restart, record's time -> offset found, for the wrong ones: {wrong}"
    client.close()
