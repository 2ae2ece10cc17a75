"""StreamsCoordinatorRecordHelpers: the records a streams group writes, and the tombstones that delete them
(Kafka's org.apache.kafka.coordinator.group.streams.StreamsCoordinatorRecordHelpers).
"""

from __future__ import annotations

from collections.abc import Mapping

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.group.streams.streams_group_member import StreamsGroupMember
from kafka.coordinator.group.streams.streams_group_records import (
    StreamsGroupCurrentMemberAssignmentKey,
    StreamsGroupMemberMetadataKey,
    StreamsGroupMetadataKey,
    StreamsGroupMetadataValue,
    StreamsGroupTargetAssignmentMemberKey,
    StreamsGroupTargetAssignmentMemberValue,
    StreamsGroupTargetAssignmentMetadataKey,
    StreamsGroupTargetAssignmentMetadataValue,
    StreamsGroupTopologyKey,
    StreamsGroupTopologyValue,
)
from kafka.coordinator.group.streams.tasks_tuple import TasksTuple


def new_streams_group_member_record(group_id: str, member: StreamsGroupMember) -> CoordinatorRecord:
    return CoordinatorRecord(StreamsGroupMemberMetadataKey(group_id, member.member_id),
                             member.to_member_metadata_value())


def new_streams_group_member_tombstone_record(group_id: str, member_id: str) -> CoordinatorRecord:
    return CoordinatorRecord(StreamsGroupMemberMetadataKey(group_id, member_id), None)


def new_streams_group_metadata_record(group_id: str, epoch: int, metadata_hash: int,
                                      validated_topology_epoch: int,
                                      assignment_configs: Mapping[str, str],
                                      stored_description_epoch: int = -1,
                                      failed_description_epoch: int = -1) -> CoordinatorRecord:
    return CoordinatorRecord(StreamsGroupMetadataKey(group_id), StreamsGroupMetadataValue(
        epoch, metadata_hash, validated_topology_epoch, tuple(sorted(assignment_configs.items())),
        stored_description_epoch, failed_description_epoch))


def new_streams_group_epoch_tombstone_record(group_id: str) -> CoordinatorRecord:
    return CoordinatorRecord(StreamsGroupMetadataKey(group_id), None)


def new_streams_group_target_assignment_record(group_id: str, member_id: str,
                                               tasks: TasksTuple) -> CoordinatorRecord:
    return CoordinatorRecord(StreamsGroupTargetAssignmentMemberKey(group_id, member_id),
                             StreamsGroupTargetAssignmentMemberValue(tasks))


def new_streams_group_target_assignment_tombstone_record(group_id: str, member_id: str) -> CoordinatorRecord:
    return CoordinatorRecord(StreamsGroupTargetAssignmentMemberKey(group_id, member_id), None)


def new_streams_group_target_assignment_metadata_record(group_id: str, assignment_epoch: int,
                                                        assignment_timestamp: int) -> CoordinatorRecord:
    value = StreamsGroupTargetAssignmentMetadataValue(assignment_epoch, assignment_timestamp)
    return CoordinatorRecord(StreamsGroupTargetAssignmentMetadataKey(group_id), value)


def new_streams_group_target_assignment_metadata_tombstone_record(group_id: str) -> CoordinatorRecord:
    return CoordinatorRecord(StreamsGroupTargetAssignmentMetadataKey(group_id), None)


def new_streams_group_current_assignment_record(group_id: str,
                                                member: StreamsGroupMember) -> CoordinatorRecord:
    return CoordinatorRecord(StreamsGroupCurrentMemberAssignmentKey(group_id, member.member_id),
                             member.to_current_assignment_value())


def new_streams_group_current_assignment_tombstone_record(group_id: str, member_id: str) -> CoordinatorRecord:
    return CoordinatorRecord(StreamsGroupCurrentMemberAssignmentKey(group_id, member_id), None)


def new_streams_group_topology_record(group_id: str, value: StreamsGroupTopologyValue) -> CoordinatorRecord:
    return CoordinatorRecord(StreamsGroupTopologyKey(group_id), value)


def new_streams_group_topology_record_tombstone(group_id: str) -> CoordinatorRecord:
    return CoordinatorRecord(StreamsGroupTopologyKey(group_id), None)


def remove_streams_member(group_id: str, member_id: str) -> list[CoordinatorRecord]:
    """The three tombstones of a member leaving, in Kafka's order (removeStreamsMember)."""
    return [new_streams_group_current_assignment_tombstone_record(group_id, member_id),
            new_streams_group_target_assignment_tombstone_record(group_id, member_id),
            new_streams_group_member_tombstone_record(group_id, member_id)]
