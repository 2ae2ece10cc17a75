"""FeatureControlManager: the levels a new cluster starts at (Kafka 4.4's defaults as far as this broker
builds them), a level `kafka-storage format --feature` put in bootstrap.checkpoint in place of a default,
the ranges a broker registers with, and UpdateFeatures: upgrades, safe and unsafe downgrades,
validate_only, the refusals in Kafka 4.4's words (a level outside a controller's or a registered broker's
range, a metadata.version downgrade that could lose metadata, a dependency), through a real QuorumController
on a mock clock whose standby replays the FeatureLevelRecords."""

from __future__ import annotations

import pytest

from kafka.controller.feature_control_manager import (
    DEFAULT_FEATURE_LEVELS,
    MAX_METADATA_VERSION,
    SUPPORTED_FEATURES,
    UPDATE_FAILED,
    FeatureControlManager,
    FeatureUpdate,
    supported_feature_ranges,
)
from kafka.image.feature import PRODUCTION_FEATURES, feature_from_name, validate_version
from kafka.image.metadata_version import LATEST_PRODUCTION, from_version_string, metadata_changed
from kafka.protocol.errors import Errors
from kafka.protocol.messages.update_features import SAFE_DOWNGRADE, UNSAFE_DOWNGRADE, UPGRADE
from kafka.protocol.metadata_records import MetadataRecordType, record
from kafka.protocol.schema import Record
from tests.controller.test_quorum_controller import Cluster, registration

# transaction.version is 0 until transactions v2 (KIP-890 part 2) is built, then 2: the tests read it here.
TV = DEFAULT_FEATURE_LEVELS["transaction.version"]


def with_tv(features: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The bootstrap's feature records: these, and transaction.version after metadata.version once above 0."""
    return [features[0], *([("transaction.version", TV)] if TV else []), *features[1:]]


def levels(records) -> list[tuple[str, int]]:
    return [(r.data.name, r.data.feature_level) for r in records
            if r.type == MetadataRecordType.FEATURE_LEVEL_RECORD]


def new_cluster_manager(**kwargs) -> FeatureControlManager:
    manager = FeatureControlManager(1, **kwargs)
    for r in manager.bootstrap_records():
        if r.type == MetadataRecordType.FEATURE_LEVEL_RECORD:  # not the ELR's min.insync.replicas record
            manager.replay_feature_level(r.data)
    return manager


def test_a_new_cluster_starts_at_kafkas_defaults_as_far_as_they_are_built():
    assert levels(FeatureControlManager().bootstrap_records()) == with_tv([
        ("metadata.version", MAX_METADATA_VERSION), ("group.version", 1),
        ("eligible.leader.replicas.version", 1), ("share.version", 2), ("streams.version", 1)])
    # Kafka 4.4 formats these higher: the behaviour of the levels above is not built (docs/features.md)
    kafka = {f.name: f.default_level(LATEST_PRODUCTION) for f in PRODUCTION_FEATURES}
    assert kafka == {"kraft.version": 1, "transaction.version": 2, "group.version": 1,
                     "eligible.leader.replicas.version": 1, "share.version": 2, "streams.version": 1}
    assert all(DEFAULT_FEATURE_LEVELS[name] == min(level, SUPPORTED_FEATURES[name][1])
               for name, level in kafka.items() if name != "kraft.version")


def test_a_level_from_bootstrap_checkpoint_replaces_the_default_and_level_0_writes_no_record():
    scram = record(MetadataRecordType.USER_SCRAM_CREDENTIAL_RECORD, name="alice", mechanism=2, salt=b"s",
                   stored_key=b"k", server_key=b"v", iterations=4096)
    share_off = record(MetadataRecordType.FEATURE_LEVEL_RECORD, name="share.version", feature_level=0)
    records = FeatureControlManager().bootstrap_records([share_off, scram])
    assert levels(records) == with_tv([("metadata.version", MAX_METADATA_VERSION), ("group.version", 1),
                                       ("eligible.leader.replicas.version", 1), ("streams.version", 1)])
    assert records[-1] is scram, "the other bootstrap records follow the features"


def test_replaying_level_0_unfinalizes_a_feature():
    features = FeatureControlManager()
    for level in (1, 0):
        features.replay_feature_level(record(MetadataRecordType.FEATURE_LEVEL_RECORD, name="share.version",
                                             feature_level=level).data)
    assert features.finalized == {}


def test_a_broker_registers_every_production_feature_with_its_range():
    assert {f["name"]: (f["min_supported_version"], f["max_supported_version"])
            for f in supported_feature_ranges()} == {
        "metadata.version": (7, MAX_METADATA_VERSION), "kraft.version": (0, 1),
        "transaction.version": (0, TV),
        "group.version": (0, 1), "eligible.leader.replicas.version": (0, 1), "share.version": (0, 2),
        "streams.version": (0, 1)}


def test_a_broker_that_cannot_run_a_finalized_level_cannot_register():
    manager = new_cluster_manager()
    ranges = supported_feature_ranges()
    assert manager.supports(ranges)
    assert not manager.supports([f if f["name"] != "share.version" else {**f, "max_supported_version": 0}
                                 for f in ranges])
    assert not manager.supports([f for f in ranges if f["name"] != "metadata.version"])


def test_an_upgrade_a_downgrade_and_validate_only():
    manager = new_cluster_manager()
    records, error, message = manager.update_features([FeatureUpdate("group.version", 0, SAFE_DOWNGRADE)],
                                                      False)
    assert (levels(records), error, message) == ([("group.version", 0)], Errors.NONE, None)
    for r in records:
        manager.replay_feature_level(r.data)
    assert "group.version" not in manager.finalized
    records, error, _ = manager.update_features([FeatureUpdate("group.version", 1, UPGRADE)], True)
    assert (records, error) == ([], Errors.NONE), "validate_only writes nothing"
    records, error, _ = manager.update_features([FeatureUpdate("group.version", 1, UPGRADE),
                                                  FeatureUpdate("share.version", 0, UNSAFE_DOWNGRADE)], False)
    assert (levels(records), error) == ([("group.version", 1), ("share.version", 0)], Errors.NONE)


@pytest.mark.parametrize("update, message", [
    (FeatureUpdate("group.version", 0, UPGRADE),
     "Invalid update version 0 for feature group.version. Can't downgrade the version of this feature "
     "without "
     "setting the upgrade type to either safe or unsafe downgrade."),
    (FeatureUpdate("share.version", 1, 4),
     "Invalid update version 1 for feature share.version. The controller does not support the given upgrade "
     "type."),
    (FeatureUpdate("group.version", -1, SAFE_DOWNGRADE),
     "Invalid update version -1 for feature group.version. A feature version cannot be less than 0."),
    (FeatureUpdate("metadata.version", 34, UPGRADE),  # 4.5-IV0: not production-ready in Kafka 4.4
     "Invalid update version 34 for feature metadata.version. Local controller 1 only supports "
     "versions 7-33"),
    (FeatureUpdate("streams.version", 2, UPGRADE),
     "Invalid update version 2 for feature streams.version. Local controller 1 only supports versions 0-1"),
    (FeatureUpdate("no.such.version", 1, UPGRADE),
     "Invalid update version 1 for feature no.such.version. Local controller 1 does not support this "
     "feature."),
    (FeatureUpdate("kraft.version", 0, SAFE_DOWNGRADE), None),  # the level it is at: nothing to do
    (FeatureUpdate("kraft.version", 1, UPGRADE),
     "Invalid update version 1 for feature kraft.version. Upgrading kraft.version at run time is not built "
     "here; format a dynamic quorum with kafka-storage --standalone."),
    (FeatureUpdate("share.version", 3, SAFE_DOWNGRADE),
     "Invalid update version 3 for feature share.version. Local controller 1 only supports versions 0-2"),
    (FeatureUpdate("group.version", 1, SAFE_DOWNGRADE), None),  # the same level, whatever the type
    (FeatureUpdate("metadata.version", 22, SAFE_DOWNGRADE),
     "Unsupported metadata.version downgrade from 33 to 22. Refusing to perform the requested downgrade "
     "because it might delete metadata information."),
    (FeatureUpdate("metadata.version", 22, UNSAFE_DOWNGRADE),
     "Unsupported metadata.version downgrade from 33 to 22. Unsafe metadata downgrade is not supported in "
     "this version."),
    (FeatureUpdate("metadata.version", 32, SAFE_DOWNGRADE),  # 4.4-IV2 brought UnregisterControllerRecord
     "Unsupported metadata.version downgrade from 33 to 32. Refusing to perform the requested downgrade "
     "because it might delete metadata information."),
])
def test_refusals_in_kafkas_words(update, message):
    records, error, refusal = new_cluster_manager().update_features([update], True)
    assert (error, refusal) == ((Errors.NONE, None) if message is None else
                                (Errors.INVALID_UPDATE_VERSION, message))
    assert records == []


def test_a_registered_broker_that_cannot_run_the_level_refuses_it():
    manager = new_cluster_manager(brokers_supported=lambda: {3: {"group.version": (0, 1)},
                                                             4: {"metadata.version": (7, 33)}})
    _, error, message = manager.update_features([FeatureUpdate("group.version", 0, SAFE_DOWNGRADE)], False)
    assert error == Errors.NONE
    _, error, message = manager.update_features([FeatureUpdate("group.version", 1, UPGRADE)], False)
    assert message == ("Invalid update version 1 for feature group.version. Broker 4 does not support "
                       "this feature.")


def test_a_dependency_is_checked_against_the_levels_the_request_would_leave():
    manager = FeatureControlManager(1)
    manager.replay_feature_level(record(MetadataRecordType.FEATURE_LEVEL_RECORD, name="metadata.version",
                                        feature_level=21).data)
    elr = feature_from_name("eligible.leader.replicas.version")
    with pytest.raises(ValueError,
                       match=r"^eligible.leader.replicas.version could not be set to 1 because it "
                                         r"depends on metadata.version level 23$"):
        validate_version(elr, elr.from_feature_level(1), {"metadata.version": 21})
    # share.version and group.version depend on nothing; the whole request fails on the first refusal
    _, error, message = manager.update_features([FeatureUpdate("group.version", 1, UPGRADE),
                                                 FeatureUpdate("metadata.version", 99, UPGRADE)], False)
    assert (error, message) == (Errors.INVALID_UPDATE_VERSION, "Invalid update version 99 for feature "
                                "metadata.version. Local controller 1 only supports versions 7-33")


def test_metadata_changed_walks_down_from_the_higher_level():
    assert not metadata_changed(27, 23) and metadata_changed(27, 22) and not metadata_changed(27, 27)
    assert from_version_string("3.9").feature_level == 21 and from_version_string("4.0").feature_level == 25
    with pytest.raises(ValueError):
        from_version_string("3.2")


def test_update_features_through_the_quorum_controller_reaches_the_standby():
    cluster = Cluster()
    cluster.register_and_unfence(1)
    request = Record(timeout_ms=60000, validate_only=False, feature_updates=[
        Record(feature="group.version", max_version_level=0, upgrade_type=SAFE_DOWNGRADE)])
    assert cluster.call(cluster.active.update_features(request, 1)) == dict(
        throttle_time_ms=0, error_code=Errors.NONE, error_message=None,
        results=[dict(feature="group.version", error_code=Errors.NONE, error_message="NONE")])
    assert cluster.standby.features.finalized == {"metadata.version": MAX_METADATA_VERSION,
                                                  "eligible.leader.replicas.version": 1, "share.version": 2,
                                                  "streams.version": 1,
                                                  **({"transaction.version": TV} if TV else {})}
    refused = Record(timeout_ms=60000, validate_only=False, feature_updates=[
        Record(feature="share.version", max_version_level=0, upgrade_type=UPGRADE)])
    answer = cluster.call(cluster.active.update_features(refused, 2))
    assert answer["error_code"] == Errors.INVALID_UPDATE_VERSION and answer["results"] == []
    assert answer["error_message"].startswith(UPDATE_FAILED + "Invalid update version 0 for feature "
                                                              "share.version")
    assert cluster.call(cluster.standby.update_features(request, 2))["error_code"] == Errors.NOT_CONTROLLER
    # a broker registering afterwards must support the levels now finalized
    assert cluster.call(cluster.active.register_broker(registration(2)))["error_code"] == Errors.NONE
