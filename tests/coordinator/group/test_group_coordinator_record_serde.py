"""GroupCoordinatorRecordSerde writes the old coordinator's bytes exactly (so a log written before
the move loads), reads them back to the same typed records, and skips key types it does not know."""

from __future__ import annotations

import struct
import uuid

import pytest

from kafka.coordinator import consumer_group_records as old_consumer
from kafka.coordinator import coordinator_records as old
from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.consumer_group import ConsumerGroup as OldConsumerGroup
from kafka.coordinator.consumer_group_member import ConsumerGroupMember as OldMember
from kafka.coordinator.consumer_group_member import MemberState as OldMemberState
from kafka.coordinator.group.group_coordinator_record_serde import GroupCoordinatorRecordSerde
from kafka.coordinator.group.group_coordinator_records import GroupMetadataKey, OffsetCommitKey
from kafka.coordinator.group.modern.consumer.consumer_group import ConsumerGroup
from kafka.coordinator.group.modern.consumer.consumer_group_member import ConsumerGroupMember, MemberState
from kafka.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka.coordinator.offset_and_metadata import OffsetAndMetadata as OldOffsetAndMetadata

pytestmark = pytest.mark.fast

serde = GroupCoordinatorRecordSerde()
T1, T2 = uuid.UUID(int=1), uuid.UUID(int=2)


def round_trip(record: CoordinatorRecord) -> CoordinatorRecord:
    return serde.deserialize(serde.serialize_key(record), serde.serialize_value(record))


@pytest.mark.parametrize("offset", [OffsetAndMetadata(42, 3, "meta", 1_700_000_000_000),
                                    OffsetAndMetadata(42, -1, "", 1_700_000_000_000, 1_700_000_060_000)])
def test_offset_commit_bytes_are_the_old_ones(offset):
    record = CoordinatorRecord(OffsetCommitKey("g", "t", 7), offset)
    assert serde.serialize_key(record) == old.offset_commit_key("g", "t", 7)
    old_offset = OldOffsetAndMetadata(offset.offset, offset.leader_epoch, offset.metadata, offset.commit_timestamp_ms,
                                      offset.expire_timestamp_ms)
    assert serde.serialize_value(record) == old.offset_commit_value(old_offset)
    assert round_trip(record) == record


def test_group_metadata_bytes_are_the_old_ones():
    value = dict(protocol_type="consumer", generation=3, protocol="range", leader="m1", current_state_timestamp=5,
                 members=[dict(member_id="m1", group_instance_id=None, client_id="c", client_host="/h",
                               rebalance_timeout=300, session_timeout=100, subscription=b"s", assignment=b"a")])
    record = CoordinatorRecord(GroupMetadataKey("g"), value)
    assert serde.serialize_key(record) == old.group_metadata_key("g")
    assert serde.serialize_value(record) == old.group_metadata_value(value)
    back = round_trip(record)
    assert back.key == record.key and back.value.members[0].member_id == "m1" and back.value.generation == 3
    assert serde.serialize_value(back) == serde.serialize_value(record), "a Record read back writes the same"


def test_tombstones():
    for key in (OffsetCommitKey("g", "t", 0), GroupMetadataKey("g")):
        record = CoordinatorRecord(key, None)
        assert serde.serialize_value(record) is None and round_trip(record) == record


def test_consumer_group_records_are_the_old_bytes():
    """The same group built both ways writes the same record bytes, key by key."""
    member = ConsumerGroupMember("m1", member_epoch=4, previous_member_epoch=3,
                                 state=MemberState.UNREVOKED_PARTITIONS, instance_id="i", rack_id=None,
                                 rebalance_timeout_ms=300, client_id="c", client_host="/h",
                                 subscribed_topic_names=("a", "b"), subscribed_topic_regex="x.*",
                                 server_assignor_name="range", assigned_partitions={T1: frozenset({2, 0})},
                                 partitions_pending_revocation={T2: frozenset({1})})
    group = ConsumerGroup("g")
    group.group_epoch, group.assignment_epoch = 5, 4
    group.update_member(member)
    group.target_assignment = {"m1": {T1: frozenset({0, 1, 2})}}
    old_group = OldConsumerGroup("g")
    old_group.group_epoch, old_group.assignment_epoch = 5, 4
    old_group.update_member(OldMember(**{**vars(member), "state": OldMemberState.UNREVOKED_PARTITIONS}))
    old_group.target_assignment = dict(group.target_assignment)
    written = {serde.serialize_key(r): serde.serialize_value(r) for r in group.to_records()}
    expected = {old_consumer.encode_key(k): v for k, v in old_consumer.group_records(old_group).items()}
    assert written == expected
    for record in group.to_records() + group.create_group_tombstone_records():
        assert round_trip(record) == record


def test_an_unknown_key_type_is_skipped():
    assert serde.deserialize(struct.pack(">h", 4) + b"\x00\x01g", b"\x00\x00") is None  # partition metadata
    assert serde.deserialize(struct.pack(">h", 11) + b"\x00\x01g", None) is None  # a share group's
