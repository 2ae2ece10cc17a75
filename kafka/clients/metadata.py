"""Metadata: the client's view of the cluster, and when to refresh it (Kafka's clients.Metadata, Cluster).

Seed 003: metadata "guarantee[s] that client has correct information about cluster and, in
consequence, it knows to which broker given message has to be sent". The view is refreshed when
it is older than ``metadata.max.age.ms``, when a client learns a topic it has not seen, and when
a broker answers NOT_LEADER_OR_FOLLOWER or UNKNOWN_TOPIC_OR_PARTITION -- the leader moved, or the
topic is new. While a refresh is due, the NetworkClient holds other requests back.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from kafka.protocol.errors import Errors
from kafka.utils.topic_partition import TopicPartition

# Errors that mean "your picture of who leads what is out of date".
STALE_METADATA_ERRORS = frozenset({
    Errors.NOT_LEADER_OR_FOLLOWER, Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.LEADER_NOT_AVAILABLE,
    Errors.FENCED_LEADER_EPOCH, Errors.UNKNOWN_LEADER_EPOCH, Errors.KAFKA_STORAGE_ERROR,
    Errors.NOT_ENOUGH_REPLICAS, Errors.REPLICA_NOT_AVAILABLE,
})


@dataclass(frozen=True)
class Node:
    node_id: int
    host: str
    port: int
    rack: str | None = None

    def __str__(self) -> str:
        return f"{self.host}:{self.port} (id: {self.node_id})"


@dataclass(frozen=True)
class PartitionInfo:
    topic: str
    partition: int
    leader: int  # -1: no leader right now
    replicas: tuple[int, ...] = ()
    isr: tuple[int, ...] = ()


@dataclass(frozen=True)
class Cluster:
    """An immutable snapshot of one Metadata response; replaced whole on every refresh."""

    nodes: dict[int, Node] = field(default_factory=dict)
    partitions: dict[str, list[PartitionInfo]] = field(default_factory=dict)
    topic_errors: dict[str, Errors] = field(default_factory=dict)
    cluster_id: str | None = None
    controller_id: int = -1

    def partitions_for_topic(self, topic: str) -> list[PartitionInfo]:
        return self.partitions.get(topic, [])

    def partition_count(self, topic: str) -> int | None:
        parts = self.partitions.get(topic)
        return len(parts) if parts else None

    def available_partitions_for_topic(self, topic: str) -> list[PartitionInfo]:
        return [p for p in self.partitions.get(topic, []) if p.leader >= 0]

    def leader_for(self, tp: TopicPartition) -> Node | None:
        parts = self.partitions.get(tp.topic)
        if not parts or tp.partition >= len(parts):
            return None
        return self.nodes.get(parts[tp.partition].leader)


class Metadata:
    def __init__(self, refresh_backoff_ms: int = 100, metadata_max_age_ms: int = 300000) -> None:
        # No clock: like Kafka's Metadata, every question about time is asked with the caller's now_ms.
        self.refresh_backoff_ms = refresh_backoff_ms
        self.metadata_max_age_ms = metadata_max_age_ms
        self.cluster = Cluster()
        self.topics: set[str] = set()
        self.all_topics = False  # admin and tools ask for every topic
        self.need_update = True  # nothing is known before the first response
        self.last_refresh_ms = 0
        self.last_successful_refresh_ms = 0
        self.update_version = 0
        self._condition = threading.Condition()

    # ------------------------------------------------------------------ asking for a refresh
    def add_topics(self, *topics: str) -> None:
        with self._condition:
            new = set(topics) - self.topics
            if new:
                self.topics |= new
                self.need_update = True

    def set_topics(self, topics: set[str]) -> None:
        with self._condition:
            if set(topics) != self.topics:
                self.topics = set(topics)
                self.need_update = True

    def request_update(self) -> int:
        """Mark the view stale; returns the version a caller can wait to see replaced."""
        with self._condition:
            self.need_update = True
            return self.update_version

    def time_to_next_update(self, now_ms: int) -> int:
        """0 when a refresh is due now (the NetworkClient's metadata-first rule looks at this)."""
        if self.need_update:
            return max(0, self.last_refresh_ms + self.refresh_backoff_ms - now_ms)
        return max(0, self.last_successful_refresh_ms + self.metadata_max_age_ms - now_ms)

    def is_update_due(self, now_ms: int) -> bool:
        return self.time_to_next_update(now_ms) == 0

    def request_topics(self) -> list[str] | None:
        """The topics to ask about; None asks for all of them."""
        return None if self.all_topics else sorted(self.topics)

    # ------------------------------------------------------------------ taking in a response
    def update(self, response, now_ms: int) -> None:
        nodes = {b.node_id: Node(b.node_id, b.host, b.port, b.get("rack")) for b in response.brokers}
        partitions: dict[str, list[PartitionInfo]] = {}
        errors: dict[str, Errors] = {}
        retry_soon = False
        for topic in response.topics:
            error = Errors.for_code(topic.error_code)
            if error != Errors.NONE:
                errors[topic.name] = error
                retry_soon |= error.retriable
                continue
            infos = [PartitionInfo(topic.name, p.partition_index,
                                   p.leader_id if p.error_code == Errors.NONE else -1,
                                   tuple(p.replica_nodes), tuple(p.isr_nodes))
                     for p in sorted(topic.partitions, key=lambda p: p.partition_index)]
            partitions[topic.name] = infos
            retry_soon |= any(i.leader < 0 for i in infos)
        with self._condition:
            self.cluster = Cluster(nodes, partitions, errors, response.get("cluster_id"),
                                   response.get("controller_id", -1))
            self.last_refresh_ms = self.last_successful_refresh_ms = now_ms
            # A topic that is still being created, or a partition without a leader: ask again
            # after the backoff rather than waiting metadata.max.age.ms.
            self.need_update = retry_soon
            self.update_version += 1
            self._condition.notify_all()

    def failed_update(self, now_ms: int) -> None:
        with self._condition:
            self.last_refresh_ms = now_ms
            self._condition.notify_all()

    def await_update(self, last_version: int, timeout_ms: float) -> bool:
        """Block until a response newer than ``last_version`` arrives (the producer's waitOnMetadata)."""
        with self._condition:
            return self._condition.wait_for(lambda: self.update_version > last_version, timeout_ms / 1000)

    def bootstrap(self, addresses: list[str]) -> None:
        """Before any response, the bootstrap servers are the only nodes known; they get negative ids,
        as in the Java client, so they are never mistaken for a real broker id."""
        nodes = {}
        for i, address in enumerate(addresses):
            host, _, port = address.rpartition(":")
            nodes[-(i + 1)] = Node(-(i + 1), host.strip("[]") or "localhost", int(port))
        with self._condition:
            self.cluster = Cluster(nodes)
