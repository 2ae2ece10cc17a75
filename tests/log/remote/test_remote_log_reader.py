"""The read side of tiered storage over real collaborators: a UnifiedLog in a temporary directory whose
rolled segments are copied to a LocalTieredStorage and recorded in a RemoteLogMetadataCache-backed
manager; the RemoteIndexCache, the reader pool and RemoteLogReader/RemoteLogOffsetReader read them back."""

from __future__ import annotations

import os
import threading

import pytest

from kafka.log.append_origin import AppendOrigin
from kafka.log.errors import OffsetOutOfRangeError
from kafka.log.fetch_isolation import FetchIsolation
from kafka.log.file_records import TimestampAndOffset
from kafka.log.log_config import LogConfig
from kafka.log.remote.remote_index_cache import DIR_NAME, RemoteIndexCache
from kafka.log.remote.remote_log_offset_reader import find_offset_by_timestamp, lookup_timestamp
from kafka.log.remote.remote_log_reader import read
from kafka.log.remote.remote_storage_fetch_info import RemoteStorageFetchInfo
from kafka.log.remote.remote_storage_thread_pool import RejectedExecutionError, RemoteStorageThreadPool
from kafka.log.unified_log import UnifiedLog
from kafka.metrics.kafka_metrics_group import KafkaMetricsGroup
from kafka.protocol.control_records import end_txn_marker_batch
from kafka.protocol.record_batch import build_batch, iter_batches
from kafka.utils.time import MockTime
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import wait_until
from tests.log.remote.tiered_logs import lead, remote_log_manager, storage, tier

TP = TopicPartition("orders", 0)

T0 = MockTime().milliseconds()  # every MockTime starts here: the batches' timestamps count from it
TIERED = LogConfig(remote_storage_enable=True, local_retention_bytes=1)


def tiered_log(tmp_path, batches=12, per_segment=3, epoch_change_at=None, time=None):
    """A tiered log of `batches` one-record batches (timestamps T0, T0 + 10, ...), rolled every
    `per_segment` batches; epoch 1 from batch `epoch_change_at` on."""
    log = UnifiedLog(str(tmp_path / "logs" / "orders-0"), "orders", 0, TIERED, time or MockTime(),
                     remote_storage_system_enable=True)
    for n in range(batches):
        if n and n % per_segment == 0:
            log.roll()
        epoch = 1 if epoch_change_at is not None and n >= epoch_change_at else 0
        log.append_as_leader(build_batch([(b"k", b"value-%d" % n)], timestamp=T0 + 10 * n),
                             leader_epoch=epoch)
    log.update_high_watermark(log.log_end_offset)
    return log


def copied_remotely(tmp_path, log):
    """A RemoteLogManager leading the log, whose copier has copied every rolled segment (the local ones
    stay, but for the read these tests make); and the remote segments, oldest first."""
    rlm = remote_log_manager(str(tmp_path / "logs"), log.time, lambda tp: log, storage(tmp_path / "remote"))
    lead(rlm, log)
    tier(log, log.time, log.active_segment.base_offset - 1)
    return rlm, sorted(rlm.remote_log_metadata_manager.list_remote_log_segments(rlm.topic_id_partition(TP)),
                       key=lambda m: m.start_offset)


def fetch_info(offset, max_bytes=1 << 20, min_one_message=True, isolation=FetchIsolation.HIGH_WATERMARK):
    return RemoteStorageFetchInfo(max_bytes, min_one_message, TP, offset, max_bytes, isolation)


def offsets(records):
    return [b.base_offset for b in iter_batches(records)]


@pytest.fixture
def tiered(tmp_path):
    log = tiered_log(tmp_path)
    rlm, copied = copied_remotely(tmp_path, log)
    assert [(m.start_offset, m.end_offset) for m in copied] == [(0, 2), (3, 5), (6, 8)]
    yield log, rlm, copied
    rlm.close()
    log.close()


def test_a_read_starts_at_the_batch_holding_the_offset_and_stops_at_the_segment_end(tiered):
    log, rlm, _ = tiered
    info = read(rlm, fetch_info(4))
    assert offsets(info.records) == [4, 5]  # segment [3, 6): from 4 to its end
    assert info.fetch_offset_metadata.segment_base_offset == 3
    assert info.aborted_transactions is None
    assert offsets(read(rlm, fetch_info(0)).records) == [0, 1, 2]


def test_max_bytes_takes_whole_batches_but_always_the_first(tiered):
    log, rlm, _ = tiered
    one_batch = len(read(rlm, fetch_info(0, max_bytes=1)).records)
    assert offsets(read(rlm, fetch_info(0, max_bytes=1)).records) == [0]  # one whole batch past the limit
    assert offsets(read(rlm, fetch_info(0, max_bytes=2 * one_batch + 1)).records) == [0, 1]
    # not the first partition of the response: a batch that does not fit is not sent
    assert read(rlm, fetch_info(0, max_bytes=1, min_one_message=False)).records == b""


def test_an_offset_in_no_remote_segment_is_out_of_range(tiered):
    log, rlm, _ = tiered
    with pytest.raises(OffsetOutOfRangeError):
        read(rlm, fetch_info(9))  # the fourth segment stayed local


def test_the_index_cache_keeps_the_indexes_on_disk_and_starts_warm(tiered, tmp_path):
    log, rlm, copied = tiered
    read(rlm, fetch_info(4))
    cache_dir = tmp_path / "logs" / DIR_NAME
    names = sorted(os.listdir(cache_dir))
    assert len(names) == 3 and {n.rsplit(".", 1)[1] for n in names} == {"index", "timeindex", "txnindex"}
    assert names[0].startswith("3_")
    again = RemoteIndexCache(1 << 30, rlm.remote_storage_manager, str(tmp_path / "logs"))
    assert copied[1].remote_log_segment_id.id in again
    assert again.lookup_offset(copied[1], 5) == rlm.index_cache.lookup_offset(copied[1], 5)


def test_the_index_cache_evicts_the_least_recently_used_past_its_size(tiered, tmp_path):
    log, rlm, copied = tiered
    # room for no entry at all
    cache = RemoteIndexCache(1, rlm.remote_storage_manager, str(tmp_path / "small"))
    entry = cache.get_index_entry(copied[0])
    assert entry.lookup_offset(1).offset == 0  # the evicted entry still answers: its indexes are in memory
    assert copied[0].remote_log_segment_id.id not in cache
    assert os.listdir(tmp_path / "small" / DIR_NAME) == []
    sized = RemoteIndexCache(1 << 30, rlm.remote_storage_manager, str(tmp_path / "sized"))
    sizes = [sized.get_index_entry(m).entry_size_bytes for m in copied]
    sized.resize_cache_size(sizes[1] + sizes[2])
    assert [m.remote_log_segment_id.id in sized for m in copied] == [False, True, True]
    sized.get_index_entry(copied[1])  # now the most recently used
    sized.resize_cache_size(sizes[1])
    assert [m.remote_log_segment_id.id in sized for m in copied] == [False, True, False]


def test_a_crash_leftover_is_removed_at_start(tiered, tmp_path):
    log, rlm, copied = tiered
    rlm.index_cache.get_index_entry(copied[0])
    cache_dir = tmp_path / "logs" / DIR_NAME
    (cache_dir / "7_abc.index.tmp").write_bytes(b"x")
    (cache_dir / "9_xyz.index.deleted").write_bytes(b"x")
    half = sorted(os.listdir(cache_dir))[0].split(".")[0]
    os.unlink(cache_dir / f"{half}.timeindex")  # an entry missing one of its files
    cache = RemoteIndexCache(1 << 30, rlm.remote_storage_manager, str(tmp_path / "logs"))
    assert os.listdir(cache_dir) == [] and cache.size_bytes == 0


def test_read_committed_gets_the_aborted_transactions_of_the_remote_indexes(tmp_path):
    log = UnifiedLog(str(tmp_path / "logs" / "orders-0"), "orders", 0, TIERED, MockTime(),
                     remote_storage_system_enable=True)
    pid, epoch = 7, 0
    log.append_as_leader(build_batch([(b"k", b"aborted")], timestamp=T0, producer_id=pid,
                                     producer_epoch=epoch,
                                     base_sequence=0, is_transactional=True))
    log.append_as_leader(build_batch([(b"k", b"plain")], timestamp=T0))
    log.roll()
    log.append_as_leader(end_txn_marker_batch(pid, epoch, False, 0, T0), origin=AppendOrigin.COORDINATOR)
    log.append_as_leader(build_batch([(b"k", b"after")], timestamp=T0))
    log.roll()
    log.append_as_leader(build_batch([(b"k", b"tail")], timestamp=T0))
    log.update_high_watermark(log.log_end_offset)
    rlm, (first, second) = copied_remotely(tmp_path, log)
    try:
        assert first.txn_index_empty and not second.txn_index_empty
        info = read(rlm, fetch_info(0, isolation=FetchIsolation.TXN_COMMITTED))
        assert offsets(info.records) == [0, 1]
        aborted = [(t.producer_id, t.first_offset, t.last_offset) for t in info.aborted_transactions]
        assert aborted == [(pid, 0, 2)]
        assert read(rlm, fetch_info(3, isolation=FetchIsolation.TXN_COMMITTED)).aborted_transactions == []
    finally:
        rlm.close()
        log.close()


def test_a_read_finds_the_segment_through_the_epoch_that_wrote_the_offset(tmp_path):
    log = tiered_log(tmp_path, batches=9, per_segment=3, epoch_change_at=4)
    rlm, copied = copied_remotely(tmp_path, log)
    try:
        assert copied[1].segment_leader_epochs == {0: 3, 1: 4}
        assert offsets(read(rlm, fetch_info(5)).records) == [5]
        assert offsets(read(rlm, fetch_info(3)).records) == [3, 4, 5]
    finally:
        rlm.close()
        log.close()


def test_async_read_calls_back_on_a_reader_thread_and_counts(tiered):
    log, rlm, _ = tiered
    results = []
    rlm.async_read(fetch_info(0), lambda result: results.append((threading.current_thread().name, result)))
    wait_until(lambda: results, message="the read calls back")
    name, result = results[0]
    assert name.startswith("remote-log-reader-") and result.error is None
    assert offsets(result.fetch_data_info.records) == [0, 1, 2]
    rlm.async_read(fetch_info(10), lambda result: results.append(("", result)))
    wait_until(lambda: len(results) == 2, message="the second read calls back")
    assert isinstance(results[1][1].error, OffsetOutOfRangeError)


def test_the_pool_refuses_past_its_pending_tasks_and_cancels_on_shutdown():
    group = KafkaMetricsGroup()
    pool = RemoteStorageThreadPool("test-reader-", 1, 2, group)
    release = threading.Event()
    try:
        running = pool.submit(release.wait)
        wait_until(lambda: pool.idle_percent() == 0.0, message="the thread takes the first task")
        waiting = [pool.submit(lambda: 1), pool.submit(lambda: 2)]
        assert pool.queue_size() == 2
        with pytest.raises(RejectedExecutionError):
            pool.submit(lambda: 3)
        assert waiting[0].cancel()  # an expired fetch takes its read back before a thread runs it
        release.set()
        assert running.result(5) is True and waiting[1].result(5) == 2
        wait_until(lambda: pool.idle_percent() == 1.0, message="the thread is idle again")
        samples = {m.name: m.samples[0].value for m in group.registry.collect()}
        assert samples == {"kafka_log_remote_remotestoragethreadpool_remotelogreadertaskqueuesize": 0,
                           "kafka_log_remote_remotestoragethreadpool_remotelogreaderavgidlepercent": 1.0}
    finally:
        release.set()
        pool.shutdown()
    with pytest.raises(RejectedExecutionError):
        pool.submit(lambda: 4)


def test_an_offset_lookup_by_time_reads_the_remote_segment_or_else_the_local_log(tiered):
    log, rlm, copied = tiered
    cache = log.leader_epoch_cache
    # the local segments are all still here: the local log answers (Kafka's rule for overlapping segments)
    assert find_offset_by_timestamp(rlm, TP, T0 + 35, 0, cache) == TimestampAndOffset(T0 + 40, 4)
    # a segment only remote: its cached indexes, then its batches streamed from the store
    assert lookup_timestamp(rlm, copied[1], T0 + 35, 0) == TimestampAndOffset(T0 + 40, 4)
    assert lookup_timestamp(rlm, copied[1], 0, 5) == TimestampAndOffset(T0 + 50, 5)
    assert lookup_timestamp(rlm, copied[1], T0 + 60, 0) is None
    assert find_offset_by_timestamp(rlm, TP, T0 + 95, 0, cache) is None  # past the remote segments
    heard = []
    rlm.offset_read_listener = heard.append
    holder = rlm.async_offset_read(TP, T0 + 95, 0, cache, lambda: TimestampAndOffset(T0 + 100, 10))
    assert holder.task_future.result(5) == TimestampAndOffset(T0 + 100, 10)
    wait_until(lambda: heard == [TP], message="the ListOffsets purgatory hears of it")
