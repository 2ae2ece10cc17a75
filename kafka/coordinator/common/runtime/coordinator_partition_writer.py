"""CoordinatorPartitionWriter: the runtime's PartitionWriter over the ReplicaManager (Kafka's
kafka.coordinator.group.CoordinatorPartitionWriter and its ListenerAdapter).

An append is ReplicaManager.append_records_to_leader with requiredAcks=1: it returns once the batch is in
the local log, and the runtime waits for the high watermark through the listener it registers here, not
in the produce purgatory. AppendOrigin.COORDINATOR lets the batch carry a producer id without the
sequence checks a client's would get, and lets the transaction markers (control batches) through.
"""

from __future__ import annotations

from kafka.coordinator.common.runtime.coordinator_shard import TransactionResult
from kafka.coordinator.common.runtime.partition_writer import CoordinatorWriteError, Listener
from kafka.log.append_origin import AppendOrigin
from kafka.protocol.control_records import end_txn_marker_batch
from kafka.protocol.errors import Errors
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition


class ListenerAdapter:
    """The runtime's callable as a Partition's PartitionListener. Two adapters of one callable are equal,
    so deregistering with a new adapter removes the one registered."""

    def __init__(self, listener: Listener) -> None:
        self.listener = listener

    def on_high_watermark_updated(self, tp: TopicPartition, offset: int) -> None:
        self.listener(tp, offset)

    def on_failed(self, tp: TopicPartition) -> None:
        """Nothing to do: the metadata that moved the leadership also unloads the shard."""

    def on_deleted(self, tp: TopicPartition) -> None:
        """Nothing to do, as for on_failed."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ListenerAdapter) and other.listener == self.listener

    def __hash__(self) -> int:
        return hash(self.listener)


class CoordinatorPartitionWriter:
    def __init__(self, replica_manager) -> None:
        """`replica_manager`: its clock, maybe_add_listener, remove_listener, get_log_config and
        append_records_to_leader only (the coordinator never sees a Log)."""
        self.replica_manager = replica_manager
        self.time: Time = replica_manager.time  # the markers' timestamps

    def register_listener(self, tp: TopicPartition, listener: Listener) -> None:
        self.replica_manager.maybe_add_listener(tp, ListenerAdapter(listener))

    def deregister_listener(self, tp: TopicPartition, listener: Listener) -> None:
        self.replica_manager.remove_listener(tp, ListenerAdapter(listener))

    def config(self, tp: TopicPartition) -> int:
        """The partition's max.message.bytes (Kafka's config(tp) returns the whole LogConfig)."""
        log_config = self.replica_manager.get_log_config(tp)
        if log_config is None:
            raise CoordinatorWriteError(Errors.NOT_LEADER_OR_FOLLOWER, f"{tp} is not hosted here")
        return log_config.max_message_bytes

    def append(self, tp: TopicPartition, producer_id: int, producer_epoch: int, records: bytes) -> int:
        """The log end offset after the batch (its last offset + 1). producer_id and producer_epoch are in
        the batch's header already; they are named here as Kafka's VerificationGuard is."""
        results = self.replica_manager.append_records_to_leader(
            1, True, {tp: records}, origin=AppendOrigin.COORDINATOR)
        result = results.get(tp)
        if result is None:
            raise CoordinatorWriteError(Errors.UNKNOWN_SERVER_ERROR, f"no append result for {tp}")
        if result.error != Errors.NONE:
            raise CoordinatorWriteError(result.error, result.error_message or "")
        return result.required_offset

    def append_end_transaction_marker(self, tp: TopicPartition, producer_id: int, producer_epoch: int,
                                      coordinator_epoch: int, result: TransactionResult) -> int:
        marker = end_txn_marker_batch(producer_id, producer_epoch, result is TransactionResult.COMMIT,
                                      coordinator_epoch, self.time.milliseconds())
        return self.append(tp, producer_id, producer_epoch, marker)
