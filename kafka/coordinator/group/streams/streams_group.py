"""StreamsGroup: a group of the KIP-1071 streams protocol, one Kafka Streams application (Kafka's
org.apache.kafka.coordinator.group.streams.StreamsGroup, with its StreamsGroupState).

Its id is the application id. What it keeps, each as records (``streams_group_records.py``):

    the topology        what its first member sent (StreamsGroupTopology)
    the group epoch     moves when what the assignment depends on changed: a member, its process or tags,
                        the topics' metadata (the metadata hash), the configs of the assignment
    the target          each member's active and standby tasks, computed for an epoch (the assignment epoch)
    each member         its epoch and current tasks, on its way to its target (CurrentAssignmentBuilder)

Its state follows from them (Kafka's maybeUpdateGroupState): Empty without members; NotReady while the
topology is not validated (source topics missing, internal topics not yet created...); Assigning while the
target is older than the group epoch; Reconciling while a member has not reached it; else Stable.

The group in the GroupMetadataManager's timeline map is a value: a change works on ``copy()`` and puts the
copy back (Kafka keeps the same fields in timeline collections). A few things are not records and are not
versioned, in Kafka either: the configured topology (recomputed from the topology and the metadata), the
task offsets members report, a shutdown request, the endpoint information epoch and its cache. Every copy
shares them (``Unpersisted``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.group.group import ApiError, CommitPartitionValidator, GroupType
from kafka.coordinator.group.offset_expiration_condition import (
    COMMIT_TIMESTAMP_EXPIRATION,
    OffsetExpirationCondition,
)
from kafka.coordinator.group.streams.member_task_offsets import MemberTaskOffsets
from kafka.coordinator.group.streams.streams_coordinator_record_helpers import (
    new_streams_group_current_assignment_tombstone_record,
    new_streams_group_epoch_tombstone_record,
    new_streams_group_member_tombstone_record,
    new_streams_group_target_assignment_metadata_tombstone_record,
    new_streams_group_target_assignment_tombstone_record,
    new_streams_group_topology_record_tombstone,
)
from kafka.coordinator.group.streams.streams_group_member import StreamsGroupMember
from kafka.coordinator.group.streams.streams_topology import StreamsTopology
from kafka.coordinator.group.streams.tasks_tuple import EMPTY, TasksTuple
from kafka.coordinator.group.streams.topics.configured_topology import ConfiguredTopology
from kafka.protocol.errors import Errors

PROTOCOL_TYPE = "streams"  # what ListGroups shows


class StreamsGroupState(Enum):
    EMPTY = "Empty"
    NOT_READY = "NotReady"
    ASSIGNING = "Assigning"
    RECONCILING = "Reconciling"
    STABLE = "Stable"
    DEAD = "Dead"

    def __str__(self) -> str:
        return self.value

    def to_lower_case_string(self) -> str:
        """What ListGroups' state filter matches (Kafka's toLowerCaseString: not_ready)."""
        return "not_ready" if self is StreamsGroupState.NOT_READY else self.value.lower()


@dataclass
class Unpersisted:
    """The group's state that is not written to the log, shared by every version of the group."""

    configured_topology: ConfiguredTopology | None = None
    task_offsets: dict[str, MemberTaskOffsets] = field(default_factory=dict)
    shutdown_request_member_id: str | None = None
    endpoint_information_epoch: int = 0
    endpoint_to_partitions: dict[str, dict] = field(default_factory=dict)  # member id -> its entry (a cache)


class StreamsGroup:
    def __init__(self, group_id: str) -> None:
        self.group_id = group_id
        self.group_epoch = 1
        self.assignment_epoch, self.assignment_timestamp = 1, 0  # Kafka's TargetAssignmentMetadata.INITIAL
        self.metadata_hash = 0
        self.validated_topology_epoch = -1
        self.last_assignment_configs: dict[str, str] = {}
        self.topology: StreamsTopology | None = None
        self.members: dict[str, StreamsGroupMember] = {}
        self.target_assignment: dict[str, TasksTuple] = {}
        self.unpersisted = Unpersisted()
        self._task_process_ids: tuple[dict, dict, dict] | None = None  # computed once a version

    def copy(self) -> StreamsGroup:
        other = StreamsGroup(self.group_id)
        other.group_epoch, other.metadata_hash = self.group_epoch, self.metadata_hash
        other.assignment_epoch, other.assignment_timestamp = self.assignment_epoch, self.assignment_timestamp
        other.validated_topology_epoch = self.validated_topology_epoch
        other.last_assignment_configs = dict(self.last_assignment_configs)
        other.topology = self.topology
        other.members = dict(self.members)
        other.target_assignment = dict(self.target_assignment)
        other.unpersisted = self.unpersisted
        return other

    # ------------------------------------------------------------------ state
    @property
    def state(self) -> StreamsGroupState:
        if not self.members:
            return StreamsGroupState.EMPTY
        if self.topology is None or self.topology.topology_epoch != self.validated_topology_epoch:
            return StreamsGroupState.NOT_READY
        if self.group_epoch > self.assignment_epoch:
            return StreamsGroupState.ASSIGNING
        if any(not m.is_reconciled_to(self.assignment_epoch) for m in self.members.values()):
            return StreamsGroupState.RECONCILING
        return StreamsGroupState.STABLE

    @property
    def configured_topology(self) -> ConfiguredTopology | None:
        return self.unpersisted.configured_topology

    def set_configured_topology(self, configured: ConfiguredTopology | None) -> None:
        self.unpersisted.configured_topology = configured
        self.unpersisted.endpoint_to_partitions.clear()

    def current_topology_epoch(self) -> int:
        return -1 if self.topology is None else self.topology.topology_epoch

    # ------------------------------------------------------------------ members
    def static_member(self, instance_id: str | None) -> StreamsGroupMember | None:
        if instance_id is None:
            return None
        return next((m for m in self.members.values() if m.instance_id == instance_id), None)

    def members_and_target_with(self, member: StreamsGroupMember | None,
                                ) -> tuple[dict[str, StreamsGroupMember], dict[str, TasksTuple]]:
        """The members and targets with this member's change (Kafka's UpdatedMembersAndTargetAssignmentView):
        a static member's new id takes over its old id's target."""
        members, target = dict(self.members), dict(self.target_assignment)
        if member is None:
            return members, target
        members[member.member_id] = member
        old = self.static_member(member.instance_id)
        if old is not None and old.member_id != member.member_id:
            if old.member_id in target:
                target[member.member_id] = target[old.member_id]
            members.pop(old.member_id, None)
            target.pop(old.member_id, None)
        return members, target

    def set_shutdown_request_member_id(self, member_id: str) -> None:
        """A member asked the whole application to shut down: every member hears it until the group
        empties."""
        if self.unpersisted.shutdown_request_member_id is None:
            self.unpersisted.shutdown_request_member_id = member_id

    def target_assignment_of(self, member_id: str) -> TasksTuple:
        return self.target_assignment.get(member_id, EMPTY)

    def task_offsets(self, member_id: str) -> MemberTaskOffsets:
        return self.unpersisted.task_offsets.get(member_id, MemberTaskOffsets())

    def update_member(self, member: StreamsGroupMember) -> None:
        self.members[member.member_id] = member
        self._task_process_ids = None
        self.unpersisted.endpoint_to_partitions.pop(member.member_id, None)

    def remove_member(self, member_id: str) -> None:
        self.members.pop(member_id, None)
        self._task_process_ids = None
        self.unpersisted.endpoint_to_partitions.pop(member_id, None)
        self.unpersisted.task_offsets.pop(member_id, None)
        if not self.members and self.unpersisted.shutdown_request_member_id is not None:
            self.unpersisted.shutdown_request_member_id = None  # Kafka clears it when the group empties

    def task_process_ids(self) -> tuple[dict, dict, dict]:
        """Who runs each task now, by process: {(subtopology, task): process id} for active tasks, and
        {(subtopology, task): {process ids}} for standby and warm-up tasks; tasks pending revocation count
        (Kafka keeps these maps up to date member by member; here they are computed once per version)."""
        if self._task_process_ids is None:
            active: dict[tuple[str, int], str] = {}
            standby: dict[tuple[str, int], set[str]] = {}
            warmup: dict[tuple[str, int], set[str]] = {}
            for member in self.members.values():
                for tasks in (member.assigned_tasks, member.tasks_pending_revocation):
                    for s, epochs in tasks.active_tasks_with_epochs.items():
                        for p in epochs:
                            active[(s, p)] = member.process_id
                    for kind, out in ((tasks.standby_tasks, standby), (tasks.warmup_tasks, warmup)):
                        for s, partitions in kind.items():
                            for p in partitions:
                                out.setdefault((s, p), set()).add(member.process_id)
            self._task_process_ids = (active, standby, warmup)
        return self._task_process_ids

    # ------------------------------------------------------------------ Group
    def type(self) -> GroupType:
        return GroupType.STREAMS

    def protocol_type(self) -> str:
        return PROTOCOL_TYPE

    def state_as_string(self) -> str:
        return str(self.state)

    def is_in_states(self, states: set[str]) -> bool:
        return self.state.to_lower_case_string() in states

    def is_empty(self) -> bool:
        return not self.members

    def is_subscribed_to_topic(self, topic: str) -> bool:
        """Its offsets of a topic it reads do not expire while it has members, nor may OffsetDelete take
        them."""
        if self.is_empty() or self.topology is None:
            return False
        return topic in self.topology.source_topic_map

    def validate_offset_commit(self, member_id: str, group_instance_id: str | None, member_epoch: int,
                               is_transactional: bool, api_version: int) -> CommitPartitionValidator | None:
        """Kafka 4.4's StreamsGroup.validateOffsetCommit: as a consumer group's (OffsetCommit v9+, the
        member's epoch or, task by task, an older one it held the task at)."""
        if member_epoch < 0 and not self.members:
            return None
        if is_transactional and member_epoch == -1 and member_id == "" and group_instance_id is None:
            return None
        member = self.member_or_throw(member_id)
        if not is_transactional and api_version < 9:
            raise ApiError(Errors.UNSUPPORTED_VERSION,
                           "OffsetCommit version 9 or above must be used by members "
                           "using the streams group protocol")
        if member_epoch == member.member_epoch:
            return None
        if member_epoch > member.member_epoch:
            raise ApiError(Errors.STALE_MEMBER_EPOCH, f"Received member epoch {member_epoch} is newer than "
                                                      f"current member epoch {member.member_epoch}.")
        return self.assignment_epoch_validator(member, member_epoch)

    def assignment_epoch_validator(self, member: StreamsGroupMember,
                                   received: int) -> CommitPartitionValidator:
        """Kafka's createAssignmentEpochValidator: the task must be the member's (or still being revoked
        from it), assigned at the epoch the commit carries or before."""
        topology = self.topology
        if topology is None:
            raise ApiError(Errors.STALE_MEMBER_EPOCH,
                           "Topology is not available for offset commit validation.")

        def validate(topic: str, partition: int) -> None:
            subtopology = topology.source_topic_map.get(topic)
            if subtopology is None:
                raise ApiError(Errors.STALE_MEMBER_EPOCH, f"Topic {topic} is not in the topology.")
            s = subtopology.subtopology_id
            epoch = member.assigned_tasks.active_tasks_with_epochs.get(s, {}).get(partition)
            if epoch is None:
                epoch = member.tasks_pending_revocation.active_tasks_with_epochs.get(s, {}).get(partition)
            if epoch is None:
                raise ApiError(Errors.STALE_MEMBER_EPOCH,
                               f"Task {s}-{partition} is not assigned or pending revocation for member.")
            if received < epoch:
                raise ApiError(Errors.STALE_MEMBER_EPOCH,
                               f"Received member epoch {received} is older than assignment epoch {epoch} for "
                               f"task {s}-{partition}.")
        return validate

    def validate_offset_fetch(self, member_id: str | None, member_epoch: int) -> None:
        if member_id is None and member_epoch < 0:
            return
        member = self.member_or_throw(member_id)
        if member_epoch != member.member_epoch:
            raise ApiError(Errors.STALE_MEMBER_EPOCH,
                           f"The received member epoch {member_epoch} does not match "
                           f"the expected member epoch {member.member_epoch}.")

    def validate_offset_delete(self) -> None:
        pass

    def validate_delete_group(self) -> None:
        if self.state is not StreamsGroupState.EMPTY:
            raise ApiError(Errors.NON_EMPTY_GROUP)

    def member_or_throw(self, member_id: str | None) -> StreamsGroupMember:
        member = self.members.get(member_id)
        if member is None:
            raise ApiError(Errors.UNKNOWN_MEMBER_ID, f"Member {member_id} is not a member of group "
                                                     f"{self.group_id}.")
        return member

    def offset_expiration_condition(self) -> OffsetExpirationCondition:
        return COMMIT_TIMESTAMP_EXPIRATION

    def as_described_group(self, assignor_name: str) -> dict:
        """StreamsGroupDescribe's entry: the topology as configured once it is ready, else as sent."""
        configured = self.configured_topology
        ready = configured is not None and configured.is_ready()
        return dict(
            error_code=Errors.NONE, error_message=None, group_id=self.group_id, group_state=str(self.state),
            group_epoch=self.group_epoch, assignment_epoch=self.assignment_epoch,
            topology=(configured if ready else self.topology).as_streams_group_describe_topology(),
            members=[m.as_streams_group_describe_member(self.target_assignment.get(m.member_id),
                                                        self.unpersisted.task_offsets.get(m.member_id))
                     for m in self.members.values()],
            assignor_name=assignor_name)

    def create_group_tombstone_records(self) -> list[CoordinatorRecord]:
        """Kafka's createGroupTombstoneRecords, in its order: the members' assignments, their targets, the
        target's epoch, the members, the group epoch, the topology."""
        gid = self.group_id
        return [*(new_streams_group_current_assignment_tombstone_record(gid, m) for m in self.members),
                *(new_streams_group_target_assignment_tombstone_record(gid, m) for m in self.members),
                new_streams_group_target_assignment_metadata_tombstone_record(gid),
                *(new_streams_group_member_tombstone_record(gid, m) for m in self.members),
                new_streams_group_epoch_tombstone_record(gid),
                new_streams_group_topology_record_tombstone(gid)]

    def __eq__(self, other: object) -> bool:
        """The persisted state (a replay of the log gives an equal group)."""
        if not isinstance(other, StreamsGroup):
            return NotImplemented
        fields = ("group_id", "group_epoch", "assignment_epoch", "assignment_timestamp", "metadata_hash",
                  "validated_topology_epoch", "last_assignment_configs", "topology", "members",
                  "target_assignment")
        return all(getattr(self, f) == getattr(other, f) for f in fields)

    __hash__ = None
