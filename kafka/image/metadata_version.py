"""MetadataVersion: the levels of the metadata.version feature and their names (Kafka's
org.apache.kafka.server.common.MetadataVersion, KIP-778).

metadata.version is a number (a feature level) that says which metadata records, and which versions of
the requests brokers and controllers send each other, the whole cluster understands. Each level has a
name: the release that introduced it and an "IV" (inter-version) counter, 3.3-IV3 being level 7, the
first a KRaft cluster can run. Kafka 4.4's table is below, level for level; this broker runs levels 7 to
33 (4.4-IV2), as Kafka 4.4 does, and 4.5-IV0 is Kafka's too, not production-ready. What a level switches
on is asked by name (is_cordoned_log_dirs_supported, is_cidr_acl_supported, ...), as Kafka's code asks it;
docs/features.md lists the levels after 4.1-IV1 and what each gates.
"""

from __future__ import annotations

from dataclasses import dataclass

FEATURE_NAME = "metadata.version"


@dataclass(frozen=True)
class MetadataVersion:
    feature_level: int
    version: str  # "3.3-IV3": the release and its inter-version
    is_production: bool = True

    @property
    def release(self) -> str:
        """"3.3" of "3.3-IV3": a release names its last inter-version (Kafka's fromVersionString)."""
        return self.version.split("-")[0]

    def __str__(self) -> str:
        return self.version

    # What a level gates, in Kafka's words (MetadataVersion.isCordonedLogDirsSupported and the rest): code
    # asks these, never compares numbers.
    def is_cordoned_log_dirs_supported(self) -> bool:
        return is_cordoned_log_dirs_supported(self.feature_level)

    def is_cidr_acl_supported(self) -> bool:
        return is_cidr_acl_supported(self.feature_level)

    def is_controller_unregistration_supported(self) -> bool:
        return is_controller_unregistration_supported(self.feature_level)

    def register_broker_record_version(self) -> int:
        return register_broker_record_version(self.feature_level)


IBP_4_3_IV0, IBP_4_4_IV1, IBP_4_4_IV2 = 30, 32, 33  # the levels the methods above name

# Level by level, as Kafka 4.4 declares them (MetadataVersion.VERSIONS); 4.5-IV0 is not production-ready.
VERSIONS: tuple[MetadataVersion, ...] = tuple(MetadataVersion(level, name) for level, name in (
    (7, "3.3-IV3"), (8, "3.4-IV0"), (9, "3.5-IV0"), (10, "3.5-IV1"), (11, "3.5-IV2"), (12, "3.6-IV0"),
    (13, "3.6-IV1"), (14, "3.6-IV2"), (15, "3.7-IV0"), (16, "3.7-IV1"), (17, "3.7-IV2"), (18, "3.7-IV3"),
    (19, "3.7-IV4"), (20, "3.8-IV0"), (21, "3.9-IV0"), (22, "4.0-IV0"), (23, "4.0-IV1"), (24, "4.0-IV2"),
    (25, "4.0-IV3"), (26, "4.1-IV0"), (27, "4.1-IV1"), (28, "4.2-IV0"), (29, "4.2-IV1"), (30, "4.3-IV0"),
    (31, "4.4-IV0"), (32, "4.4-IV1"), (33, "4.4-IV2"))) + (MetadataVersion(34, "4.5-IV0", False),)
BY_LEVEL = {v.feature_level: v for v in VERSIONS}
MINIMUM_VERSION = BY_LEVEL[7]  # 3.3-IV3, the first with FeatureLevelRecord
LATEST_PRODUCTION = BY_LEVEL[33]  # 4.4-IV2: what Kafka 4.4 formats a new cluster at
# The levels that changed a metadata record (Kafka's didMetadataChange): a downgrade below one of them
# could lose metadata, so the controller refuses it; between two of them a downgrade loses nothing.
METADATA_CHANGED = frozenset({7, 8, 11, 13, 14, 15, 17, 23, 30, 32, 33})


def from_feature_level(level: int) -> MetadataVersion:
    try:
        return BY_LEVEL[level]
    except KeyError:
        raise ValueError(f"No MetadataVersion with feature level {level}") from None


def from_version_string(text: str) -> MetadataVersion:
    """"3.9-IV0", or a release alone ("3.9": its last inter-version), as Kafka's fromVersionString."""
    named = [v for v in VERSIONS if v.version == text or v.release == text]
    if not named:
        raise ValueError(f"Unknown metadata.version '{text}'")
    return named[-1]


def metadata_changed(source: int, target: int) -> bool:
    """Would going from level `source` to `target` cross a level that changed metadata? (Kafka's
    checkIfMetadataChanged: walk down from the higher level while nothing changed.)"""
    high, low = max(source, target), min(source, target)
    level = high
    while level not in METADATA_CHANGED and level != low and level - 1 in BY_LEVEL:
        level -= 1
    return level != low


def name_of(level: int) -> str:
    """A level as kafka-features prints it: its name, or UNKNOWN and the number for one Kafka never named."""
    version = BY_LEVEL.get(level)
    return version.version if version is not None else f"UNKNOWN {level}"


def register_broker_record_version(level: int) -> int:
    """RegisterBrokerRecord's version at a metadata.version level (Kafka's registerBrokerRecordVersion):
    4 carries the cordoned log directories (4.3-IV0), 3 the log directories (3.7-IV2), 2 the migration
    flag."""
    return 4 if level >= IBP_4_3_IV0 else 3 if level >= 17 else 2 if level >= 8 else 1


# The same questions of a bare level (an image's, a FeatureControlManager's), 0 for "none finalized".
def is_cordoned_log_dirs_supported(level: int) -> bool:
    return level >= IBP_4_3_IV0  # KIP-1066: cordoned log directories


def is_cidr_acl_supported(level: int) -> bool:
    return level >= IBP_4_4_IV1  # KIP-1107: ACL hosts in CIDR notation


def is_controller_unregistration_supported(level: int) -> bool:
    return level >= IBP_4_4_IV2  # UnregisterController and its record
