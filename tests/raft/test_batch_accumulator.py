"""BatchAccumulator: offsets promised at append time are where the records land, whatever thread appended."""

from __future__ import annotations

import threading

import pytest

from kafka.log.log_config import LogConfig
from kafka.protocol.control_records import leader_change_batch
from kafka.protocol.record_batch import iter_batches
from kafka.raft.batch import NotLeaderError
from kafka.raft.batch_accumulator import (
    MAX_BATCH_SIZE_BYTES,
    MAX_NUMBER_OF_BATCHES,
    BatchAccumulator,
    BatchAccumulatorFullError,
)
from kafka.raft.kafka_metadata_log import KafkaMetadataLog
from kafka.utils.time import MockTime

EPOCH = 3
LINGER_MS = 25


def write(log: KafkaMetadataLog, accumulator: BatchAccumulator, now: int) -> None:
    """What the raft thread does: drain, then append each batch where it was promised."""
    for batch in accumulator.drain(now):
        info = log.append_as_leader(batch.data, EPOCH)
        assert info.first_offset == batch.base_offset


def values_at(log: KafkaMetadataLog) -> dict[int, bytes]:
    return {r.offset: r.value for batch in iter_batches(log.read(0, 1 << 24).records)
            if not batch.is_control_batch for r in batch}


def test_records_land_at_the_offsets_append_promised_with_a_control_batch_between(tmp_path):
    log = KafkaMetadataLog(str(tmp_path / "__cluster_metadata-0"), LogConfig(), MockTime())
    accumulator = BatchAccumulator(EPOCH, log.end_offset(), LINGER_MS)
    assert accumulator.append(EPOCH, [b"a", b"b"], now=1000) == 1
    assert not accumulator.needs_drain(1000 + LINGER_MS - 1) and accumulator.needs_drain(1000 + LINGER_MS)
    control = accumulator.append_control_batch(lambda base: leader_change_batch(base, 1000, EPOCH, 1, [1],
                                                                                [1]), 1000)
    assert control == 2 and accumulator.needs_drain(1000), "a control batch is written at once"
    assert accumulator.append(EPOCH, [b"c"], now=1001) == 3 and accumulator.next_offset() == 4
    write(log, accumulator, 1001)
    assert values_at(log) == {0: b"a", 1: b"b", 3: b"c"} and log.end_offset() == 4
    assert accumulator.drain(1002) == [] and accumulator.drain_deadline_ms() is None
    log.close()


def test_appends_from_many_threads_get_distinct_contiguous_offsets(tmp_path):
    log = KafkaMetadataLog(str(tmp_path / "__cluster_metadata-0"), LogConfig(), MockTime())
    accumulator = BatchAccumulator(EPOCH, 0, LINGER_MS)
    promised: dict[int, bytes] = {}
    lock = threading.Lock()

    def appender(name: str) -> None:
        for i in range(200):
            value = f"{name}-{i}".encode()
            offset = accumulator.append(EPOCH, [value], now=1000)
            with lock:
                promised[offset] = value

    threads = [threading.Thread(target=appender, args=(f"t{n}",)) for n in range(4)]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):  # the raft thread's side, meanwhile
        for batch in accumulator.drain(1000):
            assert log.append_as_leader(batch.data, EPOCH).first_offset == batch.base_offset
    for t in threads:
        t.join()
    write(log, accumulator, 1000)
    assert sorted(promised) == list(range(800))
    assert values_at(log) == promised
    log.close()


def test_a_stale_epoch_or_a_closed_leadership_is_refused():
    accumulator = BatchAccumulator(EPOCH, 10, LINGER_MS)
    with pytest.raises(NotLeaderError):
        accumulator.append(EPOCH - 1, [b"x"], now=0)
    with pytest.raises(ValueError):
        accumulator.append(EPOCH + 1, [b"x"], now=0)  # Kafka's IllegalArgumentException: a bug in the caller
    accumulator.append(EPOCH, [b"x"], now=0)
    accumulator.close()  # the leadership ended: what waited is dropped
    assert accumulator.drain(100) == []
    with pytest.raises(NotLeaderError):
        accumulator.append(EPOCH, [b"y"], now=0)


def test_batches_stay_within_the_logs_limit_and_their_number_is_bounded():
    accumulator = BatchAccumulator(EPOCH, 0, LINGER_MS)
    quarter = b"x" * (MAX_BATCH_SIZE_BYTES // 4)
    for _ in range(3 * MAX_NUMBER_OF_BATCHES):  # three a batch: the fourth would not fit
        accumulator.append(EPOCH, [quarter], now=0)
    with pytest.raises(BatchAccumulatorFullError):  # the raft thread is far behind: fail, do not grow
        accumulator.append(EPOCH, [quarter], now=0)
    batches = accumulator.drain(0)
    assert len(batches) == MAX_NUMBER_OF_BATCHES
    assert all(len(b.data) <= MAX_BATCH_SIZE_BYTES and b.num_records == 3 for b in batches)
    assert [b.base_offset for b in batches] == list(range(0, 3 * len(batches), 3))
    accumulator.append(EPOCH, [quarter], now=0)  # drained: room again
