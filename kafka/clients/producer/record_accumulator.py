"""RecordAccumulator: per-partition queues of batches, and when they are ready to go
(Kafka's producer.internals.RecordAccumulator).

Seed 002: "The producer also has control as to when the record batch should be drained and sent
to the broker. This is controlled by two properties. One is by time. The other is by size." A
partition's first batch is *ready* when it is full (``batch.size``), when it has waited
``linger.ms``, when a retry's backoff has passed, or when someone is flushing, closing or
waiting for memory. ``drain`` then takes one batch per ready partition for each node that leads
it, so that "those record batches will be drained, and will form a produce request".

With idempotence, ``drain`` is where a batch gets its number: the TransactionManager's producer id,
epoch and the partition's next sequence. It is numbered once, at its first drain, and a retry
keeps it. A partition's batches go out in sequence order. No batch is drained before the producer
has an id. A retried batch waits until it is the first of its partition in flight, and
``reenqueue`` puts it back in sequence order.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field

from kafka.clients.metadata import Cluster
from kafka.clients.producer.buffer_pool import BufferPool
from kafka.clients.producer.producer_batch import FutureRecordMetadata, ProducerBatch, estimate_size
from kafka.clients.producer.producer_id_and_epoch import NO_SEQUENCE
from kafka.clients.producer.transaction_manager import TransactionManager
from kafka.protocol.compression import CompressionType
from kafka.protocol.record_batch import HEADER_SIZE, Header
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition


@dataclass
class RecordAppendResult:
    future: FutureRecordMetadata | None
    batch_is_full: bool = False
    new_batch_created: bool = False
    abort_for_new_batch: bool = False  # the sticky partitioner wants a say before a new batch starts


@dataclass
class ReadyCheckResult:
    ready_nodes: set[int] = field(default_factory=set)
    next_ready_check_delay_ms: int = 2**31 - 1
    unknown_leader_topics: set[str] = field(default_factory=set)


class RecordAccumulator:
    def __init__(self, batch_size: int, compression: CompressionType, linger_ms: int, retry_backoff_ms: int,
                 delivery_timeout_ms: int, buffer_pool: BufferPool, time: Time,
                 transaction_manager: TransactionManager | None = None) -> None:
        self.batch_size = batch_size
        self.compression = compression
        self.linger_ms = linger_ms
        self.retry_backoff_ms = retry_backoff_ms
        self.delivery_timeout_ms = delivery_timeout_ms
        self.free = buffer_pool
        self.time = time
        self.transaction_manager = transaction_manager  # None unless enable.idempotence
        self._batches: dict[TopicPartition, deque[ProducerBatch]] = {}
        self._incomplete: set[ProducerBatch] = set()
        self._muted: set[TopicPartition] = set()  # max.in.flight=1: one batch per partition in flight
        self._flushes_in_progress = 0
        self._drain_index = 0  # where drain starts, so a full request does not starve the last partitions
        self._closed = False
        self._lock = threading.Lock()
        self._incomplete_done = threading.Condition(self._lock)

    # ------------------------------------------------------------------ the application thread
    def append(self, tp: TopicPartition, timestamp: int, key: bytes | None, value: bytes | None,
               headers: list[Header], callback, max_time_to_block_ms: float,
               abort_on_new_batch: bool) -> RecordAppendResult:
        with self._lock:
            result = self._try_append(tp, timestamp, key, value, headers, callback)
            if result is not None:
                return result
        if abort_on_new_batch:
            return RecordAppendResult(None, abort_for_new_batch=True)
        # Wait for memory outside the lock: the Sender must be able to finish batches meanwhile.
        size = max(self.batch_size, HEADER_SIZE + estimate_size(key, value, headers))
        allocated = self.free.allocate(size, max_time_to_block_ms)
        with self._lock:
            result = self._try_append(tp, timestamp, key, value, headers, callback)
            if result is not None:  # another thread opened a batch while we waited
                self.free.deallocate(allocated)
                return result
            batch = ProducerBatch(tp, self.compression, self.time.hi_res_clock_ms())
            batch.allocated = allocated
            future = batch.try_append(timestamp, key, value, headers, callback, self.batch_size)
            queue = self._batches.setdefault(tp, deque())
            queue.append(batch)
            self._incomplete.add(batch)
            return RecordAppendResult(future, len(queue) > 1 or batch.is_full(self.batch_size), True)

    def _try_append(self, tp, timestamp, key, value, headers, callback) -> RecordAppendResult | None:
        if self._closed:
            raise RuntimeError("producer is closed")
        queue = self._batches.get(tp)
        if not queue:
            return None
        last = queue[-1]
        future = last.try_append(timestamp, key, value, headers, callback, self.batch_size)
        if future is None:
            return None
        return RecordAppendResult(future, len(queue) > 1 or last.is_full(self.batch_size))

    # ------------------------------------------------------------------ the Sender thread
    def ready(self, cluster: Cluster, now_ms: int) -> ReadyCheckResult:
        result = ReadyCheckResult()
        exhausted = self.free.queued()
        with self._lock:
            for tp, queue in self._batches.items():
                if not queue or tp in self._muted:
                    continue
                leader = cluster.leader_for(tp)
                if leader is None:
                    result.unknown_leader_topics.add(tp.topic)
                    continue
                if leader.node_id in result.ready_nodes:
                    continue
                batch = queue[0]
                backing_off = batch.attempts > 0 and now_ms - batch.last_attempt_ms < self.retry_backoff_ms
                time_to_wait = self.retry_backoff_ms if batch.attempts > 0 else self.linger_ms
                waited = now_ms - batch.last_attempt_ms
                full = len(queue) > 1 or batch.is_full(self.batch_size)
                expired = waited >= time_to_wait
                sendable = full or expired or exhausted or self._closed or self._flushes_in_progress > 0
                if sendable and not backing_off:
                    result.ready_nodes.add(leader.node_id)
                else:
                    result.next_ready_check_delay_ms = min(result.next_ready_check_delay_ms,
                                                           max(0, time_to_wait - waited))
        return result

    def drain(self, cluster: Cluster, nodes: list[int], max_request_size: int,
              now_ms: int) -> dict[int, list[ProducerBatch]]:
        """For each node, the first batch of each partition it leads, up to max.request.size."""
        drained: dict[int, list[ProducerBatch]] = {}
        tm = self.transaction_manager
        with self._lock:
            for node_id in nodes:
                size = 0
                batches = []
                items = list(self._batches.items())
                self._drain_index = (self._drain_index + 1) % max(1, len(items))
                for tp, queue in items[self._drain_index:] + items[: self._drain_index]:
                    if not queue or tp in self._muted:
                        continue
                    leader = cluster.leader_for(tp)
                    if leader is None or leader.node_id != node_id:
                        continue
                    first = queue[0]
                    if first.attempts > 0 and now_ms - first.last_attempt_ms < self.retry_backoff_ms:
                        continue
                    if tm is not None and self._should_stop_drain_batches_for_partition(first, tp):
                        continue
                    if batches and size + first.estimated_size > max_request_size:
                        break  # the rest waits for the next request
                    batch = queue.popleft()
                    if tm is not None and not batch.has_sequence:
                        # Number it now, once: a retry must carry the same number, or a batch the
                        # leader already wrote would look new to it and be written twice.
                        tm.maybe_update_producer_id_and_epoch(tp)
                        batch.set_producer_state(tm.producer_id_and_epoch, tm.sequence_number(tp),
                                                 tm.is_transactional())
                        tm.increment_sequence_number(tp, batch.record_count)
                        tm.add_in_flight_batch(batch)
                    batch.build()
                    batch.attempts += 1
                    batch.last_attempt_ms = now_ms
                    size += batch.estimated_size
                    batches.append(batch)
                drained[node_id] = batches
        return drained

    def _should_stop_drain_batches_for_partition(self, first: ProducerBatch, tp: TopicPartition) -> bool:
        """Idempotence: may the first batch of ``tp`` go now? (Kafka's shouldStopDrainBatchesForPartition)"""
        tm = self.transaction_manager
        if not tm.is_send_to_partition_allowed(tp):
            return True
        if not tm.producer_id_and_epoch.is_valid:
            return True  # no batch goes before InitProducerId has answered
        if not first.has_sequence:
            if tm.has_in_flight_batches(tp) and tm.has_stale_producer_id_and_epoch(tp):
                # The new epoch starts at sequence 0; wait until the old epoch's batches are done,
                # or sequence 0 could reach the leader before them.
                return True
            if tm.has_unresolved_sequence(tp):
                return True  # a batch expired after it was sent: wait to learn if it was written
        first_in_flight = tm.first_in_flight_sequence(tp)
        # A retry goes only when it is the oldest batch of its partition in flight, so retries
        # cannot overtake each other (in effect, one request in flight while it is retried).
        if first_in_flight == NO_SEQUENCE or not first.has_sequence:
            return False
        return first.base_sequence != first_in_flight

    def reenqueue(self, batch: ProducerBatch, now_ms: int) -> None:
        """A retriable failure: put the batch back at the head of its queue, keeping its order."""
        with self._lock:
            batch.last_attempt_ms = now_ms
            queue = self._batches.setdefault(batch.topic_partition, deque())
            if self.transaction_manager is not None:
                self._insert_in_sequence_order(queue, batch)
            else:
                queue.appendleft(batch)

    @staticmethod
    def _insert_in_sequence_order(queue: deque[ProducerBatch], batch: ProducerBatch) -> None:
        """The batches of a failed request come back one by one, oldest first, so each must find
        its place among the retries already at the head of the queue, not simply go in front."""
        if not batch.has_sequence:
            raise RuntimeError(f"a re-enqueued batch of an idempotent producer has no sequence: {batch}")
        ahead = []
        while queue and queue[0].has_sequence and queue[0].base_sequence < batch.base_sequence:
            ahead.append(queue.popleft())
        queue.appendleft(batch)
        queue.extendleft(reversed(ahead))

    def expired_batches(self, now_ms: int) -> list[ProducerBatch]:
        """Batches still waiting here after delivery.timeout.ms: they fail without being sent."""
        expired = []
        with self._lock:
            for queue in self._batches.values():
                while queue and queue[0].has_reached_delivery_timeout(self.delivery_timeout_ms, now_ms):
                    expired.append(queue.popleft())
        return expired

    def mute(self, tp: TopicPartition) -> None:
        with self._lock:
            self._muted.add(tp)

    def unmute(self, tp: TopicPartition) -> None:
        with self._lock:
            self._muted.discard(tp)

    def deallocate(self, batch: ProducerBatch) -> None:
        """The batch is finished (sent and answered, or failed): give back its memory."""
        with self._lock:
            self._incomplete.discard(batch)
            self._incomplete_done.notify_all()
        self.free.deallocate(batch.allocated)

    # ------------------------------------------------------------------ flush and close
    def begin_flush(self) -> None:
        with self._lock:
            self._flushes_in_progress += 1

    def await_flush_completion(self, timeout_s: float | None) -> bool:
        with self._lock:
            try:
                return self._incomplete_done.wait_for(lambda: not self._incomplete, timeout_s)
            finally:
                self._flushes_in_progress -= 1

    def has_incomplete(self) -> bool:
        """Batches appended and not yet answered: a transaction's EndTxn waits for them."""
        with self._lock:
            return bool(self._incomplete)

    def has_undrained(self) -> bool:
        with self._lock:
            return any(self._batches.values())

    def close(self) -> None:
        with self._lock:
            self._closed = True

    def abort_incomplete_batches(self, exception: BaseException) -> None:
        with self._lock:
            batches = [b for q in self._batches.values() for b in q]
            self._batches.clear()
        for batch in batches:
            batch.done(-1, exception=exception)
            self.deallocate(batch)
