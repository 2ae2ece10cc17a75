"""Issue 43's done-when at a smaller scale, in `make test`: three real nodes tiering to S3 (S3Proxy on a
free port), a topic with 1 MiB segments and 2 MiB of local retention, replication factor 3.

- Its early segments leave every broker's disk and are in the bucket, one object set each.
- A leader killed with -9 in the middle of a copy: S3 is paused with SIGSTOP first, so the copy is surely
  under way (its COPY_SEGMENT_STARTED written, its PUTs waiting). Nobody ever reads that abandoned copy;
  the new leader copies the same offsets again, and the remote log then holds every offset in exactly one
  finished segment, from 0 to the end of the last rolled segment.
- Kafka's own console consumer (the Java client) and confluent-kafka each read every record from offset 0,
  most of them from S3, with the partition's leader killed with -9 halfway through each read.

`make s3` and `make cluster TIERED=s3` run the same at full size, 200 MB (docs/tiered_storage.md).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
from pathlib import Path

import confluent_kafka
import pytest

from kafka.clients.admin import NewTopic
from kafka.log.remote.remote_log_segment_metadata import RemoteLogSegmentMetadata, RemoteLogSegmentState
from tests.cluster.kraft_cluster import KRaftCluster, started_cluster
from tests.cluster.test_kraft_cluster import created
from tests.cluster.test_replication import FAST_FAILURE_DETECTION
from tests.cluster.test_tiered_storage_on_a_cluster import METADATA_PARTITIONS, leader_of, remote_segments
from tests.helpers import unique_topic, wait_until
from tests.jvm.jvm import classpath
from tests.s3proxy import BUCKET, S3Proxy

pytestmark = pytest.mark.timeout(500)

CONSOLE_CONSUMER = "org.apache.kafka.tools.consumer.ConsoleConsumer"
RECORD = b"r" * 1000
FIRST_BATCH = 12_000  # ~12 MB: twelve 1 MiB segments, of which local retention keeps the last two
DURING_THE_PAUSE = 3_000  # ~3 MB more, rolled while S3 is paused: the copy the kill interrupts
TOTAL = FIRST_BATCH + DURING_THE_PAUSE
STARTED, FINISHED = RemoteLogSegmentState.COPY_SEGMENT_STARTED, RemoteLogSegmentState.COPY_SEGMENT_FINISHED


@pytest.fixture
def s3(tmp_path):
    with S3Proxy(tmp_path / "s3") as server:
        yield server


@pytest.fixture
def cluster(tmp_path, request, s3):
    tiered = {"remote.log.storage.system.enable": "true",
              "remote.log.storage.manager.class.name":
                  "kafka.log.remote.s3_remote_storage_manager.S3RemoteStorageManager",
              **{f"rsm.config.{k}": v for k, v in s3.rsm_configs().items()},
              "remote.log.metadata.manager.listener.name": "PLAINTEXT",
              "rlmm.config.remote.log.metadata.topic.num.partitions": str(METADATA_PARTITIONS),
              "remote.log.manager.task.interval.ms": "300", "log.retention.check.interval.ms": "300"}
    (tmp_path / "cluster").mkdir()
    with started_cluster(tmp_path / "cluster", request, {**FAST_FAILURE_DETECTION, **tiered}) as cluster:
        yield cluster


def produce(bootstrap: str, topic: str, count: int) -> None:
    producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5,
                                         "message.timeout.ms": 120000})
    for _ in range(count):
        while True:
            try:
                producer.produce(topic, RECORD)
                break
            except BufferError:
                producer.poll(0.1)
    assert producer.flush(120) == 0


def local_bases(cluster: KRaftCluster, node_id: int, topic: str) -> list[int]:
    """The base offsets of the partition's segments on one broker's disk."""
    return sorted(int(p.name[:20]) for p in (cluster.nodes[node_id].data_dir / f"{topic}-0").glob("*.log"))


def bucket_bases(s3: S3Proxy, topic: str) -> list[int]:
    """The base offsets of the segment logs in the bucket, one per copy: S3Proxy keeps an object a file."""
    return sorted(int(p.name[:20]) for p in Path(s3.data_dir, "buckets", BUCKET).glob(f"{topic}-0-*/*.log"))


def covered_once(segments: list[RemoteLogSegmentMetadata]) -> int:
    """The end of the offsets the finished segments cover, once each and without a gap from 0."""
    covered = 0
    for m in (m for m in segments if m.state is FINISHED):
        assert m.start_offset == covered, f"segment {m.start_offset}-{m.end_offset} after {covered - 1}"
        covered = m.end_offset + 1
    return covered


def all_rolled_segments_copied(cluster: KRaftCluster, topic: str) -> list[RemoteLogSegmentMetadata] | None:
    leader = leader_of(cluster, topic)
    if leader is None:
        return None
    segments = remote_segments(cluster.bootstrap, topic)
    return segments if covered_once(segments) >= local_bases(cluster, leader, topic)[-1] else None


def early_segments_only_remote(cluster: KRaftCluster, s3: S3Proxy, topic: str) -> dict[int, list[int]] | None:
    """Each broker's local segments, once every broker has dropped its early ones, and every offset below
    the local start of each is in a finished remote segment whose files are in the bucket, once."""
    on_disk = {i: local_bases(cluster, i, topic) for i in cluster.nodes}
    if any(not bases or bases[0] == 0 or len(bases) > 4 for bases in on_disk.values()):
        return None
    segments = remote_segments(cluster.bootstrap, topic)
    if covered_once(segments) < max(bases[0] for bases in on_disk.values()):
        return None
    in_bucket = bucket_bases(s3, topic)
    assert len(in_bucket) == len(set(in_bucket)), f"a segment twice in the bucket: {in_bucket}"
    assert {m.start_offset for m in segments if m.state is FINISHED} <= set(in_bucket)
    return on_disk


def kill_the_leader_mid_copy(cluster: KRaftCluster, s3: S3Proxy,
                             topic: str) -> tuple[int, RemoteLogSegmentMetadata]:
    """SIGSTOP S3, roll more segments, wait for the leader's COPY_SEGMENT_STARTED, kill -9 the leader."""
    leader = leader_of(cluster, topic)
    os.kill(s3.process.pid, signal.SIGSTOP)
    try:
        produce(cluster.bootstrap, topic, DURING_THE_PAUSE)

        def copy_under_way() -> RemoteLogSegmentMetadata | None:
            return next((m for m in remote_segments(cluster.bootstrap, topic)
                         if m.state is STARTED and m.broker_id == leader), None)
        interrupted = wait_until(copy_under_way, timeout=60, message="a copy under way", interval=0.3)
        cluster.nodes[leader].kill()
    finally:
        os.kill(s3.process.pid, signal.SIGCONT)
    return leader, interrupted


def read_with_a_kill(cluster: KRaftCluster, topic: str, offsets, kill_after: int) -> int:
    """Kill -9 the partition's leader once `offsets` holds kill_after offsets; start it again; its id."""
    wait_until(lambda: len(offsets) >= kill_after, timeout=120, message=f"{kill_after} records read")
    leader = leader_of(cluster, topic)
    cluster.nodes[leader].kill()
    cluster.nodes[leader].start()
    return leader


def java_console_consumer_offsets(cluster: KRaftCluster, topic: str) -> tuple[set[int], int]:
    """Kafka's console consumer from the beginning, printing each record's offset; the offsets it printed
    and the leader killed halfway."""
    java = subprocess.Popen(
        ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", classpath("tools"), CONSOLE_CONSUMER,
         "--bootstrap-server", cluster.bootstrap, "--topic", topic, "--from-beginning",
         "--max-messages", str(TOTAL), "--timeout-ms", "120000", "--property", "print.offset=true",
         "--property", "print.value=false", "--consumer-property", "max.partition.fetch.bytes=262144"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    offsets: set[int] = set()

    def collect() -> None:
        for line in java.stdout:
            if (found := re.search(r"Offset:(\d+)", line)) is not None:
                offsets.add(int(found.group(1)))
    reader = threading.Thread(target=collect, daemon=True)
    reader.start()
    try:
        killed = read_with_a_kill(cluster, topic, offsets, TOTAL // 2)
        assert java.wait(240) == 0, java.stderr.read()[-3000:]
    finally:
        if java.poll() is None:
            java.kill()
            java.wait(10)
    reader.join(10)
    return offsets, killed


def confluent_kafka_offsets(cluster: KRaftCluster, topic: str) -> tuple[set[int], int]:
    consumer = confluent_kafka.Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": "tiered-reader",
                                        "enable.auto.commit": False, "max.partition.fetch.bytes": 262144})
    offsets: set[int] = set()
    killed = None
    try:
        consumer.assign([confluent_kafka.TopicPartition(topic, 0, 0)])

        def read_all() -> bool:
            nonlocal killed
            for message in consumer.consume(500, 0.5):
                assert message.error() is None, message.error()
                offsets.add(message.offset())
            if killed is None and len(offsets) >= TOTAL // 2:
                killed = read_with_a_kill(cluster, topic, offsets, TOTAL // 2)
            return len(offsets) >= TOTAL
        wait_until(read_all, timeout=240, message="every record through confluent-kafka", interval=0)
    finally:
        consumer.close()
    return offsets, killed


def test_a_tiered_topic_on_s3_through_a_kill_mid_copy_and_kills_mid_read(cluster, s3):
    topic = unique_topic("history")
    with cluster.nodes[1].admin() as admin:
        wait_until(lambda: created(admin, NewTopic(topic, 1, 3, {
            "remote.storage.enable": "true", "segment.bytes": str(1024 * 1024),
            "local.retention.bytes": str(2 * 1024 * 1024), "min.insync.replicas": "2"})),
            timeout=60, message="the tiered topic created", interval=0.5)
    wait_until(lambda: leader_of(cluster, topic), timeout=60, message="a leader")
    produce(cluster.bootstrap, topic, FIRST_BATCH)

    on_disk = wait_until(lambda: early_segments_only_remote(cluster, s3, topic), timeout=180,
                         message="the early segments only in the bucket", interval=0.5)
    print(f"local segments by broker: {on_disk}; segment logs in the bucket: {len(bucket_bases(s3, topic))}")

    killed, interrupted = kill_the_leader_mid_copy(cluster, s3, topic)
    cluster.nodes[killed].start()
    segments = wait_until(lambda: all_rolled_segments_copied(cluster, topic), timeout=180,
                          message="every rolled segment copied after the kill", interval=0.5)
    again = [m for m in segments if m.state is FINISHED and m.start_offset == interrupted.start_offset]
    assert len(again) == 1 and again[0].broker_id != killed, "the interrupted copy redone by the new leader"
    still = next(m for m in segments if m.remote_log_segment_id == interrupted.remote_log_segment_id)
    assert still.state is STARTED, "the abandoned copy is never finished, so never read"
    finished = [m for m in segments if m.state is FINISHED]
    assert len({m.start_offset for m in finished}) == len(finished)
    print(f"{len(finished)} finished segments cover offsets 0-{covered_once(segments) - 1} once; "
          f"the copy of {interrupted.start_offset}-{interrupted.end_offset} by broker {killed} was abandoned")

    java_offsets, java_killed = java_console_consumer_offsets(cluster, topic)
    assert java_offsets == set(range(TOTAL)), f"the Java client missed {TOTAL - len(java_offsets)} records"
    confluent_offsets, confluent_killed = confluent_kafka_offsets(cluster, topic)
    assert confluent_offsets == set(range(TOTAL)), f"confluent-kafka missed {TOTAL - len(confluent_offsets)}"
    print(f"every record read from offset 0 by the Java client (leader {java_killed} killed mid-read) "
          f"and by confluent-kafka (leader {confluent_killed} killed mid-read)")
