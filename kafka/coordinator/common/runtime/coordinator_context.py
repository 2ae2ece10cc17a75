"""CoordinatorContext: everything the runtime keeps about one partition's shard (Kafka's
CoordinatorRuntime.CoordinatorContext): its state, the leader epoch it was loaded for, the shard with its
two offsets, the deferred event queue, its timer and its high watermark listener.

It is only ever touched by events of its partition, which the event processor runs one at a time, so it
holds no lock (Kafka's has one, held across the append; here no lock is held across an append or a wait).

The write rule (append): build the batch, replay its records into the shard, append it; if the append
fails, the shard goes back to the snapshot at the last written offset and the write fails; if it succeeds,
the write waits in the deferred event queue for the high watermark to pass the new last written offset.
One event makes one batch: Kafka's CoordinatorBatch, which gathers several writes into a batch until
append.linger.ms passes, is left out, so every write's records are appended (atomically) on their own.
"""

from __future__ import annotations

import structlog

from kafka.coordinator.common.runtime.coordinator_error import CoordinatorError
from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.common.runtime.coordinator_shard import TransactionResult
from kafka.coordinator.common.runtime.coordinator_state import CoordinatorState
from kafka.coordinator.common.runtime.deferred_event_queue import DeferredEvent, DeferredEventQueue
from kafka.coordinator.common.runtime.event_based_coordinator_timer import EventBasedCoordinatorTimer
from kafka.coordinator.common.runtime.high_watermark_listener import HighWatermarkListener
from kafka.coordinator.common.runtime.snapshottable_coordinator import SnapshottableCoordinator
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import NO_PRODUCER_ID, build_batch
from kafka.timeline import SnapshotRegistry
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.coordinator.common.runtime.CoordinatorRuntime")


class CoordinatorContext:
    def __init__(self, runtime, tp: TopicPartition) -> None:
        self.runtime = runtime
        self.tp = tp
        self.log_context = f"[{runtime.log_prefix} topic={tp.topic} partition={tp.partition}] "
        self.state = CoordinatorState.INITIAL
        self.epoch = -1
        self.deferred_event_queue = DeferredEventQueue()
        self.timer = EventBasedCoordinatorTimer(runtime, tp)
        self.coordinator: SnapshottableCoordinator | None = None
        self.high_watermark_listener: HighWatermarkListener | None = None

    # ------------------------------------------------------------------ states
    def transition_to(self, new_state: CoordinatorState) -> None:
        if not new_state.can_transition_from(self.state):
            raise ValueError(f"{self.tp}: cannot go from {self.state.name} to {new_state.name}")
        old_state, self.state = self.state, new_state
        log.debug("coordinator state", topic_partition=str(self.tp), old=old_state.name, new=new_state.name)
        if new_state is CoordinatorState.LOADING:
            registry = SnapshotRegistry(self.log_context)
            shard = self.runtime.coordinator_shard_builder(
                snapshot_registry=registry, time=self.runtime.time, timer=self.timer, topic_partition=self.tp,
                log_context=self.log_context)
            self.coordinator = SnapshottableCoordinator(registry, shard, self.tp)
            self._load()
        elif new_state is CoordinatorState.ACTIVE:
            self.high_watermark_listener = HighWatermarkListener(self.runtime)
            self.runtime.partition_writer.register_listener(self.tp, self.high_watermark_listener)
            self.coordinator.on_loaded(self.runtime.metadata_image)
        elif new_state in (CoordinatorState.FAILED, CoordinatorState.CLOSED):
            self._unload()
        self.runtime.metrics.record_partition_state_change(old_state, new_state)

    def _load(self) -> None:
        coordinator, epoch = self.coordinator, self.epoch
        future = self.runtime.loader.load(self.tp, coordinator)

        def loaded(done) -> None:  # on the loader's thread: back to an event of this partition
            self.runtime.schedule_internal_operation(
                f"CompleteLoad(tp={self.tp}, epoch={epoch})", self.tp,
                lambda: self._complete_load(coordinator, done))

        future.add_done_callback(loaded)

    def _complete_load(self, coordinator: SnapshottableCoordinator, future) -> None:
        # Only the load this context started may activate it: an older load finishing after an unload and
        # a new load would otherwise turn a shard half replayed into ACTIVE (Kafka checks the state only).
        if self.runtime.coordinators.get(self.tp) is not self or self.state is not CoordinatorState.LOADING \
                or self.coordinator is not coordinator:
            log.info("ignored a load that is no longer wanted", topic_partition=str(self.tp),
                     state=self.state.name)
            return
        error = future.exception()
        try:
            if error is not None:
                raise error
            self.transition_to(CoordinatorState.ACTIVE)
            summary = future.result()
            self.runtime.metrics.record_partition_load_sensor(summary.start_time_ms, summary.end_time_ms)
            log.info("coordinator loaded", topic_partition=str(self.tp), epoch=self.epoch,
                     took_ms=summary.end_time_ms - summary.start_time_ms, records=summary.num_records,
                     bytes=summary.num_bytes)
        except Exception as e:
            log.warning("coordinator load failed", topic_partition=str(self.tp), epoch=self.epoch,
                        error=repr(e))
            self.transition_to(CoordinatorState.FAILED)

    def _unload(self) -> None:
        if self.high_watermark_listener is not None:
            self.runtime.partition_writer.deregister_listener(self.tp, self.high_watermark_listener)
            self.high_watermark_listener = None
        self.timer.cancel_all()
        self.deferred_event_queue.fail_all(CoordinatorError(Errors.NOT_COORDINATOR,
                                                            f"{self.tp} was unloaded"))
        if self.coordinator is not None:
            self.coordinator.on_unloaded()
        self.coordinator = None

    # ------------------------------------------------------------------ writing
    def append(self, producer_id: int, producer_epoch: int, records: list[CoordinatorRecord], replay: bool,
               event: DeferredEvent) -> None:
        coordinator = self.coordinator
        if not records:
            # A read after all, answered once everything written before it has committed: the state it
            # read may include those writes.
            if coordinator.last_committed_offset < coordinator.last_written_offset:
                self.deferred_event_queue.add(coordinator.last_written_offset, event)
            else:
                event.complete(None)
            return
        runtime = self.runtime
        batch = build_batch([(runtime.serde.serialize_key(r), runtime.serde.serialize_value(r))
                             for r in records],
                            timestamp=runtime.time.milliseconds(), producer_id=producer_id,
                            producer_epoch=producer_epoch, is_transactional=producer_id != NO_PRODUCER_ID)
        # Checked before the replay, so a batch too large needs nothing reverted.
        max_message_bytes = runtime.partition_writer.config(self.tp)
        if len(batch) > max_message_bytes:
            raise CoordinatorError(Errors.MESSAGE_TOO_LARGE,
                                   f"a batch of {len(batch)} bytes for {self.tp} is "
                                   f"larger than its max.message.bytes, {max_message_bytes}")
        base_offset = coordinator.last_written_offset
        try:
            if replay:
                for i, record in enumerate(records):
                    coordinator.replay(base_offset + i, producer_id, producer_epoch, record)
            offset = self._timed_append(lambda: runtime.partition_writer.append(
                self.tp, producer_id, producer_epoch, batch))
        except Exception:
            # The records never reached the log (or could not be replayed): forget them.
            coordinator.revert_last_written_offset(base_offset)
            raise
        self._written(offset, base_offset + len(records), event)

    def complete_transaction(self, producer_id: int, producer_epoch: int, coordinator_epoch: int,
                             result: TransactionResult, event: DeferredEvent) -> None:
        """Replay and append a transaction marker; it waits to commit as a write does."""
        coordinator = self.coordinator
        base_offset = coordinator.last_written_offset
        try:
            coordinator.replay_end_transaction_marker(producer_id, producer_epoch, result)
            offset = self._timed_append(lambda: self.runtime.partition_writer.append_end_transaction_marker(
                self.tp, producer_id, producer_epoch, coordinator_epoch, result))
        except Exception:
            coordinator.revert_last_written_offset(base_offset)
            raise
        self._written(offset, base_offset + 1, event)

    def _timed_append(self, append) -> int:
        start_ms = self.runtime.time.milliseconds()
        offset = append()
        self.runtime.metrics.record_flush_time(self.runtime.time.milliseconds() - start_ms)
        return offset

    def _written(self, offset: int, expected: int, event: DeferredEvent) -> None:
        if offset != expected:
            # Someone else wrote to the partition, or it lost records under us: the offsets the records
            # were replayed at are wrong. Reload the shard from the log, which is the truth.
            log.error("coordinator out of step with its log: reloading", topic_partition=str(self.tp),
                      log_end_offset=offset, expected=expected)
            self.transition_to(CoordinatorState.FAILED)
            self.transition_to(CoordinatorState.LOADING)
            raise CoordinatorError(Errors.NOT_COORDINATOR, f"{self.tp} is being reloaded")
        self.coordinator.update_last_written_offset(offset)
        self.deferred_event_queue.add(offset, event)

    def update_last_committed_offset(self, high_watermark: int) -> None:
        """The high watermark moved: reads see up to it, and the writes below it are answered."""
        coordinator = self.coordinator
        # A high watermark past what this shard wrote (records it never knew of) commits all it wrote.
        offset = min(high_watermark, coordinator.last_written_offset)
        if offset > coordinator.last_committed_offset:
            coordinator.update_last_committed_offset(offset)
        self.deferred_event_queue.complete_up_to(coordinator.last_committed_offset)
