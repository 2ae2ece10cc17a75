"""Tiered storage (KIP-405) asked of both brokers, each copying a topic's rolled segments to remote storage
and deleting them locally: our broker to its LocalTieredStorage, Apache Kafka to a directory through
teaching.jvm.DirectoryRemoteStorageManager (tests/jvm/src/broker; Kafka ships its LocalTieredStorage only
in a test jar), both keeping what is remote in `__remote_log_metadata`.

The same batches make the same segments on both (segment.bytes), so once both have tiered them all,
ListOffsets' specs (-4 the local log start, -5 the highest offset copied, -6 the first not
copied), its lookups by time (in remote storage, KIP-1075) and a Fetch from offset 0 (the records read
back from remote storage) answer alike.
"""

from __future__ import annotations

import subprocess
import time

import pytest

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.record_batch import DefaultRecord, build_batch
from kafka.utils.free_port import free_port
from tests.differential.conftest import SHARED_SETTINGS, our_settings
from tests.differential.oracle import Pair, Side
from tests.differential.test_produce_fetch import create, fetch, list_offsets, produce
from tests.helpers import REPO, BrokerProcess, unique_topic, wait_until
from tests.jvm import resolve
from tests.jvm.apache_kafka import ApacheKafka

pytestmark = pytest.mark.timeout(300)  # two brokers started, and their copiers waited for

BROKER_SOURCES = REPO / "tests" / "jvm" / "src" / "broker" / "java"
LOCAL_TIERED_STORAGE = "org.apache.kafka.server.log.remote.storage.LocalTieredStorage"  # ours, Kafka's name
SEGMENT_BYTES = 1048576  # Kafka 4's smallest segment.bytes
BATCH_RECORDS, VALUE_BYTES = 4, 100_000  # a batch of ~400 KB: two fill a segment
TIERED_BROKER = {"remote.log.storage.system.enable": "true",
                 "remote.log.metadata.manager.listener.name": "PLAINTEXT",
                 "rlmm.config.remote.log.metadata.topic.replication.factor": "1",
                 "remote.log.manager.task.interval.ms": "500", "log.retention.check.interval.ms": "500"}
TIERED_TOPIC = {"remote.storage.enable": "true", "segment.bytes": str(SEGMENT_BYTES),
                "local.retention.ms": "1000"}


def compile_remote_storage_manager(out_dir) -> str:
    """javac DirectoryRemoteStorageManager against the broker's jars; the directory of its classes."""
    done = subprocess.run(["javac", "-nowarn", "-Xlint:none", "--release", "17", "-d", str(out_dir), "-cp",
                           resolve.classpath("broker"), *map(str, BROKER_SOURCES.rglob("*.java"))],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"javac failed:\n{done.stderr}"
    return str(out_dir)


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiered")
    classes = compile_remote_storage_manager(root / "classes")
    kafka = ApacheKafka(root / "apache", overrides={
        **SHARED_SETTINGS, **TIERED_BROKER, "rsm.config.dir": str(root / "apache-remote"),
        "remote.log.storage.manager.class.name": "teaching.jvm.DirectoryRemoteStorageManager",
        "log.initial.task.delay.ms": "0"})  # Kafka's first retention check otherwise waits 30 s
    for node in kafka.nodes:
        node.classpath += f":{classes}"
    kafka.start()
    try:
        port = free_port()
        (root / "ours").mkdir()
        ours = BrokerProcess(root / "ours" / "data", {
            **our_settings(port, free_port()), **TIERED_BROKER, "rsm.config.dir": str(root / "ours-remote"),
            "remote.log.storage.manager.class.name": LOCAL_TIERED_STORAGE}, port=port)
        try:
            both = Pair(Side("ours", ours.port), Side("apache", kafka.nodes[0].port))
            yield both
            both.close()
        finally:
            ours.stop()
    finally:
        kafka.stop()


def earliest_local(pair: Pair, topic: str) -> list[int]:
    return [answer.topics[0].partitions[0].offset
            for answer in pair.ask(ApiKey.LIST_OFFSETS, 8, list_offsets(topic, -4))]


def test_the_tiered_specs_lookups_by_time_and_a_fetch_from_remote_storage(pair):
    topic = unique_topic("tiered")
    create(pair, topic, configs=TIERED_TOPIC)
    now = int(time.time() * 1000)
    # Segments [0..7], [8..15], [16..23]: both brokers copy the rolled ones, and local retention (past
    # local.retention.bytes) rolls the active one too, so that in the end all of [0, 24) is remote only.
    for i in range(6):
        batch = build_batch([DefaultRecord(j, now + 10 * i, b"k", b"x" * VALUE_BYTES)
                             for j in range(BATCH_RECORDS)])
        pair.same(ApiKey.PRODUCE, 9, produce(topic, batch), volatile=("responses*log_append_time_ms",))
    wait_until(lambda: earliest_local(pair, topic) == [24, 24], timeout=90, interval=0.5,
               message="both brokers to tier [0, 24) and delete it locally")
    for version in (9, 10, 11):
        for spec in (-1, -2, -3, -4, -5, -6):
            pair.same(ApiKey.LIST_OFFSETS, version, list_offsets(topic, spec))
    for timestamp in (now, now + 15, now + 30, now + 50, now + 10_000):  # in remote storage, or nowhere
        pair.same(ApiKey.LIST_OFFSETS, 10, {**list_offsets(topic, timestamp), "timeout_ms": 10_000})
    pair.same(ApiKey.LIST_OFFSETS, 7, list_offsets(topic, now + 30, isolation_level=1))
    for offset in (0, 5, 12, 16, 24):  # whole batches to the remote segment's end; at the log end nothing
        pair.same(ApiKey.FETCH, 12, fetch(topic, offset))
