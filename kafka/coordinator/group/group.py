"""Group: what every group type answers, whatever its protocol (Kafka's
org.apache.kafka.coordinator.group.Group, with its GroupType).

The GroupMetadataManager keeps classic groups (JoinGroup/SyncGroup), KIP-848 consumer groups
(ConsumerGroupHeartbeat), KIP-932 share groups (ShareGroupHeartbeat) and KIP-1071 streams groups
(StreamsGroupHeartbeat) in one map, because they share a namespace: a group id names one group of one
type at a time. The OffsetMetadataManager never needs to know which type it holds: it asks the group to
validate a commit, a fetch or a delete, and each type answers by its own rules.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Protocol

import structlog

from kafka.protocol.errors import Errors

log = structlog.get_logger("kafka.coordinator.group")


class GroupType(Enum):
    CLASSIC = "classic"
    CONSUMER = "consumer"
    SHARE = "share"
    STREAMS = "streams"

    def __str__(self) -> str:
        return self.value


# Kafka's CommitPartitionValidator: (topic name, partition) -> None, or raises ApiError for that partition.
CommitPartitionValidator = Callable[[str, int], None]


class ApiError(Exception):
    """A request refused with Kafka's error code and message (Kafka's ApiException subclasses)."""

    def __init__(self, error: Errors, message: str | None = None) -> None:
        super().__init__(message or error.message)
        self.error = error
        self.message = message or error.message


def error_of(exception: BaseException) -> Errors:
    """The Kafka error a failed event or append carries (the runtime's CoordinatorError and the writer's
    CoordinatorWriteError, a shard's ApiError: each has .error); anything else is a bug, answered
    UNKNOWN_SERVER_ERROR."""
    error = getattr(exception, "error", None)
    if isinstance(error, Errors):
        return error
    log.error("group coordinator operation failed", error=repr(exception))
    return Errors.UNKNOWN_SERVER_ERROR


def normalize_error(error: Errors) -> Errors:
    """What a group client should hear when a write to __consumer_offsets failed, so it retries or
    looks for the coordinator again (Kafka's GroupCoordinatorService.normalizeException, and the same
    mapping as GroupMetadataManager.appendGroupMetadataErrorToResponseError for a classic group's record)."""
    if error in (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_ENOUGH_REPLICAS,
                 Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, Errors.REQUEST_TIMED_OUT):
        return Errors.COORDINATOR_NOT_AVAILABLE
    if error in (Errors.NOT_LEADER_OR_FOLLOWER, Errors.KAFKA_STORAGE_ERROR):
        return Errors.NOT_COORDINATOR
    if error in (Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE, Errors.INVALID_FETCH_SIZE):
        return Errors.UNKNOWN_SERVER_ERROR
    return error


class Group(Protocol):
    group_id: str

    def type(self) -> GroupType: ...

    def state_as_string(self) -> str:
        """As ListGroups and the tools print it: "Empty", "Stable", "PreparingRebalance", ..."""

    def protocol_type(self) -> str: ...

    def is_empty(self) -> bool: ...

    def validate_offset_commit(self, member_id: str, group_instance_id: str | None,
                               generation_id_or_member_epoch: int, is_transactional: bool,
                               api_version: int) -> CommitPartitionValidator | None:
        """Raise ApiError unless this member may commit offsets now (each type's rules); a validator
        to ask of each partition when that depends on the partition (Kafka's CommitPartitionValidator:
        a consumer group member committing with an older epoch), else None."""

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
