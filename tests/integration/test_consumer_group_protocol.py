"""Acceptance: the KIP-848 consumer group protocol (``group.protocol=consumer``) with confluent-kafka
(librdkafka 2.x) on one broker: commits resumed after a restart; a killed member removed after
``group.consumer.session.timeout.ms``; kafka-consumer-groups on both kinds; and the errors Kafka
gives to bad requests, sent byte for byte (tests/wire.py). A fourth member joining without the
others stopping, measured beside the classic protocol, is lab 06's check
(tests/labs/test_lab_06_consumer_groups.py, with tests/labs/rebalance_pause.py).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid

from confluent_kafka import Consumer, Producer

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.tools import consumer_groups
from tests.helpers import REPO, unique_topic, wait_until
from tests.integration.test_confluent_kafka import create_topic
from tests.integration.test_group_protocol import find_coordinator, join
from tests.wire import WireClient

GROUPS = {"group.initial.rebalance.delay.ms": "0", "offsets.topic.num.partitions": "1",
          "group.consumer.heartbeat.interval.ms": "500", "group.consumer.session.timeout.ms": "3000",
          # below Kafka's floors (5 s, 45 s), which the broker checks the defaults against
          "group.consumer.min.heartbeat.interval.ms": "500", "group.consumer.min.session.timeout.ms": "3000"}


def consumer(bootstrap: str, group: str, **extra) -> Consumer:
    return Consumer({"bootstrap.servers": bootstrap, "group.id": group, "group.protocol": "consumer",
                     "auto.offset.reset": "earliest", "enable.auto.commit": False, **extra})


def produce(bootstrap: str, topic: str, values: range) -> None:
    producer = Producer({"bootstrap.servers": bootstrap})
    for v in values:
        producer.produce(topic, str(v).encode(), partition=v % 3)
    assert producer.flush(10) == 0


def consume(c: Consumer, count: int) -> list[int]:
    got: list[int] = []

    def more():
        message = c.poll(0.1)
        if message is not None and message.error() is None:
            got.append(int(message.value()))
        return len(got) >= count
    wait_until(more, timeout=30, message=f"{count} records")
    return sorted(got)


KILLABLE_CONSUMER = """
import sys
from confluent_kafka import Consumer
c = Consumer({"bootstrap.servers": sys.argv[1], "group.id": sys.argv[2], "group.protocol": "consumer",
              "auto.offset.reset": "earliest"})
c.subscribe([sys.argv[3]])
while True:
    c.poll(0.1)
    if c.assignment():
        print("ASSIGNED", flush=True)
"""


def test_commits_resume_after_a_restart_a_killed_member_goes_and_the_tool_shows_both_kinds(start_broker,
                                                                                           capsys):
    broker = start_broker(overrides=GROUPS)
    topic, group = unique_topic("kip848"), unique_topic("g")
    create_topic(broker.bootstrap, topic, 3)
    produce(broker.bootstrap, topic, range(30))
    first = consumer(broker.bootstrap, group)
    first.subscribe([topic])
    assert consume(first, 30) == list(range(30))
    first.commit(asynchronous=False)  # OffsetCommit v9 with the member's epoch
    first.close()
    produce(broker.bootstrap, topic, range(30, 39))
    second = consumer(broker.bootstrap, group)
    second.subscribe([topic])
    assert consume(second, 9) == list(range(30, 39)), "resumed from the committed offsets, nothing read twice"

    child = subprocess.Popen([sys.executable, "-c", KILLABLE_CONSUMER, broker.bootstrap, group, topic],
                             stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        child_assigned = threading.Event()
        threading.Thread(target=lambda: child.stdout.readline() and child_assigned.set(), daemon=True).start()
        # the second member polls meanwhile: that is where librdkafka hands the child's share back
        wait_until(lambda: (second.poll(0.05), child_assigned.is_set() and len(second.assignment()) < 3)[1],
                   timeout=30, message="the second member to give the child its share")
        killed_at = time.monotonic()
        os.kill(child.pid, signal.SIGKILL)  # no leave heartbeat: only the silence tells
        wait_until(lambda: second.poll(0.05) is None and len(second.assignment()) == 3, timeout=30,
                   message="the survivor to take every partition back")
        took = time.monotonic() - killed_at
        print(f"\nkilled member's partitions back after {took:.2f} s "
              "(group.consumer.session.timeout.ms=3000)")
        assert took >= 2.0, f"took over after {took:.2f}s, before the session timeout could expire"
    finally:
        child.kill()
        child.wait(10)

    capsys.readouterr()
    bootstrap = ["--bootstrap-server", broker.bootstrap]
    assert consumer_groups.main([*bootstrap, "--describe", "--group", group, "--members", "--verbose"]) == 0
    members = capsys.readouterr().out
    assert "CURRENT-EPOCH" in members and "TARGET-ASSIGNMENT" in members, members
    assert f"{topic}:0,1,2" in members, members
    assert consumer_groups.main([*bootstrap, "--describe", "--group", group, "--state", "--verbose"]) == 0
    state = capsys.readouterr().out
    assert "uniform" in state and "Stable" in state and "GROUP-EPOCH" in state, state
    assert consumer_groups.main([*bootstrap, "--describe", "--group", group]) == 0
    described = " ".join(capsys.readouterr().out.split())
    assert f"{group} {topic}" in described, "offsets and lag as for classic groups"
    assert consumer_groups.main([*bootstrap, "--list", "--type"]) == 0
    listed = capsys.readouterr().out
    assert any(line.split() == [group, "Consumer"] for line in listed.splitlines()), listed
    second.close()


def heartbeat(client: WireClient, group: str, member_id: str, epoch: int, **extra):
    """ConsumerGroupHeartbeat v1, asked again while the group's shard is still loading, as a client
    does: FindCoordinator answers once this broker leads the partition, and the shard that replays it
    says COORDINATOR_LOAD_IN_PROGRESS until it has (a refused request writes nothing)."""
    body = dict(group_id=group, member_id=member_id, member_epoch=epoch, rebalance_timeout_ms=30000,
                subscribed_topic_names=["t"], topic_partitions=[])
    body.update(extra)

    def answered():
        answer = client.request(ApiKey.CONSUMER_GROUP_HEARTBEAT, 1, body)
        return None if answer.error_code == Errors.COORDINATOR_LOAD_IN_PROGRESS else answer
    return wait_until(answered, timeout=30, interval=0.05, message=f"the shard of {group!r} to load")


def test_bad_requests_get_kafkas_errors(start_broker):
    broker = start_broker(overrides=GROUPS)
    create_topic(broker.bootstrap, "t", 2)
    client = WireClient(broker.port)
    find_coordinator(client, "g")
    member = str(uuid.uuid4())
    joined = heartbeat(client, "g", member, 0)
    assert (joined.error_code, joined.member_epoch, joined.heartbeat_interval_ms) == (Errors.NONE, 1, 500)
    assert sorted(joined.assignment.topic_partitions[0].partitions) == [0, 1]
    assert heartbeat(client, "g", member, 7).error_code == Errors.FENCED_MEMBER_EPOCH
    assert heartbeat(client, "g", "nobody", 1).error_code == Errors.UNKNOWN_MEMBER_ID
    unsupported = heartbeat(client, "g", str(uuid.uuid4()), 0, server_assignor="sticky")
    assert unsupported.error_code == Errors.UNSUPPORTED_ASSIGNOR, unsupported
    assert "uniform, range" in unsupported.error_message
    assert heartbeat(client, "g", member, 0, rebalance_timeout_ms=-1).error_code == Errors.INVALID_REQUEST
    bad_regex = heartbeat(client, "g", str(uuid.uuid4()), 0, subscribed_topic_names=None,
                          subscribed_topic_regex="t(")
    assert bad_regex.error_code == Errors.INVALID_REGULAR_EXPRESSION

    described = client.request(ApiKey.CONSUMER_GROUP_DESCRIBE, 1, dict(group_ids=["g", "nothing"],
                                                                       include_authorized_operations=False))
    g, nothing = described.groups
    assert (g.group_state, g.group_epoch, g.assignment_epoch, g.assignor_name) == ("Stable", 1, 1, "uniform")
    assert g.members[0].member_epoch == 1 and g.members[0].member_type == 1
    assert nothing.error_code == Errors.GROUP_ID_NOT_FOUND

    # a classic JoinGroup for a consumer group with members: welcome if it speaks the consumer embedded
    # protocol (a rolling upgrade's mixed group; docs/groups.md), refused otherwise
    assert join(client, "g", protocol_type="connect").error_code == Errors.INCONSISTENT_GROUP_PROTOCOL
    assert join(client, "g").error_code == Errors.MEMBER_ID_REQUIRED
    # a ConsumerGroupHeartbeat for a classic group of another protocol type: it keeps its id
    find_coordinator(client, "connect")
    assert join(client, "connect", protocol_type="connect").error_code == Errors.MEMBER_ID_REQUIRED
    connect_id = join(client, "connect", protocol_type="connect").member_id
    assert join(client, "connect", member_id=connect_id, protocol_type="connect").error_code == Errors.NONE
    assert heartbeat(client, "connect", member, 0).error_code == Errors.GROUP_ID_NOT_FOUND

    # offsets: the member's epoch, OffsetCommit v9; a stale epoch, an old version
    def commit(epoch: int, version: int = 9):
        body = dict(group_id="g", generation_id_or_member_epoch=epoch, member_id=member,
                    group_instance_id=None,
                    topics=[dict(name="t", partitions=[dict(partition_index=0, committed_offset=5,
                                                            committed_metadata="")])])
        return client.request(ApiKey.OFFSET_COMMIT, version, body).topics[0].partitions[0].error_code
    assert commit(1) == Errors.NONE
    assert commit(0) == Errors.STALE_MEMBER_EPOCH
    assert commit(1, version=8) == Errors.UNSUPPORTED_VERSION
    fetched = client.request(ApiKey.OFFSET_FETCH, 9,
                             dict(groups=[dict(group_id="g", member_id=member, member_epoch=1,
                                                                       topics=None)], require_stable=True))
    assert fetched.groups[0].topics[0].partitions[0].committed_offset == 5
    stale = client.request(ApiKey.OFFSET_FETCH, 9,
                           dict(groups=[dict(group_id="g", member_id=member, member_epoch=0,
                                                                     topics=None)], require_stable=True))
    assert stale.groups[0].error_code == Errors.STALE_MEMBER_EPOCH

    listed = client.request(ApiKey.LIST_GROUPS, 5, dict(states_filter=[], types_filter=[]))
    assert {(x.group_id, x.group_type, x.group_state) for x in listed.groups} >= {
        ("g", "consumer", "Stable"), ("connect", "classic", "CompletingRebalance")}
    assert heartbeat(client, "g", member, -1).member_epoch == -1
    assert client.request(ApiKey.DELETE_GROUPS, 2,
                          dict(groups_names=["g"])).results[0].error_code == Errors.NONE
    client.close()


def test_the_group_survives_a_broker_restart(start_broker, tmp_path):
    """the group's records in __consumer_offsets: a restarted coordinator knows the member and its epoch"""
    data = tmp_path / "restart"
    broker = start_broker(data, GROUPS)
    create_topic(broker.bootstrap, "t", 2)
    client = WireClient(broker.port)
    find_coordinator(client, "g")
    member = str(uuid.uuid4())
    assert heartbeat(client, "g", member, 0).member_epoch == 1
    client.close()
    broker.stop()

    broker = start_broker(data, GROUPS)
    client = WireClient(broker.port)
    find_coordinator(client, "g")

    def described():
        answer = client.request(ApiKey.CONSUMER_GROUP_DESCRIBE, 1, dict(group_ids=["g"],
                                                                        include_authorized_operations=False))
        group = answer.groups[0]
        return group if group.error_code == Errors.NONE else None
    group = wait_until(described, message="the group loaded from __consumer_offsets")
    assert (group.group_epoch, group.assignment_epoch, [m.member_id for m in group.members]) == (1, 1,
                                                                                                 [member])
    assert sorted(group.members[0].assignment.topic_partitions[0].partitions) == [0, 1]
    owned = [dict(topic_id=group.members[0].assignment.topic_partitions[0].topic_id, partitions=[0, 1])]
    again = heartbeat(client, "g", member, 1, topic_partitions=owned, rebalance_timeout_ms=-1,
                      subscribed_topic_names=None)
    assert (again.error_code, again.member_epoch) == (Errors.NONE, 1)
    client.close()
