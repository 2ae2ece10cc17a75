"""StreamsTopology: a streams application's topology as its first member sent it and the group keeps it
(Kafka's org.apache.kafka.coordinator.group.streams.StreamsTopology).

A Kafka Streams application is cut into *subtopologies*, pieces that share no state and talk to each other
only through topics. Each reads its *source topics* (the user's) and *repartition source topics* (internal
topics another subtopology writes to, its *repartition sink topics*), and keeps each state store's log in a
*changelog topic*. The internal topics are named ``<application id>-<name>-repartition`` and
``-changelog``; the group coordinator decides their partition counts and creates them
(``topics/internal_topic_manager.py``). The topology has an epoch, the application's version of it: a
member that joins with an older epoch is told STALE_TOPOLOGY, a newer one with other contents is refused
(Kafka 4.4 does not update a topology).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafka.coordinator.group.streams.streams_group_records import (
    StreamsGroupTopologyValue,
    Subtopology,
    TopicInfo,
    subtopology_from,
)


@dataclass(frozen=True)
class StreamsTopology:
    topology_epoch: int
    subtopologies: dict[str, Subtopology]
    # topic -> the subtopology reading it (source and repartition source topics): what offset commits check
    source_topic_map: dict[str, Subtopology] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.topology_epoch < 0:
            raise ValueError("Topology epoch must be non-negative.")
        source_topic_map = {}
        for subtopology in self.subtopologies.values():
            for topic in subtopology.source_topics:
                source_topic_map[topic] = subtopology
            for info in subtopology.repartition_source_topics:
                source_topic_map[info.name] = subtopology
        object.__setattr__(self, "source_topic_map", source_topic_map)

    def required_topics(self) -> set[str]:
        """Every topic it reads or logs to: source, repartition source and changelog topics."""
        return {topic for s in self.subtopologies.values()
                for topic in (*s.source_topics, *(t.name for t in s.repartition_source_topics),
                              *(t.name for t in s.state_changelog_topics))}

    @classmethod
    def from_record(cls, value: StreamsGroupTopologyValue) -> StreamsTopology:
        return cls(value.epoch, {s.subtopology_id: s for s in value.subtopologies})

    @classmethod
    def from_heartbeat_request(cls, topology) -> StreamsTopology:
        return cls.from_record(topology_record_value(topology))

    def as_streams_group_describe_topology(self) -> dict:
        """StreamsGroupDescribe's topology while it is not configured: as sent, each list sorted."""
        return dict(epoch=self.topology_epoch, subtopologies=[
            dict(subtopology_id=sid, source_topics=sorted(s.source_topics),
                 repartition_sink_topics=sorted(s.repartition_sink_topics),
                 repartition_source_topics=sorted(
                     (describe_topic_info(t) for t in s.repartition_source_topics), key=lambda t: t["name"]),
                 state_changelog_topics=sorted((describe_topic_info(t) for t in s.state_changelog_topics),
                                               key=lambda t: t["name"]))
            for sid, s in sorted(self.subtopologies.items())])


def topology_record_value(topology) -> StreamsGroupTopologyValue:
    """A heartbeat's Topology as the StreamsGroupTopology record's value (Kafka's
    convertToStreamsGroupTopologyRecord)."""
    return StreamsGroupTopologyValue(topology.epoch,
                                     tuple(subtopology_from(s) for s in topology.subtopologies))


def describe_topic_info(info: TopicInfo) -> dict:
    return dict(name=info.name, partitions=info.partitions, replication_factor=info.replication_factor,
                topic_configs=[dict(key=k, value=v) for k, v in info.topic_configs])
