"""RemoteLogMetadataManager: what is in remote storage, partition by partition (Kafka's
org.apache.kafka.server.log.remote.storage.RemoteLogMetadataManager, KIP-405).

The copier adds a segment's metadata before it copies and updates it after; the expiration task marks
deletions; readers ask which segment holds an offset in a leader epoch. Kafka's implementation, the
TopicBasedRemoteLogMetadataManager, keeps these events in the `__remote_log_metadata` topic so that a new
leader or a restarted broker learns what is remote by reading it back.

Writes return a Future that is done when the event is durable and visible to readers here; the copier and
expiration threads wait on it, which is why they are their own threads.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Iterator
from concurrent.futures import Future

from kafka.log.remote.remote_log_segment_metadata import (
    RemoteLogSegmentMetadata,
    RemoteLogSegmentMetadataUpdate,
    RemotePartitionDeleteMetadata,
)
from kafka.utils.topic_id_partition import TopicIdPartition


class RemoteLogMetadataManager(abc.ABC):

    def configure(self, configs: dict[str, str]) -> None:  # noqa: B027  (optional, as in Kafka's Configurable)
        """Take the `remote.log.metadata.manager.impl.prefix` configs (the prefix removed)."""

    @abc.abstractmethod
    def add_remote_log_segment_metadata(self, metadata: RemoteLogSegmentMetadata) -> Future[None]:
        """Record a segment whose copy starts (its state COPY_SEGMENT_STARTED)."""

    @abc.abstractmethod
    def update_remote_log_segment_metadata(self, update: RemoteLogSegmentMetadataUpdate) -> Future[None]:
        """Move a segment to a later state (ValueError on a transition RemoteLogSegmentState forbids)."""

    @abc.abstractmethod
    def remote_log_segment_metadata(self, topic_id_partition: TopicIdPartition, epoch_for_offset: int,
                                    offset: int) -> RemoteLogSegmentMetadata | None:
        """The COPY_SEGMENT_FINISHED segment holding offset among those written in that leader epoch."""

    @abc.abstractmethod
    def highest_offset_for_epoch(self, topic_id_partition: TopicIdPartition, leader_epoch: int) -> int | None:
        """The highest offset of that leader epoch in remote storage, or None if it has none there."""

    @abc.abstractmethod
    def put_remote_partition_delete_metadata(self, metadata: RemotePartitionDeleteMetadata) -> Future[None]:
        """Record a partition's remote data being deleted (its topic was deleted)."""

    @abc.abstractmethod
    def list_remote_log_segments(self, topic_id_partition: TopicIdPartition,
                                 leader_epoch: int | None = None) -> Iterator[RemoteLogSegmentMetadata]:
        """The partition's remote segments in every state, by start offset; with leader_epoch, only those
        holding records of that epoch."""

    @abc.abstractmethod
    def on_partition_leadership_changes(self, leader_partitions: Iterable[TopicIdPartition],
                                        follower_partitions: Iterable[TopicIdPartition]) -> None:
        """Start following the metadata of these partitions (this broker now leads or follows them)."""

    @abc.abstractmethod
    def on_stop_partitions(self, partitions: Iterable[TopicIdPartition]) -> None:
        """Stop following these partitions' metadata (no longer a replica here)."""

    @abc.abstractmethod
    def remote_log_size(self, topic_id_partition: TopicIdPartition, leader_epoch: int) -> int:
        """Bytes of the partition's COPY_SEGMENT_FINISHED segments holding records of leader_epoch."""

    @abc.abstractmethod
    def is_ready(self, topic_id_partition: TopicIdPartition) -> bool:
        """Whether the partition's metadata has been read up to date (copying waits until it is)."""

    def close(self) -> None:  # noqa: B027
        """Stop threads and release resources."""
