"""TransactionMarkerChannelManager: the coordinator's WriteTxnMarkers to partition leaders, and the
last step of a transaction (Kafka's kafka.coordinator.transaction.TransactionMarkerChannelManager
and TransactionMarkerRequestCompletionHandler).

Seed 000: the coordinators append through ReplicaManager -- but a transaction's partitions live on
other brokers too. Once PrepareCommit (or PrepareAbort) is in ``__transaction_state``, the outcome
is decided; what is left is telling every partition of the transaction, so each leader appends a
COMMIT or ABORT marker stamped with the producer's id and epoch and this coordinator's epoch.

    add_txn_markers_to_send       one marker per destination broker, queued per __transaction_state
                                  partition (so a resignation can drop its queues at once)
    do_work                       (Kafka's generateRequests) one WriteTxnMarkers per broker with
                                  markers queued, sent through the injected ``send_request``
    the response                  NONE: the partition is done; NOT_LEADER_OR_FOLLOWER, unknown
                                  partition, too few replicas, timeout, disconnect: queued again,
                                  to whoever leads it then, after ``retry_backoff_ms``; the
                                  producer's or the coordinator's epoch fenced: give up (someone
                                  newer owns the transaction)
    maybe_write_txn_completion    no partition left: append CompleteCommit / CompleteAbort (a
                                  COORDINATOR_NOT_AVAILABLE append is retried)

A partition whose topic is gone has no leader to tell and no reader to protect: it is dropped, as
Kafka does. A partition whose leader is unknown right now waits in the unknown-destination queue.
The package knows no sockets: ``send_request(destination, body, callback(response or None, error))``
is the server's inter-broker channel, and ``leader_for(tp)`` reads its metadata cache.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import structlog

from kafka.coordinator.transaction.transaction_metadata import TransactionMetadata, TxnTransitMetadata
from kafka.coordinator.transaction.transaction_state_manager import TransactionStateManager
from kafka.coordinator.transaction.transaction_version import TV_0
from kafka.protocol.errors import Errors
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.coordinator.transaction.TransactionMarkerChannelManager")

MOCK_TIME_RECHECK_MS = 10

RETRIABLE_MARKER_ERRORS = frozenset({
    Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_LEADER_OR_FOLLOWER, Errors.NOT_ENOUGH_REPLICAS,
    Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, Errors.REQUEST_TIMED_OUT, Errors.KAFKA_STORAGE_ERROR})
FENCED_MARKER_ERRORS = frozenset({Errors.INVALID_PRODUCER_EPOCH, Errors.TRANSACTION_COORDINATOR_FENCED})
SKIPPED_MARKER_ERRORS = frozenset({Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT, Errors.UNSUPPORTED_VERSION})


class MarkerDestination(NamedTuple):
    """A partition leader on the inter-broker listener."""

    node_id: int
    host: str
    port: int


NO_NODE = MarkerDestination(-1, "", -1)  # the partition exists, its leader is not known (yet)

# leader_for(tp): its leader, NO_NODE while unknown, None when the partition no longer exists
LeaderFor = Callable[[TopicPartition], MarkerDestination | None]
SendRequest = Callable[[MarkerDestination, dict, Callable[[Any, Errors], None]], None]


@dataclass(eq=False)
class PendingCompleteTxn:
    transactional_id: str
    coordinator_epoch: int
    txn_metadata: TransactionMetadata
    new_metadata: TxnTransitMetadata


@dataclass(frozen=True)
class TxnMarkerEntry:
    producer_id: int
    producer_epoch: int
    coordinator_epoch: int
    committed: bool
    partitions: frozenset[TopicPartition]
    transaction_version: int = TV_0  # the client's, sent from WriteTxnMarkers v2 (KIP-1228)


@dataclass(frozen=True)
class PendingCompleteTxnAndMarkerEntry:
    pending_complete_txn: PendingCompleteTxn
    txn_marker_entry: TxnMarkerEntry


class TxnMarkerQueue:
    """The markers waiting for one destination, by __transaction_state partition."""

    def __init__(self, destination: MarkerDestination) -> None:
        self.destination = destination
        self.markers_per_txn_topic_partition: dict[int, list[PendingCompleteTxnAndMarkerEntry]] = {}

    def add_markers(self, txn_topic_partition: int, entry: PendingCompleteTxnAndMarkerEntry) -> None:
        self.markers_per_txn_topic_partition.setdefault(txn_topic_partition, []).append(entry)

    def remove_markers_for_txn_topic_partition(self,
                                               partition: int) -> list[PendingCompleteTxnAndMarkerEntry]:
        return self.markers_per_txn_topic_partition.pop(partition, [])

    def drain(self) -> list[PendingCompleteTxnAndMarkerEntry]:
        drained = [e for queue in self.markers_per_txn_topic_partition.values() for e in queue]
        self.markers_per_txn_topic_partition = {}
        return drained

    def total_num_markers(self) -> int:
        return sum(len(q) for q in self.markers_per_txn_topic_partition.values())


class TransactionMarkerChannelManager:
    def __init__(self, broker_id: int, txn_state_manager: TransactionStateManager, leader_for: LeaderFor,
                 send_request: SendRequest, time: Time, retry_backoff_ms: int = 100) -> None:
        self.broker_id = broker_id
        self.txn_state_manager = txn_state_manager
        self.leader_for = leader_for
        self.send_request = send_request
        self.time = time
        self.retry_backoff_ms = retry_backoff_ms
        self._lock = threading.RLock()  # the queues; never held while sending or appending
        self.markers_queue_per_broker: dict[int, TxnMarkerQueue] = {}
        self.markers_queue_for_unknown_broker = TxnMarkerQueue(NO_NODE)
        self.txn_log_append_retry_queue: list[PendingCompleteTxn] = []
        self.transactions_with_pending_markers: dict[str, PendingCompleteTxn] = {}
        self._delayed: list[tuple[int, PendingCompleteTxn, TxnMarkerEntry, frozenset[TopicPartition]]] = []
        self._wakeup = threading.Condition(threading.Lock())
        self._woken = False
        self._running = False
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ the sender thread
    def start(self) -> None:
        self._running = True
        self._thread = threading.Thread(target=self._run, name=f"TxnMarkerSenderThread-{self.broker_id}",
                                        daemon=True)
        self._thread.start()

    def shutdown(self) -> None:
        self._running = False
        self.wakeup()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._lock:
            self.markers_queue_per_broker.clear()

    def wakeup(self) -> None:
        with self._wakeup:
            self._woken = True
            self._wakeup.notify()

    def _run(self) -> None:
        while self._running:
            try:
                self.do_work()
            except Exception:
                log.exception("transaction marker sender failed; carrying on")
            with self._wakeup:
                # New markers (wakeup) go out at once. A retry waits retry_backoff_ms on the injected
                # clock, counted from the first thing waiting (a stream of new retries must not keep
                # pushing it back). With nothing to retry the thread sleeps until woken: an idle
                # broker's sender costs nothing, where a poll every 100 ms woke it ten times a second.
                retry_at = None  # when the backoff of the first thing waiting ends
                while not self._woken and self._running:
                    if not self._anything_to_retry():
                        self._wakeup.wait()  # until woken, or notified that a retry waits
                        continue
                    now = self.time.hi_res_clock_ms()
                    if retry_at is None:
                        retry_at = now + self.retry_backoff_ms
                    if now >= retry_at:
                        break  # the backoff is over: retry
                    self._wakeup.wait(self._wait_ms(retry_at - now) / 1000)
                self._woken = False

    def _wait_ms(self, remaining_ms: int) -> int:
        """How long to block in real time: the backoff, or a short while with a MockTime, since
        nothing tells this thread that a MockTime moved."""
        return min(remaining_ms, MOCK_TIME_RECHECK_MS) if self.time.is_mock else remaining_ms

    def _anything_to_retry(self) -> bool:
        """Markers due again after a failure, markers whose leader is unknown, or a completion to
        append again."""
        with self._lock:
            return bool(self._delayed or self.txn_log_append_retry_queue
                        or self.markers_queue_for_unknown_broker.total_num_markers())

    def _notify_retry_waiting(self) -> None:
        """Something now waits for a retry: a sender asleep without a timeout must start its backoff
        (notified, not woken, so the retry still waits retry_backoff_ms)."""
        with self._wakeup:
            self._wakeup.notify()

    # ------------------------------------------------------------------ gauges
    def unknown_destination_queue_size(self) -> int:
        with self._lock:
            return self.markers_queue_for_unknown_broker.total_num_markers()

    def log_append_retry_queue_size(self) -> int:
        with self._lock:
            return len(self.txn_log_append_retry_queue)

    # ------------------------------------------------------------------ queueing markers
    def add_txn_markers_to_send(self, coordinator_epoch: int, committed: bool,
                                txn_metadata: TransactionMetadata,
                                new_metadata: TxnTransitMetadata) -> None:
        """The Prepare* record is committed: send its markers, then complete the transaction."""
        transactional_id = txn_metadata.transactional_id
        pending = PendingCompleteTxn(transactional_id, coordinator_epoch, txn_metadata, new_metadata)
        with self._lock:
            self.transactions_with_pending_markers[transactional_id] = pending
        with txn_metadata.lock:
            producer_id, producer_epoch = txn_metadata.producer_id, txn_metadata.producer_epoch
            partitions = frozenset(txn_metadata.topic_partitions)
        self.add_txn_markers_to_broker_queue(producer_id, producer_epoch, committed, pending, partitions)
        self.maybe_write_txn_completion(transactional_id)

    def add_txn_markers_to_broker_queue(self, producer_id: int, producer_epoch: int, committed: bool,
                                        pending: PendingCompleteTxn, partitions: frozenset[TopicPartition],
                                        wake: bool = True) -> None:
        txn_topic_partition = self.txn_state_manager.partition_for(pending.transactional_id)
        by_destination: dict[MarkerDestination | None, set[TopicPartition]] = {}
        for tp in partitions:
            by_destination.setdefault(self.leader_for(tp), set()).add(tp)
        for destination, tps in by_destination.items():
            if destination is None:
                self._drop_deleted_partitions(pending, frozenset(tps))
                continue
            entry = PendingCompleteTxnAndMarkerEntry(pending, TxnMarkerEntry(
                producer_id, producer_epoch, pending.coordinator_epoch, committed, frozenset(tps),
                pending.txn_metadata.client_transaction_version))
            with self._lock:
                if destination == NO_NODE:
                    self.markers_queue_for_unknown_broker.add_markers(txn_topic_partition, entry)
                else:
                    queue = self.markers_queue_per_broker.setdefault(destination.node_id,
                                                                     TxnMarkerQueue(destination))
                    queue.destination = destination
                    queue.add_markers(txn_topic_partition, entry)
        if wake:
            self.wakeup()

    def _drop_deleted_partitions(self, pending: PendingCompleteTxn, tps: frozenset[TopicPartition]) -> None:
        """No such partition any more (its topic was deleted): nobody can read it, skip its marker."""
        error, epoch_and_metadata = self.txn_state_manager.get_transaction_state(pending.transactional_id)
        if error != Errors.NONE or epoch_and_metadata is None or \
                epoch_and_metadata.coordinator_epoch != pending.coordinator_epoch:
            self.remove_markers_for_txn(pending)
            return
        log.info("no leader for partitions of a transaction: they are likely deleted, skipping their markers",
                 transactional_id=pending.transactional_id, partitions=sorted(str(tp) for tp in tps))
        metadata = epoch_and_metadata.transaction_metadata
        with metadata.lock:
            for tp in tps:
                metadata.remove_partition(tp)
        self.maybe_write_txn_completion(pending.transactional_id)

    # ------------------------------------------------------------------ sending (generateRequests)
    def do_work(self) -> None:
        """One round of the sender thread: retry appends, re-route markers whose leader was unknown
        or whose retry is due, and send one WriteTxnMarkers per destination broker."""
        self._retry_log_appends()
        now = self.time.milliseconds()
        with self._lock:
            due = [d for d in self._delayed if d[0] <= now]
            self._delayed = [d for d in self._delayed if d[0] > now]
            unknown = self.markers_queue_for_unknown_broker.drain()
        # Re-routed here, on the sender thread, without waking it: a leader still unknown would
        # otherwise wake it straight back into this loop, again and again until the leader is known.
        for _, pending, marker, partitions in due:
            self.add_txn_markers_to_broker_queue(marker.producer_id, marker.producer_epoch, marker.committed,
                                                 pending,
                                                 partitions, wake=False)
        for entry in unknown:
            marker = entry.txn_marker_entry
            self.add_txn_markers_to_broker_queue(marker.producer_id, marker.producer_epoch, marker.committed,
                                                 entry.pending_complete_txn, marker.partitions, wake=False)
        with self._lock:
            requests = [(queue.destination, queue.drain())
                        for queue in self.markers_queue_per_broker.values()]
        for destination, entries in requests:
            if entries:
                self._send(destination, entries)

    def _send(self, destination: MarkerDestination, entries: list[PendingCompleteTxnAndMarkerEntry]) -> None:
        markers = []
        for entry in entries:
            marker = entry.txn_marker_entry
            by_topic: dict[str, list[int]] = {}
            for tp in sorted(marker.partitions):
                by_topic.setdefault(tp.topic, []).append(tp.partition)
            markers.append(dict(producer_id=marker.producer_id, producer_epoch=marker.producer_epoch,
                                transaction_result=marker.committed,
                                coordinator_epoch=marker.coordinator_epoch,
                                transaction_version=marker.transaction_version,
                                topics=[dict(name=t, partition_indexes=ps) for t, ps in by_topic.items()]))
        log.debug("sending transaction markers", destination=destination.node_id, markers=len(markers))
        try:
            self.send_request(destination, dict(markers=markers),
                              lambda response, error: self.on_complete(destination, entries, response, error))
        except Exception as e:  # the channel is closed (shutting down): as if disconnected
            self.on_complete(destination, entries, None, Errors.NETWORK_EXCEPTION, str(e))

    # ------------------------------------------------------------------ the answer (completion handler)
    def on_complete(self, destination: MarkerDestination, entries: list[PendingCompleteTxnAndMarkerEntry],
                    response, error: Errors, reason: str | None = None) -> None:
        if response is None:
            log.info("transaction markers not delivered; retrying", destination=destination.node_id,
                     error=error.name if error is not None else None, reason=reason)
            for entry in entries:
                if self._still_ours(entry):
                    self._retry_later(entry.pending_complete_txn, entry.txn_marker_entry,
                                      entry.txn_marker_entry.partitions)
            return
        errors_by_producer: dict[int, dict[TopicPartition, Errors]] = {}
        for marker in response.markers:
            errors = errors_by_producer.setdefault(marker.producer_id, {})
            for topic in marker.topics:
                for p in topic.partitions:
                    errors[TopicPartition(topic.name, p.partition_index)] = Errors.for_code(p.error_code)
        for entry in entries:
            self._on_marker_result(entry, errors_by_producer.get(entry.txn_marker_entry.producer_id, {}))

    def _still_ours(self, entry: PendingCompleteTxnAndMarkerEntry) -> bool:
        pending = entry.pending_complete_txn
        error, epoch_and_metadata = self.txn_state_manager.get_transaction_state(pending.transactional_id)
        if error != Errors.NONE or epoch_and_metadata is None or \
                epoch_and_metadata.coordinator_epoch != entry.txn_marker_entry.coordinator_epoch:
            log.info("no longer the coordinator of this transaction (or a newer epoch loaded it); "
                     "cancelling its markers", transactional_id=pending.transactional_id, error=error.name)
            self.remove_markers_for_txn(pending)
            return False
        return True

    def _on_marker_result(self, entry: PendingCompleteTxnAndMarkerEntry,
                          errors: dict[TopicPartition, Errors]) -> None:
        pending, marker = entry.pending_complete_txn, entry.txn_marker_entry
        if not self._still_ours(entry):
            return
        metadata = pending.txn_metadata
        retry: set[TopicPartition] = set()
        fenced = False
        with metadata.lock:
            for tp in marker.partitions:
                error = errors.get(tp, Errors.UNKNOWN_SERVER_ERROR)
                if error == Errors.NONE or error in SKIPPED_MARKER_ERRORS:
                    metadata.remove_partition(tp)
                elif error in RETRIABLE_MARKER_ERRORS:
                    log.info("transaction marker failed; retrying", transactional_id=pending.transactional_id,
                             topic_partition=str(tp), error=error.name)
                    retry.add(tp)
                elif error in FENCED_MARKER_ERRORS:
                    log.info("transaction marker fenced: a newer producer or coordinator owns this "
                             "transaction; cancelling its markers", transactional_id=pending.transactional_id,
                             topic_partition=str(tp), error=error.name)
                    fenced = True
                    break
                else:
                    log.error("unexpected error writing a transaction marker; retrying",
                              transactional_id=pending.transactional_id, topic_partition=str(tp),
                              error=error.name)
                    retry.add(tp)
        if fenced:  # outside the metadata's lock: our lock is always taken first
            self.remove_markers_for_txn(pending)
        elif retry:
            self._retry_later(pending, marker, frozenset(retry))
        else:
            self.maybe_write_txn_completion(pending.transactional_id)

    def _retry_later(self, pending: PendingCompleteTxn, marker: TxnMarkerEntry,
                     partitions: frozenset[TopicPartition]) -> None:
        """Queued again after the backoff, to whoever leads each partition by then."""
        with self._lock:
            self._delayed.append((self.time.milliseconds() + self.retry_backoff_ms, pending, marker,
                                  partitions))
        self._notify_retry_waiting()

    # ------------------------------------------------------------------ completing the transaction
    def maybe_write_txn_completion(self, transactional_id: str) -> None:
        with self._lock:
            pending = self.transactions_with_pending_markers.get(transactional_id)
        if pending is None:
            return
        # never under our lock: the completion handler takes them the other way
        with pending.txn_metadata.lock:
            if pending.txn_metadata.topic_partitions:
                return
        with self._lock:
            if self.transactions_with_pending_markers.get(transactional_id) is not pending:
                return  # another thread completed it first
            del self.transactions_with_pending_markers[transactional_id]
        self._write_txn_completion(pending)

    def _write_txn_completion(self, pending: PendingCompleteTxn) -> None:
        error, epoch_and_metadata = self.txn_state_manager.get_transaction_state(pending.transactional_id)
        if error != Errors.NONE:
            log.info("not completing the transaction: no longer its coordinator, or loading (which completes "
                     "it)",
                     transactional_id=pending.transactional_id, error=error.name)
            return
        if epoch_and_metadata is None or epoch_and_metadata.coordinator_epoch != pending.coordinator_epoch:
            log.info("the coordinator epoch changed after the markers; not completing",
                     transactional_id=pending.transactional_id)
            return
        self._try_append_to_log(pending)

    def _try_append_to_log(self, pending: PendingCompleteTxn) -> None:
        def append_callback(error: Errors) -> None:
            if error == Errors.NONE:
                log.debug("transaction completed", transactional_id=pending.transactional_id,
                          state=str(pending.new_metadata.txn_state))
            elif error == Errors.COORDINATOR_NOT_AVAILABLE:
                with self._lock:  # too few replicas, a timeout: the sender thread tries again
                    self.txn_log_append_retry_queue.append(pending)
                self._notify_retry_waiting()
            else:
                log.info("not completing the transaction", transactional_id=pending.transactional_id,
                         error=error.name)

        self.txn_state_manager.append_transaction_to_log(
            pending.transactional_id, pending.coordinator_epoch, pending.new_metadata, append_callback,
            retry_on_error=lambda e: e == Errors.COORDINATOR_NOT_AVAILABLE)

    def _retry_log_appends(self) -> None:
        with self._lock:
            retries, self.txn_log_append_retry_queue = self.txn_log_append_retry_queue, []
        for pending in retries:
            self._try_append_to_log(pending)

    # ------------------------------------------------------------------ resignation
    def remove_markers_for_txn_topic_partition(self, txn_topic_partition: int) -> None:
        with self._lock:
            queues = [self.markers_queue_for_unknown_broker, *self.markers_queue_per_broker.values()]
            removed = [e for q in queues
                       for e in q.remove_markers_for_txn_topic_partition(txn_topic_partition)]
            partition_for = self.txn_state_manager.partition_for
            self._delayed = [d for d in self._delayed
                             if partition_for(d[1].transactional_id) != txn_topic_partition]
            self.txn_log_append_retry_queue = [p for p in self.txn_log_append_retry_queue
                                               if partition_for(p.transactional_id) != txn_topic_partition]
            for transactional_id in [t for t in self.transactions_with_pending_markers
                                     if partition_for(t) == txn_topic_partition]:
                del self.transactions_with_pending_markers[transactional_id]
        for entry in removed:
            self.remove_markers_for_txn(entry.pending_complete_txn)

    def remove_markers_for_txn(self, pending: PendingCompleteTxn) -> None:
        with self._lock:
            if self.transactions_with_pending_markers.get(pending.transactional_id) is pending:
                del self.transactions_with_pending_markers[pending.transactional_id]
