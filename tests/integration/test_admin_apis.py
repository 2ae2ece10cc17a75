"""Acceptance: the admin APIs librdkafka's and the Java admin client call, through confluent-kafka's
AdminClient: the legacy AlterConfigs (key 33) with Kafka's replace-everything semantics, beside
IncrementalAlterConfigs; DescribeLogDirs (35) and DescribeProducers (61), which only the Java Admin
sends (on the wire here, as it sends them); ListGroups' state filter and DescribeCluster."""

from __future__ import annotations

import pytest
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch
from tests.helpers import unique_topic
from tests.integration.test_confluent_kafka import create_topic
from tests.wire import WireClient


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
    unknown = ConfigResource(ConfigResource.Type.TOPIC, unique_topic("nope"),
                             set_config={"retention.ms": "1"})
    with pytest.raises(Exception, match="UNKNOWN_TOPIC_OR_PART"):
        admin.alter_configs([unknown])[unknown].result(15)
    assert broker.server.log_manager.get_log(topic,
                                             0).config.retention_ms == 60000, "a bad change changes nothing"


def test_describe_log_dirs_and_describe_producers_answer_as_kafka_does(broker):
    """What kafka-log-dirs.sh and kafka-transactions.sh describe-producers (the Java Admin) ask."""
    topic = unique_topic("dirs")
    create_topic(broker.bootstrap, topic, 2)
    client = WireClient(broker.port)
    client.request(ApiKey.PRODUCE, 9, {"acks": -1, "timeout_ms": 5000, "topic_data": [
        {"name": topic, "partition_data": [{"index": 1, "records": build_batch([(b"k", b"v" * 100)])}]}]})
    described = client.request(ApiKey.DESCRIBE_LOG_DIRS, 4, {"topics": None})
    (result,) = described.results
    assert (result.error_code, result.log_dir) == (Errors.NONE, str(broker.data_dir.resolve()))
    assert result.total_bytes > 0 and 0 <= result.usable_bytes <= result.total_bytes
    sizes = {(t.name, p.partition_index): p.partition_size for t in result.topics for p in t.partitions}
    assert sizes[(topic, 0)] == 0 and sizes[(topic, 1)] > 100
    only = client.request(ApiKey.DESCRIBE_LOG_DIRS, 1, {"topics": [{"topic": topic, "partitions": [1]}]})
    assert [(t.name, [p.partition_index for p in t.partitions]) for t in only.results[0].topics] == [(topic,
                                                                                                      [1])]

    producers = client.request(ApiKey.DESCRIBE_PRODUCERS, 0,
                               {"topics": [{"name": topic, "partition_indexes": [0, 7]}]})
    (answer,) = producers.topics
    assert [(p.partition_index, p.error_code, p.active_producers) for p in answer.partitions] == [
        (0, Errors.NONE, []), (7, Errors.UNKNOWN_TOPIC_OR_PARTITION, [])]
    client.close()


def test_describe_configs_with_synonyms_and_documentation(broker):
    """DescribeConfigs v3+ (KIP-569): the Java Admin asks for documentation; confluent-kafka 2.x has no
    such option, so on the wire."""
    topic = unique_topic("docs")
    create_topic(broker.bootstrap, topic, 1, {"retention.ms": "60000"})
    client = WireClient(broker.port)
    for resource_type, name, key in ((2, topic, "retention.ms"), (4, "1", "log.retention.hours")):
        response = client.request(ApiKey.DESCRIBE_CONFIGS, 4, {
            "resources": [{"resource_type": resource_type, "resource_name": name,
                           "configuration_keys": [key]}],
            "include_synonyms": True, "include_documentation": True})
        (entry,) = response.results[0].configs
        assert entry.documentation, f"{key} has no documentation"
        assert entry.synonyms[0].name == key
    client.close()


def test_incremental_alter_configs_deleting_what_is_not_set_succeeds(broker):
    """kafka-reassign-partitions --verify clears the replication throttles it may have set: DELETE of
    the broker's throttle rates and of each topic's throttled-replica lists. None is set here (no
    throttle topic configs), so, as in Kafka, the delete finds nothing and succeeds. A broker's throttle
    rate is a dynamic broker config Kafka checks (a LONG) and keeps: so here too (docs/dynamic_configs.md)."""
    topic = unique_topic("throttle")
    create_topic(broker.bootstrap, topic, 1)
    client = WireClient(broker.port)

    def alter(resource_type: int, name: str, key: str, operation: int, value: str | None = None) -> int:
        response = client.request(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, {"validate_only": False, "resources": [
            {"resource_type": resource_type, "resource_name": name,
             "configs": [{"name": key, "config_operation": operation, "value": value}]}]})
        return response.responses[0].error_code

    delete, set_ = 1, 0
    assert alter(4, "1", "leader.replication.throttled.rate", delete) == Errors.NONE
    assert alter(2, topic, "leader.replication.throttled.replicas", delete) == Errors.NONE
    assert alter(4, "1", "leader.replication.throttled.rate", set_, "soon") == Errors.INVALID_REQUEST
    assert alter(4, "1", "leader.replication.throttled.rate", set_, "1000") == Errors.NONE
    assert alter(4, "1", "leader.replication.throttled.rate", delete) == Errors.NONE
    assert alter(2, topic, "no.such.config", set_, "1") == Errors.INVALID_CONFIG
    assert alter(4, "7", "leader.replication.throttled.rate", delete) == Errors.INVALID_REQUEST  # as Kafka
    client.close()


def test_api_versions_reports_the_supported_and_finalized_features(broker):
    """KIP-584: ApiVersions v3+ carries the features, which the Java Admin's describeFeatures and
    kafka-features read; metadata.version is finalized by the controller at formatting."""
    client = WireClient(broker.port)
    response = client.request(ApiKey.API_VERSIONS, 3,
                              {"client_software_name": "test", "client_software_version": "1"})
    supported = {f.name: (f.min_version, f.max_version) for f in response.supported_features}
    finalized = {f.name: (f.min_version_level, f.max_version_level) for f in response.finalized_features}
    low, high = supported["metadata.version"]
    level, same = finalized["metadata.version"]
    assert level == same and low <= level <= high
    assert response.finalized_features_epoch >= 0
    client.close()


def test_describe_configs_synonyms_follow_kafkas_rules(start_broker):
    """Kafka's ConfigHelper.configSynonyms: the broker keys that set a value, static before default, each
    only where it has a value, and none listed before the key asked about. So log.retention.hours in
    server.properties is no synonym of log.retention.ms, nor of a topic's retention.ms."""
    broker = start_broker(overrides={"log.segment.bytes": "1048576", "log.retention.hours": "100"})
    topic = unique_topic("synonyms")
    create_topic(broker.bootstrap, topic, 1, {"retention.ms": "60000"})
    client = WireClient(broker.port)

    def describe(resource_type: int, name: str, key: str) -> tuple[int, list[tuple[str, str, int]]]:
        response = client.request(ApiKey.DESCRIBE_CONFIGS, 4, {
            "resources": [{"resource_type": resource_type, "resource_name": name,
                           "configuration_keys": [key]}],
            "include_synonyms": True, "include_documentation": False})
        (entry,) = response.results[0].configs
        return entry.config_source, [(s.name, s.value, s.source) for s in entry.synonyms]

    dynamic_topic, static, default = 1, 4, 5
    assert describe(2, topic, "retention.ms") == (dynamic_topic, [("retention.ms", "60000", dynamic_topic)])
    assert describe(2, topic, "segment.bytes") == (static, [("log.segment.bytes", "1048576", static),
                                                            ("log.segment.bytes", "1073741824", default)])
    assert describe(4, "1", "log.retention.hours") == (static, [("log.retention.hours", "100", static),
                                                                ("log.retention.hours", "168", default)])
    assert describe(4, "1", "log.retention.ms") == (default, [])
    client.close()


def test_describe_configs_of_the_broker_writes_values_as_kafka_does(broker):
    """ConfigDef.convertToString: a value parsed into endpoints, a map or a set is shown as the text it
    was parsed from (kafka-configs --describe --all printed Python's repr of them)."""
    client = WireClient(broker.port)
    response = client.request(ApiKey.DESCRIBE_CONFIGS, 4, {
        "resources": [{"resource_type": 4, "resource_name": "1", "configuration_keys": None}],
        "include_synonyms": False, "include_documentation": False})
    values = {entry.name: entry.value for entry in response.results[0].configs}
    client.close()
    assert values["listeners"].startswith("PLAINTEXT://") and "EndPoint" not in values["listeners"]
    kafkas_default = "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT"
    assert values["listener.security.protocol.map"] == kafkas_default  # as the text it is parsed from
    assert values["max.connections.per.ip.overrides"] == ""
    assert values["security.inter.broker.protocol"] == "PLAINTEXT"
    assert values["super.users"] == "" and values["log.retention.hours"] == "168"
    assert not [name for name, value in values.items()
                if value and value[0] in "{([" or "frozenset" in str(value)]


def test_describe_configs_types_broker_keys_parsed_into_more_than_a_string():
    """Kafka's declared ConfigDef types for keys parsed here into endpoints, maps or sets, its LONG and
    SHORT keys (ints here) and its PASSWORD ones (tests/differential/test_configs.py checks every key both
    know against Apache Kafka); UNKNOWN for keys Kafka's KafkaConfig does not define."""
    from kafka.server.config_helper import CONFIG_TYPES, broker_config_type
    assert broker_config_type("listeners") == CONFIG_TYPES["LIST"]
    assert broker_config_type("listener.security.protocol.map") == CONFIG_TYPES["STRING"]
    assert broker_config_type("replica.lag.time.max.ms") == CONFIG_TYPES["LONG"]
    assert broker_config_type("offsets.topic.replication.factor") == CONFIG_TYPES["SHORT"]
    assert broker_config_type("ssl.truststore.certificates") == CONFIG_TYPES["PASSWORD"]
    assert broker_config_type("process.roles") == CONFIG_TYPES["LIST"]
    assert broker_config_type("controller.quorum.voters") == CONFIG_TYPES["LIST"]
    assert broker_config_type("log.retention.hours") == CONFIG_TYPES["INT"]
    assert broker_config_type("metrics.listener") == broker_config_type("super.users") == 0
