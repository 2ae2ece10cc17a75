"""The group requests as the coordinator takes them: what KafkaApis decoded and checked, in the
shape the shard's operations read (Kafka passes its generated *RequestData classes, with a
RequestContext beside them).

KafkaApis does the checks that need the broker (ACLs, the metadata cache's topics and partitions);
the shard does those that need the group.
"""

from __future__ import annotations

from dataclasses import dataclass

UNKNOWN_MEMBER_ID = ""


@dataclass(frozen=True)
class RequestContext:
    """Who asked, as the coordinator needs it (Kafka's RequestContext)."""

    client_id: str
    client_host: str
    api_version: int


@dataclass(frozen=True)
class JoinGroupRequest:
    group_id: str
    member_id: str
    group_instance_id: str | None
    require_known_member_id: bool
    rebalance_timeout_ms: int
    session_timeout_ms: int
    protocol_type: str
    protocols: list[tuple[str, bytes]]
    reason: str | None = None  # v8+ (KIP-800): why the member (re)joins, for the coordinator's log


@dataclass(frozen=True)
class SyncGroupRequest:
    group_id: str
    generation_id: int
    member_id: str
    group_instance_id: str | None
    protocol_type: str | None
    protocol_name: str | None
    assignments: dict[str, bytes]


@dataclass(frozen=True)
class HeartbeatRequest:
    """The classic protocol's Heartbeat."""

    group_id: str
    member_id: str
    group_instance_id: str | None
    generation_id: int


@dataclass(frozen=True)
class LeavingMember:
    member_id: str
    group_instance_id: str | None
    reason: str | None = None  # v5+ (KIP-800): why it leaves, for the coordinator's log


@dataclass(frozen=True)
class LeaveGroupRequest:
    group_id: str
    members: list[LeavingMember]


@dataclass(frozen=True)
class OffsetCommitRequest:
    group_id: str
    member_id: str
    group_instance_id: str | None
    generation_id_or_member_epoch: int
    offsets: dict  # TopicPartition -> OffsetAndMetadata, the topics and partitions already checked
    api_version: int


@dataclass(frozen=True)
class TxnOffsetCommitRequest:
    transactional_id: str
    group_id: str
    producer_id: int
    producer_epoch: int
    member_id: str
    group_instance_id: str | None
    generation_id: int
    offsets: dict  # TopicPartition -> OffsetAndMetadata
    api_version: int


@dataclass(frozen=True)
class PartitionOffset:
    """One partition of an OffsetFetch answer."""

    offset: int
    leader_epoch: int
    metadata: str | None
    error: object  # Errors

