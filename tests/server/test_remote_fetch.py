"""The fetch and ListOffsets paths of tiered storage (KIP-405) through a real ReplicaManager on a temporary
directory and a MockTime: its partition's early segments copied to a LocalTieredStorage (recorded in a
RemoteLogMetadataCache-backed manager) and deleted locally by local retention, so that its local log starts
past its log start.

A consumer's fetch below the local log start goes to the reader pool and waits as a DelayedRemoteFetch:
the request thread returns before any record is read, the other partitions of the fetch are answered from
their local logs, a full pool refuses at once, an expired wait answers without the records. A follower's
gets OFFSET_MOVED_TO_TIERED_STORAGE. ListOffsets answers the tiered specs and looks a timestamp up in remote
storage on the reader pool."""

from __future__ import annotations

import threading

import pytest

from kafka.log.append_origin import AppendOrigin
from kafka.log.file_records import FileRecords
from kafka.log.log_config import LogConfig
from kafka.log.log_manager import LogManager
from kafka.metrics.remote_storage_metrics import REMOTE_FETCH_BYTES, REMOTE_FETCH_REQUESTS
from kafka.protocol.control_records import end_txn_marker_batch
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch, iter_batches
from kafka.server.fetch_partition_data import FetchPartitionInfo
from kafka.server.kafka_config import KafkaConfig
from kafka.server.metadata_cache import PartitionState
from kafka.server.replica_manager import FetchParams, ReplicaManager
from kafka.utils.time import MockTime
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import wait_until
from tests.log.remote.tiered_logs import lead, remote_log_manager, storage, tier

TP = TopicPartition("orders", 0)
LOCAL = TopicPartition("local", 0)  # a topic without tiered storage, fetched in the same requests
TIERED = LogConfig(remote_storage_enable=True, local_retention_bytes=1)


class Answers:
    """A response callback that remembers what it was called with, and from which thread."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []

    def __call__(self, results) -> None:
        self.calls.append((threading.current_thread().name, dict(results)))

    def one(self) -> dict:
        wait_until(lambda: self.calls, message="the response")
        assert len(self.calls) == 1
        return self.calls[0][1]


def offsets(records) -> list[int]:
    data = records.read_all() if isinstance(records, FileRecords) else bytes(records)
    return [batch.base_offset for batch in iter_batches(data)]


@pytest.fixture
def time():
    return MockTime()


@pytest.fixture
def broker(tmp_path, time):
    """A leader of `orders-0` (tiered: offsets 0..8 remote only, 9..11 local) and of `local-0`."""
    manager = tiered_replica_manager(tmp_path, time, **{"remote.log.reader.threads": "1",
                                                        "remote.log.reader.max.pending.tasks": "1"})
    log = lead_tiered(manager, TP)
    manager.make_leader(LOCAL, PartitionState(0, leader=1, leader_epoch=0, replicas=(1,), isr=(1,)),
                        LogConfig())
    for n in range(12):  # four segments of three one-record batches
        if n and n % 3 == 0:
            log.roll()
        append(manager, TP, b"value-%d" % n)
    append(manager, LOCAL, b"local")
    tier(log, time, 8)
    assert (log.log_start_offset, log.local_log_start_offset, log.log_end_offset) == (0, 9, 12)
    yield manager
    stop(manager)


def tiered_replica_manager(tmp_path, time, **configs) -> ReplicaManager:
    """A ReplicaManager whose RemoteLogManager copies to and reads a LocalTieredStorage under tmp_path."""
    directory = str(tmp_path / "logs")
    log_manager = LogManager([directory], LogConfig(), time, node_id=1)
    log_manager.startup()
    config = KafkaConfig({"node.id": "1", "log.dirs": directory, **configs})
    holder: list[ReplicaManager] = []
    rlm = remote_log_manager(directory, time, lambda tp: holder[0].get_partition(tp).log,
                             storage(tmp_path / "remote"), reader_threads=config.remote_log_reader_threads,
                             reader_max_pending_tasks=config.remote_log_reader_max_pending_tasks)
    manager = ReplicaManager(config, log_manager, None, time, remote_log_manager=rlm)
    holder.append(manager)
    return manager


def lead_tiered(manager: ReplicaManager, tp: TopicPartition, log_config: LogConfig = TIERED):
    # broker 2 a replica out of the ISR: a follower that fetches, while the HW follows the leader alone
    state = PartitionState(0, leader=1, leader_epoch=0, replicas=(1, 2), isr=(1,))
    manager.make_leader(tp, state, log_config)
    log = manager.get_partition(tp).log
    log.remote_storage_system_enable = True  # what LogManager sets from remote.log.storage.system.enable
    lead(manager.remote_log_manager, log)
    return log


def stop(manager: ReplicaManager) -> None:
    manager.shutdown()
    manager.remote_log_manager.close()
    manager.log_manager.shutdown()


def append(manager: ReplicaManager, tp: TopicPartition, value: bytes, **batch) -> None:
    origin = batch.pop("origin", AppendOrigin.CLIENT)
    batch.setdefault("timestamp", manager.time.milliseconds())  # remote retention.ms counts from it
    records = batch.pop("records", None) or build_batch([(b"k", value)], **batch)
    manager.append_records(1000, 1, False, {tp: records}, lambda _: None, origin=origin)


def consumer_fetch(manager, answers, *partitions, max_wait_ms=500, isolation_level=0, max_bytes=4 << 20):
    params = FetchParams(replica_id=-1, max_wait_ms=max_wait_ms, min_bytes=1, max_bytes=max_bytes,
                         isolation_level=isolation_level)
    manager.fetch_messages(params, [(tp, FetchPartitionInfo(offset, 1 << 20)) for tp, offset in partitions],
                           answers)


def test_a_consumer_fetch_below_the_local_log_waits_for_a_reader_thread(broker):
    answers = Answers()
    consumer_fetch(broker, answers, (TP, 4), (LOCAL, 0))
    data = answers.one()
    thread, _ = answers.calls[0]
    assert thread.startswith("remote-log-reader-"), "answered from the reader's callback, not this thread"
    # to the remote segment's end
    assert data[TP].error == Errors.NONE and offsets(data[TP].records) == [4, 5]
    assert (data[TP].high_watermark, data[TP].log_start_offset) == (12, 0)
    assert offsets(data[LOCAL].records) == [0], "the other partition is answered from its local read"
    answers = Answers()  # a remote read takes all the bytes it may (Kafka's readFromLog): none left after it
    consumer_fetch(broker, answers, (TP, 4), (LOCAL, 0), max_bytes=1 << 20)
    assert answers.one()[LOCAL].records == b""
    stats = broker.remote_log_manager.stats
    assert stats.count(REMOTE_FETCH_REQUESTS, "orders") == 2
    assert stats.count(REMOTE_FETCH_BYTES, "orders") == 2 * len(data[TP].records)


def test_a_fetch_at_the_local_log_start_reads_locally(broker):
    answers = Answers()
    consumer_fetch(broker, answers, (TP, 9))
    thread, data = answers.calls[0]  # at once, on this thread
    assert thread == threading.current_thread().name and offsets(data[TP].records) == [9, 10, 11]


def test_a_follower_is_told_its_offset_moved_to_tiered_storage(broker):
    answers = Answers()
    params = FetchParams(replica_id=2, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20)
    broker.fetch_messages(params, [(TP, FetchPartitionInfo(0, 1 << 20))], answers)
    data = answers.one()[TP]
    assert (data.error, data.high_watermark, data.log_start_offset) == (
        Errors.OFFSET_MOVED_TO_TIERED_STORAGE, 12, 0)


def test_a_full_reader_pool_answers_that_partition_with_an_error(broker):
    pool = broker.remote_log_manager.remote_storage_reader_thread_pool
    release = threading.Event()
    try:
        pool.submit(release.wait)  # the one reader thread is busy
        wait_until(lambda: pool.idle_percent() == 0.0, message="the reader thread is busy")
        pool.submit(lambda: None)  # and the one queue slot taken
        answers = Answers()
        consumer_fetch(broker, answers, (TP, 0), (LOCAL, 0))
        thread, data = answers.calls[0]
        assert data[TP].error == Errors.UNKNOWN_SERVER_ERROR and offsets(data[LOCAL].records) == [0]
    finally:
        release.set()


def test_an_expired_wait_answers_without_the_remote_records_and_cancels_the_read(broker, time):
    pool = broker.remote_log_manager.remote_storage_reader_thread_pool
    release = threading.Event()
    try:
        pool.submit(release.wait)
        wait_until(lambda: pool.idle_percent() == 0.0, message="the reader thread is busy")
        answers = Answers()
        consumer_fetch(broker, answers, (TP, 0))
        assert answers.calls == [] and pool.queue_size() == 1
        time.advance(500)  # remote.fetch.max.wait.ms
        broker.delayed_remote_fetch_purgatory.advance_clock(0)
        data = answers.one()[TP]
        assert data.error == Errors.NONE and data.records == b""
    finally:
        release.set()
    wait_until(lambda: pool.idle_percent() == 1.0 and pool.queue_size() == 0, message="the pool drains")
    assert broker.remote_log_manager.stats.count(REMOTE_FETCH_BYTES, "orders") == 0, "the read was cancelled"


def test_an_offset_below_the_log_start_is_out_of_range(broker):
    broker.get_partition(TP).log.maybe_increment_log_start_offset(3)
    answers = Answers()
    consumer_fetch(broker, answers, (TP, 1))
    assert answers.calls[0][1][TP].error == Errors.OFFSET_OUT_OF_RANGE


def test_list_offsets_answers_the_tiered_specs(broker):
    answered = []
    broker.fetch_offset({TP: -4, LOCAL: -4}, 0, -1, 8, 0, answered.append)
    broker.fetch_offset({TP: -5, LOCAL: -5}, 0, -1, 9, 0, answered.append)
    broker.fetch_offset({TP: -6, LOCAL: -6}, 0, -1, 11, 0, answered.append)
    broker.fetch_offset({TP: -5, LOCAL: -6, TopicPartition("orders", 1): -2}, 0, -1, 8, 0, answered.append)
    assert [{str(tp): (r["error_code"], r["offset"]) for tp, r in a.items()} for a in answered] == [
        {"orders-0": (Errors.NONE, 9), "local-0": (Errors.NONE, 0)},  # the local log start: the log start
        {"orders-0": (Errors.NONE, 8), "local-0": (Errors.NONE, -1)},  # the highest offset copied: none
        {"orders-0": (Errors.NONE, 9), "local-0": (Errors.NONE, -1)},  # the first not copied
        # too old a version for the spec; a partition nobody hosts
        {"orders-0": (Errors.UNSUPPORTED_VERSION, -1), "local-0": (Errors.UNSUPPORTED_VERSION, -1),
         "orders-1": (Errors.UNKNOWN_TOPIC_OR_PARTITION, -1)},
    ]


def test_a_lookup_by_time_reads_remote_storage_on_the_reader_pool(broker):
    answered = []
    broker.fetch_offset({TP: 0, LOCAL: 0}, 0, -1, 10, 0, answered.append)
    wait_until(lambda: answered, message="the lookup answers")
    assert answered[0][TP]["offset"] == 0 and answered[0][LOCAL]["offset"] == 0
    assert broker.delayed_remote_list_offsets_purgatory.num_delayed() == 0


def test_read_committed_gets_the_remote_aborted_transactions(tmp_path, time):
    """A transaction aborted in the remote segments: a read_committed consumer reading them gets its
    producer and first offset, to drop its records."""
    manager = tiered_replica_manager(tmp_path, time)
    try:
        log = lead_tiered(manager, TP)
        append(manager, TP, b"aborted", producer_id=7, producer_epoch=0, base_sequence=0,
               is_transactional=True)
        append(manager, TP, b"plain")
        log.roll()
        append(manager, TP, b"", records=end_txn_marker_batch(7, 0, False, 0, time.milliseconds()),
               origin=AppendOrigin.COORDINATOR)
        log.roll()
        append(manager, TP, b"tail")
        tier(log, time, 2)
        assert log.local_log_start_offset == 3
        answers = Answers()
        consumer_fetch(manager, answers, (TP, 0), isolation_level=1)
        data = answers.one()[TP]
        assert offsets(data.records) == [0, 1]
        assert [(t.producer_id, t.first_offset) for t in data.aborted_transactions] == [(7, 0)]
    finally:
        stop(manager)


