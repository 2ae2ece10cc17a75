"""The records of ``__share_group_state`` (Kafka's share-coordinator/src/main/resources/common/message/
ShareSnapshotKey.json, ShareSnapshotValue.json, ShareUpdateKey.json, ShareUpdateValue.json, and the
CoordinatorRecordType they generate).

Every record's key starts with an int16, its record type; both keys then hold the share partition
(group id, topic id, partition), written at version 0 (not flexible). Values start with their own
int16 version (0, flexible):

    0  ShareSnapshotKey -> ShareSnapshotValue   the whole state: snapshot, state and leader epochs,
                                                start offset, every in-flight batch, create and write
                                                timestamps. A tombstone (no value) deletes the state.
    1  ShareUpdateKey   -> ShareUpdateValue     what one write changed: the snapshot epoch it applies
                                                to, leader epoch, start offset, the batches it brought

A snapshot replaces the state; an update is merged over it (PersisterStateBatchCombiner). Both values
carry KIP-1226's delivery complete count as tagged field 0, sent only when it is not -1.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from kafka.coordinator.share.persister_state_batch import PersisterStateBatch
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int8, Int16, Int32, Int64, String, Uuid

# Kafka's generated CoordinatorRecordType: the record type is the key's int16 prefix.
SHARE_SNAPSHOT = 0
SHARE_UPDATE = 1
KEY_VERSION = 0  # what follows the record type is the key at version 0
VALUE_VERSION = 0
UNINITIALIZED_DELIVERY_COMPLETE_COUNT = -1

SHARE_PARTITION_KEY = Schema(  # ShareSnapshotKey and ShareUpdateKey have the same fields
    "SharePartitionKey",
    Field("group_id", String, "0"),
    Field("topic_id", Uuid, "0"),
    Field("partition", Int32, "0"),
)

STATE_BATCH = Schema(
    "StateBatch",
    Field("first_offset", Int64, "0"),
    Field("last_offset", Int64, "0"),
    Field("delivery_state", Int8, "0"),
    Field("delivery_count", Int16, "0"),
)

SHARE_SNAPSHOT_VALUE = Schema(
    "ShareSnapshotValue",
    Field("snapshot_epoch", Int32, "0"),
    Field("state_epoch", Int32, "0"),
    Field("leader_epoch", Int32, "0"),
    Field("start_offset", Int64, "0"),
    Field("delivery_complete_count", Int32, "0+", tagged_versions="0+", tag=0,
          default=UNINITIALIZED_DELIVERY_COMPLETE_COUNT),
    Field("create_timestamp", Int64, "0"),
    Field("write_timestamp", Int64, "0"),
    Field("state_batches", Array(STATE_BATCH), "0"),
)

SHARE_UPDATE_VALUE = Schema(
    "ShareUpdateValue",
    Field("snapshot_epoch", Int32, "0"),
    Field("leader_epoch", Int32, "0"),
    Field("start_offset", Int64, "0"),
    Field("delivery_complete_count", Int32, "0+", tagged_versions="0+", tag=0,
          default=UNINITIALIZED_DELIVERY_COMPLETE_COUNT),
    Field("state_batches", Array(STATE_BATCH), "0"),
)


@dataclass(frozen=True)
class ShareSnapshotKey:
    group_id: str
    topic_id: uuid.UUID
    partition: int
    record_type = SHARE_SNAPSHOT


@dataclass(frozen=True)
class ShareUpdateKey:
    group_id: str
    topic_id: uuid.UUID
    partition: int
    record_type = SHARE_UPDATE


@dataclass(frozen=True)
class ShareSnapshotValue:
    snapshot_epoch: int
    state_epoch: int
    leader_epoch: int
    start_offset: int
    delivery_complete_count: int
    create_timestamp: int
    write_timestamp: int
    state_batches: tuple[PersisterStateBatch, ...]


@dataclass(frozen=True)
class ShareUpdateValue:
    snapshot_epoch: int
    leader_epoch: int
    start_offset: int
    delivery_complete_count: int
    state_batches: tuple[PersisterStateBatch, ...]


KEY_CLASSES = {SHARE_SNAPSHOT: ShareSnapshotKey, SHARE_UPDATE: ShareUpdateKey}
VALUE_SCHEMAS = {SHARE_SNAPSHOT: SHARE_SNAPSHOT_VALUE, SHARE_UPDATE: SHARE_UPDATE_VALUE}
