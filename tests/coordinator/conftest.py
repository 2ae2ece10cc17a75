"""Fixtures of the coordinator tests: a real ReplicaManager and log on a mock clock, leading
partition 0 of __consumer_offsets."""

from __future__ import annotations

import pytest

from kafka.coordinator import coordinator_records as records
from kafka.log.log_config import LogConfig
from kafka.log.log_manager import LogManager
from kafka.server.kafka_config import KafkaConfig
from kafka.server.metadata_cache import PartitionState
from kafka.server.replica_manager import ReplicaManager
from kafka.utils.time import MockTime
from kafka.utils.topic_partition import TopicPartition


@pytest.fixture
def time():
    return MockTime()


@pytest.fixture
def replica_manager(tmp_path, time):
    log_manager = LogManager([str(tmp_path)], LogConfig(), time, node_id=1)
    log_manager.startup()
    manager = ReplicaManager(KafkaConfig({"node.id": "1", "log.dirs": str(tmp_path)}), log_manager, None, time)
    manager.make_leader(TopicPartition(records.GROUP_METADATA_TOPIC_NAME, 0),
                        PartitionState(0, leader=1, leader_epoch=0, replicas=(1,), isr=(1,)), LogConfig())
    yield manager
    manager.shutdown()
    log_manager.shutdown()
