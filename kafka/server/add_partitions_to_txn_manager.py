"""AddPartitionsToTxnManager: a transactional Produce's (or TxnOffsetCommit's) partitions checked against,
or added to, the transaction before anything is appended (KIP-890; Kafka's
org.apache.kafka.server.transaction.AddPartitionsToTxnManager).

KafkaApis asks it for each Produce that carries transactional batches, and the group coordinator for
each TxnOffsetCommit. A transactional batch needs its transactional id
(TRANSACTIONAL_ID_AUTHORIZATION_FAILED otherwise). Unless transaction.partition.verification.enable is
off, every partition where this producer has no transaction open yet goes to the transactional id's
coordinator first, in one of two ways the request's version decides (`TransactionSupportedOperation`):

    part 1, verify      Produce up to v11, TxnOffsetCommit up to v4: the producer sent AddPartitionsToTxn
                        itself; is the partition in its open transaction? A late batch from a producer
                        that already committed would otherwise open a transaction no marker closes
    part 2, add         Produce v12+, TxnOffsetCommit v5+ (a client at transaction.version 2): the
                        producer sends no AddPartitionsToTxn; the broker adds the partition, and the
                        coordinator writes it to __transaction_state before the batch is appended

Kafka sends an AddPartitionsToTxn v5 (a broker's batched request, `verify_only` per transaction) to the
broker that leads the id's __transaction_state partition, even when that is itself. Here a coordinator on
this broker is called directly; another broker's is sent the request on the inter-broker listener
(through the transaction marker sender's InterBrokerSendThread). Either way the answer comes back through
a callback: the request thread never waits for the coordinator.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum

import structlog

from kafka.coordinator.group.group_coordinator_records import GROUP_METADATA_TOPIC_NAME
from kafka.coordinator.transaction.transaction_coordinator import TransactionCoordinator
from kafka.coordinator.transaction.transaction_log import TRANSACTION_STATE_TOPIC_NAME
from kafka.coordinator.transaction.transaction_version import TV_2
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import HEADER_SIZE, RecordBatch
from kafka.server.replica_manager import ReplicaManager
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.server.transaction.AddPartitionsToTxnManager")

Refusals = dict[TopicPartition, tuple[Errors, str | None]]
AppendCallback = Callable[[dict[TopicPartition, Errors]], None]
# Errors a verification can meet that an older producer would not retry: told NOT_ENOUGH_REPLICAS instead
RETRIABLE = (Errors.CONCURRENT_TRANSACTIONS, Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.NETWORK_EXCEPTION,
             Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR)


class TransactionSupportedOperation(Enum):
    """What the request's version lets the broker do, and which errors its client understands."""
    DEFAULT_ERROR = (0, False)  # verify; TRANSACTION_ABORTABLE is told as INVALID_TXN_STATE
    GENERIC_ERROR_SUPPORTED = (1, False)  # verify; the client knows TRANSACTION_ABORTABLE (KIP-890 part 1)
    ADD_PARTITION = (2, True)  # add the partition to the transaction (KIP-890 part 2)

    def __init__(self, _ordinal: int, supports_epoch_bump: bool) -> None:
        self.supports_epoch_bump = supports_epoch_bump


def produce_request_version_to_transaction_supported_operation(version: int) -> TransactionSupportedOperation:
    if version > 11:
        return TransactionSupportedOperation.ADD_PARTITION
    if version > 10:
        return TransactionSupportedOperation.GENERIC_ERROR_SUPPORTED
    return TransactionSupportedOperation.DEFAULT_ERROR


def txn_offset_commit_request_version_to_transaction_supported_operation(
        version: int) -> TransactionSupportedOperation:
    if version > 4:
        return TransactionSupportedOperation.ADD_PARTITION
    if version > 3:
        return TransactionSupportedOperation.GENERIC_ERROR_SUPPORTED
    return TransactionSupportedOperation.DEFAULT_ERROR


def produce_refusal(error: Errors) -> tuple[Errors, str | None]:
    """The error and message ReplicaManager answers a Produce with when its verification failed."""
    if error == Errors.INVALID_TXN_STATE:
        return error, "Partition was not added to the transaction"
    if error in RETRIABLE:  # in a form older producers retry without refreshing their metadata
        return Errors.NOT_ENOUGH_REPLICAS, ("Unable to verify the partition has been added to the "
                                            f"transaction. Underlying error: {error.name}")
    return error, None


class AddPartitionsToTxnManager:
    def __init__(self, config, transaction_coordinator: TransactionCoordinator,
                 replica_manager: ReplicaManager, send_thread=None) -> None:
        self.config = config  # transaction.partition.verification.enable, the inter-broker listener
        self.coordinator = transaction_coordinator
        self.replica_manager = replica_manager
        self.send_thread = send_thread  # an InterBrokerSendThread, for a coordinator on another broker

    # ------------------------------------------------------------------ Produce
    def verify_produce(self, transactional_id: str | None, entries: dict[TopicPartition, bytes],
                       api_version: int, callback: Callable[[Refusals], None]) -> None:
        """The partitions of a Produce that may not be appended, with Kafka's error and message for
        each, handed to `callback` ({} when all may) -- at once, or when the coordinator has answered
        (ReplicaManager's appendRecords with transaction verification)."""
        first = {tp: RecordBatch(records) for tp, records in entries.items() if len(records) >= HEADER_SIZE}
        transactional = {tp: batch for tp, batch in first.items() if batch.is_transactional}
        if not transactional:
            callback({})
            return
        if transactional_id is None:
            callback(dict.fromkeys(entries, (Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, None)))
            return
        if not self.config.transaction_partition_verification_enable:
            callback({})
            return
        batch = next(iter(transactional.values()))
        unverified = {tp for tp, b in transactional.items()
                      if not self._has_ongoing_transaction(tp, b.producer_id, b.producer_epoch)}
        if not unverified:
            callback({})
            return
        operation = produce_request_version_to_transaction_supported_operation(api_version)
        started_ms = self.replica_manager.time.milliseconds()

        def ask() -> None:
            self.add_or_verify_transaction(transactional_id, batch.producer_id, batch.producer_epoch,
                                           unverified, on_verified, operation)

        def on_verified(errors: dict[TopicPartition, Errors]) -> None:
            if not self._retried_on_concurrent_transactions(errors, started_ms, ask):
                callback({tp: produce_refusal(e) for tp, e in errors.items() if e != Errors.NONE})
        ask()

    def _retried_on_concurrent_transactions(self, errors: dict[TopicPartition, Errors], started_ms: int,
                                            ask: Callable[[], None]) -> bool:
        """Kafka 4.4's ReplicaManager.maybeRetryOnConcurrentTransactions: CONCURRENT_TRANSACTIONS means the
        coordinator is busy with this transactional id (writing the previous transaction's markers, or
        adding another partition), not that the batch is wrong. Ask again add.partitions.to.txn.retry.
        backoff.ms later, for up to add.partitions.to.txn.retry.backoff.max.ms, before the producer is
        told NOT_ENOUGH_REPLICAS (a Kafka Streams thread's next transaction meets this at every commit).
        True if a retry was scheduled."""
        scheduler = self.replica_manager.scheduler
        waited_ms = self.replica_manager.time.milliseconds() - started_ms
        if (scheduler is None or waited_ms >= self.config.add_partitions_to_txn_retry_backoff_max_ms
                or Errors.CONCURRENT_TRANSACTIONS not in errors.values()):
            return False
        scheduler.schedule_once("retry-add-partitions-to-txn", ask,
                                self.config.add_partitions_to_txn_retry_backoff_ms)
        return True

    def _has_ongoing_transaction(self, tp: TopicPartition, producer_id: int, producer_epoch: int) -> bool:
        """Kafka's Partition.hasOngoingTransaction: the log already holds this producer's open transaction,
        at this epoch. At TV_2 the next transaction's epoch is the previous one's + 1: a batch of it that
        comes before the previous transaction's marker must go to the coordinator (which answers
        CONCURRENT_TRANSACTIONS until the markers are written), not join the transaction still open."""
        partition = self.replica_manager.get_partition(tp)
        log_ = partition.log if partition is not None else None
        entry = log_.producer_state_manager.last_entry(producer_id) if log_ is not None else None
        return (entry is not None and entry.current_txn_first_offset is not None
                and entry.producer_epoch == producer_epoch)

    # ------------------------------------------------------------------ TxnOffsetCommit
    def verify_offsets_partition(self, transactional_id: str, producer_id: int, producer_epoch: int,
                                 offsets_partition: int, api_version: int,
                                 callback: Callable[[Errors | None], None]) -> None:
        """The group coordinator's ``transaction_verifier`` for TxnOffsetCommit: None if the group's
        __consumer_offsets partition is (now) in the producer's transaction, else the error to answer."""
        tp = TopicPartition(GROUP_METADATA_TOPIC_NAME, offsets_partition)
        operation = txn_offset_commit_request_version_to_transaction_supported_operation(api_version)

        def on_verified(errors: dict[TopicPartition, Errors]) -> None:
            error = errors.get(tp, Errors.NONE)
            callback(None if error == Errors.NONE else error)
        self.add_or_verify_transaction(transactional_id, producer_id, producer_epoch, {tp}, on_verified,
                                       operation)

    # ------------------------------------------------------------------ to the coordinator
    def add_or_verify_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                                  partitions: set[TopicPartition], callback: AppendCallback,
                                  operation: TransactionSupportedOperation) -> None:
        """Kafka's addOrVerifyTransaction: ask the transactional id's coordinator; `callback` gets an
        error per partition (NONE: go ahead)."""
        def complete(errors: dict[TopicPartition, Errors]) -> None:
            callback({tp: self._client_error(errors.get(tp, Errors.NONE), operation) for tp in partitions})
        partition = self.coordinator.partition_for(transactional_id)
        if self._coordinates_here(partition):
            self._ask_local_coordinator(transactional_id, producer_id, producer_epoch, partitions, complete,
                                        operation)
            return
        if self.replica_manager.metadata_cache.get_topic(TRANSACTION_STATE_TOPIC_NAME) is None:
            # No transaction coordinator has ever run (an intended difference: Kafka answers
            # COORDINATOR_NOT_AVAILABLE): appended unverified, as before KIP-890, so hand-made
            # transactional batches need no coordinator (tests/integration/test_read_committed.py)
            callback(dict.fromkeys(partitions, Errors.NONE))
            return
        coordinator = self._transaction_coordinator_node(partition)
        if coordinator is None or self.send_thread is None:
            callback(dict.fromkeys(partitions, Errors.COORDINATOR_NOT_AVAILABLE))
        else:
            self._send_add_partitions_to_txn(coordinator, transactional_id, producer_id, producer_epoch,
                                             partitions, complete, operation)

    def _coordinates_here(self, partition: int) -> bool:
        """This broker's TransactionCoordinator holds (or is loading) the id's partition."""
        manager = self.coordinator.txn_manager
        if manager is None:
            return False
        return (partition in manager.transaction_metadata_cache
                or any(p == partition for p, _ in manager.loading_partitions))

    def _transaction_coordinator_node(self, partition: int):
        """The leader of __transaction_state-`partition` on the inter-broker listener, or None."""
        tp = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, partition)
        leader = self.replica_manager.metadata_cache.get_partition_leader_endpoint(
            tp, self.config.inter_broker_listener_name)
        return leader if leader is not None and leader.node_id >= 0 else None

    @staticmethod
    def _client_error(error: Errors, operation: TransactionSupportedOperation) -> Errors:
        """AddPartitionsToTxnHandler's translation: a fenced producer hears INVALID_PRODUCER_EPOCH, as from
        its log; a client that does not know TRANSACTION_ABORTABLE hears INVALID_TXN_STATE."""
        if error == Errors.PRODUCER_FENCED:
            return Errors.INVALID_PRODUCER_EPOCH
        if error == Errors.TRANSACTION_ABORTABLE and operation == TransactionSupportedOperation.DEFAULT_ERROR:
            return Errors.INVALID_TXN_STATE
        return error

    def _ask_local_coordinator(self, transactional_id: str, producer_id: int, producer_epoch: int,
                               partitions: set[TopicPartition], complete: AppendCallback,
                               operation: TransactionSupportedOperation) -> None:
        coordinator = self.coordinator
        if coordinator.txn_manager is None or not coordinator.is_active.is_set():
            complete(dict.fromkeys(partitions, Errors.COORDINATOR_NOT_AVAILABLE))
        elif operation.supports_epoch_bump:  # answered once the partitions are in __transaction_state
            coordinator.handle_add_partitions_to_transaction(
                transactional_id, producer_id, producer_epoch, partitions,
                lambda error: complete(dict.fromkeys(partitions, error)), TV_2)
        else:
            complete(coordinator.handle_verify_partitions_in_transaction(
                transactional_id, producer_id, producer_epoch, partitions))

    def _send_add_partitions_to_txn(self, coordinator, transactional_id: str, producer_id: int,
                                    producer_epoch: int, partitions: set[TopicPartition],
                                    complete: AppendCallback,
                                    operation: TransactionSupportedOperation) -> None:
        """AddPartitionsToTxn v5 from a broker: one transaction, verify-only unless the client is at TV_2."""
        by_topic: dict[str, list[int]] = {}
        for tp in sorted(partitions):
            by_topic.setdefault(tp.topic, []).append(tp.partition)
        body = dict(transactions=[dict(
            transactional_id=transactional_id, producer_id=producer_id, producer_epoch=producer_epoch,
            verify_only=not operation.supports_epoch_bump,
            topics=[dict(name=t, partitions=ps) for t, ps in by_topic.items()])])

        def on_response(response, error: Errors) -> None:
            if response is None:
                log.debug("AddPartitionsToTxn failed", coordinator=coordinator.node_id, error=error.name)
                complete(dict.fromkeys(partitions, error))
            elif response.error_code != Errors.NONE:
                # a broker not allowed to ask: the transaction is not valid
                top = Errors.for_code(response.error_code)
                complete(dict.fromkeys(partitions, Errors.INVALID_TXN_STATE
                                       if top == Errors.CLUSTER_AUTHORIZATION_FAILED else top))
            else:
                complete({TopicPartition(t.name, p.partition_index): Errors.for_code(p.partition_error_code)
                          for result in response.results_by_transaction for t in result.topic_results
                          for p in t.results_by_partition})
        self.send_thread.send(coordinator, ApiKey.ADD_PARTITIONS_TO_TXN, body, on_response)
