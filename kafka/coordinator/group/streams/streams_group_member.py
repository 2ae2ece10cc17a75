"""StreamsGroupMember: one member of a streams group, one stream thread of a Kafka Streams instance (Kafka's
org.apache.kafka.coordinator.group.streams.StreamsGroupMember, with its MemberState).

What the member told the coordinator (its client, process id, endpoint, client tags, the topology epoch it
runs, its rebalance timeout) is its StreamsGroupMemberMetadata record; its epochs, state and tasks are its
StreamsGroupCurrentMemberAssignment record. Several members share a *process id* when they are threads of
one Kafka Streams instance: a task's state on disk belongs to the process, so the assignor keeps a task
and its standbys apart by process, and a task may only move between two threads of one process once the
first let go of it (UNRELEASED_TASKS).

A member is a value: the CurrentAssignmentBuilder and the heartbeat return a changed copy.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import Enum

from kafka.coordinator.group.group import ApiError
from kafka.coordinator.group.streams.member_task_offsets import MemberTaskOffsets
from kafka.coordinator.group.streams.streams_group_records import (
    StreamsGroupCurrentMemberAssignmentValue,
    StreamsGroupMemberMetadataValue,
)
from kafka.coordinator.group.streams.tasks_tuple import TasksTuple
from kafka.coordinator.group.streams.tasks_tuple_with_epochs import EMPTY_WITH_EPOCHS, TasksTupleWithEpochs
from kafka.protocol.errors import Errors
from kafka.utils.java_hash_map import java_hash_map_order


class MemberState(Enum):
    """Where a member is on its way to its target (Kafka's streams MemberState and its record bytes)."""

    STABLE = 1  # it has its target, or all of it that is free
    UNREVOKED_TASKS = 2  # it must first stop tasks it holds that others are to get
    UNRELEASED_TASKS = 3  # tasks of its target are still held by others
    UNKNOWN = 127

    @classmethod
    def from_value(cls, value: int) -> MemberState:
        try:
            return cls(value)
        except ValueError:
            return cls.UNKNOWN

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class StreamsGroupMember:
    member_id: str
    member_epoch: int = 0
    previous_member_epoch: int = 0
    state: MemberState = MemberState.STABLE
    instance_id: str | None = None
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    rebalance_timeout_ms: int = -1
    topology_epoch: int = -1
    process_id: str = ""
    user_endpoint: tuple[str, int] | None = None
    client_tags: dict[str, str] = field(default_factory=dict)
    assigned_tasks: TasksTupleWithEpochs = EMPTY_WITH_EPOCHS
    tasks_pending_revocation: TasksTupleWithEpochs = EMPTY_WITH_EPOCHS

    def replace(self, **changes) -> StreamsGroupMember:
        return dataclasses.replace(self, **changes)

    def update_member_epoch(self, member_epoch: int, **changes) -> StreamsGroupMember:
        """Kafka's Builder.updateMemberEpoch: the epoch it had becomes its previous one."""
        return self.replace(member_epoch=member_epoch, previous_member_epoch=self.member_epoch, **changes)

    def updated_by_heartbeat(self, req, client_id: str, client_host: str,
                             joining: bool) -> StreamsGroupMember:
        """What a StreamsGroupHeartbeat changed about the member (Kafka's Builder.maybeUpdate*: a null
        field is unchanged); a joining member's endpoint is what it sent, even none."""
        changes: dict = dict(client_id=client_id, client_host=client_host)
        for name in ("instance_id", "rack_id", "process_id"):
            if req[name] is not None:
                changes[name] = req[name]
        if req.rebalance_timeout_ms != -1:
            changes["rebalance_timeout_ms"] = req.rebalance_timeout_ms
        if req.topology is not None:
            changes["topology_epoch"] = req.topology.epoch
        if req.client_tags is not None:
            tags: dict[str, str] = {}
            for tag in req.client_tags:
                if tag.key in tags:  # Kafka's Collectors.toMap refuses a duplicate key
                    raise ApiError(Errors.UNKNOWN_SERVER_ERROR, f"Duplicate key {tag.key} (attempted merging "
                                                                f"values {tags[tag.key]} and {tag.value})")
                tags[tag.key] = tag.value
            changes["client_tags"] = tags
        endpoint = req.user_endpoint
        if joining or endpoint is not None:
            changes["user_endpoint"] = None if endpoint is None else (endpoint.host, endpoint.port)
        return self.replace(**changes)

    def is_reconciled_to(self, target_assignment_epoch: int) -> bool:
        return self.state is MemberState.STABLE and self.member_epoch == target_assignment_epoch

    # ------------------------------------------------------------------ records
    def with_member_metadata(self, value: StreamsGroupMemberMetadataValue) -> StreamsGroupMember:
        return self.replace(instance_id=value.instance_id, rack_id=value.rack_id, client_id=value.client_id,
                            client_host=value.client_host, rebalance_timeout_ms=value.rebalance_timeout_ms,
                            topology_epoch=value.topology_epoch, process_id=value.process_id,
                            user_endpoint=value.user_endpoint, client_tags=dict(value.client_tags))

    def with_current_assignment(self, value: StreamsGroupCurrentMemberAssignmentValue) -> StreamsGroupMember:
        return self.replace(member_epoch=value.member_epoch,
                            previous_member_epoch=value.previous_member_epoch,
                            state=MemberState.from_value(value.state), assigned_tasks=value.assigned_tasks,
                            tasks_pending_revocation=value.tasks_pending_revocation)

    def to_member_metadata_value(self) -> StreamsGroupMemberMetadataValue:
        return StreamsGroupMemberMetadataValue(
            self.instance_id, self.rack_id, self.client_id, self.client_host, self.rebalance_timeout_ms,
            self.topology_epoch, self.process_id, self.user_endpoint, tuple(sorted(self.client_tags.items())))

    def to_current_assignment_value(self) -> StreamsGroupCurrentMemberAssignmentValue:
        return StreamsGroupCurrentMemberAssignmentValue(
            self.member_epoch, self.previous_member_epoch, self.state.value, self.assigned_tasks,
            self.tasks_pending_revocation)

    # ------------------------------------------------------------------ StreamsGroupDescribe
    def as_streams_group_describe_member(self, target: TasksTuple | None,
                                         offsets: MemberTaskOffsets | None) -> dict:
        offsets = offsets or MemberTaskOffsets()
        described_target = dict(active_tasks=[], standby_tasks=[], warmup_tasks=[])
        if target is not None:
            described_target = dict(active_tasks=task_ids(target.active_tasks),
                                    standby_tasks=task_ids(target.standby_tasks),
                                    warmup_tasks=task_ids(target.warmup_tasks))
        endpoint = self.user_endpoint
        return dict(
            member_id=self.member_id, member_epoch=self.member_epoch, instance_id=self.instance_id,
            rack_id=self.rack_id, client_id=self.client_id, client_host=self.client_host,
            topology_epoch=self.topology_epoch, process_id=self.process_id,
            user_endpoint=None if endpoint is None else dict(host=endpoint[0], port=endpoint[1]),
            client_tags=[dict(key=k, value=self.client_tags[k])
                         for k in java_hash_map_order(list(self.client_tags))],
            task_offsets=task_offsets(offsets.task_offsets),
                    task_end_offsets=task_offsets(offsets.task_end_offsets),
            assignment=dict(active_tasks=task_ids(self.assigned_tasks.active_tasks_with_epochs),
                            standby_tasks=task_ids(self.assigned_tasks.standby_tasks),
                            warmup_tasks=task_ids(self.assigned_tasks.warmup_tasks)),
            target_assignment=described_target, is_classic=False)


def task_ids(tasks) -> list[dict]:
    """TaskIds sorted by subtopology, each one's task numbers sorted (the wire's shape of a kind of
    tasks)."""
    return [dict(subtopology_id=s, partitions=sorted(tasks[s])) for s in sorted(tasks)]


def task_offsets(offsets) -> list[dict]:
    return [dict(subtopology_id=s, partition=p, offset=o) for s in sorted(offsets) for p,
            o in sorted(offsets[s].items())]


def has_assigned_tasks_changed(before: StreamsGroupMember, after: StreamsGroupMember) -> bool:
    return before.assigned_tasks != after.assigned_tasks
