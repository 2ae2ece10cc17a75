"""TopicPartitionBookkeeper: what an idempotent producer knows of its sequences on each partition
(Kafka's producer.internals.TransactionManager.TopicPartitionBookkeeper, later TxnPartitionMap).

Seed 004's retried produce is recognised by its sequence, so the producer keeps, per partition: the
producer id and epoch its sequences belong to, the next sequence to give a batch, the last one a
broker acknowledged (and at which offset), and the batches in flight sorted by sequence, so that a
retry goes again only once it is the first of its partition. The TransactionManager owns one.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.clients.producer.producer_batch import ProducerBatch
from kafka.clients.producer.producer_id_and_epoch import NONE, ProducerIdAndEpoch
from kafka.utils.topic_partition import TopicPartition

NO_LAST_ACKED_SEQUENCE_NUMBER = -1
INVALID_OFFSET = -1


def sequence_key(batch: ProducerBatch) -> int:
    return batch.base_sequence


class TopicPartitionEntry:
    """What the producer knows of its sequences on one partition."""

    __slots__ = ("producer_id_and_epoch", "next_sequence", "last_acked_sequence",
                 "in_flight_batches_by_sequence",
                 "last_acked_offset")

    def __init__(self) -> None:
        self.producer_id_and_epoch = NONE  # the id/epoch this partition's sequences belong to
        self.next_sequence = 0  # the base sequence of the next batch drained for it
        # The last sequence of the last acknowledged batch: with nothing in flight, next_sequence - 1.
        self.last_acked_sequence = NO_LAST_ACKED_SEQUENCE_NUMBER
        # Drained, not yet completed. Sorted by sequence, so a retry waits until it is the first again.
        self.in_flight_batches_by_sequence: list[ProducerBatch] = []
        # Tells UNKNOWN_PRODUCER_ID after retention deleted our batches from real data loss.
        self.last_acked_offset = INVALID_OFFSET

    def reset_sequence_numbers(self, reset_sequence: Callable[[ProducerBatch], None]) -> None:
        for batch in self.in_flight_batches_by_sequence:
            reset_sequence(batch)
        self.in_flight_batches_by_sequence.sort(key=sequence_key)


class TopicPartitionBookkeeper:
    def __init__(self) -> None:
        self.topic_partitions: dict[TopicPartition, TopicPartitionEntry] = {}

    def get_partition(self, tp: TopicPartition) -> TopicPartitionEntry:
        entry = self.topic_partitions.get(tp)
        if entry is None:
            raise RuntimeError(f"the sequence number of {tp} was never set")
        return entry

    def get_or_create_partition(self, tp: TopicPartition) -> TopicPartitionEntry:
        entry = self.topic_partitions.get(tp)
        if entry is None:
            entry = self.topic_partitions[tp] = TopicPartitionEntry()
        return entry

    def add_partition(self, tp: TopicPartition) -> None:
        self.topic_partitions.setdefault(tp, TopicPartitionEntry())

    def reset(self) -> None:
        self.topic_partitions.clear()

    def last_acked_offset(self, tp: TopicPartition) -> int | None:
        entry = self.topic_partitions.get(tp)
        if entry is None or entry.last_acked_offset == INVALID_OFFSET:
            return None
        return entry.last_acked_offset

    def last_acked_sequence(self, tp: TopicPartition) -> int | None:
        entry = self.topic_partitions.get(tp)
        if entry is not None and entry.last_acked_sequence != NO_LAST_ACKED_SEQUENCE_NUMBER:
            return entry.last_acked_sequence
        return None

    def start_sequences_at_beginning(self, tp: TopicPartition,
                                     new_producer_id_and_epoch: ProducerIdAndEpoch) -> None:
        """Number the partition's batches in flight again from 0 under a new id/epoch."""
        entry = self.get_partition(tp)
        sequence = 0

        def reset(batch: ProducerBatch) -> None:
            nonlocal sequence
            batch.reset_producer_state(new_producer_id_and_epoch, sequence, batch.is_transactional)
            sequence += batch.record_count

        entry.reset_sequence_numbers(reset)
        entry.producer_id_and_epoch = new_producer_id_and_epoch
        entry.next_sequence = sequence
        entry.last_acked_sequence = NO_LAST_ACKED_SEQUENCE_NUMBER
