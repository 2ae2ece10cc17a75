"""FeatureControlManager: the cluster's finalized feature levels (Kafka's org.apache.kafka.controller.FeatureControlManager).

metadata.version says which metadata records and request versions the whole cluster understands.
A new cluster starts at the highest level this code supports (the controller writes a
FeatureLevelRecord the first time it leads an empty log, as `kafka-storage format` arranges in
Kafka), and a broker whose supported range does not include the finalized level cannot register.
Level 27 is what Kafka calls 4.1-IV1; here the number only gates registration.
"""

from __future__ import annotations

from kafka.protocol.metadata_records import ApiMessageAndVersion, MetadataRecordType, record

METADATA_VERSION = "metadata.version"
MIN_METADATA_VERSION = 1
MAX_METADATA_VERSION = 27


class FeatureControlManager:
    def __init__(self) -> None:
        self.finalized: dict[str, int] = {}

    def reset(self) -> None:
        self.finalized = {}

    def bootstrap_records(self) -> list[ApiMessageAndVersion]:
        return [record(MetadataRecordType.FEATURE_LEVEL_RECORD, name=METADATA_VERSION,
                       feature_level=MAX_METADATA_VERSION)]

    def replay_feature_level(self, r) -> None:
        self.finalized[r.name] = r.feature_level

    @property
    def metadata_version(self) -> int:
        return self.finalized.get(METADATA_VERSION, MAX_METADATA_VERSION)

    def supports(self, features: list) -> bool:
        """Can a broker with these supported ranges run at the finalized metadata.version?"""
        for feature in features:
            if feature["name"] == METADATA_VERSION:
                return feature["min_supported_version"] <= self.metadata_version <= feature["max_supported_version"]
        return False
