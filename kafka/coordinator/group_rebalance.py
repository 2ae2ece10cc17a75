"""GroupRebalance: the rebalance, JoinGroup to SyncGroup, as the GroupCoordinator runs it (Kafka's
kafka.coordinator.group.GroupCoordinator keeps these in the same class: handleJoinGroup,
prepareRebalance, onCompleteJoin, handleSyncGroup; here they are a file of their own, the
GroupCoordinator's second half).

Seed 004: "Every consumer sends Join Group Request to the Group Coordinator (a broker). The Group
Coordinator elects a leader from one of the consumers. The group leader assigns partitions to the
consumers." One rebalance, as the code runs it::

    JoinGroup (each member)  -> prepare_rebalance: PreparingRebalance, DelayedJoin in the purgatory
    last member rejoins      -> on_complete_join: new generation, CompletingRebalance; every parked
                                JoinGroup is answered, the leader's with all members' subscriptions
    SyncGroup (leader)       -> store_group in __consumer_offsets -> Stable; every parked SyncGroup
                                gets its member's share of the leader's assignment

The broker never computes an assignment: it only relays the leader's (the assignors are the
consumer's, ``kafka/clients/consumer/assignors/``). The GroupCoordinator hands it what a rebalance
shares with the rest of membership: the group cache (GroupMetadataManager, which also validates a
request's group), the Rebalance purgatory and the member sessions (HeartbeatScheduler); nothing here
calls back into the coordinator. A group's fields are guarded by ``group.lock``, which its DelayedJoin
shares.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import structlog

from kafka.coordinator.delayed_join import DelayedJoin, InitialDelayedJoin
from kafka.coordinator.group_metadata import GroupMetadata, GroupState
from kafka.coordinator.group_metadata_manager import GroupMetadataManager
from kafka.coordinator.heartbeat_scheduler import HeartbeatScheduler
from kafka.coordinator.member_metadata import UNKNOWN_MEMBER_ID, MemberMetadata
from kafka.protocol.errors import Errors
from kafka.purgatory.delayed_operation_key import GroupKey
from kafka.purgatory.delayed_operation_purgatory import DelayedOperationPurgatory
from kafka.utils.time import Time

log = structlog.get_logger("kafka.coordinator.GroupCoordinator")

NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000  # a new member must complete its first join within this
@dataclass
class JoinGroupResult:
    error: Errors
    member_id: str = UNKNOWN_MEMBER_ID
    generation_id: int = -1
    protocol_type: str | None = None
    protocol_name: str | None = None
    leader_id: str = ""
    members: list[dict] = field(default_factory=list)  # only the leader's result carries them


@dataclass
class SyncGroupResult:
    error: Errors
    protocol_type: str | None = None
    protocol_name: str | None = None
    assignment: bytes = b""


class GroupRebalance:
    """JoinGroup, the DelayedJoin's callbacks and SyncGroup, for the coordinator's groups."""

    def __init__(self, group_manager: GroupMetadataManager, rebalance_purgatory: DelayedOperationPurgatory,
                 heartbeats: HeartbeatScheduler, group_config, time: Time) -> None:
        self.group_manager = group_manager
        self.rebalance_purgatory = rebalance_purgatory
        self.heartbeats = heartbeats
        self.group_config = group_config  # the GroupCoordinator's GroupConfig (group.* settings)
        self.time = time

    # ------------------------------------------------------------------ JoinGroup
    def handle_join_group(self, group_id: str, member_id: str, group_instance_id: str | None,
                          require_known_member_id: bool, client_id: str, client_host: str,
                          rebalance_timeout_ms: int, session_timeout_ms: int, protocol_type: str,
                          protocols: list[tuple[str, bytes]], response_callback: Callable[[JoinGroupResult], None],
                          ) -> None:
        error = self.group_manager.validate_group_status(group_id, allow_empty_id=False)
        if error is None and not (self.group_config.group_min_session_timeout_ms <= session_timeout_ms
                                  <= self.group_config.group_max_session_timeout_ms):
            error = Errors.INVALID_SESSION_TIMEOUT
        if error is not None:
            response_callback(JoinGroupResult(error, member_id))
            return
        is_unknown_member = member_id == UNKNOWN_MEMBER_ID
        group = self.group_manager.get_group(group_id)
        if group is None and is_unknown_member:
            group = self.group_manager.add_group(GroupMetadata(group_id, GroupState.EMPTY, self.time))
        if group is None:
            response_callback(JoinGroupResult(Errors.UNKNOWN_MEMBER_ID, member_id))
            return
        with group.lock:
            if not group.has(member_id) and group.size() >= self.group_config.group_max_size:
                response_callback(JoinGroupResult(Errors.GROUP_MAX_SIZE_REACHED, member_id))
            elif not group.is_state(GroupState.EMPTY) and not group.supports_protocols(
                    protocol_type, {name for name, _ in protocols}):
                response_callback(JoinGroupResult(Errors.INCONSISTENT_GROUP_PROTOCOL, member_id))
            elif is_unknown_member:
                self.do_new_member_join_group(group, group_instance_id, require_known_member_id, client_id,
                                              client_host, rebalance_timeout_ms, session_timeout_ms,
                                              protocol_type, protocols, response_callback)
            else:
                self.do_current_member_join_group(group, member_id, group_instance_id, client_id, client_host,
                                                  rebalance_timeout_ms, session_timeout_ms, protocol_type,
                                                  protocols, response_callback)
            # This join may have been the last one the rebalance waited for.
            if group.is_state(GroupState.PREPARING_REBALANCE):
                self.rebalance_purgatory.check_and_complete(GroupKey(group_id))

    def do_new_member_join_group(self, group, group_instance_id, require_known_member_id, client_id, client_host,
                                 rebalance_timeout_ms, session_timeout_ms, protocol_type, protocols,
                                 response_callback) -> None:
        if group.is_state(GroupState.DEAD):  # deleted or unloaded meanwhile: find the coordinator again
            response_callback(JoinGroupResult(Errors.COORDINATOR_NOT_AVAILABLE))
            return
        new_member_id = group.generate_member_id(client_id, group_instance_id)
        if group_instance_id is not None:
            old_member_id = group.get_static_member_id(group_instance_id)
            if old_member_id is not None:
                self.update_static_member_and_rebalance(group, old_member_id, new_member_id, group_instance_id,
                                                        protocols, rebalance_timeout_ms, session_timeout_ms,
                                                        response_callback)
                return
        elif require_known_member_id:
            # KIP-394: hand out the id first, so a client that times out and retries does not
            # leave a stream of unknown members behind. It must join again with this id.
            group.pending_members.add(new_member_id)
            self.heartbeats.add_pending_member_expiration(group, new_member_id, session_timeout_ms)
            response_callback(JoinGroupResult(Errors.MEMBER_ID_REQUIRED, new_member_id))
            return
        self.add_member_and_rebalance(group, new_member_id, group_instance_id, client_id, client_host,
                                      rebalance_timeout_ms, session_timeout_ms, protocol_type, protocols,
                                      response_callback)

    def do_current_member_join_group(self, group, member_id, group_instance_id, client_id, client_host,
                                     rebalance_timeout_ms, session_timeout_ms, protocol_type, protocols,
                                     response_callback) -> None:
        if group.is_state(GroupState.DEAD):
            response_callback(JoinGroupResult(Errors.COORDINATOR_NOT_AVAILABLE, member_id))
            return
        if member_id in group.pending_members:  # the second join of KIP-394, now with its id
            self.add_member_and_rebalance(group, member_id, group_instance_id, client_id, client_host,
                                          rebalance_timeout_ms, session_timeout_ms, protocol_type, protocols,
                                          response_callback)
            return
        error = group.validate_member(member_id, group_instance_id)
        if error is not None:
            response_callback(JoinGroupResult(error, member_id))
            return
        member = group.get(member_id)
        if group.is_state(GroupState.PREPARING_REBALANCE):
            self.update_member_and_rebalance(group, member, protocols, rebalance_timeout_ms, session_timeout_ms,
                                             response_callback)
        elif group.is_state(GroupState.COMPLETING_REBALANCE):
            if member.matches(protocols):
                # A retried JoinGroup whose first answer got lost: answer it again.
                response_callback(self.join_result(group, member))
            else:
                self.update_member_and_rebalance(group, member, protocols, rebalance_timeout_ms,
                                                 session_timeout_ms, response_callback)
        elif group.is_state(GroupState.STABLE):
            if group.is_leader(member_id) or not member.matches(protocols):
                # The leader rejoins to trigger a rebalance (e.g. it saw new partitions); a member
                # with new metadata (e.g. a new subscription) needs one too.
                self.update_member_and_rebalance(group, member, protocols, rebalance_timeout_ms,
                                                 session_timeout_ms, response_callback)
            else:
                response_callback(JoinGroupResult(Errors.NONE, member_id, group.generation_id, group.protocol_type,
                                                  group.protocol_name, group.leader_id or ""))
        else:  # Empty
            response_callback(JoinGroupResult(Errors.UNKNOWN_MEMBER_ID, member_id))

    def join_result(self, group: GroupMetadata, member: MemberMetadata) -> JoinGroupResult:
        leader = group.is_leader(member.member_id)
        return JoinGroupResult(Errors.NONE, member.member_id, group.generation_id, group.protocol_type,
                               group.protocol_name, group.leader_id or "",
                               group.current_member_metadata() if leader else [])

    def add_member_and_rebalance(self, group, member_id, group_instance_id, client_id, client_host,
                                 rebalance_timeout_ms, session_timeout_ms, protocol_type, protocols,
                                 response_callback) -> None:
        member = MemberMetadata(member_id, group_instance_id, client_id, client_host, rebalance_timeout_ms,
                                session_timeout_ms, protocol_type, protocols)
        member.is_new = True
        if group.is_state(GroupState.PREPARING_REBALANCE) and group.generation_id == 0:
            group.new_member_added = True  # InitialDelayedJoin waits one more delay for company
        group.add(member, response_callback)
        # Until its first join completes a new member is held to NEW_MEMBER_JOIN_TIMEOUT_MS, not
        # its session timeout, so it is not expired while the rebalance it asked for is running.
        self.heartbeats.complete_and_schedule_next_expiration(group, member, NEW_MEMBER_JOIN_TIMEOUT_MS)
        self.maybe_prepare_rebalance(group, f"adding new member {member_id}")

    def update_member_and_rebalance(self, group, member, protocols, rebalance_timeout_ms, session_timeout_ms,
                                    response_callback) -> None:
        group.update_member(member, protocols, rebalance_timeout_ms, session_timeout_ms, response_callback)
        self.maybe_prepare_rebalance(group, f"updating metadata for member {member.member_id}")

    def update_static_member_and_rebalance(self, group, old_member_id, new_member_id, group_instance_id,
                                           protocols, rebalance_timeout_ms, session_timeout_ms,
                                           response_callback) -> None:
        """KIP-345: a static member came back (say after a restart) under a new member id. In a
        Stable group it takes over its old entry and assignment without a rebalance."""
        current_leader = group.leader_id
        member = group.replace_static_member(group_instance_id, old_member_id, new_member_id,
                                             lambda _: JoinGroupResult(Errors.FENCED_INSTANCE_ID, old_member_id))
        self.heartbeats.complete_and_schedule_next_heartbeat_expiration(group, member)
        old = (member.supported_protocols, member.rebalance_timeout_ms, member.session_timeout_ms)
        group.update_member(member, protocols, rebalance_timeout_ms, session_timeout_ms, response_callback)
        if group.is_state(GroupState.STABLE):
            if group.protocol_name != group.select_protocol():
                self.maybe_prepare_rebalance(group, f"static member {group_instance_id} changed protocols")
                return
            assignment = {m.member_id: m.assignment for m in group.members.values()}

            def on_stored(error: Errors) -> None:
                with group.lock:
                    if error != Errors.NONE:  # not persisted: put the old member back
                        group.update_member(member, *old, None)
                        group.replace_static_member(group_instance_id, new_member_id, old_member_id,
                                                    lambda _: JoinGroupResult(error))
                        response_callback(JoinGroupResult(error, UNKNOWN_MEMBER_ID, group.generation_id))
                        return
                    # The old leader id is returned so that a rejoining leader does not run an
                    # assignment that a Stable group would never distribute (JoinGroup < v9).
                    group.maybe_invoke_join_callback(member, JoinGroupResult(
                        Errors.NONE, new_member_id, group.generation_id, group.protocol_type,
                        group.protocol_name, current_leader or ""))

            self.group_manager.store_group(group, assignment, on_stored)
        elif group.is_state(GroupState.COMPLETING_REBALANCE):
            # The leader may already be assigning to the old member id: start over.
            self.prepare_rebalance(group, f"static member {group_instance_id} rejoined with a new member id")
        # PreparingRebalance: the updated member simply waits for the rebalance like everyone else.

    # ------------------------------------------------------------------ rebalancing
    def maybe_prepare_rebalance(self, group: GroupMetadata, reason: str) -> None:
        with group.lock:
            if group.can_rebalance():
                self.prepare_rebalance(group, reason)

    def prepare_rebalance(self, group: GroupMetadata, reason: str) -> None:
        if group.is_state(GroupState.COMPLETING_REBALANCE):
            # Members parked in SyncGroup will not get this generation's assignment: rejoin.
            self.reset_and_propagate_assignment_error(group, Errors.REBALANCE_IN_PROGRESS)
        if group.is_state(GroupState.EMPTY):
            delay = self.group_config.group_initial_rebalance_delay_ms
            rebalance_timeout = group.rebalance_timeout_ms()
            delayed: DelayedJoin = InitialDelayedJoin(self, self.rebalance_purgatory, group, delay, delay,
                                                      max(rebalance_timeout - delay, 0))
        else:
            delayed = DelayedJoin(self, group, group.rebalance_timeout_ms())
        group.transition_to(GroupState.PREPARING_REBALANCE)
        log.info("preparing to rebalance group", group=group.group_id, generation=group.generation_id,
                 reason=reason)
        self.rebalance_purgatory.try_complete_else_watch(delayed, [GroupKey(group.group_id)])

    def try_complete_join(self, group: GroupMetadata, force_complete: Callable[[], bool]) -> bool:
        with group.lock:
            return force_complete() if group.has_all_members_joined() else False

    def on_expire_join(self, group: GroupMetadata) -> None:
        log.debug("rebalance timeout passed", group=group.group_id)  # on_complete_join did the work

    def on_complete_join(self, group: GroupMetadata) -> None:
        with group.lock:
            for member in group.not_yet_rejoined_members():
                if not member.is_static_member:  # static members keep their place until their session ends
                    group.remove(member.member_id)
                    self.heartbeats.remove_heartbeat_for_leaving_member(group, member.member_id)
            if group.is_state(GroupState.DEAD):
                return
            if not group.maybe_elect_new_joined_leader() and not group.is_empty():
                # Nobody rejoined: wait again until session timeouts clear out the silent members.
                self.rebalance_purgatory.try_complete_else_watch(
                    DelayedJoin(self, group, group.rebalance_timeout_ms()), [GroupKey(group.group_id)])
                return
            group.init_next_generation()
            if group.is_state(GroupState.EMPTY):
                log.info("group is now empty", group=group.group_id, generation=group.generation_id)
                self.group_manager.store_group(group, {}, lambda error: None)
                return
            log.info("stabilized group", group=group.group_id, generation=group.generation_id,
                     protocol=group.protocol_name, members=group.size(), leader=group.leader_id)
            for member in list(group.members.values()):
                group.maybe_invoke_join_callback(member, self.join_result(group, member))
                self.heartbeats.complete_and_schedule_next_heartbeat_expiration(group, member)
                member.is_new = False

    # ------------------------------------------------------------------ SyncGroup
    def handle_sync_group(self, group_id: str, generation_id: int, member_id: str, protocol_type: str | None,
                          protocol_name: str | None, group_instance_id: str | None,
                          group_assignment: dict[str, bytes],
                          response_callback: Callable[[SyncGroupResult], None]) -> None:
        error = self.group_manager.validate_group_status(group_id, allow_empty_id=False)
        if error == Errors.COORDINATOR_LOAD_IN_PROGRESS:
            # The group was here before the reload: its members must rejoin to restore state.
            error = Errors.REBALANCE_IN_PROGRESS
        if error is not None:
            response_callback(SyncGroupResult(error))
            return
        group = self.group_manager.get_group(group_id)
        if group is None:
            response_callback(SyncGroupResult(Errors.UNKNOWN_MEMBER_ID))
            return
        with group.lock:
            error = self.validate_sync(group, generation_id, member_id, group_instance_id, protocol_type,
                                       protocol_name)
            if error is not None:
                response_callback(SyncGroupResult(error))
            elif group.is_state(GroupState.PREPARING_REBALANCE):
                response_callback(SyncGroupResult(Errors.REBALANCE_IN_PROGRESS))
            elif group.is_state(GroupState.COMPLETING_REBALANCE):
                group.get(member_id).awaiting_sync_callback = response_callback
                if group.is_leader(member_id):
                    self.complete_leader_sync(group, generation_id, group_assignment)
            elif group.is_state(GroupState.STABLE):
                member = group.get(member_id)
                response_callback(SyncGroupResult(Errors.NONE, group.protocol_type, group.protocol_name,
                                                  member.assignment))
                self.heartbeats.complete_and_schedule_next_heartbeat_expiration(group, member)

    def validate_sync(self, group, generation_id, member_id, group_instance_id, protocol_type,
                      protocol_name) -> Errors | None:
        if group.is_state(GroupState.DEAD):
            return Errors.COORDINATOR_NOT_AVAILABLE
        if group.is_state(GroupState.EMPTY):
            return Errors.UNKNOWN_MEMBER_ID
        error = group.validate_member(member_id, group_instance_id)
        if error is not None:
            return error
        if generation_id != group.generation_id:
            return Errors.ILLEGAL_GENERATION
        if (protocol_type is not None and protocol_type != group.protocol_type) or (
                protocol_name is not None and protocol_name != group.protocol_name):
            return Errors.INCONSISTENT_GROUP_PROTOCOL
        return None

    def complete_leader_sync(self, group: GroupMetadata, generation_id: int, assignment: dict[str, bytes]) -> None:
        """The leader's assignment arrived: persist it, then become Stable and hand out the shares."""
        full = {member_id: assignment.get(member_id, b"") for member_id in group.members}

        def on_stored(error: Errors) -> None:
            with group.lock:
                # Only if nothing moved on meanwhile (a member left and a new rebalance began).
                if not (group.is_state(GroupState.COMPLETING_REBALANCE) and group.generation_id == generation_id):
                    return
                if error != Errors.NONE:
                    self.reset_and_propagate_assignment_error(group, error)
                    self.maybe_prepare_rebalance(group, f"failed to store the assignment: {error.name}")
                    return
                for member_id, member in group.members.items():
                    member.assignment = full.get(member_id, b"")
                group.transition_to(GroupState.STABLE)
                self.propagate_assignment(group, Errors.NONE)

        self.group_manager.store_group(group, full, on_stored)

    def reset_and_propagate_assignment_error(self, group: GroupMetadata, error: Errors) -> None:
        for member in group.members.values():
            member.assignment = b""
        self.propagate_assignment(group, error)

    def propagate_assignment(self, group: GroupMetadata, error: Errors) -> None:
        for member in list(group.members.values()):
            result = SyncGroupResult(error, group.protocol_type, group.protocol_name,
                                     member.assignment if error == Errors.NONE else b"")
            if group.maybe_invoke_sync_callback(member, result):
                # The assignment is a sign of life too: the session timeout starts now.
                self.heartbeats.complete_and_schedule_next_heartbeat_expiration(group, member)
