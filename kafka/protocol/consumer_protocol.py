"""ConsumerProtocol: what consumers put in JoinGroup metadata and SyncGroup assignments.

Mirrors ``org.apache.kafka.clients.consumer.internals.ConsumerProtocol`` and
``common/message/ConsumerProtocolSubscription.json`` / ``ConsumerProtocolAssignment.json``
(versions 0-3, never flexible). The broker treats both as opaque bytes; it looks inside only to
learn which topics a group is subscribed to (offset retention, OffsetDelete) and tools look inside
to show who owns which partition. Each blob is an int16 version followed by the struct; a newer
version than we know is read as the newest we know, as the Java client does.
"""

from __future__ import annotations

import struct

from kafka.protocol.schema import Array, Field, Record, Schema
from kafka.protocol.types import ByteReader, Bytes, Int32, String

PROTOCOL_TYPE = "consumer"
HIGHEST_VERSION = 3

TOPIC_PARTITION = Schema(
    "TopicPartition",
    Field("topic", String, "0+"),
    Field("partitions", Array(Int32), "0+"),
)

CONSUMER_PROTOCOL_SUBSCRIPTION = Schema(
    "ConsumerProtocolSubscription",
    Field("topics", Array(String), "0+"),
    Field("user_data", Bytes, "0+", nullable_versions="0+", default=None),
    Field("owned_partitions", Array(TOPIC_PARTITION), "1+", ignorable=True),
    Field("generation_id", Int32, "2+", default=-1, ignorable=True),
    Field("rack_id", String, "3+", nullable_versions="3+", default=None, ignorable=True),
)

CONSUMER_PROTOCOL_ASSIGNMENT = Schema(
    "ConsumerProtocolAssignment",
    Field("assigned_partitions", Array(TOPIC_PARTITION), "0+"),
    Field("user_data", Bytes, "0+", nullable_versions="0+", default=None),
)

_VERSION = struct.Struct(">h")


def _read(schema: Schema, data: bytes | memoryview) -> Record:
    version = _VERSION.unpack_from(data, 0)[0]
    if version < 0:
        raise ValueError(f"{schema.name}: negative version {version}")
    return schema.read(ByteReader(data, _VERSION.size), min(version, HIGHEST_VERSION), False)


def _write(schema: Schema, version: int, rec: Record | dict) -> bytes:
    out = bytearray(_VERSION.pack(version))
    schema.write(out, rec, version, False)
    return bytes(out)


def deserialize_subscription(data: bytes | memoryview) -> Record:
    return _read(CONSUMER_PROTOCOL_SUBSCRIPTION, data)


def serialize_subscription(rec: Record | dict, version: int = HIGHEST_VERSION) -> bytes:
    return _write(CONSUMER_PROTOCOL_SUBSCRIPTION, version, rec)


def deserialize_assignment(data: bytes | memoryview) -> Record:
    return _read(CONSUMER_PROTOCOL_ASSIGNMENT, data)


def serialize_assignment(rec: Record | dict, version: int = HIGHEST_VERSION) -> bytes:
    return _write(CONSUMER_PROTOCOL_ASSIGNMENT, version, rec)


def deserialize_version(data: bytes | memoryview) -> int:
    """The version a blob was written in, at most the newest we know (Kafka's deserializeVersion and
    checkVersionCompatibility): an assignment is answered in the version the member subscribed with."""
    version = _VERSION.unpack_from(data, 0)[0]
    if version < 0:
        raise ValueError(f"ConsumerProtocol: negative version {version}")
    return min(version, HIGHEST_VERSION)
