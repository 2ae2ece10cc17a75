"""BrokerMetadataPublisher: a commit that changes no topic and no broker (the controller's NoOpRecord,
every metadata.max.idle.interval.ms) moves the cache's offset and leaves its topics and brokers as
they were; a commit that creates a topic rebuilds them. A real broker, its real metadata log."""

from __future__ import annotations

from tests.helpers import unique_topic, wait_until
from tests.integration.test_confluent_kafka import create_topic


def test_a_no_op_commit_keeps_the_cache_and_a_new_topic_rebuilds_it(start_broker):
    broker = start_broker(overrides={"metadata.max.idle.interval.ms": "50"})
    cache = broker.server.metadata_cache
    before = cache._snapshot
    wait_until(lambda: cache.metadata_offset > before.metadata_offset + 2, message="no-op commits")
    after = cache._snapshot
    assert after.topics is before.topics and after.brokers is before.brokers

    topic = unique_topic()
    create_topic(broker.bootstrap, topic, 2)
    wait_until(lambda: cache.contains(topic), message="the new topic in the cache")
    assert cache._snapshot.topics is not before.topics
    assert cache.num_partitions(topic) == 2
    assert cache.get_broker(1) is not None and cache.alive_brokers()
