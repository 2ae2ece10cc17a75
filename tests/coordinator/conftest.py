"""Fixtures of the coordinator tests: a real ReplicaManager and log on a mock clock, leading
partition 0 of __consumer_offsets."""

from __future__ import annotations

import pytest

from kafka.coordinator.group import group_coordinator_records as records
from kafka.utils.time import MockTime
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import replica_manager_leading


@pytest.fixture
def time():
    return MockTime()


@pytest.fixture
def replica_manager(tmp_path, time):
    with replica_manager_leading(tmp_path, time,
                                 TopicPartition(records.GROUP_METADATA_TOPIC_NAME, 0)) as manager:
        yield manager
