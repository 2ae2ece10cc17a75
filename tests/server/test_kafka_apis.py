"""KafkaApis without a broker: the dispatch table and the data-plane handlers it keeps, over real
collaborators (a ReplicaManager on a temporary directory, the MetadataCache of a real metadata
image, a FetchManager). Metadata names the brokers and partitions of the image; a record produced
is fetched back; ApiVersions advertises exactly the table, the families' APIs included; a handler
that raises is answered with its request's error response, the connection kept."""

from __future__ import annotations

import uuid

import pytest

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch, iter_batches
from kafka.server.auto_topic_creation_manager import AutoTopicCreationManager
from kafka.server.fetch_manager import FetchManager
from kafka.server.fetch_session import FetchSessionCache
from kafka.server.kafka_apis import KafkaApis
from kafka.server.sasl_apis import SaslApis
from tests.server.handler_harness import HOST, NODE_ID, PORT, BrokerParts, broker_registration, topic_records


@pytest.fixture
def parts(tmp_path):
    parts = BrokerParts(tmp_path)
    parts.publish(broker_registration(), *topic_records("orders", 2))
    yield parts
    parts.close()


def kafka_apis(parts: BrokerParts, *families) -> KafkaApis:
    return KafkaApis(parts.request_helper, parts.auth_helper, parts.replica_manager, parts.metadata_cache,
                     FetchManager(parts.time, FetchSessionCache(10)),
                     AutoTopicCreationManager(parts.config, parts.admin_manager), parts.forwarding_manager,
                     parts.config, families)


def test_metadata_names_the_brokers_and_partitions_of_the_image(parts):
    response = parts.call(kafka_apis(parts), ApiKey.METADATA, 12, dict(
        topics=[dict(topic_id=uuid.UUID(int=0), name="orders")], allow_auto_topic_creation=False,
        include_topic_authorized_operations=False))
    assert [(b.node_id, b.host, b.port) for b in response.brokers] == [(NODE_ID, HOST, PORT)]
    (topic,) = response.topics
    assert (topic.error_code, [(p.partition_index, p.leader_id) for p in topic.partitions]) == (
        Errors.NONE, [(0, NODE_ID), (1, NODE_ID)])


def test_a_produced_record_is_fetched_back(parts):
    apis = kafka_apis(parts)
    produced = parts.call(apis, ApiKey.PRODUCE, 9,
                          dict(transactional_id=None, acks=1, timeout_ms=1000, topic_data=[
        dict(name="orders", partition_data=[dict(index=1, records=build_batch([(b"k", b"hello")]))])]))
    (partition,) = produced.responses[0].partition_responses
    assert (partition.error_code, partition.base_offset) == (Errors.NONE, 0)

    fetched = parts.call(apis, ApiKey.FETCH, 12, dict(
        replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, isolation_level=0, session_id=0,
        session_epoch=-1, forgotten_topics_data=[], rack_id="", topics=[dict(topic="orders", partitions=[
            dict(partition=1, current_leader_epoch=-1, fetch_offset=0, last_fetched_epoch=-1,
                 log_start_offset=-1,
                 partition_max_bytes=1 << 20)])]))
    (data,) = fetched.responses[0].partitions
    (batch,) = iter_batches(bytes(data.records))
    assert (data.error_code, data.high_watermark, [r.value for r in batch]) == (Errors.NONE, 1, [b"hello"])


def test_api_versions_advertises_the_table_with_the_families_apis(parts):
    response = parts.call(kafka_apis(parts, SaslApis(parts.request_helper)), ApiKey.API_VERSIONS, 3, dict(
        client_software_name="handler-test", client_software_version="1"))
    advertised = {k.api_key for k in response.api_keys}
    assert {ApiKey.PRODUCE, ApiKey.FETCH, ApiKey.METADATA, ApiKey.SASL_HANDSHAKE} <= advertised
    assert ApiKey.JOIN_GROUP not in advertised and ApiKey.VOTE not in advertised


def test_a_handler_that_raises_is_answered_with_its_error_response(parts):
    apis = kafka_apis(parts)
    request = parts.request(ApiKey.LIST_OFFSETS, 7, dict(replica_id=-1, isolation_level=0, topics=[
        dict(name="orders", partitions=[dict(partition_index=0, current_leader_epoch=-1, timestamp=-1)])]))

    def broken(request) -> None:
        raise RuntimeError("a bug")

    apis.handlers[ApiKey.LIST_OFFSETS] = broken
    with pytest.raises(RuntimeError):
        apis.handle(request)
    apis.handle_error(request)  # what the KafkaRequestHandler does next

    (topic,) = parts.response(request).topics
    assert [p.error_code for p in topic.partitions] == [Errors.UNKNOWN_SERVER_ERROR]
