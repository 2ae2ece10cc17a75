"""ClassicGroupManager: the classic groups of one __consumer_offsets partition (the classic half of
Kafka 4's org.apache.kafka.coordinator.group.GroupMetadataManager: classicGroupJoin, classicGroupSync,
classicGroupHeartbeat, classicGroupLeave, describeGroups, the replay of GroupMetadata records,
onLoaded and onUnloaded for classic groups).

The GroupMetadataManager (the shard's) owns the map of groups, classic and KIP-848 consumer groups
side by side, and hands it here with the shard's time and timer. JoinGroup and SyncGroup -- the
rebalance -- are the ClassicGroupRebalance's (``classic_group_rebalance.py``); this class holds what a
member does outside the rebalance, what the coordinator does when a partition comes and goes, and the
views: ::

    Heartbeat        -> classic_group_heartbeat: the "heartbeat-<group>-<member>" timer starts again
    session expired  -> the member is removed and the group rebalances (a consumer killed with
                        kill -9 loses its partitions this way)
    LeaveGroup       -> classic_group_leave: the same, at once
    DescribeGroups   -> describe: the entry of a group the caller read at the committed offset
    load / unload    -> replay of GroupMetadata records, on_loaded, on_unloaded

Every method runs inside one event of the shard, and returns a CoordinatorResult when it may write.
"""

from __future__ import annotations

import structlog

from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.group.classic.classic_group import ClassicGroup
from kafka.coordinator.group.classic.classic_group_member import ClassicGroupMember
from kafka.coordinator.group.classic.classic_group_rebalance import (
    EMPTY_RESULT,
    ClassicGroupRebalance,
    classic_group_heartbeat_key,
)
from kafka.coordinator.group.classic.classic_group_results import (
    UNKNOWN_MEMBER_ID,
    JoinCallback,
    JoinGroupResult,
    SyncCallback,
    SyncGroupResult,
)
from kafka.coordinator.group.classic.classic_group_state import ClassicGroupState
from kafka.coordinator.group.group import GroupType
from kafka.coordinator.group.group_coordinator_records import GroupMetadataKey
from kafka.coordinator.group.group_coordinator_requests import LeavingMember
from kafka.protocol.errors import Errors
from kafka.utils.time import Time

__all__ = ["ClassicGroupManager", "JoinGroupResult", "SyncGroupResult"]

# The old GroupCoordinator's logger: the lab's log excerpts name it.
log = structlog.get_logger("kafka.coordinator.GroupCoordinator")

EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD = (
    ClassicGroupState.EMPTY, ClassicGroupState.PREPARING_REBALANCE, ClassicGroupState.COMPLETING_REBALANCE,
    ClassicGroupState.STABLE, ClassicGroupState.DEAD)


class ClassicGroupManager:
    def __init__(self, groups, snapshot_registry, time: Time, timer, config, log_context: str = "") -> None:
        self.groups = groups  # the GroupMetadataManager's TimelineHashMap: classic and consumer groups
        self.snapshot_registry = snapshot_registry
        self.time = time
        self.timer = timer  # the shard's CoordinatorTimer: an expired key runs as a write event
        self.config = config  # GroupCoordinatorConfig: the classic_group_* settings
        self.log_context = log_context
        self.rebalance = ClassicGroupRebalance(groups, time, timer, config,
                                               self._expire_classic_group_member_heartbeat)

    # ------------------------------------------------------------------ groups
    def get_or_maybe_create_classic_group(self, group_id: str, create: bool) -> ClassicGroup:
        """The classic group, created Empty if absent and ``create`` (a first JoinGroup, or a simple
        consumer's offset commit); ApiError(GROUP_ID_NOT_FOUND) if absent or of another type."""
        return self.rebalance.get_or_maybe_create_classic_group(group_id, create)

    # ------------------------------------------------------------------ JoinGroup and SyncGroup
    def classic_group_join(self, context, request, response_callback: JoinCallback) -> CoordinatorResult:
        """A member joins (or rejoins). ``response_callback`` gets exactly one JoinGroupResult, now
        or from a later event (the rebalance completing, a failed write of the group's record).
        ``context`` has client_id and client_host; ``request`` JoinGroup's fields."""
        return self.rebalance.classic_group_join(
            request.group_id, request.member_id, request.group_instance_id, request.require_known_member_id,
            context.client_id, context.client_host, request.rebalance_timeout_ms, request.session_timeout_ms,
            request.protocol_type, request.protocols, response_callback, request.reason,
            context.api_version >= 9)

    def classic_group_sync(self, context, request, response_callback: SyncCallback) -> CoordinatorResult:
        """A member asks for its assignment, the leader bringing everyone's (``request.assignments``).
        ``response_callback`` gets exactly one SyncGroupResult, now or once the leader's assignment
        is written."""
        return self.rebalance.classic_group_sync(
            request.group_id, request.generation_id, request.member_id, request.protocol_type,
            request.protocol_name, request.group_instance_id, request.assignments, response_callback)

    # ------------------------------------------------------------------ Heartbeat and sessions
    def classic_group_heartbeat(self, context, request) -> CoordinatorResult:
        """A member is alive; its answer (Errors) is the result's response. REBALANCE_IN_PROGRESS
        is how members learn to rejoin."""
        group_id, member_id = request.group_id, request.member_id
        group_instance_id, generation_id = request.group_instance_id, request.generation_id
        group = self.rebalance.classic_group_or_none(group_id)
        if group is None:
            return CoordinatorResult(response=Errors.UNKNOWN_MEMBER_ID)
        if group.is_state(DEAD):
            return CoordinatorResult(response=Errors.COORDINATOR_NOT_AVAILABLE)
        error = group.validate_member(member_id, group_instance_id)
        if error is None and generation_id != group.generation_id:
            error = Errors.ILLEGAL_GENERATION
        if error is None and group.is_state(EMPTY):
            error = Errors.UNKNOWN_MEMBER_ID
        if error is not None:
            return CoordinatorResult(response=error)
        self.rebalance.reschedule_heartbeat(group, group.get(member_id))
        if group.is_state(PREPARING_REBALANCE):
            return CoordinatorResult(response=Errors.REBALANCE_IN_PROGRESS)
        return CoordinatorResult(response=Errors.NONE)

    def reschedule_classic_group_member_heartbeat(self, group: ClassicGroup,
                                                  member: ClassicGroupMember) -> None:
        """A sign of life from outside the rebalance (an offset commit): the session starts again."""
        self.rebalance.reschedule_heartbeat(group, member)

    def _expire_classic_group_member_heartbeat(self, group_id: str, member_id: str) -> CoordinatorResult:
        group = self.rebalance.classic_group_or_none(group_id)
        if group is None or group.is_state(DEAD):
            return EMPTY_RESULT
        if group.is_pending_member(member_id):
            log.info("pending member removed after session timeout", group=group_id, member=member_id)
            group.remove(member_id)
            return self.rebalance.maybe_complete_join_phase(group)
        if group.has(member_id) and not group.get(member_id).has_satisfied_heartbeat():
            log.info("member failed to heartbeat, removing it", group=group_id, member=member_id)
            return self._remove_member_and_update_group(group, group.get(member_id), "session timeout")
        return EMPTY_RESULT

    def _remove_member_and_update_group(self, group: ClassicGroup, member: ClassicGroupMember,
                                        reason: str) -> CoordinatorResult:
        # A new member may still wait in JoinGroup: tell it, so a live client rejoins.
        group.complete_join_callback(member, JoinGroupResult(Errors.UNKNOWN_MEMBER_ID))
        group.remove(member.member_id)
        if group.state in (STABLE, COMPLETING_REBALANCE):
            return self.rebalance.maybe_prepare_rebalance_or_complete_join(
                group, f"removing member {member.member_id}: {reason}")
        return self.rebalance.maybe_complete_join_phase(group)

    # ------------------------------------------------------------------ LeaveGroup
    def classic_group_leave(self, context, request) -> CoordinatorResult:
        """Members leave (a consumer closing, or the admin client removing static members by
        group.instance.id). The response is (error, [(member, its error)]) in the order asked."""
        group_id, members = request.group_id, request.members
        group = self.rebalance.classic_group_or_none(group_id)
        if group is None:
            return CoordinatorResult(response=(Errors.NONE, [(m, Errors.UNKNOWN_MEMBER_ID) for m in members]))
        if group.is_state(DEAD):
            return CoordinatorResult(response=(Errors.COORDINATOR_NOT_AVAILABLE,
                                               [(m, Errors.COORDINATOR_NOT_AVAILABLE) for m in members]))
        answers = [(m, self._leave_one(group, m)) for m in members]
        left = [m.member_id or m.group_instance_id for m, error in answers if error == Errors.NONE]
        result = EMPTY_RESULT
        if left and group.state in (STABLE, COMPLETING_REBALANCE):
            result = self.rebalance.maybe_prepare_rebalance_or_complete_join(
                group, f"explicit `LeaveGroup` request for ({', '.join(left)}) members.")
        elif left:
            result = self.rebalance.maybe_complete_join_phase(group)
        return CoordinatorResult(result.records, (Errors.NONE, answers), result.append_future,
                                 result.replay_records)

    def _leave_one(self, group: ClassicGroup, leaving: LeavingMember) -> Errors:
        member_id = leaving.member_id
        if member_id == UNKNOWN_MEMBER_ID and leaving.group_instance_id is not None:
            member_id = group.get_static_member_id(leaving.group_instance_id) or UNKNOWN_MEMBER_ID
            if member_id == UNKNOWN_MEMBER_ID:
                return Errors.UNKNOWN_MEMBER_ID
        if group.is_pending_member(member_id):
            group.remove(member_id)
            self.timer.cancel(classic_group_heartbeat_key(group.group_id, member_id))
            return Errors.NONE
        error = group.validate_member(member_id, leaving.group_instance_id)
        if error is not None:
            return error
        # Kafka: "Member {} has left group through explicit `LeaveGroup` request; client reason: {}"
        log.info("member has left group through explicit LeaveGroup request", group=group.group_id,
                 member=member_id, client_reason=leaving.reason or "not provided")
        self.timer.cancel(classic_group_heartbeat_key(group.group_id, member_id))
        group.complete_join_callback(group.get(member_id), JoinGroupResult(Errors.UNKNOWN_MEMBER_ID))
        group.remove(member_id)
        return Errors.NONE

    # ------------------------------------------------------------------ DescribeGroups
    @staticmethod
    def describe(group: ClassicGroup) -> dict:
        """DescribeGroups' entry for a classic group (the caller read it at the committed offset).
        Metadata, assignments and the protocol only once the group is Stable on a protocol."""
        protocol = group.protocol_name if group.is_state(STABLE) else None
        members = [m.summary(protocol) for m in group.members.values()]
        return dict(group_state=group.state_as_string(), protocol_type=group.protocol_type(),
                    protocol_data=protocol or "",
                    members=[dict(member_id=m.member_id, group_instance_id=m.group_instance_id,
                                  client_id=m.client_id, client_host=m.client_host,
                                  member_metadata=m.metadata,
                                  member_assignment=m.assignment) for m in members])

    # ------------------------------------------------------------------ load and unload
    def replay(self, key: GroupMetadataKey, value) -> None:
        """A GroupMetadata record read back while loading (or a tombstone written by a delete):
        the latest one is the group; a tombstone removes it."""
        group_id = key.group
        if value is None:
            if self.rebalance.classic_group_or_none(group_id) is not None:
                del self.groups[group_id]
            return
        self.groups[group_id] = ClassicGroup.from_record_value(group_id, value, self.time)

    def on_loaded(self) -> None:
        """The partition is loaded: members found in the log get a session timeout from now to show
        up again."""
        for group in list(self.groups.values()):
            if group.type() is GroupType.CLASSIC:
                for member in group.members.values():
                    self.rebalance.reschedule_heartbeat(group, member)

    def on_unloaded(self) -> None:
        """This broker stopped leading the partition: whoever waits in a JoinGroup or SyncGroup hears
        NOT_COORDINATOR and looks the coordinator up again."""
        for group in list(self.groups.values()):
            if group.type() is not GroupType.CLASSIC:
                continue
            group.transition_to(DEAD)
            for member in list(group.members.values()):
                group.complete_join_callback(member,
                                             JoinGroupResult(Errors.NOT_COORDINATOR, member.member_id))
                group.complete_sync_callback(member, SyncGroupResult(Errors.NOT_COORDINATOR))
