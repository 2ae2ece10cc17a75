"""ShareGroupMember: one member of a KIP-932 share group (Kafka's
org.apache.kafka.coordinator.group.modern.share.ShareGroupMember).

A share member is a consumer member without the hard parts. It owns no partition exclusively (the
share partition hands each record to one member at a time, however many read the partition), so it
has nothing to give back before another may start: no partitions pending revocation, no rebalance
timeout, no owned partitions in its heartbeat. Its ``state`` is always STABLE; its epoch jumps to
the group's assignment epoch in one step, taking its whole target with it (ShareGroupAssignmentBuilder).

A member is a value: a change makes a new one (``dataclasses.replace``), so the group that holds it
can be copied cheaply and a snapshot of the coordinator's state keeps the old one.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from kafka.coordinator.group.group_coordinator_records import (
    Assignment,
    ShareGroupCurrentMemberAssignmentValue,
    ShareGroupMemberMetadataValue,
)
from kafka.coordinator.group.modern.consumer.consumer_group_member import MemberState

# Kafka 4.4's MemberState.value(), as ShareGroupCurrentMemberAssignmentValue stores it.
_STATE_BYTES = {MemberState.STABLE: 0, MemberState.UNREVOKED_PARTITIONS: 1,
                MemberState.UNRELEASED_PARTITIONS: 2,
                MemberState.UNKNOWN: 127}
_STATES = {b: s for s, b in _STATE_BYTES.items()}


@dataclass(frozen=True)
class ShareGroupMember:
    member_id: str
    member_epoch: int = 0
    previous_member_epoch: int = -1
    state: MemberState = MemberState.STABLE
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    subscribed_topic_names: frozenset[str] = frozenset()
    assigned_partitions: Assignment = field(default_factory=dict)

    # ------------------------------------------------------------------ Kafka's Builder
    def maybe_update(self, rack_id: str | None, subscribed_topic_names: list[str] | None, client_id: str,
                     client_host: str) -> ShareGroupMember:
        """A heartbeat's fields: a null rack id or subscription means "unchanged since my last heartbeat"."""
        return dataclasses.replace(
            self, rack_id=self.rack_id if rack_id is None else rack_id,
            subscribed_topic_names=(self.subscribed_topic_names if subscribed_topic_names is None
                                    else frozenset(subscribed_topic_names)),
            client_id=client_id, client_host=client_host)

    def update_member_epoch(self, epoch: int) -> ShareGroupMember:
        """The new epoch, the current one becoming the previous (a retry at it is still accepted)."""
        return dataclasses.replace(self, member_epoch=epoch, previous_member_epoch=self.member_epoch)

    def with_member_metadata(self, value: ShareGroupMemberMetadataValue) -> ShareGroupMember:
        return dataclasses.replace(self, rack_id=value.rack_id, client_id=value.client_id,
                                   client_host=value.client_host,
                                   subscribed_topic_names=frozenset(value.subscribed_topic_names))

    def with_current_assignment(self, value: ShareGroupCurrentMemberAssignmentValue) -> ShareGroupMember:
        return dataclasses.replace(self, member_epoch=value.member_epoch,
                                   previous_member_epoch=value.previous_member_epoch,
                                   state=_STATES.get(value.state, MemberState.UNKNOWN),
                                   assigned_partitions=dict(value.assigned_partitions))

    # ------------------------------------------------------------------ views
    def is_reconciled_to(self, target_assignment_epoch: int) -> bool:
        return self.state is MemberState.STABLE and self.member_epoch == target_assignment_epoch

    def to_member_metadata_value(self) -> ShareGroupMemberMetadataValue:
        return ShareGroupMemberMetadataValue(self.rack_id, self.client_id, self.client_host,
                                             tuple(sorted(self.subscribed_topic_names)))

    def to_current_assignment_value(self) -> ShareGroupCurrentMemberAssignmentValue:
        return ShareGroupCurrentMemberAssignmentValue(self.member_epoch, self.previous_member_epoch,
                                                      _STATE_BYTES[self.state],
                                                      dict(self.assigned_partitions))


def has_assigned_partitions_changed(old: ShareGroupMember, new: ShareGroupMember) -> bool:
    return old.assigned_partitions != new.assigned_partitions
