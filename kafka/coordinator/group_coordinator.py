"""GroupCoordinator: consumer group membership and rebalancing (Kafka's kafka.coordinator.group.GroupCoordinator).

Seed 004: "Every consumer sends Join Group Request to the Group Coordinator (a broker). The Group
Coordinator elects a leader from one of the consumers. The group leader assigns partitions to the
consumers." One rebalance, as the code runs it::

    JoinGroup (each member)  -> prepare_rebalance: PreparingRebalance, DelayedJoin in the purgatory
    last member rejoins      -> on_complete_join: new generation, CompletingRebalance; every parked
                                JoinGroup is answered, the leader's with all members' subscriptions
    SyncGroup (leader)       -> store_group in __consumer_offsets -> Stable; every parked SyncGroup
                                gets its member's share of the leader's assignment
    Heartbeat (each member)  -> REBALANCE_IN_PROGRESS once the next rebalance starts: rejoin

Membership and offsets are kept by the GroupMetadataManager (``offset_manager.py``); each
group's fields are guarded by ``group.lock``, which its delayed operations share. Every handler
answers through a callback, at once or later from a purgatory, like ReplicaManager's. Committed
offsets -- OffsetCommit, OffsetFetch, OffsetDelete -- are answered by the OffsetMetadataManager
(``offset_metadata_manager.py``); this class is membership: Join, Sync, Heartbeat, Leave, and the
DescribeGroups, ListGroups and DeleteGroups views of it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import structlog

from kafka.coordinator.delayed_heartbeat import DelayedHeartbeat, MemberKey
from kafka.coordinator.delayed_join import DelayedJoin, InitialDelayedJoin
from kafka.coordinator.group_metadata import GroupMetadata, GroupState
from kafka.coordinator.member_metadata import UNKNOWN_MEMBER_ID, MemberMetadata
from kafka.coordinator.offset_manager import GroupMetadataManager, OffsetConfig
from kafka.coordinator.offset_metadata_manager import OffsetMetadataManager
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


@dataclass(frozen=True)
class GroupConfig:
    """The group.* broker settings (Kafka's GroupConfig)."""

    group_min_session_timeout_ms: int = 6000
    group_max_session_timeout_ms: int = 1_800_000
    group_initial_rebalance_delay_ms: int = 3000
    group_max_size: int = 2**31 - 1


@dataclass(frozen=True)
class LeavingMember:
    member_id: str
    group_instance_id: str | None


class GroupCoordinator:
    def __init__(self, broker_id: int, group_config: GroupConfig, offset_config: OffsetConfig,
                 replica_manager, time: Time) -> None:
        self.broker_id = broker_id
        self.group_config = group_config
        self.offset_config = offset_config
        self.time = time
        self.group_manager = GroupMetadataManager(broker_id, offset_config, replica_manager, time)
        # Two purgatories, as in Kafka: rebalances wait in one, member session timeouts in the other.
        self.heartbeat_purgatory = DelayedOperationPurgatory("Heartbeat", broker_id=broker_id, time=time)
        self.rebalance_purgatory = DelayedOperationPurgatory("Rebalance", broker_id=broker_id, time=time)
        # Committed offsets are a concept of their own, as in Kafka's rewritten coordinator.
        self.offset_metadata_manager = OffsetMetadataManager(self)
        # (transactional_id, producer_id, producer_epoch, offsets partition) -> None if that partition
        # of __consumer_offsets is in the producer's ongoing transaction, else the error to answer
        # TxnOffsetCommit with (INVALID_TXN_STATE, PRODUCER_FENCED...). Set by the broker's wiring from
        # the transaction coordinator; None: not checked (Kafka before KIP-890 did not check either).
        self.transaction_verifier: Callable[[str, int, int, int], Errors | None] | None = None
        self.is_active = threading.Event()

    # ------------------------------------------------------------------ lifecycle
    def startup(self, offsets_topic_partitions: int | None = None) -> None:
        """Start; if __consumer_offsets exists, load its partitions (this broker leads them all)."""
        self.group_manager.startup()
        self.is_active.set()
        if offsets_topic_partitions:
            self.on_election(range(offsets_topic_partitions))
        log.info("started up", broker_id=self.broker_id)

    def shutdown(self) -> None:
        self.is_active.clear()
        self.group_manager.shutdown()
        self.heartbeat_purgatory.shutdown()
        self.rebalance_purgatory.shutdown()

    @classmethod
    def from_config(cls, config, replica_manager, time: Time) -> GroupCoordinator:
        """Built from the broker's KafkaConfig (its group.* and offsets.* keys)."""
        group_config = GroupConfig(config.group_min_session_timeout_ms, config.group_max_session_timeout_ms,
                                   config.group_initial_rebalance_delay_ms, config.group_max_size)
        offset_config = OffsetConfig(config.offsets_topic_num_partitions, config.offsets_topic_segment_bytes,
                                     config.offsets_retention_minutes * 60_000,
                                     config.offsets_retention_check_interval_ms, config.offsets_commit_timeout_ms,
                                     config.offset_metadata_max_bytes)
        return cls(config.node_id, group_config, offset_config, replica_manager, time)

    def on_election(self, partitions, load_now: bool = False) -> None:
        """This broker became leader of these __consumer_offsets partitions: load their groups, in
        the background (``load_now``: right here, for a topic just created and still empty)."""
        for partition in partitions:
            self.group_manager.schedule_load_group_and_offsets(partition, self.on_group_loaded, now=load_now)

    def on_resignation(self, partitions) -> None:
        """This broker stopped leading these __consumer_offsets partitions: drop their groups. Members
        waiting in a join or sync are answered NOT_COORDINATOR and look the coordinator up again."""
        for partition in partitions:
            for group in self.group_manager.remove_groups_for_partition(partition):
                with group.lock:
                    self.on_group_unloaded(group)

    def on_group_unloaded(self, group: GroupMetadata) -> None:
        """Kafka's onGroupUnloaded: answer whoever is waiting, then forget the group."""
        group.transition_to(GroupState.DEAD)
        for member in list(group.members.values()):
            group.maybe_invoke_join_callback(member, JoinGroupResult(Errors.NOT_COORDINATOR, member.member_id))
            group.maybe_invoke_sync_callback(member, SyncGroupResult(Errors.NOT_COORDINATOR))

    def on_group_loaded(self, group: GroupMetadata) -> None:
        # Members found in the log get a session timeout from now to show up again.
        with group.lock:
            for member in list(group.members.values()):
                self.complete_and_schedule_next_heartbeat_expiration(group, member)

    def partition_for(self, group_id: str) -> int:
        return self.group_manager.partition_for(group_id)

    def offsets_topic_configs(self) -> dict[str, str]:
        """How __consumer_offsets is created: compacted, with its own segment size (Kafka's
        GroupCoordinator.offsetsTopicConfigs)."""
        return {"cleanup.policy": "compact",
                "segment.bytes": str(self.offset_config.offsets_topic_segment_bytes),
                "compression.type": "producer"}

    # ------------------------------------------------------------------ JoinGroup
    def handle_join_group(self, group_id: str, member_id: str, group_instance_id: str | None,
                          require_known_member_id: bool, client_id: str, client_host: str,
                          rebalance_timeout_ms: int, session_timeout_ms: int, protocol_type: str,
                          protocols: list[tuple[str, bytes]], response_callback: Callable[[JoinGroupResult], None],
                          ) -> None:
        error = self.validate_group_status(group_id, allow_empty_id=False)
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
            self.add_pending_member_expiration(group, new_member_id, session_timeout_ms)
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
        error = self.validate_current_member(group, member_id, group_instance_id)
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
        self.complete_and_schedule_next_expiration(group, member, NEW_MEMBER_JOIN_TIMEOUT_MS)
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
        self.complete_and_schedule_next_heartbeat_expiration(group, member)
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
                    self.heartbeat_purgatory.check_and_complete(MemberKey(group.group_id, member.member_id))
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
                self.complete_and_schedule_next_heartbeat_expiration(group, member)
                member.is_new = False

    # ------------------------------------------------------------------ SyncGroup
    def handle_sync_group(self, group_id: str, generation_id: int, member_id: str, protocol_type: str | None,
                          protocol_name: str | None, group_instance_id: str | None,
                          group_assignment: dict[str, bytes],
                          response_callback: Callable[[SyncGroupResult], None]) -> None:
        error = self.validate_group_status(group_id, allow_empty_id=False)
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
                self.complete_and_schedule_next_heartbeat_expiration(group, member)

    def validate_sync(self, group, generation_id, member_id, group_instance_id, protocol_type,
                      protocol_name) -> Errors | None:
        if group.is_state(GroupState.DEAD):
            return Errors.COORDINATOR_NOT_AVAILABLE
        if group.is_state(GroupState.EMPTY):
            return Errors.UNKNOWN_MEMBER_ID
        error = self.validate_current_member(group, member_id, group_instance_id)
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
                self.complete_and_schedule_next_heartbeat_expiration(group, member)

    # ------------------------------------------------------------------ Heartbeat
    def handle_heartbeat(self, group_id: str, member_id: str, group_instance_id: str | None, generation_id: int,
                         response_callback: Callable[[Errors], None]) -> None:
        error = self.validate_group_status(group_id, allow_empty_id=False)
        if error == Errors.COORDINATOR_LOAD_IN_PROGRESS:
            response_callback(Errors.NONE)  # the group will be back soon; do not make members rejoin
            return
        if error is not None:
            response_callback(error)
            return
        group = self.group_manager.get_group(group_id)
        if group is None:
            response_callback(Errors.UNKNOWN_MEMBER_ID)
            return
        with group.lock:
            if group.is_state(GroupState.DEAD):
                response_callback(Errors.COORDINATOR_NOT_AVAILABLE)
                return
            error = self.validate_current_member(group, member_id, group_instance_id)
            if error is None and generation_id != group.generation_id:
                error = Errors.ILLEGAL_GENERATION
            if error is None and group.is_state(GroupState.EMPTY):
                error = Errors.UNKNOWN_MEMBER_ID
            if error is not None:
                response_callback(error)
                return
            self.complete_and_schedule_next_heartbeat_expiration(group, group.get(member_id))
            if group.is_state(GroupState.PREPARING_REBALANCE):
                response_callback(Errors.REBALANCE_IN_PROGRESS)  # how members learn to rejoin
            else:
                response_callback(Errors.NONE)

    def complete_and_schedule_next_heartbeat_expiration(self, group: GroupMetadata, member: MemberMetadata) -> None:
        self.complete_and_schedule_next_expiration(group, member, member.session_timeout_ms)

    def complete_and_schedule_next_expiration(self, group: GroupMetadata, member: MemberMetadata,
                                              timeout_ms: int) -> None:
        """Retire the member's current DelayedHeartbeat (it was alive in time) and start the next."""
        key = MemberKey(group.group_id, member.member_id)
        member.heartbeat_satisfied = True
        self.heartbeat_purgatory.check_and_complete(key)
        member.heartbeat_satisfied = False
        self.heartbeat_purgatory.try_complete_else_watch(
            DelayedHeartbeat(self, group, member.member_id, False, timeout_ms), [key])

    def add_pending_member_expiration(self, group: GroupMetadata, member_id: str, timeout_ms: int) -> None:
        self.heartbeat_purgatory.try_complete_else_watch(
            DelayedHeartbeat(self, group, member_id, True, timeout_ms), [MemberKey(group.group_id, member_id)])

    def try_complete_heartbeat(self, group: GroupMetadata, member_id: str, is_pending: bool,
                               force_complete: Callable[[], bool]) -> bool:
        with group.lock:
            if group.is_state(GroupState.DEAD):
                return force_complete()
            if is_pending:  # done once the pending member has joined for real
                return force_complete() if group.has(member_id) else False
            if not group.has(member_id) or group.get(member_id).has_satisfied_heartbeat():
                return force_complete()
            return False

    def on_expire_heartbeat(self, group: GroupMetadata, member_id: str, is_pending: bool) -> None:
        with group.lock:
            if group.is_state(GroupState.DEAD):
                return
            if is_pending:
                log.info("pending member removed after session timeout", group=group.group_id, member=member_id)
                self.remove_pending_member_and_update_group(group, member_id)
            elif group.has(member_id) and not group.get(member_id).has_satisfied_heartbeat():
                log.info("member failed to heartbeat, removing it", group=group.group_id, member=member_id)
                self.remove_member_and_update_group(group, group.get(member_id), "session timeout")

    # ------------------------------------------------------------------ LeaveGroup
    def handle_leave_group(self, group_id: str, leaving: list[LeavingMember],
                           response_callback: Callable[[Errors, list[tuple[LeavingMember, Errors]]], None]) -> None:
        error = self.validate_group_status(group_id, allow_empty_id=False)
        if error is not None:
            response_callback(error, [(m, error) for m in leaving])
            return
        group = self.group_manager.get_group(group_id)
        if group is None:
            response_callback(Errors.NONE, [(m, Errors.UNKNOWN_MEMBER_ID) for m in leaving])
            return
        with group.lock:
            if group.is_state(GroupState.DEAD):
                response_callback(Errors.COORDINATOR_NOT_AVAILABLE,
                                  [(m, Errors.COORDINATOR_NOT_AVAILABLE) for m in leaving])
                return
            response_callback(Errors.NONE, [(m, self.leave_one(group, m)) for m in leaving])

    def leave_one(self, group: GroupMetadata, leaving: LeavingMember) -> Errors:
        member_id = leaving.member_id
        if member_id == UNKNOWN_MEMBER_ID and leaving.group_instance_id is not None:
            member_id = group.get_static_member_id(leaving.group_instance_id) or UNKNOWN_MEMBER_ID
            if member_id == UNKNOWN_MEMBER_ID:
                return Errors.UNKNOWN_MEMBER_ID
        if member_id in group.pending_members:
            self.remove_pending_member_and_update_group(group, member_id)
            return Errors.NONE
        error = self.validate_current_member(group, member_id, leaving.group_instance_id)
        if error is not None:
            return error
        member = group.get(member_id)
        log.info("member is leaving the group", group=group.group_id, member=member_id)
        self.remove_member_and_update_group(group, member, "the consumer is leaving the group")
        self.heartbeat_purgatory.check_and_complete(MemberKey(group.group_id, member_id))
        return Errors.NONE

    def remove_member_and_update_group(self, group: GroupMetadata, member: MemberMetadata, reason: str) -> None:
        # A new member may still wait in JoinGroup: tell it, so a live client rejoins.
        group.maybe_invoke_join_callback(member, JoinGroupResult(Errors.UNKNOWN_MEMBER_ID))
        group.remove(member.member_id)
        if group.state in (GroupState.STABLE, GroupState.COMPLETING_REBALANCE):
            self.maybe_prepare_rebalance(group, f"removing member {member.member_id}: {reason}")
        elif group.is_state(GroupState.PREPARING_REBALANCE):
            self.rebalance_purgatory.check_and_complete(GroupKey(group.group_id))

    def remove_pending_member_and_update_group(self, group: GroupMetadata, member_id: str) -> None:
        group.remove(member_id)
        if group.is_state(GroupState.PREPARING_REBALANCE):
            self.rebalance_purgatory.check_and_complete(GroupKey(group.group_id))

    # ------------------------------------------------------------------ DescribeGroups / ListGroups
    def handle_describe_group(self, group_id: str) -> tuple[Errors, GroupMetadata | None, list]:
        """(error, group or None for an unknown group -- described as Dead, members' summaries)."""
        error = self.validate_group_status(group_id, allow_empty_id=True)
        if error is not None:
            return error, None, []
        group = self.group_manager.get_group(group_id)
        if group is None:
            return Errors.NONE, None, []
        with group.lock:
            protocol = group.protocol_name if group.is_state(GroupState.STABLE) else None
            return Errors.NONE, group, [m.summary(protocol) for m in group.members.values()]

    def handle_list_groups(self, states: set[str]) -> tuple[Errors, list[GroupMetadata]]:
        if not self.is_active.is_set():
            return Errors.COORDINATOR_NOT_AVAILABLE, []
        error = Errors.COORDINATOR_LOAD_IN_PROGRESS if self.group_manager.loading_partitions else Errors.NONE
        wanted = {s.lower() for s in states}
        groups = [g for g in self.group_manager.current_groups()
                  if not wanted or str(g.state).lower() in wanted]
        return error, groups

    # ------------------------------------------------------------------ DeleteGroups
    def handle_delete_groups(self, group_ids: list[str]) -> dict[str, Errors]:
        errors: dict[str, Errors] = {}
        deletable: list[GroupMetadata] = []
        for group_id in group_ids:
            error = self.validate_group_status(group_id, allow_empty_id=True)
            group = self.group_manager.get_group(group_id) if error is None else None
            if error is None and group is None:
                error = Errors.GROUP_ID_NOT_FOUND
            if error is not None:
                errors[group_id] = error
                continue
            with group.lock:
                if group.is_state(GroupState.DEAD):
                    errors[group_id] = Errors.GROUP_ID_NOT_FOUND
                elif group.is_state(GroupState.EMPTY):
                    group.transition_to(GroupState.DEAD)
                    deletable.append(group)
                else:
                    errors[group_id] = Errors.NON_EMPTY_GROUP
        if deletable:
            removed = self.offset_metadata_manager.delete_all_offsets(deletable)
            errors.update({group.group_id: Errors.NONE for group in deletable})
            log.info("deleted groups", groups=[g.group_id for g in deletable], offsets_removed=removed)
        return {group_id: errors[group_id] for group_id in group_ids}  # in the order asked

    # ------------------------------------------------------------------ transactions (KIP-98)
    def handle_txn_completion(self, producer_id: int, offsets_partitions: list[int], is_commit: bool) -> None:
        """A transaction's marker reached these __consumer_offsets partitions (Kafka's
        GroupCoordinator.scheduleHandleTxnCompletion, called by the WriteTxnMarkers handler after
        the markers are appended): the producer's pending transactional offsets become committed
        offsets, or are dropped on an abort."""
        self.group_manager.handle_txn_completion(producer_id, set(offsets_partitions), is_commit)

    # ------------------------------------------------------------------ validation
    def validate_group_status(self, group_id: str | None, allow_empty_id: bool) -> Errors | None:
        """Is the id valid, are we this group's coordinator, and is its partition loaded?"""
        if group_id is None or (not group_id and not allow_empty_id):
            return Errors.INVALID_GROUP_ID
        if not self.is_active.is_set():
            return Errors.COORDINATOR_NOT_AVAILABLE
        if self.group_manager.is_group_loading(group_id):
            return Errors.COORDINATOR_LOAD_IN_PROGRESS
        if not self.group_manager.is_group_local(group_id):
            return Errors.NOT_COORDINATOR
        return None

    @staticmethod
    def validate_current_member(group: GroupMetadata, member_id: str, group_instance_id: str | None) -> Errors | None:
        """The member exists, and if it claims a group.instance.id it is the current holder of it."""
        if group_instance_id is not None:
            current = group.get_static_member_id(group_instance_id)
            if current is not None and current != member_id:
                return Errors.FENCED_INSTANCE_ID  # a newer instance with the same id replaced this one
        if not group.has(member_id):
            return Errors.UNKNOWN_MEMBER_ID
        return None
