"""GroupCoordinatorRecordSerde writes the old coordinator's bytes exactly (so a log written before
the move loads), reads them back to the same typed records, and skips key types it does not know.
The expected bytes are what the coordinator before the runtime wrote for the same records."""

from __future__ import annotations

import struct
import uuid

import pytest

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.group.group_coordinator_record_serde import GroupCoordinatorRecordSerde
from kafka.coordinator.group.group_coordinator_records import GroupMetadataKey, OffsetCommitKey
from kafka.coordinator.group.modern.consumer.consumer_group import ConsumerGroup
from kafka.coordinator.group.modern.consumer.consumer_group_member import ConsumerGroupMember, MemberState
from kafka.coordinator.group.offset_and_metadata import OffsetAndMetadata

pytestmark = pytest.mark.fast

serde = GroupCoordinatorRecordSerde()
T1, T2 = uuid.UUID(int=1), uuid.UUID(int=2)


def round_trip(record: CoordinatorRecord) -> CoordinatorRecord:
    return serde.deserialize(serde.serialize_key(record), serde.serialize_value(record))


# Kafka 4.4's bytes (its generated OffsetCommitValue, MessageUtil.toVersionPrefixedBytes): v4, flexible,
# the topic id a tagged field when known; v1 for a commit with an expiry of its own.
@pytest.mark.parametrize("offset, value_hex", [
    (OffsetAndMetadata(42, 3, "meta", 1_700_000_000_000),
     "0004000000000000002a00000003056d6574610000018bcfe5680000"),
    (OffsetAndMetadata(42, 3, "meta", 1_700_000_000_000, topic_id=T1),
     "0004000000000000002a00000003056d6574610000018bcfe5680001001000000000000000000000000000000001"),
    (OffsetAndMetadata(42, -1, "", 1_700_000_000_000, 1_700_000_060_000),
     "0001000000000000002a00000000018bcfe568000000018bcfe65260")])
def test_offset_commit_bytes_are_kafkas(offset, value_hex):
    record = CoordinatorRecord(OffsetCommitKey("g", "t", 7), offset)
    assert serde.serialize_key(record).hex() == "000100016700017400000007"
    assert serde.serialize_value(record).hex() == value_hex
    assert round_trip(record) == record


def test_an_offset_written_before_v4_still_reads():
    old = bytes.fromhex("0003000000000000002a0000000300046d6574610000018bcfe56800")  # Kafka 2.3-4.0's v3
    assert serde.read_offset_commit_value(old) == OffsetAndMetadata(42, 3, "meta", 1_700_000_000_000)


def test_group_metadata_bytes_are_the_old_ones():
    value = dict(protocol_type="consumer", generation=3, protocol="range", leader="m1",
                 current_state_timestamp=5,
                 members=[dict(member_id="m1", group_instance_id=None, client_id="c", client_host="/h",
                               rebalance_timeout=300, session_timeout=100, subscription=b"s",
                               assignment=b"a")])
    record = CoordinatorRecord(GroupMetadataKey("g"), value)
    assert serde.serialize_key(record).hex() == "0002000167"
    assert serde.serialize_value(record).hex() == (
        "00030008636f6e73756d657200000003000572616e676500026d3100000000000000050000000100026d31ffff00016300022f68"
        "0000012c0000006400000001730000000161")
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
    written = {serde.serialize_key(r).hex(): serde.serialize_value(r).hex() for r in group.to_records()}
    assert written == {
        "0003000167": "00000000000500",
        "0006000167": "00000000000400",
        "000500016700026d31": "00000269000263032f68030261026204782e2a0000012c0672616e676500",
        # each TopicPartitions ends with Kafka 4.4's tagged AssignmentEpochs (KIP-1251): 01 00 <size>
        # <epochs>; the state after the two epochs is Kafka 4.4's byte for UNREVOKED_PARTITIONS, 01
        # (ours was 02)
        "000800016700026d31": ("000000000004000000030102000000000000000000000000000000010300000000000000"
                               "020100090300000004000000040200000000000000000000000000000002020000000101"
                               "0005020000000400"),
        "000700016700026d31": "00000200000000000000000000000000000001040000000000000001000000020000"}
    for record in group.to_records() + group.create_group_tombstone_records():
        assert round_trip(record) == record


def test_an_unknown_key_type_is_skipped():
    assert serde.deserialize(struct.pack(">h", 4) + b"\x00\x01g", b"\x00\x00") is None  # partition metadata
    # KIP-932's early ShareGroupPartitionMetadata
    assert serde.deserialize(struct.pack(">h", 9) + b"\x00\x01g", None) is None
    assert serde.deserialize(struct.pack(">h", 18) + b"\x00\x01g", None) is None  # unused by Kafka 4.4
