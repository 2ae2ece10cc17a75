"""ShareCoordinatorRecordSerde: the records of ``__share_group_state`` to bytes and back (Kafka's
org.apache.kafka.coordinator.share.ShareCoordinatorRecordSerde, a CoordinatorRecordSerde).

A key is its int16 record type, then the key at version 0; a value is its int16 version, then the
value at that version (flexible). deserialize reads the record type first, so it knows what follows;
a record type this coordinator does not know reads as None and the loader skips it, as Kafka skips it.
tests/coordinator/share/test_share_coordinator_record_serde.py compares the bytes with Kafka 4.4's.
"""

from __future__ import annotations

import struct

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.share.persister_state_batch import PersisterStateBatch
from kafka.coordinator.share.share_coordinator_records import (
    KEY_CLASSES,
    KEY_VERSION,
    SHARE_PARTITION_KEY,
    SHARE_SNAPSHOT,
    VALUE_SCHEMAS,
    VALUE_VERSION,
    ShareSnapshotValue,
    ShareUpdateValue,
)
from kafka.protocol.types import ByteReader

_INT16 = struct.Struct(">h")


class UnknownRecordVersionError(ValueError):
    """A value version this coordinator cannot read (Kafka's UnknownRecordVersionException)."""


class ShareCoordinatorRecordSerde:
    # ------------------------------------------------------------------ serialize
    def serialize_key(self, record: CoordinatorRecord) -> bytes:
        key = record.key
        out = bytearray(_INT16.pack(key.record_type))
        SHARE_PARTITION_KEY.write(out,
                                  dict(group_id=key.group_id, topic_id=key.topic_id, partition=key.partition),
                                  KEY_VERSION, False)
        return bytes(out)

    def serialize_value(self, record: CoordinatorRecord) -> bytes | None:
        value = record.value
        if value is None:
            return None
        fields = dict(value.__dict__)
        fields["state_batches"] = [batch.to_fields() for batch in value.state_batches]
        out = bytearray(_INT16.pack(VALUE_VERSION))
        VALUE_SCHEMAS[record.key.record_type].write(out, fields, VALUE_VERSION, True)
        return bytes(out)

    # ------------------------------------------------------------------ deserialize
    def deserialize(self, key: bytes, value: bytes | None) -> CoordinatorRecord | None:
        record_type = _INT16.unpack_from(key, 0)[0]
        key_class = KEY_CLASSES.get(record_type)
        if key_class is None:
            return None
        k = SHARE_PARTITION_KEY.read(ByteReader(key, _INT16.size), KEY_VERSION, False)
        record_key = key_class(k.group_id, k.topic_id, k.partition)
        if value is None:
            return CoordinatorRecord(record_key, None)
        version = _INT16.unpack_from(value, 0)[0]
        if version != VALUE_VERSION:
            raise UnknownRecordVersionError(f"record type {record_type} has no value version {version}")
        v = VALUE_SCHEMAS[record_type].read(ByteReader(value, _INT16.size), version, True)
        batches = tuple(PersisterStateBatch.from_record(b) for b in v.state_batches)
        if record_type == SHARE_SNAPSHOT:
            return CoordinatorRecord(record_key, ShareSnapshotValue(
                v.snapshot_epoch, v.state_epoch, v.leader_epoch, v.start_offset, v.delivery_complete_count,
                v.create_timestamp, v.write_timestamp, batches))
        return CoordinatorRecord(record_key, ShareUpdateValue(
            v.snapshot_epoch, v.leader_epoch, v.start_offset, v.delivery_complete_count, batches))
