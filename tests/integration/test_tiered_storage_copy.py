"""Tiered storage's write side on an in-process broker (KIP-405): a topic with remote.storage.enable copies
its rolled segments to LocalTieredStorage, local retention then deletes the local copies, and a restarted
broker reads `__remote_log_metadata` back and knows what is remote."""

from __future__ import annotations

from pathlib import Path

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from kafka.log.remote.local_tiered_storage import partition_directory_name
from kafka.log.remote.remote_log_segment_metadata import RemoteLogSegmentState
from kafka.metrics.remote_storage_metrics import REMOTE_COPY_REQUESTS
from kafka.utils.topic_id_partition import TopicIdPartition
from tests.helpers import wait_until

TOPIC = "tiered-copy"
LOCAL_TIERED_STORAGE = "org.apache.kafka.server.log.remote.storage.LocalTieredStorage"


def tiered_broker(remote_dir: Path) -> dict[str, str]:
    return {"remote.log.storage.system.enable": "true",
            "remote.log.storage.manager.class.name": LOCAL_TIERED_STORAGE,
            "rsm.config.dir": str(remote_dir),
            "remote.log.metadata.manager.listener.name": "PLAINTEXT",
            "rlmm.config.remote.log.metadata.topic.replication.factor": "1",
            "rlmm.config.remote.log.metadata.topic.min.isr": "1",
            "rlmm.config.remote.log.metadata.topic.num.partitions": "5",
            "remote.log.manager.task.interval.ms": "200",
            "log.retention.check.interval.ms": "200"}


def create_tiered_topic(bootstrap: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(TOPIC, num_partitions=1, replication_factor=1, config={
        "remote.storage.enable": "true", "segment.bytes": "4096", "local.retention.bytes": "1"})])
    futures[TOPIC].result(15)


def produce(bootstrap: str, count: int) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 1, "batch.size": 1024})
    for i in range(count):
        producer.produce(TOPIC, key=b"%d" % i, value=b"v" * 200)
    assert producer.flush(20) == 0


def remote_segments(server) -> list:
    rlm = server.replica_manager.remote_log_manager
    tip = TopicIdPartition(server.metadata_cache.get_topic(TOPIC).topic_id, TOPIC, 0)
    if not rlm.remote_log_metadata_manager.is_ready(tip):
        return []
    return [m for m in rlm.remote_log_metadata_manager.list_remote_log_segments(tip)
            if m.state is RemoteLogSegmentState.COPY_SEGMENT_FINISHED]


def test_segments_are_copied_local_ones_deleted_and_a_restart_knows_what_is_remote(start_broker, tmp_path):
    data, remote = tmp_path / "data", tmp_path / "remote"
    broker = start_broker(data, tiered_broker(remote))
    create_tiered_topic(broker.bootstrap)
    produce(broker.bootstrap, 200)  # ~50 KB: a dozen 4 KB segments
    server = broker.server
    log = server.log_manager.get_log(TOPIC, 0)

    def tiered() -> bool:
        copied = remote_segments(server)
        local_start = log.local_log_start_offset
        return len(copied) >= 5 and log.num_segments <= 2 and local_start > copied[0].end_offset
    wait_until(tiered, timeout=60, message="segments copied to remote storage and deleted locally")
    copied = remote_segments(server)
    assert log.log_start_offset == 0, "every record is still there, the old ones in remote storage"
    assert [m.start_offset for m in copied][0] == 0
    assert all(a.end_offset + 1 == b.start_offset for a, b in zip(copied, copied[1:], strict=False))
    tip = copied[0].topic_id_partition
    files = {p.name for p in (remote / "kafka-tiered-storage" / partition_directory_name(tip)).iterdir()}
    assert sum(name.endswith(".log") for name in files) >= len(copied)
    assert server.metadata_cache.get_topic("__remote_log_metadata").num_partitions == 5
    assert server.replica_manager.remote_log_manager.stats.count(REMOTE_COPY_REQUESTS, TOPIC) >= len(copied)

    broker.stop()
    again = start_broker(data, tiered_broker(remote))
    restarted = again.server
    wait_until(lambda: remote_segments(restarted), timeout=60, message="the remote log metadata read back")
    assert [m.remote_log_segment_id for m in remote_segments(restarted)][:len(copied)] == \
        [m.remote_log_segment_id for m in copied]
    log = restarted.log_manager.get_log(TOPIC, 0)
    assert log.log_start_offset == 0 and log.local_log_start_offset > 0, "it still starts in remote storage"
    produce(again.bootstrap, 100)
    wait_until(lambda: len(remote_segments(restarted)) > len(copied), timeout=60,
               message="copying resumes after the restart")
    resumed = remote_segments(restarted)
    assert all(a.end_offset + 1 == b.start_offset for a, b in zip(resumed, resumed[1:], strict=False)), \
        "nothing copied twice, nothing skipped"


def test_deleting_a_tiered_topic_deletes_its_remote_segments(start_broker, tmp_path):
    remote = tmp_path / "remote"
    broker = start_broker(tmp_path / "data", tiered_broker(remote))
    create_tiered_topic(broker.bootstrap)
    produce(broker.bootstrap, 100)
    server = broker.server
    wait_until(lambda: len(remote_segments(server)) >= 3, timeout=60, message="segments copied")
    tip = remote_segments(server)[0].topic_id_partition
    partition_dir = remote / "kafka-tiered-storage" / partition_directory_name(tip)
    assert any(p.name.endswith(".log") for p in partition_dir.iterdir())
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.delete_topics([TOPIC])[TOPIC].result(15)
    wait_until(lambda: not any(p.name.endswith(".log") for p in partition_dir.iterdir()), timeout=60,
               message="the deleted topic's remote segments deleted")
    assert not server.replica_manager.remote_log_manager.topic_id_by_partition, "its tasks are gone"
