"""FeatureControlManager: the cluster's finalized feature levels
(Kafka's org.apache.kafka.controller.FeatureControlManager).

metadata.version says which metadata records and request versions the whole cluster understands;
share.version (KIP-932) switches share groups on at level 1. A new cluster starts at the default level
of each feature (the controller writes a FeatureLevelRecord per feature the first time it leads an
empty log, as the bootstrap metadata of `kafka-storage format` arranges in Kafka; `kafka-storage format
--feature share.version=0` changes a default), and a broker whose supported range does not include the
finalized metadata.version cannot register. Level 27 is what Kafka calls 4.1-IV1; here the number only
gates registration.
"""

from __future__ import annotations

from collections.abc import Iterable

from kafka.protocol.metadata_records import BROKER_RESOURCE, ApiMessageAndVersion, MetadataRecordType, record

METADATA_VERSION = "metadata.version"
MIN_METADATA_VERSION = 1
MAX_METADATA_VERSION = 27
SHARE_VERSION = "share.version"  # Kafka's ShareVersion: 1 (SV_1) enables share groups
ELIGIBLE_LEADER_REPLICAS_VERSION = "eligible.leader.replicas.version"  # KIP-966: 1 turns the ELR on
TRANSACTION_VERSION = "transaction.version"  # KIP-890: 2 (TV_2) bumps the producer epoch every transaction
# What this code can run (the ranges a broker registers with), and the level a new cluster starts at.
# Kafka 4.4 formats share.version 2 (SV_2: share groups' dead-letter queues), which is not built here.
SUPPORTED_FEATURES: dict[str, tuple[int, int]] = {
    METADATA_VERSION: (MIN_METADATA_VERSION, MAX_METADATA_VERSION), SHARE_VERSION: (0, 1),
    ELIGIBLE_LEADER_REPLICAS_VERSION: (0, 1), TRANSACTION_VERSION: (0, 2)}
DEFAULT_FEATURE_LEVELS: dict[str, int] = {METADATA_VERSION: MAX_METADATA_VERSION, SHARE_VERSION: 1,
                                          ELIGIBLE_LEADER_REPLICAS_VERSION: 1, TRANSACTION_VERSION: 2}


class FeatureControlManager:
    def __init__(self) -> None:
        self.finalized: dict[str, int] = {}

    def reset(self) -> None:
        self.finalized = {}

    def bootstrap_records(self, bootstrap: Iterable[ApiMessageAndVersion] = (),
                          min_insync_replicas: int = 1) -> list[ApiMessageAndVersion]:
        """What an empty metadata log starts with: a FeatureLevelRecord per feature at its default level,
        or at the level bootstrap.checkpoint gives it (kafka-storage format --feature), metadata.version
        first; a feature at level 0 has no record (Kafka's); then bootstrap.checkpoint's other records.
        With eligible leader replicas on, the controller's min.insync.replicas becomes the cluster's (a
        ConfigRecord on the default broker resource, Kafka's ELR safety record): every broker and the
        controller must agree on it, or the ELR would be kept against different minimums."""
        bootstrap = list(bootstrap)
        levels = dict(DEFAULT_FEATURE_LEVELS)
        levels.update({r.data.name: r.data.feature_level for r in bootstrap
                       if r.type == MetadataRecordType.FEATURE_LEVEL_RECORD})
        elr_safety = [record(MetadataRecordType.CONFIG_RECORD, resource_type=BROKER_RESOURCE,
                             resource_name="", name="min.insync.replicas", value=str(min_insync_replicas))
                      ] if levels.get(ELIGIBLE_LEADER_REPLICAS_VERSION, 0) >= 1 else []
        return [*(record(MetadataRecordType.FEATURE_LEVEL_RECORD, name=name, feature_level=level)
                  for name, level in levels.items() if level > 0),
                *elr_safety,
                *(r for r in bootstrap if r.type != MetadataRecordType.FEATURE_LEVEL_RECORD)]

    def replay_feature_level(self, r) -> None:
        if r.feature_level == 0:
            self.finalized.pop(r.name, None)
        else:
            self.finalized[r.name] = r.feature_level

    @property
    def metadata_version(self) -> int:
        return self.finalized.get(METADATA_VERSION, MAX_METADATA_VERSION)

    @property
    def elr_enabled(self) -> bool:
        """Kafka's isElrFeatureEnabled: eligible.leader.replicas.version is finalized at 1 or more."""
        return self.finalized.get(ELIGIBLE_LEADER_REPLICAS_VERSION, 0) >= 1

    def supports(self, features: list) -> bool:
        """Can a broker with these supported ranges run at the finalized metadata.version?"""
        for feature in features:
            if feature["name"] == METADATA_VERSION:
                low, high = feature["min_supported_version"], feature["max_supported_version"]
                return low <= self.metadata_version <= high
        return False


def supported_feature_ranges() -> list[dict]:
    """SUPPORTED_FEATURES as BrokerRegistrationRequest.features (and ApiVersions) carry them."""
    return [dict(name=name, min_supported_version=low, max_supported_version=high)
            for name, (low, high) in SUPPORTED_FEATURES.items()]
