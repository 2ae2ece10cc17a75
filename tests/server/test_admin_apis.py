"""AdminApis without a broker: built as KafkaServer builds it (the AdminManager and ForwardingManager
toward a controller, the MetadataCache of a real metadata image, the ReplicaManager and its
LogManager on a temporary directory), requests encoded as a client sends them, the encoded
responses checked. DescribeCluster and DescribeLogDirs answer from this broker; CreateTopics goes
to the controller and is answered when its outcome comes, on the thread that brings it."""

from __future__ import annotations

import pytest

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.server.admin_apis import DUPLICATE_TOPIC_NAME, AdminApis
from kafka.server.config_helper import ConfigHelper
from tests.server.handler_harness import (
    CLUSTER_ID,
    HOST,
    NODE_ID,
    PORT,
    BrokerParts,
    IoThread,
    broker_registration,
    topic_records,
)


@pytest.fixture
def parts(tmp_path):
    parts = BrokerParts(tmp_path)
    parts.publish(broker_registration(), *topic_records("orders", 2))
    yield parts
    parts.close()


def admin_apis(parts: BrokerParts) -> IoThread:
    family = AdminApis(parts.request_helper, parts.auth_helper, parts.admin_manager, parts.forwarding_manager,
                       parts.metadata_cache, parts.replica_manager,
                       ConfigHelper(parts.admin_manager, parts.config),
                       parts.config)
    return IoThread(parts.request_helper, family)


def test_describe_cluster_names_the_live_brokers_where_the_client_connected(parts):
    response = parts.call(admin_apis(parts), ApiKey.DESCRIBE_CLUSTER, 1, dict(
        include_cluster_authorized_operations=False, endpoint_type=1))
    assert (response.error_code, response.cluster_id) == (Errors.NONE, CLUSTER_ID)
    assert [(b.broker_id, b.host, b.port) for b in response.brokers] == [(NODE_ID, HOST, PORT)]


def test_describe_cluster_v2_shows_the_fenced_brokers_only_when_asked(parts):
    """KIP-1073: IncludeFencedBrokers adds the registered brokers that are fenced, each with IsFenced; without
    it (and before v2) only the unfenced are listed, as Kafka's handleDescribeCluster filters them."""
    fenced = broker_registration(node_id=NODE_ID + 1, port=PORT + 1)
    fenced.data.fenced = True
    parts.publish(fenced)
    apis = admin_apis(parts)
    for version, include, expected in ((2, True, [(NODE_ID, False), (NODE_ID + 1, True)]),
                                       (2, False, [(NODE_ID, False)]), (1, None, [(NODE_ID, False)])):
        body = dict(include_cluster_authorized_operations=False, endpoint_type=1)
        if include is not None:
            body["include_fenced_brokers"] = include
        response = parts.call(apis, ApiKey.DESCRIBE_CLUSTER, version, body)
        assert [(b.broker_id, b.get("is_fenced", False)) for b in response.brokers] == expected


def test_describe_log_dirs_lists_the_partitions_this_broker_hosts(parts):
    response = parts.call(admin_apis(parts), ApiKey.DESCRIBE_LOG_DIRS, 4, dict(topics=None))
    (log_dir,) = response.results
    assert log_dir.error_code == Errors.NONE
    assert [(t.name, sorted(p.partition_index for p in t.partitions)) for t in log_dir.topics] == [("orders",
                                                                                                    [0, 1])]


def test_describe_log_dirs_v5_says_which_are_cordoned_from_4_3_iv0(parts):
    """KIP-1066: IsCordoned, true only once the finalized metadata.version is 4.3-IV0 or later (Kafka's)."""
    (log_dir,) = parts.log_manager.log_dirs
    parts.log_manager.update_cordoned_log_dirs([log_dir])
    def cordoned_at(level: int) -> bool:
        parts.metadata_cache.finalized_features = {**parts.metadata_cache.finalized_features,
                                                   "metadata.version": level}
        response = parts.call(admin_apis(parts), ApiKey.DESCRIBE_LOG_DIRS, 5, dict(topics=None))
        return response.results[0].is_cordoned

    assert not cordoned_at(29) and cordoned_at(30)


def test_create_topics_refuses_a_name_given_twice_and_waits_for_the_controller_for_the_rest(parts):
    def topic(name: str) -> dict:
        return dict(name=name, num_partitions=1, replication_factor=1, assignments=[], configs=[])

    request = parts.send(admin_apis(parts), ApiKey.CREATE_TOPICS, 7, dict(
        topics=[topic("payments"), topic("twice"), topic("twice")], timeout_ms=30_000, validate_only=False))
    assert not parts.answered(request), "forwarded: the I/O thread returned without an answer"

    parts.controller_gone()

    answers = {t.name: (t.error_code, t.error_message) for t in parts.response(request).topics}
    assert answers["twice"] == (Errors.INVALID_REQUEST, DUPLICATE_TOPIC_NAME)
    assert answers["payments"][0] == Errors.BROKER_NOT_AVAILABLE
