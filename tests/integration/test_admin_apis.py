"""Acceptance: the admin APIs librdkafka's and the Java admin client call, through confluent-kafka's
AdminClient: the legacy AlterConfigs (key 33) with Kafka's replace-everything semantics, beside
IncrementalAlterConfigs."""

from __future__ import annotations

import pytest
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource

from tests.helpers import unique_topic
from tests.integration.test_confluent_kafka import create_topic


def test_alter_configs_replaces_the_whole_set_of_a_topics_overrides(broker):
    topic = unique_topic("alter")
    create_topic(broker.bootstrap, topic, 1, {"segment.bytes": "123456", "retention.ms": "3600000"})
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic, set_config={"retention.ms": "60000",
                                                                             "cleanup.policy": "compact"})
    admin.alter_configs([resource])[resource].result(15)
    described = admin.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, topic)])
    configs = next(iter(described.values())).result(15)
    assert configs["retention.ms"].value == "60000"
    assert configs["cleanup.policy"].value == "compact"
    # Left out of the request: back to the default, which is what sets AlterConfigs apart.
    assert configs["segment.bytes"].source == ConfigSource.DEFAULT_CONFIG.value
    assert broker.server.log_manager.get_log(topic, 0).config.segment_bytes == 1073741824

    bad = ConfigResource(ConfigResource.Type.TOPIC, topic, set_config={"retention.ms": "soon"})
    with pytest.raises(Exception, match="retention.ms"):
        admin.alter_configs([bad])[bad].result(15)
    unknown = ConfigResource(ConfigResource.Type.TOPIC, unique_topic("nope"), set_config={"retention.ms": "1"})
    with pytest.raises(Exception, match="UNKNOWN_TOPIC_OR_PART"):
        admin.alter_configs([unknown])[unknown].result(15)
    assert broker.server.log_manager.get_log(topic, 0).config.retention_ms == 60000, "a bad change changes nothing"
