"""The features part of the AdminClient (KIP-584): Kafka's Admin.describeFeatures and updateFeatures.

describe_features reads ApiVersions (version 4: every supported range, even those starting at 0, KIP-1022)
from any broker, or from one node: the features it supports and the levels finalized in the metadata it
has applied, with that metadata's offset as the epoch. update_features sends UpdateFeatures to the
controller (a broker forwards it): each update is a level and how it may change it (an upgrade, a safe or
an unsafe downgrade); the controller applies all of them or none, so a top-level error is every
feature's error, as Java's admin reports it.

AdminClient inherits these methods; they use its plumbing (_call, _call_any, _call_controller).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kafka.clients.errors import KafkaError
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors

UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE = 1, 2, 3  # Kafka's FeatureUpdate.UpgradeType


@dataclass(frozen=True)
class FeatureMetadata:
    """Kafka's FeatureMetadata: finalized levels, their epoch (None if the broker sent none), supported
    ranges."""

    finalized: dict[str, int]
    finalized_epoch: int | None
    supported: dict[str, tuple[int, int]]


def feature_update(level: int, upgrade_type: int) -> tuple[int, int]:
    """Kafka's FeatureUpdate constructor: a level below 1 is a downgrade, and must say so."""
    if level < 1 and upgrade_type == UPGRADE:
        raise ValueError("The upgradeType flag should be set to SAFE_DOWNGRADE or UNSAFE_DOWNGRADE when the "
                         f"provided maxVersionLevel:{level} is < 1.")
    return level, upgrade_type


class FeatureAdmin:
    def describe_features(self, node_id: int | None = None) -> FeatureMetadata:
        body = {"client_software_name": "kafka-teaching", "client_software_version": "1"}
        if node_id is None:
            response = self._call_any(ApiKey.API_VERSIONS, body, max_version=4)
        else:
            response = self._call(node_id, ApiKey.API_VERSIONS, body, max_version=4)
        if response.error_code != Errors.NONE:
            raise KafkaError(response.error_code)
        epoch = response.get("finalized_features_epoch", -1)
        return FeatureMetadata(
            {f.name: f.max_version_level for f in response.get("finalized_features") or []},
            epoch if epoch >= 0 else None,
            {f.name: (f.min_version, f.max_version) for f in response.get("supported_features") or []})

    def update_features(self, updates: Mapping[str, tuple[int, int]],
                        validate_only: bool = False) -> dict[str, KafkaError | None]:
        """{feature: (level, upgrade type)} -> {feature: None or its KafkaError}."""
        if not updates:
            raise ValueError("Feature updates can not be null or empty.")
        body = dict(timeout_ms=self.timeout_ms, validate_only=validate_only, feature_updates=[
            dict(feature=name, max_version_level=level, upgrade_type=kind)
            for name, (level, kind) in updates.items()])
        response = self._call_controller(ApiKey.UPDATE_FEATURES, body)
        if response.error_code != Errors.NONE:
            error = KafkaError(response.error_code, response.error_message)
            return {name: error for name in updates}
        results = {r.feature: r for r in response.get("results") or []}
        return {name: None if name not in results or results[name].error_code == Errors.NONE
                else KafkaError(results[name].error_code, results[name].error_message) for name in updates}
