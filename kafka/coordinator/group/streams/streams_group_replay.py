"""The replay of a streams group's records into the shard: the StreamsGroup* overloads of Kafka's
GroupMetadataManager.replay (and its getOrMaybeCreatePersistedStreamsGroup).

A record is applied to a copy of the group, which is put back, so the timeline keeps the version before.
The same code runs for a record just written and for one read while the shard loads, so a coordinator that
takes over finds the group as it was. Tombstones come in the order the group wrote them (a member's
assignment and target before the member, the target's epoch before the group's), and a tombstone arriving
out of that order is a corrupt log, refused as Kafka refuses it.
"""

from __future__ import annotations

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.group.group import GroupType
from kafka.coordinator.group.streams.streams_group import StreamsGroup
from kafka.coordinator.group.streams.streams_group_member import StreamsGroupMember
from kafka.coordinator.group.streams.streams_group_records import (
    StreamsGroupCurrentMemberAssignmentKey,
    StreamsGroupMemberMetadataKey,
    StreamsGroupMetadataKey,
    StreamsGroupTargetAssignmentMemberKey,
    StreamsGroupTargetAssignmentMetadataKey,
    StreamsGroupTopologyKey,
)
from kafka.coordinator.group.streams.streams_topology import StreamsTopology
from kafka.coordinator.group.streams.tasks_tuple_with_epochs import EMPTY_WITH_EPOCHS
from kafka.timeline import TimelineHashMap


def replay(groups: TimelineHashMap, record: CoordinatorRecord) -> None:
    key, value = record.key, record.value
    stored = groups.get(key.group_id)
    if not isinstance(stored, StreamsGroup):
        if value is None:
            return  # a tombstone of a group already gone
        if stored is not None and not (stored.type() is GroupType.CLASSIC and stored.is_empty()):
            raise RuntimeError(f"Group {key.group_id} is not a streams group.")
        group = StreamsGroup(key.group_id)  # replaces a simple group, which only held offsets
    else:
        group = stored.copy()
    if isinstance(key, StreamsGroupMetadataKey):
        if value is None:
            if group.members:
                raise RuntimeError(f"Received a tombstone record to delete group {key.group_id} but the "
                                   f"group still has {len(group.members)} members.")
            if group.assignment_epoch != -1:
                raise RuntimeError(f"Received a tombstone record to delete group {key.group_id} but did not "
                                   "receive StreamsGroupTargetAssignmentMetadataValue tombstone.")
            del groups[key.group_id]
            return
        group.group_epoch, group.metadata_hash = value.epoch, value.metadata_hash
        group.validated_topology_epoch = value.validated_topology_epoch
        group.last_assignment_configs = dict(value.last_assignment_configs or ())
    elif isinstance(key, StreamsGroupTopologyKey):
        group.topology = None if value is None else StreamsTopology.from_record(value)
    elif isinstance(key, StreamsGroupMemberMetadataKey):
        replay_member_metadata(group, key.member_id, value)
    elif isinstance(key, StreamsGroupTargetAssignmentMetadataKey):
        if value is None:
            if group.target_assignment:
                raise RuntimeError(f"Received a tombstone record to delete target assignment of "
                                   f"{key.group_id} but the assignment still has "
                                   f"{len(group.target_assignment)} members.")
            group.assignment_epoch, group.assignment_timestamp = -1, 0
        else:
            group.assignment_epoch = value.assignment_epoch
            group.assignment_timestamp = value.assignment_timestamp
    elif isinstance(key, StreamsGroupTargetAssignmentMemberKey):
        if value is None:
            group.target_assignment.pop(key.member_id, None)
        else:
            group.target_assignment[key.member_id] = value.tasks
    elif isinstance(key, StreamsGroupCurrentMemberAssignmentKey):
        member = group.members.get(key.member_id)
        if value is not None:
            group.update_member((member or StreamsGroupMember(key.member_id)).with_current_assignment(value))
        elif member is not None:  # the member keeps its metadata, loses its epochs and tasks
            group.update_member(member.replace(member_epoch=-1, previous_member_epoch=-1,
                                               assigned_tasks=EMPTY_WITH_EPOCHS,
                                               tasks_pending_revocation=EMPTY_WITH_EPOCHS))
    groups[key.group_id] = group


def replay_member_metadata(group: StreamsGroup, member_id: str, value) -> None:
    member = group.members.get(member_id)
    if value is not None:
        group.update_member((member or StreamsGroupMember(member_id)).with_member_metadata(value))
        return
    if member is None:
        return
    if member.member_epoch != -1:
        raise RuntimeError(f"Received a tombstone record to delete member {member_id} but did not receive "
                           "StreamsGroupCurrentMemberAssignmentValue tombstone.")
    if member_id in group.target_assignment:
        raise RuntimeError(f"Received a tombstone record to delete member {member_id} but did not receive "
                           "StreamsGroupTargetAssignmentMetadataValue tombstone.")
    group.remove_member(member_id)
