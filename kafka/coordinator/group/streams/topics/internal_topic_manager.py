"""InternalTopicManager: a streams group's topology checked against the metadata, its internal topics'
partition counts decided, and the ones missing named (Kafka's org.apache.kafka.coordinator.group.streams.
topics.InternalTopicManager.configureTopics).

In Kafka's order, each failure becoming the status every member's heartbeat carries:

1. every source topic must exist (MISSING_SOURCE_TOPICS, the first three named, sorted);
2. repartition topics get their counts (RepartitionTopics), co-partitioned topics must agree
   (CopartitionedTopicsEnforcer: INCORRECTLY_PARTITIONED_TOPICS), changelog topics get one partition per
   task (ChangelogTopics); a topology these cannot make sense of is STREAMS_INVALID_TOPOLOGY, the
   heartbeat's error;
3. each subtopology's number of tasks is the most partitions among the topics it reads;
4. an internal topic that exists with another count is INCORRECTLY_PARTITIONED_TOPICS; those that do not
   exist are MISSING_INTERNAL_TOPICS, and the broker creates them (StreamsGroupApis, through the
   AutoTopicCreationManager): the next configuration finds them and the topology is ready.
"""

from __future__ import annotations

from collections.abc import Callable

import structlog

from kafka.coordinator.group.streams.streams_group_records import Subtopology, TopicInfo
from kafka.coordinator.group.streams.streams_topology import StreamsTopology
from kafka.coordinator.group.streams.topics.changelog_topics import ChangelogTopics
from kafka.coordinator.group.streams.topics.configured_topology import (
    ConfiguredInternalTopic,
    ConfiguredSubtopology,
    ConfiguredTopology,
    CreatableTopic,
)
from kafka.coordinator.group.streams.topics.copartitioned_topics_enforcer import CopartitionedTopicsEnforcer
from kafka.coordinator.group.streams.topics.repartition_topics import RepartitionTopics
from kafka.coordinator.group.streams.topics.topic_configuration_exception import TopicConfigurationException
from kafka.utils.java_hash_map import java_hash_map_order

log = structlog.get_logger("kafka.coordinator.group.streams.InternalTopicManager")

# the shard's view of the metadata image: topic name -> (topic id, partition count)
TopicsImage = Callable[[], dict]


def configure_topics(group_id: str, member_id: str, metadata_hash: int, topology: StreamsTopology,
                     topics: dict) -> ConfiguredTopology:
    """Kafka's configureTopics; ``topics`` is the metadata image's {name: (topic id, partitions)}."""
    subtopologies = list(topology.subtopologies.values())
    try:
        throw_on_missing_source_topics(topology, topics)
        decided = decide_partition_counts(topology, topics)
        configured = {s.subtopology_id: from_persisted_subtopology(s, topics, decided)
                      for s in sorted(subtopologies, key=lambda s: s.subtopology_id)}
        to_create = missing_internal_topics(configured, topology, topics)
    except TopicConfigurationException as e:
        log.warning("topic configuration failed", group_id=group_id, member_id=member_id,
                    topology_epoch=topology.topology_epoch, error=e.message)
        return ConfiguredTopology(topology.topology_epoch, metadata_hash, None, {}, e)
    problem = None
    to_create = {name: to_create[name] for name in java_hash_map_order(list(to_create))}  # Kafka's HashMap
    if to_create:
        problem = TopicConfigurationException.missing_internal_topics(
            "Internal topics are missing: " + summarize_topics(list(to_create)))
        log.info("valid topic configuration found, but internal topics are missing", group_id=group_id,
                 member_id=member_id, topology_epoch=topology.topology_epoch, missing=sorted(to_create))
    else:
        log.info("valid topic configuration found: the topology is initialized", group_id=group_id,
                 member_id=member_id, topology_epoch=topology.topology_epoch)
    return ConfiguredTopology(topology.topology_epoch, metadata_hash, configured, to_create, problem)


def throw_on_missing_source_topics(topology: StreamsTopology, topics: dict) -> None:
    missing = sorted({t for s in topology.subtopologies.values() for t in s.source_topics if t not in topics})
    if missing:
        raise TopicConfigurationException.missing_source_topics(
            f"Source topics {summarize_topics(missing)} are missing.")


def decide_partition_counts(topology: StreamsTopology, topics: dict) -> dict[str, int]:
    """Internal topic -> its partition count: repartition topics, then co-partitioning, then changelogs."""
    decided: dict[str, int] = {}

    def partition_count(topic: str) -> int | None:
        if topic in topics:
            return topics[topic][1]
        return decided.get(topic)
    subtopologies = list(topology.subtopologies.values())
    decided.update(RepartitionTopics(subtopologies, partition_count).setup())
    enforce_copartitioning(topology, decided, CopartitionedTopicsEnforcer(partition_count))
    decided.update(ChangelogTopics(subtopologies, partition_count).setup())
    return decided


def enforce_copartitioning(topology: StreamsTopology, decided: dict[str, int],
                           enforcer: CopartitionedTopicsEnforcer) -> None:
    repartition = [t for s in topology.subtopologies.values() for t in s.repartition_source_topics]
    fixed = {t.name for t in repartition if t.partitions != 0}
    flexible = {t.name for t in repartition if t.partitions == 0}
    # Kafka walks a HashMap of the subtopologies by id
    for subtopology_id in java_hash_map_order(list(topology.subtopologies)):
        for group in copartition_groups(topology.subtopologies[subtopology_id]):
            decided.update(enforcer.enforce(group, fixed, flexible))


def copartition_groups(subtopology: Subtopology) -> list[set[str]]:
    """The topic names of each co-partition group (the record holds indexes into the subtopology's lists)."""
    return [{subtopology.source_topics[i] for i in group.source_topics}
            | {subtopology.repartition_source_topics[i].name for i in group.repartition_source_topics}
            for group in subtopology.copartition_groups]


def missing_internal_topics(configured: dict[str, ConfiguredSubtopology], topology: StreamsTopology,
                            topics: dict) -> dict[str, CreatableTopic]:
    """The internal topics that do not exist; one that exists with another count is refused."""
    to_create: dict[str, CreatableTopic] = {}
    for subtopology in configured.values():
        for internal in (*subtopology.repartition_source_topics.values(),
                         *subtopology.state_changelog_topics.values()):
            to_create[internal.name] = to_creatable_topic(internal)
    for name in java_hash_map_order(list(topology.required_topics())):  # Kafka walks a HashSet
        if name not in topics:
            continue
        expected = to_create.pop(name, None)
        if expected is not None and topics[name][1] != expected.num_partitions:
            raise TopicConfigurationException.incorrectly_partitioned_topics(
                f"Existing topic {name} has different number of partitions: expected "
                f"{expected.num_partitions}, found {topics[name][1]}")
    return to_create


def to_creatable_topic(internal: ConfiguredInternalTopic) -> CreatableTopic:
    return CreatableTopic(internal.name, internal.number_of_partitions, internal.replication_factor or -1,
                          dict(internal.topic_configs))


def from_persisted_subtopology(subtopology: Subtopology, topics: dict,
                               decided: dict[str, int]) -> ConfiguredSubtopology:
    return ConfiguredSubtopology(
        compute_number_of_tasks(subtopology, topics, decided), frozenset(subtopology.source_topics),
        {t.name: from_persisted_topic_info(t, decided) for t in subtopology.repartition_source_topics},
        frozenset(subtopology.repartition_sink_topics),
        {t.name: from_persisted_topic_info(t, decided) for t in subtopology.state_changelog_topics})


def compute_number_of_tasks(subtopology: Subtopology, topics: dict, decided: dict[str, int]) -> int:
    read = [*subtopology.source_topics, *(t.name for t in subtopology.repartition_source_topics)]
    if not read:
        raise RuntimeError("Subtopology does not contain any source topics")
    counts = [topics[t][1] if t in topics else decided.get(t) for t in read]
    if None in counts:
        raise RuntimeError(f"Number of partitions must be set for topic {read[counts.index(None)]}")
    return max(counts)


def from_persisted_topic_info(info: TopicInfo, decided: dict[str, int]) -> ConfiguredInternalTopic:
    if info.partitions == 0 and info.name not in decided:
        raise RuntimeError(f"Number of partitions must be set for topic {info.name}")
    return ConfiguredInternalTopic(info.name, info.partitions or decided[info.name],
                                   info.replication_factor or None,
                                   dict(info.topic_configs))


def summarize_topics(topics: list[str]) -> str:
    """The first three, then how many more (Kafka's summarizeTopics)."""
    if not topics:
        return "<none>"
    shown = ", ".join(topics[:3])
    return shown + (f" and {len(topics) - 3} additional topics" if len(topics) > 3 else "")
