"""PartitionMetadataProvider and ReplicaManagerPartitionMetadataProvider: what a share partition asks
about its topic partition (Kafka's org.apache.kafka.server.share.PartitionMetadataProvider and
kafka.server.share.ReplicaManagerPartitionMetadataProvider).

Where to start when no state was persisted (the earliest or latest offset, or the first at a time:
share.auto.offset.reset), how far a fetch could read now (DelayedShareFetch's min bytes), the leader
epoch the SharePartition is fenced by, and the partition listener that drops a SharePartition when
this broker stops leading its partition. Each call raises PartitionNotLeaderError when this broker
does not lead the partition.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from kafka.log.fetch_data_info import LogOffsetMetadata
from kafka.log.fetch_isolation import FetchIsolation
from kafka.protocol.errors import Errors
from kafka.utils.topic_id_partition import TopicIdPartition

EARLIEST_TIMESTAMP, LATEST_TIMESTAMP = -2, -1


class PartitionNotLeaderError(Exception):
    """Kafka's NotLeaderOrFollowerException (or UnknownTopicOrPartitionException) from the provider."""

    def __init__(self, error: Errors, message: str = "") -> None:
        super().__init__(message or error.name)
        self.error = error


class OffsetNotAvailableError(Exception):
    """Kafka's OffsetNotAvailableException: no offset at that timestamp."""


class PartitionMetadataProvider(ABC):
    @abstractmethod
    def offset_for_timestamp(self, tip: TopicIdPartition, timestamp: int, leader_epoch: int) -> int:
        """The first offset at or after timestamp (-2 earliest, -1 latest, read_uncommitted)."""

    def offset_for_earliest_timestamp(self, tip: TopicIdPartition, leader_epoch: int) -> int:
        return self.offset_for_timestamp(tip, EARLIEST_TIMESTAMP, leader_epoch)

    def offset_for_latest_timestamp(self, tip: TopicIdPartition, leader_epoch: int) -> int:
        return self.offset_for_timestamp(tip, LATEST_TIMESTAMP, leader_epoch)

    @abstractmethod
    def end_offset_metadata(self, tip: TopicIdPartition, isolation: FetchIsolation) -> LogOffsetMetadata:
        """Where a fetch of this isolation may read to: the high watermark or the last stable offset."""

    @abstractmethod
    def leader_epoch(self, tip: TopicIdPartition) -> int:
        """The epoch of this broker's leadership of the partition."""

    @abstractmethod
    def add_partition_listener(self, tip: TopicIdPartition, listener) -> bool:
        """Hear on_failed / on_deleted (leadership lost, partition gone). False if not hosted here."""

    @abstractmethod
    def remove_partition_listener(self, tip: TopicIdPartition, listener) -> None:
        pass


class ReplicaManagerPartitionMetadataProvider(PartitionMetadataProvider):
    def __init__(self, replica_manager) -> None:
        self.replica_manager = replica_manager

    def _partition(self, tip: TopicIdPartition):
        partition, error = self.replica_manager.get_partition_or_error(tip.topic_partition)
        if partition is None:
            raise PartitionNotLeaderError(error, f"not the leader of {tip}")
        return partition

    def offset_for_timestamp(self, tip: TopicIdPartition, timestamp: int, leader_epoch: int) -> int:
        partition = self._partition(tip)
        if leader_epoch >= 0 and partition.leader_epoch != leader_epoch:
            raise PartitionNotLeaderError(Errors.FENCED_LEADER_EPOCH,
                                          f"{tip} is at leader epoch {partition.leader_epoch}")
        _, offset = partition.fetch_offset_for_timestamp(timestamp, FetchIsolation.HIGH_WATERMARK)
        if offset < 0:
            raise OffsetNotAvailableError(f"Offset for timestamp {timestamp} not "
                                          f"found for topic partition: {tip}")
        return offset

    def end_offset_metadata(self, tip: TopicIdPartition, isolation: FetchIsolation) -> LogOffsetMetadata:
        log = self._partition(tip).log
        end = {FetchIsolation.LOG_END: log.log_end_offset, FetchIsolation.HIGH_WATERMARK: log.high_watermark,
               FetchIsolation.TXN_COMMITTED: log.last_stable_offset}[isolation]
        if end == log.log_end_offset:
            return log.log_end_offset_metadata
        return log.convert_to_offset_metadata(end)

    def leader_epoch(self, tip: TopicIdPartition) -> int:
        return self._partition(tip).leader_epoch

    def add_partition_listener(self, tip: TopicIdPartition, listener) -> bool:
        return self.replica_manager.maybe_add_listener(tip.topic_partition, listener)

    def remove_partition_listener(self, tip: TopicIdPartition, listener) -> None:
        self.replica_manager.remove_listener(tip.topic_partition, listener)
