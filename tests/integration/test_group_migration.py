"""Acceptance: a rolling upgrade of a consumer fleet from group.protocol=classic to consumer and back,
with confluent-kafka (librdkafka) on one broker, as Kafka 4's group.consumer.migration.policy=bidirectional
allows it: the classic group is upgraded when the first member of the new protocol joins, its classic
members live on inside the consumer group, and when the last member of the new protocol leaves it is
downgraded again. The consumers keep reading and committing through every step; at the end every
record was read, and the committed offsets are at the end of every partition."""

from __future__ import annotations

import threading

from confluent_kafka import Consumer, TopicPartition

from kafka.protocol.api_keys import ApiKey
from tests.helpers import unique_topic, wait_until
from tests.integration.test_confluent_kafka import create_topic
from tests.integration.test_consumer_group_protocol import produce
from tests.integration.test_group_protocol import find_coordinator
from tests.wire import WireClient

GROUPS = {"group.initial.rebalance.delay.ms": "0", "offsets.topic.num.partitions": "1",
          "group.consumer.heartbeat.interval.ms": "500", "group.consumer.session.timeout.ms": "6000"}
PARTITIONS, RECORDS = 3, 400  # produce() writes value v to partition v % 3


class Member:
    """One consumer process of the fleet: polls on its own thread, commits each record it reads."""

    def __init__(self, bootstrap: str, group: str, topic: str, protocol: str, seen: list[int]) -> None:
        config = {"bootstrap.servers": bootstrap, "group.id": group, "group.protocol": protocol,
                  "auto.offset.reset": "earliest", "enable.auto.commit": False}
        if protocol == "classic":
            config.update({"session.timeout.ms": 6000, "heartbeat.interval.ms": 500})
        self.consumer = Consumer(config)
        self.consumer.subscribe([topic])
        self.seen, self.stopping = seen, threading.Event()
        self.assigned = 0  # how many partitions it holds, as its own thread last saw (librdkafka's calls
        #                    are made from the thread that polls, never from the test's)
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.stopping.is_set():
            message = self.consumer.poll(0.1)
            self.assigned = len(self.consumer.assignment())
            if message is None or message.error() is not None:
                continue
            self.seen.append(int(message.value()))
            try:
                self.consumer.commit(message, asynchronous=False)
            except Exception:  # noqa: BLE001 - a commit refused mid-rebalance is retried by the next record
                pass

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(15)
        self.consumer.close()  # LeaveGroup, or the heartbeat with epoch -1


def group_type(client: WireClient, group: str) -> str | None:
    listed = client.request(ApiKey.LIST_GROUPS, 5, dict(states_filter=[], types_filter=[]))
    return next((g.group_type for g in listed.groups if g.group_id == group), None)


def test_a_fleet_moves_to_the_consumer_protocol_and_back_one_member_at_a_time(start_broker):
    broker = start_broker(overrides=GROUPS)
    topic, group = unique_topic("rolling"), unique_topic("fleet")
    create_topic(broker.bootstrap, topic, PARTITIONS)
    client = WireClient(broker.port)
    find_coordinator(client, group)
    seen: list[int] = []

    def produce_more(start: int) -> None:
        produce_values = range(start, start + RECORDS // 4)
        produce(broker.bootstrap, topic, produce_values)

    a = Member(broker.bootstrap, group, topic, "classic", seen)
    b = Member(broker.bootstrap, group, topic, "classic", seen)
    produce_more(0)
    wait_until(lambda: len(set(seen)) >= RECORDS // 4, timeout=60, message="the classic fleet to read the first part")
    assert group_type(client, group) == "classic"

    b.stop()  # the first process restarts with the new protocol: the group is upgraded
    b = Member(broker.bootstrap, group, topic, "consumer", seen)
    wait_until(lambda: group_type(client, group) == "consumer", timeout=30, message="the upgrade")
    produce_more(RECORDS // 4)
    wait_until(lambda: len(set(seen)) >= RECORDS // 2, timeout=60, message="the mixed group to read on")

    a.stop()  # the second one too: the group holds only members of the new protocol
    a = Member(broker.bootstrap, group, topic, "consumer", seen)
    produce_more(RECORDS // 2)
    wait_until(lambda: len(set(seen)) >= 3 * RECORDS // 4, timeout=60, message="the new fleet to read on")

    # and back: a classic member joins the consumer group, then the last member of the new protocol leaves
    a.stop()
    a = Member(broker.bootstrap, group, topic, "classic", seen)
    wait_until(lambda: a.assigned, timeout=30, message="the classic member to get partitions")
    b.stop()
    wait_until(lambda: group_type(client, group) == "classic", timeout=30, message="the downgrade")
    produce_more(3 * RECORDS // 4)
    wait_until(lambda: len(set(seen)) >= RECORDS, timeout=60, message="the classic member to read the rest")
    a.stop()

    assert set(seen) == set(range(RECORDS)), "every record read at least once"
    checker = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group})
    committed = checker.committed([TopicPartition(topic, p) for p in range(PARTITIONS)], timeout=10)
    ends = [checker.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in range(PARTITIONS)]
    checker.close()
    assert [tp.offset for tp in committed] == ends, "every partition committed to its end"
    client.close()
