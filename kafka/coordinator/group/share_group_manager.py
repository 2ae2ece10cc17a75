"""ShareGroupManager: the share groups of KIP-932 in one shard -- the share-group part of Kafka's
org.apache.kafka.coordinator.group.GroupMetadataManager (shareGroupHeartbeat, shareGroupDescribe,
the session timeouts, shareGroupFenceMember, initializeShareGroupState, replay).

One request does everything (ShareGroupHeartbeat): a member joins with epoch 0 and the topics it
reads; the coordinator bumps the *group epoch* when what the assignment depends on changed (a member,
a subscription, the subscribed topics' metadata hash), computes a new *target assignment* with the
SimpleAssignor (at most once per group.share.assignment.interval.ms), and the member takes its target
at once (ShareGroupAssignmentBuilder). Members heartbeat every group.share.heartbeat.interval.ms and
are fenced after group.share.session.timeout.ms of silence; the group holds group.share.max.size
members at most.

A share partition may only be given out once the share coordinator holds state for it. So the
heartbeat also notes the subscribed partitions nobody asked the share coordinator about yet and
returns an InitializeShareGroupStateParameters beside its answer
(``share_group_state_partition_metadata.py``); the service sends it to the persister, and on success
writes them as initialized. The next heartbeat then sees initialized partitions missing from the
target and bumps the group epoch, so the SimpleAssignor hands them out.

Every change is a list of records, written and then replayed into the shard (``replay``), as
Kafka's heartbeat builds records and its replay changes the group: nothing here changes the stored
group directly. A refused request raises ApiError and writes nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import structlog

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.group.assignor.consumer_group_partition_assignor import MemberSubscription
from kafka.coordinator.group.assignor.share_group_partition_assignor import (
    GroupSpec,
    PartitionAssignorError,
    SubscriptionType,
)
from kafka.coordinator.group.assignor.simple_assignor import SimpleAssignor
from kafka.coordinator.group.consumer_group_manager import session_timeout_key
from kafka.coordinator.group.group import ApiError, Group, GroupType
from kafka.coordinator.group.group_coordinator_records import (
    Assignment,
    ShareGroupCurrentMemberAssignmentKey,
    ShareGroupMemberMetadataKey,
    ShareGroupMetadataKey,
    ShareGroupMetadataValue,
    ShareGroupStatePartitionMetadataKey,
    ShareGroupTargetAssignmentMemberKey,
    ShareGroupTargetAssignmentMemberValue,
    ShareGroupTargetAssignmentMetadataKey,
    ShareGroupTargetAssignmentMetadataValue,
)
from kafka.coordinator.group.modern.share.share_group import ShareGroup, subscription_type, topic_ids_of
from kafka.coordinator.group.modern.share.share_group_assignment_builder import ShareGroupAssignmentBuilder
from kafka.coordinator.group.modern.share.share_group_member import (
    ShareGroupMember,
    has_assigned_partitions_changed,
)
from kafka.coordinator.group.share_group_state_partition_metadata import (
    InitializeShareGroupStateParameters,
    ShareGroupStatePartitionMetadata,
)
from kafka.coordinator.group.utils import compute_metadata_hash
from kafka.protocol.errors import Errors
from kafka.timeline import LATEST_EPOCH, TimelineHashMap
from kafka.utils.time import Time

log = structlog.get_logger("kafka.coordinator.group.ShareGroupManager")

JOIN_GROUP_MEMBER_EPOCH, LEAVE_GROUP_MEMBER_EPOCH = 0, -1


@dataclass(frozen=True)
class ShareGroupHeartbeatRequest:
    """ShareGroupHeartbeat's fields, as the handler decoded them."""

    group_id: str
    member_id: str
    member_epoch: int
    rack_id: str | None = None
    subscribed_topic_names: list[str] | None = None


def throw_if_share_group_heartbeat_request_is_invalid(request: ShareGroupHeartbeatRequest) -> None:
    """Kafka's GroupCoordinatorService.throwIfShareGroupHeartbeatRequestIsInvalid (INVALID_REQUEST)."""
    for value, message in ((request.member_id, "MemberId can't be empty."),
                           (request.group_id, "GroupId can't be empty."),
                           (request.rack_id, "RackId can't be empty.")):
        if value is not None and not value.strip():
            raise ApiError(Errors.INVALID_REQUEST, message)
    if request.member_epoch == JOIN_GROUP_MEMBER_EPOCH:
        if not request.subscribed_topic_names:
            raise ApiError(Errors.INVALID_REQUEST, "SubscribedTopicNames must be set in first request.")
    elif request.member_epoch < LEAVE_GROUP_MEMBER_EPOCH:
        raise ApiError(Errors.INVALID_REQUEST, "MemberEpoch is invalid.")


def error_response(error: Errors, message: str | None) -> dict:
    """ShareGroupHeartbeat's answer to a refused request."""
    return dict(error_code=error, error_message=message, member_id=None, member_epoch=0,
                heartbeat_interval_ms=0,
                assignment=None)


def can_compute_next_target_assignment(last_ms: int, interval_ms: int, now_ms: int) -> bool:
    """Kafka's canComputeNextTargetAssignment: a group's target is recomputed at most once per interval."""
    return last_ms == 0 or interval_ms == 0 or now_ms >= last_ms + interval_ms


class ShareGroupManager:
    """``config`` holds Kafka's GroupCoordinatorConfig fields: share_group_session_timeout_ms,
    share_group_heartbeat_interval_ms, share_group_max_size, share_group_assignment_interval_ms,
    share_group_initialize_retry_interval_ms. ``group_configs(group_id)`` gives a group's own settings
    (share.session.timeout.ms, ...), which win over the broker's."""

    def __init__(self, *, groups: TimelineHashMap[str, Group], snapshot_registry, time: Time, timer, config,
                 log_context: str = "", topics_image: Callable[[], dict[str, tuple[uuid.UUID, int]]] = dict,
                 group_configs: Callable[[str], Mapping[str, str]] = lambda group_id: {}) -> None:
        self.groups = groups  # the GroupMetadataManager's: the group types share the ids
        self.time = time
        self.timer = timer
        self.config = config
        self.log = log.bind(log_context=log_context) if log_context else log
        self.topics_image = topics_image  # name -> (topic id, partitions) of every topic now
        # group id -> the partitions whose share state exists (Kafka's shareGroupStatePartitionMetadata)
        self.state = ShareGroupStatePartitionMetadata(groups=groups, snapshot_registry=snapshot_registry,
                                                      time=time,
                                                      config=config, topics_image=topics_image, log=self.log)
        self.group_configs = group_configs
        self.assignor = SimpleAssignor()
        self.rebalance_count = 0  # Kafka's ShareGroupRebalances

    # ------------------------------------------------------------------ the group's own settings
    def session_timeout_ms(self, group_id: str) -> int:
        return int(self.group_configs(group_id).get("share.session.timeout.ms",
                                                    self.config.share_group_session_timeout_ms))

    def heartbeat_interval_ms(self, group_id: str) -> int:
        return int(self.group_configs(group_id).get("share.heartbeat.interval.ms",
                                                    self.config.share_group_heartbeat_interval_ms))

    def assignment_interval_ms(self, group_id: str) -> int:
        return int(self.group_configs(group_id).get("share.assignment.interval.ms",
                                                    self.config.share_group_assignment_interval_ms))

    # ------------------------------------------------------------------ ShareGroupHeartbeat
    def share_group_heartbeat(self, request: ShareGroupHeartbeatRequest, client_id: str, client_host: str
                              ) -> CoordinatorResult[tuple[dict, InitializeShareGroupStateParameters | None]]:
        """The records of the change, and (the answer, what to ask the persister to initialize or
        None) to send once they commit; ApiError if refused."""
        if request.member_epoch == LEAVE_GROUP_MEMBER_EPOCH:
            left = self.share_group_leave(request.group_id, request.member_id, request.member_epoch)
            return CoordinatorResult(left.records, (left.response, None))
        return self.heartbeat(request, client_id, client_host)

    def heartbeat(self, request: ShareGroupHeartbeatRequest, client_id: str, client_host: str
                  ) -> CoordinatorResult[tuple[dict, InitializeShareGroupStateParameters | None]]:
        """Kafka's shareGroupHeartbeat for a member that stays (epoch 0 or above)."""
        group_id, member_id = request.group_id, request.member_id
        records: list[CoordinatorRecord] = []
        create = request.member_epoch == JOIN_GROUP_MEMBER_EPOCH
        group = self.get_or_maybe_create_share_group(group_id, create)
        self.throw_if_share_group_is_full(group, member_id)
        member = self.get_or_maybe_subscribe_share_group_member(group, member_id, request.member_epoch,
                                                                create)
        updated = member.maybe_update(request.rack_id, request.subscribed_topic_names, client_id, client_host)
        bump_group_epoch = self.has_member_subscription_changed(group_id, member, updated, records)
        group_epoch = group.group_epoch
        if group.assignment_epoch >= group_epoch:
            bump_group_epoch |= self.initialized_assignment_pending(group)

        # Kafka recomputes the metadata hash when something changed or the image told it a subscribed
        # topic changed; without that notice here, every heartbeat recomputes it.
        subscribed_topic_names = group.compute_subscribed_topic_names(member, updated)
        metadata_hash = compute_metadata_hash(subscribed_topic_names, self.topics_image())
        num_members = len(group.members) + (0 if member_id in group.members else 1)
        sub_type = subscription_type(subscribed_topic_names, num_members)
        if metadata_hash != group.metadata_hash:
            bump_group_epoch = True
        if bump_group_epoch:
            group_epoch += 1
            records.append(new_share_group_epoch_record(group_id, group_epoch, metadata_hash))
            self.rebalance_count += 1
            self.log.info("bumped group epoch", group_id=group_id, group_epoch=group_epoch,
                          metadata_hash=metadata_hash)

        target_epoch, target = self.maybe_update_target_assignment(group, group_epoch, updated, sub_type,
                                                                   records)
        updated = self.maybe_reconcile(group_id, updated, target_epoch, target, bump_group_epoch, records)
        self.schedule_session_timeout(group_id, member_id)

        response = dict(error_code=Errors.NONE, error_message=None, member_id=updated.member_id,
                        member_epoch=updated.member_epoch,
                        heartbeat_interval_ms=self.heartbeat_interval_ms(group_id),
                        assignment=None)
        if (request.member_epoch == JOIN_GROUP_MEMBER_EPOCH or request.subscribed_topic_names is not None
                or has_assigned_partitions_changed(member, updated)):
            response["assignment"] = dict(topic_partitions=[
                dict(topic_id=t, partitions=sorted(p))
                for t, p in sorted(updated.assigned_partitions.items(), key=str)])
        initialize = self.state.maybe_create_initialize_share_group_state_request(
            group_id, group_epoch, set(subscribed_topic_names), records)
        return CoordinatorResult(records, (response, initialize))

    def get_or_maybe_create_share_group(self, group_id: str, create: bool) -> ShareGroup:
        """The stored group, or (``create``) a new one that only the records will store."""
        group = self.groups.get(group_id)
        if group is None:
            if not create:
                raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Share group {group_id} not found.")
            return ShareGroup(group_id)
        if group.type() is not GroupType.SHARE:
            raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a share group.")
        return group

    def throw_if_share_group_is_full(self, group: ShareGroup, member_id: str) -> None:
        max_size = self.config.share_group_max_size
        if len(group.members) >= max_size and (not member_id or member_id not in group.members):
            raise ApiError(Errors.GROUP_MAX_SIZE_REACHED,
                           f"The share group has reached its maximum capacity of {max_size} members.")

    def get_or_maybe_subscribe_share_group_member(self, group: ShareGroup, member_id: str, member_epoch: int,
                                                  create: bool) -> ShareGroupMember:
        member = group.members.get(member_id)
        if member is None:
            if not create:
                raise ApiError(Errors.UNKNOWN_MEMBER_ID,
                               f"Member {member_id} is not a member of group {group.group_id}.")
            member = ShareGroupMember(member_id)
            self.log.info("member joins the share group", group_id=group.group_id, member_id=member_id)
        self.throw_if_share_group_member_epoch_is_invalid(member, member_epoch)
        return member

    @staticmethod
    def throw_if_share_group_member_epoch_is_invalid(member: ShareGroupMember, received: int) -> None:
        """Ahead is fenced; behind is fenced unless it is the previous epoch (the answer that gave the
        member its epoch was lost). Epoch 0 is a (re)join and always accepted."""
        if received == JOIN_GROUP_MEMBER_EPOCH:
            return
        if received > member.member_epoch:
            raise ApiError(Errors.FENCED_MEMBER_EPOCH,
                           f"The share group member has a greater member epoch ({received}) than the one "
                           f"known by the group coordinator ({member.member_epoch}). The member must abandon "
                           "all its partitions and rejoin.")
        if received < member.member_epoch and received != member.previous_member_epoch:
            raise ApiError(Errors.FENCED_MEMBER_EPOCH,
                           f"The share group member has a smaller member epoch ({received}) than the one "
                           f"known by the group coordinator ({member.member_epoch}), and it does not match "
                           f"the previous member epoch ({member.previous_member_epoch}). The member must "
                           "abandon all its partitions and rejoin.")

    def has_member_subscription_changed(self, group_id: str, old: ShareGroupMember, new: ShareGroupMember,
                                        records: list[CoordinatorRecord]) -> bool:
        """A changed member is written; True when what it reads changed (the group epoch must move)."""
        if new == old:
            return False
        records.append(CoordinatorRecord(ShareGroupMemberMetadataKey(group_id, new.member_id),
                                         new.to_member_metadata_value()))
        if new.subscribed_topic_names != old.subscribed_topic_names:
            self.log.info("member updated its subscribed topics", group_id=group_id, member_id=new.member_id,
                          topics=sorted(new.subscribed_topic_names))
            return True
        return False

    def initialized_assignment_pending(self, group: ShareGroup) -> bool:
        """Kafka's initializedAssignmentPending: some initialized partition of a subscribed topic is in
        nobody's target yet (the share coordinator answered since the target was computed)."""
        info = self.state.get(group.group_id)
        if group.is_empty() or not group.subscribed_topic_names:
            return False
        if info is None or not info.initialized_topics:
            return False
        assigned: dict[uuid.UUID, set[int]] = {}
        for target in group.target_assignment.values():
            for topic_id, partitions in target.items():
                assigned.setdefault(topic_id, set()).update(partitions)
        return any(value.name in group.subscribed_topic_names
                   and assigned.get(topic_id) != set(value.partitions)
                   for topic_id, value in info.initialized_topics.items())

    def maybe_update_target_assignment(self, group: ShareGroup, group_epoch: int, member: ShareGroupMember,
                                       sub_type: SubscriptionType,
                                       records: list[CoordinatorRecord]) -> tuple[int, Assignment]:
        """Kafka's maybeUpdateTargetAssignment: (the target's epoch, the member's target). A new target
        when the group epoch moved past it and the assignment interval has passed; the members whose
        target changed, and the target's epoch and time, are written."""
        now = self.time.milliseconds()
        if group.assignment_epoch >= group_epoch or not can_compute_next_target_assignment(
                group.assignment_timestamp, self.assignment_interval_ms(group.group_id), now):
            return group.assignment_epoch, group.target_assignment.get(member.member_id, {})
        assignable = self.state.assignable_partitions(group.group_id)
        members = dict(group.members)
        members[member.member_id] = member
        topics = self.topics_image()
        specs = {m: MemberSubscription(topic_ids_of(members[m].subscribed_topic_names, topics),
                                       group.target_assignment.get(m, {}), members[m].rack_id)
                 # Kafka walks a HashMap; member id order makes the answer repeatable
                 for m in sorted(members)}
        start = self.time.hi_res_clock_ms()
        try:
            target = self.assignor.assign(GroupSpec(specs, sub_type, assignable),
                                          {topic_id: count for topic_id, count in topics.values()})
        except PartitionAssignorError as e:
            raise ApiError(Errors.UNKNOWN_SERVER_ERROR,
                           f"Failed to compute a new target assignment for epoch {group_epoch}: {e}") from e
        for m in specs:
            new = target.get(m, {})
            if m not in group.target_assignment or new != group.target_assignment[m]:
                records.append(CoordinatorRecord(ShareGroupTargetAssignmentMemberKey(group.group_id, m),
                                                 ShareGroupTargetAssignmentMemberValue(dict(new))))
        records.append(CoordinatorRecord(ShareGroupTargetAssignmentMetadataKey(group.group_id),
                                         ShareGroupTargetAssignmentMetadataValue(group_epoch,
                                                                                 self.time.milliseconds())))
        self.log.info("computed a new target assignment", group_id=group.group_id,
                      assignment_epoch=group_epoch,
                      assignor=self.assignor.name, members=len(specs),
                      time_ms=round(self.time.hi_res_clock_ms() - start, 3))
        return group_epoch, target.get(member.member_id, {})

    def maybe_reconcile(self, group_id: str, member: ShareGroupMember, target_epoch: int, target: Assignment,
                        has_subscription_changed: bool, records: list[CoordinatorRecord]) -> ShareGroupMember:
        """The member takes its target (ShareGroupAssignmentBuilder); written when it changed."""
        if not has_subscription_changed and member.is_reconciled_to(target_epoch):
            return member
        updated = (ShareGroupAssignmentBuilder(member).with_topics(self.topics_image())
                   .with_target_assignment(target_epoch, target)
                   .with_has_subscription_changed(has_subscription_changed).build())
        if updated != member:
            records.append(CoordinatorRecord(ShareGroupCurrentMemberAssignmentKey(group_id, member.member_id),
                                             updated.to_current_assignment_value()))
            self.log.info("member's new assignment", group_id=group_id, member_id=member.member_id,
                          epoch=updated.member_epoch, previous_epoch=updated.previous_member_epoch,
                          partitions={str(t): sorted(p) for t, p in updated.assigned_partitions.items()})
        return updated

    # ------------------------------------------------------------------ the share state's partitions
    def initialize_share_group_state(self, group_id: str,
                                     topic_partitions: dict[uuid.UUID, set[int]]) -> CoordinatorResult[None]:
        return self.state.initialize_share_group_state(group_id, topic_partitions)

    def uninitialize_share_group_state(
            self, group_id: str, topic_partitions: dict[uuid.UUID, set[int]]) -> CoordinatorResult[None]:
        return self.state.uninitialize_share_group_state(group_id, topic_partitions)

    def initialized_share_group_partitions(self, group_id: str,
                                           committed_offset: int = LATEST_EPOCH) -> dict[uuid.UUID, set[int]]:
        return self.state.initialized_share_group_partitions(group_id, committed_offset)

    # ------------------------------------------------------------------ leaving, fencing, session timeouts
    def share_group_leave(self, group_id: str, member_id: str, member_epoch: int) -> CoordinatorResult[dict]:
        group = self.groups.get(group_id)
        if not isinstance(group, ShareGroup):
            raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} not found." if group is None
                           else f"Group {group_id} is not a share group.")
        member = group.members.get(member_id)
        if member is None:
            raise ApiError(Errors.UNKNOWN_MEMBER_ID,
                           f"Member {member_id} is not a member of group {group_id}.")
        self.log.info("member left the share group", group_id=group_id, member_id=member_id)
        return self.share_group_fence_member(group, member, dict(
            error_code=Errors.NONE, error_message=None, member_id=member_id, member_epoch=member_epoch,
            heartbeat_interval_ms=0, assignment=None))

    def fence_member_operation(self, group_id: str, member_id: str, reason: str) -> CoordinatorResult[None]:
        """Kafka's shareGroupFenceMemberOperation: nothing when the group or member is gone already."""
        group = self.groups.get(group_id)
        member = group.members.get(member_id) if isinstance(group, ShareGroup) else None
        if member is None:
            return CoordinatorResult([])
        self.log.info("member fenced from the share group", group_id=group_id, member_id=member_id,
                      reason=reason)
        return self.share_group_fence_member(group, member, None)

    def share_group_fence_member(self, group: ShareGroup, member: ShareGroupMember,
                                 response) -> CoordinatorResult:
        """The member's records go, and the group epoch moves (with the hash of what the others read) so
        the others share its partitions at their next heartbeat; the last member going also resets the
        target's epoch."""
        gid, mid = group.group_id, member.member_id
        records = [CoordinatorRecord(ShareGroupCurrentMemberAssignmentKey(gid, mid), None),
                   CoordinatorRecord(ShareGroupTargetAssignmentMemberKey(gid, mid), None),
                   CoordinatorRecord(ShareGroupMemberMetadataKey(gid, mid), None)]
        metadata_hash = compute_metadata_hash(group.compute_subscribed_topic_names(member, None),
                                              self.topics_image())
        group_epoch = group.group_epoch + 1
        records.append(new_share_group_epoch_record(gid, group_epoch, metadata_hash))
        if len(group.members) == 1:
            records.append(CoordinatorRecord(ShareGroupTargetAssignmentMetadataKey(gid),
                                             ShareGroupTargetAssignmentMetadataValue(group_epoch, 0)))
        self.timer.cancel(session_timeout_key(gid, mid))
        return CoordinatorResult(records, response)

    def schedule_session_timeout(self, group_id: str, member_id: str) -> None:
        """A member that does not heartbeat again within the session timeout is fenced."""
        self.timer.schedule(session_timeout_key(group_id, member_id), self.session_timeout_ms(group_id), True,
                            lambda: self.fence_member_operation(group_id, member_id,
                                                                "the member session expired"))

    # ------------------------------------------------------------------ replay and load
    def replay(self, record: CoordinatorRecord) -> None:
        """Apply one of the ShareGroup* records (Kafka's GroupMetadataManager.replay overloads): the
        group is copied, changed and put back, so the timeline keeps the version before."""
        key, value = record.key, record.value
        if isinstance(key, ShareGroupStatePartitionMetadataKey):
            self.state.replay(key.group_id, value)
            return
        group = self.groups.get(key.group_id)
        if not isinstance(group, ShareGroup):
            if value is None:
                return  # a tombstone of a group already gone
            if group is not None:
                raise RuntimeError(f"share group record for {key.group_id}, a {group.type()} group")
            group = ShareGroup(key.group_id)
        else:
            group = group.copy()
        if isinstance(key, ShareGroupMetadataKey):
            if value is None:
                if group.members or group.target_assignment or group.assignment_epoch != -1:
                    raise RuntimeError(f"share group {key.group_id} deleted while it still has members or a "
                                       "target")
                del self.groups[key.group_id]
                return
            group.group_epoch, group.metadata_hash = value.epoch, value.metadata_hash
        elif isinstance(key, ShareGroupMemberMetadataKey):
            self.replay_member_metadata(group, key.member_id, value)
        elif isinstance(key, ShareGroupTargetAssignmentMemberKey):
            if value is None:
                group.target_assignment.pop(key.member_id, None)
            else:
                group.target_assignment[key.member_id] = dict(value.topic_partitions)
        elif isinstance(key, ShareGroupTargetAssignmentMetadataKey):
            if value is None:
                if group.target_assignment:
                    raise RuntimeError(f"share group {key.group_id}'s target epoch deleted while it has "
                                       "targets")
                group.assignment_epoch, group.assignment_timestamp = -1, 0
            else:
                group.assignment_epoch = value.assignment_epoch
                group.assignment_timestamp = value.assignment_timestamp
        elif isinstance(key, ShareGroupCurrentMemberAssignmentKey):
            member = group.members.get(key.member_id)
            if value is not None:
                group.update_member((member
                                     or ShareGroupMember(key.member_id)).with_current_assignment(value))
            elif member is not None:
                group.update_member(ShareGroupMember(
                    member.member_id, -1, -1, member.state, member.rack_id, member.client_id,
                    member.client_host,
                    member.subscribed_topic_names, {}))
        self.groups[key.group_id] = group

    @staticmethod
    def replay_member_metadata(group: ShareGroup, member_id: str, value) -> None:
        member = group.members.get(member_id)
        if value is not None:
            group.update_member((member or ShareGroupMember(member_id)).with_member_metadata(value))
            return
        if member is None:
            return
        if member.member_epoch != -1:
            raise RuntimeError(f"share member {member_id} deleted while it still has an assignment")
        if member_id in group.target_assignment:
            raise RuntimeError(f"share member {member_id} deleted while it still has a target")
        group.remove_member(member_id)

    def on_loaded(self) -> None:
        """The partition is loaded: every member gets a session from now."""
        for group in self.share_groups():
            for member_id in group.members:
                self.schedule_session_timeout(group.group_id, member_id)
            self.log.info("loaded share group", group_id=group.group_id, group_epoch=group.group_epoch,
                          members=len(group.members))

    # ------------------------------------------------------------------ views
    def share_group(self, group_id: str, committed_offset: int = LATEST_EPOCH) -> ShareGroup | None:
        group = self.groups.get_at(group_id, committed_offset)
        return group if isinstance(group, ShareGroup) else None

    def share_groups(self, committed_offset: int = LATEST_EPOCH) -> list[ShareGroup]:
        return [g for g in self.groups.values_at(committed_offset) if isinstance(g, ShareGroup)]

    def share_group_describe(self, group_ids: list[str], committed_offset: int = LATEST_EPOCH) -> list[dict]:
        """ShareGroupDescribe's groups, read at the committed offset (a read operation)."""
        names = self.state.topic_names()
        described = []
        for group_id in group_ids:
            group = self.groups.get_at(group_id, committed_offset)
            if not isinstance(group, ShareGroup):
                described.append(described_error(group_id, Errors.GROUP_ID_NOT_FOUND,
                                                 f"Group {group_id} not found."
                                                 if group is None
                                                 else f"Group {group_id} is not a share group."))
                continue
            members = [dict(member_id=m.member_id, rack_id=m.rack_id, member_epoch=m.member_epoch,
                            client_id=m.client_id, client_host=m.client_host,
                            subscribed_topic_names=sorted(m.subscribed_topic_names),
                            assignment=dict(topic_partitions=[
                                dict(topic_id=t, topic_name=names[t], partitions=sorted(p))
                                for t, p in sorted(m.assigned_partitions.items(),
                                                   key=lambda kv: names.get(kv[0], ""))
                                if t in names]))
                       for m in group.members.values()]
            described.append(dict(error_code=Errors.NONE, error_message=None, group_id=group_id,
                                  group_state=str(group.state), group_epoch=group.group_epoch,
                                  assignment_epoch=group.assignment_epoch, assignor_name=self.assignor.name,
                                  members=members))
        return described


def described_error(group_id: str, error: Errors, message: str | None = None) -> dict:
    """ShareGroupDescribe's entry for a group it cannot describe."""
    return dict(error_code=error, error_message=message or error.message, group_id=group_id, group_state="",
                group_epoch=0, assignment_epoch=0, assignor_name="", members=[])


# ------------------------------------------------------------------ Kafka's GroupCoordinatorRecordHelpers
def new_share_group_epoch_record(group_id: str, epoch: int, metadata_hash: int) -> CoordinatorRecord:
    return CoordinatorRecord(ShareGroupMetadataKey(group_id), ShareGroupMetadataValue(epoch, metadata_hash))
