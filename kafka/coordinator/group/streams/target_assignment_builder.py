"""TargetAssignmentBuilder: a streams group's new target assignment, and the records that write it (Kafka's
org.apache.kafka.coordinator.group.streams.TargetAssignmentBuilder).

The assignor is asked only when the configured topology is ready; until then every member's target is
empty. A member whose target changed (or who had none) gets a StreamsGroupTargetAssignmentMember record,
and the StreamsGroupTargetAssignmentMetadata record says which group epoch the target is for and when it
was computed (group.streams.assignment.interval.ms counts from then).
"""

from __future__ import annotations

from collections.abc import Mapping

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.group.streams.assignor.task_assignor import (
    AssignmentConfigs,
    GroupSpec,
    MemberMetadataAndState,
    TaskAssignor,
)
from kafka.coordinator.group.streams.member_task_offsets import MemberTaskOffsets
from kafka.coordinator.group.streams.streams_coordinator_record_helpers import (
    new_streams_group_target_assignment_metadata_record,
    new_streams_group_target_assignment_record,
)
from kafka.coordinator.group.streams.streams_group_member import StreamsGroupMember
from kafka.coordinator.group.streams.tasks_tuple import EMPTY, TasksTuple
from kafka.coordinator.group.streams.topics.configured_topology import ConfiguredTopology
from kafka.coordinator.group.streams.topology_metadata import TopologyMetadata
from kafka.utils.java_hash_map import java_hash_map_order


def member_metadata_and_state(member: StreamsGroupMember,
                              offsets: MemberTaskOffsets) -> MemberMetadataAndState:
    tasks = member.assigned_tasks
    return MemberMetadataAndState(member.instance_id, member.rack_id, member.process_id, member.client_tags,
                                  tasks.active_tasks, tasks.standby_tasks, tasks.warmup_tasks,
                                  offsets.task_offsets, offsets.task_end_offsets)


class TargetAssignmentBuilder:
    def __init__(self, group_id: str, group_epoch: int, assignor: TaskAssignor,
                 assignment_configs: Mapping[str, str], now_ms: int) -> None:
        self.group_id, self.group_epoch, self.assignor = group_id, group_epoch, assignor
        self.assignment_configs = AssignmentConfigs.from_map(assignment_configs)
        self.now_ms = now_ms
        self.members: Mapping[str, StreamsGroupMember] = {}
        self.target_assignment: Mapping[str, TasksTuple] = {}
        self.topology: ConfiguredTopology | None = None
        self.task_offsets: Mapping[str, MemberTaskOffsets] = {}

    def with_members(self, members: Mapping[str, StreamsGroupMember]) -> TargetAssignmentBuilder:
        self.members = members
        return self

    def with_target_assignment(self, target: Mapping[str, TasksTuple]) -> TargetAssignmentBuilder:
        self.target_assignment = target
        return self

    def with_topology(self, topology: ConfiguredTopology) -> TargetAssignmentBuilder:
        self.topology = topology
        return self

    def with_task_offsets(self, offsets: Mapping[str, MemberTaskOffsets]) -> TargetAssignmentBuilder:
        self.task_offsets = offsets
        return self

    def build(self) -> tuple[list[CoordinatorRecord], dict[str, TasksTuple]]:
        """(the records, member id -> its new target); TaskAssignorException if the assignor failed."""
        specs = {m: member_metadata_and_state(member, self.task_offsets.get(m, MemberTaskOffsets()))
                 for m, member in self.members.items()}
        if self.topology.is_ready():
            assignment = self.assignor.assign(GroupSpec(specs, self.assignment_configs),
                                              TopologyMetadata(self.topology.subtopologies))
            new = {m: TasksTuple(a.active_tasks, a.standby_tasks) for m, a in assignment.members.items()}
        else:
            new = {}
        records, target = [], {}
        for member_id in java_hash_map_order(list(specs)):
            tasks = new.get(member_id, EMPTY)
            target[member_id] = tasks
            if self.target_assignment.get(member_id) != tasks:
                records.append(new_streams_group_target_assignment_record(self.group_id, member_id, tasks))
        records.append(
            new_streams_group_target_assignment_metadata_record(self.group_id, self.group_epoch, self.now_ms))
        return records, target
