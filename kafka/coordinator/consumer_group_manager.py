"""ConsumerGroupManager: the consumer groups of KIP-848 on this coordinator -- the consumer-group
half of Kafka's org.apache.kafka.coordinator.group.GroupMetadataManager (consumerGroupHeartbeat,
consumerGroupDescribe, the session and rebalance timeouts, fenceMember).

One request does everything (ConsumerGroupHeartbeat): a member joins with epoch 0, says what it
subscribes to and which partitions it owns; the coordinator bumps the *group epoch* when what the
assignment depends on changed, computes the new *target assignment* itself with the group's assignor
(TargetAssignmentBuilder), and moves this member one step towards its target (CurrentAssignmentBuilder),
answering with the member's epoch and, when it changed, its partitions. No member waits for another:
there is no JoinGroup barrier, so members that keep their partitions never stop consuming.

The group's records (``consumer_group_records.py``) go to __consumer_offsets after each change, so
the next coordinator of its partition rebuilds it (``on_groups_loaded``). As in Kafka, the answer
waits for them to commit: ``consumer_group_heartbeat`` calls back from the append's completion
(``consumer_group_writes.ConsumerGroupWriter``), at once when nothing was written and no earlier
write is pending. A failed append answers with Kafka's mapped error (COORDINATOR_NOT_AVAILABLE,
NOT_COORDINATOR, ...); the change is not undone in memory as Kafka's snapshots undo it -- the group's
next write rewrites what the failed one touched, and the client's next heartbeat is judged by the
lost-response rule (see consumer_group_writes.py). A classic member cannot join a consumer group
(Kafka's ``group.consumer.migration.policy=disabled``).
Regexes are Python's ``re`` with a full match, where Kafka uses RE2/J.
"""

from __future__ import annotations

import re
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import structlog

from kafka.coordinator.assignor import assignors_from_config
from kafka.coordinator.consumer_group import ConsumerGroup, ConsumerGroupState
from kafka.coordinator.consumer_group_member import Assignment, ConsumerGroupMember, MemberState
from kafka.coordinator.consumer_group_records import group_records
from kafka.coordinator.consumer_group_writes import ConsumerGroupWriter
from kafka.coordinator.current_assignment_builder import CurrentAssignmentBuilder, FencedMemberEpoch
from kafka.coordinator.group_metadata import GroupMetadata, GroupState
from kafka.coordinator.target_assignment_builder import TargetAssignmentBuilder, TopicMetadata
from kafka.protocol.errors import Errors
from kafka.utils.time import Time

log = structlog.get_logger("kafka.coordinator.ConsumerGroupManager")

JOIN_GROUP_MEMBER_EPOCH, LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH = 0, -1, -2
INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state"})


@dataclass(frozen=True)
class ConsumerGroupConfig:
    """The group.consumer.* broker settings (Kafka's GroupCoordinatorConfig)."""

    session_timeout_ms: int = 45_000
    heartbeat_interval_ms: int = 5_000
    assignors: tuple[str, ...] = ("uniform", "range")
    max_size: int = 2**31 - 1


class ApiError(Exception):
    def __init__(self, error: Errors, message: str) -> None:
        super().__init__(message)
        self.error, self.message = error, message


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


class ConsumerGroupManager:
    def __init__(self, config: ConsumerGroupConfig, group_manager, time: Time) -> None:
        self.config = config
        self.group_manager = group_manager  # the classic GroupMetadataManager: coordinator checks, offsets
        self.time = time
        self.assignors = assignors_from_config(list(config.assignors))
        self.default_assignor = next(iter(self.assignors))
        self.groups: dict[str, ConsumerGroup] = {}
        self.lock = threading.RLock()
        # name -> (topic id, partitions) of every topic now; set by the broker from its MetadataCache
        self.topics_image: Callable[[], dict[str, tuple[uuid.UUID, int]]] = dict
        # metrics: Kafka's consumer-group-rebalance-count, and how long the assignor took
        self.rebalance_count = 0
        self.assignment_time_ms_total = 0.0
        self.on_assignment: Callable[[float], None] = lambda ms: None
        self.writer = ConsumerGroupWriter(group_manager.append_group_records)

    # ------------------------------------------------------------------ ConsumerGroupHeartbeat
    def consumer_group_heartbeat(self, request: HeartbeatRequest, client_id: str, client_host: str,
                                 response_callback: Callable[[dict], None]) -> None:
        """Answer through ``response_callback``: once the records the heartbeat wrote are committed
        (perhaps on another thread, later), or at once when it wrote none or was refused."""
        try:
            self.throw_if_request_is_invalid(request)
            error = self.group_manager.validate_group_status(request.group_id, allow_empty_id=False)
            if error is not None:
                raise ApiError(error, error.message)
            with self.lock:
                if request.member_epoch in (LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH):
                    group, response = self.consumer_group_leave(request)
                else:
                    group, response = self.heartbeat(request, client_id, client_host)
                # still under the lock: the appends keep the order of the changes
                self.writer.write(group, lambda error: response_callback(
                    response if error == Errors.NONE else error_response(error, None)))
        except ApiError as e:
            response_callback(error_response(e.error, e.message))

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
            raise ApiError(Errors.UNSUPPORTED_ASSIGNOR, f"ServerAssignor {request.server_assignor} is not supported. "
                           f"Supported assignors: {', '.join(self.assignors)}.")
        if request.subscribed_topic_regex is not None:
            try:
                re.compile(request.subscribed_topic_regex)
            except re.error as e:
                raise ApiError(Errors.INVALID_REGULAR_EXPRESSION,
                               f"SubscribedTopicRegex `{request.subscribed_topic_regex}` is not a valid regular "
                               f"expression: {e}.") from e

    def get_or_maybe_create_consumer_group(self, group_id: str, create: bool) -> ConsumerGroup:
        """Kafka's getOrMaybeCreateConsumerGroup: a classic group with members keeps its id
        (GROUP_ID_NOT_FOUND); an empty one is upgraded, its offsets staying where they are."""
        group = self.groups.get(group_id)
        if group is not None:
            return group
        classic = self.group_manager.get_group(group_id)
        if classic is not None and not classic.is_state(GroupState.EMPTY) and not classic.is_state(GroupState.DEAD):
            raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a consumer group.")
        if not create:
            raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} not found.")
        if classic is None:  # the holder of the group's committed offsets
            self.group_manager.add_group(GroupMetadata(group_id, GroupState.EMPTY, self.time))
        group = self.groups[group_id] = ConsumerGroup(group_id)
        log.info("created consumer group", group_id=group_id)
        return group

    def heartbeat(self, request: HeartbeatRequest, client_id: str,
                  client_host: str) -> tuple[ConsumerGroup, dict]:
        """The group as changed (the caller writes its records) and the answer, to send once they commit."""
        now = self.time.milliseconds()
        group = self.get_or_maybe_create_consumer_group(request.group_id, request.member_epoch == 0)
        member_id = request.member_id or str(uuid.uuid4())  # v0 clients let the coordinator choose
        member = group.members.get(member_id)
        if member is None:
            if request.member_epoch != JOIN_GROUP_MEMBER_EPOCH:
                raise ApiError(Errors.UNKNOWN_MEMBER_ID, f"Member {member_id} is not a member of group {group.group_id}.")
            if len(group.members) >= self.config.max_size:
                raise ApiError(Errors.GROUP_MAX_SIZE_REACHED, f"The consumer group has reached its maximum capacity "
                               f"of {self.config.max_size} members.")
            member = ConsumerGroupMember(member_id)
        elif request.member_epoch != JOIN_GROUP_MEMBER_EPOCH:
            self.throw_if_member_epoch_is_invalid(member, request.member_epoch, request.topic_partitions)
        updated = self.updated_member(member, request, client_id, client_host)
        resolved = self.resolve_subscription(updated)
        bump = member_id not in group.members or resolved != group.resolved_subscriptions.get(member_id) \
            or updated.server_assignor_name != member.server_assignor_name
        group.update_member(updated)
        group.resolved_subscriptions[member_id] = resolved
        bump = self.maybe_refresh_subscription_metadata(group) or bump
        if bump:
            group.group_epoch += 1
            log.info("bumped group epoch", group_id=group.group_id, group_epoch=group.group_epoch, member_id=member_id)
        if group.group_epoch > group.assignment_epoch:
            self.update_target_assignment(group)
        reconciled = self.maybe_reconcile(group, updated, request.topic_partitions, now)
        group.session_deadlines[member_id] = now + self.config.session_timeout_ms
        group.update_state()
        is_full_request = request.member_epoch == 0 or (
            request.rebalance_timeout_ms != -1 and request.topic_partitions is not None
            and (request.subscribed_topic_names is not None or request.subscribed_topic_regex is not None))
        assignment = None
        if is_full_request or reconciled.assigned_partitions != member.assigned_partitions:
            assignment = dict(topic_partitions=[dict(topic_id=t, partitions=sorted(p))
                                                for t, p in sorted(reconciled.assigned_partitions.items(), key=str)])
        return group, dict(error_code=Errors.NONE, error_message=None, member_id=member_id,
                           member_epoch=reconciled.member_epoch,
                           heartbeat_interval_ms=self.config.heartbeat_interval_ms, assignment=assignment)

    @staticmethod
    def throw_if_member_epoch_is_invalid(member: ConsumerGroupMember, received: int, owned: Assignment | None) -> None:
        """Kafka's throwIfConsumerGroupMemberEpochIsInvalid: ahead is fenced; behind is fenced too,
        unless it is the previous epoch and it owns no more than it is given (a lost response)."""
        if received > member.member_epoch:
            raise ApiError(Errors.FENCED_MEMBER_EPOCH, f"The consumer group member has a greater member epoch "
                           f"({received}) than the one known by the group coordinator ({member.member_epoch}). "
                           "The member must abandon all its partitions and rejoin.")
        if received < member.member_epoch and (received != member.previous_member_epoch or owned is None or any(
                not partitions <= member.assigned_partitions.get(t, frozenset()) for t, partitions in owned.items())):
            raise ApiError(Errors.FENCED_MEMBER_EPOCH, f"The consumer group member has a smaller member epoch "
                           f"({received}) than the one known by the group coordinator ({member.member_epoch}). "
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

    def resolve_subscription(self, member: ConsumerGroupMember) -> set[str]:
        """The names it reads: the ones it lists, and the topics its regex matches in full (internal
        topics left out, as the Java consumer's exclude.internal.topics does)."""
        names = set(member.subscribed_topic_names)
        if member.subscribed_topic_regex:
            pattern = re.compile(member.subscribed_topic_regex)
            names |= {t for t in self.topics_image() if t not in INTERNAL_TOPICS and pattern.fullmatch(t)}
        return names

    def maybe_refresh_subscription_metadata(self, group: ConsumerGroup) -> bool:
        """The subscribed topics' ids and partition counts; True when they changed (a topic created
        or deleted, partitions added), which bumps the group epoch."""
        image = self.topics_image()
        metadata = {name: TopicMetadata(image[name][0], name, image[name][1])
                    for name in group.subscribed_topic_names() if name in image}
        if metadata == group.subscription_metadata:
            return False
        group.subscription_metadata = metadata
        return True

    def update_target_assignment(self, group: ConsumerGroup) -> None:
        """Kafka's updateTargetAssignment: the assignor's new target, stamped with the group epoch."""
        group.assignor_name = group.preferred_server_assignor(self.default_assignor)
        start = self.time.hi_res_clock_ms()
        group.target_assignment = (TargetAssignmentBuilder(group.group_id, group.group_epoch,
                                                           self.assignors[group.assignor_name])
                                   .with_members(group.members, group.resolved_subscriptions)
                                   .with_subscription_metadata(group.subscription_metadata)
                                   .with_target_assignment(group.target_assignment)
                                   .build())
        group.assignment_epoch = group.group_epoch
        elapsed = self.time.hi_res_clock_ms() - start
        self.rebalance_count += 1
        self.assignment_time_ms_total += elapsed
        self.on_assignment(elapsed)
        log.info("computed target assignment", group_id=group.group_id, assignment_epoch=group.assignment_epoch,
                 assignor=group.assignor_name, members=len(group.members), time_ms=round(elapsed, 3))

    def maybe_reconcile(self, group: ConsumerGroup, member: ConsumerGroupMember, owned: Assignment | None,
                        now: int) -> ConsumerGroupMember:
        try:
            reconciled = (CurrentAssignmentBuilder(member)
                          .with_target_assignment(group.assignment_epoch,
                                                  group.target_assignment.get(member.member_id, {}))
                          .with_current_partition_epoch(group.current_partition_epoch)
                          .with_owned_topic_partitions(owned)
                          .build())
        except FencedMemberEpoch as e:
            raise ApiError(Errors.FENCED_MEMBER_EPOCH, str(e)) from e
        group.update_member(reconciled)
        if reconciled.state is MemberState.UNREVOKED_PARTITIONS:
            # Kafka's rebalance timeout: revoke within rebalance.timeout.ms, or be fenced
            group.revocation_deadlines.setdefault(member.member_id, now + max(reconciled.rebalance_timeout_ms, 0))
        else:
            group.revocation_deadlines.pop(member.member_id, None)
        return reconciled

    # ------------------------------------------------------------------ the records in __consumer_offsets
    def persist(self, group: ConsumerGroup, deleted: bool = False) -> None:
        """Append the records that changed, when nobody waits for the answer (a member fenced by a
        timeout, a deleted group); under the lock, so appends keep the order of the changes. A
        failure is logged by the writer, and the group's next write rewrites what it touched."""
        self.writer.write(group, lambda error: None, deleted)

    def on_groups_loaded(self, groups: dict[str, ConsumerGroup]) -> None:
        """A partition's consumer groups, replayed from its records: members get a session from now."""
        now = self.time.milliseconds()
        with self.lock:
            for group in groups.values():
                if not group.members:
                    continue
                group.written = group_records(group)
                for member in group.members.values():
                    group.resolved_subscriptions[member.member_id] = self.resolve_subscription(member)
                    group.session_deadlines[member.member_id] = now + self.config.session_timeout_ms
                self.maybe_refresh_subscription_metadata(group)
                group.assignor_name = group.preferred_server_assignor(self.default_assignor)
                group.update_state()
                self.groups.setdefault(group.group_id, group)
                log.info("loaded consumer group", group_id=group.group_id, group_epoch=group.group_epoch,
                         members=len(group.members))

    # ------------------------------------------------------------------ leaving and timeouts
    def consumer_group_leave(self, request: HeartbeatRequest) -> tuple[ConsumerGroup, dict]:
        group = self.groups.get(request.group_id)
        if group is None or request.member_id not in group.members:
            raise ApiError(Errors.UNKNOWN_MEMBER_ID, f"Member {request.member_id} is not a member of group "
                                                     f"{request.group_id}.")
        self.fence_member(group, request.member_id, "left the group", persist=False)
        return group, dict(error_code=Errors.NONE, error_message=None, member_id=request.member_id,
                           member_epoch=request.member_epoch, heartbeat_interval_ms=0, assignment=None)

    def fence_member(self, group: ConsumerGroup, member_id: str, why: str, persist: bool = True) -> None:
        """Kafka's consumerGroupFenceMember: the member goes, its partitions are free at once, and
        the group epoch moves so the others share them. ``persist`` False: the caller writes the
        records and answers when they commit (a leave)."""
        group.remove_member(member_id)
        group.group_epoch += 1
        self.maybe_refresh_subscription_metadata(group)
        if group.members:
            self.update_target_assignment(group)
        else:
            group.target_assignment, group.assignment_epoch = {}, group.group_epoch
        group.update_state()
        if persist:
            self.persist(group)
        log.info("member removed", group_id=group.group_id, member_id=member_id, reason=why,
                 group_epoch=group.group_epoch)

    def expire_members(self, now: int) -> None:
        """The session timeout (group.consumer.session.timeout.ms) and the rebalance timeout of
        every member: Kafka schedules one timer per member; one sweep does the same here."""
        with self.lock:
            for group in list(self.groups.values()):
                for member_id, deadline in list(group.session_deadlines.items()):
                    if deadline <= now:
                        self.fence_member(group, member_id, "session timed out")
                for member_id, deadline in list(group.revocation_deadlines.items()):
                    if deadline <= now and member_id in group.members:
                        self.fence_member(group, member_id, "did not revoke its partitions within its rebalance timeout")

    # ------------------------------------------------------------------ views
    def consumer_group(self, group_id: str) -> ConsumerGroup | None:
        with self.lock:
            return self.groups.get(group_id)

    def is_non_empty_consumer_group(self, group_id: str) -> bool:
        group = self.consumer_group(group_id)
        return group is not None and not group.is_empty()

    def count_by_state(self) -> dict[str, int]:
        """Kafka's consumer-group-count, by state (every state shown, at 0 when none is in it)."""
        counts = {str(s): 0 for s in ConsumerGroupState if s is not ConsumerGroupState.DEAD}
        with self.lock:
            for group in self.groups.values():
                counts[str(group.state)] += 1
        return counts

    def all_groups(self) -> list[ConsumerGroup]:
        with self.lock:
            return list(self.groups.values())

    def delete_group(self, group_id: str) -> Errors | None:
        """None when it is not a consumer group; NON_EMPTY_GROUP while it has members."""
        with self.lock:
            group = self.groups.get(group_id)
            if group is None:
                return None
            if not group.is_empty():
                return Errors.NON_EMPTY_GROUP
            group.state = ConsumerGroupState.DEAD
            self.persist(group, deleted=True)
            del self.groups[group_id]
            return Errors.NONE

    def on_resignation(self, partitions) -> None:
        """This broker no longer coordinates these __consumer_offsets partitions: forget their groups
        (their members get NOT_COORDINATOR, find the new coordinator and rejoin there)."""
        partitions = set(partitions)
        with self.lock:
            for group_id in [g for g in self.groups if self.group_manager.partition_for(g) in partitions]:
                del self.groups[group_id]


def error_response(error: Errors, message: str | None) -> dict:
    return dict(error_code=error, error_message=message, member_id=None, member_epoch=-1,
                heartbeat_interval_ms=0, assignment=None)
