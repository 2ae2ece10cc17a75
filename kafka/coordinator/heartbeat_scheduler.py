"""HeartbeatScheduler: each member's session timeout, kept in the "Heartbeat" purgatory (the
heartbeat half of Kafka's GroupCoordinator: completeAndScheduleNextHeartbeatExpiration,
addPendingMemberExpiration, removeHeartbeatForLeavingMember, tryCompleteHeartbeat).

Every sign of life from a member (a heartbeat, a join, a sync, an offset commit) goes through here:
it completes the member's current DelayedHeartbeat and schedules the next one. The GroupCoordinator,
GroupRebalance and OffsetMetadataManager are each handed this one object, so none of them reaches
back into the coordinator to keep a member alive. What an expired session does (remove the member,
rebalance) stays the coordinator's: it is the ``on_expiration`` function given here.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.coordinator.delayed_heartbeat import DelayedHeartbeat, MemberKey
from kafka.coordinator.group_metadata import GroupMetadata, GroupState
from kafka.coordinator.member_metadata import MemberMetadata
from kafka.purgatory.delayed_operation_purgatory import DelayedOperationPurgatory


class HeartbeatScheduler:
    def __init__(self, purgatory: DelayedOperationPurgatory,
                 on_expiration: Callable[[GroupMetadata, str, bool], None]) -> None:
        self.purgatory = purgatory
        self.on_expiration = on_expiration  # (group, member id, is_pending), called under group.lock

    def complete_and_schedule_next_heartbeat_expiration(self, group: GroupMetadata, member: MemberMetadata) -> None:
        self.complete_and_schedule_next_expiration(group, member, member.session_timeout_ms)

    def complete_and_schedule_next_expiration(self, group: GroupMetadata, member: MemberMetadata,
                                              timeout_ms: int) -> None:
        """Retire the member's current DelayedHeartbeat (it was alive in time) and start the next."""
        key = MemberKey(group.group_id, member.member_id)
        member.heartbeat_satisfied = True
        self.purgatory.check_and_complete(key)
        member.heartbeat_satisfied = False
        self.purgatory.try_complete_else_watch(
            DelayedHeartbeat(self, group, member.member_id, False, timeout_ms), [key])

    def add_pending_member_expiration(self, group: GroupMetadata, member_id: str, timeout_ms: int) -> None:
        self.purgatory.try_complete_else_watch(
            DelayedHeartbeat(self, group, member_id, True, timeout_ms), [MemberKey(group.group_id, member_id)])

    def remove_heartbeat_for_leaving_member(self, group: GroupMetadata, member_id: str) -> None:
        """The member is gone from the group: its DelayedHeartbeat completes now instead of expiring."""
        self.purgatory.check_and_complete(MemberKey(group.group_id, member_id))

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
        self.on_expiration(group, member_id, is_pending)
