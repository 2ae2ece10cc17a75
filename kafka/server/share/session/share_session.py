"""ShareSession: the partitions one member of a share group fetches, between requests (Kafka's
org.apache.kafka.server.share.session.ShareSession, ShareSessionKey and CachedSharePartition).

Like a fetch session (KIP-227), it saves the client from naming every partition each time: the first
ShareFetch (epoch 0) names them all, later ones name only what to add or forget, each with the next
epoch, and the response leaves out partitions with nothing new. Unlike a fetch session there is one
per (group, member), not per connection id the broker hands out: the member id is the session's name.
"""

from __future__ import annotations

import threading
from typing import NamedTuple

from kafka.utils.topic_id_partition import TopicIdPartition

INITIAL_EPOCH, FINAL_EPOCH = 0, -1


def next_epoch(epoch: int) -> int:
    """Kafka's ShareRequestMetadata.nextEpoch: 1 after the opening request, wrapping past INT32 max to 1."""
    if epoch < 0:
        return FINAL_EPOCH
    return 1 if epoch == 0x7FFFFFFF else epoch + 1


class ShareSessionKey(NamedTuple):
    group_id: str
    member_id: str


class CachedSharePartition:
    """A partition of a session, and whether its next response must mention it even without records."""

    __slots__ = ("tip", "requires_update_in_response")

    def __init__(self, tip: TopicIdPartition, requires_update_in_response: bool) -> None:
        self.tip = tip
        self.requires_update_in_response = requires_update_in_response

    def maybe_update_response_data(self, partition_data: dict, update: bool) -> bool:
        """Must the response carry this partition? Records, an error, or news since the last response."""
        must_respond = bool(partition_data.get("records")) or bool(partition_data.get("acquired_records"))
        if self.requires_update_in_response:
            must_respond = True
            if update:
                self.requires_update_in_response = False
        if partition_data.get("error_code", 0) != 0:
            if update:
                self.requires_update_in_response = True  # tell it again until it is gone
            must_respond = True
        return must_respond


class ShareSession:
    def __init__(self, key: ShareSessionKey, partitions: list[TopicIdPartition], epoch: int,
                 connection_id: str) -> None:
        self.key = key
        self.partition_map: dict[TopicIdPartition, CachedSharePartition] = {
            tip: CachedSharePartition(tip, False) for tip in partitions}
        self.epoch = epoch
        self.connection_id = connection_id
        self.cached_size = -1
        self.lock = threading.Lock()

    def update(self, share_fetch_data: list[TopicIdPartition], to_forget: list[TopicIdPartition]
               ) -> tuple[list, list, list]:
        """Add the partitions named, drop those forgotten: (added, updated, removed)."""
        added, updated, removed = [], [], []
        with self.lock:
            for tip in share_fetch_data:
                if tip in self.partition_map:
                    updated.append(tip)
                else:
                    self.partition_map[tip] = CachedSharePartition(tip, True)
                    added.append(tip)
            for tip in to_forget:
                if self.partition_map.pop(tip, None) is not None:
                    removed.append(tip)
        return added, updated, removed

    def update_cached_size(self) -> int:
        """Remember the partition count; the change since the last call (what the cache's total moves by)."""
        previous, self.cached_size = self.cached_size, len(self.partition_map)
        return self.cached_size - previous if previous != -1 else self.cached_size

    def partitions(self) -> list[TopicIdPartition]:
        with self.lock:
            return list(self.partition_map)
