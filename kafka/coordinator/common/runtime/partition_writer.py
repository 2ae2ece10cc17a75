"""PartitionWriter: how the runtime writes its partition and hears it commit (Kafka's PartitionWriter).

The runtime never sees a log: it appends whole batches through this interface and is told when the
partition's high watermark moves. CoordinatorPartitionWriter is the real one, over the ReplicaManager;
tests and the seeded simulation use in-memory ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from kafka.coordinator.common.runtime.coordinator_error import CoordinatorError
from kafka.coordinator.common.runtime.coordinator_shard import TransactionResult
from kafka.utils.topic_partition import TopicPartition

# Called with (partition, new high watermark), on whatever thread moved it: it must only hand the
# news on (the runtime enqueues an event), never wait or write.
Listener = Callable[[TopicPartition, int], None]


class CoordinatorWriteError(CoordinatorError):
    """An append the partition refused (NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR, MESSAGE_TOO_LARGE...):
    the write's future fails with it, and the shard goes back to its state before the write."""


class PartitionWriter(Protocol):
    def register_listener(self, tp: TopicPartition, listener: Listener) -> None: ...

    def deregister_listener(self, tp: TopicPartition, listener: Listener) -> None: ...

    def config(self, tp: TopicPartition) -> int:
        """The partition's max.message.bytes: a batch larger than this is refused before it is replayed."""

    def append(self, tp: TopicPartition, producer_id: int, producer_epoch: int, records: bytes) -> int:
        """Append one batch to the local log, as leader, without waiting for followers (Kafka's
        appendRecords with requiredAcks=1 and AppendOrigin.COORDINATOR). Returns the log end offset after
        it; raises CoordinatorWriteError if nothing was appended."""

    def append_end_transaction_marker(self, tp: TopicPartition, producer_id: int, producer_epoch: int,
                                      coordinator_epoch: int, result: TransactionResult) -> int:
        """Append a COMMIT or ABORT control batch for the producer; returns the log end offset after it."""
