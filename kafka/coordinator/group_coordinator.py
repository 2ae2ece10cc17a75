"""GroupCoordinator: consumer group membership (Kafka's kafka.coordinator.group.GroupCoordinator).

Seed 004: "Every consumer sends Join Group Request to the Group Coordinator (a broker)." This class
is the coordinator's front: the KafkaApis group handlers call it, and it answers through a callback,
at once or later from a purgatory, like ReplicaManager's. What it holds and does:

    the groups of the __consumer_offsets partitions this broker leads (startup, on_election,
        on_resignation), kept by the GroupMetadataManager (``group_metadata_manager.py``)
    the rebalance, JoinGroup to SyncGroup -> GroupRebalance (``group_rebalance.py``)
    member sessions: Heartbeat, LeaveGroup; the session timeouts in the Heartbeat purgatory ->
        the HeartbeatScheduler (``heartbeat_scheduler.py``), handed to the two classes above
    committed offsets (OffsetCommit, OffsetFetch, OffsetDelete) -> the OffsetMetadataManager
        (``offset_metadata_manager.py``)
    the DescribeGroups, ListGroups and DeleteGroups views
    KIP-848 consumer groups (ConsumerGroupHeartbeat, ConsumerGroupDescribe) -> the
        ConsumerGroupManager (``consumer_group_manager.py``), beside the classic groups

Each group's fields are guarded by ``group.lock``, which its delayed operations share.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import structlog

from kafka.coordinator.consumer_group_manager import ConsumerGroupConfig, ConsumerGroupManager
from kafka.coordinator.group_metadata import GroupMetadata, GroupState
from kafka.coordinator.group_metadata_manager import GroupMetadataManager, OffsetConfig
from kafka.coordinator.group_rebalance import GroupRebalance, JoinGroupResult, SyncGroupResult
from kafka.coordinator.heartbeat_scheduler import HeartbeatScheduler
from kafka.coordinator.member_metadata import UNKNOWN_MEMBER_ID, MemberMetadata
from kafka.coordinator.offset_metadata_manager import OffsetMetadataManager
from kafka.protocol.errors import Errors
from kafka.purgatory.delayed_operation_key import GroupKey
from kafka.purgatory.delayed_operation_purgatory import DelayedOperationPurgatory
from kafka.utils.time import Time

log = structlog.get_logger("kafka.coordinator.GroupCoordinator")

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
                 replica_manager, time: Time,
                 consumer_group_config: ConsumerGroupConfig | None = None) -> None:
        self.broker_id = broker_id
        self.group_config = group_config
        self.offset_config = offset_config
        self.time = time
        self.group_manager = GroupMetadataManager(broker_id, offset_config, replica_manager, time)
        # Two purgatories, as in Kafka: rebalances wait in one, member session timeouts in the other.
        self.heartbeat_purgatory = DelayedOperationPurgatory("Heartbeat", broker_id=broker_id, time=time)
        self.rebalance_purgatory = DelayedOperationPurgatory("Rebalance", broker_id=broker_id, time=time)
        # Member sessions: every sign of life goes through it; an expired one comes back here.
        self.heartbeats = HeartbeatScheduler(self.heartbeat_purgatory, self.on_expire_heartbeat)
        # The rebalance, JoinGroup to SyncGroup: the seed's passage, in a file of its own.
        self.rebalance = GroupRebalance(self.group_manager, self.rebalance_purgatory, self.heartbeats,
                                        group_config, time)
        # Committed offsets are a concept of their own, as in Kafka's rewritten coordinator.
        self.offset_metadata_manager = OffsetMetadataManager(self.group_manager, self.heartbeats, time)
        # KIP-848's groups: the broker computes their assignment; offsets shared with the classic ones.
        self.consumer_groups = ConsumerGroupManager(consumer_group_config or ConsumerGroupConfig(), self.group_manager, time)
        self.offset_metadata_manager.consumer_groups = self.consumer_groups
        self.group_manager.on_consumer_groups_loaded = self.consumer_groups.on_groups_loaded

    @property
    def transaction_verifier(self) -> Callable[[str, int, int, int], Errors | None] | None:
        """Asked by TxnOffsetCommit (the OffsetMetadataManager holds it); set by the broker's wiring."""
        return self.offset_metadata_manager.transaction_verifier

    @transaction_verifier.setter
    def transaction_verifier(self, verifier: Callable[[str, int, int, int], Errors | None] | None) -> None:
        self.offset_metadata_manager.transaction_verifier = verifier

    @property
    def is_active(self) -> threading.Event:
        """Set between startup and shutdown: the GroupMetadataManager's, which validates every request."""
        return self.group_manager.is_active

    # ------------------------------------------------------------------ lifecycle
    def startup(self, offsets_topic_partitions: int | None = None) -> None:
        """Start; if __consumer_offsets exists, load its partitions (this broker leads them all)."""
        self.group_manager.startup()
        sweep_ms = max(1, min(1000, self.consumer_groups.config.session_timeout_ms // 4))
        self.group_manager.scheduler.schedule(
            "consumer-group-session-timeout", lambda: self.consumer_groups.expire_members(self.time.milliseconds()),
            delay_ms=sweep_ms, period_ms=sweep_ms)
        if offsets_topic_partitions:
            self.on_election(range(offsets_topic_partitions))
        log.info("started up", broker_id=self.broker_id)

    def shutdown(self) -> None:
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
        consumer_group_config = ConsumerGroupConfig(
            config.group_consumer_session_timeout_ms, config.group_consumer_heartbeat_interval_ms,
            tuple(config.group_consumer_assignors), config.group_consumer_max_size)
        return cls(config.node_id, group_config, offset_config, replica_manager, time, consumer_group_config)

    def on_election(self, partitions, load_now: bool = False) -> None:
        """This broker became leader of these __consumer_offsets partitions: load their groups, in
        the background (``load_now``: right here, for a topic just created and still empty)."""
        for partition in partitions:
            self.group_manager.schedule_load_group_and_offsets(partition, self.on_group_loaded, now=load_now)

    def on_resignation(self, partitions) -> None:
        """This broker stopped leading these __consumer_offsets partitions: drop their groups. Members
        waiting in a join or sync are answered NOT_COORDINATOR and look the coordinator up again."""
        self.consumer_groups.on_resignation(partitions)
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
                self.heartbeats.complete_and_schedule_next_heartbeat_expiration(group, member)

    def partition_for(self, group_id: str) -> int:
        return self.group_manager.partition_for(group_id)

    def offsets_topic_configs(self) -> dict[str, str]:
        """How __consumer_offsets is created: compacted, with its own segment size (Kafka's
        GroupCoordinator.offsetsTopicConfigs)."""
        return {"cleanup.policy": "compact",
                "segment.bytes": str(self.offset_config.offsets_topic_segment_bytes),
                "compression.type": "producer"}

    # ------------------------------------------------------------------ JoinGroup and SyncGroup
    def handle_join_group(self, group_id: str, member_id: str, group_instance_id: str | None,
                          require_known_member_id: bool, client_id: str, client_host: str,
                          rebalance_timeout_ms: int, session_timeout_ms: int, protocol_type: str,
                          protocols: list[tuple[str, bytes]], response_callback: Callable[[JoinGroupResult], None],
                          ) -> None:
        """A member joins (or rejoins) the group: GroupRebalance.handle_join_group. Not a consumer
        group with members (Kafka's answer with group.consumer.migration.policy=disabled); an empty
        one becomes a classic group again."""
        if self.consumer_groups.is_non_empty_consumer_group(group_id):
            response_callback(JoinGroupResult(Errors.INCONSISTENT_GROUP_PROTOCOL, UNKNOWN_MEMBER_ID))
            return
        self.consumer_groups.delete_group(group_id)
        self.rebalance.handle_join_group(group_id, member_id, group_instance_id, require_known_member_id,
                                         client_id, client_host, rebalance_timeout_ms, session_timeout_ms,
                                         protocol_type, protocols, response_callback)

    def handle_sync_group(self, group_id: str, generation_id: int, member_id: str, protocol_type: str | None,
                          protocol_name: str | None, group_instance_id: str | None,
                          group_assignment: dict[str, bytes],
                          response_callback: Callable[[SyncGroupResult], None]) -> None:
        """A member asks for its assignment, the leader bringing everyone's: GroupRebalance.handle_sync_group."""
        self.rebalance.handle_sync_group(group_id, generation_id, member_id, protocol_type, protocol_name,
                                         group_instance_id, group_assignment, response_callback)

    # ------------------------------------------------------------------ Heartbeat
    def handle_heartbeat(self, group_id: str, member_id: str, group_instance_id: str | None, generation_id: int,
                         response_callback: Callable[[Errors], None]) -> None:
        error = self.group_manager.validate_group_status(group_id, allow_empty_id=False)
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
            error = group.validate_member(member_id, group_instance_id)
            if error is None and generation_id != group.generation_id:
                error = Errors.ILLEGAL_GENERATION
            if error is None and group.is_state(GroupState.EMPTY):
                error = Errors.UNKNOWN_MEMBER_ID
            if error is not None:
                response_callback(error)
                return
            self.heartbeats.complete_and_schedule_next_heartbeat_expiration(group, group.get(member_id))
            if group.is_state(GroupState.PREPARING_REBALANCE):
                response_callback(Errors.REBALANCE_IN_PROGRESS)  # how members learn to rejoin
            else:
                response_callback(Errors.NONE)

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
        error = self.group_manager.validate_group_status(group_id, allow_empty_id=False)
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
        error = group.validate_member(member_id, leaving.group_instance_id)
        if error is not None:
            return error
        member = group.get(member_id)
        log.info("member is leaving the group", group=group.group_id, member=member_id)
        self.remove_member_and_update_group(group, member, "the consumer is leaving the group")
        self.heartbeats.remove_heartbeat_for_leaving_member(group, member_id)
        return Errors.NONE

    def remove_member_and_update_group(self, group: GroupMetadata, member: MemberMetadata, reason: str) -> None:
        # A new member may still wait in JoinGroup: tell it, so a live client rejoins.
        group.maybe_invoke_join_callback(member, JoinGroupResult(Errors.UNKNOWN_MEMBER_ID))
        group.remove(member.member_id)
        if group.state in (GroupState.STABLE, GroupState.COMPLETING_REBALANCE):
            self.rebalance.maybe_prepare_rebalance(group, f"removing member {member.member_id}: {reason}")
        elif group.is_state(GroupState.PREPARING_REBALANCE):
            self.rebalance_purgatory.check_and_complete(GroupKey(group.group_id))

    def remove_pending_member_and_update_group(self, group: GroupMetadata, member_id: str) -> None:
        group.remove(member_id)
        if group.is_state(GroupState.PREPARING_REBALANCE):
            self.rebalance_purgatory.check_and_complete(GroupKey(group.group_id))

    # ------------------------------------------------------------------ DescribeGroups / ListGroups
    def handle_describe_group(self, group_id: str) -> tuple[Errors, GroupMetadata | None, list]:
        """(error, group or None for an unknown group -- described as Dead, members' summaries)."""
        error = self.group_manager.validate_group_status(group_id, allow_empty_id=True)
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
            error = self.group_manager.validate_group_status(group_id, allow_empty_id=True)
            if error is None and self.consumer_groups.delete_group(group_id) == Errors.NON_EMPTY_GROUP:
                error = Errors.NON_EMPTY_GROUP  # a consumer group goes once its members have
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
