"""StorageApis without a broker: built as KafkaServer builds it (a ReplicaManager on a temporary
directory, the MetadataCache of a real metadata image, a ConfigHelper over the AdminManager), a
request encoded as a client sends it in, the encoded response checked. DeleteRecords moves the log
start offset, DescribeConfigs reads a topic's (and a group's) configs from the image, and an
IncrementalAlterConfigs is answered only once the controller's outcome is in, not on the I/O thread."""

from __future__ import annotations

import pytest

from kafka.protocol.acl import AclOperation, ResourceType
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import MetadataRecordType, record
from kafka.protocol.record_batch import build_batch
from kafka.security.kafka_principal import USER_TYPE, KafkaPrincipal
from kafka.server.config_helper import ConfigHelper
from kafka.server.storage_apis import StorageApis
from kafka.utils.topic_partition import TopicPartition
from tests.server.handler_harness import BrokerParts, IoThread, allow, broker_registration, topic_records

TOPIC_RESOURCE, GROUP_RESOURCE = 2, 32
ALICE = KafkaPrincipal(USER_TYPE, "alice")
DEFAULT_CONFIG, DYNAMIC_TOPIC_CONFIG, GROUP_CONFIG = 5, 1, 8  # DescribeConfigs' config_source


@pytest.fixture
def parts(tmp_path):
    parts = BrokerParts(tmp_path)
    parts.publish(broker_registration(), *topic_records("orders", 1),
                  record(MetadataRecordType.CONFIG_RECORD, resource_type=TOPIC_RESOURCE,
                         resource_name="orders",
                         name="retention.ms", value="3600000"))
    yield parts
    parts.close()


def storage_apis(parts: BrokerParts) -> IoThread:
    family = StorageApis(parts.request_helper, parts.auth_helper, parts.replica_manager, parts.metadata_cache,
                         ConfigHelper(parts.admin_manager, parts.config))
    return IoThread(parts.request_helper, family)


def test_delete_records_moves_the_log_start_offset_and_refuses_an_unknown_topic(parts):
    answers = []
    parts.replica_manager.append_records(1000, -1, False, {TopicPartition("orders", 0): build_batch(
        [(None, b"a"), (None, b"b"), (None, b"c")])}, answers.append)
    assert answers[0][TopicPartition("orders", 0)].error == Errors.NONE

    response = parts.call(storage_apis(parts), ApiKey.DELETE_RECORDS, 2, dict(timeout_ms=1000, topics=[
        dict(name="orders", partitions=[dict(partition_index=0, offset=2)]),
        dict(name="gone", partitions=[dict(partition_index=0, offset=2)])]))

    assert [(t.name, [(p.partition_index, p.error_code, p.low_watermark) for p in t.partitions])
            for t in response.topics] == [("orders", [(0, Errors.NONE, 2)]),
                                          ("gone", [(0, Errors.UNKNOWN_TOPIC_OR_PARTITION, -1)])]
    assert parts.replica_manager.get_partition(TopicPartition("orders", 0)).log.log_start_offset == 2


def test_describe_configs_tells_a_topic_override_from_a_default(parts):
    response = parts.call(storage_apis(parts), ApiKey.DESCRIBE_CONFIGS, 4, dict(
        resources=[dict(resource_type=TOPIC_RESOURCE, resource_name="orders",
                        configuration_keys=["retention.ms", "cleanup.policy"])],
        include_synonyms=False, include_documentation=False))

    (result,) = response.results
    assert (result.error_code, result.resource_name) == (Errors.NONE, "orders")
    assert {c.name: (c.value, c.config_source) for c in result.configs} == {
        "retention.ms": ("3600000", DYNAMIC_TOPIC_CONFIG), "cleanup.policy": ("delete", DEFAULT_CONFIG)}


def test_an_alter_configs_waits_for_the_controller_without_an_io_thread(parts):
    request = parts.send(storage_apis(parts), ApiKey.INCREMENTAL_ALTER_CONFIGS, 1,
                         dict(validate_only=False, resources=[
        dict(resource_type=TOPIC_RESOURCE, resource_name="orders",
             configs=[dict(name="retention.ms", config_operation=0, value="1000")])]))
    assert not parts.answered(request), "forwarded: the I/O thread returned without an answer"

    parts.controller_gone()

    (result,) = parts.response(request).responses
    assert (result.resource_name, result.error_code) == ("orders", Errors.BROKER_NOT_AVAILABLE)


def test_a_groups_configs_are_described_from_the_image_and_need_the_groups_acls(parts):
    """DescribeConfigs of a GROUP (type 32): the group's own value (GROUP_CONFIG) from the image's
    ConfigRecords, the broker's for the rest; DESCRIBE_CONFIGS and ALTER_CONFIGS on the group itself."""
    parts.publish(record(MetadataRecordType.CONFIG_RECORD, resource_type=GROUP_RESOURCE,
                         resource_name="billing", name="share.auto.offset.reset", value="earliest"))
    keys = ["share.auto.offset.reset", "share.delivery.count.limit"]
    describe = dict(resources=[dict(resource_type=GROUP_RESOURCE, resource_name="billing",
                                    configuration_keys=keys)],
                    include_synonyms=False, include_documentation=False)
    (result,) = parts.call(storage_apis(parts), ApiKey.DESCRIBE_CONFIGS, 4, describe).results
    assert {c.name: (c.value, c.config_source) for c in result.configs} == {
        "share.auto.offset.reset": ("earliest", GROUP_CONFIG),
        "share.delivery.count.limit": ("5", DEFAULT_CONFIG)}

    parts.with_authorizer(allow(ALICE, AclOperation.DESCRIBE_CONFIGS, ResourceType.GROUP, "billing"))
    (result,) = parts.call(storage_apis(parts), ApiKey.DESCRIBE_CONFIGS, 4, describe, principal=ALICE).results
    assert result.error_code == Errors.NONE
    (altered,) = parts.call(storage_apis(parts), ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, dict(
        validate_only=False, resources=[dict(resource_type=GROUP_RESOURCE, resource_name="billing", configs=[
            dict(name="share.auto.offset.reset", config_operation=0, value="latest")])]),
        principal=ALICE).responses
    assert (altered.error_code, altered.error_message) == (Errors.GROUP_AUTHORIZATION_FAILED,
                                                           "Group authorization failed.")
