"""What the BrokerMetadataPublisher tells the share groups' parts (Kafka's initializeManagers,
updateCoordinator and onShareVersionToggle), over real parts on a mock clock: the share coordinator
starts on the first image with as many partitions as __share_group_state has, loads the partitions this
broker comes to lead and lets them go when it stops; its periodic jobs follow share.version; share.version
going to 0 drops every share session and share partition of the SharePartitionManager."""

from __future__ import annotations

import uuid

import pytest

from kafka.coordinator.common.runtime.coordinator_loader_impl import CoordinatorLoaderImpl
from kafka.coordinator.common.runtime.coordinator_partition_writer import CoordinatorPartitionWriter
from kafka.coordinator.common.runtime.coordinator_runtime import CoordinatorRuntime
from kafka.coordinator.common.runtime.coordinator_runtime_metrics import CoordinatorRuntimeMetrics
from kafka.coordinator.common.runtime.direct_event_processor import DirectEventProcessor
from kafka.coordinator.share.share_coordinator_config import ShareCoordinatorConfig
from kafka.coordinator.share.share_coordinator_record_serde import ShareCoordinatorRecordSerde
from kafka.coordinator.share.share_coordinator_service import ShareCoordinatorService
from kafka.coordinator.share.share_coordinator_shard import ShareCoordinatorShard
from kafka.coordinator.share.share_partition_key import SHARE_GROUP_STATE_TOPIC_NAME
from kafka.log.log_config import LogConfig
from kafka.protocol.metadata_records import MetadataRecordType, record
from kafka.server.metadata.broker_metadata_publisher import BrokerMetadataPublisher
from kafka.server.replica_manager import FetchParams
from kafka.server.share.log_reader import ReplicaManagerLogReader
from kafka.server.share.partition_metadata_provider import ReplicaManagerPartitionMetadataProvider
from kafka.server.share.session.share_session_cache import ShareSessionCache
from kafka.server.share.share_group_config_provider import ShareGroupConfigProvider
from kafka.server.share.share_group_metrics import ShareGroupMetrics
from kafka.server.share.share_partition_manager import SharePartitionManager
from kafka.utils.timer.system_timer import SystemTimer
from kafka.utils.topic_id_partition import TopicIdPartition
from tests.coordinator.runtime.runtime_fixture import QueuedExecutor
from tests.server.handler_harness import NODE_ID, BrokerParts, broker_registration, topic_records
from tests.server.share.in_memory_persister import InMemoryPersister

ORDERS_ID = uuid.UUID(int=7)


def share_version(level: int):
    return record(MetadataRecordType.FEATURE_LEVEL_RECORD, name="share.version", feature_level=level)


@pytest.fixture
def parts(tmp_path):
    parts = BrokerParts(tmp_path, {"share.coordinator.state.topic.num.partitions": "5"})
    config = ShareCoordinatorConfig.from_kafka_config(parts.config)
    parts.share_timer = SystemTimer("share-coordinator", time=parts.time)
    serde = ShareCoordinatorRecordSerde()
    runtime = CoordinatorRuntime(
        log_prefix="publisher-test", time=parts.time, timer=parts.share_timer,
        processor=DirectEventProcessor(),
        partition_writer=CoordinatorPartitionWriter(parts.replica_manager),
        loader=CoordinatorLoaderImpl(parts.replica_manager.read_partition_log, serde, parts.time,
                                     executor=QueuedExecutor(immediate=True)),
        coordinator_shard_builder=ShareCoordinatorShard.builder(config), serde=serde,
        metrics=CoordinatorRuntimeMetrics(parts.time), default_write_timeout_ms=config.write_timeout_ms)
    parts.share_coordinator = ShareCoordinatorService(config, runtime, parts.time)
    parts.lock_timer = SystemTimer("share-group-lock-timeout", time=parts.time)
    parts.sessions = ShareSessionCache(10)
    parts.share_partitions = SharePartitionManager(
        log_reader=ReplicaManagerLogReader(parts.replica_manager),
        metadata_provider=ReplicaManagerPartitionMetadataProvider(parts.replica_manager), time=parts.time,
        timer=parts.lock_timer, purgatory=parts.replica_manager.delayed_fetch_purgatory,
        action_queue=parts.replica_manager.add_to_action_queue,
        persister=InMemoryPersister(), config_provider=ShareGroupConfigProvider(),
        metrics=ShareGroupMetrics(parts.time), session_cache=parts.sessions)
    parts.publishers.append(BrokerMetadataPublisher(
        parts.config, parts.metadata_cache, parts.replica_manager, parts.log_manager, None, LogConfig(),
        share_coordinator=parts.share_coordinator, share_partition_manager=parts.share_partitions))
    yield parts
    parts.close(parts.share_coordinator.shutdown, parts.share_timer.shutdown, parts.lock_timer.shutdown)


def loaded(parts: BrokerParts) -> list[int]:
    return sorted(tp.partition for tp in parts.share_coordinator.runtime.partitions())


def test_the_share_coordinator_starts_with_the_state_topics_partition_count_and_follows_its_leadership(parts):
    parts.publish(broker_registration(), *topic_records(SHARE_GROUP_STATE_TOPIC_NAME, 3), share_version(1))
    service = parts.share_coordinator
    assert service.is_active.is_set()
    assert service.num_partitions == 3, "the topic's count, not share.coordinator.state.topic.num.partitions"
    assert loaded(parts) == [0, 1, 2]
    assert service.periodic_jobs_enabled, "share.version 1: the prune and snapshot jobs run"

    state_id = parts.metadata_cache.get_topic(SHARE_GROUP_STATE_TOPIC_NAME).topic_id
    parts.publish(record(MetadataRecordType.PARTITION_CHANGE_RECORD, partition_id=1, topic_id=state_id,
                         leader=NODE_ID + 1, replicas=[NODE_ID, NODE_ID + 1], isr=[NODE_ID, NODE_ID + 1]))
    assert loaded(parts) == [0, 2], "a partition led elsewhere is unloaded"
    parts.publish(share_version(0))
    assert not service.periodic_jobs_enabled


def test_without_the_state_topic_the_share_coordinator_starts_with_the_configured_count(parts):
    parts.publish(broker_registration(), share_version(1))
    assert parts.share_coordinator.num_partitions == 5
    assert loaded(parts) == []


def test_share_version_going_to_0_drops_every_share_session_and_share_partition(parts):
    parts.publish(broker_registration(), *topic_records("orders", 1, topic_id=ORDERS_ID), share_version(1))
    orders = TopicIdPartition(ORDERS_ID, "orders", 0)
    parts.sessions.maybe_create_session("g", "m", [orders], "conn-1")
    parts.share_partitions.fetch_messages("g", "m", FetchParams(replica_id=-1, max_wait_ms=0, min_bytes=1,
                                                                max_bytes=1 << 20), 0, 1, 500, 500, [orders])
    assert parts.share_partitions.share_partition("g", orders) is not None

    parts.publish(share_version(0))
    assert parts.sessions.size() == 0
    assert parts.share_partitions.share_partition("g", orders) is None
