"""The classic protocol spoken to a consumer group: members that still send JoinGroup, SyncGroup,
Heartbeat and LeaveGroup inside a KIP-848 group (Kafka's GroupMetadataManager methods
classicGroupJoinToConsumerGroup, classicGroupSyncToConsumerGroup, classicGroupHeartbeatToConsumerGroup
and classicGroupLeaveToConsumerGroup).

This is what makes a rolling upgrade possible: while a fleet of consumers moves from
``group.protocol=classic`` to ``consumer`` one process at a time, the group holds both kinds. The
coordinator computes every member's assignment itself, classic members included, so a classic
member is never the leader and its JoinGroup answer lists no members. Its generation id is its
member epoch. It learns of a new target from Heartbeat (REBALANCE_IN_PROGRESS) and rejoins; the
partitions its JoinGroup says it still owns (ConsumerProtocolSubscription.owned_partitions: none for
an eager assignor, which gives everything back before it rejoins) drive the same reconciliation a
ConsumerGroupHeartbeat does; SyncGroup then hands it the partitions its member epoch holds::

    Heartbeat  -> REBALANCE_IN_PROGRESS  when the group epoch passed the member's, or it must revoke
    JoinGroup  -> member updated from its subscription, target computed, member reconciled;
                  answered once the records commit, with generation = member epoch
    SyncGroup  -> its assigned partitions, as ConsumerProtocolAssignment bytes
    LeaveGroup -> removed, the group epoch bumped so the others share its partitions

Two timers keep such a member honest: after REBALANCE_IN_PROGRESS it must rejoin within its rebalance
timeout (``join-`` key), and after JoinGroup it must sync within it (``sync-`` key), or it is fenced.
"""

from __future__ import annotations

import uuid
from concurrent.futures import Future

import structlog

from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.group.classic.classic_group_results import (
    UNKNOWN_MEMBER_ID,
    JoinCallback,
    JoinGroupResult,
    SyncCallback,
    SyncGroupResult,
    once,
)
from kafka.coordinator.group.consumer_group_manager import (
    ConsumerGroupManager,
    join_timeout_key,
    sync_timeout_key,
)
from kafka.coordinator.group.group import ApiError, error_of, normalize_error
from kafka.coordinator.group.group_coordinator_records import ClassicMemberMetadata
from kafka.coordinator.group.modern.consumer.consumer_group import ConsumerGroup, records_between
from kafka.coordinator.group.modern.consumer.consumer_group_member import ConsumerGroupMember, MemberState
from kafka.coordinator.group.utils import serialize_assignment_for, to_topic_partition_map
from kafka.protocol.consumer_protocol import PROTOCOL_TYPE as CONSUMER_PROTOCOL_TYPE
from kafka.protocol.consumer_protocol import deserialize_subscription
from kafka.protocol.errors import Errors

log = structlog.get_logger("kafka.coordinator.group.GroupMetadataManager")


class ClassicMembersOfConsumerGroup:
    def __init__(self, consumer: ConsumerGroupManager) -> None:
        self.consumer = consumer  # the consumer groups' manager: its members, targets and timers
        self.timer = consumer.timer
        self.config = consumer.config

    # ------------------------------------------------------------------ JoinGroup
    def classic_group_join_to_consumer_group(self, stored: ConsumerGroup, context, request,
                                             response_callback: JoinCallback) -> CoordinatorResult:
        """The member joins or rejoins; its answer goes once the records that say so commit."""
        response_callback = once(response_callback)
        member_id = request.member_id or str(uuid.uuid4())
        try:
            self.throw_if_consumer_group_is_full(stored, member_id)
            if not stored.supports_classic_protocols(request.protocol_type,
                                                     {n for n, _ in request.protocols}):
                raise ApiError(Errors.INCONSISTENT_GROUP_PROTOCOL,
                               f"Member {member_id}'s protocols are not supported.")
            if request.member_id == UNKNOWN_MEMBER_ID and request.require_known_member_id:
                # KIP-394, as for a classic group: come back with this id
                response_callback(JoinGroupResult(Errors.MEMBER_ID_REQUIRED, member_id))
                return CoordinatorResult([])
            subscription = deserialize_subscription(request.protocols[0][1])
        except ApiError as e:
            response_callback(JoinGroupResult(e.error, request.member_id))
            return CoordinatorResult([])
        except ValueError:
            response_callback(JoinGroupResult(Errors.INCONSISTENT_GROUP_PROTOCOL, request.member_id))
            return CoordinatorResult([])
        group = stored.copy()
        member = group.members.get(member_id) or ConsumerGroupMember(member_id)
        updated = member.with_(
            instance_id=request.group_instance_id, rack_id=subscription.rack_id or member.rack_id,
            rebalance_timeout_ms=request.rebalance_timeout_ms, client_id=context.client_id,
            client_host=context.client_host, subscribed_topic_names=tuple(sorted(subscription.topics)),
            classic_member_metadata=ClassicMemberMetadata(request.session_timeout_ms,
                                                          tuple(request.protocols)))
        bump = member_id not in group.members
        group.update_member(updated)
        bump = self.consumer.refresh_subscriptions(group) or bump
        if bump:
            group.group_epoch += 1
            log.info("bumped group epoch", group_id=group.group_id, group_epoch=group.group_epoch,
                     member_id=member_id)
        if group.group_epoch > group.assignment_epoch:
            self.consumer.update_target_assignment(group)
        owned = to_topic_partition_map(subscription.owned_partitions, self.consumer.topics_image())
        reconciled = self.consumer.maybe_reconcile(group, updated, owned)
        result = JoinGroupResult(Errors.NONE, member_id, reconciled.member_epoch, CONSUMER_PROTOCOL_TYPE,
                                 reconciled.classic_protocol_name())
        group_id = group.group_id

        def on_append(future: Future) -> None:
            if future.exception() is not None:
                response_callback(JoinGroupResult(normalize_error(error_of(future.exception())), member_id))
                return
            self.timer.cancel(join_timeout_key(group_id, member_id))
            self.consumer.schedule_session_timeout(group_id, member_id, request.session_timeout_ms)
            self.schedule_sync_timeout(group_id, member_id, request.rebalance_timeout_ms)
            response_callback(result)

        future: Future = Future()
        future.add_done_callback(on_append)
        return CoordinatorResult(records_between(stored, group), append_future=future)

    def throw_if_consumer_group_is_full(self, group: ConsumerGroup, member_id: str) -> None:
        if member_id not in group.members and len(group.members) >= self.config.consumer_group_max_size:
            raise ApiError(Errors.GROUP_MAX_SIZE_REACHED,
                           f"The consumer group has reached its maximum capacity "
                           f"of {self.config.consumer_group_max_size} members.")

    # ------------------------------------------------------------------ SyncGroup
    def classic_group_sync_to_consumer_group(self, group: ConsumerGroup, context, request,
                                             response_callback: SyncCallback) -> CoordinatorResult:
        """The member's assigned partitions, once everything written before has committed."""
        try:
            member = self.validate_consumer_group_member(group, request.member_id, request.group_instance_id)
            self.throw_if_generation_id_unmatched(member, request.generation_id)
            self.throw_if_classic_protocol_unmatched(member, request.protocol_type, request.protocol_name)
            self.throw_if_rebalance_in_progress(group, member)
        except ApiError as e:
            response_callback(SyncGroupResult(e.error))
            return CoordinatorResult([])
        group_id, member_id = group.group_id, member.member_id
        classic = member.classic_member_metadata
        assignment = serialize_assignment_for(member.assigned_partitions, self.consumer.topics_image(),
                                              classic.supported_protocols[0][1])

        def on_append(future: Future) -> None:
            if future.exception() is not None:
                response_callback(SyncGroupResult(normalize_error(error_of(future.exception()))))
                return
            self.timer.cancel(sync_timeout_key(group_id, member_id))
            self.consumer.schedule_session_timeout(group_id, member_id, classic.session_timeout_ms)
            response_callback(SyncGroupResult(Errors.NONE, CONSUMER_PROTOCOL_TYPE,
                                              member.classic_protocol_name(),
                                              assignment))

        future: Future = Future()
        future.add_done_callback(on_append)
        return CoordinatorResult([], append_future=future, replay_records=False)

    # ------------------------------------------------------------------ Heartbeat
    def classic_group_heartbeat_to_consumer_group(self, group: ConsumerGroup, context,
                                                  request) -> CoordinatorResult:
        """NONE, or REBALANCE_IN_PROGRESS when the member must rejoin: the group epoch moved past its
        own, it must give partitions back, or the partitions it waits for are free now."""
        try:
            member = self.validate_consumer_group_member(group, request.member_id, request.group_instance_id)
            self.throw_if_generation_id_unmatched(member, request.generation_id)
        except ApiError as e:
            return CoordinatorResult(response=e.error)
        self.consumer.schedule_session_timeout(group.group_id, member.member_id,
                                               member.classic_protocol_session_timeout_ms())
        if (member.member_epoch < group.group_epoch or member.state is MemberState.UNREVOKED_PARTITIONS
                or (member.state is MemberState.UNRELEASED_PARTITIONS
                    and not group.waiting_on_unreleased_partition(member))):
            self.schedule_join_timeout_if_absent(group.group_id, member.member_id,
                                                 member.rebalance_timeout_ms)
            return CoordinatorResult(response=Errors.REBALANCE_IN_PROGRESS)
        return CoordinatorResult(response=Errors.NONE)

    # ------------------------------------------------------------------ LeaveGroup
    def classic_group_leave_to_consumer_group(self, stored: ConsumerGroup, context,
                                              request) -> CoordinatorResult:
        """Each member named leaves (a classic member only); the response is (error, [(member, error)])."""
        group = stored.copy()
        answers = []
        for leaving in request.members:
            try:
                if leaving.group_instance_id is None:
                    member = self.validate_consumer_group_member(group, leaving.member_id, None)
                else:
                    member = self.static_member(group, leaving.group_instance_id)
                    if leaving.member_id != UNKNOWN_MEMBER_ID and leaving.member_id != member.member_id:
                        raise ApiError(Errors.FENCED_INSTANCE_ID)
                    self.throw_if_member_does_not_use_classic_protocol(member)
            except ApiError as e:
                answers.append((leaving, e.error))
                continue
            log.info("member has left group through explicit LeaveGroup request", group=group.group_id,
                     member=member.member_id, client_reason=leaving.reason or "not provided")
            self.consumer.remove_member_and_update_group(group, member.member_id,
                                                         "left the group (LeaveGroup)")
            answers.append((leaving, Errors.NONE))
        return CoordinatorResult(records_between(stored, group), (Errors.NONE, answers))

    # ------------------------------------------------------------------ checks
    def validate_consumer_group_member(self, group: ConsumerGroup, member_id: str,
                                       instance_id: str | None) -> ConsumerGroupMember:
        """Kafka's validateConsumerGroupMember, and the member must speak the classic protocol."""
        if instance_id is None:
            member = group.members.get(member_id)
            if member is None:
                raise ApiError(Errors.UNKNOWN_MEMBER_ID, f"Member {member_id} is not a member of group "
                                                         f"{group.group_id}.")
        else:
            member = self.static_member(group, instance_id)
            if member.member_id != member_id:
                raise ApiError(Errors.FENCED_INSTANCE_ID, f"Static member {member_id} with instance id "
                                                          f"{instance_id} is fenced by member "
                                                          f"{member.member_id}.")
        self.throw_if_member_does_not_use_classic_protocol(member)
        return member

    @staticmethod
    def static_member(group: ConsumerGroup, instance_id: str) -> ConsumerGroupMember:
        for member in group.members.values():
            if member.instance_id == instance_id:
                return member
        raise ApiError(Errors.UNKNOWN_MEMBER_ID, f"Member with instance id {instance_id} is not a member of "
                                                 f"group {group.group_id}.")

    @staticmethod
    def throw_if_member_does_not_use_classic_protocol(member: ConsumerGroupMember) -> None:
        if not member.use_classic_protocol():
            raise ApiError(Errors.UNKNOWN_MEMBER_ID,
                           f"Member {member.member_id} does not use the classic protocol.")

    @staticmethod
    def throw_if_generation_id_unmatched(member: ConsumerGroupMember, generation_id: int) -> None:
        if member.member_epoch != generation_id:
            raise ApiError(Errors.ILLEGAL_GENERATION,
                           f"The request generation id {generation_id} is not equal to "
                           f"the member epoch {member.member_epoch} of member "
                           f"{member.member_id}.")

    @staticmethod
    def throw_if_classic_protocol_unmatched(member: ConsumerGroupMember, protocol_type: str | None,
                                            protocol_name: str | None) -> None:
        if protocol_type is not None and protocol_type != CONSUMER_PROTOCOL_TYPE:
            raise ApiError(Errors.INCONSISTENT_GROUP_PROTOCOL)
        if protocol_name is not None and protocol_name != member.classic_protocol_name():
            raise ApiError(Errors.INCONSISTENT_GROUP_PROTOCOL)

    def throw_if_rebalance_in_progress(self, group: ConsumerGroup, member: ConsumerGroupMember) -> None:
        """A new target since it joined: rejoin first (unless it is still revoking; its next join
        catches up)."""
        if group.group_epoch > member.member_epoch and member.state is not MemberState.UNREVOKED_PARTITIONS:
            self.schedule_join_timeout_if_absent(group.group_id, member.member_id,
                                                 member.rebalance_timeout_ms)
            raise ApiError(Errors.REBALANCE_IN_PROGRESS,
                           f"A new rebalance is triggered in group {group.group_id} "
                           f"and member {member.member_id} should rejoin to "
                           "catch up.")

    # ------------------------------------------------------------------ timers
    def schedule_join_timeout_if_absent(self, group_id: str, member_id: str,
                                        rebalance_timeout_ms: int) -> None:
        self.timer.schedule_if_absent(join_timeout_key(group_id, member_id), max(rebalance_timeout_ms, 0),
                                      True,
                                      lambda: self.consumer.fence_member(
                                          group_id, member_id, "the classic member failed to join within the "
                                                               "rebalance timeout"))

    def schedule_sync_timeout(self, group_id: str, member_id: str, rebalance_timeout_ms: int) -> None:
        self.timer.schedule(sync_timeout_key(group_id, member_id), max(rebalance_timeout_ms, 0), True,
                            lambda: self.consumer.fence_member(group_id, member_id,
                                                               "the member failed to sync within timeout"))
