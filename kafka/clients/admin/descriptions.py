"""What the admin client is given and what it answers with: Kafka's org.apache.kafka.clients.admin
NewTopic, TopicDescription (of common.TopicPartitionInfo), ConfigEntry, MemberDescription,
ConsumerGroupDescription, PartitionReassignment, QuorumInfo (with its ReplicaState), TransactionDescription,
TransactionListing, ProducerState, and for share groups (KIP-932) ShareGroupDescription,
ShareMemberDescription and SharePartitionOffsetInfo, as plain frozen dataclasses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kafka.clients.metadata import PartitionInfo
from kafka.utils.topic_partition import TopicPartition


@dataclass(frozen=True)
class NewTopic:
    name: str
    num_partitions: int = -1  # -1: the broker's num.partitions
    replication_factor: int = -1  # -1: the broker's default.replication.factor
    configs: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TopicPartitionInfo(PartitionInfo):
    """A partition as Admin.describeTopics answers: with its eligible leader replicas and last known ELR
    (KIP-966) from DescribeTopicPartitions; None for both when only Metadata answered."""
    elr: tuple[int, ...] | None = None
    last_known_elr: tuple[int, ...] | None = None


@dataclass(frozen=True)
class TopicDescription:
    name: str
    internal: bool
    partitions: list[PartitionInfo]
    topic_id: Any = None


@dataclass(frozen=True)
class ConfigEntry:
    name: str
    value: str | None
    source: int
    read_only: bool
    sensitive: bool
    synonyms: tuple[tuple[str, str | None, int], ...] = ()  # (name, value, source), most specific first


@dataclass(frozen=True)
class MemberDescription:
    member_id: str
    client_id: str
    host: str
    assignment: list[TopicPartition]
    # KIP-848 consumer groups only (KIP-1099): the member's epoch and where it is heading
    member_epoch: int | None = None
    target_assignment: list[TopicPartition] | None = None
    group_instance_id: str | None = None  # a static member's (KIP-345)


@dataclass(frozen=True)
class ConsumerGroupDescription:
    group_id: str
    state: str
    protocol_type: str
    assignor: str
    members: list[MemberDescription]
    type: str = "Classic"  # Kafka's GroupType: Classic, or Consumer for KIP-848 groups
    group_epoch: int | None = None  # Consumer groups only (KIP-1099)
    target_assignment_epoch: int | None = None
    coordinator: Any = None  # the Node that coordinates it


@dataclass(frozen=True)
class PartitionReassignment:
    """Kafka's PartitionReassignment: a partition moving (ListPartitionReassignments)."""
    replicas: list[int]
    adding_replicas: list[int]
    removing_replicas: list[int]


@dataclass(frozen=True)
class ReplicaState:
    replica_id: int
    log_end_offset: int
    last_fetch_timestamp: int
    last_caught_up_timestamp: int
    replica_directory_id: str | None = None  # DescribeQuorum v2 (KIP-853); None: not known (a static voter)


@dataclass(frozen=True)
class QuorumInfo:
    """Kafka's QuorumInfo: the metadata quorum as its leader sees it (DescribeQuorum)."""
    leader_id: int
    leader_epoch: int
    high_watermark: int
    voters: list[ReplicaState]
    observers: list[ReplicaState]
    nodes: dict[int, list[str]] = field(default_factory=dict)  # v2: each voter's endpoints, NAME://host:port


@dataclass(frozen=True)
class TransactionDescription:
    """What DescribeTransactions says of a transactional id (Java's TransactionDescription)."""

    coordinator_id: int
    state: str
    producer_id: int
    producer_epoch: int
    transaction_timeout_ms: int
    transaction_start_time_ms: int | None  # None: no transaction open
    topic_partitions: list[TopicPartition]


@dataclass(frozen=True)
class TransactionListing:
    transactional_id: str
    producer_id: int
    state: str


@dataclass(frozen=True)
class ProducerState:
    """One producer a partition's leader keeps (Java's ProducerState, from DescribeProducers)."""

    producer_id: int
    producer_epoch: int
    last_sequence: int
    last_timestamp: int
    coordinator_epoch: int | None
    current_transaction_start_offset: int | None


@dataclass(frozen=True)
class ShareMemberDescription:
    member_id: str  # Kafka's consumerId
    rack_id: str | None
    client_id: str
    host: str
    assignment: list[TopicPartition]
    member_epoch: int


@dataclass(frozen=True)
class ShareGroupDescription:
    group_id: str
    members: list[ShareMemberDescription]
    state: str  # Kafka's GroupState: Empty, Stable, Dead, Unknown
    coordinator: Any  # the Node that coordinates it
    group_epoch: int
    target_assignment_epoch: int


@dataclass(frozen=True)
class SharePartitionOffsetInfo:
    """Where a share partition of a group starts, with the leader epoch of the last leader to write it
    and the lag (KIP-1226), None when not known."""

    start_offset: int
    leader_epoch: int | None = None
    lag: int | None = None
