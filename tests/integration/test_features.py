"""Features on a real broker over loopback, with the in-repo AdminClient (Kafka's describeFeatures and
updateFeatures): a new cluster's levels, a dry run, a real downgrade reaching the broker through the
metadata log (share.version 0 turns share groups off: ShareGroupHeartbeat answers UNSUPPORTED_VERSION),
the upgrade back, a refusal in Kafka's words, and the FinalizedLevel gauges on /metrics following them."""

from __future__ import annotations

from kafka.clients.admin import AdminClient
from kafka.clients.admin.feature_admin import SAFE_DOWNGRADE, UPGRADE
from kafka.controller.feature_control_manager import (
    DEFAULT_FEATURE_LEVELS,
    MAX_METADATA_VERSION,
    SUPPORTED_FEATURES,
)
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from tests.helpers import wait_until
from tests.metrics.scrape import scrape
from tests.wire import WireClient


def share_heartbeat_error(broker) -> int:
    client = WireClient(broker.port)
    try:
        return client.request(ApiKey.SHARE_GROUP_HEARTBEAT, 1, dict(
            group_id="features-share", member_id="features-member-000000001", member_epoch=0, rack_id=None,
            subscribed_topic_names=["t"])).error_code
    finally:
        client.close()


def test_describe_and_update_features_with_the_admin_client(broker):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    try:
        described = admin.describe_features()
        assert described.supported == SUPPORTED_FEATURES
        tv = DEFAULT_FEATURE_LEVELS["transaction.version"]  # 0 until transactions v2 is built, then 2
        sv = DEFAULT_FEATURE_LEVELS["share.version"]  # 2: share groups and their dead-letter queues
        assert described.finalized == {"metadata.version": MAX_METADATA_VERSION, "group.version": 1,
                                       "eligible.leader.replicas.version": 1, "share.version": sv,
                                       "streams.version": 1, **({"transaction.version": tv} if tv else {})}
        assert described.finalized_epoch is not None and described.finalized_epoch >= 0
        levels = scrape(broker)
        assert levels.value("kafka_server_metadataloader_finalizedlevel", featureName="shareVersion") == sv
        assert levels.value("kafka_server_metadataloader_finalizedlevel", featureName="kraftVersion") == 0
        assert levels.value("kafka_server_metadataloader_currentmetadataversion") == MAX_METADATA_VERSION

        assert admin.update_features({"share.version": (0, SAFE_DOWNGRADE)}, validate_only=True) == \
            {"share.version": None}
        assert admin.describe_features().finalized["share.version"] == sv, "a dry run changes nothing"

        assert admin.update_features({"share.version": (0, SAFE_DOWNGRADE)}) == {"share.version": None}
        wait_until(lambda: "share.version" not in admin.describe_features().finalized, timeout=15,
                   message="the broker to apply share.version 0")
        assert share_heartbeat_error(broker) == Errors.UNSUPPORTED_VERSION
        # a feature no longer finalized has no gauge (Kafka's removeFinalizedFeatureLevelMetric)
        share_gauge = ("kafka_server_metadataloader_finalizedlevel",
                       frozenset({("featureName", "shareVersion")}))
        assert share_gauge not in scrape(broker).samples

        refused = admin.update_features({"share.version": (3, UPGRADE), "group.version": (1, UPGRADE)})
        assert {name: (e.error, e.message) for name, e in refused.items()} == {
            name: (Errors.INVALID_UPDATE_VERSION, "The update failed for all features since the following "
                   "feature had an error: Invalid update version 3 for feature share.version. Local "
                   "controller "
                   "1 only supports versions 0-2") for name in ("share.version", "group.version")}

        assert admin.update_features({"share.version": (1, UPGRADE)}) == {"share.version": None}
        wait_until(lambda: admin.describe_features().finalized.get("share.version") == 1, timeout=15,
                   message="the broker to apply share.version 1")
        assert share_heartbeat_error(broker) != Errors.UNSUPPORTED_VERSION  # on to find its coordinator
    finally:
        admin.close()
