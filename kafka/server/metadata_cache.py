"""MetadataCache: what this broker knows about the cluster (Kafka's kafka.server.metadata.KRaftMetadataCache).

Every Metadata, Produce, Fetch and FindCoordinator request asks it which topics exist, which broker
leads each partition, and where the live brokers listen. Seed 004: in KRaft a broker does not decide
any of this; it "passively reads" the metadata log. The BrokerMetadataPublisher replaces the cache's
contents each time the MetadataLoader has applied new committed records, so the cache is always a
picture of the log up to some offset (`metadata_offset`).

Reads are lock-free: the whole picture is one immutable snapshot, swapped in with one assignment, so
a request thread sees the cluster before an update or after it, never half of it.
"""

from __future__ import annotations

import functools
import random
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from kafka.coordinator.transaction.transaction_marker_channel_manager import NO_NODE, MarkerDestination
from kafka.network.end_point import EndPoint
from kafka.protocol import topic
from kafka.protocol.errors import Errors


@dataclass(frozen=True)
class PartitionState:
    """One partition as the controller last decided it (a PartitionRegistration)."""
    partition: int
    leader: int  # -1: offline, no leader
    leader_epoch: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    partition_epoch: int = 0
    elr: tuple[int, ...] = ()  # KIP-966: eligible leader replicas, what DescribeTopicPartitions shows
    last_known_elr: tuple[int, ...] = ()


@dataclass(frozen=True)
class TopicMetadata:
    name: str
    topic_id: uuid.UUID
    num_partitions: int
    configs: dict[str, str] = field(default_factory=dict)
    is_internal: bool = False
    partitions: tuple[PartitionState, ...] = ()

    def partition(self, index: int) -> PartitionState | None:
        return self.partitions[index] if 0 <= index < len(self.partitions) else None


@dataclass(frozen=True)
class Broker:
    node_id: int
    end_points: tuple[EndPoint, ...]
    rack: str | None = None
    fenced: bool = False

    def end_point(self, listener_name: str) -> EndPoint | None:
        return next((e for e in self.end_points if e.listener_name == listener_name), None)


@dataclass(frozen=True)
class ClusterSnapshot:
    topics: dict[str, TopicMetadata] = field(default_factory=dict)
    brokers: dict[int, Broker] = field(default_factory=dict)
    metadata_offset: int = -1
    group_configs: dict[str, dict[str, str]] = field(default_factory=dict)  # group id -> the configs it sets

    @functools.cached_property
    def topic_ids_to_names(self) -> dict[uuid.UUID, str]:
        """Built once a snapshot, on first use: every Fetch v13+ and Produce v13 names topics by id."""
        return {t.topic_id: t.name for t in self.topics.values()}


class MetadataCache:
    def __init__(self, cluster_id: str, local_broker: Broker) -> None:
        self.cluster_id = cluster_id
        self.local_broker = local_broker
        self._snapshot = ClusterSnapshot()
        self._lock = threading.Lock()  # one writer at a time; readers take the snapshot without it
        self.finalized_features: dict[str, int] = {}  # the image's FeaturesImage: metadata.version and co.
        self.kraft_version: Callable[[], int] = lambda: 0  # the raft log's (KIP-853); KafkaServer wires it

    # ------------------------------------------------------------------ the publisher's side
    def set_snapshot(self, topics: dict[str, TopicMetadata] | None, brokers: dict[int, Broker] | None,
                     metadata_offset: int, group_configs: dict[str, dict[str, str]] | None = None) -> None:
        """The picture as of metadata_offset; None keeps the topics (brokers, group configs) the cache has."""
        with self._lock:
            old = self._snapshot
            self._snapshot = ClusterSnapshot(old.topics if topics is None else topics,
                                             old.brokers if brokers is None else brokers, metadata_offset,
                                             old.group_configs if group_configs is None else group_configs)

    @property
    def metadata_offset(self) -> int:
        return self._snapshot.metadata_offset

    def group_config(self, group_id: str) -> dict[str, str]:
        """The configs a group sets, {} for none (Kafka's ConfigRepository.groupConfig, which its
        KRaftMetadataCache answers from the image): what DescribeConfigs shows of a GROUP."""
        return dict(self._snapshot.group_configs.get(group_id, {}))

    # ------------------------------------------------------------------ brokers
    @property
    def controller_id(self) -> int:
        """KIP-590: clients cannot reach the controllers, so Metadata names a random live broker as
        'controller'; admin requests sent to it are forwarded to the active controller."""
        alive = self.alive_brokers()
        return random.choice(alive).node_id if alive else -1

    def alive_brokers(self) -> list[Broker]:
        """Registered and unfenced brokers, the only ones clients are told about."""
        return [b for _, b in sorted(self._snapshot.brokers.items()) if not b.fenced]

    def get_brokers(self) -> list[Broker]:
        """Every registered broker, fenced or not (Kafka's getBrokerNodes): what DescribeCluster v2 shows
        when asked to include the fenced ones (KIP-1073)."""
        return [b for _, b in sorted(self._snapshot.brokers.items())]

    def get_partition_leader_endpoint(self, tp, listener_name: str) -> MarkerDestination | None:
        """Kafka's getPartitionLeaderEndpoint, where a transaction marker goes: the partition leader on
        `listener_name`; NO_NODE while it has none (or it is fenced); None when the partition is gone."""
        topic = self.get_topic(tp.topic)
        state = topic.partition(tp.partition) if topic is not None else None
        if state is None:
            return None
        broker = self.get_broker(state.leader) if state.leader >= 0 else None
        end_point = broker.end_point(listener_name) if broker is not None else None
        if end_point is None or broker.fenced:
            return NO_NODE
        return MarkerDestination(state.leader, end_point.host, end_point.port)

    def get_broker(self, node_id: int) -> Broker | None:
        return self._snapshot.brokers.get(node_id)

    # ------------------------------------------------------------------ topics
    def get_topic(self, name: str) -> TopicMetadata | None:
        return self._snapshot.topics.get(name)

    def contains(self, name: str) -> bool:
        return name in self._snapshot.topics

    def topic_names(self) -> list[str]:
        return sorted(self._snapshot.topics)

    def all_topics(self) -> list[TopicMetadata]:
        topics = self._snapshot.topics
        return [topics[name] for name in sorted(topics)]

    def num_partitions(self, name: str) -> int | None:
        topic = self._snapshot.topics.get(name)
        return topic.num_partitions if topic else None

    def topic_name_for_id(self, topic_id: uuid.UUID) -> str | None:
        return self._snapshot.topic_ids_to_names.get(topic_id)

    def topic_ids_to_names(self) -> dict[uuid.UUID, str]:
        """Kafka's topicIdsToNames: how a request that names topics by id (KIP-516) is read."""
        return self._snapshot.topic_ids_to_names

    def partition_leader_end_point(self, topic: str, partition: int,
                                   listener: str) -> tuple[int, EndPoint | None]:
        """(leader id, its end point on this listener); (-1, None) when there is no live leader."""
        meta = self.get_topic(topic)
        state = meta.partition(partition) if meta else None
        if state is None or state.leader < 0:
            return -1, None
        broker = self.get_broker(state.leader)
        return state.leader, broker.end_point(listener) if broker is not None and not broker.fenced else None

    # ------------------------------------------------------------------ DescribeTopicPartitions
    def topic_metadata_for_describe_topic_response(self, topics: list[str], listener_name: str,
                                                   cursor: tuple[str, int] | None, max_partitions: int,
                                                   ignore_topics_with_exceptions: bool) -> dict:
        """Kafka's KRaftMetadataCache.getTopicMetadataForDescribeTopicResponse: the (sorted) topics'
        partitions from the `cursor` (topic, partition) on, at most `max_partitions` of them. Where the
        limit cuts a topic, `next_cursor` names the first partition left out; where it falls between
        topics, partition 0 of the next one. A topic that does not exist is UNKNOWN_TOPIC_OR_PARTITION
        (INVALID_TOPIC_EXCEPTION for a name no topic may have) unless `ignore_topics_with_exceptions`
        (all topics asked for: one deleted meanwhile is left out)."""
        snapshot = self._snapshot
        remaining, result, next_cursor = max_partitions, [], None
        for name in topics:
            if remaining == 0:
                next_cursor = dict(topic_name=name, partition_index=0)
                break
            meta = snapshot.topics.get(name)
            if meta is None:
                if not ignore_topics_with_exceptions:
                    result.append(dict(error_code=unknown_topic_error(name), name=name,
                                       topic_id=_ZERO_UUID, is_internal=False, partitions=[]))
                continue
            first = cursor[1] if cursor is not None and cursor[0] == name else 0
            upper = min(len(meta.partitions), first + remaining)
            partitions = [self._describe_partition(snapshot, p, listener_name)
                          for p in meta.partitions[first:upper]]
            result.append(dict(error_code=0, name=name, topic_id=meta.topic_id, is_internal=meta.is_internal,
                               partitions=partitions))
            if upper < len(meta.partitions):
                next_cursor = dict(topic_name=name, partition_index=upper)
                break
            remaining -= len(partitions)
        return dict(topics=result, next_cursor=next_cursor)

    @staticmethod
    def _describe_partition(snapshot: ClusterSnapshot, p: PartitionState, listener_name: str) -> dict:
        """One DescribeTopicPartitionsResponsePartition: every replica, the ISR, the ELR and the last known
        ELR as the controller decided them; the leader only while it is registered on this listener."""
        leader = snapshot.brokers.get(p.leader)
        offline = [r for r in p.replicas if (b := snapshot.brokers.get(r)) is None or b.fenced
                   or b.end_point(listener_name) is None]
        return dict(error_code=0, partition_index=p.partition,
                    leader_id=p.leader if leader is not None and leader.end_point(listener_name) else -1,
                    leader_epoch=p.leader_epoch, replica_nodes=list(p.replicas), isr_nodes=list(p.isr),
                    eligible_leader_replicas=list(p.elr), last_known_elr=list(p.last_known_elr),
                    offline_replicas=offline)


_ZERO_UUID = uuid.UUID(int=0)


def unknown_topic_error(name: str) -> int:
    """A name not in the image: UNKNOWN_TOPIC_OR_PARTITION, or INVALID_TOPIC_EXCEPTION if no topic could
    ever have it (Topic.validate), as Kafka answers both Metadata and DescribeTopicPartitions."""
    try:
        topic.validate(name)
    except topic.InvalidTopicError:
        return Errors.INVALID_TOPIC_EXCEPTION
    return Errors.UNKNOWN_TOPIC_OR_PARTITION
