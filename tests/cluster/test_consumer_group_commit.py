"""A KIP-848 heartbeat is answered once its records are on the ISR, on three real nodes
(__consumer_offsets with replication factor 3), as Kafka's CoordinatorRuntime answers a write.

With both followers of the group's partition killed -- and the controller quorum with them, so the
ISR cannot shrink to the leader alone -- a join cannot commit: the coordinator answers it after
offsets.commit.timeout.ms with COORDINATOR_NOT_AVAILABLE (Kafka's mapping of REQUEST_TIMED_OUT),
not at once with an epoch the log may lose. Once the followers are back, the client's retry of the
same join is answered and the member is in the group.
"""

from __future__ import annotations

import time
from contextlib import closing

import pytest

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.utils.java_hash import java_string_hash, kafka_abs
from tests.cluster.kraft_cluster import started_cluster
from tests.cluster.test_replication import FAST_FAILURE_DETECTION, describe_partition
from tests.helpers import unique_topic, wait_until
from tests.integration.test_group_protocol import find_coordinator
from tests.wire import WireClient

pytestmark = pytest.mark.timeout(300)

COMMIT_TIMEOUT_S = 3.0


@pytest.fixture
def cluster(tmp_path, request):
    extra = {**FAST_FAILURE_DETECTION, "offsets.commit.timeout.ms": str(int(COMMIT_TIMEOUT_S * 1000))}
    with started_cluster(tmp_path, request, extra) as cluster:
        yield cluster


def join_request(group: str, member: str) -> dict:
    return dict(group_id=group, member_id=member, member_epoch=0, rebalance_timeout_ms=30000,
                subscribed_topic_names=["orders"], topic_partitions=[])


def test_a_join_is_answered_only_once_its_records_are_on_the_isr(cluster):
    cluster.await_leader(cluster.nodes[1])
    group = unique_topic("kip848")
    asked = WireClient(cluster.nodes[1].broker_port)

    def joined(member: str) -> bool:
        """As a client does: find the coordinator, and again while it is not ready to be one yet."""
        with closing(WireClient(find_coordinator(asked, group).port, timeout=30)) as client:
            answer = client.request(ApiKey.CONSUMER_GROUP_HEARTBEAT, 1, join_request(group, member))
        assert answer.error_code in (Errors.NONE, Errors.NOT_COORDINATOR, Errors.COORDINATOR_LOAD_IN_PROGRESS,
                                     Errors.COORDINATOR_NOT_AVAILABLE), answer
        return answer.error_code == Errors.NONE
    wait_until(lambda: joined("m1"), timeout=60, interval=0.2, message="m1 in the consumer group")

    partition = kafka_abs(java_string_hash(group)) % 50
    leader = wait_until(lambda: (p := describe_partition(cluster, "__consumer_offsets", partition))
                        and len(p.isr) == 3 and p.leader, timeout=30,
                        message="the offsets partition's full ISR")
    coordinator = find_coordinator(asked, group)
    asked.close()
    assert coordinator.node_id == leader
    followers = [n for i, n in cluster.nodes.items() if i != leader]
    for node in followers:
        node.kill()

    with closing(WireClient(coordinator.port, timeout=30)) as client:
        started = time.monotonic()
        answer = client.request(ApiKey.CONSUMER_GROUP_HEARTBEAT, 1, join_request(group, "m2"))
        waited = time.monotonic() - started
    assert answer.error_code == Errors.COORDINATOR_NOT_AVAILABLE, answer
    # (an error answer's epoch is the response's default, 0, as Kafka's)
    assert answer.member_epoch == 0 and answer.assignment is None, "nothing of the uncommitted join shows"
    assert waited >= COMMIT_TIMEOUT_S * 0.9, f"answered after {waited:.2f} s, before the commit timeout"

    for node in followers:
        node.start()
    with closing(WireClient(coordinator.port, timeout=30)) as client:
        def retried() -> bool:
            again = client.request(ApiKey.CONSUMER_GROUP_HEARTBEAT, 1, join_request(group, "m2"))
            assert again.error_code in (Errors.NONE, Errors.COORDINATOR_NOT_AVAILABLE), again
            return again.error_code == Errors.NONE
        wait_until(retried, timeout=90, interval=0.5, message="m2's join once the followers are back")
        described = client.request(ApiKey.CONSUMER_GROUP_DESCRIBE, 1, dict(
            group_ids=[group], include_authorized_operations=False)).groups[0]
    assert described.error_code == Errors.NONE
    assert sorted(m.member_id for m in described.members) == ["m1", "m2"]
