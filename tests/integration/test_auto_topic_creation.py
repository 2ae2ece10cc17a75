"""Auto-creation as Kafka 4 does it (issue 31): on Metadata, not on Produce, and without waiting.

A produce to a topic the broker does not know is answered UNKNOWN_TOPIC_OR_PARTITION and creates
nothing. A Metadata request for it (auto.create.topics.enable, and the request allowing it) starts
the creation and is answered at once: LEADER_NOT_AVAILABLE, then UNKNOWN_TOPIC_OR_PARTITION while
that creation is in flight, then the topic once this broker leads it. A name no topic may have is
INVALID_TOPIC_EXCEPTION, and nothing is sent to the controller.
"""

from __future__ import annotations

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch
from tests.helpers import unique_topic, wait_until
from tests.wire import WireClient


def metadata_error(client: WireClient, topic: str, allow: bool = True) -> int:
    response = client.request(ApiKey.METADATA, 9,
                              {"topics": [{"name": topic}], "allow_auto_topic_creation": allow})
    return response.topics[0].error_code


def test_produce_to_an_unknown_topic_is_refused_and_creates_nothing(broker):
    topic = unique_topic("nowhere")
    client = WireClient(broker.port)
    response = client.request(ApiKey.PRODUCE, 9, {"acks": 1, "timeout_ms": 5000, "topic_data": [
        {"name": topic, "partition_data": [{"index": 0, "records": build_batch([(None, b"v")])}]}]})
    assert response.responses[0].partition_responses[0].error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert metadata_error(client, topic, allow=False) == Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert not broker.server.metadata_cache.contains(topic)
    client.close()


def test_metadata_starts_the_creation_and_answers_at_once(broker):
    topic = unique_topic("auto")
    client = WireClient(broker.port)
    first = metadata_error(client, topic)
    assert first == Errors.LEADER_NOT_AVAILABLE
    wait_until(lambda: metadata_error(client, topic) == Errors.NONE, message="the auto-created topic")
    # The topic can reach this broker's metadata before the controller's CreateTopics answer does: the
    # in-flight entry goes when that answer arrives (Kafka's AutoTopicCreationManager clears it the same way).
    wait_until(lambda: broker.server.apis.auto_topic_creation_manager.inflight_count == 0,
               message="the creation's answer to clear the in-flight entry")
    assert metadata_error(client, "bad name!") == Errors.INVALID_TOPIC_EXCEPTION
    client.close()


def test_no_auto_creation_when_disabled_or_not_allowed(start_broker):
    broker = start_broker(overrides={"auto.create.topics.enable": "false"})
    topic = unique_topic("off")
    client = WireClient(broker.port)
    assert metadata_error(client, topic) == Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert broker.server.apis.auto_topic_creation_manager.inflight_count == 0
    assert not broker.server.metadata_cache.contains(topic)
    client.close()
