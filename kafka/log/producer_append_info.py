"""ProducerAppendInfo: one append's batches from one producer, checked against what the partition
remembers of it (Kafka's org.apache.kafka.storage.internals.log.ProducerAppendInfo, KIP-98).

Seed 004: a producer that did not hear the answer to a produce sends the batch again. The leader must
write each batch once and in the producer's order, so every batch of an idempotent producer carries
its epoch and the sequence of its first record, and the leader checks them before anything is
written (Kafka's checkProducerEpoch and checkSequence):

* an epoch older than the one the partition has seen: a zombie instance -> INVALID_PRODUCER_EPOCH;
* a newer epoch starts again at sequence 0 (unless the partition has seen no epoch of it at all);
* the same epoch continues at last sequence + 1 (after 2147483647 comes 0), else
  OUT_OF_ORDER_SEQUENCE_NUMBER: a batch was lost in between, or this retry is too old to answer;
* a producer the partition has no state for (new here, or its state expired) may start at any
  sequence (KIP-360): refusing it would leave it stuck.

The checks run against `updated_entry`, a copy holding only this append's batches: a request with
several batches of one producer is checked batch after batch, and nothing reaches the partition's
map until the whole request has passed and been written (ProducerStateManager.update).

Transactions (KIP-98's second half): a transactional data batch opens the producer's transaction in
this partition (its first offset, a TxnMetadata for the manager's ongoing ones) or continues it; a
marker (a control batch with an EndTransactionMarker, written by WriteTxnMarkers) closes it and
returns a CompletedTxn. A marker's producer epoch may not be older than the producer's
(INVALID_PRODUCER_EPOCH), nor its coordinator epoch older than the last marker's
(TRANSACTION_COORDINATOR_FENCED: a deposed transaction coordinator). A marker for a producer with no
transaction open here is written all the same (it may have written nothing to this partition), and
completes nothing.
"""

from __future__ import annotations

import structlog

from kafka.log.append_origin import AppendOrigin
from kafka.log.completed_txn import CompletedTxn
from kafka.log.errors import (
    InvalidProducerEpochError,
    InvalidTxnStateError,
    OutOfOrderSequenceError,
    TransactionCoordinatorFencedError,
)
from kafka.log.producer_state_entry import (
    INT32_MAX,
    NO_PRODUCER_EPOCH,
    NO_SEQUENCE,
    ProducerStateEntry,
    last_sequence,
)
from kafka.log.txn_metadata import TxnMetadata
from kafka.protocol.control_records import ABORT, COMMIT, read_end_txn_marker
from kafka.protocol.record_batch import RecordBatch

log = structlog.get_logger("kafka.log.ProducerAppendInfo")


class ProducerAppendInfo:
    def __init__(self, topic_partition: str, producer_id: int, current_entry: ProducerStateEntry,
                 origin: AppendOrigin) -> None:
        self.topic_partition = topic_partition
        self.producer_id = producer_id
        self.current_entry = current_entry  # the partition's entry, left untouched here
        self.origin = origin
        self.updated_entry = current_entry.with_producer_id_and_batch_metadata(producer_id, None)
        # transactions this append began (Kafka's startedTransactions)
        self.transactions: list[TxnMetadata] = []

    def append(self, batch: RecordBatch, first_offset: int | None = None) -> CompletedTxn | None:
        """Check one batch (its offsets already assigned) and add it to the updated entry. A marker
        (the whole batch must be there: its record is read) returns the transaction it completed."""
        if batch.is_control_batch:
            if batch.records_count == 0:
                return None  # an empty control batch: the cleaner removed the whole transaction
            control_type, coordinator_epoch = read_end_txn_marker(batch)
            if control_type not in (ABORT, COMMIT):
                return None
            return self.append_end_txn_marker(control_type, coordinator_epoch, batch.producer_epoch,
                                              batch.base_offset, batch.max_timestamp)
        self.append_data_batch(batch.producer_epoch, batch.base_sequence, last_sequence(batch),
                               batch.max_timestamp,
                               batch.base_offset if first_offset is None else first_offset, batch.last_offset,
                               batch.is_transactional)
        return None

    def append_data_batch(self, epoch: int, first_seq: int, last_seq: int, last_timestamp: int,
                          first_offset: int, last_offset: int, is_transactional: bool = False) -> None:
        self.maybe_validate_data_batch(epoch, first_seq, first_offset)
        self.updated_entry.add_batch(epoch, last_seq, last_offset, last_offset - first_offset, last_timestamp)
        current_txn_first_offset = self.updated_entry.current_txn_first_offset
        if current_txn_first_offset is not None and not is_transactional:
            message = (f"Expected transactional write from producer {self.producer_id} at offset "
                       f"{first_offset} in partition {self.topic_partition}")
            if self.origin != AppendOrigin.REPLICATION:
                raise InvalidTxnStateError(message)
            log.warning(message)
        elif current_txn_first_offset is None and is_transactional:
            # The producer's first write in a new transaction here: it holds the LSO back from now on.
            self.updated_entry.current_txn_first_offset = first_offset
            self.transactions.append(TxnMetadata(self.producer_id, first_offset))

    def append_end_txn_marker(self, control_type: int, coordinator_epoch: int, producer_epoch: int,
                              offset: int, timestamp: int) -> CompletedTxn | None:
        """Close the producer's transaction (Kafka's appendEndTxnMarker). Only a transaction with data
        here is completed: a marker alone moves no LSO and needs no index entry."""
        self.check_producer_epoch(producer_epoch, offset)
        self.check_coordinator_epoch(coordinator_epoch, offset)
        entry = self.updated_entry
        completed = None
        if entry.current_txn_first_offset is not None:
            completed = CompletedTxn(self.producer_id, entry.current_txn_first_offset, offset,
                                     control_type == ABORT)
        entry.maybe_update_producer_epoch(producer_epoch)
        entry.current_txn_first_offset = None
        entry.coordinator_epoch = coordinator_epoch
        entry.last_timestamp = timestamp
        return completed

    def check_coordinator_epoch(self, coordinator_epoch: int, offset: int) -> None:
        current = self.updated_entry.coordinator_epoch
        if current <= coordinator_epoch:
            return
        message = (f"Invalid coordinator epoch for producerId {self.producer_id} at offset {offset} in "
                   f"partition {self.topic_partition}: {coordinator_epoch} (zombie), {current} (current)")
        if self.origin == AppendOrigin.REPLICATION:
            log.info(message)  # the leader wrote it: a follower keeps what its leader has
        else:
            raise TransactionCoordinatorFencedError(message)

    def maybe_validate_data_batch(self, epoch: int, first_seq: int, offset: int) -> None:
        self.check_producer_epoch(epoch, offset)
        if self.origin == AppendOrigin.CLIENT:
            self.check_sequence(epoch, first_seq, offset)

    def check_producer_epoch(self, producer_epoch: int, offset: int) -> None:
        current = self.updated_entry.producer_epoch
        if producer_epoch >= current:
            return
        message = (f"Epoch of producer {self.producer_id} at offset {offset} in {self.topic_partition} is "
                   f"{producer_epoch}, which is smaller than the last seen epoch {current}")
        if self.origin == AppendOrigin.REPLICATION:
            log.warning(message)  # the leader accepted it: a follower keeps what its leader has
        else:
            raise InvalidProducerEpochError(message)

    def check_sequence(self, producer_epoch: int, append_first_seq: int, offset: int) -> None:
        if producer_epoch != self.updated_entry.producer_epoch:
            # A new epoch (a producer that bumped it after an error, KIP-360) starts over at 0.
            if append_first_seq != 0 and self.updated_entry.producer_epoch != NO_PRODUCER_EPOCH:
                raise OutOfOrderSequenceError(
                    f"Invalid sequence number for new epoch of producer {self.producer_id} "
                    f"at offset {offset} in partition {self.topic_partition}: "
                    f"{producer_epoch} (request epoch), {append_first_seq} (seq. number), "
                    f"{self.updated_entry.producer_epoch} (current producer epoch)")
            return
        # Same epoch: continue from this append's previous batch, or else from the partition's last one.
        if not self.updated_entry.is_empty:
            current_last_seq = self.updated_entry.last_seq
        elif producer_epoch == self.current_entry.producer_epoch:
            current_last_seq = self.current_entry.last_seq
        else:
            current_last_seq = NO_SEQUENCE
        # No epoch known (a new producer here, or one whose state expired): any sequence may start it.
        epoch_known = self.current_entry.producer_epoch != NO_PRODUCER_EPOCH
        if epoch_known and not in_sequence(current_last_seq, append_first_seq):
            raise OutOfOrderSequenceError(
                f"Out of order sequence number for producer {self.producer_id} at offset "
                f"{offset} in partition {self.topic_partition}: {append_first_seq} "
                f"(incoming seq. number), {current_last_seq} (current end sequence number)")

    def to_entry(self) -> ProducerStateEntry:
        return self.updated_entry

    def __repr__(self) -> str:
        entry = self.updated_entry
        return (f"ProducerAppendInfo(producer_id={self.producer_id}, producer_epoch={entry.producer_epoch}, "
                f"first_sequence={entry.first_seq}, last_sequence={entry.last_seq})")


def in_sequence(last_seq: int, next_seq: int) -> bool:
    """Does `next_seq` follow `last_seq`? After INT32_MAX comes 0."""
    return next_seq == last_seq + 1 or (next_seq == 0 and last_seq == INT32_MAX)
