"""Utils: translations between the classic protocol's topic names and the consumer protocol's topic
ids (the helpers of Kafka's org.apache.kafka.coordinator.group.Utils that the group conversions and
the classic members of a consumer group use).

A classic member speaks ConsumerProtocol: its subscription names topics, its assignment lists
(topic name, partitions). A consumer group keeps assignments by topic id. ``topics`` is the
shard's view of the metadata image: topic name -> (topic id, partition count). A topic the image
no longer has is left out, as Kafka's helpers skip it.
"""

from __future__ import annotations

import uuid

from kafka.coordinator.group.group_coordinator_records import Assignment
from kafka.protocol.consumer_protocol import deserialize_version, serialize_assignment


def to_topic_partition_map(topic_partitions, topics: dict[str, tuple[uuid.UUID, int]]) -> Assignment:
    """ConsumerProtocol's [(topic, partitions)] as a consumer group's {topic id: partitions}."""
    out: dict[uuid.UUID, frozenset[int]] = {}
    for tp in topic_partitions or ():
        if tp.topic in topics and tp.partitions:
            topic_id = topics[tp.topic][0]
            out[topic_id] = out.get(topic_id, frozenset()) | frozenset(tp.partitions)
    return out


def to_consumer_protocol_assignment(assignment: Assignment, topics: dict[str, tuple[uuid.UUID, int]]) -> dict:
    """A consumer group's {topic id: partitions} as ConsumerProtocolAssignment's fields."""
    names = {topic_id: name for name, (topic_id, _) in topics.items()}
    return dict(assigned_partitions=[dict(topic=names[t], partitions=sorted(p))
                                     for t, p in sorted(assignment.items(), key=lambda kv: names.get(kv[0], ""))
                                     if t in names and p],
                user_data=None)


def serialize_assignment_for(assignment: Assignment, topics: dict[str, tuple[uuid.UUID, int]],
                             subscription_metadata: bytes) -> bytes:
    """The SyncGroup assignment of a classic member, in the ConsumerProtocol version it joined with."""
    return serialize_assignment(to_consumer_protocol_assignment(assignment, topics),
                                deserialize_version(subscription_metadata))
