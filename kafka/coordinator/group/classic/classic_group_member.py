"""ClassicGroupMember: one member of a classic group, as the coordinator sees it (Kafka's
org.apache.kafka.coordinator.group.classic.ClassicGroupMember).

Seed 004: "Every consumer sends Join Group Request to the Group Coordinator". A member is what that
request left behind: its ids, its timeouts, the protocols (assignors) it supports with their metadata
(its subscription), the assignment the leader gave it, and -- while a request of its waits for the
rebalance -- the callback that will answer that JoinGroup or SyncGroup.

Its session is not here: the "heartbeat-<group>-<member>" timer is, rescheduled on every sign of
life. When it fires, has_satisfied_heartbeat says whether the member is excused.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka.coordinator.group.classic.classic_group_results import JoinCallback, SyncCallback


@dataclass(frozen=True)
class MemberSummary:
    """What DescribeGroups shows of a member (Kafka's DescribedGroupMember)."""

    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    metadata: bytes
    assignment: bytes


class ClassicGroupMember:
    def __init__(self, member_id: str, group_instance_id: str | None, client_id: str, client_host: str,
                 rebalance_timeout_ms: int, session_timeout_ms: int, protocol_type: str,
                 supported_protocols: list[tuple[str, bytes]], assignment: bytes = b"") -> None:
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.client_id = client_id
        self.client_host = client_host
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.session_timeout_ms = session_timeout_ms
        self.protocol_type = protocol_type
        self.supported_protocols = supported_protocols
        self.assignment = assignment
        self.awaiting_join_callback: JoinCallback | None = None
        self.awaiting_sync_callback: SyncCallback | None = None
        # A member that has never completed a join: it has only the new-member join timeout to do so.
        self.is_new = False

    @property
    def is_static_member(self) -> bool:
        return self.group_instance_id is not None

    @property
    def is_awaiting_join(self) -> bool:
        return self.awaiting_join_callback is not None

    @property
    def is_awaiting_sync(self) -> bool:
        return self.awaiting_sync_callback is not None

    def protocols(self) -> set[str]:
        return {name for name, _ in self.supported_protocols}

    def metadata(self, protocol: str) -> bytes:
        for name, metadata in self.supported_protocols:
            if name == protocol:
                return metadata
        raise ValueError(f"member {self.member_id} does not support protocol {protocol}")

    def has_satisfied_heartbeat(self) -> bool:
        """Asked when the heartbeat timer fires, i.e. no sign of life for a whole session. A new
        member is expired even while its JoinGroup waits (its client may be long gone); a member
        parked in a rebalance cannot heartbeat, and its pending request is proof of life."""
        if self.is_new:
            return False
        return self.is_awaiting_join or self.is_awaiting_sync

    def matches(self, protocols: list[tuple[str, bytes]]) -> bool:
        """Same protocols, same order, same metadata: a rejoin that changes nothing."""
        return [(n, bytes(m)) for n, m in protocols] == [(n, bytes(m)) for n, m in self.supported_protocols]

    def vote(self, candidates: set[str]) -> str:
        """This member's preferred protocol among those every member supports (its list is in
        preference order, e.g. librdkafka's partition.assignment.strategy)."""
        for name, _ in self.supported_protocols:
            if name in candidates:
                return name
        raise ValueError(f"member {self.member_id} supports none of {sorted(candidates)}")

    def summary(self, protocol: str | None) -> MemberSummary:
        """DescribeGroups' view: the metadata only once the group is Stable on a protocol; the
        assignment always (Kafka's describeNoMetadata keeps it: empty until a SyncGroup gave one)."""
        metadata = self.metadata(protocol) if protocol else b""
        return MemberSummary(self.member_id, self.group_instance_id, self.client_id, self.client_host,
                             metadata, self.assignment)

    def __repr__(self) -> str:
        return (f"ClassicGroupMember(member_id={self.member_id}, group_instance_id={self.group_instance_id}, "
                f"client_id={self.client_id}, client_host={self.client_host}, "
                f"session_timeout_ms={self.session_timeout_ms}, "
                f"rebalance_timeout_ms={self.rebalance_timeout_ms}, "
                f"supported_protocols={[n for n, _ in self.supported_protocols]})")
