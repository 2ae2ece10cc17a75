"""FeatureControlManager: the feature levels a new cluster starts at (metadata.version, and share.version 1,
which turns share groups on), a level `kafka-storage format --feature` put in bootstrap.checkpoint in place
of a default, and the ranges a broker registers with."""

from __future__ import annotations

from kafka.controller.feature_control_manager import (
    MAX_METADATA_VERSION,
    FeatureControlManager,
    supported_feature_ranges,
)
from kafka.protocol.metadata_records import MetadataRecordType, record


def levels(records) -> list[tuple[str, int]]:
    return [(r.data.name, r.data.feature_level) for r in records
            if r.type == MetadataRecordType.FEATURE_LEVEL_RECORD]


def test_a_new_cluster_starts_with_share_groups_and_eligible_leader_replicas_on():
    assert levels(FeatureControlManager().bootstrap_records()) == [
        ("metadata.version", MAX_METADATA_VERSION), ("share.version", 1),
        ("eligible.leader.replicas.version", 1), ("transaction.version", 2)]


def test_a_level_from_bootstrap_checkpoint_replaces_the_default_and_level_0_writes_no_record():
    scram = record(MetadataRecordType.USER_SCRAM_CREDENTIAL_RECORD, name="alice", mechanism=2, salt=b"s",
                   stored_key=b"k", server_key=b"v", iterations=4096)
    share_off = record(MetadataRecordType.FEATURE_LEVEL_RECORD, name="share.version", feature_level=0)
    records = FeatureControlManager().bootstrap_records([share_off, scram])
    assert levels(records) == [("metadata.version", MAX_METADATA_VERSION),
                               ("eligible.leader.replicas.version", 1), ("transaction.version", 2)]
    assert records[-1] is scram, "the other bootstrap records follow the features"


def test_replaying_level_0_unfinalizes_a_feature():
    features = FeatureControlManager()
    for level in (1, 0):
        features.replay_feature_level(record(MetadataRecordType.FEATURE_LEVEL_RECORD, name="share.version",
                                             feature_level=level).data)
    assert features.finalized == {}


def test_a_broker_registers_metadata_version_and_share_version():
    assert {f["name"]: (f["min_supported_version"], f["max_supported_version"])
            for f in supported_feature_ranges()} == {"metadata.version": (1, MAX_METADATA_VERSION),
                                                     "share.version": (0, 1),
                                                     "eligible.leader.replicas.version": (0, 1),
                                                     "transaction.version": (0, 2)}
