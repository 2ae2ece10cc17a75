"""The share group records of ``__consumer_offsets`` (key types 10-15) through the serde: the bytes are
the ones Apache Kafka 4.4's GroupCoordinatorRecordSerde writes for the same records (captured with
the kafka-group-coordinator 4.4.0 jar), and reading them gives the records back."""

from __future__ import annotations

import uuid

import pytest

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.group.group_coordinator_record_serde import GroupCoordinatorRecordSerde
from kafka.coordinator.group.group_coordinator_records import (
    ShareGroupCurrentMemberAssignmentKey,
    ShareGroupCurrentMemberAssignmentValue,
    ShareGroupMemberMetadataKey,
    ShareGroupMemberMetadataValue,
    ShareGroupMetadataKey,
    ShareGroupMetadataValue,
    ShareGroupStatePartitionMetadataKey,
    ShareGroupStatePartitionMetadataValue,
    ShareGroupTargetAssignmentMemberKey,
    ShareGroupTargetAssignmentMemberValue,
    ShareGroupTargetAssignmentMetadataKey,
    ShareGroupTargetAssignmentMetadataValue,
    TopicPartitionsInfo,
)

pytestmark = pytest.mark.fast

TOPIC = uuid.UUID(int=5)
serde = GroupCoordinatorRecordSerde()

KAFKA_4_4 = [  # (record, key bytes, value bytes) as Kafka 4.4 writes them
    (CoordinatorRecord(ShareGroupMetadataKey("g"), ShareGroupMetadataValue(3, -77)),
     "000b000167", "000000000003ffffffffffffffb300"),
    (CoordinatorRecord(ShareGroupMemberMetadataKey("g", "m"),
                       ShareGroupMemberMetadataValue(None, "c", "/h", ("a", "b"))),
     "000a00016700016d", "0000000263032f68030261026200"),
    (CoordinatorRecord(ShareGroupTargetAssignmentMetadataKey("g"),
                       ShareGroupTargetAssignmentMetadataValue(3, 1234)),
     "000c000167", "00000000000301000800000000000004d2"),  # the assignment time, a tagged field
    (CoordinatorRecord(ShareGroupTargetAssignmentMetadataKey("g"),
                       ShareGroupTargetAssignmentMetadataValue(3, 0)),
     "000c000167", "00000000000300"),  # ... left out at its default, 0
    (CoordinatorRecord(ShareGroupTargetAssignmentMemberKey("g", "m"),
                       ShareGroupTargetAssignmentMemberValue({TOPIC: frozenset({0, 1})})),
     "000d00016700016d", "000002000000000000000000000000000000050300000000000000010000"),
    (CoordinatorRecord(ShareGroupCurrentMemberAssignmentKey("g", "m"),
                       ShareGroupCurrentMemberAssignmentValue(3, 2, 0, {TOPIC: frozenset({0, 1})})),
     "000e00016700016d", "000000000003000000020002000000000000000000000000000000050300000000000000010000"),
    (CoordinatorRecord(ShareGroupStatePartitionMetadataKey("g"), ShareGroupStatePartitionMetadataValue(
        {TOPIC: TopicPartitionsInfo("x", frozenset({0}))}, {}, {TOPIC: "x"})),
     "000f000167",
     "00000200000000000000000000000000000005027802000000000001020000000000000000000000000000000502780000"),
    (CoordinatorRecord(ShareGroupMetadataKey("g"), None), "000b000167", None),
]


@pytest.mark.parametrize(("record", "key", "value"), KAFKA_4_4, ids=lambda v: type(v.key).__name__
                         if isinstance(v, CoordinatorRecord) else None)
def test_the_bytes_are_kafkas_and_read_back(record, key, value):
    assert serde.serialize_key(record).hex() == key
    written = serde.serialize_value(record)
    assert (written.hex() if written is not None else None) == value
    assert serde.deserialize(bytes.fromhex(key), None if value is None else bytes.fromhex(value)) == record
