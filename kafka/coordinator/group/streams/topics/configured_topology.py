"""ConfiguredTopology, ConfiguredSubtopology and ConfiguredInternalTopic: a streams group's topology once the
group coordinator has checked it against the metadata (Kafka's org.apache.kafka.coordinator.group.streams.
topics.ConfiguredTopology, ConfiguredSubtopology and ConfiguredInternalTopic).

Configuring decides how many partitions each internal topic has and so how many tasks each subtopology
has (the most partitions among the topics it reads). It is *ready* when nothing went wrong; otherwise it
holds the TopicConfigurationException that says why (a source topic missing, topics that should be
co-partitioned and are not, internal topics still to be created), which every heartbeat reports as a
status, and the internal topics the broker should create.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafka.coordinator.group.streams.topics.topic_configuration_exception import TopicConfigurationException
from kafka.protocol import topic
from kafka.utils.java_hash_map import java_hash_map_order


@dataclass(frozen=True)
class ConfiguredInternalTopic:
    name: str
    number_of_partitions: int
    replication_factor: int | None  # None: the broker's default.replication.factor
    topic_configs: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        topic.validate(self.name)
        if self.number_of_partitions < 1:
            raise ValueError("Number of partitions must be at least 1.")

    def as_streams_group_describe_topic_info(self) -> dict:
        return dict(name=self.name, partitions=self.number_of_partitions,
                    replication_factor=self.replication_factor or 0,
                    topic_configs=[dict(key=k, value=self.topic_configs[k])
                                   for k in java_hash_map_order(list(self.topic_configs))])


@dataclass(frozen=True)
class ConfiguredSubtopology:
    number_of_tasks: int
    source_topics: frozenset[str]
    repartition_source_topics: dict[str, ConfiguredInternalTopic]
    repartition_sink_topics: frozenset[str]
    state_changelog_topics: dict[str, ConfiguredInternalTopic]

    def __post_init__(self) -> None:
        if self.number_of_tasks <= 0:
            raise ValueError("Number of tasks must be positive")

    def as_streams_group_describe_subtopology(self, subtopology_id: str) -> dict:
        return dict(
            subtopology_id=subtopology_id, source_topics=sorted(self.source_topics),
            repartition_sink_topics=sorted(self.repartition_sink_topics),
            repartition_source_topics=[t.as_streams_group_describe_topic_info()
                                       for _, t in sorted(self.repartition_source_topics.items())],
            state_changelog_topics=[t.as_streams_group_describe_topic_info()
                                    for _, t in sorted(self.state_changelog_topics.items())])


@dataclass(frozen=True)
class CreatableTopic:
    """One topic the broker should create (Kafka's CreateTopicsRequestData.CreatableTopic): -1 for the
    broker's default replication factor."""

    name: str
    num_partitions: int
    replication_factor: int
    configs: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ConfiguredTopology:
    topology_epoch: int
    metadata_hash: int
    subtopologies: dict[str, ConfiguredSubtopology] | None  # sorted by id; None when configuring failed
    internal_topics_to_be_created: dict[str, CreatableTopic]
    topic_configuration_exception: TopicConfigurationException | None

    def __post_init__(self) -> None:
        if self.topology_epoch < 0:
            raise ValueError("Topology epoch must be non-negative.")
        if self.topic_configuration_exception is None and self.subtopologies is None:
            raise ValueError("Subtopologies must be present if topicConfigurationException is empty.")

    def is_ready(self) -> bool:
        return self.topic_configuration_exception is None

    def as_streams_group_describe_topology(self) -> dict:
        return dict(epoch=self.topology_epoch, subtopologies=[
            s.as_streams_group_describe_subtopology(sid) for sid, s in (self.subtopologies or {}).items()])
