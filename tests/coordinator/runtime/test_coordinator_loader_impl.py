"""CoordinatorLoaderImpl (Kafka's CoordinatorLoaderImplTest): records replayed with their offsets and
producer ids, markers as end-transaction markers, unknown record types skipped, the last written and
last committed offsets following the high watermark, and a partition not led here failing the load."""

from __future__ import annotations

from kafka.coordinator.common.runtime.coordinator_error import CoordinatorError
from kafka.coordinator.common.runtime.coordinator_loader_impl import CoordinatorLoaderImpl
from kafka.coordinator.common.runtime.coordinator_shard import TransactionResult
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch
from kafka.utils.time import MockTime
from tests.coordinator.runtime.in_memory_partition_writer import InMemoryPartitionWriter
from tests.coordinator.runtime.key_value_shard import KeyValueSerde
from tests.coordinator.runtime.runtime_fixture import TP, QueuedExecutor


class Playback:
    def __init__(self) -> None:
        self.calls = []

    def replay(self, offset, producer_id, producer_epoch, record):
        self.calls.append(("replay", offset, producer_id, record.key, record.value))

    def replay_end_transaction_marker(self, producer_id, producer_epoch, result):
        self.calls.append(("marker", producer_id, result))

    def update_last_written_offset(self, offset):
        self.calls.append(("written", offset))

    def update_last_committed_offset(self, offset):
        self.calls.append(("committed", offset))


def test_a_load_replays_the_log_and_follows_the_high_watermark():
    writer = InMemoryPartitionWriter()
    writer.leading.add(TP)
    writer.append(TP, -1, -1, build_batch([(b"a", b"1"), (b"?unknown", b"x")]))
    writer.append(TP, 7, 0,
                  build_batch([(b"b", b"2")], producer_id=7, producer_epoch=0, is_transactional=True))
    writer.append_end_transaction_marker(TP, 7, 0, 1, TransactionResult.ABORT)
    writer.append(TP, -1, -1, build_batch([(b"c", None)]))
    writer.commit(TP, 3)  # the marker's batch ends at 4: committed up to the transactional batch
    playback = Playback()
    loader = CoordinatorLoaderImpl(writer.read_partition_log, KeyValueSerde(), MockTime(), load_buffer_size=1,
                                   executor=QueuedExecutor())
    summary = loader.load(TP, playback).result(0)
    assert playback.calls == [
        ("replay", 0, -1, "a", "1"),  # the unknown record at offset 1 is skipped
        ("replay", 2, 7, "b", "2"), ("written", 3), ("committed", 3),
        ("marker", 7, TransactionResult.ABORT), ("written", 4),
        ("replay", 4, -1, "c", None), ("written", 5)]
    assert summary.num_records == 4


def test_a_partition_not_led_here_fails_the_load():
    writer = InMemoryPartitionWriter()
    loader = CoordinatorLoaderImpl(writer.read_partition_log, KeyValueSerde(), MockTime(),
                                   executor=QueuedExecutor())
    error = loader.load(TP, Playback()).exception(0)
    assert isinstance(error, CoordinatorError) and error.error == Errors.NOT_LEADER_OR_FOLLOWER
