"""DelayedJoin and InitialDelayedJoin: a rebalance waiting for members to (re)join (Kafka's
kafka.coordinator.group.DelayedJoin / InitialDelayedJoin).

Seed 000's generic purgatory at work outside produce and fetch: when a group starts a rebalance
(PreparingRebalance) the coordinator parks one of these in its "Rebalance" purgatory, watched under
the group's key. Each JoinGroup calls check_and_complete(GroupKey); try_complete succeeds once every
known member has rejoined. If the rebalance timeout passes first, the operation expires and the
rebalance completes with whoever made it -- the rest are dropped.

InitialDelayedJoin is for an Empty group (group.initial.rebalance.delay.ms, KIP-134): it never
completes early. It waits the delay; if new members arrived meanwhile it waits another delay
(never past the rebalance timeout), so a fleet of consumers starting together gets one rebalance,
not one per member.
"""

from __future__ import annotations

from kafka.purgatory.delayed_operation import DelayedOperation
from kafka.purgatory.delayed_operation_key import GroupKey


class DelayedJoin(DelayedOperation):
    def __init__(self, coordinator, group, rebalance_timeout_ms: int) -> None:
        # The group's lock, so try_complete and the coordinator's handlers never interleave.
        super().__init__(rebalance_timeout_ms, lock=group.lock)
        self.coordinator = coordinator
        self.group = group

    def try_complete(self) -> bool:
        return self.coordinator.try_complete_join(self.group, self.force_complete)

    def on_expiration(self) -> None:
        self.coordinator.on_expire_join(self.group)

    def on_complete(self) -> None:
        self.coordinator.on_complete_join(self.group)


class InitialDelayedJoin(DelayedJoin):
    def __init__(self, coordinator, purgatory, group, configured_rebalance_delay_ms: int, delay_ms: int,
                 remaining_ms: int) -> None:
        super().__init__(coordinator, group, delay_ms)
        self.purgatory = purgatory
        self.configured_rebalance_delay_ms = configured_rebalance_delay_ms
        self.remaining_ms = remaining_ms

    def try_complete(self) -> bool:
        return False  # only the delay ends it

    def on_complete(self) -> None:
        with self.group.lock:
            if self.group.new_member_added and self.remaining_ms != 0:
                self.group.new_member_added = False
                delay = min(self.configured_rebalance_delay_ms, self.remaining_ms)
                remaining = max(self.remaining_ms - delay, 0)
                self.purgatory.try_complete_else_watch(
                    InitialDelayedJoin(self.coordinator, self.purgatory, self.group,
                                       self.configured_rebalance_delay_ms, delay, remaining),
                    [GroupKey(self.group.group_id)])
                return
        self.coordinator.on_complete_join(self.group)
