"""Features (KIP-584, KIP-778, KIP-1022) asked of both brokers: the supported and finalized features
ApiVersions carries (v3 leaves out the ranges that start at 0, v4 has them all), `kafka-features
describe` (Kafka's own tool) against each, UpdateFeatures refused alike at every version (the wrong upgrade
type, a negative level, an unknown feature, a level out of range, a downgrade not asked for, a
metadata.version downgrade that could lose metadata), validate_only, and a real downgrade and upgrade of
group.version, which turns the consumer group protocol off and on again as Kafka does.

Levels that differ would be the ones docs/features.md explains, what this broker does not build not being
finalized (FEATURE_DIFFERENCES); today there are none: a new cluster finalizes Kafka 4.4's levels."""

from __future__ import annotations

import re

import pytest

from kafka.controller.feature_control_manager import DEFAULT_FEATURE_LEVELS, SUPPORTED_FEATURES
from kafka.image.feature import PRODUCTION_FEATURES
from kafka.image.metadata_version import FEATURE_NAME as METADATA_VERSION
from kafka.image.metadata_version import LATEST_PRODUCTION
from kafka.protocol.api_keys import ApiKey
from kafka.tools.features_command import level_to_string
from tests.differential.oracle import Intended, Pair
from tests.helpers import wait_until
from tests.jvm.jvm import classpath, run_java
from tests.jvm.test_kafka_tools import FEATURES

UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE = 1, 2, 3
WHY = "docs/features.md: a level whose behaviour this broker does not build is not supported or finalized"
# Kafka 4.4 supports each feature up to its latest level and finalizes that on a new cluster; this broker
# stops where its SUPPORTED_FEATURES stop, and finalizes that (DEFAULT_FEATURE_LEVELS): the features where
# the two differ, (ours, Kafka 4.4's). Today none: metadata.version 33 (4.4-IV2), share.version 2 and
# streams.version 1 on both, every level's gate built.
KAFKA_4_4 = {METADATA_VERSION: LATEST_PRODUCTION.feature_level,
             **{f.name: f.latest_production for f in PRODUCTION_FEATURES}}
LEVELS = {name: (SUPPORTED_FEATURES[name][1], level) for name, level in KAFKA_4_4.items()
          if SUPPORTED_FEATURES[name][1] != level}
assert all(DEFAULT_FEATURE_LEVELS.get(name, 0) == ours for name, (ours, _) in LEVELS.items())
FEATURE_DIFFERENCES = (
    *(Intended(f"supported_features[name={name}].max_version", WHY) for name in LEVELS),
    *(Intended(f"finalized_features[name={name}]*", WHY) for name in LEVELS),
    *([Intended("finalized_features.length", "a feature at level 0 is not listed: some of LEVELS are 0 here")]
      if LEVELS else []),
)
# What Kafka's kafka-features describe prints differently, feature by feature, for the same reason.
DESCRIBED_DIFFERENTLY = {name: (level_to_string(name, ours), level_to_string(name, kafkas))
                         for name, (ours, kafkas) in LEVELS.items()}


def api_versions(version: int) -> dict:
    return {"client_software_name": "oracle", "client_software_version": "1"}


def update(*updates: tuple[str, int, int], version: int = 2, validate_only: bool = True) -> dict:
    keys = [dict(feature=name, max_version_level=level,
                 **({"allow_downgrade": kind != UPGRADE} if version == 0 else {"upgrade_type": kind}))
            for name, level, kind in updates]
    return dict(timeout_ms=60000, feature_updates=keys,
                **({"validate_only": validate_only} if version else {}))


def finalized(pair: Pair, side) -> dict[str, int]:
    answer = side.request(ApiKey.API_VERSIONS, 4, api_versions(4))
    return {f.name: f.max_version_level for f in answer.finalized_features}


@pytest.mark.parametrize("version", [3, 4])
def test_api_versions_carries_the_features(pair, version):
    """v3 lists only metadata.version among the supported features (the others start at 0, which a
    pre-KIP-1022 client refuses); v4 lists all seven."""
    ours = pair.same(ApiKey.API_VERSIONS, version, api_versions(version), intended=(
        Intended("api_keys*", "test_api_versions.py compares them, API by API"), *FEATURE_DIFFERENCES),
        volatile=("finalized_features_epoch",))
    assert len(ours.supported_features) == (1 if version == 3 else 7)


def test_kafka_features_describe_lists_the_same_features(pair):
    """Kafka's kafka-features against each broker: the same seven features in the same order and format,
    the levels differing only where docs/features.md says."""
    cp = classpath("tools")

    def described(side) -> dict[str, list[str]]:
        done = run_java(cp, FEATURES, "--bootstrap-server", side.bootstrap, "describe", timeout=90)
        assert done.returncode == 0, done.stderr[-2000:]
        rows = {}
        for line in done.stdout.splitlines():  # Kafka 4.4 pads each column with spaces
            cells = re.findall(r"(\w+): (\S+)", line)
            assert [key for key, _ in cells] == [
                "Feature", "SupportedMinVersion", "SupportedMaxVersion", "FinalizedVersionLevel",
                "Epoch"], line
            rows[cells[0][1]] = [value for _, value in cells[1:4]]
        return rows
    ours, theirs = described(pair.ours), described(pair.apache)
    assert list(ours) == list(theirs) == sorted(theirs)
    for name, (mine, kafkas) in DESCRIBED_DIFFERENTLY.items():
        assert (ours[name][1], theirs[name][1]) == (mine, kafkas)
        assert (ours[name][2], theirs[name][2]) == (mine, kafkas)
        ours[name][1:3] = theirs[name][1:3]
    assert ours == theirs


REFUSED = [
    ("group.version", 0, UPGRADE),  # a downgrade without saying so
    ("group.version", 2, UPGRADE),  # beyond what anyone supports
    ("group.version", 2, SAFE_DOWNGRADE),
    ("group.version", -1, SAFE_DOWNGRADE),
    ("share.version", 1, 0),  # no such upgrade type
    ("share.version", 1, 4),
    ("no.such.feature", 1, UPGRADE),
    ("", 1, UPGRADE),
    ("test.feature.version", 1, UPGRADE),  # Kafka's testing feature: not a production one
    ("kraft.version", 2, UPGRADE),
    ("kraft.version", 0, SAFE_DOWNGRADE),  # the level it is at: accepted
    ("group.version", 1, UPGRADE),  # the level it is at
    ("group.version", 1, SAFE_DOWNGRADE),
    ("metadata.version", 6, SAFE_DOWNGRADE),  # below 3.3-IV3
]
# While metadata.version differed (27 here, 33 in Kafka 4.4) its refusals named different levels.
METADATA_VERSION_WORDS = (Intended("error_message", "the levels in the message: this broker finalizes "
                                                    "metadata.version {}, Kafka 4.4 {}".format(
                                                        *LEVELS[METADATA_VERSION])),) \
    if METADATA_VERSION in LEVELS else ()


@pytest.mark.parametrize("version", [0, 1, 2])
def test_update_features_refused_and_validated_alike(pair, version):
    for case in REFUSED:
        if version == 0 and case[2] not in (UPGRADE, SAFE_DOWNGRADE):
            continue  # version 0 has no upgrade type
        if version == 0 and case[2] == SAFE_DOWNGRADE and case[1] != 1:
            continue  # version 0 cannot validate only: only the no-ops and refusals are sent for real
        pair.same(ApiKey.UPDATE_FEATURES, version, update(case, version=version),
                  intended=METADATA_VERSION_WORDS if case[0] == "metadata.version" else ())
    if version:
        pair.same(ApiKey.UPDATE_FEATURES, version, update(version=version))  # nothing asked: nothing to do
        pair.same(ApiKey.UPDATE_FEATURES, version, update(
            ("group.version", 1, UPGRADE), ("no.such.feature", 1, UPGRADE), version=version))
        for kind in (SAFE_DOWNGRADE, UNSAFE_DOWNGRADE):  # across 4.0-IV1, which changed metadata: refused
            pair.same(ApiKey.UPDATE_FEATURES, version,
                      update(("metadata.version", 22, kind), version=version),
                      intended=METADATA_VERSION_WORDS)
        pair.same(ApiKey.UPDATE_FEATURES, version, update(("metadata.version", 34, UPGRADE), version=version),
                  intended=METADATA_VERSION_WORDS)  # past what either controller supports


def test_group_version_downgraded_and_upgraded_alike(pair):
    """group.version 0 (a safe downgrade, answered with a result per feature at version 1) turns the
    consumer group protocol off: ConsumerGroupHeartbeat and ConsumerGroupDescribe answer UNSUPPORTED_VERSION
    on both; group.version 1 turns it back on (an upgrade, at version 0)."""
    try:
        pair.same(ApiKey.UPDATE_FEATURES, 1, update(("group.version", 0, SAFE_DOWNGRADE), version=1,
                                                    validate_only=False))
        wait_until(lambda: all("group.version" not in finalized(pair, side) for side in pair.sides),
                   timeout=15,
                   message="both brokers to apply group.version 0")
        pair.same(ApiKey.CONSUMER_GROUP_HEARTBEAT, 0, dict(
            group_id="features-group", member_id="features-member-0000001", member_epoch=0, instance_id=None,
            rack_id=None, rebalance_timeout_ms=30000, subscribed_topic_names=["features"],
            server_assignor=None,
            topic_partitions=[]))
        pair.same(ApiKey.CONSUMER_GROUP_DESCRIBE, 0, dict(group_ids=["features-group"],
                                                          include_authorized_operations=False))
    finally:
        for side in pair.sides:
            side.request(ApiKey.UPDATE_FEATURES, 0, update(("group.version", 1, UPGRADE), version=0))
    wait_until(lambda: all(finalized(pair, side).get("group.version") == 1 for side in pair.sides),
               timeout=15,
               message="both brokers to apply group.version 1 again")
    pair.same(ApiKey.UPDATE_FEATURES, 0, update(("group.version", 1, UPGRADE), version=0))
