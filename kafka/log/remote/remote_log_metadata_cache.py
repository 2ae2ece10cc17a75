"""RemoteLogMetadataCache: what one partition has in remote storage, indexed by leader epoch and offset
(Kafka's org.apache.kafka.server.log.remote.metadata.storage.RemoteLogMetadataCache).

The TopicBasedRemoteLogMetadataManager replays `__remote_log_metadata` into one cache per partition; the
copier asks it for the highest offset copied in an epoch, readers for the segment holding an offset, the
expiration task for every segment. A segment enters as COPY_SEGMENT_STARTED (listed, not readable), is
indexed by each of its leader epochs when its copy finishes, and leaves when its deletion finishes.

Events replayed from the topic may repeat (a restart reads the topic again after a snapshot): an event
whose state transition RemoteLogSegmentState forbids is logged and dropped, as Kafka does, so the cache
only ever moves forward.
"""

from __future__ import annotations

import threading

import structlog

from kafka.log.remote.remote_log_leader_epoch_state import RemoteLogLeaderEpochState
from kafka.log.remote.remote_log_segment_metadata import (
    RemoteLogSegmentId,
    RemoteLogSegmentMetadata,
    RemoteLogSegmentMetadataUpdate,
    RemoteLogSegmentState,
)
from kafka.log.remote.remote_storage_manager import RemoteResourceNotFoundException

log = structlog.get_logger(__name__)

S = RemoteLogSegmentState


def is_valid_transition(source: RemoteLogSegmentState | None, target: RemoteLogSegmentState) -> bool:
    """Kafka's RemoteLogSegmentState.isValidTransition, where None is a segment not seen yet."""
    return target is S.COPY_SEGMENT_STARTED if source is None else source.is_valid_transition(target)


class RemoteLogMetadataCache:
    """One partition's remote segments. Thread-safe: one thread applies events, many read."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # Every segment not yet DELETE_SEGMENT_FINISHED, by id.
        self._id_to_segment_metadata: dict[RemoteLogSegmentId, RemoteLogSegmentMetadata] = {}
        self._leader_epoch_entries: dict[int, RemoteLogLeaderEpochState] = {}
        self._initialized = threading.Event()

    # --- readiness: the partition's metadata has been read up to the end of its topic partition

    def mark_initialized(self) -> None:
        self._initialized.set()

    def is_initialized(self) -> bool:
        return self._initialized.is_set()

    def await_initialized(self, timeout_s: float) -> bool:
        return self._initialized.wait(timeout_s)

    # --- reads

    def remote_log_segment_metadata(self, leader_epoch: int, offset: int) -> RemoteLogSegmentMetadata | None:
        """The COPY_SEGMENT_FINISHED segment holding offset among the records written in leader_epoch."""
        with self._lock:
            metadata = self._segment_metadata(leader_epoch, offset)
        if metadata is None:
            return None
        return None if offset > _epoch_end_offset(leader_epoch, metadata) else metadata

    def next_segment_with_txn_index(self, leader_epoch: int, offset: int) -> RemoteLogSegmentMetadata | None:
        """From the segment holding offset on, the first whose transaction index is not empty."""
        metadata = self.remote_log_segment_metadata(leader_epoch, offset)
        while metadata is not None and metadata.txn_index_empty:
            metadata = self.remote_log_segment_metadata(leader_epoch, metadata.end_offset + 1)
        return metadata

    def highest_offset_for_epoch(self, leader_epoch: int) -> int | None:
        """The highest offset of leader_epoch among the segments whose copy finished, or None."""
        with self._lock:
            state = self._leader_epoch_entries.get(leader_epoch)
            return state.highest_log_offset if state is not None else None

    def list_all_remote_log_segments(self) -> list[RemoteLogSegmentMetadata]:
        """Every segment not yet deleted, in every state, by start offset."""
        with self._lock:
            return sorted(self._id_to_segment_metadata.values(), key=lambda m: m.start_offset)

    def list_remote_log_segments(self, leader_epoch: int) -> list[RemoteLogSegmentMetadata]:
        """The segments holding records of leader_epoch, referenced or not, by start offset."""
        with self._lock:
            state = self._leader_epoch_entries.get(leader_epoch)
            return state.list_all_remote_log_segments(self._id_to_segment_metadata) if state else []

    def segment_state(self, segment_id: RemoteLogSegmentId) -> RemoteLogSegmentState | None:
        """Where this segment is in its life, or None if unknown here (never added, or deleted)."""
        with self._lock:
            metadata = self._id_to_segment_metadata.get(segment_id)
            return metadata.state if metadata is not None else None

    # --- events

    def add_copy_in_progress_segment(self, metadata: RemoteLogSegmentMetadata) -> None:
        """A segment whose copy starts: listed, not readable until its copy finishes."""
        if metadata.state is not S.COPY_SEGMENT_STARTED:
            raise ValueError(f"Given remoteLogSegmentMetadata:{metadata} should have state as "
                             f"COPY_SEGMENT_STARTED but it contains state as: {metadata.state.name}")
        segment_id = metadata.remote_log_segment_id
        with self._lock:
            existing = self._id_to_segment_metadata.get(segment_id)
            source = existing.state if existing is not None else None
            if not self._check_state_transition(source, metadata.state, segment_id):
                return
            for epoch in metadata.segment_leader_epochs:
                self._epoch_state(epoch).handle_segment_with_copy_segment_started_state(segment_id)
            self._id_to_segment_metadata[segment_id] = metadata

    def update_remote_log_segment_metadata(self, update: RemoteLogSegmentMetadataUpdate) -> None:
        segment_id = update.remote_log_segment_id
        with self._lock:
            existing = self._id_to_segment_metadata.get(segment_id)
            if existing is None:
                if not self.is_initialized():
                    # Replaying the topic from a snapshot that no longer holds the segment: nothing to update.
                    log.debug("dropping an update of a segment already removed", update=str(update))
                    return
                raise RemoteResourceNotFoundException(
                    f"No remote log segment metadata found for :{segment_id}")
            if not self._check_state_transition(existing.state, update.state, segment_id):
                return
            metadata = existing.create_with_update(update)
            if update.state is S.COPY_SEGMENT_FINISHED:
                for epoch, start in metadata.segment_leader_epochs.items():
                    self._epoch_state(epoch).handle_segment_with_copy_segment_finished_state(
                        start, segment_id, _epoch_end_offset(epoch, metadata))
                self._id_to_segment_metadata[segment_id] = metadata
            elif update.state is S.DELETE_SEGMENT_STARTED:
                for epoch, start in metadata.segment_leader_epochs.items():
                    state = self._epoch_state(epoch)
                    state.handle_segment_with_delete_segment_started_state(start, segment_id)
                self._id_to_segment_metadata[segment_id] = metadata
            else:  # DELETE_SEGMENT_FINISHED: the segment is gone, and so is every trace of it here
                for epoch in metadata.segment_leader_epochs:
                    self._epoch_state(epoch).handle_segment_with_delete_segment_finished_state(segment_id)
                del self._id_to_segment_metadata[segment_id]

    # --- helpers (called with the lock held)

    def _segment_metadata(self, leader_epoch: int, offset: int) -> RemoteLogSegmentMetadata | None:
        state = self._leader_epoch_entries.get(leader_epoch)
        segment_id = state.floor_entry(offset) if state is not None else None
        return self._id_to_segment_metadata.get(segment_id) if segment_id is not None else None

    def _epoch_state(self, leader_epoch: int) -> RemoteLogLeaderEpochState:
        return self._leader_epoch_entries.setdefault(leader_epoch, RemoteLogLeaderEpochState())

    @staticmethod
    def _check_state_transition(source: RemoteLogSegmentState | None, target: RemoteLogSegmentState,
                                segment_id: RemoteLogSegmentId) -> bool:
        if is_valid_transition(source, target):
            return True
        log.error("dropping an event: invalid remote segment state transition",
                  current=source.name if source else None, target=target.name, segment=str(segment_id))
        return False


def _epoch_end_offset(leader_epoch: int, metadata: RemoteLogSegmentMetadata) -> int:
    """The last offset of leader_epoch in the segment: the next epoch's start - 1, or the segment's end."""
    later = [start for epoch, start in metadata.segment_leader_epochs.items() if epoch > leader_epoch]
    return min(later) - 1 if later else metadata.end_offset
