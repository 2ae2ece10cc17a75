"""Fixtures of the share coordinator tests: a real ReplicaManager and log on a mock clock, leading
partition 0 of __share_group_state, and one ShareCoordinator over it."""

from __future__ import annotations

import pytest

from tests.coordinator.share.share_coordinator_harness import STATE_TP, ShareCoordinator
from tests.helpers import replica_manager_leading


@pytest.fixture
def replica_manager(tmp_path, time):
    with replica_manager_leading(tmp_path, time, STATE_TP) as manager:
        yield manager


@pytest.fixture
def coordinator(replica_manager, time):
    c = ShareCoordinator(replica_manager, time)
    yield c
    c.shutdown()
