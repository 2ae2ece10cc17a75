"""UpdateFeatures (key 57): change the finalized level of cluster features (KIP-584, KIP-778).

Mirrors ``common/message/UpdateFeaturesRequest.json`` and ``...Response.json`` (versions 0-2, all
flexible). Each update names a feature and the level wanted; ``upgrade_type`` says what kind of change
it may be: 1 an upgrade only, 2 a safe downgrade (no metadata lost), 3 an unsafe one. Version 0 had the
boolean ``allow_downgrade`` instead; version 1 adds ``validate_only``; version 2 answers with the
top-level error alone (no result per feature).
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int8, Int16, Int32, String

UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE = 1, 2, 3  # Kafka's FeatureUpdate.UpgradeType

FEATURE_UPDATE_KEY = Schema(
    "FeatureUpdateKey",
    Field("feature", String, "0+"),
    Field("max_version_level", Int16, "0+"),
    Field("allow_downgrade", Boolean, "0", default=False),
    Field("upgrade_type", Int8, "1+", default=UPGRADE),
)

UPDATE_FEATURES_REQUEST = Schema(
    "UpdateFeaturesRequest",
    Field("timeout_ms", Int32, "0+", default=60000),
    Field("feature_updates", Array(FEATURE_UPDATE_KEY), "0+"),
    Field("validate_only", Boolean, "1+", default=False),
)

UPDATABLE_FEATURE_RESULT = Schema(
    "UpdatableFeatureResult",
    Field("feature", String, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
)

UPDATE_FEATURES_RESPONSE = Schema(
    "UpdateFeaturesResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("results", Array(UPDATABLE_FEATURE_RESULT), "0-1", ignorable=True, default=[]),
)

UPDATE_FEATURES = register(
    Api(ApiKey.UPDATE_FEATURES, "UpdateFeatures", 0, 2, 0, UPDATE_FEATURES_REQUEST, UPDATE_FEATURES_RESPONSE)
)
