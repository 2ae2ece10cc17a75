"""ShareCoordinatorRecordSerde: the records of __share_group_state byte for byte as Kafka 4.4's
ShareCoordinatorRecordSerde writes them (the hex below is what its jar wrote for the same records)."""

from __future__ import annotations

import uuid

import pytest

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.share.persister_state_batch import PersisterStateBatch as B
from kafka.coordinator.share.share_coordinator_record_serde import (
    ShareCoordinatorRecordSerde,
    UnknownRecordVersionError,
)
from kafka.coordinator.share.share_coordinator_records import (
    ShareSnapshotKey,
    ShareSnapshotValue,
    ShareUpdateKey,
    ShareUpdateValue,
)

pytestmark = pytest.mark.fast

TOPIC_ID = uuid.UUID(int=12345678901234567890)
SNAPSHOT_KEY = "00000001670000000000000000ab54a98ceb1f0ad200000003"
UPDATE_KEY = "00010001670000000000000000ab54a98ceb1f0ad200000003"

CASES = [
    (CoordinatorRecord(ShareSnapshotKey("g", TOPIC_ID, 3), ShareSnapshotValue(
        2, 1, 5, 100, 7, 1000, 2000, (B(100, 109, 0, 1), B(110, 110, 2, 3)))), SNAPSHOT_KEY,
     "0000000000020000000100000005000000000000006400000000000003e800000000000007d00300000000000000640000000000"
     "00006d00000100000000000000006e000000000000006e0200030001000400000007"),
    # no delivery complete count (-1): the tagged field is left out
    (CoordinatorRecord(ShareSnapshotKey("g", TOPIC_ID, 3), ShareSnapshotValue(0, 1, 0, -1, -1, 5, 5, ())),
     SNAPSHOT_KEY, "0000000000000000000100000000ffffffffffffffff000000000000000500000000000000050100"),
    (CoordinatorRecord(ShareUpdateKey("g", TOPIC_ID, 3),
                       ShareUpdateValue(2, 5, 105, -1, (B(105, 106, 4, 5),))),
     UPDATE_KEY, "000000000002000000050000000000000069020000000000000069000000000000006a0400050000"),
    (CoordinatorRecord(ShareUpdateKey("g", TOPIC_ID, 3), ShareUpdateValue(2, 5, 105, 3, ())),
     UPDATE_KEY, "0000000000020000000500000000000000690101000400000003"),
    (CoordinatorRecord(ShareSnapshotKey("g", TOPIC_ID, 3), None), SNAPSHOT_KEY, None),  # a tombstone
]


@pytest.mark.parametrize(("record", "key", "value"), CASES)
def test_the_bytes_are_kafkas_and_read_back(record, key, value):
    serde = ShareCoordinatorRecordSerde()
    assert serde.serialize_key(record).hex() == key
    written = serde.serialize_value(record)
    assert (written.hex() if written is not None else None) == value
    assert serde.deserialize(bytes.fromhex(key), None if value is None else bytes.fromhex(value)) == record


def test_a_record_type_this_coordinator_does_not_know_is_skipped():
    assert ShareCoordinatorRecordSerde().deserialize(bytes.fromhex("0002" + SNAPSHOT_KEY[4:]),
                                                     b"\x00\x00") is None


def test_a_value_version_it_cannot_read_is_refused():
    with pytest.raises(UnknownRecordVersionError):
        ShareCoordinatorRecordSerde().deserialize(bytes.fromhex(SNAPSHOT_KEY), bytes.fromhex("0001"))
