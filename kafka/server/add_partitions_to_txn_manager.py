"""AddPartitionsToTxnManager: a transactional Produce's partitions checked against the transaction
before anything is appended (KIP-890 part 1; Kafka's
org.apache.kafka.server.transaction.AddPartitionsToTxnManager).

KafkaApis asks it for each Produce that carries transactional batches. A transactional batch needs
its transactional id (TRANSACTIONAL_ID_AUTHORIZATION_FAILED otherwise). Unless
transaction.partition.verification.enable is off, every partition where this producer has no
transaction open yet must have been added to it (AddPartitionsToTxn) first: otherwise a late
batch from a producer that already committed or aborted would open a transaction that no marker
ever closes, and hold back the last stable offset for good.

Kafka's manager sends an AddPartitionsToTxn in verify-only mode (v4) to whichever broker
coordinates the transactional id. Here only this broker's own TransactionCoordinator is asked:
when another broker coordinates the id, the batch is appended unverified, as before KIP-890.
"""

from __future__ import annotations

from kafka.coordinator.transaction.transaction_coordinator import TransactionCoordinator
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import HEADER_SIZE, RecordBatch
from kafka.server.replica_manager import ReplicaManager
from kafka.utils.topic_partition import TopicPartition

Refusals = dict[TopicPartition, tuple[Errors, str | None]]


class AddPartitionsToTxnManager:
    def __init__(self, config, transaction_coordinator: TransactionCoordinator,
                 replica_manager: ReplicaManager) -> None:
        self.config = config  # transaction.partition.verification.enable
        self.coordinator = transaction_coordinator
        self.replica_manager = replica_manager

    def refused_produce(self, transactional_id: str | None, entries: dict[TopicPartition, bytes]) -> Refusals:
        """The partitions of a Produce that may not be appended, with Kafka's error and message
        for each (ReplicaManager's verification before appendRecords); {} when all may."""
        first = {tp: RecordBatch(records) for tp, records in entries.items() if len(records) >= HEADER_SIZE}
        transactional = {tp: batch for tp, batch in first.items() if batch.is_transactional}
        if not transactional:
            return {}
        if transactional_id is None:
            return dict.fromkeys(entries, (Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, None))
        if not self.config.transaction_partition_verification_enable:
            return {}
        batch = next(iter(transactional.values()))
        unverified = {tp for tp, b in transactional.items()
                      if not self._has_ongoing_transaction(tp, b.producer_id)}
        if not unverified:
            return {}
        return self.verify_transaction(transactional_id, batch.producer_id, batch.producer_epoch, unverified)

    def _has_ongoing_transaction(self, tp: TopicPartition, producer_id: int) -> bool:
        """Kafka's Partition.hasOngoingTransaction: the log already holds this producer's open transaction."""
        partition = self.replica_manager.get_partition(tp)
        log = partition.log if partition is not None else None
        entry = log.producer_state_manager.last_entry(producer_id) if log is not None else None
        return entry is not None and entry.current_txn_first_offset is not None

    def verify_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                           partitions: set[TopicPartition]) -> Refusals:
        """Ask the coordinator whether `partitions` are in the producer's transaction; the refused ones
        with the error and message Kafka's ReplicaManager answers them with."""
        if self.coordinator.txn_manager is None or not self.coordinator.is_active.is_set():
            return {}
        verdicts = self.coordinator.handle_verify_partitions_in_transaction(
            transactional_id, producer_id, producer_epoch, partitions)
        refused = {}
        for tp, error in verdicts.items():
            if error in (Errors.NONE, Errors.NOT_COORDINATOR):
                continue
            if error == Errors.INVALID_TXN_STATE:
                refused[tp] = (error, "Partition was not added to the transaction")
            elif error in (Errors.CONCURRENT_TRANSACTIONS, Errors.COORDINATOR_LOAD_IN_PROGRESS):
                # retriable, in a form older producers retry without refreshing their metadata
                refused[tp] = (Errors.NOT_ENOUGH_REPLICAS, "Unable to verify the partition has been added to "
                                                           f"the transaction. Underlying error: {error.name}")
            else:  # a fenced producer hears INVALID_PRODUCER_EPOCH from Produce, as from its log
                refused[tp] = (Errors.INVALID_PRODUCER_EPOCH if error == Errors.PRODUCER_FENCED else error,
                               None)
        return refused
