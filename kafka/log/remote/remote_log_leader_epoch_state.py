"""RemoteLogLeaderEpochState: a partition's remote segments holding records of one leader epoch (Kafka's
org.apache.kafka.server.log.remote.metadata.storage.RemoteLogLeaderEpochState), part of the
RemoteLogMetadataCache.

Segments whose copy finished are indexed by the offset the epoch starts at in them, so a reader finds the
segment holding an offset with a floor lookup. Segments still being copied, being deleted, or replaced by a
newer leader's copy of the same records are "unreferenced": listed (so the expiration task can delete
them) but never read.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping

from kafka.log.remote.remote_log_segment_metadata import RemoteLogSegmentId, RemoteLogSegmentMetadata
from kafka.log.remote.remote_storage_manager import RemoteResourceNotFoundException


class RemoteLogLeaderEpochState:
    """Not thread-safe on its own: RemoteLogMetadataCache holds its lock around every call."""

    def __init__(self) -> None:
        self._offsets: list[int] = []  # sorted keys of _offset_to_id (Kafka's NavigableMap)
        self._offset_to_id: dict[int, RemoteLogSegmentId] = {}
        self._unreferenced_segment_ids: set[RemoteLogSegmentId] = set()
        self.highest_log_offset: int | None = None  # of the COPY_SEGMENT_FINISHED segments, in this epoch

    def list_all_remote_log_segments(self, id_to_segment_metadata: Mapping[RemoteLogSegmentId,
                                                                            RemoteLogSegmentMetadata]
                                     ) -> list[RemoteLogSegmentMetadata]:
        """Referenced and unreferenced segments of this epoch, by start offset."""
        ids = [self._offset_to_id[offset] for offset in self._offsets] + list(self._unreferenced_segment_ids)
        result = []
        for segment_id in ids:
            metadata = id_to_segment_metadata.get(segment_id)
            if metadata is None:
                raise RemoteResourceNotFoundException(
                    f"No remote log segment metadata found for :{segment_id}")
            result.append(metadata)
        if self._unreferenced_segment_ids:
            result.sort(key=lambda m: m.start_offset)
        return result

    def handle_segment_with_copy_segment_started_state(self, segment_id: RemoteLogSegmentId) -> None:
        self._unreferenced_segment_ids.add(segment_id)

    def handle_segment_with_copy_segment_finished_state(self, start_offset: int,
                                                        segment_id: RemoteLogSegmentId,
                                                        leader_epoch_end_offset: int) -> None:
        # A new leader that was behind on copying may copy again records a previous leader copied, as one
        # larger segment: the older copies at or after this start offset are superseded, and unreferenced.
        while (self._offsets and self._offsets[-1] >= start_offset and self.highest_log_offset is not None
               and self.highest_log_offset <= leader_epoch_end_offset):
            superseded = self._offsets.pop()
            self._unreferenced_segment_ids.add(self._offset_to_id.pop(superseded))
        self._put(start_offset, segment_id)
        self._unreferenced_segment_ids.discard(segment_id)
        if self.highest_log_offset is None or leader_epoch_end_offset > self.highest_log_offset:
            self.highest_log_offset = leader_epoch_end_offset

    def handle_segment_with_delete_segment_started_state(self, start_offset: int,
                                                         segment_id: RemoteLogSegmentId) -> None:
        if self._offset_to_id.get(start_offset) == segment_id:
            del self._offset_to_id[start_offset]
            self._offsets.pop(bisect.bisect_left(self._offsets, start_offset))
        # Listed still, so that a deletion interrupted half-way is retried.
        self._unreferenced_segment_ids.add(segment_id)

    def handle_segment_with_delete_segment_finished_state(self, segment_id: RemoteLogSegmentId) -> None:
        self._unreferenced_segment_ids.discard(segment_id)

    def floor_entry(self, offset: int) -> RemoteLogSegmentId | None:
        """The referenced segment with the greatest start offset at or below offset."""
        i = bisect.bisect_right(self._offsets, offset)
        return self._offset_to_id[self._offsets[i - 1]] if i else None

    def unreferenced_segment_ids(self) -> frozenset[RemoteLogSegmentId]:
        return frozenset(self._unreferenced_segment_ids)

    def referenced_segment_ids(self) -> list[RemoteLogSegmentId]:
        return [self._offset_to_id[offset] for offset in self._offsets]

    def _put(self, start_offset: int, segment_id: RemoteLogSegmentId) -> None:
        if start_offset not in self._offset_to_id:
            bisect.insort(self._offsets, start_offset)
        self._offset_to_id[start_offset] = segment_id
