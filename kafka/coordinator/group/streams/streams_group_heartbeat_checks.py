"""The checks a StreamsGroupHeartbeat must pass, with Kafka's errors and words: the request's own shape
(Kafka's GroupCoordinatorService.throwIfStreamsGroupHeartbeatRequestIsInvalid, throwIfInvalidTopology and
throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures, before the request reaches a shard), and the
member's place in its group (GroupMetadataManager's throwIfStreamsGroupMemberEpochIsInvalid,
throwIfStaticMemberIsUnknown, throwIfInstanceIdIsFenced, throwIfRequestContainsInvalidTasks).
"""

from __future__ import annotations

from kafka.coordinator.group.group import ApiError
from kafka.coordinator.group.streams.streams_group_member import StreamsGroupMember
from kafka.coordinator.group.streams.topics.configured_topology import ConfiguredTopology
from kafka.protocol.errors import Errors

JOIN_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH = 0, -2


def invalid(message: str) -> ApiError:
    return ApiError(Errors.INVALID_REQUEST, message)


def throw_if_streams_group_heartbeat_request_is_invalid(request) -> None:
    """In Kafka's order: regular expressions (not supported yet), then the fields."""
    if request.topology is not None:
        for subtopology in request.topology.subtopologies:
            if subtopology.source_topic_regex:
                raise invalid("Regular expressions for source topics are not supported yet.")
    for value, message in ((request.member_id, "MemberId can't be empty."),
                           (request.group_id, "GroupId can't be empty."),
                           (request.instance_id, "InstanceId can't be empty."),
                           (request.rack_id, "RackId can't be empty.")):
        if value is not None and all(c <= " " for c in value):  # Java's trim().isEmpty()
            raise invalid(message)
    epoch = request.member_epoch
    if epoch == JOIN_GROUP_MEMBER_EPOCH:
        if request.rebalance_timeout_ms == -1:
            raise invalid("RebalanceTimeoutMs must be provided in first request.")
        for tasks, kind in ((request.active_tasks, "ActiveTasks"), (request.standby_tasks, "StandbyTasks"),
                            (request.warmup_tasks, "WarmupTasks")):
            if tasks is None or tasks:
                raise invalid(f"{kind} must be empty when (re-)joining.")
        if request.topology is None:
            raise invalid("Topology must be non-null when (re-)joining.")
        throw_if_invalid_topology(request.topology)
    elif epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
        if request.instance_id is None:
            raise invalid("InstanceId can't be null.")
    elif epoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH:
        raise invalid(f"MemberEpoch is {epoch}, but must be greater than or equal to -2.")
    owned = (request.active_tasks, request.standby_tasks, request.warmup_tasks)
    if any(tasks is not None for tasks in owned) and any(tasks is None for tasks in owned):
        raise invalid("If one task-type is non-null, all must be non-null.")
    if epoch != JOIN_GROUP_MEMBER_EPOCH and request.topology is not None:
        raise invalid("Topology can only be provided when (re-)joining.")


def throw_if_invalid_topology(topology) -> None:
    for subtopology in topology.subtopologies:
        for changelog in subtopology.state_changelog_topics:
            if changelog.partitions != 0:
                raise ApiError(Errors.STREAMS_INVALID_TOPOLOGY,
                               f"Changelog topic {changelog.name} must have an undefined partition count, "
                               f"but it is set to {changelog.partitions}.")


def throw_if_member_epoch_is_invalid(member: StreamsGroupMember, received: int, owned) -> None:
    """Kafka's throwIfStreamsGroupMemberEpochIsInvalid: ahead is fenced; behind too, unless it is the
    previous epoch (the answer that moved the member on was lost) and it owns nothing it was not given."""
    if received == JOIN_GROUP_MEMBER_EPOCH:
        return
    if received > member.member_epoch:
        raise ApiError(Errors.FENCED_MEMBER_EPOCH,
                       f"The streams group member has a greater member epoch ({received}) than the one known "
                       f"by the group coordinator ({member.member_epoch}). The member must abandon all its "
                       "partitions and rejoin.")
    if received < member.member_epoch:
        active, standby, warmup = owned
        assigned = member.assigned_tasks
        if (received != member.previous_member_epoch or not contained(active, assigned.active_tasks)
                or not contained(standby, assigned.standby_tasks)
                or not contained(warmup, assigned.warmup_tasks)):
            raise ApiError(Errors.FENCED_MEMBER_EPOCH,
                           f"The streams group member has a smaller member epoch ({received}) than the one "
                           f"known by the group coordinator ({member.member_epoch}). The member must abandon "
                           "all its partitions and rejoin.")


def contained(owned, assigned) -> bool:
    """Every task the heartbeat says the member owns is one it was given (no list: nothing to check)."""
    return owned is None or all(set(t.partitions) <= assigned.get(t.subtopology_id, frozenset())
                                for t in owned)


def throw_if_static_member_is_unknown_or_fenced(member: StreamsGroupMember | None, group_id: str,
                                                member_id: str, instance_id: str) -> StreamsGroupMember:
    if member is None:
        raise ApiError(Errors.UNKNOWN_MEMBER_ID, f"Instance id {instance_id} is unknown.")
    if member.member_id != member_id:
        raise ApiError(Errors.FENCED_INSTANCE_ID, f"Static member {member_id} with instance id {instance_id} "
                                                  f"was fenced by member {member.member_id}.")
    return member


def throw_if_request_contains_invalid_tasks(configured: ConfiguredTopology, tasks) -> None:
    for task in tasks or ():
        subtopology = configured.subtopologies.get(task.subtopology_id)
        if subtopology is None:
            raise ApiError(Errors.INVALID_REQUEST,
                           f"Subtopology {task.subtopology_id} does not exist in the topology.")
        for partition in task.partitions:
            if not 0 <= partition < subtopology.number_of_tasks:
                raise ApiError(Errors.INVALID_REQUEST,
                               f"Task {partition} for subtopology {task.subtopology_id} is invalid. "
                               f"Number of tasks for this subtopology: {subtopology.number_of_tasks}")
