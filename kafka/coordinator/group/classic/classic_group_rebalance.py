"""ClassicGroupRebalance: the classic protocol's rebalance, JoinGroup to SyncGroup (the rebalance half
of Kafka 4's GroupMetadataManager for classic groups: classicGroupJoin, prepareRebalance,
completeClassicGroupJoin, classicGroupSync; Kafka keeps them in that one class, here they are a file of
their own, as the old GroupRebalance was).

Seed 004: "Every consumer sends Join Group Request to the Group Coordinator (a broker). The Group
Coordinator elects a leader from one of the consumers. The group leader assigns partitions to the
consumers." One rebalance, as the code runs it::

    JoinGroup (each member)  -> prepare_rebalance: PreparingRebalance, the "join-<group>" timer
    last member rejoins      -> complete_classic_group_join: new generation, CompletingRebalance;
                                every parked JoinGroup is answered, the leader's with all members'
                                subscriptions; the "sync-<group>" timer waits for their SyncGroups
    SyncGroup (leader)       -> the group's GroupMetadata record is written; once it commits the
                                group is Stable and every parked SyncGroup gets its member's share

The broker never computes an assignment: it only relays the leader's. Every method runs inside one
event of the shard (the runtime runs one at a time), so there is no lock and no purgatory: the old
DelayedJoin is the "join-<group>" timer plus a direct completion check after each join, leave or
removal (maybe_complete_join_phase); InitialDelayedJoin is the same timer re-armed. Each method
returns a CoordinatorResult: records to write (never replayed: the group is already changed in
memory, as Kafka does) and an append_future whose completion does what the old on_stored callbacks did.
Member sessions are timers too ("heartbeat-<group>-<member>"); what an expired one does is the
ClassicGroupManager's, given here as ``on_heartbeat_expiration``.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

import structlog

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.group.classic.classic_group import ClassicGroup
from kafka.coordinator.group.classic.classic_group_member import ClassicGroupMember
from kafka.coordinator.group.classic.classic_group_results import (
    UNKNOWN_MEMBER_ID,
    JoinCallback,
    JoinGroupResult,
    SyncCallback,
    SyncGroupResult,
    once,
)
from kafka.coordinator.group.classic.classic_group_state import ClassicGroupState
from kafka.coordinator.group.group import ApiError, GroupType, error_of, normalize_error
from kafka.coordinator.group.group_coordinator_records import GroupMetadataKey
from kafka.protocol.errors import Errors
from kafka.utils.time import Time

# The old GroupCoordinator's logger: the lab's log excerpts name it.
log = structlog.get_logger("kafka.coordinator.GroupCoordinator")

EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD = (
    ClassicGroupState.EMPTY, ClassicGroupState.PREPARING_REBALANCE, ClassicGroupState.COMPLETING_REBALANCE,
    ClassicGroupState.STABLE, ClassicGroupState.DEAD)

EMPTY_RESULT: CoordinatorResult = CoordinatorResult()
# Kafka's classicGroupNewMemberJoinTimeoutMs, an internal setting: used when the config does not say.



def join_reason(reason: str | None) -> str:
    """Kafka's JoinGroupRequest.joinReason: the client's reason, or "not provided"."""
    return reason or "not provided"


@dataclass(frozen=True)
class _Join:
    """What a JoinGroup brings besides the member's fields: why it (re)joins, and whether its version
    (9+) lets a returning static leader skip the assignment."""

    reason: str
    supports_skipping_assignment: bool


def classic_group_heartbeat_key(group_id: str, member_id: str) -> str:
    return f"heartbeat-{group_id}-{member_id}"


def classic_group_join_key(group_id: str) -> str:
    return f"join-{group_id}"


def classic_group_sync_key(group_id: str) -> str:
    return f"sync-{group_id}"


class ClassicGroupRebalance:
    def __init__(self, groups, time: Time, timer, config,
                 on_heartbeat_expiration: Callable[[str, str], CoordinatorResult]) -> None:
        self.groups = groups  # the GroupMetadataManager's TimelineHashMap: classic and consumer groups
        self.time = time
        self.timer = timer  # the shard's CoordinatorTimer: an expired key runs as a write event
        self.config = config  # GroupCoordinatorConfig: the classic_group_* settings
        self.on_heartbeat_expiration = on_heartbeat_expiration  # (group id, member id) -> result

    # ------------------------------------------------------------------ groups
    def get_or_maybe_create_classic_group(self, group_id: str, create: bool) -> ClassicGroup:
        """The classic group, created Empty if absent and ``create`` (a first JoinGroup, or a simple
        consumer's offset commit); ApiError(GROUP_ID_NOT_FOUND) if absent or of another type."""
        group = self.groups.get(group_id)
        if group is None and not create:
            raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Classic group {group_id} not found.")
        if group is None:
            group = ClassicGroup(group_id, EMPTY, self.time)
            self.groups[group_id] = group
            return group
        if group.type() is not GroupType.CLASSIC:
            raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a classic group.")
        return group

    def classic_group_or_none(self, group_id: str) -> ClassicGroup | None:
        group = self.groups.get(group_id)
        return group if group is not None and group.type() is GroupType.CLASSIC else None

    # ------------------------------------------------------------------ JoinGroup
    def classic_group_join(self, group_id: str, member_id: str, group_instance_id: str | None,
                           require_known_member_id: bool, client_id: str, client_host: str,
                           rebalance_timeout_ms: int, session_timeout_ms: int, protocol_type: str,
                           protocols: list[tuple[str, bytes]],
                           response_callback: JoinCallback, reason: str | None = None,
                           supports_skipping_assignment: bool = False) -> CoordinatorResult:
        """A member joins (or rejoins). ``response_callback`` gets one JoinGroupResult, now or from
        a later event (when the rebalance completes, or the record of a new group fails to write).
        ``reason`` (JoinGroup v8+, KIP-800) goes into the rebalance's log line; from v9 (KIP-814) a
        static leader that rejoins a Stable group is told to skip the assignment."""
        response_callback = once(response_callback)
        join = _Join(join_reason(reason), supports_skipping_assignment)
        if not (self.config.classic_group_min_session_timeout_ms <= session_timeout_ms
                <= self.config.classic_group_max_session_timeout_ms):
            response_callback(JoinGroupResult(Errors.INVALID_SESSION_TIMEOUT, member_id))
            return EMPTY_RESULT
        is_unknown_member = member_id == UNKNOWN_MEMBER_ID
        is_new_group = group_id not in self.groups
        try:
            group = self.get_or_maybe_create_classic_group(group_id, is_unknown_member)
        except ApiError:
            response_callback(JoinGroupResult(Errors.UNKNOWN_MEMBER_ID, member_id))
            return EMPTY_RESULT
        result = EMPTY_RESULT
        if not group.has(member_id) and group.size() >= self.config.classic_group_max_size:
            response_callback(JoinGroupResult(Errors.GROUP_MAX_SIZE_REACHED, member_id))
        elif not group.is_state(EMPTY) and not group.supports_protocols(
                protocol_type, {name for name, _ in protocols}):
            response_callback(JoinGroupResult(Errors.INCONSISTENT_GROUP_PROTOCOL, member_id))
        elif is_unknown_member:
            result = self._join_new_member(group, group_instance_id, require_known_member_id, client_id,
                                           client_host, rebalance_timeout_ms, session_timeout_ms,
                                           protocol_type, protocols, response_callback, join)
        else:
            result = self._join_existing_member(group, member_id, group_instance_id, client_id, client_host,
                                                rebalance_timeout_ms, session_timeout_ms, protocol_type,
                                                protocols, response_callback, join)
        if is_new_group and not result.records:
            return self._store_new_group(group, response_callback)
        return result

    def _store_new_group(self, group: ClassicGroup, response_callback: JoinCallback) -> CoordinatorResult:
        """A group created by this event is written at once (an empty GroupMetadata record), so that
        it is part of the committed state: otherwise a later failed write would revert the map to a
        snapshot without it while its members wait. If this write fails, the revert removes the
        group and the member hears why."""
        def on_append(future: Future) -> None:
            if future.exception() is not None:
                error = normalize_error(error_of(future.exception()))
                log.warning("failed to write empty metadata for group", group=group.group_id,
                            error=error.name)
                response_callback(JoinGroupResult(error))

        value = dict(protocol_type="", generation=0, protocol=None, leader=None,
                     current_state_timestamp=group.current_state_timestamp_ms, members=[])
        return self._write(CoordinatorRecord(GroupMetadataKey(group.group_id), value), on_append)

    def _join_new_member(self, group, group_instance_id, require_known_member_id, client_id, client_host,
                         rebalance_timeout_ms, session_timeout_ms, protocol_type, protocols,
                         response_callback, join: _Join) -> CoordinatorResult:
        if group.is_state(DEAD):  # deleted or unloaded meanwhile: find the coordinator again
            response_callback(JoinGroupResult(Errors.COORDINATOR_NOT_AVAILABLE))
            return EMPTY_RESULT
        new_member_id = group.generate_member_id(client_id, group_instance_id)
        if group_instance_id is not None:
            old_member_id = group.get_static_member_id(group_instance_id)
            if old_member_id is not None:
                return self._update_static_member_then_rebalance_or_complete_join(
                    group, old_member_id, new_member_id, group_instance_id, protocols, rebalance_timeout_ms,
                    session_timeout_ms, response_callback, join)
        elif require_known_member_id:
            # KIP-394: hand out the id first, so a client that times out and retries does not
            # leave a stream of unknown members behind. It must join again with this id.
            group.add_pending_member(new_member_id)
            self.schedule_heartbeat_expiration(group.group_id, new_member_id, session_timeout_ms)
            response_callback(JoinGroupResult(Errors.MEMBER_ID_REQUIRED, new_member_id))
            return EMPTY_RESULT
        return self._add_member_then_rebalance_or_complete_join(
            group, new_member_id, group_instance_id, client_id, client_host, rebalance_timeout_ms,
            session_timeout_ms, protocol_type, protocols, response_callback, join.reason)

    def _join_existing_member(self, group, member_id, group_instance_id, client_id, client_host,
                              rebalance_timeout_ms, session_timeout_ms, protocol_type, protocols,
                              response_callback, join: _Join) -> CoordinatorResult:
        if group.is_state(DEAD):
            response_callback(JoinGroupResult(Errors.COORDINATOR_NOT_AVAILABLE, member_id))
            return EMPTY_RESULT
        if group.is_pending_member(member_id):  # the second join of KIP-394, now with its id
            return self._add_member_then_rebalance_or_complete_join(
                group, member_id, group_instance_id, client_id, client_host, rebalance_timeout_ms,
                session_timeout_ms, protocol_type, protocols, response_callback, join.reason)
        error = group.validate_member(member_id, group_instance_id)
        if error is not None:
            response_callback(JoinGroupResult(error, member_id))
            return EMPTY_RESULT
        member = group.get(member_id)
        during = f"during {group.state_as_string()}; client reason: {join.reason}"
        if group.is_state(PREPARING_REBALANCE):
            return self._update_member_then_rebalance_or_complete_join(
                group, member, protocols, rebalance_timeout_ms, session_timeout_ms, response_callback,
                f"Member {member_id} is joining group {during}")
        if group.is_state(COMPLETING_REBALANCE):
            if member.matches(protocols):
                # A retried JoinGroup whose first answer got lost: answer it again.
                response_callback(self._join_result(group, member))
                return EMPTY_RESULT
            return self._update_member_then_rebalance_or_complete_join(
                group, member, protocols, rebalance_timeout_ms, session_timeout_ms, response_callback,
                f"Updating metadata for member {member_id} {during}")
        if group.is_state(STABLE):
            if group.is_leader(member_id) or not member.matches(protocols):
                # The leader rejoins to trigger a rebalance (e.g. it saw new partitions); a member
                # with new metadata (e.g. a new subscription) needs one too.
                why = (f"Leader {member_id} re-joining group" if group.is_leader(member_id)
                       else f"Updating metadata for member {member_id}")
                return self._update_member_then_rebalance_or_complete_join(
                    group, member, protocols, rebalance_timeout_ms, session_timeout_ms, response_callback,
                    f"{why} {during}")
            response_callback(JoinGroupResult(Errors.NONE, member_id, group.generation_id,
                                              group.protocol_type(),
                                              group.protocol_name, group.leader_id or ""))
            return EMPTY_RESULT
        # Empty: this member's generation is gone; it must reset and join as a new member.
        response_callback(JoinGroupResult(Errors.UNKNOWN_MEMBER_ID, member_id))
        return EMPTY_RESULT

    @staticmethod
    def _join_result(group: ClassicGroup, member: ClassicGroupMember) -> JoinGroupResult:
        leader = group.is_leader(member.member_id)
        return JoinGroupResult(Errors.NONE, member.member_id, group.generation_id, group.protocol_type(),
                               group.protocol_name, group.leader_id or "",
                               group.current_member_metadata() if leader else [])

    def _add_member_then_rebalance_or_complete_join(self, group, member_id, group_instance_id, client_id,
                                                    client_host, rebalance_timeout_ms, session_timeout_ms,
                                                    protocol_type, protocols, response_callback,
                                                    reason: str) -> CoordinatorResult:
        member = ClassicGroupMember(member_id, group_instance_id, client_id, client_host,
                                    rebalance_timeout_ms,
                                    session_timeout_ms, protocol_type, protocols)
        member.is_new = True
        if group.is_state(PREPARING_REBALANCE) and group.generation_id == 0:
            group.new_member_added = True  # the initial delay waits one more delay for company
        group.add(member, response_callback)
        # Until its first join completes a new member is held to the new-member join timeout, not
        # its session timeout: it has no id to heartbeat with, and its parked JoinGroup hides a
        # disconnect. A client still there retries.
        self.reschedule_heartbeat(group, member, self.config.classic_group_new_member_join_timeout_ms)
        return self.maybe_prepare_rebalance_or_complete_join(
            group, f"Adding new member {member_id} with group instance id {group_instance_id}; "
                   f"client reason: {reason}")

    def _update_member_then_rebalance_or_complete_join(self, group, member, protocols, rebalance_timeout_ms,
                                                       session_timeout_ms, response_callback,
                                                       reason: str) -> CoordinatorResult:
        group.update_member(member, protocols, rebalance_timeout_ms, session_timeout_ms, response_callback)
        return self.maybe_prepare_rebalance_or_complete_join(group, reason)

    def _update_static_member_then_rebalance_or_complete_join(
            self, group, old_member_id, new_member_id, group_instance_id, protocols, rebalance_timeout_ms,
            session_timeout_ms, response_callback, join: _Join) -> CoordinatorResult:
        """KIP-345: a static member came back (say after a restart) under a new member id. In a
        Stable group it takes over its old entry and assignment without a rebalance. From JoinGroup
        v9 (KIP-814) a returning leader gets every member and skip_assignment: the group keeps the
        assignment it has, and the leader learns it leads."""
        current_leader = group.leader_id
        member = group.replace_static_member(group_instance_id, old_member_id, new_member_id)
        # The old id's heartbeat timer finds no such member when it fires; the new id gets its own.
        self.reschedule_heartbeat(group, member)
        old = (member.supported_protocols, member.rebalance_timeout_ms, member.session_timeout_ms)
        group.update_member(member, protocols, rebalance_timeout_ms, session_timeout_ms, response_callback)
        if group.is_state(STABLE):
            if group.protocol_name != group.select_protocol():
                return self.maybe_prepare_rebalance_or_complete_join(
                    group, f"Group's selectedProtocol will change because static member {new_member_id} with "
                           f"instance id {group_instance_id} joined with change of protocol; "
                           f"client reason: {join.reason}")

            def on_append(future: Future) -> None:
                if future.exception() is not None:  # not persisted: put the old member back
                    error = normalize_error(error_of(future.exception()))
                    # Unless the new id left (or was removed) meanwhile: then there is nothing to restore.
                    if group.get_static_member_id(group_instance_id) == new_member_id:
                        group.update_member(member, *old, None)
                        restored = group.replace_static_member(group_instance_id, new_member_id,
                                                               old_member_id,
                                                               error)
                        self.reschedule_heartbeat(group, restored)
                    response_callback(JoinGroupResult(error, UNKNOWN_MEMBER_ID, group.generation_id))
                    return
                if join.supports_skipping_assignment:
                    leader = group.is_leader(new_member_id)
                    group.complete_join_callback(member, JoinGroupResult(
                        Errors.NONE, new_member_id, group.generation_id, group.protocol_type(),
                        group.protocol_name, group.leader_id or "",
                        group.current_member_metadata() if leader else [], skip_assignment=leader))
                    return
                # Before v9 the old leader id is returned so that a rejoining leader does not run
                # an assignment that a Stable group would never distribute.
                group.complete_join_callback(member, JoinGroupResult(
                    Errors.NONE, new_member_id, group.generation_id, group.protocol_type(),
                    group.protocol_name, current_leader or ""))

            return self._write(self._group_metadata_record(group, group.group_assignment()), on_append)
        if group.is_state(COMPLETING_REBALANCE):
            # The leader may already be assigning to the old member id: start over.
            return self.prepare_rebalance(
                group, f"Updating metadata for static member {new_member_id} with instance id "
                       f"{group_instance_id}; client reason: {join.reason}")
        # PreparingRebalance: the updated member simply waits for the rebalance like everyone else.
        return self.maybe_complete_join_phase(group)

    # ------------------------------------------------------------------ rebalancing
    def maybe_prepare_rebalance_or_complete_join(self, group: ClassicGroup, reason: str) -> CoordinatorResult:
        if group.can_rebalance():
            return self.prepare_rebalance(group, reason)
        return self.maybe_complete_join_phase(group)

    def prepare_rebalance(self, group: ClassicGroup, reason: str) -> CoordinatorResult:
        if group.is_state(COMPLETING_REBALANCE):
            # Members parked in SyncGroup will not get this generation's assignment: rejoin.
            self._reset_and_propagate_assignment_error(group, Errors.REBALANCE_IN_PROGRESS)
        self._remove_sync_expiration(group)
        is_initial_rebalance = group.is_state(EMPTY)
        if is_initial_rebalance:
            # KIP-134: a fleet of consumers starting together gets one rebalance, not one per member.
            delay = self.config.classic_group_initial_rebalance_delay_ms
            remaining = max(group.rebalance_timeout_ms() - delay, 0)
            group_id = group.group_id
            self.timer.schedule(classic_group_join_key(group_id), delay, False,
                                lambda: self._try_complete_initial_rebalance_else_schedule(group_id,
                                                                                           remaining))
        group.transition_to(PREPARING_REBALANCE)
        log.info("preparing to rebalance group", group=group.group_id, generation=group.generation_id,
                 reason=reason)
        return EMPTY_RESULT if is_initial_rebalance else self._maybe_complete_join_else_schedule(group)

    def _maybe_complete_join_else_schedule(self, group: ClassicGroup) -> CoordinatorResult:
        if group.has_all_members_joined():
            return self._complete_classic_group_join(group)
        self._schedule_join_timeout(group)
        return EMPTY_RESULT

    def _schedule_join_timeout(self, group: ClassicGroup) -> None:
        """The rebalance timeout: when it passes the rebalance completes with whoever rejoined."""
        group_id = group.group_id
        self.timer.schedule(classic_group_join_key(group_id), group.rebalance_timeout_ms(), False,
                            lambda: self._complete_classic_group_join_by_id(group_id))

    def _try_complete_initial_rebalance_else_schedule(self, group_id: str,
                                                      remaining_ms: int) -> CoordinatorResult:
        group = self.classic_group_or_none(group_id)
        if group is None:
            return EMPTY_RESULT
        if group.new_member_added and remaining_ms != 0:
            # Someone joined during the delay: wait another one, never past the rebalance timeout.
            group.new_member_added = False
            delay = min(self.config.classic_group_initial_rebalance_delay_ms, remaining_ms)
            remaining = max(remaining_ms - delay, 0)
            self.timer.schedule(classic_group_join_key(group_id), delay, False,
                                lambda: self._try_complete_initial_rebalance_else_schedule(group_id,
                                                                                           remaining))
            return EMPTY_RESULT
        return self._complete_classic_group_join(group)

    def maybe_complete_join_phase(self, group: ClassicGroup) -> CoordinatorResult:
        """What made the old DelayedJoin complete early: every member has rejoined. Never during
        the initial rebalance, whose delay alone ends it (the old InitialDelayedJoin)."""
        if (not group.is_state(PREPARING_REBALANCE) or group.previous_state is EMPTY
                or not group.has_all_members_joined()):
            return EMPTY_RESULT
        return self._complete_classic_group_join(group)

    def _complete_classic_group_join_by_id(self, group_id: str) -> CoordinatorResult:
        log.debug("rebalance timeout passed", group=group_id)
        group = self.classic_group_or_none(group_id)
        return EMPTY_RESULT if group is None else self._complete_classic_group_join(group)

    def _complete_classic_group_join(self, group: ClassicGroup) -> CoordinatorResult:
        self.timer.cancel(classic_group_join_key(group.group_id))
        for member in group.not_yet_rejoined_members():
            if not member.is_static_member:  # static members keep their place until their session ends
                group.remove(member.member_id)
                self.timer.cancel(classic_group_heartbeat_key(group.group_id, member.member_id))
        if group.is_state(DEAD):
            return EMPTY_RESULT
        if not group.maybe_elect_new_joined_leader() and group.members:
            # Nobody rejoined: wait again until session timeouts clear out the silent members.
            self._schedule_join_timeout(group)
            return EMPTY_RESULT
        group.init_next_generation()
        if group.is_state(EMPTY):
            log.info("group is now empty", group=group.group_id, generation=group.generation_id)
            return self._write(self._group_metadata_record(group, {}), self._log_empty_group_write(group))
        log.info("stabilized group", group=group.group_id, generation=group.generation_id,
                 protocol=group.protocol_name, members=group.size(), leader=group.leader_id)
        for member in list(group.members.values()):
            group.complete_join_callback(member, self._join_result(group, member))
            self.reschedule_heartbeat(group, member)
            member.is_new = False
            group.add_pending_sync_member(member.member_id)
        self._schedule_pending_sync(group)
        return EMPTY_RESULT

    @staticmethod
    def _log_empty_group_write(group: ClassicGroup) -> Callable[[Future], None]:
        def on_append(future: Future) -> None:
            # Nobody waits on an empty generation: if the broker fails before the next rebalance the
            # previous one comes back from the log and times out, which is safe.
            if future.exception() is not None:
                error = normalize_error(error_of(future.exception()))
                log.warning("failed to write empty metadata for group", group=group.group_id,
                            error=error.name)
        return on_append

    # ------------------------------------------------------------------ the pending sync ("sync-<group>")
    def _schedule_pending_sync(self, group: ClassicGroup) -> None:
        """Members told their generation must send SyncGroup within the rebalance timeout, or the
        group rebalances without them (Kafka's pending sync members)."""
        group_id, generation_id = group.group_id, group.generation_id
        self.timer.schedule(classic_group_sync_key(group_id), group.rebalance_timeout_ms(), False,
                            lambda: self._expire_pending_sync(group_id, generation_id))

    def _remove_sync_expiration(self, group: ClassicGroup) -> None:
        group.pending_sync_members.clear()
        self.timer.cancel(classic_group_sync_key(group.group_id))

    def _remove_pending_sync_member(self, group: ClassicGroup, member_id: str) -> None:
        group.remove_pending_sync_member(member_id)
        if group.state in (DEAD, EMPTY, PREPARING_REBALANCE) or group.has_received_sync_from_all_members():
            self.timer.cancel(classic_group_sync_key(group.group_id))

    def _expire_pending_sync(self, group_id: str, generation_id: int) -> CoordinatorResult:
        group = self.classic_group_or_none(group_id)
        if group is None or group.generation_id != generation_id:
            return EMPTY_RESULT
        if group.state not in (COMPLETING_REBALANCE, STABLE) or group.has_received_sync_from_all_members():
            return EMPTY_RESULT
        missing = sorted(group.pending_sync_members)
        for member_id in missing:
            group.remove(member_id)
            self.timer.cancel(classic_group_heartbeat_key(group_id, member_id))
        log.info("removed members who did not send SyncGroup in time", group=group_id, members=missing)
        return self.prepare_rebalance(group, f"removing {missing} on pending sync request expiration")

    # ------------------------------------------------------------------ SyncGroup
    def classic_group_sync(self, group_id: str, generation_id: int, member_id: str, protocol_type: str | None,
                           protocol_name: str | None, group_instance_id: str | None,
                           group_assignment: dict[str, bytes],
                           response_callback: SyncCallback) -> CoordinatorResult:
        """A member asks for its assignment, the leader bringing everyone's. ``response_callback``
        gets one SyncGroupResult, now or once the leader's assignment is written."""
        response_callback = once(response_callback)
        group = self.classic_group_or_none(group_id)
        if group is None:
            response_callback(SyncGroupResult(Errors.UNKNOWN_MEMBER_ID))
            return EMPTY_RESULT
        error = self._validate_sync(group, generation_id, member_id, group_instance_id, protocol_type,
                                    protocol_name)
        if error is not None:
            response_callback(SyncGroupResult(error))
        elif group.is_state(PREPARING_REBALANCE):
            response_callback(SyncGroupResult(Errors.REBALANCE_IN_PROGRESS))
        elif group.is_state(COMPLETING_REBALANCE):
            group.get(member_id).awaiting_sync_callback = response_callback
            self._remove_pending_sync_member(group, member_id)
            if group.is_leader(member_id):
                return self._store_leader_assignment(group, generation_id, group_assignment)
        elif group.is_state(STABLE):
            self._remove_pending_sync_member(group, member_id)
            member = group.get(member_id)
            response_callback(SyncGroupResult(Errors.NONE, group.protocol_type(), group.protocol_name,
                                              member.assignment))
            self.reschedule_heartbeat(group, member)
        return EMPTY_RESULT

    @staticmethod
    def _validate_sync(group: ClassicGroup, generation_id, member_id, group_instance_id, protocol_type,
                       protocol_name) -> Errors | None:
        if group.is_state(DEAD):
            return Errors.COORDINATOR_NOT_AVAILABLE
        if group.is_state(EMPTY):
            return Errors.UNKNOWN_MEMBER_ID
        error = group.validate_member(member_id, group_instance_id)
        if error is not None:
            return error
        if generation_id != group.generation_id:
            return Errors.ILLEGAL_GENERATION
        if (protocol_type is not None and protocol_type != group.protocol_type()) or (
                protocol_name is not None and protocol_name != group.protocol_name):
            return Errors.INCONSISTENT_GROUP_PROTOCOL
        return None

    def _store_leader_assignment(self, group: ClassicGroup, generation_id: int,
                                 assignment: dict[str, bytes]) -> CoordinatorResult:
        """The leader's assignment arrived: write it; once it commits the group is Stable and the
        shares go out (a member the leader left out gets an empty one)."""
        full = {member_id: assignment.get(member_id, b"") for member_id in group.members}

        def on_append(future: Future) -> None:
            # Only if nothing moved on meanwhile (a member left and a new rebalance began).
            if not (group.is_state(COMPLETING_REBALANCE) and group.generation_id == generation_id):
                return
            if future.exception() is not None:
                error = normalize_error(error_of(future.exception()))
                self._reset_and_propagate_assignment_error(group, error)
                self.maybe_prepare_rebalance_or_complete_join(group,
                                                              f"failed to store the assignment: {error.name}")
                return
            for member_id, member in group.members.items():
                member.assignment = full.get(member_id, b"")
            group.transition_to(STABLE)
            self._propagate_assignment(group, Errors.NONE)

        return self._write(self._group_metadata_record(group, full), on_append)

    def _reset_and_propagate_assignment_error(self, group: ClassicGroup, error: Errors) -> None:
        for member in group.members.values():
            member.assignment = b""
        self._propagate_assignment(group, error)

    def _propagate_assignment(self, group: ClassicGroup, error: Errors) -> None:
        for member in list(group.members.values()):
            result = SyncGroupResult(error, group.protocol_type(), group.protocol_name,
                                     member.assignment if error == Errors.NONE else b"")
            if group.complete_sync_callback(member, result):
                # The assignment is a sign of life too: the session timeout starts now.
                self.reschedule_heartbeat(group, member)

    # ------------------------------------------------------------------ member sessions
    def reschedule_heartbeat(self, group: ClassicGroup, member: ClassicGroupMember,
                             timeout_ms: int | None = None) -> None:
        """Every sign of life (a heartbeat, a join, a sync, a commit) starts the member's session again."""
        self.schedule_heartbeat_expiration(
            group.group_id, member.member_id, member.session_timeout_ms if timeout_ms is None else timeout_ms)

    def schedule_heartbeat_expiration(self, group_id: str, member_id: str, timeout_ms: int) -> None:
        # Scheduling a key again replaces its timer: one pending expiration per member, always.
        self.timer.schedule(classic_group_heartbeat_key(group_id, member_id), timeout_ms, False,
                            lambda: self.on_heartbeat_expiration(group_id, member_id))

    # ------------------------------------------------------------------ writing the group's record
    @staticmethod
    def _group_metadata_record(group: ClassicGroup, assignment: dict[str, bytes]) -> CoordinatorRecord:
        return CoordinatorRecord(GroupMetadataKey(group.group_id), group.to_record_value(assignment))

    @staticmethod
    def _write(record: CoordinatorRecord, on_append: Callable[[Future], None]) -> CoordinatorResult:
        """The record with an append_future the runtime completes when it commits (or fails): the
        old store_group's callback. Not replayed: the group already holds what it says."""
        future: Future = Future()
        future.add_done_callback(on_append)
        return CoordinatorResult(records=[record], append_future=future, replay_records=False)
