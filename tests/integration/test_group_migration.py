"""Acceptance: a rolling upgrade of a consumer fleet from group.protocol=classic to consumer and back,
with confluent-kafka (librdkafka) on one broker, as Kafka 4's group.consumer.migration.policy=bidirectional
allows it (tests/labs/rolling_upgrade.py, lab 06 step 10, runs the story): the classic group is upgraded
when the first member of the new protocol joins, its classic members live on inside the consumer group,
and when the last member of the new protocol leaves it is downgraded again. The consumers keep reading
and committing through every step; at the end every record was read, and the committed offsets are at
the end of every partition. With the policy disabled the member of the new protocol is refused."""

from __future__ import annotations

import urllib.request

from confluent_kafka import Consumer

from tests.helpers import unique_topic, wait_until
from tests.integration.test_confluent_kafka import create_topic
from tests.labs.rolling_upgrade import Member, rolling_upgrade

GROUPS = {"group.initial.rebalance.delay.ms": "0", "offsets.topic.num.partitions": "1",
          "group.consumer.heartbeat.interval.ms": "500", "group.consumer.session.timeout.ms": "6000",
          # below Kafka's floors (5 s, 45 s), which the broker checks the defaults against
          "group.consumer.min.heartbeat.interval.ms": "500", "group.consumer.min.session.timeout.ms": "6000"}


def test_a_fleet_moves_to_the_consumer_protocol_and_back_one_member_at_a_time(start_broker):
    broker = start_broker(overrides=GROUPS)
    result = rolling_upgrade(broker.bootstrap, say=lambda line: print(line))
    assert [kind for _, kind in result["steps"]] == ["classic", "consumer", "consumer",
                                                     "classic"], result["steps"]
    assert result["read"] == set(range(result["records"])), "every record read at least once"
    assert result["committed"] == result["ends"], "every partition committed to its end"


def refusals(broker) -> float:
    text = urllib.request.urlopen(f"{broker.server.metrics_endpoint.url}/metrics", timeout=10).read().decode()
    return sum(float(line.split()[-1]) for line in text.splitlines()
               if 'request="ConsumerGroupHeartbeat"' in line and 'error="GROUP_ID_NOT_FOUND"' in line
               and line.startswith("kafka_network_requestmetrics_errors_total"))


def test_with_the_policy_disabled_the_new_protocol_member_is_refused(start_broker):
    broker = start_broker(overrides={**GROUPS, "group.consumer.migration.policy": "disabled"})
    topic, group = unique_topic("no-migration"), unique_topic("fleet")
    create_topic(broker.bootstrap, topic, 3)
    seen: list[int] = []
    classic = Member(broker.bootstrap, group, topic, "classic", seen)
    wait_until(lambda: classic.assigned == 3, timeout=30, message="the classic member's partitions")
    refused = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group,
                        "group.protocol": "consumer"})
    refused.subscribe([topic])
    try:
        # librdkafka takes GROUP_ID_NOT_FOUND as a fatal error of the consumer (as the Java client does);
        # the broker's ErrorsPerSec counts the refusal
        wait_until(lambda: refused.poll(0.2) is None and refusals(broker) > 0, timeout=30,
                   message="a ConsumerGroupHeartbeat refused with GROUP_ID_NOT_FOUND")
        assert refused.assignment() == [] and classic.assigned == 3
    finally:
        refused.close()
        classic.stop()
