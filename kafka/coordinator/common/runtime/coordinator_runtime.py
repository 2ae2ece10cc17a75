"""CoordinatorRuntime: runs one replicated state machine per coordinator partition led here (Kafka 4's
org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime, KIP-848).

A shard's state lives in timeline collections and changes only by replaying records. Two kinds of
operations reach it, both as events of its partition, which the event processor runs one at a time:

  * a write reads the latest state, even uncommitted, and returns records and a response. The records
    are replayed into the shard and appended to the partition; the response waits until the high
    watermark passes them. If the append fails, the shard goes back to its snapshot before the write
    (the controller's rule): the state never holds what the log does not.
  * a read reads the state as of the last committed offset and answers at once.

Loading: when this broker becomes leader of a partition (schedule_load_operation, with the partition's
leader epoch), an empty shard is built and the CoordinatorLoader replays the partition into it; meanwhile
operations fail with COORDINATOR_LOAD_IN_PROGRESS. When it stops leading (schedule_unload_operation), the
shard is dropped and everything waiting fails with NOT_COORDINATOR; the next leader reloads from the log.

Left out of Kafka's: write batching (CoordinatorBatch and append.linger.ms, which gather several writes
into one batch): here one event is one batch. Transaction verification (KIP-890's VerificationGuard) is
left out too: a transactional write is appended as it comes.

Futures fail with CoordinatorError: NOT_COORDINATOR (not loaded here, unloaded, or the runtime closed),
COORDINATOR_LOAD_IN_PROGRESS, REQUEST_TIMED_OUT (the write timeout passed before the records committed),
or the append's error. An operation that raises fails its future with what it raised.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Generic, TypeVar

import structlog

from kafka.coordinator.common.runtime.coordinator_complete_transaction_event import (
    CoordinatorCompleteTransactionEvent,
)
from kafka.coordinator.common.runtime.coordinator_context import CoordinatorContext
from kafka.coordinator.common.runtime.coordinator_error import CoordinatorError
from kafka.coordinator.common.runtime.coordinator_event_processor import CoordinatorEventProcessor
from kafka.coordinator.common.runtime.coordinator_internal_event import CoordinatorInternalEvent
from kafka.coordinator.common.runtime.coordinator_loader import CoordinatorLoader
from kafka.coordinator.common.runtime.coordinator_read_event import CoordinatorReadEvent
from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecordSerde
from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.common.runtime.coordinator_runtime_metrics import CoordinatorRuntimeMetrics
from kafka.coordinator.common.runtime.coordinator_shard import CoordinatorShardBuilder, TransactionResult
from kafka.coordinator.common.runtime.coordinator_state import CoordinatorState
from kafka.coordinator.common.runtime.coordinator_write_event import CoordinatorWriteEvent
from kafka.coordinator.common.runtime.event_accumulator import RejectedExecutionError
from kafka.coordinator.common.runtime.partition_writer import PartitionWriter
from kafka.image.metadata_image import EMPTY_IMAGE
from kafka.protocol.errors import Errors
from kafka.utils.time import Time
from kafka.utils.timer.timer import Timer
from kafka.utils.topic_partition import TopicPartition

__all__ = ["CoordinatorError", "CoordinatorRuntime"]

log = structlog.get_logger("kafka.coordinator.common.runtime.CoordinatorRuntime")

S = TypeVar("S")
U = TypeVar("U")


def failed_future(error: Errors, message: str) -> Future:
    future: Future = Future()
    future.set_exception(CoordinatorError(error, message))
    return future


class CoordinatorRuntime(Generic[S, U]):
    def __init__(self, *, log_prefix: str, time: Time, timer: Timer, processor: CoordinatorEventProcessor,
                 partition_writer: PartitionWriter, loader: CoordinatorLoader,
                 coordinator_shard_builder: CoordinatorShardBuilder, serde: CoordinatorRecordSerde,
                 metrics: CoordinatorRuntimeMetrics, default_write_timeout_ms: int) -> None:
        """`timer` runs the shards' timers and the write timeouts; its owner drives and closes it."""
        self.log_prefix = log_prefix
        self.time = time
        self.timer = timer
        self.processor = processor
        self.partition_writer = partition_writer
        self.loader = loader
        self.coordinator_shard_builder = coordinator_shard_builder
        self.serde = serde
        self.metrics = metrics
        self.default_write_timeout_ms = default_write_timeout_ms
        # Read from any thread; changed only under the lock (and a partition's entry only by its events).
        self.coordinators: dict[TopicPartition, CoordinatorContext] = {}
        self._coordinators_lock = threading.Lock()
        self.metadata_image = EMPTY_IMAGE
        self._running = True

    # ------------------------------------------------------------------ events in
    def enqueue_last(self, event) -> None:
        try:
            self.processor.enqueue_last(event)
        except RejectedExecutionError as e:
            raise CoordinatorError(Errors.NOT_COORDINATOR, "the event processor is closed") from e

    def enqueue_first(self, event) -> None:
        try:
            self.processor.enqueue_first(event)
        except RejectedExecutionError as e:
            raise CoordinatorError(Errors.NOT_COORDINATOR, "the event processor is closed") from e

    def _schedule(self, event) -> Future:
        if not self._running:
            return failed_future(Errors.NOT_COORDINATOR, "the coordinator runtime is closed")
        try:
            self.enqueue_last(event)
        except CoordinatorError as e:
            return failed_future(e.error, str(e))
        return event.future

    def schedule_internal_operation(self, name: str, tp: TopicPartition, op: Callable[[], None]) -> None:
        """Raises CoordinatorError(NOT_COORDINATOR) if the processor is closed."""
        self.enqueue_last(CoordinatorInternalEvent(self, name, tp, op))

    # ------------------------------------------------------------------ the contexts
    def context(self, tp: TopicPartition) -> CoordinatorContext | None:
        return self.coordinators.get(tp)

    def maybe_create_context(self, tp: TopicPartition) -> CoordinatorContext:
        with self._coordinators_lock:
            context = self.coordinators.get(tp)
            if context is None:
                context = self.coordinators[tp] = CoordinatorContext(self, tp)
            return context

    def active_context_or_raise(self, tp: TopicPartition) -> CoordinatorContext:
        """Kafka's withActiveContextOrThrow, without its lock: only this partition's events call it."""
        context = self.coordinators.get(tp)
        if context is None:
            raise CoordinatorError(Errors.NOT_COORDINATOR, f"{tp} is not loaded here")
        if context.state is CoordinatorState.ACTIVE:
            return context
        if context.state is CoordinatorState.LOADING:
            raise CoordinatorError(Errors.COORDINATOR_LOAD_IN_PROGRESS, f"{tp} is loading")
        raise CoordinatorError(Errors.NOT_COORDINATOR, f"{tp} is {context.state.name}")

    def partitions(self) -> list[TopicPartition]:
        """The partitions whose shards are ACTIVE here."""
        contexts = list(self.coordinators.items())
        return [tp for tp, context in contexts if context.state is CoordinatorState.ACTIVE]

    # ------------------------------------------------------------------ operations
    def schedule_write_operation(self, name: str, tp: TopicPartition, timeout_ms: int,
                                 op: Callable[[S], CoordinatorResult]) -> Future:
        return self._schedule(CoordinatorWriteEvent(self, name, tp, timeout_ms, op))

    def schedule_write_all_operation(self, name: str, timeout_ms: int,
                                     op: Callable[[S], CoordinatorResult]) -> list[Future]:
        return [self.schedule_write_operation(name, tp, timeout_ms, op) for tp in list(self.coordinators)]

    def schedule_transactional_write_operation(self, name: str, tp: TopicPartition, transactional_id: str,
                                               producer_id: int, producer_epoch: int, timeout_ms: int,
                                               op: Callable[[S], CoordinatorResult]) -> Future:
        """A write whose records go in a transactional batch of the producer: the shard keeps them pending
        until schedule_transaction_completion writes the producer's marker."""
        return self._schedule(CoordinatorWriteEvent(self, name, tp, timeout_ms, op, transactional_id,
                                                    producer_id, producer_epoch))

    def schedule_transaction_completion(self, name: str, tp: TopicPartition, producer_id: int,
                                        producer_epoch: int,
                                        coordinator_epoch: int, result: TransactionResult,
                                        timeout_ms: int) -> Future:
        return self._schedule(CoordinatorCompleteTransactionEvent(self, name, tp, producer_id, producer_epoch,
                                                                  coordinator_epoch, result, timeout_ms))

    def schedule_read_operation(self, name: str, tp: TopicPartition,
                                op: Callable[[S, int], object]) -> Future:
        return self._schedule(CoordinatorReadEvent(self, name, tp, op))

    def schedule_read_all_operation(self, name: str, op: Callable[[S, int], object]) -> list[Future]:
        return [self.schedule_read_operation(name, tp, op) for tp in list(self.coordinators)]

    # ------------------------------------------------------------------ leadership
    def schedule_load_operation(self, tp: TopicPartition, partition_epoch: int) -> None:
        """This broker leads tp in `partition_epoch` (its leader epoch): load its shard, unless one of this
        epoch or a later one is loaded or loading already."""
        if not self._running:
            log.info("load ignored: the coordinator runtime is closed", topic_partition=str(tp))
            return
        log.info("scheduling a coordinator load", topic_partition=str(tp), epoch=partition_epoch)
        # the runtime knows the partition at once: requests get LOAD_IN_PROGRESS
        self.maybe_create_context(tp)

        def load() -> None:
            context = self.maybe_create_context(tp)  # made again if an unload removed it meanwhile
            if context.epoch >= partition_epoch:
                log.info("load ignored: epoch not newer", topic_partition=str(tp), epoch=context.epoch,
                         requested=partition_epoch)
                return
            context.epoch = partition_epoch
            if context.state in (CoordinatorState.INITIAL, CoordinatorState.FAILED):
                context.transition_to(CoordinatorState.LOADING)
            else:
                log.info("coordinator already loading or active", topic_partition=str(tp),
                         state=context.state.name)

        self._schedule_leadership_event(f"Load(tp={tp}, epoch={partition_epoch})", tp, load)

    def schedule_unload_operation(self, tp: TopicPartition, partition_epoch: int | None) -> None:
        """This broker no longer leads tp as of `partition_epoch` (None: whatever the epoch, e.g. the
        partition was deleted): drop its shard if it was loaded for an older epoch."""
        if not self._running:
            log.info("unload ignored: the coordinator runtime is closed", topic_partition=str(tp))
            return
        log.info("scheduling a coordinator unload", topic_partition=str(tp), epoch=partition_epoch)

        def unload() -> None:
            context = self.coordinators.get(tp)
            if context is None:
                return
            if partition_epoch is not None and context.epoch >= partition_epoch:
                log.info("unload ignored: loaded for a newer epoch", topic_partition=str(tp),
                         epoch=context.epoch,
                         requested=partition_epoch)
                return
            context.transition_to(CoordinatorState.CLOSED)
            with self._coordinators_lock:
                if self.coordinators.get(tp) is context:
                    del self.coordinators[tp]
            log.info("coordinator unloaded", topic_partition=str(tp), epoch=partition_epoch)

        self._schedule_leadership_event(f"UnloadCoordinator(tp={tp}, epoch={partition_epoch})", tp, unload)

    def _schedule_leadership_event(self, name: str, tp: TopicPartition, op: Callable[[], None]) -> None:
        try:
            self.schedule_internal_operation(name, tp, op)
        except CoordinatorError:
            log.info("leadership change ignored: the event processor is closed", name=name)

    def on_new_metadata_image(self, image, delta) -> None:
        """A new metadata image: every active shard hears of it, on its own event thread."""
        if not self._running:
            return
        self.metadata_image = image

        def apply(tp: TopicPartition) -> None:
            context = self.coordinators.get(tp)
            if context is not None and context.state is CoordinatorState.ACTIVE:
                context.coordinator.on_new_metadata_image(image, delta)

        for tp in list(self.coordinators):
            self._schedule_leadership_event(f"UpdateImage(tp={tp})", tp, lambda tp=tp: apply(tp))

    # ------------------------------------------------------------------ shutdown
    def close(self) -> None:
        """Stop: the loader, then the processor (its queued events are refused with NOT_COORDINATOR), then
        every shard is unloaded, failing what waits for a commit. The timer belongs to the caller."""
        if not self._running:
            return
        self._running = False
        log.info("closing the coordinator runtime", prefix=self.log_prefix)
        self.loader.close()
        self.processor.close()
        with self._coordinators_lock:
            contexts, self.coordinators = list(self.coordinators.values()), {}
        for context in contexts:
            context.transition_to(CoordinatorState.CLOSED)
        self.metrics.close()
