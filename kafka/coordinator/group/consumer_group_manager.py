"""ConsumerGroupManager: the consumer groups of KIP-848 in one shard -- the consumer-group half of
Kafka's org.apache.kafka.coordinator.group.GroupMetadataManager (consumerGroupHeartbeat,
consumerGroupDescribe, the session and rebalance timeouts, consumerGroupFenceMember, replay).

One request does everything (ConsumerGroupHeartbeat): a member joins with epoch 0, says what it
subscribes to and which partitions it owns; the coordinator bumps the *group epoch* when what the
assignment depends on changed, computes the new *target assignment* itself with the group's assignor
(TargetAssignmentBuilder), and moves this member one step towards its target (CurrentAssignmentBuilder),
answering with the member's epoch and, when it changed, its partitions. No member waits for another.

Every change is an event of the shard, and changes the group only through records. An operation
works on a copy of the group, writes the records that take the log from the group as stored to the
copy, and the runtime replays them into the shard (``replay``) before it appends them; the answer
goes once they commit. A failed append reverts the timeline, so the stored group is what it was.
Replaying the log on another coordinator gives the same groups (the test replays and compares).
An operation refuses a request by raising ApiError; nothing it did is kept (it wrote nothing).
Regexes are RE2's with a full match, as Kafka's RE2/J (kafka/utils/re2_pattern.py): linear in the name.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import structlog

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.group.assignor import assignors_from_config
from kafka.coordinator.group.group import ApiError, Group, GroupType
from kafka.coordinator.group.group_coordinator_records import (
    ConsumerGroupCurrentMemberAssignmentKey,
    ConsumerGroupCurrentMemberAssignmentValue,
    ConsumerGroupMemberMetadataKey,
    ConsumerGroupMetadataKey,
    ConsumerGroupTargetAssignmentMemberKey,
    ConsumerGroupTargetAssignmentMetadataKey,
)
from kafka.coordinator.group.modern.consumer.consumer_group import (
    ConsumerGroup,
    ConsumerGroupState,
    records_between,
)
from kafka.coordinator.group.modern.consumer.consumer_group_member import (
    Assignment,
    ConsumerGroupMember,
    MemberState,
)
from kafka.coordinator.group.modern.consumer.current_assignment_builder import (
    CurrentAssignmentBuilder,
    FencedMemberEpoch,
)
from kafka.coordinator.group.modern.consumer.target_assignment_builder import (
    TargetAssignmentBuilder,
    TopicMetadata,
)
from kafka.protocol.errors import Errors
from kafka.timeline import LATEST_EPOCH, TimelineHashMap
from kafka.utils.re2_pattern import compile_re2
from kafka.utils.time import Time

log = structlog.get_logger("kafka.coordinator.group.ConsumerGroupManager")

JOIN_GROUP_MEMBER_EPOCH, LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH = 0, -1, -2
INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state"})
CLASSIC_MEMBER_TYPE, CONSUMER_MEMBER_TYPE = 0, 1  # ConsumerGroupDescribe v1's MemberType


@dataclass
class HeartbeatRequest:
    """ConsumerGroupHeartbeat's fields, as the handler decoded them (topic ids already uuids)."""

    group_id: str
    member_id: str
    member_epoch: int
    instance_id: str | None = None
    rack_id: str | None = None
    rebalance_timeout_ms: int = -1
    subscribed_topic_names: list[str] | None = None
    subscribed_topic_regex: str | None = None
    server_assignor: str | None = None
    topic_partitions: Assignment | None = None


def session_timeout_key(group_id: str, member_id: str) -> str:
    return f"session-timeout-{group_id}-{member_id}"


def rebalance_timeout_key(group_id: str, member_id: str) -> str:
    return f"rebalance-timeout-{group_id}-{member_id}"


def join_timeout_key(group_id: str, member_id: str) -> str:
    """A classic member told to rejoin (REBALANCE_IN_PROGRESS) must do so within its rebalance timeout."""
    return f"join-{group_id}-{member_id}"


def sync_timeout_key(group_id: str, member_id: str) -> str:
    """A classic member that joined must send SyncGroup within its rebalance timeout."""
    return f"sync-{group_id}-{member_id}"


def error_response(error: Errors, message: str | None) -> dict:
    """ConsumerGroupHeartbeat's answer to a refused request (the service sends it for an ApiError): the
    error, the rest at the response's defaults (member epoch 0), as Kafka's handleOperationException."""
    return dict(error_code=error, error_message=message, member_id=None, member_epoch=0,
                heartbeat_interval_ms=0, assignment=None)


class ConsumerGroupManager:
    """``config`` holds Kafka's GroupCoordinatorConfig fields: consumer_group_session_timeout_ms,
    consumer_group_heartbeat_interval_ms, consumer_group_assignors, consumer_group_max_size.
    ``group_configs(group_id)`` gives a group's own settings (its consumer.session.timeout.ms, ...: the
    GroupConfigManager's), {} for none."""

    def __init__(self, *, groups: TimelineHashMap[str, Group], snapshot_registry, time: Time, timer, config,
                 log_context: str = "",
                 topics_image: Callable[[], dict[str, tuple[uuid.UUID, int]]] = dict,
                 group_configs: Callable[[str], Mapping[str, str]] = lambda group_id: {}) -> None:
        self.groups = groups  # the GroupMetadataManager's: classic and consumer groups share the ids
        self.snapshot_registry = snapshot_registry
        self.time = time
        self.timer = timer
        self.config = config
        self.log = log.bind(log_context=log_context) if log_context else log
        self.assignors = assignors_from_config(list(config.consumer_group_assignors))
        self.default_assignor = next(iter(self.assignors))
        # name -> (topic id, partitions) of every topic now; the shard sets it from its MetadataImage
        self.topics_image = topics_image
        self.group_configs = group_configs
        # metrics: Kafka's consumer-group-rebalance-count, and how long the assignor took
        self.rebalance_count = 0
        self.assignment_time_ms_total = 0.0
        self.on_assignment: Callable[[float], None] = lambda ms: None
        # The GroupMetadataManager's conversions between the group types (callbacks: arrows point down).
        # convert_classic_group(classic group, records) -> the consumer group it becomes, or None if
        # it may not; maybe_downgrade(group, leaving member id) -> the result of turning it classic, or None.
        self.convert_classic_group: Callable[[Group, list], ConsumerGroup | None]
        self.convert_classic_group = lambda group, records: None
        self.maybe_downgrade: Callable[[ConsumerGroup, str], CoordinatorResult | None] = lambda group, m: None

    # ------------------------------------------------------------------ the group's own settings
    def session_timeout_ms(self, group_id: str) -> int:
        """Kafka's consumerGroupSessionTimeoutMs: the group's consumer.session.timeout.ms, else the
        broker's."""
        return int(self.group_configs(group_id).get("consumer.session.timeout.ms",
                                                    self.config.consumer_group_session_timeout_ms))

    def heartbeat_interval_ms(self, group_id: str) -> int:
        """Kafka's consumerGroupHeartbeatIntervalMs."""
        return int(self.group_configs(group_id).get("consumer.heartbeat.interval.ms",
                                                    self.config.consumer_group_heartbeat_interval_ms))

    # ------------------------------------------------------------------ ConsumerGroupHeartbeat
    def consumer_group_heartbeat(self, request: HeartbeatRequest, client_id: str,
                                 client_host: str) -> CoordinatorResult[dict]:
        """The records of the change and the answer to send once they commit; ApiError if refused."""
        self.throw_if_request_is_invalid(request)
        if request.member_epoch in (LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH):
            return self.consumer_group_leave(request)
        return self.heartbeat(request, client_id, client_host)

    def throw_if_request_is_invalid(self, request: HeartbeatRequest) -> None:
        """Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid."""
        def invalid(message: str) -> ApiError:
            return ApiError(Errors.INVALID_REQUEST, message)
        if not request.group_id:
            raise invalid("GroupId can't be empty.")
        if request.instance_id == "" or request.rack_id == "":
            raise invalid("InstanceId and RackId can't be empty.")
        epoch = request.member_epoch
        if epoch > 0 or epoch in (LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH):
            if not request.member_id:
                raise invalid("MemberId can't be empty.")
        elif epoch == JOIN_GROUP_MEMBER_EPOCH:
            if request.rebalance_timeout_ms == -1:
                raise invalid("RebalanceTimeoutMs must be provided in first request.")
            if request.topic_partitions is None or any(request.topic_partitions.values()):
                raise invalid("TopicPartitions must be empty when (re-)joining.")
            if not request.subscribed_topic_names and request.subscribed_topic_regex is None:
                raise invalid("SubscribedTopicNames or SubscribedTopicRegex must be set in first request.")
        else:
            raise invalid("MemberEpoch is invalid.")
        if request.server_assignor is not None and request.server_assignor not in self.assignors:
            raise ApiError(Errors.UNSUPPORTED_ASSIGNOR,
                           f"ServerAssignor {request.server_assignor} is not supported. "
                           f"Supported assignors: {', '.join(self.assignors)}.")
        if request.subscribed_topic_regex is not None:
            try:
                compile_re2(request.subscribed_topic_regex)
            except re.error as e:
                raise ApiError(Errors.INVALID_REGULAR_EXPRESSION,
                               f"SubscribedTopicRegex `{request.subscribed_topic_regex}` is not a valid "
                               f"regular expression: {e}.") from e

    def get_or_maybe_create_consumer_group(
            self, group_id: str, create: bool,
            records: list[CoordinatorRecord]) -> tuple[ConsumerGroup | None, ConsumerGroup]:
        """Kafka's getOrMaybeCreateConsumerGroup: (the group as stored or None, the copy to change). An
        empty classic group is replaced, its tombstones added to ``records`` (a simple group, which only
        holds offsets, has none); one with members is converted when the migration policy allows it
        (its tombstone and the new group's records are written), else it keeps its id (GROUP_ID_NOT_FOUND)."""
        group = self.groups.get(group_id)
        if isinstance(group, ConsumerGroup):
            return group, group.copy()
        if group is not None and not (group.type() is GroupType.CLASSIC and group.is_empty()):
            converted = self.convert_classic_group(group, records) if create else None
            if converted is None:
                raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a consumer group.")
            return None, converted
        if not create:
            raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} not found.")
        if group is not None:
            records.extend(group.create_group_tombstone_records())
        self.log.info("created consumer group", group_id=group_id)
        return None, ConsumerGroup(group_id)

    def heartbeat(self, request: HeartbeatRequest, client_id: str,
                  client_host: str) -> CoordinatorResult[dict]:
        records: list[CoordinatorRecord] = []
        stored, group = self.get_or_maybe_create_consumer_group(request.group_id, request.member_epoch == 0,
                                                                records)
        member_id = request.member_id or str(uuid.uuid4())  # v0 clients let the coordinator choose
        member = group.members.get(member_id)
        if member is None:
            if request.member_epoch != JOIN_GROUP_MEMBER_EPOCH:
                raise ApiError(Errors.UNKNOWN_MEMBER_ID,
                               f"Member {member_id} is not a member of group {group.group_id}.")
            if len(group.members) >= self.config.consumer_group_max_size:
                raise ApiError(Errors.GROUP_MAX_SIZE_REACHED,
                               f"The consumer group has reached its maximum capacity "
                               f"of {self.config.consumer_group_max_size} members.")
            member = ConsumerGroupMember(member_id)
        elif request.member_epoch != JOIN_GROUP_MEMBER_EPOCH:
            self.throw_if_member_epoch_is_invalid(member, request.member_epoch, request.topic_partitions)
        updated = self.updated_member(member, request, client_id, client_host)
        bump = member_id not in group.members or updated.server_assignor_name != member.server_assignor_name
        group.update_member(updated)
        bump = self.refresh_subscriptions(group) or bump
        if bump:
            group.group_epoch += 1
            self.log.info("bumped group epoch", group_id=group.group_id, group_epoch=group.group_epoch,
                          member_id=member_id)
        if group.group_epoch > group.assignment_epoch:
            self.update_target_assignment(group)
        reconciled = self.maybe_reconcile(group, updated, request.topic_partitions)
        records += records_between(stored, group)
        self.schedule_session_timeout(group.group_id, member_id)
        is_full_request = request.member_epoch == 0 or (
            request.rebalance_timeout_ms != -1 and request.topic_partitions is not None
            and (request.subscribed_topic_names is not None or request.subscribed_topic_regex is not None))
        assignment = None
        if is_full_request or reconciled.assigned_partitions != member.assigned_partitions:
            assignment = dict(topic_partitions=[dict(topic_id=t, partitions=sorted(p))
                                                for t, p in sorted(reconciled.assigned_partitions.items(),
                                                                   key=str)])
        return CoordinatorResult(records, dict(
            error_code=Errors.NONE, error_message=None, member_id=member_id,
            member_epoch=reconciled.member_epoch,
            heartbeat_interval_ms=self.heartbeat_interval_ms(group.group_id), assignment=assignment))

    @staticmethod
    def throw_if_member_epoch_is_invalid(member: ConsumerGroupMember, received: int,
                                         owned: Assignment | None) -> None:
        """Kafka's throwIfConsumerGroupMemberEpochIsInvalid: ahead is fenced; behind is fenced too,
        unless it is the previous epoch and it owns no more than it is given (a lost response)."""
        if received > member.member_epoch:
            raise ApiError(Errors.FENCED_MEMBER_EPOCH,
                           f"The consumer group member has a greater member epoch "
                           f"({received}) than the one known by the group coordinator "
                           f"({member.member_epoch}). "
                           "The member must abandon all its partitions and rejoin.")
        if received < member.member_epoch and (received != member.previous_member_epoch or owned is None
                                               or any(
                not partitions <= member.assigned_partitions.get(t, frozenset())
                for t, partitions in owned.items())):
            raise ApiError(Errors.FENCED_MEMBER_EPOCH,
                           f"The consumer group member has a smaller member epoch "
                           f"({received}) than the one known by the group coordinator "
                           f"({member.member_epoch}). "
                           "The member must abandon all its partitions and rejoin.")

    @staticmethod
    def updated_member(member: ConsumerGroupMember, request: HeartbeatRequest, client_id: str,
                       client_host: str) -> ConsumerGroupMember:
        """Null fields of the request mean "unchanged since my last heartbeat"."""
        changes: dict = dict(client_id=client_id, client_host=client_host)
        for field, value in (("instance_id", request.instance_id), ("rack_id", request.rack_id),
                             ("server_assignor_name", request.server_assignor),
                             ("subscribed_topic_regex", request.subscribed_topic_regex)):
            if value is not None:
                changes[field] = value or None
        if request.rebalance_timeout_ms != -1:
            changes["rebalance_timeout_ms"] = request.rebalance_timeout_ms
        if request.subscribed_topic_names is not None:
            changes["subscribed_topic_names"] = tuple(sorted(request.subscribed_topic_names))
        return member.with_(**changes)

    def resolve_subscription(self, member: ConsumerGroupMember) -> frozenset[str]:
        """The names it reads: the ones it lists, and the topics its regex matches in full (internal
        topics left out, as the Java consumer's exclude.internal.topics does)."""
        names = set(member.subscribed_topic_names)
        if member.subscribed_topic_regex:
            pattern = compile_re2(member.subscribed_topic_regex)
            names |= {t for t in self.topics_image() if t not in INTERNAL_TOPICS and pattern.fullmatch(t)}
        return frozenset(names)

    def refresh_subscriptions(self, group: ConsumerGroup) -> bool:
        """Every member's subscription resolved against the topics now, and the subscribed topics' ids
        and partition counts; True when either changed (a member's subscription, a topic created or
        deleted, partitions added), which bumps the group epoch. The same on a write and on a replay of
        the group epoch, so the replayed group is the written one."""
        resolved = {m: self.resolve_subscription(member) for m, member in group.members.items()}
        image = self.topics_image()
        names = set().union(*resolved.values()) if resolved else set()
        metadata = {name: TopicMetadata(image[name][0], name, image[name][1]) for name in names
                    if name in image}
        changed = resolved != group.resolved_subscriptions or metadata != group.subscription_metadata
        group.resolved_subscriptions, group.subscription_metadata = resolved, metadata
        return changed

    def update_target_assignment(self, group: ConsumerGroup) -> None:
        """Kafka's updateTargetAssignment: the assignor's new target, stamped with the group epoch."""
        assignor_name = group.preferred_server_assignor(self.default_assignor)
        start = self.time.hi_res_clock_ms()
        group.target_assignment = (TargetAssignmentBuilder(group.group_id, group.group_epoch,
                                                           self.assignors[assignor_name])
                                   .with_members(group.members, group.resolved_subscriptions)
                                   .with_subscription_metadata(group.subscription_metadata)
                                   .with_target_assignment(group.target_assignment)
                                   .build())
        group.assignment_epoch = group.group_epoch
        elapsed = self.time.hi_res_clock_ms() - start
        self.rebalance_count += 1
        self.assignment_time_ms_total += elapsed
        self.on_assignment(elapsed)
        self.log.info("computed target assignment", group_id=group.group_id,
                      assignment_epoch=group.assignment_epoch,
                      assignor=assignor_name, members=len(group.members), time_ms=round(elapsed, 3))

    def maybe_reconcile(self, group: ConsumerGroup, member: ConsumerGroupMember,
                        owned: Assignment | None) -> ConsumerGroupMember:
        try:
            reconciled = (CurrentAssignmentBuilder(member)
                          .with_target_assignment(group.assignment_epoch,
                                                  group.target_assignment.get(member.member_id, {}))
                          .with_current_partition_epoch(group.current_partition_epoch)
                          .with_owned_topic_partitions(owned)
                          .build())
        except FencedMemberEpoch as e:
            raise ApiError(Errors.FENCED_MEMBER_EPOCH, str(e)) from e
        if reconciled != member:
            group.update_member(reconciled)
            if reconciled.state is MemberState.UNREVOKED_PARTITIONS:
                # Kafka's rebalance timeout: revoke within rebalance.timeout.ms, or be fenced
                self.schedule_rebalance_timeout(group.group_id, member.member_id, reconciled.member_epoch,
                                                reconciled.rebalance_timeout_ms)
            else:
                self.timer.cancel(rebalance_timeout_key(group.group_id, member.member_id))
        return reconciled

    # ------------------------------------------------------------------ leaving, fencing, timers
    def consumer_group_leave(self, request: HeartbeatRequest) -> CoordinatorResult[dict]:
        group = self.groups.get(request.group_id)
        if not isinstance(group, ConsumerGroup) or request.member_id not in group.members:
            raise ApiError(Errors.UNKNOWN_MEMBER_ID, f"Member {request.member_id} is not a member of group "
                                                     f"{request.group_id}.")
        response = dict(error_code=Errors.NONE, error_message=None, member_id=request.member_id,
                        member_epoch=request.member_epoch, heartbeat_interval_ms=0, assignment=None)
        downgraded = self.maybe_downgrade(group, request.member_id)
        if downgraded is not None:
            return CoordinatorResult(downgraded.records, response, downgraded.append_future,
                                     replay_records=False)
        changed = group.copy()
        self.remove_member_and_update_group(changed, request.member_id, "left the group")
        return CoordinatorResult(records_between(group, changed), response)

    def fence_member(self, group_id: str, member_id: str, reason: str) -> CoordinatorResult[None]:
        """Kafka's consumerGroupFenceMember as an operation: nothing when the member is gone already.
        The last member of the new protocol going may turn the group classic (maybe_downgrade)."""
        group = self.groups.get(group_id)
        if not isinstance(group, ConsumerGroup) or member_id not in group.members:
            return CoordinatorResult([])
        downgraded = self.maybe_downgrade(group, member_id)
        if downgraded is not None:
            return downgraded
        changed = group.copy()
        self.remove_member_and_update_group(changed, member_id, reason)
        return CoordinatorResult(records_between(group, changed))

    def remove_member_and_update_group(self, group: ConsumerGroup, member_id: str, reason: str) -> None:
        """The member goes, its partitions are free at once, and the group epoch moves so the others
        share them."""
        group.remove_member(member_id)
        group.target_assignment.pop(member_id, None)
        group.group_epoch += 1
        self.refresh_subscriptions(group)
        if group.members:
            self.update_target_assignment(group)
        else:
            group.target_assignment, group.assignment_epoch = {}, group.group_epoch
        self.cancel_timers(group.group_id, member_id)
        self.log.info("member removed", group_id=group.group_id, member_id=member_id, reason=reason,
                      group_epoch=group.group_epoch)

    def cancel_timers(self, group_id: str, member_id: str) -> None:
        for key in (session_timeout_key, rebalance_timeout_key, join_timeout_key, sync_timeout_key):
            self.timer.cancel(key(group_id, member_id))

    def schedule_session_timeout(self, group_id: str, member_id: str, timeout_ms: int | None = None) -> None:
        """The group's session timeout from now (a classic member's own session.timeout.ms): a member that
        does not heartbeat again goes."""
        self.timer.schedule(session_timeout_key(group_id, member_id),
                            self.session_timeout_ms(group_id) if timeout_ms is None else timeout_ms,
                            True,
                            lambda: self.fence_member(group_id, member_id, "the member session expired"))

    def schedule_rebalance_timeout(self, group_id: str, member_id: str, member_epoch: int,
                                   rebalance_timeout_ms: int) -> None:
        """A member asked to revoke must do so (and so move past ``member_epoch``) within its timeout."""
        def expire() -> CoordinatorResult[None]:
            group = self.groups.get(group_id)
            member = group.members.get(member_id) if isinstance(group, ConsumerGroup) else None
            if member is None or member.member_epoch != member_epoch:
                return CoordinatorResult([])
            return self.fence_member(group_id, member_id,
                                     f"it failed to transition from epoch {member_epoch} "
                                     f"within {rebalance_timeout_ms}ms")
        self.timer.schedule(rebalance_timeout_key(group_id, member_id), max(rebalance_timeout_ms, 0), True,
                            expire)

    # ------------------------------------------------------------------ replay and load
    def replay(self, record: CoordinatorRecord) -> None:
        """Apply one of the ConsumerGroup* records (Kafka's GroupMetadataManager.replay overloads): the
        group is copied, changed and put back, so the timeline keeps the version before."""
        key, value = record.key, record.value
        group = self.groups.get(key.group_id)
        if not isinstance(group, ConsumerGroup):
            if value is None:
                return  # a tombstone of a group already gone
            if group is not None and not (group.type() is GroupType.CLASSIC and group.is_empty()):
                raise RuntimeError(f"consumer group record for {key.group_id}, a non-empty {group.type()} "
                                   "group")
            group = ConsumerGroup(key.group_id)  # replaces a simple group, which only held offsets
        else:
            group = group.copy()
        if isinstance(key, ConsumerGroupMetadataKey):
            if value is None:
                del self.groups[key.group_id]
                return
            group.group_epoch = value.epoch
            self.refresh_subscriptions(group)
        elif isinstance(key, ConsumerGroupMemberMetadataKey):
            if value is None:
                group.remove_member(key.member_id)
            else:
                member = group.members.get(key.member_id) or ConsumerGroupMember(key.member_id)
                group.update_member(member.with_member_metadata(value))
        elif isinstance(key, ConsumerGroupTargetAssignmentMetadataKey):
            if value is not None:
                group.assignment_epoch = value.assignment_epoch
        elif isinstance(key, ConsumerGroupTargetAssignmentMemberKey):
            if value is None:
                group.target_assignment.pop(key.member_id, None)
            else:
                group.target_assignment[key.member_id] = dict(value.topic_partitions)
        elif isinstance(key, ConsumerGroupCurrentMemberAssignmentKey):
            member = group.members.get(key.member_id)
            if value is None and member is None:
                return
            value = value or ConsumerGroupCurrentMemberAssignmentValue(0, -1, MemberState.STABLE.to_byte())
            group.update_member((member or ConsumerGroupMember(key.member_id)).with_current_assignment(value))
        self.groups[key.group_id] = group

    def on_loaded(self) -> None:
        """The partition is loaded: every member gets a session from now (it heartbeated to the old
        coordinator), and a member still revoking gets its rebalance timeout again."""
        for group in self.consumer_groups():
            for member in group.members.values():
                self.schedule_session_timeout(group.group_id, member.member_id,
                                              member.classic_protocol_session_timeout_ms())
                if member.state is MemberState.UNREVOKED_PARTITIONS:
                    self.schedule_rebalance_timeout(group.group_id, member.member_id, member.member_epoch,
                                                    member.rebalance_timeout_ms)
            self.log.info("loaded consumer group", group_id=group.group_id, group_epoch=group.group_epoch,
                          members=len(group.members))

    # ------------------------------------------------------------------ views
    def consumer_group(self, group_id: str, committed_offset: int = LATEST_EPOCH) -> ConsumerGroup | None:
        group = self.groups.get_at(group_id, committed_offset)
        return group if isinstance(group, ConsumerGroup) else None

    def consumer_groups(self, committed_offset: int = LATEST_EPOCH) -> list[ConsumerGroup]:
        return [g for g in self.groups.values_at(committed_offset) if isinstance(g, ConsumerGroup)]

    def count_by_state(self, committed_offset: int = LATEST_EPOCH) -> dict[str, int]:
        """Kafka's consumer-group-count, by state (every state shown, at 0 when none is in it)."""
        counts = {str(s): 0 for s in ConsumerGroupState if s is not ConsumerGroupState.DEAD}
        for group in self.consumer_groups(committed_offset):
            counts[str(group.state)] += 1
        return counts

    def consumer_group_describe(self, group_ids: list[str],
                                committed_offset: int = LATEST_EPOCH) -> list[dict]:
        """ConsumerGroupDescribe's groups, read at the committed offset (a read operation)."""
        names = {topic_id: name for name, (topic_id, _) in self.topics_image().items()}

        def assignment(a: Assignment) -> dict:
            return dict(topic_partitions=[dict(topic_id=t, topic_name=names.get(t, ""), partitions=sorted(p))
                                          for t, p in sorted(a.items(), key=lambda kv: names.get(kv[0], ""))])
        described = []
        for group_id in group_ids:
            group = self.consumer_group(group_id, committed_offset)
            if group is None:
                described.append(described_error(group_id, Errors.GROUP_ID_NOT_FOUND))
                continue
            members = [dict(member_id=m.member_id, instance_id=m.instance_id, rack_id=m.rack_id,
                            member_epoch=m.member_epoch, client_id=m.client_id, client_host=m.client_host,
                            subscribed_topic_names=list(m.subscribed_topic_names),
                            subscribed_topic_regex=m.subscribed_topic_regex or "",  # Kafka 4.4: "" for none
                            assignment=assignment(m.assigned_partitions),
                            target_assignment=assignment(group.target_assignment.get(m.member_id, {})),
                            member_type=CLASSIC_MEMBER_TYPE if m.use_classic_protocol()
                            else CONSUMER_MEMBER_TYPE)
                       for m in group.members.values()]
            described.append(dict(error_code=Errors.NONE, error_message=None, group_id=group_id,
                                  group_state=str(group.state), group_epoch=group.group_epoch,
                                  assignment_epoch=group.assignment_epoch,
                                  assignor_name=group.preferred_server_assignor(self.default_assignor),
                                  members=members))
        return described


def described_error(group_id: str, error: Errors) -> dict:
    """ConsumerGroupDescribe's entry for a group it cannot describe."""
    message = f"Group {group_id} not found." if error == Errors.GROUP_ID_NOT_FOUND else error.message
    return dict(error_code=error, error_message=message, group_id=group_id, group_state="", group_epoch=-1,
                assignment_epoch=-1, assignor_name="", members=[])
