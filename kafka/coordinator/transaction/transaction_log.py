"""TransactionLog: the records of ``__transaction_state`` (Kafka's
kafka.coordinator.transaction.TransactionLog, TransactionLogKey.json and TransactionLogValue.json).

Seed 000: the coordinators append through ReplicaManager; this is what they append. One record per
change of a transactional id, keyed by the id, so compaction keeps the latest state of each and a
new coordinator rebuilds its cache by replaying the partition:

    key   version 0: transactional_id
    value version 0 (or the flexible 1): producer_id, producer_epoch, transaction_timeout_ms,
          transaction_status (TransactionState.id), transaction_partitions [topic, [partition ids]]
          (null when Empty), transaction_last_update_timestamp_ms, transaction_start_timestamp_ms
    value version 1 adds tagged fields: previous_producer_id (0), next_producer_id (1, the id a TV_2
          commit or abort that exhausted the epoch moves to), client_transaction_version (2) and
          next_producer_epoch (3, Kafka's two-phase commit; read, never written here)
    a null value: a tombstone (the id expired)

Both start with an int16 version, like every coordinator record. As Kafka, the version written follows
the cluster's finalized transaction.version (TransactionVersion.transactionLogValueVersion): 0 at
TV_0, 1 from TV_1; both are read.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from kafka.coordinator.transaction.transaction_metadata import (
    NO_PRODUCER_EPOCH,
    TransactionMetadata,
    TxnTransitMetadata,
)
from kafka.coordinator.transaction.transaction_state import TransactionState
from kafka.coordinator.transaction.transaction_version import TV_0, transaction_log_value_version
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import ByteReader, Int8, Int16, Int32, Int64, String
from kafka.utils.topic_partition import TopicPartition

TRANSACTION_STATE_TOPIC_NAME = "__transaction_state"
ENFORCED_REQUIRED_ACKS = -1  # a transaction's state counts only once every in-sync replica has it

TRANSACTION_LOG_KEY = Schema(
    "TransactionLogKey",
    Field("transactional_id", String, "0"),
)

PARTITIONS_SCHEMA = Schema(
    "PartitionsSchema",
    Field("topic", String, "0+"),
    Field("partition_ids", Array(Int32), "0+"),
)

TRANSACTION_LOG_VALUE = Schema(
    "TransactionLogValue",
    Field("producer_id", Int64, "0+"),
    Field("previous_producer_id", Int64, "1+", default=-1, tagged_versions="1+", tag=0),
    Field("next_producer_id", Int64, "1+", default=-1, tagged_versions="1+", tag=1),
    Field("producer_epoch", Int16, "0+"),
    Field("transaction_timeout_ms", Int32, "0+"),
    Field("transaction_status", Int8, "0+"),
    Field("transaction_partitions", Array(PARTITIONS_SCHEMA), "0+", nullable_versions="0+"),
    Field("transaction_last_update_timestamp_ms", Int64, "0+"),
    Field("transaction_start_timestamp_ms", Int64, "0+"),
    Field("client_transaction_version", Int16, "1+", default=0, tagged_versions="1+", tag=2),
    Field("next_producer_epoch", Int16, "1+", default=-1, tagged_versions="1+", tag=3),
)

KEY_VERSION = 0
_VERSION = struct.Struct(">h")


def key_to_bytes(transactional_id: str) -> bytes:
    out = bytearray(_VERSION.pack(KEY_VERSION))
    TRANSACTION_LOG_KEY.write(out, dict(transactional_id=transactional_id), KEY_VERSION, False)
    return bytes(out)


def value_to_bytes(transit: TxnTransitMetadata, transaction_version_level: int = TV_0) -> bytes:
    """Kafka's TransactionLog.valueToBytes: the version follows the cluster's transaction.version; the
    producer ids around this one are written from version 1 on."""
    if transit.txn_state == TransactionState.EMPTY and transit.topic_partitions:
        raise ValueError(f"an Empty transaction has no partitions: {transit}")
    partitions = None
    if transit.txn_state != TransactionState.EMPTY:
        by_topic: dict[str, list[int]] = {}
        for tp in sorted(transit.topic_partitions):
            by_topic.setdefault(tp.topic, []).append(tp.partition)
        partitions = [dict(topic=t, partition_ids=ids) for t, ids in by_topic.items()]
    version = transaction_log_value_version(transaction_version_level)
    out = bytearray(_VERSION.pack(version))
    TRANSACTION_LOG_VALUE.write(out, dict(
        producer_id=transit.producer_id, producer_epoch=transit.producer_epoch,
        previous_producer_id=transit.last_producer_id if version >= 1 else -1,
        next_producer_id=transit.next_producer_id if version >= 1 else -1,
        transaction_timeout_ms=transit.txn_timeout_ms, transaction_status=transit.txn_state.id,
        transaction_partitions=partitions,
        transaction_last_update_timestamp_ms=transit.txn_last_update_timestamp,
        transaction_start_timestamp_ms=transit.txn_start_timestamp,
        client_transaction_version=transit.client_transaction_version), version, version >= 1)
    return bytes(out)


@dataclass(frozen=True)
class TxnKey:
    version: int
    transactional_id: str


def read_txn_record_key(data: bytes | memoryview) -> TxnKey | None:
    """The key's transactional id; None for a key version we do not know (skipped, as Kafka does)."""
    version = _VERSION.unpack_from(data, 0)[0]
    if version != 0:
        return None
    key = TRANSACTION_LOG_KEY.read(ByteReader(data, _VERSION.size), version, False)
    return TxnKey(version, key.transactional_id)


def read_txn_record_value(transactional_id: str,
                          data: bytes | memoryview | None) -> TransactionMetadata | None:
    """The metadata a value holds; None for a tombstone."""
    if data is None:
        return None
    version = _VERSION.unpack_from(data, 0)[0]
    if version not in (0, 1):
        raise ValueError(f"unknown version {version} of a transaction log value")
    value = TRANSACTION_LOG_VALUE.read(ByteReader(data, _VERSION.size), version, version >= 1)
    state = TransactionState.from_id(value.transaction_status)
    metadata = TransactionMetadata(
        transactional_id, value.producer_id, value.previous_producer_id, value.producer_epoch,
        NO_PRODUCER_EPOCH,
        value.transaction_timeout_ms, state, txn_start_timestamp=value.transaction_start_timestamp_ms,
        txn_last_update_timestamp=value.transaction_last_update_timestamp_ms,
        next_producer_id=value.next_producer_id, client_transaction_version=value.client_transaction_version)
    if state != TransactionState.EMPTY:
        for p in value.transaction_partitions or []:
            metadata.add_partitions(TopicPartition(p.topic, i) for i in p.partition_ids)
    return metadata
