"""DelayedHeartbeat: a member's session timeout, waiting in the "Heartbeat" purgatory (Kafka's
kafka.coordinator.group.DelayedHeartbeat).

Every sign of life from a member (heartbeat, join, sync, offset commit) completes the member's
current DelayedHeartbeat and schedules a fresh one session.timeout.ms ahead. So at any moment each
member has exactly one waiting; if it expires -- no heartbeat for a whole session -- the coordinator
removes the member and the group rebalances. That is how a consumer killed with ``kill -9`` loses
its partitions. A "pending" member (told MEMBER_ID_REQUIRED, not yet back) gets one too, so a
client that never returns does not hold up the group's rebalance forever.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka.purgatory.delayed_operation import DelayedOperation


@dataclass(frozen=True, slots=True)
class MemberKey:
    """Watch key of one member's heartbeat (Kafka's MemberKey)."""

    group_id: str
    member_id: str

    @property
    def key_label(self) -> str:
        return f"{self.group_id}-{self.member_id}"


class DelayedHeartbeat(DelayedOperation):
    def __init__(self, scheduler, group, member_id: str, is_pending: bool, timeout_ms: int) -> None:
        super().__init__(timeout_ms, lock=group.lock)
        self.scheduler = scheduler  # the HeartbeatScheduler that decides and expires
        self.group = group
        self.member_id = member_id
        self.is_pending = is_pending

    def try_complete(self) -> bool:
        return self.scheduler.try_complete_heartbeat(self.group, self.member_id, self.is_pending,
                                                     self.force_complete)

    def on_expiration(self) -> None:
        self.scheduler.on_expire_heartbeat(self.group, self.member_id, self.is_pending)

    def on_complete(self) -> None:
        pass  # completing just means "the member was alive in time": nothing to send
