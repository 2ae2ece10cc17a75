"""FeatureControlManager: the cluster's finalized feature levels and UpdateFeatures
(Kafka's org.apache.kafka.controller.FeatureControlManager, KIP-584 / KIP-778 / KIP-1022).

A feature is a name and a level the whole cluster agrees on: metadata.version says which metadata
records and inter-node request versions everyone understands; group.version 1 switches the consumer
group protocol (KIP-848) on, share.version 1 share groups (KIP-932) and 2 their dead-letter queues
(KIP-1191), streams.version 1 streams groups (KIP-1071); kraft.version lives in the raft log itself
(KIP-853). Kafka 4.4's table of them is kafka/image/feature.py and metadata_version.py.
A level is finalized by a FeatureLevelRecord in the metadata log (level 0: the record removes the
feature), written here and replayed by every controller and broker.

    a new cluster   the first active controller writes a FeatureLevelRecord per feature at its default
                    (DEFAULT_FEATURE_LEVELS), or at the level `kafka-storage format --feature` /
                    `--release-version` put in bootstrap.checkpoint
    UpdateFeatures  each update is checked -- a level this controller and every registered broker
                    supports, an upgrade only if asked for one, metadata.version never downgraded
                    across a level that changed metadata, the levels each feature depends on -- and
                    the first refusal fails all (INVALID_UPDATE_VERSION, Kafka's words); else one
                    FeatureLevelRecord per update, atomically (none with validate_only)
    registration    a broker whose supported range misses a finalized level cannot register

What this broker finalizes differs from a fresh Apache Kafka 4.4 cluster where a level's behaviour is not
built here (docs/features.md): every feature at Kafka 4.4's level. metadata.version runs to 33 (4.4-IV2):
each level after 4.1-IV1 gates something built -- cordoned log directories (4.3-IV0), CIDR ACLs (4.4-IV1),
controller unregistration (4.4-IV2), the inter-broker ListOffsets v11 (4.2-IV1); share.version 2 is share
groups' dead-letter queues, streams.version 1 streams groups. A runtime upgrade of kraft.version (a static
quorum becoming dynamic) is refused: format a dynamic quorum with `kafka-storage format --standalone` instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from kafka.controller.controller_result import ControllerResult
from kafka.image.feature import (
    ELIGIBLE_LEADER_REPLICAS_VERSION,
    GROUP_VERSION,
    KRAFT_VERSION,
    SHARE_VERSION,
    STREAMS_VERSION,
    TRANSACTION_VERSION,
    feature_from_name,
    validate_version,
)
from kafka.image.metadata_version import FEATURE_NAME as METADATA_VERSION
from kafka.image.metadata_version import LATEST_PRODUCTION, metadata_changed
from kafka.protocol.errors import Errors
from kafka.protocol.messages.update_features import SAFE_DOWNGRADE, UNSAFE_DOWNGRADE, UPGRADE
from kafka.protocol.metadata_records import BROKER_RESOURCE, ApiMessageAndVersion, MetadataRecordType, record
from kafka.utils.java_hash_map import java_hash_map_order

MIN_METADATA_VERSION = 7  # 3.3-IV3, the oldest level Kafka 4 runs
MAX_METADATA_VERSION = 33  # 4.4-IV2: every level of Kafka 4.4, each gate built (docs/features.md)
# What this code can run: the ranges a broker registers with and ApiVersions advertises. One line a
# feature, so that building a level is raising one number.
SUPPORTED_FEATURES: dict[str, tuple[int, int]] = {
    METADATA_VERSION: (MIN_METADATA_VERSION, MAX_METADATA_VERSION),
    KRAFT_VERSION: (0, 1),  # 1: a dynamic quorum (KIP-853), chosen by kafka-storage format
    TRANSACTION_VERSION: (0, 2),  # 2 is KIP-890 part 2 (transactions v2)
    GROUP_VERSION: (0, 1),  # 1: the consumer group protocol (KIP-848)
    ELIGIBLE_LEADER_REPLICAS_VERSION: (0, 1),  # 1: eligible leader replicas (KIP-966)
    SHARE_VERSION: (0, 2),  # 1: share groups (KIP-932); 2: their dead-letter queues (KIP-1191)
    STREAMS_VERSION: (0, 1),  # 1: streams groups (KIP-1071)
}
# The level a new cluster starts at: Kafka 4.4's default (its latest production metadata.version's),
# as far as this code builds it. kraft.version is not a FeatureLevelRecord (kafka-storage format
# decides it), and metadata.version is the highest level supported.
DEFAULT_FEATURE_LEVELS: dict[str, int] = {
    METADATA_VERSION: MAX_METADATA_VERSION,
    **{name: min(feature_from_name(name).default_level(LATEST_PRODUCTION), high)
       for name, (_, high) in SUPPORTED_FEATURES.items() if name not in (METADATA_VERSION, KRAFT_VERSION)}}
UPDATE_FAILED = "The update failed for all features since the following feature had an error: "


@dataclass(frozen=True)
class FeatureUpdate:
    """One entry of UpdateFeaturesRequest (Kafka's FeatureUpdate): the level wanted and how."""

    feature: str
    level: int
    upgrade_type: int = UPGRADE


class FeatureControlManager:
    def __init__(self, node_id: int = 0,
                 brokers_supported: Callable[[], dict[int, dict[str, tuple[int, int]]]] = dict,
                 kraft_version: Callable[[], int] = lambda: 0) -> None:
        self.node_id = node_id  # "Local controller N" in a refusal
        self.brokers_supported = brokers_supported  # each registered broker's supported ranges
        self.kraft_version = kraft_version  # the raft log's kraft.version (Kafka's KRaftVersionAccessor)
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

    def finalized_features(self) -> dict[str, int]:
        """Every finalized level, kraft.version included when above 0 (as ApiVersions carries them)."""
        kraft = self.kraft_version()
        return {**self.finalized, **({KRAFT_VERSION: kraft} if kraft > 0 else {})}

    # ------------------------------------------------------------------ registration
    def supports(self, features: list) -> bool:
        """Can a broker with these supported ranges run at the finalized metadata.version, and at the
        finalized level of each other feature it lists? (Kafka also refuses a broker that does not list a
        finalized feature; every broker of this code lists them all, and the controller's unit tests
        register brokers that list metadata.version alone.)"""
        ranges = {f["name"]: (f["min_supported_version"], f["max_supported_version"]) for f in features}
        if METADATA_VERSION not in ranges:
            return False
        finalized = {METADATA_VERSION: self.metadata_version, **self.finalized}
        return all(ranges[name][0] <= level <= ranges[name][1]
                   for name, level in finalized.items() if name in ranges)

    # ------------------------------------------------------------------ UpdateFeatures
    def update_features(self, updates: list[FeatureUpdate],
                        validate_only: bool) -> tuple[list[ApiMessageAndVersion], Errors, str | None]:
        """The records (all or none) and the outcome (Kafka's updateFeatures): each update checked
        against the levels as they would be once every update is applied; the first refusal wins."""
        wanted = {u.feature: u for u in updates}  # a feature named twice: the last one counts (Kafka's map)
        proposed = {**self.finalized, METADATA_VERSION: self.metadata_version,
                    **{u.feature: u.level for u in wanted.values()}}
        records: list[ApiMessageAndVersion] = []
        # Kafka's controller puts them in a HashMap and meets them in its order: the first refusal met wins
        for name in java_hash_map_order(list(wanted)):
            update = wanted[name]
            refusal = self._update_feature(update, records, proposed)
            if refusal is not None:
                return [], Errors.INVALID_UPDATE_VERSION, refusal
        return ([] if validate_only else records), Errors.NONE, None

    def update_features_result(self, request, version: int) -> ControllerResult:
        """UpdateFeaturesRequest in, the records and the response out (Kafka's
        QuorumController.updateFeatures). Version 0's allow_downgrade is not read: Kafka's controller reads
        upgrade_type alone, whose default is an upgrade."""
        updates = [FeatureUpdate(u.feature, u.max_version_level, u.get("upgrade_type", UPGRADE))
                   for u in request.feature_updates]
        records, error, message = self.update_features(updates, request.get("validate_only", False))
        return ControllerResult(records, update_features_response(version, updates, error, message))

    @staticmethod
    def not_controller_response(version: int) -> dict:
        return update_features_response(version, [], Errors.NOT_CONTROLLER, "this controller is not active")

    def _update_feature(self, update: FeatureUpdate, records: list, proposed: dict[str, int]) -> str | None:
        name, level, kind = update.feature, update.level, update.upgrade_type
        if kind not in (UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE):
            return invalid_update_version(name, level,
                                          "The controller does not support the given upgrade type.")
        current = self.metadata_version if name == METADATA_VERSION else \
            self.kraft_version() if name == KRAFT_VERSION else self.finalized.get(name, 0)
        if level < 0:
            return invalid_update_version(name, level, "A feature version cannot be less than 0.")
        reason = self.reason_not_supported(name, level)
        if reason is not None:
            return invalid_update_version(name, level, reason)
        if level < current and kind == UPGRADE:
            return invalid_update_version(name, level, "Can't downgrade the version of this feature without "
                                          "setting the upgrade type to either safe or unsafe downgrade.")
        if level > current and kind != UPGRADE:
            return invalid_update_version(name, level, "Can't downgrade to a newer version.")
        if name == METADATA_VERSION:
            return self._update_metadata_version(current, level, kind == UNSAFE_DOWNGRADE, records)
        if name == KRAFT_VERSION:
            if level < current:
                return invalid_update_version(name, level, "Can't downgrade the version of this feature.")
            if level > current:  # KIP-853's upgrade of a static quorum: not built (docs/features.md)
                return invalid_update_version(name, level, "Upgrading kraft.version at run time is not "
                                              "built here; format a dynamic quorum with kafka-storage "
                                              "--standalone.")
            return None
        try:
            feature = feature_from_name(name)
            validate_version(feature, feature.from_feature_level(level), proposed)
        except ValueError as e:
            return invalid_update_version(name, level, str(e))
        records.append(record(MetadataRecordType.FEATURE_LEVEL_RECORD, name=name, feature_level=level))
        return None

    def reason_not_supported(self, name: str, level: int) -> str | None:
        """Why this controller or a registered broker cannot run `name` at `level` (Kafka's
        QuorumFeatures.reasonNotSupported); None if all can. The other controllers run this same code."""
        reason = _reason_not_supported(level, f"Local controller {self.node_id}",
                                       SUPPORTED_FEATURES.get(name, (0, 0)))
        if reason is not None:
            return reason
        for broker_id, ranges in sorted(self.brokers_supported().items()):
            reason = _reason_not_supported(level, f"Broker {broker_id}", ranges.get(name, (0, 0)))
            if reason is not None:
                return reason
        return None

    def _update_metadata_version(self, current: int, level: int, unsafe: bool, records: list) -> str | None:
        """A downgrade that crosses a level which changed metadata is refused, safe or not (Kafka 4.4
        builds no unsafe downgrade, KAFKA-13896); a downgrade that crosses none goes through."""
        if level < current and metadata_changed(current, level):
            reason = "Unsafe metadata downgrade is not supported in this version." if unsafe else \
                "Refusing to perform the requested downgrade because it might delete metadata information."
            return f"Unsupported metadata.version downgrade from {current} to {level}. {reason}"
        records.append(record(MetadataRecordType.FEATURE_LEVEL_RECORD, name=METADATA_VERSION,
                              feature_level=level))
        return None


def invalid_update_version(feature: str, level: int, message: str) -> str:
    return f"Invalid update version {level} for feature {feature}. {message}"


def _reason_not_supported(level: int, what: str, supported: tuple[int, int]) -> str | None:
    low, high = supported
    if low <= level <= high:
        return None
    if high == 0:
        return f"{what} does not support this feature."
    return f"{what} only supports versions {low}-{high}"


def update_features_response(version: int, updates: list, error: Errors, message: str | None) -> dict:
    """UpdateFeaturesResponse as Kafka's QuorumController answers: one top-level error (its message
    prefixed), and up to version 1 a result per update when all went through."""
    if error != Errors.NONE:
        return dict(throttle_time_ms=0, error_code=error, error_message=UPDATE_FAILED + (message or ""),
                    results=[])
    results = [dict(feature=u.feature, error_code=Errors.NONE, error_message="NONE") for u in updates] \
        if version <= 1 else []
    return dict(throttle_time_ms=0, error_code=Errors.NONE, error_message=None, results=results)


def kraft_version_reader(raft_client) -> Callable[[], int]:
    """The kraft.version the raft thread last published (Kafka's KRaftVersionAccessor); a raft stand-in
    without a published quorum state (a unit test's) is a static quorum, kraft.version 0."""
    return lambda: getattr(getattr(raft_client, "published", None), "kraft_version", 0)


def api_versions_features(version: int, finalized: dict[str, int], epoch: int) -> dict:
    """ApiVersionsResponse's feature fields, as a broker or a controller fills them: the ranges this code
    supports (before version 4 only those starting above 0: KIP-1022, older clients refuse a 0), the
    finalized levels and their epoch (the offset of the metadata they come from)."""
    return dict(supported_features=[dict(name=name, min_version=low, max_version=high)
                                    for name, (low, high) in SUPPORTED_FEATURES.items() if version >= 4
                                    or low > 0],
                finalized_features_epoch=epoch,
                finalized_features=[dict(name=name, min_version_level=level, max_version_level=level)
                                    for name, level in sorted(finalized.items())])


def supported_feature_ranges() -> list[dict]:
    """SUPPORTED_FEATURES as BrokerRegistrationRequest.features (and ApiVersions) carry them."""
    return [dict(name=name, min_supported_version=low, max_supported_version=high)
            for name, (low, high) in SUPPORTED_FEATURES.items()]
