"""CoordinatorLoaderImpl: replays a coordinator partition from its log (Kafka's
kafka.coordinator.group.CoordinatorLoaderImpl).

It reads from the log start to the log end, on its own thread (a coordinator partition can hold many
megabytes, and the event threads serve the other partitions meanwhile), and replays each record into the
shard: a record with its batch's producer id and epoch (a transactional one waits for its marker), a
transaction marker (a control batch) as replay_end_transaction_marker. It reads to the log end, not the
high watermark: a new leader's high watermark may lag its log end, and what is in the log it leads is
what its followers will copy, so a shard that stopped at the HW would lose writes that are about to commit.

The two offsets follow the reading. Once the read passes the high watermark (as the reader saw it), each
batch's end is a last written offset, with a snapshot there; and the high watermark is the last committed
offset. So the shard comes out with its committed view at the HW and its latest state at the log end, and
an uncommitted tail can still be taken back, as any write can.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor

import structlog

from kafka.coordinator.common.runtime.coordinator_error import CoordinatorError
from kafka.coordinator.common.runtime.coordinator_loader import CoordinatorPlayback, LoadSummary
from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecordSerde
from kafka.coordinator.common.runtime.coordinator_shard import TransactionResult
from kafka.protocol.control_records import ABORT, COMMIT, read_end_txn_marker
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import RecordBatch, iter_batches
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.coordinator.CoordinatorLoaderImpl")

LOAD_BUFFER_SIZE = 5 * 1024 * 1024  # offsets.load.buffer.size's default

# read_partition_log(tp, fetch_offset, max_bytes) -> something with .error, .records (bytes), .high_watermark
# and .log_start_offset: ReplicaManager.read_partition_log, or a simulated partition's.
ReadPartitionLog = Callable[[TopicPartition, int, int], object]


class CoordinatorLoaderImpl:
    def __init__(self, read_partition_log: ReadPartitionLog, serde: CoordinatorRecordSerde, time: Time,
                 load_buffer_size: int = LOAD_BUFFER_SIZE, executor: Executor | None = None) -> None:
        """`executor`: where loads run; a one-thread pool of its own by default (Kafka's
        KafkaScheduler(1))."""
        self.read_partition_log = read_partition_log
        self.serde = serde
        self.time = time
        self.load_buffer_size = load_buffer_size
        self._owns_executor = executor is None
        self._executor = executor if executor is not None else ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="coordinator-loader")
        self._running = True

    def load(self, tp: TopicPartition, coordinator: CoordinatorPlayback) -> Future[LoadSummary]:
        future: Future[LoadSummary] = Future()
        start_ms = self.time.milliseconds()
        if not self._running:
            future.set_exception(CoordinatorError(Errors.NOT_COORDINATOR, "the coordinator loader is closed"))
            return future
        self._executor.submit(self._do_load, tp, coordinator, future, start_ms)
        return future

    def _do_load(self, tp: TopicPartition, coordinator: CoordinatorPlayback, future: Future,
                 start_ms: int) -> None:
        queue_time_ms = self.time.milliseconds() - start_ms
        try:
            num_records, num_bytes = self._replay_partition(tp, coordinator)
            if not self._running:
                raise CoordinatorError(Errors.NOT_COORDINATOR, "the coordinator loader is closed")
        except Exception as e:
            log.warning("loading a coordinator partition failed", topic_partition=str(tp), error=str(e))
            future.set_exception(e)
            return
        future.set_result(LoadSummary(start_ms, self.time.milliseconds(), queue_time_ms, num_records,
                                      num_bytes))

    def _replay_partition(self, tp: TopicPartition, coordinator: CoordinatorPlayback) -> tuple[int, int]:
        position = 0
        previous_high_watermark = -1
        num_records = num_bytes = 0
        while self._running:
            data = self.read_partition_log(tp, position, self.load_buffer_size)
            if data.error == Errors.OFFSET_OUT_OF_RANGE and position < data.log_start_offset:
                position = data.log_start_offset  # retention or compaction moved the log start
                continue
            if data.error != Errors.NONE:
                # Not the leader any more (or not yet): the runtime fails the load, and a later leader
                # epoch loads it again.
                raise CoordinatorError(data.error, f"cannot read {tp} at offset {position}")
            records = data.records
            if not records:
                break  # the log end
            for batch in iter_batches(records):
                num_records += self._replay_batch(batch, coordinator)
                position = batch.next_offset
                # The HW can be past this batch (the committed part of the log), or not yet.
                if position >= data.high_watermark:
                    coordinator.update_last_written_offset(position)
                    if data.high_watermark > previous_high_watermark:
                        coordinator.update_last_committed_offset(data.high_watermark)
                        previous_high_watermark = data.high_watermark
            num_bytes += len(records)
        return num_records, num_bytes

    def _replay_batch(self, batch: RecordBatch, coordinator: CoordinatorPlayback) -> int:
        if batch.is_control_batch:
            if batch.is_transactional:  # a transaction marker; other control records mean nothing here
                marker, _ = read_end_txn_marker(batch)
                if marker in (COMMIT, ABORT):
                    result = TransactionResult.COMMIT if marker == COMMIT else TransactionResult.ABORT
                    coordinator.replay_end_transaction_marker(batch.producer_id, batch.producer_epoch, result)
            return 0
        count = 0
        for record in batch:
            count += 1
            if record.key is None:
                continue
            value = None if record.value is None else bytes(record.value)
            coordinator_record = self.serde.deserialize(bytes(record.key), value)
            if coordinator_record is None:
                log.warning("skipping a record of a type this coordinator does not know",
                            offset=record.offset)
                continue
            coordinator.replay(record.offset, batch.producer_id, batch.producer_epoch, coordinator_record)
        return count

    def close(self) -> None:
        self._running = False
        if self._owns_executor:
            self._executor.shutdown(wait=False, cancel_futures=True)
