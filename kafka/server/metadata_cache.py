"""MetadataCache: what this broker knows about the cluster (Kafka's kafka.server.MetadataCache).

Every Metadata, Produce and Fetch request asks it which topics exist, how many partitions each has
and which broker leads them. In a KRaft cluster it is fed by the metadata log; in this single-broker
edition the AdminManager fills it, from the ClusterMetadataStore at start-up and from
CreateTopics/DeleteTopics afterwards. Reads are lock-free snapshots: the dict is replaced, never
mutated in place, so request threads never see half an update.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field

from kafka.network.end_point import EndPoint


@dataclass(frozen=True)
class TopicMetadata:
    name: str
    topic_id: uuid.UUID
    num_partitions: int
    configs: dict[str, str] = field(default_factory=dict)
    is_internal: bool = False


@dataclass(frozen=True)
class Broker:
    node_id: int
    end_points: tuple[EndPoint, ...]
    rack: str | None = None

    def end_point(self, listener_name: str) -> EndPoint | None:
        return next((e for e in self.end_points if e.listener_name == listener_name), None)


class MetadataCache:
    def __init__(self, cluster_id: str, local_broker: Broker) -> None:
        self.cluster_id = cluster_id
        self.local_broker = local_broker
        self._topics: dict[str, TopicMetadata] = {}
        self._write_lock = threading.Lock()

    @property
    def controller_id(self) -> int:
        return self.local_broker.node_id  # a combined broker/controller: this broker decides

    def alive_brokers(self) -> list[Broker]:
        return [self.local_broker]

    def get_topic(self, name: str) -> TopicMetadata | None:
        return self._topics.get(name)

    def contains(self, name: str) -> bool:
        return name in self._topics

    def topic_names(self) -> list[str]:
        return sorted(self._topics)

    def all_topics(self) -> list[TopicMetadata]:
        return [self._topics[name] for name in sorted(self._topics)]

    def num_partitions(self, name: str) -> int | None:
        topic = self._topics.get(name)
        return topic.num_partitions if topic else None

    def update_topic(self, topic: TopicMetadata) -> None:
        with self._write_lock:
            self._topics = {**self._topics, topic.name: topic}

    def remove_topic(self, name: str) -> None:
        with self._write_lock:
            self._topics = {k: v for k, v in self._topics.items() if k != name}
