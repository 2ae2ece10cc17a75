"""Feature: the cluster features besides metadata.version, their levels and what each level needs
(Kafka's org.apache.kafka.server.common.Feature and its FeatureVersion enums: KRaftVersion,
TransactionVersion, GroupVersion, EligibleLeaderReplicasVersion, ShareVersion, StreamsVersion;
KIP-584, KIP-1022).

A feature is a name and a small number, its level, finalized for the whole cluster by the controller
(a FeatureLevelRecord in the metadata log; kraft.version alone lives in the raft log's control
records). Each level of a feature records the metadata.version it became a default at (its bootstrap
metadata.version: a cluster formatted with `--release-version 4.0` gets every feature at the highest
level whose bootstrap version is 4.0's or older) and the levels of other features it needs (its
dependencies: eligible.leader.replicas.version 1 needs metadata.version 23). This is Kafka 4.4's
table, whole; what this broker builds of it is SUPPORTED_FEATURES in
kafka/controller/feature_control_manager.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafka.image.metadata_version import FEATURE_NAME as METADATA_VERSION
from kafka.image.metadata_version import MINIMUM_VERSION, MetadataVersion

KRAFT_VERSION = "kraft.version"
TRANSACTION_VERSION = "transaction.version"
GROUP_VERSION = "group.version"
ELIGIBLE_LEADER_REPLICAS_VERSION = "eligible.leader.replicas.version"
SHARE_VERSION = "share.version"
STREAMS_VERSION = "streams.version"


@dataclass(frozen=True)
class FeatureVersion:
    level: int
    bootstrap_metadata_version: int  # the metadata.version level that made this level a default
    dependencies: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Feature:
    name: str
    versions: tuple[FeatureVersion, ...]  # level 0 first

    @property
    def latest_production(self) -> int:
        return self.versions[-1].level

    def from_feature_level(self, level: int) -> FeatureVersion:
        for version in self.versions:
            if version.level == level:
                return version
        raise ValueError(f"No feature:{self.name} with feature level {level}")

    def default_level(self, metadata_version: MetadataVersion) -> int:
        """The level a cluster formatted at this metadata.version starts at (Kafka's defaultLevel)."""
        return max(v.level for v in self.versions
                   if v.bootstrap_metadata_version <= metadata_version.feature_level)


def _feature(name: str, *levels: tuple[int, int] | tuple[int, int, dict[str, int]]) -> Feature:
    return Feature(name, tuple(FeatureVersion(*level) for level in levels))


# Kafka 4.4's PRODUCTION_FEATURES, in its order (kafka-features version-mapping prints them so).
PRODUCTION_FEATURES: tuple[Feature, ...] = (
    _feature(KRAFT_VERSION, (0, 7), (1, 21)),  # 1: the voters live in the log (KIP-853)
    _feature(TRANSACTION_VERSION, (0, 7), (1, 24), (2, 24)),  # 2: KIP-890 part 2
    _feature(GROUP_VERSION, (0, 7), (1, 22)),  # 1: the consumer group protocol (KIP-848)
    _feature(ELIGIBLE_LEADER_REPLICAS_VERSION, (0, 7), (1, 26, {METADATA_VERSION: 23})),  # KIP-966
    _feature(SHARE_VERSION, (0, 7), (1, 28), (2, 31)),  # 1: share groups (KIP-932), 2: dead-letter queues
    _feature(STREAMS_VERSION, (0, 7), (1, 29)),  # 1: streams groups (KIP-1071)
)
BY_NAME = {f.name: f for f in PRODUCTION_FEATURES}


def feature_from_name(name: str) -> Feature:
    try:
        return BY_NAME[name]
    except KeyError:
        raise ValueError(f"Feature {name} not found.") from None


def validate_version(feature: Feature, version: FeatureVersion, proposed: dict[str, int]) -> None:
    """Does every dependency of this level hold among the levels proposed (metadata.version among them)?
    Kafka's Feature.validateVersion, in its words: any level above 0 needs a metadata.version of at least
    3.3-IV3, and each dependency its level."""
    metadata_version = proposed.get(METADATA_VERSION)
    if version.level >= 1 and (metadata_version is None or metadata_version < MINIMUM_VERSION.feature_level):
        raise ValueError(f"{feature.name} could not be set to {version.level} because it depends on "
                         f"metadata.version={MINIMUM_VERSION.feature_level} ({MINIMUM_VERSION})")
    for name, needed in version.dependencies.items():
        level = proposed.get(name)
        if level is None or level < needed:
            raise ValueError(f"{feature.name} could not be set to {version.level} because it depends on "
                             f"{name} level {needed}")
