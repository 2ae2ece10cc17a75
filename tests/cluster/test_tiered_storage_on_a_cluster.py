"""Tiered storage (KIP-405) across three real nodes sharing one LocalTieredStorage directory: the leader of a
tiered partition copies its rolled segments, its followers track how far it got, and when the leader is killed
the new leader goes on copying from the end of the remote log (its own leader-epoch lineage's highest copied
offset), neither starting over nor leaving a gap.

What is remote is read as any broker reads it: the events of `__remote_log_metadata`, with a consumer of our
own, decoded by the serde the brokers write them with.
"""

from __future__ import annotations

import confluent_kafka
import pytest

from kafka.clients.admin import NewTopic
from kafka.clients.consumer.kafka_consumer import KafkaConsumer
from kafka.log.remote import remote_log_metadata_serde as serde
from kafka.log.remote.remote_log_segment_metadata import (
    RemoteLogSegmentMetadata,
    RemoteLogSegmentMetadataUpdate,
    RemoteLogSegmentState,
)
from kafka.utils.topic_partition import TopicPartition
from tests.cluster.kraft_cluster import started_cluster
from tests.cluster.test_kraft_cluster import created, topic_on
from tests.cluster.test_replication import FAST_FAILURE_DETECTION
from tests.helpers import unique_topic, wait_until

pytestmark = pytest.mark.timeout(400)

METADATA_PARTITIONS = 3
LOCAL_TIERED_STORAGE = "org.apache.kafka.server.log.remote.storage.LocalTieredStorage"


@pytest.fixture
def cluster(tmp_path, request):
    tiered = {"remote.log.storage.system.enable": "true",
              "remote.log.storage.manager.class.name": LOCAL_TIERED_STORAGE,
              "rsm.config.dir": str(tmp_path / "remote"),
              "remote.log.metadata.manager.listener.name": "PLAINTEXT",
              "rlmm.config.remote.log.metadata.topic.num.partitions": str(METADATA_PARTITIONS),
              "remote.log.manager.task.interval.ms": "300", "log.retention.check.interval.ms": "300"}
    with started_cluster(tmp_path, request, {**FAST_FAILURE_DETECTION, **tiered}) as cluster:
        yield cluster


def produce(bootstrap: str, topic: str, count: int, start: int) -> None:
    producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 2,
                                         "batch.size": 1024, "message.timeout.ms": 120000})
    for i in range(start, start + count):
        while True:
            try:
                producer.produce(topic, key=b"%d" % i, value=b"v" * 200)
                break
            except BufferError:
                producer.poll(0.1)
    assert producer.flush(120) == 0


def remote_segments(bootstrap: str, topic: str,
                    partitions: int = METADATA_PARTITIONS) -> list[RemoteLogSegmentMetadata]:
    """Every segment of the topic that `__remote_log_metadata` lists, in its latest state, by start offset."""
    consumer = KafkaConsumer({"bootstrap.servers": bootstrap, "auto.offset.reset": "earliest"})
    try:
        metadata_partitions = [TopicPartition("__remote_log_metadata", p) for p in range(partitions)]
        consumer.assign(metadata_partitions)
        ends = consumer.end_offsets(metadata_partitions)
        segments: dict = {}
        while any(consumer.position(tp) < end for tp, end in ends.items()):
            for record in consumer.poll(500):
                event = serde.deserialize(record.value)
                if isinstance(event, RemoteLogSegmentMetadata) and event.topic_id_partition.topic == topic:
                    segments[event.remote_log_segment_id] = event
                elif isinstance(event, RemoteLogSegmentMetadataUpdate):
                    segment_id = event.remote_log_segment_id
                    if segment_id in segments:
                        segments[segment_id] = segments[segment_id].create_with_update(event)
    finally:
        consumer.close()
    return sorted(segments.values(), key=lambda m: m.start_offset)


def finished_segments(bootstrap: str, topic: str) -> list[RemoteLogSegmentMetadata]:
    """The topic's remote segments whose copy finished and which are not being deleted, by start offset."""
    finished = RemoteLogSegmentState.COPY_SEGMENT_FINISHED
    return [m for m in remote_segments(bootstrap, topic) if m.state is finished]


def leader_of(cluster, topic: str) -> int | None:
    for node in cluster.nodes.values():
        if node.running:
            with node.admin() as admin:
                description = topic_on(admin, topic)
            if description is not None and description.partitions[0].leader >= 0:
                return description.partitions[0].leader
    return None


def copies_by(cluster, topic: str, broker_id: int, at_least: int) -> list[RemoteLogSegmentMetadata] | None:
    """Every finished remote segment, once broker_id copied at_least of them."""
    segments = finished_segments(cluster.bootstrap, topic)
    return segments if sum(m.broker_id == broker_id for m in segments) >= at_least else None


def another_leader(cluster, topic: str, former: int) -> int | None:
    leader = leader_of(cluster, topic)
    return leader if leader is not None and leader != former else None


def test_a_new_leader_continues_copying_from_the_remote_log_end(cluster):
    topic = unique_topic("tiered")
    node = cluster.nodes[1]
    with node.admin() as admin:
        wait_until(lambda: created(admin, NewTopic(topic, 1, 3, {
            "remote.storage.enable": "true", "segment.bytes": "4096", "local.retention.bytes": "1",
            "min.insync.replicas": "2"})), timeout=60, message="the tiered topic created", interval=0.5)
    first_leader = wait_until(lambda: leader_of(cluster, topic), timeout=60, message="a leader")
    produce(cluster.bootstrap, topic, 300, 0)  # ~75 KB: about twenty 4 KB segments

    copied = wait_until(lambda: copies_by(cluster, topic, first_leader, 6), timeout=120,
                        message="the first leader's copies", interval=0.5)
    assert {m.broker_id for m in copied} == {first_leader}
    assert copied[0].start_offset == 0

    cluster.nodes[first_leader].kill()
    new_leader = wait_until(lambda: another_leader(cluster, topic, first_leader), timeout=60,
                            message="a new leader", interval=0.5)
    produce(cluster.bootstrap, topic, 300, 300)

    def in_its_own_epoch() -> list[RemoteLogSegmentMetadata] | None:
        """The new leader's copies, once they reach the records written in its own leader epoch (first it
        copies what its predecessor had not yet)."""
        segments = copies_by(cluster, topic, new_leader, 1)
        return segments if segments and max(segments[-1].segment_leader_epochs) > 0 else None
    segments = wait_until(in_its_own_epoch, timeout=180, message="the new leader's copies", interval=0.5)
    newer = [m for m in segments if m.broker_id == new_leader]
    assert newer[0].start_offset > 0, "the new leader did not start over"
    old_end = max(m.end_offset for m in segments if m.broker_id == first_leader)  # it copied on until killed
    assert newer[0].start_offset <= old_end + 1 <= newer[0].end_offset, "nor left a gap"
    covered = 0
    for m in segments:  # every offset from 0 to the end is in some remote segment
        assert m.start_offset <= covered, f"a gap before {m.start_offset}"
        covered = max(covered, m.end_offset + 1)
