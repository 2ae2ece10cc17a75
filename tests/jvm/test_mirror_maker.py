"""MirrorMaker 2 between Apache Kafka 4.4 and this broker, both ways: `make demo-mirror`
(examples/mirror/demo.py) as a test (issue 42; docs/ecosystem.md#mirrormaker-2).

The clusters of examples/mirror/mm2.properties, with this test's ports appended: `apache`, an Apache Kafka
4.4 node started from its Maven jars (tests/jvm/apache_kafka.py, as the differential tier starts it), and
`teaching`, this broker started as `make run` starts it. MirrorMaker 2 runs as bin/connect-mirror-maker.sh
runs it (dedicated mode, connect-mirror 4.3.1: the newest release whose connect-mirror jar Maven Central
serves here) with both flows on: `orders` and group `billing` from apache to teaching, `payments` and group
`audit` from teaching to apache. So this broker is a source (its records, its groups' committed offsets and
the offset-syncs topic MirrorMaker writes beside them are read from it) and a target (records produced to it,
checkpoints, heartbeats, the Connect worker's compacted topics, and group offsets written into it with
AlterConsumerGroupOffsets).

The clients are confluent-kafka's (the demo uses this repository's own): 30 records with keys and a header
into each source, its group reads them and commits; MirrorMaker starts; once each group's offsets are
translated onto the copy, 10 more records go into each source, and each group, moved to the other cluster,
must read exactly those 10. Every copy must equal its source: keys, values, headers, order per partition.
"""

from __future__ import annotations

import signal
import struct
import subprocess
import time
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic

from tests.helpers import REPO, wait_until
from tests.jvm import resolve
from tests.jvm.apache_kafka import ApacheKafka
from tests.jvm.jvm import classpath

pytestmark = [pytest.mark.broker, pytest.mark.timeout(300)]

EXAMPLES = REPO / "examples" / "mirror"
LOG4J2 = EXAMPLES / "log4j2.properties"
PARTITIONS = 3
FLOWS = (("apache", "orders", "billing"), ("teaching", "payments", "audit"))  # (source alias, topic, group)
OTHER = {"apache": "teaching", "teaching": "apache"}


class MirrorMaker:
    """org.apache.kafka.connect.mirror.MirrorMaker on a copy of examples/mirror/mm2.properties."""

    def __init__(self, home: Path, clusters: dict[str, str], jars: str, extra: dict[str, str]) -> None:
        self.log_path = home / "mirror-maker.log"
        config = home / "mm2.properties"
        extra = {**{f"{alias}.bootstrap.servers": b for alias, b in clusters.items()}, **extra}
        config.write_text((EXAMPLES / "mm2.properties").read_text()
                          + "".join(f"{key} = {value}\n" for key, value in extra.items()))
        out = open(home / "mirror-maker.out", "wb")
        self.process = subprocess.Popen(
            ["java", "-XX:TieredStopAtLevel=1", f"-Dlog4j2.configurationFile={LOG4J2}",
             f"-Dmirror.log.file={self.log_path}", "-cp", jars,
             "org.apache.kafka.connect.mirror.MirrorMaker", str(config)],
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        out.close()

    def running(self) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"MirrorMaker exited {self.process.returncode}:\n{self.log_tail()}")
        return True

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)

    def log_tail(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:] if self.log_path.exists() else ""


# Both brokers let a group's first member in at once, as the differential tier's shared settings do: six
# groups join here (two readers a cluster, a Connect worker a flow), each 3 s sooner.
NO_JOIN_DELAY = {"group.initial.rebalance.delay.ms": "0"}


@pytest.fixture
def apache_node(tmp_path):
    try:
        kafka = ApacheKafka(tmp_path / "apache-kafka", overrides=NO_JOIN_DELAY).start()
    except resolve.ResolveError as e:
        pytest.fail(str(e), pytrace=False)
    yield kafka
    kafka.stop()


@pytest.fixture
def mirror_maker(tmp_path):
    started: list[MirrorMaker] = []
    jars = classpath("connect")

    def start(clusters: dict[str, str], extra: dict[str, str] | None = None) -> MirrorMaker:
        """MirrorMaker on mm2.properties with `clusters`' bootstraps and the `extra` keys appended."""
        started.append(MirrorMaker(tmp_path, clusters, jars, extra or {}))
        return started[-1]

    yield start
    for process in started:
        process.stop()


def produce(bootstrap: str, topic: str, first: int, count: int) -> None:
    producer = Producer({"bootstrap.servers": bootstrap})
    for n in range(first, first + count):
        producer.produce(topic, key=f"customer-{n % 7}", value=f"{topic} #{n}",
                         headers=[("seq", str(n).encode())])
    assert producer.flush(30) == 0


def read_group(bootstrap: str, topic: str, group: str, count: int, then_more: bool = False) -> list:
    """`count` records (partition, offset, key, value, headers) read in `group`, which commits them;
    `then_more`: and whatever else arrives in two more seconds, which should be nothing."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "earliest",
                         "enable.auto.commit": False})
    consumer.subscribe([topic])
    records: list = []
    deadline = time.monotonic() + 60
    while len(records) < count and time.monotonic() < deadline:
        message = consumer.poll(0.5)
        if message is not None and message.error() is None:
            records.append((message.partition(), message.offset(), message.key(), message.value(),
                            message.headers()))
    # A few more polls: a record beyond `count` would be one read twice or one that should not be there.
    extra_deadline = time.monotonic() + (2 if then_more else 0)
    while time.monotonic() < extra_deadline:
        message = consumer.poll(0.2)
        if message is not None and message.error() is None:
            records.append((message.partition(), message.offset(), message.key(), message.value(),
                            message.headers()))
    consumer.commit(asynchronous=False)
    consumer.close()
    return records


def read_topic(bootstrap: str, topic: str) -> dict[int, list[tuple]]:
    """Every record of `topic`, partition by partition: (key, value, headers) in offset order."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "test-reader",
                         "enable.auto.commit": False})
    ends = end_offsets(bootstrap, topic)
    consumer.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
    found: dict[int, list[tuple]] = {p: [] for p in range(PARTITIONS)}
    deadline = time.monotonic() + 60
    while sum(len(r) for r in found.values()) < sum(ends.values()) and time.monotonic() < deadline:
        message = consumer.poll(0.5)
        if message is not None and message.error() is None:
            found[message.partition()].append((message.key(), message.value(), message.headers()))
    consumer.close()
    return found


def end_offsets(bootstrap: str, topic: str, partitions: int = PARTITIONS) -> dict[int, int]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "test-offsets"})
    try:
        return {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1]
                for p in range(partitions)}
    finally:
        consumer.close()


def committed(bootstrap: str, group: str, topic: str) -> dict[int, int]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    try:
        found = consumer.committed([TopicPartition(topic, p) for p in range(PARTITIONS)], timeout=10)
    finally:
        consumer.close()
    return {tp.partition: tp.offset for tp in found if tp.offset >= 0}


def topic_exists(bootstrap: str, topic: str) -> bool:
    return topic in AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10).topics


def checkpoints(bootstrap: str, topic: str) -> dict[tuple[str, str, int], tuple[int, int]]:
    """The latest checkpoint per (group, topic, partition) in a `<source>.checkpoints.internal` topic:
    (upstream offset, downstream offset). Kafka's Checkpoint key is a Struct of group, topic (STRING: an
    int16 length and UTF-8) and partition (INT32); the value a version (INT16), then the upstream and
    downstream offsets (INT64) and the metadata."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "test-checkpoints",
                         "enable.auto.commit": False})
    end = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)[1]
    consumer.assign([TopicPartition(topic, 0, 0)])
    latest: dict[tuple[str, str, int], tuple[int, int]] = {}
    read, deadline = 0, time.monotonic() + 30
    while read < end and time.monotonic() < deadline:
        message = consumer.poll(0.5)
        if message is None or message.error() is not None:
            continue
        read += 1
        key = message.key()
        group_length = struct.unpack_from(">h", key)[0]
        group = key[2:2 + group_length].decode()
        topic_length = struct.unpack_from(">h", key, 2 + group_length)[0]
        name = key[4 + group_length:4 + group_length + topic_length].decode()
        partition = struct.unpack_from(">i", key, 4 + group_length + topic_length)[0]
        _version, upstream, downstream = struct.unpack_from(">hqq", message.value())
        latest[(group, name, partition)] = (upstream, downstream)
    consumer.close()
    return latest


def test_topics_and_group_offsets_mirror_both_ways(apache_node, broker_process, mirror_maker):
    ours = broker_process(overrides=NO_JOIN_DELAY)
    clusters = {"apache": apache_node.bootstrap, "teaching": ours.bootstrap}
    for source, topic, group in FLOWS:
        admin = AdminClient({"bootstrap.servers": clusters[source]})
        admin.create_topics([NewTopic(topic, PARTITIONS, 1)])[topic].result(30)
        produce(clusters[source], topic, 0, 30)
        assert len(read_group(clusters[source], topic, group, 30)) == 30
        assert sum(committed(clusters[source], group, topic).values()) == 30

    mm2 = mirror_maker(clusters)
    translated = {}
    for source, topic, group in FLOWS:
        target, copy = clusters[OTHER[source]], f"{source}.{topic}"

        def group_offsets_on_the_copy(target=target, copy=copy, group=group):
            mm2.running()
            if not topic_exists(target, copy):
                return None
            offsets, ends = committed(target, group, copy), end_offsets(target, copy)
            return offsets if offsets == ends and sum(ends.values()) == 30 else None
        translated[group] = wait_until(group_offsets_on_the_copy, timeout=120, interval=0.5,
                                       message=f"group {group}'s offsets on {copy}")

    # Where those offsets came from: the checkpoints MirrorMaker wrote on each target, source offsets
    # beside the target's, read by way of the offset syncs it wrote on each source.
    for source, topic, group in FLOWS:
        target, copy = clusters[OTHER[source]], f"{source}.{topic}"
        upstream = committed(clusters[source], group, topic)
        latest = checkpoints(target, f"{source}.checkpoints.internal")
        assert {p: latest[(group, copy, p)] for p in range(PARTITIONS)} == \
            {p: (upstream[p], translated[group][p]) for p in range(PARTITIONS)}
        offset_syncs = f"mm2-offset-syncs.{OTHER[source]}.internal"  # on the source, by default
        assert sum(end_offsets(clusters[source], offset_syncs, partitions=1).values()) > 0

    # The Connect worker of the flow into this broker keeps its state in compacted topics here.
    admin = AdminClient({"bootstrap.servers": ours.bootstrap})
    internal = [f"mm2-{kind}.apache.internal" for kind in ("configs", "offsets", "status")]
    described = admin.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, t) for t in internal])
    for resource, future in described.items():
        assert future.result(30)["cleanup.policy"].value == "compact", resource.name

    for source, topic, group in FLOWS:  # each group moves to the other cluster and resumes there
        target, copy = clusters[OTHER[source]], f"{source}.{topic}"
        produce(clusters[source], topic, 30, 10)
        wait_until(lambda target=target, copy=copy: mm2.running()
                   and sum(end_offsets(target, copy).values()) == 40,
                   timeout=60, interval=0.5, message=f"40 records in {copy}")
        records = read_group(target, copy, group, 10, then_more=True)
        assert sorted(int(dict(r[4])["seq"]) for r in records) == list(range(30, 40)), records
        first = {}
        for partition, offset, *_ in records:
            first.setdefault(partition, offset)
        assert first == {p: o for p, o in translated[group].items() if p in first}

    for source, topic, _ in FLOWS:  # the copies: keys, values, headers, order per partition
        original = read_topic(clusters[source], topic)
        copy = read_topic(clusters[OTHER[source]], f"{source}.{topic}")
        assert sum(len(r) for r in original.values()) == 40
        assert copy == original

    # Heartbeats: each flow's heartbeat connector writes to `heartbeats` on its target, and the other flow
    # carries them back as `<alias>.heartbeats`.
    for alias, bootstrap in clusters.items():
        assert sum(end_offsets(bootstrap, "heartbeats", partitions=1).values()) > 0
        carried_back = f"{OTHER[alias]}.heartbeats"
        wait_until(lambda bootstrap=bootstrap, topic=carried_back: topic_exists(bootstrap, topic),
                   timeout=30, interval=0.5, message=f"{carried_back} on {alias}")
