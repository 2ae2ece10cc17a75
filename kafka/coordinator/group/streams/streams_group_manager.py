"""StreamsGroupManager: the streams groups of KIP-1071 in one shard -- the streams-group part of Kafka's
org.apache.kafka.coordinator.group.GroupMetadataManager (streamsGroupHeartbeat, streamsGroupLeave,
streamsGroupFenceMember, the session, rebalance and initial-rebalance timers, streamsGroupDescribe).

One request does everything (StreamsGroupHeartbeat). A member joins with epoch 0 and its application's
topology; the first one's is kept (a StreamsGroupTopology record). At each heartbeat the coordinator:

1. checks the member (unknown, fenced epoch, static member rules) and notes what changed about it;
2. configures the topology against the metadata (``topics/internal_topic_manager.py``) when it is new or
   the metadata of its topics changed (the metadata hash): the group is NotReady, and the heartbeat carries
   a status, while source topics are missing or internal topics are still being created;
3. bumps the group epoch when what the assignment depends on changed (a member, its process or tags, the
   metadata, the validated topology, the assignment configs);
4. computes a new target with the StickyTaskAssignor (TargetAssignmentBuilder) -- not before
   group.streams.initial.rebalance.delay.ms after a group's first member, nor more often than every
   group.streams.assignment.interval.ms (ASSIGNMENT_DELAYED);
5. moves the member one step towards its target (CurrentAssignmentBuilder): it first gives up tasks others
   are to get, then takes the new ones once their previous owners let go.

Members heartbeat every group.streams.heartbeat.interval.ms; one silent for group.streams.session.timeout.ms
is fenced, as is one that does not give up its tasks within its rebalance timeout.

Every change is a list of records, written and then replayed into the shard (``streams_group_replay.py``),
as Kafka's heartbeat builds records and its replay changes the group. A refused request raises ApiError.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum

import structlog

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.group.group import ApiError, Group, GroupType
from kafka.coordinator.group.streams import streams_coordinator_record_helpers as records_of
from kafka.coordinator.group.streams.assignor.sticky_task_assignor import StickyTaskAssignor
from kafka.coordinator.group.streams.assignor.task_assignor import TaskAssignorException
from kafka.coordinator.group.streams.current_assignment_builder import CurrentAssignmentBuilder
from kafka.coordinator.group.streams.streams_group import StreamsGroup, StreamsGroupState
from kafka.coordinator.group.streams.streams_group_heartbeat_checks import (
    throw_if_member_epoch_is_invalid,
    throw_if_request_contains_invalid_tasks,
    throw_if_static_member_is_unknown_or_fenced,
)
from kafka.coordinator.group.streams.streams_group_member import (
    MemberState,
    StreamsGroupMember,
    has_assigned_tasks_changed,
    task_ids,
)
from kafka.coordinator.group.streams.streams_topology import StreamsTopology, topology_record_value
from kafka.coordinator.group.streams.target_assignment_builder import TargetAssignmentBuilder
from kafka.coordinator.group.streams.tasks_tuple import EMPTY, TasksTuple
from kafka.coordinator.group.streams.tasks_tuple_with_epochs import EMPTY_WITH_EPOCHS
from kafka.coordinator.group.streams.topics.configured_topology import ConfiguredTopology, CreatableTopic
from kafka.coordinator.group.streams.topics.endpoint_to_partitions_manager import endpoint_information
from kafka.coordinator.group.streams.topics.internal_topic_manager import configure_topics
from kafka.coordinator.group.streams.topics.topic_configuration_exception import Status
from kafka.coordinator.group.utils import compute_metadata_hash
from kafka.protocol.errors import Errors
from kafka.timeline import LATEST_EPOCH, TimelineHashMap
from kafka.utils.time import Time

log = structlog.get_logger("kafka.coordinator.group.StreamsGroupManager")

JOIN_GROUP_MEMBER_EPOCH, LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH = 0, -1, -2


class AssignmentUpdate(Enum):
    """What a heartbeat does to the target (Kafka's GroupMetadataManager.AssignmentUpdate)."""

    NONE = 0
    REFINED = 1  # the same target, a new epoch (the member's refined target differs from what it has)
    RECOMPUTE = 2


@dataclass(frozen=True)
class StreamsGroupHeartbeatResult:
    """The answer, and the internal topics the broker should create (Kafka's StreamsGroupHeartbeatResult)."""

    data: dict
    creatable_topics: dict[str, CreatableTopic] = field(default_factory=dict)


def session_timeout_key(group_id: str, member_id: str) -> str:
    return f"session-timeout-{group_id}-{member_id}"


def rebalance_timeout_key(group_id: str, member_id: str) -> str:
    return f"rebalance-timeout-{group_id}-{member_id}"


def initial_rebalance_timeout_key(group_id: str) -> str:
    return f"initial-rebalance-timeout-{group_id}"


def status(code: Status, detail: str) -> dict:
    return dict(status_code=code, status_detail=detail)


def error_response(error: Errors, message: str | None) -> dict:
    """StreamsGroupHeartbeat's answer to a refused request: the error, the rest at their defaults."""
    return dict(error_code=error, error_message=message, member_id="", member_epoch=0,
                heartbeat_interval_ms=0,
                task_offset_interval_ms=0, status=[], endpoint_information_epoch=0)


class StreamsGroupManager:
    """``config`` holds Kafka's GroupCoordinatorConfig fields (streams_group_*); ``group_configs(group_id)``
    gives a group's own settings (streams.session.timeout.ms, ...), which win over the broker's."""

    def __init__(self, *, groups: TimelineHashMap[str, Group], time: Time, timer, config,
                 log_context: str = "",
                 topics_image: Callable[[], dict] = dict,
                 group_configs: Callable[[str], Mapping[str, str]] = lambda group_id: {}) -> None:
        self.groups = groups  # the GroupMetadataManager's: the group types share the ids
        self.time = time
        self.timer = timer
        self.config = config
        self.log = log.bind(log_context=log_context) if log_context else log
        self.topics_image = topics_image  # name -> (topic id, partitions) of every topic now
        self.group_configs = group_configs
        # group.streams.assignors names them; "sticky" is the one Kafka 4.4 builds in, and the only one here
        sticky = StickyTaskAssignor()
        self.assignors = {sticky.name(): sticky} if sticky.name() in config.streams_group_assignors else {}
        self.default_assignor = self.assignors.get(config.streams_group_assignors[0], StickyTaskAssignor())
        self.rebalance_count = 0  # Kafka's StreamsGroupRebalances

    # ------------------------------------------------------------------ the group's own settings
    def setting(self, group_id: str, key: str, broker_value):
        value = self.group_configs(group_id).get(f"streams.{key}")
        return broker_value if value is None else type(broker_value)(value)

    def session_timeout_ms(self, group_id: str) -> int:
        return self.setting(group_id, "session.timeout.ms", self.config.streams_group_session_timeout_ms)

    def heartbeat_interval_ms(self, group_id: str) -> int:
        return self.setting(group_id, "heartbeat.interval.ms",
                            self.config.streams_group_heartbeat_interval_ms)

    def assignment_interval_ms(self, group_id: str) -> int:
        return self.setting(group_id, "assignment.interval.ms",
                            self.config.streams_group_assignment_interval_ms)

    def initial_rebalance_delay_ms(self, group_id: str) -> int:
        return self.setting(group_id, "initial.rebalance.delay.ms",
                            self.config.streams_group_initial_rebalance_delay_ms)

    def task_offset_interval_ms(self, group_id: str) -> int:
        return self.setting(group_id, "task.offset.interval.ms",
                            self.config.streams_group_task_offset_interval_ms)

    def acceptable_recovery_lag(self, group_id: str) -> int:
        return self.setting(group_id, "acceptable.recovery.lag",
                            self.config.streams_group_acceptable_recovery_lag)

    def assignor(self, group_id: str):
        """The group's streams.assignor.name if this broker has it, else the default (group.streams.assignors'
        first)."""
        return self.assignors.get(self.group_configs(group_id).get("streams.assignor.name"),
                                  self.default_assignor)

    def assignment_configs(self, group_id: str) -> dict[str, str]:
        """What the assignment depends on (Kafka's streamsGroupAssignmentConfigs, sorted): a change of either
        is a new target."""
        standby = self.setting(group_id, "num.standby.replicas",
                               self.config.streams_group_num_standby_replicas)
        tags = self.group_configs(group_id).get("streams.rack.aware.assignment.tags")
        tag_list = (list(self.config.streams_group_rack_aware_assignment_tags) if tags is None
                    else [t.strip() for t in tags.split(",") if t.strip()])
        configs = {"num.standby.replicas": str(standby)}
        if tag_list:
            configs["rack.aware.assignment.tags"] = ",".join(tag_list)
        return dict(sorted(configs.items()))

    # ------------------------------------------------------------------ StreamsGroupHeartbeat
    def streams_group_heartbeat(self, request, client_id: str, client_host: str,
                                api_version: int) -> CoordinatorResult[StreamsGroupHeartbeatResult]:
        if request.member_epoch in (LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH):
            return self.streams_group_leave(request.group_id, request.instance_id, request.member_id,
                                            request.member_epoch, request.shutdown_application)
        return self.heartbeat(request, client_id, client_host, api_version)

    def heartbeat(self, req, client_id: str, client_host: str,
                  api_version: int) -> CoordinatorResult[StreamsGroupHeartbeatResult]:
        records: list[CoordinatorRecord] = []
        statuses: list[dict] = []
        group_id, member_id = req.group_id, req.member_id
        joining = req.member_epoch == JOIN_GROUP_MEMBER_EPOCH
        owned = (req.active_tasks, req.standby_tasks, req.warmup_tasks)
        if joining:
            group = self.get_or_create_streams_group(group_id, records)
            self.throw_if_streams_group_is_full(group, req.instance_id, member_id)
        else:
            group = self.streams_group_or_throw(group_id)
        replaced_static = None
        if req.instance_id is None:
            member = self.get_or_maybe_create_dynamic_member(group, member_id, req.member_epoch, owned,
                                                             joining)
        else:
            previous = group.static_member(req.instance_id)
            if previous is not None and previous.member_id != member_id:
                replaced_static = previous
            member = self.get_or_maybe_create_static_member(group, member_id, req.member_epoch,
                                                            req.instance_id, owned, joining, records)
        updated = member.updated_by_heartbeat(req, client_id, client_host, joining)
        update = AssignmentUpdate.NONE
        if self.has_member_metadata_changed(group_id, req.instance_id, member, updated, records):
            update = AssignmentUpdate.RECOMPUTE
        topology = self.maybe_update_topology(group_id, member_id, req.topology, group, records)
        if group.topology is not None and updated.topology_epoch < group.topology.topology_epoch:
            statuses.append(status(Status.STALE_TOPOLOGY,
                                   f"The member's topology epoch {updated.topology_epoch} is behind the "
                                   f"group's topology epoch {group.topology.topology_epoch}."))
        configured, metadata_hash, changed = self.configured_topology(group, member_id, topology)
        if changed:
            update = AssignmentUpdate.RECOMPUTE
        validated_topology_epoch = -1
        if configured.is_ready():
            validated_topology_epoch = topology.topology_epoch
            for tasks in owned:
                throw_if_request_contains_invalid_tasks(configured, tasks)
        if req.task_offsets is not None or req.task_end_offsets is not None:
            offsets = group.task_offsets(member_id).update(req.task_offsets, req.task_end_offsets)
            group.unpersisted.task_offsets[member_id] = offsets
        if validated_topology_epoch != group.validated_topology_epoch:
            update = AssignmentUpdate.RECOMPUTE
        configs = self.assignment_configs(group_id)
        if update is AssignmentUpdate.NONE and configs != group.last_assignment_configs:
            self.log.info("assignment configurations changed: triggering a rebalance", group_id=group_id,
                          configs=configs)
            update = AssignmentUpdate.RECOMPUTE
        if (update is AssignmentUpdate.NONE and group.state is StreamsGroupState.STABLE
                and not group.target_assignment.get(member_id, EMPTY).same_tasks(updated.assigned_tasks)):
            update = AssignmentUpdate.REFINED
        group_epoch = group.group_epoch
        if update is not AssignmentUpdate.NONE:
            group_epoch += 1
            records.append(records_of.new_streams_group_metadata_record(
                group_id, group_epoch, metadata_hash, validated_topology_epoch, configs))
            self.rebalance_count += 1
            self.log.info("bumped streams group epoch", group_id=group_id, member_id=member_id,
                          group_epoch=group_epoch, metadata_hash=metadata_hash,
                          validated_topology_epoch=validated_topology_epoch)
        if group.is_empty() and (delay := self.initial_rebalance_delay_ms(group_id)) > 0:
            self.timer.schedule_if_absent(initial_rebalance_timeout_key(group_id), delay, False,
                                          lambda: self.compute_delayed_target_assignment(group_id))
        target_epoch, target = self.maybe_update_target_assignment(
            group, group_epoch, updated, configured, records, statuses, configs,
            refine_only=update is AssignmentUpdate.REFINED)
        updated = self.maybe_reconcile(group_id, group, updated, target_epoch, target.get(member_id, EMPTY),
                                       owned, records)
        self.schedule_session_timeout(group_id, member_id)
        if req.shutdown_application:
            group.set_shutdown_request_member_id(member_id)
        response = dict(error_code=Errors.NONE, error_message=None, member_id=updated.member_id,
                        member_epoch=updated.member_epoch,
                        heartbeat_interval_ms=self.heartbeat_interval_ms(group_id),
                        task_offset_interval_ms=self.task_offset_interval_ms(group_id),
                        acceptable_recovery_lag=self.acceptable_recovery_lag(group_id))
        changed_tasks = has_assigned_tasks_changed(member, updated)
        if joining or changed_tasks:
            response.update(active_tasks=task_ids(updated.assigned_tasks.active_tasks_with_epochs),
                            standby_tasks=task_ids(updated.assigned_tasks.standby_tasks),
                            warmup_tasks=task_ids(updated.assigned_tasks.warmup_tasks))
        response.update(endpoint_information(group, member, updated, replaced_static, joining, changed_tasks,
                                             req.endpoint_information_epoch, self.topics_image,
                                             group.group_id in self.groups))
        to_create: dict[str, CreatableTopic] = {}
        if configured.topic_configuration_exception is not None:
            problem = configured.topic_configuration_exception
            to_create = configured.internal_topics_to_be_created
            statuses.append(status(problem.status, problem.message))
        if group.unpersisted.shutdown_request_member_id is not None:
            statuses.append(status(Status.SHUTDOWN_APPLICATION,
                                   f"Streams group member {group.unpersisted.shutdown_request_member_id} "
                                   "encountered a fatal error and requested a shutdown for the entire "
                                   "application."))
        tags = configs.get("rack.aware.assignment.tags", "").strip()
        if api_version >= 1 and tags:
            missing = [t for t in (t.strip() for t in tags.split(",")) if t not in updated.client_tags]
            if missing:
                statuses.append(status(Status.MISSING_CLIENT_TAGS,
                                       "Missing required client tags for rack-aware standby assignment: "
                                       f"[{', '.join(missing)}]. Configure them via 'client.tag.<tagKey>' in "
                                       "your Streams config."))
        response["status"] = statuses
        return CoordinatorResult(records, StreamsGroupHeartbeatResult(response, to_create))

    def get_or_create_streams_group(self, group_id: str, records: list[CoordinatorRecord]) -> StreamsGroup:
        """The stored group, or a new one only the records will store; an empty classic group is replaced."""
        group = self.groups.get(group_id)
        if group is None:
            return StreamsGroup(group_id)
        if group.type() is GroupType.CLASSIC and group.is_empty():
            records.extend(group.create_group_tombstone_records())
            self.log.info("converted the empty classic group to a streams group", group_id=group_id)
            return StreamsGroup(group_id)
        return cast_to_streams_group(group)

    def streams_group_or_throw(self, group_id: str) -> StreamsGroup:
        group = self.groups.get(group_id)
        if group is None:
            raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Streams group {group_id} not found.")
        return cast_to_streams_group(group)

    def throw_if_streams_group_is_full(self, group: StreamsGroup, instance_id: str | None,
                                       member_id: str) -> None:
        if group.static_member(instance_id) is not None:
            return
        max_size = self.config.streams_group_max_size
        if len(group.members) >= max_size and (not member_id or member_id not in group.members):
            raise ApiError(Errors.GROUP_MAX_SIZE_REACHED,
                           f"The streams group has reached its maximum capacity of {max_size} members.")

    def get_or_maybe_create_dynamic_member(self, group: StreamsGroup, member_id: str, epoch: int, owned,
                                           joining: bool) -> StreamsGroupMember:
        member = group.members.get(member_id)
        if member is None:
            if not joining:
                raise ApiError(Errors.UNKNOWN_MEMBER_ID, f"Member {member_id} is not a member of group "
                                                         f"{group.group_id}.")
            member = StreamsGroupMember(member_id)
        throw_if_member_epoch_is_invalid(member, epoch, owned)
        if joining:
            self.log.info("member joins the streams group", group_id=group.group_id, member_id=member_id)
        return member

    def get_or_maybe_create_static_member(self, group: StreamsGroup, member_id: str, epoch: int,
                                          instance_id: str,
                                          owned, joining: bool, records: list) -> StreamsGroupMember:
        existing = group.static_member(instance_id)
        if joining:
            if existing is None:
                self.log.info("static member joins the streams group", group_id=group.group_id,
                              member_id=member_id, instance_id=instance_id)
                return group.members.get(member_id) or StreamsGroupMember(member_id)
            if existing.member_epoch != LEAVE_GROUP_STATIC_MEMBER_EPOCH:
                raise ApiError(Errors.UNRELEASED_INSTANCE_ID,
                               f"Static member {member_id} with instance id {instance_id} cannot join the "
                               f"group because the instance id is owned by {existing.member_id} member.")
            new = existing.replace(member_id=member_id, member_epoch=0, previous_member_epoch=0)
            records.extend(records_of.remove_streams_member(group.group_id, existing.member_id))
            records.append(records_of.new_streams_group_member_record(group.group_id, new))
            records.append(records_of.new_streams_group_target_assignment_record(
                group.group_id, member_id, group.target_assignment_of(existing.member_id)))
            records.append(records_of.new_streams_group_current_assignment_record(group.group_id, new))
            self.log.info("static member re-joins the streams group", group_id=group.group_id,
                          member_id=member_id, replaced=existing.member_id, instance_id=instance_id)
            return new
        existing = throw_if_static_member_is_unknown_or_fenced(existing, group.group_id, member_id,
                                                               instance_id)
        throw_if_member_epoch_is_invalid(existing, epoch, owned)
        return existing

    def has_member_metadata_changed(self, group_id: str, instance_id: str | None, member: StreamsGroupMember,
                                    updated: StreamsGroupMember, records: list) -> bool:
        if updated == member:
            return False
        records.append(records_of.new_streams_group_member_record(group_id, updated))
        self.log.info("member updated its metadata", group_id=group_id, member_id=updated.member_id,
                      process_id=updated.process_id, topology_epoch=updated.topology_epoch)
        if instance_id is None:
            return True
        return (member.topology_epoch, member.rack_id, member.client_tags, member.process_id) != (
            updated.topology_epoch, updated.rack_id, updated.client_tags, updated.process_id)

    def maybe_update_topology(self, group_id: str, member_id: str, topology, group: StreamsGroup,
                              records: list) -> StreamsTopology:
        """A joining member's topology: the group's first (written), an older epoch (the group's kept, the
        member told it is stale), or the same one; another topology at the same or a newer epoch is
        refused."""
        if topology is None:
            if group.topology is None:
                raise ApiError(Errors.UNKNOWN_SERVER_ERROR,
                               "The topology is null and the group topology is also null.")
            return group.topology
        value = topology_record_value(topology)
        sent = StreamsTopology.from_record(value)
        if group.topology is None:
            self.log.info("member initialized the topology", group_id=group_id, member_id=member_id,
                          topology_epoch=topology.epoch)
            records.append(records_of.new_streams_group_topology_record(group_id, value))
            return sent
        if group.topology.topology_epoch > topology.epoch:
            self.log.info("member joined with a stale topology epoch", group_id=group_id, member_id=member_id,
                          topology_epoch=topology.epoch)
            return group.topology
        if group.topology != sent:
            raise ApiError(Errors.INVALID_REQUEST, "Topology updates are not supported yet.")
        return group.topology

    def configured_topology(self, group: StreamsGroup, member_id: str,
                            topology: StreamsTopology) -> tuple[ConfiguredTopology, int, bool]:
        """(the configured topology, the metadata hash, whether the hash changed). Configured anew when the
        topology is new or the metadata of its topics changed (Kafka recomputes the hash only when the image
        changed those topics; here at each heartbeat, with the same result)."""
        topics = self.topics_image()
        metadata_hash = compute_metadata_hash(topology.required_topics(), topics)
        changed = metadata_hash != group.metadata_hash
        if changed:
            self.log.info("computed a new metadata hash", group_id=group.group_id,
                          metadata_hash=metadata_hash)
        configured = group.configured_topology
        if group.topology is None or changed or configured is None:
            configured = configure_topics(group.group_id, member_id, metadata_hash, topology, topics)
            group.set_configured_topology(configured)
        return configured, metadata_hash, changed

    def maybe_update_target_assignment(self, group: StreamsGroup, group_epoch: int,
                                       member: StreamsGroupMember | None, configured: ConfiguredTopology,
                                       records: list, statuses: list | None, configs: dict[str, str],
                                       refine_only: bool = False) -> tuple[int, dict[str, TasksTuple]]:
        """(the target's epoch, the target): a new one when the group epoch moved past it and neither the
        initial rebalance delay nor the assignment interval holds it back."""
        if self.timer.is_scheduled(initial_rebalance_timeout_key(group.group_id)):
            if statuses is not None:
                statuses.append(status(Status.ASSIGNMENT_DELAYED, "Assignment delayed due to the configured "
                                                                  "initial rebalance delay."))
            return group.assignment_epoch, {}
        members, target = group.members_and_target_with(member)
        if group.assignment_epoch >= group_epoch:
            return group.assignment_epoch, target
        if refine_only and group.assignment_epoch >= group.group_epoch:
            records.append(records_of.new_streams_group_target_assignment_metadata_record(
                group.group_id, group_epoch, group.assignment_timestamp))
            return group_epoch, target
        now = self.time.milliseconds()
        interval = self.assignment_interval_ms(group.group_id)
        if group.assignment_timestamp != 0 and interval != 0 and now < group.assignment_timestamp + interval:
            if statuses is not None:
                statuses.append(status(Status.ASSIGNMENT_DELAYED, "Assignment delayed due to the configured "
                                                                  "assignment interval."))
            return group.assignment_epoch, target
        assignor = self.assignor(group.group_id)
        builder = (TargetAssignmentBuilder(group.group_id, group_epoch, assignor, configs, now)
                   .with_members(members).with_topology(configured).with_target_assignment(target)
                   .with_task_offsets(group.unpersisted.task_offsets))
        try:
            new_records, new_target = builder.build()
        except TaskAssignorException as e:
            raise ApiError(Errors.UNKNOWN_SERVER_ERROR,
                           f"Failed to compute a new target assignment for epoch {group_epoch}: {e}"
                           ) from e
        self.log.info("computed a new target assignment", group_id=group.group_id, epoch=group_epoch,
                      assignor=assignor.name())
        records.extend(new_records)
        return group_epoch, new_target

    def maybe_reconcile(self, group_id: str, group: StreamsGroup, member: StreamsGroupMember,
                        target_epoch: int,
                        target: TasksTuple, owned, records: list) -> StreamsGroupMember:
        if member.is_reconciled_to(target_epoch):
            return member
        owned_tasks = TasksTuple.from_heartbeat_request(*owned) if None not in owned else None
        active, standby, warmup = group.task_process_ids()
        updated = (CurrentAssignmentBuilder(member).with_target_assignment(target_epoch, target)
                   .with_current_task_process_ids(lambda s, p: active.get((s, p)),
                                                  lambda s, p: standby.get((s, p), set()),
                                                  lambda s, p: warmup.get((s, p), set()))
                   .with_owned_assignment(owned_tasks).build())
        if updated != member:
            records.append(records_of.new_streams_group_current_assignment_record(group_id, updated))
            self.log.info("member's new assignment state", group_id=group_id, member_id=updated.member_id,
                          epoch=updated.member_epoch, previous_epoch=updated.previous_member_epoch,
                          state=str(updated.state), assigned=str(updated.assigned_tasks),
                          pending_revocation=str(updated.tasks_pending_revocation))
            if updated.state is MemberState.UNREVOKED_TASKS:
                self.schedule_rebalance_timeout(group_id, updated.member_id, updated.member_epoch,
                                                updated.rebalance_timeout_ms)
            else:
                self.timer.cancel(rebalance_timeout_key(group_id, updated.member_id))
        return updated

    def compute_delayed_target_assignment(self, group_id: str) -> CoordinatorResult[None]:
        """The initial rebalance delay is over: the first target, for everyone who joined meanwhile."""
        group = self.groups.get(group_id)
        if not isinstance(group, StreamsGroup) or group.is_empty() or group.configured_topology is None:
            return CoordinatorResult([])
        records: list = []
        self.maybe_update_target_assignment(group, group.group_epoch, None, group.configured_topology,
                                            records, None,
                                            group.last_assignment_configs)
        return CoordinatorResult(records)

    # ------------------------------------------------------------------ leaving, fencing, timers
    def streams_group_leave(self, group_id: str, instance_id: str | None, member_id: str, member_epoch: int,
                            shutdown_application: bool) -> CoordinatorResult[StreamsGroupHeartbeatResult]:
        group = self.streams_group_or_throw(group_id)
        if shutdown_application:
            group.set_shutdown_request_member_id(member_id)
        response = dict(error_code=Errors.NONE, error_message=None, member_id=member_id,
                        member_epoch=member_epoch, heartbeat_interval_ms=0, task_offset_interval_ms=0,
                        status=[], endpoint_information_epoch=0)
        if instance_id is None:
            member = group.member_or_throw(member_id)
            self.log.info("member left the streams group", group_id=group_id, member_id=member_id)
            return self.streams_group_fence_member(group, member, StreamsGroupHeartbeatResult(response))
        member = throw_if_static_member_is_unknown_or_fenced(group.static_member(instance_id), group_id,
                                                             member_id, instance_id)
        if member_epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
            self.log.info("static member temporarily left the streams group", group_id=group_id,
                          member_id=member_id)
            leaving = member.replace(member_epoch=LEAVE_GROUP_STATIC_MEMBER_EPOCH,
                                     tasks_pending_revocation=EMPTY_WITH_EPOCHS,
                                     assigned_tasks=member.assigned_tasks.with_active_epochs_reset())
            response.update(member_id=member.member_id, member_epoch=LEAVE_GROUP_STATIC_MEMBER_EPOCH)
            record = records_of.new_streams_group_current_assignment_record(group_id, leaving)
            return CoordinatorResult([record], StreamsGroupHeartbeatResult(response))
        self.log.info("static member left the streams group", group_id=group_id, member_id=member_id)
        return self.streams_group_fence_member(group, member, StreamsGroupHeartbeatResult(response))

    def streams_group_fence_member(self, group: StreamsGroup, member: StreamsGroupMember,
                                   response) -> CoordinatorResult:
        """The member's records go, and the group epoch moves so the others share its tasks; the last member
        going also resets the target's epoch."""
        gid = group.group_id
        records = records_of.remove_streams_member(gid, member.member_id)
        group_epoch = group.group_epoch + 1
        records.append(records_of.new_streams_group_metadata_record(
            gid, group_epoch, group.metadata_hash, group.validated_topology_epoch,
            group.last_assignment_configs))
        if len(group.members) == 1:
            records.append(
                records_of.new_streams_group_target_assignment_metadata_record(gid, group_epoch, 0))
        self.cancel_timers(gid, member.member_id)
        return CoordinatorResult(records, response)

    def fence_member_operation(self, group_id: str, member_id: str, reason: str) -> CoordinatorResult[None]:
        """Kafka's streamsGroupFenceMemberOperation: nothing when the group or member is gone already."""
        group = self.groups.get(group_id)
        member = group.members.get(member_id) if isinstance(group, StreamsGroup) else None
        if member is None:
            return CoordinatorResult([])
        self.log.info("streams member fenced from the group", group_id=group_id, member_id=member_id,
                      reason=reason)
        return self.streams_group_fence_member(group, member, None)

    def cancel_timers(self, group_id: str, member_id: str) -> None:
        self.timer.cancel(session_timeout_key(group_id, member_id))
        self.timer.cancel(rebalance_timeout_key(group_id, member_id))

    def schedule_session_timeout(self, group_id: str, member_id: str) -> None:
        self.timer.schedule(session_timeout_key(group_id, member_id), self.session_timeout_ms(group_id), True,
                            lambda: self.fence_member_operation(group_id, member_id,
                                                                "the member session expired."))

    def schedule_rebalance_timeout(self, group_id: str, member_id: str, member_epoch: int,
                                   timeout_ms: int) -> None:
        """A member asked to give up tasks must do so (and so move past ``member_epoch``) in time."""
        def expire() -> CoordinatorResult[None]:
            group = self.groups.get(group_id)
            member = group.members.get(member_id) if isinstance(group, StreamsGroup) else None
            if member is None or member.member_epoch != member_epoch:
                return CoordinatorResult([])
            reason = f"it failed to transition from epoch {member_epoch} within {timeout_ms}ms"
            return self.fence_member_operation(group_id, member_id, reason)
        self.timer.schedule(rebalance_timeout_key(group_id, member_id), max(timeout_ms, 0), True, expire)

    def on_loaded(self) -> None:
        """The partition is loaded: every member gets a session from now, and a member still giving up tasks
        its rebalance timeout again."""
        for group in self.streams_groups():
            for member in group.members.values():
                self.schedule_session_timeout(group.group_id, member.member_id)
                if member.state is MemberState.UNREVOKED_TASKS:
                    self.schedule_rebalance_timeout(group.group_id, member.member_id, member.member_epoch,
                                                    member.rebalance_timeout_ms)
            self.log.info("loaded streams group", group_id=group.group_id, members=len(group.members))

    # ------------------------------------------------------------------ views
    def streams_groups(self, committed_offset: int = LATEST_EPOCH) -> list[StreamsGroup]:
        return [g for g in self.groups.values_at(committed_offset) if isinstance(g, StreamsGroup)]

    def streams_group_describe(self, group_ids: list[str],
                               committed_offset: int = LATEST_EPOCH) -> list[dict]:
        """StreamsGroupDescribe's groups, read at the committed offset."""
        described = []
        for group_id in group_ids:
            group = self.groups.get_at(group_id, committed_offset)
            if not isinstance(group, StreamsGroup):
                described.append(dict(group_id=group_id, error_code=Errors.GROUP_ID_NOT_FOUND,
                                      error_message=f"Group {group_id} not found." if group is None
                                      else f"Group {group_id} is not a streams group."))
                continue
            described.append(group.as_described_group(self.assignor(group_id).name()))
        return described


# ------------------------------------------------------------------ the checks and helpers of a heartbeat
def cast_to_streams_group(group: Group) -> StreamsGroup:
    if group.type() is not GroupType.STREAMS:
        raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {group.group_id} is not a streams group.")
    return group
