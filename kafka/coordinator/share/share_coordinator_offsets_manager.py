"""ShareCoordinatorOffsetsManager: how far back __share_group_state is still needed (Kafka's
org.apache.kafka.coordinator.share.ShareCoordinatorOffsetsManager).

__share_group_state is not compacted (cleanup.policy=delete, retention.ms=-1): it would grow for ever,
but a share partition's state is whole in its latest snapshot, so everything before the oldest of the
latest snapshots of all live share partitions is redundant. The shard tells this manager the offset of
each snapshot it replays (and of each tombstone, after which that key no longer holds anything back);
the service asks for the last redundant offset every share.coordinator.state.topic.prune.interval.ms
and deletes the records before it (DeleteRecords on the partition). Timeline state, so a snapshot
written by a failed append is forgotten with it.
"""

from __future__ import annotations

from kafka.coordinator.share.share_partition_key import SharePartitionKey
from kafka.timeline import SnapshotRegistry, TimelineHashMap, TimelineLong

_NONE = 2**63 - 1  # Long.MAX_VALUE: nothing redundant known yet


class ShareCoordinatorOffsetsManager:
    def __init__(self, snapshot_registry: SnapshotRegistry) -> None:
        self.offsets: TimelineHashMap[SharePartitionKey, int] = TimelineHashMap(snapshot_registry)
        self._last_redundant_offset = TimelineLong(snapshot_registry)
        self._last_redundant_offset.set(_NONE)

    def update_state(self, key: SharePartitionKey, offset: int, is_delete: bool) -> None:
        """A snapshot (or, is_delete, a tombstone) of `key` was replayed at `offset`."""
        self._last_redundant_offset.set(min(self._last_redundant_offset.get(), offset))
        self.offsets[key] = offset
        redundant = self.find_redundant_offset()
        if redundant is not None:
            self._last_redundant_offset.set(redundant)
        if is_delete:
            del self.offsets[key]

    def find_redundant_offset(self) -> int | None:
        """The oldest latest snapshot: no live key needs anything before it."""
        if not self.offsets:
            return None
        soonest = _NONE
        last = self._last_redundant_offset.get()
        for offset in self.offsets.values():
            soonest = min(soonest, offset)
            if soonest == last:  # cannot go lower than what is known already
                return soonest
        return soonest

    def last_redundant_offset(self) -> int | None:
        offset = self._last_redundant_offset.get()
        return None if offset <= 0 or offset == _NONE else offset
