"""InmemoryRemoteLogMetadataManager: a RemoteLogMetadataManager whose events go straight into this
process's RemotePartitionMetadataStore (Kafka 3's test-jar InmemoryRemoteLogMetadataManager).

What the TopicBasedRemoteLogMetadataManager does after an event has gone round `__remote_log_metadata`,
this one does at once: every write is durable as soon as it returns (its future is done), and nothing
outlives the process. It is for one broker trying tiered storage out
(`remote.log.metadata.manager.class.name=...InmemoryRemoteLogMetadataManager`, or its Kafka name) and for
the RemoteLogManager's unit tests; a restarted broker or another broker knows nothing of what it held.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import Future

from kafka.log.remote.remote_log_metadata_manager import RemoteLogMetadataManager
from kafka.log.remote.remote_log_segment_metadata import (
    RemoteLogSegmentMetadata,
    RemoteLogSegmentMetadataUpdate,
    RemoteLogSegmentState,
    RemotePartitionDeleteMetadata,
)
from kafka.log.remote.remote_partition_metadata_store import RemoteLogMetadata, RemotePartitionMetadataStore
from kafka.utils.topic_id_partition import TopicIdPartition


class InmemoryRemoteLogMetadataManager(RemoteLogMetadataManager):
    def __init__(self) -> None:
        self.store = RemotePartitionMetadataStore()
        self._lock = threading.Lock()  # events are applied one at a time, as one consumer thread would

    def add_remote_log_segment_metadata(self, metadata: RemoteLogSegmentMetadata) -> Future[None]:
        if metadata.state is not RemoteLogSegmentState.COPY_SEGMENT_STARTED:
            raise ValueError(f"Given remoteLogSegmentMetadata should have state as COPY_SEGMENT_STARTED but "
                             f"it contains state as: {metadata.state.name}")
        return self._apply(metadata)

    def update_remote_log_segment_metadata(self, update: RemoteLogSegmentMetadataUpdate) -> Future[None]:
        check_transition(self.store, update)
        return self._apply(update)

    def put_remote_partition_delete_metadata(self, metadata: RemotePartitionDeleteMetadata) -> Future[None]:
        return self._apply(metadata)

    def _apply(self, metadata: RemoteLogMetadata) -> Future[None]:
        with self._lock:
            self.store.maybe_load_partition(metadata_partition(metadata))
            self.store.handle_remote_log_metadata(metadata)
        done: Future[None] = Future()
        done.set_result(None)
        return done

    def remote_log_segment_metadata(self, topic_id_partition: TopicIdPartition, epoch_for_offset: int,
                                    offset: int) -> RemoteLogSegmentMetadata | None:
        return self.store.remote_log_segment_metadata(topic_id_partition, offset, epoch_for_offset)

    def next_segment_with_txn_index(self, topic_id_partition: TopicIdPartition, epoch: int,
                                    offset: int) -> RemoteLogSegmentMetadata | None:
        return self.store.next_segment_with_txn_index(topic_id_partition, epoch, offset)

    def highest_offset_for_epoch(self, topic_id_partition: TopicIdPartition, leader_epoch: int) -> int | None:
        return self.store.highest_log_offset(topic_id_partition, leader_epoch)

    def list_remote_log_segments(self, topic_id_partition: TopicIdPartition,
                                 leader_epoch: int | None = None) -> Iterator[RemoteLogSegmentMetadata]:
        return iter(self.store.list_remote_log_segments(topic_id_partition, leader_epoch))

    def on_partition_leadership_changes(self, leader_partitions: Iterable[TopicIdPartition],
                                        follower_partitions: Iterable[TopicIdPartition]) -> None:
        for partition in [*leader_partitions, *follower_partitions]:
            self.store.maybe_load_partition(partition)
            self.store.mark_initialized(partition)  # nothing to read back: it is up to date at once

    def on_stop_partitions(self, partitions: Iterable[TopicIdPartition]) -> None:
        pass  # the metadata is all there is: it stays, as it would in the topic

    def remote_log_size(self, topic_id_partition: TopicIdPartition, leader_epoch: int) -> int:
        return sum(m.segment_size_in_bytes for m in self.store.list_remote_log_segments(topic_id_partition,
                                                                                          leader_epoch))

    def is_ready(self, topic_id_partition: TopicIdPartition) -> bool:
        return self.store.is_initialized(topic_id_partition)

    def close(self) -> None:
        """Nothing to release; the metadata stays with this object, which another RemoteLogManager of the
        process (a test's second broker, a restarted one) may share."""


def metadata_partition(metadata: RemoteLogMetadata) -> TopicIdPartition:
    """The user partition an event is about (Kafka's RemoteLogMetadata.topicIdPartition)."""
    if isinstance(metadata, RemoteLogSegmentMetadataUpdate):
        return metadata.remote_log_segment_id.topic_id_partition
    return metadata.topic_id_partition


def check_transition(store: RemotePartitionMetadataStore, update: RemoteLogSegmentMetadataUpdate) -> None:
    """The RemoteLogMetadataManager's contract: ValueError for a move the segment's state forbids (checked
    against what this broker has read; a segment it has not read yet is let through, as Kafka's is)."""
    partition = update.remote_log_segment_id.topic_id_partition
    if not store.is_initialized(partition):
        return
    state = store.remote_log_metadata_cache(partition).segment_state(update.remote_log_segment_id)
    if state is not None and not state.is_valid_transition(update.state):
        raise ValueError(f"remote segment {update.remote_log_segment_id} cannot move from {state.name} "
                         f"to {update.state.name}")
