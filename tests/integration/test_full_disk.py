"""Acceptance: a full disk is answered with Kafka's error codes, never with a dropped connection.

Appends that fail with ENOSPC answer KAFKA_STORAGE_ERROR and leave nothing behind; reads go on;
OfflineLogDirectoryCount says so; appends are accepted again once there is space. FindCoordinator
answers COORDINATOR_NOT_AVAILABLE while __consumer_offsets cannot be created. Two ways to fill a
disk: ENOSPC injected at LogSegment's one write (deterministic, any user), and a real 20 MB tmpfs
(root only).
"""

from __future__ import annotations

import errno
import os
import subprocess
import urllib.request

import pytest

from kafka.log import log_segment
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import DefaultRecord, build_batch, iter_batches
from tests.helpers import unique_topic, wait_until
from tests.wire import WireClient

OFFLINE_DIRS = "kafka_log_logmanager_offlinelogdirectorycount"


def batch(first: int, count: int, size: int = 10) -> bytes:
    return bytes(build_batch([DefaultRecord(i, 0, b"k%d" % (first + i), b"v" * size) for i in range(count)]))


def produce(client: WireClient, topic: str, records: bytes):
    response = client.request(ApiKey.PRODUCE, 9, {"transactional_id": None, "acks": -1, "timeout_ms": 5000,
                                                  "topic_data": [{"name": topic, "partition_data": [
                                                      {"index": 0, "records": records}]}]})
    return response.responses[0].partition_responses[0]


def fetch_offsets(client: WireClient, topic: str) -> list[int]:
    response = client.request(ApiKey.FETCH, 12, {
        "replica_id": -1, "max_wait_ms": 0, "min_bytes": 0, "max_bytes": 10_000_000, "isolation_level": 0,
        "session_id": 0, "session_epoch": -1, "rack_id": "", "forgotten_topics_data": [],
        "topics": [{"topic": topic,
                    "partitions": [{"partition": 0, "fetch_offset": 0, "partition_max_bytes": 10_000_000}]}]})
    data = response.responses[0].partitions[0]
    assert data.error_code == Errors.NONE
    offsets = []
    for b in iter_batches(bytes(data.records or b"")):
        b.ensure_valid()
        offsets += [r.offset for r in b]
    return offsets


def metric(broker, name: str) -> float:
    text = urllib.request.urlopen(f"{broker.server.metrics_endpoint.url}/metrics", timeout=10).read().decode()
    return next(float(line.split()[-1]) for line in text.splitlines() if line.startswith(name + " "))


def create(client: WireClient, topic: str):
    return client.request(ApiKey.CREATE_TOPICS, 7, {
        "topics": [{"name": topic, "num_partitions": 1, "replication_factor": 1}],
        "timeout_ms": 5000}).topics[0]


def find_coordinator(client: WireClient, group: str):
    return client.request(ApiKey.FIND_COORDINATOR, 3, {"key": group, "key_type": 0})


def test_enospc_at_the_segment_write_answers_kafka_storage_error_and_loses_nothing(broker, monkeypatch):
    full = [False]
    real_write = log_segment._write_fully

    def write_until_the_disk_is_full(fd, data):
        if not full[0]:
            return real_write(fd, data)
        os.write(fd, bytes(data)[: len(data) // 2])  # what a filling disk does: part of it lands
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(log_segment, "_write_fully", write_until_the_disk_is_full)
    topic = unique_topic("full")
    client = WireClient(broker.port)
    assert create(client, topic).error_code == Errors.NONE
    assert produce(client, topic, batch(0, 5)).error_code == Errors.NONE
    assert metric(broker, OFFLINE_DIRS) == 0

    full[0] = True
    failed = produce(client, topic, batch(5, 5))
    assert failed.error_code == Errors.KAFKA_STORAGE_ERROR
    assert failed.error_message is None  # as Kafka answers KAFKA_STORAGE_ERROR; the broker's log says why
    assert metric(broker, OFFLINE_DIRS) == 1
    assert fetch_offsets(client, topic) == [0, 1, 2, 3, 4]  # same connection, reads still served

    full[0] = False  # space freed
    ok = produce(client, topic, batch(5, 3))
    assert (ok.error_code, ok.base_offset) == (Errors.NONE, 5)  # right after the last whole batch
    assert fetch_offsets(client, topic) == list(range(8))  # no torn bytes between them
    assert metric(broker, OFFLINE_DIRS) == 0
    client.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a 20 MB tmpfs needs root")
def test_a_real_full_filesystem(start_broker, tmp_path):
    mount = tmp_path / "small"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=20m", "tmpfs", str(mount)], check=True)
    broker = None
    try:
        # The metadata log lives elsewhere (metadata.log.dir): a KRaft node whose metadata log cannot be
        # written stops being a quorum member (Kafka shuts it down); this test is about the data.
        broker = start_broker(data_dir=mount / "data", overrides={"metadata.log.dir": str(tmp_path / "meta")})
        client = WireClient(broker.port)
        topic = unique_topic("full")
        assert create(client, topic).error_code == Errors.NONE
        filler = mount / "filler"
        with open(filler, "wb", buffering=0) as f:  # fill the filesystem to the last byte
            try:
                while True:
                    f.write(b"\0" * 65536)
            except OSError as e:
                assert e.errno == errno.ENOSPC
        failed = produce(client, topic, batch(0, 100, size=1000))
        assert failed.error_code == Errors.KAFKA_STORAGE_ERROR
        assert metric(broker, OFFLINE_DIRS) == 1
        assert fetch_offsets(client, topic) == []

        filler.unlink()  # free the space: both work again, on the same connection
        assert produce(client, topic, batch(0, 100, size=1000)).error_code == Errors.NONE
        # __consumer_offsets is created on first use, by the controller: FindCoordinator answers
        # COORDINATOR_NOT_AVAILABLE until it exists, and a client asks again, as Kafka's do
        wait_until(lambda: find_coordinator(client, "g").error_code == Errors.NONE, timeout=30,
                   message="the group coordinator, once __consumer_offsets exists")
        assert fetch_offsets(client, topic) == list(range(100))
        assert metric(broker, OFFLINE_DIRS) == 0
        client.close()
    finally:
        if broker is not None:
            broker.stop()  # before the filesystem goes (stopping twice is harmless)
        subprocess.run(["umount", "-l", str(mount)], check=False)
