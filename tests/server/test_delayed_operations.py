"""DelayedProduce and DelayedFetch inside a real ReplicaManager, with a mock clock and no reaper
thread: the test decides when time passes and when a follower fetches (and so catches up)."""

from __future__ import annotations

import pytest

from kafka.log.file_records import FileRecords
from kafka.log.log_config import LogConfig
from kafka.log.log_manager import LogManager
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import RecordBatch, build_batch
from kafka.purgatory.delayed_operation_purgatory import DelayedOperationPurgatory
from kafka.server.fetch_partition_data import FetchPartitionInfo
from kafka.server.kafka_config import KafkaConfig
from kafka.server.metadata_cache import PartitionState
from kafka.server.replica_manager import FetchParams, ReplicaManager
from kafka.utils.time import MockTime
from kafka.utils.topic_partition import TopicPartition

TP = TopicPartition("orders", 0)
FOLLOWER = 2


class Callback:
    def __init__(self) -> None:
        self.calls = []

    def __call__(self, result) -> None:
        self.calls.append(result)


@pytest.fixture
def time():
    return MockTime()


@pytest.fixture
def replica_manager(tmp_path, time):
    config = KafkaConfig({"node.id": "1", "log.dirs": str(tmp_path)})
    log_manager = LogManager([str(tmp_path)], LogConfig(), time, node_id=1)
    log_manager.startup()
    manager = ReplicaManager(
        config, log_manager, metadata_cache=None, time=time,
        produce_purgatory=DelayedOperationPurgatory("Produce", reaper_enabled=False, time=time),
        fetch_purgatory=DelayedOperationPurgatory("Fetch", reaper_enabled=False, time=time))
    # A leader with one follower in the ISR: the HW waits for the follower.
    manager.make_leader(TP,
                        PartitionState(0, leader=1, leader_epoch=0, replicas=(1, FOLLOWER),
                                       isr=(1, FOLLOWER)),
                        LogConfig())
    yield manager
    manager.shutdown()
    log_manager.shutdown()


def append(manager, acks: int, callback, count: int = 3, timeout_ms: int = 1000) -> None:
    records = build_batch([(b"k", b"v%d" % i) for i in range(count)])
    manager.append_records(timeout_ms, acks, False, {TP: records}, callback)


def follower_fetches(manager, offset: int) -> None:
    """The follower fetches from `offset`, so it has everything below it (what its
    ReplicaFetcherThread sends after appending what it got)."""
    params = FetchParams(replica_id=FOLLOWER, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20)
    manager.fetch_messages(params, [(TP, FetchPartitionInfo(offset, 1 << 20, current_leader_epoch=0))],
                           Callback())


def expire_due(manager, time, ms: int) -> None:
    time.advance(ms)
    manager.delayed_produce_purgatory.advance_clock(0)
    manager.delayed_fetch_purgatory.advance_clock(0)


def test_acks_all_waits_until_the_follower_has_the_records(replica_manager):
    callback = Callback()
    append(replica_manager, -1, callback)
    assert callback.calls == [], "the HW is behind: the produce waits in the purgatory"
    assert replica_manager.delayed_produce_purgatory.num_delayed() == 1

    follower_fetches(replica_manager, 2)
    assert callback.calls == [], "the follower has offsets 0..1 but the batch ends at 2"

    follower_fetches(replica_manager, 3)
    assert len(callback.calls) == 1
    response = callback.calls[0][TP]
    assert (response.error, response.base_offset) == (Errors.NONE, 0)
    assert replica_manager.delayed_produce_purgatory.num_delayed() == 0


def test_acks_all_times_out_with_request_timed_out(replica_manager, time):
    callback = Callback()
    append(replica_manager, -1, callback, timeout_ms=500)
    expire_due(replica_manager, time, 499)
    assert callback.calls == []
    expire_due(replica_manager, time, 2)
    assert len(callback.calls) == 1
    assert callback.calls[0][TP].error == Errors.REQUEST_TIMED_OUT
    assert replica_manager.expired_produce_count == 1
    follower_fetches(replica_manager, 3)
    assert len(callback.calls) == 1, "a completed operation never answers twice"


def test_acks_one_answers_at_once(replica_manager):
    callback = Callback()
    append(replica_manager, 1, callback)
    assert len(callback.calls) == 1 and callback.calls[0][TP].error == Errors.NONE


def fetch(manager, callback, offset: int = 0, min_bytes: int = 1, max_wait_ms: int = 500) -> None:
    params = FetchParams(replica_id=-1, max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=1 << 20)
    manager.fetch_messages(params, [(TP, FetchPartitionInfo(offset, 1 << 20))], callback)


def test_fetch_waits_for_committed_data_and_completes_when_the_hw_moves(replica_manager):
    callback = Callback()
    fetch(replica_manager, callback)
    assert callback.calls == [] and replica_manager.delayed_fetch_purgatory.watched() == 1

    append(replica_manager, 1, Callback())
    assert callback.calls == [], "appended but not committed: a consumer cannot see it yet"

    follower_fetches(replica_manager, 3)
    assert len(callback.calls) == 1
    [(tp, data)] = callback.calls[0]
    assert tp == TP and data.error == Errors.NONE and data.high_watermark == 3 and data.records


def test_fetch_expires_with_what_there_is(replica_manager, time):
    callback = Callback()
    fetch(replica_manager, callback, max_wait_ms=500)
    expire_due(replica_manager, time, 501)
    [(tp, data)] = callback.calls[0]
    assert data.error == Errors.NONE and data.records == b""
    assert replica_manager.expired_fetch_count == 1


def test_fetch_waits_for_min_bytes(replica_manager):
    callback = Callback()
    fetch(replica_manager, callback, min_bytes=10_000)
    append(replica_manager, 1, Callback(), count=1)
    follower_fetches(replica_manager, 1)
    assert callback.calls == [], "one small batch is fewer than min_bytes"
    for _ in range(200):
        append(replica_manager, 1, Callback(), count=5)
        if callback.calls:
            break
        follower_fetches(replica_manager, replica_manager.get_partition(TP).log.log_end_offset)
    [(tp, data)] = callback.calls[0]
    assert len(data.records) >= 10_000


def test_a_waiting_fetch_counts_bytes_from_where_its_first_read_started(replica_manager, monkeypatch):
    """Kafka's FetchPartitionStatus.startOffsetMetadata: the first read found the fetch offset's
    segment and position, so try_complete never has to look it up in the log again."""
    append(replica_manager, 1, Callback())
    follower_fetches(replica_manager, 3)  # offsets 0..2 committed: a consumer at 3 waits at the log end
    log = replica_manager.get_partition(TP).log
    lookups = []
    convert = log.convert_to_offset_metadata
    monkeypatch.setattr(log, "convert_to_offset_metadata", lambda offset: lookups.append(offset)
                        or convert(offset))
    callback = Callback()
    fetch(replica_manager, callback, offset=3)
    assert callback.calls == []
    append(replica_manager, 1, Callback())
    follower_fetches(replica_manager, 6)
    [(tp, data)] = callback.calls[0]
    assert data.records and offset_of_first_batch(data.records) == 3
    assert 3 not in lookups, "the fetch offset's position came from the first read"


def offset_of_first_batch(records) -> int:
    raw = records.read_all() if isinstance(records, FileRecords) else bytes(records)
    return RecordBatch(raw).base_offset


def test_fetch_completes_early_when_the_partition_goes_away(replica_manager):
    callback = Callback()
    fetch(replica_manager, callback)
    replica_manager.delete_partitions(TP.topic)
    [(tp, data)] = callback.calls[0]
    assert data.error == Errors.UNKNOWN_TOPIC_OR_PARTITION


def test_fetch_out_of_range_answers_at_once(replica_manager):
    callback = Callback()
    fetch(replica_manager, callback, offset=42)
    [(tp, data)] = callback.calls[0]
    assert data.error == Errors.OFFSET_OUT_OF_RANGE
