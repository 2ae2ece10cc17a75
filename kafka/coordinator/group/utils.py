"""Utils: translations between the classic protocol's topic names and the consumer protocol's topic
ids (the helpers of Kafka's org.apache.kafka.coordinator.group.Utils that the group conversions and
the classic members of a consumer group use), and the metadata hash of a group's subscribed topics
(Utils.computeTopicHash and computeGroupHash, which a share group keeps in its ShareGroupMetadata).

A classic member speaks ConsumerProtocol: its subscription names topics, its assignment lists
(topic name, partitions). A consumer group keeps assignments by topic id. ``topics`` is the
shard's view of the metadata image: topic name -> (topic id, partition count). A topic the image
no longer has is left out, as Kafka's helpers skip it.
"""

from __future__ import annotations

import hashlib
import struct
import uuid
from collections.abc import Iterable

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
                                     for t, p in sorted(assignment.items(),
                                                        key=lambda kv: names.get(kv[0], ""))
                                     if t in names and p],
                user_data=None)


def serialize_assignment_for(assignment: Assignment, topics: dict[str, tuple[uuid.UUID, int]],
                             subscription_metadata: bytes) -> bytes:
    """The SyncGroup assignment of a classic member, in the ConsumerProtocol version it joined with."""
    return serialize_assignment(to_consumer_protocol_assignment(assignment, topics),
                                deserialize_version(subscription_metadata))


def compute_topic_hash(name: str, topics: dict[str, tuple[uuid.UUID, int]]) -> int:
    """A topic's hash: 0 for a topic that does not exist, else a hash of the bytes Kafka feeds its
    hasher (a magic byte 0, the topic id's two longs, the name, the partition count, each partition
    index; this broker knows no racks). Kafka hashes them with XXH3-64, which Python's standard library
    lacks: BLAKE2b-64 here. The values differ from Kafka's; what they are for, noticing that a subscribed
    topic was created, deleted or grew partitions, does not."""
    if name not in topics:
        return 0
    topic_id, partitions = topics[name]
    data = bytearray(b"\x00")
    data += struct.pack("<qq", *struct.unpack(">qq", topic_id.bytes))
    data += _java_string(name) + struct.pack("<i", partitions)
    for partition in range(partitions):
        data += struct.pack("<i", partition)
    return _hash64(data)


def compute_group_hash(topic_hashes: dict[str, int]) -> int:
    """Kafka's computeGroupHash: 0 for no topics, else a hash of the topics' hashes in name order."""
    if not topic_hashes:
        return 0
    return _hash64(b"".join(struct.pack("<q", topic_hashes[name]) for name in sorted(topic_hashes)))


def compute_metadata_hash(subscribed_topic_names: Iterable[str],
                          topics: dict[str, tuple[uuid.UUID, int]]) -> int:
    """Kafka's ModernGroup.computeMetadataHash: the group hash of the subscribed topics that exist."""
    return compute_group_hash({name: compute_topic_hash(name, topics) for name in subscribed_topic_names
                               if name in topics})


def _java_string(s: str) -> bytes:
    """As hash4j's putString writes a String: its UTF-16 chars, then its length."""
    chars = s.encode("utf-16-le")
    return chars + struct.pack("<i", len(chars) // 2)


def _hash64(data: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(bytes(data), digest_size=8).digest(), "little", signed=True)
