"""The streams group records of ``__consumer_offsets`` (key types 17 and 19-23) through the serde: the
bytes are the ones Apache Kafka 4.4's GroupCoordinatorRecordSerde writes for the same records (written
here, then read by the kafka-group-coordinator 4.4.0 jar and written back by it unchanged, byte for
byte), and reading them gives the records back. A coordinator failover from one broker to the other
reads the same groups."""

from __future__ import annotations

import pytest

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.group.group_coordinator_record_serde import GroupCoordinatorRecordSerde
from kafka.coordinator.group.streams.streams_group_records import (
    CopartitionGroup,
    StreamsGroupCurrentMemberAssignmentKey,
    StreamsGroupCurrentMemberAssignmentValue,
    StreamsGroupMemberMetadataKey,
    StreamsGroupMemberMetadataValue,
    StreamsGroupMetadataKey,
    StreamsGroupMetadataValue,
    StreamsGroupTargetAssignmentMemberKey,
    StreamsGroupTargetAssignmentMemberValue,
    StreamsGroupTargetAssignmentMetadataKey,
    StreamsGroupTargetAssignmentMetadataValue,
    StreamsGroupTopologyKey,
    StreamsGroupTopologyValue,
    Subtopology,
    TopicInfo,
)
from kafka.coordinator.group.streams.tasks_tuple import TasksTuple
from kafka.coordinator.group.streams.tasks_tuple_with_epochs import TasksTupleWithEpochs

pytestmark = pytest.mark.fast

serde = GroupCoordinatorRecordSerde()
REPARTITION, CHANGELOG = "app-counts-repartition", "app-counts-changelog"
COMPACT = (("cleanup.policy", "compact"),)
WORD_COUNT = StreamsGroupTopologyValue(1, (
    Subtopology("0", source_topics=("words",), repartition_sink_topics=(REPARTITION,)),
    Subtopology("1", state_changelog_topics=(TopicInfo(CHANGELOG, topic_configs=COMPACT),),
                repartition_source_topics=(TopicInfo(REPARTITION),),
                copartition_groups=(CopartitionGroup(repartition_source_topics=(0,)),))))
HASH = 6933104595273312316
TARGET = TasksTuple({"0": frozenset({0, 1}), "1": frozenset({0, 1})}, {"1": frozenset({2, 3})}, {})
OWNED = TasksTupleWithEpochs({"0": {0: 2, 1: 2}, "1": {0: 2, 1: 2}}, {"1": frozenset({2, 3})}, {})
REVOKING = TasksTupleWithEpochs({"0": {2: 2, 3: 2}, "1": {2: 2, 3: 2}}, {}, {})

KAFKA_4_4 = [  # (record, key bytes, value bytes) as Kafka 4.4 writes them
    (CoordinatorRecord(StreamsGroupMemberMetadataKey("app", "a"), StreamsGroupMemberMetadataValue(
        "i-1", "r1", "client", "/10.0.0.1", 60000, 1, "process-a", ("h", 9), (("az", "2"), ("z", "1")))),
     "00130003617070000161",  # a static member: rack, endpoint, client tags sorted by key
     "000004692d3103723107636c69656e740a2f31302e302e302e310000ea60000000010a70726f636573732d6101026800"
     "09000303617a023200027a02310000"),
    (CoordinatorRecord(StreamsGroupMemberMetadataKey("app", "b"), StreamsGroupMemberMetadataValue(
        None, None, "client", "/10.0.0.1", 60000, 1, "process-b", None, ())),
     "00130003617070000162",  # neither instance id, rack nor endpoint
     "0000000007636c69656e740a2f31302e302e302e310000ea60000000010a70726f636573732d62ff0100"),
    (CoordinatorRecord(StreamsGroupTopologyKey("app"), WORD_COUNT),
     "00170003617070",  # a changelog's configs, a co-partition group
     "0000000000010302300206776f726473010102176170702d636f756e74732d7265706172746974696f6e010100023101"
     "0102156170702d636f756e74732d6368616e67656c6f67000000000000020f636c65616e75702e706f6c69637908636f"
     "6d7061637400000102176170702d636f756e74732d7265706172746974696f6e00000000000001000201010200000000"
     "00"),
    (CoordinatorRecord(StreamsGroupMetadataKey("app"), StreamsGroupMetadataValue(
        2, HASH, 1, (("num.standby.replicas", "1"),))),
     "00110003617070",  # the group epoch, the hash of its topics, the last assignment configs
     "000000000002603755e56fe4e83c02000400000001011902156e756d2e7374616e6462792e7265706c69636173023100"),
    (CoordinatorRecord(StreamsGroupTargetAssignmentMemberKey("app", "a"),
                       StreamsGroupTargetAssignmentMemberValue(TARGET)),
     "00150003617070000161",  # active and standby tasks
     "000003023003000000000000000100023103000000000000000100020231030000000200000003000100"),
    (CoordinatorRecord(StreamsGroupTargetAssignmentMetadataKey("app"),
                       StreamsGroupTargetAssignmentMetadataValue(2, 1700000000000)),
     "00140003617070", "0000000000020100080000018bcfe56800"),  # the time, a tagged field
    (CoordinatorRecord(StreamsGroupTargetAssignmentMetadataKey("app"),
                       StreamsGroupTargetAssignmentMetadataValue(5, 0)),
     "00140003617070", "00000000000500"),  # the last member gone: no time
    (CoordinatorRecord(StreamsGroupCurrentMemberAssignmentKey("app", "a"),
                       StreamsGroupCurrentMemberAssignmentValue(2, 2, 2, OWNED, REVOKING)),
     "00160003617070000161",  # revoking: its tasks with the epochs they were assigned at
     "000000000002000000020203023003000000000000000101000903000000020000000202310300000000000000010100"
     "090300000002000000020202310300000002000000030001030230030000000200000003010009030000000200000002"
     "0231030000000200000003010009030000000200000002010100"),
    (CoordinatorRecord(StreamsGroupTopologyKey("app"), None), "00170003617070", None),
]


@pytest.mark.parametrize(("record", "key", "value"), KAFKA_4_4, ids=lambda v: type(v.key).__name__
                         if isinstance(v, CoordinatorRecord) else None)
def test_the_bytes_are_kafkas_and_read_back(record, key, value):
    assert serde.serialize_key(record).hex() == key
    written = serde.serialize_value(record)
    assert (written.hex() if written is not None else None) == value
    assert serde.deserialize(bytes.fromhex(key), None if value is None else bytes.fromhex(value)) == record
