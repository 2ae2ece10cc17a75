"""BrokerMetadataPublisher: a commit that changes no topic and no broker (the controller's NoOpRecord,
every metadata.max.idle.interval.ms) moves the cache's offset and leaves its topics and brokers as
they were; a commit that creates a topic rebuilds them; a group's configs go to its GroupConfigManager. A
real broker, its real metadata log."""

from __future__ import annotations

from kafka.clients.admin import DELETE, GROUP_RESOURCE, SET, AdminClient
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


def test_a_groups_configs_reach_the_group_config_manager_and_leave_the_topics_alone(start_broker):
    """IncrementalAlterConfigs on a GROUP: the commit's GROUP ConfigRecords go to the GroupConfigManager
    (what the share partitions and the group coordinator read) and to the cache (what DescribeConfigs
    reads); the topics are not rebuilt for them. Removing the group's last key forgets the group."""
    broker = start_broker()
    cache, manager = broker.server.metadata_cache, broker.server.group_config_manager
    topics = cache._snapshot.topics
    group = unique_topic("configured")
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        admin.incremental_alter_configs(GROUP_RESOURCE, group, [
            ("share.auto.offset.reset", SET, "earliest"), ("share.record.lock.duration.ms", SET, "20000")])
        assert manager.group_config(group).share_record_lock_duration_ms == 20000, "answered once applied"
        assert cache.group_config(group) == {"share.auto.offset.reset": "earliest",
                                             "share.record.lock.duration.ms": "20000"}
        assert cache._snapshot.topics is topics
        admin.incremental_alter_configs(GROUP_RESOURCE, group, [
            ("share.auto.offset.reset", DELETE, None), ("share.record.lock.duration.ms", DELETE, None)])
        assert manager.group_config(group) is None and cache.group_config(group) == {}
