"""Group: what every group type answers, whatever its protocol (Kafka's
org.apache.kafka.coordinator.group.Group, with its GroupType).

The GroupMetadataManager keeps classic groups (JoinGroup/SyncGroup) and KIP-848 consumer groups
(ConsumerGroupHeartbeat) in one map, because they share a namespace: a group id names one group of
one type at a time. The OffsetMetadataManager never needs to know which type it holds: it asks the
group to validate a commit, a fetch or a delete, and each type answers by its own rules.
"""

from __future__ import annotations

from enum import Enum
from typing import Protocol

from kafka.protocol.errors import Errors


class GroupType(Enum):
    CLASSIC = "classic"
    CONSUMER = "consumer"

    def __str__(self) -> str:
        return self.value


class ApiError(Exception):
    """A request refused with Kafka's error code and message (Kafka's ApiException subclasses)."""

    def __init__(self, error: Errors, message: str | None = None) -> None:
        super().__init__(message or error.message)
        self.error = error
        self.message = message or error.message


class Group(Protocol):
    group_id: str

    def type(self) -> GroupType: ...

    def state_as_string(self) -> str:
        """As ListGroups and the tools print it: "Empty", "Stable", "PreparingRebalance", ..."""

    def protocol_type(self) -> str: ...

    def is_empty(self) -> bool: ...

    def validate_offset_commit(self, member_id: str, group_instance_id: str | None,
                               generation_id_or_member_epoch: int, is_transactional: bool,
                               api_version: int) -> None:
        """Raise ApiError unless this member may commit offsets now (each type's rules)."""

    def validate_offset_fetch(self, member_id: str | None, member_epoch: int) -> None:
        """Raise ApiError unless this member may fetch offsets now."""

    def validate_offset_delete(self) -> None:
        """Raise ApiError unless offsets of this group may be deleted (GROUP_SUBSCRIBED_TO_TOPIC is
        decided per partition by the caller, with is_subscribed_to_topic)."""

    def validate_delete_group(self) -> None:
        """Raise ApiError (NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND) unless the group may be deleted."""

    def is_subscribed_to_topic(self, topic: str) -> bool: ...

    def create_group_tombstone_records(self) -> list:
        """The CoordinatorRecords that delete this group from the log (offsets excluded)."""
