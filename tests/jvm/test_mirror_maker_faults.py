"""MirrorMaker 2 while its target, this broker, restarts mid-replication (issue 42's faults;
docs/ecosystem.md#mirrormaker-2).

The arrangement of test_mirror_maker.py: an Apache Kafka 4.4 node (`apache`), this broker started as
`make run` starts it (`teaching`), MirrorMaker 2 in dedicated mode (connect-mirror 4.3.1) on
examples/mirror/mm2.properties. `orders` on apache is mirrored to `apache.orders` on teaching; the flow's
Connect worker keeps its group and its three compacted topics on teaching too, so the restart takes away
everything that flow writes to.

30 records are mirrored and MirrorMaker has committed their source offsets (in `mm2-offsets.apache.internal`,
on teaching); then this broker stops (SIGTERM, a clean shutdown, or SIGKILL, which leaves its logs to be
recovered), 30 more records go into `orders` while it is down, and it starts again on the same port and
data directory. MirrorMaker must resume by itself, and `apache.orders` must end up
holding exactly `orders`' records: per partition the same count, keys, values and headers, in order, so
nothing it had committed is written twice.
"""

from __future__ import annotations

import json
import signal

import pytest
from confluent_kafka import Consumer, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.helpers import wait_until
from tests.jvm import test_mirror_maker
from tests.jvm.test_mirror_maker import (
    NO_JOIN_DELAY,
    PARTITIONS,
    end_offsets,
    produce,
    read_topic,
    topic_exists,
)

pytestmark = [pytest.mark.broker, pytest.mark.timeout(240)]

apache_node, mirror_maker = test_mirror_maker.apache_node, test_mirror_maker.mirror_maker  # its fixtures

# Only the flow into this broker; its worker commits source offsets every second (Connect's default: 60 s).
# A flow's Connect worker takes its settings from keys prefixed with its target's alias.
ONE_FLOW = {"teaching->apache.enabled": "false", "teaching.offset.flush.interval.ms": "1000"}


def committed_source_offsets(bootstrap: str, topic: str, source_topic: str) -> dict[int, int]:
    """MirrorSourceTask's committed offsets in the flow's Connect offsets `topic`: per partition of
    `source_topic`, the upstream offset of the last record it has committed. The key is Connect's JSON
    `["MirrorSourceConnector", {"cluster": ..., "partition": ..., "topic": ...}]`, the value
    `{"offset": N}`."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "test-offsets-reader",
                         "enable.auto.commit": False})
    try:
        partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
        ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1]
                for p in partitions}
        consumer.assign([TopicPartition(topic, p, 0) for p, end in ends.items() if end > 0])
        latest: dict[int, int] = {}
        read = 0

        def read_all() -> bool:
            nonlocal read
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                read += 1
                connector, partition = json.loads(message.key())
                if (connector, partition.get("topic")) == ("MirrorSourceConnector", source_topic) \
                        and message.value() is not None:
                    latest[partition["partition"]] = json.loads(message.value())["offset"]
            return read >= sum(ends.values())
        wait_until(read_all, timeout=30, interval=0, message=f"all of {topic}")
        return latest
    finally:
        consumer.close()


def records_in(bootstrap: str, topic: str) -> int | None:
    """How many records `topic` holds; None while its leader is not back yet. A restarted broker serves
    requests once it has caught up with the metadata log, before the controller unfences it and elects it
    leader of its partitions again, so for a moment it answers NOT_LEADER_OR_FOLLOWER, as Kafka's does."""
    try:
        return sum(end_offsets(bootstrap, topic).values())
    except KafkaException:
        return None


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_mirroring_resumes_after_the_target_restarts_and_writes_nothing_twice(
        how, apache_node, broker_process, mirror_maker, tmp_path):
    data_dir = tmp_path / "teaching"
    ours = broker_process(data_dir=data_dir, overrides=NO_JOIN_DELAY)
    clusters = {"apache": apache_node.bootstrap, "teaching": ours.bootstrap}
    admin = AdminClient({"bootstrap.servers": apache_node.bootstrap})
    admin.create_topics([NewTopic("orders", PARTITIONS, 1)])["orders"].result(30)
    produce(apache_node.bootstrap, "orders", 0, 30)
    source_ends = end_offsets(apache_node.bootstrap, "orders")

    mm2 = mirror_maker(clusters, ONE_FLOW)
    wait_until(lambda: mm2.running() and topic_exists(ours.bootstrap, "apache.orders")
               and sum(end_offsets(ours.bootstrap, "apache.orders").values()) == 30,
               timeout=120, interval=0.5, message="30 records in apache.orders")
    # Committed: the last upstream offset of each partition, one below its end.
    wait_until(lambda: mm2.running()
               and committed_source_offsets(ours.bootstrap, "mm2-offsets.apache.internal", "orders")
               == {p: end - 1 for p, end in source_ends.items()},
               timeout=30, interval=0.5, message="MirrorMaker's source offsets committed")

    sig = signal.Signals[how]
    assert ours.stop(sig, timeout=30) == (0 if sig == signal.SIGTERM else -sig)
    produce(apache_node.bootstrap, "orders", 30, 30)  # while the target is down
    ours = broker_process(data_dir=data_dir, overrides=NO_JOIN_DELAY, port=ours.port)

    wait_until(lambda: mm2.running() and (records_in(ours.bootstrap, "apache.orders") or 0) >= 60,
               timeout=120, interval=0.5, message=f"60 records in apache.orders:\n{mm2.log_tail()}")
    original, copy = read_topic(apache_node.bootstrap, "orders"), read_topic(ours.bootstrap, "apache.orders")
    assert sum(len(records) for records in original.values()) == 60
    assert {p: len(r) for p, r in copy.items()} == {p: len(r) for p, r in original.items()}
    assert copy == original
